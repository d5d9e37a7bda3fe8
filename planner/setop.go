package planner

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// setOp plans UNION, INTERSECT or EXCEPT, and the ORDER BY and LIMIT of
// its result. Each column takes the common type of its two sides; the
// names are the left side's.
func (a *analyzer) setOp(s *pg.SelectStmt, corr *correlation) (exec.Plan, error) {
	var kind exec.SetOpKind
	switch s.Op {
	case pg.SetOperation_SETOP_UNION:
		kind = exec.Union
	case pg.SetOperation_SETOP_INTERSECT:
		kind = exec.Intersect
	default:
		kind = exec.Except
	}
	what := strings.TrimPrefix(s.Op.String(), "SETOP_")
	left, err := a.setLeaf(s.Larg, corr)
	if err != nil {
		return nil, err
	}
	right, err := a.setLeaf(s.Rarg, corr)
	if err != nil {
		return nil, err
	}
	lc, rc := left.Columns(), right.Columns()
	if len(lc) != len(rc) {
		return nil, pgerr.New(pgerr.SyntaxError, "each %s query must have the same number of columns", what)
	}
	types := make([]exec.T, len(lc))
	for i := range lc {
		if types[i], err = commonType([]exec.T{lc[i].T, rc[i].T}, what, -1); err != nil {
			return nil, err
		}
		if !(kind == exec.Union && s.All) && !exec.HasBtreeOrdering(types[i].OID) {
			// All but UNION ALL compare rows.
			loc := int32(-1)
			if tl := s.Larg.TargetList; s.Larg.Op == pg.SetOperation_SETOP_NONE && len(tl) == len(lc) {
				loc = ExprLocation(tl[i].GetResTarget().Val)
			}
			return nil, errNoEquality(types[i], loc)
		}
	}
	if left, err = a.convert(left, types); err != nil {
		return nil, err
	}
	if right, err = a.convert(right, types); err != nil {
		return nil, err
	}
	cols := make([]exec.ResultColumn, len(lc))
	for i, c := range lc {
		cols[i] = exec.ResultColumn{Name: c.Name, T: types[i]}
	}
	p := &exec.SetOp{Kind: kind, All: s.All, Left: left, Right: right, Cols: cols}
	return a.orderLimit(s, p, corr)
}

// setLeaf plans one side of a set operation, leaving the type of
// unknown literals in its select list for the set operation to decide.
func (a *analyzer) setLeaf(s *pg.SelectStmt, corr *correlation) (exec.Plan, error) {
	saved := a.keepUnknown
	a.keepUnknown = true
	defer func() { a.keepUnknown = saved }()
	return a.query(s, corr)
}

// convert converts p's columns to types, if they are not of them.
func (a *analyzer) convert(p exec.Plan, types []exec.T) (exec.Plan, error) {
	cols := p.Columns()
	same := true
	for i, c := range cols {
		same = same && c.T == types[i]
	}
	if same {
		return p, nil
	}
	exprs := make([]exec.Expr, len(cols))
	out := make([]exec.ResultColumn, len(cols))
	for i, c := range cols {
		var err error
		if exprs[i], err = a.coerce(&exec.ColRef{Idx: i, T: c.T}, types[i], "", -1); err != nil {
			return nil, err
		}
		out[i] = exec.ResultColumn{Name: c.Name, T: types[i]}
	}
	return &exec.Project{In: p, Exprs: exprs, Cols: out}, nil
}

// typeCategory returns PostgreSQL's typcategory of a type and whether it
// is the preferred type of its category.
func typeCategory(oid uint32) (byte, bool) {
	switch oid {
	case exec.OIDBool:
		return 'B', true
	case exec.OIDInt2, exec.OIDInt4, exec.OIDInt8, exec.OIDFloat4, exec.OIDNumeric,
		exec.OIDRegclass, exec.OIDRegproc, exec.OIDRegtype, exec.OIDRegnamespace, exec.OIDRegrole, exec.OIDRegconfig, exec.OIDRegdictionary, exec.OIDRegprocedure:
		return 'N', false
	case exec.OIDFloat8, exec.OIDOid:
		return 'N', true
	case exec.OIDText:
		return 'S', true
	case exec.OIDVarchar, exec.OIDBpchar, exec.OIDName, exec.OIDCIText:
		return 'S', false
	case exec.OIDDate, exec.OIDTime, exec.OIDTimeTZ, exec.OIDTimestamp:
		return 'D', false
	case exec.OIDTimestampTZ:
		return 'D', true
	case exec.OIDInterval:
		return 'T', true
	case exec.OIDInet:
		return 'I', true
	case exec.OIDCidr:
		return 'I', false
	case exec.OIDPoint, exec.OIDLSeg, exec.OIDPath, exec.OIDBox, exec.OIDPolygon, exec.OIDLine, exec.OIDCircle:
		return 'G', false
	case exec.OIDUnknown:
		return 'X', false
	}
	return 'U', false
}

// implicitCast reports whether PostgreSQL converts from to to implicitly.
func implicitCast(from, to uint32) bool {
	if from == to {
		return true
	}
	if fr, tr := exec.NumericRank(from), exec.NumericRank(to); fr > 0 && tr > fr {
		return true
	}
	if from == exec.OIDCIText || to == exec.OIDCIText {
		return exec.CanCoerce(from, to) // citext's casts are not all implicit
	}
	fc, _ := typeCategory(from)
	tc, _ := typeCategory(to)
	if fc == 'S' && tc == 'S' {
		return true
	}
	switch from {
	case exec.OIDDate:
		return to == exec.OIDTimestamp || to == exec.OIDTimestampTZ
	case exec.OIDTimestamp:
		return to == exec.OIDTimestampTZ
	case exec.OIDCidr:
		return to == exec.OIDInet
	}
	return false
}

// commonType is PostgreSQL's select_common_type: the type that values of
// types must take to be combined (UNION, CASE, VALUES, ...). Unknowns
// take the first known type, or text; a type of the same category
// replaces the candidate when the candidate converts to it implicitly but
// not back, unless the candidate is the preferred type.
func commonType(types []exec.T, what string, loc int32) (exec.T, error) {
	if len(types) == 0 {
		return exec.TText, nil
	}
	allSame := types[0].OID != exec.OIDUnknown
	for _, t := range types[1:] {
		allSame = allSame && t == types[0]
	}
	if allSame {
		return types[0], nil
	}
	p := exec.TUnknown
	for _, t := range types {
		t = baseType(t)
		switch {
		case t.OID == exec.OIDUnknown || t.OID == p.OID:
		case p.OID == exec.OIDUnknown:
			p = t
		default:
			pc, pref := typeCategory(p.OID)
			nc, _ := typeCategory(t.OID)
			if pc != nc || pc == 'U' {
				return exec.T{}, WithPos(pgerr.New(pgerr.DatatypeMismatch, "%s types %s and %s cannot be matched", what, exec.TypeName(p.OID), exec.TypeName(t.OID)), loc)
			}
			if !pref && implicitCast(p.OID, t.OID) && !implicitCast(t.OID, p.OID) {
				p = t
			}
		}
	}
	if p.OID == exec.OIDUnknown {
		return exec.TText, nil
	}
	return p, nil
}
