package planner

import (
	"cmp"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// PostgreSQL's frame option bits (nodes/parsenodes.h).
const (
	frameNonDefault            = 0x00001
	frameRange                 = 0x00002
	frameRows                  = 0x00004
	frameGroups                = 0x00008
	frameStartUnboundedPrec    = 0x00020
	frameEndUnboundedFollowing = 0x00100
	frameStartCurrentRow       = 0x00200
	frameEndCurrentRow         = 0x00400
	frameStartOffsetPreceding  = 0x00800
	frameEndOffsetPreceding    = 0x01000
	frameStartOffsetFollowing  = 0x02000
	frameEndOffsetFollowing    = 0x04000
	frameExcludeCurrentRow     = 0x08000
	frameExcludeGroup          = 0x10000
	frameExcludeTies           = 0x20000
)

// winSet collects the window functions of a select list and ORDER BY,
// grouped by window: each window becomes an exec.Window over rows sorted
// by its PARTITION BY and ORDER BY, which adds the functions' values as
// columns after the input's.
type winSet struct {
	named map[string]*pg.WindowDef // the WINDOW clause
	specs []*winSpec
}

type winSpec struct {
	partition []exec.Expr
	order     []exec.Expr
	keys      []exec.SortKey // over order
	frame     exec.Frame
	funcs     []*exec.WinFunc
	refs      []*exec.ColRef
}

// window resolves an OVER clause against the WINDOW clause.
func (w *winSet) window(def *pg.WindowDef) (*pg.WindowDef, error) {
	if def.Name != "" && def.Refname == "" && len(def.PartitionClause) == 0 && len(def.OrderClause) == 0 && def.FrameOptions&frameNonDefault == 0 {
		named, ok := w.named[def.Name]
		if !ok {
			return nil, WithPos(pgerr.New(pgerr.UndefinedObject, "window %q does not exist", def.Name), def.Location)
		}
		return named, nil
	}
	if def.Refname == "" {
		return def, nil
	}
	base, ok := w.named[def.Refname]
	if !ok {
		return nil, WithPos(pgerr.New(pgerr.UndefinedObject, "window %q does not exist", def.Refname), def.Location)
	}
	if len(def.PartitionClause) > 0 {
		return nil, WithPos(pgerr.New(codeWindowingError, "cannot override PARTITION BY clause of window %q", def.Refname), def.Location)
	}
	if len(base.OrderClause) > 0 && len(def.OrderClause) > 0 {
		return nil, WithPos(pgerr.New(codeWindowingError, "cannot override ORDER BY clause of window %q", def.Refname), def.Location)
	}
	if base.FrameOptions&frameNonDefault != 0 {
		return nil, WithPos(pgerr.New(codeWindowingError, "cannot copy window %q because it has a frame clause", def.Refname), def.Location)
	}
	out := &pg.WindowDef{PartitionClause: base.PartitionClause, OrderClause: base.OrderClause,
		FrameOptions: def.FrameOptions, StartOffset: def.StartOffset, EndOffset: def.EndOffset, Location: def.Location}
	if len(def.OrderClause) > 0 {
		out.OrderClause = def.OrderClause
	}
	return out, nil
}

// windowCall analyzes a call with OVER.
func (a *analyzer) windowCall(f *pg.FuncCall, sc *scope) (exec.Expr, error) {
	name := OpName(f.Funcname)
	if a.inAgg {
		return nil, WithPos(pgerr.New(pgerr.GroupingError, "aggregate function calls cannot contain window function calls"), f.Location)
	}
	if a.inWindow {
		return nil, WithPos(pgerr.New(codeWindowingError, "window function calls cannot be nested"), f.Location)
	}
	if a.windows == nil {
		clause := a.clause
		if clause == "" {
			clause = "this context"
		}
		return nil, WithPos(pgerr.New(codeWindowingError, "window functions are not allowed in %s", clause), f.Location)
	}
	def, err := a.windows.window(f.Over)
	if err != nil {
		return nil, err
	}
	a.inWindow = true
	defer func() { a.inWindow = false }()
	spec, err := a.windowSpec(def, sc)
	if err != nil {
		return nil, err
	}
	fn, err := a.windowFunc(name, f, sc)
	if err != nil {
		return nil, err
	}
	found := false
	for _, s := range a.windows.specs {
		if exprsEqual(s.partition, spec.partition) && exprsEqual(s.order, spec.order) && sameKeys(s.keys, spec.keys) && sameFrame(s.frame, spec.frame) {
			spec, found = s, true
			break
		}
	}
	if !found {
		a.windows.specs = append(a.windows.specs, spec)
	}
	ref := &exec.ColRef{Idx: -1, T: fn.T}
	spec.funcs = append(spec.funcs, fn)
	spec.refs = append(spec.refs, ref)
	return ref, nil
}

func sameKeys(a, b []exec.SortKey) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sameFrame(a, b exec.Frame) bool {
	return a.Mode == b.Mode && a.Exclude == b.Exclude && a.Start.Kind == b.Start.Kind && a.End.Kind == b.End.Kind &&
		a.Start.Offset == nil && b.Start.Offset == nil && a.End.Offset == nil && b.End.Offset == nil
}

// windowSpec analyzes a window's PARTITION BY, ORDER BY and frame.
func (a *analyzer) windowSpec(def *pg.WindowDef, sc *scope) (*winSpec, error) {
	spec := &winSpec{}
	for _, n := range def.PartitionClause {
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, err
		}
		if e.Type().OID == exec.OIDUnknown {
			if e, err = a.coerce(e, exec.TText, "", -1); err != nil {
				return nil, err
			}
		}
		spec.partition = append(spec.partition, e)
	}
	for _, n := range def.OrderClause {
		by := n.GetSortBy()
		e, err := a.expr(by.Node, sc)
		if err != nil {
			return nil, err
		}
		if e.Type().OID == exec.OIDUnknown {
			if e, err = a.coerce(e, exec.TText, "", -1); err != nil {
				return nil, err
			}
		}
		spec.keys = append(spec.keys, sortKey(by, len(spec.order)))
		spec.order = append(spec.order, e)
	}
	opts := def.FrameOptions
	if opts&frameNonDefault == 0 {
		spec.frame = exec.Frame{Start: exec.FrameBound{Kind: exec.UnboundedPreceding}, End: exec.FrameBound{Kind: exec.CurrentRow}}
		return spec, nil
	}
	switch {
	case opts&frameRows != 0:
		spec.frame.Mode = exec.FrameRows
	case opts&frameGroups != 0:
		spec.frame.Mode = exec.FrameGroups
		if len(spec.order) == 0 {
			return nil, WithPos(pgerr.New(pgerr.WindowingError, "GROUPS mode requires an ORDER BY clause"), def.Location)
		}
	}
	switch {
	case opts&frameExcludeCurrentRow != 0:
		spec.frame.Exclude = exec.ExcludeCurrentRow
	case opts&frameExcludeGroup != 0:
		spec.frame.Exclude = exec.ExcludeGroup
	case opts&frameExcludeTies != 0:
		spec.frame.Exclude = exec.ExcludeTies
	}
	withOffset := opts&(frameStartOffsetPreceding|frameStartOffsetFollowing|frameEndOffsetPreceding|frameEndOffsetFollowing) != 0
	if spec.frame.Mode == exec.FrameRange && withOffset && len(spec.order) != 1 {
		return nil, WithPos(pgerr.New(pgerr.WindowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column"), def.Location)
	}
	// bound analyzes an offset bound: a count of rows or groups, or in
	// RANGE mode a distance from the ORDER BY value, which gives the
	// bound's value per row (the value minus the distance before the
	// current row in the key's order, plus it after).
	bound := func(b *exec.FrameBound, n *pg.Node, kind exec.BoundKind) error {
		b.Kind = kind
		saved := a.clause
		a.clause = "window definition"
		defer func() { a.clause = saved }()
		e, err := a.expr(n, sc)
		if err != nil {
			return err
		}
		what := map[exec.FrameMode]string{exec.FrameRows: "ROWS", exec.FrameGroups: "GROUPS", exec.FrameRange: "RANGE"}[spec.frame.Mode]
		if readsRowColumn(e) {
			// PostgreSQL computes the offset once per partition, not per row.
			return WithPos(pgerr.New(pgerr.InvalidColumnReference, "argument of %s must not contain variables", what), firstColumnRef(n))
		}
		if spec.frame.Mode != exec.FrameRange {
			b.Offset, err = a.coerce(e, exec.TInt8, "argument of "+what, -1)
			return err
		}
		key := spec.order[0]
		if e.Type().OID == exec.OIDUnknown {
			t := key.Type()
			if k := exec.KindOf(t.OID); k == exec.KindDate || k == exec.KindTimestamp || k == exec.KindTime || k == exec.KindTimeTZ {
				t = exec.T{OID: exec.OIDInterval, Typmod: -1}
			}
			if e, err = a.coerce(e, t, "", -1); err != nil {
				return err
			}
		}
		unsupported := func(code pgerr.Code) *pgerr.Error {
			return pgerr.New(code, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s", exec.TypeName(key.Type().OID), exec.TypeName(e.Type().OID))
		}
		if !rangeOffsetSupported(key.Type().OID, e.Type().OID) {
			return WithPos(unsupported(pgerr.UndefinedFunction), ExprLocation(n))
		}
		op := "+"
		if (kind == exec.OffsetPreceding) != spec.keys[0].Desc {
			op = "-"
		}
		if b.Value, err = a.binary(op, key, e, -1); err != nil {
			ue := unsupported(pgerr.FeatureNotSupported)
			ue.Err = err
			return WithPos(ue, def.Location)
		}
		b.Offset = e
		spec.frame.RangeKey = key
		if vt := b.Value.Type(); vt.OID != key.Type().OID {
			// date + interval is a timestamp: the keys are compared
			// with the bounds as that.
			spec.frame.RangeKey, err = a.coerce(key, vt, "", -1)
		}
		return err
	}
	var err error
	switch {
	case opts&frameStartUnboundedPrec != 0:
		spec.frame.Start.Kind = exec.UnboundedPreceding
	case opts&frameStartCurrentRow != 0:
		spec.frame.Start.Kind = exec.CurrentRow
	case opts&frameStartOffsetPreceding != 0:
		err = bound(&spec.frame.Start, def.StartOffset, exec.OffsetPreceding)
	case opts&frameStartOffsetFollowing != 0:
		err = bound(&spec.frame.Start, def.StartOffset, exec.OffsetFollowing)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case opts&frameEndUnboundedFollowing != 0:
		spec.frame.End.Kind = exec.UnboundedFollowing
	case opts&frameEndCurrentRow != 0:
		spec.frame.End.Kind = exec.CurrentRow
	case opts&frameEndOffsetPreceding != 0:
		err = bound(&spec.frame.End, def.EndOffset, exec.OffsetPreceding)
	case opts&frameEndOffsetFollowing != 0:
		err = bound(&spec.frame.End, def.EndOffset, exec.OffsetFollowing)
	default:
		spec.frame.End.Kind = exec.CurrentRow // ROWS n PRECEDING: up to the current row
	}
	return spec, err
}

// windowFunc analyzes the function of a call with OVER: a window function
// or an aggregate.
func (a *analyzer) windowFunc(name string, f *pg.FuncCall, sc *scope) (*exec.WinFunc, error) {
	if f.AggDistinct {
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "DISTINCT is not implemented for window functions"), f.Location)
	}
	if len(f.AggOrder) > 0 {
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "aggregate ORDER BY is not implemented for window functions"), f.Location)
	}
	var args []exec.Expr
	var types []exec.T
	for _, n := range f.Args {
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
		types = append(types, e.Type())
	}
	noFunc := func() error {
		return WithPos(pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", sigOf(name, types)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts."), f.Location)
	}
	fixed := map[string]struct {
		kind exec.WinKind
		t    exec.T
	}{
		"row_number": {exec.WinRowNumber, exec.TInt8}, "rank": {exec.WinRank, exec.TInt8},
		"dense_rank": {exec.WinDenseRank, exec.TInt8}, "percent_rank": {exec.WinPercentRank, exec.TFloat8},
		"cume_dist": {exec.WinCumeDist, exec.TFloat8},
	}
	if fx, ok := fixed[name]; ok {
		if len(args) != 0 {
			return nil, noFunc()
		}
		return &exec.WinFunc{Kind: fx.kind, T: fx.t}, nil
	}
	valueType := func() exec.T {
		t := baseType(types[0])
		if t.OID == exec.OIDUnknown {
			t = exec.TText
		}
		return t
	}
	var err error
	switch name {
	case "ntile":
		if len(args) != 1 {
			return nil, noFunc()
		}
		if args[0], err = a.coerce(args[0], exec.TInt4, "", f.Location); err != nil {
			return nil, err
		}
		return &exec.WinFunc{Kind: exec.WinNtile, Args: args, T: exec.TInt4}, nil
	case "lag", "lead":
		if len(args) < 1 || len(args) > 3 {
			return nil, noFunc()
		}
		t := valueType()
		if len(args) == 3 {
			ct, err := commonType([]exec.T{types[0], types[2]}, "lag/lead", f.Location)
			if err != nil {
				return nil, noFunc()
			}
			t = ct
			if args[2], err = a.coerce(args[2], t, "", f.Location); err != nil {
				return nil, err
			}
		}
		if args[0], err = a.coerce(args[0], t, "", f.Location); err != nil {
			return nil, err
		}
		if len(args) > 1 {
			if args[1], err = a.coerce(args[1], exec.TInt4, "", f.Location); err != nil {
				return nil, err
			}
		}
		kind := exec.WinLag
		if name == "lead" {
			kind = exec.WinLead
		}
		return &exec.WinFunc{Kind: kind, Args: args, T: t}, nil
	case "first_value", "last_value", "nth_value":
		want := 1
		if name == "nth_value" {
			want = 2
		}
		if len(args) != want {
			return nil, noFunc()
		}
		t := valueType()
		if args[0], err = a.coerce(args[0], t, "", f.Location); err != nil {
			return nil, err
		}
		kind := map[string]exec.WinKind{"first_value": exec.WinFirstValue, "last_value": exec.WinLastValue, "nth_value": exec.WinNthValue}[name]
		if want == 2 {
			if args[1], err = a.coerce(args[1], exec.TInt4, "", f.Location); err != nil {
				return nil, err
			}
		}
		return &exec.WinFunc{Kind: kind, Args: args, T: t}, nil
	}
	if !a.isAggregate(f) {
		if exec.HasFunc(name) {
			return nil, WithPos(pgerr.New(pgerr.WrongObjectType, "OVER specified, but %s is not a window function nor an aggregate function", name), f.Location)
		}
		return nil, noFunc()
	}
	if f.AggStar {
		args, types = nil, nil
	} else if len(f.Args) == 0 && name == "count" {
		return nil, WithPos(pgerr.New(pgerr.WrongObjectType, "count(*) must be used to call a parameterless aggregate function"), f.Location)
	}
	agg, want, spread, err := a.lookupAggregate(f, name, types) // built-in or user-defined
	if err != nil {
		if pe, ok := err.(*pgerr.Error); ok && pe.Code != pgerr.InsufficientPrivilege {
			return nil, WithPos(pe, f.Location)
		}
		return nil, err
	}
	if err := a.coerceArgs(args, want, f.Location); err != nil {
		return nil, err
	}
	args, want = packVariadic(args, want, spread)
	wf := &exec.WinFunc{Kind: exec.WinAgg, Agg: agg, ArgTypes: want, Args: args}
	wf.T = (&exec.AggCall{Func: agg, ArgTypes: want}).T()
	if f.AggFilter != nil {
		if wf.Filter, err = a.condition(f.AggFilter, sc, "FILTER", "argument of FILTER"); err != nil {
			return nil, err
		}
	}
	return wf, nil
}

