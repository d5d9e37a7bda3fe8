package wiretest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prollypg/prollypg/wire"
)

// Engine implements wire.Handler.
type Engine struct {
	AllowPanic bool // SELECT panic() panics
	NoSleep    bool // SELECT pg_sleep returns at once (fuzzing)
	MaxSeries  int  // cap on generate_series rows, 0 = none
	OnConnect  func(*wire.Startup)

	Sessions atomic.Int64 // live sessions
	Closed   atomic.Int64 // sessions closed

	mu     sync.Mutex
	tables map[string]*table
	// listening maps each listening session to its channels (notify.go).
	listening map[*session]map[string]bool
}

var _ wire.Handler = (*Engine)(nil)

// NewEngine returns an engine with no tables.
func NewEngine() *Engine { return &Engine{tables: make(map[string]*table)} }

// table is a table: typed columns, rows of nullable strings.
type table struct {
	cols []column
	rows [][]field
}

type column struct {
	name string
	typ  typeInfo
}

type field struct {
	s    string
	null bool
}

// Table returns a copy of a table's rows as strings ("NULL" for NULL).
func (e *Engine) Table(name string) [][]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.tables[name]
	if t == nil {
		return nil
	}
	var out [][]string
	for _, r := range t.rows {
		var row []string
		for _, f := range r {
			if f.null {
				row = append(row, "NULL")
			} else {
				row = append(row, f.s)
			}
		}
		out = append(out, row)
	}
	return out
}

// Connect implements wire.Handler.
func (e *Engine) Connect(ctx context.Context, s *wire.Startup, n wire.Notifier) (wire.Session, error) {
	if e.OnConnect != nil {
		e.OnConnect(s)
	}
	if s.Database == "nosuchdb" {
		return nil, &engineError{code: "3D000", msg: fmt.Sprintf("database %q does not exist", s.Database)}
	}
	sess := &session{e: e, n: n, pid: s.ProcessID, tx: wire.TxIdle, settings: map[string]string{
		"application_name": s.Params["application_name"],
		"timezone":         "UTC",
		"datestyle":        "ISO, MDY",
	}}
	// options: "-c name=value ..." as libpq passes them.
	fields := strings.Fields(s.Options)
	for i := 0; i < len(fields); i++ {
		kv := fields[i]
		if kv == "-c" && i+1 < len(fields) {
			i++
			kv = fields[i]
		} else if rest, ok := strings.CutPrefix(kv, "--"); ok {
			kv = rest
		} else {
			continue
		}
		if k, v, ok := strings.Cut(kv, "="); ok {
			sess.set(k, v)
		}
	}
	e.Sessions.Add(1)
	return sess, nil
}

// engineError is the engine's own error type: it implements the wire's
// interfaces without the engine having to build a wire.Error.
type engineError struct {
	code, msg, detail, hint string
	pos                     int
}

func (e *engineError) Error() string    { return e.msg }
func (e *engineError) SQLState() string { return e.code }
func (e *engineError) ErrorFields(add func(byte, string)) {
	add('C', e.code)
	add('M', e.msg)
	if e.detail != "" {
		add('D', e.detail)
	}
	if e.hint != "" {
		add('H', e.hint)
	}
	if e.pos > 0 {
		add('P', strconv.Itoa(e.pos))
	}
	add('R', "wiretest")
}

// session implements wire.Session.
type session struct {
	e        *Engine
	n        wire.Notifier
	pid      uint32
	tx       wire.TxStatus
	settings map[string]string
	closed   bool
	queued   []note // NOTIFYs of the open transaction
	inbox    []note // notifications for this session; guarded by e.mu
}

// reported maps lower-case names of reported settings to their spelling.
var reported = map[string]string{
	"application_name": "application_name",
	"timezone":         "TimeZone",
	"datestyle":        "DateStyle",
	"intervalstyle":    "IntervalStyle",
	"client_encoding":  "client_encoding",
	"is_superuser":     "is_superuser",
}

// set changes a setting and reports it.
func (s *session) set(name, value string) {
	k := strings.ToLower(name)
	s.settings[k] = value
	if canon, ok := reported[k]; ok {
		s.n.ParameterStatus(canon, value)
	} else {
		s.n.ParameterStatus(name, value)
	}
}

func (s *session) TxStatus() wire.TxStatus { return s.tx }

func (s *session) Sync(ctx context.Context, failed bool) error {
	if failed && s.tx == wire.TxInBlock {
		s.tx = wire.TxFailed
	}
	if s.tx == wire.TxIdle {
		s.endTxn(!failed) // the implicit transaction
	}
	return nil
}

func (s *session) Close() {
	if s.closed {
		panic("wiretest: session closed twice")
	}
	s.closed = true
	s.unlisten("*")
	s.e.Sessions.Add(-1)
	s.e.Closed.Add(1)
}

