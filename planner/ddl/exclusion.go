package ddl

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
)

// addExclusion adds an EXCLUDE constraint of CREATE TABLE: columns and
// the operators that make two rows conflict. The table's writers check
// it (exec/exclusion.go); no index is built for it.
func (d *tableDDL) addExclusion(con *pg.Constraint) error {
	if con.WhereClause != nil {
		return planner.WithPos(pgerr.New(pgerr.FeatureNotSupported, "exclusion constraints with a WHERE clause are not supported"), con.Location)
	}
	x := versioning.Exclusion{Name: con.Conname, Using: con.AccessMethod}
	var names []string
	for _, n := range con.Exclusions {
		pair := n.GetList().GetItems()
		if len(pair) != 2 || pair[0].GetIndexElem() == nil {
			return planner.WithPos(pgerr.New(pgerr.SyntaxError, "malformed EXCLUDE clause"), con.Location)
		}
		el := pair[0].GetIndexElem()
		if el.Expr != nil || el.Name == "" {
			return planner.WithPos(pgerr.New(pgerr.FeatureNotSupported, "exclusion constraints on expressions are not supported"), con.Location)
		}
		pos := d.column(el.Name)
		if pos < 0 {
			return planner.WithPos(pgerr.New(pgerr.UndefinedColumn, "column %q named in key does not exist", el.Name), con.Location)
		}
		op := strings.Join(planner.NameList(pair[1].GetList().GetItems()), ".")
		op = op[strings.LastIndexByte(op, '.')+1:] // OPERATOR(pg_catalog.&&)
		c := d.def.Columns[pos]
		tn := exec.FormatTypeIn(d.a.s.Settings(), c.Type, -1)
		if _, err := exec.ExclusionOp(d.a.s.Settings(), op, exec.T{OID: c.Type, Typmod: -1}); err != nil {
			return pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", tn, op, tn).
				WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
		}
		if err := checkExclusionOp(op, c.Type, tn); err != nil {
			return err
		}
		x.Columns, x.Ops = append(x.Columns, pos), append(x.Ops, op)
		names = append(names, el.Name)
	}
	if x.Name == "" {
		x.Name = d.ns.chooseRelationName(d.def.Name, indexNameAddition(names), "excl", true)
	} else if err := d.claimIndexName(x.Name); err != nil {
		return err
	}
	d.def.Exclusions = append(d.def.Exclusions, x)
	return nil
}

// checkExclusionOp applies PostgreSQL's rules for an exclusion operator:
// it must be its own commutator, and of the operator class of the index
// that would enforce it: = of any type's btree class, or the range
// operators of the gist range classes.
func checkExclusionOp(op string, oid uint32, typeName string) error {
	sig := op + "(" + typeName + "," + typeName + ")"
	switch op {
	case "=":
		return nil
	case "&&", "-|-", "<>":
	default:
		return pgerr.New(pgerr.WrongObjectType, "operator %s is not commutative", sig).
			WithDetail("Only commutative operators can be used in exclusion constraints.")
	}
	if k := exec.KindOf(oid); op != "<>" && (k == exec.KindRange || k == exec.KindMultirange) {
		return nil
	}
	family := map[uint32]string{exec.OIDInt2: "integer_ops", exec.OIDInt4: "integer_ops", exec.OIDInt8: "integer_ops",
		exec.OIDFloat4: "float_ops", exec.OIDFloat8: "float_ops", exec.OIDVarchar: "text_ops"}[oid]
	if family == "" {
		family = exec.TypeName(oid) + "_ops"
	}
	return pgerr.New(pgerr.WrongObjectType, "operator %s is not a member of operator family %q", sig, family).
		WithDetail("The exclusion operator must be related to the index operator class for the constraint.")
}
