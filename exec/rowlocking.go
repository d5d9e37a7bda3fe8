package exec

import (
	"bytes"
	"context"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/versioning"
)

// Isolation is a transaction's isolation level.
type Isolation uint8

const (
	ReadCommitted  Isolation = iota // also READ UNCOMMITTED, as in PostgreSQL
	RepeatableRead                  // one snapshot; a concurrently changed row is 40001
	Serializable                    // as RepeatableRead, for now
)

// ParseIsolation maps transaction_isolation's values to levels.
func ParseIsolation(s string) Isolation {
	switch s {
	case "repeatable read":
		return RepeatableRead
	case "serializable":
		return Serializable
	}
	return ReadCommitted
}

// lockRow takes the row lock of the row stored under key, before the
// statement changes it, and returns the version the change must be based
// on, as PostgreSQL does:
//
//   - The transaction already held the lock, or no transaction committed
//     a change to the row since the snapshot: in, as the statement read it.
//   - Another transaction changed it and committed (perhaps while this one
//     waited for its lock): in READ COMMITTED, the newest committed
//     version if it still passes Recheck, else skip (also when it was
//     deleted); in REPEATABLE READ and SERIALIZABLE, 40001.
//
// A change based on a newer version is recorded (Txn.rebased) for the
// commit-time merge, which takes it over that version.
func (p *Modify) lockRow(env *Env, t *Table, key []byte, in Row) (Row, bool, error) {
	tx := env.Txn
	if tx.Locks == nil || tx.Latest == nil || t.Pinned {
		return in, false, nil
	}
	tk := tableKey(t.Def)
	fresh, _, err := tx.Locks.Lock(env.Ctx, tx.LockOwner, RowLockKey{Database: tx.Repo.Name(), Branch: tx.Branch, Table: tk, Key: string(key)})
	if err != nil || !fresh {
		return in, false, err
	}
	latest, err := tx.Latest(env.Ctx)
	if err != nil || latest.Addr() == tx.Start.Addr() {
		return in, false, err
	}
	base, inBase, _, err := tx.committedRow(env.Ctx, tx.Start, t, key)
	if err != nil || !inBase {
		return in, false, err // a row this transaction inserted: nobody else has it
	}
	now, found, sameDef, err := tx.committedRow(env.Ctx, latest, t, key)
	switch {
	case err != nil:
		return nil, false, err
	case found && bytes.Equal(now, base):
		return in, false, nil
	case !sameDef || tx.Isolation != ReadCommitted || p.Recheck == nil:
		return nil, false, pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
	case !found:
		return nil, true, nil // deleted and committed meanwhile: nothing to change
	}
	row, err := t.DecodeStoredRow(now)
	if err != nil {
		return nil, false, err
	}
	ok, err := isTrue(env, p.Recheck, row)
	if err != nil || !ok {
		return nil, !ok, err
	}
	if tx.rebased == nil {
		tx.rebased = map[string]map[string][]byte{}
	}
	if tx.rebased[tk] == nil {
		tx.rebased[tk] = map[string][]byte{}
	}
	tx.rebased[tk][string(key)] = now
	return row, false, nil
}

// committedRow returns the tuple stored under key in t's table as of root,
// and whether root's table has t's definition (a concurrent ALTER would
// make a row of it unreadable with t's layout).
func (tx *Txn) committedRow(ctx context.Context, root versioning.RootValue, t *Table, key []byte) (tuple []byte, found, sameDef bool, err error) {
	rec, ok, err := root.TableRecord(ctx, t.Def.Schema, t.Def.Name)
	if err != nil || !ok {
		return nil, false, false, err
	}
	var def *versioning.Table
	if c := tx.Tables; c != nil {
		if ct := c.get(rec); ct != nil {
			def = ct.Def
		}
	}
	if def == nil {
		if def, err = versioning.DecodeTable(rec); err != nil {
			return nil, false, false, err
		}
	}
	rows, err := prolly.Load(ctx, root.Store(), def.Rows)
	if err != nil {
		return nil, false, false, err
	}
	tuple, found, err = rows.Get(ctx, key)
	return tuple, found, versioning.SameDefinition(def, t.Def), err
}

// Rebased implements versioning.RebaseSource: the rows of a table this
// transaction changed on top of a newer committed version, by key.
func (m *MergeIndexer) Rebased(schema, table string) map[string][]byte {
	return m.tx.rebased[schema+"."+table]
}
