package planner

import (
	"context"
	"reflect"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner/plpgsql"
	"github.com/prollypg/prollypg/versioning"
)

// User-defined functions and procedures: CREATE FUNCTION, CREATE
// PROCEDURE, DROP FUNCTION, CALL and DO, and the resolution of calls of
// them. A function is a versioning.Function record of the root value,
// keyed by name and input types, so overloads coexist; a call picks
// among a name's overloads by PostgreSQL's rules (exec.LookupIn), filling
// in defaults and named arguments.

// createFunction runs CREATE [OR REPLACE] FUNCTION and CREATE PROCEDURE.
func (a *analyzer) createFunction(s *pg.CreateFunctionStmt) (Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		schema, name := SplitName(nameList(s.Funcname))
		schema, err := a.creationSchema(ctx, schema, -1)
		if err != nil {
			return "", err
		}
		def, err := a.functionDef(s, schema, name)
		if err != nil {
			return "", err
		}
		old, exists, err := a.tx.Root.Function(ctx, schema, name, def.InputTypes())
		if err != nil {
			return "", err
		}
		tag := "CREATE FUNCTION"
		if def.Kind == 'p' {
			tag = "CREATE PROCEDURE"
		}
		if exists {
			if !s.Replace {
				return "", pgerr.New(pgerr.DuplicateFunction, "function %q already exists with same argument types", name)
			}
			if old.Kind != def.Kind {
				return "", pgerr.New(pgerr.WrongObjectType, "cannot change routine kind").
					WithDetail("%q is a %s.", name, map[byte]string{'f': "function", 'p': "procedure"}[old.Kind])
			}
			if old.Returns != def.Returns || old.ReturnsSet != def.ReturnsSet {
				return "", pgerr.New(pgerr.InvalidFunctionDefinition, "cannot change return type of existing function").
					WithHint("Use DROP FUNCTION %s first.", functionSignature(old))
			}
			if err := checkReplacement(old, def); err != nil {
				return "", err
			}
			def.Comment = old.Comment
		}
		if check := a.s.Var("check_function_bodies"); check != "off" {
			body := def
			if exec.HasPolymorphic(def.InputTypes()) {
				body = specialize(def, validationTypes(def))
			}
			if _, err := compileRoutine(a.s, body, def); err != nil {
				return "", err
			}
		}
		root, err := a.tx.Root.PutFunction(ctx, def)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
		a.s.InvalidatePlans() // plans calling the old definition are made again
		return tag, nil
	}, nil
}

// checkReplacement refuses, as PostgreSQL's ProcedureCreate does, a
// CREATE OR REPLACE that would break calls of the function it replaces:
// one that renames an input parameter or drops a default.
func checkReplacement(old, def *versioning.Function) error {
	drop := "DROP FUNCTION"
	if old.Kind == 'p' {
		drop = "DROP PROCEDURE"
	}
	var oldIn, newIn []versioning.FuncArg
	for _, arg := range old.Args {
		if arg.IsInput() {
			oldIn = append(oldIn, arg)
		}
	}
	for _, arg := range def.Args {
		if arg.IsInput() {
			newIn = append(newIn, arg)
		}
	}
	oldDefaults, newDefaults := 0, 0
	for i, arg := range oldIn {
		if arg.Default != "" {
			oldDefaults++
		}
		if newIn[i].Default != "" {
			newDefaults++
		}
		if arg.Name != "" && newIn[i].Name != arg.Name {
			return pgerr.New(pgerr.InvalidFunctionDefinition, "cannot change name of input parameter %q", arg.Name).
				WithHint("Use %s %s first.", drop, functionSignature(old))
		}
	}
	if newDefaults < oldDefaults {
		return pgerr.New(pgerr.InvalidFunctionDefinition, "cannot remove parameter defaults from existing function").
			WithHint("Use %s %s first.", drop, functionSignature(old))
	}
	return nil
}

