package ddl

import (
	"context"
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// createSchema runs CREATE SCHEMA [IF NOT EXISTS] [name] [AUTHORIZATION
// role] [elements]: the elements (CREATE TABLE, INDEX, SEQUENCE, VIEW,
// TRIGGER) are created in the new schema.
func (a *analyzer) createSchema(s *pg.CreateSchemaStmt) (planner.Utility, error) {
	name, owner := s.Schemaname, a.s.CurrentRole()
	if s.Authrole != nil {
		owner = planner.RoleSpecName(a.s, s.Authrole)
		if name == "" {
			name = owner
		}
	}
	var elts []func(context.Context) (planner.Utility, error)
	// PostgreSQL creates the elements by kind, whatever their order
	// (transformCreateSchemaStmt): sequences, tables, views, indexes,
	// triggers; an index may name a table the statement creates later.
	order := func(n *pg.Node) int {
		switch {
		case n.GetCreateSeqStmt() != nil:
			return 0
		case n.GetCreateStmt() != nil:
			return 1
		case n.GetViewStmt() != nil:
			return 2
		case n.GetIndexStmt() != nil:
			return 3
		}
		return 4
	}
	nodes := slices.Clone(s.SchemaElts)
	slices.SortStableFunc(nodes, func(x, y *pg.Node) int { return order(x) - order(y) })
	for _, n := range nodes {
		rv, run := schemaElement(a, n)
		if rv == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "CREATE SCHEMA element %s is not supported yet", planner.NodeName(n))
		}
		if rv.Schemaname != "" && rv.Schemaname != name {
			return nil, planner.WithPos(pgerr.New(pgerr.Code("42P15"), "CREATE specifies a schema (%s) different from the one being created (%s)", rv.Schemaname, name), rv.Location)
		}
		rv.Schemaname = name
		elts = append(elts, run)
	}
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		if err := a.s.RequireDatabase(ctx, 'C'); err != nil {
			return "", err
		}
		if strings.HasPrefix(name, "pg_") {
			return "", pgerr.New(pgerr.Code("42939"), "unacceptable schema name %q", name).
				WithDetail("The prefix \"pg_\" is reserved for system schemas.")
		}
		if ok, err := a.existingSchema(ctx, name); err != nil {
			return "", err
		} else if ok {
			if s.IfNotExists {
				a.s.Notice(pgerr.New(pgerr.DuplicateSchema, "schema %q already exists, skipping", name))
				return "CREATE SCHEMA", nil
			}
			return "", pgerr.New(pgerr.DuplicateSchema, "schema %q already exists", name)
		}
		acl, err := a.initialACL(ctx, owner, name, sqldef.DefaultSchemas)
		if err != nil {
			return "", err
		}
		root, err := a.tx.Root().PutSchema(ctx, sqldef.Schema{Name: name, Owner: owner, ACL: acl})
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
		// As in PostgreSQL, the elements run with the new schema in front
		// of the search path: their unqualified references (REFERENCES pk,
		// PARTITION OF pk) find its tables.
		if len(elts) > 0 {
			defer a.s.PushSearchPath(name)()
		}
		for _, elt := range elts {
			run, err := elt(ctx)
			if err != nil {
				return "", err
			}
			if _, err := run(ctx); err != nil {
				return "", err
			}
		}
		return "CREATE SCHEMA", nil
	}, nil
}

// schemaElement returns the name an element of CREATE SCHEMA creates and
// a function that analyzes it.
func schemaElement(a *analyzer, n *pg.Node) (*pg.RangeVar, func(context.Context) (planner.Utility, error)) {
	switch {
	case n.GetCreateStmt() != nil:
		s := n.GetCreateStmt()
		return s.Relation, func(context.Context) (planner.Utility, error) { return a.createTable(s) }
	case n.GetIndexStmt() != nil:
		s := n.GetIndexStmt()
		return s.Relation, func(context.Context) (planner.Utility, error) { return a.createIndex(s) }
	case n.GetCreateSeqStmt() != nil:
		s := n.GetCreateSeqStmt()
		return s.Sequence, func(context.Context) (planner.Utility, error) { return a.createSequence(s) }
	case n.GetViewStmt() != nil:
		s := n.GetViewStmt()
		return s.View, func(context.Context) (planner.Utility, error) { return a.createView(s) }
	case n.GetCreateTrigStmt() != nil:
		s := n.GetCreateTrigStmt()
		return s.Relation, func(context.Context) (planner.Utility, error) { return a.createTrigger(s) }
	}
	return nil, nil
}

