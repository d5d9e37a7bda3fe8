package planner

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner/plpgsql"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// User-defined functions and procedures: CREATE FUNCTION, CREATE
// PROCEDURE, DROP FUNCTION, CALL and DO, and the resolution of calls of
// them. A function is a sqldef.Function record of the root value,
// keyed by name and input types, so overloads coexist; a call picks
// among a name's overloads by PostgreSQL's rules (exec.LookupIn), filling
// in defaults and named arguments.

// PseudoTypes are the pseudo-types an argument or result may be
// declared with, by name: besides void, trigger and record, the
// polymorphic ones, and "any" (which only C functions accept, as
// checkPseudoTypes says).
var PseudoTypes = map[string]uint32{
	"void":                    exec.OIDVoid,
	"trigger":                 plpgsql.OIDTrigger,
	"record":                  exec.OIDRecord,
	"any":                     exec.OIDAny,
	"anyelement":              exec.OIDAnyElement,
	"anyarray":                exec.OIDAnyArray,
	"anynonarray":             exec.OIDAnyNonArray,
	"anyenum":                 exec.OIDAnyEnum,
	"anyrange":                exec.OIDAnyRange,
	"anymultirange":           exec.OIDAnyMultiRange,
	"anycompatible":           exec.OIDAnyCompatible,
	"anycompatiblearray":      exec.OIDAnyCompatibleArray,
	"anycompatiblenonarray":   exec.OIDAnyCompatibleNonArray,
	"anycompatiblerange":      exec.OIDAnyCompatibleRange,
	"anycompatiblemultirange": exec.OIDAnyCompatibleMultiRange,
}

// PseudoTypeNamed returns the pseudo-type a type name names, written
// alone or as pg_catalog's.
func PseudoTypeNamed(names []string) (uint32, bool) {
	if len(names) == 2 && names[0] == "pg_catalog" {
		names = names[1:]
	}
	if len(names) != 1 {
		return 0, false
	}
	oid, ok := PseudoTypes[strings.ToLower(names[0])]
	return oid, ok
}

// userFuncs returns the overloads of a function name: in schema, or in
// the schemas of the search path. The statement depends on them: a plan
// holds the bodies of the functions it calls (funcDep).
func (a *analyzer) userFuncs(schema, name string) ([]*sqldef.Function, error) {
	return a.userRoutines(schema, name, false)
}

// userRoutines is userFuncs, or, with operators, its like for the
// operators of a name.
func (a *analyzer) userRoutines(schema, name string, operators bool) ([]*sqldef.Function, error) {
	dep := funcDep{schemas: a.s.RelationPath(), name: name, operators: operators}
	if schema != "" {
		dep.schemas = []string{a.s.ResolveSchemaName(schema)}
	}
	fs, err := overloads(a.ctx, a.tx.Catalog(), dep.schemas, name, operators)
	if err != nil {
		return nil, err
	}
	dep.found = fs
	// Operators are looked up for every operator an expression applies:
	// a dependency already recorded is not recorded again.
	if !slices.ContainsFunc(a.funcs, func(d funcDep) bool {
		return d.name == name && d.operators == operators && slices.Equal(d.schemas, dep.schemas)
	}) {
		a.funcs = append(a.funcs, dep)
	}
	return fs, nil
}

