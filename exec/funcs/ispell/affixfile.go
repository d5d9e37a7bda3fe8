package ispell

import (
	"strings"

	"github.com/prollypg/prollypg/exec/types"
)

// importAffixes reads the affix file, PostgreSQL's NIImportAffixes. It
// starts out reading the ispell format:
//
//	compoundwords controlled z
//	prefixes
//	flag *B:
//	    .     >   RE      # comment
//	suffixes
//	flag A:
//	    [^AEIOU]Y > -Y,IES
//
// and on the first line that only the hunspell format has (a "flag" line
// whose flag is not one ASCII character followed by space, ':' or the end;
// or one starting COMPOUNDFLAG, COMPOUNDMIN, PFX or SFX) it starts over
// in that format, unless ispell commands came before, which is an error.
func (b *builder) importAffixes(data string) error {
	var (
		// flag is the current "flag" command's flag; rules before the
		// first one have none, and so apply to every word.
		flag                 string
		flagflags            uint8
		suffixes, prefixes   bool
		oldFormat, newFormat bool
	)
	err := eachLine(data, func(line string) error {
		low := lower(line)
		if low[0] == '#' || low[0] == '\n' {
			return nil
		}
		if strings.HasPrefix(low, "compoundwords") {
			// The flag is the word after the one holding the first "l":
			// "compoundwords controlled z".
			if s := strings.IndexAny(line, "lL"); s >= 0 {
				for s < len(line) && !isSpace(line[s]) {
					s += charLen(line, s)
				}
				for s < len(line) && isSpace(line[s]) {
					s++
				}
				if s < len(line) && types.UTF8SeqLen(line[s]) == 1 {
					if err := b.addCompoundFlag(line[s:], ffCompoundFlag); err != nil {
						return err
					}
				}
				oldFormat = true
				return nil
			}
		}
		switch {
		case strings.HasPrefix(low, "suffixes"):
			suffixes, prefixes, oldFormat = true, false, true
			return nil
		case strings.HasPrefix(low, "prefixes"):
			suffixes, prefixes, oldFormat = false, true, true
			return nil
		case strings.HasPrefix(low, "flag"):
			s := 4
			flagflags = 0
			for s < len(line) && isSpace(line[s]) {
				s++
			}
			if s < len(line) && line[s] == '*' {
				flagflags |= ffCrossProduct
				s++
			} else if s < len(line) && line[s] == '~' {
				flagflags |= ffCompoundOnly
				s++
			}
			if s < len(line) && line[s] == '\\' {
				s++
			}
			if s < len(line) && types.UTF8SeqLen(line[s]) == 1 {
				flag = line[s : s+1]
				s++
				if s == len(line) || line[s] == '#' || line[s] == ':' || isSpace(line[s]) {
					oldFormat = true
					return nil
				}
			}
			newFormat = true
			return errStop
		case strings.HasPrefix(line, "COMPOUNDFLAG"), strings.HasPrefix(line, "COMPOUNDMIN"),
			strings.HasPrefix(line, "PFX"), strings.HasPrefix(line, "SFX"):
			newFormat = true
			return errStop
		}
		if !suffixes && !prefixes {
			return nil
		}
		mask, find, repl, ok, err := parseIspellRule(low)
		if err != nil || !ok {
			return err
		}
		return b.addAffix(flag, flagflags, mask, find, repl, suffixes)
	})
	if err != nil {
		return err
	}
	if newFormat {
		if oldFormat {
			return configError("affix file contains both old-style and new-style commands")
		}
		return b.importHunspell(data)
	}
	// The ispell format has single-character flags only, and PostgreSQL
	// leaves its compound flags in file order, unsorted, though it looks
	// them up by bisection.
	return b.readCompoundFlags()
}

