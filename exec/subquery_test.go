package exec

import "testing"

// TestInNullSemantics checks x IN (q) and x NOT IN (q) with NULLs on
// either side, through the hashed path (uncorrelated) and the scanning
// path (correlated), which must agree with SQL's three-valued logic.
func TestInNullSemantics(t *testing.T) {
	show := func(d Datum) string {
		switch {
		case d.IsNull():
			return "NULL"
		case d.Bool():
			return "t"
		}
		return "f"
	}
	sub := func(rows ...[]any) Plan { return values(rows...) }
	for _, tc := range []struct {
		x         any
		rows      [][]any
		in, notIn string
	}{
		{1, [][]any{{1}, {2}}, "t", "f"},
		{3, [][]any{{1}, {2}}, "f", "t"},
		{3, [][]any{{1}, {nil}}, "NULL", "NULL"},
		{1, [][]any{{1}, {nil}}, "t", "f"},
		{nil, [][]any{{1}}, "NULL", "NULL"},
		{nil, nil, "f", "t"},
		{3, nil, "f", "t"},
	} {
		var q Plan = sub(tc.rows...)
		if tc.rows == nil {
			q = &Values{Cols: []ResultColumn{{Name: "c0", T: TInt4}}}
		}
		x := values([]any{tc.x})
		xval := x.Rows[0][0]
		test := eqCall(&ColRef{Idx: 0, T: TInt4}, &ColRef{Idx: 1, T: TInt4})
		hashed := &SubPlan{Kind: AnySub, Plan: q, Left: []Expr{xval}, Test: test,
			LeftKeys: []Expr{&ColRef{Idx: 0, T: TInt4}}, RightKeys: []Expr{&ColRef{Idx: 1, T: TInt4}}, T: TBool}
		// A correlated subplan takes the scanning path; its argument is
		// not read by the plan.
		scanned := &SubPlan{Kind: AnySub, Plan: q, Args: []Expr{&Const{D: DInt(0), T: TInt4}}, Left: []Expr{xval}, Test: test, T: TBool}
		for name, sp := range map[string]*SubPlan{"hashed": hashed, "scanned": scanned} {
			d, err := sp.Eval(testEnv(), nil)
			if err != nil {
				t.Fatal(err)
			}
			not, err := (&Not{E: sp}).Eval(testEnv(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if show(d) != tc.in || show(not) != tc.notIn {
				t.Errorf("%s: %v IN %v = %s, NOT IN = %s; want %s, %s", name, tc.x, tc.rows, show(d), show(not), tc.in, tc.notIn)
			}
		}
	}
}

// TestScalarSubplan checks the cardinality rules of a scalar subquery.
func TestScalarSubplan(t *testing.T) {
	one := &SubPlan{Kind: ScalarSub, Plan: values([]any{7}), T: TInt4}
	if d, err := one.Eval(testEnv(), nil); err != nil || d.I != 7 {
		t.Errorf("one row: %v, %v", d, err)
	}
	none := &SubPlan{Kind: ScalarSub, Plan: &Values{Cols: []ResultColumn{{T: TInt4}}}, T: TInt4}
	if d, err := none.Eval(testEnv(), nil); err != nil || !d.IsNull() {
		t.Errorf("no rows: %v, %v", d, err)
	}
	two := &SubPlan{Kind: ScalarSub, Plan: values([]any{1}, []any{2}), T: TInt4}
	if _, err := two.Eval(testEnv(), nil); err == nil || err.Error() != "more than one row returned by a subquery used as an expression" {
		t.Errorf("two rows: %v", err)
	}
}
