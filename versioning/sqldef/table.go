package sqldef

import (
	"slices"
	"strings"

	"github.com/prollypg/prollypg/store"
)

// Table is the stored definition of a table: its columns, keys, indexes and
// constraints, and the roots of the Prolly maps that hold its rows. It is a
// plain value; the SQL layer interprets the types and expressions in it.
//
// Column positions are stable for the life of the table: a row's tuple has
// field i for column i, dropped columns keep their position (Dropped set,
// field NULL) and added columns take the next one, so old rows stay
// readable (see prolly/tuple, invariant 4).
type Table struct {
	Schema  string   `json:"schema"`
	Name    string   `json:"name"`
	Columns []Column `json:"columns"`
	// PrimaryKey lists the positions of the primary key's columns, in key
	// order; empty means the table has none and rows are keyed by a hidden
	// row id drawn from NextRowID.
	PrimaryKey     []int        `json:"pk,omitempty"`
	PrimaryKeyName string       `json:"pk_name,omitempty"`
	Indexes        []Index      `json:"indexes,omitempty"`
	Checks         []Check      `json:"checks,omitempty"`
	ForeignKeys    []ForeignKey `json:"fks,omitempty"`
	// Exclusions are the EXCLUDE constraints: no two rows whose values
	// in an exclusion's columns all satisfy its operators.
	Exclusions []Exclusion `json:"exclusions,omitempty"`
	// Statistics are the extended statistics objects on the table
	// (CREATE STATISTICS), in the table's schema: kept for the catalog,
	// as the planner gathers no statistics.
	Statistics []StatisticsObject `json:"statistics,omitempty"`
	NextRowID  int64              `json:"next_rowid,omitempty"`
	Rows       store.Address      `json:"rows"` // primary map: key -> row tuple
	// Comment is the table's COMMENT ON TABLE text; PrimaryKeyComment
	// and PrimaryKeyIndexComment those of its primary key constraint and
	// of the constraint's index.
	Comment string `json:"comment,omitempty"`
	// Unlogged records CREATE UNLOGGED TABLE (or SET UNLOGGED):
	// relpersistence 'u' in the catalog. Storage treats the table as
	// any other.
	Unlogged bool `json:"unlogged,omitempty"`
	// SystemTriggersDisabled records ALTER TABLE ... DISABLE TRIGGER ALL:
	// PostgreSQL's internal triggers of the table's foreign keys are off
	// too, so rows written to it are not checked against the tables they
	// reference, and rows deleted or updated in it take no action on the
	// rows that reference them (what pg_dump --disable-triggers relies on
	// while it loads data).
	SystemTriggersDisabled bool `json:"sys_triggers_disabled,omitempty"`
	// PrimaryKeyClustered is Index.Clustered for the primary key's index.
	PrimaryKeyClustered    bool   `json:"pk_clustered,omitempty"`
	PrimaryKeyComment      string `json:"pk_comment,omitempty"`
	PrimaryKeyIndexComment string `json:"pk_index_comment,omitempty"`
	// Inherits lists the tables this one inherits from, in order: their
	// columns are among its columns, and scans of them read its rows. A
	// partition's one parent is its partitioned table.
	Inherits []TableName `json:"inherits,omitempty"`
	// OfType, when set, makes the table a typed table of the composite
	// type it names, "schema.name" (CREATE TABLE ... OF, ALTER TABLE ...
	// OF): its columns are the type's attributes.
	OfType string `json:"of_type,omitempty"`
	// PartitionKey, when set, makes the table partitioned: it stores no
	// rows itself, its partitions do.
	PartitionKey *PartitionKey `json:"partkey,omitempty"`
	// PartitionBound, when set, makes the table a partition of
	// Inherits[0]: the rows it may hold.
	PartitionBound *PartitionBound `json:"partbound,omitempty"`
	// Triggers are the table's triggers, ordered by name (the order they
	// fire in).
	Triggers []Trigger `json:"triggers,omitempty"`
	// Rules are the table's rewrite rules (CREATE RULE), ordered by name
	// (the order they are applied in).
	Rules []Rule `json:"rules,omitempty"`
	// Owner is the role that owns the table, "" for the bootstrap
	// superuser (tables made before owners were recorded). ACL is its
	// access control list; nil until a GRANT or REVOKE first changes it,
	// which means DefaultACL(owner, TablePrivileges, "").
	Owner string    `json:"owner,omitempty"`
	ACL   []ACLItem `json:"acl,omitzero"`
	// RowSecurity and ForceRowSecurity are relrowsecurity and
	// relforcerowsecurity (ALTER TABLE ... ENABLE / FORCE ROW LEVEL
	// SECURITY); Policies are the table's row-level security policies,
	// ordered by name. Records written before they existed decode with
	// none, which is what a table without them is.
	RowSecurity      bool     `json:"rls,omitempty"`
	ForceRowSecurity bool     `json:"force_rls,omitempty"`
	Policies         []Policy `json:"policies,omitempty"`
	// MatView, when set, makes the table a materialized view: its rows
	// are its query's as of the last REFRESH. nil for a table (and in
	// records written before materialized views existed).
	MatView *MaterializedView `json:"matview,omitempty"`
}