// kind of statement.
type kind int

const (
	kExprs kind = iota
	kSeries
	kSleep
	kRaise
	kNotice
	kPanic
	kShow
	kSet
	kBegin
	kCommit
	kRollback
	kCreate
	kSelectTable
	kCopyIn
	kCopyOut
	kListen
	kUnlisten
	kNotify
)

var (
	reSeries  = regexp.MustCompile(`(?is)^select\s+generate_series\s*\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)$`)
	reSleep   = regexp.MustCompile(`(?is)^select\s+pg_sleep\s*\(\s*([\d.]+)\s*\)$`)
	reRaise   = regexp.MustCompile(`(?is)^select\s+(raise)\s*\(\s*'([^']*)'\s*,\s*'([^']*)'\s*\)$`)
	reNotice  = regexp.MustCompile(`(?is)^select\s+notice\s*\(\s*'([^']*)'\s*\)$`)
	rePanic   = regexp.MustCompile(`(?is)^select\s+panic\s*\(\s*\)$`)
	reSetting = regexp.MustCompile(`(?is)^select\s+current_setting\s*\(\s*'([^']*)'\s*\)$`)
	reShow    = regexp.MustCompile(`(?is)^show\s+([\w.]+)$`)
	reSet     = regexp.MustCompile(`(?is)^set\s+(?:session\s+|local\s+)?([\w.]+)\s*(?:=|\s+to\s+)\s*(.+)$`)
	reBegin   = regexp.MustCompile(`(?is)^(begin|start\s+transaction)(\s+.*)?$`)
	reCommit  = regexp.MustCompile(`(?is)^(commit|end)(\s+.*)?$`)
	reRollbk  = regexp.MustCompile(`(?is)^(rollback|abort)(\s+.*)?$`)
	reCreate  = regexp.MustCompile(`(?is)^create\s+table\s+("?\w+"?)\s*\((.*)\)$`)
	reFrom    = regexp.MustCompile(`(?is)^select\s+(.+?)\s+from\s+("?\w+"?)$`)
	reCopy    = regexp.MustCompile(`(?is)^copy\s+("?\w+"?)\s*(?:\(([^)]*)\))?\s*(from\s+stdin|to\s+stdout)\s*(.*?);?$`)
	reSelect  = regexp.MustCompile(`(?is)^select\s+(.+)$`)
	reParam   = regexp.MustCompile(`(?is)^\$(\d+)(?:\s*::\s*(\w+))?$`)
	reInt     = regexp.MustCompile(`^-?\d+$`)
	reCast    = regexp.MustCompile(`(?s)^(.*?)\s*::\s*(\w+)$`)
)

// stmt implements wire.Statement.
type stmt struct {
	s      *session
	k      kind
	sql    string
	pos    int      // 1-based position of the statement in the query string
	args   []string // regexp captures
	exprs  []expr
	params []uint32
	table  string
	cols   []string // COPY or SELECT column list (nil: all)
	format string   // COPY: text, csv, binary
}

// expr is one item of a SELECT list.
type expr struct {
	name  string
	typ   typeInfo
	param int // 1-based, 0 for a literal
	lit   *string
}

