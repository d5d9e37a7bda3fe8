package funcs

import (
	"strings"

	"github.com/kljensen/snowball/english"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// tsDictionary is a text search dictionary: lexize turns a token into its
// lexemes, none for a stop word.
type tsDictionary struct {
	name   string
	lexize func(token string) []string
}

// tsConfig is a text search configuration: the default parser with a
// dictionary for each token type it indexes; tokens of other types (tags,
// protocols, entities, blanks) are skipped and take no position.
type tsConfig struct {
	name string
	dict [tokTypes + 1]*tsDictionary
}

// The built-in dictionaries. simple lowercases; english_stem lowercases,
// drops PostgreSQL's english stop words and reduces the rest with the
// Snowball english (Porter2) stemmer, as PostgreSQL's snowball template.
var (
	simpleDict = &tsDictionary{name: "simple", lexize: func(tok string) []string {
		return []string{strings.ToLower(tok)}
	}}
	englishStemDict = &tsDictionary{name: "english_stem", lexize: func(tok string) []string {
		w := strings.ToLower(tok)
		if englishStopWords[w] {
			return []string{}
		}
		return []string{english.Stem(w, true)}
	}}
)

// tsDictionaries are the dictionaries by name.
var tsDictionaries = map[string]*tsDictionary{"simple": simpleDict, "english_stem": englishStemDict}

// tsConfigs are the built-in configurations, simple and english, mapped
// as PostgreSQL's initdb maps them: words to the language's dictionary,
// numbers, addresses and file names to simple.
var tsConfigs = func() map[string]*tsConfig {
	simple := &tsConfig{name: "simple"}
	english := &tsConfig{name: "english"}
	for typ := 1; typ <= tokTypes; typ++ {
		switch typ {
		case tokBlank, tokTag, tokProtocol, tokEntity:
			continue
		}
		simple.dict[typ], english.dict[typ] = simpleDict, simpleDict
	}
	for _, typ := range []int{tokASCIIWord, tokWord, tokASCIIHWord, tokHWord, tokHWordASCIIPart, tokHWordPart} {
		english.dict[typ] = englishStemDict
	}
	return map[string]*tsConfig{"simple": simple, "english": english}
}()

// tsConfigByName finds a configuration as regconfig input does: a name,
// optionally schema-qualified with pg_catalog, unquoted names folded to
// lower case.
func tsConfigByName(name string) (*tsConfig, error) {
	n := strings.TrimSpace(name)
	if strings.HasPrefix(n, `"`) && strings.HasSuffix(n, `"`) && len(n) > 1 {
		n = n[1 : len(n)-1]
	} else {
		n = strings.ToLower(n)
	}
	n = strings.TrimPrefix(n, "pg_catalog.")
	if c, ok := tsConfigs[n]; ok {
		return c, nil
	}
	return nil, pgerr.New(pgerr.UndefinedObject, "text search configuration %q does not exist", name)
}

// parsedWord is a lexeme of a document at its position.
type parsedWord struct {
	word string
	pos  int
}

// parse splits a document into its lexemes with their positions, as
// PostgreSQL's parsetext: every token the configuration indexes takes the
// next position, stop words included, so phrases keep their distances.
func (c *tsConfig) parse(doc string) []parsedWord {
	var words []parsedWord
	pos := 0
	for _, tok := range parseText(doc) {
		d := c.dict[tok.typ]
		if d == nil || len(tok.text) >= types.TSMaxLexemeBytes {
			continue
		}
		pos++
		for _, l := range d.lexize(tok.text) {
			words = append(words, parsedWord{l, min(pos, types.TSMaxPosition)})
		}
	}
	return words
}

// toTSVector is to_tsvector: a document's lexemes with their positions.
func (c *tsConfig) toTSVector(doc string) types.TSVector {
	words := c.parse(doc)
	v := make(types.TSVector, len(words))
	for i, w := range words {
		v[i] = types.TSLexeme{Word: w.word, Pos: []types.TSPosition{types.NewTSPosition(w.pos, 0)}}
	}
	return types.NormalizeTSVector(v)
}

// queryOperand is pushval_morph: an operand of query text becomes the
// lexemes of its words joined by op (<-> for to_tsquery, & for
// plainto_tsquery), with a stop word's place kept between two words so
// that phrase distances count it; an operand without lexemes is a stop
// word.
func (c *tsConfig) queryOperand(op types.TSOp) types.TSQueryOperand {
	return func(out []*types.TSQueryNode, word string, weights uint8, prefix bool) ([]*types.TSQueryNode, error) {
		words := c.parse(word)
		if len(words) == 0 {
			return types.PushStop(out), nil
		}
		pos, npos := 0, 0
		for i := 0; i < len(words); {
			for pos > 0 && pos+1 < words[i].pos {
				out = types.PushStop(out)
				if npos > 0 {
					out = types.PushOp(out, op, 1)
				}
				npos++
				pos++
			}
			pos = words[i].pos
			for nvar := 0; i < len(words) && words[i].pos == pos; nvar++ {
				out = append(out, &types.TSQueryNode{Lexeme: words[i].word, Weights: weights, Prefix: prefix})
				if nvar > 0 {
					out = types.PushOp(out, types.TSOr, 0)
				}
				i++
			}
			if npos > 0 {
				out = types.PushOp(out, op, 1)
			}
			npos++
		}
		return out, nil
	}
}

// englishStopWords is PostgreSQL's english.stop.
var englishStopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i me my myself we our ours ourselves you your yours yourself yourselves
		he him his himself she her hers herself it its itself they them their theirs themselves what which
		who whom this that these those am is are was were be been being have has had having do does did
		doing a an the and but if or because as until while of at by for with about against between into
		through during before after above below to from up down in out on off over under again further
		then once here there when where why how all any both each few more most other some such no nor
		not only own same so than too very s t can will just don should now`) {
		m[w] = true
	}
	return m
}()

// TextSearchMappings calls fn for each token type each built-in
// configuration indexes, in the order of pg_ts_config_map: configuration
// (simple, english), then token type.
func TextSearchMappings(fn func(config string, tokenType int, dictionary string)) {
	for _, name := range []string{"simple", "english"} {
		c := tsConfigs[name]
		for typ, d := range c.dict {
			if d != nil {
				fn(name, typ, d.name)
			}
		}
	}
}
