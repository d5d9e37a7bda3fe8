package funcs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/kljensen/snowball"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// TextSearch is the server's state for the text search objects CREATE
// TEXT SEARCH DICTIONARY and CONFIGURATION make: the directory their
// dictionaries read files from (PostgreSQL's $SHAREDIR/tsearch_data) and
// the dictionaries and configurations built from catalog records. Both
// are cached, as a PostgreSQL backend caches them: building a dictionary
// reads and parses its files, and a configuration is resolved once per
// transaction and catalog, not once per row. One TextSearch serves every
// session of an engine; it is safe for concurrent use.
//
// A dictionary's files are read when it is first used and kept: edit a
// file, then ALTER the dictionary (any option change builds it anew) or
// restart the server, as with PostgreSQL.
type TextSearch struct {
	dir     string
	mu      sync.Mutex
	dicts   map[string]*tsDictionary
	configs map[tsConfigKey]*tsConfig
}

// tsConfigKey names a configuration as one transaction resolved it: the
// catalog it read, the search path and the name as given.
type tsConfigKey struct {
	catalog exec.CatalogVersion
	path    string
	name    string
}

// maxCachedConfigs bounds the resolved configurations kept; past it the
// cache starts again (entries of finished transactions are never hit).
const maxCachedConfigs = 256

// NewTextSearch returns the text search state of a server whose
// dictionaries read their files from dir.
func NewTextSearch(dir string) *TextSearch {
	return &TextSearch{dir: dir, dicts: map[string]*tsDictionary{}, configs: map[tsConfigKey]*tsConfig{}}
}

// textSearchOf returns the text search state of env's session, nil when
// it has none (the built-in objects still work).
func textSearchOf(env *exec.Env) *TextSearch {
	if env == nil {
		return nil
	}
	if s, ok := env.Session.(interface{ TextSearch() *TextSearch }); ok {
		return s.TextSearch()
	}
	return nil
}

// searchPathOf returns the schemas env's session resolves names in.
func searchPathOf(env *exec.Env) []string {
	if env != nil {
		if s, ok := env.Session.(interface{ SearchPath() []string }); ok {
			return s.SearchPath()
		}
	}
	return []string{"public"}
}

// CheckTextSearchDictionary builds the dictionary d describes, reading
// its files, and returns the error PostgreSQL's template would give for
// its options: what CREATE and ALTER TEXT SEARCH DICTIONARY check before
// they store the record. env is the statement's: a thesaurus finds its
// subdictionary through it.
func CheckTextSearchDictionary(env *exec.Env, d *sqldef.TextSearchDictionary) error {
	_, err := textSearchOf(env).dictionary(env, d)
	return err
}

// TextSearchTemplates are the templates a dictionary can be made from,
// PostgreSQL's pg_ts_template rows, in their order.
var TextSearchTemplates = []string{"simple", "synonym", "ispell", "thesaurus", "snowball"}

// dictionary returns the dictionary of record d, built on first use; a
// thesaurus's subdictionary is found through env.
func (ts *TextSearch) dictionary(env *exec.Env, d *sqldef.TextSearchDictionary) (*tsDictionary, error) {
	var key strings.Builder
	fmt.Fprintf(&key, "%s\x00%s\x00%s", d.Schema, d.Name, d.Template)
	for _, o := range d.Options {
		fmt.Fprintf(&key, "\x00%s=%s", o.Name, o.Value)
	}
	if ts != nil {
		ts.mu.Lock()
		dict, ok := ts.dicts[key.String()]
		ts.mu.Unlock()
		if ok {
			return dict, nil
		}
	}
	dict, err := ts.build(env, d)
	if err != nil {
		return nil, err
	}
	if ts != nil {
		ts.mu.Lock()
		ts.dicts[key.String()] = dict
		ts.mu.Unlock()
	}
	return dict, nil
}

