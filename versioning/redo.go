package versioning

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
)

// Commits journaled as their row edits. A batch of the Committer whose
// transactions all gave their changes as edits (Replayer) makes the new
// working set from the old one by ApplyTableEdits alone, so the store
// journals that change, not the chunks it wrote (store's redo records,
// store/redo.go): the body below, which ReplayWorkingSet turns back into
// the same working set when the store replays its journal after a crash.
//
// Body (version 2): version byte | group count uvarint | groups, each
// applied to the working root left by the ones before it (ApplyEdits):
//
//	group:    table count uvarint | tables | advance count uvarint | advances
//	table:    schema | name | next row id varint | rows | index count uvarint | index edit lists
//	edits:    count uvarint | edits, each flags (1: delete) | key | value (if not deleted)
//	advance:  schema | name | last varint | called (1 byte, 0 or 1)
//
// strings and byte strings are length (uvarint) and bytes. Version 1, read
// too, had no advances.

const redoBodyVersion = 2

// redoStore is the store's side of redo records (store.DB).
type redoStore interface {
	CanRedo() bool
	RedoEpoch() uint64
	UpdateRefRedo(ctx context.Context, u store.RefUpdate, body []byte, since uint64) error
}

// encodeRedoBody encodes groups of table edits as a redo record's body.
func encodeRedoBody(groups []EditGroup) []byte {
	size := 16
	for _, g := range groups {
		size += 8
		for _, a := range g.Sequences {
			size += 16 + len(a.Schema) + len(a.Name)
		}
		for _, te := range g.Tables {
			size += 32 + len(te.Schema) + len(te.Name) + editsSize(te.Rows)
			for _, ix := range te.Indexes {
				size += editsSize(ix)
			}
		}
	}
	b := make([]byte, 0, size)
	b = append(b, redoBodyVersion)
	b = binary.AppendUvarint(b, uint64(len(groups)))
	for _, g := range groups {
		b = binary.AppendUvarint(b, uint64(len(g.Tables)))
		for _, te := range g.Tables {
			b = appendBytes(b, []byte(te.Schema))
			b = appendBytes(b, []byte(te.Name))
			b = binary.AppendVarint(b, te.NextRowID)
			b = appendEdits(b, te.Rows)
			b = binary.AppendUvarint(b, uint64(len(te.Indexes)))
			for _, ix := range te.Indexes {
				b = appendEdits(b, ix)
			}
		}
		b = binary.AppendUvarint(b, uint64(len(g.Sequences)))
		for _, a := range g.Sequences {
			b = appendBytes(b, []byte(a.Schema))
			b = appendBytes(b, []byte(a.Name))
			b = binary.AppendVarint(b, a.Last)
			called := byte(0)
			if a.Called {
				called = 1
			}
			b = append(b, called)
		}
	}
	return b
}

func editsSize(edits []prolly.Edit) int {
	n := 8
	for _, e := range edits {
		n += 11 + len(e.Key) + len(e.Value)
	}
	return n
}

