package catalog

import (
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

func init() {
	const pc = "pg_catalog"
	define(pc, "pg_ts_parser", 3601, 'r', `oid:oid prsname:name prsnamespace:oid prsstart:regproc prstoken:regproc
		prsend:regproc prsheadline:regproc prslextype:regproc`, func(*Snapshot) ([]exec.Row, error) {
		return []exec.Row{{dOID(oidDefaultParser), dText("default"), dOID(OIDPgCatalog), dText("prsd_start"),
			dText("prsd_nexttoken"), dText("prsd_end"), dText("prsd_headline"), dText("prsd_lextype")}}, nil
	})
	define(pc, "pg_ts_template", 3764, 'r', `oid:oid tmplname:name tmplnamespace:oid tmplinit:regproc
		tmpllexize:regproc`, func(*Snapshot) ([]exec.Row, error) {
		return []exec.Row{
			{dOID(oidSimpleTemplate), dText("simple"), dOID(OIDPgCatalog), dText("dsimple_init"), dText("dsimple_lexize")},
			{dOID(oidSnowballTemplate), dText("snowball"), dOID(OIDPgCatalog), dText("dsnowball_init"), dText("dsnowball_lexize")},
		}, nil
	})
	define(pc, "pg_ts_dict", 3600, 'r', `oid:oid dictname:name dictnamespace:oid dictowner:oid dicttemplate:oid
		dictinitoption:text`, func(*Snapshot) ([]exec.Row, error) {
		return []exec.Row{
			{dOID(oidSimpleDict), dText("simple"), dOID(OIDPgCatalog), dOID(OIDBootstrapRole), dOID(oidSimpleTemplate), exec.Null},
			{dOID(oidEnglishStemDict), dText("english_stem"), dOID(OIDPgCatalog), dOID(OIDBootstrapRole), dOID(oidSnowballTemplate),
				dText("language = 'english', stopwords = 'english'")},
		}, nil
	})
	define(pc, "pg_ts_config", 3602, 'r', "oid:oid cfgname:name cfgnamespace:oid cfgowner:oid cfgparser:oid", func(*Snapshot) ([]exec.Row, error) {
		return []exec.Row{
			{dOID(oidSimpleConfig), dText("simple"), dOID(OIDPgCatalog), dOID(OIDBootstrapRole), dOID(oidDefaultParser)},
			{dOID(oidEnglishConfig), dText("english"), dOID(OIDPgCatalog), dOID(OIDBootstrapRole), dOID(oidDefaultParser)},
		}, nil
	})
	define(pc, "pg_ts_config_map", 3603, 'r', "mapcfg:oid maptokentype:integer mapseqno:integer mapdict:oid", func(*Snapshot) ([]exec.Row, error) {
		configs := map[string]uint32{"simple": oidSimpleConfig, "english": oidEnglishConfig}
		dicts := map[string]uint32{"simple": oidSimpleDict, "english_stem": oidEnglishStemDict}
		var out []exec.Row
		funcs.TextSearchMappings(func(config string, tokenType int, dictionary string) {
			out = append(out, exec.Row{dOID(configs[config]), dInt(int64(tokenType)), dInt(1), dOID(dicts[dictionary])})
		})
		return out, nil
	})
}
