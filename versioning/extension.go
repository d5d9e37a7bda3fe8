package versioning

import "context"

// Extension is one extension CREATE EXTENSION installed, PostgreSQL's
// pg_extension row. The extensions this server knows have their objects
// built in, so the record is all that installing one changes: it makes
// pg_extension list it, a second CREATE EXTENSION fail, and DROP
// EXTENSION find it. It lives in the root value, so a branch can install
// one and a merge carries it.
type Extension struct {
	Name    string `json:"name"`
	Schema  string `json:"schema"`
	Version string `json:"version"`
	Owner   string `json:"owner,omitempty"`
}

func extensionKey(name string) []byte { return objectKey(kindExtension, "", name) }

// ExtensionNamed returns the installed extension name.
func (r RootValue) ExtensionNamed(ctx context.Context, name string) (*Extension, bool, error) {
	return getObject[Extension](ctx, r, extensionKey(name))
}

// Extensions returns the installed extensions, ordered by name.
func (r RootValue) Extensions(ctx context.Context) ([]*Extension, error) {
	return listObjects[Extension](ctx, r, kindExtension)
}

// PutExtension returns the root value with e installed.
func (r RootValue) PutExtension(ctx context.Context, e *Extension) (RootValue, error) {
	return r.put(ctx, extensionKey(e.Name), e)
}

// DropExtension returns the root value without extension name.
func (r RootValue) DropExtension(ctx context.Context, name string) (RootValue, error) {
	return r.drop(ctx, extensionKey(name))
}