// Parse implements wire.Session.
func (s *session) Parse(ctx context.Context, sql string, paramTypes []uint32) ([]wire.Statement, error) {
	var out []wire.Statement
	for _, piece := range splitStatements(sql) {
		st, err := s.parseOne(piece.text, piece.pos, paramTypes)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

type piece struct {
	text string
	pos  int
}

// splitStatements splits on ';' outside quotes and drops empty statements.
func splitStatements(sql string) []piece {
	var out []piece
	start, inQ, inD := 0, false, false
	flush := func(end int) {
		raw := sql[start:end]
		t := strings.TrimSpace(raw)
		if t != "" {
			out = append(out, piece{t, start + strings.Index(raw, t) + 1})
		}
		start = end + 1
	}
	for i := 0; i < len(sql); i++ {
		switch c := sql[i]; {
		case c == '\'' && !inD:
			inQ = !inQ
		case c == '"' && !inQ:
			inD = !inD
		case c == ';' && !inQ && !inD:
			flush(i)
		}
	}
	flush(len(sql))
	return out
}

// parseOne parses one statement.
func (s *session) parseOne(sql string, pos int, paramTypes []uint32) (*stmt, error) {
	st := &stmt{s: s, sql: sql, pos: pos}
	match := func(re *regexp.Regexp, k kind) bool {
		m := re.FindStringSubmatch(sql)
		if m == nil {
			return false
		}
		st.k, st.args = k, m[1:]
		return true
	}
	switch {
	case match(reSeries, kSeries), match(reSleep, kSleep), match(reRaise, kRaise), match(reNotice, kNotice),
		match(rePanic, kPanic), match(reSetting, kShow), match(reShow, kShow), match(reSet, kSet),
		match(reBegin, kBegin), match(reCommit, kCommit), match(reRollbk, kRollback),
		match(reListen, kListen), match(reUnlisten, kUnlisten), match(reNotify, kNotify):
		if st.k == kRaise {
			st.args[0] = strconv.Itoa(pos + strings.Index(strings.ToLower(sql), "raise"))
		}
	case match(reCreate, kCreate):
		st.table = unquote(st.args[0])
	case match(reCopy, kCopyIn):
		st.table = unquote(st.args[0])
		if st.args[1] != "" {
			for _, c := range strings.Split(st.args[1], ",") {
				st.cols = append(st.cols, unquote(strings.TrimSpace(c)))
			}
		}
		if strings.HasPrefix(strings.ToLower(st.args[2]), "to") {
			st.k = kCopyOut
		}
		opts := strings.ToLower(st.args[3])
		switch {
		case strings.Contains(opts, "binary"):
			st.format = "binary"
		case strings.Contains(opts, "csv"):
			st.format = "csv"
		default:
			st.format = "text"
		}
	case match(reFrom, kSelectTable):
		st.table = unquote(st.args[1])
		if strings.TrimSpace(st.args[0]) != "*" {
			for _, c := range strings.Split(st.args[0], ",") {
				st.cols = append(st.cols, unquote(strings.TrimSpace(c)))
			}
		}
	case match(reSelect, kExprs):
		if err := st.parseExprs(st.args[0], paramTypes); err != nil {
			return nil, err
		}
	default:
		word, _, _ := strings.Cut(sql, " ")
		return nil, &engineError{code: "42601", msg: fmt.Sprintf("syntax error at or near %q", word), pos: pos}
	}
	return st, nil
}

// parseExprs parses a SELECT list of literals and parameters.
func (st *stmt) parseExprs(list string, paramTypes []uint32) error {
	maxParam := 0
	for _, item := range splitList(list) {
		item = strings.TrimSpace(item)
		e := expr{name: "?column?"}
		var cast *typeInfo
		if m := reCast.FindStringSubmatch(item); m != nil && !strings.HasPrefix(item, "$") {
			t, ok := typesByName[strings.ToLower(m[2])]
			if !ok {
				return &engineError{code: "42704", msg: fmt.Sprintf("type %q does not exist", m[2]), pos: st.pos}
			}
			item, cast = strings.TrimSpace(m[1]), &t
			if len(item) >= 2 && item[0] == '(' && item[len(item)-1] == ')' {
				item = strings.TrimSpace(item[1 : len(item)-1])
			}
		}
		lower := strings.ToLower(item)
		switch m := reParam.FindStringSubmatch(item); {
		case m != nil:
			e.param, _ = strconv.Atoi(m[1])
			if e.param < 1 || e.param > 1000 {
				return &engineError{code: "42P02", msg: fmt.Sprintf("there is no parameter $%d", e.param), pos: st.pos}
			}
			maxParam = max(maxParam, e.param)
			if m[2] != "" {
				t, ok := typesByName[strings.ToLower(m[2])]
				if !ok {
					return &engineError{code: "42704", msg: fmt.Sprintf("type %q does not exist", m[2]), pos: st.pos}
				}
				e.typ, e.name = t, t.name
			}
		case reInt.MatchString(item):
			v, err := strconv.ParseInt(item, 10, 64)
			if err != nil {
				return &engineError{code: "22003", msg: "value out of range", pos: st.pos}
			}
			e.typ = typesByName["int4"]
			if v != int64(int32(v)) {
				e.typ = typesByName["int8"]
			}
			e.lit = &item
		case len(item) >= 2 && item[0] == '\'' && item[len(item)-1] == '\'':
			v := strings.ReplaceAll(item[1:len(item)-1], "''", "'")
			e.typ, e.lit = typesByName["text"], &v
		case lower == "null":
			e.typ = typesByName["text"]
		case lower == "true", lower == "false":
			v := lower[:1]
			e.typ, e.lit, e.name = typesByName["bool"], &v, "bool"
		default:
			return &engineError{code: "42601", msg: fmt.Sprintf("syntax error at or near %q", item),
				pos: st.pos + strings.Index(st.sql, item)}
		}
		if cast != nil {
			if e.lit != nil {
				if _, err := decode([]byte(*e.lit), wire.FormatText, *cast); err != nil {
					return err
				}
			}
			e.typ, e.name = *cast, cast.name
		}
		st.exprs = append(st.exprs, e)
	}
	st.params = make([]uint32, maxParam)
	for i := range st.params {
		if i < len(paramTypes) && paramTypes[i] != 0 {
			st.params[i] = paramTypes[i]
		}
	}
	for i := range st.exprs {
		e := &st.exprs[i]
		if e.param == 0 {
			continue
		}
		if e.typ.oid == 0 {
			if oid := st.params[e.param-1]; oid != 0 {
				e.typ = typesByOID[oid]
				if e.typ.oid == 0 {
					e.typ = typeInfo{oid: oid, name: "unknown", size: -1}
				}
			} else {
				e.typ = typesByName["text"]
			}
		}
		if st.params[e.param-1] == 0 {
			st.params[e.param-1] = e.typ.oid
		}
	}
	for i, oid := range st.params {
		if oid == 0 {
			st.params[i] = typesByName["text"].oid
		}
	}
	return nil
}

// splitList splits on commas outside quotes.
func splitList(s string) []string {
	var out []string
	start, inQ := 0, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'':
			inQ = !inQ
		case ',':
			if !inQ {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// unquote strips double quotes from an identifier and folds unquoted ones.
func unquote(id string) string {
	if len(id) >= 2 && id[0] == '"' && id[len(id)-1] == '"' {
		return id[1 : len(id)-1]
	}
	return strings.ToLower(id)
}

func (st *stmt) ParamTypes() []uint32 { return st.params }

func (st *stmt) Columns() []wire.Column {
	switch st.k {
	case kExprs:
		cols := make([]wire.Column, len(st.exprs))
		for i, e := range st.exprs {
			cols[i] = wire.Column{Name: e.name, TypeOID: e.typ.oid, TypeSize: e.typ.size, TypeMod: -1}
		}
		return cols
	case kSeries:
		return []wire.Column{{Name: "generate_series", TypeOID: 23, TypeSize: 4, TypeMod: -1}}
	case kSleep:
		return []wire.Column{{Name: "pg_sleep", TypeOID: 2278, TypeSize: 4, TypeMod: -1}}
	case kRaise, kNotice:
		return []wire.Column{{Name: st.k.String(), TypeOID: 25, TypeSize: -1, TypeMod: -1}}
	case kShow:
		return []wire.Column{{Name: strings.ToLower(st.args[0]), TypeOID: 25, TypeSize: -1, TypeMod: -1}}
	case kSelectTable:
		cols, _ := st.tableColumns()
		return cols
	}
	return nil
}

func (k kind) String() string {
	if k == kRaise {
		return "raise"
	}
	return "notice"
}

// tableColumns describes the selected columns of a table.
func (st *stmt) tableColumns() ([]wire.Column, []int) {
	e := st.s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.tables[st.table]
	if t == nil {
		return nil, nil
	}
	var cols []wire.Column
	var idx []int
	for i, c := range t.cols {
		if st.cols == nil || contains(st.cols, c.name) {
			cols = append(cols, wire.Column{Name: c.name, TableOID: 16384, Attr: int16(i + 1),
				TypeOID: c.typ.oid, TypeSize: c.typ.size, TypeMod: -1})
			idx = append(idx, i)
		}
	}
	return cols, idx
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (st *stmt) Close() {}

// Bind implements wire.Statement.
// CheckState implements wire.StateChecker: in a failed block only COMMIT
// and ROLLBACK may run.
func (st *stmt) CheckState() error {
	if st.s.tx == wire.TxFailed && st.k != kCommit && st.k != kRollback {
		return &engineError{code: "25P02", msg: "current transaction is aborted, commands ignored until end of transaction block"}
	}
	return nil
}

// CheckState implements wire.StateChecker.
func (p *portal) CheckState() error { return p.st.CheckState() }

func (st *stmt) Bind(ctx context.Context, params [][]byte, paramFormats, resultFormats []int16) (wire.Portal, error) {
	if err := st.CheckState(); err != nil {
		return nil, err
	}
	p := &portal{st: st, formats: append([]int16(nil), resultFormats...)}
	switch st.k {
	case kExprs:
		p.values = make([]value, len(st.exprs))
		for i, e := range st.exprs {
			switch {
			case e.param > 0:
				v, err := decode(params[e.param-1], wire.FormatCode(paramFormats, e.param-1), typesByOID[st.params[e.param-1]])
				if err != nil {
					return nil, err
				}
				p.values[i] = v
			case e.lit != nil:
				v, err := decode([]byte(*e.lit), wire.FormatText, e.typ)
				if err != nil {
					return nil, err
				}
				p.values[i] = v
			default:
				p.values[i] = value{null: true}
			}
		}
	case kSeries:
		p.next, _ = strconv.ParseInt(st.args[0], 10, 64)
		p.last, _ = strconv.ParseInt(st.args[1], 10, 64)
		if m := st.s.e.MaxSeries; m > 0 && p.last-p.next >= int64(m) {
			p.last = p.next + int64(m) - 1
		}
	case kSelectTable:
		cols, idx := st.tableColumns()
		if cols == nil {
			return nil, &engineError{code: "42P01", msg: fmt.Sprintf("relation %q does not exist", st.table)}
		}
		p.cols, p.idx = cols, idx
	}
	return p, nil
}

// value is a decoded value.
type value struct {
	null bool
	i    int64
	s    string
	b    bool
	typ  typeInfo
}

// portal implements wire.Portal.
type portal struct {
	st      *stmt
	formats []int16
	values  []value
	next    int64 // generate_series
	last    int64
	cols    []wire.Column // SELECT FROM table
	idx     []int
	row     int
	done    bool
}

func (p *portal) Columns() []wire.Column {
	if p.cols != nil {
		return p.cols
	}
	return p.st.Columns()
}

func (p *portal) Close() {}

// Execute implements wire.Portal.
func (p *portal) Execute(ctx context.Context, w *wire.RowWriter, maxRows int) (string, bool, error) {
	st, s := p.st, p.st.s
	if p.done {
		return p.tag(0), true, nil
	}
	// Every statement here is a query: as PostgreSQL's executor does, it
	// is described when it starts, before an error of its first row.
	w.StartRows()
	switch st.k {
	case kExprs:
		for i, v := range p.values {
			v.append(w, wire.FormatCode(p.formats, i))
		}
		p.done = true
		return "SELECT 1", true, w.EndRow()
	case kSeries:
		n := 0
		for p.next <= p.last {
			if maxRows > 0 && n == maxRows {
				return "", false, nil
			}
			if n%1024 == 0 && ctx.Err() != nil {
				return "", false, ctx.Err()
			}
			value{i: p.next, typ: typesByName["int4"]}.append(w, wire.FormatCode(p.formats, 0))
			if err := w.EndRow(); err != nil {
				return "", false, err
			}
			p.next++
			n++
		}
		p.done = true
		return "SELECT " + strconv.Itoa(w.Rows()), true, nil
	case kSleep:
		d, _ := strconv.ParseFloat(st.args[0], 64)
		if !s.e.NoSleep {
			t := time.NewTimer(time.Duration(d * float64(time.Second)))
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return "", false, ctx.Err()
			}
		}
		w.Value(nil)
		p.done = true
		return "SELECT 1", true, w.EndRow()
	case kRaise:
		pos, _ := strconv.Atoi(st.args[0])
		return "", false, &engineError{code: st.args[1], msg: st.args[2],
			detail: "detail of " + st.args[1], hint: "hint of " + st.args[1], pos: pos}
	case kNotice:
		s.n.Notice(&engineError{code: "00000", msg: st.args[0], detail: "notice detail"})
		w.Value([]byte("ok"))
		p.done = true
		return "SELECT 1", true, w.EndRow()
	case kPanic:
		if s.e.AllowPanic {
			panic("wiretest: SELECT panic()")
		}
		return "", false, &engineError{code: "0A000", msg: "panic() is disabled"}
	case kShow:
		w.Value([]byte(s.settings[strings.ToLower(st.args[0])]))
		p.done = true
		return "SHOW", true, w.EndRow()
	case kSet:
		v := strings.TrimSpace(st.args[1])
		if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') {
			v = v[1 : len(v)-1]
		}
		s.set(st.args[0], v)
		return p.finish("SET")
	case kBegin:
		if s.tx != wire.TxIdle {
			s.n.Notice(&engineError{code: "25001", msg: "there is already a transaction in progress"})
		} else {
			s.tx = wire.TxInBlock
		}
		return p.finish("BEGIN")
	case kCommit:
		tag := "COMMIT"
		if s.tx == wire.TxFailed {
			tag = "ROLLBACK"
		}
		s.endTxn(s.tx == wire.TxInBlock)
		s.tx = wire.TxIdle
		return p.finish(tag)
	case kRollback:
		s.endTxn(false)
		s.tx = wire.TxIdle
		return p.finish("ROLLBACK")
	case kListen:
		s.listen(st.args[0])
		return p.finish("LISTEN")
	case kUnlisten:
		s.unlisten(st.args[0])
		return p.finish("UNLISTEN")
	case kNotify:
		s.queued = append(s.queued, note{pid: s.pid, channel: st.args[0], payload: st.args[1]})
		return p.finish("NOTIFY")
	case kCreate:
		cols, err := parseColumns(st.args[1])
		if err != nil {
			return "", false, err
		}
		s.e.mu.Lock()
		defer s.e.mu.Unlock()
		if _, ok := s.e.tables[st.table]; ok {
			return "", false, &engineError{code: "42P07", msg: fmt.Sprintf("relation %q already exists", st.table)}
		}
		s.e.tables[st.table] = &table{cols: cols}
		return p.finish("CREATE TABLE")
	case kSelectTable:
		return p.selectTable(ctx, w, maxRows)
	case kCopyIn:
		return p.copyIn(w)
	case kCopyOut:
		return p.copyOut(w)
	}
	return "", false, errors.New("wiretest: unknown statement kind")
}

// finish completes a utility statement.
func (p *portal) finish(tag string) (string, bool, error) {
	p.done = true
	return tag, true, nil
}

// tag is the command tag of a re-executed, completed portal.
func (p *portal) tag(n int) string {
	switch p.st.k {
	case kExprs, kSeries, kSleep, kNotice, kSelectTable:
		return "SELECT " + strconv.Itoa(n)
	}
	return strings.ToUpper(strings.Fields(p.st.sql)[0])
}

// selectTable streams a table's rows.
func (p *portal) selectTable(ctx context.Context, w *wire.RowWriter, maxRows int) (string, bool, error) {
	e := p.st.s.e
	e.mu.Lock()
	t := e.tables[p.st.table]
	rows := t.rows
	e.mu.Unlock()
	n := 0
	for ; p.row < len(rows); p.row++ {
		if maxRows > 0 && n == maxRows {
			return "", false, nil
		}
		for j, ci := range p.idx {
			f := rows[p.row][ci]
			if f.null {
				w.Null()
				continue
			}
			v, err := decode([]byte(f.s), wire.FormatText, t.cols[ci].typ)
			if err != nil {
				return "", false, err
			}
			v.append(w, wire.FormatCode(p.formats, j))
		}
		if err := w.EndRow(); err != nil {
			return "", false, err
		}
		n++
	}
	p.done = true
	return "SELECT " + strconv.Itoa(n), true, nil
}

// copyTarget returns (creating it if needed) the table of a COPY and the
// indexes of the copied columns.
func (p *portal) copyTarget(create bool) (*table, []int, error) {
	e := p.st.s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.tables[p.st.table]
	if t == nil {
		if !create {
			return nil, nil, &engineError{code: "42P01", msg: fmt.Sprintf("relation %q does not exist", p.st.table)}
		}
		t = &table{}
		for _, c := range p.st.cols {
			t.cols = append(t.cols, column{name: c, typ: typesByName["text"]})
		}
		e.tables[p.st.table] = t
	}
	var idx []int
	for i, c := range t.cols {
		if p.st.cols == nil || contains(p.st.cols, c.name) {
			idx = append(idx, i)
		}
	}
	return t, idx, nil
}

// copyIn runs COPY FROM STDIN.
func (p *portal) copyIn(w *wire.RowWriter) (string, bool, error) {
	t, idx, err := p.copyTarget(true)
	if err != nil {
		return "", false, err
	}
	format := wire.FormatText
	if p.st.format == "binary" {
		format = wire.FormatBinary
	}
	colFormats := make([]int16, max(len(idx), 1))
	for i := range colFormats {
		colFormats[i] = format
	}
	r, err := w.CopyIn(format, colFormats)
	if err != nil {
		return "", false, err
	}
	var rows [][]field
	switch p.st.format {
	case "binary":
		rows, err = readBinaryCopy(r, t, idx)
	case "csv":
		rows, err = readCSVCopy(r)
	default:
		rows, err = readTextCopy(r)
	}
	if err != nil {
		return "", false, err
	}
	e := p.st.s.e
	e.mu.Lock()
	for _, r := range rows {
		if len(t.cols) == 0 && len(idx) == 0 {
			for i := range r {
				t.cols = append(t.cols, column{name: "column" + strconv.Itoa(i+1), typ: typesByName["text"]})
				idx = append(idx, i)
			}
		}
		row := make([]field, len(t.cols))
		for i := range row {
			row[i].null = true
		}
		for j, ci := range idx {
			if j < len(r) {
				row[ci] = r[j]
			}
		}
		t.rows = append(t.rows, row)
	}
	e.mu.Unlock()
	p.done = true
	return "COPY " + strconv.Itoa(len(rows)), true, nil
}

// readTextCopy reads COPY text format: tab-separated fields, \N for NULL.
func readTextCopy(r io.Reader) ([][]field, error) {
	var rows [][]field
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			if err == io.EOF {
				return rows, nil
			}
			return nil, err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == `\.` {
			// psql's end-of-data marker; drain to CopyDone.
			if _, err := io.Copy(io.Discard, br); err != nil {
				return nil, err
			}
			return rows, nil
		}
		var row []field
		for _, f := range strings.Split(line, "\t") {
			if f == `\N` {
				row = append(row, field{null: true})
			} else {
				row = append(row, field{s: f})
			}
		}
		rows = append(rows, row)
	}
}

// readCSVCopy reads COPY csv format; an unquoted empty field is NULL.
func readCSVCopy(r io.Reader) ([][]field, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	var rows [][]field
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			var we wire.FieldsError
			if errors.As(err, &we) {
				return nil, err
			}
			return nil, &engineError{code: "22P04", msg: "bad CSV data: " + err.Error()}
		}
		if len(rec) == 1 && rec[0] == `\.` {
			continue
		}
		var row []field
		for _, f := range rec {
			row = append(row, field{s: f, null: f == ""})
		}
		rows = append(rows, row)
	}
}

