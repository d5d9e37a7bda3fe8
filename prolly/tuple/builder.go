package tuple

import (
	"encoding/binary"
	"slices"

	"github.com/cockroachdb/apd/v3"
)

// Builder assembles a tuple field by field. The zero value is ready to use;
// after the first few rows a reused Builder does not allocate. A Builder is
// not safe for concurrent use.
//
//	var b tuple.Builder
//	b.Reset()
//	b.AppendInt64(42)
//	b.AppendString("Joe")
//	b.AppendNull()
//	row := b.Build() // valid until the next Build or Reset
type Builder struct {
	data    []byte   // field bytes, concatenated
	ends    []uint32 // end of each field in data
	nulls   []byte   // NULL bitmap, one bit per field
	hasNull bool
	out     []byte // Build's buffer
}

// Reset empties b, keeping its buffers.
func (b *Builder) Reset() {
	b.data = b.data[:0]
	b.ends = b.ends[:0]
	b.nulls = b.nulls[:0]
	b.hasNull = false
}

// Len returns the number of fields appended since the last Reset.
func (b *Builder) Len() int { return len(b.ends) }

// Append appends a field holding a copy of f (an empty, non-NULL field if f
// is empty or nil). It panics if the fields would exceed MaxDataLen bytes.
func (b *Builder) Append(f []byte) {
	b.data = append(b.data, f...)
	b.endField(false)
}

// AppendString is Append for a string, without converting it.
func (b *Builder) AppendString(f string) {
	b.data = append(b.data, f...)
	b.endField(false)
}

// AppendNull appends a NULL field.
func (b *Builder) AppendNull() { b.endField(true) }

// AppendBool appends a bool payload field (see AppendBool).
func (b *Builder) AppendBool(v bool) {
	b.data = AppendBool(b.data, v)
	b.endField(false)
}

// AppendInt16 appends an int16 payload field.
func (b *Builder) AppendInt16(v int16) {
	b.data = AppendInt16(b.data, v)
	b.endField(false)
}

// AppendInt32 appends an int32 payload field.
func (b *Builder) AppendInt32(v int32) {
	b.data = AppendInt32(b.data, v)
	b.endField(false)
}

// AppendInt64 appends an int64 payload field.
func (b *Builder) AppendInt64(v int64) {
	b.data = AppendInt64(b.data, v)
	b.endField(false)
}

// AppendFloat32 appends a float32 payload field, bits kept exactly.
func (b *Builder) AppendFloat32(v float32) {
	b.data = AppendFloat32(b.data, v)
	b.endField(false)
}

// AppendFloat64 appends a float64 payload field, bits kept exactly.
func (b *Builder) AppendFloat64(v float64) {
	b.data = AppendFloat64(b.data, v)
	b.endField(false)
}

// AppendNumeric appends a numeric payload field, scale kept exactly.
func (b *Builder) AppendNumeric(d *apd.Decimal) {
	b.data = AppendNumeric(b.data, d)
	b.endField(false)
}

// AppendInterval appends an interval payload field.
func (b *Builder) AppendInterval(months, days int32, micros int64) {
	b.data = AppendInterval(b.data, months, days, micros)
	b.endField(false)
}

// endField records the end of the field just written to b.data.
func (b *Builder) endField(null bool) {
	if len(b.data) > MaxDataLen {
		panic("tuple: fields exceed MaxDataLen bytes")
	}
	i := len(b.ends)
	if i&7 == 0 {
		b.nulls = append(b.nulls, 0)
	}
	if null {
		b.nulls[i>>3] |= 1 << (i & 7)
		b.hasNull = true
	}
	b.ends = append(b.ends, uint32(len(b.data)))
}

// Size returns the length of the tuple that AppendTo would append.
func (b *Builder) Size() int {
	n := len(b.ends)
	if n == 0 {
		return 0
	}
	size := 1 + uvarintLen(uint64(n)) + (n-1)<<widthCode(len(b.data)) + len(b.data)
	if b.hasNull {
		size += len(b.nulls)
	}
	return size
}

// AppendTo appends the tuple of the fields appended so far to dst and
// returns the extended slice. b is unchanged and may take more fields.
func (b *Builder) AppendTo(dst []byte) []byte {
	n := len(b.ends)
	if n == 0 {
		return dst
	}
	dst = slices.Grow(dst, b.Size())
	code := widthCode(len(b.data))
	h := byte(formatVersion<<versionShift) | code
	if b.hasNull {
		h |= nullsFlag
	}
	dst = append(dst, h)
	dst = binary.AppendUvarint(dst, uint64(n))
	if b.hasNull {
		dst = append(dst, b.nulls...)
	}
	ends := b.ends[:n-1]
	switch code {
	case 0:
		for _, e := range ends {
			dst = append(dst, byte(e))
		}
	case 1:
		for _, e := range ends {
			dst = binary.LittleEndian.AppendUint16(dst, uint16(e))
		}
	default:
		for _, e := range ends {
			dst = binary.LittleEndian.AppendUint32(dst, e)
		}
	}
	return append(dst, b.data...)
}

// Build returns the tuple of the fields appended so far, in a buffer owned
// by b: it is valid until the next Build or Reset. Copy it, or use
// AppendTo, to keep it longer.
func (b *Builder) Build() Tuple {
	b.out = b.AppendTo(b.out[:0])
	return b.out
}

// uvarintLen is the length of binary.AppendUvarint(nil, u).
func uvarintLen(u uint64) int {
	n := 1
	for ; u >= 0x80; u >>= 7 {
		n++
	}
	return n
}