// functionDef builds the record CREATE FUNCTION describes.
func (a *analyzer) functionDef(s *pg.CreateFunctionStmt, schema, name string) (*versioning.Function, error) {
	def := &versioning.Function{Schema: schema, Name: name, Kind: 'f', Volatility: 'v', Returns: exec.OIDVoid}
	if s.IsProcedure {
		def.Kind = 'p'
	}
	seenDefault := false
	for _, n := range s.Parameters {
		p := n.GetFunctionParameter()
		t, err := a.routineType(p.ArgType)
		if err != nil {
			return nil, err
		}
		arg := versioning.FuncArg{Name: p.Name, Type: t.OID, Mode: 'i'}
		switch p.Mode {
		case pg.FunctionParameterMode_FUNC_PARAM_OUT:
			arg.Mode = 'o'
		case pg.FunctionParameterMode_FUNC_PARAM_INOUT:
			arg.Mode = 'b'
		case pg.FunctionParameterMode_FUNC_PARAM_VARIADIC:
			arg.Mode = 'v'
			if t.OID != exec.OIDAnyArray && t.OID != exec.OIDAnyCompatibleArray && t.OID != exec.OIDAny && exec.ElemType(t).OID == 0 {
				return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "VARIADIC parameter must be an array")
			}
		case pg.FunctionParameterMode_FUNC_PARAM_TABLE:
			arg.Mode = 't'
		}
		for _, prev := range def.Args {
			// The same name for two inputs or two outputs; an input and
			// an output may share one.
			if arg.Name != "" && prev.Name == arg.Name && (prev.IsInput() && arg.IsInput() || prev.IsOutput() && arg.IsOutput()) {
				return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "parameter name %q used more than once", arg.Name)
			}
		}
		if p.Defexpr != nil {
			if !arg.IsInput() {
				return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "only input parameters can have default values")
			}
			if arg.Default, err = deparseExpr(p.Defexpr); err != nil {
				return nil, err
			}
			seenDefault = true
		} else if seenDefault && arg.IsInput() {
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "input parameters after one with a default value must also have defaults")
		}
		def.Args = append(def.Args, arg)
	}
	if s.ReturnType != nil {
		t, err := a.routineType(s.ReturnType)
		if err != nil {
			return nil, err
		}
		def.Returns, def.ReturnsSet = t.OID, s.ReturnType.Setof
	}
	var outs []versioning.FuncArg
	for _, arg := range def.Args {
		if arg.IsOutput() {
			outs = append(outs, arg)
		}
		if arg.Mode == 't' {
			def.ReturnsSet = true
		}
	}
	switch {
	case len(outs) == 1 && s.ReturnType == nil && def.Kind == 'f':
		def.Returns = outs[0].Type
	case len(outs) > 1 && def.Kind == 'f':
		def.Returns = exec.OIDRecord
	case s.ReturnType == nil && def.Kind == 'f':
		return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "function result type must be specified")
	}
	for _, o := range s.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "language":
			def.Language = strings.ToLower(d.Arg.GetString_().GetSval())
		case "as":
			items := d.Arg.GetList().GetItems()
			if len(items) > 0 {
				def.Body = items[0].GetString_().GetSval()
			}
		case "volatility":
			def.Volatility = d.Arg.GetString_().GetSval()[0]
		case "strict":
			def.Strict = d.Arg.GetBoolean().GetBoolval()
		}
	}
	if s.SqlBody != nil {
		body, err := atomicBody(s.SqlBody)
		if err != nil {
			return nil, err
		}
		def.Body = body
		if def.Language == "" {
			def.Language = "sql"
		}
	}
	switch def.Language {
	case "sql", "plpgsql":
	case "":
		return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "no language specified")
	case "c", "internal":
		return nil, pgerr.New(pgerr.FeatureNotSupported, "functions in language %q are not supported", def.Language)
	default:
		return nil, pgerr.New(pgerr.UndefinedObject, "language %q does not exist", def.Language)
	}
	if def.Returns == plpgsql.OIDTrigger && def.Language == "sql" {
		return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "SQL functions cannot return type trigger")
	}
	if err := checkPolySignature(def); err != nil {
		return nil, err
	}
	return def, checkPseudoTypes(def)
}