// plan returns in with the window functions' values added to its rows,
// one exec.Window per window, in PostgreSQL's order (orderSpecs). order
// are the query's ORDER BY expressions.
func (w *winSet) plan(in exec.Plan, order []exec.Expr) exec.Plan {
	w.orderSpecs(order)
	for _, s := range w.specs {
		cols := in.Columns()
		base := len(cols)
		exprs := make([]exec.Expr, 0, base+len(s.partition)+len(s.order))
		for i, c := range cols {
			exprs = append(exprs, &exec.ColRef{Idx: i, T: c.T})
		}
		var partCols []int
		var keys []exec.SortKey
		for _, e := range s.partition {
			partCols = append(partCols, len(exprs))
			keys = append(keys, exec.SortKey{Col: len(exprs)})
			exprs = append(exprs, e)
		}
		orderStart := len(exprs)
		var orderKeys []exec.SortKey
		for i, e := range s.order {
			k := s.keys[i]
			k.Col = orderStart + i
			orderKeys = append(orderKeys, k)
			exprs = append(exprs, e)
		}
		keys = append(keys, orderKeys...)
		pcols := append([]exec.ResultColumn(nil), cols...)
		for _, e := range exprs[base:] {
			pcols = append(pcols, exec.ResultColumn{Name: "?window?", T: e.Type()})
		}
		var p exec.Plan = in
		if len(exprs) > base {
			p = &exec.Project{In: in, Exprs: exprs, Cols: pcols}
		}
		if len(keys) > 0 {
			p = &exec.Sort{In: p, Keys: keys}
		}
		wcols := append([]exec.ResultColumn(nil), pcols...)
		for i, f := range s.funcs {
			s.refs[i].Idx = len(wcols)
			wcols = append(wcols, exec.ResultColumn{Name: "?window?", T: f.T})
		}
		in = &exec.Window{In: p, PartitionCols: partCols, OrderKeys: orderKeys, Frame: s.frame, Funcs: s.funcs, Cols: wcols}
	}
	return in
}

