package planner

import (
	"context"
	"strings"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Name resolution, as PostgreSQL's namespace.c does it. An unqualified
// name is looked up in the schemas of search_path in order ("$user" being
// the session user's schema, missing schemas skipped); a new object with an
// unqualified name goes in the first existing schema of the path. Tables,
// indexes and sequences share one namespace per schema (pg_class), and
// constraint names are chosen to be unique in their schema too.

// QuoteIdent quotes a name where SQL needs it, as quote_identifier does.
func QuoteIdent(s string) string { return catalog.QuoteIdent(s) }

// qualifiedName returns the parts of a RangeVar-like name list (DROP's
// objects, sequence names).
func NameList(list []*pg.Node) []string {
	var parts []string
	for _, n := range list {
		parts = append(parts, n.GetString_().GetSval())
	}
	return parts
}

func IsSystemSchema(s string) bool {
	return s == "pg_catalog" || s == "information_schema"
}

// lookupTable finds the table schema.name, or name along the search path
// when schema is "".
func (a *analyzer) lookupTable(ctx context.Context, schema, name string) (*exec.Table, bool, error) {
	if schema != "" {
		return a.tx.Table(ctx, a.s.ResolveSchemaName(schema), name)
	}
	for _, s := range a.s.RelationPath() {
		t, ok, err := a.tx.Table(ctx, s, name)
		if ok || err != nil {
			return t, ok, err
		}
	}
	return nil, false, nil
}

// RelKind says what a name in a schema's relation namespace is.
type RelKind byte

const (
	RelNone     RelKind = 0
	RelTable    RelKind = 'r'
	RelIndex    RelKind = 'i'
	RelSequence RelKind = 'S'
	RelView     RelKind = 'v'
)

func (k RelKind) String() string {
	switch k {
	case RelTable:
		return "table"
	case RelIndex:
		return "index"
	case RelSequence:
		return "sequence"
	case RelView:
		return "view"
	}
	return "relation"
}

// Relation is what FindRelation found: the table itself, the table an
// index belongs to, or a sequence.
type Relation struct {
	Kind  RelKind
	Table *sqldef.Table
	Index int // position in table.Indexes, for an index
	Seq   *sqldef.Sequence
	View  *sqldef.View
}

// FindRelation looks name up in schema's relation namespace.
func FindRelation(ctx context.Context, root Catalog, schema, name string) (Relation, error) {
	if t, ok, err := root.Table(ctx, schema, name); err != nil || ok {
		return Relation{Kind: RelTable, Table: t}, err
	}
	if s, ok, err := root.Sequence(ctx, schema, name); err != nil || ok {
		return Relation{Kind: RelSequence, Seq: s}, err
	}
	if v, ok, err := root.View(ctx, schema, name); err != nil || ok {
		return Relation{Kind: RelView, View: v}, err
	}
	tables, err := root.TablesIn(ctx, schema)
	if err != nil {
		return Relation{}, err
	}
	for _, t := range tables {
		for i := range t.Indexes {
			if t.Indexes[i].Name == name {
				return Relation{Kind: RelIndex, Table: t, Index: i}, nil
			}
		}
		if t.PrimaryKeyName == name && len(t.PrimaryKey) > 0 {
			return Relation{Kind: RelIndex, Table: t, Index: -1}, nil
		}
	}
	return Relation{}, nil
}

// lookupRelation finds a relation by possibly-qualified name.
func (a *analyzer) lookupRelation(ctx context.Context, schema, name string) (Relation, string, error) {
	if schema != "" {
		schema = a.s.ResolveSchemaName(schema)
		r, err := FindRelation(ctx, a.tx.Catalog(), schema, name)
		return r, schema, err
	}
	for _, s := range a.s.RelationPath() {
		r, err := FindRelation(ctx, a.tx.Catalog(), s, name)
		if err != nil || r.Kind != RelNone {
			return r, s, err
		}
	}
	return Relation{}, "", nil
}

// truncateName cuts an identifier to 63 bytes, as the lexer does.
func truncateName(s string) string { return ClipUTF8(s, NameDataLen-1) }

// virtualTable returns the catalog relation or sequence a FROM item
// names, if it names one: catalog relations first for an unqualified name
// (pg_catalog precedes the search path), sequences after the tables of
// the same schema.
func (a *analyzer) virtualTable(ctx context.Context, schema, name string) (*exec.Table, bool, error) {
	switch schema {
	case "", "pg_catalog", "information_schema":
		cs := schema
		if cs == "" {
			cs = "pg_catalog"
		}
		if v, ok := catalog.Lookup(cs, name); ok {
			t := v.Table(a.s.CatalogSource)
			t.VirtualKind = 'c'
			return t, true, nil
		}
	}
	return nil, false, nil
}

// sequenceTable returns the one-row relation a sequence reads as
// (last_value, log_cnt, is_called), if schema.name (or name along the
// search path) is a sequence.
func (a *analyzer) sequenceTable(ctx context.Context, schema, name string) (*exec.Table, bool, error) {
	schemas := []string{a.s.ResolveSchemaName(schema)}
	if schema == "" {
		schemas = a.s.RelationPath()
	}
	for _, sc := range schemas {
		if _, ok, err := a.tx.Catalog().Sequence(ctx, sc, name); err != nil || !ok {
			if err != nil {
				return nil, false, err
			}
			continue
		}
		sc := sc
		cols := []exec.VirtualColumn{{Name: "last_value", Type: exec.TInt8}, {Name: "log_cnt", Type: exec.TInt8}, {Name: "is_called", Type: exec.TBool}}
		t := exec.NewVirtualTable(sc, name, catalog.SequenceOID(sc, name), cols, func(env *exec.Env) ([]exec.Row, error) {
			seq, ok, err := env.Txn.Sequence(env.Ctx, sc, name)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
			}
			// log_cnt counts values PostgreSQL has WAL-logged ahead; 32
			// once the sequence is used is what a fresh server shows.
			logCnt := int64(0)
			if seq.Called {
				logCnt = 32
			}
			return []exec.Row{{exec.DInt(seq.Last), exec.DInt(logCnt), exec.DBool(seq.Called)}}, nil
		})
		t.VirtualKind = 'S'
		return t, true, nil
	}
	return nil, false, nil
}

