package versioning

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// rolesRef names the chunk that lists every role.
const rolesRef = "roles"

// LoadRoles returns the roles by name, and the address of their list for a
// later SaveRoles.
func LoadRoles(ctx context.Context, st Store) (map[string]*sqldef.Role, store.Address, error) {
	list, addr, err := loadRecordList[sqldef.Role](ctx, st, rolesRef)
	if err != nil {
		return nil, store.Address{}, err
	}
	roles := make(map[string]*sqldef.Role, len(list))
	for _, r := range list {
		roles[r.Name] = r
	}
	return roles, addr, nil
}

// SaveRoles replaces the role list if it is still the one at old; otherwise
// it fails with an error wrapping store.ErrRefConflict. It is durable.
func SaveRoles(ctx context.Context, st Store, old store.Address, roles map[string]*sqldef.Role) error {
	list := make([]*sqldef.Role, 0, len(roles))
	for _, r := range roles {
		list = append(list, r)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return putRecordRef(ctx, st, rolesRef, old, list)
}

// UpdateRoles applies fn to the current roles and saves the result,
// retrying if another writer saved in between.
func UpdateRoles(ctx context.Context, st Store, fn func(map[string]*sqldef.Role) error) error {
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
	roles   map[string]*sqldef.Role
	version uint64
}

// Load returns the current roles and a number that changes whenever they
// do. The map and its roles are shared: they must not be modified
// (UpdateRoles works on a copy it loads itself).
func (c *RoleCache) Load(ctx context.Context, st Store) (map[string]*sqldef.Role, uint64, error) {
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