// orderSpecs puts the windows in the order PostgreSQL evaluates them
// (select_active_windows): sorted by their partition and order keys, so
// that windows sorting alike are adjacent and one whose keys extend
// another's comes first. The last window's sort is the order of the rows
// when the query has no ORDER BY, and the order of ties in the sorts
// after it, so it is visible. PostgreSQL compares keys by their sort
// group reference (numbered in order of first use, the query's ORDER BY
// before the windows), then by sort operator (the greater OID first,
// which for a type's > against its < puts DESC before ASC), then NULLS
// FIRST before LAST; it sorts with its quicksort.
func (w *winSet) orderSpecs(order []exec.Expr) {
	if len(w.specs) < 2 {
		return
	}
	var refs []exec.Expr // by sort group reference, from 1
	ref := func(e exec.Expr) int {
		for i, r := range refs {
			if exprEqual(r, e) {
				return i + 1
			}
		}
		refs = append(refs, e)
		return len(refs)
	}
	for _, e := range order {
		ref(e)
	}
	type key struct {
		ref        int
		desc       bool
		nullsFirst bool
	}
	keys := make(map[*winSpec][]key, len(w.specs))
	for _, s := range w.specs {
		var ks []key
		seen := map[int]bool{}
		for _, e := range s.partition {
			if r := ref(e); !seen[r] {
				seen[r] = true
				ks = append(ks, key{ref: r, nullsFirst: false})
			}
		}
		for i, e := range s.order {
			k := s.keys[i]
			if r := ref(e); !seen[r] {
				seen[r] = true
				ks = append(ks, key{ref: r, desc: k.Desc, nullsFirst: k.NullsFirst})
			}
		}
		keys[s] = ks
	}
	exec.SortLikePostgres(w.specs, func(a, b *winSpec) int {
		ka, kb := keys[a], keys[b]
		for i := range min(len(ka), len(kb)) {
			x, y := ka[i], kb[i]
			switch {
			case x.ref != y.ref:
				return cmp.Compare(y.ref, x.ref)
			case x.desc != y.desc:
				if x.desc {
					return -1
				}
				return 1
			case x.nullsFirst != y.nullsFirst:
				if x.nullsFirst {
					return -1
				}
				return 1
			}
		}
		return cmp.Compare(len(kb), len(ka))
	})
}

