package planner

import "testing"

// TestPredicateImplies checks the inference WHERE clauses that imply a
// partial index's predicate, as PostgreSQL's predicate_implied_by proves
// them for comparisons with constants.
func TestPredicateImplies(t *testing.T) {
	for _, tc := range []struct {
		where, pred string
		want        bool
	}{
		{"COALESCE(a, 1) > 1", "COALESCE(a, 1) > 0", true},
		{"COALESCE(a, 1) > 0", "COALESCE(a, 1) > 0", true},
		{"a > 0", "a > 1", false},
		{"a >= 1", "a > 1", false},
		{"a = 1", "a > 1", false},
		{"a = 2", "a > 1", true},
		{"a = 1", "a >= 1", true},
		{"a < 5", "a <= 5", true},
		{"a <= 5", "a < 5", false},
		{"b = 1 AND a > 3", "a > 2", true},
		{"b > 3", "a > 2", false},
		{"", "a > 2", false},
	} {
		if got := predicateImplies(tc.where, tc.pred); got != tc.want {
			t.Errorf("%q implies %q: %v, want %v", tc.where, tc.pred, got, tc.want)
		}
	}
}
