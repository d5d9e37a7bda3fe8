package funcs

import (
	"sort"
	"strings"

	"github.com/prollypg/prollypg/exec"
)

// Set-returning functions over the system's own facts: pg_get_keywords
// (PostgreSQL 15's keyword list, which tools quote identifiers by) and
// pg_options_to_table (reloptions and the like, "name=value" text).

// keywordGroups lists PostgreSQL 15's keywords by category (catcode) and
// whether they can be a bare column label, as pg_get_keywords reports.
var keywordGroups = []struct {
	catcode   byte
	bareLabel bool
	words     string
}{
	{'U', true, `abort absolute access action add admin after aggregate also alter always asensitive assertion
		assignment at atomic attach attribute backward before begin breadth by cache call called cascade
		cascaded catalog chain characteristics checkpoint class close cluster columns comment comments
		commit committed compression configuration conflict connection constraints content continue
		conversion copy cost csv cube current cursor cycle data database deallocate declare defaults
		deferred definer delete delimiter delimiters depends depth detach dictionary disable discard
		document domain double drop each enable encoding encrypted enum escape event exclude excluding
		exclusive execute explain expression extension external family finalize first following force
		forward function functions generated global granted groups handler header hold identity if
		immediate immutable implicit import include including increment index indexes inherit inherits
		inline input insensitive insert instead invoker isolation key label language large last leakproof
		level listen load local location lock locked logged mapping match matched materialized maxvalue
		merge method minvalue mode move name names new next nfc nfd nfkc nfkd no normalized nothing notify
		nowait nulls object of off oids old operator option options ordinality others overriding owned
		owner parallel parameter parser partial partition passing password plans policy preceding prepare
		prepared preserve prior privileges procedural procedure procedures program publication quote range
		read reassign recheck recursive ref referencing refresh reindex relative release rename repeatable
		replace replica reset restart restrict return returns revoke role rollback rollup routine routines
		rows rule savepoint schema schemas scroll search security sequence sequences serializable server
		session set sets share show simple skip snapshot sql stable standalone start statement statistics
		stdin stdout storage stored strict strip subscription support sysid system tables tablespace temp
		template temporary text ties transaction transform trigger truncate trusted type types uescape
		unbounded uncommitted unencrypted unknown unlisten unlogged until update vacuum valid validate
		validator value version view views volatile whitespace work wrapper write xml yes zone`},
	{'U', false, `day filter hour minute month over second varying within without year`},
	{'C', true, `between bigint bit boolean coalesce dec decimal exists extract float greatest grouping inout int
		integer interval least national nchar none normalize nullif numeric out overlay position real row
		setof smallint substring time timestamp treat trim values varchar xmlattributes xmlconcat
		xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable`},
	{'C', false, `char character precision`},
	{'T', true, `authorization binary collation concurrently cross current_schema freeze full ilike inner is join
		left like natural outer right similar tablesample verbose`},
	{'T', false, `isnull notnull overlaps`},
	{'R', true, `all analyse analyze and any asc asymmetric both case cast check collate column constraint
		current_catalog current_date current_role current_time current_timestamp current_user default
		deferrable desc distinct do else end false foreign in initially lateral leading localtime
		localtimestamp not null only or placing primary references select session_user some symmetric table
		then trailing true unique user using variadic when`},
	{'R', false, `array as create except fetch for from grant group having intersect into limit offset on order
		returning to union where window with`},
}

// keywordCategories describes each catcode as pg_get_keywords' catdesc
// does.
var keywordCategories = map[byte]string{
	'U': "unreserved",
	'C': "unreserved (cannot be function or type name)",
	'T': "reserved (can be function or type name)",
	'R': "reserved",
}

func registerCatalog() {
	exec.RegisterSRF(&exec.Func{Name: "pg_get_keywords", Ret: exec.OIDRecord}, func([]exec.T) *exec.SRF {
		return &exec.SRF{Cols: []exec.ResultColumn{{Name: "word", T: exec.TText}, {Name: "catcode", T: exec.T{OID: exec.OIDChar, Typmod: -1}},
			{Name: "barelabel", T: exec.TBool}, {Name: "catdesc", T: exec.TText}, {Name: "baredesc", T: exec.TText}},
			Rows: func(*exec.Env, []exec.Datum) ([]exec.Row, error) { return keywordRows(), nil }}
	})
	exec.RegisterSRF(&exec.Func{Name: "pg_options_to_table", Args: []uint32{exec.OIDTextArray}, Ret: exec.OIDRecord}, func([]exec.T) *exec.SRF {
		return &exec.SRF{Cols: []exec.ResultColumn{{Name: "option_name", T: exec.TText}, {Name: "option_value", T: exec.TText}},
			Rows: func(_ *exec.Env, a []exec.Datum) ([]exec.Row, error) { return optionRows(a[0]), nil }}
	})
}

// keywordRows are pg_get_keywords' rows, in alphabetical order.
func keywordRows() []exec.Row {
	var rows []exec.Row
	for _, g := range keywordGroups {
		bare := "requires AS"
		if g.bareLabel {
			bare = "can be bare label"
		}
		for _, w := range strings.Fields(g.words) {
			rows = append(rows, exec.Row{exec.DText(w), exec.DText(string(g.catcode)), exec.DBool(g.bareLabel),
				exec.DText(keywordCategories[g.catcode]), exec.DText(bare)})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i][0].S < rows[j][0].S })
	return rows
}

// optionRows splits each "name=value" element of an options array; an
// element without "=" has a NULL value.
func optionRows(options exec.Datum) []exec.Row {
	var rows []exec.Row
	for _, e := range options.Array().Elems {
		if e.IsNull() {
			continue
		}
		name, value, ok := strings.Cut(e.S, "=")
		v := exec.Null
		if ok {
			v = exec.DText(value)
		}
		rows = append(rows, exec.Row{exec.DText(name), v})
	}
	return rows
}
