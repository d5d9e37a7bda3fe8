package funcs

import (
	"bufio"
	"strings"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// thesaurus is a thesaurus dictionary (the thesaurus template): phrases
// of words, each word normalized by the subdictionary, and the words that
// replace a phrase found in a document, each taking a position of its
// own. A phrase's stop word is written ? and matches any stop word; a
// replacement word written *word stands as it is, the others are
// normalized by the subdictionary too.
type thesaurus struct {
	sub   *tsDictionary
	rules []thesaurusRule
	// longest is the most words a phrase has.
	longest int
}

// thesaurusRule is one line of a thesaurus file: the normalized words of
// a phrase ("" for ?) and its replacement.
type thesaurusRule struct {
	in  []string
	out []tsLexeme
}

// thesaurus reads the thesaurus file name.ths, normalizing its words with
// sub, with PostgreSQL's errors for a word sub does not know.
func (ts *TextSearch) thesaurus(name string, sub *tsDictionary) (*thesaurus, error) {
	f, err := ts.file(name, "ths", "thesaurus")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	th := &thesaurus{sub: sub}
	sc := bufio.NewScanner(f)
	for line := 0; sc.Scan(); {
		text, _, _ := strings.Cut(sc.Text(), "#")
		left, right, ok := strings.Cut(text, ":")
		if !ok || strings.TrimSpace(left) == "" {
			continue
		}
		line++
		var r thesaurusRule
		for _, w := range strings.Fields(left) {
			if w == "?" {
				r.in = append(r.in, "")
				continue
			}
			ls, known := sub.lexize(w)
			switch {
			case !known:
				return nil, pgerr.New(pgerr.ConfigFileError, "thesaurus sample word %q isn't recognized by subdictionary (rule %d)", w, line)
			case len(ls) == 0:
				return nil, pgerr.New(pgerr.ConfigFileError, "thesaurus sample word %q is a stop word (rule %d)", w, line).
					WithHint("Use \"?\" to represent a stop word within a sample phrase.")
			}
			r.in = append(r.in, ls[0].word)
		}
		for _, w := range strings.Fields(right) {
			if lit, ok := strings.CutPrefix(w, "*"); ok {
				r.out = append(r.out, tsLexeme{word: lit})
				continue
			}
			ls, known := sub.lexize(w)
			switch {
			case !known:
				return nil, pgerr.New(pgerr.ConfigFileError, "thesaurus substitute word %q isn't recognized by subdictionary (rule %d)", w, line)
			case len(ls) == 0:
				return nil, pgerr.New(pgerr.ConfigFileError, "thesaurus substitute word %q is a stop word (rule %d)", w, line)
			}
			r.out = append(r.out, tsLexeme{word: ls[0].word})
		}
		if len(r.out) == 0 {
			return nil, pgerr.New(pgerr.ConfigFileError, "thesaurus substitute phrase is empty (rule %d)", line)
		}
		th.rules = append(th.rules, r)
		th.longest = max(th.longest, len(r.in))
	}
	return th, sc.Err()
}

// match finds the longest phrase that words begin with (the first of
// equal length in the file wins) and returns how many words it takes and
// its replacement; n is 0 when no phrase matches.
func (th *thesaurus) match(words []string) (n int, out []tsLexeme) {
	norm := make([][]tsLexeme, len(words))
	known := make([]bool, len(words))
	for i, w := range words {
		norm[i], known[i] = th.sub.lexize(w)
	}
	for _, r := range th.rules {
		if len(r.in) <= n || len(r.in) > len(words) {
			continue
		}
		if r.matches(norm, known) {
			n, out = len(r.in), r.out
		}
	}
	return n, out
}

// matches reports whether the words normalized as norm (known false: the
// subdictionary does not know the word) begin with the rule's phrase.
func (r thesaurusRule) matches(norm [][]tsLexeme, known []bool) bool {
	for j, want := range r.in {
		if !known[j] {
			return false
		}
		if want == "" {
			if len(norm[j]) != 0 {
				return false
			}
			continue
		}
		found := false
		for _, l := range norm[j] {
			if l.word == want {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// phraseAt tries thesaurus d on the tokens from i: the words of the
// tokens that reach d (tokens no dictionary takes, such as blanks, are
// passed over; a token d is not offered ends the phrase). Once a phrase
// has begun, its words go to d alone, as in PostgreSQL, even those a
// dictionary before d would know. It returns the replacement and the
// index of the phrase's last token; n is 0 when no phrase matches.
func (c *tsConfig) phraseAt(d *tsDictionary, toks []textToken, i int) (n int, out []tsLexeme, last int) {
	var words []string
	var at []int
	for j := i; j < len(toks) && len(words) < d.phrases.longest; j++ {
		ds := c.dicts[toks[j].typ]
		if len(ds) == 0 {
			continue
		}
		if indexDict(ds, d) < 0 {
			break
		}
		words, at = append(words, toks[j].text), append(at, j)
	}
	if n, out = d.phrases.match(words); n == 0 {
		return 0, nil, i
	}
	return n, out, at[n-1]
}

// indexDict returns d's place in ds, -1 when it is not there.
func indexDict(ds []*tsDictionary, d *tsDictionary) int {
	for k, x := range ds {
		if x == d {
			return k
		}
	}
	return -1
}
