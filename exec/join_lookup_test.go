package exec

import (
	"fmt"
	"slices"
	"testing"
)

// countingPlan counts its opens and the rows read through them.
type countingPlan struct {
	Plan
	opens, rows int
}

func (p *countingPlan) Open(env *Env) (Rows, error) {
	p.opens++
	in, err := p.Plan.Open(env)
	if err != nil {
		return nil, err
	}
	return &countingRows{Rows: in, p: p}, nil
}

type countingRows struct {
	Rows
	p *countingPlan
}

func (r *countingRows) Next() (Row, error) {
	row, err := r.Rows.Next()
	if row != nil {
		r.p.rows++
	}
	return row, err
}

// bigRight is a right input of n rows (k, 100k) for k in 1..n, with a
// NULL key and a duplicate of key 2, and its lookup plan: the same rows
// whose first column equals the outer value 0, as an index lookup would
// give them.
func bigRight(n int) (scan, lookup *countingPlan) {
	rows := [][]any{{nil, -1}, {2, 201}}
	for k := 1; k <= n; k++ {
		rows = append(rows, []any{k, 100 * k})
	}
	v := values(rows...)
	return &countingPlan{Plan: v}, &countingPlan{Plan: &Filter{In: v, Pred: eqCall(col(0), &OuterRef{Idx: 0, T: TInt4})}}
}

// TestHashJoinLooksUp checks that a hash join of a few rows with a large
// input looks their matches up (HashJoin.RightLookup) instead of reading
// the large one, with the same rows as when it reads it: every join kind
// that may (inner, left), keys with NULLs and duplicates, a residual; and
// that a large driver, a kept lookup side or a small other input are
// joined by hashing.
func TestHashJoinLooksUp(t *testing.T) {
	left := values([]any{2, 20}, []any{nil, 30}, []any{7, 70}, []any{999999, 1})
	gt := &Call{Name: ">", Fn: CompareOp(">"), Args: []Expr{col(3), col(1)}, Strict: true, T: TBool}
	for _, tc := range []struct {
		name     string
		kind     JoinKind
		residual Expr
		want     []string
	}{
		{"inner", InnerJoin, nil, []string{"2,20,2,200", "2,20,2,201", "7,70,7,700"}},
		{"left", LeftJoin, nil, []string{"2,20,2,200", "2,20,2,201", "7,70,7,700", "999999,1,NULL,NULL", "NULL,30,NULL,NULL"}},
		{"left residual", LeftJoin, gt, []string{"2,20,2,200", "2,20,2,201", "7,70,7,700", "999999,1,NULL,NULL", "NULL,30,NULL,NULL"}},
		{"inner residual", InnerJoin, &Call{Name: ">", Fn: CompareOp(">"), Args: []Expr{col(3), &Const{D: DInt(200), T: TInt4}}, Strict: true, T: TBool},
			[]string{"2,20,2,201", "7,70,7,700"}},
	} {
		scan, lookup := bigRight(5000)
		p := &HashJoin{Left: left, Right: scan, Kind: tc.kind, LeftKeys: []Expr{col(0)}, RightKeys: []Expr{col(2)},
			Residual: tc.residual, RightLookup: lookup}
		got := rowsOf(t, testEnv(), p)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
		// The left rows with a key are looked up; the right input is read
		// only as far as it takes to know it is the larger.
		if lookup.opens != 3 || scan.rows > lookupRatio*4+lookupSlack+1 {
			t.Errorf("%s: %d lookups, %d rows of the right input read; want 3 lookups and at most %d rows",
				tc.name, lookup.opens, scan.rows, lookupRatio*4+lookupSlack+1)
		}
	}

	// The lookups read what hashing would: the same join without them.
	scan, lookup := bigRight(5000)
	p := &HashJoin{Left: left, Right: scan, Kind: LeftJoin, LeftKeys: []Expr{col(0)}, RightKeys: []Expr{col(2)}}
	want := rowsOf(t, testEnv(), p)
	p.RightLookup, scan.rows = lookup, 0
	if got := rowsOf(t, testEnv(), p); !slices.Equal(got, want) {
		t.Errorf("with lookups: %v, without: %v", got, want)
	}

	// A right join keeps the right input's unmatched rows: it is read.
	scan, lookup = bigRight(5000)
	p = &HashJoin{Left: left, Right: scan, Kind: RightJoin, LeftKeys: []Expr{col(0)}, RightKeys: []Expr{col(2)}, RightLookup: lookup}
	if got := rowsOf(t, testEnv(), p); len(got) != 5002 || lookup.opens != 0 {
		t.Errorf("right join: %d rows, %d lookups; want 5002 rows, none looked up", len(got), lookup.opens)
	}

	// A right input that ends soon after the left is hashed.
	scan, lookup = bigRight(20)
	p = &HashJoin{Left: left, Right: scan, Kind: InnerJoin, LeftKeys: []Expr{col(0)}, RightKeys: []Expr{col(2)}, RightLookup: lookup}
	if got := rowsOf(t, testEnv(), p); !slices.Equal(got, []string{"2,20,2,200", "2,20,2,201", "7,70,7,700"}) || lookup.opens != 0 {
		t.Errorf("small right input: %v with %d lookups; want it hashed", got, lookup.opens)
	}

	// More drivers than maxLookupDrivers are hashed.
	var many [][]any
	for k := 0; k <= maxLookupDrivers; k++ {
		many = append(many, []any{k, k})
	}
	scan, lookup = bigRight(50000)
	p = &HashJoin{Left: values(many...), Right: scan, Kind: InnerJoin, LeftKeys: []Expr{col(0)}, RightKeys: []Expr{col(2)}, RightLookup: lookup}
	if got := rowsOf(t, testEnv(), p); len(got) != maxLookupDrivers+1 || lookup.opens != 0 {
		t.Errorf("many drivers: %d rows with %d lookups; want %d rows hashed", len(got), lookup.opens, maxLookupDrivers+1)
	}
}

