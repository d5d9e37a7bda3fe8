package planner

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// Name resolution, as PostgreSQL's namespace.c does it. An unqualified
// name is looked up in the schemas of search_path in order ("$user" being
// the session user's schema, missing schemas skipped); a new object with an
// unqualified name goes in the first existing schema of the path. Tables,
// indexes and sequences share one namespace per schema (pg_class), and
// constraint names are chosen to be unique in their schema too.

// nameDataLen is PostgreSQL's NAMEDATALEN: names are cut to 63 bytes.
const nameDataLen = 64

// SplitSearchPath splits a search_path value into schema names, honouring
// double quotes and folding unquoted names to lower case.
func SplitSearchPath(v string) []string {
	var out []string
	for _, item := range splitOutsideQuotes(v, ',') {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		out = append(out, UnquoteIdent(item))
	}
	return out
}

// splitOutsideQuotes splits s at sep where sep is not inside double quotes.
func splitOutsideQuotes(s string, sep byte) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"':
			quoted = !quoted
		case s[i] == sep && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// UnquoteIdent returns an identifier as written in SQL: "Ab""c" is Ab"c,
// Abc is abc.
func UnquoteIdent(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return strings.ToLower(s)
}

// ParseQualifiedName splits a name given as text (nextval('s.seq'),
// 'tab'::regclass) into its parts, as stringToQualifiedNameList does.
func ParseQualifiedName(s string) ([]string, error) {
	var parts []string
	for _, p := range splitOutsideQuotes(s, '.') {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, pgerr.New(pgerr.InvalidName, "invalid name syntax")
		}
		parts = append(parts, UnquoteIdent(p))
	}
	if len(parts) > 3 {
		return nil, pgerr.New(pgerr.InvalidName, "improper qualified name (too many dotted names): %s", s)
	}
	return parts, nil
}

// QuoteIdent quotes a name where SQL needs it, as quote_identifier does.
func QuoteIdent(s string) string { return catalog.QuoteIdent(s) }

// qualifiedName returns the parts of a RangeVar-like name list (DROP's
// objects, sequence names).
func nameList(list []*pg.Node) []string {
	var parts []string
	for _, n := range list {
		parts = append(parts, n.GetString_().GetSval())
	}
	return parts
}

// existingSchema reports whether schema exists as of the transaction's
// root; pg_catalog and information_schema always do.
func (a *analyzer) existingSchema(ctx context.Context, schema string) (bool, error) {
	if IsSystemSchema(schema) {
		return true, nil
	}
	_, ok, err := a.tx.Schema(ctx, schema)
	return ok, err
}

func IsSystemSchema(s string) bool {
	return s == "pg_catalog" || s == "information_schema"
}

// creationSchema returns the schema a new object named in schema (""
// when unqualified) goes in.
func (a *analyzer) creationSchema(ctx context.Context, schema string, loc int32) (string, error) {
	if schema == "pg_temp" || schema != "" && schema == a.s.TempSchema() {
		return a.ensureTempSchema(ctx)
	}
	if schema != "" {
		ok, err := a.existingSchema(ctx, schema)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", withPos(pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", schema), loc)
		}
		return schema, nil
	}
	for _, s := range a.s.SearchPath() {
		if IsSystemSchema(s) {
			continue
		}
		ok, err := a.existingSchema(ctx, s)
		if err != nil {
			return "", err
		}
		if ok {
			return s, nil
		}
	}
	return "", withPos(pgerr.New(pgerr.InvalidSchemaName, "no schema has been selected to create in"), loc)
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
	relTable    RelKind = 'r'
	relIndex    RelKind = 'i'
	RelSequence RelKind = 'S'
	relView     RelKind = 'v'
)

func (k RelKind) String() string {
	switch k {
	case relTable:
		return "table"
	case relIndex:
		return "index"
	case RelSequence:
		return "sequence"
	case relView:
		return "view"
	}
	return "relation"
}

// Relation is what FindRelation found: the table itself, the table an
// index belongs to, or a sequence.
type Relation struct {
	Kind  RelKind
	table *versioning.Table
	index int // position in table.Indexes, for an index
	Seq   *versioning.Sequence
	view  *versioning.View
}

// FindRelation looks name up in schema's relation namespace.
func FindRelation(ctx context.Context, root versioning.RootValue, schema, name string) (Relation, error) {
	if t, ok, err := root.Table(ctx, schema, name); err != nil || ok {
		return Relation{Kind: relTable, table: t}, err
	}
	if s, ok, err := root.Sequence(ctx, schema, name); err != nil || ok {
		return Relation{Kind: RelSequence, Seq: s}, err
	}
	if v, ok, err := root.View(ctx, schema, name); err != nil || ok {
		return Relation{Kind: relView, view: v}, err
	}
	tables, err := root.TablesIn(ctx, schema)
	if err != nil {
		return Relation{}, err
	}
	for _, t := range tables {
		for i := range t.Indexes {
			if t.Indexes[i].Name == name {
				return Relation{Kind: relIndex, table: t, index: i}, nil
			}
		}
		if t.PrimaryKeyName == name && len(t.PrimaryKey) > 0 {
			return Relation{Kind: relIndex, table: t, index: -1}, nil
		}
	}
	return Relation{}, nil
}

