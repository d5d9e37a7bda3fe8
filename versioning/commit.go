package versioning

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
)

// Signature names who made a commit and when.
type Signature struct {
	Name  string
	Email string
	When  time.Time // kept to the microsecond, with its zone offset
}

// Commit is a version of a database: a root value, its parent commits (none
// for the first, two for a merge), who made it and why. A commit's address
// is its hash, the name users see.
type Commit struct {
	Root      store.Address
	Parents   []store.Address
	Author    Signature
	Committer Signature
	Message   string
}

// Commit chunk layout (version 1):
//
//	magic 0xC1 | version 1 | root (20) | uvarint n | n parents (20 each) |
//	author sig | committer sig | uvarint len | message
//
// A signature is: uvarint len | name | uvarint len | email | varint unix µs
// | varint zone offset in seconds.
const (
	commitMagic   = 0xC1
	commitVersion = 1
)

func (c *Commit) encode() []byte {
	b := []byte{commitMagic, commitVersion}
	b = append(b, c.Root[:]...)
	b = binary.AppendUvarint(b, uint64(len(c.Parents)))
	for _, p := range c.Parents {
		b = append(b, p[:]...)
	}
	b = appendSignature(b, c.Author)
	b = appendSignature(b, c.Committer)
	return appendString(b, c.Message)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendSignature(b []byte, s Signature) []byte {
	b = appendString(b, s.Name)
	b = appendString(b, s.Email)
	b = binary.AppendVarint(b, s.When.UnixMicro())
	_, off := s.When.Zone()
	return binary.AppendVarint(b, int64(off))
}

// decoder reads the fields of an object chunk, remembering the first error.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = fmt.Errorf("%w: truncated object", ErrCorrupt)
	}
	d.b = nil
}

func (d *decoder) addr() store.Address {
	if len(d.b) < store.AddressSize {
		d.fail()
		return store.Address{}
	}
	a := store.Address(d.b[:store.AddressSize])
	d.b = d.b[store.AddressSize:]
	return a
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if uint64(len(d.b)) < n {
		d.fail()
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) signature() Signature {
	s := Signature{Name: d.string(), Email: d.string()}
	us, off := d.varint(), d.varint()
	s.When = time.UnixMicro(us).In(time.FixedZone("", int(off)))
	return s
}

func decodeCommit(b []byte) (*Commit, error) {
	if len(b) < 2 || b[0] != commitMagic || b[1] != commitVersion {
		return nil, fmt.Errorf("%w: not a commit", ErrCorrupt)
	}
	d := decoder{b: b[2:]}
	c := &Commit{Root: d.addr()}
	n := d.uvarint()
	if n > uint64(len(d.b))/store.AddressSize {
		d.fail()
	}
	for i := uint64(0); i < n && d.err == nil; i++ {
		c.Parents = append(c.Parents, d.addr())
	}
	c.Author = d.signature()
	c.Committer = d.signature()
	c.Message = d.string()
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: trailing bytes in commit", ErrCorrupt)
	}
	return c, d.err
}

// WriteCommit stores c and returns its address.
func WriteCommit(ctx context.Context, cs prolly.ChunkStore, c *Commit) (store.Address, error) {
	a, err := cs.Put(ctx, c.encode())
	if err != nil {
		return store.Address{}, fmt.Errorf("versioning: writing commit: %w", err)
	}
	return a, nil
}

// LoadCommit reads the commit at addr.
func LoadCommit(ctx context.Context, cs prolly.ChunkStore, addr store.Address) (*Commit, error) {
	b, err := cs.Get(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("versioning: loading commit %s: %w", addr, err)
	}
	c, err := decodeCommit(b)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", addr, err)
	}
	return c, nil
}

// WorkingSet is a branch's uncommitted state: the working root that SQL
// transactions change, the staged root that dolt_add fills and dolt_commit
// turns into a commit, and the merge in progress, if any.
type WorkingSet struct {
	Working store.Address
	Staged  store.Address
	// MergeCommit is the commit being merged in while a merge with
	// conflicts awaits resolution; zero otherwise. PreMerge is the working
	// root from before that merge, for dolt_merge --abort.
	MergeCommit store.Address
	PreMerge    store.Address
}

// Working set chunk layout (version 1): magic 0xC2 | version 1 | working |
// staged | merge commit | pre-merge working (20 bytes each; zero when none).
const (
	workingSetMagic   = 0xC2
	workingSetVersion = 1
	workingSetSize    = 2 + 4*store.AddressSize
)

func (w *WorkingSet) encode() []byte {
	b := make([]byte, 0, workingSetSize)
	b = append(b, workingSetMagic, workingSetVersion)
	b = append(b, w.Working[:]...)
	b = append(b, w.Staged[:]...)
	b = append(b, w.MergeCommit[:]...)
	return append(b, w.PreMerge[:]...)
}

func decodeWorkingSet(b []byte) (*WorkingSet, error) {
	if len(b) != workingSetSize || b[0] != workingSetMagic || b[1] != workingSetVersion {
		return nil, fmt.Errorf("%w: not a working set", ErrCorrupt)
	}
	d := decoder{b: b[2:]}
	return &WorkingSet{Working: d.addr(), Staged: d.addr(), MergeCommit: d.addr(), PreMerge: d.addr()}, nil
}
