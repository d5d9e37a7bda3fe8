package ddl

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// aggDef is what CREATE AGGREGATE's definition list says.
type aggDef struct {
	sfunc, finalfunc, combinefunc []*pg.Node // function names
	stype                         *pg.TypeName
	initcond                      *string
	basetype                      *pg.TypeName // old syntax's input type
}

// createAggregate is CREATE [OR REPLACE] AGGREGATE.
func (a *analyzer) createAggregate(s *pg.DefineStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		schema, name := planner.SplitName(planner.NameList(s.Defnames))
		schema, err := a.creationSchema(ctx, schema, -1)
		if err != nil {
			return "", err
		}
		def, err := a.aggregateDef(s, schema, name)
		if err != nil {
			return "", err
		}
		old, exists, err := a.tx.Root().Function(ctx, schema, name, def.InputTypes())
		if err != nil {
			return "", err
		}
		if exists {
			switch {
			case !s.Replace:
				return "", pgerr.New(pgerr.DuplicateFunction, "function %q already exists with same argument types", name)
			case old.Kind != 'a':
				return "", pgerr.New(pgerr.WrongObjectType, "cannot change routine kind").
					WithDetail("%q is a %s.", name, map[byte]string{'f': "function", 'p': "procedure"}[old.Kind])
			case old.Returns != def.Returns:
				return "", pgerr.New(pgerr.InvalidFunctionDefinition, "cannot change return type of existing function").
					WithHint("Use DROP AGGREGATE %s first.", functionSignature(old))
			}
		} else {
			old = nil
		}
		if err := a.ownRoutine(ctx, def, old); err != nil {
			return "", err
		}
		return "CREATE AGGREGATE", a.putRoutine(ctx, def)
	}, nil
}

// aggregateDef checks CREATE AGGREGATE's definition, as PostgreSQL's
// DefineAggregate does, and builds its record.
func (a *analyzer) aggregateDef(s *pg.DefineStmt, schema, name string) (*sqldef.Function, error) {
	d, err := a.aggDefinition(s.Definition, s.Oldstyle)
	if err != nil {
		return nil, err
	}
	if d.stype == nil {
		return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "aggregate stype must be specified")
	}
	if d.sfunc == nil {
		return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "aggregate sfunc must be specified")
	}
	def := &sqldef.Function{Schema: schema, Name: name, Kind: 'a', Language: "internal", Volatility: 'i'}
	if s.Oldstyle {
		if d.basetype == nil {
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "aggregate input type must be specified")
		}
		if !strings.EqualFold(planner.OpName(d.basetype.Names), "any") { // basetype 'ANY': no argument, as count(*)
			t, err := a.routineType(d.basetype)
			if err != nil {
				return nil, err
			}
			def.Args = []sqldef.FuncArg{{Type: t.OID, Mode: 'i'}}
		}
	} else {
		if d.basetype != nil {
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "basetype is redundant with aggregate input type specification")
		}
		if def.Args, err = a.aggregateArgs(s.Args); err != nil {
			return nil, err
		}
	}
	if strings.EqualFold(planner.OpName(d.stype.Names), "internal") {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "aggregates with transition type internal are not supported yet")
	}
	stype, err := a.routineType(d.stype)
	if err != nil {
		return nil, err
	}
	if detail := exec.PolySignatureDetail(stype.OID, def.InputTypes()); detail != "" {
		// A call could not tell the state's actual type.
		return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "cannot determine transition data type").WithDetail("%s", detail)
	}
	agg := &sqldef.Aggregate{SFunc: strings.Join(planner.NameList(d.sfunc), "."), SType: stype.OID}
	if d.finalfunc != nil {
		agg.FinalFunc = strings.Join(planner.NameList(d.finalfunc), ".")
	}
	if d.combinefunc != nil {
		agg.CombineFunc = strings.Join(planner.NameList(d.combinefunc), ".")
	}
	if d.initcond != nil {
		// A polymorphic state's initial value is read as its type at a
		// call.
		if !exec.IsPolymorphic(stype.OID) {
			if _, err := exec.ParseText(stype, *d.initcond, a.s.Settings()); err != nil {
				return nil, err
			}
		}
		agg.InitCond, agg.HasInit = *d.initcond, true
	}
	def.Aggregate = agg
	// The functions must exist for the declared types, and the result
	// is the final function's, else the state.
	var inputs []exec.T
	for _, t := range def.InputTypes() {
		inputs = append(inputs, exec.T{OID: t, Typmod: -1})
	}
	ua, err := a.BindAggregate(def, inputs)
	if err != nil {
		return nil, err
	}
	def.Returns = ua.Ret.OID
	if detail := exec.PolySignatureDetail(def.Returns, def.InputTypes()); detail != "" {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "cannot determine result data type").WithDetail("%s", detail)
	}
	if agg.CombineFunc != "" {
		if _, err := a.AggSupport(agg.CombineFunc, "combine", []exec.T{stype, stype}, stype); err != nil {
			return nil, err
		}
	}
	return def, nil
}

