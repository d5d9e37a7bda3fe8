package versioning

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/prollypg/prollypg/store"
)

// Role is a cluster-wide user or group, as pg_authid describes one. Roles
// are not versioned: like PostgreSQL's, they belong to the server, not to a
// database, and a branch or an old commit does not bring back a dropped
// role or an old password.
type Role struct {
	Name      string `json:"name"`
	Superuser bool   `json:"superuser,omitempty"`
	Login     bool   `json:"login,omitempty"`
	CreateDB  bool   `json:"createdb,omitempty"`
	// Verifier is the SCRAM-SHA-256 verifier of the role's password in
	// PostgreSQL's format, "" for none (the role cannot log in with a
	// password).
	Verifier string `json:"verifier,omitempty"`
	// CreateRole lets a role create, alter and drop other roles.
	CreateRole bool `json:"createrole,omitempty"`
	// Replication lets the role read and write the server's chunks and
	// refs as a peer does (postgres:// remotes and read replicas:
	// planner/session/peer.go); PostgreSQL's REPLICATION attribute,
	// pg_roles.rolreplication. A superuser has it implicitly.
	Replication bool `json:"replication,omitempty"`
	// NoInherit: the role does not use the privileges of the roles it is
	// a member of without SET ROLE.
	NoInherit bool `json:"noinherit,omitempty"`
	// BypassRLS exempts the role from row-level security (rolbypassrls);
	// superusers are exempt anyway.
	BypassRLS bool `json:"bypassrls,omitempty"`
	// MemberOf lists the roles this one was granted (GRANT role TO this),
	// pg_auth_members.
	MemberOf []RoleGrant `json:"member_of,omitempty"`
	// ValidUntil is when the role's password stops being accepted
	// (VALID UNTIL), a timestamptz in microseconds since 2000-01-01 UTC
	// (math.MaxInt64 for infinity); nil: forever.
	ValidUntil *int64 `json:"valid_until,omitempty"`
	// ConnLimit is how many sessions the role may have at once
	// (CONNECTION LIMIT); nil: no limit (PostgreSQL's -1).
	ConnLimit *int32 `json:"conn_limit,omitempty"`
}

// PasswordExpired reports whether the role's VALID UNTIL has passed at now.
func (r *Role) PasswordExpired(now time.Time) bool {
	// Compared in microseconds since the epoch: a time.Duration reaches
	// only to 2262, a VALID UNTIL much further.
	return r.ValidUntil != nil && now.Sub(pgEpoch).Microseconds() > *r.ValidUntil
}

// pgEpoch is PostgreSQL's timestamp epoch, 2000-01-01 00:00:00 UTC.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// RoleGrant is a membership: the role granted, who granted it, and whether
// the member may grant it on (WITH ADMIN OPTION).
type RoleGrant struct {
	Role    string `json:"role"`
	Grantor string `json:"grantor,omitempty"`
	Admin   bool   `json:"admin,omitempty"`
}

// rolesRef names the chunk that lists every role.
const rolesRef = "roles"

// LoadRoles returns the roles by name, and the address of their list for a
// later SaveRoles.
func LoadRoles(ctx context.Context, st Store) (map[string]*Role, store.Address, error) {
	list, addr, err := loadRecordList[Role](ctx, st, rolesRef)
	if err != nil {
		return nil, store.Address{}, err
	}
	roles := make(map[string]*Role, len(list))
	for _, r := range list {
		roles[r.Name] = r
	}
	return roles, addr, nil
}

// SaveRoles replaces the role list if it is still the one at old; otherwise
// it fails with an error wrapping store.ErrRefConflict. It is durable.
func SaveRoles(ctx context.Context, st Store, old store.Address, roles map[string]*Role) error {
	list := make([]*Role, 0, len(roles))
	for _, r := range roles {
		list = append(list, r)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return putRecordRef(ctx, st, rolesRef, old, list)
}

// UpdateRoles applies fn to the current roles and saves the result,
// retrying if another writer saved in between.
func UpdateRoles(ctx context.Context, st Store, fn func(map[string]*Role) error) error {
	for {
		roles, addr, err := LoadRoles(ctx, st)
		if err != nil {
			return err
		}
		if err := fn(roles); err != nil {
			return err
		}
		err = SaveRoles(ctx, st, addr, roles)
		if !errors.Is(err, store.ErrRefConflict) {
			return err
		}
	}
}

// RoleCache holds the decoded roles of a store, decoded again only when
// the roles ref has moved: privilege checks read them for every statement
// a non-superuser runs. It is safe for concurrent use.
type RoleCache struct {
	mu      sync.Mutex
	addr    store.Address
	roles   map[string]*Role
	version uint64
}

// Load returns the current roles and a number that changes whenever they
// do. The map and its roles are shared: they must not be modified
// (UpdateRoles works on a copy it loads itself).
func (c *RoleCache) Load(ctx context.Context, st Store) (map[string]*Role, uint64, error) {
	addr, ok, err := st.Ref(ctx, rolesRef)
	if err != nil {
		return nil, 0, fmt.Errorf("versioning: loading roles: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.roles != nil && ok && addr == c.addr {
		return c.roles, c.version, nil
	}
	roles, addr, err := LoadRoles(ctx, st)
	if err != nil {
		return nil, 0, err
	}
	c.addr, c.roles = addr, roles
	c.version++
	return roles, c.version, nil
}

// Holds returns the roles whose privileges role uses: itself, the roles it
// is a member of (transitively, through roles that inherit), and PUBLIC
// as "". A NOINHERIT role uses only its own.
func Holds(roles map[string]*Role, role string) map[string]bool {
	held := map[string]bool{"": true, role: true}
	var visit func(name string)
	visit = func(name string) {
		r := roles[name]
		if r == nil || r.NoInherit {
			return
		}
		for _, g := range r.MemberOf {
			if !held[g.Role] {
				held[g.Role] = true
				visit(g.Role)
			}
		}
	}
	visit(role)
	return held
}

// IsMember reports whether role is a member of group, directly or through
// other memberships, whatever their INHERIT settings (what SET ROLE needs).
func IsMember(roles map[string]*Role, role, group string) bool {
	seen := map[string]bool{}
	var visit func(name string) bool
	visit = func(name string) bool {
		if name == group {
			return true
		}
		if seen[name] {
			return false
		}
		seen[name] = true
		if r := roles[name]; r != nil {
			for _, g := range r.MemberOf {
				if visit(g.Role) {
					return true
				}
			}
		}
		return false
	}
	return visit(role)
}
