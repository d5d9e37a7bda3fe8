package funcs

import "github.com/prollypg/prollypg/exec/pgerr"

// ispell reads an Ispell dictionary's word and affix files.
func (ts *TextSearch) ispell(dictName, affName string) (func(string) ([]tsLexeme, bool), error) {
	return nil, pgerr.New(pgerr.FeatureNotSupported, "ispell dictionaries are not supported yet")
}
