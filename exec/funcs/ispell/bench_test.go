package ispell

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
)

// bigDictionary makes a dictionary file of n distinct made-up words with
// flags, and an affix file of a few dozen rules, in the hunspell format.
func bigDictionary(n int) (dict, affix string) {
	r := rand.New(rand.NewSource(1))
	const letters = "abcdefghiklmnoprstuvy"
	flags := []string{"", "S", "SD", "SG", "SDG", "SDGU", "RS", "SZ", "Z", "A"}
	seen := make(map[string]bool, n)
	var b strings.Builder
	for len(seen) < n {
		w := make([]byte, 4+r.Intn(9))
		for i := range w {
			w[i] = letters[r.Intn(len(letters))]
		}
		if seen[string(w)] {
			continue
		}
		seen[string(w)] = true
		b.Write(w)
		if f := flags[r.Intn(len(flags))]; f != "" {
			b.WriteString("/" + f)
		}
		b.WriteByte('\n')
	}
	affix = `COMPOUNDFLAG Z
PFX U Y 1
PFX U 0 un .
PFX R Y 2
PFX R 0 re [^e]
PFX R 0 re- e
SFX S Y 4
SFX S 0 s [^sxzhy]
SFX S 0 es [sxzh]
SFX S y ies [^aeiou]y
SFX S 0 s [aeiou]y
SFX D Y 4
SFX D 0 d e
SFX D 0 ed [^ey]
SFX D y ied [^aeiou]y
SFX D 0 ed [aeiou]y
SFX G Y 2
SFX G e ing e
SFX G 0 ing [^e]
SFX A Y 1
SFX A y ies [^aeiou]y
`
	return b.String(), affix
}

func BenchmarkLoad100k(b *testing.B) {
	dict, affix := bigDictionary(100000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Load(strings.NewReader(dict), strings.NewReader(affix)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLexize(b *testing.B) {
	for _, name := range []string{"ispell_sample", "hunspell_sample_long"} {
		d, err := loadFiles(filepath.Join(tsearchData, name+".dict"), filepath.Join(tsearchData, name+".affix"))
		if err != nil {
			b.Skip(err)
		}
		for _, w := range []string{"bookings", "unknown", "footballklubber"} {
			b.Run(fmt.Sprintf("%s/%s", name, w), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					d.Lexize(w)
				}
			})
		}
	}
	d, err := loadFiles(filepath.Join("testdata", "harbor_num.dict"), filepath.Join("testdata", "harbor_num.affix"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("harbor_num/shipping", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			d.Lexize("shipping")
		}
	})
}

// TestLexizeAllocations: in a dictionary without compounds, Lexize
// allocates its result and nothing else: the slice and the affixed forms
// (the word itself is not copied), and for an unknown word nothing.
func TestLexizeAllocations(t *testing.T) {
	d, err := Load(strings.NewReader("book/SG\ncat/S\nbooking\n"), strings.NewReader(`SFX S Y 1
SFX S 0 s [^sxzhy]
SFX G Y 2
SFX G 0 ing [^e]
SFX G e ing e
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		word   string
		allocs float64
	}{
		{"unknown", 0},
		{"cat", 1},     // the slice
		{"cats", 2},    // the slice and "cat"
		{"booking", 2}, // the slice (and its growth) and "book": "booking" is the input
		{"Cats", 3},    // and the folded input
	} {
		var got []Lexeme
		n := testing.AllocsPerRun(100, func() { got = d.Lexize(c.word) })
		if n > c.allocs {
			t.Errorf("Lexize(%q) = %v: %v allocations, want at most %v", c.word, got, n, c.allocs)
		}
	}
}
