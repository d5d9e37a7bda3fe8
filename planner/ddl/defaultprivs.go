package ddl

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Default privileges (ALTER DEFAULT PRIVILEGES): the ACL that a role's new
// objects of a kind start with, everywhere or in one schema, as
// PostgreSQL's pg_default_acl. An entry for every schema replaces the
// kind's built-in default (acldefault: the owner holds everything, PUBLIC
// what the kind gives it); a schema's entry adds to that. Entries that
// come back to the built-in default are removed, as PostgreSQL removes
// them. Tables (with views), sequences and schemas take them as they are
// made (initialACL); entries for functions and types are kept and shown,
// but those objects have no ACL of their own yet.

// defaultKind describes a kind of object default privileges are kept for.
type defaultKind struct {
	name   string // in errors: "table"
	all    string // every privilege it can hold
	public string // what PUBLIC holds by default
}

var defaultKinds = map[byte]defaultKind{
	sqldef.DefaultTables:    {"table", sqldef.TablePrivileges, ""},
	sqldef.DefaultSequences: {"sequence", sqldef.SequencePrivileges, ""},
	sqldef.DefaultFunctions: {"function", sqldef.FunctionPrivileges, sqldef.FunctionPrivileges},
	sqldef.DefaultTypes:     {"type", "U", "U"},
	sqldef.DefaultSchemas:   {"schema", sqldef.SchemaPrivileges, ""},
}

// defaultObjType is pg_default_acl.defaclobjtype of a GRANT's object type.
func defaultObjType(t pg.ObjectType) (byte, bool) {
	switch t {
	case pg.ObjectType_OBJECT_TABLE:
		return sqldef.DefaultTables, true
	case pg.ObjectType_OBJECT_SEQUENCE:
		return sqldef.DefaultSequences, true
	case pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE:
		return sqldef.DefaultFunctions, true
	case pg.ObjectType_OBJECT_TYPE, pg.ObjectType_OBJECT_DOMAIN:
		return sqldef.DefaultTypes, true
	case pg.ObjectType_OBJECT_SCHEMA:
		return sqldef.DefaultSchemas, true
	}
	return 0, false
}

// alterDefaultPrivileges runs ALTER DEFAULT PRIVILEGES [FOR ROLE ...]
// [IN SCHEMA ...] GRANT | REVOKE ... ON TABLES | SEQUENCES | FUNCTIONS |
// ROUTINES | TYPES | SCHEMAS.
func (a *analyzer) alterDefaultPrivileges(s *pg.AlterDefaultPrivilegesStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		const tag = "ALTER DEFAULT PRIVILEGES"
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		g := s.Action
		objType, ok := defaultObjType(g.Objtype)
		if !ok {
			return "", pgerr.New(pgerr.FeatureNotSupported, "ALTER DEFAULT PRIVILEGES ON %s is not supported", g.Objtype)
		}
		kind := defaultKinds[objType]
		au, err := a.Authority()
		if err != nil {
			return "", err
		}
		var roles, schemas []string
		for _, o := range s.Options {
			d := o.GetDefElem()
			for _, item := range d.Arg.GetList().GetItems() {
				switch d.Defname {
				case "roles":
					roles = append(roles, planner.RoleSpecName(a.s, item.GetRoleSpec()))
				case "schemas":
					schemas = append(schemas, item.GetString_().GetSval())
				}
			}
		}
		if len(roles) == 0 {
			roles = []string{a.s.CurrentRole()}
		}
		for _, r := range roles {
			if !planner.RoleExists(au.Roles, r) {
				return "", pgerr.New(pgerr.UndefinedObject, "role %q does not exist", r)
			}
			if !au.Superuser && !au.Holds[r] {
				return "", pgerr.New(pgerr.InsufficientPrivilege, "must be member of role %q", r)
			}
		}
		if len(schemas) == 0 {
			schemas = []string{""}
		} else if objType == sqldef.DefaultSchemas {
			return "", pgerr.New(pgerr.InvalidGrantOperation, "cannot use IN SCHEMA clause when using GRANT/REVOKE ON SCHEMAS")
		}
		for _, sc := range schemas {
			if sc == "" {
				continue
			}
			if _, ok, err := a.tx.Root().Schema(ctx, sc); err != nil {
				return "", err
			} else if !ok {
				return "", pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", sc)
			}
		}
		privs, err := planner.GrantPrivileges(g.Privileges, kind.name, kind.all)
		if err != nil {
			return "", err
		}
		grantees, err := planner.Grantees(a.s, g.Grantees, au.Roles)
		if err != nil {
			return "", err
		}
		root := a.tx.Root()
		for _, role := range dedupe(roles) {
			for _, sc := range dedupe(schemas) {
				builtin := defaultACLOf(role, sc, kind)
				acl := builtin
				d, ok, err := root.DefaultPrivilegesOf(ctx, role, sc, objType)
				if err != nil {
					return "", err
				}
				if ok {
					acl = d.ACL
				}
				for _, who := range grantees {
					if g.IsGrant {
						acl = sqldef.GrantACL(acl, who, role, privs, g.GrantOption)
					} else {
						acl, _ = sqldef.RevokeACL(acl, who, role, privs, g.GrantOption, true)
					}
				}
				if sameACL(acl, builtin) {
					root, err = root.DropDefaultPrivileges(ctx, role, sc, objType)
				} else {
					root, err = root.PutDefaultPrivileges(ctx, &sqldef.DefaultPrivileges{Role: role, Schema: sc, ObjType: objType, ACL: acl})
				}
				if err != nil {
					return "", err
				}
			}
		}
		a.tx.SetRoot(root)
		return tag, nil
	}, nil
}

