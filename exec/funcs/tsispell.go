package funcs

import (
	"bufio"

	"github.com/prollypg/prollypg/exec/funcs/ispell"
)

// ispell reads an Ispell dictionary's word file dictName.dict and affix
// file affName.affix and returns its lexize: the normal forms of a token,
// each variant numbered; ok is false for a word the dictionary does not
// know.
func (ts *TextSearch) ispell(dictName, affName string) (func(string) ([]tsLexeme, bool), error) {
	df, err := ts.file(dictName, "dict", "dictionary")
	if err != nil {
		return nil, err
	}
	defer df.Close()
	af, err := ts.file(affName, "affix", "affix")
	if err != nil {
		return nil, err
	}
	defer af.Close()
	d, err := ispell.Load(bufio.NewReader(df), bufio.NewReader(af))
	if err != nil {
		return nil, err
	}
	return func(tok string) ([]tsLexeme, bool) {
		forms := d.Lexize(tok)
		if forms == nil {
			return nil, false
		}
		out := make([]tsLexeme, len(forms))
		for i, f := range forms {
			out[i] = tsLexeme{word: f.Word, variant: f.Variant}
		}
		return out, true
	}, nil
}
