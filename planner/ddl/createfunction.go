package ddl

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/planner/plpgsql"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// createFunction runs CREATE [OR REPLACE] FUNCTION and CREATE PROCEDURE.
func (a *analyzer) createFunction(s *pg.CreateFunctionStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		schema, name := planner.SplitName(planner.NameList(s.Funcname))
		schema, err := a.creationSchema(ctx, schema, -1)
		if err != nil {
			return "", err
		}
		def, err := a.functionDef(s, schema, name)
		if err != nil {
			return "", err
		}
		if err := a.requireLeakproofRight(ctx, def.Leakproof); err != nil {
			return "", err
		}
		old, exists, err := a.tx.Root().Function(ctx, schema, name, def.InputTypes())
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
		} else {
			old = nil
		}
		if err := a.ownRoutine(ctx, def, old); err != nil {
			return "", err
		}
		if check := a.s.Var("check_function_bodies"); check != "off" {
			body := def
			if exec.HasPolymorphic(def.InputTypes()) {
				body = planner.Specialize(a.s.Settings(), def, validationTypes(def))
			}
			if err := planner.CheckRoutine(a.s, body, def, a.Text()); err != nil {
				return "", err
			}
		}
		return tag, a.putRoutine(ctx, def)
	}, nil
}

// checkReplacement refuses, as PostgreSQL's ProcedureCreate does, a
// CREATE OR REPLACE that would break calls of the function it replaces:
// one that renames an input parameter or drops a default.
func checkReplacement(old, def *sqldef.Function) error {
	drop := "DROP FUNCTION"
	if old.Kind == 'p' {
		drop = "DROP PROCEDURE"
	}
	var oldIn, newIn []sqldef.FuncArg
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
func (a *analyzer) functionDef(s *pg.CreateFunctionStmt, schema, name string) (*sqldef.Function, error) {
	def := &sqldef.Function{Schema: schema, Name: name, Kind: 'f', Volatility: 'v', Returns: exec.OIDVoid}
	if s.IsProcedure {
		def.Kind = 'p'
	}
	seenDefault, variadic := false, false
	for _, n := range s.Parameters {
		p := n.GetFunctionParameter()
		t, err := a.definitionType(p.ArgType)
		if err != nil {
			return nil, err
		}
		arg := sqldef.FuncArg{Name: p.Name, Type: t.OID, Mode: 'i', Domain: a.domainName(p.ArgType)}
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
		switch {
		case variadic && arg.IsInput():
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "VARIADIC parameter must be the last input parameter")
		case variadic && arg.IsOutput() && def.Kind == 'p':
			// A CALL could not name it.
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "VARIADIC parameter must be the last parameter")
		}
		variadic = variadic || arg.Mode == 'v'
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
			if arg.Default, err = planner.DeparseExpr(p.Defexpr); err != nil {
				return nil, err
			}
			seenDefault = true
		} else if seenDefault && arg.IsInput() {
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "input parameters after one with a default value must also have defaults")
		} else if seenDefault && def.Kind == 'p' {
			// A CALL could not tell it from the defaulted input.
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "procedure OUT parameters cannot appear after one with a default value")
		}
		def.Args = append(def.Args, arg)
	}
	if s.ReturnType != nil {
		t, err := a.definitionType(s.ReturnType)
		if err != nil {
			return nil, err
		}
		def.Returns, def.ReturnsSet = t.OID, s.ReturnType.Setof
		if !def.ReturnsSet {
			def.ReturnsDomain = a.domainName(s.ReturnType)
		}
	}
	var outs []sqldef.FuncArg
	for _, arg := range def.Args {
		if arg.IsOutput() {
			outs = append(outs, arg)
		}
		if arg.Mode == 't' {
			def.ReturnsSet = true
		}
	}
	if s.ReturnType != nil && def.Kind == 'f' && len(outs) > 0 {
		// OUT parameters decide the result type; RETURNS must say it.
		required := exec.OIDRecord
		if len(outs) == 1 {
			required = outs[0].Type
		}
		if def.Returns != required {
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "function result type must be %s because of OUT parameters", exec.TypeName(required))
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
	asItems := 0 // the strings AS gives
	for _, o := range s.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		if def.Kind == 'p' && !procedureAttribute(d.Defname) {
			return nil, errProcedureAttribute(d)
		}
		switch d.Defname {
		case "language":
			def.Language = strings.ToLower(d.Arg.GetString_().GetSval())
		case "as":
			items := d.Arg.GetList().GetItems()
			if len(items) > 0 {
				def.Body = items[0].GetString_().GetSval()
			}
			asItems = len(items)
		case "volatility":
			def.Volatility = d.Arg.GetString_().GetSval()[0]
		case "strict":
			def.Strict = d.Arg.GetBoolean().GetBoolval()
		case "security":
			def.SecurityDefiner = d.Arg.GetBoolean().GetBoolval()
		case "leakproof":
			def.Leakproof = d.Arg.GetBoolean().GetBoolval()
		}
	}
	if s.SqlBody != nil {
		if asItems > 0 {
			return nil, pgerr.New(pgerr.SyntaxError, "duplicate function body specified")
		}
		for _, arg := range def.Args {
			if arg.IsInput() && exec.IsPolymorphic(arg.Type) {
				return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "SQL function with unquoted function body cannot have polymorphic arguments")
			}
		}
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
		if asItems > 1 {
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "only one AS item needed for language \"%s\"", def.Language)
		}
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

