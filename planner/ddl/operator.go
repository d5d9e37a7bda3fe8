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

// CREATE OPERATOR, DROP OPERATOR and ALTER OPERATOR, as PostgreSQL's
// operatorcmds.c and pg_operator.c do them. An operator is a
// sqldef.Function record of Kind 'o' naming the function it stands
// for (sqldef.Operator); planner/operator.go resolves and applies
// them.

// restrictEstimators and joinEstimators are the built-in selectivity
// estimators RESTRICT and JOIN may name. They only inform a planner's
// estimates, which this one does not make; they are recorded for
// pg_operator.
var (
	restrictEstimators = []string{"eqsel", "neqsel", "scalarltsel", "scalarlesel", "scalargtsel", "scalargesel",
		"areasel", "positionsel", "contsel", "matchingsel", "arraycontsel", "rangesel", "multirangesel", "networksel",
		"tsmatchsel", "likesel", "nlikesel", "iclikesel", "icnlikesel", "regexeqsel", "regexnesel", "icregexeqsel",
		"icregexnesel", "prefixsel", "scalarineqsel"}
	joinEstimators = []string{"eqjoinsel", "neqjoinsel", "scalarltjoinsel", "scalarlejoinsel", "scalargtjoinsel",
		"scalargejoinsel", "areajoinsel", "positionjoinsel", "contjoinsel", "matchingjoinsel", "arraycontjoinsel",
		"rangejoinsel", "networkjoinsel", "tsmatchjoinsel", "likejoinsel", "nlikejoinsel", "iclikejoinsel",
		"icnlikejoinsel", "regexeqjoinsel", "regexnejoinsel", "icregexeqjoinsel", "icregexnejoinsel"}
)

// operatorDef is what CREATE OPERATOR's definition list says.
type operatorDef struct {
	left, right         *pg.TypeName
	function            []string
	commutator, negator []string
	restrict, join      []string
	hashes, merges      bool
}

// defNames is a definition value naming a function or an operator,
// possibly schema-qualified.
func defNames(n *pg.Node) []string {
	switch {
	case n == nil:
		return nil
	case n.GetTypeName() != nil:
		return planner.NameList(n.GetTypeName().Names)
	case n.GetList() != nil:
		return planner.NameList(n.GetList().Items)
	}
	return []string{planner.DefText(n)}
}

// operatorDefinition reads CREATE OPERATOR's definition list, as
// DefineOperator does.
func (a *analyzer) operatorDefinition(list []*pg.Node) (*operatorDef, error) {
	d := &operatorDef{}
	for _, n := range list {
		de := n.GetDefElem()
		if de == nil {
			continue
		}
		var err error
		switch strings.ToLower(de.Defname) {
		case "leftarg", "rightarg":
			tn := de.Arg.GetTypeName()
			if tn == nil {
				tn = &pg.TypeName{Names: []*pg.Node{pg.MakeStrNode(planner.DefText(de.Arg))}, Typemod: -1}
			}
			if tn.Setof {
				return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "SETOF type not allowed for operator argument")
			}
			if strings.EqualFold(de.Defname, "leftarg") {
				d.left = tn
			} else {
				d.right = tn
			}
		case "function", "procedure":
			d.function = defNames(de.Arg)
		case "commutator":
			d.commutator = defNames(de.Arg)
		case "negator":
			d.negator = defNames(de.Arg)
		case "restrict":
			d.restrict = defNames(de.Arg)
		case "join":
			d.join = defNames(de.Arg)
		case "hashes":
			d.hashes, err = planner.DefBool(de)
		case "merges":
			d.merges, err = planner.DefBool(de)
		case "sort1", "sort2", "ltcmp", "gtcmp":
			// Obsolete options that mean MERGES.
			d.merges = true
		default:
			a.s.Notice(pgerr.NewWarning(pgerr.SyntaxError, "operator attribute %q not recognized", de.Defname))
		}
		if err != nil {
			return nil, err
		}
	}
	return d, nil
}

