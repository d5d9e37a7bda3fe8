package ddl

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// comment runs COMMENT ON {TABLE | COLUMN | INDEX | SEQUENCE | SCHEMA |
// CONSTRAINT ... ON} object IS 'text' | NULL. Comments are kept in the
// catalog records, so they are versioned with the objects; pg_description
// lists them, obj_description and col_description read them.
func (a *analyzer) comment(s *pg.CommentStmt) (planner.Utility, error) {
	text := s.Comment // "" (IS NULL or IS '') removes the comment
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		switch s.Objtype {
		case pg.ObjectType_OBJECT_SCHEMA:
			name := s.Object.GetString_().GetSval()
			sc, ok, err := a.tx.Schema(ctx, name)
			if err != nil {
				return "", err
			}
			if !ok {
				return "", pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
			}
			sc.Comment = text
			root, err := a.tx.Root().PutSchema(ctx, *sc)
			if err != nil {
				return "", err
			}
			a.tx.SetRoot(root)
			return "COMMENT", nil
		case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_INDEX, pg.ObjectType_OBJECT_SEQUENCE:
			schema, name := planner.SplitName(planner.NameList(s.Object.GetList().GetItems()))
			return "COMMENT", a.commentRelation(ctx, s.Objtype, schema, name, text)
		case pg.ObjectType_OBJECT_STATISTIC_EXT:
			return "COMMENT", a.commentStatistics(ctx, planner.NameList(s.Object.GetList().GetItems()), text)
		case pg.ObjectType_OBJECT_TSDICTIONARY, pg.ObjectType_OBJECT_TSCONFIGURATION:
			return "COMMENT", a.commentTextSearch(ctx, s.Objtype, planner.NameList(s.Object.GetList().GetItems()), text)
		case pg.ObjectType_OBJECT_VIEW:
			schema, name := planner.SplitName(planner.NameList(s.Object.GetList().GetItems()))
			return "COMMENT", a.commentView(ctx, schema, name, text)
		case pg.ObjectType_OBJECT_COLUMN:
			parts := planner.NameList(s.Object.GetList().GetItems())
			if len(parts) < 2 {
				return "", pgerr.New(pgerr.SyntaxError, "column name must be qualified")
			}
			schema, table := planner.SplitName(parts[:len(parts)-1])
			t, err := a.commentTable(ctx, schema, table)
			if err != nil {
				return "", err
			}
			col := parts[len(parts)-1]
			pos, err := alterColumn(t, col)
			if err != nil {
				return "", err
			}
			t.Columns[pos].Comment = text
			return "COMMENT", a.putTable(ctx, t)
		case pg.ObjectType_OBJECT_TABCONSTRAINT:
			t, table, name, err := a.commentTableObject(ctx, s)
			if err != nil {
				return "", err
			}
			if err := a.requireOwnerOf(t, "relation", t.Name); err != nil {
				return "", err
			}
			switch {
			case len(t.PrimaryKey) > 0 && t.PrimaryKeyName == name:
				t.PrimaryKeyComment = text
				return "COMMENT", a.putTable(ctx, t)
			}
			for i := range t.Indexes {
				if t.Indexes[i].Constraint && t.Indexes[i].Name == name {
					t.Indexes[i].ConstraintComment = text
					return "COMMENT", a.putTable(ctx, t)
				}
			}
			for i := range t.Checks {
				if t.Checks[i].Name == name {
					t.Checks[i].Comment = text
					return "COMMENT", a.putTable(ctx, t)
				}
			}
			for i := range t.ForeignKeys {
				if t.ForeignKeys[i].Name == name {
					t.ForeignKeys[i].Comment = text
					return "COMMENT", a.putTable(ctx, t)
				}
			}
			return "", pgerr.New(pgerr.UndefinedObject, "constraint %q for table %q does not exist", name, table)
		case pg.ObjectType_OBJECT_DOMCONSTRAINT:
			items := s.Object.GetList().GetItems()
			t, err := a.findType(ctx, planner.NameList(items[0].GetTypeName().GetNames()), 'd', false)
			if err != nil {
				return "", err
			}
			name := items[1].GetString_().GetSval()
			i := slices.IndexFunc(t.Checks, func(c sqldef.Check) bool { return c.Name == name })
			if i < 0 {
				return "", pgerr.New(pgerr.UndefinedObject, "constraint %q for domain %s does not exist", name, t.Name)
			}
			if au, err := a.Authority(); err != nil {
				return "", err
			} else if !au.Owns(t.Owner) {
				return "", pgerr.New(pgerr.InsufficientPrivilege, "must be owner of type %s", t.Name)
			}
			t.Checks = slices.Clone(t.Checks)
			t.Checks[i].Comment = text
			root, err := a.tx.Root().PutType(ctx, t)
			if err != nil {
				return "", err
			}
			a.tx.SetRoot(root)
			return "COMMENT", nil
		case pg.ObjectType_OBJECT_RULE:
			return "COMMENT", a.commentRule(ctx, s, text)
		case pg.ObjectType_OBJECT_TRIGGER:
			t, table, name, err := a.commentTableObject(ctx, s)
			if err != nil {
				return "", err
			}
			for i := range t.Triggers {
				if t.Triggers[i].Name == name {
					t.Triggers = slices.Clone(t.Triggers)
					t.Triggers[i].Comment = text
					return "COMMENT", a.putTable(ctx, t)
				}
			}
			return "", pgerr.New(pgerr.UndefinedObject, "trigger %q for table %q does not exist", name, table)
		case pg.ObjectType_OBJECT_TYPE, pg.ObjectType_OBJECT_DOMAIN:
			schema, name := planner.SplitName(planner.NameList(s.Object.GetTypeName().GetNames()))
			ut, err := a.LookupType(ctx, schema, name)
			if err != nil {
				return "", err
			}
			if ut == nil {
				return "", pgerr.New(pgerr.UndefinedObject, "type %q does not exist", name)
			}
			if s.Objtype == pg.ObjectType_OBJECT_DOMAIN && ut.Kind != 'd' {
				return "", pgerr.New(pgerr.WrongObjectType, "%q is not a domain", name)
			}
			commented := *ut
			commented.Comment = text
			root, err := a.tx.Root().PutType(ctx, &commented)
			if err != nil {
				return "", err
			}
			a.tx.SetRoot(root)
			return "COMMENT", nil
		case pg.ObjectType_OBJECT_LARGEOBJECT:
			lo, err := largeObjectNamed(ctx, a.tx.Root(), s.Object)
			if err != nil {
				return "", err
			}
			if au, err := a.Authority(); err != nil {
				return "", err
			} else if !au.Owns(lo.Owner) {
				return "", pgerr.New(pgerr.InsufficientPrivilege, "must be owner of large object %d", lo.OID)
			}
			commented := *lo
			commented.Comment = text
			root, err := a.tx.Root().PutLargeObject(ctx, &commented)
			if err != nil {
				return "", err
			}
			a.tx.SetRoot(root)
			return "COMMENT", nil
		case pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE, pg.ObjectType_OBJECT_AGGREGATE, pg.ObjectType_OBJECT_OPERATOR,
			pg.ObjectType_OBJECT_CAST:
			what := strings.ToLower(strings.TrimPrefix(s.Objtype.String(), "OBJECT_"))
			var f *sqldef.Function
			var err error
			switch s.Objtype {
			case pg.ObjectType_OBJECT_OPERATOR:
				if f, err = a.operatorByArgs(ctx, s.Object.GetObjectWithArgs(), false); err == nil {
					err = a.requireRoutineOwner(f)
				}
			case pg.ObjectType_OBJECT_CAST:
				f, err = a.castNamed(ctx, s.Object.GetList(), false)
			default:
				f, err = a.routineByArgs(s.Object.GetObjectWithArgs(), what)
			}
			if err != nil {
				return "", err
			}
			commented := *f
			commented.Comment = text
			root, err := a.tx.Root().PutFunction(ctx, &commented)
			if err != nil {
				return "", err
			}
			a.tx.SetRoot(root)
			return "COMMENT", nil
		}
		return "", pgerr.New(pgerr.FeatureNotSupported, "COMMENT ON %s is not supported yet", s.Objtype)
	}, nil
}