// MaterializedView is what a materialized view keeps beyond its rows.
type MaterializedView struct {
	// Query is the view's query, deparsed: REFRESH runs it again.
	Query string `json:"query"`
	// Unpopulated is set by WITH NO DATA: the view cannot be read until
	// a REFRESH fills it (relispopulated false).
	Unpopulated bool `json:"unpopulated,omitempty"`
	// Depends names the relations the query reads, "schema.name", as
	// View.Depends: dropping one needs CASCADE, which drops the view.
	Depends []string `json:"depends,omitempty"`
}

// Policy is a row-level security policy of a table, as pg_policy records
// one.
type Policy struct {
	Name string `json:"name"`
	// Command is polcmd: '*' for ALL, 'r' SELECT, 'a' INSERT, 'w' UPDATE,
	// 'd' DELETE.
	Command byte `json:"cmd"`
	// Restrictive policies are AND-ed with the others; permissive ones
	// (polpermissive, the default) are OR-ed together.
	Restrictive bool `json:"restrictive,omitempty"`
	// Roles are the roles the policy applies to; empty means PUBLIC.
	Roles []string `json:"roles,omitempty"`
	// Using and Check are the USING and WITH CHECK expressions as SQL
	// text over the table's columns, "" when absent.
	Using string `json:"using,omitempty"`
	Check string `json:"check,omitempty"`
	// Depends names the relations the expressions read, schema.name (as
	// View.Depends): dropping one drops the policy, with CASCADE.
	Depends []string `json:"depends,omitempty"`
}

// Exclusion is an EXCLUDE constraint: Ops[i] compares column Columns[i]
// of two rows (an operator's name: =, &&); rows that all operators
// find true conflict.
type Exclusion struct {
	Name    string   `json:"name"`
	Using   string   `json:"using,omitempty"` // the index access method named
	Columns []int    `json:"columns"`         // -1 for an expression
	Ops     []string `json:"ops"`
	// Exprs, when set, has for each element the SQL text of an
	// expression over the row (Columns -1), "" for a column, and
	// ExprTypes its type; Where, when set, limits the constraint to the
	// rows it holds for, as a partial index's predicate.
	Exprs     []string `json:"exprs,omitempty"`
	ExprTypes []uint32 `json:"expr_types,omitempty"`
	Where     string   `json:"where,omitempty"`
	// A deferrable constraint is checked at commit when deferred
	// (InitiallyDeferred, or SET CONSTRAINTS ... DEFERRED).
	Deferrable        bool `json:"deferrable,omitempty"`
	InitiallyDeferred bool `json:"initially_deferred,omitempty"`
}

// Index describes x as the index PostgreSQL would enforce it with: its
// elements as key columns and its WHERE as the predicate, for evaluating
// the elements and the predicate of a row as an index's.
func (x *Exclusion) Index() *Index {
	ix := &Index{Name: x.Name, Where: x.Where, Columns: make([]IndexColumn, len(x.Columns))}
	for i, c := range x.Columns {
		ix.Columns[i] = IndexColumn{Column: c}
		if i < len(x.Exprs) && x.Exprs[i] != "" {
			ix.Columns[i].Expr, ix.Columns[i].ExprType, ix.Columns[i].ExprTypmod = x.Exprs[i], x.ExprTypes[i], -1
		}
	}
	return ix
}

// Partitioning strategies, as pg_partitioned_table.partstrat spells them.
const (
	PartitionRange = 'r'
	PartitionList  = 'l'
	PartitionHash  = 'h'
)

// PartitionKey is how a partitioned table divides its rows.
type PartitionKey struct {
	Strategy byte `json:"strategy"`
	// Columns are the positions of the key columns, -1 for an
	// expression (partattrs' 0).
	Columns []int `json:"columns"`
	// Exprs, when the key has an expression, has an entry for each key
	// column: the expression's, set where Columns has -1.
	Exprs []PartitionExpr `json:"exprs,omitempty"`
}

// PartitionExpr is an expression key column: SQL text over the table's
// columns, of type Type and Typmod.
type PartitionExpr struct {
	Expr   string `json:"expr,omitempty"`
	Type   uint32 `json:"type,omitempty"`
	Typmod int32  `json:"typmod,omitempty"`
}

// Expr returns the expression of key column i, "" for a column.
func (k *PartitionKey) Expr(i int) string {
	if k.Columns[i] >= 0 || i >= len(k.Exprs) {
		return ""
	}
	return k.Exprs[i].Expr
}

