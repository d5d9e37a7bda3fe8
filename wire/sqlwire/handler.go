package sqlwire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	sqlsession "github.com/prollypg/prollypg/planner/session"
	"github.com/prollypg/prollypg/wire"
)

// Handler serves the engine's databases over the wire protocol.
type Handler struct {
	Engine *sqlsession.Engine
}

var (
	_ wire.Handler             = (*Handler)(nil)
	_ wire.NotificationSession = (*session)(nil)
	_ wire.IdleLimiter         = (*session)(nil)
)

// Connect opens a planner session for the startup's user and database.
func (h *Handler) Connect(ctx context.Context, s *wire.Startup, n wire.Notifier) (wire.Session, error) {
	sess, err := h.Engine.Connect(ctx, s.User, s.Database, s.Params)
	if err != nil {
		return nil, err
	}
	sess.ProcessID = s.ProcessID
	if a, ok := s.RemoteAddr.(*net.TCPAddr); ok {
		sess.ClientHost = a.IP.String()
	}
	sess.OnParameter = n.ParameterStatus
	sess.OnNotice = n.Notice
	sess.OnNotification = n.NotificationsPending
	for name, v := range sess.ReportedVars() {
		n.ParameterStatus(name, v)
	}
	return &session{s: sess}, nil
}

type session struct {
	s *sqlsession.Session
}

var _ wire.CursorDescriber = (*session)(nil)

// DescribeCursor implements wire.CursorDescriber.
func (s *session) DescribeCursor(name string) ([]wire.Column, bool, bool) {
	cols, binary, ok := s.s.CursorColumns(name)
	return wireColumns(cols), binary, ok
}

func (s *session) Parse(ctx context.Context, sql string, paramTypes []uint32) ([]wire.Statement, error) {
	parse := s.s.Parse
	if paramTypes == nil {
		parse = s.s.ParseSimple // the wire closes each statement before the next query
	}
	stmts, err := parse(sql)
	if err != nil {
		return nil, err
	}
	out := make([]wire.Statement, 0, len(stmts))
	for _, st := range stmts {
		if st.IsEmpty() {
			st.Close()
			continue
		}
		out = append(out, &statement{sess: s.s, st: st, given: givenTypes(paramTypes)})
	}
	// A single statement is analyzed now, as PostgreSQL does at Parse, so
	// that Describe can answer and errors surface at Parse. Several (a
	// simple query) are analyzed one by one as they run, since later ones
	// may use what earlier ones create.
	if len(out) == 1 {
		st := out[0].(*statement)
		// In a failed block PostgreSQL refuses, before analyzing it,
		// a statement that does not end the block.
		if err := st.CheckState(); err != nil {
			st.Close()
			return nil, err
		}
		if err := st.describe(ctx); err != nil {
			st.Close()
			return nil, err
		}
	}
	return out, nil
}

// givenTypes copies the parameter types of a Parse message for the
// planner, which infers those given as 0, as PostgreSQL does.
func givenTypes(oids []uint32) []uint32 {
	if oids == nil {
		return nil
	}
	return append([]uint32(nil), oids...)
}

var _ wire.ParamDecoder = (*session)(nil)

// DecodeParams implements wire.ParamDecoder: the parameters of an empty
// statement are decoded as those of any other and then dropped. An unknown
// type (0) takes any text, as PostgreSQL's unknown does.
func (s *session) DecodeParams(ctx context.Context, oids []uint32, params [][]byte, formats []int16) error {
	settings := types.DefaultSettings
	for i, p := range params {
		if p == nil || i >= len(oids) {
			continue
		}
		t := exec.T{OID: oids[i], Typmod: -1}
		if t.OID == 0 {
			t = exec.TUnknown
		}
		var err error
		if wire.FormatCode(formats, i) == wire.FormatBinary {
			_, err = exec.DecodeBinary(t, p)
		} else {
			_, err = exec.ParseText(t, string(p), &settings)
		}
		if err != nil {
			return paramError(err, i)
		}
	}
	return nil
}

func (s *session) Sync(ctx context.Context, failed bool) error { return s.s.Sync(ctx, failed) }

// IdleInTransactionTimeout implements wire.IdleLimiter.
func (s *session) IdleInTransactionTimeout() time.Duration { return s.s.IdleInTransactionTimeout() }
func (s *session) TxStatus() wire.TxStatus                 { return wire.TxStatus(s.s.TxStatus()) }
func (s *session) Close()                                  { s.s.Close() }

// Notifications hands the wire the session's LISTEN/NOTIFY notifications.
func (s *session) Notifications(send func(pid uint32, channel, payload string)) {
	s.s.Notifications(send)
}

type statement struct {
	sess      *sqlsession.Session
	st        *sqlsession.Statement
	given     []uint32
	params    []exec.T
	cols      []exec.ResultColumn
	described bool
}

var (
	_ wire.StateChecker = (*statement)(nil)
	_ wire.StateChecker = (*portal)(nil)
)