// commentTable finds the table a COMMENT names, as a record to change.
func (a *analyzer) commentTable(ctx context.Context, schema, name string) (*sqldef.Table, error) {
	rel, _, err := a.LookupRelation(ctx, schema, name)
	if err != nil {
		return nil, err
	}
	switch rel.Kind {
	case planner.RelNone:
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
	case planner.RelTable:
		return cloneTable(rel.Table), nil
	}
	return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a table", name)
}

// commentRelation comments a table, an index or a sequence.
func (a *analyzer) commentRelation(ctx context.Context, kind pg.ObjectType, schema, name, text string) error {
	rel, _, err := a.LookupRelation(ctx, schema, name)
	if err != nil {
		return err
	}
	want := map[pg.ObjectType]planner.RelKind{pg.ObjectType_OBJECT_TABLE: planner.RelTable, pg.ObjectType_OBJECT_INDEX: planner.RelIndex, pg.ObjectType_OBJECT_SEQUENCE: planner.RelSequence}[kind]
	switch {
	case rel.Kind == planner.RelNone:
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
	case rel.Kind != want:
		return pgerr.New(pgerr.WrongObjectType, "%q is not %s", name, article(want))
	}
	switch rel.Kind {
	case planner.RelTable:
		t := cloneTable(rel.Table)
		t.Comment = text
		return a.putTable(ctx, t)
	case planner.RelIndex:
		t := cloneTable(rel.Table)
		if rel.Index < 0 {
			t.PrimaryKeyIndexComment = text
		} else {
			t.Indexes[rel.Index].Comment = text
		}
		return a.putTable(ctx, t)
	}
	seq := *rel.Seq
	seq.Comment = text
	root, err := a.tx.Root().PutSequence(ctx, &seq)
	if err != nil {
		return err
	}
	a.tx.SetRoot(root)
	return nil
}

