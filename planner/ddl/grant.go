package ddl

import (
	"context"
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// requireTableOwner checks that the current role owns a table.
func (a *analyzer) requireTableOwner(t *sqldef.Table) error {
	return a.requireOwnerOf(t, "table", t.Name)
}

// requireOwnerOf checks that the current role owns table t, which owns
// the object named (the table itself, or one of its indexes): PostgreSQL's
// "must be owner of <kind> <name>".
func (a *analyzer) requireOwnerOf(t *sqldef.Table, kind, name string) error {
	au, err := a.Authority()
	if err != nil || au.Owns(t.Owner) {
		return err
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "must be owner of %s %s", kind, name)
}

// requireSchemaCreate checks that the current role may create objects in
// schema.
func (a *analyzer) requireSchemaCreate(ctx context.Context, schema string) error {
	au, err := a.Authority()
	if err != nil || au.Superuser {
		return err
	}
	sc, ok, err := a.tx.Root().Schema(ctx, schema)
	if err != nil || !ok {
		return err // a missing schema fails elsewhere, with its own error
	}
	if sqldef.ACLHolds(planner.SchemaACL(sc), au.Holds, "C", false) {
		return nil
	}
	return planner.PermissionDenied("schema", schema)
}

// columnPrivileges are the privileges a table's columns can hold.
const columnPrivileges = "arwx"

// columnGrant is a privilege GRANT or REVOKE names on columns of a table.
type columnGrant struct {
	privs string
	cols  []string
}

// grantColumns returns the privileges on columns GRANT or REVOKE names
// (SELECT (a, b), ALL (a)).
func grantColumns(privs []*pg.Node) ([]columnGrant, error) {
	var out []columnGrant
	for _, n := range privs {
		p := n.GetAccessPriv()
		if p == nil || len(p.Cols) == 0 {
			continue
		}
		g := columnGrant{privs: columnPrivileges, cols: planner.NameList(p.Cols)}
		if p.PrivName != "" {
			c, ok := planner.PrivilegeLetters[strings.ToLower(p.PrivName)]
			if !ok {
				return nil, pgerr.New(pgerr.SyntaxError, "unrecognized privilege type %q", p.PrivName)
			}
			if strings.IndexByte(columnPrivileges, c) < 0 {
				return nil, pgerr.New(pgerr.InvalidGrantOperation, "invalid privilege type %s for column", strings.ToUpper(p.PrivName))
			}
			g.privs = string(c)
		}
		out = append(out, g)
	}
	return out, nil
}

// grant runs GRANT and REVOKE on tables, views, sequences and schemas,
// which change their records in the transaction's root.
func (a *analyzer) grant(g *pg.GrantStmt) (planner.Utility, error) {
	tag := map[bool]string{true: "GRANT", false: "REVOKE"}[g.IsGrant]
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		au, err := a.Authority()
		if err != nil {
			return "", err
		}
		grantees, err := planner.Grantees(a.s, g.Grantees, au.Roles)
		if err != nil {
			return "", err
		}
		if g.Grantor != nil && planner.RoleSpecName(a.s, g.Grantor) != a.s.CurrentRole() {
			return "", pgerr.New(pgerr.FeatureNotSupported, "grantor must be current user")
		}
		switch g.Objtype {
		case pg.ObjectType_OBJECT_DATABASE:
			return tag, a.s.GrantDatabases(ctx, g)
		case pg.ObjectType_OBJECT_SCHEMA:
			return tag, a.grantSchemas(ctx, au, g, grantees)
		case pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE:
			return tag, a.grantRoutines(ctx, au, g, grantees)
		case pg.ObjectType_OBJECT_TYPE, pg.ObjectType_OBJECT_DOMAIN:
			return tag, a.grantTypes(ctx, au, g, grantees)
		case pg.ObjectType_OBJECT_LARGEOBJECT:
			return tag, a.grantLargeObjects(ctx, au, g, grantees)
		}
		onSequences := g.Objtype == pg.ObjectType_OBJECT_SEQUENCE
		// ON [TABLE] names sequences too, which take USAGE.
		kind, all := "table", sqldef.TablePrivileges+"U"
		if onSequences {
			kind, all = "sequence", sqldef.SequencePrivileges
		}
		privs, err := planner.GrantPrivileges(g.Privileges, kind, all)
		if err != nil {
			return tag, err
		}
		colGrants, err := grantColumns(g.Privileges)
		if err != nil {
			return tag, err
		}
		var tables []*sqldef.Table
		var seqs []*sqldef.Sequence
		var views []*sqldef.View
		if g.Targtype == pg.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA {
			for _, n := range g.Objects {
				schema := a.s.ResolveSchemaName(n.GetString_().GetSval())
				if _, ok, err := a.tx.Root().Schema(ctx, schema); err != nil {
					return "", err
				} else if !ok {
					return "", pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", schema)
				}
				if onSequences {
					all, err := a.tx.Root().Sequences(ctx)
					if err != nil {
						return "", err
					}
					for _, sq := range all {
						if sq.Schema == schema {
							seqs = append(seqs, sq)
						}
					}
					continue
				}
				in, err := a.tx.Root().TablesIn(ctx, schema)
				if err != nil {
					return "", err
				}
				tables = append(tables, in...)
			}
		} else {
			for _, n := range g.Objects {
				rv := n.GetRangeVar()
				rel, _, err := a.LookupRelation(ctx, rv.Schemaname, rv.Relname)
				if err != nil {
					return "", err
				}
				switch {
				case rel.Kind == planner.RelSequence:
					seqs = append(seqs, rel.Seq)
				case onSequences && rel.Kind != planner.RelNone:
					return "", pgerr.New(pgerr.WrongObjectType, "%q is not a sequence", rv.Relname)
				case rel.Kind == planner.RelTable:
					tables = append(tables, rel.Table)
				case rel.Kind == planner.RelView:
					views = append(views, rel.View)
				default:
					if v, ok, err := a.ViewTable(ctx, rv.Schemaname, rv.Relname); err != nil || ok && v != nil {
						continue // a view of the catalog
					}
					return "", planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(rv)), rv.Location)
				}
			}
		}
		if len(g.Privileges) == 0 {
			privs = sqldef.KeepPrivileges(privs, sqldef.TablePrivileges) // ALL, for the tables
		}
		if len(tables)+len(views) > 0 && sqldef.KeepPrivileges(privs, sqldef.TablePrivileges) != privs {
			return "", pgerr.New(pgerr.InvalidGrantOperation, "invalid privilege type USAGE for table")
		}
		root := a.tx.Root()
		for _, t := range tables {
			nt := *t
			if privs != "" {
				acl, err := planner.ChangeACL(au, a.s.Notice, g, planner.TableACL(t), t.Owner, "table", t.Name, privs, grantees)
				if err != nil {
					return "", err
				}
				nt.ACL = acl
			}
			if err := a.grantTableColumns(au, g, &nt, privs, colGrants, grantees); err != nil {
				return "", err
			}
			if root, err = root.PutTable(ctx, &nt); err != nil {
				return "", err
			}
		}
		for _, v := range views {
			nv := *v
			if privs != "" {
				acl, err := planner.ChangeACL(au, a.s.Notice, g, planner.ViewACL(v), v.Owner, "view", v.Name, privs, grantees)
				if err != nil {
					return "", err
				}
				nv.ACL = acl
			}
			// A view's columns take privileges as a table's: granted
			// through a table of its columns, and copied back.
			vt := &sqldef.Table{Schema: v.Schema, Name: v.Name, Owner: v.Owner, ACL: nv.ACL}
			for _, c := range v.Columns {
				vt.Columns = append(vt.Columns, sqldef.Column{Name: c.Name, Type: c.Type, Typmod: c.Typmod, ACL: v.ColumnACL[c.Name]})
			}
			if err := a.grantTableColumns(au, g, vt, privs, colGrants, grantees); err != nil {
				return "", err
			}
			nv.ColumnACL = nil
			for _, c := range vt.Columns {
				if c.ACL != nil {
					if nv.ColumnACL == nil {
						nv.ColumnACL = map[string][]sqldef.ACLItem{}
					}
					nv.ColumnACL[c.Name] = c.ACL
				}
			}
			if root, err = root.PutView(ctx, &nv); err != nil {
				return "", err
			}
		}
		for _, sq := range seqs {
			if privs == "" {
				continue
			}
			// Through ON TABLE: a sequence takes the privileges it has.
			sp := privs
			if !onSequences {
				if len(g.Privileges) == 0 {
					sp = sqldef.SequencePrivileges // ALL
				} else if sp = sqldef.KeepPrivileges(privs, sqldef.SequencePrivileges); sp != privs {
					a.s.Notice(pgerr.NewWarning(pgerr.Warning, "sequence %q only supports USAGE, SELECT, and UPDATE privileges", sq.Name))
				}
				if sp == "" {
					continue
				}
			}
			acl, err := planner.ChangeACL(au, a.s.Notice, g, planner.SequenceACL(sq), sq.Owner, "sequence", sq.Name, sp, grantees)
			if err != nil {
				return "", err
			}
			ns := *sq
			ns.ACL = acl
			if root, err = root.PutSequence(ctx, &ns); err != nil {
				return "", err
			}
		}
		a.tx.SetRoot(root)
		return tag, nil
	}, nil
}

