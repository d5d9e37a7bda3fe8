package sqldef

import "time"

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
