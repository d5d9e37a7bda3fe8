package exec_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/prollypg/prollypg/exec"
	_ "github.com/prollypg/prollypg/exec/funcs" // count and sum
)

// TestAggregateGroups checks grouping with NULL keys, DISTINCT and the
// one row of an aggregate without keys over no input. It is an external
// test, as the aggregates it groups by are the library's.
func TestAggregateGroups(t *testing.T) {
	count, _, _ := exec.LookupAgg("count", []exec.T{exec.TInt4})
	sum, _, _ := exec.LookupAgg("sum", []exec.T{exec.TInt4})
	col := func(i int) exec.Expr { return &exec.ColRef{Idx: i, T: exec.TInt4} }
	in := int4Values([]any{1, 5}, []any{nil, 6}, []any{1, 5}, []any{nil, nil}, []any{2, 7})
	p := &exec.Aggregate{In: in, Keys: []exec.Expr{col(0)}, Aggs: []*exec.AggCall{
		{Func: count, ArgTypes: []exec.T{exec.TInt4}, Args: []exec.Expr{col(1)}},
		{Func: sum, ArgTypes: []exec.T{exec.TInt4}, Args: []exec.Expr{col(1)}, Distinct: true},
	}}
	got := int4Rows(t, p)
	want := []string{"1,2,5", "2,1,7", "NULL,1,6"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	empty := &exec.Aggregate{In: &exec.Values{Cols: in.Cols}, Aggs: []*exec.AggCall{
		{Func: count, ArgTypes: []exec.T{exec.TInt4}, Args: []exec.Expr{col(1)}},
		{Func: sum, ArgTypes: []exec.T{exec.TInt4}, Args: []exec.Expr{col(1)}},
	}}
	if got := int4Rows(t, empty); !slices.Equal(got, []string{"0,NULL"}) {
		t.Errorf("no input: %v", got)
	}
}

// int4Values returns a plan of int4 rows; nil entries are NULLs.
func int4Values(rows ...[]any) *exec.Values {
	v := &exec.Values{}
	for _, r := range rows {
		var exprs []exec.Expr
		for _, x := range r {
			d := exec.Null
			if x != nil {
				d = exec.DInt(int64(x.(int)))
			}
			exprs = append(exprs, &exec.Const{D: d, T: exec.TInt4})
		}
		v.Rows = append(v.Rows, exprs)
	}
	for i := range rows[0] {
		v.Cols = append(v.Cols, exec.ResultColumn{Name: fmt.Sprint("c", i), T: exec.TInt4})
	}
	return v
}

// int4Rows runs p and prints its rows of integers, sorted, as "1,NULL".
func int4Rows(t *testing.T, p exec.Plan) []string {
	t.Helper()
	rows, err := p.Open(&exec.Env{Ctx: context.Background()})
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for {
		r, err := rows.Next()
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			break
		}
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

// BenchmarkAggregate groups 10,000 rows into 100 groups with count and
// sum.
func BenchmarkAggregate(b *testing.B) {
	count, _, _ := exec.LookupAgg("count", nil)
	sum, _, _ := exec.LookupAgg("sum", []exec.T{exec.TInt4})
	in := &exec.Values{Cols: []exec.ResultColumn{{Name: "a", T: exec.TInt4}, {Name: "b", T: exec.TInt4}}}
	for i := 0; i < 10000; i++ {
		in.Rows = append(in.Rows, []exec.Expr{&exec.Const{D: exec.DInt(int64(i)), T: exec.TInt4}, &exec.Const{D: exec.DInt(int64(i % 100)), T: exec.TInt4}})
	}
	p := &exec.Aggregate{In: in, Keys: []exec.Expr{&exec.ColRef{Idx: 1, T: exec.TInt4}}, Aggs: []*exec.AggCall{
		{Func: count}, {Func: sum, ArgTypes: []exec.T{exec.TInt4}, Args: []exec.Expr{&exec.ColRef{Idx: 0, T: exec.TInt4}}},
	}}
	env := &exec.Env{Ctx: context.Background()}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rows, err := p.Open(env)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			r, err := rows.Next()
			if err != nil {
				b.Fatal(err)
			}
			if r == nil {
				break
			}
			n++
		}
		rows.Close()
		if n != 100 {
			b.Fatal(n)
		}
	}
}
