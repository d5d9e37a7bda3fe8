package types

// UUID is a uuid value: 16 bytes in network order.
type UUID [16]byte

// ParseUUID is uuid_in: 32 hex digits in any case, optionally in braces, with
// an optional hyphen after any group of four digits.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	i := 0
	braces := false
	if len(s) > 0 && s[0] == '{' {
		braces = true
		i++
	}
	for k := 0; k < 16; k++ {
		if i+1 >= len(s) {
			return u, errSyntax("uuid", s)
		}
		hi, ok1 := hexVal(s[i])
		lo, ok2 := hexVal(s[i+1])
		if !ok1 || !ok2 {
			return u, errSyntax("uuid", s)
		}
		u[k] = hi<<4 | lo
		i += 2
		if i < len(s) && s[i] == '-' && k%2 == 1 && k < 15 {
			i++
		}
	}
	if braces {
		if i >= len(s) || s[i] != '}' {
			return u, errSyntax("uuid", s)
		}
		i++
	}
	if i != len(s) {
		return u, errSyntax("uuid", s)
	}
	return u, nil
}

// AppendUUID appends uuid_out's lower-case 8-4-4-4-12 form.
func AppendUUID(dst []byte, u UUID) []byte {
	for k, c := range u {
		if k == 4 || k == 6 || k == 8 || k == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigits[c>>4], hexDigits[c&15])
	}
	return dst
}

// AppendUUIDBinary appends uuid_send's 16 bytes.
func AppendUUIDBinary(dst []byte, u UUID) []byte { return append(dst, u[:]...) }

// ParseUUIDBinary is uuid_recv: exactly 16 bytes.
func ParseUUIDBinary(b []byte) (UUID, error) {
	var u UUID
	if err := fixedLen(b, 16); err != nil {
		return u, err
	}
	copy(u[:], b)
	return u, nil
}
