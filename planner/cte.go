package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// cteDef is a WITH query in scope.
type cteDef struct {
	name string
	cols []exec.ResultColumn // named by the column aliases
	cte  *exec.CTE
	// ru is set while the recursive term of a WITH RECURSIVE query is
	// analyzed: references to the query then read the work table.
	ru *exec.RecursiveUnion
}

// scan returns the plan that reads the CTE.
func (c *cteDef) scan() exec.Plan {
	cols := make([]exec.ResultColumn, len(c.cols))
	for i, col := range c.cols {
		cols[i] = exec.ResultColumn{Name: col.Name, T: col.T}
	}
	if c.ru != nil {
		return &exec.WorkTableScan{Union: c.ru, Cols: cols}
	}
	return &exec.CTEScan{CTE: c.cte, Cols: cols}
}

// findCTE returns the innermost WITH query named name in scope.
func (a *analyzer) findCTE(name string) *cteDef {
	for i := len(a.ctes) - 1; i >= 0; i-- {
		if a.ctes[i].name == name {
			return a.ctes[i]
		}
	}
	return nil
}

// with plans a query with a WITH clause: each CTE is planned with the
// earlier ones in scope, then the query with all of them.
func (a *analyzer) with(s *pg.SelectStmt, corr *correlation) (exec.Plan, error) {
	w := s.WithClause
	base := len(a.ctes)
	defer func() { a.ctes = a.ctes[:base] }()
	var ctes []*exec.CTE
	for _, n := range w.Ctes {
		ce := n.GetCommonTableExpr()
		for _, d := range a.ctes[base:] {
			if d.name == ce.Ctename {
				return nil, withPos(pgerr.New(codeDuplicateAlias, "WITH query name %q specified more than once", ce.Ctename), ce.Location)
			}
		}
		sel := ce.Ctequery.GetSelectStmt()
		if sel == nil {
			return nil, withPos(pgerr.New(pgerr.FeatureNotSupported, "data-modifying statements in WITH are not supported yet"), ce.Location)
		}
		if ce.SearchClause != nil || ce.CycleClause != nil {
			return nil, withPos(pgerr.New(pgerr.FeatureNotSupported, "SEARCH and CYCLE are not supported yet"), ce.Location)
		}
		def := &cteDef{name: ce.Ctename}
		var p exec.Plan
		var err error
		if w.Recursive && refersTo(sel, ce.Ctename) {
			p, err = a.recursiveCTE(def, ce, sel, corr)
		} else {
			if p, err = a.subquery(sel, corr); err == nil {
				def.cols, err = aliasCols(p.Columns(), ce)
			}
		}
		if err != nil {
			return nil, err
		}
		def.cte = &exec.CTE{Name: ce.Ctename, Plan: p}
		a.ctes = append(a.ctes, def)
		ctes = append(ctes, def.cte)
	}
	s.WithClause = nil
	body, err := a.query(s, corr)
	s.WithClause = w
	if err != nil {
		return nil, err
	}
	return &exec.With{CTEs: ctes, Body: body}, nil
}

// aliasCols renames a CTE's columns by its column list.
func aliasCols(cols []exec.ResultColumn, ce *pg.CommonTableExpr) ([]exec.ResultColumn, error) {
	if len(ce.Aliascolnames) > len(cols) {
		return nil, withPos(pgerr.New(pgerr.InvalidColumnReference, "WITH query %q has %d columns available but %d columns specified", ce.Ctename, len(cols), len(ce.Aliascolnames)), ce.Location)
	}
	out := make([]exec.ResultColumn, len(cols))
	for i, c := range cols {
		out[i] = exec.ResultColumn{Name: c.Name, T: c.T}
		if i < len(ce.Aliascolnames) {
			out[i].Name = ce.Aliascolnames[i].GetString_().Sval
		}
	}
	return out, nil
}

// recursiveCTE plans a WITH RECURSIVE query that refers to itself: a
// non-recursive term UNION [ALL] a recursive term, whose references to
// the query read the rows of the previous round.
func (a *analyzer) recursiveCTE(def *cteDef, ce *pg.CommonTableExpr, sel *pg.SelectStmt, corr *correlation) (exec.Plan, error) {
	name := ce.Ctename
	if sel.Op != pg.SetOperation_SETOP_UNION {
		return nil, withPos(pgerr.New(codeInvalidRecursion, "recursive query %q does not have the form non-recursive-term UNION [ALL] recursive-term", name), ce.Location)
	}
	if len(sel.SortClause) > 0 {
		return nil, withPos(pgerr.New(pgerr.FeatureNotSupported, "ORDER BY in a recursive query is not implemented"), ce.Location)
	}
	if sel.LimitCount != nil || sel.LimitOffset != nil {
		return nil, withPos(pgerr.New(pgerr.FeatureNotSupported, "OFFSET/LIMIT in a recursive query is not implemented"), ce.Location)
	}
	if refersTo(sel.Larg, name) {
		return nil, withPos(pgerr.New(codeInvalidRecursion, "recursive reference to query %q must not appear within its non-recursive term", name), ce.Location)
	}
	nonrec, err := a.subquery(sel.Larg, corr)
	if err != nil {
		return nil, err
	}
	if def.cols, err = aliasCols(nonrec.Columns(), ce); err != nil {
		return nil, err
	}
	ru := &exec.RecursiveUnion{All: sel.All, Cols: def.cols}
	def.ru = ru
	a.ctes = append(a.ctes, def)
	rec, err := a.subquery(sel.Rarg, corr)
	a.ctes = a.ctes[:len(a.ctes)-1]
	def.ru = nil
	if err != nil {
		return nil, err
	}
	nc, rc := nonrec.Columns(), rec.Columns()
	if len(nc) != len(rc) {
		return nil, pgerr.New(pgerr.SyntaxError, "each UNION query must have the same number of columns")
	}
	types := make([]exec.T, len(nc))
	for i := range nc {
		t, err := commonType([]exec.T{nc[i].T, rc[i].T}, "UNION", -1)
		if err != nil {
			return nil, err
		}
		if t.OID != nc[i].T.OID {
			return nil, withPos(pgerr.New(pgerr.DatatypeMismatch, "recursive query %q column %d has type %s in non-recursive term but type %s overall", name, i+1, exec.TypeName(nc[i].T.OID), exec.TypeName(t.OID)).
				WithHint("Cast the output of the non-recursive term to the correct type."), ce.Location)
		}
		types[i] = nc[i].T
	}
	if ru.Rec, err = a.convert(rec, types); err != nil {
		return nil, err
	}
	ru.NonRec = nonrec
	return ru, nil
}

// refersTo reports whether a query names a table name without a schema.
func refersTo(s *pg.SelectStmt, name string) bool {
	found := false
	walkNodes(s.ProtoReflect(), func(m protoreflect.Message) bool {
		if rv, ok := m.Interface().(*pg.RangeVar); ok && rv.Schemaname == "" && rv.Relname == name {
			found = true
		}
		return !found
	})
	return found
}
