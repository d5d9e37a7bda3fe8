package sqldef

// TextSearchDictionary is a dictionary CREATE TEXT SEARCH DICTIONARY made,
// PostgreSQL's pg_ts_dict row: a template (simple, synonym, ispell,
// snowball, thesaurus) and its options, which name the files the
// dictionary reads and how it treats words. The files are the server's,
// not the database's: the record keeps their names only.
type TextSearchDictionary struct {
	Schema   string `json:"schema"`
	Name     string `json:"name"`
	Owner    string `json:"owner,omitempty"`
	Template string `json:"template"`
	// Options are the template's options as given, in order, with their
	// names lowercased (pg_ts_dict.dictinitoption).
	Options []TextSearchOption `json:"options,omitempty"`
	Comment string             `json:"comment,omitempty"`
}

// TextSearchOption is one option of a dictionary. Quoted tells a value
// written as a string from a number or a word (dictinitoption quotes the
// former).
type TextSearchOption struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Quoted bool   `json:"quoted,omitempty"`
}

// TextSearchConfig is a configuration CREATE TEXT SEARCH CONFIGURATION
// made, PostgreSQL's pg_ts_config row with its pg_ts_config_map rows: for
// each token type of the default parser that it indexes, the
// dictionaries a token of that type is offered to in turn.
type TextSearchConfig struct {
	Schema  string `json:"schema"`
	Name    string `json:"name"`
	Owner   string `json:"owner,omitempty"`
	Comment string `json:"comment,omitempty"`
	// Mappings are ordered by token type, each type at most once.
	Mappings []TextSearchMapping `json:"mappings,omitempty"`
}

// TextSearchMapping maps a token type (the default parser's number, as
// ts_token_type lists them) to dictionaries, each schema-qualified.
type TextSearchMapping struct {
	TokenType    int      `json:"token_type"`
	Dictionaries []string `json:"dictionaries"`
}