// build makes a dictionary of d's template with d's options, checking
// them as the template's init function does.
func (ts *TextSearch) build(env *exec.Env, d *sqldef.TextSearchDictionary) (*tsDictionary, error) {
	dict := &tsDictionary{name: d.Name, schema: d.Schema}
	switch d.Template {
	case "simple":
		stop, accept := map[string]bool(nil), true
		for _, o := range d.Options {
			var err error
			switch o.Name {
			case "stopwords":
				stop, err = ts.stopWords(o.Value)
			case "accept":
				accept, err = optionBool(o)
			default:
				err = pgerr.New(pgerr.InvalidParameterValue, "unrecognized simple dictionary parameter: %q", o.Name)
			}
			if err != nil {
				return nil, err
			}
		}
		dict.lexize = func(tok string) ([]tsLexeme, bool) {
			w := strings.ToLower(tok)
			switch {
			case stop[w]:
				return []tsLexeme{}, true
			case accept:
				return []tsLexeme{{word: w}}, true
			}
			return nil, false
		}
	case "synonym":
		file, caseSensitive := "", false
		for _, o := range d.Options {
			var err error
			switch o.Name {
			case "synonyms":
				file = o.Value
			case "casesensitive":
				caseSensitive, err = optionBool(o)
			default:
				err = pgerr.New(pgerr.InvalidParameterValue, "unrecognized synonym parameter: %q", o.Name)
			}
			if err != nil {
				return nil, err
			}
		}
		if file == "" {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "missing Synonyms parameter")
		}
		syn, err := ts.synonyms(file, caseSensitive)
		if err != nil {
			return nil, err
		}
		dict.lexize = func(tok string) ([]tsLexeme, bool) {
			if !caseSensitive {
				tok = strings.ToLower(tok)
			}
			l, ok := syn[tok]
			if !ok {
				return nil, false
			}
			return []tsLexeme{l}, true
		}
	case "ispell":
		var dictFile, affFile string
		var stop map[string]bool
		for _, o := range d.Options {
			var err error
			switch o.Name {
			case "dictfile":
				if dictFile != "" {
					return nil, pgerr.New(pgerr.InvalidParameterValue, "multiple DictFile parameters")
				}
				dictFile = o.Value
			case "afffile":
				if affFile != "" {
					return nil, pgerr.New(pgerr.InvalidParameterValue, "multiple AffFile parameters")
				}
				affFile = o.Value
			case "stopwords":
				if stop != nil {
					return nil, pgerr.New(pgerr.InvalidParameterValue, "multiple StopWords parameters")
				}
				stop, err = ts.stopWords(o.Value)
			default:
				err = pgerr.New(pgerr.InvalidParameterValue, "unrecognized Ispell parameter: %q", o.Name)
			}
			if err != nil {
				return nil, err
			}
		}
		switch {
		case affFile == "":
			return nil, pgerr.New(pgerr.InvalidParameterValue, "missing AffFile parameter")
		case dictFile == "":
			return nil, pgerr.New(pgerr.InvalidParameterValue, "missing DictFile parameter")
		}
		sp, err := ts.ispell(dictFile, affFile)
		if err != nil {
			return nil, err
		}
		dict.lexize = func(tok string) ([]tsLexeme, bool) {
			forms, ok := sp(tok)
			if !ok {
				return nil, false
			}
			out := forms[:0]
			for _, f := range forms {
				if !stop[f.word] {
					out = append(out, f)
				}
			}
			return out, true
		}
	case "snowball":
		var language string
		var stop map[string]bool
		for _, o := range d.Options {
			var err error
			switch o.Name {
			case "language":
				if language != "" {
					return nil, pgerr.New(pgerr.InvalidParameterValue, "multiple Language parameters")
				}
				language = o.Value
			case "stopwords":
				if stop != nil {
					return nil, pgerr.New(pgerr.InvalidParameterValue, "multiple StopWords parameters")
				}
				stop, err = ts.stopWords(o.Value)
			default:
				err = pgerr.New(pgerr.InvalidParameterValue, "unrecognized Snowball parameter: %q", o.Name)
			}
			if err != nil {
				return nil, err
			}
		}
		if language == "" {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "missing Language parameter")
		}
		lang := strings.ToLower(language)
		if _, err := snowball.Stem("a", lang, true); err != nil {
			return nil, pgerr.New(pgerr.UndefinedObject, "no Snowball stemmer available for language %q and encoding \"UTF8\"", language)
		}
		dict.lexize = func(tok string) ([]tsLexeme, bool) {
			w := strings.ToLower(tok)
			if stop[w] {
				return []tsLexeme{}, true
			}
			s, _ := snowball.Stem(w, lang, true)
			return []tsLexeme{{word: s}}, true
		}
	case "thesaurus":
		var file, sub string
		for _, o := range d.Options {
			switch o.Name {
			case "dictfile":
				if file != "" {
					return nil, pgerr.New(pgerr.InvalidParameterValue, "multiple DictFile parameters")
				}
				file = o.Value
			case "dictionary":
				if sub != "" {
					return nil, pgerr.New(pgerr.InvalidParameterValue, "multiple Dictionary parameters")
				}
				sub = o.Value
			default:
				return nil, pgerr.New(pgerr.InvalidParameterValue, "unrecognized Thesaurus parameter: %q", o.Name)
			}
		}
		switch {
		case file == "":
			return nil, pgerr.New(pgerr.InvalidParameterValue, "missing DictFile parameter")
		case sub == "":
			return nil, pgerr.New(pgerr.InvalidParameterValue, "missing Dictionary parameter")
		}
		subDict, err := tsDictionaryNamed(env, sub)
		if err != nil {
			return nil, err
		}
		th, err := ts.thesaurus(file, subDict)
		if err != nil {
			return nil, err
		}
		dict.phrases = th
		dict.lexize = func(tok string) ([]tsLexeme, bool) {
			n, out := th.match([]string{tok})
			if n == 0 {
				return nil, false
			}
			return out, true
		}
	default:
		return nil, pgerr.New(pgerr.UndefinedObject, "text search template %q does not exist", d.Template)
	}
	return dict, nil
}

