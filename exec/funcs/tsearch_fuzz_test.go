package funcs

import (
	"strings"
	"testing"

	"github.com/prollypg/prollypg/exec/types"
)

// FuzzTextSearchDocument parses arbitrary text as a document and as query
// text in each syntax, under both configurations: nothing may panic, every
// token is a piece of the document, and the tsvector and tsquery made
// print text that reads back.
func FuzzTextSearchDocument(f *testing.F) {
	for _, s := range []string{
		"The quick brown foxes", "qwe@efd.r http://www.com/ 5aew.werc.ewr:8100/?xx", "<a href=\"x<y>\">foo</a> &amp; &#x41;",
		"readline-4.2 +4.0e-10 1.2.3 /usr/lib x.y/z", "\"fat rat\" or -cat", "a <-> (b | !c):*AB", "über-cool café", "'\\",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range parseText(s) {
			if !strings.Contains(s, tok.text) || tok.text == "" {
				t.Fatalf("%q: token %q is not a piece of the document", s, tok.text)
			}
		}
		for _, c := range tsConfigs {
			v := c.toTSVector(s)
			if _, err := types.ParseTSVector(string(types.AppendTSVector(nil, v))); err != nil {
				t.Fatalf("%q: tsvector %s does not read back: %v", s, types.AppendTSVector(nil, v), err)
			}
			for _, syntax := range []types.TSQuerySyntax{types.TSQueryStandard, types.TSQueryPlain, types.TSQueryWebSearch} {
				q, _, err := types.ParseTSQueryWith(s, syntax, c.queryOperand(types.TSPhrase))
				if err != nil {
					continue
				}
				if _, _, err := types.ParseTSQuery(string(types.AppendTSQuery(nil, q))); err != nil {
					t.Fatalf("%q: tsquery %s does not read back: %v", s, types.AppendTSQuery(nil, q), err)
				}
				tsMatch(v, q)
			}
		}
	})
}