// validOperatorName reports whether name may name an operator, as
// PostgreSQL's validOperatorName says: operator characters only, no
// comment start, no trailing + or - unless a character SQL's own
// operators lack comes before it, and not !=, which the parser reads
// as <>.
func validOperatorName(name string) bool {
	if name == "" || len(name) >= 64 || strings.Trim(name, "~!@#^&|`?+-*/%<>=") != "" {
		return false
	}
	if strings.Contains(name, "/*") || strings.Contains(name, "--") {
		return false
	}
	if n := len(name); n > 1 && (name[n-1] == '+' || name[n-1] == '-') {
		if !strings.ContainsAny(name[:n-1], "~!@#^&|`?%") {
			return false
		}
	}
	return name != "!="
}

// createOperator is CREATE OPERATOR.
func (a *analyzer) createOperator(s *pg.DefineStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		schema, name, err := a.newObjectName(ctx, planner.NameList(s.Defnames))
		if err != nil {
			return "", err
		}
		def, err := a.operatorDef(ctx, s.Definition, schema, name)
		if err != nil {
			return "", err
		}
		return "CREATE OPERATOR", a.putRoutine(ctx, def)
	}, nil
}

// operatorDef checks CREATE OPERATOR's definition, in the order of
// PostgreSQL's DefineOperator and OperatorCreate, and builds its record.
func (a *analyzer) operatorDef(ctx context.Context, list []*pg.Node, schema, name string) (*sqldef.Function, error) {
	d, err := a.operatorDefinition(list)
	if err != nil {
		return nil, err
	}
	if d.function == nil {
		return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "operator function must be specified")
	}
	def := &sqldef.Function{Schema: schema, Name: name, Kind: 'o', Language: "internal", Volatility: 'i'}
	var operands []exec.T
	for _, tn := range []*pg.TypeName{d.left, d.right} {
		if tn == nil {
			continue
		}
		t, err := a.routineType(tn)
		if err != nil {
			return nil, err
		}
		operands = append(operands, t)
		def.Args = append(def.Args, sqldef.FuncArg{Type: t.OID, Mode: 'i', Domain: a.domainName(tn)})
	}
	if d.right == nil {
		if d.left != nil {
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "operator right argument type must be specified").
				WithDetail("Postfix operators are not supported.")
		}
		return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "operator argument types must be specified")
	}
	for _, tn := range []*pg.TypeName{d.left, d.right} {
		if tn != nil && planner.PseudoTypes[strings.ToLower(planner.OpName(tn.Names))] == 0 {
			if err := a.RequireTypeNameUsage(tn); err != nil {
				return nil, err
			}
		}
	}
	proc, ret, err := a.operatorFunction(d.function, operands)
	if err != nil {
		return nil, err
	}
	def.Returns, def.ReturnsDomain = ret.Returns, ret.ReturnsDomain
	op := &sqldef.Operator{Proc: proc, Hashes: d.hashes, Merges: d.merges}
	if op.Restrict, err = estimator(d.restrict, restrictEstimators, "internal, oid, internal, integer"); err != nil {
		return nil, err
	}
	if op.Join, err = estimator(d.join, joinEstimators, "internal, oid, internal, smallint, internal"); err != nil {
		return nil, err
	}
	if !validOperatorName(name) {
		return nil, pgerr.New(pgerr.InvalidName, "%q is not a valid operator name", name)
	}
	if d.left == nil {
		switch {
		case d.commutator != nil:
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "only binary operators can have commutators")
		case op.Join != "":
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "only binary operators can have join selectivity")
		case op.Merges:
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "only binary operators can merge join")
		case op.Hashes:
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "only binary operators can hash")
		}
	}
	if def.Returns != exec.OIDBool {
		switch {
		case d.negator != nil:
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "only boolean operators can have negators")
		case op.Restrict != "":
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "only boolean operators can have restriction selectivity")
		case op.Join != "":
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "only boolean operators can have join selectivity")
		case op.Merges:
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "only boolean operators can merge join")
		case op.Hashes:
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "only boolean operators can hash")
		}
	}
	left, right := def.Operands()
	if _, exists, err := a.tx.Root().Operator(ctx, schema, name, left, right); err != nil {
		return nil, err
	} else if exists {
		return nil, pgerr.New(pgerr.DuplicateFunction, "operator %s already exists", name)
	}
	if d.commutator != nil {
		if op.Commutator, err = a.otherOperator(ctx, d.commutator, right, left); err != nil {
			return nil, err
		}
	}
	if d.negator != nil {
		if op.Negator, err = a.otherOperator(ctx, d.negator, left, right); err != nil {
			return nil, err
		}
		if op.Negator == schema+"."+name {
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "operator cannot be its own negator or sort operator")
		}
	}
	def.Operator = op
	def.Owner = planner.NewObjectOwner(a.s)
	return def, nil
}

