package wire

import "slices"

// prepared is a statement made by Parse.
type prepared struct {
	st         Statement // nil for an empty query
	paramTypes []uint32  // cached ParamTypes
	haveTypes  bool
}

// params returns the statement's parameter types, asking the engine once.
func (ps *prepared) params() []uint32 {
	if !ps.haveTypes && ps.st != nil {
		ps.paramTypes = ps.st.ParamTypes()
		ps.haveTypes = true
	}
	return ps.paramTypes
}

// boundPortal is a portal made by Bind.
type boundPortal struct {
	p       Portal  // nil for an empty query
	formats []int16 // result format codes as sent (0, 1 or one per column)
	cols    []Column
	done    bool // an Execute ran it to completion
	started bool // an Execute ran it, successfully or not
	failed  bool // its Bind, or a statement of a simple query run in it, failed (see runSimple)
}

// parse handles Parse: make a named or the unnamed prepared statement.
func (c *conn) parse(body []byte) {
	m := msgBuf{b: body}
	name := m.cstring()
	query := m.cstring()
	n := int(m.int16())
	c.oids = c.oids[:0]
	if c.oids == nil {
		c.oids = make([]uint32, 0, 4) // nil would say simple protocol (Session.Parse)
	}
	for i := 0; i < n; i++ {
		c.oids = append(c.oids, uint32(m.int32()))
	}
	if n < 0 || !m.done() {
		c.sendFatal(errInvalidFormat())
		return
	}
	c.inBatch = true
	if len(name) == 0 {
		c.closeStatement("") // dropped even if the new Parse fails
	}
	ctx := c.beginStmt()
	stmts, err := c.engineParse(ctx, string(query), c.oids)
	c.endStmt()
	if err != nil {
		c.fail(err, stmtCause(ctx))
		return
	}
	closeAll := func() {
		for _, st := range stmts {
			st.Close()
		}
	}
	if len(stmts) > 1 {
		closeAll()
		c.fail(Errorf(CodeSyntaxError, "cannot insert multiple commands into a prepared statement"), nil)
		return
	}
	// As in PostgreSQL, a name in use is refused once the statement has
	// been parsed and analyzed: their errors come first.
	if _, ok := c.stmts[string(name)]; ok && len(name) > 0 {
		closeAll()
		c.fail(Errorf(CodeDuplicatePreparedStatement, "prepared statement \"%s\" already exists", name), nil)
		return
	}
	// An empty statement has the parameters declared, as in PostgreSQL.
	ps := &prepared{paramTypes: append([]uint32(nil), c.oids...), haveTypes: len(stmts) == 0}
	if len(stmts) == 1 {
		if ps.st = stmts[0]; ps.st == nil {
			c.fail(errNoStatement, nil)
			return
		}
	}
	c.stmts[string(name)] = ps
	c.wr.empty('1') // ParseComplete
}

