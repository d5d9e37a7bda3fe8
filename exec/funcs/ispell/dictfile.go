package ispell

import "strings"

// spell is one line of the dictionary file: a word and its flag set.
type spell struct {
	word string // lower-cased
	flag string // the flag set as written; "" for none
	set  int    // its index in the builder's affixData, once sorted
}

// importDictionary reads the dictionary file, PostgreSQL's
// NIImportDictionary. A line is a word, optionally followed by "/" and
// its flags; the word ends at the first white space, the flags at the
// first character that is not printable ASCII or is a space. Nothing can
// be wrong with a line but its encoding; a line that is empty or starts
// with a space gives an empty word, which PostgreSQL keeps (its flags
// still count as a flag set in use) but which no lookup can find.
func (b *builder) importDictionary(data string) error {
	return eachLine(data, func(line string) error {
		word, flag := line, ""
		if i := strings.IndexByte(line, '/'); i >= 0 {
			word, flag = line[:i], line[i+1:]
			for j := 0; j < len(flag); j++ {
				if c := flag[j]; !isPrint(c) || c == ' ' {
					flag = flag[:j]
					break
				}
			}
		}
		for j := 0; j < len(word); j++ {
			if isSpace(word[j]) {
				word = word[:j]
				break
			}
		}
		b.spells = append(b.spells, spell{word: lower(word), flag: flag})
		return nil
	})
}
