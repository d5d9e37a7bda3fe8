package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner/pgtree"
)

// cteDef is a WITH query in scope.
type cteDef struct {
	name string
	cols []exec.ResultColumn // named by the column aliases
	cte  *exec.CTE
	// ru is set while the recursive term of a WITH RECURSIVE query is
	// analyzed: references to the query then read the work table.
	ru *exec.RecursiveUnion
	// noReturning marks a data-modifying query without RETURNING, which
	// cannot be read.
	noReturning bool
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
	ctes, pop, err := a.withCTEs(w, corr)
	if err != nil {
		return nil, err
	}
	defer pop()
	s.WithClause = nil
	body, err := a.query(s, corr)
	s.WithClause = w
	if err != nil {
		return nil, err
	}
	return &exec.With{CTEs: ctes, Body: body}, nil
}

// withCTEs plans the CTEs of a WITH clause and brings them into scope
// until pop is called.
// A nil clause has no CTEs; a nil corr is a top-level statement's.
func (a *analyzer) withCTEs(w *pg.WithClause, corr *correlation) (ctes []*exec.CTE, pop func(), err error) {
	base := len(a.ctes)
	restore := func() { a.ctes = a.ctes[:base] }
	if w == nil {
		return nil, restore, nil
	}
	if corr == nil {
		corr = &correlation{}
	}
	defer func() {
		if err != nil {
			restore()
		}
	}()
	order, err := cteOrder(w)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range order {
		ce := n.GetCommonTableExpr()
		for _, d := range a.ctes[base:] {
			if d.name == ce.Ctename {
				return nil, nil, WithPos(pgerr.New(pgerr.DuplicateAlias, "WITH query name %q specified more than once", ce.Ctename), ce.Location)
			}
		}
		sel := ce.Ctequery.GetSelectStmt()
		if sel == nil {
			def, err := a.modifyingCTE(ce, w, corr)
			if err != nil {
				return nil, nil, err
			}
			a.ctes = append(a.ctes, def)
			ctes = append(ctes, def.cte)
			continue
		}
		recursive := w.Recursive && refersTo(sel, ce.Ctename)
		if (ce.SearchClause != nil || ce.CycleClause != nil) && !recursive {
			loc := ce.Location
			if ce.SearchClause != nil {
				loc = ce.SearchClause.Location
			} else if ce.CycleClause != nil {
				loc = ce.CycleClause.Location
			}
			return nil, nil, WithPos(pgerr.New(pgerr.SyntaxError, "WITH query is not recursive"), loc)
		}
		def := &cteDef{name: ce.Ctename}
		var p exec.Plan
		if recursive {
			p, err = a.recursiveCTE(def, ce, sel, corr)
		} else if p, err = a.subquery(sel, corr); err == nil {
			def.cols, err = aliasCols(p.Columns(), ce)
		}
		if err != nil {
			return nil, nil, err
		}
		def.cte = &exec.CTE{Name: ce.Ctename, Plan: p}
		a.ctes = append(a.ctes, def)
		ctes = append(ctes, def.cte)
	}
	return ctes, restore, nil
}

