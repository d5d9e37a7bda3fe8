package ddl

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
)

// setSchema runs ALTER TABLE | VIEW | MATERIALIZED VIEW | SEQUENCE |
// FUNCTION | PROCEDURE | ROUTINE ... SET SCHEMA: the object keeps its name
// and moves, with what refers to it by name (moveRelation); moving it to
// the schema it is in does nothing, as in PostgreSQL.
func (a *analyzer) setSchema(s *pg.AlterObjectSchemaStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		to := s.Newschema
		switch s.ObjectType {
		case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_MATVIEW, pg.ObjectType_OBJECT_SEQUENCE:
			// The relation is looked up first: IF EXISTS skips a missing
			// one whatever the schema.
			return a.setRelationSchema(ctx, s, to)
		}
		if err := a.checkSchemaExists(ctx, to); err != nil {
			return "", err
		}
		switch s.ObjectType {
		case pg.ObjectType_OBJECT_TYPE, pg.ObjectType_OBJECT_DOMAIN:
			return a.setTypeSchema(ctx, s, to)
		case pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE:
			return a.setRoutineSchema(ctx, s, to)
		case pg.ObjectType_OBJECT_OPERATOR:
			return a.setOperatorSchema(ctx, s, to)
		case pg.ObjectType_OBJECT_TSDICTIONARY, pg.ObjectType_OBJECT_TSCONFIGURATION:
			return a.setTextSearchSchema(ctx, s)
		}
		return "", pgerr.New(pgerr.FeatureNotSupported, "ALTER %s ... SET SCHEMA is not supported yet",
			strings.ReplaceAll(strings.TrimPrefix(s.ObjectType.String(), "OBJECT_"), "_", " "))
	}, nil
}

// checkSchemaExists fails unless schema to exists.
func (a *analyzer) checkSchemaExists(ctx context.Context, to string) error {
	if _, ok, err := a.tx.Root().Schema(ctx, to); err != nil {
		return err
	} else if !ok {
		return pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", to)
	}
	return nil
}

// setTypeSchema moves a type or domain (ALTER TYPE | DOMAIN ... SET
// SCHEMA); to its own schema, it does nothing. A type's OID follows its
// name, so, as for RENAME, one that columns or other types use is not
// moved: their values and definitions would have to follow.
func (a *analyzer) setTypeSchema(ctx context.Context, s *pg.AlterObjectSchemaStmt, to string) (string, error) {
	tag, want := "ALTER TYPE", byte(0)
	if s.ObjectType == pg.ObjectType_OBJECT_DOMAIN {
		tag, want = "ALTER DOMAIN", 'd'
	}
	t, err := a.findType(ctx, planner.NameList(s.Object.GetList().GetItems()), want, s.MissingOk)
	if err != nil {
		return "", err
	}
	if t == nil {
		names := planner.NameList(s.Object.GetList().GetItems())
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "type %q does not exist, skipping", names[len(names)-1]))
		return tag, nil
	}
	if au, err := a.Authority(); err != nil {
		return "", err
	} else if !au.Owns(t.Owner) {
		return "", pgerr.New(pgerr.InsufficientPrivilege, "must be owner of type %s", t.Name)
	}
	if t.Schema == to {
		return tag, nil
	}
	if err := a.requireSchemaCreate(ctx, to); err != nil {
		return "", err
	}
	if other, err := a.LookupType(ctx, to, t.Name); err != nil {
		return "", err
	} else if other != nil && other.Schema == to {
		return "", pgerr.New(pgerr.DuplicateObject, "type %q already exists in schema %q", t.Name, to)
	}
	users, err := a.typeUsers(ctx, t)
	if err != nil {
		return "", err
	}
	over, err := a.domainsOver(ctx, t)
	if err != nil {
		return "", err
	}
	if len(users) > 0 || len(over) > 0 {
		return "", pgerr.New(pgerr.FeatureNotSupported, "cannot move type %s while columns or domains use it", t.Name)
	}
	root, err := a.tx.Root().DropType(ctx, t.Schema, t.Name)
	if err != nil {
		return "", err
	}
	t.Schema = to
	if root, err = root.PutType(ctx, t); err != nil {
		return "", err
	}
	a.tx.SetRoot(root)
	a.s.InvalidatePlans()
	return tag, nil
}

// setRelationSchema moves a table, view or sequence.
func (a *analyzer) setRelationSchema(ctx context.Context, s *pg.AlterObjectSchemaStmt, to string) (string, error) {
	tag := map[pg.ObjectType]string{
		pg.ObjectType_OBJECT_TABLE:    "ALTER TABLE",
		pg.ObjectType_OBJECT_VIEW:     "ALTER VIEW",
		pg.ObjectType_OBJECT_MATVIEW:  "ALTER MATERIALIZED VIEW",
		pg.ObjectType_OBJECT_SEQUENCE: "ALTER SEQUENCE",
	}[s.ObjectType]
	rel, schema, err := a.LookupRelation(ctx, s.Relation.Schemaname, s.Relation.Relname)
	if err != nil {
		return "", err
	}
	if rel.Kind == planner.RelNone {
		if s.MissingOk {
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", s.Relation.Relname))
			return tag, nil
		}
		return "", pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(s.Relation))
	}
	if err := a.checkSchemaExists(ctx, to); err != nil {
		return "", err
	}
	if rel.Kind == planner.RelIndex {
		return "", pgerr.New(pgerr.WrongObjectType, "cannot change schema of index %q", s.Relation.Relname).
			WithHint("Change the schema of the table instead.")
	}
	if rel.Kind == planner.RelTable {
		if err := a.requireTableOwner(rel.Table); err != nil {
			return "", err
		}
	}
	if schema == to {
		return tag, nil
	}
	if err := a.requireSchemaCreate(ctx, to); err != nil {
		return "", err
	}
	if strings.HasPrefix(schema, "pg_temp") || strings.HasPrefix(to, "pg_temp") {
		return "", pgerr.New(pgerr.FeatureNotSupported, "cannot move objects into or out of temporary schemas")
	}
	if err := a.moveRelation(ctx, rel, schema, s.Relation.Relname, to, s.Relation.Relname); err != nil {
		return "", err
	}
	a.s.InvalidatePlans()
	return tag, nil
}

// setRoutineSchema moves a function or procedure.
func (a *analyzer) setRoutineSchema(ctx context.Context, s *pg.AlterObjectSchemaStmt, to string) (string, error) {
	what := strings.ToLower(strings.TrimPrefix(s.ObjectType.String(), "OBJECT_"))
	tag := "ALTER " + strings.ToUpper(what)
	ow := s.Object.GetObjectWithArgs()
	f, err := a.routineByArgs(ow, what)
	if err != nil {
		return "", err
	}
	if f.Schema == to {
		return tag, nil
	}
	if err := a.requireSchemaCreate(ctx, to); err != nil {
		return "", err
	}
	if f.Schema == to {
		return tag, nil
	}
	cands, err := a.UserFuncs(to, f.Name)
	if err != nil {
		return "", err
	}
	for _, c := range cands {
		if slices.Equal(c.InputTypes(), f.InputTypes()) {
			return "", pgerr.New(pgerr.DuplicateFunction, "%s %s already exists in schema %q", what, functionSignature(f), to)
		}
	}
	root, err := a.tx.Root().DropFunction(ctx, f)
	if err != nil {
		return "", err
	}
	moved := *f
	moved.Schema = to
	if root, err = root.PutFunction(ctx, &moved); err != nil {
		return "", err
	}
	a.tx.SetRoot(root)
	a.s.InvalidatePlans()
	return tag, nil
}
