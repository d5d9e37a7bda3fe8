package ispell

// wordTrie is the dictionary's words as a trie over their bytes,
// PostgreSQL's SPNode tree, laid out flat: a node is a run of edges sorted
// by byte, searched by bisection.
type wordTrie struct {
	nodes []span
	edges []wordEdge
	root  int32 // -1 for an empty dictionary
}

// span is a run [start, end) of a trie's edges: one node.
type span struct{ start, end int32 }

// wordEdge is one byte of some words. When a word ends with it, isWord is
// set, set is the word's flag set and compound its compound bits.
type wordEdge struct {
	child    int32 // -1 for none
	set      int32 // PostgreSQL's 19-bit index into affixData, then (see finish) the Dictionary's
	val      byte
	isWord   bool
	compound uint8
}

// maxSetIndex masks a set index to the 19 bits PostgreSQL stores it in.
const maxSetIndex = 1<<19 - 1

// find is the edge of node n for byte c, or nil.
func (t *wordTrie) find(n int32, c byte) *wordEdge {
	nd := t.nodes[n]
	lo, hi := nd.start, nd.end
	for lo < hi {
		m := lo + (hi-lo)/2
		e := &t.edges[m]
		switch {
		case e.val == c:
			return e
		case e.val < c:
			lo = m + 1
		default:
			hi = m
		}
	}
	return nil
}

// buildWords builds the node for the words sp at depth level (they share
// their first level bytes) and everything below it, PostgreSQL's
// mkSPNode. Words are visited in sorted order, and a word listed more
// than once gets its sets merged in that order, which fixes the indexes of
// merged sets and which malformed flag set is reported first.
func (b *builder) buildWords(sp []spell, level int) (int32, error) {
	t := &b.words
	nchar := 0
	var last byte
	for i := range sp {
		if w := sp[i].word; len(w) > level && w[level] != last {
			nchar++
			last = w[level]
		}
	}
	if nchar == 0 {
		return -1, nil
	}
	node := int32(len(t.nodes))
	start := int32(len(t.edges))
	t.nodes = append(t.nodes, span{start, start + int32(nchar)})
	for k := 0; k < nchar; k++ {
		t.edges = append(t.edges, wordEdge{child: -1})
	}
	cur, low := start, 0
	last = 0
	for i := range sp {
		w := sp[i].word
		if len(w) <= level {
			continue
		}
		if w[level] != last {
			if last != 0 {
				child, err := b.buildWords(sp[low:i], level+1)
				if err != nil {
					return 0, err
				}
				t.edges[cur].child = child
				cur++
				low = i
			}
			last = w[level]
		}
		e := &t.edges[cur]
		e.val = w[level]
		if len(w) != level+1 {
			continue
		}
		clearOnly := false
		if e.isWord && int(e.set) != sp[i].set {
			// A word seen again: it may stand alone only if one of its
			// entries may.
			cf, err := b.compoundFlags(sp[i].set)
			if err != nil {
				return 0, err
			}
			clearOnly = e.compound&cf&ffCompoundOnly == 0
			e.set = int32(b.mergeSets(int(e.set), sp[i].set) & maxSetIndex)
		} else {
			e.set = int32(sp[i].set & maxSetIndex)
		}
		e.isWord = true
		cf, err := b.compoundFlags(int(e.set))
		if err != nil {
			return 0, err
		}
		if cf&ffCompoundOnly != 0 && cf&ffCompoundFlag == 0 {
			cf |= ffCompoundFlag
		}
		if clearOnly {
			cf &^= ffCompoundOnly
		}
		e.compound = cf
	}
	child, err := b.buildWords(sp[low:], level+1)
	if err != nil {
		return 0, err
	}
	t.edges[cur].child = child
	return node, nil
}
