package types

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"unicode/utf8"
)

// hstore, contrib's set of key/value pairs of text (CREATE EXTENSION
// hstore finds it built in): its representation, its text and binary
// I/O as hstore_io.c reads and writes them, and hstore_cmp's order.
//
// An Hstore holds its pairs as PostgreSQL stores them: ordered by the
// length of the key, then the key's bytes, without a repeated key (the
// first of the pairs given with one key is kept). Text output is
// `"key"=>"value"` pairs joined by ", ", a NULL value written NULL, `"`
// and `\` escaped with a backslash; an empty hstore prints as the empty
// string. The binary form (hstore_send) is
//
//	int32 npairs | per pair: int32 keylen | key | int32 vallen (-1 NULL) | value
//
// Syntax errors are PostgreSQL 15's, of SQLSTATE XX000 (hstore_in
// reports them with elog).

// HstorePair is one key and its value; Null marks a NULL value.
type HstorePair struct {
	Key, Val string
	Null     bool
}

// Hstore is an hstore value: canonical pairs (see NewHstore).
type Hstore []HstorePair

// compareHstoreKeys orders keys as hstore stores them: shorter first,
// then bytewise.
func compareHstoreKeys(a, b string) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// NewHstore makes the hstore of pairs, in any order: sorted, and of a
// repeated key the first pair kept (hstoreUniquePairs). It reuses pairs'
// storage.
func NewHstore(pairs []HstorePair) Hstore {
	slices.SortStableFunc(pairs, func(a, b HstorePair) int { return compareHstoreKeys(a.Key, b.Key) })
	return Hstore(slices.CompactFunc(pairs, func(a, b HstorePair) bool { return a.Key == b.Key }))
}

// Find returns the index of key in h, or -1 (hstoreFindKey).
func (h Hstore) Find(key string) int {
	i, ok := slices.BinarySearchFunc(h, key, func(p HstorePair, k string) int { return compareHstoreKeys(p.Key, k) })
	if !ok {
		return -1
	}
	return i
}

// hstoreParser is hstore_in's parser: a state machine over the bytes of
// the input, which error positions count.
type hstoreParser struct {
	in  string
	pos int
}

func (p *hstoreParser) errNear() error {
	_, n := utf8.DecodeRuneInString(p.in[p.pos:])
	return newError(CodeInternalError, "Syntax error near \"%s\" at position %d", p.in[p.pos:p.pos+n], p.pos)
}

func errHstoreEnd() error { return newError(CodeInternalError, "Unexpected end of string") }

func isHstoreSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// value reads a key (ignoreEq false) or a value (true), get_val: a
// quoted string, or a bare word ended by a space, the end, and '=' for a
// key or ',' for a value; a backslash escapes the next byte. ok is false
// at the end of the input before any word; quoted reports a quoted one.
func (p *hstoreParser) value(ignoreEq bool) (word string, quoted, ok bool, err error) {
	const (
		waitVal = iota
		inVal
		inEscVal
		waitEscIn
		waitEscEscIn
	)
	var b []byte
	st := waitVal
	for ; ; p.pos++ {
		var c byte
		if p.pos < len(p.in) {
			c = p.in[p.pos]
		}
		switch st {
		case waitVal:
			switch {
			case c == '"':
				quoted, st = true, inEscVal
			case c == 0:
				return "", false, false, nil
			case c == '=' && !ignoreEq:
				return "", false, false, p.errNear()
			case c == '\\':
				st = waitEscIn
			case !isHstoreSpace(c):
				b = append(b, c)
				st = inVal
			}
		case inVal:
			switch {
			case c == '\\':
				st = waitEscIn
			case c == '=' && !ignoreEq, c == ',' && ignoreEq, c == 0:
				p.pos--
				return string(b), quoted, true, nil
			case isHstoreSpace(c):
				return string(b), quoted, true, nil
			default:
				b = append(b, c)
			}
		case inEscVal:
			switch c {
			case '\\':
				st = waitEscEscIn
			case '"':
				return string(b), quoted, true, nil
			case 0:
				return "", false, false, errHstoreEnd()
			default:
				b = append(b, c)
			}
		case waitEscIn, waitEscEscIn:
			if c == 0 {
				return "", false, false, errHstoreEnd()
			}
			b = append(b, c)
			if st == waitEscIn {
				st = inVal
			} else {
				st = inEscVal
			}
		}
	}
}

// ParseHstore reads hstore text input (hstore_in).
func ParseHstore(s string) (Hstore, error) {
	if i := bytes.IndexByte([]byte(s), 0); i >= 0 {
		s = s[:i] // a C string ends at its NUL
	}
	p := &hstoreParser{in: s}
	var pairs []HstorePair
	const (
		wKey = iota
		wVal
		wEq
		wGt
		wDel
	)
	st := wKey
	for ; ; p.pos++ {
		var c byte
		if p.pos < len(p.in) {
			c = p.in[p.pos]
		}
		switch st {
		case wKey:
			key, _, ok, err := p.value(false)
			if err != nil {
				return nil, err
			}
			if !ok {
				return NewHstore(pairs), nil
			}
			pairs = append(pairs, HstorePair{Key: key})
			st = wEq
		case wEq:
			switch {
			case c == '=':
				st = wGt
			case c == 0:
				return nil, errHstoreEnd()
			case !isHstoreSpace(c):
				return nil, p.errNear()
			}
		case wGt:
			switch c {
			case '>':
				st = wVal
			case 0:
				return nil, errHstoreEnd()
			default:
				return nil, p.errNear()
			}
		case wVal:
			val, quoted, ok, err := p.value(true)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, errHstoreEnd()
			}
			last := &pairs[len(pairs)-1]
			last.Val = val
			if !quoted && len(val) == 4 && (val[0]|0x20) == 'n' && (val[1]|0x20) == 'u' && (val[2]|0x20) == 'l' && (val[3]|0x20) == 'l' {
				last.Val, last.Null = "", true
			}
			st = wDel
		case wDel:
			switch {
			case c == ',':
				st = wKey
			case c == 0:
				return NewHstore(pairs), nil
			case !isHstoreSpace(c):
				return nil, p.errNear()
			}
		}
	}
}