// KeyType returns the type of key column i of partitioned table t.
func (t *Table) KeyType(i int) (oid uint32, typmod int32) {
	k := t.PartitionKey
	if pos := k.Columns[i]; pos >= 0 {
		return t.Columns[pos].Type, t.Columns[pos].Typmod
	}
	return k.Exprs[i].Type, k.Exprs[i].Typmod
}

// PartitionBound is the set of key values a partition holds: the default
// partition's (whatever no sibling holds), a list of values, a range of
// keys from From (inclusive) to To (exclusive), or a hash remainder.
type PartitionBound struct {
	Default   bool         `json:"default,omitempty"`
	In        []BoundValue `json:"in,omitempty"`
	From      []BoundValue `json:"from,omitempty"`
	To        []BoundValue `json:"to,omitempty"`
	Modulus   int          `json:"modulus,omitempty"`
	Remainder int          `json:"remainder,omitempty"`
}

// BoundValue is one value of a partition bound: Text is the value in the
// key column's text form, unless Kind says it is NULL ('n'), MINVALUE
// ('-') or MAXVALUE ('+').
type BoundValue struct {
	Text string `json:"v,omitempty"`
	Kind byte   `json:"k,omitempty"`
}

// Bound value kinds other than a value.
const (
	BoundNull     = 'n'
	BoundMinValue = '-'
	BoundMaxValue = '+'
)

// Partitioned reports whether t is a partitioned table.
func (t *Table) Partitioned() bool { return t.PartitionKey != nil }

// IsPartition reports whether t is a partition of a partitioned table.
func (t *Table) IsPartition() bool { return t.PartitionBound != nil }

// Column is one column of a Table.
type Column struct {
	Name    string `json:"name"`
	Type    uint32 `json:"type"`   // PostgreSQL type OID
	Typmod  int32  `json:"typmod"` // -1 when none
	NotNull bool   `json:"not_null,omitempty"`
	// Default is the default expression as SQL text, "" for none; for a
	// generated column, its generation expression (as PostgreSQL keeps
	// both in pg_attrdef).
	Default string `json:"default,omitempty"`
	// Generated is 's' for a stored generated column (GENERATED ALWAYS AS
	// (Default) STORED: its value is computed from the row's other
	// columns whenever the row is written), 0 otherwise; attgenerated.
	Generated byte `json:"generated,omitempty"`
	// Identity is 'a' (GENERATED ALWAYS), 'd' (BY DEFAULT) or 0; an identity
	// column's values come from Sequence.
	Identity byte   `json:"identity,omitempty"`
	Sequence string `json:"sequence,omitempty"` // owned sequence, schema-qualified
	Dropped  bool   `json:"dropped,omitempty"`
	// Missing is the value rows stored before the column was added read
	// for it (PostgreSQL's attmissingval): a one-field prolly/tuple, nil
	// for NULL. ALTER TABLE ADD COLUMN ... DEFAULT sets it, so adding a
	// column with a constant default rewrites no row.
	Missing []byte `json:"missing,omitempty"`
	Comment string `json:"comment,omitempty"`
	// Storage is attstorage as ALTER COLUMN SET STORAGE (or LIKE
	// INCLUDING STORAGE, or a parent) set it: 'p', 'e', 'm' or 'x'; 0
	// is the type's typstorage. It changes nothing of how values are
	// stored here.
	Storage byte `json:"storage,omitempty"`
	// Domain, when set, is the schema-qualified domain the column was
	// declared with; Type and Typmod are its base type's, and the
	// domain's constraints apply to the column's values.
	Domain string `json:"domain,omitempty"`
	// DomainArray makes the column an array of Domain (declared
	// domain[]): Type is its base type's array type, and each element
	// meets the domain's constraints. The domain's default is not the
	// column's.
	DomainArray bool `json:"domain_array,omitempty"`
	// InhCount is how many parents the column is inherited from
	// (attinhcount); NotLocal, that it was not also defined by the table
	// itself (attislocal false). A column that is neither inherited nor
	// local would not exist: dropping it from its last parent drops it.
	InhCount int  `json:"inhcount,omitempty"`
	NotLocal bool `json:"notlocal,omitempty"`
	// ACL holds the column's own privileges (GRANT SELECT (col) ...),
	// attacl: nil when none were ever granted; they add to the table's.
	ACL []ACLItem `json:"acl,omitempty"`
}

// GeneratedStored is Column.Generated of a stored generated column.
const GeneratedStored = 's'

