package planner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Copy is a COPY statement's data transfer, run by the protocol layer: for
// FROM STDIN it reads the client's data with In, for TO STDOUT it writes
// rows with Out. Both return the number of rows for the tag.
type Copy struct {
	From   bool
	CSV    bool
	Binary bool
	Cols   int
	opts   copyOptions
	table  *exec.Table
	target []int
	a      *analyzer
	plan   exec.Plan
	// where is COPY FROM's WHERE, over the table's row with its defaults.
	where exec.Expr
}

type copyOptions struct {
	delim  byte
	null   string
	header bool
	quote  byte
	escape byte
	csv    bool
	binary bool
	// The FORCE options, as column names (forceQuoteAll for FORCE_QUOTE
	// *), then as indexes of the copied columns (resolveForce).
	forceQuoteAll                       bool
	forceQuoteNames, forceNNNames       []string
	forceNullNames                      []string
	forceQuote, forceNotNull, forceNull []bool
}

// nameList reads a COPY option's column list.
func nameList(n *pg.Node) []string {
	var names []string
	for _, it := range n.GetList().GetItems() {
		names = append(names, it.GetString_().Sval)
	}
	return names
}

// resolveForce turns the FORCE options' column names into flags by copied
// column, cols being the copied columns' names and all the table's (nil
// for a query's copy); rel names the table for the error, when the copy
// is of one. A column of the table the copy leaves out is "not referenced
// by COPY", as PostgreSQL says.
func (o *copyOptions) resolveForce(cols, all []string, rel string) error {
	flags := func(option string, names []string) ([]bool, error) {
		if names == nil {
			return nil, nil
		}
		out := make([]bool, len(cols))
		for _, n := range names {
			i := slices.Index(cols, n)
			if i < 0 {
				if slices.Contains(all, n) {
					return nil, pgerr.New(pgerr.InvalidColumnReference, "%s column %q not referenced by COPY", option, n)
				}
				if rel != "" {
					return nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", n, rel)
				}
				return nil, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", n)
			}
			out[i] = true
		}
		return out, nil
	}
	var err error
	if o.forceQuote, err = flags("FORCE_QUOTE", o.forceQuoteNames); err != nil {
		return err
	}
	if o.forceQuoteAll {
		o.forceQuote = make([]bool, len(cols))
		for i := range o.forceQuote {
			o.forceQuote[i] = true
		}
	}
	if o.forceNotNull, err = flags("FORCE_NOT_NULL", o.forceNNNames); err != nil {
		return err
	}
	o.forceNull, err = flags("FORCE_NULL", o.forceNullNames)
	return err
}

