package exec

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortLikePostgresSorts checks that SortLikePostgres sorts and keeps
// every row, for sizes on both sides of its thresholds (7, 40) and inputs
// with many ties, presorted runs and reversed runs. The order of ties it
// gives is checked against PostgreSQL by regress/testdata/tie_order.test.
func TestSortLikePostgresSorts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cmp := func(a, b Row) int { return int(a[0].I - b[0].I) }
	for _, n := range []int{0, 1, 2, 6, 7, 8, 40, 41, 100, 1000, 5000} {
		for _, shape := range []string{"random", "ties", "sorted", "reversed"} {
			rows := make([]Row, n)
			for i := range rows {
				var k int64
				switch shape {
				case "random":
					k = rng.Int64N(1 << 20)
				case "ties":
					k = rng.Int64N(3)
				case "sorted":
					k = int64(i)
				case "reversed":
					k = int64(n - i)
				}
				rows[i] = Row{DInt(k), DInt(int64(i))}
			}
			SortLikePostgres(rows, cmp)
			seen := make([]bool, n)
			for i, r := range rows {
				if i > 0 && cmp(rows[i-1], r) > 0 {
					t.Fatalf("n=%d %s: rows %d and %d out of order", n, shape, i-1, i)
				}
				seen[r[1].I] = true
			}
			if slices.Contains(seen, false) {
				t.Fatalf("n=%d %s: a row was lost", n, shape)
			}
		}
	}
}

// TestTopNKeepsTheLeast checks that the bounded sort returns, in order,
// rows whose keys are the least bound keys of its input, below and above
// the 2×bound switch to its heap. Which tying rows it keeps is checked
// against PostgreSQL by regress/testdata/tie_order.test.
func TestTopNKeepsTheLeast(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cmp := func(a, b Row) int { return int(a[0].I - b[0].I) }
	for _, n := range []int{0, 1, 5, 10, 11, 100, 1000} {
		for _, bound := range []int{1, 3, 5, 50} {
			keys := make([]int64, n)
			s := &topN{cmp: cmp, bound: bound}
			for i := range keys {
				keys[i] = rng.Int64N(8)
				s.add(Row{DInt(keys[i])})
			}
			got := s.sorted()
			slices.Sort(keys)
			want := keys
			if n > 2*bound {
				want = keys[:bound]
			}
			if len(got) != len(want) {
				t.Fatalf("n=%d bound=%d: %d rows, want %d", n, bound, len(got), len(want))
			}
			for i := range want {
				if got[i][0].I != want[i] {
					t.Fatalf("n=%d bound=%d: row %d has key %d, want %d", n, bound, i, got[i][0].I, want[i])
				}
			}
		}
	}
}