// overloads returns the functions (or operators) named name in schemas,
// in their order.
func overloads(ctx context.Context, root Catalog, schemas []string, name string, operators bool) ([]*sqldef.Function, error) {
	if name == castsDep {
		return root.Casts(ctx)
	}
	var out []*sqldef.Function
	for _, sch := range schemas {
		named := root.FunctionsNamed
		if operators {
			named = root.OperatorsNamed
		}
		fs, err := named(ctx, sch, name)
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	return out, nil
}

// funcDep is a function (or operator) name a statement resolved a call
// of, and the overloads it found; or, named castsDep, the user-defined
// casts its conversions were chosen among. Another session's CREATE OR REPLACE or
// DROP changes them without touching any table the plan reads, so
// reusing a plan checks them too.
type funcDep struct {
	schemas   []string
	name      string
	operators bool
	found     []*sqldef.Function
}

// holds reports whether root has the overloads the dependency found.
func (d funcDep) holds(ctx context.Context, root Catalog) bool {
	fs, err := overloads(ctx, root, d.schemas, d.name, d.operators)
	return err == nil && slices.EqualFunc(fs, d.found, func(x, y *sqldef.Function) bool { return reflect.DeepEqual(x, y) })
}

// resolvedCall is a call of a user function, its arguments analyzed and
// converted, defaults filled in.
type resolvedCall struct {
	def  *sqldef.Function
	r    *routine
	args []exec.Expr
	// outArgs are, for a procedure, the positions in the call as
	// written of the arguments of its OUT and INOUT parameters, in the
	// order of the result's columns.
	outArgs []int
}

// resolveUserCall resolves a call among the overloads of its name. ok is
// false when the name has no user function at all.
func (a *analyzer) resolveUserCall(f *pg.FuncCall, sc *scope, procedure bool) (*resolvedCall, bool, error) {
	names := NameList(f.Funcname)
	schema, name := SplitName(names)
	if schema == "pg_catalog" {
		return nil, false, nil
	}
	all, err := a.userFuncs(schema, name)
	if err != nil || len(all) == 0 {
		return nil, false, err
	}
	var cands []*sqldef.Function
	for _, fn := range all {
		if fn.Kind != 'a' && (fn.Kind == 'p') == procedure {
			cands = append(cands, fn)
		}
	}
	if len(cands) == 0 && !procedure && slices.ContainsFunc(all, func(fn *sqldef.Function) bool { return fn.Kind == 'a' }) {
		return nil, false, nil // an aggregate's name: aggCall's
	}
	// Positional arguments first, then named ones.
	var positional []exec.Expr
	named := map[string]*pg.Node{}
	var namedOrder []string
	for _, n := range f.Args {
		if na := n.GetNamedArgExpr(); na != nil {
			named[na.Name] = na.Arg
			namedOrder = append(namedOrder, na.Name)
			continue
		}
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, true, err
		}
		positional = append(positional, e)
	}
	namedExprs := map[string]exec.Expr{}
	for _, nm := range namedOrder {
		e, err := a.expr(named[nm], sc)
		if err != nil {
			return nil, true, err
		}
		namedExprs[nm] = e
	}
	rc, err := a.resolveAmong(cands, name, positional, namedOrder, namedExprs, f.FuncVariadic, f.Location, procedure)
	return rc, true, err
}

