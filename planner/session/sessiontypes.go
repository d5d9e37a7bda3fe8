package session

import (
	"context"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
)

// userTypes is the catalog of user types of one root value, by OID.
type userTypes struct {
	root       versioning.Address
	byOID      map[types.Oid]*types.UserType
	tablesRead bool
}

// sessionTypes is the session's types.Catalog: the user types of its
// transaction's current root value, decoded once per root.
type sessionTypes struct{ s *Session }

func (c sessionTypes) UserType(oid types.Oid) (*types.UserType, bool) {
	tx := c.s.txn
	if tx == nil {
		return nil, false
	}
	// Text input has no context of its own; reading catalog records
	// from the chunk store does not block on anything it could cancel.
	ctx := context.Background()
	ut := c.s.userTypes
	if ut == nil || ut.root != tx.Catalog().Addr() {
		ut = &userTypes{root: tx.Catalog().Addr(), byOID: map[types.Oid]*types.UserType{}}
		c.s.userTypes = ut
		defs, err := tx.Catalog().Types(ctx)
		if err != nil {
			return nil, false
		}
		for _, d := range defs {
			u := planner.DescribeType(d)
			ut.byOID[u.Oid] = u
		}
	}
	if u, ok := ut.byOID[oid]; ok {
		return u, true
	}
	if cat, _ := types.UserCategoryOf(oid); cat == types.UserComposite && !ut.tablesRead {
		// A table's row type: its columns are the fields.
		ut.tablesRead = true
		tables, err := tx.Root().Tables(ctx)
		if err != nil {
			return nil, false
		}
		for _, t := range tables {
			u := &types.UserType{Oid: types.Oid(exec.TypeOID(types.UserComposite, t.Schema, t.Name)), Schema: t.Schema, Name: t.Name}
			for _, c := range t.Columns {
				if !c.Dropped {
					u.FieldNames = append(u.FieldNames, c.Name)
					u.FieldTypes = append(u.FieldTypes, types.Oid(c.Type))
					u.FieldTypmods = append(u.FieldTypmods, c.Typmod)
				}
			}
			ut.byOID[u.Oid] = u
		}
		u, ok := ut.byOID[oid]
		return u, ok
	}
	return nil, false
}

// TypeName names user type oid, or its array type, as format_type does:
// qualified by its schema when the search path does not find it.
func (c sessionTypes) TypeName(oid types.Oid) (string, bool) {
	if ext := types.ExtensionOf(oid); ext != "" {
		return c.extensionTypeName(ext, oid)
	}
	_, array := types.UserCategoryOf(oid)
	u, ok := c.UserType(oid &^ types.ArrayBit)
	if !ok {
		return "", false
	}
	name := planner.QuoteIdent(u.Name)
	if !c.s.typeVisible(u.Schema, u.Name) {
		name = planner.QuoteIdent(u.Schema) + "." + name
	}
	if array {
		name += "[]"
	}
	return name, true
}

// extensionTypeName names type oid of extension ext (citext), as
// TypeName does: qualified by the schema the extension is installed in
// (public when it is not installed) when that schema is not on the search
// path, as in the dumps pg_dump makes with an empty one.
func (c sessionTypes) extensionTypeName(ext string, oid types.Oid) (string, bool) {
	t := types.Lookup(oid)
	if t == nil || c.s.txn == nil {
		return "", false
	}
	name, suffix := t.Name, ""
	if t.IsArray {
		name, suffix = types.Lookup(t.Elem).Name, "[]"
	}
	schema := "public"
	if e, ok, err := c.s.txn.Catalog().ExtensionNamed(context.Background(), ext); err == nil && ok {
		schema = e.Schema
	}
	for _, sch := range c.s.SearchPath() {
		if sch == schema {
			return name + suffix, true
		}
	}
	return planner.QuoteIdent(schema) + "." + name + suffix, true
}

// ExtensionInstalled reports whether extension name is installed in the
// transaction's database (exec.ExtensionCatalog).
func (c sessionTypes) ExtensionInstalled(name string) bool {
	if c.s.txn == nil {
		return false
	}
	_, ok, err := c.s.txn.Catalog().ExtensionNamed(context.Background(), name)
	return ok && err == nil
}

var _ exec.ExtensionCatalog = sessionTypes{}

// typeVisible reports whether the unqualified name finds the type of
// schema.name: schema is the first on the search path with a type (or
// table) of that name.
func (s *Session) typeVisible(schema, name string) bool {
	tx := s.txn
	ctx := context.Background()
	for _, sch := range s.SearchPath() {
		if sch == schema {
			return true
		}
		if _, ok, _ := tx.Root().Type(ctx, sch, name); ok {
			return false
		}
		if _, ok, _ := tx.Root().Table(ctx, sch, name); ok {
			return false
		}
	}
	return false
}