// grantSchemas runs GRANT and REVOKE ON SCHEMA.
func (a *analyzer) grantSchemas(ctx context.Context, au *planner.Authority, g *pg.GrantStmt, grantees []string) error {
	privs, err := planner.GrantPrivileges(g.Privileges, "schema", sqldef.SchemaPrivileges)
	if err != nil {
		return err
	}
	root := a.tx.Root()
	for _, n := range g.Objects {
		name := n.GetString_().GetSval()
		sc, ok, err := root.Schema(ctx, name)
		if err != nil {
			return err
		}
		if !ok {
			return pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
		}
		acl, err := planner.ChangeACL(au, a.s.Notice, g, planner.SchemaACL(sc), planner.SchemaOwner(sc), "schema", name, privs, grantees)
		if err != nil {
			return err
		}
		ns := *sc
		ns.ACL = acl
		if root, err = root.PutSchema(ctx, ns); err != nil {
			return err
		}
	}
	a.tx.SetRoot(root)
	return nil
}

// grantRoutines runs GRANT and REVOKE ON FUNCTION, PROCEDURE and ROUTINE,
// and ON ALL FUNCTIONS | PROCEDURES | ROUTINES IN SCHEMA: ALL FUNCTIONS
// takes aggregates too, as PostgreSQL's does.
func (a *analyzer) grantRoutines(ctx context.Context, au *planner.Authority, g *pg.GrantStmt, grantees []string) error {
	what := strings.ToLower(strings.TrimPrefix(g.Objtype.String(), "OBJECT_"))
	privs, err := planner.GrantPrivileges(g.Privileges, what, sqldef.FunctionPrivileges)
	if err != nil {
		return err
	}
	if privs == "" {
		privs = sqldef.FunctionPrivileges
	}
	// kindFits reports whether a routine is of the kind the statement names.
	kindFits := func(f *sqldef.Function) bool {
		switch g.Objtype {
		case pg.ObjectType_OBJECT_FUNCTION:
			return f.Kind != 'p'
		case pg.ObjectType_OBJECT_PROCEDURE:
			return f.Kind == 'p'
		}
		return true
	}
	var fns []*sqldef.Function
	if g.Targtype == pg.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA {
		all, err := a.tx.Root().Functions(ctx)
		if err != nil {
			return err
		}
		for _, n := range g.Objects {
			schema := a.s.ResolveSchemaName(n.GetString_().GetSval())
			if _, ok, err := a.tx.Root().Schema(ctx, schema); err != nil {
				return err
			} else if !ok {
				return pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", schema)
			}
			for _, f := range all {
				if f.Schema == schema && kindFits(f) {
					fns = append(fns, f)
				}
			}
		}
	} else {
		for _, n := range g.Objects {
			ow := n.GetObjectWithArgs()
			f, err := a.routineByArgs(ow, what)
			if err != nil && builtinFunction(ow) {
				continue // a built-in function: its privileges are not modelled, PUBLIC's EXECUTE stays
			}
			if err != nil {
				return err
			}
			fns = append(fns, f)
		}
	}
	root := a.tx.Root()
	for _, f := range fns {
		acl, err := planner.ChangeACL(au, a.s.Notice, g, planner.FunctionACL(f), f.Owner, planner.RoutineKind(f), f.Name, privs, grantees)
		if err != nil {
			return err
		}
		nf := *f
		nf.ACL = acl
		if root, err = root.PutFunction(ctx, &nf); err != nil {
			return err
		}
	}
	a.tx.SetRoot(root)
	a.s.InvalidatePlans()
	return nil
}

