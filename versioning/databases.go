package versioning

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// DatabaseInfo is what the server records of a database besides its
// branches, as PostgreSQL's pg_database does: its owner ("" for the
// bootstrap superuser) and its privileges (CONNECT, CREATE, TEMPORARY; nil
// until a GRANT or REVOKE sets them). Like roles, it belongs to the server,
// not to a branch: connecting to a database is checked before any branch
// is open.
type DatabaseInfo struct {
	Name  string           `json:"name"`
	Owner string           `json:"owner,omitempty"`
	ACL   []sqldef.ACLItem `json:"acl,omitempty"`
}

// databasesRef names the chunk that lists the databases' infos.
const databasesRef = "databases"

// LoadDatabaseInfos returns the recorded databases' infos by name (a
// database made before owners were recorded has none), and the address of
// their list for a later update.
func LoadDatabaseInfos(ctx context.Context, st Store) (map[string]*DatabaseInfo, store.Address, error) {
	list, addr, err := loadRecordList[DatabaseInfo](ctx, st, databasesRef)
	if err != nil {
		return nil, store.Address{}, err
	}
	out := make(map[string]*DatabaseInfo, len(list))
	for _, d := range list {
		out[d.Name] = d
	}
	return out, addr, nil
}

// UpdateDatabaseInfos applies fn to the current infos and saves the
// result durably, retrying if another writer saved in between.
func UpdateDatabaseInfos(ctx context.Context, st Store, fn func(map[string]*DatabaseInfo) error) error {
	for {
		infos, addr, err := LoadDatabaseInfos(ctx, st)
		if err != nil {
			return err
		}
		if err := fn(infos); err != nil {
			return err
		}
		list := make([]*DatabaseInfo, 0, len(infos))
		for _, d := range infos {
			list = append(list, d)
		}
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
		err = putRecordRef(ctx, st, databasesRef, addr, list)
		if !errors.Is(err, store.ErrRefConflict) {
			return err
		}
	}
}

// loadRecordList reads the list of records the ref names (none when it
// does not exist) and the ref's address.
func loadRecordList[T any](ctx context.Context, st Store, ref string) ([]*T, store.Address, error) {
	addr, ok, err := st.Ref(ctx, ref)
	if err != nil || !ok {
		return nil, store.Address{}, err
	}
	b, err := st.Get(ctx, addr)
	if err != nil {
		return nil, store.Address{}, fmt.Errorf("versioning: loading %s: %w", ref, err)
	}
	var list []*T
	if err := decodeRecord(b, &list); err != nil {
		return nil, store.Address{}, err
	}
	return list, addr, nil
}