func (a *analyzer) copyStmt(s *pg.CopyStmt) (*Copy, error) {
	if s.Filename != "" || s.IsProgram {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be superuser or have privileges of the pg_read_server_files role to COPY to or from a file").
			WithHint("Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone.")
	}
	opts := copyOptions{delim: '\t', null: `\N`, quote: '"', escape: '"'}
	delimSet, nullSet, forceQuoteSet := false, false, false
	seen := map[string]bool{}
	for _, o := range s.Options {
		d := o.GetDefElem()
		if seen[d.Defname] {
			return nil, conflictingOption(d)
		}
		seen[d.Defname] = true
		arg := ""
		if d.Arg != nil {
			switch {
			case d.Arg.GetString_() != nil:
				arg = d.Arg.GetString_().Sval
			case d.Arg.GetBoolean() != nil:
				arg = strconv.FormatBool(d.Arg.GetBoolean().Boolval)
			case d.Arg.GetInteger() != nil:
				arg = strconv.Itoa(int(d.Arg.GetInteger().Ival))
			}
		}
		switch d.Defname {
		case "format":
			switch arg {
			case "csv":
				opts.csv = true
			case "binary":
				opts.binary = true
			case "text":
			default:
				return nil, pgerr.New(pgerr.InvalidParameterValue, "COPY format %q not recognized", arg)
			}
		case "delimiter":
			if len(arg) != 1 {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY delimiter must be a single one-byte character")
			}
			opts.delim, delimSet = arg[0], true
		case "null":
			opts.null, nullSet = arg, true
		case "header":
			opts.header = arg != "false" && arg != "0" && arg != "off"
		case "quote":
			opts.quote = arg[0]
		case "escape":
			opts.escape = arg[0]
		case "force_quote":
			if d.Arg.GetAStar() != nil {
				opts.forceQuoteAll = true
			} else {
				opts.forceQuoteNames = nameList(d.Arg)
			}
			forceQuoteSet = true
		case "force_not_null":
			opts.forceNNNames = nameList(d.Arg)
		case "force_null":
			opts.forceNullNames = nameList(d.Arg)
		case "freeze", "encoding", "convert_selectively":
		default:
			return nil, pgerr.New(pgerr.SyntaxError, "option %q not recognized", d.Defname)
		}
	}
	switch {
	case forceQuoteSet && !opts.csv:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY force quote available only in CSV mode")
	case forceQuoteSet && s.IsFrom:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY force quote only available using COPY TO")
	case opts.forceNNNames != nil && !opts.csv:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY force not null available only in CSV mode")
	case opts.forceNNNames != nil && !s.IsFrom:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY force not null only available using COPY FROM")
	case opts.forceNullNames != nil && !opts.csv:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY force null available only in CSV mode")
	case opts.forceNullNames != nil && !s.IsFrom:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY force null only available using COPY FROM")
	}
	if opts.csv {
		if !delimSet {
			opts.delim = ','
		}
		if !nullSet {
			opts.null = ""
		}
	}
	c := &Copy{From: s.IsFrom, CSV: opts.csv, Binary: opts.binary, opts: opts, a: a}
	if s.Query != nil {
		if s.IsFrom {
			return nil, pgerr.New(pgerr.SyntaxError, "COPY FROM does not take a query")
		}
		if s.Query.GetMergeStmt() != nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "MERGE not supported in COPY")
		}
		p, err := a.selectStmt(s.Query.GetSelectStmt())
		if err != nil {
			return nil, err
		}
		c.plan, c.Cols = p, len(p.Columns())
		var names []string
		for _, col := range p.Columns() {
			names = append(names, col.Name)
		}
		if err := c.opts.resolveForce(names, nil, ""); err != nil {
			return nil, err
		}
		return c, nil
	}
	t, err := a.table(s.Relation)
	if err != nil {
		return nil, err
	}
	if t.VirtualKind == 'v' && !s.IsFrom {
		return nil, pgerr.New(pgerr.WrongObjectType, "cannot copy from view %q", t.Def.Name).
			WithHint("Try the COPY (SELECT ...) TO variant.")
	}
	if t.VirtualKind == 'v' && s.IsFrom && !slices.ContainsFunc(t.Def.Triggers, func(tr sqldef.Trigger) bool {
		return tr.Timing == 'i' && !tr.Disabled && tr.FiresOn("INSERT")
	}) {
		return nil, pgerr.New(pgerr.WrongObjectType, "cannot copy to view %q", t.Def.Name).
			WithHint("To enable copying to a view, provide an INSTEAD OF INSERT trigger.")
	}
	c.table = t
	// Generated columns are neither read nor written by COPY: FROM
	// computes them.
	if len(s.Attlist) == 0 {
		for _, col := range t.Cols {
			if !col.Dropped && col.Generated == "" {
				c.target = append(c.target, col.Pos)
			}
		}
	} else {
		for _, n := range s.Attlist {
			pos, err := columnByName(t, n.GetString_().Sval, -1)
			if err != nil {
				return nil, err
			}
			if slices.Contains(c.target, pos) {
				return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", t.Cols[pos].Name)
			}
			if t.Cols[pos].Generated != "" {
				return nil, copyGenerated(t.Cols[pos].Name)
			}
			c.target = append(c.target, pos)
		}
	}
	c.Cols = len(c.target)
	names := make([]string, len(c.target))
	for i, pos := range c.target {
		names[i] = t.Cols[pos].Name
	}
	var all []string
	for _, col := range t.Cols {
		if !col.Dropped {
			all = append(all, col.Name)
		}
	}
	if err := c.opts.resolveForce(names, all, t.Def.Name); err != nil {
		return nil, err
	}
	// INSERT or SELECT on the columns copied (colpriv.go).
	if err := a.requireColumns(t, map[bool]string{true: "a", false: "r"}[s.IsFrom], c.target); err != nil {
		return nil, err
	}
	// Row-level security: COPY TO shows only the rows the policies let
	// through; COPY FROM is refused, as PostgreSQL refuses it.
	quals, err := a.securityQuals(t, policySelect)
	if err != nil {
		return nil, err
	}
	if quals != nil && s.IsFrom {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY FROM not supported with row-level security").
			WithHint("Use INSERT statements instead.")
	}
	if s.IsFrom && s.WhereClause != nil {
		if err := checkCopyWhereGenerated(t.Def, s.WhereClause); err != nil {
			return nil, err
		}
		sub := int32(-1)
		VisitNodes(s.WhereClause, func(x *pg.Node) {
			if sl := x.GetSubLink(); sl != nil && sub < 0 {
				sub = sl.Location
			}
		})
		if sub >= 0 {
			return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in COPY FROM WHERE condition"), sub)
		}
		if c.where, err = a.condition(s.WhereClause, tableScope(t, ""), "COPY FROM WHERE conditions", "argument of WHERE"); err != nil {
			return nil, err
		}
	}
	if !s.IsFrom {
		exprs := make([]exec.Expr, len(c.target))
		cols := make([]exec.ResultColumn, len(c.target))
		for i, pos := range c.target {
			exprs[i] = &exec.ColRef{Idx: pos, T: t.Cols[pos].Type}
			cols[i] = exec.ResultColumn{Name: t.Cols[pos].Name, T: t.Cols[pos].Type}
		}
		c.plan = &exec.Project{In: a.rlsFilter(&exec.Scan{Table: t}, quals), Exprs: exprs, Cols: cols}
	}
	return c, nil
}

