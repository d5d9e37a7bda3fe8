package session

import (
	"context"
	"fmt"
	"slices"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
)

// cursor is an SQL cursor (DECLARE ... CURSOR FOR). Its rows are computed
// when it is declared and kept in memory, so it can move both ways; pos is
// 0 before the first row and len(rows)+1 after the last, as in PostgreSQL.
type cursor struct {
	cols   []exec.ResultColumn
	rows   []exec.Row
	pos    int
	scroll bool // NO SCROLL clears it: then it only moves forward
	hold   bool // WITH HOLD: survives the end of its transaction
	binary bool
	// text is the query string that declared the cursor, at created.
	text    string
	created time.Time
	// table, when the cursor reads one stored table's rows one for one,
	// is that table, and keys are the keys of its rows' stored rows:
	// what WHERE CURRENT OF changes (CursorKey). txn is the transaction
	// that declared it.
	table *exec.Table
	keys  [][]byte
	txn   *exec.Txn
}

// CursorColumns describes the rows of cursor name, for a protocol-level
// Describe of it; binary reports a BINARY cursor.
func (s *Session) CursorColumns(name string) (cols []exec.ResultColumn, binary, ok bool) {
	c, ok := s.cursors[name]
	if !ok {
		return nil, false, false
	}
	return c.cols, c.binary, true
}

// Cursor options, as PostgreSQL's parser sets them.
const (
	cursorOptBinary   = 0x0001
	cursorOptNoScroll = 0x0004
	cursorOptHold     = 0x0020
)

func (s *Session) declareCursor(ctx context.Context, st *Statement, d *pg.DeclareCursorStmt, given []uint32, params []exec.Datum) (*Result, error) {
	hold := d.Options&cursorOptHold != 0
	if !s.explicit && !hold {
		return nil, pgerr.New(pgerr.NoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
	}
	if _, ok := s.cursors[d.Portalname]; ok {
		return nil, pgerr.New(pgerr.DuplicateCursor, "cursor %q already exists", d.Portalname)
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	an, err := planner.Analyze(ctx, s, tx, d.Query, "", given)
	if err != nil {
		return nil, err
	}
	if an.Plan == nil {
		return nil, pgerr.New(pgerr.SyntaxError, "DECLARE CURSOR must be a SELECT")
	}
	env := &exec.Env{Ctx: ctx, Params: params, Settings: s.settings(), TxnStart: tx.StartTime, Txn: tx, Session: s}
	rows, err := an.Plan.Open(env)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	c := &cursor{cols: an.Cols, scroll: d.Options&cursorOptNoScroll == 0, hold: hold, binary: d.Options&cursorOptBinary != 0,
		text: st.sql, created: time.Now(), table: exec.ScannedTable(an.Plan), txn: tx}
	for {
		row, err := rows.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			break
		}
		c.rows = append(c.rows, slices.Clone(row))
		if c.table != nil {
			if k, ok := exec.CurrentKey(rows); ok {
				c.keys = append(c.keys, slices.Clone(k))
			} else {
				c.table, c.keys = nil, nil
			}
		}
	}
	s.cursors[d.Portalname] = c
	return &Result{tag: "DECLARE CURSOR"}, nil
}

// CursorKey implements planner.CursorPositions: the key of the stored row
// of t cursor name is on, for WHERE CURRENT OF.
func (s *Session) CursorKey(name string, t *exec.Table) ([]byte, error) {
	c, ok := s.cursors[name]
	switch {
	case !ok:
		return nil, pgerr.New(pgerr.InvalidCursorName, "cursor %q does not exist", name)
	case c.txn != s.txn:
		return nil, pgerr.New(pgerr.InvalidCursorState, "cursor %q is held from a previous transaction", name)
	case c.table == nil || c.table.Def.Schema != t.Def.Schema || c.table.Def.Name != t.Def.Name:
		return nil, pgerr.New(pgerr.InvalidCursorState, "cursor %q is not a simply updatable scan of table %q", name, t.Def.Name)
	case c.pos < 1 || c.pos > len(c.keys):
		return nil, pgerr.New(pgerr.InvalidCursorState, "cursor %q is not positioned on a row", name)
	}
	return c.keys[c.pos-1], nil
}

// fetch runs FETCH and MOVE.
func (s *Session) fetch(f *pg.FetchStmt) (*Result, error) {
	c, ok := s.cursors[f.Portalname]
	if !ok {
		return nil, pgerr.New(pgerr.InvalidCursorName, "cursor %q does not exist", f.Portalname)
	}
	n := len(c.rows)
	var out []exec.Row
	emit := func() {
		if c.pos >= 1 && c.pos <= n {
			out = append(out, c.rows[c.pos-1])
		}
	}
	backward := f.Direction == pg.FetchDirection_FETCH_BACKWARD ||
		(f.Direction == pg.FetchDirection_FETCH_RELATIVE && f.HowMany < 0) ||
		f.Direction == pg.FetchDirection_FETCH_ABSOLUTE && (f.HowMany < 0 || int(f.HowMany) < c.pos)
	if backward && !c.scroll {
		return nil, pgerr.New(pgerr.ObjectNotInPrerequisite, "cursor can only scan forward").
			WithHint("Declare it with SCROLL option to enable backward scan.")
	}
	count := f.HowMany
	switch f.Direction {
	case pg.FetchDirection_FETCH_FORWARD:
		if count == 0 {
			emit() // FETCH 0: the current row again
			break
		}
		for i := int64(0); i < count && c.pos <= n; i++ {
			c.pos++
			emit()
		}
	case pg.FetchDirection_FETCH_BACKWARD:
		if count == 0 {
			emit()
			break
		}
		for i := int64(0); i < count && c.pos >= 1; i++ {
			c.pos--
			emit()
		}
	case pg.FetchDirection_FETCH_ABSOLUTE:
		switch {
		case count > 0:
			c.pos = int(min(count, int64(n+1)))
		case count < 0:
			c.pos = int(max(int64(n+1)+count, 0))
		default:
			c.pos = 0
		}
		emit()
	case pg.FetchDirection_FETCH_RELATIVE:
		c.pos = int(max(min(int64(c.pos)+count, int64(n+1)), 0))
		emit()
	}
	verb := "FETCH"
	if f.Ismove {
		verb = fmt.Sprintf("MOVE %d", len(out))
		return &Result{tag: verb}, nil
	}
	vals := make([][]exec.Expr, len(out))
	for i, row := range out {
		vals[i] = make([]exec.Expr, len(row))
		for j, d := range row {
			vals[i][j] = &exec.Const{D: d, T: c.cols[j].T}
		}
	}
	rows, _ := (&exec.Values{Rows: vals, Cols: c.cols}).Open(&exec.Env{})
	return &Result{Cols: c.cols, rows: rows, tag: "FETCH"}, nil
}

func (s *Session) closeCursor(c *pg.ClosePortalStmt) (*Result, error) {
	if c.Portalname == "" {
		clear(s.cursors)
		return &Result{tag: "CLOSE CURSOR ALL"}, nil
	}
	if _, ok := s.cursors[c.Portalname]; !ok {
		return nil, pgerr.New(pgerr.InvalidCursorName, "cursor %q does not exist", c.Portalname)
	}
	delete(s.cursors, c.Portalname)
	return &Result{tag: "CLOSE CURSOR"}, nil
}

// endCursors closes the cursors that end with a transaction: all of them
// on rollback, those without HOLD on commit.
func (s *Session) endCursors(commit bool) {
	for name, c := range s.cursors {
		if !commit || !c.hold {
			delete(s.cursors, name)
		}
	}
}
