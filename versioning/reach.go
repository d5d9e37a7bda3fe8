package versioning

import (
	"context"
	"sync/atomic"

	"github.com/prollypg/prollypg/store"
)

// FreshStore is a store that can keep the chunks no ref reaches out of its
// journal (store.DB: see store/fresh.go).
type FreshStore interface {
	SetReach(store.ReachFunc)
	Generation() uint64
	NextGeneration() uint64
	DropFresh(before uint64) (chunks int, bytes int64)
	FreshBytes() int64
}

// JournalReached makes st journal, at each ref update, only the fresh
// chunks that the update's new values reach, found with the walk the
// garbage collector marks with (commits and their history, working sets,
// root values and the maps of their records, tags), stopping at chunks
// that are not fresh. It reports whether st supports that; the caller then
// owns dropping the fresh chunks nothing can reach (FreshStore.DropFresh).
func JournalReached(st Store) (FreshStore, bool) {
	fs, ok := st.(FreshStore)
	if !ok {
		return nil, false
	}
	fs.SetReach(func(ctx context.Context, updates []store.RefUpdate, fresh func(store.Address) bool, leave func(store.Address) error) error {
		m := &marker{
			cs:    st,
			seen:  map[store.Address]struct{}{},
			fresh: fresh,
			leave: leave,
		}
		for _, u := range updates {
			if u.New.IsZero() {
				continue
			}
			if err := m.ref(ctx, u.Name, u.New); err != nil {
				return err
			}
		}
		return nil
	})
	return fs, true
}

// WithWriterGeneration returns ctx carrying the generation a writer
// registered at (FreshStore.Generation; 0 for none), read at each chunk it
// writes: the store drops the fresh ones once every writer of their
// generation has ended (store.WithWriterGeneration).
func WithWriterGeneration(ctx context.Context, gen *atomic.Uint64) context.Context {
	return store.WithWriterGeneration(ctx, gen)
}
