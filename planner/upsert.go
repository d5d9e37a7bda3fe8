package planner

import (
	"slices"
	"sort"
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// onConflict analyzes INSERT's ON CONFLICT [target] DO NOTHING | DO UPDATE
// SET ... [WHERE ...]. The target names the unique constraints a conflict
// is looked for in: by columns (every primary key or unique index on
// exactly those columns is an arbiter, as PostgreSQL infers them) or ON
// CONSTRAINT name. SET and WHERE read the existing row by the table's name
// or alias and the proposed one as EXCLUDED.
func (a *analyzer) onConflict(oc *pg.OnConflictClause, t *exec.Table, alias string) (*exec.OnConflict, error) {
	c := &exec.OnConflict{Update: oc.Action == pg.OnConflictAction_ONCONFLICT_UPDATE}
	switch {
	case oc.Infer == nil && c.Update:
		return nil, WithPos(pgerr.New(pgerr.SyntaxError, "ON CONFLICT DO UPDATE requires inference specification or constraint name").
			WithHint("For example, ON CONFLICT (column_name)."), oc.Location)
	case oc.Infer == nil:
		c.Any = true
	case oc.Infer.Conname != "":
		name := oc.Infer.Conname
		switch {
		case t.HasPrimaryKey() && t.Def.PrimaryKeyName == name:
			c.Arbiters = []string{""}
		default:
			for _, ix := range t.Def.Indexes {
				if ix.Constraint && ix.Name == name {
					c.Arbiters = []string{name}
				}
			}
		}
		for _, x := range t.Def.Exclusions {
			if x.Name == name {
				if x.Deferrable {
					return nil, pgerr.New(pgerr.FeatureNotSupported, "ON CONFLICT does not support deferrable unique constraints/exclusion constraints as arbiters")
				}
				if c.Update {
					return nil, pgerr.New(pgerr.FeatureNotSupported, "ON CONFLICT DO UPDATE not supported with exclusion constraints")
				}
				c.Arbiters = []string{name}
			}
		}
		if c.Arbiters == nil {
			return nil, pgerr.New(pgerr.UndefinedObject, "constraint %q for table %q does not exist", name, t.Def.Name)
		}
	default:
		// The inference elements, as a set: a column by its position, an
		// expression by its SQL text, as CREATE INDEX records it.
		var want []string
		for _, n := range oc.Infer.IndexElems {
			el := n.GetIndexElem()
			if cr := el.Expr.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
				el = &pg.IndexElem{Name: cr.Fields[0].GetString_().Sval} // (col) is the column
			}
			if el.Expr != nil {
				if _, err := a.expr(el.Expr, tableScope(t, t.Def.Name)); err != nil {
					return nil, err
				}
				text, err := DeparseExpr(el.Expr)
				if err != nil {
					return nil, err
				}
				want = append(want, "e:"+text)
				continue
			}
			pos, err := columnByName(t, el.Name, oc.Infer.Location)
			if err != nil {
				return nil, err
			}
			want = append(want, "c:"+strconv.Itoa(pos))
		}
		sort.Strings(want)
		want = slices.Compact(want)
		same := func(k []string) bool {
			sort.Strings(k)
			return slices.Equal(slices.Compact(k), want)
		}
		// A partial unique index is an arbiter when the inference's WHERE
		// is its predicate (PostgreSQL accepts any WHERE that implies it;
		// the same text is the case applications write).
		where := ""
		if oc.Infer.WhereClause != nil {
			var err error
			if where, err = a.indexPredicate(t, oc.Infer.WhereClause); err != nil {
				return nil, err
			}
		}
		if t.HasPrimaryKey() {
			var k []string
			for _, pos := range t.Def.PrimaryKey {
				k = append(k, "c:"+strconv.Itoa(pos))
			}
			if same(k) {
				c.Arbiters = append(c.Arbiters, "")
			}
		}
		for _, ix := range t.Def.Indexes {
			if !ix.Unique || ix.Where != "" && ix.Where != where && !predicateImplies(where, ix.Where) {
				continue
			}
			var k []string
			for _, ic := range ix.Columns {
				if ic.Expr != "" {
					k = append(k, "e:"+ic.Expr)
				} else {
					k = append(k, "c:"+strconv.Itoa(ic.Column))
				}
			}
			if same(k) {
				c.Arbiters = append(c.Arbiters, ix.Name)
			}
		}
		if c.Arbiters == nil {
			// No position: PostgreSQL reports it from the planner, past parse analysis.
			return nil, pgerr.New(pgerr.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
		}
	}
	if !c.Update {
		return c, nil
	}
	sc := &scope{items: append(tableScope(t, alias).items, shifted(tableScope(t, "excluded").items, len(t.Cols))...)}
	// The SET list is an UPDATE's, over the existing row and excluded.
	var err error
	if c.Sets, err = a.setClause(t, alias, oc.TargetList, sc); err != nil {
		return nil, err
	}
	if oc.WhereClause != nil {
		w, err := a.expr(oc.WhereClause, sc)
		if err != nil {
			return nil, err
		}
		if c.Where, err = a.coerce(w, exec.TBool, "argument of WHERE", -1); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// predicateImplies reports whether the WHERE of an ON CONFLICT inference,
// as text, implies a partial index's predicate: one of its conjuncts is
// the predicate, or compares the same expression with a constant so that
// it implies the predicate's comparison (x > 1 implies x > 0), the cases
// of PostgreSQL's predicate_implied_by that inference meets in practice.
func predicateImplies(where, pred string) bool {
	if where == "" {
		return false
	}
	w, err := ParseExpr(where)
	if err != nil {
		return false
	}
	p, err := ParseExpr(pred)
	if err != nil {
		return false
	}
	pe, pop, pc, ok := constComparison(p)
	for _, c := range conjuncts(w) {
		text, err := DeparseExpr(c)
		if err != nil {
			continue
		}
		if text == pred {
			return true
		}
		we, wop, wc, wok := constComparison(c)
		if !ok || !wok || we != pe {
			continue
		}
		if impliesComparison(wop, wc, pop, pc) {
			return true
		}
	}
	return false
}

// constComparison splits e op c, c a numeric constant, into e's text, op
// and c.
func constComparison(n *pg.Node) (string, string, float64, bool) {
	x := n.GetAExpr()
	if x == nil || x.Kind != pg.A_Expr_Kind_AEXPR_OP || x.Rexpr.GetAConst() == nil {
		return "", "", 0, false
	}
	c := x.Rexpr.GetAConst()
	var v float64
	switch {
	case c.GetIval() != nil:
		v = float64(c.GetIval().Ival)
	case c.GetFval() != nil:
		f, err := strconv.ParseFloat(c.GetFval().Fval, 64)
		if err != nil {
			return "", "", 0, false
		}
		v = f
	default:
		return "", "", 0, false
	}
	e, err := DeparseExpr(x.Lexpr)
	if err != nil {
		return "", "", 0, false
	}
	return e, OpName(x.Name), v, true
}

// impliesComparison reports whether x wop wc implies x pop pc for every x.
func impliesComparison(wop string, wc float64, pop string, pc float64) bool {
	switch pop {
	case ">":
		return wop == ">" && wc >= pc || (wop == ">=" || wop == "=") && wc > pc
	case ">=":
		return (wop == ">" || wop == ">=" || wop == "=") && wc >= pc
	case "<":
		return wop == "<" && wc <= pc || (wop == "<=" || wop == "=") && wc < pc
	case "<=":
		return (wop == "<" || wop == "<=" || wop == "=") && wc <= pc
	case "=":
		return wop == "=" && wc == pc
	}
	return false
}