// resolveAmong resolves a call of name, its arguments analyzed, among
// the user functions cands, as PostgreSQL's func_get_detail does: each
// candidate the call fits is compared over the call's own arguments
// (positional, then named, in the call's order; a VARIADIC parameter's
// element type repeated for the arguments it gathers), defaults aside;
// candidates that compare alike are one, of the earlier schema of the
// search path, else the one that is not variadic, else ambiguous. The
// chosen function's parameters are then bound to the arguments,
// defaults included (exec.Func.Resolve).
func (a *analyzer) resolveAmong(cands []*sqldef.Function, name string, positional []exec.Expr, namedOrder []string, namedExprs map[string]exec.Expr, variadic bool, loc int32, procedure bool) (*resolvedCall, error) {
	var callTypes []exec.T
	for _, e := range positional {
		callTypes = append(callTypes, e.Type())
	}
	for _, nm := range namedOrder {
		callTypes = append(callTypes, namedExprs[nm].Type())
	}
	what := "function"
	if procedure {
		what = "procedure"
	}
	callSig := func() string {
		parts := make([]string, len(callTypes))
		for i, t := range callTypes {
			parts[i] = a.typeName(t)
			if i >= len(positional) {
				parts[i] = namedOrder[i-len(positional)] + " => " + parts[i]
			}
		}
		return name + "(" + strings.Join(parts, ", ") + ")"
	}
	type candidate struct {
		def       *sqldef.Function
		fit       *callFit
		f         *exec.Func // over the call's arguments
		ambiguous bool
	}
	var list []*candidate
	for _, fn := range cands {
		fit, err := a.fitCall(fn, positional, namedOrder, namedExprs, variadic)
		if err != nil {
			return nil, err
		}
		if fit == nil {
			continue
		}
		c := &candidate{def: fn, fit: fit, f: &exec.Func{Name: name, Args: fit.params, Variadic: fit.unpacked, Ret: fn.Returns}}
		i := slices.IndexFunc(list, func(p *candidate) bool {
			return slices.Equal(p.f.ParamsFor(len(callTypes)), c.f.ParamsFor(len(callTypes)))
		})
		if i < 0 {
			list = append(list, c)
			continue
		}
		switch prev := list[i]; {
		case prev.def.Schema != fn.Schema:
			// cands come in search path order: the earlier one wins.
		case prev.f.Variadic && !c.f.Variadic:
			list[i] = c
		case !prev.f.Variadic && c.f.Variadic:
		default:
			prev.ambiguous = true
		}
	}
	if len(list) == 0 && !procedure && len(cands) == 0 {
		return nil, WithPos(pgerr.New(pgerr.WrongObjectType, "%s is a procedure", sigOf(name, callTypes)).
			WithHint("To call a procedure, use CALL."), loc)
	}
	overloads := make([]*exec.Func, len(list))
	for i, c := range list {
		overloads[i] = c.f
	}
	notUnique := func() error {
		return WithPos(pgerr.New(pgerr.AmbiguousFunction, "%s %s is not unique", what, callSig()).
			WithHint("Could not choose a best candidate %s. You might need to add explicit type casts.", what), loc)
	}
	best, err := exec.ChooseCasts(a.s.Settings(), overloads, name, callTypes, a.implicitUserCasts())
	if err != nil {
		switch pe, _ := err.(*pgerr.Error); {
		case pe != nil && pe.Code == pgerr.UndefinedFunction:
			return nil, WithPos(pgerr.New(pgerr.UndefinedFunction, "%s %s does not exist", what, callSig()).
				WithHint("No %s matches the given name and argument types. You might need to add explicit type casts.", what), loc)
		case pe != nil && pe.Code == pgerr.AmbiguousFunction:
			return nil, notUnique()
		}
		return nil, err
	}
	c := list[slices.Index(overloads, best)]
	if c.ambiguous {
		return nil, notUnique()
	}
	// Bind the parameters to all the arguments, defaults included.
	slots := callSlots(c.def)
	var inputs []uint32
	for _, arg := range slots {
		inputs = append(inputs, arg.Type)
	}
	bind := &exec.Func{Name: name, Args: inputs, Variadic: c.fit.unpacked}
	if c.fit.unpacked {
		bind.Args = slices.Clone(inputs)
		bind.Args[len(inputs)-1] = c.f.Args[len(inputs)-1]
	}
	args := c.fit.args
	types := make([]exec.T, len(args))
	for i, e := range args {
		types[i] = e.Type()
	}
	want, err := bind.ResolveIn(a.s.Settings(), types)
	if err != nil {
		return nil, err
	}
	if err := a.coerceArgs(args, want, loc); err != nil {
		return nil, err
	}
	if c.fit.unpacked {
		// Gather the VARIADIC parameter's arguments into an array of
		// their (resolved) element type.
		k := len(inputs) - 1
		arrT := exec.ArrayType(want[k])
		if arrT.OID == 0 {
			return nil, pgerr.New(pgerr.UndefinedObject, "could not find array type for data type %s", exec.TypeName(want[k].OID))
		}
		args = append(args[:k:k], &exec.ArrayExpr{Elems: slices.Clone(args[k:]), T: arrT})
		want = append(want[:k:k], arrT)
	}
	var outArgs []int
	if c.def.Kind == 'p' {
		// A procedure's OUT arguments are checked, not passed: the
		// routine takes its inputs only.
		var in []exec.Expr
		var inTypes []exec.T
		for i, arg := range slots {
			switch {
			case arg.Mode == 'o':
				outArgs = append(outArgs, c.fit.written[i])
				continue
			case arg.Mode == 'b':
				outArgs = append(outArgs, c.fit.written[i])
			}
			if i < len(args) {
				in, inTypes = append(in, args[i]), append(inTypes, want[i])
			}
		}
		args, want = in, inTypes
	}
	if err := a.requireExecute(c.def); err != nil {
		return nil, err
	}
	r, err := routineFor(a.s, c.def, want, "")
	if err != nil {
		return nil, err
	}
	if args, err = a.argumentDomains(c.def, args); err != nil {
		return nil, err
	}
	return &resolvedCall{def: c.def, r: r, args: args, outArgs: outArgs}, nil
}

