package funcs

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// Ranking: ts_rank (frequency and proximity, calc_rank) and ts_rank_cd
// (cover density, calc_rank_cd), computed as PostgreSQL computes them,
// float4 where it uses float4, so that the printed ranks are the same.

// defaultRankWeights are the weights of D, C, B and A.
var defaultRankWeights = [4]float32{0.1, 0.2, 0.4, 1.0}

// The normalization flags of the rank functions.
const (
	rankNormLogLength = 1 << iota
	rankNormLength
	rankNormExtDist
	rankNormUniq
	rankNormLogUniq
	rankNormRDivRPlus1
)

// rankWeights reads the weights array of a rank call (getWeights).
func rankWeights(d exec.Datum) ([4]float32, error) {
	w := defaultRankWeights
	a := d.Array()
	if len(a.Dims) != 1 {
		return w, pgerr.New(pgerr.ArraySubscriptError, "array of weight must be one-dimensional")
	}
	if len(a.Elems) < len(w) {
		return w, pgerr.New(pgerr.ArraySubscriptError, "array of weight is too short")
	}
	for i := range w {
		e := a.Elems[i]
		if e.IsNull() {
			return w, pgerr.New(pgerr.NullValueNotAllowed, "array of weight must not contain nulls")
		}
		if f := float32(e.F); f >= 0 {
			w[i] = f
		}
		if w[i] > 1 {
			return w, pgerr.New(pgerr.InvalidParameterValue, "weight out of range")
		}
	}
	return w, nil
}

func registerTSRank() {
	V, Q, I4, F4A := exec.OIDTSVector, exec.OIDTSQuery, exec.OIDInt4, uint32(types.OidFloat4Array)
	for _, r := range []struct {
		name string
		rank func(w [4]float32, v types.TSVector, q types.TSQuery, method int) float32
	}{{"ts_rank", rank}, {"ts_rank_cd", rankCD}} {
		rank := r.rank
		call := func(weighted bool) exec.Fn {
			return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
				w := defaultRankWeights
				if weighted {
					var err error
					if w, err = rankWeights(a[0]); err != nil {
						return exec.Null, err
					}
					a = a[1:]
				}
				method := 0
				if len(a) > 2 {
					method = int(a[2].I)
				}
				return exec.DFloat(float64(rank(w, a[0].TSVector(), a[1].TSQuery(), method))), nil
			}
		}
		for _, args := range [][]uint32{{F4A, V, Q, I4}, {F4A, V, Q}, {V, Q, I4}, {V, Q}} {
			exec.Register(&exec.Func{Name: r.name, Args: args, Ret: exec.OIDFloat4, Strict: true, Immutable: true, Fn: call(args[0] == F4A)})
		}
	}
}

// queryOperands returns the distinct lexemes of a query's operands, sorted
// (SortAndUniqItems).
func queryOperands(q types.TSQuery) []*types.TSQueryNode {
	var ops []*types.TSQueryNode
	var walk func(*types.TSQueryNode)
	walk = func(n *types.TSQueryNode) {
		if n == nil {
			return
		}
		if n.Op == types.TSValue {
			ops = append(ops, n)
			return
		}
		walk(n.Right)
		walk(n.Left)
	}
	walk(q.Root)
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Lexeme < ops[j].Lexeme })
	return slices.CompactFunc(ops, func(a, b *types.TSQueryNode) bool { return a.Lexeme == b.Lexeme })
}

// wordCount is cnt_length: the positions of a tsvector, a lexeme without
// any counting once.
func wordCount(v types.TSVector) int {
	n := 0
	for _, l := range v {
		n += max(len(l.Pos), 1)
	}
	return n
}

// rank is ts_rank (calc_rank).
func rank(w [4]float32, v types.TSVector, q types.TSQuery, method int) float32 {
	if len(v) == 0 || q.Root == nil {
		return 0
	}
	var res float32
	if op := q.Root.Op; op == types.TSAnd || op == types.TSPhrase {
		res = rankAnd(w, v, q)
	} else {
		res = rankOr(w, v, q)
	}
	if res < 0 {
		res = 1e-20
	}
	if method&rankNormLogLength != 0 {
		res = float32(float64(res) / (math.Log(float64(wordCount(v)+1)) / math.Log(2)))
	}
	if method&rankNormLength != 0 {
		if n := wordCount(v); n > 0 {
			res /= float32(n)
		}
	}
	if method&rankNormUniq != 0 {
		res /= float32(len(v))
	}
	if method&rankNormLogUniq != 0 {
		res = float32(float64(res) / (math.Log(float64(len(v)+1)) / math.Log(2)))
	}
	if method&rankNormRDivRPlus1 != 0 {
		res /= res + 1
	}
	return res
}

