package planner

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/versioning"
)

// User-defined types. Enums and composites are exec types of their own,
// with OIDs derived from their names (exec.TypeOID); a domain is its base
// type to the executor, and its constraints are checked where values are
// assigned or cast to it (domain.go).

// typeOIDOf returns the OID of stored type t.
func typeOIDOf(t *versioning.Type) uint32 { return catalog.TypeOID(t) }

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
	if ut == nil || ut.root != tx.Root.Addr() {
		ut = &userTypes{root: tx.Root.Addr(), byOID: map[types.Oid]*types.UserType{}}
		c.s.userTypes = ut
		defs, err := tx.Root.Types(ctx)
		if err != nil {
			return nil, false
		}
		for _, d := range defs {
			u := describeType(d)
			ut.byOID[u.Oid] = u
		}
	}
	if u, ok := ut.byOID[oid]; ok {
		return u, true
	}
	if cat, _ := types.UserCategoryOf(oid); cat == types.UserComposite && !ut.tablesRead {
		// A table's row type: its columns are the fields.
		ut.tablesRead = true
		tables, err := tx.Root.Tables(ctx)
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
	_, array := types.UserCategoryOf(oid)
	u, ok := c.UserType(oid &^ types.ArrayBit)
	if !ok {
		return "", false
	}
	name := quoteIdent(u.Name)
	if !c.s.typeVisible(u.Schema, u.Name) {
		name = quoteIdent(u.Schema) + "." + name
	}
	if array {
		name += "[]"
	}
	return name, true
}

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
		if _, ok, _ := tx.Root.Type(ctx, sch, name); ok {
			return false
		}
		if _, ok, _ := tx.Root.Table(ctx, sch, name); ok {
			return false
		}
	}
	return false
}

// describeType is what text I/O needs of stored type d.
func describeType(d *versioning.Type) *types.UserType {
	u := &types.UserType{Oid: types.Oid(typeOIDOf(d)), Schema: d.Schema, Name: d.Name}
	for _, l := range d.Labels {
		u.Labels = append(u.Labels, l.Label)
		u.Sorts = append(u.Sorts, l.Sort)
	}
	for _, f := range d.Fields {
		u.FieldNames = append(u.FieldNames, f.Name)
		u.FieldTypes = append(u.FieldTypes, types.Oid(f.Type))
		u.FieldTypmods = append(u.FieldTypmods, f.Typmod)
	}
	return u
}

// lookupType finds the user type schema.name ("" schema: along
// search_path); nil when there is none.
func (a *analyzer) lookupType(ctx context.Context, schema, name string) (*versioning.Type, error) {
	schemas := []string{schema}
	if schema == "" {
		schemas = a.s.SearchPath()
	}
	for _, sch := range schemas {
		t, ok, err := a.tx.Root.Type(ctx, sch, name)
		if err != nil || ok {
			return t, err
		}
	}
	return nil, nil
}

// typeByOID finds the stored user type of OID oid; nil when there is none.
func typeByOID(ctx context.Context, root versioning.RootValue, oid uint32) (*versioning.Type, error) {
	all, err := root.Types(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range all {
		if typeOIDOf(t) == oid {
			return t, nil
		}
	}
	return nil, nil
}

// resolveType returns the type a TypeName names, built-in or user-defined
// (a domain gives its base type, and the domain in dom), and whether it
// is a serial pseudo-type.
func (a *analyzer) resolveType(tn *pg.TypeName) (exec.T, bool, error) {
	t, dom, serial, err := a.resolveTypeDomain(tn)
	_ = dom
	return t, serial, err
}

// resolveTypeDomain is resolveType that also returns the domain a name
// names, nil for other types.
func (a *analyzer) resolveTypeDomain(tn *pg.TypeName) (exec.T, *versioning.Type, bool, error) {
	t, serial, err := resolveType(tn)
	if err == nil {
		return t, nil, serial, nil
	}
	var parts []string
	for _, n := range tn.Names {
		parts = append(parts, n.GetString_().GetSval())
	}
	schema, name := "", parts[len(parts)-1]
	if len(parts) == 2 {
		schema = parts[0]
	} else if len(parts) > 2 {
		return exec.T{}, nil, false, err
	}
	ut, lerr := a.lookupType(a.ctx, schema, name)
	if lerr != nil {
		return exec.T{}, nil, false, lerr
	}
	if ut == nil {
		// A table's row type.
		if rel, rerr := a.lookupRowType(schema, name); rerr == nil && rel.OID != 0 {
			t = rel
		} else {
			return exec.T{}, nil, false, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", strings.Join(parts, "."))
		}
	} else if ut.Kind == 'd' {
		t = exec.T{OID: ut.Base, Typmod: ut.BaseTypmod}
	} else {
		t = exec.T{OID: typeOIDOf(ut), Typmod: -1}
	}
	if len(tn.ArrayBounds) > 0 {
		at := exec.ArrayType(t)
		if at.OID == 0 {
			return exec.T{}, nil, false, pgerr.New(pgerr.UndefinedObject, "could not find array type for data type %s", name)
		}
		return at, nil, false, nil
	}
	if ut != nil && ut.Kind == 'd' {
		return t, ut, false, nil
	}
	return t, nil, false, nil
}

// lookupRowType returns the row type of table schema.name, or the zero T.
func (a *analyzer) lookupRowType(schema, name string) (exec.T, error) {
	schemas := []string{schema}
	if schema == "" {
		schemas = a.s.SearchPath()
	}
	for _, sch := range schemas {
		_, ok, err := a.tx.Root.Table(a.ctx, sch, name)
		if err != nil {
			return exec.T{}, err
		}
		if ok {
			return exec.T{OID: exec.TypeOID(types.UserComposite, sch, name), Typmod: -1}, nil
		}
	}
	return exec.T{}, nil
}