// rangeOffsetSupported reports whether PostgreSQL has an in_range support
// function for a RANGE frame ordered by a column of type key with an
// offset of type off, directly or through an implicit cast of the offset:
// integers take integer offsets, floats float8 (which integers and
// numeric cast to implicitly), numeric numeric, and the date and time
// types and interval take intervals. date + integer is an operator, but
// no frame offset.
func rangeOffsetSupported(key, off uint32) bool {
	ok := exec.KindOf(off)
	switch exec.KindOf(key) {
	case exec.KindInt:
		return ok == exec.KindInt && off != exec.OIDOid && key != exec.OIDOid
	case exec.KindFloat:
		return ok == exec.KindInt || ok == exec.KindFloat || ok == exec.KindNumeric
	case exec.KindNumeric:
		return ok == exec.KindInt || ok == exec.KindNumeric
	case exec.KindDate, exec.KindTimestamp, exec.KindTime, exec.KindTimeTZ, exec.KindInterval:
		return off == exec.OIDInterval
	}
	return true // left to the operator's own lookup, as before
}

// readsRowColumn reports whether e reads a column of the row it is
// evaluated on; for kinds of expression it does not look into, false.
func readsRowColumn(e exec.Expr) bool {
	return exprAny(e, func(x exec.Expr) (bool, bool) { _, ok := x.(*exec.ColRef); return ok, false }, false)
}

// firstColumnRef returns the location of the first column reference in
// n, -1 if none.
func firstColumnRef(n *pg.Node) int32 {
	loc := int32(-1)
	VisitNodes(n, func(x *pg.Node) {
		if c := x.GetColumnRef(); c != nil && loc < 0 {
			loc = c.Location
		}
	})
	return loc
}
