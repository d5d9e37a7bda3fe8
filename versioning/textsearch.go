package versioning

import (
	"context"

	"github.com/prollypg/prollypg/versioning/sqldef"
)

func textSearchDictKey(schema, name string) []byte {
	return objectKey(kindTextSearchDict, schema, name)
}

func textSearchConfigKey(schema, name string) []byte {
	return objectKey(kindTextSearchConfig, schema, name)
}

// TextSearchDictionary returns the text search dictionary schema.name.
func (r RootValue) TextSearchDictionary(ctx context.Context, schema, name string) (*sqldef.TextSearchDictionary, bool, error) {
	return getObject[sqldef.TextSearchDictionary](ctx, r, textSearchDictKey(schema, name))
}

// TextSearchDictionaries returns every text search dictionary, ordered
// by schema and name.
func (r RootValue) TextSearchDictionaries(ctx context.Context) ([]*sqldef.TextSearchDictionary, error) {
	return listObjects[sqldef.TextSearchDictionary](ctx, r, kindTextSearchDict)
}

// PutTextSearchDictionary returns the root value with d created or
// replaced.
func (r RootValue) PutTextSearchDictionary(ctx context.Context, d *sqldef.TextSearchDictionary) (RootValue, error) {
	return r.put(ctx, textSearchDictKey(d.Schema, d.Name), d)
}

// DropTextSearchDictionary returns the root value without dictionary
// schema.name.
func (r RootValue) DropTextSearchDictionary(ctx context.Context, schema, name string) (RootValue, error) {
	return r.drop(ctx, textSearchDictKey(schema, name))
}

// TextSearchConfig returns the text search configuration schema.name.
func (r RootValue) TextSearchConfig(ctx context.Context, schema, name string) (*sqldef.TextSearchConfig, bool, error) {
	return getObject[sqldef.TextSearchConfig](ctx, r, textSearchConfigKey(schema, name))
}

// TextSearchConfigs returns every text search configuration, ordered by
// schema and name.
func (r RootValue) TextSearchConfigs(ctx context.Context) ([]*sqldef.TextSearchConfig, error) {
	return listObjects[sqldef.TextSearchConfig](ctx, r, kindTextSearchConfig)
}

// PutTextSearchConfig returns the root value with c created or replaced.
func (r RootValue) PutTextSearchConfig(ctx context.Context, c *sqldef.TextSearchConfig) (RootValue, error) {
	return r.put(ctx, textSearchConfigKey(c.Schema, c.Name), c)
}

// DropTextSearchConfig returns the root value without configuration
// schema.name.
func (r RootValue) DropTextSearchConfig(ctx context.Context, schema, name string) (RootValue, error) {
	return r.drop(ctx, textSearchConfigKey(schema, name))
}