// noPositions stands for the positions of a lexeme that has none.
var noPositions = []types.TSPosition{types.NewTSPosition(0, 0)}

// rankOr is calc_rank_or: each occurrence weighs its weight divided by the
// square of its rank among the lexeme's occurrences.
func rankOr(w [4]float32, v types.TSVector, q types.TSQuery) float32 {
	ops := queryOperands(q)
	var res float32
	for _, op := range ops {
		lo, hi := lexemeRange(v, op)
		for _, l := range v[lo:hi] {
			pos := l.Pos
			if len(pos) == 0 {
				pos = noPositions
			}
			var resj float32
			wjm, jm := float32(-1), 0
			for j, p := range pos {
				resj += w[p.Weight()] / float32((j+1)*(j+1))
				if w[p.Weight()] > wjm {
					wjm, jm = w[p.Weight()], j
				}
			}
			res = float32(float64(res) + float64(wjm+resj-wjm/float32((jm+1)*(jm+1)))/1.64493406685)
		}
	}
	if len(ops) > 0 {
		res /= float32(len(ops))
	}
	return res
}

// wordDistance weighs the distance of two occurrences (word_distance).
func wordDistance(d int) float32 {
	if d > 100 {
		return 1e-30
	}
	return float32(1.0 / (1.005 + 0.05*math.Exp(float64(float32(d))/1.5-2)))
}

// rankAnd is calc_rank_and: every pair of occurrences of different
// operands adds by how close they are.
func rankAnd(w [4]float32, v types.TSVector, q types.TSQuery) float32 {
	ops := queryOperands(q)
	if len(ops) < 2 {
		return rankOr(w, v, q)
	}
	// A lexeme without positions counts as one far away, at the last
	// position, where PostgreSQL puts it.
	far := []types.TSPosition{types.NewTSPosition(types.TSMaxPosition, 0)}
	pos := make([][]types.TSPosition, len(ops))
	stripped := make([]bool, len(ops))
	res := float32(-1)
	for i, op := range ops {
		lo, hi := lexemeRange(v, op)
		for _, l := range v[lo:hi] {
			pos[i], stripped[i] = l.Pos, len(l.Pos) == 0
			if stripped[i] {
				pos[i] = far
			}
			for k := 0; k < i; k++ {
				if pos[k] == nil {
					continue
				}
				for _, a := range pos[i] {
					for _, b := range pos[k] {
						dist := a.Pos() - b.Pos()
						if dist < 0 {
							dist = -dist
						}
						if dist == 0 && !stripped[i] && !stripped[k] {
							continue
						}
						if dist == 0 {
							dist = types.TSMaxPosition + 1
						}
						curw := float32(math.Sqrt(float64(w[a.Weight()] * w[b.Weight()] * wordDistance(dist))))
						if res < 0 {
							res = curw
						} else {
							res = float32(1.0 - (1.0-float64(res))*(1.0-float64(curw)))
						}
					}
				}
			}
		}
	}
	return res
}

// docEntry is a position of a document where query operands occur
// (DocRepresentation): its position, the tsvector lexeme, the operands.
type docEntry struct {
	pos   types.TSPosition
	entry int
	items []*types.TSQueryNode
}

// docOccurrences lists the positions of the lexemes a query asks for, in
// order, merging the operands met at one position of one lexeme
// (get_docrep).
func docOccurrences(v types.TSVector, q types.TSQuery) []docEntry {
	var doc []docEntry
	var walk func(*types.TSQueryNode)
	walk = func(n *types.TSQueryNode) {
		if n == nil {
			return
		}
		if n.Op != types.TSValue {
			walk(n.Right)
			walk(n.Left)
			return
		}
		lo, hi := lexemeRange(v, n)
		for e := lo; e < hi; e++ {
			// A stripped lexeme has no place in a cover: it is left out.
			for _, p := range v[e].Pos {
				if n.Weights == 0 || n.Weights&(1<<p.Weight()) != 0 {
					doc = append(doc, docEntry{pos: p, entry: e, items: []*types.TSQueryNode{n}})
				}
			}
		}
	}
	walk(q.Root)
	slices.SortStableFunc(doc, func(a, b docEntry) int {
		if c := cmp.Compare(a.pos.Pos(), b.pos.Pos()); c != 0 {
			return c
		}
		if c := cmp.Compare(a.pos.Weight(), b.pos.Weight()); c != 0 {
			return c
		}
		return cmp.Compare(a.entry, b.entry)
	})
	var out []docEntry
	for _, d := range doc {
		if n := len(out); n > 0 && out[n-1].pos == d.pos && out[n-1].entry == d.entry {
			out[n-1].items = append(out[n-1].items, d.items...)
			continue
		}
		out = append(out, d)
	}
	return out
}