// parseIspellRule reads an ispell rule line (lower-cased), PostgreSQL's
// parse_affentry:
//
//	mask > [-find,]repl
//
// White space is skipped everywhere, inside the mask too; find and repl
// are letters (repl may start with an apostrophe); "#" starts a comment;
// a repl of "-" is empty. ok is false for a line that is not a
// rule (a comment, or no mask, or neither find nor repl).
func parseIspellRule(s string) (mask, find, repl string, ok bool, err error) {
	const (
		waitMask = iota
		inMask
		waitFind
		inFind
		waitRepl
		inRepl
	)
	var m, f, r []byte
	add := func(buf []byte, c string) []byte {
		if len(buf) < bufSize-len(c) {
			buf = append(buf, c...)
		}
		return buf
	}
	syntaxError := configError("syntax error")
	state := waitMask
scan:
	for i := 0; i < len(s); {
		n := charLen(s, i)
		c := s[i : i+n]
		switch state {
		case waitMask:
			if c == "#" {
				return "", "", "", false, nil
			}
			if !isSpace(s[i]) {
				m = add(m, c)
				state = inMask
			}
		case inMask:
			if c == ">" {
				state = waitFind
			} else if !isSpace(s[i]) {
				m = add(m, c)
			}
		case waitFind:
			switch {
			case c == "-":
				state = inFind
			case isAlphaAt(s, i) || c == "'":
				r = add(r, c)
				state = inRepl
			case !isSpace(s[i]):
				return "", "", "", false, syntaxError
			}
		case inFind:
			switch {
			case c == ",":
				state = waitRepl
			case isAlphaAt(s, i):
				f = add(f, c)
			case !isSpace(s[i]):
				return "", "", "", false, syntaxError
			}
		case waitRepl:
			switch {
			case c == "-":
				break scan
			case isAlphaAt(s, i):
				r = add(r, c)
				state = inRepl
			case !isSpace(s[i]):
				return "", "", "", false, syntaxError
			}
		case inRepl:
			switch {
			case c == "#":
				break scan
			case isAlphaAt(s, i):
				r = add(r, c)
			case !isSpace(s[i]):
				return "", "", "", false, syntaxError
			}
		}
		i += n
	}
	ok = len(m) > 0 && (len(f) > 0 || len(r) > 0)
	return string(m), string(f), string(r), ok, nil
}

// addCompoundFlag records a compounding command's flag, the first word of
// s: PostgreSQL's addCompoundAffixFlagValue. The flag is read as a name or
// a number later, by readCompoundFlags, once the FLAG command (which may
// come after it) has fixed the mode.
func (b *builder) addCompoundFlag(s string, value uint32) error {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i == len(s) {
		return configError("syntax error")
	}
	j := i
	for j < len(s) && !isSpace(s[j]) {
		j += charLen(s, j)
	}
	b.cflagNames = append(b.cflagNames, truncField(s[i:j]))
	b.cflags = append(b.cflags, compoundFlag{value: value})
	b.useCompound = true
	return nil
}

// readCompoundFlags reads the compounding commands' flags in the final
// flag mode, in file order, as PostgreSQL 15 does after its first pass
// over a hunspell file.
func (b *builder) readCompoundFlags() error {
	for i, name := range b.cflagNames {
		cf, err := makeCompoundFlag(b.mode, name, b.cflags[i].value)
		if err != nil {
			return err
		}
		b.cflags[i] = cf
	}
	return nil
}

// addAffix records an affix rule, PostgreSQL's NIAddAffix; mask, find and
// repl are lower-cased already.
func (b *builder) addAffix(flag string, flagflags uint8, mask, find, repl string, suffix bool) error {
	key := mask + "\x00s"
	if !suffix {
		key = mask + "\x00p"
	}
	cond, ok := b.conds[key]
	if !ok {
		var err error
		if cond, err = newCondition(mask, suffix); err != nil {
			return err
		}
		b.conds[key] = cond
	}
	if flagflags&(ffCompoundOnly|ffCompoundPermit) != 0 && flagflags&ffCompoundFlag == 0 {
		flagflags |= ffCompoundFlag
	}
	// The strings may be slices of the whole file; cloning them lets the
	// Dictionary keep only what it uses.
	b.affixes = append(b.affixes, affix{
		flag:      strings.Clone(flag),
		flagflags: flagflags & 0x7f,
		suffix:    suffix,
		find:      strings.Clone(find),
		repl:      strings.Clone(repl),
		cond:      cond,
	})
	return nil
}