// bind handles Bind: make a named or the unnamed portal from a statement.
func (c *conn) bind(body []byte) {
	m := msgBuf{b: body}
	portalName := m.cstring()
	stmtName := m.cstring()
	c.bindPFmts = c.bindPFmts[:0]
	np := int(m.int16())
	for i := 0; i < np; i++ {
		c.bindPFmts = append(c.bindPFmts, m.int16())
	}
	nargs := int(m.int16())
	clear(c.bindArgs)
	c.bindArgs = c.bindArgs[:0]
	for i := 0; i < nargs; i++ {
		l := m.int32()
		switch {
		case l == -1:
			c.bindArgs = append(c.bindArgs, nil)
		case l < 0:
			m.bad = true
		default:
			c.bindArgs = append(c.bindArgs, m.bytes(int(l)))
		}
	}
	c.bindRFmts = c.bindRFmts[:0]
	nr := int(m.int16())
	for i := 0; i < nr; i++ {
		c.bindRFmts = append(c.bindRFmts, m.int16())
	}
	if np < 0 || nargs < 0 || nr < 0 || !m.done() {
		c.sendFatal(errInvalidFormat())
		return
	}
	c.inBatch = true

	ps, ok := c.stmts[string(stmtName)]
	if !ok {
		c.fail(unknownStatement(stmtName), nil)
		return
	}
	if len(c.bindPFmts) > 1 && len(c.bindPFmts) != nargs {
		c.fail(protocolErrorf("bind message has %d parameter formats but %d parameters", len(c.bindPFmts), nargs), nil)
		return
	}
	if want := len(ps.params()); nargs != want {
		c.fail(protocolErrorf("bind message supplies %d parameters, but prepared statement \"%s\" requires %d", nargs, stmtName, want), nil)
		return
	}
	// In a failed transaction block only a statement that ends it may be
	// bound, and without parameters (PostgreSQL will not run a type's
	// input function then); an empty statement may not.
	if c.txStatus() == TxFailed && (ps.st == nil || nargs > 0 || c.checkState(ps.st) != nil) {
		c.fail(errInFailedTransaction(), nil)
		return
	}
	// As in PostgreSQL, the portal is made (dropping the unnamed one) once
	// the counts have been checked, before the parameters are decoded.
	if len(portalName) == 0 {
		c.closePortal("")
	} else if _, ok := c.portals[string(portalName)]; ok {
		c.fail(Errorf(CodeDuplicateCursor, "cursor \"%s\" already exists", portalName), nil)
		return
	}
	// From here on the portal exists, as in PostgreSQL: if the rest of
	// the Bind fails, it stays, failed, until the transaction ends (it can
	// be described and closed, and its name is taken).
	bp := c.newPortal()
	bp.failed = true
	c.portals[string(portalName)] = bp
	// Only the format codes of the parameters sent are checked (a code
	// for a statement without parameters is ignored); result format codes
	// are checked when the first row is sent (see execute).
	for i := range nargs {
		if f := FormatCode(c.bindPFmts, i); f != FormatText && f != FormatBinary {
			c.fail(unsupportedFormat(f), nil)
			return
		}
	}
	if d, ok := c.sess.(ParamDecoder); ok && ps.st == nil && nargs > 0 {
		ctx := c.beginStmt()
		err := c.engineDecodeParams(ctx, d, ps.params(), c.bindArgs, c.bindPFmts)
		c.endStmt()
		if err != nil {
			c.fail(err, stmtCause(ctx))
			return
		}
	}
	if ps.st != nil {
		ctx := c.beginStmt()
		p, err := c.engineBind(ctx, ps.st, c.bindArgs, c.bindPFmts, c.bindRFmts)
		c.endStmt()
		if err == nil && p == nil {
			err = errNoPortal
		}
		if err != nil {
			c.fail(err, stmtCause(ctx))
			return
		}
		cols := p.Columns()
		// A statement that returns no rows takes any result formats.
		if n := len(cols); len(c.bindRFmts) > 1 && cols != nil && len(c.bindRFmts) != n {
			p.Close()
			bp.cols = cols // described by now in PostgreSQL
			c.fail(protocolErrorf("bind message has %d result formats but query has %d columns", len(c.bindRFmts), n), nil)
			return
		}
		bp.p, bp.cols = p, cols
	}
	bp.failed = false
	bp.formats = append(bp.formats[:0], c.bindRFmts...)
	c.wr.empty('2') // BindComplete
}

// describe handles Describe of a statement or a portal.
func (c *conn) describe(body []byte) {
	m := msgBuf{b: body}
	kind := m.byte1()
	name := m.cstring()
	if !m.done() {
		c.sendFatal(errInvalidFormat())
		return
	}
	c.inBatch = true
	switch kind {
	case 'S':
		ps, ok := c.stmts[string(name)]
		if !ok {
			c.fail(unknownStatement(name), nil)
			return
		}
		var cols []Column
		if ps.st != nil {
			cols = ps.st.Columns()
		}
		// PostgreSQL refuses to describe rows in a failed transaction
		// block (it would need the catalog), but describes the rest, so
		// that a client describing everything it sends can still send
		// ROLLBACK.
		if cols != nil && c.txStatus() == TxFailed {
			c.fail(errInFailedTransaction(), nil)
			return
		}
		c.wr.parameterDescription(ps.params())
		if cols == nil {
			c.wr.empty('n') // NoData
		} else {
			c.wr.rowDescription(cols, nil)
		}
	case 'P':
		bp, ok := c.portals[string(name)]
		if !ok {
			c.describeCursor(name)
			return
		}
		if bp.cols != nil && c.txStatus() == TxFailed {
			c.fail(errInFailedTransaction(), nil)
			return
		}
		if bp.cols == nil {
			c.wr.empty('n')
		} else {
			c.wr.rowDescription(bp.cols, bp.formats)
		}
	default:
		c.fail(protocolErrorf("invalid DESCRIBE message subtype %d", kind), nil)
	}
}