// callFit is how a call's arguments fill a function's input slots.
type callFit struct {
	// args fill the input slots; a VARIADIC parameter's arguments, when
	// unpacked (not yet gathered into its array), fill the last ones,
	// from the parameter's on.
	args     []exec.Expr
	unpacked bool
	// params are the parameter types of the call's own arguments, in
	// the call's order (positional, then named); when unpacked, the
	// VARIADIC parameter's element type last, for each argument it
	// gathers (as exec.Func.Variadic means).
	params []uint32
	// written are, by slot, the argument's position in the call as
	// written (positional ones, then named ones), -1 for a default.
	written []int
}

// callSlots are the parameters a call of fn passes arguments for: its
// inputs, and, for a procedure, its OUT arguments too, for which CALL
// passes an expression that is checked but not evaluated (PostgreSQL 14
// on).
func callSlots(fn *sqldef.Function) []sqldef.FuncArg {
	var slots []sqldef.FuncArg
	for _, arg := range fn.Args {
		if arg.IsInput() || fn.Kind == 'p' && arg.Mode == 'o' {
			slots = append(slots, arg)
		}
	}
	return slots
}

// fitCall places a call's arguments in fn's input slots: positional ones
// first, named ones by name, defaults for the rest; the positional ones
// from that of a VARIADIC parameter on are left to be gathered into its
// array (unpacked), unless the call passes the array itself (spread,
// f(VARIADIC arr)). It returns nil when the call does not fit.
func (a *analyzer) fitCall(fn *sqldef.Function, positional []exec.Expr, namedOrder []string, named map[string]exec.Expr, spread bool) (*callFit, error) {
	inputs := callSlots(fn)
	if n := len(inputs); n > 0 && inputs[n-1].Mode == 'v' {
		if spread && len(positional)+len(named) != n {
			return nil, nil // VARIADIC arr fills the last slot
		}
		if !spread && len(named) == 0 && len(positional) >= n {
			elem := exec.VariadicElem(inputs[n-1].Type)
			if elem == 0 || elem == exec.OIDAny {
				return nil, nil
			}
			fit := &callFit{args: positional, unpacked: true}
			for i := range positional {
				fit.written = append(fit.written, i)
			}
			for _, arg := range inputs[:n-1] {
				fit.params = append(fit.params, arg.Type)
			}
			fit.params = append(fit.params, elem)
			return fit, nil
		}
	} else if spread {
		return nil, nil
	}
	if len(positional)+len(named) > len(inputs) {
		return nil, nil
	}
	fit := &callFit{args: make([]exec.Expr, len(inputs)), written: make([]int, len(inputs))}
	copy(fit.args, positional)
	for i := range fit.written {
		fit.written[i] = -1
	}
	for i := range positional {
		fit.params = append(fit.params, inputs[i].Type)
		fit.written[i] = i
	}
	for k, nm := range namedOrder {
		i := slices.IndexFunc(inputs, func(arg sqldef.FuncArg) bool { return arg.Name == nm })
		if i < 0 || fit.args[i] != nil {
			return nil, nil
		}
		fit.args[i] = named[nm]
		fit.params = append(fit.params, inputs[i].Type)
		fit.written[i] = len(positional) + k
	}
	for i := range fit.args {
		if fit.args[i] != nil {
			continue
		}
		if inputs[i].Default == "" {
			return nil, nil
		}
		n, err := ParseExpr(inputs[i].Default)
		if err != nil {
			return nil, err
		}
		e, err := a.expr(n, nil)
		if err != nil {
			return nil, err
		}
		if exec.IsPolymorphic(inputs[i].Type) {
			// A default of a polymorphic parameter keeps its own type
			// and takes part in binding the call's actual types, as
			// PostgreSQL adds defaults before it binds them.
			fit.args[i] = e
			continue
		}
		// PostgreSQL converts a default to its parameter's type at
		// CREATE FUNCTION, as an assignment does.
		t := exec.T{OID: inputs[i].Type, Typmod: -1}
		conv, ok, err := a.assignCast(e, t, -1)
		if err != nil {
			return nil, err
		}
		if !ok {
			if conv, err = a.coerce(e, t, "", -1); err != nil {
				return nil, err
			}
		}
		fit.args[i] = conv
	}
	return fit, nil
}

