package planner

import (
	"context"
	"errors"
	pg "github.com/pganalyze/pg_query_go/v5"
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// Temporary tables. A session's temporary relations live in a schema of
// its own, pg_temp_N, as in PostgreSQL: unqualified names find them before
// any other (the temporary schema heads the search path for relations),
// pg_temp names it explicitly, and the session drops the schema when it
// ends. Like everything else they are kept in the branch's root value, so
// other sessions see them in the catalogs (as PostgreSQL shows other
// backends' pg_temp_N) but never by an unqualified name. A schema left by
// a session that did not end cleanly is emptied by the next session given
// its number, as PostgreSQL does with a crashed backend's.

// tempSchemaPrefix starts the names of the temporary schemas.
const tempSchemaPrefix = "pg_temp_"

// isTempSchema reports whether schema holds some session's temporary
// relations.
func isTempSchema(schema string) bool { return strings.HasPrefix(schema, tempSchemaPrefix) }

// TempSchemaName returns the session's temporary schema, choosing its
// number on first use.
func (s *Session) TempSchemaName() string {
	if s.tempSchema == "" {
		s.tempSchema = tempSchemaPrefix + strconv.FormatInt(s.e.tempSeq.Add(1), 10)
	}
	return s.tempSchema
}

// RelationPath is the search path for relations: the session's temporary
// schema (once it has one) first, then the search path.
func (s *Session) RelationPath() []string {
	path := s.SearchPath()
	if s.tempSchema == "" {
		return path
	}
	for _, p := range path {
		if p == s.tempSchema {
			return path // placed explicitly
		}
	}
	return append([]string{s.tempSchema}, path...)
}

// ResolveSchemaName maps pg_temp to the session's temporary schema.
func (s *Session) ResolveSchemaName(schema string) string {
	if schema == "pg_temp" {
		return s.TempSchemaName()
	}
	return schema
}

// ensureTempSchema creates the session's temporary schema in the
// transaction's root if it is not there, emptying a stale one.
func (a *analyzer) ensureTempSchema(ctx context.Context) (string, error) {
	// A temporary relation is about to be made: it may shadow the
	// relation a plan's unqualified name found.
	a.s.InvalidatePlans()
	name := a.s.TempSchemaName()
	if _, ok, err := a.tx.Schema(ctx, name); err != nil || ok {
		if ok && !a.s.TempSchemaReady() {
			if err := a.dropSchemaContents(ctx, name); err != nil {
				return "", err
			}
			a.s.MarkTempSchemaReady()
		}
		return name, err
	}
	root, err := a.tx.Root.PutSchema(ctx, versioning.Schema{Name: name, Owner: a.s.User()})
	if err != nil {
		return "", err
	}
	a.tx.SetRoot(root)
	a.s.MarkTempSchemaReady()
	return name, nil
}

// dropSchemaContents drops every table and sequence of schema.
func (a *analyzer) dropSchemaContents(ctx context.Context, schema string) error {
	root := a.tx.Root
	tables, err := root.TablesIn(ctx, schema)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if root, err = root.DropTable(ctx, schema, t.Name); err != nil {
			return err
		}
		if root, err = syncRefs(ctx, root, t, nil); err != nil {
			return err
		}
	}
	seqs, err := root.Sequences(ctx)
	if err != nil {
		return err
	}
	for _, q := range seqs {
		if q.Schema == schema {
			if root, err = root.DropSequence(ctx, schema, q.Name); err != nil {
				return err
			}
		}
	}
	views, err := root.Views(ctx)
	if err != nil {
		return err
	}
	for _, v := range views {
		if v.Schema == schema {
			if root, err = root.DropView(ctx, schema, v.Name); err != nil {
				return err
			}
		}
	}
	a.tx.SetRoot(root)
	return nil
}

// newRelationName resolves where CREATE TABLE, CREATE TABLE AS and CREATE
// SEQUENCE put rv: its schema (the temporary one for TEMP relations), and
// skip when the name is taken and IF NOT EXISTS was given (after
// PostgreSQL's notice); a taken name is 42P07 otherwise.
func (a *analyzer) newRelationName(ctx context.Context, rv *pg.RangeVar, ifNotExists bool) (schema string, skip bool, err error) {
	if rv.Relpersistence == "t" {
		schema, err = a.tempCreationSchema(ctx, rv.Schemaname)
	} else if schema, err = a.creationSchema(ctx, rv.Schemaname, rv.Location); err == nil {
		var pe *pgerr.Error
		if err = a.requireSchemaCreate(ctx, schema); errors.As(err, &pe) {
			err = withPos(pe, rv.Location)
		}
	}
	if err != nil {
		return "", false, err
	}
	rel, err := findRelation(ctx, a.tx.Root, schema, rv.Relname)
	switch {
	case err != nil:
		return "", false, err
	case rel.kind == relNone:
		return schema, false, nil
	case ifNotExists:
		a.s.Notice(pgerr.New(pgerr.DuplicateTable, "relation %q already exists, skipping", rv.Relname))
		return schema, true, nil
	}
	return "", false, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", rv.Relname)
}

// tempCreationSchema returns the schema a CREATE TEMP relation goes in:
// the temporary schema, which an explicit schema must name.
func (a *analyzer) tempCreationSchema(ctx context.Context, schema string) (string, error) {
	if schema != "" && schema != "pg_temp" && schema != a.s.TempSchema() {
		return "", pgerr.New(pgerr.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
	}
	return a.ensureTempSchema(ctx)
}

// dropTempSchema drops the session's temporary relations when it ends, in
// a transaction of its own. It is best effort: what it cannot drop, the
// next session given the same number empties.
func (s *Session) dropTempSchema(ctx context.Context) {
	if s.tempSchema == "" || !s.tempReady || s.repo == nil {
		return
	}
	for range 3 {
		tx, err := s.begin(ctx)
		if err != nil {
			return
		}
		a := &analyzer{ctx: ctx, s: s, tx: tx}
		if _, ok, err := tx.Schema(ctx, s.tempSchema); err != nil || !ok {
			s.rollback()
			return
		}
		if err := a.dropSchemaContents(ctx, s.tempSchema); err != nil {
			s.rollback()
			return
		}
		root, err := tx.Root.DropSchema(ctx, s.tempSchema)
		if err != nil {
			s.rollback()
			return
		}
		tx.SetRoot(root)
		if s.commit(ctx) == nil {
			return
		}
	}
}
