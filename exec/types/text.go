package types

import (
	"fmt"
	"unicode/utf8"
)

// NameDataLen is PostgreSQL's NAMEDATALEN: a name holds at most 63 bytes.
const NameDataLen = 64

// ValidateUTF8 checks text received from a client the way PostgreSQL's
// pg_verify_mbstr does for a UTF8 database: invalid sequences and NUL bytes
// are rejected with 22021 `invalid byte sequence for encoding "UTF8": 0x..`.
func ValidateUTF8(b []byte) error {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == 0 {
				return errEncoding(b[i:], 1)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return errEncoding(b[i:], UTF8SeqLen(c))
		}
		i += n
	}
	return nil
}

// UTF8SeqLen is the length of the UTF-8 sequence whose first byte is c,
// as PostgreSQL's pg_utf_mblen reads it: 1 for ASCII and for a byte that
// starts no sequence.
func UTF8SeqLen(c byte) int {
	switch {
	case c&0xe0 == 0xc0:
		return 2
	case c&0xf0 == 0xe0:
		return 3
	case c&0xf8 == 0xf0:
		return 4
	}
	return 1
}

func errEncoding(b []byte, n int) error {
	if n > len(b) {
		n = len(b)
	}
	msg := `invalid byte sequence for encoding "UTF8":`
	for _, c := range b[:n] {
		msg += fmt.Sprintf(" 0x%02x", c)
	}
	return &Error{Code: "22021", Message: msg}
}

// clipChars returns the byte length of the first n characters of s (all of s
// if it has fewer).
func clipChars(s string, n int) int {
	i := 0
	for c := 0; c < n && i < len(s); c++ {
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			_, sz := utf8.DecodeRuneInString(s[i:])
			i += sz
		}
	}
	return i
}

// ApplyVarcharTypmod is varchar_input and the varchar(n) length coercion:
// text longer than n characters is an error (22001) unless the excess is all
// spaces, which are cut; an explicit cast (explicit=true) cuts silently.
// typmod -1 leaves s alone.
func ApplyVarcharTypmod(s string, typmod int32, explicit bool) (string, error) {
	maxlen := CharTypmodLen(typmod)
	if maxlen < 0 || len(s) <= int(maxlen) {
		return s, nil
	}
	cut := clipChars(s, int(maxlen))
	if !explicit {
		for i := cut; i < len(s); i++ {
			if s[i] != ' ' {
				return "", &Error{Code: CodeStringDataRightTrunc,
					Message: fmt.Sprintf("value too long for type character varying(%d)", maxlen)}
			}
		}
	}
	return s[:cut], nil
}

// ApplyBpcharTypmod is bpchar_input and the char(n) length coercion: text is
// padded with spaces to n characters; longer text is an error (22001) unless
// the excess is all spaces (explicit casts cut silently). typmod -1 leaves s
// alone.
func ApplyBpcharTypmod(s string, typmod int32, explicit bool) (string, error) {
	maxlen := int(CharTypmodLen(typmod))
	if maxlen < 0 {
		return s, nil
	}
	chars := utf8.RuneCountInString(s)
	if chars > maxlen {
		cut := clipChars(s, maxlen)
		if !explicit {
			for i := cut; i < len(s); i++ {
				if s[i] != ' ' {
					return "", &Error{Code: CodeStringDataRightTrunc,
						Message: fmt.Sprintf("value too long for type character(%d)", maxlen)}
				}
			}
		}
		return s[:cut], nil
	}
	if chars == maxlen {
		return s, nil
	}
	b := make([]byte, len(s)+maxlen-chars)
	copy(b, s)
	for i := len(s); i < len(b); i++ {
		b[i] = ' '
	}
	return string(b), nil
}

// ParseName is namein: input longer than 63 bytes is cut at a character
// boundary.
func ParseName(s string) string {
	if len(s) < NameDataLen {
		return s
	}
	n := 0
	for n < len(s) {
		sz := 1
		if s[n] >= utf8.RuneSelf {
			_, sz = utf8.DecodeRuneInString(s[n:])
		}
		if n+sz > NameDataLen-1 {
			break
		}
		n += sz
	}
	return s[:n]
}

// ParseNameBinary is namerecv: names of 64 bytes or more are an error.
func ParseNameBinary(b []byte) (string, error) {
	if err := ValidateUTF8(b); err != nil {
		return "", err
	}
	if len(b) >= NameDataLen {
		return "", &Error{Code: "42622", Message: "identifier too long",
			Detail: fmt.Sprintf("Identifier must be less than %d characters.", NameDataLen)}
	}
	return string(b), nil
}

// ParseTextBinary is textrecv (and varcharrecv/bpcharrecv before their
// typmod): the bytes must be valid UTF-8 without NUL.
func ParseTextBinary(b []byte) (string, error) {
	if err := ValidateUTF8(b); err != nil {
		return "", err
	}
	return string(b), nil
}

// ParseChar is charin for the one-byte "char" type: the first byte of s, or
// the byte written as a three-digit octal escape `\ooo`; "" gives 0.
func ParseChar(s string) byte {
	if len(s) == 4 && s[0] == '\\' && isOctal(s[1]) && isOctal(s[2]) && isOctal(s[3]) {
		return (s[1]-'0')<<6 + (s[2]-'0')<<3 + (s[3] - '0')
	}
	if s == "" {
		return 0
	}
	return s[0]
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// AppendChar is charout: bytes with the high bit set print as `\ooo`, 0
// prints as nothing.
func AppendChar(dst []byte, c byte) []byte {
	if c >= 0x80 {
		return append(dst, '\\', '0'+c>>6, '0'+(c>>3)&7, '0'+c&7)
	}
	if c == 0 {
		return dst
	}
	return append(dst, c)
}

// ParseCharBinary is charrecv: exactly one byte.
func ParseCharBinary(b []byte) (byte, error) {
	if err := fixedLen(b, 1); err != nil {
		return 0, err
	}
	return b[0], nil
}