// optionBool reads a Boolean option as defGetBoolean: no value is true,
// 0 and 1, and true, false, on and off in any case.
func optionBool(o sqldef.TextSearchOption) (bool, error) {
	v := o.Value
	if !o.Quoted {
		switch v {
		case "0":
			return false, nil
		case "1":
			return true, nil
		}
	} else {
		switch strings.ToLower(v) {
		case "true", "on":
			return true, nil
		case "false", "off":
			return false, nil
		}
	}
	return false, pgerr.New(pgerr.SyntaxError, "%s requires a Boolean value", o.Name)
}

// file opens the dictionary file name.ext of the server's directory, as
// get_tsearch_config_filename names it; what names a file is checked,
// so that no option reaches outside the directory.
func (ts *TextSearch) file(name, ext, what string) (*os.File, error) {
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid text search configuration file name %q", name)
		}
	}
	dir := ""
	if ts != nil {
		dir = ts.dir
	}
	path := filepath.Join(dir, name+"."+ext)
	f, err := os.Open(path)
	if err != nil {
		reason := err.Error()
		if errors.Is(err, fs.ErrNotExist) {
			reason = "No such file or directory"
		}
		return nil, pgerr.New(pgerr.ConfigFileError, "could not open %s file %q: %s", what, path, reason)
	}
	return f, nil
}

// stopWords reads the stop word file name.stop: a word a line, lowercased.
// english, when the directory has no english.stop, is PostgreSQL's list.
func (ts *TextSearch) stopWords(name string) (map[string]bool, error) {
	f, err := ts.file(name, "stop", "stop-word")
	if err != nil {
		if name == "english" {
			return englishStopWords, nil
		}
		return nil, err
	}
	defer f.Close()
	stop := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if w := strings.ToLower(strings.TrimSpace(sc.Text())); w != "" {
			stop[w] = true
		}
	}
	return stop, sc.Err()
}

