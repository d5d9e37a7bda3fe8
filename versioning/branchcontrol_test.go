package versioning

import "testing"

func TestLikeMatch(t *testing.T) {
	for _, c := range []struct {
		p, s string
		fold bool
		want bool
	}{
		{"%", "", false, true}, {"%", "main", false, true}, {"main", "MAIN", true, true}, {"main", "MAIN", false, false},
		{"agent/%", "agent/x", true, true}, {"agent/%", "agents", true, false}, {"prefix___", "prefix123", true, true},
		{"prefix___", "prefix12", true, false}, {"a\\%", "a%", true, true}, {"a\\%", "ab", true, false},
		{"%b%c", "abxbc", true, true}, {"%b%c", "abxbd", true, false},
	} {
		if got := likeMatch(c.p, c.s, c.fold); got != c.want {
			t.Errorf("likeMatch(%q, %q) = %v, want %v", c.p, c.s, got, c.want)
		}
	}
}

// TestBranchControl: the most specific entries decide, for writing and
// for creating branches (Doltgres's namespace scenario).
func TestBranchControl(t *testing.T) {
	bc := defaultBranchControl()
	if _, w, _ := bc.Permissions("db", "main", "anyone", "localhost"); !w {
		t.Fatal("the default does not let everyone write")
	}
	bc.Access = []BranchAccess{
		{"%", "%", "postgres", "%", []string{"admin"}},
		{"%", "%", "agent", "%", []string{"read"}},
		{"%", "agent/%", "agent", "%", []string{"write"}},
	}
	for _, c := range []struct {
		user, branch string
		admin, write bool
	}{
		{"postgres", "main", true, true}, {"agent", "main", false, false}, {"agent", "agent/x", false, true},
		{"other", "main", false, false},
	} {
		a, w, _ := bc.Permissions("db", c.branch, c.user, "localhost")
		if a != c.admin || w != c.write {
			t.Errorf("%s on %s: admin %v write %v, want %v %v", c.user, c.branch, a, w, c.admin, c.write)
		}
	}
	if !bc.MayCreate("db", "otherbranch1", "testuser", "localhost") {
		t.Fatal("no namespace entry, and the creation is refused")
	}
	bc.Namespace = []BranchNamespace{{"%", "other%", "postgres", "%"}}
	if bc.MayCreate("db", "otherbranch2", "testuser", "localhost") || !bc.MayCreate("db", "otherbranch2", "postgres", "localhost") {
		t.Fatal("other% is postgres's")
	}
	bc.Namespace = append(bc.Namespace, BranchNamespace{"%", "other%", "testuser", "%"}, BranchNamespace{"%", "otherbranch%", "postgres", "%"})
	if bc.MayCreate("db", "otherbranch3", "testuser", "localhost") {
		t.Fatal("the longer match otherbranch% is postgres's alone")
	}
	if !bc.MayCreate("db", "other3", "testuser", "localhost") {
		t.Fatal("other3 matches other% only, which testuser has")
	}
}
