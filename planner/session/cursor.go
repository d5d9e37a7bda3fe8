package session

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
)

// cursor is an SQL cursor (DECLARE ... CURSOR FOR). Its query runs as it
// is fetched from, as PostgreSQL's portals do: a FETCH computes the rows
// it moves over and no more, so an error (a division by zero in row 40)
// comes with the FETCH that reaches it, a volatile function sees what the
// transaction did after the DECLARE, and a cursor over a large table costs
// the rows fetched, not the table. Fetched rows are kept so the cursor can
// move back; pos is 0 before the first row and len(rows)+1 after the last
// (once the query is exhausted), as in PostgreSQL.
type cursor struct {
	cols []exec.ResultColumn
	rows []exec.Row
	pos  int
	// plan is the query until the first FETCH opens it (a sort or an
	// aggregate computes its input when opened, and PostgreSQL does that
	// at the first FETCH too); src is the open query, nil once it is
	// exhausted. env is what it runs in. cancel ends its context: a
	// cursor outlives the statement that declared it, so its query runs
	// under a context of its own that each FETCH's cancellation reaches
	// (fill).
	plan   exec.Plan
	src    exec.Rows
	env    *exec.Env
	cancel context.CancelFunc
	scroll bool // false: it only moves forward (NO SCROLL, or a plan that cannot go back)
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
	// seq numbers the cursor among the session's (cursorsRollbackTo);
	// failed is set once its query failed: PostgreSQL's portal is then
	// dead, and later FETCHes say so.
	seq    uint64
	failed bool
}

// fill fetches rows until the cursor holds n of them or its query is
// exhausted, under ctx (the running statement's).
func (c *cursor) fill(ctx context.Context, n int) error {
	if c.src == nil && c.plan == nil || len(c.rows) >= n {
		return nil
	}
	stop := context.AfterFunc(ctx, c.cancel)
	defer stop()
	if c.plan != nil {
		src, err := c.plan.Open(c.env)
		c.plan = nil
		if err != nil {
			c.failed = true
			c.close()
			return err
		}
		c.src = src
	}
	for len(c.rows) < n {
		row, err := c.src.Next()
		if err != nil {
			c.failed = true
			c.close()
			if ctx.Err() != nil {
				return ctx.Err() // the FETCH's cancellation, not the cursor's
			}
			return err
		}
		if row == nil {
			c.close()
			return nil
		}
		c.rows = append(c.rows, slices.Clone(row))
		if c.table != nil {
			if k, ok := exec.CurrentKey(c.src); ok {
				c.keys = append(c.keys, slices.Clone(k))
			} else {
				c.table, c.keys = nil, nil
			}
		}
	}
	return nil
}

// has reports whether row i (from 1) exists, fetching up to it.
func (c *cursor) has(ctx context.Context, i int) (bool, error) {
	if err := c.fill(ctx, i); err != nil {
		return false, err
	}
	return i >= 1 && i <= len(c.rows), nil
}