// TestSharedHashJoinLooksUp checks a Shared join (one that runs again and
// again in a statement): a small probe side looks its matches up in the
// shared input without building its table, and a small shared input is
// built once and kept.
func TestSharedHashJoinLooksUp(t *testing.T) {
	scan, lookup := bigRight(5000)
	p := &HashJoin{Left: values([]any{7, 70}), Right: scan, Kind: InnerJoin, LeftKeys: []Expr{col(0)}, RightKeys: []Expr{col(2)},
		Shared: SharedRight, RightLookup: lookup}
	env := testEnv()
	for i := 0; i < 3; i++ {
		if got := rowsOf(t, env.child(nil), p); !slices.Equal(got, []string{"7,70,7,700"}) {
			t.Fatalf("open %d: %v", i, got)
		}
	}
	if _, ok := env.shared(p); ok || lookup.opens != 3 {
		t.Errorf("shared: table kept %v, %d lookups; want none kept, 3 lookups", ok, lookup.opens)
	}

	scan, lookup = bigRight(3)
	p = &HashJoin{Left: values([]any{2, 20}), Right: scan, Kind: InnerJoin, LeftKeys: []Expr{col(0)}, RightKeys: []Expr{col(2)},
		Shared: SharedRight, RightLookup: lookup}
	env = testEnv()
	for i := 0; i < 3; i++ {
		if got := rowsOf(t, env.child(nil), p); !slices.Equal(got, []string{"2,20,2,200", "2,20,2,201"}) {
			t.Fatalf("small shared, open %d: %v", i, got)
		}
	}
	if _, ok := env.shared(p); !ok || lookup.opens != 0 || scan.opens != 1 {
		t.Errorf("small shared: table kept %v, %d lookups, %d scans; want it kept after one scan", ok, lookup.opens, scan.opens)
	}

	// A small shared input and a large other one (an outer join's side
	// that a WHERE condition narrowed): the table's rows drive lookups in
	// the other input instead of a read of it.
	scan, lookup = bigRight(5000)
	left := &countingPlan{Plan: &Project{In: scan.Plan, Exprs: []Expr{col(0), col(1)}, Cols: scan.Plan.Columns()}}
	leftLookup := &countingPlan{Plan: &Project{In: lookup.Plan, Exprs: []Expr{col(0), col(1)}, Cols: scan.Plan.Columns()}}
	p = &HashJoin{Left: left, Right: values([]any{7, 70}, []any{nil, 1}), Kind: RightJoin, LeftKeys: []Expr{col(0)}, RightKeys: []Expr{col(2)},
		Shared: SharedRight, LeftLookup: leftLookup}
	env = testEnv()
	for i := 0; i < 2; i++ {
		if got := rowsOf(t, env.child(nil), p); !slices.Equal(got, []string{"7,700,7,70", "NULL,NULL,NULL,1"}) {
			t.Fatalf("small shared, large probe side, open %d: %v", i, got)
		}
	}
	if leftLookup.opens != 2 || left.rows > 2*(lookupRatio*2+lookupSlack+1) {
		t.Errorf("small shared, large probe side: %d lookups, %d rows read; want 2 lookups and few rows", leftLookup.opens, left.rows)
	}
}

// TestHashLookupProbesIndexFirst checks that a HashLookup (a correlated
// subquery's table) looks its rows up through Lookup for the first
// maxIndexProbes executions of a statement, then builds its hash table,
// with the same rows either way, NULL and duplicate keys included.
func TestHashLookupProbesIndexFirst(t *testing.T) {
	scan, lookup := bigRight(3000)
	p := &HashLookup{In: scan, Keys: []Expr{col(0)}, Probe: []Expr{&OuterRef{Idx: 0, T: TInt4}}, Lookup: lookup}
	env := testEnv()
	for i := 0; i < maxIndexProbes+3; i++ {
		k := i%5 + 1
		want := []string{fmt.Sprintf("%d,%d", k, 100*k)}
		if k == 2 {
			want = []string{"2,200", "2,201"}
		}
		if got := rowsOf(t, env.child([]Datum{DInt(int64(k))}), p); !slices.Equal(got, want) {
			t.Fatalf("execution %d: %v, want %v", i, got, want)
		}
		if got := rowsOf(t, env.child([]Datum{Null}), p); len(got) != 0 {
			t.Fatalf("a NULL probe matched %v", got)
		}
	}
	// Each execution above ran twice (a key, then NULL): the NULL ones
	// counted without a lookup.
	if lookup.opens != maxIndexProbes/2 || scan.opens != 1 {
		t.Errorf("%d lookups, %d scans; want %d lookups, then one scan", lookup.opens, scan.opens, maxIndexProbes/2)
	}
}