// builtinFunction reports whether ow names a built-in function: one of
// the library's, or a type's conversion function (int8(integer)).
func builtinFunction(ow *pg.ObjectWithArgs) bool {
	schema, name := planner.SplitName(planner.NameList(ow.Objname))
	if schema != "" && schema != "pg_catalog" {
		return false
	}
	if exec.HasFunc(name) {
		return true
	}
	_, _, err := planner.ResolveType(&pg.TypeName{Names: ow.Objname, Typemod: -1})
	return err == nil
}

// grantTypes runs GRANT and REVOKE ON TYPE and ON DOMAIN.
func (a *analyzer) grantTypes(ctx context.Context, au *planner.Authority, g *pg.GrantStmt, grantees []string) error {
	domain := g.Objtype == pg.ObjectType_OBJECT_DOMAIN
	what := map[bool]string{true: "domain", false: "type"}[domain]
	privs, err := planner.GrantPrivileges(g.Privileges, what, sqldef.TypePrivileges)
	if err != nil {
		return err
	}
	if privs == "" {
		privs = sqldef.TypePrivileges
	}
	root := a.tx.Root()
	for _, n := range g.Objects {
		names := planner.NameList(n.GetList().GetItems())
		want := byte(0)
		if domain {
			want = 'd'
		}
		t, err := a.findType(ctx, names, want, true)
		if err != nil {
			return err
		}
		if t == nil {
			schema, name := planner.SplitName(names)
			if elem, ok := strings.CutPrefix(name, "_"); ok {
				if et, err := a.LookupType(ctx, schema, elem); err != nil {
					return err
				} else if et != nil {
					return pgerr.New(pgerr.InvalidGrantOperation, "cannot set privileges of array types").
						WithHint("Set the privileges of the element type instead.")
				}
			}
			if _, _, err := a.ResolveType(&pg.TypeName{Names: n.GetList().GetItems(), Typemod: -1}); err == nil {
				continue // a built-in type: its privileges are not modelled, PUBLIC's USAGE stays
			}
			return pgerr.New(pgerr.UndefinedObject, "type %q does not exist", name)
		}
		acl, err := planner.ChangeACL(au, a.s.Notice, g, planner.TypeACL(t), t.Owner, "type", t.Name, privs, grantees)
		if err != nil {
			return err
		}
		nt := *t
		nt.ACL = acl
		if root, err = root.PutType(ctx, &nt); err != nil {
			return err
		}
	}
	a.tx.SetRoot(root)
	a.s.InvalidatePlans()
	return nil
}