// Index is a secondary index: a Prolly map from the index columns followed
// by the primary key (or row id) to nothing.
type Index struct {
	Name    string        `json:"name"`
	Columns []IndexColumn `json:"columns"`
	Unique  bool          `json:"unique,omitempty"`
	// Constraint is set when the index backs a UNIQUE constraint of that
	// name (and so is dropped with it).
	Constraint bool `json:"constraint,omitempty"`
	// NullsNotDistinct makes NULLs equal for uniqueness (PostgreSQL 15's
	// UNIQUE NULLS NOT DISTINCT).
	NullsNotDistinct bool `json:"nulls_not_distinct,omitempty"`
	// Deferrable unique constraints are checked at the end of the
	// statement, or at commit when deferred (InitiallyDeferred, or SET
	// CONSTRAINTS ... DEFERRED).
	Deferrable        bool `json:"deferrable,omitempty"`
	InitiallyDeferred bool `json:"initially_deferred,omitempty"`
	// Include lists INCLUDE columns: kept for the catalog, not in the key.
	Include []int `json:"include,omitempty"`
	// Where, when set, makes the index partial: it holds only the rows
	// for which this predicate (SQL text) is true.
	Where string        `json:"where,omitempty"`
	Rows  store.Address `json:"rows"`
	// Comment is the index's comment; ConstraintComment that of the
	// constraint it backs.
	Comment           string `json:"comment,omitempty"`
	ConstraintComment string `json:"constraint_comment,omitempty"`
	// Clustered marks the index CLUSTER last used (or ALTER TABLE ...
	// CLUSTER ON named): pg_index.indisclustered. Rows are stored in
	// primary-key order whatever it says.
	Clustered bool `json:"clustered,omitempty"`
	// Method is the access method CREATE INDEX named (hash, gin, gist,
	// spgist, brin), "" for btree: the catalog shows it, and the index is
	// kept as a btree of the same keys either way.
	Method string `json:"method,omitempty"`
}

// IndexColumn is one key column of an index.
type IndexColumn struct {
	Column     int  `json:"col"` // -1 for an expression
	Desc       bool `json:"desc,omitempty"`
	NullsFirst bool `json:"nulls_first,omitempty"`
	// Expr, when set, makes the key column an expression over the row's
	// columns (SQL text) of type ExprType and ExprTypmod.
	Expr       string `json:"expr,omitempty"`
	ExprType   uint32 `json:"expr_type,omitempty"`
	ExprTypmod int32  `json:"expr_typmod,omitempty"`
	// Collation is the collation named by COLLATE for the column, if
	// any: kept so that an index of a non-default sort order is known
	// (values are compared alike whatever it says).
	Collation string `json:"collation,omitempty"`
	// Opclass is the operator class written for the column
	// (jsonb_path_ops, gin_trgm_ops, ...), "" for the default: kept for
	// the catalog's definition of the index.
	Opclass string `json:"opclass,omitempty"`
}

// StatisticsObject is an extended statistics object on a table: its
// columns (positions) and expressions (SQL text), and the kinds of
// statistics it names (stxkind: 'd' ndistinct, 'f' dependencies, 'm'
// mcv, 'e' expressions).
type StatisticsObject struct {
	Name    string   `json:"name"`
	Columns []int    `json:"columns,omitempty"`
	Exprs   []string `json:"exprs,omitempty"`
	Kinds   string   `json:"kinds"`
	Comment string   `json:"comment,omitempty"`
}

// Check is a CHECK constraint; Expr is SQL text.
type Check struct {
	Name string `json:"name"`
	Expr string `json:"expr"`
	// NotValid marks a constraint added with NOT VALID: existing rows were
	// not checked, new ones are.
	NotValid  bool   `json:"not_valid,omitempty"`
	NoInherit bool   `json:"no_inherit,omitempty"`
	Comment   string `json:"comment,omitempty"`
	// InhCount and NotLocal are as a Column's: coninhcount, and
	// conislocal false.
	InhCount int  `json:"inhcount,omitempty"`
	NotLocal bool `json:"notlocal,omitempty"`
	// ACL holds the column's own privileges (GRANT SELECT (col) ...),
	// attacl: nil when none were ever granted; they add to the table's.
	ACL []ACLItem `json:"acl,omitempty"`
}

// ForeignKey is a FOREIGN KEY constraint.
type ForeignKey struct {
	Name       string `json:"name"`
	Columns    []int  `json:"columns"`
	RefSchema  string `json:"ref_schema"`
	RefTable   string `json:"ref_table"`
	RefColumns []int  `json:"ref_columns"`
	OnDelete   byte   `json:"on_delete,omitempty"` // PostgreSQL's confdeltype letter
	OnUpdate   byte   `json:"on_update,omitempty"`
	// DeleteSetColumns, for ON DELETE SET NULL or SET DEFAULT with a
	// column list, are the columns (positions, some of Columns) the
	// action sets; empty: all of Columns (confdelsetcols).
	DeleteSetColumns []int `json:"delete_set_columns,omitempty"`
	// Match is 'f' for MATCH FULL, 0 for MATCH SIMPLE.
	Match    byte   `json:"match,omitempty"`
	NotValid bool   `json:"not_valid,omitempty"`
	Comment  string `json:"comment,omitempty"`
	// Inherited marks a partition's copy of its parent's foreign key
	// (conislocal false, coninhcount 1).
	Inherited bool `json:"inherited,omitempty"`
	// Deferrable keys may be checked at commit instead of after each
	// statement: InitiallyDeferred ones are unless SET CONSTRAINTS says
	// otherwise.
	Deferrable        bool `json:"deferrable,omitempty"`
	InitiallyDeferred bool `json:"initially_deferred,omitempty"`
}