// describeCursor answers Describe of a portal that only the engine knows:
// a cursor made by DECLARE.
func (c *conn) describeCursor(name []byte) {
	cd, ok := c.sess.(CursorDescriber)
	if !ok {
		c.fail(unknownPortal(name), nil)
		return
	}
	cols, binary, ok := cd.DescribeCursor(string(name))
	switch {
	case !ok:
		c.fail(unknownPortal(name), nil)
	case cols == nil:
		c.wr.empty('n') // NoData
	case binary:
		c.wr.rowDescription(cols, []int16{FormatBinary})
	default:
		c.wr.rowDescription(cols, nil)
	}
}

// execute handles Execute: run a portal up to a row limit.
func (c *conn) execute(body []byte) {
	m := msgBuf{b: body}
	name := m.cstring()
	maxRows := m.int32()
	if !m.done() {
		c.sendFatal(errInvalidFormat())
		return
	}
	c.inBatch = true
	bp, ok := c.portals[string(name)]
	if ok && bp.failed && c.txStatus() != TxFailed {
		// The block that the portal's statement failed is no more (a
		// ROLLBACK TO SAVEPOINT undid it): PostgreSQL has dropped the
		// portal with the subtransaction that made it.
		c.closePortal(string(name))
		ok = false
	}
	if !ok {
		c.fail(unknownPortal(name), nil)
		return
	}
	if bp.failed && bp.p == nil {
		// A Bind that failed (the transaction block is failed since).
		c.fail(errInFailedTransaction(), nil)
		return
	}
	if bp.p == nil {
		c.wr.empty('I') // EmptyQueryResponse
		return
	}
	if c.txStatus() == TxFailed {
		// Only a statement that ends the block may run, and it runs
		// once: one that ran already (or failed) cannot be run again.
		if err := c.checkState(bp.p); err != nil {
			c.fail(err, nil)
			return
		}
		if bp.done || bp.started {
			c.fail(errCannotRun(name), nil)
			return
		}
	}
	if bp.done && bp.cols == nil {
		// PostgreSQL runs a statement that returns no rows (DML without
		// RETURNING, utility statements, COPY) once; a portal that
		// returns rows answers "SELECT 0" and the like once it is done.
		c.fail(errCannotRun(name), nil)
		return
	}
	// PostgreSQL checks the result formats when the first row is sent: a
	// portal with a bad one may be described, and run if it returns no
	// row.
	c.rw.fmtErr = badResultFormat(bp.formats)
	ctx := c.beginStmt()
	tag, done, _ := c.runPortal(ctx, bp.p, int(max(maxRows, 0)), bp.cols != nil)
	c.endStmt()
	c.rw.fmtErr = nil
	bp.done = bp.done || done
	bp.started = true
	if done && c.endedTransaction(tag) {
		// The portal was made in the subtransaction that a ROLLBACK TO
		// SAVEPOINT rolled back: PostgreSQL drops it with it. (The wire
		// does not know which others were.)
		c.closePortal(string(name))
	}
}

// endedTransaction is called after a statement completed with tag. A
// COMMIT or ROLLBACK (of every spelling, tags COMMIT and ROLLBACK) that
// ended the transaction drops every portal, as PostgreSQL does at the end
// of a transaction, not at the next Sync or ReadyForQuery. It reports
// whether the statement was a ROLLBACK TO SAVEPOINT (tag ROLLBACK, the
// block still open).
func (c *conn) endedTransaction(tag string) (rolledBackTo bool) {
	switch {
	case tag != "COMMIT" && tag != "ROLLBACK":
	case c.txStatus() == TxIdle:
		c.closeAllPortals()
	case tag == "ROLLBACK":
		return true
	}
	return false
}