// grantLargeObjects runs GRANT and REVOKE ON LARGE OBJECT.
func (a *analyzer) grantLargeObjects(ctx context.Context, au *planner.Authority, g *pg.GrantStmt, grantees []string) error {
	privs, err := planner.GrantPrivileges(g.Privileges, "large object", versioning.LargeObjectPrivileges)
	if err != nil {
		return err
	}
	if privs == "" {
		privs = versioning.LargeObjectPrivileges
	}
	root := a.tx.Root()
	for _, n := range g.Objects {
		lo, err := largeObjectNamed(ctx, root, n)
		if err != nil {
			return err
		}
		name := strconv.FormatUint(uint64(lo.OID), 10)
		acl, err := planner.ChangeACL(au, a.s.Notice, g, LargeObjectACL(lo), lo.Owner, "large object", name, privs, grantees)
		if err != nil {
			return err
		}
		nl := *lo
		nl.ACL = acl
		if root, err = root.PutLargeObject(ctx, &nl); err != nil {
			return err
		}
	}
	a.tx.SetRoot(root)
	return nil
}

// largeObjectNamed returns the large object of root that n names, as
// GRANT, ALTER and COMMENT ON LARGE OBJECT write it: a number.
func largeObjectNamed(ctx context.Context, root versioning.RootValue, n *pg.Node) (*versioning.LargeObject, error) {
	oid, err := largeObjectOID(n)
	if err != nil {
		return nil, err
	}
	lo, ok, err := root.LargeObject(ctx, oid)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedObject, "large object %d does not exist", oid)
	}
	return lo, nil
}