// procedureAttribute reports whether a procedure may have the routine
// attribute name, as PostgreSQL's compute_common_attribute decides: not
// the ones about a result or the planner (volatility, STRICT, LEAKPROOF,
// COST, ROWS, SUPPORT, PARALLEL, WINDOW).
func procedureAttribute(name string) bool {
	switch name {
	case "volatility", "strict", "leakproof", "cost", "rows", "support", "parallel", "window":
		return false
	}
	return true
}

// errProcedureAttribute is the error of such an attribute, at its place.
func errProcedureAttribute(d *pg.DefElem) error {
	return planner.WithPos(pgerr.New(pgerr.InvalidFunctionDefinition, "invalid attribute in procedure definition"), d.Location)
}

// requireLeakproofRight refuses a LEAKPROOF function to all but
// superusers, as PostgreSQL does: the planner would trust it with rows
// that row-level security hides.
func (a *analyzer) requireLeakproofRight(ctx context.Context, leakproof bool) error {
	if !leakproof {
		return nil
	}
	au, err := a.s.Authority(ctx)
	if err != nil {
		return err
	}
	if !au.Superuser {
		return pgerr.New(pgerr.InsufficientPrivilege, "only superuser can define a leakproof function")
	}
	return nil
}

// checkPolySignature fails, as PostgreSQL's ProcedureCreate does, when a
// polymorphic result or OUT argument type has no input of its family to
// take its actual type from at a call.
func checkPolySignature(def *sqldef.Function) error {
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
func checkPseudoTypes(def *sqldef.Function) error {
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
		if st == nil || st.Node == nil {
			continue // BEGIN ATOMIC END: no statement
		}
		if r := st.GetReturnStmt(); r != nil {
			e, err := planner.DeparseExpr(r.Returnval)
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

// routineType resolves an argument or result type, pseudo-types included.
func (a *analyzer) routineType(tn *pg.TypeName) (exec.T, error) {
	if oid, ok := planner.PseudoTypes[strings.ToLower(planner.OpName(tn.Names))]; ok {
		return exec.T{OID: oid, Typmod: -1}, nil
	}
	if tn.PctType {
		return exec.T{}, pgerr.New(pgerr.FeatureNotSupported, "%%TYPE in function signatures is not supported yet")
	}
	t, _, err := a.ResolveType(tn) // built-in and user types
	return t, err
}

// definitionType is routineType for a routine being defined, whose
// argument and result types the current role must be allowed to use.
func (a *analyzer) definitionType(tn *pg.TypeName) (exec.T, error) {
	t, err := a.routineType(tn)
	if err == nil && t.OID != 0 && planner.PseudoTypes[strings.ToLower(planner.OpName(tn.Names))] == 0 {
		err = a.RequireTypeNameUsage(tn)
	}
	return t, err
}

// functionSignature is name(argtypes) as PostgreSQL's messages show it.
func functionSignature(f *sqldef.Function) string {
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
		_, name := planner.SplitName(planner.NameList(ow.Objname))
		match, err := a.routinesMatching(ow)
		if err != nil {
			return "", err
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
		if err := routineKindFits(f, what); err != nil {
			return "", err
		}
		if err := a.requireRoutineOwner(f); err != nil {
			return "", err
		}
		if err := a.dropTriggersOf(ctx, f, s.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
			return "", err
		}
		if err := a.dropGenerationsOf(ctx, f, s.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
			return "", err
		}
		if err := a.dropPartitionKeysOf(ctx, f, s.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
			return "", err
		}
		if err := a.dropOperatorsOf(ctx, f, s.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
			return "", err
		}
		if err := a.dropCastsOf(ctx, f, s.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
			return "", err
		}
		root, err := a.tx.Root().DropFunction(ctx, f)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
	}
	a.s.InvalidatePlans()
	return tag, nil
}

// ownRoutine gives def, a routine being created, its owner, privileges
// and comment: those of old, the routine it replaces (nil for none), which
// only old's owner may replace; else the current role and its default
// privileges.
func (a *analyzer) ownRoutine(ctx context.Context, def, old *sqldef.Function) error {
	if old != nil {
		def.Comment, def.Owner, def.ACL = old.Comment, old.Owner, old.ACL
		return a.requireRoutineOwner(old)
	}
	def.Owner = planner.NewObjectOwner(a.s)
	var err error
	def.ACL, err = a.initialACL(ctx, def.Owner, def.Schema, sqldef.DefaultFunctions)
	return err
}

// requireRoutineOwner checks that the current role owns f, which
// replacing, altering or dropping it needs.
func (a *analyzer) requireRoutineOwner(f *sqldef.Function) error {
	au, err := a.Authority()
	if err != nil || au.Owns(f.Owner) {
		return err
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "must be owner of %s %s", planner.RoutineKind(f), f.Name)
}

// routinesMatching returns the user functions and procedures that ow
// names: those of its name with its argument types, or all of its name
// when it gives none.
func (a *analyzer) routinesMatching(ow *pg.ObjectWithArgs) ([]*sqldef.Function, error) {
	schema, name := planner.SplitName(planner.NameList(ow.Objname))
	cands, err := a.UserFuncs(schema, name)
	if err != nil {
		return nil, err
	}
	// A function is named by its inputs (Objargs leaves OUT ones out). A
	// procedure's OUT arguments are part of what a CALL passes: an
	// argument list naming one (OUT) is matched against all of a
	// procedure's arguments and their modes; one whose modes are left out, against its
	// inputs or against all its arguments, so that it may name two
	// procedures (PostgreSQL 14 on); one that writes IN, against its
	// inputs.
	anyOut, anyMode := false, false
	var all []*pg.Node
	var modes []pg.FunctionParameterMode
	for _, n := range ow.Objfuncargs {
		fp := n.GetFunctionParameter()
		if fp == nil {
			continue
		}
		anyOut = anyOut || fp.Mode == pg.FunctionParameterMode_FUNC_PARAM_OUT
		anyMode = anyMode || fp.Mode != pg.FunctionParameterMode_FUNC_PARAM_DEFAULT
		all = append(all, &pg.Node{Node: &pg.Node_TypeName{TypeName: fp.ArgType}})
		modes = append(modes, fp.Mode)
	}
	// modesFit reports whether the modes written fit procedure f's.
	modesFit := func(f *sqldef.Function) bool {
		i := 0
		for _, arg := range f.Args {
			if arg.Mode == 't' {
				continue
			}
			switch modes[i] {
			case pg.FunctionParameterMode_FUNC_PARAM_OUT:
				if arg.Mode != 'o' {
					return false
				}
			case pg.FunctionParameterMode_FUNC_PARAM_IN, pg.FunctionParameterMode_FUNC_PARAM_INOUT, pg.FunctionParameterMode_FUNC_PARAM_VARIADIC:
				if !arg.IsInput() {
					return false
				}
			}
			i++
		}
		return true
	}
	var match []*sqldef.Function
	for _, f := range cands {
		switch {
		case ow.ArgsUnspecified,
			(!anyOut || f.Kind != 'p') && a.sameTypes(f.InputTypes(), ow.Objargs),
			f.Kind == 'p' && (anyOut || !anyMode) && len(all) > 0 && a.sameTypes(procedureArgTypes(f), all) && modesFit(f):
			match = append(match, f)
		}
	}
	return match, nil
}

// procedureArgTypes are the types of the arguments a CALL of procedure f
// passes, its OUT ones included.
func procedureArgTypes(f *sqldef.Function) []uint32 {
	var out []uint32
	for _, arg := range f.Args {
		if arg.Mode != 't' {
			out = append(out, arg.Type)
		}
	}
	return out
}

// routineByArgs returns the one routine ow names (what: "function",
// "procedure" or "routine"), with PostgreSQL's errors for none or several.
func (a *analyzer) routineByArgs(ow *pg.ObjectWithArgs, what string) (*sqldef.Function, error) {
	match, err := a.routinesMatching(ow)
	if err != nil {
		return nil, err
	}
	_, name := planner.SplitName(planner.NameList(ow.Objname))
	switch {
	case len(match) == 0 && ow.ArgsUnspecified:
		return nil, pgerr.New(pgerr.UndefinedFunction, "could not find a %s named %q", what, name)
	case len(match) == 0:
		return nil, pgerr.New(pgerr.UndefinedFunction, "%s %s(%s) does not exist", what, name, a.typeList(ow))
	case len(match) > 1:
		return nil, pgerr.New(pgerr.AmbiguousFunction, "%s name %q is not unique", what, name).
			WithHint("Specify the argument list to select the %s unambiguously.", what)
	}
	return match[0], routineKindFits(match[0], what)
}

// routineKindFits fails, as PostgreSQL does, when a statement names a
// procedure as a function or a function as a procedure.
func routineKindFits(f *sqldef.Function, what string) error {
	switch {
	case what == "function" && f.Kind == 'p':
		return pgerr.New(pgerr.WrongObjectType, "%s is not a function", functionSignature(f))
	case what == "procedure" && f.Kind != 'p':
		return pgerr.New(pgerr.WrongObjectType, "%s is not a procedure", functionSignature(f))
	}
	return nil
}

func (a *analyzer) typeList(ow *pg.ObjectWithArgs) string {
	var ts []string
	for _, n := range ow.Objargs {
		t, err := a.routineType(n.GetTypeName())
		if err != nil {
			ts = append(ts, planner.OpName(n.GetTypeName().Names))
			continue
		}
		ts = append(ts, exec.TypeName(t.OID))
	}
	return strings.Join(ts, ", ")
}

// sameTypes reports whether the types in are those args lists.
func (a *analyzer) sameTypes(in []uint32, args []*pg.Node) bool {
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

// validationTypes are the input types a polymorphic function's body is
// checked with at CREATE FUNCTION: PostgreSQL's validators take integer
// for an element and integer[] for an array.
func validationTypes(def *sqldef.Function) []exec.T {
	var out []exec.T
	for _, t := range def.InputTypes() {
		switch {
		case t == exec.OIDAnyArray || t == exec.OIDAnyCompatibleArray:
			out = append(out, exec.ArrayType(exec.TInt4))
		case exec.IsPolymorphic(t):
			out = append(out, exec.TInt4)
		default:
			out = append(out, exec.T{OID: t, Typmod: -1})
		}
	}
	return out
}

// domainName returns the name ("schema.name") of the domain tn names, ""
// when it names no domain.
func (a *analyzer) domainName(tn *pg.TypeName) string {
	if tn == nil || len(tn.ArrayBounds) > 0 {
		return ""
	}
	if _, dom, _, err := a.ResolveTypeDomain(tn); err == nil && dom != nil {
		return dom.Schema + "." + dom.Name
	}
	return ""
}

// putRoutine stores a function, procedure, aggregate or operator record
// in the transaction's root; the plans that used the old definition (or
// resolved a call without this one) are made again.
func (a *analyzer) putRoutine(ctx context.Context, def *sqldef.Function) error {
	root, err := a.tx.Root().PutFunction(ctx, def)
	if err != nil {
		return err
	}
	a.tx.SetRoot(root)
	a.s.InvalidatePlans()
	return nil
}
