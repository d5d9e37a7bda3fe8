package funcs

import (
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// ts_headline: the document's tokens with the words the query matches
// marked, cut to the best cover of the query (PostgreSQL's hlparsetext,
// mark_hl_words or mark_hl_fragments with hlCover, and generateHeadline).

// hlWord is a token of the document being marked (HeadlineWordEntry).
type hlWord struct {
	typ      int
	text     string
	pos      int
	item     *types.TSQueryNode // the query operand it matches
	repeated bool               // another operand's match of the word before
	selected bool
	in       bool
	replace  bool
	skip     bool
}

// hlOptions are ts_headline's options.
type hlOptions struct {
	minWords, maxWords, shortWord, maxFragments int
	startSel, stopSel, fragDelim                string
	highlightAll                                bool
}

func parseHeadlineOptions(s string) (hlOptions, error) {
	o := hlOptions{minWords: 15, maxWords: 35, shortWord: 3, startSel: "<b>", stopSel: "</b>", fragDelim: " ... "}
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' }) {
		key, val, _ := strings.Cut(part, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') && val[len(val)-1] == val[0] {
			val = val[1 : len(val)-1]
		}
		if key == "" {
			continue
		}
		num := func() (int, error) {
			n, err := strconv.Atoi(val)
			if err != nil {
				return 0, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type integer: \"%s\"", val)
			}
			return n, nil
		}
		str := func(name string) (string, error) {
			if len(val) > 0x7fff {
				return "", pgerr.New(pgerr.InvalidParameterValue, "value for %q is too long", name)
			}
			return val, nil
		}
		var err error
		switch strings.ToLower(key) {
		case "maxwords":
			o.maxWords, err = num()
		case "minwords":
			o.minWords, err = num()
		case "shortword":
			o.shortWord, err = num()
		case "maxfragments":
			o.maxFragments, err = num()
		case "startsel":
			o.startSel, err = str("StartSel")
		case "stopsel":
			o.stopSel, err = str("StopSel")
		case "fragmentdelimiter":
			o.fragDelim, err = str("FragmentDelimiter")
		case "highlightall":
			switch strings.ToLower(val) {
			case "1", "on", "true", "t", "y", "yes":
				o.highlightAll = true
			}
		default:
			return o, pgerr.New(pgerr.InvalidParameterValue, "unrecognized headline parameter: \"%s\"", key)
		}
		if err != nil {
			return o, err
		}
	}
	if !o.highlightAll {
		switch {
		case o.minWords >= o.maxWords:
			return o, pgerr.New(pgerr.InvalidParameterValue, "MinWords should be less than MaxWords")
		case o.minWords <= 0:
			return o, pgerr.New(pgerr.InvalidParameterValue, "MinWords should be positive")
		case o.shortWord < 0:
			return o, pgerr.New(pgerr.InvalidParameterValue, "ShortWord should be >= 0")
		case o.maxFragments < 0:
			return o, pgerr.New(pgerr.InvalidParameterValue, "MaxFragments should be >= 0")
		}
	}
	return o, nil
}

// hlParse splits the document into words, marking those whose lexemes
// the query's operands match (hlparsetext).
func (c *tsConfig) hlParse(doc string, q types.TSQuery) []hlWord {
	var ops []*types.TSQueryNode
	collectOperands(q.Root, &ops)
	var words []hlWord
	pos := 0
	for _, tok := range parseText(doc) {
		words = append(words, hlWord{typ: tok.typ, text: tok.text})
		lexemes, d := c.lexize(tok.typ, tok.text)
		if d == nil {
			continue
		}
		pos++
		for _, lx := range lexemes {
			l := lx.word
			w := &words[len(words)-1]
			w.pos = min(pos, types.TSMaxPosition)
			for _, op := range ops {
				if l != op.Lexeme && !(op.Prefix && strings.HasPrefix(l, op.Lexeme)) {
					continue
				}
				if w.item != nil {
					dup := *w
					dup.item, dup.repeated = op, true
					words = append(words, dup)
					w = &words[len(words)-2]
				} else {
					w.item = op
				}
			}
		}
	}
	return words
}