// readBinaryCopy reads COPY binary format (what pgx's CopyFrom sends).
func readBinaryCopy(r io.Reader, t *table, idx []int) ([][]field, error) {
	br := bufio.NewReader(r)
	bad := func(what string) error {
		return &engineError{code: "22P04", msg: "invalid COPY file " + what}
	}
	hdr := make([]byte, 19)
	if _, err := io.ReadFull(br, hdr); err != nil {
		return nil, passErr(err, bad("header"))
	}
	if !bytes.Equal(hdr[:11], []byte("PGCOPY\n\377\r\n\000")) {
		return nil, bad("signature")
	}
	if ext := binary.BigEndian.Uint32(hdr[15:]); ext > 0 {
		if _, err := io.CopyN(io.Discard, br, int64(ext)); err != nil {
			return nil, passErr(err, bad("header extension"))
		}
	}
	var rows [][]field
	var b4 [4]byte
	for {
		if _, err := io.ReadFull(br, b4[:2]); err != nil {
			if err == io.EOF {
				return rows, nil // no trailer: PostgreSQL accepts that too
			}
			return nil, passErr(err, bad("tuple"))
		}
		n := int16(binary.BigEndian.Uint16(b4[:2]))
		if n == -1 {
			if _, err := io.Copy(io.Discard, br); err != nil {
				return nil, err
			}
			return rows, nil
		}
		var row []field
		for j := 0; j < int(n); j++ {
			if _, err := io.ReadFull(br, b4[:]); err != nil {
				return nil, passErr(err, bad("field"))
			}
			l := int32(binary.BigEndian.Uint32(b4[:]))
			if l == -1 {
				row = append(row, field{null: true})
				continue
			}
			if l < 0 || l > 1<<20 {
				return nil, bad("field length")
			}
			data := make([]byte, l)
			if _, err := io.ReadFull(br, data); err != nil {
				return nil, passErr(err, bad("field"))
			}
			typ := typesByName["text"]
			if j < len(idx) && idx[j] < len(t.cols) {
				typ = t.cols[idx[j]].typ
			}
			v, err := decode(data, wire.FormatBinary, typ)
			if err != nil {
				return nil, err
			}
			row = append(row, field{s: v.text()})
		}
		rows = append(rows, row)
	}
}

