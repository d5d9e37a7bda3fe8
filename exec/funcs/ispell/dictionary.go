package ispell

import (
	"io"
	"sync"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// Dictionary is a loaded Ispell dictionary: immutable, safe for concurrent
// use.
type Dictionary struct {
	words    wordTrie
	sets     []flagSet // by the word trie's set index
	affixes  []affix   // sorted as PostgreSQL sorts them
	prefixes affixTrie
	suffixes affixTrie
	compound []compoundAffix
	// useCompound is whether the affix file had compounding commands;
	// only then are words split into parts.
	useCompound bool
}

// Lexeme is one normal form; Variant numbers the alternative analyses as
// PostgreSQL's TSLexeme.nvariant (a compound word split into parts gives
// its parts one variant number, so that to_tsquery can AND them and OR the
// variants).
type Lexeme struct {
	Word    string
	Variant uint16
}

// Load reads a dictionary file and an affix file, in the ispell or the
// hunspell (MySpell) affix format as PostgreSQL detects them, with FLAG
// long, FLAG num and the default single-character flags, AF aliases,
// COMPOUNDFLAG / COMPOUNDMIN / ONLYINCOMPOUND / COMPOUNDBEGIN etc. as
// PostgreSQL 15 supports them. Errors are PostgreSQL's, with its messages,
// e.g. `invalid affix alias "GJUS"`, `invalid affix flag "SZ\"`.
func Load(dict, affix io.Reader) (*Dictionary, error) {
	dictData, err := io.ReadAll(dict)
	if err != nil {
		return nil, pgerr.Wrap(err, pgerr.ConfigFileError, "could not read dictionary file: %v", err)
	}
	affixData, err := io.ReadAll(affix)
	if err != nil {
		return nil, pgerr.Wrap(err, pgerr.ConfigFileError, "could not read affix file: %v", err)
	}
	b := &builder{
		conds:  make(map[string]condition),
		parsed: make(map[int]*parsedSet),
	}
	if err := b.importDictionary(string(dictData)); err != nil {
		return nil, err
	}
	if err := b.importAffixes(string(affixData)); err != nil {
		return nil, err
	}
	if err := b.sortDictionary(); err != nil {
		return nil, err
	}
	if err := b.sortAffixes(); err != nil {
		return nil, err
	}
	return b.finish(), nil
}

// finish turns the builder into a Dictionary: flags become numbers (0
// being no flag at all, which every word has), and only the flag sets
// that words end with are kept, renumbered.
func (b *builder) finish() *Dictionary {
	d := &Dictionary{
		words:       b.words,
		affixes:     b.affixes,
		prefixes:    b.prefixes,
		suffixes:    b.suffixes,
		compound:    b.compound,
		useCompound: b.useCompound,
	}
	ids := map[string]int32{"": 0}
	id := func(f string) int32 {
		n, ok := ids[f]
		if !ok {
			n = int32(len(ids))
			ids[f] = n
		}
		return n
	}
	renumbered := make(map[int32]int32)
	for i := range d.words.edges {
		e := &d.words.edges[i]
		if !e.isWord {
			continue
		}
		if n, ok := renumbered[e.set]; ok {
			e.set = n
			continue
		}
		ps := b.set(int(e.set))
		fs := flagSet{malformed: ps.err != nil}
		for _, f := range ps.flags {
			fs.flags = append(fs.flags, id(f))
		}
		n := int32(len(d.sets))
		d.sets = append(d.sets, fs)
		renumbered[e.set] = n
		e.set = n
	}
	for i := range d.affixes {
		d.affixes[i].flagID = id(d.affixes[i].flag)
	}
	return d
}

// flagSet is a word's flag set, its flags numbered. A lookup reads a set
// only up to a malformed flag, where PostgreSQL raises the error that
// loading it did not: malformed says the set has one after its flags.
type flagSet struct {
	flags     []int32
	malformed bool
}

// configError is a PostgreSQL config_file_error (F0000).
func configError(format string, args ...any) error {
	return pgerr.New(pgerr.ConfigFileError, format, args...)
}

// maxNorm bounds the normal forms PostgreSQL collects for one word, and
// the lexemes it returns for one token, at maxNorm-1.
const maxNorm = 1024

// Lexize is dispell_lexize without stop words: the normal forms of word
// (lowercased first as PostgreSQL does), in PostgreSQL's order; nil when
// the dictionary does not know the word.
//
// Where PostgreSQL 15 raises an error instead of answering, Lexize
// returns nil too: when a rule would need a word whose flag set is
// malformed after the flags that could match (a FLAG num dictionary with a
// flag "abc"), and when a compound word split inside a multibyte character
// is checked against a rule's condition.
func (d *Dictionary) Lexize(word string) []Lexeme {
	out, _ := d.lexize(word)
	return out
}

// lexize is Lexize, also saying whether PostgreSQL would have failed.
func (d *Dictionary) lexize(word string) (out []Lexeme, failed bool) {
	if word == "" {
		return nil, false
	}
	lx := lexerPool.Get().(*lexer)
	lx.d, lx.failed = d, false
	w := lower(word)
	// The lexemes gather in the lexer's buffer and are copied out once,
	// so that the result is the only allocation of the slice.
	forms := lx.normalize(lx.forms[:0], w, 0)
	for i := range forms {
		forms[i].Variant = uint16(i + 1)
	}
	if d.useCompound {
		forms = lx.compoundForms(forms, w, uint16(len(forms)+1))
	}
	if len(forms) > 0 && !lx.failed {
		out = append([]Lexeme(nil), forms...)
	}
	failed = lx.failed
	clear(forms) // drop the strings, which the pool would keep alive
	lx.forms, lx.d = forms[:0], nil
	lexerPool.Put(lx)
	return out, failed
}

// lexerPool keeps lexers, whose buffers are too big to allocate per call.
var lexerPool = sync.Pool{New: func() any { return new(lexer) }}

// compoundForms appends to out the analyses of w as a compound word, each
// a variant of its own numbered from variant on (PostgreSQL's
// NINormalizeWord after NormalizeSubWord): for every way SplitToVariants
// finds to cut w into parts, in its order, and every normal form of its
// last part, the other parts as they are and that form. Once maxNorm-1
// lexemes are collected nothing more could be added, and the search
// stops; PostgreSQL goes on through all the ways, which for a long word
// of short parts can take very long.
func (lx *lexer) compoundForms(out []Lexeme, w string, variant uint16) []Lexeme {
	add := func(s string) {
		if len(out) < maxNorm-1 {
			out = append(out, Lexeme{Word: s, Variant: variant})
		}
	}
	// The ways come in depth-first order: a call's own way, then those of
	// the calls it made, in order.
	stack := []splitCall{{snode: -1, startpos: 0, minpos: -1}}
	for len(stack) > 0 && len(out) < maxNorm-1 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		parts, calls := lx.splitHead(c, w)
		for i := len(calls) - 1; i >= 0; i-- {
			stack = append(stack, calls[i])
		}
		if len(parts) < 2 {
			continue
		}
		for _, last := range lx.normalize(nil, parts[len(parts)-1], ffCompoundLast) {
			for _, p := range parts[:len(parts)-1] {
				add(p)
			}
			add(last.Word)
			variant++
		}
	}
	return out
}