// collectOperands lists a query's operands in PostgreSQL's item order.
func collectOperands(n *types.TSQueryNode, out *[]*types.TSQueryNode) {
	if n == nil {
		return
	}
	if n.Op == types.TSValue {
		*out = append(*out, n)
		return
	}
	collectOperands(n.Right, out)
	collectOperands(n.Left, out)
}

func hlNonWord(t int) bool {
	return t == tokBlank || t == tokTag || t == tokURL || t == tokNumHWord || t == tokASCIIHWord || t == tokHWord
}

func hlNoEnd(t int) bool {
	return hlNonWord(t) || t == tokSFloat || t == tokVersion || t == tokFloat || t == tokInt || t == tokUint ||
		t == tokProtocol || t == tokEntity
}

// hlInteresting reports whether words[i] is a query word (INTERESTINGWORD).
func hlInteresting(words []hlWord, i int) bool { return words[i].item != nil && !words[i].repeated }

// hlBadEnd reports whether a headline should not begin or end at words[i]:
// a non-word, a number or a short word that the query does not ask for
// (BADENDPOINT).
func hlBadEnd(words []hlWord, i int, o hlOptions) bool {
	return (hlNoEnd(words[i].typ) || len(words[i].text) <= o.shortWord) && !hlInteresting(words, i)
}

// hlCover finds the next stretch words[p..q] where the query holds: p the
// first word of the query from *p on, q the first word of the query after
// it where the stretch satisfies the query, at most maxCover words on
// (hlCover).
func hlCover(words []hlWord, q types.TSQuery, maxCover int, p *int) (int, bool) {
	holds := func(lo, hi int) bool {
		window := words[lo : hi+1]
		check := func(n *types.TSQueryNode, data *phraseData) ternary {
			found := tsNo
			for _, w := range window {
				if w.item != n {
					continue
				}
				found = tsYes
				if data == nil {
					return tsYes
				}
				if len(data.pos) == 0 || data.pos[len(data.pos)-1] < w.pos {
					data.pos = append(data.pos, w.pos)
				}
			}
			return found
		}
		return tsExecute(check, q.Root) != tsNo
	}
	for pmin := *p; pmin < len(words); pmin++ {
		if words[pmin].item == nil {
			continue
		}
		for pmax := pmin; pmax < len(words) && pmax-pmin < maxCover; pmax++ {
			if words[pmax].item == nil || !holds(pmin, pmax) {
				continue
			}
			*p = pmin
			return pmax, true
		}
	}
	return 0, false
}

// markWords chooses the part of the document to show (mark_hl_words):
// of the covers, extended forward (or, at the end of the text, backward)
// to MinWords and to a word that ends well, or cut to MaxWords, the first
// that holds its whole cover, then has the most query words, then ends
// well.
func markWords(words []hlWord, q types.TSQuery, o hlOptions) {
	interesting := func(i int) bool { return hlInteresting(words, i) }
	badEnd := func(i int) bool { return hlBadEnd(words, i, o) }
	bestb, beste, bestlen := -1, -1, -1
	bestCover, bestGoodEnd := false, false
	if o.highlightAll {
		bestb, beste = 0, len(words)-1
	} else {
		maxCover := max(o.maxWords*10, 100)
		for p := 0; q.Root != nil; p++ {
			qe, ok := hlCover(words, q, maxCover, &p)
			if !ok {
				break
			}
			curlen, poslen := 0, 0
			posb, pose := p, p
			i := p
			for ; i <= qe && curlen < o.maxWords; i++ {
				if !hlNonWord(words[i].typ) {
					curlen++
				}
				if interesting(i) {
					poslen++
				}
				pose = i
			}
			if curlen < o.maxWords {
				for i = i - 1; i < len(words) && curlen < o.maxWords; i++ {
					if i > qe {
						if !hlNonWord(words[i].typ) {
							curlen++
						}
						if interesting(i) {
							poslen++
						}
					}
					pose = i
					if badEnd(i) {
						continue
					}
					if curlen >= o.minWords {
						break
					}
				}
				if curlen < o.minWords {
					for i = p - 1; i >= 0; i-- {
						if !hlNonWord(words[i].typ) {
							curlen++
						}
						if interesting(i) {
							poslen++
						}
						if curlen >= o.maxWords {
							break
						}
						if badEnd(i) {
							continue
						}
						if curlen >= o.minWords {
							break
						}
					}
					posb = max(i, 0)
				}
			} else {
				if i > qe {
					i = qe
				}
				for ; curlen > o.minWords; i-- {
					if !badEnd(i) {
						break
					}
					if !hlNonWord(words[i].typ) {
						curlen--
					}
					if interesting(i) {
						poslen--
					}
					pose = i - 1
				}
			}
			cover, goodEnd := pose >= qe, !badEnd(pose)
			if cover && !bestCover || cover == bestCover && poslen > bestlen ||
				cover == bestCover && poslen == bestlen && goodEnd && !bestGoodEnd {
				bestb, beste, bestlen, bestCover, bestGoodEnd = posb, pose, poslen, cover, goodEnd
			}
		}
		if bestlen < 0 {
			curlen, pose := 0, 0
			for i := 0; i < len(words) && curlen < o.minWords; i++ {
				if !hlNonWord(words[i].typ) {
					curlen++
				}
				pose = i
			}
			bestb, beste = 0, pose
		}
	}
	markFragment(words, bestb, beste, o)
}

