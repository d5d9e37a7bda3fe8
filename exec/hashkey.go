package exec

import (
	"encoding/binary"
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/zeebo/xxh3"

	"github.com/prollypg/prollypg/exec/types"
)

// appendHashKey appends a canonical encoding of d: two Datums of one type
// have the same encoding exactly when they are not distinct (Compare
// returns 0, or both are NULL). Hash joins, hash aggregation, DISTINCT and
// the set operations hash these bytes; equal hashes are confirmed with
// NotDistinct, so the encoding only has to be canonical, not injective
// across types.
func appendHashKey(dst []byte, d Datum) []byte {
	dst = append(dst, byte(d.Kind))
	switch d.Kind {
	case KindNull:
	case KindBool, KindInt, KindDate, KindTime, KindTimestamp:
		dst = binary.LittleEndian.AppendUint64(dst, uint64(d.I))
	case KindTimeTZ:
		dst = binary.LittleEndian.AppendUint64(dst, uint64(d.I))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(int32(d.F)))
	case KindFloat:
		f := d.F
		switch {
		case math.IsNaN(f):
			f = math.NaN()
		case f == 0:
			f = 0 // -0 = 0
		}
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(f))
	case KindNumeric:
		// 1.0 = 1.00: hash the value without trailing zeros.
		n := d.Numeric()
		if n.IsZero() {
			dst = append(dst, '0')
			break
		}
		var r apd.Decimal
		r.Reduce(n)
		s := r.String()
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		dst = append(dst, s...)
	case KindInterval:
		// '1 day' = '24 hours': hash the span, as compareInterval orders.
		iv := d.Interval()
		const dayUs = 86_400_000_000
		days := int64(iv.Months)*30 + int64(iv.Days) + iv.Micros/dayUs
		rem := iv.Micros % dayUs
		if rem < 0 {
			days, rem = days-1, rem+dayUs
		}
		dst = binary.LittleEndian.AppendUint64(dst, uint64(days))
		dst = binary.LittleEndian.AppendUint64(dst, uint64(rem))
	case KindArray:
		a := d.Array()
		dst = binary.AppendUvarint(dst, uint64(len(a.Dims)))
		for i := range a.Dims {
			dst = binary.AppendVarint(dst, int64(a.Dims[i]))
			dst = binary.AppendVarint(dst, int64(a.Lower[i]))
		}
		dst = binary.AppendUvarint(dst, uint64(len(a.Elems)))
		for _, e := range a.Elems {
			dst = appendHashKey(dst, e)
		}
	case KindEnum:
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(d.F))
	case KindRecord:
		r := d.Record()
		dst = binary.AppendUvarint(dst, uint64(len(r.Fields)))
		for _, f := range r.Fields {
			dst = appendHashKey(dst, f)
		}
	case KindTSVector:
		// Normalized, so equal values have one binary form.
		dst = types.AppendTSVectorBinary(dst, d.TSVector())
	case KindTSQuery:
		dst = types.AppendTSQueryKey(dst, d.TSQuery())
	case KindRange:
		dst = appendRangeHashKey(dst, d.Range())
	case KindMultirange:
		dst = appendMultirangeHashKey(dst, d.Multirange())
	case KindHstore:
		dst = types.AppendHstoreBinary(dst, d.Hstore())
	case KindCIText:
		// 'A' and 'a' are not distinct: hash the folded form.
		s := CITextFold(d.S)
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		dst = append(dst, s...)
	default: // text, bytea, uuid, json
		dst = binary.AppendUvarint(dst, uint64(len(d.S)))
		dst = append(dst, d.S...)
	}
	return dst
}

// hashDatums hashes the canonical encoding of ds, using buf as scratch;
// it returns the grown scratch for reuse.
func hashDatums(buf []byte, ds []Datum) (uint64, []byte) {
	buf = buf[:0]
	for _, d := range ds {
		buf = appendHashKey(buf, d)
	}
	return xxh3.Hash(buf), buf
}

// NotDistinct is IS NOT DISTINCT FROM for two values of one type: NULL
// matches NULL.
func NotDistinct(a, b Datum) bool {
	if a.Kind == KindNull || b.Kind == KindNull {
		return a.Kind == b.Kind
	}
	if a.Kind != b.Kind {
		return false
	}
	return Compare(a, b) == 0
}

func rowsNotDistinct(a, b []Datum) bool {
	for i := range a {
		if !NotDistinct(a[i], b[i]) {
			return false
		}
	}
	return true
}

func hasNull(ds []Datum) bool {
	for _, d := range ds {
		if d.IsNull() {
			return true
		}
	}
	return false
}

// keyTable is a hash table of fixed-width keys, each stored once in a flat
// slice: entry i's key is keys[i*w : (i+1)*w]. Entries with equal hashes
// are chained in the order they were added, so a key may be present
// several times (a hash join's build side, returned in input order) or
// kept unique by the caller (grouping). Adding an entry allocates only
// when a slice or the map grows.
type keyTable struct {
	w     int
	heads map[uint64]uint64 // hash → first and last entry with that hash, +1, packed
	next  []int32           // entry → next entry with the same hash, +1
	keys  []Datum
}

func newKeyTable(w int) *keyTable {
	return &keyTable{w: w, heads: map[uint64]uint64{}}
}

// len returns the number of entries.
func (t *keyTable) len() int { return len(t.next) }

// key returns entry i's key.
func (t *keyTable) key(i int) []Datum { return t.keys[i*t.w : (i+1)*t.w] }

// add appends an entry with key (copied) and hash h, returning its number.
func (t *keyTable) add(h uint64, key []Datum) int {
	i := len(t.next)
	t.keys = append(t.keys, key...)
	t.next = append(t.next, 0)
	if fl, ok := t.heads[h]; ok {
		t.next[uint32(fl)-1] = int32(i + 1)
		t.heads[h] = fl&^0xffffffff | uint64(i+1)
	} else {
		t.heads[h] = uint64(i+1)<<32 | uint64(i+1)
	}
	return i
}

// first returns the first entry with hash h and a key not distinct from
// key, or -1.
func (t *keyTable) first(h uint64, key []Datum) int {
	return t.from(int(t.heads[h]>>32)-1, key)
}

// nextMatch returns the entry after entry i with a key not distinct from
// key, or -1.
func (t *keyTable) nextMatch(i int, key []Datum) int {
	return t.from(int(t.next[i])-1, key)
}

func (t *keyTable) from(i int, key []Datum) int {
	for ; i >= 0; i = int(t.next[i]) - 1 {
		if rowsNotDistinct(t.key(i), key) {
			return i
		}
	}
	return -1
}
