package funcs

import (
	"slices"
	"strings"

	"github.com/kljensen/snowball/english"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// tsLexeme is a normal form a dictionary gives a token: its word, the
// variant it belongs to (the alternative analyses of one token, an
// Ispell dictionary's compound splits; the lexemes of one variant are
// ANDed in a query, the variants ORed), and whether a query matches it
// as a prefix (a synonym written with *).
type tsLexeme struct {
	word    string
	variant uint16
	prefix  bool
}

// tsDictionary is a text search dictionary: lexize turns a token into its
// lexemes, none for a stop word; ok is false when the dictionary does
// not know the token, which a configuration then offers to its next
// dictionary. schema is "" for pg_catalog's.
type tsDictionary struct {
	name, schema string
	lexize       func(token string) (lexemes []tsLexeme, ok bool)
	// phrases, for a thesaurus, replaces phrases of several tokens
	// (parseFrom); lexize then matches one-word phrases only.
	phrases *thesaurus
}

// tsConfig is a text search configuration: the default parser with the
// dictionaries each token type it indexes is offered to in turn; tokens
// of other types (tags, protocols, entities, blanks) are skipped and take
// no position.
type tsConfig struct {
	name  string
	dicts [tokTypes + 1][]*tsDictionary
}

// lexize offers a token of type typ to the configuration's dictionaries
// in turn and returns the lexemes of the first that knows it, and that
// dictionary; d is nil when none does (or the type has none), and the
// token then takes no position.
func (c *tsConfig) lexize(typ int, tok string) (lexemes []tsLexeme, d *tsDictionary) {
	for _, d := range c.dicts[typ] {
		if ls, ok := d.lexize(tok); ok {
			return ls, d
		}
	}
	return nil, nil
}

// The built-in dictionaries. simple lowercases; english_stem lowercases,
// drops PostgreSQL's english stop words and reduces the rest with the
// Snowball english (Porter2) stemmer, as PostgreSQL's snowball template.
var (
	simpleDict = &tsDictionary{name: "simple", lexize: func(tok string) ([]tsLexeme, bool) {
		return []tsLexeme{{word: strings.ToLower(tok)}}, true
	}}
	englishStemDict = &tsDictionary{name: "english_stem", lexize: func(tok string) ([]tsLexeme, bool) {
		w := strings.ToLower(tok)
		if englishStopWords[w] {
			return []tsLexeme{}, true
		}
		return []tsLexeme{{word: english.Stem(w, true)}}, true
	}}
)

// tsDictionaries are the built-in dictionaries by name.
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
		simple.dicts[typ], english.dicts[typ] = []*tsDictionary{simpleDict}, []*tsDictionary{simpleDict}
	}
	for _, typ := range []int{tokASCIIWord, tokWord, tokASCIIHWord, tokHWord, tokHWordASCIIPart, tokHWordPart} {
		english.dicts[typ] = []*tsDictionary{englishStemDict}
	}
	return map[string]*tsConfig{"simple": simple, "english": english}
}()

// parsedWord is a lexeme of a document at its position.
type parsedWord struct {
	word    string
	pos     int
	variant uint16
	prefix  bool
}

// parse splits a document into its lexemes with their positions, as
// PostgreSQL's parsetext: every token the configuration indexes takes the
// next position, stop words included, so phrases keep their distances.
func (c *tsConfig) parse(doc string) []parsedWord {
	words, _ := c.parseFrom(doc, 0)
	return words
}

// parseFrom is parse with positions continuing after pos; it also returns
// the last position a token took, where the next text continues.
func (c *tsConfig) parseFrom(doc string, pos int) ([]parsedWord, int) {
	var words []parsedWord
	toks := parseText(doc)
tokens:
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		if len(tok.text) >= types.TSMaxLexemeBytes {
			continue
		}
		for _, d := range c.dicts[tok.typ] {
			if d.phrases != nil {
				// A thesaurus replaces the longest phrase starting here,
				// each word of the replacement at a position of its own;
				// without one, the next dictionary is asked.
				if n, out, last := c.phraseAt(d, toks, i); n > 0 {
					for _, l := range out {
						pos++
						words = append(words, parsedWord{l.word, min(pos, types.TSMaxPosition), 0, false})
					}
					i = last
					continue tokens
				}
				continue
			}
			lexemes, ok := d.lexize(tok.text)
			if !ok {
				continue
			}
			pos++
			for _, l := range lexemes {
				words = append(words, parsedWord{l.word, min(pos, types.TSMaxPosition), l.variant, l.prefix})
			}
			continue tokens
		}
	}
	return words, pos
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
				variant := words[i].variant
				for n := 0; i < len(words) && words[i].pos == pos && words[i].variant == variant; n++ {
					out = append(out, &types.TSQueryNode{Lexeme: words[i].word, Weights: weights, Prefix: prefix || words[i].prefix})
					if n > 0 {
						out = types.PushOp(out, types.TSAnd, 0)
					}
					i++
				}
				if nvar > 0 {
					out = types.PushOp(out, types.TSOr, 0)
				}
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
		for typ, ds := range c.dicts {
			for _, d := range ds {
				fn(name, typ, d.name)
			}
		}
	}
}

// TSVectorTrigger is PostgreSQL's tsvector_update_trigger for a BEFORE
// ROW trigger with arguments (tsvector column, configuration, text
// columns...): the row with the tsvector column set to the text columns'
// lexemes, positions running on from one column to the next (NULLs
// skipped). An UPDATE that changes none of the text columns keeps the
// row as it is. cols are the table's columns; old is nil for an INSERT.
func TSVectorTrigger(env *exec.Env, args []string, cols []exec.ResultColumn, old, row exec.Row) (exec.Row, error) {
	if len(args) < 3 {
		return nil, pgerr.New(pgerr.InternalError, "tsvector_update_trigger: arguments must be tsvector_field, ts_config, text_field1, ...")
	}
	column := func(name string) (int, error) {
		for i, c := range cols {
			if c.Name == name {
				return i, nil
			}
		}
		return 0, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", name)
	}
	target, err := column(args[0])
	if err != nil {
		return nil, pgerr.New(pgerr.UndefinedColumn, "tsvector column %q does not exist", args[0])
	}
	if cols[target].T.OID != exec.OIDTSVector {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "column %q is not of tsvector type", args[0])
	}
	c, err := tsConfigNamed(env, args[1])
	if err != nil {
		return nil, err
	}
	var texts []int
	for _, name := range args[2:] {
		i, err := column(name)
		if err != nil {
			return nil, err
		}
		if exec.KindOf(cols[i].T.OID) != exec.KindText {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "column %q is not of a character type", name)
		}
		texts = append(texts, i)
	}
	if old != nil && !slices.ContainsFunc(texts, func(i int) bool { return !exec.NotDistinct(old[i], row[i]) }) {
		return row, nil
	}
	var words []parsedWord
	pos := 0
	for _, i := range texts {
		if row[i].IsNull() {
			continue
		}
		ws := c.parse(row[i].S)
		for j := range ws {
			ws[j].pos = min(ws[j].pos+pos, types.TSMaxPosition)
		}
		if n := len(ws); n > 0 {
			pos = ws[n-1].pos
		}
		words = append(words, ws...)
	}
	v := make(types.TSVector, len(words))
	for i, w := range words {
		v[i] = types.TSLexeme{Word: w.word, Pos: []types.TSPosition{types.NewTSPosition(w.pos, 0)}}
	}
	out := slices.Clone(row)
	out[target] = exec.DTSVector(types.NormalizeTSVector(v))
	return out, nil
}