// lookupRelation finds a relation by possibly-qualified name.
func (a *analyzer) lookupRelation(ctx context.Context, schema, name string) (Relation, string, error) {
	if schema != "" {
		schema = a.s.ResolveSchemaName(schema)
		r, err := FindRelation(ctx, a.tx.Root, schema, name)
		return r, schema, err
	}
	for _, s := range a.s.RelationPath() {
		r, err := FindRelation(ctx, a.tx.Root, s, name)
		if err != nil || r.Kind != RelNone {
			return r, s, err
		}
	}
	return Relation{}, "", nil
}

// nameSet holds the names taken in one schema: relations (tables,
// indexes, sequences) and constraints. DDL that invents names (index,
// constraint and sequence names) adds what it picks as it goes.
type nameSet struct {
	rels, cons map[string]bool
}

// takenNames collects the names used in schema.
func takenNames(ctx context.Context, root versioning.RootValue, schema string) (*nameSet, error) {
	ns := &nameSet{rels: map[string]bool{}, cons: map[string]bool{}}
	tables, err := root.TablesIn(ctx, schema)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		ns.rels[t.Name] = true
		if len(t.PrimaryKey) > 0 {
			ns.rels[t.PrimaryKeyName] = true
			ns.cons[t.PrimaryKeyName] = true
		}
		for _, ix := range t.Indexes {
			ns.rels[ix.Name] = true
			if ix.Constraint {
				ns.cons[ix.Name] = true
			}
		}
		for _, c := range t.Checks {
			ns.cons[c.Name] = true
		}
		for _, fk := range t.ForeignKeys {
			ns.cons[fk.Name] = true
		}
	}
	seqs, err := root.Sequences(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range seqs {
		if s.Schema == schema {
			ns.rels[s.Name] = true
		}
	}
	views, err := root.Views(ctx)
	if err != nil {
		return nil, err
	}
	for _, v := range views {
		if v.Schema == schema {
			ns.rels[v.Name] = true
		}
	}
	return ns, nil
}

// chooseRelationName picks a relation name as ChooseRelationName does:
// name1_name2_label, cut to fit 63 bytes, then label1, label2, ... until
// no relation (and, for a constraint's index, no constraint) has it.
func (ns *nameSet) chooseRelationName(name1, name2, label string, constraint bool) string {
	mod := label
	for pass := 1; ; pass++ {
		name := makeObjectName(name1, name2, mod)
		if !ns.rels[name] && (!constraint || !ns.cons[name]) {
			ns.rels[name] = true
			if constraint {
				ns.cons[name] = true
			}
			return name
		}
		mod = fmt.Sprintf("%s%d", label, pass)
	}
}

// chooseConstraintName picks a constraint name (CHECK, FOREIGN KEY) as
// ChooseConstraintName does; constraint names need not differ from
// relation names.
func (ns *nameSet) chooseConstraintName(name1, name2, label string) string {
	mod := label
	for pass := 1; ; pass++ {
		name := makeObjectName(name1, name2, mod)
		if !ns.cons[name] {
			ns.cons[name] = true
			return name
		}
		mod = fmt.Sprintf("%s%d", label, pass)
	}
}

// makeObjectName joins name1, name2 (may be empty) and label with
// underscores, cutting the longer of name1 and name2 until the whole fits
// in 63 bytes, as PostgreSQL's makeObjectName does.
func makeObjectName(name1, name2, label string) string {
	overhead := 0
	if label != "" {
		overhead = len(label) + 1
	}
	if name2 != "" {
		overhead++
	}
	avail := nameDataLen - 1 - overhead
	n1, n2 := len(name1), len(name2)
	for n1+n2 > avail {
		if n1 > n2 {
			n1--
		} else {
			n2--
		}
	}
	out := clipUTF8(name1, n1)
	if name2 != "" {
		out += "_" + clipUTF8(name2, n2)
	}
	if label != "" {
		out += "_" + label
	}
	return out
}

// clipUTF8 cuts s to at most n bytes without splitting a character.
func clipUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// truncateName cuts an identifier to 63 bytes, as the lexer does.
func truncateName(s string) string { return clipUTF8(s, nameDataLen-1) }

// indexNameAddition joins column names for an index name as
// ChooseIndexNameAddition does, stopping once the result is long enough.
func indexNameAddition(cols []string) string {
	var b strings.Builder
	for _, c := range cols {
		if b.Len() > 0 {
			b.WriteByte('_')
		}
		b.WriteString(c)
		if b.Len() >= nameDataLen {
			break
		}
	}
	return b.String()
}

// codeProgramLimit is 54000 (program_limit_exceeded): too many columns.
const codeProgramLimit = pgerr.Code("54000")

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
		if _, ok, err := a.tx.Root.Sequence(ctx, sc, name); err != nil || !ok {
			if err != nil {
				return nil, false, err
			}
			continue
		}
		sc := sc
		cols := []exec.VirtualColumn{{Name: "last_value", Type: exec.TInt8}, {Name: "log_cnt", Type: exec.TInt8}, {Name: "is_called", Type: exec.TBool}}
		t := exec.NewVirtualTable(sc, name, catalog.SequenceOID(sc, name), cols, func(env *exec.Env) ([]exec.Row, error) {
			seq, ok, err := env.Txn.Root.Sequence(env.Ctx, sc, name)
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
