package ispell

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// FuzzLoad feeds arbitrary bytes as both files. Load must not panic or
// hang, must fail only with a PostgreSQL error, and a dictionary it
// returns must answer Lexize, for words taken from the files, without
// panicking, quickly.
func FuzzLoad(f *testing.F) {
	for _, dc := range ownCases {
		dict, err1 := os.ReadFile(filepath.Join("testdata", dc.name+".dict"))
		affix, err2 := os.ReadFile(filepath.Join("testdata", dc.name+".affix"))
		if err1 != nil || err2 != nil {
			f.Fatal(err1, err2)
		}
		f.Add(dict, affix)
	}
	f.Add([]byte("book/GJUS\nfoot/ZS\nball/SZ\\\nfootball/Z\n"), []byte("compoundwords controlled Z\nprefixes\nflag *B:\n    .  > RE\nsuffixes\nflag *S:\n    [^SXZHY] > S\nflag ~\\:\n    [^Y] > Y\n"))
	f.Add([]byte("book/1\nfoot/2\n"), []byte("FLAG long\nAF 2\nAF sGsS\nAF cZsS\nCOMPOUNDFLAG cZ\nSFX sS Y 1\nSFX sS 0 s/2 [^sxzhy]\n"))
	f.Add([]byte("book/302,301\nfoot/101\n"), []byte("FLAG num\nCOMPOUNDFLAG 101\nSFX 301 Y 1\nSFX 301 0 ings [^e]\nSFX 302 N 1\nSFX 302 y ies a{1}\n"))
	f.Fuzz(func(t *testing.T, dict, affix []byte) {
		d, err := Load(bytes.NewReader(dict), bytes.NewReader(affix))
		if err != nil {
			if pgerr.CodeOf(err) == "" || pgerr.CodeOf(err) == pgerr.InternalError && !strings.HasPrefix(err.Error(), "invalid memory alloc request size") {
				t.Fatalf("error without a SQLSTATE of its own: %v", err)
			}
			return
		}
		// Compound splitting takes time exponential in the length of a
		// word made of short dictionary words, in PostgreSQL too; words of
		// at most 12 bytes keep the check quick.
		words := strings.FieldsFunc(string(dict)+" "+string(affix), func(r rune) bool {
			return r == '\n' || r == ' ' || r == '/' || r == '\t'
		})
		if len(words) > 20 {
			words = words[:20]
		}
		for i, w := range words {
			if len(w) > 6 {
				words[i] = w[:6]
			}
		}
		start := time.Now()
		for i, w := range words {
			d.Lexize(w)
			if i > 0 {
				d.Lexize(words[i-1] + w)
			}
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Fatalf("Lexize took %v", el)
		}
	})
}