// synonyms reads the synonym file name.syn: a word and its synonym a
// line, the synonym ending in * to match as a prefix in queries; lines
// of fewer than two words are skipped.
func (ts *TextSearch) synonyms(name string, caseSensitive bool) (map[string]tsLexeme, error) {
	f, err := ts.file(name, "syn", "synonym")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	syn := map[string]tsLexeme{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		in, out := fields[0], fields[1]
		if !caseSensitive {
			in, out = strings.ToLower(in), strings.ToLower(out)
		}
		l := tsLexeme{word: out}
		if w, ok := strings.CutSuffix(out, "*"); ok && w != "" {
			l = tsLexeme{word: w, prefix: true}
		}
		if _, dup := syn[in]; !dup {
			syn[in] = l
		}
	}
	return syn, sc.Err()
}

// dictDisplayName is d's name as regdictionary prints it: qualified
// when the search path would not find it.
func dictDisplayName(env *exec.Env, d *tsDictionary) string {
	if d.schema == "" || slices.Contains(searchPathOf(env), d.schema) {
		return d.name
	}
	return d.schema + "." + d.name
}

// builtinDict returns the built-in dictionary name (pg_catalog's).
func builtinDict(name string) *tsDictionary { return tsDictionaries[name] }

// tsDictionaryNamed finds a dictionary as regdictionary input does:
// pg_catalog's built-ins, then the catalog's along the search path.
func tsDictionaryNamed(env *exec.Env, name string) (*tsDictionary, error) {
	parts, err := exec.ParseQualifiedName(name)
	if err != nil {
		return nil, err
	}
	schema, n := splitParts(parts)
	if schema == "" || schema == "pg_catalog" {
		if d := builtinDict(n); d != nil {
			return d, nil
		}
	}
	rec, err := lookupTextSearch(env, schema, n, func(cat textSearchCatalog, s string) (*sqldef.TextSearchDictionary, bool, error) {
		return cat.TextSearchDictionary(env.Ctx, s, n)
	})
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "text search dictionary %q does not exist", name)
	}
	return textSearchOf(env).dictionary(env, rec)
}

// tsConfigNamed finds a configuration as regconfig input does: the
// built-in simple and english, then the catalog's along the search path.
func tsConfigNamed(env *exec.Env, name string) (*tsConfig, error) {
	// The built-ins by their usual spellings, without parsing: a call
	// per row names one ('english', default_text_search_config's
	// 'pg_catalog.english').
	if c, ok := tsConfigs[strings.TrimPrefix(name, "pg_catalog.")]; ok {
		return c, nil
	}
	parts, err := exec.ParseQualifiedName(name)
	if err != nil {
		return nil, err
	}
	schema, n := splitParts(parts)
	if schema == "" || schema == "pg_catalog" {
		if c, ok := tsConfigs[n]; ok {
			return c, nil
		}
	}
	if env == nil || env.Txn == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "text search configuration %q does not exist", name)
	}
	ts := textSearchOf(env)
	path := searchPathOf(env)
	key := tsConfigKey{catalog: env.Txn.CatalogVersion(), path: strings.Join(path, ","), name: name}
	if ts != nil {
		ts.mu.Lock()
		c, ok := ts.configs[key]
		ts.mu.Unlock()
		if ok {
			return c, nil
		}
	}
	rec, err := lookupTextSearch(env, schema, n, func(cat textSearchCatalog, s string) (*sqldef.TextSearchConfig, bool, error) {
		return cat.TextSearchConfig(env.Ctx, s, n)
	})
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "text search configuration %q does not exist", name)
	}
	c := &tsConfig{name: rec.Name}
	for _, m := range rec.Mappings {
		for _, qn := range m.Dictionaries {
			s, dn, _ := strings.Cut(qn, ".")
			d := builtinDict(dn)
			if s != "pg_catalog" || d == nil {
				dr, ok, err := env.Txn.Catalog().TextSearchDictionary(env.Ctx, s, dn)
				if err != nil {
					return nil, err
				}
				if !ok {
					return nil, pgerr.New(pgerr.UndefinedObject, "text search dictionary %q does not exist", qn)
				}
				if d, err = ts.dictionary(env, dr); err != nil {
					return nil, err
				}
			}
			if m.TokenType > 0 && m.TokenType <= tokTypes {
				c.dicts[m.TokenType] = append(c.dicts[m.TokenType], d)
			}
		}
	}
	if ts != nil {
		ts.mu.Lock()
		if len(ts.configs) >= maxCachedConfigs {
			clear(ts.configs)
		}
		ts.configs[key] = c
		ts.mu.Unlock()
	}
	return c, nil
}