// checkPolySignature fails, as PostgreSQL's ProcedureCreate does, when a
// polymorphic result or OUT argument type has no input of its family to
// take its actual type from at a call.
func checkPolySignature(def *versioning.Function) error {
	inputs := def.InputTypes()
	outs := []uint32{def.Returns}
	for _, arg := range def.Args {
		if arg.IsOutput() {
			outs = append(outs, arg.Type)
		}
	}
	for _, t := range outs {
		if detail := exec.PolySignatureDetail(t, inputs); detail != "" {
			return pgerr.New(pgerr.InvalidFunctionDefinition, "cannot determine result data type").WithDetail("%s", detail)
		}
	}
	return nil
}

// checkPseudoTypes refuses the pseudo-types a language's validator
// refuses (fmgr_sql_validator, plpgsql_validator): "any", which only C
// functions can read, as an argument or result.
func checkPseudoTypes(def *versioning.Function) error {
	lang, code := "SQL", pgerr.InvalidFunctionDefinition
	if def.Language == "plpgsql" {
		lang, code = "PL/pgSQL", pgerr.FeatureNotSupported
	}
	if def.Returns == exec.OIDAny {
		return pgerr.New(code, "%s functions cannot return type %s", lang, exec.TypeName(exec.OIDAny))
	}
	for _, arg := range def.Args {
		if arg.Type != exec.OIDAny {
			continue
		}
		if lang == "SQL" {
			return pgerr.New(code, "SQL functions cannot have arguments of type %s", exec.TypeName(exec.OIDAny))
		}
		return pgerr.New(code, "PL/pgSQL functions cannot accept type %s", exec.TypeName(exec.OIDAny))
	}
	return nil
}

// atomicBody turns a SQL-standard body (BEGIN ATOMIC ... END, or RETURN
// expr) into the statements it runs, as text.
func atomicBody(n *pg.Node) (string, error) {
	var stmts []*pg.Node
	if l := n.GetList(); l != nil {
		for _, item := range l.Items {
			if inner := item.GetList(); inner != nil {
				stmts = append(stmts, inner.Items...)
			} else if item != nil {
				stmts = append(stmts, item)
			}
		}
	} else {
		stmts = append(stmts, n)
	}
	var parts []string
	for _, st := range stmts {
		if r := st.GetReturnStmt(); r != nil {
			e, err := deparseExpr(r.Returnval)
			if err != nil {
				return "", err
			}
			parts = append(parts, "SELECT "+e)
			continue
		}
		s, err := pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: st}}})
		if err != nil {
			return "", pgerr.Wrap(err, pgerr.InternalError, "cannot deparse function body: %v", err)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; "), nil
}

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

// routineType resolves an argument or result type, pseudo-types included.
func (a *analyzer) routineType(tn *pg.TypeName) (exec.T, error) {
	if oid, ok := PseudoTypes[strings.ToLower(OpName(tn.Names))]; ok {
		return exec.T{OID: oid, Typmod: -1}, nil
	}
	if tn.PctType {
		return exec.T{}, pgerr.New(pgerr.FeatureNotSupported, "%%TYPE in function signatures is not supported yet")
	}
	t, _, err := a.resolveType(tn) // built-in and user types
	return t, err
}

// functionSignature is name(argtypes) as PostgreSQL's messages show it.
func functionSignature(f *versioning.Function) string {
	var ts []string
	for _, a := range f.Args {
		if a.IsInput() {
			ts = append(ts, exec.TypeName(a.Type))
		}
	}
	return f.Name + "(" + strings.Join(ts, ", ") + ")"
}

