package planner

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// User-defined types. Enums and composites are exec types of their own,
// with OIDs derived from their names (exec.TypeOID); a domain is its base
// type to the executor, and its constraints are checked where values are
// assigned or cast to it (domain.go).

// TypeOIDOf returns the OID of stored type t.
func TypeOIDOf(t *sqldef.Type) uint32 { return catalog.TypeOID(t) }

// DescribeType is what text I/O needs of stored type d.
func DescribeType(d *sqldef.Type) *types.UserType {
	u := &types.UserType{Oid: types.Oid(TypeOIDOf(d)), Schema: d.Schema, Name: d.Name}
	for _, l := range d.Labels {
		u.Labels = append(u.Labels, l.Label)
		u.Sorts = append(u.Sorts, l.Sort)
	}
	for _, f := range d.Fields {
		u.FieldNames = append(u.FieldNames, f.Name)
		u.FieldTypes = append(u.FieldTypes, types.Oid(f.Type))
		u.FieldTypmods = append(u.FieldTypmods, f.Typmod)
	}
	if d.Kind == 'r' {
		u.RangeSubtype, u.SubtypeDiff = types.Oid(d.Base), d.SubtypeDiff
	}
	return u
}

// lookupType finds the user type schema.name ("" schema: along
// search_path); nil when there is none.
func (a *analyzer) lookupType(ctx context.Context, schema, name string) (*sqldef.Type, error) {
	schemas := []string{schema}
	if schema == "" {
		schemas = a.s.SearchPath()
	}
	for _, sch := range schemas {
		t, ok, err := a.tx.Catalog().Type(ctx, sch, name)
		if err != nil || ok {
			return t, err
		}
	}
	return nil, nil
}

// typeByOID finds the stored user type of OID oid; nil when there is none.
func typeByOID(ctx context.Context, root Catalog, oid uint32) (*sqldef.Type, error) {
	all, err := root.Types(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range all {
		if TypeOIDOf(t) == oid {
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
func (a *analyzer) resolveTypeDomain(tn *pg.TypeName) (exec.T, *sqldef.Type, bool, error) {
	t, serial, err := ResolveType(tn)
	if err == nil && !a.userTypeShadows(tn) {
		return t, nil, serial, nil
	}
	if err == nil {
		err = pgerr.New(pgerr.UndefinedObject, "type does not exist")
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
		t = exec.T{OID: TypeOIDOf(ut), Typmod: -1}
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

// userTypeShadows reports whether tn names an extension's type (citext,
// hstore) that a user type of the same name hides: without the
// extension, a database may have made its own (CREATE DOMAIN citext AS
// text), which PostgreSQL would find.
func (a *analyzer) userTypeShadows(tn *pg.TypeName) bool {
	parts := NameList(tn.Names)
	name := strings.TrimPrefix(parts[len(parts)-1], "_")
	if !extensionTypes[name] || len(parts) > 2 {
		return false
	}
	schema := ""
	if len(parts) == 2 {
		schema = parts[0]
	}
	ut, err := a.lookupType(a.ctx, schema, parts[len(parts)-1])
	return err == nil && ut != nil
}

// lookupRowType returns the row type of table schema.name, or the zero T.
// An unqualified name is looked up as a relation is, the session's
// temporary tables first: a temporary table's row type is a type too.
func (a *analyzer) lookupRowType(schema, name string) (exec.T, error) {
	schemas := []string{a.s.ResolveSchemaName(schema)}
	if schema == "" {
		schemas = a.s.RelationPath()
	}
	for _, sch := range schemas {
		_, ok, err := a.tx.Catalog().Table(a.ctx, sch, name)
		if err != nil {
			return exec.T{}, err
		}
		if ok {
			return exec.T{OID: exec.TypeOID(types.UserComposite, sch, name), Typmod: -1}, nil
		}
	}
	return exec.T{}, nil
}