// In reads the client's data and inserts its rows.
func (c *Copy) In(ctx context.Context, r io.Reader) (int64, error) {
	a := c.a
	defaults, err := a.defaults(c.table)
	if err != nil {
		return 0, err
	}
	text := &copySource{r: bufio.NewReaderSize(r, 64<<10), c: c}
	var src exec.Plan = text
	if c.Binary {
		src = &binaryCopySource{r: bufio.NewReaderSize(r, 64<<10), c: c}
	}
	if src, err = c.domainChecks(ctx, src); err != nil {
		return 0, err
	}
	checks, err := a.checks(c.table)
	if err != nil {
		return 0, err
	}
	p := &exec.Modify{Kind: exec.Insert, Table: c.table, Source: src, Targets: c.target, Defaults: defaults, Checks: checks, Where: c.where}
	if err := a.modifyFamily(p, true); err != nil {
		return 0, err // a partitioned table's rows are routed
	}
	env := &exec.Env{Ctx: ctx, Settings: a.s.Settings(), Txn: a.tx, Session: a.s}
	rows, err := p.Open(env)
	if err != nil {
		if pe, ok := exec.PgError(err); ok && pe.Context == "" && !c.Binary && text.line > 0 {
			// A row the table refuses: the line it came from. PostgreSQL
			// finds duplicate keys when it flushes a batch of rows to the
			// indexes, when the line's text is gone: only its number.
			pe.Context = fmt.Sprintf("COPY %s, line %d: \"%s\"", c.table.Def.Name, text.line, text.raw)
			if pe.Code == pgerr.UniqueViolation || pe.Code == pgerr.ExclusionViolation {
				pe.Context = fmt.Sprintf("COPY %s, line %d", c.table.Def.Name, text.line)
			}
			return 0, pe
		}
		return 0, err
	}
	return rows.(exec.CountedRows).Affected(), nil
}