// coverState is what a scan for a cover has seen of each operand
// (QueryRepresentationOperand): the positions, ascending.
type coverState map[*types.TSQueryNode][]int

// see records the operands at a document position, appending positions
// when scanning forward and prepending when scanning backward
// (fillQueryRepresentationData).
func (s coverState) see(d docEntry, backward bool) {
	for _, n := range d.items {
		ps, p := s[n], d.pos.Pos()
		switch {
		case len(ps) == 0:
			s[n] = []int{p}
		case backward && ps[0] != p:
			s[n] = append([]int{p}, ps...)
		case !backward && ps[len(ps)-1] != p:
			s[n] = append(ps, p)
		}
	}
}

func (s coverState) check(n *types.TSQueryNode, data *phraseData) ternary {
	ps, ok := s[n]
	if !ok {
		return tsNo
	}
	if data != nil {
		data.pos = slices.Clone(ps)
	}
	return tsYes
}

// cover finds the next cover from doc[*from:]: the shortest stretch of
// the document where the query holds (Cover). It returns its first and
// last entries and positions.
func cover(doc []docEntry, q types.TSQuery, from *int) (begin, end, p, q2 int, ok bool) {
	for ; *from < len(doc); *from++ {
		st := coverState{}
		last := -1
		q2 = 0
		for i := *from; i < len(doc); i++ {
			st.see(doc[i], false)
			if tsExecute(st.check, q.Root) != tsNo {
				if pos := doc[i].pos.Pos(); pos > q2 {
					q2, end, last = pos, i, i
				}
				break
			}
		}
		if last < 0 {
			return 0, 0, 0, 0, false
		}
		st = coverState{}
		p = math.MaxInt32
		i := last
		for ; i >= *from; i-- {
			st.see(doc[i], true)
			if tsExecute(st.check, q.Root) != tsNo {
				if pos := doc[i].pos.Pos(); pos < p {
					begin, p = i, pos
				}
				break
			}
		}
		if p <= q2 {
			*from = i + 1
			return begin, end, p, q2, true
		}
	}
	return 0, 0, 0, 0, false
}

// rankCD is ts_rank_cd (calc_rank_cd): each cover adds the inverse of its
// weights' mean, less for the other words inside it.
func rankCD(w [4]float32, v types.TSVector, q types.TSQuery, method int) float32 {
	var inv [4]float64
	for i := range w {
		inv[i] = 1 / float64(w[i])
	}
	if q.Root == nil {
		return 0
	}
	doc := docOccurrences(v, q)
	if len(doc) == 0 {
		return 0
	}
	var wdoc, sumDist, prevExt float64
	extents := 0
	from := 0
	for {
		begin, end, p, q2, ok := cover(doc, q, &from)
		if !ok {
			break
		}
		invSum := 0.0
		for _, d := range doc[begin : end+1] {
			invSum += inv[d.pos.Weight()]
		}
		cpos := float64(end-begin+1) / invSum
		noise := (q2 - p) - (end - begin)
		if noise < 0 {
			noise = (end - begin) / 2
		}
		wdoc += cpos / float64(1+noise)
		cur := float64(q2+p) / 2
		if extents > 0 && cur > prevExt {
			sumDist += 1 / (cur - prevExt)
		}
		prevExt = cur
		extents++
	}
	if method&rankNormLogLength != 0 {
		wdoc /= math.Log(float64(wordCount(v) + 1))
	}
	if method&rankNormLength != 0 {
		if n := wordCount(v); n > 0 {
			wdoc /= float64(n)
		}
	}
	if method&rankNormExtDist != 0 && extents > 0 && sumDist > 0 {
		wdoc /= float64(extents) / sumDist
	}
	if method&rankNormUniq != 0 {
		wdoc /= float64(len(v))
	}
	if method&rankNormLogUniq != 0 {
		wdoc /= math.Log(float64(len(v)+1)) / math.Log(2)
	}
	if method&rankNormRDivRPlus1 != 0 {
		wdoc /= wdoc + 1
	}
	return float32(wdoc)
}
