package ddl

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// createRange runs CREATE TYPE ... AS RANGE (SUBTYPE = ..., ...). The
// subtype is kept in the type's Base; SUBTYPE_DIFF and CANONICAL by
// name. COLLATION and SUBTYPE_OPCLASS are accepted: ranges compare
// their bounds in the subtype's default order (C for text).
func (a *analyzer) createRange(s *pg.CreateRangeStmt) (planner.Utility, error) {
	return a.typeDDL("CREATE TYPE", func(ctx context.Context) error {
		schema, name, err := a.newTypeName(ctx, planner.NameList(s.TypeName))
		if err != nil {
			return err
		}
		t := &sqldef.Type{Schema: schema, Name: name, Kind: 'r'}
		if err := a.ownType(ctx, t); err != nil {
			return err
		}
		var sub *pg.TypeName
		for _, n := range s.Params {
			d := n.GetDefElem()
			switch strings.ToLower(d.Defname) {
			case "subtype":
				if sub = d.Arg.GetTypeName(); sub == nil {
					return pgerr.New(pgerr.SyntaxError, "%s requires a type name", d.Defname)
				}
			case "subtype_diff":
				t.SubtypeDiff = defName(d.Arg)
			case "canonical":
				t.Canonical = defName(d.Arg)
			case "collation", "subtype_opclass", "multirange_type_name":
			default:
				return pgerr.New(pgerr.SyntaxError, "type attribute %q not recognized", d.Defname)
			}
		}
		if sub == nil {
			return pgerr.New(pgerr.InvalidObjectDefinition, "type attribute \"subtype\" is required")
		}
		st, dom, _, err := a.ResolveTypeDomain(sub)
		if err != nil {
			return err
		}
		if dom != nil {
			t.SubtypeDomain = dom.Schema + "." + dom.Name
		}
		if st.OID == exec.OIDAny || exec.IsPolymorphic(st.OID) {
			return pgerr.New(pgerr.DatatypeMismatch, "range subtype cannot be %s", exec.TypeName(st.OID))
		}
		t.Base = st.OID
		if t.SubtypeDiff != "" && !exec.HasExact(t.SubtypeDiff, st.OID, st.OID) {
			tn := exec.FormatTypeIn(a.s.Settings(), st.OID, -1)
			return pgerr.New(pgerr.UndefinedFunction, "function %s(%s, %s) does not exist", t.SubtypeDiff, tn, tn)
		}
		return a.putType(ctx, t)
	}), nil
}

// defName is the name a DefElem's argument gives (a function's).
func defName(n *pg.Node) string {
	if tn := n.GetTypeName(); tn != nil {
		return strings.Join(planner.NameList(tn.Names), ".")
	}
	if s := n.GetString_(); s != nil {
		return s.Sval
	}
	return ""
}

// dropRangesOver handles the range types whose subtype is t, which DROP
// TYPE t removes with CASCADE and is refused without.
func (a *analyzer) dropRangesOver(ctx context.Context, t *sqldef.Type, cascade bool) error {
	all, err := a.tx.Root().Types(ctx)
	if err != nil {
		return err
	}
	oid := planner.TypeOIDOf(t)
	var deps []*sqldef.Type
	for _, r := range all {
		if r.Kind == 'r' && (t.Kind == 'd' && r.SubtypeDomain == t.Schema+"."+t.Name || t.Kind != 'd' && r.Base == oid) {
			deps = append(deps, r)
		}
	}
	if len(deps) == 0 {
		return nil
	}
	if !cascade {
		lines := make([]string, len(deps))
		for i, r := range deps {
			lines[i] = "type " + r.Name + " depends on type " + t.Name
		}
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop type %s because other objects depend on it", t.Name).
			WithDetail("%s", strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	for _, r := range deps {
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to type %s", r.Name))
		root, err := a.tx.Root().DropType(ctx, r.Schema, r.Name)
		if err != nil {
			return err
		}
		a.tx.SetRoot(root)
	}
	return nil
}