// dropFunctions runs DROP FUNCTION and DROP PROCEDURE.
func (a *analyzer) dropFunctions(ctx context.Context, s *pg.DropStmt) (string, error) {
	what, tag := "function", "DROP FUNCTION"
	if s.RemoveType == pg.ObjectType_OBJECT_PROCEDURE {
		what, tag = "procedure", "DROP PROCEDURE"
	}
	if s.RemoveType == pg.ObjectType_OBJECT_ROUTINE {
		what, tag = "routine", "DROP ROUTINE"
	}
	if s.RemoveType == pg.ObjectType_OBJECT_AGGREGATE {
		what, tag = "aggregate", "DROP AGGREGATE"
	}
	for _, obj := range s.Objects {
		ow := obj.GetObjectWithArgs()
		schema, name := SplitName(nameList(ow.Objname))
		cands, err := a.userFuncs(schema, name)
		if err != nil {
			return "", err
		}
		var match []*versioning.Function
		for _, f := range cands {
			if ow.ArgsUnspecified || a.sameInputs(f, ow.Objargs) {
				match = append(match, f)
			}
		}
		if len(match) == 1 && (match[0].Kind == 'a') != (s.RemoveType == pg.ObjectType_OBJECT_AGGREGATE) {
			if match[0].Kind == 'a' {
				return "", pgerr.New(pgerr.WrongObjectType, "%q is an aggregate function", name).
					WithHint("Use DROP AGGREGATE to drop aggregate functions.")
			}
			return "", pgerr.New(pgerr.WrongObjectType, "function %s is not an aggregate", functionSignature(match[0]))
		}
		switch {
		case len(match) == 0 && s.MissingOk:
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "%s %s(%s) does not exist, skipping", what, name, a.typeList(ow)))
			continue
		case len(match) == 0 && ow.ArgsUnspecified:
			return "", pgerr.New(pgerr.UndefinedFunction, "could not find a %s named %q", what, name)
		case len(match) == 0:
			return "", pgerr.New(pgerr.UndefinedFunction, "%s %s(%s) does not exist", what, name, a.typeList(ow))
		case len(match) > 1:
			return "", pgerr.New(pgerr.AmbiguousFunction, "%s name %q is not unique", what, name).
				WithHint("Specify the argument list to select the %s unambiguously.", what)
		}
		f := match[0]
		if err := a.dropTriggersOf(ctx, f, s.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
			return "", err
		}
		if err := a.dropGenerationsOf(ctx, f, s.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
			return "", err
		}
		root, err := a.tx.Root.DropFunction(ctx, f)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
	}
	a.s.InvalidatePlans()
	return tag, nil
}

func (a *analyzer) typeList(ow *pg.ObjectWithArgs) string {
	var ts []string
	for _, n := range ow.Objargs {
		t, err := a.routineType(n.GetTypeName())
		if err != nil {
			ts = append(ts, OpName(n.GetTypeName().Names))
			continue
		}
		ts = append(ts, exec.TypeName(t.OID))
	}
	return strings.Join(ts, ", ")
}

// sameInputs reports whether f's input types are those listed.
func (a *analyzer) sameInputs(f *versioning.Function, args []*pg.Node) bool {
	in := f.InputTypes()
	if len(in) != len(args) {
		return false
	}
	for i, n := range args {
		t, err := a.routineType(n.GetTypeName())
		if err != nil || t.OID != in[i] {
			return false
		}
	}
	return true
}

// userFuncs returns the overloads of a function name: in schema, or in
// the schemas of the search path. The statement depends on them: a plan
// holds the bodies of the functions it calls (funcDep).
func (a *analyzer) userFuncs(schema, name string) ([]*versioning.Function, error) {
	dep := funcDep{schemas: a.s.RelationPath(), name: name}
	if schema != "" {
		dep.schemas = []string{a.s.ResolveSchemaName(schema)}
	}
	fs, err := overloads(a.ctx, a.tx.Root, dep.schemas, name)
	if err != nil {
		return nil, err
	}
	dep.found = fs
	a.funcs = append(a.funcs, dep)
	return fs, nil
}