// textSearchCatalog is what name resolution reads of the transaction's
// catalog (versioning.RootValue).
type textSearchCatalog interface {
	TextSearchDictionary(ctx context.Context, schema, name string) (*sqldef.TextSearchDictionary, bool, error)
	TextSearchConfig(ctx context.Context, schema, name string) (*sqldef.TextSearchConfig, bool, error)
}

// lookupTextSearch finds a record in schema, or along env's search path
// when schema is "": nil when there is none.
func lookupTextSearch[R any](env *exec.Env, schema, name string, get func(textSearchCatalog, string) (*R, bool, error)) (*R, error) {
	if env == nil || env.Txn == nil {
		return nil, nil
	}
	cat := env.Txn.Catalog()
	schemas := []string{schema}
	if schema == "" {
		schemas = searchPathOf(env)
	}
	for _, s := range schemas {
		r, ok, err := get(cat, s)
		if err != nil || ok {
			return r, err
		}
	}
	return nil, nil
}

// splitParts returns the schema ("" for none) and the object name of a
// qualified name's parts; a database name before them is ignored.
func splitParts(parts []string) (schema, name string) {
	switch len(parts) {
	case 0:
		return "", ""
	case 1:
		return "", parts[0]
	}
	return parts[len(parts)-2], parts[len(parts)-1]
}

// TokenTypeNumber returns the number of the default parser's token type
// alias (ts_token_type), 0 when it has none.
func TokenTypeNumber(alias string) int {
	for i, t := range tokenTypes {
		if t.alias == alias {
			return i + 1
		}
	}
	return 0
}

// TokenTypeAlias returns the alias of the default parser's token type n.
func TokenTypeAlias(n int) string {
	if n < 1 || n > tokTypes {
		return ""
	}
	return tokenTypes[n-1].alias
}

// BuiltinTextSearchMappings returns the mappings of built-in
// configuration name (simple or english), each dictionary qualified, for
// CREATE TEXT SEARCH CONFIGURATION ... (COPY = name); ok is false for
// another name.
func BuiltinTextSearchMappings(name string) (m []sqldef.TextSearchMapping, ok bool) {
	c, ok := tsConfigs[name]
	if !ok {
		return nil, false
	}
	for typ, ds := range c.dicts {
		if len(ds) == 0 {
			continue
		}
		mp := sqldef.TextSearchMapping{TokenType: typ}
		for _, d := range ds {
			mp.Dictionaries = append(mp.Dictionaries, "pg_catalog."+d.name)
		}
		m = append(m, mp)
	}
	return m, true
}

// dictionaryOption formats one option as pg_ts_dict.dictinitoption
// lists it: a string quoted, a number as written.
func dictionaryOption(o sqldef.TextSearchOption) string {
	if !o.Quoted {
		return o.Name + " = " + o.Value
	}
	return o.Name + " = " + QuoteLiteral(o.Value)
}

// DictionaryOptions is pg_ts_dict.dictinitoption of d, NULL when empty.
func DictionaryOptions(d *sqldef.TextSearchDictionary) exec.Datum {
	if len(d.Options) == 0 {
		return exec.Null
	}
	parts := make([]string, len(d.Options))
	for i, o := range d.Options {
		parts[i] = dictionaryOption(o)
	}
	return exec.DText(strings.Join(parts, ", "))
}