// domainChecks makes the values COPY FROM reads for columns of a domain
// pass its constraints, as an INSERT's do.
func (c *Copy) domainChecks(ctx context.Context, src exec.Plan) (exec.Plan, error) {
	exprs := make([]exec.Expr, len(c.target))
	cols := make([]exec.ResultColumn, len(c.target))
	any := false
	for i, pos := range c.target {
		col := c.table.Cols[pos]
		exprs[i], cols[i] = &exec.ColRef{Idx: i, T: col.Type}, exec.ResultColumn{Name: col.Name, T: col.Type}
		dom, err := c.a.columnDomain(ctx, col)
		if err != nil {
			return nil, err
		}
		if dom == nil {
			continue
		}
		if exprs[i], err = c.a.domainCheck(exprs[i], dom); err != nil {
			return nil, err
		}
		any = true
	}
	if !any {
		return src, nil
	}
	return &exec.Project{In: src, Exprs: exprs, Cols: cols}, nil
}

// copySource is a Plan whose rows are the lines of COPY data.
type copySource struct {
	r    *bufio.Reader
	c    *Copy
	line int
	raw  string // the line being read, for errors' CONTEXT
	done bool
	row  exec.Row
	flds []string
}

func (s *copySource) Columns() []exec.ResultColumn      { return nil }
func (s *copySource) Open(*exec.Env) (exec.Rows, error) { return s, nil }
func (s *copySource) Close() error                      { return nil }

func (s *copySource) Next() (exec.Row, error) {
	for !s.done {
		line, err := s.r.ReadString('\n')
		if err == io.EOF {
			s.done = true
			if line == "" {
				break
			}
		} else if err != nil {
			return nil, err
		}
		s.line++
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		s.raw = line
		if line == `\.` {
			s.done = true
			break
		}
		if s.line == 1 && s.c.opts.header {
			continue
		}
		fields, nulls, err := s.split(line)
		if err != nil {
			return nil, err
		}
		if len(fields) != s.c.Cols {
			if len(fields) < s.c.Cols {
				return nil, s.errorf("missing data for column %q", s.c.table.Cols[s.c.target[len(fields)]].Name)
			}
			return nil, s.errorf("extra data after last expected column")
		}
		s.row = s.row[:0]
		for i, f := range fields {
			if nulls[i] {
				s.row = append(s.row, exec.Null)
				continue
			}
			t := s.c.table.Cols[s.c.target[i]].Type
			d, err := exec.ParseText(t, f, s.c.a.s.Settings())
			if err != nil {
				if pe, ok := exec.PgError(err); ok && pe.Context == "" {
					pe.Context = fmt.Sprintf("COPY %s, line %d, column %s: \"%s\"", s.c.table.Def.Name, s.line, s.c.table.Cols[s.c.target[i]].Name, f)
					return nil, pe
				}
				return nil, err
			}
			s.row = append(s.row, d)
		}
		return s.row, nil
	}
	return nil, nil
}

func (s *copySource) errorf(format string, args ...any) error {
	return pgerr.New(pgerr.BadCopyFileFormat, format, args...)
}

// split cuts a line into fields, undoing the format's quoting, and marks
// the NULL fields.
func (s *copySource) split(line string) ([]string, []bool, error) {
	o := &s.c.opts
	var fields []string
	var nulls []bool
	if !o.csv {
		for _, raw := range strings.Split(line, string(o.delim)) {
			if raw == o.null {
				fields, nulls = append(fields, ""), append(nulls, true)
				continue
			}
			fields, nulls = append(fields, unescapeText(raw)), append(nulls, false)
		}
		return fields, nulls, nil
	}
	var cur bytes.Buffer
	quoted, inQuotes := false, false
	for i := 0; i <= len(line); i++ {
		if i == len(line) {
			if inQuotes {
				return nil, nil, s.errorf("unterminated CSV quoted field")
			}
			break
		}
		ch := line[i]
		switch {
		case inQuotes && ch == o.escape && i+1 < len(line) && line[i+1] == o.quote:
			cur.WriteByte(o.quote)
			i++
		case inQuotes && ch == o.quote:
			inQuotes = false
		case inQuotes:
			cur.WriteByte(ch)
		case ch == o.quote:
			inQuotes, quoted = true, true
		case ch == o.delim:
			fields = append(fields, cur.String())
			nulls = append(nulls, o.csvNull(len(nulls), cur.String(), quoted))
			cur.Reset()
			quoted = false
		default:
			cur.WriteByte(ch)
		}
	}
	fields = append(fields, cur.String())
	nulls = append(nulls, o.csvNull(len(nulls), cur.String(), quoted))
	return fields, nulls, nil
}