// operatorFunction finds the function an operator stands for: a user
// function or a built-in one of that name taking exactly the operand
// types, as LookupFuncName finds it. It returns the function's
// schema-qualified name and its result type (Returns, ReturnsDomain).
func (a *analyzer) operatorFunction(names []string, operands []exec.T) (string, *sqldef.Function, error) {
	schema, fname := planner.SplitName(names)
	inputs := make([]uint32, len(operands))
	typeNames := make([]string, len(operands))
	for i, t := range operands {
		inputs[i], typeNames[i] = t.OID, exec.TypeName(t.OID)
	}
	if schema != "pg_catalog" {
		fs, err := a.UserFuncs(schema, fname)
		if err != nil {
			return "", nil, err
		}
		for _, f := range fs {
			if f.Kind == 'f' && slices.Equal(f.InputTypes(), inputs) {
				if err := a.RequireExecute(f); err != nil {
					return "", nil, err
				}
				return f.Schema + "." + f.Name, f, nil
			}
		}
	}
	if schema == "" || schema == "pg_catalog" {
		if exec.HasExact(fname, inputs...) {
			f, want, err := exec.LookupFuncIn(a.s.Settings(), fname, operands)
			if err == nil {
				var t exec.T
				if _, t, err = f.BindIn(a.s.Settings(), want); err == nil {
					return "pg_catalog." + fname, &sqldef.Function{Returns: t.OID}, nil
				}
			}
		}
	}
	return "", nil, pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", strings.Join(names, "."), strings.Join(typeNames, ", "))
}

// estimator checks a RESTRICT or JOIN estimator, one of known; args are
// the parameter types PostgreSQL looks it up by, for the error.
func estimator(names []string, known []string, args string) (string, error) {
	if names == nil {
		return "", nil
	}
	schema, name := planner.SplitName(names)
	if (schema == "" || schema == "pg_catalog") && slices.Contains(known, name) {
		return name, nil
	}
	return "", pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", strings.Join(names, "."), args)
}

// otherOperator resolves the commutator or negator an operator names,
// over left and right, to its schema-qualified name: the operator found
// by the search path, or, when there is none yet, the name in the
// schema PostgreSQL would make its shell in. Linking an existing
// operator needs its ownership.
func (a *analyzer) otherOperator(ctx context.Context, names []string, left, right uint32) (string, error) {
	schema, name := planner.SplitName(names)
	found, err := a.findOperator(ctx, schema, name, left, right)
	if err != nil {
		return "", err
	}
	if found != nil {
		if err := a.requireRoutineOwner(found); err != nil {
			return "", err
		}
		return found.Schema + "." + found.Name, nil
	}
	if schema, err = a.creationSchema(ctx, schema, -1); err != nil {
		return "", err
	}
	return schema + "." + name, nil
}

