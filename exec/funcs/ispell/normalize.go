package ispell

// maxNormLen is the longest word, in bytes, PostgreSQL looks for normal
// forms of; affixed forms are built in buffers of twice that.
const maxNormLen = 256

// lexer is the state of one Lexize call: buffers for affixed forms, and
// whether PostgreSQL would have raised an error on the way.
type lexer struct {
	d *Dictionary
	// failed records that PostgreSQL would have raised an error: a
	// rule's condition met a character cut short (see matchRegis), or a
	// flag set read had a malformed flag (see flagSet).
	failed            bool
	forms             []Lexeme // the result being gathered
	newWord, newWord2 [2 * maxNormLen]byte
}

// normalize appends to out the normal forms of word, PostgreSQL's
// NormalizeSubWord: the word itself if the dictionary has it; then what
// each prefix rule that fits gives; then what each suffix rule gives, and
// what each prefix rule gives on that. A form equal to the one added just
// before is skipped, and at most maxNorm-1 are added. flag is 0 for a word
// standing alone, else the compound position (ffCompoundBegin, ...) of a
// part of a compound word, which rules and words must allow. Variants are
// left 0.
func (lx *lexer) normalize(out []Lexeme, word string, flag int) []Lexeme {
	d := lx.d
	if len(word) > maxNormLen {
		return out
	}
	start := len(out)
	add := func(form []byte) {
		if n := len(out) - start; n < maxNorm-1 && (n == 0 || out[len(out)-1].Word != string(form)) {
			out = append(out, Lexeme{Word: string(form)})
		}
	}
	if findWord(lx, word, 0, flag) {
		out = append(out, Lexeme{Word: word})
	}

	pw := affixWalk{t: &d.prefixes}
	for rules := nextRules(&pw, word, false); rules != nil; rules = nextRules(&pw, word, false) {
		for _, r := range rules {
			a := &d.affixes[r]
			if w, ok := checkAffix(lx, word, a, flag, &lx.newWord, nil); ok && findWord(lx, w, a.flagID, flag) {
				add(w)
			}
		}
	}

	sw := affixWalk{t: &d.suffixes}
	for rules := nextRules(&sw, word, true); rules != nil; rules = nextRules(&sw, word, true) {
		baseLen := 0
		for _, r := range rules {
			sa := &d.affixes[r]
			w, ok := checkAffix(lx, word, sa, flag, &lx.newWord, &baseLen)
			if !ok {
				continue
			}
			if findWord(lx, w, sa.flagID, flag) {
				add(w)
			}
			// The suffixed form may carry a prefix too.
			pw := affixWalk{t: &d.prefixes}
			for prules := nextRules(&pw, w, false); prules != nil; prules = nextRules(&pw, w, false) {
				for _, pr := range prules {
					pa := &d.affixes[pr]
					w2, ok := checkAffix(lx, w, pa, flag, &lx.newWord2, &baseLen)
					if !ok {
						continue
					}
					// When both rules allow cross products, PostgreSQL asks
					// the word for no flag at all, not even the suffix's.
					fid := pa.flagID
					if pa.flagflags&sa.flagflags&ffCrossProduct != 0 {
						fid = 0
					}
					if findWord(lx, w2, fid, flag) {
						add(w2)
					}
				}
			}
		}
	}
	return out
}

// checkAffix applies rule a to word, PostgreSQL's CheckAffix: the result
// in buf, or false when the rule does not apply, because of its compound
// properties, its condition or its length (and lx.failed is set where
// PostgreSQL fails checking the condition). For a suffix *baseLen gets the
// length of the part of word the rule keeps; for a prefix applied after a
// suffix, a prefix that would eat all of that part does not apply.
func checkAffix[S ~string | ~[]byte](lx *lexer, word S, a *affix, flag int, buf *[2 * maxNormLen]byte, baseLen *int) ([]byte, bool) {
	switch {
	case flag == 0:
		if a.flagflags&ffCompoundOnly != 0 {
			return nil, false
		}
	case flag&ffCompoundBegin != 0:
		if a.flagflags&ffCompoundForbid != 0 || a.flagflags&ffCompoundBegin == 0 && a.suffix {
			return nil, false
		}
	case flag&ffCompoundMiddle != 0:
		if a.flagflags&ffCompoundMiddle == 0 || a.flagflags&ffCompoundForbid != 0 {
			return nil, false
		}
	case flag&ffCompoundLast != 0:
		if a.flagflags&ffCompoundForbid != 0 || a.flagflags&ffCompoundLast == 0 && !a.suffix {
			return nil, false
		}
	}
	if len(word) < len(a.repl) {
		return nil, false
	}
	keep := len(word) - len(a.repl)
	if keep+len(a.find) >= len(buf) {
		return nil, false
	}
	var n int
	if a.suffix {
		n = copy(buf[:], word[:keep])
		n += copy(buf[n:], a.find)
		if baseLen != nil {
			*baseLen = keep
		}
	} else {
		if baseLen != nil && *baseLen+len(a.find) <= len(a.repl) {
			return nil, false
		}
		n = copy(buf[:], a.find)
		n += copy(buf[n:], word[len(a.repl):])
	}
	w := buf[:n]
	match, valid := a.cond.match(w, a.suffix)
	if !valid {
		lx.failed = true
	}
	return w, match
}

// findWord reports whether the dictionary has word, allowed in compound
// position flag (0: alone) and carrying flag flagID (0: any), PostgreSQL's
// FindWord.
func findWord[S ~string | ~[]byte](lx *lexer, word S, flagID int32, flag int) bool {
	flag &= ffCompoundFlagMask
	d := lx.d
	t := &d.words
	n := t.root
	for i := 0; n >= 0 && i < len(word); i++ {
		e := t.find(n, word[i])
		if e == nil {
			return false
		}
		if i == len(word)-1 && e.isWord {
			if flag == 0 {
				if e.compound&ffCompoundOnly != 0 {
					return false
				}
			} else if flag&int(e.compound) == 0 {
				return false
			}
			if lx.hasFlag(e.set, flagID) {
				return true
			}
		}
		n = e.child
	}
	return false
}

// hasFlag reports whether flag set s holds flag id, PostgreSQL's
// IsAffixFlagInUse.
func (lx *lexer) hasFlag(s int32, id int32) bool {
	if id == 0 {
		return true
	}
	fs := &lx.d.sets[s]
	for _, f := range fs.flags {
		if f == id {
			return true
		}
	}
	if fs.malformed {
		lx.failed = true
	}
	return false
}
