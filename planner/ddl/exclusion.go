package ddl

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// addExclusion adds an EXCLUDE constraint of CREATE TABLE or ALTER TABLE
// ADD (validateExclusions checks the rows then): columns and
// the operators that make two rows conflict. The table's writers check
// it (exec/exclusion.go); no index is built for it.
func (d *tableDDL) addExclusion(con *pg.Constraint) error {
	x := sqldef.Exclusion{Name: con.Conname, Using: con.AccessMethod, Deferrable: con.Deferrable, InitiallyDeferred: con.Initdeferred}
	var names []string
	t := exec.NewTable(d.def)
	if con.WhereClause != nil {
		// A partial constraint: only the rows its predicate holds for.
		where, err := d.a.IndexPredicate(t, con.WhereClause)
		if err != nil {
			return err
		}
		x.Where = where
	}
	for _, n := range con.Exclusions {
		pair := n.GetList().GetItems()
		if len(pair) != 2 || pair[0].GetIndexElem() == nil {
			return planner.WithPos(pgerr.New(pgerr.SyntaxError, "malformed EXCLUDE clause"), con.Location)
		}
		el := pair[0].GetIndexElem()
		pos, expr, typ := -1, "", uint32(0)
		if el.Expr != nil {
			// An expression over the row, as an index's key column.
			ic, name, err := d.a.indexExpression(t, el)
			if err != nil {
				return err
			}
			expr, typ, names = ic.Expr, ic.ExprType, append(names, name)
		} else {
			if pos = d.column(el.Name); pos < 0 {
				return planner.WithPos(pgerr.New(pgerr.UndefinedColumn, "column %q named in key does not exist", el.Name), con.Location)
			}
			typ, names = d.def.Columns[pos].Type, append(names, el.Name)
		}
		op := strings.Join(planner.NameList(pair[1].GetList().GetItems()), ".")
		op = op[strings.LastIndexByte(op, '.')+1:] // OPERATOR(pg_catalog.&&)
		tn := exec.FormatTypeIn(d.a.s.Settings(), typ, -1)
		if _, err := exec.ExclusionOp(d.a.s.Settings(), op, exec.T{OID: typ, Typmod: -1}); err != nil {
			return pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", tn, op, tn).
				WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
		}
		if err := checkExclusionOp(op, typ, tn); err != nil {
			return err
		}
		x.Columns, x.Ops = append(x.Columns, pos), append(x.Ops, op)
		x.Exprs, x.ExprTypes = append(x.Exprs, expr), append(x.ExprTypes, typ)
	}
	if !slices.ContainsFunc(x.Exprs, func(e string) bool { return e != "" }) {
		x.Exprs, x.ExprTypes = nil, nil // columns only: the plain form
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
// operators of the gist range and geometric classes.
func checkExclusionOp(op string, oid uint32, typeName string) error {
	sig := op + "(" + typeName + "," + typeName + ")"
	switch op {
	case "=":
		return nil
	case "&&", "-|-", "<>", "~=":
	default:
		return pgerr.New(pgerr.WrongObjectType, "operator %s is not commutative", sig).
			WithDetail("Only commutative operators can be used in exclusion constraints.")
	}
	if k := exec.KindOf(oid); op != "<>" && op != "~=" && (k == exec.KindRange || k == exec.KindMultirange) {
		return nil
	}
	// The gist classes of box, polygon and circle have && and ~=, point's
	// ~= (point_ops).
	switch oid {
	case exec.OIDBox, exec.OIDPolygon, exec.OIDCircle:
		if op == "&&" || op == "~=" {
			return nil
		}
	case exec.OIDPoint:
		if op == "~=" {
			return nil
		}
	}
	family := map[uint32]string{exec.OIDInt2: "integer_ops", exec.OIDInt4: "integer_ops", exec.OIDInt8: "integer_ops",
		exec.OIDFloat4: "float_ops", exec.OIDFloat8: "float_ops", exec.OIDVarchar: "text_ops"}[oid]
	if family == "" {
		family = exec.TypeName(oid) + "_ops"
	}
	return pgerr.New(pgerr.WrongObjectType, "operator %s is not a member of operator family %q", sig, family).
		WithDetail("The exclusion operator must be related to the index operator class for the constraint.")
}

// validateExclusions fails with 23P01 if two rows of t conflict under
// one of the exclusion constraints xs, which ALTER TABLE adds.
func (a *analyzer) validateExclusions(ctx context.Context, t *exec.Table, xs []sqldef.Exclusion) error {
	if len(xs) == 0 {
		return nil
	}
	var rows []exec.Row
	err := a.tx.EachRow(ctx, t, func(row exec.Row) error {
		rows = append(rows, slices.Clone(row))
		return nil
	})
	if err != nil {
		return err
	}
	st := a.s.Settings()
	env := a.env(ctx)
	for k := range xs {
		x := &xs[k]
		var ie *exec.IndexEval
		if ix := x.Index(); !ix.Plain() {
			if ie, err = a.IndexEval(t, ix); err != nil {
				return err
			}
		}
		types := exec.ExclusionTypes(t, x)
		fns := make([]exec.Fn, len(x.Columns))
		for i := range x.Columns {
			if fns[i], err = exec.ExclusionOp(st, x.Ops[i], types[i]); err != nil {
				return err
			}
		}
		// Each row's element values; nil for a row the predicate leaves out.
		vals := make([][]exec.Datum, len(rows))
		for i, r := range rows {
			v, in, err := exec.ExclusionValues(env, x, ie, r, nil)
			if err != nil {
				return err
			}
			if in {
				vals[i] = v
			}
		}
		conflicts := func(v1, v2 []exec.Datum) (bool, error) {
			for i := range x.Columns {
				if v1[i].IsNull() || v2[i].IsNull() {
					return false, nil // the operators are strict
				}
				d, err := fns[i](env, []exec.Datum{v1[i], v2[i]})
				if err != nil || d.IsNull() || !d.Bool() {
					return false, err
				}
			}
			return true, nil
		}
		for i := range rows {
			for j := 0; j < i; j++ {
				if vals[i] == nil || vals[j] == nil {
					continue
				}
				bad, err := conflicts(vals[i], vals[j])
				if err != nil {
					return err
				}
				if bad {
					key := func(v []exec.Datum) string {
						return "(" + exec.ExclusionNames(t, x) + ")=(" + exec.FormatExclusionValues(env, types, v) + ")"
					}
					return pgerr.New(pgerr.ExclusionViolation, "could not create exclusion constraint %q", x.Name).
						WithDetail("Key %s conflicts with key %s.", key(vals[j]), key(vals[i])).WithTable(t.Def.Schema, t.Def.Name).WithConstraint(x.Name)
				}
			}
		}
	}
	return nil
}

// indexNamed reports whether a constraint of def named name has an
// index of that name in PostgreSQL: a key, unique or exclusion one.
func indexNamed(def *sqldef.Table, name string) bool {
	if len(def.PrimaryKey) > 0 && def.PrimaryKeyName == name {
		return true
	}
	return slices.ContainsFunc(def.Indexes, func(ix sqldef.Index) bool { return ix.Name == name }) ||
		slices.ContainsFunc(def.Exclusions, func(x sqldef.Exclusion) bool { return x.Name == name })
}