func appendBytes(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendEdits(b []byte, edits []prolly.Edit) []byte {
	b = binary.AppendUvarint(b, uint64(len(edits)))
	for _, e := range edits {
		if e.Delete {
			b = append(b, 1)
			b = appendBytes(b, e.Key)
			continue
		}
		b = append(b, 0)
		b = appendBytes(b, e.Key)
		b = appendBytes(b, e.Value)
	}
	return b
}

// errBadRedoBody is the error of a body that does not decode.
var errBadRedoBody = errors.New("versioning: malformed redo record body")

// redoReader decodes a body; the first malformed field sets err, and every
// read after it returns zero values.
type redoReader struct {
	b   []byte
	err error
}

func (r *redoReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, k := binary.Uvarint(r.b)
	var buf [binary.MaxVarintLen64]byte
	if k <= 0 || k != binary.PutUvarint(buf[:], v) { // only the shortest form is the encoder's
		r.err = errBadRedoBody
		return 0
	}
	r.b = r.b[k:]
	return v
}

func (r *redoReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, k := binary.Varint(r.b)
	var buf [binary.MaxVarintLen64]byte
	if k <= 0 || k != binary.PutVarint(buf[:], v) {
		r.err = errBadRedoBody
		return 0
	}
	r.b = r.b[k:]
	return v
}

func (r *redoReader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = errBadRedoBody
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *redoReader) byte() byte {
	if r.err != nil {
		return 0
	}
	if len(r.b) == 0 {
		r.err = errBadRedoBody
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

// count reads a count of items that take at least one byte each.
func (r *redoReader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.err = errBadRedoBody
		return 0
	}
	return int(n)
}

func (r *redoReader) edits() []prolly.Edit {
	n := r.count()
	if n == 0 {
		return nil
	}
	edits := make([]prolly.Edit, 0, n)
	for range n {
		if r.err != nil || len(r.b) == 0 {
			r.err = errBadRedoBody
			return nil
		}
		flags := r.b[0]
		r.b = r.b[1:]
		switch flags {
		case 0:
			k := r.bytes()
			edits = append(edits, prolly.Edit{Key: k, Value: r.bytes()})
		case 1:
			edits = append(edits, prolly.Edit{Key: r.bytes(), Delete: true})
		default:
			r.err = errBadRedoBody
		}
	}
	return edits
}

// decodeRedoBody decodes a body made by encodeRedoBody.
func decodeRedoBody(b []byte) ([]EditGroup, error) {
	if len(b) == 0 || b[0] != 1 && b[0] != redoBodyVersion {
		return nil, errBadRedoBody
	}
	version := b[0]
	r := &redoReader{b: b[1:]}
	groups := make([]EditGroup, r.count())
	for i := range groups {
		g := &groups[i]
		g.Tables = make([]TableEdits, r.count())
		for j := range g.Tables {
			te := &g.Tables[j]
			te.Schema = string(r.bytes())
			te.Name = string(r.bytes())
			te.NextRowID = r.varint()
			te.Rows = r.edits()
			te.Indexes = make([][]prolly.Edit, r.count())
			for k := range te.Indexes {
				te.Indexes[k] = r.edits()
			}
		}
		if version == 1 {
			continue
		}
		if n := r.count(); n > 0 {
			g.Sequences = make([]SequenceAdvance, n)
		}
		for j := range g.Sequences {
			a := &g.Sequences[j]
			a.Schema = string(r.bytes())
			a.Name = string(r.bytes())
			a.Last = r.varint()
			switch called := r.byte(); called {
			case 0, 1:
				a.Called = called == 1
			default:
				r.err = errBadRedoBody
			}
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = errBadRedoBody
	}
	if r.err != nil {
		return nil, r.err
	}
	return groups, nil
}

// ReplayWorkingSet is the store's RedoFunc (store.Options.Redo) for the
// Committer's redo records: the working set at old with the body's edit
// groups applied to its working root, one after another, written as the
// Committer wrote it.
func ReplayWorkingSet(ctx context.Context, db *store.DB, old store.Address, body []byte) (store.Address, error) {
	groups, err := decodeRedoBody(body)
	if err != nil {
		return store.Address{}, err
	}
	b, err := db.Get(ctx, old)
	if err != nil {
		return store.Address{}, fmt.Errorf("versioning: loading working set %s: %w", old, err)
	}
	ws, err := decodeWorkingSet(b)
	if err != nil {
		return store.Address{}, err
	}
	root, err := LoadRootValue(ctx, db, ws.Working)
	if err != nil {
		return store.Address{}, err
	}
	for _, g := range groups {
		if root, err = ApplyEdits(ctx, root, g, nil); err != nil {
			return store.Address{}, err
		}
	}
	nws := *ws
	nws.Working = root.Addr()
	return db.Put(ctx, nws.encode())
}

// redoEpoch returns the store's RedoEpoch, to be read before a batch
// writes its redo chunks, and whether the store takes redo records.
func (r *Repo) redoEpoch() (uint64, bool) {
	rs, ok := r.st.(redoStore)
	if !ok || !rs.CanRedo() {
		return 0, false
	}
	return rs.RedoEpoch(), true
}

// updateWorkingSetRedo is UpdateWorkingSet for a working set made from the
// one at old by applying groups (with a context from
// store.WithRedoWriter, after redoEpoch returned since): journaled as a
// redo record. It reports false, having moved nothing, when the store
// cannot take the record; the caller then updates the working set as
// usual.
func (r *Repo) updateWorkingSetRedo(ctx context.Context, branch string, old store.Address, ws *WorkingSet, groups []EditGroup, since uint64) (bool, error) {
	rs, ok := r.st.(redoStore)
	if !ok || !rs.CanRedo() {
		return false, nil
	}
	a, err := r.st.Put(store.WithRedoWriter(ctx), ws.encode())
	if err != nil {
		return false, fmt.Errorf("versioning: writing working set: %w", err)
	}
	err = rs.UpdateRefRedo(ctx, store.RefUpdate{Name: r.wsRef(branch), Old: old, New: a}, encodeRedoBody(groups), since)
	if errors.Is(err, store.ErrRedoTooLarge) || errors.Is(err, store.ErrRedoStale) {
		return false, nil
	}
	return err == nil, err
}