// userFuncCall analyzes a call of a user function in an expression: a
// scalar call, or, for a set-returning one in a select list, a function
// of the query's ProjectSet.
func (a *analyzer) userFuncCall(f *pg.FuncCall, sc *scope) (exec.Expr, bool, error) {
	rc, ok, err := a.resolveUserCall(f, sc, false)
	if !ok || err != nil {
		return nil, ok, err
	}
	if rc.def.ReturnsSet {
		a.called = append(a.called, rc.def)
		e, err := a.userSRFListCall(f, rc)
		return e, true, err
	}
	e, err := a.scalarUserCall(rc)
	return e, true, err
}

// scalarUserCall is the value of a resolved call of a user function
// that returns one, checked against the domain it returns, if any.
func (a *analyzer) scalarUserCall(rc *resolvedCall) (exec.Expr, error) {
	a.called = append(a.called, rc.def)
	e := a.userScalarCall(rc)
	if rc.def.ReturnsDomain != "" {
		// The result must pass the domain the function returns.
		dom, err := a.namedDomain(rc.def.ReturnsDomain)
		if err != nil {
			return nil, err
		}
		if dom != nil {
			if e, err = a.domainCheck(e, dom); err != nil {
				return nil, err
			}
		}
	}
	return e, nil
}

// argumentDomains checks the arguments of a call of def that fill
// parameters declared with a domain against its constraints.
func (a *analyzer) argumentDomains(def *sqldef.Function, args []exec.Expr) ([]exec.Expr, error) {
	var out []exec.Expr
	i := 0
	for _, p := range def.Args {
		if !p.IsInput() {
			continue
		}
		if i < len(args) && p.Domain != "" && p.Mode != 'v' {
			dom, err := a.namedDomain(p.Domain)
			if err != nil {
				return nil, err
			}
			if dom != nil {
				if out == nil {
					out = slices.Clone(args)
				}
				if out[i], err = a.domainCheck(out[i], dom); err != nil {
					return nil, err
				}
			}
		}
		i++
	}
	if out == nil {
		return args, nil
	}
	return out, nil
}

// namedDomain returns the domain "schema.name", nil if there is none.
func (a *analyzer) namedDomain(qualified string) (*sqldef.Type, error) {
	schema, name, _ := strings.Cut(qualified, ".")
	t, ok, err := a.tx.Catalog().Type(a.ctx, schema, name)
	if err != nil || !ok || t.Kind != 'd' {
		return nil, err
	}
	return t, nil
}