// appendHstoreQuoted appends s in double quotes, `"` and `\` escaped.
func appendHstoreQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, s[i])
	}
	return append(dst, '"')
}

// AppendHstore appends the text form of h (hstore_out).
func AppendHstore(dst []byte, h Hstore) []byte {
	for i, p := range h {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = appendHstoreQuoted(dst, p.Key)
		dst = append(dst, "=>"...)
		if p.Null {
			dst = append(dst, "NULL"...)
		} else {
			dst = appendHstoreQuoted(dst, p.Val)
		}
	}
	return dst
}

// AppendHstoreBinary appends hstore_send's form of h.
func AppendHstoreBinary(dst []byte, h Hstore) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(h)))
	for _, p := range h {
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(p.Key)))
		dst = append(dst, p.Key...)
		if p.Null {
			dst = binary.BigEndian.AppendUint32(dst, 0xFFFFFFFF)
			continue
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(p.Val)))
		dst = append(dst, p.Val...)
	}
	return dst
}

// ParseHstoreBinary reads hstore_recv's form, in any order of keys: the
// pairs are put in order and a repeated key's first kept.
func ParseHstoreBinary(b []byte) (Hstore, error) {
	next := func() (int32, bool) {
		if len(b) < 4 {
			return 0, false
		}
		v := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		return v, true
	}
	text := func(n int32) (string, error) {
		if int(n) > len(b) {
			return "", errInsufficientData
		}
		s := b[:n]
		b = b[n:]
		if err := ValidateUTF8(s); err != nil {
			return "", err
		}
		return string(s), nil
	}
	n, ok := next()
	if !ok {
		return nil, errInsufficientData
	}
	// PostgreSQL's limit is MaxAllocSize over the size of its Pairs
	// struct on a 64-bit machine (40 bytes).
	const maxPairs = (1<<30 - 1) / 40
	if n < 0 || n > maxPairs {
		return nil, newError(CodeProgramLimitExceeded, "number of pairs (%d) exceeds the maximum allowed (%d)", n, maxPairs)
	}
	// Each pair takes 8 bytes at least: allocate no more than the
	// message can hold, whatever count it claims.
	pairs := make([]HstorePair, min(int(n), len(b)/8+1))[:0]
	for range n {
		pairs = append(pairs, HstorePair{})
		i := len(pairs) - 1
		kl, ok := next()
		if !ok {
			return nil, errInsufficientData
		}
		if kl < 0 {
			return nil, newError(CodeNullValueNotAllowed, "null value not allowed for hstore key")
		}
		var err error
		if pairs[i].Key, err = text(kl); err != nil {
			return nil, err
		}
		vl, ok := next()
		if !ok {
			return nil, errInsufficientData
		}
		if vl < 0 {
			pairs[i].Null = true
			continue
		}
		if pairs[i].Val, err = text(vl); err != nil {
			return nil, err
		}
	}
	if len(b) > 0 {
		return nil, errExtraData
	}
	return NewHstore(pairs), nil
}

// CompareHstore orders hstores as hstore_cmp: an empty one first; else
// by the bytes of their keys and values laid end to end, then that
// length, the number of pairs, and the first pair whose key or value
// ends elsewhere (sooner first) or is NULL in one only (NULL last).
func CompareHstore(a, b Hstore) int {
	switch {
	case len(a) == 0 || len(b) == 0:
		return cmp.Compare(len(a), len(b))
	}
	data := func(h Hstore) []byte {
		var out []byte
		for _, p := range h {
			out = append(out, p.Key...)
			out = append(out, p.Val...)
		}
		return out
	}
	da, db := data(a), data(b)
	if c := bytes.Compare(da[:min(len(da), len(db))], db[:min(len(da), len(db))]); c != 0 {
		return c
	}
	if c := cmp.Compare(len(da), len(db)); c != 0 {
		return c
	}
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	endA, endB := 0, 0
	for i := range a {
		// The key's entry, then the value's.
		endA, endB = endA+len(a[i].Key), endB+len(b[i].Key)
		if endA != endB {
			return cmp.Compare(endA, endB)
		}
		endA, endB = endA+len(a[i].Val), endB+len(b[i].Val)
		switch {
		case endA != endB:
			return cmp.Compare(endA, endB)
		case a[i].Null != b[i].Null && a[i].Null:
			return 1
		case a[i].Null != b[i].Null:
			return -1
		}
	}
	return 0
}