// modifyingCTE plans a WITH query that is an INSERT, UPDATE or DELETE:
// it runs once, to its end, whether or not the query reads it, and its
// rows are those of its RETURNING clause.
func (a *analyzer) modifyingCTE(ce *pg.CommonTableExpr, w *pg.WithClause, corr *correlation) (*cteDef, error) {
	if w.Recursive && nodeRefersTo(ce.Ctequery.ProtoReflect(), ce.Ctename) {
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "recursive query %q must not contain data-modifying statements", ce.Ctename), ce.Location)
	}
	if corr.outer != nil || a.nestedQuery {
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "WITH clause containing a data-modifying statement must be at the top level"), ce.Location)
	}
	var p exec.Plan
	var err error
	hasReturning := false
	switch q := ce.Ctequery; {
	case q.GetInsertStmt() != nil:
		p, err = a.insert(q.GetInsertStmt())
		hasReturning = len(q.GetInsertStmt().ReturningList) > 0
	case q.GetUpdateStmt() != nil:
		p, err = a.update(q.GetUpdateStmt())
		hasReturning = len(q.GetUpdateStmt().ReturningList) > 0
	case q.GetDeleteStmt() != nil:
		p, err = a.delete(q.GetDeleteStmt())
		hasReturning = len(q.GetDeleteStmt().ReturningList) > 0
	case q.GetMergeStmt() != nil:
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "MERGE not supported in WITH query"), ce.Location)
	default:
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "this statement in WITH is not supported"), ce.Location)
	}
	if err != nil {
		return nil, err
	}
	def := &cteDef{name: ce.Ctename, noReturning: !hasReturning}
	if def.cols, err = aliasCols(p.Columns(), ce); err != nil {
		return nil, err
	}
	if m, ok := p.(*exec.Modify); ok {
		if err := rulesInWith(m); err != nil {
			return nil, err
		}
		m.InWith = true
	}
	def.cte = &exec.CTE{Name: ce.Ctename, Plan: p, Modifying: true}
	return def, nil
}

// withDML wraps the plan of an INSERT, UPDATE or DELETE in its WITH
// clause's CTEs, whose analysis (withCTEs) came first.
func withDML(ctes []*exec.CTE, p exec.Plan) exec.Plan {
	if len(ctes) == 0 {
		return p
	}
	return &exec.With{CTEs: ctes, Body: p}
}

