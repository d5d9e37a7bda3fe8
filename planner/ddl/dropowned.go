package ddl

import (
	"context"
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// dropOwned runs DROP OWNED BY roles: in the current database, the
// privileges granted to the roles are revoked, the roles leave the
// policies naming them (a policy left with none is dropped), and the
// views, tables, sequences and schemas they own are dropped. Functions
// and types they own are left.
func (a *analyzer) dropOwned(s *pg.DropOwnedStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		au, err := a.Authority()
		if err != nil {
			return "", err
		}
		var roles []string
		for _, n := range s.Roles {
			name := planner.RoleSpecName(a.s, n.GetRoleSpec())
			if au.Roles[name] == nil {
				return "", pgerr.New(pgerr.UndefinedObject, "role %q does not exist", name)
			}
			if !au.Owns(name) {
				return "", pgerr.New(pgerr.InsufficientPrivilege, "permission denied to drop objects")
			}
			if !slices.Contains(roles, name) {
				roles = append(roles, name)
			}
		}
		for _, role := range roles {
			if err := a.dropOwnedBy(ctx, role, s.Behavior); err != nil {
				return "", err
			}
		}
		return "DROP OWNED", nil
	}, nil
}

// dropOwnedBy is DROP OWNED BY for one role.
func (a *analyzer) dropOwnedBy(ctx context.Context, role string, behavior pg.DropBehavior) error {
	revoke := func(acl []sqldef.ACLItem) ([]sqldef.ACLItem, bool) {
		if !slices.ContainsFunc(acl, func(it sqldef.ACLItem) bool { return it.Grantee == role }) {
			return acl, false
		}
		out := slices.DeleteFunc(slices.Clone(acl), func(it sqldef.ACLItem) bool { return it.Grantee == role })
		if out == nil {
			out = []sqldef.ACLItem{}
		}
		return out, true
	}
	root := a.tx.Root()
	tables, err := root.Tables(ctx)
	if err != nil {
		return err
	}
	name := func(schema, n string) *pg.Node {
		return &pg.Node{Node: &pg.Node_List{List: &pg.List{Items: []*pg.Node{pg.MakeStrNode(schema), pg.MakeStrNode(n)}}}}
	}
	var ownTables, ownMatViews []*pg.Node
	for _, t := range tables {
		if t.Owner == role && t.MatView != nil {
			ownMatViews = append(ownMatViews, name(t.Schema, t.Name))
			continue
		}
		if t.Owner == role {
			ownTables = append(ownTables, name(t.Schema, t.Name))
			continue
		}
		def := cloneTable(t)
		changed := false
		if acl, ok := revoke(def.ACL); ok {
			def.ACL, changed = acl, true
		}
		def.Columns = slices.Clone(def.Columns)
		for i := range def.Columns {
			if acl, ok := revoke(def.Columns[i].ACL); ok {
				if len(acl) == 0 {
					acl = nil
				}
				def.Columns[i].ACL, changed = acl, true
			}
		}
		var keep []sqldef.Policy
		for _, p := range def.Policies {
			if !slices.Contains(p.Roles, role) {
				keep = append(keep, p)
				continue
			}
			changed = true
			p.Roles = slices.DeleteFunc(slices.Clone(p.Roles), func(r string) bool { return r == role })
			if len(p.Roles) > 0 {
				keep = append(keep, p)
			}
		}
		def.Policies = keep
		if changed {
			if err := a.putTable(ctx, def); err != nil {
				return err
			}
		}
	}
	views, err := a.tx.Root().Views(ctx)
	if err != nil {
		return err
	}
	var ownViews []*pg.Node
	for _, v := range views {
		if v.Owner == role {
			ownViews = append(ownViews, name(v.Schema, v.Name))
			continue
		}
		if acl, ok := revoke(v.ACL); ok {
			nv := *v
			nv.ACL = acl
			r, err := a.tx.Root().PutView(ctx, &nv)
			if err != nil {
				return err
			}
			a.tx.SetRoot(r)
		}
	}
	seqs, err := a.tx.Root().Sequences(ctx)
	if err != nil {
		return err
	}
	var ownSeqs []*pg.Node
	for _, q := range seqs {
		if q.Owner == role && q.OwnedBy == "" {
			ownSeqs = append(ownSeqs, name(q.Schema, q.Name))
			continue
		}
		if acl, ok := revoke(q.ACL); ok {
			nq := *q
			nq.ACL = acl
			r, err := a.tx.Root().PutSequence(ctx, &nq)
			if err != nil {
				return err
			}
			a.tx.SetRoot(r)
		}
	}
	schemas, err := a.tx.Root().Schemas(ctx)
	if err != nil {
		return err
	}
	var ownSchemas []*pg.Node
	for _, sc := range schemas {
		if sc.Owner == role {
			ownSchemas = append(ownSchemas, pg.MakeStrNode(sc.Name))
			continue
		}
		if acl, ok := revoke(sc.ACL); ok {
			ns := *sc
			ns.ACL = acl
			r, err := a.tx.Root().PutSchema(ctx, ns)
			if err != nil {
				return err
			}
			a.tx.SetRoot(r)
		}
	}
	// What it owns goes, dependents first.
	for _, step := range []struct {
		objs []*pg.Node
		kind pg.ObjectType
		drop func(context.Context, *pg.DropStmt) (string, error)
	}{
		{ownViews, pg.ObjectType_OBJECT_VIEW, a.dropViews},
		{ownMatViews, pg.ObjectType_OBJECT_MATVIEW, a.dropTables},
		{ownTables, pg.ObjectType_OBJECT_TABLE, a.dropTables},
		{ownSeqs, pg.ObjectType_OBJECT_SEQUENCE, a.dropSequences},
		{ownSchemas, pg.ObjectType_OBJECT_SCHEMA, a.dropSchemas},
	} {
		if len(step.objs) == 0 {
			continue
		}
		// Objects an earlier step dropped (by CASCADE) are skipped.
		if _, err := step.drop(ctx, &pg.DropStmt{Objects: step.objs, RemoveType: step.kind, Behavior: behavior, MissingOk: true}); err != nil {
			return err
		}
	}
	return nil
}