// closeMessage handles Close of a statement or a portal. Closing a name
// that does not exist is not an error.
func (c *conn) closeMessage(body []byte) {
	m := msgBuf{b: body}
	kind := m.byte1()
	name := m.cstring()
	if !m.done() {
		c.sendFatal(errInvalidFormat())
		return
	}
	c.inBatch = true
	switch kind {
	case 'S':
		c.closeStatement(string(name))
	case 'P':
		c.closePortal(string(name))
	default:
		c.fail(protocolErrorf("invalid CLOSE message subtype %d", kind), nil)
		return
	}
	c.wr.empty('3') // CloseComplete
}

// sync handles Sync: the end of an extended-protocol batch.
func (c *conn) sync(body []byte) {
	if len(body) != 0 {
		c.sendFatal(errInvalidFormat())
		return
	}
	c.endBatch()
}

// closeStatement drops a prepared statement if it exists.
func (c *conn) closeStatement(name string) {
	ps, ok := c.stmts[name]
	if !ok {
		return
	}
	delete(c.stmts, name)
	if ps.st != nil {
		ps.st.Close()
	}
}

// closePortal drops a portal if it exists.
func (c *conn) closePortal(name string) {
	bp, ok := c.portals[name]
	if !ok {
		return
	}
	delete(c.portals, name)
	if bp.p != nil {
		bp.p.Close()
	}
	c.freePortal(bp)
}

// closeAllPortals drops every portal (end of transaction, end of session).
func (c *conn) closeAllPortals() {
	for name := range c.portals {
		c.closePortal(name)
	}
}

// newPortal returns a cleared boundPortal, reused when possible so that a
// Bind on the hot path allocates nothing of the wire's own.
func (c *conn) newPortal() *boundPortal {
	if n := len(c.freePortals); n > 0 {
		bp := c.freePortals[n-1]
		c.freePortals = c.freePortals[:n-1]
		return bp
	}
	return &boundPortal{}
}

// freePortal returns a boundPortal for reuse.
func (c *conn) freePortal(bp *boundPortal) {
	bp.p, bp.cols, bp.done, bp.started, bp.failed = nil, nil, false, false, false
	bp.formats = bp.formats[:0]
	if len(c.freePortals) < 8 {
		c.freePortals = append(c.freePortals, bp)
	}
}

// Errors for an engine that breaks the Handler contract.
var (
	errNoPortal    = &Error{Code: CodeInternalError, Message: "internal error: the engine returned no portal"}
	errNoStatement = &Error{Code: CodeInternalError, Message: "internal error: the engine returned a nil statement"}
)

// badResultFormat returns the error for the first result format code
// that is neither text nor binary, nil if there is none.
func badResultFormat(f []int16) error {
	if i := slices.IndexFunc(f, func(v int16) bool { return v != FormatText && v != FormatBinary }); i >= 0 {
		return unsupportedFormat(f[i])
	}
	return nil
}

// unsupportedFormat is PostgreSQL's error for a format code other than
// text or binary.
func unsupportedFormat(f int16) *Error {
	return Errorf(CodeInvalidParameterValue, "unsupported format code: %d", f)
}

// protocolErrorf is a non-fatal protocol violation (ERROR 08P01), for
// messages that are well framed but do not make sense.
func protocolErrorf(format string, args ...any) *Error {
	return Errorf(CodeProtocolViolation, format, args...)
}

// checkState asks a statement or portal whether it may run in the
// session's present state (see StateChecker); nil when it does not say.
func (c *conn) checkState(v any) error {
	if sc, ok := v.(StateChecker); ok {
		return sc.CheckState()
	}
	return nil
}

// errCannotRun is PostgreSQL's refusal to run a portal again.
func errCannotRun(name []byte) *Error {
	return Errorf(CodeObjectNotInPrerequisiteState, "portal \"%s\" cannot be run", name)
}

// errInFailedTransaction is PostgreSQL's refusal of a statement in a
// failed transaction block.
func errInFailedTransaction() *Error {
	return Errorf(CodeInFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
}

// unknownStatement is PostgreSQL's error for a missing prepared statement.
func unknownStatement(name []byte) *Error {
	if len(name) == 0 {
		return Errorf(CodeInvalidSQLStatementName, "unnamed prepared statement does not exist")
	}
	return Errorf(CodeInvalidSQLStatementName, "prepared statement \"%s\" does not exist", name)
}

// unknownPortal is PostgreSQL's error for a missing portal.
func unknownPortal(name []byte) *Error {
	return Errorf(CodeInvalidCursorName, "portal \"%s\" does not exist", name)
}