// SplitName returns the schema ("" if unqualified) and name of a
// qualified name's parts (a database part is ignored).
func SplitName(parts []string) (string, string) {
	name := parts[len(parts)-1]
	if len(parts) > 1 {
		return parts[len(parts)-2], name
	}
	return "", name
}

// SeqRef is how a column record names its identity sequence: the
// qualified name as SQL writes it, quoted where needed.
func SeqRef(schema, name string) string { return QuoteIdent(schema) + "." + QuoteIdent(name) }

// NextvalRefs calls fn with the sequence named by each nextval('...') of a
// stored expression (schema "" when unqualified); where fn returns a new
// reference (quoted as SQL needs), the expression's text is rewritten.
// Stored defaults name sequences by text where PostgreSQL stores an OID,
// so renames must follow them.
func NextvalRefs(expr string, fn func(schema, name string) (string, bool)) (string, bool) {
	n, err := ParseExpr(expr)
	if err != nil {
		return expr, false
	}
	changed := false
	VisitNodes(n, func(x *pg.Node) {
		fc := x.GetFuncCall()
		if fc == nil || OpName(fc.Funcname) != "nextval" || len(fc.Args) != 1 {
			return
		}
		arg := fc.Args[0]
		if tc := arg.GetTypeCast(); tc != nil {
			// nextval('s'::text) names its sequence only when it runs:
			// PostgreSQL records no dependency on it (only a regclass
			// constant is one).
			if names := NameList(tc.TypeName.Names); names[len(names)-1] != "regclass" {
				return
			}
			arg = tc.Arg
		}
		c := arg.GetAConst()
		if c == nil || c.GetSval() == nil {
			return
		}
		parts, err := exec.ParseQualifiedName(c.GetSval().Sval)
		if err != nil {
			return
		}
		s, nm := SplitName(parts)
		if ref, ok := fn(s, nm); ok {
			c.GetSval().Sval, changed = ref, true
		}
	})
	if !changed {
		return expr, false
	}
	text, err := DeparseExpr(n)
	if err != nil {
		return expr, false
	}
	return text, true
}

// TempSchemaPrefix starts the names of the temporary schemas.
const TempSchemaPrefix = "pg_temp_"

// IsTempSchema reports whether schema holds some session's temporary
// relations.
func IsTempSchema(schema string) bool { return strings.HasPrefix(schema, TempSchemaPrefix) }

// NameDataLen is PostgreSQL's NAMEDATALEN: names are cut to 63 bytes.
const NameDataLen = 64

// ClipUTF8 cuts s to at most n bytes without splitting a character.
func ClipUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
