package ispell

import (
	"strconv"
	"strings"
)

// flagMode is how the affix flags of a word or a rule are written: the
// affix file's FLAG command chooses it (hunspell format only).
type flagMode uint8

const (
	flagChar flagMode = iota // one character a flag, as in ispell: "GJUS"
	flagLong                 // two characters a flag: "sGsJpU"
	flagNum                  // decimal numbers up to 65536, comma-separated: "302,301"
)

// flagNumMax is the largest FLAG num flag (PostgreSQL's FLAGNUM_MAXSIZE).
const flagNumMax = 1 << 16

// bufSize is C's BUFSIZ: PostgreSQL parses affix file fields into buffers
// of this size and drops the characters that do not fit.
const bufSize = 8192

// Compound and affix properties (PostgreSQL's FF_ bits). The low four are
// also what a dictionary word carries in the word trie.
const (
	ffCompoundOnly     = 0x01 // ONLYINCOMPOUND, ispell's "flag ~X"
	ffCompoundBegin    = 0x02
	ffCompoundMiddle   = 0x04
	ffCompoundLast     = 0x08
	ffCompoundFlag     = ffCompoundBegin | ffCompoundMiddle | ffCompoundLast
	ffCompoundFlagMask = 0x0f
	ffCompoundPermit   = 0x10
	ffCompoundForbid   = 0x20
	ffCrossProduct     = 0x40
)

// truncField keeps of s what PostgreSQL's parsers copy into a bufSize
// buffer: characters in order while each still fits with room for the
// terminating NUL, skipping one that does not (a shorter one after it may
// still fit).
func truncField(s string) string {
	if len(s) < bufSize {
		return s
	}
	b := make([]byte, 0, bufSize-1)
	avail := bufSize
	for i := 0; i < len(s); {
		n := charLen(s, i)
		if n < avail {
			b = append(b, s[i:i+n]...)
			avail -= n
		}
		i += n
	}
	return string(b)
}

// nextFlag reads the flag of set s that starts at i, in mode, as
// PostgreSQL's getNextFlagFromString does; next is where the following
// flag starts. A FLAG num flag comes back in its canonical decimal form.
func nextFlag(mode flagMode, s string, i int) (flag string, next int, err error) {
	switch mode {
	case flagNum:
		v, end, erange := strtol(s[i:])
		if end == 0 || erange {
			return "", 0, configError("invalid affix flag \"%s\"", s[i:])
		}
		n := int32(v) // a C int holds strtol's long
		if n < 0 || n > flagNumMax {
			return "", 0, configError("affix flag \"%s\" is out of range", s[i:])
		}
		p, comma := i+end, false
		for p < len(s) {
			c := s[p]
			switch {
			case isDigit(c):
				if !comma {
					return "", 0, configError("invalid affix flag \"%s\"", s[p:])
				}
				return strconv.Itoa(int(n)), p, nil
			case c == ',':
				if comma {
					return "", 0, configError("invalid affix flag \"%s\"", s[p:])
				}
				comma = true
			case !isSpace(c):
				return "", 0, configError("invalid character in affix flag \"%s\"", s[p:])
			}
			p += charLen(s, p)
		}
		return strconv.Itoa(int(n)), p, nil
	case flagLong:
		p := i
		for steps := 2; steps > 0; steps-- {
			if p == len(s) {
				return "", 0, configError("invalid affix flag \"%s\" with \"long\" flag value", s[i:])
			}
			p += charLen(s, p)
		}
		return s[i:p], p, nil
	}
	p := i + charLen(s, i)
	return s[i:p], p, nil
}

// parsedSet is a flag set (a word's flags, an AF alias, a merge of both)
// read into flags. PostgreSQL reads sets lazily, flag by flag, and fails
// only on reaching a malformed flag; err is that failure, and flags holds
// what came before it, which is all a membership test that stops early
// ever sees.
type parsedSet struct {
	flags []string
	err   error
}

// parseSet reads set s in mode.
func parseSet(mode flagMode, s string) parsedSet {
	var ps parsedSet
	for i := 0; i < len(s); {
		f, next, err := nextFlag(mode, s, i)
		if err != nil {
			ps.err = err
			break
		}
		ps.flags = append(ps.flags, f)
		i = next
	}
	return ps
}

// has is PostgreSQL's IsAffixFlagInUse on a parsed set: whether flag is in
// it, or the error PostgreSQL meets looking.
func (ps *parsedSet) has(flag string) (bool, error) {
	if flag == "" {
		return true, nil
	}
	for _, f := range ps.flags {
		if f == flag {
			return true, nil
		}
	}
	return false, ps.err
}

// compoundFlag ties a flag named in a compounding command (COMPOUNDFLAG,
// ONLYINCOMPOUND, ...) to its FF_ bits. In FLAG num mode the flag is a
// number, otherwise a string.
type compoundFlag struct {
	num   bool
	n     uint32
	s     string
	value uint32
}

// makeCompoundFlag is PostgreSQL's setCompoundAffixFlagValue.
func makeCompoundFlag(mode flagMode, s string, value uint32) (compoundFlag, error) {
	if mode != flagNum {
		return compoundFlag{s: s, value: value}, nil
	}
	v, end, erange := strtol(s)
	if end == 0 || erange {
		return compoundFlag{}, configError("invalid affix flag \"%s\"", s)
	}
	n := int32(v)
	if n < 0 || n > flagNumMax {
		return compoundFlag{}, configError("affix flag \"%s\" is out of range", s)
	}
	return compoundFlag{num: true, n: uint32(n), value: value}, nil
}

// cmpCompoundFlag orders compound flags by name: numerically in FLAG num
// mode, by strcmp otherwise (all flags of a file share the mode).
func cmpCompoundFlag(a, b *compoundFlag) int {
	if !a.num {
		return strings.Compare(a.s, b.s)
	}
	switch {
	case a.n == b.n:
		return 0
	case a.n > b.n:
		return 1
	}
	return -1
}

// compoundTable is the list of compound flags, sorted (except in the
// ispell format, where PostgreSQL leaves it in file order), searched the
// way glibc's bsearch searches, so that of two entries for one flag the
// same one is found, and in an unsorted list the same ones are missed.
type compoundTable []compoundFlag

// lookup is the value of the flag named key, 0 when there is none.
func (t compoundTable) lookup(key *compoundFlag) uint32 {
	l, u := 0, len(t)
	for l < u {
		m := (l + u) / 2
		switch c := cmpCompoundFlag(key, &t[m]); {
		case c < 0:
			u = m
		case c > 0:
			l = m + 1
		default:
			return t[m].value
		}
	}
	return 0
}

// value is PostgreSQL's getCompoundAffixFlagValue: the FF_ bits of all the
// flags of a set, or the error of its first malformed flag. With no
// compounding commands in the affix file nothing is read and nothing fails.
func (t compoundTable) value(mode flagMode, ps *parsedSet) (uint32, error) {
	if len(t) == 0 {
		return 0, nil
	}
	if ps.err != nil {
		return 0, ps.err
	}
	var v uint32
	for _, f := range ps.flags {
		key, err := makeCompoundFlag(mode, f, 0)
		if err != nil {
			return 0, err
		}
		v |= t.lookup(&key)
	}
	return v, nil
}