// close ends the cursor's query; the rows fetched stay.
func (c *cursor) close() {
	c.plan = nil
	if c.src != nil {
		c.src.Close()
		c.src = nil
	}
	if c.cancel != nil {
		c.cancel()
	}
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
	cursorOptScroll   = 0x0002
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
	if sel := d.Query.GetSelectStmt(); sel != nil && d.Options&cursorOptScroll != 0 && len(sel.LockingClause) > 0 {
		strength := map[pg.LockClauseStrength]string{pg.LockClauseStrength_LCS_FORKEYSHARE: "FOR KEY SHARE", pg.LockClauseStrength_LCS_FORSHARE: "FOR SHARE",
			pg.LockClauseStrength_LCS_FORNOKEYUPDATE: "FOR NO KEY UPDATE", pg.LockClauseStrength_LCS_FORUPDATE: "FOR UPDATE"}[sel.LockingClause[0].GetLockingClause().GetStrength()]
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DECLARE SCROLL CURSOR ... %s is not supported", strength).
			WithDetail("Scrollable cursors must be READ ONLY.")
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
	// The query outlives this statement: it runs under a context of its
	// own, which fill links to each FETCH's.
	qctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	env := &exec.Env{Ctx: qctx, Params: params, Settings: s.settings(), TxnStart: tx.StartTime, Txn: tx, Session: s}
	s.cursorsDeclared++
	s.cursors[d.Portalname] = &cursor{seq: s.cursorsDeclared, cols: an.Cols, plan: an.Plan, env: env, cancel: cancel,
		scroll: d.Options&cursorOptScroll != 0 || d.Options&cursorOptNoScroll == 0 && exec.SupportsBackwardScan(an.Plan), hold: hold, binary: d.Options&cursorOptBinary != 0,
		text: st.sql, created: time.Now(), table: exec.ScannedTable(an.Plan), txn: tx}
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

// fetch runs FETCH and MOVE, computing the rows it moves over.
func (s *Session) fetch(ctx context.Context, f *pg.FetchStmt) (*Result, error) {
	c, ok := s.cursors[f.Portalname]
	if !ok {
		return nil, pgerr.New(pgerr.InvalidCursorName, "cursor %q does not exist", f.Portalname)
	}
	if c.failed {
		return nil, pgerr.New(pgerr.ObjectNotInPrerequisite, "portal %q cannot be run", f.Portalname)
	}
	var out []exec.Row
	emit := func() {
		if c.pos >= 1 && c.pos <= len(c.rows) {
			out = append(out, c.rows[c.pos-1])
		}
	}
	count := f.HowMany
	// Where an absolute or negative position counts from the end, the end
	// must be known: the rest of the query is fetched.
	if f.Direction == pg.FetchDirection_FETCH_ABSOLUTE {
		want := int(min(count, math.MaxInt32))
		if count < 0 {
			want = math.MaxInt
		}
		if err := c.fill(ctx, want); err != nil {
			return nil, err
		}
	}
	// Fetching the current row again (FETCH 0, RELATIVE 0) reads it
	// backward too.
	onRow := c.pos >= 1 && c.pos <= len(c.rows)
	backward := f.Direction == pg.FetchDirection_FETCH_BACKWARD ||
		count == 0 && onRow && f.Direction != pg.FetchDirection_FETCH_ABSOLUTE ||
		(f.Direction == pg.FetchDirection_FETCH_RELATIVE && count < 0) ||
		f.Direction == pg.FetchDirection_FETCH_ABSOLUTE && (count <= 0 || int(count) <= c.pos) // PostgreSQL rewinds for these
	if backward && !c.scroll {
		return nil, pgerr.New(pgerr.ObjectNotInPrerequisite, "cursor can only scan forward").
			WithHint("Declare it with SCROLL option to enable backward scan.")
	}
	// forward moves one row on, reporting whether it landed on one.
	forward := func() (bool, error) {
		ok, err := c.has(ctx, c.pos+1)
		if err != nil {
			return false, err
		}
		if ok {
			c.pos++
		} else {
			c.pos = len(c.rows) + 1
		}
		return ok, nil
	}
	switch f.Direction {
	case pg.FetchDirection_FETCH_FORWARD:
		if count == 0 {
			emit() // FETCH 0: the current row again
			break
		}
		for i := int64(0); i < count; i++ {
			ok, err := forward()
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
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
		n := len(c.rows) // the whole query's when count counts from the end
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
		if count > 0 {
			for i := int64(0); i < count; i++ {
				if ok, err := forward(); err != nil {
					return nil, err
				} else if !ok {
					break
				}
			}
		} else {
			c.pos = int(max(int64(c.pos)+count, 0))
		}
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
		for _, cur := range s.cursors {
			cur.close()
		}
		clear(s.cursors)
		return &Result{tag: "CLOSE CURSOR ALL"}, nil
	}
	cur, ok := s.cursors[c.Portalname]
	if !ok {
		return nil, pgerr.New(pgerr.InvalidCursorName, "cursor %q does not exist", c.Portalname)
	}
	cur.close()
	delete(s.cursors, c.Portalname)
	return &Result{tag: "CLOSE CURSOR"}, nil
}

// holdCursors computes the rest of the rows of the WITH HOLD cursors the
// committing transaction declared, as PostgreSQL persists them at
// commit: they outlive the transaction their query reads. An error fails
// the commit.
func (s *Session) holdCursors(ctx context.Context) error {
	for _, c := range s.cursors {
		if c.hold && c.txn == s.txn {
			if err := c.fill(ctx, math.MaxInt); err != nil {
				return err
			}
		}
	}
	return nil
}

// endCursors closes the cursors that end with a transaction: those
// without HOLD, and on rollback the held ones it declared too (a cursor
// held from an earlier transaction stays).
func (s *Session) endCursors(commit bool) {
	for name, c := range s.cursors {
		if !c.hold || !commit && c.txn == s.txn {
			c.close()
			delete(s.cursors, name)
		}
	}
}

// cursorsRollbackTo closes the cursors declared after mark (a savepoint's
// Session.cursorsDeclared) when the savepoint is rolled back to. What the
// others fetched meanwhile stays fetched, as in PostgreSQL.
func (s *Session) cursorsRollbackTo(mark uint64) {
	for name, c := range s.cursors {
		if c.seq > mark {
			c.close()
			delete(s.cursors, name)
		}
	}
}
