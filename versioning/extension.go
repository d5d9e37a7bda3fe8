package versioning

import (
	"context"

	"github.com/prollypg/prollypg/versioning/sqldef"
)

func extensionKey(name string) []byte { return objectKey(kindExtension, "", name) }

// ExtensionNamed returns the installed extension name.
func (r RootValue) ExtensionNamed(ctx context.Context, name string) (*sqldef.Extension, bool, error) {
	return getObject[sqldef.Extension](ctx, r, extensionKey(name))
}

// Extensions returns the installed extensions, ordered by name.
func (r RootValue) Extensions(ctx context.Context) ([]*sqldef.Extension, error) {
	return listObjects[sqldef.Extension](ctx, r, kindExtension)
}

// PutExtension returns the root value with e installed.
func (r RootValue) PutExtension(ctx context.Context, e *sqldef.Extension) (RootValue, error) {
	return r.put(ctx, extensionKey(e.Name), e)
}

// DropExtension returns the root value without extension name.
func (r RootValue) DropExtension(ctx context.Context, name string) (RootValue, error) {
	return r.drop(ctx, extensionKey(name))
}