// passErr returns the stream's own error (CopyFail, a broken connection)
// when it has one, else the format error.
func passErr(err, format error) error {
	var fe wire.FieldsError
	if errors.As(err, &fe) {
		return err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return format
	}
	return err
}

// copyOut runs COPY TO STDOUT.
func (p *portal) copyOut(w *wire.RowWriter) (string, bool, error) {
	t, idx, err := p.copyTarget(false)
	if err != nil {
		return "", false, err
	}
	colFormats := make([]int16, len(idx))
	cw, err := w.CopyOut(wire.FormatText, colFormats)
	if err != nil {
		return "", false, err
	}
	e := p.st.s.e
	e.mu.Lock()
	rows := t.rows
	e.mu.Unlock()
	var line []byte
	for _, r := range rows {
		line = line[:0]
		if p.st.format == "csv" {
			var buf bytes.Buffer
			cwr := csv.NewWriter(&buf)
			rec := make([]string, len(idx))
			for j, ci := range idx {
				rec[j] = r[ci].s
			}
			cwr.Write(rec)
			cwr.Flush()
			line = append(line, buf.Bytes()...)
		} else {
			for j, ci := range idx {
				if j > 0 {
					line = append(line, '\t')
				}
				if r[ci].null {
					line = append(line, `\N`...)
				} else {
					line = append(line, r[ci].s...)
				}
			}
			line = append(line, '\n')
		}
		if _, err := cw.Write(line); err != nil {
			return "", false, err
		}
	}
	p.done = true
	return "COPY " + strconv.Itoa(len(rows)), true, nil
}

