package ispell

import (
	"strings"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// importHunspell reads an affix file in the hunspell (MySpell) format,
// PostgreSQL's NIImportOOAffixes, in two passes. The first reads the FLAG
// command and the compounding commands (COMPOUNDFLAG, COMPOUNDBEGIN,
// COMPOUNDMIDDLE, COMPOUNDLAST or COMPOUNDEND, ONLYINCOMPOUND,
// COMPOUNDPERMITFLAG, COMPOUNDFORBIDFLAG), whose flags are then read in
// the mode the last FLAG command chose; the second the AF aliases and the
// rules:
//
//	SFX A Y 1              header: flag, cross product, count
//	SFX A y ies [^aeiou]y  rule: flag, strip, add[/flags], condition
//
// Every other command (SET, TRY, REP, COMPOUNDMIN, ...) is ignored.
func (b *builder) importHunspell(data string) error {
	b.useCompound = false
	b.useAliases = false
	b.mode = flagChar
	commands := []struct {
		name  string
		value uint32
	}{
		{"COMPOUNDFLAG", ffCompoundFlag},
		{"COMPOUNDBEGIN", ffCompoundBegin},
		{"COMPOUNDLAST", ffCompoundLast},
		{"COMPOUNDEND", ffCompoundLast},
		{"COMPOUNDMIDDLE", ffCompoundMiddle},
		{"ONLYINCOMPOUND", ffCompoundOnly},
		{"COMPOUNDPERMITFLAG", ffCompoundPermit},
		{"COMPOUNDFORBIDFLAG", ffCompoundForbid},
	}
	err := eachLine(data, func(line string) error {
		if isSpace(line[0]) || line[0] == '#' {
			return nil
		}
		for _, c := range commands {
			if strings.HasPrefix(line, c.name) {
				return b.addCompoundFlag(line[len(c.name):], c.value)
			}
		}
		if !strings.HasPrefix(line, "FLAG") {
			return nil
		}
		s := line[4:]
		for s != "" && isSpace(s[0]) {
			s = s[1:]
		}
		switch {
		case s == "":
		case strings.HasPrefix(s, "long"):
			b.mode = flagLong
		case strings.HasPrefix(s, "num"):
			b.mode = flagNum
		case !strings.HasPrefix(s, "default"):
			return configError("Ispell dictionary supports only \"default\", \"long\", and \"num\" flag values")
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := b.readCompoundFlags(); err != nil {
		return err
	}
	pgQsort(b.cflags, cmpCompoundFlag)

	var (
		isSuffix  bool
		flagflags uint8
	)
	err = eachLine(data, func(line string) error {
		if isSpace(line[0]) || line[0] == '#' {
			return nil
		}
		f, n := parseHunspellRule(line)
		typ := lower(f[0])
		if strings.HasPrefix(typ, "af") {
			if !b.useAliases {
				b.useAliases = true
				count := atoi(f[1])
				if count <= 0 {
					return configError("invalid number of flag vector aliases")
				}
				// PostgreSQL allocates the alias array at once; one too big
				// for palloc fails as it does there. Here it grows as the
				// aliases come.
				count++
				if size := uint64(int64(count)) * 8; size > maxAllocSize {
					return pgerr.New(pgerr.InternalError, "invalid memory alloc request size %d", size)
				}
				b.aliases = int(count)
				b.sets = []string{""}
				return nil
			}
			if len(b.sets) >= b.aliases {
				return configError("number of aliases exceeds specified number %d", b.aliases-1)
			}
			b.sets = append(b.sets, f[1])
			return nil
		}
		if n < 4 || !strings.HasPrefix(typ, "sfx") && !strings.HasPrefix(typ, "pfx") {
			return nil
		}
		flag := f[1]
		if flag == "" || len(flag) > 1 && b.mode == flagChar || len(flag) > 2 && b.mode == flagLong {
			return nil
		}
		if n == 4 {
			isSuffix = strings.HasPrefix(typ, "sfx")
			flagflags = 0
			if f[2][0] == 'y' || f[2][0] == 'Y' {
				flagflags = ffCrossProduct
			}
			return nil
		}
		find, repl, mask := f[2], f[3], f[4]
		var extra uint32
		if i := strings.IndexByte(repl, '/'); i >= 0 {
			set, err := b.aliasSet(repl[i+1:])
			if err != nil {
				return err
			}
			ps := parseSet(b.mode, set)
			v, err := b.cflags.value(b.mode, &ps)
			if err != nil {
				return err
			}
			extra = v
		}
		lrepl := lower(repl)
		if i := strings.IndexByte(lrepl, '/'); i >= 0 {
			lrepl = lrepl[:i]
		}
		lfind := lower(find)
		if find[0] == '0' {
			lfind = ""
		}
		if repl[0] == '0' {
			lrepl = ""
		}
		return b.addAffix(flag, flagflags|uint8(extra), lower(mask), lfind, lrepl, isSuffix)
	})
	if err == nil && b.useAliases && len(b.sets) != b.aliases {
		err = configError("number of aliases is less than specified number %d", b.aliases-1)
	}
	return err
}

// maxAllocSize is PostgreSQL's MaxAllocSize, the largest palloc.
const maxAllocSize = 0x3fffffff

// aliasSet is the flag set a rule's "/flags" names, PostgreSQL's
// getAffixFlagSet: with AF aliases a number, which must be an alias
// given above (quirk kept: one past the last alias the AF count promises,
// or 0 or less, is read as no flags).
func (b *builder) aliasSet(s string) (string, error) {
	if !b.useAliases || s == "" {
		return s, nil
	}
	v, end, erange := strtol(s)
	if end == 0 || erange {
		return "", configError("invalid affix alias \"%s\"", s)
	}
	i := int(int32(v))
	switch {
	case i > 0 && i < b.aliases:
		if i >= len(b.sets) {
			return "", configError("invalid affix alias \"%s\"", s)
		}
		return b.sets[i], nil
	case i > b.aliases:
		return "", configError("invalid affix alias \"%s\"", s)
	}
	return "", nil
}

// parseHunspellRule splits a line into its first five fields (type, flag,
// find, repl, mask) the way PostgreSQL's parse_ooaffentry does, and says
// how many it found. A field starting with "#" ends the line, so a
// comment after four fields makes a rule line look like a header.
func parseHunspellRule(line string) (f [5]string, n int) {
	i := 0
	for i < len(line) && n < len(f) {
		field, next, ok := nextField(line, i)
		if !ok {
			break
		}
		f[n] = field
		n++
		i = next
	}
	return f, n
}

// nextField reads the field at or after s[i], PostgreSQL's get_nextfield.
func nextField(s string, i int) (field string, next int, ok bool) {
	start := -1
	for i < len(s) {
		if start < 0 {
			if s[i] == '#' {
				return "", i, false
			}
			if !isSpace(s[i]) {
				start = i
			}
		} else if isSpace(s[i]) {
			return truncField(s[start:i]), i, true
		}
		i += charLen(s, i)
	}
	if start < 0 {
		return "", i, false
	}
	return truncField(s[start:]), i, true
}
