package versioning

import "context"

// DefaultPrivileges is one entry of ALTER DEFAULT PRIVILEGES, PostgreSQL's
// pg_default_acl row: the ACL that objects of kind ObjType which Role
// creates start with, everywhere (Schema "") or, added to that, in one
// schema. It lives in the root value like the ACLs it makes, so a branch
// can change it and a merge carries it.
type DefaultPrivileges struct {
	Role   string `json:"role"`
	Schema string `json:"schema,omitempty"`
	// ObjType is pg_default_acl.defaclobjtype: 'r' tables (and views),
	// 'S' sequences, 'f' functions, 'T' types, 'n' schemas.
	ObjType byte      `json:"objtype"`
	ACL     []ACLItem `json:"acl"`
}

// Kinds of objects default privileges are kept for, as defaclobjtype.
const (
	DefaultTables    = 'r'
	DefaultSequences = 'S'
	DefaultFunctions = 'f'
	DefaultTypes     = 'T'
	DefaultSchemas   = 'n'
)

func defaultPrivilegesKey(role, schema string, objType byte) []byte {
	return objectKey(kindDefaultACL, schema, role+"\x00"+string(objType))
}

// DefaultPrivilegesOf returns the entry of role in schema ("" for the one
// of every schema) for objects of objType.
func (r RootValue) DefaultPrivilegesOf(ctx context.Context, role, schema string, objType byte) (*DefaultPrivileges, bool, error) {
	return getObject[DefaultPrivileges](ctx, r, defaultPrivilegesKey(role, schema, objType))
}

// AllDefaultPrivileges returns every entry, ordered by schema, role and
// kind of object.
func (r RootValue) AllDefaultPrivileges(ctx context.Context) ([]*DefaultPrivileges, error) {
	return listObjects[DefaultPrivileges](ctx, r, kindDefaultACL)
}

// PutDefaultPrivileges returns the root value with d stored.
func (r RootValue) PutDefaultPrivileges(ctx context.Context, d *DefaultPrivileges) (RootValue, error) {
	return r.put(ctx, defaultPrivilegesKey(d.Role, d.Schema, d.ObjType), d)
}

// DropDefaultPrivileges returns the root value without the entry of role
// in schema for objType.
func (r RootValue) DropDefaultPrivileges(ctx context.Context, role, schema string, objType byte) (RootValue, error) {
	return r.drop(ctx, defaultPrivilegesKey(role, schema, objType))
}