// largeObjectOID reads a large object's OID, a number.
func largeObjectOID(n *pg.Node) (uint32, error) {
	text := ""
	switch {
	case n.GetInteger() != nil:
		text = strconv.FormatInt(int64(n.GetInteger().Ival), 10)
	case n.GetFloat() != nil:
		text = n.GetFloat().Fval
	}
	v, err := strconv.ParseUint(text, 10, 32)
	if err != nil {
		return 0, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type oid: %q", text)
	}
	return uint32(v), nil
}

// newOwner checks ALTER ... OWNER TO role for an object owned by owner and
// returns the new owner: a superuser may give it to anyone; its owner only
// to a role it is a member of, as PostgreSQL requires.
func (a *analyzer) newOwner(spec *pg.RoleSpec, owner string) (string, error) {
	au, err := a.Authority()
	if err != nil {
		return "", err
	}
	name := planner.RoleSpecName(a.s, spec)
	if !planner.RoleExists(au.Roles, name) {
		return "", pgerr.New(pgerr.UndefinedObject, "role %q does not exist", name)
	}
	if au.Superuser {
		return name, nil
	}
	if !au.Owns(owner) {
		return "", pgerr.New(pgerr.InsufficientPrivilege, "must be owner of the object")
	}
	if !sqldef.IsMember(au.Roles, au.Role, name) {
		return "", pgerr.New(pgerr.InsufficientPrivilege, "must be able to SET ROLE %q", name)
	}
	return name, nil
}

