package ddl

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
)

// addExclusion adds an EXCLUDE constraint of CREATE TABLE or ALTER TABLE
// ADD (validateExclusions checks the rows then): columns and
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
func (a *analyzer) validateExclusions(ctx context.Context, t *exec.Table, xs []versioning.Exclusion) error {
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
	for _, x := range xs {
		fns := make([]exec.Fn, len(x.Columns))
		for i, c := range x.Columns {
			if fns[i], err = exec.ExclusionOp(st, x.Ops[i], t.Cols[c].Type); err != nil {
				return err
			}
		}
		conflicts := func(r1, r2 exec.Row) (bool, error) {
			for i, c := range x.Columns {
				if r1[c].IsNull() || r2[c].IsNull() {
					return false, nil // the operators are strict
				}
				d, err := fns[i](env, []exec.Datum{r1[c], r2[c]})
				if err != nil || d.IsNull() || !d.Bool() {
					return false, err
				}
			}
			return true, nil
		}
		for i := range rows {
			for j := 0; j < i; j++ {
				bad, err := conflicts(rows[i], rows[j])
				if err != nil {
					return err
				}
				if bad {
					key := func(r exec.Row) string {
						var names, vals []string
						for _, c := range x.Columns {
							names = append(names, t.Cols[c].Name)
							vals = append(vals, string(exec.AppendText(nil, t.Cols[c].Type, r[c], st)))
						}
						return "(" + strings.Join(names, ", ") + ")=(" + strings.Join(vals, ", ") + ")"
					}
					return pgerr.New(pgerr.ExclusionViolation, "could not create exclusion constraint %q", x.Name).
						WithDetail("Key %s conflicts with key %s.", key(rows[i]), key(rows[j])).WithTable(t.Def.Schema, t.Def.Name).WithConstraint(x.Name)
				}
			}
		}
	}
	return nil
}

// indexNamed reports whether a constraint of def named name has an
// index of that name in PostgreSQL: a key, unique or exclusion one.
func indexNamed(def *versioning.Table, name string) bool {
	if len(def.PrimaryKey) > 0 && def.PrimaryKeyName == name {
		return true
	}
	return slices.ContainsFunc(def.Indexes, func(ix versioning.Index) bool { return ix.Name == name }) ||
		slices.ContainsFunc(def.Exclusions, func(x versioning.Exclusion) bool { return x.Name == name })
}