// aggDefinition reads CREATE AGGREGATE's attributes: unknown ones draw a
// warning, as in PostgreSQL; the moving-aggregate and parallel ones are
// accepted and not used.
func (a *analyzer) aggDefinition(list []*pg.Node, oldStyle bool) (*aggDef, error) {
	d := &aggDef{}
	for _, n := range list {
		de := n.GetDefElem()
		name := func() []*pg.Node {
			if tn := de.Arg.GetTypeName(); tn != nil {
				return tn.Names
			}
			return []*pg.Node{pg.MakeStrNode(planner.DefText(de.Arg))}
		}
		switch de.Defname {
		case "sfunc", "sfunc1":
			d.sfunc = name()
		case "finalfunc":
			d.finalfunc = name()
		case "combinefunc":
			d.combinefunc = name()
		case "stype", "stype1":
			d.stype = de.Arg.GetTypeName()
			if d.stype == nil {
				d.stype = &pg.TypeName{Names: []*pg.Node{pg.MakeStrNode(planner.DefText(de.Arg))}, Typemod: -1}
			}
		case "basetype":
			d.basetype = de.Arg.GetTypeName()
			if d.basetype == nil {
				d.basetype = &pg.TypeName{Names: []*pg.Node{pg.MakeStrNode(planner.DefText(de.Arg))}, Typemod: -1}
			}
		case "initcond", "initcond1":
			v := planner.DefText(de.Arg)
			d.initcond = &v
		case "parallel":
			switch strings.ToLower(planner.DefText(de.Arg)) {
			case "safe", "restricted", "unsafe":
			default:
				return nil, pgerr.New(pgerr.SyntaxError, "parameter \"parallel\" must be SAFE, RESTRICTED, or UNSAFE")
			}
		case "msfunc", "minvfunc", "mfinalfunc", "mstype", "minitcond", "msspace", "sspace", "finalfunc_extra", "mfinalfunc_extra",
			"finalfunc_modify", "mfinalfunc_modify", "sortop", "hypothetical", "serialfunc", "deserialfunc":
		default:
			a.s.Notice(pgerr.NewWarning(pgerr.SyntaxError, "aggregate attribute %q not recognized", de.Defname))
		}
	}
	return d, nil
}

// aggregateArgs reads CREATE AGGREGATE name(args): the argument list,
// and none for (*). Ordered-set aggregates are not supported.
func (a *analyzer) aggregateArgs(args []*pg.Node) ([]sqldef.FuncArg, error) {
	if len(args) == 0 {
		return nil, nil
	}
	if len(args) > 1 && args[1].GetInteger() != nil && args[1].GetInteger().Ival > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ordered-set aggregates are not supported yet")
	}
	var out []sqldef.FuncArg
	for _, n := range args[0].GetList().GetItems() {
		p := n.GetFunctionParameter()
		t := exec.T{OID: exec.OIDAny}
		if !strings.EqualFold(planner.OpName(p.ArgType.Names), "any") {
			var err error
			if t, err = a.definitionType(p.ArgType); err != nil {
				return nil, err
			}
		}
		arg := sqldef.FuncArg{Name: p.Name, Type: t.OID, Mode: 'i'}
		if p.Mode == pg.FunctionParameterMode_FUNC_PARAM_VARIADIC {
			arg.Mode = 'v'
		}
		out = append(out, arg)
	}
	return out, nil
}
