package versioning

import (
	"context"

	"github.com/prollypg/prollypg/versioning/sqldef"
)

func defaultPrivilegesKey(role, schema string, objType byte) []byte {
	return objectKey(kindDefaultACL, schema, role+"\x00"+string(objType))
}

// DefaultPrivilegesOf returns the entry of role in schema ("" for the one
// of every schema) for objects of objType.
func (r RootValue) DefaultPrivilegesOf(ctx context.Context, role, schema string, objType byte) (*sqldef.DefaultPrivileges, bool, error) {
	return getObject[sqldef.DefaultPrivileges](ctx, r, defaultPrivilegesKey(role, schema, objType))
}

// AllDefaultPrivileges returns every entry, ordered by schema, role and
// kind of object.
func (r RootValue) AllDefaultPrivileges(ctx context.Context) ([]*sqldef.DefaultPrivileges, error) {
	return listObjects[sqldef.DefaultPrivileges](ctx, r, kindDefaultACL)
}

// PutDefaultPrivileges returns the root value with d stored.
func (r RootValue) PutDefaultPrivileges(ctx context.Context, d *sqldef.DefaultPrivileges) (RootValue, error) {
	return r.put(ctx, defaultPrivilegesKey(d.Role, d.Schema, d.ObjType), d)
}

// DropDefaultPrivileges returns the root value without the entry of role
// in schema for objType.
func (r RootValue) DropDefaultPrivileges(ctx context.Context, role, schema string, objType byte) (RootValue, error) {
	return r.drop(ctx, defaultPrivilegesKey(role, schema, objType))
}