// aliasCols renames a CTE's columns by its column list.
func aliasCols(cols []exec.ResultColumn, ce *pg.CommonTableExpr) ([]exec.ResultColumn, error) {
	if len(ce.Aliascolnames) > len(cols) {
		return nil, WithPos(pgerr.New(pgerr.InvalidColumnReference, "WITH query %q has %d columns available but %d columns specified", ce.Ctename, len(cols), len(ce.Aliascolnames)), ce.Location)
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
		return nil, WithPos(pgerr.New(codeInvalidRecursion, "recursive query %q does not have the form non-recursive-term UNION [ALL] recursive-term", name), ce.Location)
	}
	// The errors point where PostgreSQL's do: at the clause's expression,
	// the offending reference or aggregate, the non-recursive column.
	if len(sel.SortClause) > 0 {
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "ORDER BY in a recursive query is not implemented"), ExprLocation(sel.SortClause[0].GetSortBy().GetNode()))
	}
	if sel.LimitOffset != nil {
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "OFFSET in a recursive query is not implemented"), ExprLocation(sel.LimitOffset))
	}
	if sel.LimitCount != nil {
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "LIMIT in a recursive query is not implemented"), ExprLocation(sel.LimitCount))
	}
	if len(sel.LockingClause) > 0 || len(sel.Rarg.LockingClause) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "FOR UPDATE/SHARE in a recursive query is not implemented")
	}
	if rv := referenceTo(sel.Larg.ProtoReflect(), name); rv != nil {
		return nil, WithPos(pgerr.New(codeInvalidRecursion, "recursive reference to query %q must not appear within its non-recursive term", name), rv.Location)
	}
	if err := checkRecursion(sel.Rarg, name); err != nil {
		return nil, err
	}
	if r := sel.Rarg; r.Op == pg.SetOperation_SETOP_NONE && (len(r.GroupClause) > 0 || r.HavingClause != nil || a.containsAgg(r.TargetList...)) {
		loc := int32(-1)
		for _, t := range r.TargetList {
			VisitNodes(t, func(x *pg.Node) {
				if f := x.GetFuncCall(); f != nil && loc < 0 && a.containsAgg(x) {
					loc = f.Location
				}
			})
		}
		return nil, WithPos(pgerr.New(codeInvalidRecursion, "aggregate functions are not allowed in a recursive query's recursive term"), loc)
	}
	var sc *searchCycle
	recTerm := sel.Rarg
	if ce.SearchClause != nil || ce.CycleClause != nil {
		if err := checkSearchCycleShape(sel); err != nil {
			return nil, err
		}
	}
	nonrec, err := a.subquery(sel.Larg, corr)
	if err != nil {
		return nil, err
	}
	if def.cols, err = aliasCols(nonrec.Columns(), ce); err != nil {
		return nil, err
	}
	if ce.SearchClause != nil || ce.CycleClause != nil {
		if sc, err = a.newSearchCycle(ce, def.cols); err != nil {
			return nil, err
		}
		if recTerm, err = sc.rewriteRecursive(recTerm, name, def.cols); err != nil {
			return nil, err
		}
		def.cols = append(def.cols, sc.columns()...)
	}
	ru := &exec.RecursiveUnion{All: sel.All, Cols: def.cols}
	def.ru = ru
	a.ctes = append(a.ctes, def)
	rec, err := a.subquery(recTerm, corr)
	a.ctes = a.ctes[:len(a.ctes)-1]
	def.ru = nil
	if err != nil {
		return nil, err
	}
	nc, rc := nonrec.Columns(), rec.Columns()
	if added := len(def.cols) - len(nc); sc != nil && len(rc) >= added {
		rc = rc[:len(rc)-added] // the previous round's added columns follow
	}
	if len(nc) != len(rc) {
		return nil, pgerr.New(pgerr.SyntaxError, "each UNION query must have the same number of columns")
	}
	types := make([]exec.T, len(nc))
	for i := range nc {
		t, err := commonType([]exec.T{nc[i].T, rc[i].T}, "UNION", -1)
		if err != nil {
			return nil, err
		}
		if t.OID != nc[i].T.OID || nc[i].T.Typmod >= 0 && t.Typmod != nc[i].T.Typmod {
			loc := ce.Location
			if l := sel.Larg; l.Op == pg.SetOperation_SETOP_NONE && i < len(l.TargetList) {
				loc = ExprLocation(l.TargetList[i].GetResTarget().GetVal())
			}
			return nil, WithPos(pgerr.New(pgerr.DatatypeMismatch, "recursive query %q column %d has type %s in non-recursive term but type %s overall", name, i+1,
				exec.FormatTypeIn(a.s.Settings(), nc[i].T.OID, nc[i].T.Typmod), exec.FormatTypeIn(a.s.Settings(), t.OID, t.Typmod)).
				WithHint("Cast the output of the non-recursive term to the correct type."), loc)
		}
		types[i] = nc[i].T
	}
	if sc != nil {
		if ru.Rec, err = sc.recursive(a, rec, types); err != nil {
			return nil, err
		}
		ru.NonRec = sc.nonRecursive(nonrec)
		return ru, nil
	}
	if ru.Rec, err = a.convert(rec, types); err != nil {
		return nil, err
	}
	ru.NonRec = nonrec
	return ru, nil
}

// refersTo reports whether a query names a table name without a schema.
func refersTo(s *pg.SelectStmt, name string) bool {
	return nodeRefersTo(s.ProtoReflect(), name)
}

// nodeRefersTo is refersTo for any statement.
func nodeRefersTo(m protoreflect.Message, name string) bool {
	return referenceTo(m, name) != nil
}

// referenceTo returns the first reference to name in m, nil for none.
func referenceTo(m protoreflect.Message, name string) *pg.RangeVar {
	var found *pg.RangeVar
	pgtree.Walk(m, func(m protoreflect.Message) bool {
		switch x := m.Interface().(type) {
		case *pg.RangeVar:
			if x.Schemaname == "" && x.Relname == name && found == nil {
				found = x
			}
		case *pg.SelectStmt:
			// A nested WITH query of the same name hides this one.
			if x.WithClause != nil {
				for _, c := range x.WithClause.Ctes {
					if c.GetCommonTableExpr().Ctename == name {
						return false
					}
				}
			}
		}
		return found == nil
	})
	return found
}