// findOperator returns the operator schema.name over left and right
// (schema "": the first along the search path), nil if there is none.
func (a *analyzer) findOperator(ctx context.Context, schema, name string, left, right uint32) (*sqldef.Function, error) {
	schemas := a.s.RelationPath()
	if schema != "" {
		schemas = []string{a.s.ResolveSchemaName(schema)}
	}
	for _, sc := range schemas {
		op, ok, err := a.tx.Root().Operator(ctx, sc, name, left, right)
		if err != nil || ok {
			return op, err
		}
	}
	return nil, nil
}

// operatorByArgs returns the operator DROP, ALTER or COMMENT names by its
// name and operand types (NONE for a prefix operator's left one); nil
// with missingOK when there is none.
func (a *analyzer) operatorByArgs(ctx context.Context, ow *pg.ObjectWithArgs, missingOK bool) (*sqldef.Function, error) {
	schema, name := planner.SplitName(planner.NameList(ow.Objname))
	var types [2]uint32
	var typeNames []string
	for i, n := range ow.Objargs {
		tn := n.GetTypeName()
		if i > 1 || tn == nil {
			continue
		}
		t, err := a.routineType(tn)
		if err != nil {
			return nil, err
		}
		types[i] = t.OID
		typeNames = append(typeNames, exec.TypeName(t.OID))
	}
	op, err := a.findOperator(ctx, schema, name, types[0], types[1])
	if err != nil || op != nil || missingOK {
		return op, err
	}
	return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s", operatorSignature(planner.NameList(ow.Objname), typeNames, types[0] == 0))
}

// operatorSignature is how "operator does not exist" names an operator:
// left type, name, right type, or name and type for a prefix one.
func operatorSignature(names, typeNames []string, prefix bool) string {
	name := strings.Join(names, ".")
	if prefix || len(typeNames) < 2 {
		return name + " " + strings.Join(typeNames, "")
	}
	return typeNames[0] + " " + name + " " + typeNames[1]
}

// operatorDescription is how dependency messages name operator op:
// name(left,right), NONE for a missing left, schema-qualified unless its
// schema is on the search path.
func (a *analyzer) operatorDescription(op *sqldef.Function) string {
	left, right := op.Operands()
	l := "NONE"
	if left != 0 {
		l = exec.TypeName(left)
	}
	name := op.Name
	if !slices.Contains(a.s.RelationPath(), op.Schema) {
		name = op.Schema + "." + name
	}
	return "operator " + name + "(" + l + "," + exec.TypeName(right) + ")"
}

// dropOperators runs DROP OPERATOR.
func (a *analyzer) dropOperators(ctx context.Context, s *pg.DropStmt) (string, error) {
	for _, obj := range s.Objects {
		ow := obj.GetObjectWithArgs()
		op, err := a.operatorByArgs(ctx, ow, s.MissingOk)
		if err != nil {
			return "", err
		}
		if op == nil {
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "operator %s does not exist, skipping", strings.Join(planner.NameList(ow.Objname), ".")))
			continue
		}
		if err := a.requireRoutineOwner(op); err != nil {
			return "", err
		}
		root, err := a.tx.Root().DropFunction(ctx, op)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
	}
	a.s.InvalidatePlans()
	return "DROP OPERATOR", nil
}

// operatorsOf returns the operators that stand for user function f.
func (a *analyzer) operatorsOf(ctx context.Context, f *sqldef.Function) ([]*sqldef.Function, error) {
	ops, err := a.tx.Root().Operators(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(ops, func(op *sqldef.Function) bool {
		return op.Operator == nil || op.Operator.Proc != f.Schema+"."+f.Name || !slices.Equal(op.InputTypes(), f.InputTypes())
	}), nil
}

// dropOperatorsOf drops, with CASCADE, the operators that stand for
// function f, which is being dropped; without, their existence is an
// error, as the dependencies PostgreSQL records make it.
func (a *analyzer) dropOperatorsOf(ctx context.Context, f *sqldef.Function, cascade bool) error {
	ops, err := a.operatorsOf(ctx, f)
	if err != nil || len(ops) == 0 {
		return err
	}
	sig := procSignature(f)
	if !cascade {
		var lines []string
		for _, op := range ops {
			lines = append(lines, a.operatorDescription(op)+" depends on function "+sig)
		}
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop function %s because other objects depend on it", sig).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	var lines []string
	for _, op := range ops {
		lines = append(lines, "drop cascades to "+a.operatorDescription(op))
		root, err := a.tx.Root().DropFunction(ctx, op)
		if err != nil {
			return err
		}
		a.tx.SetRoot(root)
	}
	if len(lines) == 1 {
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "%s", lines[0]))
	} else {
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to %d other objects", len(lines)).
			WithDetail("%s", strings.Join(lines, "\n")))
	}
	return nil
}