func (a *analyzer) userScalarCall(rc *resolvedCall) exec.Expr {
	s, r := a.s, rc.r
	t := exec.T{OID: r.def.Returns, Typmod: -1} // a polymorphic one's actual type
	record := t.OID == exec.OIDRecord && len(r.cols) > 1
	var types []exec.T
	var names []string
	if record {
		// The row of its OUT arguments: a record of the session's
		// record type of their columns, so that (f(...)).col and
		// (f(...)).* find them.
		t.Typmod = a.s.PlannerState().records.of(r.cols)
		for _, c := range r.cols {
			types, names = append(types, c.T), append(names, c.Name)
		}
	}
	fn := func(env *exec.Env, args []exec.Datum) (exec.Datum, error) {
		out, err := callRoutine(s, env, r, args, nil)
		if err != nil {
			return exec.Null, err
		}
		if record {
			if out.Row == nil {
				return exec.Null, nil
			}
			return exec.DRecord(&exec.Record{Type: exec.OIDRecord, Fields: slices.Clone(out.Row), Types: types, Names: names}), nil
		}
		return out.Value, nil
	}
	return &exec.Call{Name: rc.def.Name, Fn: fn, Args: rc.args, Strict: rc.def.Strict, T: t}
}

// userSRF returns the rows function of a set-returning (or composite)
// user function.
func (a *analyzer) userSRF(rc *resolvedCall) *exec.SRF {
	s, r := a.s, rc.r
	return &exec.SRF{Cols: slices.Clone(r.cols), NullArgs: !rc.def.Strict, Rows: func(env *exec.Env, args []exec.Datum) ([]exec.Row, error) {
		out, err := callRoutine(s, env, r, args, nil)
		if err != nil {
			return nil, err
		}
		switch {
		case rc.def.ReturnsSet:
			return out.Rows, nil
		case out.Row != nil && len(r.cols) > 1:
			return []exec.Row{out.Row}, nil
		}
		return []exec.Row{{out.Value}}, nil
	}}
}

// userSRFListCall is a set-returning user function in a select list.
func (a *analyzer) userSRFListCall(f *pg.FuncCall, rc *resolvedCall) (exec.Expr, error) {
	if a.srfs == nil {
		clause := a.clause
		if clause == "" {
			clause = "this context"
		}
		return nil, srfNotAllowed(clause, f.Location)
	}
	fn := a.userSRF(rc)
	fs := &exec.FuncScan{Fn: fn, Cols: fn.Cols}
	fs.Args = make([]exec.Expr, len(rc.args))
	for i, e := range rc.args {
		fs.Args[i] = &exec.OuterRef{Idx: i, T: e.Type()}
	}
	var p exec.Plan = fs
	if len(fs.Cols) != 1 {
		p = &exec.RecordScan{In: fs, Name: rc.def.Name, Typmod: a.s.PlannerState().records.of(fs.Cols)}
	} else {
		fs.Cols = []exec.ResultColumn{{Name: rc.def.Name, T: fs.Cols[0].T}}
	}
	ref := &exec.ColRef{Idx: -1, T: p.Columns()[0].T}
	a.srfs.funcs = append(a.srfs.funcs, p)
	a.srfs.args = append(a.srfs.args, rc.args)
	a.srfs.refs = append(a.srfs.refs, ref)
	return ref, nil
}

// userFuncScan plans a user function in FROM: its rows, or its one row
// of OUT arguments, or its one value. A function of one column names it
// colName (its alias, or its name), unless it is a named OUT argument,
// as PostgreSQL's chooseScalarFunctionAlias does.
func (a *analyzer) userFuncScan(fc *pg.FuncCall, sc *scope, colName string) (*exec.FuncScan, bool, error) {
	rc, ok, err := a.resolveUserCall(fc, sc, false)
	if !ok || err != nil {
		return nil, ok, err
	}
	fn := a.userSRF(rc)
	fs := &exec.FuncScan{Fn: fn, Args: rc.args, Cols: slices.Clone(fn.Cols)}
	named := slices.ContainsFunc(rc.def.Args, func(arg sqldef.FuncArg) bool { return arg.IsOutput() && arg.Name != "" })
	if len(fs.Cols) == 1 && !named {
		fs.Cols[0].Name = colName
	}
	return fs, true, nil
}