// parseColumns parses "a int4, b text".
func parseColumns(defs string) ([]column, error) {
	var cols []column
	for _, d := range strings.Split(defs, ",") {
		f := strings.Fields(d)
		if len(f) < 2 {
			return nil, &engineError{code: "42601", msg: fmt.Sprintf("syntax error at or near %q", d)}
		}
		t, ok := typesByName[strings.ToLower(f[1])]
		if !ok {
			return nil, &engineError{code: "42704", msg: fmt.Sprintf("type %q does not exist", f[1])}
		}
		cols = append(cols, column{name: unquote(f[0]), typ: t})
	}
	return cols, nil
}

// typeInfo is a type the engine knows.
type typeInfo struct {
	oid  uint32
	name string
	size int16
}

var typesByName = map[string]typeInfo{
	"int4":    {23, "int4", 4},
	"int":     {23, "int4", 4},
	"integer": {23, "int4", 4},
	"int8":    {20, "int8", 8},
	"bigint":  {20, "int8", 8},
	"text":    {25, "text", -1},
	"varchar": {1043, "varchar", -1},
	"bytea":   {17, "bytea", -1},
	"bool":    {16, "bool", 1},
}

var typesByOID = map[uint32]typeInfo{
	23: typesByName["int4"], 20: typesByName["int8"], 25: typesByName["text"],
	1043: typesByName["varchar"], 17: typesByName["bytea"], 16: typesByName["bool"],
}

