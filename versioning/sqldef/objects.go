package sqldef

import (
	"reflect"

	"github.com/prollypg/prollypg/store"
)

// TableName is a schema-qualified table name.
type TableName struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
}

func (t TableName) String() string { return t.Schema + "." + t.Name }

// sameDefinition reports whether two table records differ only in their
// data: row and index roots and the row id counter.
func SameDefinition(a, b *Table) bool {
	strip := func(t *Table) Table {
		s := *t
		s.Rows, s.NextRowID = store.Address{}, 0
		s.Indexes = append([]Index(nil), t.Indexes...)
		for i := range s.Indexes {
			s.Indexes[i].Rows = store.Address{}
		}
		return s
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

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

// IsOperator reports whether f is an operator's record (CREATE OPERATOR),
// IsCast whether it is a cast's (CREATE CAST), and NotRoutine whether it
// is either, rather than a function's, procedure's or aggregate's.
func (f *Function) IsOperator() bool { return f.Kind == 'o' }

func (f *Function) IsCast() bool { return f.Kind == 'c' }

func (f *Function) NotRoutine() bool { return f.IsOperator() || f.IsCast() }