// alterOwner runs ALTER ... OWNER TO role for objects other than tables
// (ALTER TABLE ... OWNER TO, alter.go). A schema records its owner; the
// other objects have no owner of their own yet, so for them the statement
// only checks that the role exists, which is what a restored dump needs.
func (a *analyzer) alterOwner(s *pg.AlterOwnerStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		owner := planner.RoleSpecName(a.s, s.Newowner)
		roles, err := a.s.Roles(ctx)
		if err != nil {
			return "", err
		}
		if !planner.RoleExists(roles, owner) && owner != "postgres" {
			return "", pgerr.New(pgerr.UndefinedObject, "role %q does not exist", owner)
		}
		switch s.ObjectType {
		case pg.ObjectType_OBJECT_SCHEMA:
			name := s.Object.GetString_().GetSval()
			sc, ok, err := a.tx.Schema(ctx, name)
			if err != nil {
				return "", err
			}
			if !ok {
				return "", pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
			}
			if owner, err = a.newOwner(s.Newowner, sc.Owner); err != nil {
				return "", err
			}
			sc.ACL = sqldef.ChangeACLOwner(sc.ACL, planner.OwnerOf(sc.Owner), owner)
			sc.Owner = owner
			root, err := a.tx.Root().PutSchema(ctx, *sc)
			if err != nil {
				return "", err
			}
			a.tx.SetRoot(root)
			return "ALTER SCHEMA", nil
		case pg.ObjectType_OBJECT_DATABASE:
			return "ALTER DATABASE", a.s.AlterDatabaseOwner(ctx, s)
		case pg.ObjectType_OBJECT_TSDICTIONARY, pg.ObjectType_OBJECT_TSCONFIGURATION:
			return a.alterTextSearchOwner(ctx, s)
		case pg.ObjectType_OBJECT_LARGEOBJECT:
			lo, err := largeObjectNamed(ctx, a.tx.Root(), s.Object)
			if err != nil {
				return "", err
			}
			if owner, err = a.newOwner(s.Newowner, lo.Owner); err != nil {
				return "", err
			}
			nl := *lo
			nl.ACL = sqldef.ChangeACLOwner(lo.ACL, planner.OwnerOf(lo.Owner), owner)
			nl.Owner = owner
			root, err := a.tx.Root().PutLargeObject(ctx, &nl)
			if err != nil {
				return "", err
			}
			a.tx.SetRoot(root)
			return "ALTER LARGE OBJECT", nil
		case pg.ObjectType_OBJECT_TYPE, pg.ObjectType_OBJECT_DOMAIN:
			tag := map[bool]string{true: "ALTER DOMAIN", false: "ALTER TYPE"}[s.ObjectType == pg.ObjectType_OBJECT_DOMAIN]
			var parts []string
			for _, n := range s.Object.GetList().GetItems() {
				parts = append(parts, n.GetString_().GetSval())
			}
			if len(parts) == 0 {
				return tag, nil
			}
			want := byte(0)
			if s.ObjectType == pg.ObjectType_OBJECT_DOMAIN {
				want = 'd'
			}
			t, err := a.findType(ctx, parts, want, false)
			if err != nil {
				return "", err
			}
			if owner, err = a.newOwner(s.Newowner, t.Owner); err != nil {
				return "", err
			}
			nt := *t
			nt.ACL = sqldef.ChangeACLOwner(t.ACL, planner.OwnerOf(t.Owner), owner)
			nt.Owner = owner
			root, err := a.tx.Root().PutType(ctx, &nt)
			if err != nil {
				return "", err
			}
			a.tx.SetRoot(root)
			a.s.InvalidatePlans()
			return tag, nil
		case pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE, pg.ObjectType_OBJECT_AGGREGATE, pg.ObjectType_OBJECT_OPERATOR:
			what := strings.TrimPrefix(s.ObjectType.String(), "OBJECT_")
			var f *sqldef.Function
			if s.ObjectType == pg.ObjectType_OBJECT_OPERATOR {
				f, err = a.operatorByArgs(ctx, s.Object.GetObjectWithArgs(), false)
			} else {
				f, err = a.routineByArgs(s.Object.GetObjectWithArgs(), strings.ToLower(what))
			}
			if err != nil {
				return "", err
			}
			if owner, err = a.newOwner(s.Newowner, f.Owner); err != nil {
				return "", err
			}
			nf := *f
			nf.ACL = sqldef.ChangeACLOwner(f.ACL, planner.OwnerOf(f.Owner), owner)
			nf.Owner = owner
			root, err := a.tx.Root().PutFunction(ctx, &nf)
			if err != nil {
				return "", err
			}
			a.tx.SetRoot(root)
			a.s.InvalidatePlans()
			return "ALTER " + what, nil
		}
		return "", pgerr.New(pgerr.FeatureNotSupported, "ALTER %s ... OWNER TO is not supported yet",
			strings.TrimPrefix(s.ObjectType.String(), "OBJECT_"))
	}, nil
}