// decode reads a value in the given format; nil is NULL.
func decode(b []byte, format int16, t typeInfo) (value, error) {
	v := value{typ: t}
	if b == nil {
		v.null = true
		return v, nil
	}
	bad := func() (value, error) {
		return value{}, &engineError{code: "22P02", msg: fmt.Sprintf("invalid input syntax for type %s: %q", t.name, b)}
	}
	switch t.oid {
	case 23, 20:
		if format == wire.FormatBinary {
			switch {
			case t.oid == 23 && len(b) == 4:
				v.i = int64(int32(binary.BigEndian.Uint32(b)))
			case t.oid == 20 && len(b) == 8:
				v.i = int64(binary.BigEndian.Uint64(b))
			default:
				return value{}, &engineError{code: "22P03", msg: "incorrect binary data format in bind parameter"}
			}
			return v, nil
		}
		bits := 32
		if t.oid == 20 {
			bits = 64
		}
		i, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, bits)
		if err != nil {
			return bad()
		}
		v.i = i
	case 16:
		if format == wire.FormatBinary {
			if len(b) != 1 {
				return bad()
			}
			v.b = b[0] != 0
			return v, nil
		}
		switch strings.ToLower(string(b)) {
		case "t", "true", "on", "1", "yes":
			v.b = true
		case "f", "false", "off", "0", "no":
		default:
			return bad()
		}
	case 17:
		if format == wire.FormatBinary {
			v.s = string(b)
			return v, nil
		}
		h, ok := strings.CutPrefix(string(b), `\x`)
		if !ok {
			v.s = string(b)
			return v, nil
		}
		raw, err := hex.DecodeString(h)
		if err != nil {
			return bad()
		}
		v.s = string(raw)
	default:
		v.s = string(b)
	}
	return v, nil
}

