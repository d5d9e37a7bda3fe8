package dolt

import (
	"context"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The system tables the user writes: dolt.docs (the database's documents,
// README.md and the like), dolt_ignore (in each schema, the patterns of
// table names that dolt_add('.') leaves out, ignore.go), and dolt.rebase
// (the plan of an interactive rebase, which dolt_rebase writes on the
// rebase's branch, rebase.go). Doltgres keeps
// them as ordinary tables, versioned, diffed and merged like the user's,
// so they are ordinary tables here too, stored in the root value as
// dolt.docs and <schema>.dolt_ignore: dolt_status, dolt_diff_summary,
// dolt_diff and merges see them with nothing special. A database has
// neither until the first row is written: until then the name reads as
// an empty table of the same columns (storedTable.absent), and the first
// INSERT creates the table.

// storedTable is a user-writable system table.
type storedTable struct {
	// schema is the schema the table is stored in, "" for one table per
	// schema (dolt_ignore).
	schema string
	// name is the table's stored name.
	name string
	// columns are its columns, the first its primary key; the first
	// notNull of them are NOT NULL.
	columns []exec.VirtualColumn
	notNull int
	// madeByRebase marks dolt.rebase, the plan of an interactive rebase
	// (rebase.go): dolt_rebase writes it, and without a rebase in
	// progress there is no such table.
	madeByRebase bool
}

// storedTables are the user-writable system tables by their short names:
// dolt_docs is dolt.docs.
var storedTables = map[string]storedTable{
	"docs": {schema: systemSchema, name: "docs", notNull: 1, columns: []exec.VirtualColumn{
		{Name: "doc_name", Type: exec.TText}, {Name: "doc_text", Type: exec.TText}}},
	"ignore": {name: "dolt_ignore", notNull: 2, columns: []exec.VirtualColumn{
		{Name: "pattern", Type: exec.TText}, {Name: "ignored", Type: exec.TBool}}},
	"rebase": {schema: systemSchema, name: "rebase", madeByRebase: true, notNull: 4, columns: []exec.VirtualColumn{
		{Name: "rebase_order", Type: exec.TFloat4}, {Name: "action", Type: exec.T{OID: exec.OIDVarchar, Typmod: 6 + 4}},
		{Name: "commit_hash", Type: exec.TText}, {Name: "commit_message", Type: exec.TText}}},
}

// StoredName returns the stored table a FROM name means when it names a
// user-writable system table by another name: dolt_docs, in any schema,
// is dolt.docs. The stored names themselves (dolt.docs,
// public.dolt_ignore) are found as ordinary tables.
func StoredName(schema, name string) (string, string, bool) {
	short, ok := strings.CutPrefix(name, "dolt_")
	if !ok {
		return "", "", false
	}
	st, ok := storedTables[short]
	if !ok || st.schema == "" || schema == st.schema && name == st.name {
		return "", "", false
	}
	return st.schema, st.name, true
}

// definition is the table's catalog record in schema, without its rows.
func (st storedTable) definition(schema string) *sqldef.Table {
	def := &sqldef.Table{Schema: schema, Name: st.name, PrimaryKey: []int{0}, PrimaryKeyName: st.name + "_pkey"}
	for i, c := range st.columns {
		def.Columns = append(def.Columns, sqldef.Column{Name: c.Name, Type: c.Type.OID, Typmod: c.Type.Typmod, NotNull: i < st.notNull})
	}
	return def
}

// absent is the table of a database that has not stored it yet: no rows,
// and an INSERT creates it.
func (st storedTable) absent(schema string) *exec.Table {
	t := exec.NewVirtualTable(schema, st.name, exec.ObjectOID('r', schema, st.name), st.columns, func(*exec.Env) ([]exec.Row, error) {
		return nil, nil
	})
	t.VirtualWriter = storedCreator{st: st, schema: schema}
	// Its primary key, for INSERT ... ON CONFLICT to name.
	t.Def.PrimaryKey, t.Def.PrimaryKeyName = []int{0}, st.name+"_pkey"
	return t
}

// Unstored reports whether t is a user-writable system table not stored
// yet: a plan reading it must be made again once its first row stores it.
func Unstored(t *exec.Table) bool {
	_, ok := t.VirtualWriter.(storedCreator)
	return ok
}

// storedCreator writes the first rows of a user-writable system table: it
// creates the table in the transaction's root and inserts them there.
// With no rows, an UPDATE or DELETE has nothing to change.
type storedCreator struct {
	st     storedTable
	schema string
}

var _ exec.VirtualInserter = storedCreator{}

// InsertRow creates the table if the statement has not yet, and inserts
// row into it.
func (c storedCreator) InsertRow(env *exec.Env, row exec.Row) error {
	for i, col := range c.st.columns[:c.st.notNull] {
		if row[i].IsNull() {
			return pgerr.New(pgerr.NotNullViolation, "null value in column %q of relation %q violates not-null constraint", col.Name, c.st.name)
		}
	}
	ctx, tx := env.Ctx, env.Txn
	t, ok, err := tx.Table(ctx, c.schema, c.st.name)
	if err != nil {
		return err
	}
	if !ok {
		if t, err = c.create(ctx, tx); err != nil {
			return err
		}
	}
	w, err := tx.Writer(ctx, t)
	if err != nil {
		return err
	}
	if err := w.Insert(ctx, row); err != nil {
		return err
	}
	return w.Flush(ctx)
}

// create stores the empty table in the transaction's root.
func (c storedCreator) create(ctx context.Context, tx *exec.Txn) (*exec.Table, error) {
	def := c.st.definition(c.schema)
	empty, err := tx.EmptyMap(ctx)
	if err != nil {
		return nil, err
	}
	def.Rows = empty
	root, err := tx.Root().PutTable(ctx, def)
	if err != nil {
		return nil, err
	}
	tx.SetRoot(root)
	t, ok, err := tx.Table(ctx, c.schema, c.st.name)
	if err == nil && !ok {
		err = pgerr.New(pgerr.InternalError, "table %s.%s was not stored", c.schema, c.st.name)
	}
	return t, err
}

// UpdateRow and DeleteRow are never called: the table has no rows.
func (storedCreator) UpdateRow(*exec.Env, exec.Row, exec.Row) error { return nil }
func (storedCreator) DeleteRow(*exec.Env, exec.Row) error           { return nil }