// grantTableColumns applies GRANT or REVOKE's column privileges to t, a
// copy its caller stores: colGrants on the columns they name, and, for a
// REVOKE of privileges on the whole table (privs), the same privileges
// on every column, as PostgreSQL revokes them.
func (a *analyzer) grantTableColumns(au *planner.Authority, g *pg.GrantStmt, t *sqldef.Table, privs string, colGrants []columnGrant, grantees []string) error {
	if len(colGrants) == 0 && (g.IsGrant || sqldef.KeepPrivileges(privs, columnPrivileges) == "") {
		return nil
	}
	t.Columns = slices.Clone(t.Columns)
	apply := func(pos int, p string) error {
		c := &t.Columns[pos]
		acl, err := changeColumnACL(au, g, planner.TableACL(t), c.ACL, t.Owner, t.Name, p, grantees)
		if err != nil {
			return err
		}
		if len(acl) == 0 {
			acl = nil // an empty column ACL is none (attacl NULL)
		}
		c.ACL = acl
		return nil
	}
	if !g.IsGrant {
		if p := sqldef.KeepPrivileges(privs, columnPrivileges); p != "" {
			for pos, c := range t.Columns {
				if !c.Dropped && c.ACL != nil {
					if err := apply(pos, p); err != nil {
						return err
					}
				}
			}
		}
	}
	for _, cg := range colGrants {
		for _, name := range cg.cols {
			if planner.IsSystemColumn(name) {
				continue // granted on a column that is every table's: nothing to record
			}
			pos := slices.IndexFunc(t.Columns, func(c sqldef.Column) bool { return !c.Dropped && c.Name == name })
			if pos < 0 {
				return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, t.Name)
			}
			if err := apply(pos, cg.privs); err != nil {
				return err
			}
		}
	}
	return nil
}

// changeColumnACL applies a GRANT or REVOKE of privs on a column whose
// ACL is acl, of a table owned by owner whose ACL is tableACL: the owner
// grants as the owner, another role what it may grant on the table or the
// column, as itself.
func changeColumnACL(au *planner.Authority, g *pg.GrantStmt, tableACL, acl []sqldef.ACLItem, owner, table, privs string, grantees []string) ([]sqldef.ACLItem, error) {
	grantor := planner.OwnerOf(owner)
	if !au.Owns(owner) {
		if !sqldef.ACLHolds(tableACL, au.Holds, privs, true) && !sqldef.ACLHolds(acl, au.Holds, privs, true) {
			return nil, planner.PermissionDenied("table", table)
		}
		grantor = au.Role
	}
	for _, who := range grantees {
		if g.IsGrant {
			acl = sqldef.GrantACL(acl, who, grantor, privs, g.GrantOption)
			continue
		}
		acl, _ = sqldef.RevokeACL(acl, who, grantor, privs, g.GrantOption, true)
	}
	return acl, nil
}

// requireViewOwner checks that the current role may add or drop view v's
// triggers: it owns the view (PostgreSQL asks for the TRIGGER privilege,
// which only owners hold here).
func (a *analyzer) requireViewOwner(v *sqldef.View) error {
	au, err := a.Authority()
	if err != nil || au.Owns(v.Owner) {
		return err
	}
	return planner.PermissionDenied("view", v.Name)
}

// LargeObjectACL is a large object's access control list, its default
// (the owner's alone) when none was set.
func LargeObjectACL(lo *versioning.LargeObject) []sqldef.ACLItem {
	return sqldef.DefaultedACL(lo.ACL, planner.OwnerOf(lo.Owner), versioning.LargeObjectPrivileges)
}