// ForeignKeyRef records that a foreign key of table Schema.Table, named
// Name, references table RefSchema.RefTable. The root value keeps one per
// foreign key, keyed by the referenced table, so that a DELETE or UPDATE
// finds the keys that reference its table with one seek. It is derived
// from the tables' ForeignKeys: the DDL that changes those keeps it.
type ForeignKeyRef struct {
	RefSchema, RefTable string
	Schema, Table, Name string
}

// Sequence is a sequence's definition and state. Its state is versioned like
// everything else; concurrent transactions that both advance it merge to
// the larger value.
type Sequence struct {
	Schema    string `json:"schema"`
	Name      string `json:"name"`
	Type      uint32 `json:"type"` // int2, int4 or int8 OID
	Start     int64  `json:"start"`
	Increment int64  `json:"increment"`
	Min       int64  `json:"min"`
	Max       int64  `json:"max"`
	Cache     int64  `json:"cache"`
	Cycle     bool   `json:"cycle,omitempty"`
	Last      int64  `json:"last"`
	Called    bool   `json:"called,omitempty"` // Last has been returned by nextval
	OwnedBy   string `json:"owned_by,omitempty"`
	Comment   string `json:"comment,omitempty"`
	// Unlogged is as a Table's: the sequence of an unlogged table's
	// column is unlogged too.
	Unlogged bool `json:"unlogged,omitempty"`
	// Owner and ACL, as Table's; a sequence's privileges are SELECT,
	// UPDATE and USAGE (SequencePrivileges).
	Owner string    `json:"owner,omitempty"`
	ACL   []ACLItem `json:"acl,omitzero"`
}

// Schema is a namespace.
type Schema struct {
	Name    string `json:"name"`
	Owner   string `json:"owner,omitempty"`
	Comment string `json:"comment,omitempty"`
	// ACL is the schema's access control list, nil for the default (see
	// the SQL layer: public's differs from the others').
	ACL []ACLItem `json:"acl,omitzero"`
}

// View is a view: a named query, stored as SQL text, and the columns it
// had when it was created (a view's columns do not follow its tables).
// Depends lists the relations the query reads, as schema.name, so that
// dropping one finds the views that need it.
type View struct {
	Schema  string       `json:"schema"`
	Name    string       `json:"name"`
	Query   string       `json:"query"`
	Columns []ViewColumn `json:"columns"`
	Depends []string     `json:"depends,omitempty"`
	Check   byte         `json:"check,omitempty"` // 'l' LOCAL or 'c' CASCADED CHECK OPTION
	Comment string       `json:"comment,omitempty"`
	// Statement is the CREATE VIEW statement as the client wrote it,
	// which dolt_schemas shows as Doltgres records it; "" for a view made
	// by a function's body.
	Statement string `json:"statement,omitempty"`
	// Owner and ACL, as Table's: SELECT on the view lets a role read it,
	// and its tables are read with its owner's privileges.
	Owner string    `json:"owner,omitempty"`
	ACL   []ACLItem `json:"acl,omitzero"`
	// Options are the view's reloptions as PostgreSQL lists them,
	// name=value (security_barrier, security_invoker), in the order set.
	Options []string `json:"options,omitempty"`
	// Triggers are the view's triggers: INSTEAD OF row triggers, which
	// take its INSERTs, UPDATEs and DELETEs, and statement triggers.
	Triggers []Trigger `json:"triggers,omitempty"`
	// Rules are the view's rewrite rules, ordered by name: an
	// unconditional DO INSTEAD rule makes the view writable for its event.
	Rules []Rule `json:"rules,omitempty"`
	// ColumnACL holds the columns' own privileges (GRANT UPDATE (col) ON
	// view), by column name, as Column.ACL.
	ColumnACL map[string][]ACLItem `json:"column_acl,omitempty"`
}

// Option returns the value of the view's option name, "" when unset.
func (v *View) Option(name string) string {
	for _, o := range v.Options {
		if n, val, _ := strings.Cut(o, "="); n == name {
			return val
		}
	}
	return ""
}

// ViewColumn is one output column of a View.
type ViewColumn struct {
	Name   string `json:"name"`
	Type   uint32 `json:"type"`
	Typmod int32  `json:"typmod"`
	// Default is the column's default (ALTER VIEW ... SET DEFAULT) as
	// SQL text, which an INSERT or UPDATE through the view uses in place
	// of its base column's; "" for none.
	Default string `json:"default,omitempty"`
	// Domain names ("schema.name") the domain a composite type's
	// attribute was declared with (Type is its base type): a value
	// converted to the type must pass it.
	Domain string `json:"domain,omitempty"`
}