// dropSchemas runs DROP SCHEMA [IF EXISTS] name, ... [CASCADE]: a schema
// with objects in it goes only with CASCADE, which drops them.
func (a *analyzer) dropSchemas(ctx context.Context, s *pg.DropStmt) (string, error) {
	for _, obj := range s.Objects {
		name := obj.GetString_().GetSval()
		if name == "" {
			name = planner.NameList(obj.GetList().GetItems())[0]
		}
		if planner.IsSystemSchema(name) || name == "pg_toast" {
			return "", pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop schema %s because it is required by the database system", name)
		}
		if ok, err := a.existingSchema(ctx, name); err != nil {
			return "", err
		} else if !ok {
			if s.MissingOk {
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "schema %q does not exist, skipping", name))
				continue
			}
			return "", pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
		}
		root := a.tx.Root()
		tables, err := root.TablesIn(ctx, name)
		if err != nil {
			return "", err
		}
		seqs, err := root.Sequences(ctx)
		if err != nil {
			return "", err
		}
		views, err := root.Views(ctx)
		if err != nil {
			return "", err
		}
		views = slices.DeleteFunc(views, func(v *sqldef.View) bool { return v.Schema != name })
		var deps []string
		for _, t := range tables {
			deps = append(deps, fmt.Sprintf("table %s.%s", name, t.Name))
		}
		for _, v := range views {
			deps = append(deps, fmt.Sprintf("view %s.%s", name, v.Name))
		}
		var schemaSeqs []*sqldef.Sequence
		for _, seq := range seqs {
			if seq.Schema == name {
				schemaSeqs = append(schemaSeqs, seq)
				if seq.OwnedBy == "" {
					deps = append(deps, fmt.Sprintf("sequence %s.%s", name, seq.Name))
				}
			}
		}
		fns, err := root.Functions(ctx)
		if err != nil {
			return "", err
		}
		fns = slices.DeleteFunc(fns, func(f *sqldef.Function) bool { return f.Schema != name })
		for _, f := range fns {
			deps = append(deps, fmt.Sprintf("%s %s.%s", planner.RoutineKind(f), name, functionSignature(f)))
		}
		ops, err := root.Operators(ctx)
		if err != nil {
			return "", err
		}
		for _, op := range ops {
			if op.Schema == name {
				deps = append(deps, a.operatorDescription(op))
				fns = append(fns, op) // dropped with the functions
			}
		}
		types, err := root.Types(ctx)
		if err != nil {
			return "", err
		}
		types = slices.DeleteFunc(types, func(t *sqldef.Type) bool { return t.Schema != name })
		for _, t := range types {
			deps = append(deps, fmt.Sprintf("%s %s.%s", map[bool]string{true: "domain", false: "type"}[t.Kind == 'd'], name, t.Name))
		}
		// The casts by the schema's functions or from or to its types.
		casts, err := root.Casts(ctx)
		if err != nil {
			return "", err
		}
		for _, c := range casts {
			src, tgt := c.CastTypes()
			if c.Cast != nil && strings.HasPrefix(c.Cast.Proc, name+".") || slices.ContainsFunc(types, func(t *sqldef.Type) bool {
				oid := planner.TypeOIDOf(t)
				return oid == src || oid == tgt
			}) {
				deps = append(deps, a.castDescription(c))
				fns = append(fns, c) // dropped with the functions
			}
		}
		if len(deps) > 0 {
			if s.Behavior != pg.DropBehavior_DROP_CASCADE {
				return "", pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop schema %s because other objects depend on it", name).
					WithDetail("%s depends on schema %s", deps[0], name).
					WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
			}
			if len(deps) == 1 {
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to %s", deps[0]))
			} else {
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to %d other objects", len(deps)).
					WithDetail("drop cascades to %s", strings.Join(deps, "\ndrop cascades to ")))
			}
		}
		for _, t := range tables {
			// Foreign keys of other schemas' tables on the schema's go.
			refs, err := root.ReferencingKeys(ctx, name, t.Name)
			if err != nil {
				return "", err
			}
			for _, r := range refs {
				if r.Schema != name {
					a.tx.SetRoot(root)
					if err := a.dropForeignKeys(ctx, []sqldef.ForeignKeyRef{r}); err != nil {
						return "", err
					}
					root = a.tx.Root()
				}
			}
			if root, err = root.DropTable(ctx, name, t.Name); err != nil {
				return "", err
			}
			if root, err = SyncRefs(ctx, root, t, nil); err != nil {
				return "", err
			}
		}
		for _, seq := range schemaSeqs {
			if root, err = root.DropSequence(ctx, name, seq.Name); err != nil {
				return "", err
			}
		}
		for _, v := range views {
			if root, err = root.DropView(ctx, name, v.Name); err != nil {
				return "", err
			}
		}
		for _, f := range fns {
			if root, err = root.DropFunction(ctx, f); err != nil {
				return "", err
			}
		}
		for _, t := range types {
			if root, err = root.DropType(ctx, name, t.Name); err != nil {
				return "", err
			}
		}
		if len(fns) > 0 {
			a.s.InvalidatePlans()
		}
		if root, err = moveDefaultPrivileges(ctx, root, name, ""); err != nil {
			return "", err
		}
		if root, err = root.DropSchema(ctx, name); err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
	}
	return "DROP SCHEMA", nil
}

