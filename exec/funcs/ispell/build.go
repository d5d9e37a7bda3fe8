package ispell

import "strings"

// builder holds a dictionary under construction: what the two files said,
// before the tries are built. It follows PostgreSQL's IspellDict build
// steps one by one (import dictionary, import affixes, sort dictionary,
// sort affixes), so that each error of a bad file comes out of the step,
// and in the order, that PostgreSQL reports it.
type builder struct {
	mode        flagMode
	useAliases  bool
	aliases     int // AF's count plus the empty set at index 0
	useCompound bool
	cflags      compoundTable
	cflagNames  []string // cflags' flags as written, until readCompoundFlags
	spells      []spell
	affixes     []affix
	conds       map[string]condition // compiled masks, by mask and kind
	// sets is PostgreSQL's AffixData: the flag sets words refer to by
	// index. With AF aliases they are the aliases, after an empty set at
	// index 0; without, the distinct flag sets of the dictionary file in
	// strcmp order. A word listed more than once gets the concatenation of
	// its sets appended.
	sets   []string
	parsed map[int]*parsedSet // sets, read lazily by index
	// firstSet and firstBad index the final sets for flagInUse: the first
	// set holding each flag, and the first malformed set.
	firstSet map[string]int
	firstBad int

	words    wordTrie
	compound []compoundAffix
	prefixes affixTrie
	suffixes affixTrie
}

// set is the parsed set at index i.
func (b *builder) set(i int) *parsedSet {
	if ps, ok := b.parsed[i]; ok {
		return ps
	}
	ps := parseSet(b.mode, b.sets[i])
	b.parsed[i] = &ps
	return &ps
}

// compoundFlags is PostgreSQL's makeCompoundFlags: the compound bits a
// word with set i carries.
func (b *builder) compoundFlags(i int) (uint8, error) {
	v, err := b.cflags.value(b.mode, b.set(i))
	return uint8(v & ffCompoundFlagMask), err
}

// mergeSets is PostgreSQL's MergeAffix: the index of a new set holding
// the flags of sets i and j (for a word listed twice).
func (b *builder) mergeSets(i, j int) int {
	si, sj := b.sets[i], b.sets[j]
	switch {
	case si == "":
		return j
	case sj == "":
		return i
	case b.mode == flagNum:
		b.sets = append(b.sets, si+","+sj)
	default:
		b.sets = append(b.sets, si+sj)
	}
	return len(b.sets) - 1
}

// sortDictionary gives every word its set index and builds the word trie,
// PostgreSQL's NISortDictionary. With aliases a word's flags must be an
// alias number; without, the distinct flag sets become the sets, in
// strcmp order.
func (b *builder) sortDictionary() error {
	if b.useAliases {
		for i := range b.spells {
			sp := &b.spells[i]
			if sp.flag == "" {
				sp.set = 0
				continue
			}
			v, end, erange := strtol(sp.flag)
			n := int32(v)
			if end == 0 || erange || n < 0 || int(n) >= len(b.sets) ||
				end < len(sp.flag) && !isDigit(sp.flag[end]) && !isSpace(sp.flag[end]) {
				return configError("invalid affix alias \"%s\"", sp.flag)
			}
			sp.set = int(n)
		}
	} else {
		pgQsort(b.spells, func(x, y *spell) int { return strings.Compare(x.flag, y.flag) })
		var sets []string
		for i := range b.spells {
			sp := &b.spells[i]
			if len(sets) == 0 || sp.flag != sets[len(sets)-1] {
				sets = append(sets, sp.flag)
			}
			sp.set = len(sets) - 1
		}
		b.sets = sets
	}
	pgQsort(b.spells, func(x, y *spell) int { return strings.Compare(x.word, y.word) })
	root, err := b.buildWords(b.spells, 0)
	b.words.root = root
	return err
}

// sortAffixes sorts the rules, collects the compound affixes and builds
// the prefix and suffix tries, PostgreSQL's NISortAffixes.
func (b *builder) sortAffixes() error {
	if len(b.affixes) == 0 {
		b.prefixes.root, b.suffixes.root = -1, -1
		return nil
	}
	pgQsort(b.affixes, cmpAffix)
	firstSuffix := len(b.affixes)
	for i := range b.affixes {
		a := &b.affixes[i]
		if a.suffix && i < firstSuffix {
			firstSuffix = i
		}
		if a.flagflags&ffCompoundFlag == 0 || a.repl == "" {
			continue
		}
		used, err := b.flagInUse(a.flag)
		if err != nil {
			return err
		}
		if !used {
			continue
		}
		// Keep one entry per run of replacements that end alike.
		if n := len(b.compound); n > 0 {
			last := &b.compound[n-1]
			if last.suffix == a.suffix && strbncmp(last.affix, a.repl, len(last.affix)) == 0 {
				continue
			}
		}
		b.compound = append(b.compound, compoundAffix{affix: a.repl, suffix: a.suffix})
	}
	b.prefixes.build(b.affixes, 0, firstSuffix, false)
	b.suffixes.build(b.affixes, firstSuffix, len(b.affixes), true)
	return nil
}

// flagInUse is PostgreSQL's isAffixInUse: whether some set holds flag,
// sets being read in index order until one does (or has a malformed flag
// where the reading fails). PostgreSQL reads them all again for each
// rule; here the first set to hold each flag, and the first malformed
// set, are found once.
func (b *builder) flagInUse(flag string) (bool, error) {
	if flag == "" {
		return len(b.sets) > 0, nil
	}
	if b.firstSet == nil {
		b.firstSet = make(map[string]int)
		b.firstBad = len(b.sets)
		for i := range b.sets {
			ps := b.set(i)
			for _, f := range ps.flags {
				if _, ok := b.firstSet[f]; !ok {
					b.firstSet[f] = i
				}
			}
			if ps.err != nil && b.firstBad == len(b.sets) {
				b.firstBad = i
			}
		}
	}
	i, ok := b.firstSet[flag]
	switch {
	case ok && i <= b.firstBad:
		return true, nil
	case b.firstBad < len(b.sets):
		return false, b.set(b.firstBad).err
	}
	return false, nil
}

// cmpAffix orders rules as PostgreSQL's cmpaffix: prefixes first, then by
// replacement, read forwards for prefixes and backwards for suffixes.
func cmpAffix(x, y *affix) int {
	switch {
	case x.suffix == y.suffix:
	case y.suffix:
		return -1
	default:
		return 1
	}
	if !x.suffix {
		return strings.Compare(x.repl, y.repl)
	}
	return strbcmp(x.repl, y.repl)
}

// strbcmp compares a and b from their ends; of two where one ends the
// other, the shorter is less.
func strbcmp(a, b string) int {
	i, j := len(a)-1, len(b)-1
	for i >= 0 && j >= 0 {
		switch {
		case a[i] < b[j]:
			return -1
		case a[i] > b[j]:
			return 1
		}
		i--
		j--
	}
	switch {
	case i < j:
		return -1
	case i > j:
		return 1
	}
	return 0
}

// strbncmp is strbcmp on the last n bytes at most.
func strbncmp(a, b string, n int) int {
	i, j := len(a)-1, len(b)-1
	for i >= 0 && j >= 0 && n > 0 {
		switch {
		case a[i] < b[j]:
			return -1
		case a[i] > b[j]:
			return 1
		}
		i--
		j--
		n--
	}
	switch {
	case n == 0:
		return 0
	case i < j:
		return -1
	case i > j:
		return 1
	}
	return 0
}