// CheckState implements wire.StateChecker: in a failed transaction block
// only COMMIT, ROLLBACK, ROLLBACK TO SAVEPOINT and PREPARE TRANSACTION may
// run (PostgreSQL's IsTransactionExitStmt).
func (st *statement) CheckState() error {
	if st.sess.TxStatus() != byte(wire.TxFailed) || st.endsBlock() {
		return nil
	}
	return pgerr.New(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
}

// endsBlock reports whether the statement is one that may end a failed
// transaction block.
func (st *statement) endsBlock() bool { return st.st.EndsFailedBlock() }

func (st *statement) describe(ctx context.Context) error {
	params, cols, err := st.st.Describe(ctx, st.given)
	if err != nil {
		return err
	}
	st.params, st.cols, st.described = params, cols, true
	return nil
}

func (st *statement) ParamTypes() []uint32 {
	out := make([]uint32, len(st.params))
	for i, t := range st.params {
		out[i] = t.OID
	}
	return out
}

func (st *statement) Columns() []wire.Column { return wireColumns(st.cols) }

func wireColumns(cols []exec.ResultColumn) []wire.Column {
	if cols == nil {
		return nil
	}
	out := make([]wire.Column, len(cols))
	for i, c := range cols {
		out[i] = wire.Column{Name: c.Name, TableOID: c.TableOID, Attr: c.AttNum, TypeOID: c.T.OID, TypeSize: typeSize(c.T.OID), TypeMod: c.T.Typmod}
	}
	return out
}

// typeSize is pg_type.typlen, as the catalog has it (void is 4, unknown
// -2, timetz 12, ...); -1, a varlena, for a type it does not list (a
// user's).
func typeSize(oid uint32) int16 {
	if t := types.Lookup(types.Oid(oid)); t != nil {
		return t.Len
	}
	return -1
}

func (st *statement) Bind(ctx context.Context, params [][]byte, paramFormats, resultFormats []int16) (wire.Portal, error) {
	// A statement of a simple query with several is described only now,
	// when those before it have run: its RowDescription goes out before
	// its rows.
	if !st.described {
		if err := st.describe(ctx); err != nil {
			return nil, err
		}
	}
	if len(params) != len(st.params) && st.params != nil {
		return nil, pgerr.New(pgerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement requires %d", len(params), len(st.params))
	}
	values := make([]exec.Datum, len(params))
	for i, p := range params {
		if p == nil {
			continue
		}
		var err error
		if wire.FormatCode(paramFormats, i) == wire.FormatBinary {
			values[i], err = exec.DecodeBinary(st.params[i], p)
		} else {
			values[i], err = exec.ParseText(st.params[i], string(p), st.st.Settings())
		}
		if err != nil {
			return nil, paramError(err, i)
		}
	}
	return &portal{st: st, params: values, formats: append([]int16(nil), resultFormats...)}, nil
}

// paramError words the error of parameter i as PostgreSQL's Bind does:
// binary data left over by the type's decoder is "incorrect binary data
// format in bind parameter N" (the decoder itself says only the first
// half).
func paramError(err error, i int) error {
	var te *types.Error
	if errors.As(err, &te) && te.Code == "22P03" && te.Message == "incorrect binary data format" {
		return &types.Error{Code: te.Code, Message: fmt.Sprintf("%s in bind parameter %d", te.Message, i+1)}
	}
	return err
}

func (st *statement) Close() { st.st.Close() }

type portal struct {
	st      *statement
	params  []exec.Datum
	formats []int16
	res     *sqlsession.Result
	done    bool
	tag     string
}

// CheckState implements wire.StateChecker.
func (p *portal) CheckState() error { return p.st.CheckState() }

func (p *portal) Columns() []wire.Column {
	if p.res != nil {
		return wireColumns(p.res.Cols)
	}
	return p.st.Columns()
}

// errStatementTimeout is the cause of a statement's end at statement_timeout.
var errStatementTimeout = errors.New("sqlwire: statement timeout")

// Execute runs the portal. An Execute that runs it to completion is
// bounded by statement_timeout (57014 "canceling statement due to
// statement timeout"); one with a row limit is not, since its result
// outlives the call.
func (p *portal) Execute(ctx context.Context, w *wire.RowWriter, maxRows int) (string, bool, error) {
	d := p.st.sess.StatementTimeout()
	if d <= 0 || maxRows > 0 || p.done {
		return p.execute(ctx, w, maxRows)
	}
	tctx, cancel := context.WithTimeoutCause(ctx, d, errStatementTimeout)
	defer cancel()
	tag, done, err := p.execute(tctx, w, maxRows)
	if err != nil && context.Cause(tctx) == errStatementTimeout && ctx.Err() == nil {
		err = pgerr.New(pgerr.QueryCanceled, "canceling statement due to statement timeout")
	}
	return tag, done, err
}

func (p *portal) execute(ctx context.Context, w *wire.RowWriter, maxRows int) (string, bool, error) {
	if p.done {
		return p.tag, true, nil
	}
	if p.res == nil {
		res, err := p.st.st.Execute(ctx, p.st.given, p.params)
		if err != nil {
			return "", false, err
		}
		p.res = res
		// The statement has started (a data-modifying one has run): the
		// simple protocol's RowDescription goes before its rows now.
		w.StartRows()
		if res.Copy != nil {
			tag, err := runCopy(ctx, w, res.Copy)
			if err != nil {
				return "", false, err
			}
			p.done, p.tag = true, tag
			return tag, true, nil
		}
	}
	cols := p.res.Cols
	settings := p.st.st.Settings()
	for n := 0; maxRows <= 0 || n < maxRows; n++ {
		// A cancel stops a long stream of rows here, every so many rows;
		// the plan's scans and functions watch the context themselves.
		// Not before every row: a statement whose one row says its work
		// is done (a dolt_backup that published the backup) must not
		// report it failed because the timeout fell just after.
		if n > 0 && n%exec.CancelCheckRows == 0 {
			if err := ctx.Err(); err != nil {
				return "", false, err
			}
		}
		row, err := p.res.Next()
		if err != nil {
			return "", false, err
		}
		if row == nil {
			p.done, p.tag = true, p.res.Tag()
			return p.tag, true, p.res.Close()
		}
		for i, d := range row[:len(cols)] {
			if d.IsNull() {
				w.Null()
				continue
			}
			buf := w.BeginValue()
			if wire.FormatCode(p.formats, i) == wire.FormatBinary {
				if buf, err = exec.AppendBinary(buf, cols[i].T, d); err != nil {
					return "", false, err
				}
			} else {
				buf = exec.AppendText(buf, cols[i].T, d, settings)
			}
			w.EndValue(buf)
		}
		if err := w.EndRow(); err != nil {
			return "", false, err
		}
	}
	return "", false, nil
}

func (p *portal) Close() {
	if p.res != nil {
		p.res.Close()
	}
}

// runCopy drives a COPY through the protocol's copy sub-protocol.
func runCopy(ctx context.Context, w *wire.RowWriter, c *sqlsession.Copy) (string, error) {
	format := wire.FormatText
	if c.Binary {
		format = wire.FormatBinary
	}
	formats := make([]int16, c.Cols)
	for i := range formats {
		formats[i] = format
	}
	if c.From {
		r, err := w.CopyIn(format, formats)
		if err != nil {
			return "", err
		}
		n, err := c.In(ctx, r)
		if err != nil {
			// Not drained: as in PostgreSQL, the COPY ends with its
			// error, and the client's messages that follow are read as
			// any others (CopyData, CopyDone and CopyFail ignored, a Sync
			// answered).
			return "", err
		}
		// The data may end before CopyDone (at the end marker \.):
		// PostgreSQL reads on to CopyDone, ignoring the rest, and fails
		// the COPY on a CopyFail or another message in between.
		if _, err := io.Copy(io.Discard, r); err != nil {
			return "", err
		}
		return fmt.Sprintf("COPY %d", n), nil
	}
	cw, err := w.CopyOut(format, formats)
	if err != nil {
		return "", err
	}
	// One CopyData per line the engine gives; in binary the first carries
	// the file header with the first row, as PostgreSQL frames it
	// (sqlsession.Copy.Out).
	n, err := c.Out(ctx, func(line []byte) error {
		_, err := cw.Write(line)
		return err
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("COPY %d", n), nil
}

var _ wire.FunctionCaller = (*session)(nil)

// CallFunction implements wire.FunctionCaller: the call runs as the
// statement SELECT fn($1, ...) with the function's parameter types, bound
// and run as an extended-protocol statement would be.
func (s *session) CallFunction(ctx context.Context, fn uint32, args [][]byte, formats []int16, resultFormat int16) ([]byte, error) {
	sql, types, err := s.s.FunctionCall(fn, len(args))
	if err != nil {
		return nil, err
	}
	stmts, err := s.Parse(ctx, sql, types)
	if err != nil {
		return nil, err
	}
	st := stmts[0].(*statement)
	defer st.Close()
	bound, err := st.Bind(ctx, args, formats, []int16{resultFormat})
	if err != nil {
		return nil, err
	}
	p := bound.(*portal)
	defer p.Close()
	res, err := st.st.Execute(ctx, st.given, p.params)
	if err != nil {
		return nil, err
	}
	p.res = res
	row, err := res.Next()
	if err != nil || row == nil || row[0].IsNull() {
		return nil, err
	}
	// Not nil, which is NULL: an empty value (loread at the end) is empty.
	t, out := res.Cols[0].T, []byte{}
	if resultFormat == wire.FormatBinary {
		return exec.AppendBinary(out, t, row[0])
	}
	return exec.AppendText(out, t, row[0], st.st.Settings()), nil
}