// overloads returns the functions named name in schemas, in their order.
func overloads(ctx context.Context, root versioning.RootValue, schemas []string, name string) ([]*versioning.Function, error) {
	var out []*versioning.Function
	for _, sch := range schemas {
		fs, err := root.FunctionsNamed(ctx, sch, name)
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	return out, nil
}

// funcDep is a function name a statement resolved a call of, and the
// overloads it found. Another session's CREATE OR REPLACE or DROP changes
// them without touching any table the plan reads, so reusing a plan
// checks them too.
type funcDep struct {
	schemas []string
	name    string
	found   []*versioning.Function
}

// holds reports whether root has the overloads the dependency found.
func (d funcDep) holds(ctx context.Context, root versioning.RootValue) bool {
	fs, err := overloads(ctx, root, d.schemas, d.name)
	return err == nil && slices.EqualFunc(fs, d.found, func(x, y *versioning.Function) bool { return reflect.DeepEqual(x, y) })
}

// resolvedCall is a call of a user function, its arguments analyzed and
// converted, defaults filled in.
type resolvedCall struct {
	def  *versioning.Function
	r    *routine
	args []exec.Expr
}

// resolveUserCall resolves a call among the overloads of its name. ok is
// false when the name has no user function at all.
func (a *analyzer) resolveUserCall(f *pg.FuncCall, sc *scope, procedure bool) (*resolvedCall, bool, error) {
	names := nameList(f.Funcname)
	schema, name := SplitName(names)
	if schema == "pg_catalog" {
		return nil, false, nil
	}
	all, err := a.userFuncs(schema, name)
	if err != nil || len(all) == 0 {
		return nil, false, err
	}
	var cands []*versioning.Function
	for _, fn := range all {
		if fn.Kind != 'a' && (fn.Kind == 'p') == procedure {
			cands = append(cands, fn)
		}
	}
	if len(cands) == 0 && !procedure && slices.ContainsFunc(all, func(fn *versioning.Function) bool { return fn.Kind == 'a' }) {
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
func (a *analyzer) resolveAmong(cands []*versioning.Function, name string, positional []exec.Expr, namedOrder []string, namedExprs map[string]exec.Expr, variadic bool, loc int32, procedure bool) (*resolvedCall, error) {
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
			parts[i] = exec.TypeName(t.OID)
			if i >= len(positional) {
				parts[i] = namedOrder[i-len(positional)] + " => " + parts[i]
			}
		}
		return name + "(" + strings.Join(parts, ", ") + ")"
	}
	type candidate struct {
		def       *versioning.Function
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
		return nil, withPos(pgerr.New(pgerr.WrongObjectType, "%s is a procedure", sigOf(name, callTypes)).
			WithHint("To call a procedure, use CALL."), loc)
	}
	overloads := make([]*exec.Func, len(list))
	for i, c := range list {
		overloads[i] = c.f
	}
	notUnique := func() error {
		return withPos(pgerr.New(pgerr.AmbiguousFunction, "%s %s is not unique", what, callSig()).
			WithHint("Could not choose a best candidate %s. You might need to add explicit type casts.", what), loc)
	}
	best, err := exec.Choose(overloads, name, callTypes)
	if err != nil {
		switch pe, _ := err.(*pgerr.Error); {
		case pe != nil && pe.Code == pgerr.UndefinedFunction:
			return nil, withPos(pgerr.New(pgerr.UndefinedFunction, "%s %s does not exist", what, callSig()).
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
	inputs := c.def.InputTypes()
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
	want, err := bind.Resolve(types)
	if err != nil {
		return nil, err
	}
	for i, e := range args {
		if args[i], err = a.coerce(e, want[i], "", loc); err != nil {
			return nil, err
		}
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
	r, err := routineFor(a.s, c.def, want)
	if err != nil {
		return nil, err
	}
	return &resolvedCall{def: c.def, r: r, args: args}, nil
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
}

// fitCall places a call's arguments in fn's input slots: positional ones
// first, named ones by name, defaults for the rest; the positional ones
// from that of a VARIADIC parameter on are left to be gathered into its
// array (unpacked), unless the call passes the array itself (spread,
// f(VARIADIC arr)). It returns nil when the call does not fit.
func (a *analyzer) fitCall(fn *versioning.Function, positional []exec.Expr, namedOrder []string, named map[string]exec.Expr, spread bool) (*callFit, error) {
	var inputs []versioning.FuncArg
	for _, arg := range fn.Args {
		if arg.IsInput() {
			inputs = append(inputs, arg)
		}
	}
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
	fit := &callFit{args: make([]exec.Expr, len(inputs))}
	copy(fit.args, positional)
	for i := range positional {
		fit.params = append(fit.params, inputs[i].Type)
	}
	for _, nm := range namedOrder {
		i := slices.IndexFunc(inputs, func(arg versioning.FuncArg) bool { return arg.Name == nm })
		if i < 0 || fit.args[i] != nil {
			return nil, nil
		}
		fit.args[i] = named[nm]
		fit.params = append(fit.params, inputs[i].Type)
	}
	for i := range fit.args {
		if fit.args[i] != nil {
			continue
		}
		if inputs[i].Default == "" {
			return nil, nil
		}
		n, err := parseExpr(inputs[i].Default)
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
	a.called = append(a.called, rc.def)
	if rc.def.ReturnsSet {
		e, err := a.userSRFListCall(f, rc)
		return e, true, err
	}
	return a.userScalarCall(rc), true, nil
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
		return nil, withPos(pgerr.New(pgerr.FeatureNotSupported, "set-returning functions are not allowed in %s", clause), f.Location)
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
	named := slices.ContainsFunc(rc.def.Args, func(arg versioning.FuncArg) bool { return arg.IsOutput() && arg.Name != "" })
	if len(fs.Cols) == 1 && !named {
		fs.Cols[0].Name = colName
	}
	return fs, true, nil
}

// callStmt runs CALL procedure(args).
func (a *analyzer) callStmt(s *pg.CallStmt) (Utility, error) {
	return func(ctx context.Context) (string, error) {
		rc, ok, err := a.resolveUserCall(s.Funccall, nil, true)
		if err != nil {
			return "", err
		}
		if !ok {
			var ts []exec.T
			for range s.Funccall.Args {
				ts = append(ts, exec.TUnknown)
			}
			return "", withPos(pgerr.New(pgerr.UndefinedFunction, "procedure %s does not exist", sigOf(OpName(s.Funccall.Funcname), ts)).
				WithHint("No procedure matches the given name and argument types. You might need to add explicit type casts."), s.Funccall.Location)
		}
		env := &exec.Env{Ctx: ctx, Settings: a.s.Settings(), TxnStart: a.tx.StartTime, Txn: a.tx, Session: a.s}
		args := make([]exec.Datum, len(rc.args))
		for i, e := range rc.args {
			if args[i], err = e.Eval(env, nil); err != nil {
				return "", err
			}
		}
		if _, err := callRoutine(a.s, env, rc.r, args, nil); err != nil {
			return "", err
		}
		return "CALL", nil
	}, nil
}

// doStmt runs DO $$ ... $$: an anonymous PL/pgSQL block.
func (a *analyzer) doStmt(s *pg.DoStmt) (Utility, error) {
	def := &versioning.Function{Name: "inline_code_block", Kind: 'p', Language: "plpgsql", Returns: exec.OIDVoid, Volatility: 'v'}
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
