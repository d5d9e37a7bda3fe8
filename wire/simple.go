package wire

import (
	"context"
	"slices"
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
	// A simple Query ends any extended batch and destroys the unnamed
	// portal, as in PostgreSQL.
	c.inBatch = false
	c.closePortal("")

	ctx := c.beginStmt()
	defer c.endStmt()
	stmts, err := c.sess.Parse(ctx, string(q), nil)
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
	p, err := st.Bind(ctx, nil, nil, nil)
	if err == nil && p == nil {
		err = errNoPortal
	}
	if err != nil {
		c.sendError(err, stmtCause(ctx))
		return false
	}
	defer p.Close()
	if cols := p.Columns(); cols != nil {
		c.wr.rowDescription(cols, nil)
	}
	for {
		done, ok := c.runPortal(ctx, p, 0)
		if !ok {
			return false
		}
		if done {
			return true
		}
		// maxRows 0 asks for everything; an engine that stopped early is
		// simply resumed.
	}
}

// runPortal calls Execute and answers with CommandComplete or
// PortalSuspended (after CopyDone for COPY TO STDOUT); false when it failed
// and the error has been sent.
func (c *conn) runPortal(ctx context.Context, p Portal, maxRows int) (done, ok bool) {
	c.rw.reset()
	tag, done, err := p.Execute(ctx, &c.rw, maxRows)
	c.rw.abandonRow()
	mode := c.rw.mode
	c.rw.mode = modeRows
	if mode == modeCopyIn {
		c.rw.cin.c = nil // reads after this Execute fail
	}
	if c.closing {
		// The COPY stream broke; its FATAL error is what to report.
		if cerr, ok := c.rw.cin.err.(*Error); ok && isFatal(cerr.Severity) {
			err = cerr
		}
		c.sendError(err, nil)
		c.closing = true
		return false, false
	}
	if c.wr.err != nil {
		return false, false
	}
	if err != nil {
		c.fail(err, stmtCause(ctx))
		return false, false
	}
	if mode == modeCopyOut {
		c.wr.empty('c') // CopyDone
	}
	if done {
		c.wr.commandComplete(tag)
	} else {
		c.wr.empty('s') // PortalSuspended
	}
	return done, true
}