// procSignature is how dependency messages name function f:
// name(type,type).
func procSignature(f *sqldef.Function) string {
	var ts []string
	for _, t := range f.InputTypes() {
		ts = append(ts, exec.TypeName(t))
	}
	return f.Name + "(" + strings.Join(ts, ",") + ")"
}

// alterOperator is ALTER OPERATOR ... SET (RESTRICT = ..., JOIN = ...),
// the attributes PostgreSQL 15 lets change.
func (a *analyzer) alterOperator(s *pg.AlterOperatorStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		op, err := a.operatorByArgs(ctx, s.Opername, false)
		if err != nil {
			return "", err
		}
		changed := *op
		o := *op.Operator
		changed.Operator = &o
		for _, n := range s.Options {
			de := n.GetDefElem()
			if de == nil {
				continue
			}
			var names []string
			if de.Arg != nil {
				names = defNames(de.Arg)
			}
			switch strings.ToLower(de.Defname) {
			case "restrict":
				if o.Restrict, err = estimator(names, restrictEstimators, "internal, oid, internal, integer"); err != nil {
					return "", err
				}
			case "join":
				if o.Join, err = estimator(names, joinEstimators, "internal, oid, internal, smallint, internal"); err != nil {
					return "", err
				}
			case "leftarg", "rightarg", "function", "procedure", "commutator", "negator", "hashes", "merges":
				return "", pgerr.New(pgerr.SyntaxError, "operator attribute %q cannot be changed", de.Defname)
			default:
				return "", pgerr.New(pgerr.SyntaxError, "operator attribute %q not recognized", de.Defname)
			}
		}
		if err := a.requireRoutineOwner(op); err != nil {
			return "", err
		}
		if op.Returns != exec.OIDBool && (o.Restrict != "" || o.Join != "") {
			what := "restriction"
			if o.Join != "" && o.Restrict == "" {
				what = "join"
			}
			return "", pgerr.New(pgerr.InvalidFunctionDefinition, "only boolean operators can have %s selectivity", what)
		}
		root, err := a.tx.Root().PutFunction(ctx, &changed)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
		return "ALTER OPERATOR", nil
	}, nil
}

// setOperatorSchema is ALTER OPERATOR ... SET SCHEMA.
func (a *analyzer) setOperatorSchema(ctx context.Context, s *pg.AlterObjectSchemaStmt, to string) (string, error) {
	op, err := a.operatorByArgs(ctx, s.Object.GetObjectWithArgs(), false)
	if err != nil {
		return "", err
	}
	if err := a.requireRoutineOwner(op); err != nil {
		return "", err
	}
	if op.Schema == to {
		return "ALTER OPERATOR", nil
	}
	if err := a.requireSchemaCreate(ctx, to); err != nil {
		return "", err
	}
	left, right := op.Operands()
	if _, exists, err := a.tx.Root().Operator(ctx, to, op.Name, left, right); err != nil {
		return "", err
	} else if exists {
		return "", pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint \"pg_operator_oprname_l_r_n_index\"")
	}
	root, err := a.tx.Root().DropFunction(ctx, op)
	if err != nil {
		return "", err
	}
	moved := *op
	moved.Schema = to
	if root, err = root.PutFunction(ctx, &moved); err != nil {
		return "", err
	}
	a.tx.SetRoot(root)
	a.s.InvalidatePlans()
	return "ALTER OPERATOR", nil
}
