package funcs

import (
	"slices"
	"testing"
)

// FuzzTrigrams runs pg_trgm's computations over arbitrary strings,
// invalid UTF-8 included: nothing may panic, a set is sorted and
// distinct, similarities lie in [0, 1], a string with trigrams is
// wholly similar to itself, and the similarity is symmetric.
func FuzzTrigrams(f *testing.F) {
	for _, s := range []string{"", "a", "word", "two words", "Ünïcödé straße", "中文 x٣y", "\xff\xfeab", "a-b_c d", "aaaa aaa aa"} {
		f.Add(s, "two words")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		sa, sb := trigramSet(a), trigramSet(b)
		if !slices.IsSortedFunc(sa, compareTrigram) || len(slices.CompactFunc(slices.Clone(sa), func(x, y trigram) bool { return x == y })) != len(sa) {
			t.Fatalf("%q: trigram set %v is not sorted and distinct", a, sa)
		}
		for _, v := range []float32{trigramSimilarity(sa, sb), wordSimilarity(a, b, false), wordSimilarity(a, b, true)} {
			if v < 0 || v > 1 {
				t.Fatalf("%q, %q: similarity %v out of [0, 1]", a, b, v)
			}
		}
		if trigramSimilarity(sa, sb) != trigramSimilarity(sb, sa) {
			t.Fatalf("%q, %q: similarity is not symmetric", a, b)
		}
		if len(sa) > 0 && (trigramSimilarity(sa, sa) != 1 || wordSimilarity(a, a, false) != 1 || wordSimilarity(a, a, true) != 1) {
			t.Fatalf("%q: not wholly similar to itself", a)
		}
		for _, t0 := range sa {
			_ = showTrigram(t0)
		}
	})
}
