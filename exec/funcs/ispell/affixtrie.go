package ispell

// affix is one rule: take repl off the word's end (a suffix) or start (a
// prefix), put find in its place, and the result, if it satisfies cond, is
// a normal form when the dictionary has it with flag.
type affix struct {
	find, repl string
	cond       condition
	flag       string // the rule's flag, as written (FLAG num flags too)
	flagID     int32  // flag's number in the Dictionary, set by finish
	flagflags  uint8  // ff bits: compound properties, cross product
	suffix     bool
}

// compoundAffix is a replacement that compound words may carry between
// their parts (PostgreSQL's CMPDAffix).
type compoundAffix struct {
	affix  string
	suffix bool
}

// affixTrie holds the rules of one kind as a trie over their replacement
// strings, read forwards for prefixes and backwards for suffixes
// (PostgreSQL's AffixNode tree). A node's edge lists the rules whose
// replacement ends there. The rules with an empty replacement hang off a
// "void" root above the trie and are tried first.
type affixTrie struct {
	void  []int32 // rules with an empty replacement, in rule order
	nodes []span
	edges []affixEdge
	rules []int32 // the edges' rule lists, back to back
	root  int32   // -1 for none
}

type affixEdge struct {
	child      int32
	rulesStart int32
	rulesEnd   int32
	val        byte
}

// char is the byte of a's replacement at depth level.
func (a *affix) char(level int) byte {
	if a.suffix {
		return a.repl[len(a.repl)-1-level]
	}
	return a.repl[level]
}

// build makes the trie of rules[lo:hi] (sorted), PostgreSQL's mkANode and
// mkVoidAffix.
func (t *affixTrie) build(rules []affix, lo, hi int, suffix bool) {
	t.root = t.buildNode(rules, lo, hi, 0)
	for i := lo; i < hi; i++ {
		if rules[i].repl == "" {
			t.void = append(t.void, int32(i))
		}
	}
}

func (t *affixTrie) buildNode(rules []affix, lo, hi, level int) int32 {
	nchar := 0
	var last byte
	for i := lo; i < hi; i++ {
		if a := &rules[i]; len(a.repl) > level && a.char(level) != last {
			nchar++
			last = a.char(level)
		}
	}
	if nchar == 0 {
		return -1
	}
	node := int32(len(t.nodes))
	start := int32(len(t.edges))
	t.nodes = append(t.nodes, span{start, start + int32(nchar)})
	for k := 0; k < nchar; k++ {
		t.edges = append(t.edges, affixEdge{child: -1})
	}
	var ended []int32 // rules whose replacement ends at the current edge
	setRules := func(e int32) {
		if len(ended) > 0 {
			t.edges[e].rulesStart = int32(len(t.rules))
			t.rules = append(t.rules, ended...)
			t.edges[e].rulesEnd = int32(len(t.rules))
			ended = ended[:0]
		}
	}
	cur, low := start, lo
	last = 0
	for i := lo; i < hi; i++ {
		a := &rules[i]
		if len(a.repl) <= level {
			continue
		}
		c := a.char(level)
		if c != last {
			if last != 0 {
				child := t.buildNode(rules, low, i, level+1)
				t.edges[cur].child = child
				setRules(cur)
				cur++
				low = i
			}
			last = c
		}
		t.edges[cur].val = c
		if len(a.repl) == level+1 {
			ended = append(ended, int32(i))
		}
	}
	child := t.buildNode(rules, low, hi, level+1)
	t.edges[cur].child = child
	setRules(cur)
	return node
}

// affixWalk steps through the rules whose replacement matches the start
// (prefixes) or end (suffixes) of a word, shortest replacement first:
// PostgreSQL's FindAffixes loop.
type affixWalk struct {
	t       *affixTrie
	node    int32
	level   int
	started bool
}

// nextRules is the walk's next group of rules, or nil at the end.
func nextRules[S ~string | ~[]byte](w *affixWalk, word S, suffix bool) []int32 {
	t := w.t
	if !w.started {
		w.started = true
		w.node = t.root
		if len(t.void) > 0 {
			return t.void
		}
	}
	for w.node >= 0 && w.level < len(word) {
		c := word[w.level]
		if suffix {
			c = word[len(word)-1-w.level]
		}
		nd := t.nodes[w.node]
		lo, hi := nd.start, nd.end
		var e *affixEdge
		for lo < hi {
			m := lo + (hi-lo)/2
			switch v := t.edges[m].val; {
			case v == c:
				e = &t.edges[m]
				lo = hi
			case v < c:
				lo = m + 1
			default:
				hi = m
			}
		}
		if e == nil {
			break
		}
		w.level++
		w.node = e.child
		if e.rulesEnd > e.rulesStart {
			return t.rules[e.rulesStart:e.rulesEnd]
		}
	}
	w.node = -1
	return nil
}
