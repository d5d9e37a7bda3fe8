package dolt

import (
	"slices"
	"testing"

	"github.com/prollypg/prollypg/versioning/sqldef"
)

// TestEnumChangeSQL checks the ALTER TYPE statements of an enum's
// changes, and that changes PostgreSQL cannot make in place have none.
func TestEnumChangeSQL(t *testing.T) {
	labels := func(ls ...string) []sqldef.EnumLabel {
		out := make([]sqldef.EnumLabel, len(ls))
		for i, l := range ls {
			out[i] = sqldef.EnumLabel{Label: l, Sort: float64(i + 1)}
		}
		return out
	}
	for _, tc := range []struct {
		from, to []sqldef.EnumLabel
		want     []string
		ok       bool
	}{
		{labels("a", "b"), labels("a", "x", "b", "y"), []string{
			"ALTER TYPE e ADD VALUE 'x' BEFORE 'b';", "ALTER TYPE e ADD VALUE 'y';"}, true},
		{labels("a", "b"), labels("a", "c"), []string{"ALTER TYPE e RENAME VALUE 'b' TO 'c';"}, true},
		{labels("a", "b"), labels("b", "a", "c"), nil, false},
		{labels("a", "b", "c"), labels("a", "c"), nil, false},
	} {
		got, ok := enumChangeSQL("e", tc.from, tc.to)
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("%v -> %v: %q, %v; want %q, %v", tc.from, tc.to, got, ok, tc.want, tc.ok)
		}
	}
}