// defaultACLOf is what role's objects of kind start with before any
// default privileges: the kind's built-in ACL for the entry of every
// schema, nothing added for a schema's.
func defaultACLOf(role, schema string, kind defaultKind) []sqldef.ACLItem {
	if schema != "" {
		return nil
	}
	return sqldef.DefaultACL(role, kind.all, kind.public)
}

// initialACL returns the ACL a new object of objType in schema, owned by
// owner (as the record stores it: "" for the bootstrap superuser), starts
// with: nil, the built-in default, unless default privileges say
// otherwise.
func (a *analyzer) initialACL(ctx context.Context, owner, schema string, objType byte) ([]sqldef.ACLItem, error) {
	role := planner.OwnerOf(owner)
	kind := defaultKinds[objType]
	builtin := sqldef.DefaultACL(role, kind.all, kind.public)
	acl := builtin
	glob, ok, err := a.tx.Root().DefaultPrivilegesOf(ctx, role, "", objType)
	if err != nil {
		return nil, err
	}
	if ok {
		acl = glob.ACL
	}
	if objType != sqldef.DefaultSchemas {
		in, ok, err := a.tx.Root().DefaultPrivilegesOf(ctx, role, schema, objType)
		if err != nil {
			return nil, err
		}
		if ok {
			for _, it := range in.ACL {
				acl = sqldef.GrantACL(acl, it.Grantee, it.Grantor, it.Privs, false)
				if it.Grant != "" {
					acl = sqldef.GrantACL(acl, it.Grantee, it.Grantor, it.Grant, true)
				}
			}
		}
	}
	if sameACL(acl, builtin) {
		return nil, nil
	}
	// In PostgreSQL's order (aclitemsort): by grantee OID, PUBLIC's 0
	// first, the bootstrap superuser's next; other roles by name here.
	slices.SortStableFunc(acl, func(x, y sqldef.ACLItem) int {
		rank := func(it sqldef.ACLItem) int {
			switch it.Grantee {
			case "":
				return 0
			case planner.BootstrapSuperuser:
				return 1
			}
			return 2
		}
		if c := rank(x) - rank(y); c != 0 {
			return c
		}
		return strings.Compare(x.Grantee, y.Grantee)
	})
	return acl, nil
}

// moveDefaultPrivileges moves the default privileges of schema from to
// schema to (ALTER SCHEMA RENAME), or drops them when to is "" (DROP
// SCHEMA), as PostgreSQL's follow the schema's OID.
func moveDefaultPrivileges(ctx context.Context, root versioning.RootValue, from, to string) (versioning.RootValue, error) {
	all, err := root.AllDefaultPrivileges(ctx)
	if err != nil {
		return root, err
	}
	for _, d := range all {
		if d.Schema != from {
			continue
		}
		if root, err = root.DropDefaultPrivileges(ctx, d.Role, from, d.ObjType); err != nil {
			return root, err
		}
		if to != "" {
			d.Schema = to
			if root, err = root.PutDefaultPrivileges(ctx, d); err != nil {
				return root, err
			}
		}
	}
	return root, nil
}

// sequenceACLs gives new sequences the ACLs default privileges say.
func (a *analyzer) sequenceACLs(ctx context.Context, seqs []*sqldef.Sequence) error {
	for _, seq := range seqs {
		var err error
		if seq.ACL, err = a.initialACL(ctx, seq.Owner, seq.Schema, sqldef.DefaultSequences); err != nil {
			return err
		}
	}
	return nil
}

// sameACL reports whether two ACLs hold the same items, in any order.
func sameACL(a, b []sqldef.ACLItem) bool {
	key := func(acl []sqldef.ACLItem) []string {
		out := make([]string, len(acl))
		for i, it := range acl {
			out[i] = it.String()
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(key(a), key(b))
}

// dedupe returns names without repeats, in their first order.
func dedupe(names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
