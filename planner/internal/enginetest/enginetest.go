package enginetest

import (
	"context"
	"strings"
	"testing"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/planner/session"
	"github.com/prollypg/prollypg/store"
)

// DB is one session on the database postgres of a fresh engine.
type DB struct {
	t     testing.TB
	ctx   context.Context
	Store *store.Memory
	E     *session.Engine
	S     *session.Session
}

// Open starts an engine on a new memory store and connects to it.
func Open(t testing.TB) *DB {
	t.Helper()
	ctx := context.Background()
	st := store.NewMemory()
	e := session.NewEngine(st, nil)
	if err := e.Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := e.Connect(ctx, "postgres", "postgres", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &DB{t: t, ctx: ctx, Store: st, E: e, S: s}
}

// Another opens a second session on the same engine.
func (db *DB) Another() *DB {
	db.t.Helper()
	s, err := db.E.Connect(db.ctx, "postgres", "postgres", nil)
	if err != nil {
		db.t.Fatal(err)
	}
	db.t.Cleanup(s.Close)
	return &DB{t: db.t, ctx: db.ctx, Store: db.Store, E: db.E, S: s}
}

// Query runs sql (one or more statements, as a simple query) and returns
// the rows of the last one as text, values separated by " | ".
func (db *DB) Query(sql string, params ...exec.Datum) ([]string, error) {
	stmts, err := db.S.Parse(sql)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, st := range stmts {
		if st.IsEmpty() {
			continue
		}
		out = nil
		res, err := st.Execute(db.ctx, nil, params)
		if err != nil {
			_ = db.S.Sync(db.ctx, true)
			return nil, err
		}
		for {
			row, err := res.Next()
			if err != nil {
				res.Close()
				_ = db.S.Sync(db.ctx, true)
				return nil, err
			}
			if row == nil {
				break
			}
			vals := make([]string, len(row))
			for i, d := range row {
				if d.IsNull() {
					vals[i] = "NULL"
				} else {
					vals[i] = string(exec.AppendText(nil, res.Cols[i].T, d, nil))
				}
			}
			out = append(out, strings.Join(vals, " | "))
		}
		if err := res.Close(); err != nil {
			return nil, err
		}
	}
	return out, db.S.Sync(db.ctx, false)
}

// Exec runs sql and fails the test on error.
func (db *DB) Exec(sql string, params ...exec.Datum) []string {
	db.t.Helper()
	rows, err := db.Query(sql, params...)
	if err != nil {
		db.t.Fatalf("%s: %v", sql, err)
	}
	return rows
}

// Gets runs sql and returns its rows and the number of chunks it read.
func (db *DB) Gets(sql string, params ...exec.Datum) ([]string, uint64) {
	db.t.Helper()
	before := db.Store.Stats().Gets
	rows := db.Exec(sql, params...)
	return rows, db.Store.Stats().Gets - before
}

// Prepare parses and analyzes one statement for repeated Run calls.
func (db *DB) Prepare(sql string) *session.Statement {
	db.t.Helper()
	stmts, err := db.S.Parse(sql)
	if err != nil || len(stmts) != 1 {
		db.t.Fatalf("%s: %v", sql, err)
	}
	// As the wire protocol's Parse does: analyze now, reuse the plan.
	if _, _, err := stmts[0].Describe(db.ctx, nil); err != nil {
		db.t.Fatalf("%s: %v", sql, err)
	}
	return stmts[0]
}

// Run executes a prepared statement in its own transaction and returns
// its rows' first column as text.
func (db *DB) Run(st *session.Statement, params ...exec.Datum) []string {
	db.t.Helper()
	res, err := st.Execute(db.ctx, nil, params)
	if err != nil {
		db.t.Fatal(err)
	}
	var out []string
	for {
		row, err := res.Next()
		if err != nil {
			db.t.Fatal(err)
		}
		if row == nil {
			break
		}
		out = append(out, string(exec.AppendText(nil, res.Cols[0].T, row[0], nil)))
	}
	if err := res.Close(); err != nil {
		db.t.Fatal(err)
	}
	if err := db.S.Sync(db.ctx, false); err != nil {
		db.t.Fatal(err)
	}
	return out
}
