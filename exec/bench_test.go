package exec

import "testing"

// seqValues returns a plan of n rows (i, i % mod) of int4 constants.
func seqValues(n, mod int) *Values {
	v := &Values{Cols: []ResultColumn{{Name: "a", T: TInt4}, {Name: "b", T: TInt4}}}
	for i := 0; i < n; i++ {
		v.Rows = append(v.Rows, []Expr{&Const{D: DInt(int64(i)), T: TInt4}, &Const{D: DInt(int64(i % mod)), T: TInt4}})
	}
	return v
}

func consume(b *testing.B, p Plan) int {
	rows, err := p.Open(testEnv())
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for {
		r, err := rows.Next()
		if err != nil {
			b.Fatal(err)
		}
		if r == nil {
			return n
		}
		n++
	}
}

// BenchmarkHashJoin joins 10,000 rows with 1,000 on an int key; the
// allocations are those of the build side's copies and table.
func BenchmarkHashJoin(b *testing.B) {
	p := &HashJoin{Left: seqValues(10000, 1000), Right: seqValues(1000, 1000), Kind: InnerJoin,
		LeftKeys: []Expr{&ColRef{Idx: 1, T: TInt4}}, RightKeys: []Expr{&ColRef{Idx: 2, T: TInt4}}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if n := consume(b, p); n != 10000 {
			b.Fatal(n)
		}
	}
}