// SameIndex reports whether index ix of def, a partition or child of
// parent, can stand for parent's index pix: the same key columns, by
// name, order and uniqueness. Partitions' indexes are matched to their
// parent's this way, not linked.
func SameIndex(parent, def *Table, pix, ix Index) bool {
	if ix.Unique != pix.Unique || ix.Where != pix.Where || len(ix.Columns) != len(pix.Columns) {
		return false
	}
	for i, pc := range pix.Columns {
		c := ix.Columns[i]
		if (pc.Column < 0) != (c.Column < 0) || pc.Expr != c.Expr || pc.Desc != c.Desc || pc.NullsFirst != c.NullsFirst {
			return false
		}
		if pc.Column >= 0 && parent.Columns[pc.Column].Name != def.Columns[c.Column].Name {
			return false
		}
	}
	return true
}

// Plain reports whether ix indexes columns only, of every row: no
// expression key column and no predicate. Only plain indexes can answer
// for every row of their table (foreign keys, index scans).
func (ix *Index) Plain() bool {
	if ix.Where != "" {
		return false
	}
	for _, c := range ix.Columns {
		if c.Expr != "" {
			return false
		}
	}
	return true
}

// Type is a user-defined type: an enum (Kind 'e'), a composite ('c'), a
// domain ('d') or a range ('r'), with PostgreSQL's typtype letters.
type Type struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	Kind   byte   `json:"kind"`
	// Labels are an enum's values, ordered by Sort. ALTER TYPE ... ADD
	// VALUE BEFORE/AFTER gives a new label a sort order between its
	// neighbours' (as PostgreSQL's enumsortorder does), so no stored value
	// or index key, which carry the sort order, has to change.
	Labels []EnumLabel `json:"labels,omitempty"`
	// Fields are a composite type's attributes.
	Fields []ViewColumn `json:"fields,omitempty"`
	// Base, BaseTypmod, NotNull, Default and Checks define a domain:
	// values of Base that pass the checks (SQL text over VALUE).
	Base       uint32 `json:"base,omitempty"`
	BaseTypmod int32  `json:"base_typmod,omitempty"`
	// BaseDomain names ("schema.name") the domain a domain over a domain
	// was declared over: Base is then that domain's base type, and a
	// value passes its constraints before this one's.
	BaseDomain string  `json:"base_domain,omitempty"`
	NotNull    bool    `json:"not_null,omitempty"`
	Default    string  `json:"default,omitempty"`
	Checks     []Check `json:"checks,omitempty"`
	Comment    string  `json:"comment,omitempty"`
	// A range type (Kind 'r') keeps its subtype in Base (a domain's base
	// type, the domain named by SubtypeDomain as "schema.name", as a
	// Column's Domain), and the names of its optional SUBTYPE_DIFF and
	// CANONICAL functions.
	SubtypeDomain string `json:"subtype_domain,omitempty"`
	SubtypeDiff   string `json:"subtype_diff,omitempty"`
	Canonical     string `json:"canonical,omitempty"`
	// Owner is the role that owns the type ("" for the bootstrap
	// superuser), ACL its USAGE privileges (nil until a GRANT or REVOKE
	// sets them: the owner's and PUBLIC's, as PostgreSQL's default).
	Owner string    `json:"owner,omitempty"`
	ACL   []ACLItem `json:"acl,omitempty"`
}

// EnumLabel is one value of an enum type.
type EnumLabel struct {
	Label string  `json:"label"`
	Sort  float64 `json:"sort"`
}

// Function is a user-defined function or procedure (PostgreSQL's pg_proc
// row): its signature, result and body, kept as the SQL text it was
// created with. Overloads share a name and differ in their input argument
// types, which are part of the record's key (FunctionKey).
type Function struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// Kind is 'f' for a function, 'p' for a procedure, 'a' for an
	// aggregate (prokind), 'o' for an operator (see Operator), 'c' for
	// a cast (see Cast).
	Kind byte      `json:"kind"`
	Args []FuncArg `json:"args,omitempty"`
	// Returns is the result type OID (void, trigger and record included);
	// ReturnsSet marks SETOF and RETURNS TABLE.
	Returns    uint32 `json:"returns"`
	ReturnsSet bool   `json:"returns_set,omitempty"`
	// ReturnsDomain names the domain the result was declared with
	// (Returns is its base type): a result must pass it.
	ReturnsDomain string `json:"returns_domain,omitempty"`
	Language      string `json:"language"` // "sql" or "plpgsql"
	Body          string `json:"body"`
	// Volatility is provolatile: 'i' immutable, 's' stable, 'v' volatile.
	Volatility byte `json:"volatility"`
	Strict     bool `json:"strict,omitempty"`
	// Leakproof is proleakproof: the function reveals nothing of its
	// arguments but its result (a superuser's word; nothing here relies on it).
	Leakproof bool   `json:"leakproof,omitempty"`
	Comment   string `json:"comment,omitempty"`
	// Aggregate is an aggregate's definition (Kind 'a'), which has no
	// body.
	Aggregate *Aggregate `json:"aggregate,omitempty"`
	// Operator is an operator's definition (Kind 'o'): its Args are its
	// operands, the left one's absent for a prefix operator, and Returns
	// is its function's result.
	Operator *Operator `json:"operator,omitempty"`
	// Cast is a user-defined cast's definition (Kind 'c'): its one Arg
	// is the source type and Returns the target type.
	Cast *Cast `json:"cast,omitempty"`
	// Owner is the role that owns the function ("" for the bootstrap
	// superuser), ACL its EXECUTE privileges (nil until a GRANT or REVOKE
	// sets them: the owner's and PUBLIC's, as PostgreSQL's default).
	// SecurityDefiner makes a call run as the owner (prosecdef).
	Owner           string    `json:"owner,omitempty"`
	ACL             []ACLItem `json:"acl,omitempty"`
	SecurityDefiner bool      `json:"security_definer,omitempty"`
}