// checkRecursion checks where the recursive term of WITH RECURSIVE name
// refers to name, as PostgreSQL's checkWellFormedRecursion: once, not in
// a subquery expression, not on the nullable side of an outer join, not
// under INTERSECT or EXCEPT.
func checkRecursion(rec *pg.SelectStmt, name string) error {
	count := 0
	var err error
	var walk func(m protoreflect.Message, ctx string)
	walk = func(m protoreflect.Message, ctx string) {
		if err != nil {
			return
		}
		switch x := m.Interface().(type) {
		case *pg.RangeVar:
			if x.Schemaname == "" && x.Relname == name {
				count++
				switch {
				case ctx != "":
					err = WithPos(pgerr.New(codeInvalidRecursion, "recursive reference to query %q must not appear within %s", name, ctx), x.Location)
				case count > 1:
					err = WithPos(pgerr.New(codeInvalidRecursion, "recursive reference to query %q must not appear more than once", name), x.Location)
				}
			}
			return
		case *pg.SubLink:
			walk(x.Subselect.ProtoReflect(), "a subquery")
			return
		case *pg.JoinExpr:
			lctx, rctx := ctx, ctx
			switch x.Jointype {
			case pg.JoinType_JOIN_LEFT:
				rctx = "an outer join"
			case pg.JoinType_JOIN_RIGHT:
				lctx = "an outer join"
			case pg.JoinType_JOIN_FULL:
				lctx, rctx = "an outer join", "an outer join"
			}
			walk(x.Larg.ProtoReflect(), lctx)
			walk(x.Rarg.ProtoReflect(), rctx)
			if x.Quals != nil {
				walk(x.Quals.ProtoReflect(), ctx)
			}
			return
		case *pg.SelectStmt:
			switch x.Op {
			case pg.SetOperation_SETOP_INTERSECT:
				if x.All {
					ctx = "INTERSECT"
				}
				walk(x.Larg.ProtoReflect(), ctx)
				walk(x.Rarg.ProtoReflect(), ctx)
				return
			case pg.SetOperation_SETOP_EXCEPT:
				lctx := ctx
				if x.All {
					lctx = "EXCEPT"
				}
				walk(x.Larg.ProtoReflect(), lctx)
				walk(x.Rarg.ProtoReflect(), "EXCEPT")
				return
			}
		}
		pgtree.Children(m, func(c protoreflect.Message) { walk(c, ctx) })
	}
	walk(rec.ProtoReflect(), "")
	return err
}

// cteOrder returns the CTEs of a WITH clause in the order to analyze
// them: as written, except that in WITH RECURSIVE a query that reads a
// later one comes after it. Queries reading each other are an error, as
// in PostgreSQL.
func cteOrder(w *pg.WithClause) ([]*pg.Node, error) {
	if !w.Recursive {
		return w.Ctes, nil
	}
	n := len(w.Ctes)
	deps := make([][]int, n)
	for i, a := range w.Ctes {
		q := a.GetCommonTableExpr().Ctequery.ProtoReflect()
		for j, b := range w.Ctes {
			if i != j && nodeRefersTo(q, b.GetCommonTableExpr().Ctename) {
				deps[i] = append(deps[i], j)
			}
		}
	}
	var order []*pg.Node
	state := make([]int, n) // 0 new, 1 visiting, 2 done
	var visit func(i int) error
	visit = func(i int) error {
		switch state[i] {
		case 1:
			return WithPos(pgerr.New(pgerr.FeatureNotSupported, "mutual recursion between WITH items is not implemented"), w.Ctes[i].GetCommonTableExpr().Location)
		case 2:
			return nil
		}
		state[i] = 1
		for _, j := range deps[i] {
			if err := visit(j); err != nil {
				return err
			}
		}
		state[i] = 2
		order = append(order, w.Ctes[i])
		return nil
	}
	for i := range w.Ctes {
		if err := visit(i); err != nil {
			return nil, err
		}
	}
	return order, nil
}
