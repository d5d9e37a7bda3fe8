package tuple

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Tuple is an encoded row value (see the package doc for the layout). Its
// methods require a valid tuple: one produced by a Builder or accepted by
// Validate.
type Tuple []byte

// Header bits.
const (
	formatVersion = 1
	versionShift  = 5
	widthMask     = 0x03 // offset width code: width is 1 << code
	nullsFlag     = 0x04
	reservedMask  = 0x18
)

// MaxDataLen is the largest total size of the fields of one tuple.
const MaxDataLen = math.MaxUint32

// ErrCorrupt is wrapped by every error of Validate and of the payload
// decoders: the bytes are not what this package writes.
var ErrCorrupt = errors.New("tuple: malformed")

// corrupt returns an error wrapping ErrCorrupt; only error paths call it.
func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// Count returns the number of fields present in t. Fields at indexes from
// Count on read as NULL (see the package doc on adding columns).
func (t Tuple) Count() int {
	if len(t) == 0 {
		return 0
	}
	n, _ := t.count()
	return n
}

// count returns the field count of a non-empty valid t and the offset of the
// byte after it.
func (t Tuple) count() (n, p int) {
	if c := t[1]; c < 0x80 {
		return int(c), 2
	}
	u, k := binary.Uvarint(t[1:])
	return int(u), 1 + k
}

// Field returns field i of t and whether it is NULL. A non-NULL field is a
// view into t (never nil, possibly empty) whose capacity ends with the
// field, valid while t's bytes are; do not write through it. An index
// outside [0, Count()) reads as NULL, so rows written before a column was
// added read that column as NULL.
func (t Tuple) Field(i int) (b []byte, null bool) {
	if len(t) == 0 {
		return nil, true
	}
	n, p := t.count()
	if uint(i) >= uint(n) {
		return nil, true
	}
	h := t[0]
	if h&nullsFlag != 0 {
		if t[p+i>>3]>>(i&7)&1 != 0 {
			return nil, true
		}
		p += (n + 7) >> 3
	}
	w := 1 << (h & widthMask)
	data := p + (n-1)*w
	start, end := 0, len(t)-data
	if i > 0 {
		start = readOffset(t[p+(i-1)*w:], w)
	}
	if i < n-1 {
		end = readOffset(t[p+i*w:], w)
	}
	return t[data+start : data+end : data+end], false
}

// IsNull reports whether field i of t is NULL or absent.
func (t Tuple) IsNull(i int) bool {
	_, null := t.Field(i)
	return null
}

// readOffset reads a little-endian offset of width w from the front of b.
func readOffset(b []byte, w int) int {
	switch w {
	case 1:
		return int(b[0])
	case 2:
		return int(binary.LittleEndian.Uint16(b))
	default:
		return int(binary.LittleEndian.Uint32(b))
	}
}

// widthCode returns the offset width code for field data of n bytes: the
// smallest width that holds n.
func widthCode(n int) byte {
	switch {
	case n <= math.MaxUint8:
		return 0
	case n <= math.MaxUint16:
		return 1
	default:
		return 2
	}
}

// Validate checks that b is a tuple exactly as a Builder writes it (see the
// package doc), so that every method of Tuple(b) is safe and its results
// well defined. It does not look inside field payloads. Its errors wrap
// ErrCorrupt.
func Validate(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	h := b[0]
	if h>>versionShift != formatVersion {
		return corrupt("format version %d, want %d", h>>versionShift, formatVersion)
	}
	if h&reservedMask != 0 {
		return corrupt("reserved header bits set in %#02x", h)
	}
	code := h & widthMask
	if code == 3 {
		return corrupt("offset width code 3")
	}
	w := 1 << code
	u, k := binary.Uvarint(b[1:])
	switch {
	case k <= 0:
		return corrupt("bad field count")
	case k > 1 && b[k] == 0:
		return corrupt("field count not minimal")
	case u == 0:
		return corrupt("zero field count in a non-empty tuple")
	case u > uint64(len(b)):
		return corrupt("field count %d exceeds tuple size %d", u, len(b))
	}
	n, p := int(u), 1+k
	var bitmap []byte
	if h&nullsFlag != 0 {
		bl := (n + 7) >> 3
		if len(b)-p < bl {
			return corrupt("NULL bitmap truncated")
		}
		bitmap = b[p : p+bl]
		p += bl
		any := false
		for _, c := range bitmap {
			any = any || c != 0
		}
		if !any {
			return corrupt("NULL bitmap present without NULLs")
		}
		if n&7 != 0 && bitmap[bl-1]>>(n&7) != 0 {
			return corrupt("NULL bitmap has bits past the last field")
		}
	}
	if (len(b)-p)/w < n-1 {
		return corrupt("offset table truncated")
	}
	data := p + (n-1)*w
	dataLen := len(b) - data
	if dataLen > MaxDataLen {
		return corrupt("field data of %d bytes", dataLen)
	}
	if widthCode(dataLen) != code {
		return corrupt("offset width %d for %d data bytes", w, dataLen)
	}
	prev := 0
	for i := range n {
		end := dataLen
		if i < n-1 {
			end = readOffset(b[p+i*w:], w)
		}
		if end < prev || end > dataLen {
			return corrupt("field %d ends at %d, after %d, in %d data bytes", i, end, prev, dataLen)
		}
		if bitmap != nil && bitmap[i>>3]>>(i&7)&1 != 0 && end != prev {
			return corrupt("NULL field %d is not empty", i)
		}
		prev = end
	}
	return nil
}
