// Package funcs is the library of PostgreSQL's built-in functions: the
// overloads it registers into exec's registries (functions, set-returning
// functions, aggregates) and the code behind them. exec holds the
// registries, overload resolution, Datum and the types, casts and the
// arithmetic and comparison operators; this package adds the functions
// over them, and imports exec, never the reverse. A binary has the
// library when it links this package: the planner imports it (for
// QuoteIdent, ArgNames, CurrentTimestamp and the like), so the server and
// every test that plans SQL have it; a test of exec alone imports it
// blank from an external test package.
//
// # Where things are
//
// One family per file, each with a register function:
//
//	string.go     text and bytea functions, concat, quote_*, encode/decode
//	format.go     format()
//	like.go       LIKE and ILIKE (PostgreSQL's MatchText), like_escape,
//	              bpchar comparison
//	regex.go      ~ and friends, SIMILAR TO, regexp_* (on RE2)
//	textarray.go  regexp_match, regexp_split_to_array, string_to_array
//	array.go      array functions and operators, array_agg (exec's
//	              array.go: representation and I/O; array_expr.go:
//	              ARRAY[...], subscripts)
//	math.go       numeric and float functions with PostgreSQL's scales
//	datetime.go   date/time arithmetic, extract, date_trunc, age, make_*,
//	              justify_*, AT TIME ZONE, OVERLAPS
//	tochar.go     to_char, to_number, to_date, to_timestamp
//	json.go       json and jsonb operators and functions (jsonraw.go walks
//	              json text; jsonbassign.go is jsonb subscript assignment;
//	              jsonrecord.go turns JSON into rows and records)
//	jsonpath.go   SQL/JSON path: @?, @@, jsonb_path_*
//	enum.go       enum_first, enum_last, enum_range
//	size.go       pg_size_pretty; colsize.go pg_column_size
//	catalog.go    pg_get_keywords, pg_options_to_table
//	system.go     now() and the SQL value functions, pg_typeof
//	named.go      the parameter names and defaults of built-ins that
//	              take named arguments (jsonb_set, jsonb_path_*)
//	srf.go        set-returning functions: json_each and kin,
//	              regexp_matches, unnest(text[]), generate_series over
//	              timestamps, json_to_record(set)
//	aggregates.go count, sum, avg, min, max, bool_*, string_agg;
//	              aggstats.go the statistical aggregates; aggsupport.go
//	              the transition functions CREATE AGGREGATE names (int4pl…)
//	prng.go       pg_prng, behind the session's random() and setseed()
//	tsearch.go    full text search: to_tsvector, the to_tsquery family, @@
//	              (TS_execute's phrase semantics), the tsvector and tsquery
//	              functions and operators; tsparser.go the default parser's
//	              tokens; tsconfig.go the simple and english configurations
//	              (english_stem: PostgreSQL's stop words and the Snowball
//	              stemmer of github.com/kljensen/snowball) and
//	              tsvector_update_trigger; tsrank.go ts_rank, ts_rank_cd;
//	              tsheadline.go ts_headline; tsrewrite.go ts_rewrite,
//	              ts_stat; tsdebug.go ts_token_type, ts_parse, ts_debug,
//	              tsquery @> <@; tsdict.go the dictionaries and
//	              configurations CREATE TEXT SEARCH makes (the simple,
//	              synonym, snowball templates, tsispell.go the Ispell one
//	              over package ispell, tsthesaurus.go the thesaurus) and
//	              their files and caches (TextSearch)
//	citext.go     contrib citext's functions and operators: LIKE and the
//	              regular expressions case-insensitive, strpos, replace,
//	              split_part, translate, citext_cmp and kin, min and max
//	trgm.go       contrib pg_trgm's trigrams and similarities (trgm_op.c);
//	              trgmfuncs.go its functions and operators
//	hstore.go     contrib hstore's functions and operators, skeys, svals,
//	              each, h[key]
//	range.go      range and multirange constructors, accessors and
//	              operators, range_agg, range_intersect_agg (exec's
//	              range.go, rangeops.go, multirange.go: representation,
//	              I/O, order and the operators' semantics)
//
// # Invariants
//
//  1. Registration happens in one init function (register.go), which
//     calls the files' register functions in a fixed order: the order of
//     the overloads of a name fixes their pg_proc OIDs, so it must not
//     depend on file names. A new family or overload goes last; exec's
//     invariants 1 to 3 (exec/doc.go) hold for everything registered here.
//  2. Fns keep no state between calls; what a call site needs (a compiled
//     regular expression, a parsed jsonpath) is made by Build, once per
//     plan, or cached safely for concurrent use.
//  3. Results and errors are PostgreSQL 15's: values, result types,
//     SQLSTATEs and messages.
//  4. Nothing here reads storage or the session beyond what exec.Env
//     carries (Settings, the user types of the catalog).
package funcs