// markFragment marks words[from..to] for output (mark_fragment): query
// words selected, tags replaced by a space (unless HighlightAll), compound
// tokens skipped as their parts follow them.
func markFragment(words []hlWord, from, to int, o hlOptions) {
	for i := max(from, 0); i <= to && i < len(words); i++ {
		w := &words[i]
		w.selected = w.item != nil
		switch {
		case !o.highlightAll && w.typ == tokTag:
			w.replace = true
		case w.typ == tokURL || w.typ == tokNumHWord || w.typ == tokASCIIHWord || w.typ == tokHWord:
			w.skip = true
		}
		w.in = !w.repeated
	}
}

// hlFragment is a candidate fragment of a headline (CoverPos).
type hlFragment struct {
	start, end, curlen, poslen int
	chosen, excluded           bool
}

// markFragments chooses up to MaxFragments fragments (mark_hl_fragments):
// the covers cut into pieces of at most MaxWords that begin and end with
// query words; repeatedly the one with the most query words (then the
// fewest words) not overlapping those chosen, stretched on both sides
// towards MaxWords and back to words that end well.
func markFragments(words []hlWord, q types.TSQuery, o hlOptions) {
	interesting := func(i int) bool { return hlInteresting(words, i) }
	badEnd := func(i int) bool { return hlBadEnd(words, i, o) }
	var frags []hlFragment
	for p := 0; q.Root != nil; p++ {
		qe, ok := hlCover(words, q, max(o.maxWords*10, 100), &p)
		if !ok {
			break
		}
		for start, end := p, qe; start <= end; start, end = end+1, qe {
			// The next piece (get_next_fragment): from a query word, at
			// most MaxWords, back to a query word if cut.
			for i := start; i <= end; i++ {
				start = i
				if interesting(i) {
					break
				}
			}
			curlen, poslen := 0, 0
			i := start
			for ; i <= end && curlen < o.maxWords; i++ {
				if !hlNonWord(words[i].typ) {
					curlen++
				}
				if interesting(i) {
					poslen++
				}
			}
			if end > i {
				for end = i; end >= start; end-- {
					if interesting(end) || end == start {
						break
					}
					if !hlNonWord(words[end].typ) {
						curlen--
					}
				}
			}
			frags = append(frags, hlFragment{start: start, end: end, curlen: curlen, poslen: poslen})
		}
	}
	chosen := 0
	for f := 0; f < o.maxFragments; f++ {
		best := -1
		for i, c := range frags {
			if c.chosen || c.excluded {
				continue
			}
			if best < 0 && c.poslen > 0 || best >= 0 && (c.poslen > frags[best].poslen || c.poslen == frags[best].poslen && c.curlen < frags[best].curlen) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		c := &frags[best]
		c.chosen = true
		start, end, curlen := c.start, c.end, c.curlen
		if curlen < o.maxWords {
			maxStretch, stretch := (o.maxWords-curlen)/2, 0
			marker := start
			for i := start - 1; i >= 0 && stretch < maxStretch && !words[i].in; i-- {
				if !hlNonWord(words[i].typ) {
					curlen++
					stretch++
				}
				marker = i
			}
			i := marker
			for ; i < start && badEnd(i); i++ {
				if !hlNonWord(words[i].typ) {
					curlen--
				}
			}
			start = i
			marker = end
			for i = end + 1; i < len(words) && curlen < o.maxWords && !words[i].in; i++ {
				if !hlNonWord(words[i].typ) {
					curlen++
				}
				marker = i
			}
			for i = marker; i > end && badEnd(i); i-- {
				if !hlNonWord(words[i].typ) {
					curlen--
				}
			}
			end = i
		}
		c.start, c.end, c.curlen = start, end, curlen
		markFragment(words, start, end, o)
		chosen++
		for i := range frags {
			other := &frags[i]
			if i != best && (other.start >= start && other.start <= end || other.end >= start && other.end <= end ||
				other.start < start && other.end > end) {
				other.excluded = true
			}
		}
	}
	if chosen == 0 {
		curlen, end := 0, -1
		for i := 0; i < len(words) && curlen < o.minWords; i++ {
			if !hlNonWord(words[i].typ) {
				curlen++
			}
			end = i
		}
		markFragment(words, 0, end, o)
	}
}

// headline writes the marked words (generateHeadline).
// headlineArgs reads ts_headline's arguments, [config,] document, query
// [, options]: the document is returned as given (text, json or jsonb).
func headlineArgs(env *exec.Env, a []exec.Datum, withOptions bool) (*tsConfig, exec.Datum, types.TSQuery, hlOptions, error) {
	full := 3
	if withOptions {
		full = 4
	}
	c, i, err := configArg(env, a, full)
	if err != nil {
		return nil, exec.Null, types.TSQuery{}, hlOptions{}, err
	}
	opts := ""
	if withOptions {
		opts = a[i+2].S
	}
	o, err := parseHeadlineOptions(opts)
	if err != nil {
		return nil, exec.Null, types.TSQuery{}, hlOptions{}, err
	}
	return c, a[i], a[i+1].TSQuery(), o, nil
}

// headlineOf is the headline of text s for query q.
func (c *tsConfig) headlineOf(s string, q types.TSQuery, o hlOptions) string {
	words := c.hlParse(s, q)
	if o.maxFragments > 0 && !o.highlightAll {
		markFragments(words, q, o)
	} else {
		markWords(words, q, o)
	}
	return headline(words, o)
}

func headline(words []hlWord, o hlOptions) string {
	var b strings.Builder
	inFrag, frags := false, 0
	for _, w := range words {
		switch {
		case w.in && !w.repeated:
			if !inFrag {
				inFrag = true
				if frags++; frags > 1 {
					b.WriteString(o.fragDelim)
				}
			}
			switch {
			case w.replace:
				b.WriteByte(' ')
			case !w.skip:
				if w.selected {
					b.WriteString(o.startSel)
				}
				b.WriteString(w.text)
				if w.selected {
					b.WriteString(o.stopSel)
				}
			}
		case !w.repeated:
			inFrag = false
		}
	}
	return b.String()
}

func registerTSHeadline() {
	TX, Q := exec.OIDText, exec.OIDTSQuery
	call := func(withConfig, withOptions bool) exec.Fn {
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			c, doc, q, o, err := headlineArgs(env, a, withOptions)
			if err != nil {
				return exec.Null, err
			}
			return exec.DText(c.headlineOf(doc.S, q, o)), nil
		}
	}
	for _, f := range []struct {
		args []uint32
		cfg  bool
		opts bool
	}{
		{[]uint32{TX, TX, Q, TX}, true, true}, {[]uint32{TX, TX, Q}, true, false},
		{[]uint32{exec.OIDRegconfig, TX, Q, TX}, true, true}, {[]uint32{exec.OIDRegconfig, TX, Q}, true, false},
		{[]uint32{TX, Q, TX}, false, true}, {[]uint32{TX, Q}, false, false},
	} {
		exec.Register(&exec.Func{Name: "ts_headline", Args: f.args, Ret: TX, Strict: true, Immutable: f.cfg, Fn: call(f.cfg, f.opts)})
	}
}