// discard runs DISCARD {ALL | PLANS | SEQUENCES | TEMP}.
func (a *analyzer) discard(s *pg.DiscardStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.s.Discard(s.Target); err != nil {
			return "", err // the session's part: sequences, LISTEN
		}
		if (s.Target == pg.DiscardMode_DISCARD_TEMP || s.Target == pg.DiscardMode_DISCARD_ALL) && a.s.TempSchemaReady() {
			if _, ok, err := a.tx.Schema(ctx, a.s.TempSchema()); err != nil {
				return "", err
			} else if ok {
				if err := a.dropSchemaContents(ctx, a.s.TempSchema()); err != nil {
					return "", err
				}
			}
		}
		return "DISCARD " + map[pg.DiscardMode]string{pg.DiscardMode_DISCARD_ALL: "ALL", pg.DiscardMode_DISCARD_PLANS: "PLANS",
			pg.DiscardMode_DISCARD_SEQUENCES: "SEQUENCES", pg.DiscardMode_DISCARD_TEMP: "TEMP"}[s.Target], nil
	}, nil
}

// commentView comments a view.
func (a *analyzer) commentView(ctx context.Context, schema, name, text string) error {
	rel, _, err := a.LookupRelation(ctx, schema, name)
	if err != nil {
		return err
	}
	switch rel.Kind {
	case planner.RelNone:
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
	case planner.RelView:
	default:
		return pgerr.New(pgerr.WrongObjectType, "%q is not a view", name)
	}
	v := *rel.View
	v.Comment = text
	root, err := a.tx.Root().PutView(ctx, &v)
	if err != nil {
		return err
	}
	a.tx.SetRoot(root)
	return nil
}

// commentTableObject reads COMMENT ON CONSTRAINT/TRIGGER name ON table:
// the table (to change and put back), its name and the object's.
func (a *analyzer) commentTableObject(ctx context.Context, s *pg.CommentStmt) (*sqldef.Table, string, string, error) {
	parts := planner.NameList(s.Object.GetList().GetItems())
	schema, table := planner.SplitName(parts[:len(parts)-1])
	t, err := a.commentTable(ctx, schema, table)
	return t, table, parts[len(parts)-1], err
}
