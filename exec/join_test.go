package exec

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// values returns a plan of int4 rows; nil entries are NULLs.
func values(rows ...[]any) *Values {
	v := &Values{}
	for _, r := range rows {
		var exprs []Expr
		for _, x := range r {
			d := Null
			if x != nil {
				d = DInt(int64(x.(int)))
			}
			exprs = append(exprs, &Const{D: d, T: TInt4})
		}
		v.Rows = append(v.Rows, exprs)
	}
	if len(rows) > 0 {
		for i := range rows[0] {
			v.Cols = append(v.Cols, ResultColumn{Name: fmt.Sprint("c", i), T: TInt4})
		}
	}
	return v
}

func testEnv() *Env { return &Env{Ctx: context.Background()} }

// rowsOf runs p and prints its rows, sorted, as "1,NULL".
func rowsOf(t *testing.T, env *Env, p Plan) []string {
	t.Helper()
	rows, err := drain(env, p)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		var f []string
		for _, d := range r {
			if d.IsNull() {
				f = append(f, "NULL")
			} else {
				f = append(f, fmt.Sprint(d.I))
			}
		}
		out = append(out, strings.Join(f, ","))
	}
	slices.Sort(out)
	return out
}

func eqCall(a, b Expr) Expr {
	return &Call{Name: "=", Fn: CompareOp("="), Args: []Expr{a, b}, Strict: true, T: TBool}
}

func col(i int) Expr { return &ColRef{Idx: i, T: TInt4} }

// TestJoinKinds checks every join kind with NULL keys and duplicates, as
// a hash join (both input orders, so that either side gets built) and as
// a nested loop, which must agree.
func TestJoinKinds(t *testing.T) {
	left := values([]any{1, 10}, []any{2, 20}, []any{2, 21}, []any{nil, 30}, []any{4, 40})
	right := values([]any{2, 200}, []any{nil, 300}, []any{5, 500}, []any{2, 201})
	want := map[JoinKind][]string{
		InnerJoin: {"2,20,2,200", "2,20,2,201", "2,21,2,200", "2,21,2,201"},
		LeftJoin:  {"1,10,NULL,NULL", "2,20,2,200", "2,20,2,201", "2,21,2,200", "2,21,2,201", "4,40,NULL,NULL", "NULL,30,NULL,NULL"},
		RightJoin: {"2,20,2,200", "2,20,2,201", "2,21,2,200", "2,21,2,201", "NULL,NULL,5,500", "NULL,NULL,NULL,300"},
		FullJoin: {"1,10,NULL,NULL", "2,20,2,200", "2,20,2,201", "2,21,2,200", "2,21,2,201", "4,40,NULL,NULL",
			"NULL,30,NULL,NULL", "NULL,NULL,5,500", "NULL,NULL,NULL,300"},
	}
	for kind, w := range want {
		plans := map[string]Plan{
			"hash": &HashJoin{Left: left, Right: right, Kind: kind, LeftKeys: []Expr{col(0)}, RightKeys: []Expr{col(2)}},
			"loop": &NestedLoop{Left: left, Right: right, Kind: kind, On: eqCall(col(0), col(2))},
			// A small left input gets built instead of the right one.
			"hash-small-left": &HashJoin{Left: values([]any{2, 20}, []any{2, 21}, []any{nil, 30}, []any{1, 10}, []any{4, 40}), Right: values([]any{2, 200}, []any{nil, 300}, []any{5, 500}, []any{2, 201}, []any{7, 700}, []any{8, 800}, []any{9, 900}), Kind: kind, LeftKeys: []Expr{col(0)}, RightKeys: []Expr{col(2)}},
		}
		for name, p := range plans {
			got := rowsOf(t, testEnv(), p)
			exp := w
			if name == "hash-small-left" && kind.KeepsRight() {
				exp = append(slices.Clone(w), "NULL,NULL,7,700", "NULL,NULL,8,800", "NULL,NULL,9,900")
				slices.Sort(exp)
			}
			if !slices.Equal(got, exp) {
				t.Errorf("%s join %d: got %v, want %v", name, kind, got, exp)
			}
		}
	}
}

// TestHashJoinResidual checks that a residual condition decides matches
// (and so which rows an outer join pads).
func TestHashJoinResidual(t *testing.T) {
	left := values([]any{1, 1}, []any{1, 2})
	right := values([]any{1, 2}, []any{1, 3})
	gt := &Call{Name: ">", Fn: CompareOp(">"), Args: []Expr{col(3), col(1)}, Strict: true, T: TBool}
	p := &HashJoin{Left: left, Right: right, Kind: FullJoin, LeftKeys: []Expr{col(0)}, RightKeys: []Expr{col(2)}, Residual: gt}
	got := rowsOf(t, testEnv(), p)
	want := []string{"1,1,1,2", "1,1,1,3", "1,2,1,3"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestSharedHashJoin checks that a shared build side is reused, within one
// statement, by later opens.
func TestSharedHashJoin(t *testing.T) {
	p := &HashJoin{Left: values([]any{1}), Right: values([]any{1}, []any{2}), Kind: InnerJoin,
		LeftKeys: []Expr{col(0)}, RightKeys: []Expr{col(1)}, Shared: SharedRight}
	env := testEnv()
	for i := 0; i < 3; i++ {
		if got := rowsOf(t, env.child(nil), p); !slices.Equal(got, []string{"1,1"}) {
			t.Fatalf("open %d: %v", i, got)
		}
	}
	if _, ok := env.shared(p); !ok {
		t.Error("the build side was not kept in the outermost frame")
	}
}

// TestSetOps checks the multiset rules of the set operations, NULLs
// being equal.
func TestSetOps(t *testing.T) {
	l := values([]any{1}, []any{1}, []any{1}, []any{2}, []any{nil}, []any{nil})
	r := values([]any{1}, []any{nil}, []any{3})
	for _, tc := range []struct {
		kind SetOpKind
		all  bool
		want []string
	}{
		{Union, false, []string{"1", "2", "3", "NULL"}},
		{Union, true, []string{"1", "1", "1", "1", "2", "3", "NULL", "NULL", "NULL"}},
		{Intersect, false, []string{"1", "NULL"}},
		{Intersect, true, []string{"1", "NULL"}},
		{Except, false, []string{"2"}},
		{Except, true, []string{"1", "1", "2", "NULL"}},
	} {
		p := &SetOp{Kind: tc.kind, All: tc.all, Left: l, Right: r, Cols: l.Cols}
		if got := rowsOf(t, testEnv(), p); !slices.Equal(got, tc.want) {
			t.Errorf("%d all=%v: got %v, want %v", tc.kind, tc.all, got, tc.want)
		}
	}
}