// csvNull reports whether CSV field i, read as v (quoted or not), is
// NULL: an unquoted null string, unless FORCE_NOT_NULL names its column;
// a quoted one too when FORCE_NULL does.
func (o *copyOptions) csvNull(i int, v string, quoted bool) bool {
	if v != o.null {
		return false
	}
	if quoted {
		return i < len(o.forceNull) && o.forceNull[i]
	}
	return i >= len(o.forceNotNull) || !o.forceNotNull[i]
}

// unescapeText undoes COPY text format's backslash escapes.
func unescapeText(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch != '\\' || i+1 == len(s) {
			b.WriteByte(ch)
			continue
		}
		i++
		switch c := s[i]; c {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x':
			v, n := 0, 0
			for n < 2 && i+1 < len(s) && isHex(s[i+1]) {
				i++
				v = v*16 + hexVal(s[i])
				n++
			}
			if n == 0 {
				b.WriteByte('x')
			} else {
				b.WriteByte(byte(v))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := int(c - '0')
			for n := 1; n < 3 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7'; n++ {
				i++
				v = v*8 + int(s[i]-'0')
			}
			b.WriteByte(byte(v))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// binaryCopySource reads COPY BINARY data: a signature and header, then
// per row a 16-bit field count and each field as a 32-bit length (-1 for
// NULL) and its bytes in the type's binary format, ended by a count of -1.
type binaryCopySource struct {
	r       *bufio.Reader
	c       *Copy
	started bool
	row     exec.Row
	buf     []byte
}

var copySignature = []byte("PGCOPY\n\xff\r\n\x00")

func (s *binaryCopySource) Columns() []exec.ResultColumn      { return nil }
func (s *binaryCopySource) Open(*exec.Env) (exec.Rows, error) { return s, nil }
func (s *binaryCopySource) Close() error                      { return nil }

func (s *binaryCopySource) read(n int) ([]byte, error) {
	if cap(s.buf) < n {
		s.buf = make([]byte, n)
	}
	s.buf = s.buf[:n]
	if _, err := io.ReadFull(s.r, s.buf); err != nil {
		return nil, pgerr.New(pgerr.BadCopyFileFormat, "unexpected EOF in COPY data")
	}
	return s.buf, nil
}

func (s *binaryCopySource) Next() (exec.Row, error) {
	if !s.started {
		s.started = true
		hdr, err := s.read(len(copySignature) + 8)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(hdr[:len(copySignature)], copySignature) {
			return nil, pgerr.New(pgerr.BadCopyFileFormat, "COPY file signature not recognized")
		}
		ext := int(int32(binary.BigEndian.Uint32(hdr[len(copySignature)+4:])))
		if _, err := s.read(ext); err != nil {
			return nil, err
		}
	}
	// The end of the data where a row would start ends the COPY, as in
	// PostgreSQL: some clients (pgx) send no trailer.
	if _, err := s.r.Peek(1); err == io.EOF {
		return nil, nil
	}
	b, err := s.read(2)
	if err != nil {
		return nil, err
	}
	n := int(int16(binary.BigEndian.Uint16(b)))
	if n == -1 {
		return nil, nil
	}
	if n != s.c.Cols {
		return nil, pgerr.New(pgerr.BadCopyFileFormat, "row field count is %d, expected %d", n, s.c.Cols)
	}
	s.row = s.row[:0]
	for i := 0; i < n; i++ {
		b, err := s.read(4)
		if err != nil {
			return nil, err
		}
		size := int(int32(binary.BigEndian.Uint32(b)))
		if size < 0 {
			s.row = append(s.row, exec.Null)
			continue
		}
		if b, err = s.read(size); err != nil {
			return nil, err
		}
		d, err := exec.DecodeBinary(s.c.table.Cols[s.c.target[i]].Type, b)
		if err != nil {
			return nil, err
		}
		s.row = append(s.row, d)
	}
	return s.row, nil
}

// Out runs the COPY's query and writes each row, formatted, through emit.
func (c *Copy) Out(ctx context.Context, emit func(line []byte) error) (int64, error) {
	env := &exec.Env{Ctx: ctx, Settings: c.a.s.Settings(), Txn: c.a.tx, Session: c.a.s}
	rows, err := c.plan.Open(env)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols := c.plan.Columns()
	var n int64
	var buf, val []byte
	o := &c.opts
	if c.Binary {
		// The header travels with the first row (or with the trailer of an
		// empty result), and the trailer alone: PostgreSQL's framing, which
		// clients such as psycopg 3 parse one CopyData message at a time.
		buf = append(append(buf[:0], copySignature...), 0, 0, 0, 0, 0, 0, 0, 0)
		for {
			row, err := rows.Next()
			if err != nil {
				return n, err
			}
			if row == nil {
				return n, emit(append(buf, 0xff, 0xff))
			}
			buf = binary.BigEndian.AppendUint16(buf, uint16(len(cols)))
			for i, col := range cols {
				if row[i].IsNull() {
					buf = binary.BigEndian.AppendUint32(buf, 0xffffffff)
					continue
				}
				at := len(buf)
				buf = append(buf, 0, 0, 0, 0)
				if buf, err = exec.AppendBinary(buf, col.T, row[i]); err != nil {
					return n, err
				}
				binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
			}
			if err := emit(buf); err != nil {
				return n, err
			}
			buf = buf[:0]
			n++
		}
	}
	if o.header {
		buf = buf[:0]
		for i, col := range cols {
			if i > 0 {
				buf = append(buf, o.delim)
			}
			buf = append(buf, col.Name...)
		}
		if err := emit(append(buf, '\n')); err != nil {
			return 0, err
		}
	}
	for {
		row, err := rows.Next()
		if err != nil {
			return n, err
		}
		if row == nil {
			return n, nil
		}
		buf = buf[:0]
		for i, col := range cols {
			if i > 0 {
				buf = append(buf, o.delim)
			}
			if row[i].IsNull() {
				buf = append(buf, o.null...)
				continue
			}
			val = exec.AppendText(val[:0], col.T, row[i], env.Settings)
			buf = appendCopyField(buf, val, o, i < len(o.forceQuote) && o.forceQuote[i])
		}
		if err := emit(append(buf, '\n')); err != nil {
			return n, err
		}
		n++
	}
}

func appendCopyField(dst, v []byte, o *copyOptions, forceQuote bool) []byte {
	if o.csv {
		if !forceQuote && bytes.IndexByte(v, o.delim) < 0 && bytes.IndexByte(v, o.quote) < 0 && bytes.IndexAny(v, "\r\n") < 0 && (len(v) > 0 || o.null != "") && string(v) != o.null {
			return append(dst, v...)
		}
		dst = append(dst, o.quote)
		for _, ch := range v {
			if ch == o.quote || ch == o.escape {
				dst = append(dst, o.escape)
			}
			dst = append(dst, ch)
		}
		return append(dst, o.quote)
	}
	for _, ch := range v {
		switch ch {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\v':
			dst = append(dst, '\\', 'v')
		default:
			if ch == o.delim {
				dst = append(dst, '\\')
			}
			dst = append(dst, ch)
		}
	}
	return dst
}

// conflictingOption is the error of a COPY option given twice.
func conflictingOption(d *pg.DefElem) error {
	return WithPos(pgerr.New(pgerr.SyntaxError, "conflicting or redundant options"), d.Location)
}
