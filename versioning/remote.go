package versioning

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/prollypg/prollypg/store"
)

// Remote is a named place a database's commits can be pushed to and
// fetched from (dolt_remote). Like Git's and Dolt's, remotes are the
// database's configuration, not versioned data: a branch does not carry
// them and no commit records them.
type Remote struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	// FetchSpecs map the remote's refs to local ones, as Git's do:
	// refs/heads/*:refs/remotes/<name>/* by default.
	FetchSpecs []string          `json:"fetch_specs"`
	Params     map[string]string `json:"params,omitempty"`
}

// ErrRemoteExists and ErrNoRemote are returned by AddRemote and
// RemoveRemote.
var (
	ErrRemoteExists = errors.New("versioning: remote already exists")
	ErrNoRemote     = errors.New("versioning: no such remote")
)

// remotesRef names the chunk that lists a database's remotes:
// db/D/remotes (see refPrefix).
func (r *Repo) remotesRef() string { return dbPrefix(r.name) + "remotes" }

// Remotes returns the database's remotes, by name.
func (r *Repo) Remotes(ctx context.Context) ([]Remote, error) {
	list, _, err := r.loadRemotes(ctx)
	return list, err
}

func (r *Repo) loadRemotes(ctx context.Context) ([]Remote, store.Address, error) {
	addr, ok, err := r.st.Ref(ctx, r.remotesRef())
	if err != nil || !ok {
		return nil, store.Address{}, err
	}
	b, err := r.st.Get(ctx, addr)
	if err != nil {
		return nil, store.Address{}, fmt.Errorf("versioning: loading remotes: %w", err)
	}
	var list []Remote
	if err := decodeRecord(b, &list); err != nil {
		return nil, store.Address{}, err
	}
	return list, addr, nil
}

// AddRemote records a remote; ErrRemoteExists if one has its name.
func (r *Repo) AddRemote(ctx context.Context, rm Remote) error {
	if len(rm.FetchSpecs) == 0 {
		rm.FetchSpecs = []string{"refs/heads/*:refs/remotes/" + rm.Name + "/*"}
	}
	return r.updateRemotes(ctx, func(list []Remote) ([]Remote, error) {
		for _, x := range list {
			if x.Name == rm.Name {
				return nil, fmt.Errorf("%w: %s", ErrRemoteExists, rm.Name)
			}
		}
		return append(list, rm), nil
	})
}

// RemoveRemote forgets a remote; ErrNoRemote if there is none of that name.
func (r *Repo) RemoveRemote(ctx context.Context, name string) error {
	return r.updateRemotes(ctx, func(list []Remote) ([]Remote, error) {
		for i, x := range list {
			if x.Name == name {
				return append(list[:i:i], list[i+1:]...), nil
			}
		}
		return nil, fmt.Errorf("%w: %s", ErrNoRemote, name)
	})
}

// updateRemotes applies fn to the list and saves it durably, again if
// another session saved in between.
func (r *Repo) updateRemotes(ctx context.Context, fn func([]Remote) ([]Remote, error)) error {
	for {
		list, old, err := r.loadRemotes(ctx)
		if err != nil {
			return err
		}
		if list, err = fn(list); err != nil {
			return err
		}
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
		var v any
		if len(list) > 0 {
			v = list
		}
		err = putRecordRef(ctx, r.st, r.remotesRef(), old, v)
		if !errors.Is(err, store.ErrRefConflict) {
			return err
		}
	}
}
