package exec

// SortLikePostgres sorts rows by cmp with the algorithm of PostgreSQL's
// in-memory sorts (its sort_template.h: Bentley and McIlroy's quicksort
// with a presorted check, insertion sort below 7 elements, the median of
// three, or of three medians past 40, as pivot, and equal keys gathered at
// both ends, then swapped to the middle).
//
// The algorithm is not stable, and which of two rows that compare equal
// comes first is the part of a query's result SQL leaves open but that
// applications and tests still see: a window frame over ties, a LIMIT
// cutting through them, rows in a group. Running the same algorithm on the
// same input order gives the same order of ties as PostgreSQL. A stable
// sort, the natural choice otherwise, gave another one in about a hundred
// of the regression corpus's window queries.
func SortLikePostgres[T any](rows []T, cmp func(a, b T) int) {
	for {
		n := len(rows)
		if n < 7 {
			for m := 1; m < n; m++ {
				for l := m; l > 0 && cmp(rows[l-1], rows[l]) > 0; l-- {
					rows[l], rows[l-1] = rows[l-1], rows[l]
				}
			}
			return
		}
		presorted := true
		for m := 1; m < n; m++ {
			if cmp(rows[m-1], rows[m]) > 0 {
				presorted = false
				break
			}
		}
		if presorted {
			return
		}
		pm := n / 2
		if n > 7 {
			pl, pn := 0, n-1
			if n > 40 {
				d := n / 8
				pl = med3(rows, cmp, pl, pl+d, pl+2*d)
				pm = med3(rows, cmp, pm-d, pm, pm+d)
				pn = med3(rows, cmp, pn-2*d, pn-d, pn)
			}
			pm = med3(rows, cmp, pl, pm, pn)
		}
		rows[0], rows[pm] = rows[pm], rows[0]
		// rows[0] is the pivot; [1, pa) and (pd, n) gather the rows equal
		// to it, [pa, pb) those below, (pc, pd] those above.
		pa, pb := 1, 1
		pc, pd := n-1, n-1
		for {
			for pb <= pc {
				r := cmp(rows[pb], rows[0])
				if r > 0 {
					break
				}
				if r == 0 {
					rows[pa], rows[pb] = rows[pb], rows[pa]
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := cmp(rows[pc], rows[0])
				if r < 0 {
					break
				}
				if r == 0 {
					rows[pc], rows[pd] = rows[pd], rows[pc]
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			rows[pb], rows[pc] = rows[pc], rows[pb]
			pb++
			pc--
		}
		swapRange(rows, 0, pb-min(pa, pb-pa), min(pa, pb-pa))
		d1 := min(pd-pc, n-pd-1)
		swapRange(rows, pb, n-d1, d1)
		below, above := pb-pa, pd-pc
		// Recurse into the smaller part and go on with the larger, as
		// PostgreSQL does: the order of the work changes no result, but
		// the depth stays logarithmic.
		if below <= above {
			if below > 1 {
				SortLikePostgres(rows[:below], cmp)
			}
			if above <= 1 {
				return
			}
			rows = rows[n-above:]
		} else {
			if above > 1 {
				SortLikePostgres(rows[n-above:], cmp)
			}
			if below <= 1 {
				return
			}
			rows = rows[:below]
		}
	}
}

// med3 returns the position of the median of rows a, b and c, as
// sort_template.h's med3 picks it among equal ones.
func med3[T any](rows []T, cmp func(a, b T) int, a, b, c int) int {
	if cmp(rows[a], rows[b]) < 0 {
		switch {
		case cmp(rows[b], rows[c]) < 0:
			return b
		case cmp(rows[a], rows[c]) < 0:
			return c
		}
		return a
	}
	switch {
	case cmp(rows[b], rows[c]) > 0:
		return b
	case cmp(rows[a], rows[c]) < 0:
		return a
	}
	return c
}

// swapRange swaps the n rows from i with the n rows from j, pairwise.
func swapRange[T any](rows []T, i, j, n int) {
	for k := range n {
		rows[i+k], rows[j+k] = rows[j+k], rows[i+k]
	}
}

// topN is PostgreSQL's bounded sort, which a LIMIT (plus OFFSET) of n
// above a sort asks for: rows are gathered until there are more than 2n,
// then only the n least are kept, in a heap with the greatest on top, each
// new row replacing the top if it is less, discarded otherwise. The heap
// is sorted at the end by taking its top off one at a time. Which of the
// rows tying at the n-th place are kept, and their order, follow from
// these steps, so they are PostgreSQL's (tuplesort.c's make_bounded_heap,
// TSS_BOUNDED and sort_bounded_heap); memory holds 2n rows at most.
type topN struct {
	cmp   func(a, b Row) int
	bound int
	rows  []Row // the rows gathered, then the heap
	heap  bool
}

// rcmp is cmp reversed: the heap keeps its greatest row on top.
func (s *topN) rcmp(a, b Row) int { return -s.cmp(a, b) }

// add takes the next input row.
func (s *topN) add(r Row) {
	if s.bound <= 0 {
		return // LIMIT 0 keeps nothing
	}
	if !s.heap {
		s.rows = append(s.rows, r)
		if len(s.rows) > 2*s.bound {
			all := s.rows
			s.rows, s.heap = make([]Row, 0, s.bound), true
			for _, r := range all {
				s.push(r)
			}
		}
		return
	}
	s.push(r)
}

// push adds r to the heap, or replaces its top with r, or discards r.
func (s *topN) push(r Row) {
	if len(s.rows) < s.bound {
		j := len(s.rows)
		s.rows = append(s.rows, nil)
		for j > 0 {
			i := (j - 1) / 2
			if s.rcmp(r, s.rows[i]) >= 0 {
				break
			}
			s.rows[j] = s.rows[i]
			j = i
		}
		s.rows[j] = r
		return
	}
	if s.rcmp(r, s.rows[0]) > 0 {
		s.replaceTop(r, len(s.rows))
	}
}

// replaceTop puts r in place of the top of the heap of the first n rows
// and sifts it down.
func (s *topN) replaceTop(r Row, n int) {
	h := s.rows
	i := 0
	for {
		j := 2*i + 1
		if j >= n {
			break
		}
		if j+1 < n && s.rcmp(h[j], h[j+1]) > 0 {
			j++
		}
		if s.rcmp(r, h[j]) <= 0 {
			break
		}
		h[i] = h[j]
		i = j
	}
	h[i] = r
}

// sorted returns the least rows, at most bound of them when the heap was
// used (all of them otherwise), in order.
func (s *topN) sorted() []Row {
	if !s.heap {
		SortLikePostgres(s.rows, s.cmp)
		return s.rows
	}
	for n := len(s.rows); n > 1; {
		top := s.rows[0]
		n--
		s.replaceTop(s.rows[n], n)
		s.rows[n] = top
	}
	return s.rows
}
