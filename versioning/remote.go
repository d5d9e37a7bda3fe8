package versioning

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

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
	// Upstreams maps local branches to the branch of this remote they
	// track (dolt_push --set-upstream, dolt_clone): what dolt_pull
	// without a branch merges.
	Upstreams map[string]string `json:"upstreams,omitempty"`
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
	list, _, err := r.loadRemoteList(ctx, r.remotesRef())
	return list, err
}

// loadRemoteList reads the list of remotes (or of backups, backup.go)
// that ref names, and the address it read.
func (r *Repo) loadRemoteList(ctx context.Context, ref string) ([]Remote, store.Address, error) {
	addr, ok, err := r.st.Ref(ctx, ref)
	if err != nil || !ok {
		return nil, store.Address{}, err
	}
	b, err := r.st.Get(ctx, addr)
	if err != nil {
		return nil, store.Address{}, fmt.Errorf("versioning: loading %s: %w", ref, err)
	}
	var list []Remote
	if err := decodeRecord(b, &list); err != nil {
		return nil, store.Address{}, err
	}
	return list, addr, nil
}

// AddRemote records a remote; ErrRemoteExists if one has its name.
func (r *Repo) AddRemote(ctx context.Context, rm Remote) error {
	if err := checkRemoteName(rm.Name); err != nil {
		return err
	}
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

// checkRemoteName rejects a name that cannot be a path element of the
// remote's tracking branches: one with '/', or that a ref name may not
// hold.
func checkRemoteName(name string) error {
	if checkRefName("remote", name) != nil || strings.Contains(name, "/") {
		return fmt.Errorf("%w: %q is not a valid remote name", ErrBadName, name)
	}
	return nil
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

// updateRemotes applies fn to the list of remotes and saves it durably,
// again if another session saved in between.
func (r *Repo) updateRemotes(ctx context.Context, fn func([]Remote) ([]Remote, error)) error {
	return r.updateRemoteList(ctx, r.remotesRef(), fn)
}

// updateRemoteList is updateRemotes for the list that ref names.
func (r *Repo) updateRemoteList(ctx context.Context, ref string, fn func([]Remote) ([]Remote, error)) error {
	for {
		list, old, err := r.loadRemoteList(ctx, ref)
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
		err = putRecordRef(ctx, r.st, ref, old, v)
		if !errors.Is(err, store.ErrRefConflict) {
			return err
		}
	}
}

// Remote returns the remote of that name; ErrNoRemote if there is none.
func (r *Repo) Remote(ctx context.Context, name string) (Remote, error) {
	list, err := r.Remotes(ctx)
	if err != nil {
		return Remote{}, err
	}
	for _, rm := range list {
		if rm.Name == name {
			return rm, nil
		}
	}
	return Remote{}, fmt.Errorf("%w: %s", ErrNoRemote, name)
}

// SetUpstream makes branch track the branch remoteBranch of remote, and
// no other.
func (r *Repo) SetUpstream(ctx context.Context, branch, remote, remoteBranch string) error {
	return r.updateRemotes(ctx, func(list []Remote) ([]Remote, error) {
		found := false
		out := make([]Remote, len(list))
		for i, rm := range list {
			ups := make(map[string]string, len(rm.Upstreams)+1)
			for k, v := range rm.Upstreams {
				if k != branch {
					ups[k] = v
				}
			}
			if rm.Name == remote {
				ups[branch], found = remoteBranch, true
			}
			if len(ups) == 0 {
				ups = nil
			}
			rm.Upstreams = ups
			out[i] = rm
		}
		if !found {
			return nil, fmt.Errorf("%w: %s", ErrNoRemote, remote)
		}
		return out, nil
	})
}

// Upstream returns the branch of remote that branch tracks, if any.
func (rm Remote) Upstream(branch string) (string, bool) {
	b, ok := rm.Upstreams[branch]
	return b, ok
}
