package types

import "fmt"

const hexDigits = "0123456789abcdef"

// AppendBytea appends byteaout's hex format (bytea_output = hex): `\x` and two
// lower-case hex digits per byte.
func AppendBytea(dst []byte, v []byte) []byte {
	dst = append(dst, '\\', 'x')
	for _, c := range v {
		dst = append(dst, hexDigits[c>>4], hexDigits[c&15])
	}
	return dst
}

// AppendByteaEscape appends byteaout's escape format (bytea_output =
// escape): backslash doubled, bytes outside 0x20..0x7e as `\ooo`.
func AppendByteaEscape(dst []byte, v []byte) []byte {
	for _, c := range v {
		switch {
		case c == '\\':
			dst = append(dst, '\\', '\\')
		case c < 0x20 || c > 0x7e:
			dst = append(dst, '\\', '0'+c>>6, '0'+(c>>3)&7, '0'+c&7)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// ParseBytea is byteain: `\x` followed by hex digit pairs (whitespace allowed
// between pairs), or the escape format where `\\` is a backslash and `\ooo`
// an octal byte. The result is appended to dst.
func ParseBytea(dst []byte, s string) ([]byte, error) {
	if len(s) >= 2 && s[0] == '\\' && s[1] == 'x' {
		for i := 2; i < len(s); {
			c := s[i]
			if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
				i++
				continue
			}
			hi, ok := hexVal(c)
			if !ok {
				return nil, errHexDigit(s[i:])
			}
			i++
			if i >= len(s) {
				return nil, &Error{Code: CodeInvalidParameterValue, Message: "invalid hexadecimal data: odd number of digits"}
			}
			lo, ok := hexVal(s[i])
			if !ok {
				return nil, errHexDigit(s[i:])
			}
			i++
			dst = append(dst, hi<<4|lo)
		}
		return dst, nil
	}
	for i := 0; i < len(s); {
		switch {
		case s[i] != '\\':
			dst = append(dst, s[i])
			i++
		case i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]):
			dst = append(dst, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 4
		case i+1 < len(s) && s[i+1] == '\\':
			dst = append(dst, '\\')
			i += 2
		default:
			return nil, &Error{Code: CodeInvalidTextRepresentation, Message: "invalid input syntax for type bytea"}
		}
	}
	return dst, nil
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func errHexDigit(s string) error {
	n := 1
	if s[0] >= 0x80 {
		n = UTF8SeqLen(s[0])
		if n > len(s) {
			n = len(s)
		}
	}
	return &Error{Code: CodeInvalidParameterValue, Message: fmt.Sprintf("invalid hexadecimal digit: \"%s\"", s[:n])}
}
