package ispell

import "strings"

// splitCall is one call of PostgreSQL's SplitToVariants still to make:
// find the ways to cut word from startpos on, after the parts orig,
// resuming the trie walk at node snode (depth minpos) when snode >= 0.
type splitCall struct {
	orig             []string
	snode            int32
	startpos, minpos int
}

// splitHead makes one SplitToVariants call, but lazily. The call walks the
// word trie from startpos; where a word allowed in that compound position
// ends (past minpos), it both starts a new part after it and tries a
// longer word from the same start (by calling itself from that trie node
// and depth). At each position past a part's start it also looks for a
// compound affix there and tries the part up to it, normalized, as a part,
// continuing after it in another call. Positions already tried as a
// part's end are not tried again. The last part is whatever is left, known
// word or not; the caller checks it.
//
// PostgreSQL's call returns its own way of cutting first, then the ways
// of the calls it made, in order, each expanded the same way. splitHead
// returns the first and the calls, unmade, so that the caller can stop
// expanding once it has all it can use: the number of ways grows
// exponentially with the word's length.
func (lx *lexer) splitHead(c splitCall, word string) (parts []string, calls []splitCall) {
	d := lx.d
	t := &d.words
	startpos, minpos := c.startpos, c.minpos
	node, level := t.root, startpos
	if c.snode >= 0 {
		node, level = c.snode, minpos
	}
	probed := make([]bool, len(word))
	parts = append([]string(nil), c.orig...)
	for level < len(word) {
		// A compound affix at level may end the current part.
		for ci := 0; level > startpos; {
			n := d.compoundAffixAt(&ci, word[level:], node >= 0)
			if n < 0 {
				break
			}
			n += level - startpos
			if probed[startpos+n-1] || level+n-1 <= minpos || n >= maxNormLen {
				continue
			}
			flag := ffCompoundMiddle
			switch level {
			case 0:
				flag = ffCompoundBegin
			case len(word) - 1:
				flag = ffCompoundLast
			}
			forms := lx.normalize(nil, word[startpos:startpos+n], flag)
			if len(forms) == 0 {
				continue
			}
			probed[startpos+n-1] = true
			next := append([]string(nil), parts...)
			for _, f := range forms {
				next = append(next, f.Word)
			}
			calls = append(calls, splitCall{orig: next, snode: -1, startpos: startpos + n, minpos: startpos + n})
		}
		if node < 0 {
			break
		}
		e := t.find(node, word[level])
		if e == nil {
			node = -1
			level++
			continue
		}
		flag := ffCompoundMiddle
		switch {
		case startpos == 0:
			flag = ffCompoundBegin
		case level == len(word)-1:
			flag = ffCompoundLast
		}
		if e.isWord && int(e.compound)&flag != 0 && !probed[level] && level > minpos {
			if level == len(word)-1 {
				return append(parts, word[startpos:]), calls
			}
			calls = append(calls, splitCall{orig: append([]string(nil), parts...), snode: node, startpos: startpos, minpos: level})
			level++
			parts = append(parts, word[startpos:level])
			node, startpos = t.root, level
			continue
		}
		node = e.child
		level++
	}
	return append(parts, word[startpos:]), calls
}

// compoundAffixAt looks through the compound affixes from *ci on for one
// at the start of w (inPlace) or anywhere in it, PostgreSQL's
// CheckCompoundAffixes; *ci moves past the one found. It returns how much
// of w the part takes with it: a suffix's length (and, when not in place,
// what comes before it), 0 for a prefix; -1 when there is none.
func (d *Dictionary) compoundAffixAt(ci *int, w string, inPlace bool) int {
	for *ci < len(d.compound) {
		ca := &d.compound[*ci]
		*ci++
		if len(w) <= len(ca.affix) {
			continue
		}
		at := 0
		if inPlace {
			if !strings.HasPrefix(w, ca.affix) {
				continue
			}
		} else if at = strings.Index(w, ca.affix); at < 0 {
			continue
		}
		if ca.suffix {
			return at + len(ca.affix)
		}
		return 0
	}
	return -1
}