// renameSchema runs ALTER SCHEMA name RENAME TO new: every object of the
// schema moves to the new name.
func (a *analyzer) renameSchema(ctx context.Context, old, name string) error {
	if ok, err := a.existingSchema(ctx, old); err != nil {
		return err
	} else if !ok {
		return pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", old)
	}
	if ok, err := a.existingSchema(ctx, name); err != nil {
		return err
	} else if ok {
		return pgerr.New(pgerr.DuplicateSchema, "schema %q already exists", name)
	}
	if strings.HasPrefix(name, "pg_") {
		return pgerr.New(pgerr.Code("42939"), "unacceptable schema name %q", name).
			WithDetail("The prefix \"pg_\" is reserved for system schemas.")
	}
	root := a.tx.Root()
	sc, _, err := root.Schema(ctx, old)
	if err != nil {
		return err
	}
	tables, err := root.Tables(ctx)
	if err != nil {
		return err
	}
	seqs, err := root.Sequences(ctx)
	if err != nil {
		return err
	}
	oldPrefix, newPrefix := planner.QuoteIdent(old)+".", planner.QuoteIdent(name)+"."
	for _, t := range tables {
		// The schema's tables move; foreign keys (anywhere) that
		// reference them follow.
		nt := cloneTable(t)
		changed := t.Schema == old
		if changed {
			nt.Schema = name
			for i, c := range nt.Columns {
				if strings.HasPrefix(c.Sequence, oldPrefix) {
					nt.Columns[i].Sequence = newPrefix + strings.TrimPrefix(c.Sequence, oldPrefix)
				}
				if c.Default != "" {
					nt.Columns[i].Default, _ = planner.NextvalRefs(c.Default, func(s, n string) (string, bool) {
						return planner.QuoteIdent(name) + "." + planner.QuoteIdent(n), s == old
					})
				}
			}
		}
		for i := range nt.ForeignKeys {
			if nt.ForeignKeys[i].RefSchema == old {
				nt.ForeignKeys[i].RefSchema, changed = name, true
			}
		}
		if !changed {
			continue
		}
		if root, err = root.DropTable(ctx, t.Schema, t.Name); err != nil {
			return err
		}
		if root, err = SyncRefs(ctx, root, t, nil); err != nil {
			return err
		}
		if root, err = root.PutTable(ctx, nt); err != nil {
			return err
		}
		if root, err = SyncRefs(ctx, root, nil, nt); err != nil {
			return err
		}
	}
	views, err := root.Views(ctx)
	if err != nil {
		return err
	}
	for _, v := range views {
		moved := v.Schema == old
		nv := *v
		nv.Depends = slices.Clone(v.Depends)
		changed := moved
		for i, d := range nv.Depends {
			if strings.HasPrefix(d, old+".") {
				nv.Depends[i], changed = name+d[len(old):], true
			}
		}
		if !changed {
			continue
		}
		if sel, err := planner.ParseSelect(nv.Query); err == nil {
			planner.VisitNodes(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}, func(x *pg.Node) {
				if rv := x.GetRangeVar(); rv != nil && rv.Schemaname == old {
					rv.Schemaname = name
				}
			})
			if nv.Query, err = planner.DeparseSelect(sel); err != nil {
				return err
			}
		}
		if moved {
			if root, err = root.DropView(ctx, old, v.Name); err != nil {
				return err
			}
			nv.Schema = name
		}
		if root, err = root.PutView(ctx, &nv); err != nil {
			return err
		}
	}
	for _, seq := range seqs {
		if seq.Schema != old {
			continue
		}
		if root, err = root.DropSequence(ctx, old, seq.Name); err != nil {
			return err
		}
		seq.Schema = name
		if root, err = root.PutSequence(ctx, seq); err != nil {
			return err
		}
	}
	if root, err = moveDefaultPrivileges(ctx, root, old, name); err != nil {
		return err
	}
	if root, err = root.DropSchema(ctx, old); err != nil {
		return err
	}
	sc.Name = name
	if root, err = root.PutSchema(ctx, *sc); err != nil {
		return err
	}
	a.tx.SetRoot(root)
	return nil
}
