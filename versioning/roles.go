package versioning

import (
	"context"
	"errors"
	"fmt"
	"sort"

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
}

// rolesRef names the chunk that lists every role.
const rolesRef = "roles"

// LoadRoles returns the roles by name, and the address of their list for a
// later SaveRoles.
func LoadRoles(ctx context.Context, st Store) (map[string]*Role, store.Address, error) {
	addr, ok, err := st.Ref(ctx, rolesRef)
	if err != nil || !ok {
		return map[string]*Role{}, store.Address{}, err
	}
	b, err := st.Get(ctx, addr)
	if err != nil {
		return nil, store.Address{}, fmt.Errorf("versioning: loading roles: %w", err)
	}
	var list []*Role
	if err := decodeRecord(b, &list); err != nil {
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
	b, err := encodeRecord(list)
	if err != nil {
		return err
	}
	addr, err := st.Put(ctx, b)
	if err != nil {
		return fmt.Errorf("versioning: writing roles: %w", err)
	}
	return st.UpdateRefs(ctx, []store.RefUpdate{{Name: rolesRef, Old: old, New: addr}}, true)
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
