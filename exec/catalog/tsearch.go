package catalog

import (
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/funcs"
)

// The text search catalogs: the default parser, the simple and snowball
// templates, the simple and english_stem dictionaries and the simple and
// english configurations, with the OIDs PostgreSQL 15's initdb gives them
// (the snowball objects' are those of a stock initdb), and which
// dictionary each configuration maps each token type to
// (funcs.TextSearchMappings).

// OIDs of the built-in text search objects.
const (
	oidDefaultParser    = 3722
	oidSimpleTemplate   = 3727
	oidSnowballTemplate = 13150
	oidSimpleDict       = 3765
	oidEnglishStemDict  = 13163
	oidSimpleConfig     = 3748
	oidEnglishConfig    = 13164
)

// The OIDs of pg_ts_dict and pg_ts_config, the classoid of their
// objects' comments.
const (
	oidPgTSDict   = 3600
	oidPgTSConfig = 3602
)

// Template OIDs PostgreSQL 15's initdb gives the templates other than
// simple and snowball.
const (
	oidSynonymTemplate   = 3730
	oidIspellTemplate    = 3733
	oidThesaurusTemplate = 3742
)

// templateOIDs are the templates' OIDs by name.
var templateOIDs = map[string]uint32{"simple": oidSimpleTemplate, "synonym": oidSynonymTemplate,
	"ispell": oidIspellTemplate, "thesaurus": oidThesaurusTemplate, "snowball": oidSnowballTemplate}

// builtinDictOIDs are pg_catalog's dictionaries' OIDs by name.
var builtinDictOIDs = map[string]uint32{"simple": oidSimpleDict, "english_stem": oidEnglishStemDict}

// BuiltinTextSearchConfigOID returns the OID of pg_catalog's
// configuration name; ok is false when there is none.
func BuiltinTextSearchConfigOID(name string) (oid uint32, ok bool) {
	switch name {
	case "simple":
		return oidSimpleConfig, true
	case "english":
		return oidEnglishConfig, true
	}
	return 0, false
}

// BuiltinTextSearchDictOID returns the OID of pg_catalog's dictionary
// name; ok is false when there is none.
func BuiltinTextSearchDictOID(name string) (oid uint32, ok bool) {
	oid, ok = builtinDictOIDs[name]
	return oid, ok
}

// textSearchDictOID returns the OID of a dictionary named schema.name in
// a configuration's mappings.
func textSearchDictOID(qualified string) uint32 {
	schema, name, _ := strings.Cut(qualified, ".")
	if oid, ok := builtinDictOIDs[name]; ok && schema == "pg_catalog" {
		return oid
	}
	return TextSearchDictOID(schema, name)
}

// ownerOID is the OID of a record's owner, the bootstrap superuser's
// when it names none.
func ownerOID(owner string) uint32 {
	if owner == "" {
		return OIDBootstrapRole
	}
	return RoleOID(owner)
}

func init() {
	const pc = "pg_catalog"
	define(pc, "pg_ts_parser", 3601, 'r', `oid:oid prsname:name prsnamespace:oid prsstart:regproc prstoken:regproc
		prsend:regproc prsheadline:regproc prslextype:regproc`, func(*Snapshot) ([]exec.Row, error) {
		return []exec.Row{{dOID(oidDefaultParser), dText("default"), dOID(OIDPgCatalog), dText("prsd_start"),
			dText("prsd_nexttoken"), dText("prsd_end"), dText("prsd_headline"), dText("prsd_lextype")}}, nil
	})
	define(pc, "pg_ts_template", 3764, 'r', `oid:oid tmplname:name tmplnamespace:oid tmplinit:regproc
		tmpllexize:regproc`, func(*Snapshot) ([]exec.Row, error) {
		var out []exec.Row
		for _, t := range []struct{ name, init, lexize string }{{"simple", "dsimple_init", "dsimple_lexize"},
			{"synonym", "dsynonym_init", "dsynonym_lexize"}, {"ispell", "dispell_init", "dispell_lexize"},
			{"thesaurus", "thesaurus_init", "thesaurus_lexize"}, {"snowball", "dsnowball_init", "dsnowball_lexize"}} {
			out = append(out, exec.Row{dOID(templateOIDs[t.name]), dText(t.name), dOID(OIDPgCatalog), dText(t.init), dText(t.lexize)})
		}
		return out, nil
	})
	define(pc, "pg_ts_dict", 3600, 'r', `oid:oid dictname:name dictnamespace:oid dictowner:oid dicttemplate:oid
		dictinitoption:text`, func(s *Snapshot) ([]exec.Row, error) {
		out := []exec.Row{
			{dOID(oidSimpleDict), dText("simple"), dOID(OIDPgCatalog), dOID(OIDBootstrapRole), dOID(oidSimpleTemplate), exec.Null},
			{dOID(oidEnglishStemDict), dText("english_stem"), dOID(OIDPgCatalog), dOID(OIDBootstrapRole), dOID(oidSnowballTemplate),
				dText("language = 'english', stopwords = 'english'")},
		}
		dicts, err := s.Src.Root.TextSearchDictionaries(s.Src.Ctx)
		if err != nil {
			return nil, err
		}
		for _, d := range dicts {
			out = append(out, exec.Row{dOID(TextSearchDictOID(d.Schema, d.Name)), dText(d.Name), dOID(NamespaceOID(d.Schema)),
				dOID(ownerOID(d.Owner)), dOID(templateOIDs[d.Template]), funcs.DictionaryOptions(d)})
		}
		return out, nil
	})
	define(pc, "pg_ts_config", 3602, 'r', "oid:oid cfgname:name cfgnamespace:oid cfgowner:oid cfgparser:oid", func(s *Snapshot) ([]exec.Row, error) {
		out := []exec.Row{
			{dOID(oidSimpleConfig), dText("simple"), dOID(OIDPgCatalog), dOID(OIDBootstrapRole), dOID(oidDefaultParser)},
			{dOID(oidEnglishConfig), dText("english"), dOID(OIDPgCatalog), dOID(OIDBootstrapRole), dOID(oidDefaultParser)},
		}
		configs, err := s.Src.Root.TextSearchConfigs(s.Src.Ctx)
		if err != nil {
			return nil, err
		}
		for _, c := range configs {
			out = append(out, exec.Row{dOID(TextSearchConfigOID(c.Schema, c.Name)), dText(c.Name), dOID(NamespaceOID(c.Schema)),
				dOID(ownerOID(c.Owner)), dOID(oidDefaultParser)})
		}
		return out, nil
	})
	define(pc, "pg_ts_config_map", 3603, 'r', "mapcfg:oid maptokentype:integer mapseqno:integer mapdict:oid", func(s *Snapshot) ([]exec.Row, error) {
		configs := map[string]uint32{"simple": oidSimpleConfig, "english": oidEnglishConfig}
		var out []exec.Row
		funcs.TextSearchMappings(func(config string, tokenType int, dictionary string) {
			out = append(out, exec.Row{dOID(configs[config]), dInt(int64(tokenType)), dInt(1), dOID(builtinDictOIDs[dictionary])})
		})
		user, err := s.Src.Root.TextSearchConfigs(s.Src.Ctx)
		if err != nil {
			return nil, err
		}
		for _, c := range user {
			oid := TextSearchConfigOID(c.Schema, c.Name)
			for _, m := range c.Mappings {
				for i, d := range m.Dictionaries {
					out = append(out, exec.Row{dOID(oid), dInt(int64(m.TokenType)), dInt(int64(i + 1)), dOID(textSearchDictOID(d))})
				}
			}
		}
		return out, nil
	})
}
