package catalog

import (
	"context"
	"sort"
	"time"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Source is what the catalog is computed from: one database's root value
// and the facts of the server and the session around it.
type Source struct {
	Ctx       context.Context
	Root      versioning.RootValue
	Database  string   // the current database, as current_database() names it
	Databases []string // every database of the server
	// DatabaseInfos are the owners and privileges recorded of the
	// databases (none for a database only the bootstrap superuser owns,
	// with the default privileges); DatabaseOwner is the owner of the
	// session's database ("" for the bootstrap superuser).
	DatabaseInfos map[string]*versioning.DatabaseInfo
	DatabaseOwner string
	User          string
	// Role is current_user, whose privileges information_schema's
	// privilege views show.
	Role       string
	Roles      []*sqldef.Role
	SearchPath []string // schemas of search_path, "$user" resolved
	Settings   []Setting
	// Cursors and Prepared are the session's open cursors and PREPAREd
	// statements, by name (pg_cursors, pg_prepared_statements).
	Cursors  []Cursor
	Prepared []Prepared
	// Backends are the server's sessions, for pg_stat_activity.
	Backends []Backend
	// Stats, when set, are the server's cumulative statistics, for the
	// pg_stat_ views' counters.
	Stats *exec.CumulativeStats
	// Statements, when set, returns the statistics of the statements run
	// (pg_stat_statements), and their reset time.
	Statements func() ([]StatementStat, time.Time)
	// Memory, when set, reads the server's memory, for
	// pg_backend_memory_contexts.
	Memory func() MemoryContext
	// Locks, when set, returns the locks held and awaited now (pg_locks).
	Locks func() []Lock
	// Expr renders a stored expression of table t (a default or a CHECK)
	// as pg_get_expr does, pretty or not; nil leaves the stored text.
	Expr func(t *sqldef.Table, expr string, pretty bool) string
	// Sequences returns the sequences a stored expression of table t
	// calls nextval on (pg_depend's entries for defaults); nil finds none.
	Sequences func(t *sqldef.Table, expr string) []*sqldef.Sequence
	// ViewEvents tells which statements view v takes, limited to its
	// columns at the positions include holds (nil: all), as PostgreSQL's
	// relation_is_updatable: 1<<2 UPDATE, 1<<3 INSERT, 1<<4 DELETE; nil
	// makes views read-only.
	ViewEvents func(v *sqldef.View, include []int) int
	// ViewDef renders the query of a view (or materialized view) whose
	// columns are cols as pg_get_viewdef(oid) prints it, without the
	// final semicolon; nil leaves the stored text.
	ViewDef func(snap *Snapshot, query string, depends, cols []string) string
}

// Backend is one session of the server as pg_stat_activity shows it;
// zero times read as NULL.
type Backend struct {
	PID                                        uint32
	Database, User, Application, ClientAddr    string
	ClientPort                                 int
	BackendStart, XactStart, QueryStart, Since time.Time
	State, Query                               string
}

// StatementStat is one row of pg_stat_statements: a statement's shape
// (its text with $n for its literals), run by User in Database, Calls
// times, returning or changing Rows rows, in these times (milliseconds).
type StatementStat struct {
	Database, User                string
	QueryID                       int64
	Query                         string
	Calls, Rows                   int64
	Total, Min, Max, Mean, StdDev float64
}

// Lock is one row of pg_locks: Type is its locktype, Table the locked
// table (schema.name) of a relation or tuple lock, Mode PostgreSQL's name
// of the mode.
type Lock struct {
	Type, Database, Table, Mode string
	ClassID, ObjID              uint32
	ObjSubID                    int
	PID                         uint32
	Granted                     bool
}

// Cursor is one row of pg_cursors: Statement is the text of the query
// that declared it.
type Cursor struct {
	Name, Statement              string
	Holdable, Binary, Scrollable bool
	Created                      time.Time
}

// Prepared is one row of pg_prepared_statements.
type Prepared struct {
	Name, Statement string
	Prepared        time.Time
	ParamTypes      []uint32
}

// Setting is one row of pg_settings.
type Setting struct {
	Name, Value, Category, Desc, Context, Vartype string
}

// Snapshot is the catalog of one Source, read once for one scan.
type Snapshot struct {
	Src     *Source
	Schemas []*sqldef.Schema // the root value's, by name
	Tables  []*sqldef.Table  // by schema and name
	Seqs    []*sqldef.Sequence
	Views   []*sqldef.View
	Types   []*sqldef.Type // enums, composites and domains
	rels    []Relation
	byOID   map[uint32]int
	// funcs are the user functions, read on first use (Functions).
	funcs     []*sqldef.Function
	funcsRead bool
	ops       []*sqldef.Function
	opsRead   bool
	casts     []*sqldef.Function
	castsRead bool
	// referenced holds the tables foreign keys reference, by
	// "schema\x00name", once hasForeignKeyTriggers has asked.
	referenced map[string]bool
}

// NewSnapshot reads src's root value.
func NewSnapshot(src *Source) (*Snapshot, error) {
	s := &Snapshot{Src: src}
	var err error
	if s.Schemas, err = src.Root.Schemas(src.Ctx); err != nil {
		return nil, err
	}
	if s.Tables, err = src.Root.Tables(src.Ctx); err != nil {
		return nil, err
	}
	if s.Seqs, err = src.Root.Sequences(src.Ctx); err != nil {
		return nil, err
	}
	if s.Views, err = src.Root.Views(src.Ctx); err != nil {
		return nil, err
	}
	if s.Types, err = src.Root.Types(src.Ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Namespace is a schema as pg_namespace lists it.
type Namespace struct {
	OID   uint32
	Name  string
	Owner string
	ACL   []sqldef.ACLItem // nil: the default
}

// Namespaces returns the system schemas and the database's, by name. A
// schema that holds tables without being a schema of the database, as
// dolt does once the version-control tables the user writes are stored
// (dolt.docs), is listed too, so that every relation's namespace is
// there (pg_dump looks each one up).
func (s *Snapshot) Namespaces() []Namespace {
	out := []Namespace{
		{OIDPgToast, "pg_toast", "postgres", nil},
		{OIDPgCatalog, "pg_catalog", "postgres", nil},
		{OIDInformationSchema, "information_schema", "postgres", nil},
	}
	listed := map[string]bool{}
	for _, sc := range s.Schemas {
		owner := sc.Owner
		if owner == "" {
			owner = "postgres"
		}
		if sc.Name == "public" {
			owner = "pg_database_owner" // as PostgreSQL 15 makes it
		}
		out = append(out, Namespace{NamespaceOID(sc.Name), sc.Name, owner, sc.ACL})
		listed[sc.Name] = true
	}
	for _, t := range s.Tables {
		if !listed[t.Schema] {
			out = append(out, Namespace{NamespaceOID(t.Schema), t.Schema, "postgres", nil})
			listed[t.Schema] = true
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Relation is one row of pg_class: a stored table, an index (a primary
// key's or a secondary one), a sequence, or a catalog table or view.
type Relation struct {
	OID    uint32
	Schema string
	Name   string
	Kind   byte // relkind: 'r' table, 'i' index, 'S' sequence, 'v' view
	// Table is the stored table, or the one an index belongs to.
	Table *sqldef.Table
	// Index is a secondary index; nil with Kind 'i' means the primary key.
	Index *sqldef.Index
	Seq   *sqldef.Sequence
	View  *View        // a catalog relation
	Query *sqldef.View // a view of the database
	Type  *sqldef.Type // a composite type (Kind 'c')
}

// Relations returns every relation, catalog ones included.
func (s *Snapshot) Relations() []Relation {
	if s.rels != nil {
		return s.rels
	}
	for _, v := range views {
		s.rels = append(s.rels, Relation{OID: v.OID, Schema: v.Schema, Name: v.Name, Kind: v.Kind, View: v})
	}
	for _, t := range s.Tables {
		s.rels = append(s.rels, Relation{OID: TableOID(t.Schema, t.Name), Schema: t.Schema, Name: t.Name, Kind: 'r', Table: t})
		if len(t.PrimaryKey) > 0 {
			s.rels = append(s.rels, Relation{OID: IndexOID(t.Schema, t.PrimaryKeyName), Schema: t.Schema, Name: t.PrimaryKeyName, Kind: 'i', Table: t})
		}
		for i := range t.Indexes {
			ix := &t.Indexes[i]
			s.rels = append(s.rels, Relation{OID: IndexOID(t.Schema, ix.Name), Schema: t.Schema, Name: ix.Name, Kind: 'i', Table: t, Index: ix})
		}
	}
	for _, q := range s.Seqs {
		s.rels = append(s.rels, Relation{OID: SequenceOID(q.Schema, q.Name), Schema: q.Schema, Name: q.Name, Kind: 'S', Seq: q})
	}
	for _, v := range s.Views {
		s.rels = append(s.rels, Relation{OID: ViewOID(v.Schema, v.Name), Schema: v.Schema, Name: v.Name, Kind: 'v', Query: v})
	}
	s.rels = append(s.rels, s.compositeRelations()...)
	s.byOID = make(map[uint32]int, len(s.rels))
	for i, r := range s.rels {
		s.byOID[r.OID] = i
	}
	return s.rels
}

// RelationByOID finds a relation by OID.
func (s *Snapshot) RelationByOID(oid uint32) (Relation, bool) {
	s.Relations()
	i, ok := s.byOID[oid]
	if !ok {
		return Relation{}, false
	}
	return s.rels[i], true
}

// RelationByName finds schema.name in the relation namespace.
func (s *Snapshot) RelationByName(schema, name string) (Relation, bool) {
	for _, r := range s.Relations() {
		if r.Schema == schema && r.Name == name {
			return r, true
		}
	}
	return Relation{}, false
}

// Visible reports whether a relation is found by its unqualified name:
// its schema is the first of pg_catalog and the search path to hold the
// name.
func (s *Snapshot) Visible(r Relation) bool {
	for _, sc := range s.path() {
		if o, ok := s.RelationByName(sc, r.Name); ok {
			return o.OID == r.OID
		}
	}
	return false
}

// path is the search path as name lookup walks it: pg_catalog first
// unless the path places it.
func (s *Snapshot) path() []string {
	for _, sc := range s.Src.SearchPath {
		if sc == "pg_catalog" {
			return s.Src.SearchPath
		}
	}
	return append([]string{"pg_catalog"}, s.Src.SearchPath...)
}

// tableOwner is the owner a table reports: its schema's, as tables here
// have no owner of their own.
func (s *Snapshot) tableOwner(schema string) string {
	for _, sc := range s.Schemas {
		if sc.Name == schema && sc.Owner != "" && sc.Name != "public" {
			return sc.Owner
		}
	}
	return "postgres"
}

// Constraint is one row of pg_constraint.
type Constraint struct {
	OID   uint32
	Name  string
	Type  byte          // contype: 'p', 'u', 'c', 'f'
	Table *sqldef.Table // nil for a domain's constraint
	// Domain is the domain of a domain's CHECK constraint.
	Domain *sqldef.Type
	Index  *sqldef.Index // the unique constraint's index
	Check  *sqldef.Check
	FK     *sqldef.ForeignKey
	Excl   *sqldef.Exclusion // an EXCLUDE constraint's ('x')
	Cols   []int             // conkey: column positions
}

// Constraints returns every constraint of the database's tables.
func (s *Snapshot) Constraints() []Constraint {
	var out []Constraint
	for _, t := range s.Tables {
		out = append(out, TableConstraints(t)...)
	}
	return out
}

// TableConstraints returns a table's constraints: CHECKs, the primary
// key, unique and foreign keys, EXCLUDE constraints.
func TableConstraints(t *sqldef.Table) []Constraint {
	var out []Constraint
	for i := range t.Checks {
		c := &t.Checks[i]
		var cols []int
		for j, col := range t.Columns {
			if !col.Dropped && exprMentions(c.Expr, col.Name) {
				cols = append(cols, j)
			}
		}
		out = append(out, Constraint{OID: ConstraintOID(t.Schema, t.Name, c.Name), Name: c.Name, Type: 'c', Table: t, Check: c, Cols: cols})
	}
	if len(t.PrimaryKey) > 0 {
		out = append(out, Constraint{OID: ConstraintOID(t.Schema, t.Name, t.PrimaryKeyName), Name: t.PrimaryKeyName, Type: 'p', Table: t, Cols: t.PrimaryKey})
	}
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if !ix.Constraint {
			continue
		}
		cols := make([]int, len(ix.Columns))
		for j, c := range ix.Columns {
			cols[j] = c.Column
		}
		out = append(out, Constraint{OID: ConstraintOID(t.Schema, t.Name, ix.Name), Name: ix.Name, Type: 'u', Table: t, Index: ix, Cols: cols})
	}
	for i := range t.ForeignKeys {
		fk := &t.ForeignKeys[i]
		out = append(out, Constraint{OID: ConstraintOID(t.Schema, t.Name, fk.Name), Name: fk.Name, Type: 'f', Table: t, FK: fk, Cols: fk.Columns})
	}
	for i := range t.Exclusions {
		x := &t.Exclusions[i]
		out = append(out, Constraint{OID: ConstraintOID(t.Schema, t.Name, x.Name), Name: x.Name, Type: 'x', Table: t, Excl: x, Cols: x.Columns})
	}
	return out
}

// ConstraintByOID finds a constraint by OID.
func (s *Snapshot) ConstraintByOID(oid uint32) (Constraint, bool) {
	for _, c := range s.Constraints() {
		if c.OID == oid {
			return c, true
		}
	}
	for _, c := range s.DomainConstraints() {
		if c.OID == oid {
			return c, true
		}
	}
	return Constraint{}, false
}

// exprMentions reports whether a stored expression names a column: a
// conservative textual test, as conkey only informs tools.
func exprMentions(expr, col string) bool {
	for i := 0; i+len(col) <= len(expr); i++ {
		if expr[i:i+len(col)] != col {
			continue
		}
		before := i == 0 || !identByte(expr[i-1])
		after := i+len(col) == len(expr) || !identByte(expr[i+len(col)])
		if before && after {
			return true
		}
	}
	return false
}

func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// Expr renders a stored expression as pg_get_expr does.
func (s *Snapshot) Expr(t *sqldef.Table, expr string, pretty bool) string {
	if s.Src.Expr == nil {
		return expr
	}
	return s.Src.Expr(t, expr, pretty)
}

// columnType returns a column's type.
func columnType(c sqldef.Column) exec.T { return exec.T{OID: columnTypeOID(c), Typmod: c.Typmod} }

// RelationEvents is pg_relation_is_updatable of relation r, limited to
// its column at position col when col >= 0: tables take every statement,
// views what their query allows, other relations none.
func (s *Snapshot) RelationEvents(r Relation, col int) int {
	const all = 1<<2 | 1<<3 | 1<<4
	switch k := r.RelKind(); {
	case k == 'r' || k == 'p':
		return all
	case r.Kind != 'v' || r.Query == nil || s.Src.ViewEvents == nil:
		return 0
	case col >= 0:
		return s.Src.ViewEvents(r.Query, []int{col})
	}
	return s.Src.ViewEvents(r.Query, nil)
}

// TriggerEvents are the statements view v takes through INSTEAD OF
// triggers, in RelationEvents' bits.
func TriggerEvents(v *sqldef.View) int {
	events := 0
	for _, tr := range v.Triggers {
		if tr.Timing != 'i' {
			continue
		}
		for ev, bit := range map[string]int{"UPDATE": 1 << 2, "INSERT": 1 << 3, "DELETE": 1 << 4} {
			if tr.FiresOn(ev) {
				events |= bit
			}
		}
	}
	return events
}

// viewDef is a view's query as pg_get_viewdef(oid) prints it, for the
// catalog relations that show it.
func (s *Snapshot) viewDef(query string, depends []string, cols []string) string {
	if s.Src.ViewDef == nil {
		return " " + query + ";"
	}
	return s.Src.ViewDef(s, query, depends, cols) + ";"
}

// viewColumns returns the names of a view's columns.
func viewColumns(v *sqldef.View) []string {
	out := make([]string, len(v.Columns))
	for i, c := range v.Columns {
		out[i] = c.Name
	}
	return out
}

// tableColumns returns the names of a table's live columns.
func tableColumns(t *sqldef.Table) []string {
	var out []string
	for _, c := range t.Columns {
		if !c.Dropped {
			out = append(out, c.Name)
		}
	}
	return out
}