// Aggregate is how a user-defined aggregate computes, as pg_aggregate
// records it: SFunc folds each row's arguments into a state of type
// SType, which starts as InitCond (in SType's text form; NULL unless
// HasInit); FinalFunc, when set, makes the result of the last state.
// Functions are named as CREATE AGGREGATE named them (possibly
// schema-qualified) and found again by their arguments' types.
type Aggregate struct {
	SFunc       string `json:"sfunc"`
	SType       uint32 `json:"stype"`
	FinalFunc   string `json:"finalfunc,omitempty"`
	CombineFunc string `json:"combinefunc,omitempty"`
	InitCond    string `json:"initcond,omitempty"`
	HasInit     bool   `json:"has_init,omitempty"`
}

// Operator is what CREATE OPERATOR defines beyond its operands and
// result, as pg_operator records it. An operator is kept with the
// functions (a Function of Kind 'o') so that version control lists,
// diffs and merges it as it does them. The function and the operators it
// links to are named, schema-qualified, rather than held by OID: the
// function by its name over the operator's operand types, the
// commutator over the operands swapped and the negator over the same
// ones, which need not exist yet (PostgreSQL's shell operators).
type Operator struct {
	Proc       string `json:"proc"`
	Commutator string `json:"commutator,omitempty"`
	Negator    string `json:"negator,omitempty"`
	Restrict   string `json:"restrict,omitempty"`
	Join       string `json:"join,omitempty"`
	Hashes     bool   `json:"hashes,omitempty"`
	Merges     bool   `json:"merges,omitempty"`
}

// Cast is what CREATE CAST defines beyond its source and target types,
// as pg_cast records it. A cast is kept with the functions (a Function of
// Kind 'c', schema pg_catalog) so that version control lists, diffs and
// merges it as it does them. Its function is named, schema-qualified,
// with its argument types (Proc and ProcArgs), rather than held by OID.
type Cast struct {
	Proc     string   `json:"proc,omitempty"`
	ProcArgs []uint32 `json:"proc_args,omitempty"`
	// Context is castcontext: 'e' explicit only, 'a' in assignments too,
	// 'i' implicitly too. Method is castmethod: 'f' by the function, 'b'
	// binary-coercible, 'i' by the types' text output and input.
	Context byte `json:"context"`
	Method  byte `json:"method"`
}

// CastTypes returns a cast's source and target types.
func (f *Function) CastTypes() (source, target uint32) {
	if len(f.Args) == 1 {
		source = f.Args[0].Type
	}
	return source, f.Returns
}

// IsPrefix reports whether operator f takes a right operand only.
func (f *Function) IsPrefix() bool { return f.Kind == 'o' && len(f.Args) == 1 }

// Operands returns an operator's left and right operand types, the left
// 0 for a prefix operator.
func (f *Function) Operands() (left, right uint32) {
	switch len(f.Args) {
	case 1:
		return 0, f.Args[0].Type
	case 2:
		return f.Args[0].Type, f.Args[1].Type
	}
	return 0, 0
}

// FuncArg is one argument of a Function.
type FuncArg struct {
	Name   string `json:"name,omitempty"`
	Type   uint32 `json:"type"`
	Typmod int32  `json:"typmod,omitempty"`
	// Mode is proargmodes' letter: 'i' IN, 'o' OUT, 'b' INOUT, 'v'
	// VARIADIC, 't' a RETURNS TABLE column.
	Mode byte `json:"mode"`
	// Default is the default expression as SQL text, "" for none.
	Default string `json:"default,omitempty"`
	// Domain names ("schema.name") the domain the argument was declared
	// with (Type is its base type): a call's value must pass it.
	Domain string `json:"domain,omitempty"`
}