// callStmt plans CALL procedure(args): a plan of one row, the values of
// the procedure's OUT and INOUT arguments, or of none when it has none.
// A plan rather than a utility, so that its arguments may be parameters
// (a PL/pgSQL variable, a SQL function's argument, a bind parameter).
func (a *analyzer) callStmt(s *pg.CallStmt) (exec.Plan, []int, error) {
	rc, ok, err := a.resolveUserCall(s.Funccall, nil, true)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		name := OpName(s.Funccall.Funcname)
		var ts []exec.T
		for _, n := range s.Funccall.Args {
			t := exec.TUnknown
			if e, err := a.expr(n, nil); err == nil {
				t = e.Type()
			}
			ts = append(ts, t)
		}
		if len(s.Funccall.Funcname) == 1 && (a.hasFunc(name) || exec.IsAgg(name) || isPRNGFunc(name)) {
			// A built-in function: PostgreSQL finds it and refuses it.
			return nil, nil, WithPos(pgerr.New(pgerr.WrongObjectType, "%s is not a procedure", sigOf(name, ts)).
				WithHint("To call a function, use SELECT."), s.Funccall.Location)
		}
		return nil, nil, WithPos(pgerr.New(pgerr.UndefinedFunction, "procedure %s does not exist", sigOf(name, ts)).
			WithHint("No procedure matches the given name and argument types. You might need to add explicit type casts."), s.Funccall.Location)
	}
	a.called = append(a.called, rc.def)
	sess, r := a.s, rc.r
	var cols []exec.ResultColumn
	if len(rc.outArgs) > 0 {
		cols = slices.Clone(r.cols)
	}
	srf := &exec.SRF{Cols: cols, NullArgs: true, Rows: func(env *exec.Env, args []exec.Datum) ([]exec.Row, error) {
		out, err := callRoutine(sess, env, r, args, nil)
		if err != nil || len(cols) == 0 {
			return nil, err
		}
		row := out.Row
		if row == nil {
			row = make(exec.Row, len(cols))
		}
		return []exec.Row{row}, nil
	}}
	return &exec.FuncScan{Fn: srf, Args: rc.args, Cols: cols}, rc.outArgs, nil
}

// inlineCodeBlock names the procedure of no schema DO runs, as
// PostgreSQL's CONTEXT lines name it.
const inlineCodeBlock = "inline_code_block"

// doStmt runs DO $$ ... $$: an anonymous PL/pgSQL block.
func (a *analyzer) doStmt(s *pg.DoStmt) (Utility, error) {
	def := &sqldef.Function{Name: inlineCodeBlock, Kind: 'p', Language: "plpgsql", Returns: exec.OIDVoid, Volatility: 'v'}
	for _, o := range s.Args {
		d := o.GetDefElem()
		switch d.GetDefname() {
		case "as":
			def.Body = d.Arg.GetString_().GetSval()
		case "language":
			def.Language = strings.ToLower(d.Arg.GetString_().GetSval())
		}
	}
	if def.Language != "plpgsql" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DO blocks in language %q are not supported", def.Language)
	}
	return func(ctx context.Context) (string, error) {
		r, err := routineOf(a.s, def)
		if err != nil {
			return "", err
		}
		env := &exec.Env{Ctx: ctx, Settings: a.s.Settings(), TxnStart: a.tx.StartTime, Txn: a.tx, Session: a.s}
		if _, err := callRoutine(a.s, env, r, nil, nil); err != nil {
			return "", err
		}
		return "DO", nil
	}, nil
}

// srfNotAllowed is the error for a set-returning function called where
// clause (VALUES, WHERE, ...) cannot run one.
func srfNotAllowed(clause string, loc int32) error {
	return WithPos(pgerr.New(pgerr.FeatureNotSupported, "set-returning functions are not allowed in %s", clause), loc)
}

// isSRFNotAllowed reports whether err is srfNotAllowed's for clause.
func isSRFNotAllowed(err error, clause string) bool {
	var pe *pgerr.Error
	return errors.As(err, &pe) && pe.Code == pgerr.FeatureNotSupported && pe.Message == "set-returning functions are not allowed in "+clause
}