// text returns the text form of v.
func (v value) text() string {
	switch v.typ.oid {
	case 23, 20:
		return strconv.FormatInt(v.i, 10)
	case 16:
		if v.b {
			return "t"
		}
		return "f"
	case 17:
		return `\x` + hex.EncodeToString([]byte(v.s))
	}
	return v.s
}

// append writes v to the row in the given format, without allocating for
// integers.
func (v value) append(w *wire.RowWriter, format int16) {
	if v.null {
		w.Null()
		return
	}
	buf := w.BeginValue()
	switch v.typ.oid {
	case 23:
		if format == wire.FormatBinary {
			buf = binary.BigEndian.AppendUint32(buf, uint32(int32(v.i)))
		} else {
			buf = strconv.AppendInt(buf, v.i, 10)
		}
	case 20:
		if format == wire.FormatBinary {
			buf = binary.BigEndian.AppendUint64(buf, uint64(v.i))
		} else {
			buf = strconv.AppendInt(buf, v.i, 10)
		}
	case 16:
		switch {
		case format == wire.FormatBinary && v.b:
			buf = append(buf, 1)
		case format == wire.FormatBinary:
			buf = append(buf, 0)
		case v.b:
			buf = append(buf, 't')
		default:
			buf = append(buf, 'f')
		}
	case 17:
		if format == wire.FormatBinary {
			buf = append(buf, v.s...)
		} else {
			buf = append(buf, `\x`...)
			buf = hex.AppendEncode(buf, []byte(v.s))
		}
	default:
		buf = append(buf, v.s...)
	}
	w.EndValue(buf)
}