// InputTypes returns the types of the arguments a call passes: IN,
// INOUT and VARIADIC ones.
func (f *Function) InputTypes() []uint32 {
	var out []uint32
	for _, a := range f.Args {
		if a.IsInput() {
			out = append(out, a.Type)
		}
	}
	return out
}

// IsInput reports whether a call passes the argument.
func (a FuncArg) IsInput() bool { return a.Mode == 'i' || a.Mode == 'b' || a.Mode == 'v' }

// IsOutput reports whether the argument is a column of the result.
func (a FuncArg) IsOutput() bool { return a.Mode == 'o' || a.Mode == 'b' || a.Mode == 't' }

// Trigger is a trigger on a table: the function to run, when, and for
// which rows. It is part of the table's record, so a trigger change is a
// change of the table's definition.
type Trigger struct {
	Name string `json:"name"`
	// Timing is 'b' BEFORE, 'a' AFTER or 'i' INSTEAD OF.
	Timing byte `json:"timing"`
	// Events are the events the trigger fires on: any of "INSERT",
	// "UPDATE", "DELETE" and "TRUNCATE", in that order.
	Events []string `json:"events"`
	// Columns are UPDATE OF's columns, by name.
	Columns    []string `json:"columns,omitempty"`
	ForEachRow bool     `json:"row,omitempty"`
	When       string   `json:"when,omitempty"` // the WHEN condition as SQL text
	FuncSchema string   `json:"func_schema"`
	FuncName   string   `json:"func_name"`
	Args       []string `json:"args,omitempty"`
	Disabled   bool     `json:"disabled,omitempty"`
	// Fires is 'A' for a trigger enabled ALWAYS, 'R' for one enabled
	// REPLICA (firing only when session_replication_role is replica), 0
	// for one that fires in origin and local mode (tgenabled 'O').
	Fires   byte   `json:"fires,omitempty"`
	Comment string `json:"comment,omitempty"`
	// OldTable and NewTable name the transition tables of REFERENCING
	// OLD TABLE AS / NEW TABLE AS: the statement's old and new rows, as
	// relations the trigger's function reads. "" for none.
	OldTable string `json:"old_table,omitempty"`
	NewTable string `json:"new_table,omitempty"`
	// Constraint marks a constraint trigger (CREATE CONSTRAINT TRIGGER):
	// an AFTER ROW trigger that, when Deferrable and deferred (initially,
	// or by SET CONSTRAINTS), fires at commit rather than at the end of
	// its statement. ConstrRelation names ("schema.name") the table its
	// FROM clause gives, "" for none.
	Constraint        bool   `json:"constraint,omitempty"`
	Deferrable        bool   `json:"deferrable,omitempty"`
	InitiallyDeferred bool   `json:"initially_deferred,omitempty"`
	ConstrRelation    string `json:"constr_relation,omitempty"`
}

// Rule is a rewrite rule of a table or view (CREATE RULE): commands run
// with, or instead of, each row an INSERT, UPDATE or DELETE of the
// relation would change, reading the row as NEW and OLD. Like a
// trigger it is part of its relation's record, so a rule change is a
// change of the relation's definition, and merges carry it by name.
type Rule struct {
	Name string `json:"name"`
	// Event is "INSERT", "UPDATE" or "DELETE".
	Event string `json:"event"`
	// Instead is DO INSTEAD: the rule's actions replace the original
	// command for the rows its condition holds for.
	Instead bool `json:"instead,omitempty"`
	// Where is the rule's condition as SQL text over NEW and OLD, ""
	// for none.
	Where string `json:"where,omitempty"`
	// Actions are the rule's commands as SQL text, in the order they
	// run; none is DO NOTHING.
	Actions []string `json:"actions,omitempty"`
	// Disabled is ALTER TABLE ... DISABLE RULE.
	Disabled bool   `json:"disabled,omitempty"`
	Comment  string `json:"comment,omitempty"`
}

// FiresOn reports whether the trigger fires on event.
func (t *Trigger) FiresOn(event string) bool {
	for _, e := range t.Events {
		if e == event {
			return true
		}
	}
	return false
}

// ClusteredIndex returns the name of the table's index marked clustered,
// "" for none.
func (t *Table) ClusteredIndex() string {
	if t.PrimaryKeyClustered && len(t.PrimaryKey) > 0 {
		return t.PrimaryKeyName
	}
	for _, ix := range t.Indexes {
		if ix.Clustered {
			return ix.Name
		}
	}
	return ""
}

// SetClustered marks index name the table's clustered index, clearing the
// mark of any other ("" clears them all). Indexes is copied, not changed
// in place: the record may be shared.
func (t *Table) SetClustered(name string) {
	t.PrimaryKeyClustered = len(t.PrimaryKey) > 0 && t.PrimaryKeyName == name
	t.Indexes = slices.Clone(t.Indexes)
	for i := range t.Indexes {
		t.Indexes[i].Clustered = t.Indexes[i].Name == name
	}
}
