package sortkey

import (
	"bytes"
	"strings"
)

// Byte-string escapes (ASC): 0x00 in the value is written 0x00 0xFF and the
// value ends with 0x00 0x01, so the end sorts before any continuation.
const (
	escByte    byte = 0x00
	escEscaped byte = 0xFF
	escEnd     byte = 0x01
)

// AppendText appends a text value in C collation order (bytewise, which for
// UTF-8 is code point order).
func AppendText(dst, s []byte, o Order) []byte {
	return appendBytes(dst, tagText, s, o)
}

// AppendTextString is AppendText for a string, without converting it.
func AppendTextString(dst []byte, s string, o Order) []byte {
	m := o.mask()
	dst = append(dst, tagText^m)
	n := len(dst)
	for {
		i := strings.IndexByte(s, escByte)
		if i < 0 {
			break
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, escByte, escEscaped)
		s = s[i+1:]
	}
	dst = append(dst, s...)
	dst = append(dst, escByte, escEnd)
	if m != 0 {
		complement(dst[n:])
	}
	return dst
}

// DecodeText decodes a text column from the front of b and appends its
// bytes to dst, returning the extended dst as v. v never aliases b.
func DecodeText(b []byte, o Order, dst []byte) (rest, v []byte, null bool, err error) {
	return decodeBytes(b, tagText, o, dst)
}

// AppendBytea appends a bytea value; byteas compare as unsigned bytes.
func AppendBytea(dst, v []byte, o Order) []byte {
	return appendBytes(dst, tagBytea, v, o)
}

// DecodeBytea decodes a bytea column from the front of b and appends its
// bytes to dst, returning the extended dst as v. v never aliases b.
func DecodeBytea(b []byte, o Order, dst []byte) (rest, v []byte, null bool, err error) {
	return decodeBytes(b, tagBytea, o, dst)
}

// appendBytes appends the header tag and the escaped, terminated s.
func appendBytes(dst []byte, tag byte, s []byte, o Order) []byte {
	m := o.mask()
	dst = append(dst, tag^m)
	n := len(dst)
	for {
		i := bytes.IndexByte(s, escByte)
		if i < 0 {
			break
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, escByte, escEscaped)
		s = s[i+1:]
	}
	dst = append(dst, s...)
	dst = append(dst, escByte, escEnd)
	if m != 0 {
		complement(dst[n:])
	}
	return dst
}

// decodeBytes reads what appendBytes wrote, appending the value to dst.
func decodeBytes(b []byte, tag byte, o Order, dst []byte) (rest, v []byte, null bool, err error) {
	b, null, err = head(b, tag, o)
	if err != nil || null {
		return b, dst, null, err
	}
	m := o.mask()
	esc := escByte ^ m
	for {
		i := bytes.IndexByte(b, esc)
		if i < 0 || i+1 >= len(b) {
			return nil, dst, false, corrupt("%s: missing terminator", tagNames[tag])
		}
		n := len(dst)
		dst = append(dst, b[:i]...)
		if m != 0 {
			complement(dst[n:])
		}
		switch b[i+1] ^ m {
		case escEscaped:
			dst = append(dst, 0)
			b = b[i+2:]
		case escEnd:
			return b[i+2:], dst, false, nil
		default:
			return nil, dst, false, corrupt("%s: bad escape %#02x", tagNames[tag], b[i+1]^m)
		}
	}
}

// skipBytes returns the length of the escaped, terminated payload at the
// front of b (complemented when m is 0xFF).
func skipBytes(b []byte, m byte) (int, error) {
	esc := escByte ^ m
	n := 0
	for {
		i := bytes.IndexByte(b[n:], esc)
		if i < 0 || n+i+1 >= len(b) {
			return 0, corrupt("byte string: missing terminator")
		}
		n += i + 2
		switch b[n-1] ^ m {
		case escEscaped:
		case escEnd:
			return n, nil
		default:
			return 0, corrupt("byte string: bad escape %#02x", b[n-1]^m)
		}
	}
}
