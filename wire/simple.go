package wire

import (
	"context"
	"slices"
	"strconv"
	"strings"
)

// simpleQuery handles a Query message: parse the string, then bind,
// describe, execute and close each statement in turn. An error stops the
// rest. The batch ends with the engine's Sync and ReadyForQuery.
func (c *conn) simpleQuery(body []byte) {
	m := msgBuf{b: body}
	q := m.cstring()
	if !m.done() {
		c.sendFatal(errInvalidFormat())
		return
	}
	// A simple Query ends any extended batch and drops the unnamed
	// statement, as in PostgreSQL; the unnamed portal goes when a
	// statement of the query starts (runSimple).
	c.inBatch = false
	c.closeStatement("")

	ctx := c.beginStmt()
	defer c.endStmt()
	stmts, err := c.engineParse(ctx, string(q), nil)
	switch {
	case err != nil:
		c.sendError(err, stmtCause(ctx))
	case len(stmts) == 0:
		c.wr.empty('I') // EmptyQueryResponse
	case slices.Contains(stmts, nil):
		c.sendError(errNoStatement, nil)
	default:
		for i, st := range stmts {
			ok := c.runSimple(ctx, st)
			st.Close()
			if !ok {
				for _, rest := range stmts[i+1:] {
					rest.Close()
				}
				break
			}
		}
	}
	c.endBatch()
}

// runSimple binds and runs one statement of a simple query; false when it
// failed (the error has been sent).
func (c *conn) runSimple(ctx context.Context, st Statement) bool {
	p, err := c.engineBind(ctx, st, nil, nil, nil)
	if err == nil && p == nil {
		err = errNoPortal
	}
	if err != nil {
		c.sendError(err, stmtCause(ctx))
		return false
	}
	// PostgreSQL runs each statement of a simple query in the unnamed
	// portal, replacing the one there, once the statement has been
	// analyzed and planned; in a failed block it gets no further for a
	// statement that does not end the block.
	refused := c.txStatus() == TxFailed && c.checkState(st) != nil
	if !refused {
		c.closePortal("")
	}
	keep := false
	defer func() {
		if !keep {
			p.Close()
		}
	}()
	// RowDescription is owed, not sent: it goes out when the portal's
	// result starts (see RowWriter.StartRows), so that a statement that
	// fails before, such as an INSERT ... RETURNING that violates a
	// constraint, answers with the error alone, as in PostgreSQL.
	c.rw.desc = p.Columns()
	defer func() { c.rw.desc = nil }()
	for {
		tag, done, ok := c.runPortal(ctx, p, 0, false)
		if !ok {
			if !c.closing && !refused {
				// PostgreSQL leaves the portal of a statement that failed
				// in place, as the unnamed portal, until the transaction
				// ends (at once outside a block): in a failed block it
				// can be described, and executing it is refused (25P02).
				// A statement refused in a failed block got no portal.
				c.closePortal("")
				bp := c.newPortal()
				bp.p, bp.cols, bp.started, bp.failed = p, p.Columns(), true, true
				c.portals[""] = bp
				keep = true
			}
			return false
		}
		if done {
			c.endedTransaction(tag)
			return true
		}
		// maxRows 0 asks for everything; an engine that stopped early is
		// simply resumed.
	}
}

// runPortal calls Execute and answers with CommandComplete or
// PortalSuspended (after CopyDone for COPY TO STDOUT). It returns the
// command tag sent, whether the portal completed, and false when it failed
// and the error has been sent. With countRows, the count that ends the
// command tag is the number of rows this Execute sent, as in PostgreSQL
// for an extended-protocol Execute of a portal that returns rows ("SELECT
// 1" after a suspension that sent one row of two, "SELECT 0" for a portal
// run again once done).
func (c *conn) runPortal(ctx context.Context, p Portal, maxRows int, countRows bool) (string, bool, bool) {
	c.rw.reset()
	tag, done, err := c.engineExecute(ctx, p, maxRows)
	c.rw.abandonRow()
	mode := c.rw.mode
	c.rw.mode = modeRows
	if mode == modeCopyIn {
		c.rw.cin.c = nil // reads after this Execute fail
	}
	if c.closing {
		// The COPY stream broke; its error is what to report. When it is
		// not FATAL (an unexpected message), PostgreSQL follows it with a
		// FATAL one: it read that message halfway and lost the framing.
		if cerr, ok := c.rw.cin.err.(*Error); ok {
			err = cerr
		}
		c.sendError(err, nil)
		if !isFatal(c.errResp.Severity) {
			c.sendFatal(protocolError("terminating connection because protocol synchronization was lost"))
		}
		c.closing = true
		return "", false, false
	}
	if c.wr.err != nil {
		return "", false, false
	}
	if err != nil {
		c.rw.desc = nil
		c.fail(err, stmtCause(ctx))
		return "", false, false
	}
	c.rw.StartRows()
	if mode == modeCopyOut {
		c.wr.empty('c') // CopyDone
	}
	if done {
		if countRows {
			tag = withRowCount(tag, c.rw.rows)
		}
		c.wr.commandComplete(tag)
	} else {
		c.wr.empty('s') // PortalSuspended
	}
	return tag, done, true
}

// withRowCount replaces the row count that ends tag ("SELECT 5", "INSERT 0
// 5", "UPDATE 5", ...) by n; a tag without one ("SHOW") is kept.
func withRowCount(tag string, n int) string {
	i := strings.LastIndexByte(tag, ' ')
	if i < 0 {
		return tag
	}
	if _, err := strconv.Atoi(tag[i+1:]); err != nil {
		return tag
	}
	return tag[:i+1] + strconv.Itoa(n)
}
