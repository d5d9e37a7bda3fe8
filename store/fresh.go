package store

import (
	"context"
	"math"
	"sync/atomic"

	"go.uber.org/zap"
)

// Fresh chunks: journaling only what refs reach.
//
// Most chunks a SQL transaction writes never become part of a ref: the
// tree its statement built and its commit then merged into the branch,
// the intermediate roots a group commit merged one after another, the
// snapshots a READ COMMITTED transaction rebased, a rolled-back
// transaction's work. Under pgbench's simple-update load that was four
// chunks in five, each journaled, fsynced and written to Badger's value
// log (28 KB a transaction). So a DB with a reach function (SetReach)
// keeps what Put gives it fresh, in memory, and a ref update journals only
// the fresh chunks its new values reach; the rest waits to be reached by a
// later update or dropped (DropFresh) by the caller that knows no one can
// still reach it.
//
// Who may drop what is decided by generations. The caller (the SQL
// engine) registers each writer at the current Generation and passes it
// in the context of the writer's calls (WithWriterGeneration); Put tags a
// fresh chunk with the generation of its writer, or with the latest one
// if another writer puts it again. When every writer registered before
// generation g has ended, the caller calls NextGeneration and
// DropFresh(g). A chunk Put without a writer generation is never dropped.
//
// Why that is safe (invariant 10 of the package doc): a writer builds only
// on chunks it read from a ref (journaled: not fresh) or put itself
// (tagged with its generation or a later one), so a writer still running
// reaches no fresh chunk below its own generation. The set a drop keeps is
// closed downwards for the same reason: a chunk kept for a later writer
// was put again by that writer, which either put its fresh children again
// too or built it on journaled ones. Has and HasMany count a fresh chunk as
// absent (unless it is also on disk), so a copy into the store
// (versioning's transfer), which skips what the store has with all that is
// below it, never builds on one. And the cache holds no fresh chunk, so a
// Put of one never takes the cache-hit shortcut that skips its
// generation.

// ReachFunc finds what the new values of updates reach, descending only
// into chunks for which fresh reports true (any other chunk is journaled
// or on disk with all that is below it), and calls leave with each fresh
// chunk it reaches, children before parents. It may read the store and
// must not write it.
type ReachFunc func(ctx context.Context, updates []RefUpdate, fresh func(Address) bool, leave func(Address) error) error

// SetReach makes ref updates journal only the fresh chunks fn finds them
// to reach, and Put keep the rest in memory until they are reached or
// dropped (see DropFresh). Call it once, before the store is used.
func (db *DB) SetReach(fn ReachFunc) { db.reach.Store(&fn) }

// Generation returns the generation writers registering now belong to.
func (db *DB) Generation() uint64 { return db.gen.Load() }

// NextGeneration starts a new generation and returns it.
func (db *DB) NextGeneration() uint64 { return db.gen.Add(1) }

// DropFresh forgets the fresh chunks whose writers' generations are all
// below before: the caller knows that every writer registered before it
// has ended, so that nothing can reach them but refs, which would have
// journaled them. It returns how many chunks it dropped and their bytes.
func (db *DB) DropFresh(before uint64) (chunks int, bytes int64) {
	return db.pending.dropFresh(before)
}

// FreshBytes returns the bytes of the fresh chunks the store holds that
// DropFresh may drop (not redo or limbo chunks: redo.go).
func (db *DB) FreshBytes() int64 {
	other, _ := db.pending.sizesRedo()
	return other
}

// droppable reports whether a buffered chunk may be dropped: it is fresh
// and a reach function is set (without one, nothing is dropped).
func (db *DB) droppable(fresh bool) bool { return fresh && db.reach.Load() != nil }

// writerGenKey is the context key of WithWriterGeneration.
type writerGenKey struct{}

// WithWriterGeneration returns ctx carrying the generation of the writer
// whose calls it is used for: gen's value at each Put, 0 for none. The
// caller changes gen as the writer registers and ends.
func WithWriterGeneration(ctx context.Context, gen *atomic.Uint64) context.Context {
	return context.WithValue(ctx, writerGenKey{}, gen)
}

// keptFresh is the generation of chunks Put with no writer generation:
// never dropped.
const keptFresh = math.MaxUint64

// writerGeneration returns the generation Put tags a fresh chunk with.
func writerGeneration(ctx context.Context) uint64 {
	if g, ok := ctx.Value(writerGenKey{}).(*atomic.Uint64); ok {
		if v := g.Load(); v != 0 {
			return v
		}
	}
	return keptFresh
}

// reachedFresh returns the fresh chunks that updates reach, children
// before parents, or all set if every fresh chunk is to be journaled: no
// reach function is set, or it failed (which costs only the journal's
// bytes, never a chunk a ref needs).
func (db *DB) reachedFresh(ctx context.Context, updates []RefUpdate) (reached []Address, all bool) {
	fn := db.reach.Load()
	if fn == nil || len(updates) == 0 {
		return nil, true
	}
	err := (*fn)(ctx, updates, db.pending.isFresh, func(a Address) error {
		reached = append(reached, a)
		return nil
	})
	if err != nil {
		db.log.Debug("store: finding the chunks a ref update reaches failed; journaling every fresh chunk", zap.Error(err))
		return nil, true
	}
	return reached, false
}
