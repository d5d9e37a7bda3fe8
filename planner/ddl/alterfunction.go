package ddl

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
)

// alterFunction runs ALTER FUNCTION | PROCEDURE | ROUTINE name(args)
// action ...: the volatility, strictness, security and leakproofness a
// function records change; the settings it does not record (COST, ROWS,
// PARALLEL, SET), which CREATE FUNCTION accepts too, are accepted.
func (a *analyzer) alterFunction(s *pg.AlterFunctionStmt) (planner.Utility, error) {
	what := strings.ToLower(strings.TrimPrefix(s.Objtype.String(), "OBJECT_"))
	tag := "ALTER " + strings.ToUpper(what)
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		f, err := a.routineByArgs(s.Func, what)
		if err != nil {
			return "", err
		}
		if err := a.requireRoutineOwner(f); err != nil {
			return "", err
		}
		moved := *f
		for _, n := range s.Actions {
			d := n.GetDefElem()
			if d == nil {
				continue
			}
			if f.Kind == 'p' && !procedureAttribute(d.Defname) {
				return "", errProcedureAttribute(d)
			}
			switch d.Defname {
			case "volatility":
				moved.Volatility = d.Arg.GetString_().GetSval()[0]
			case "strict":
				moved.Strict = d.Arg.GetBoolean().GetBoolval()
			case "security":
				moved.SecurityDefiner = d.Arg.GetBoolean().GetBoolval()
			case "leakproof":
				moved.Leakproof = d.Arg.GetBoolean().GetBoolval()
				if err := a.requireLeakproofRight(ctx, moved.Leakproof); err != nil {
					return "", err
				}
			}
		}
		root, err := a.tx.Root().PutFunction(ctx, &moved)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
		a.s.InvalidatePlans()
		return tag, nil
	}, nil
}

// renameRoutine runs ALTER FUNCTION | PROCEDURE | ROUTINE name(args)
// RENAME TO new.
func (a *analyzer) renameRoutine(ctx context.Context, s *pg.RenameStmt) (string, error) {
	what := strings.ToLower(strings.TrimPrefix(s.RenameType.String(), "OBJECT_"))
	tag := "ALTER " + strings.ToUpper(what)
	ow := s.Object.GetObjectWithArgs()
	f, err := a.routineByArgs(ow, what)
	if err != nil {
		return "", err
	}
	cands, err := a.UserFuncs(f.Schema, s.Newname)
	if err != nil {
		return "", err
	}
	for _, c := range cands {
		if slices.Equal(c.InputTypes(), f.InputTypes()) {
			renamed := *f
			renamed.Name = s.Newname
			// "function" whatever the kind, as IsThereFunctionInNamespace.
			return "", pgerr.New(pgerr.DuplicateFunction, "function %s already exists in schema %q", functionSignature(&renamed), f.Schema)
		}
	}
	root, err := a.tx.Root().DropFunction(ctx, f)
	if err != nil {
		return "", err
	}
	renamed := *f
	renamed.Name = s.Newname
	if root, err = root.PutFunction(ctx, &renamed); err != nil {
		return "", err
	}
	a.tx.SetRoot(root)
	a.s.InvalidatePlans()
	return tag, nil
}
