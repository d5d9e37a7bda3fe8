package plpgsql

import (
	"errors"
	pg "github.com/pganalyze/pg_query_go/v5"
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// expr is an expression or SQL statement of the body, with its plan once
// prepared.
type expr struct {
	text string
	line int
	prep Prepared
}

// stmt is a statement of the body.
type stmt interface {
	lineNo() int
	exec(fr *frame) (ctl, error)
}

func (fr *frame) runList(list []stmt) (ctl, error) {
	for _, s := range list {
		fr.line = s.lineNo()
		c, err := s.exec(fr)
		if err != nil || c != ctlNext {
			return c, err
		}
	}
	return ctlNext, nil
}

type block struct {
	line     int
	label    string
	declared []int
	body     []stmt
	handlers []handler
	// sqlstate and sqlerrm are the handlers' variables (0: none).
	sqlstate, sqlerrm int
}

type handler struct {
	conditions []string
	body       []stmt
}

func (b *block) lineNo() int                 { return b.line }
func (b *block) exec(fr *frame) (ctl, error) { return fr.runBlock(b) }

func (fr *frame) runBlock(b *block) (ctl, error) {
	for _, dno := range b.declared {
		if err := fr.initVar(dno); err != nil {
			return ctlNext, err
		}
	}
	if len(b.handlers) == 0 {
		c, err := fr.runList(b.body)
		return fr.blockResult(b, c, err)
	}
	rollback := fr.h.Savepoint()
	c, err := fr.runList(b.body)
	if err == nil {
		return fr.blockResult(b, c, nil)
	}
	var pe *pgerr.Error
	if !errors.As(err, &pe) {
		return ctlNext, err
	}
	for _, h := range b.handlers {
		if !matches(h.conditions, pe.Code) {
			continue
		}
		if err := rollback(); err != nil {
			return ctlNext, err
		}
		if b.sqlstate > 0 {
			fr.vals[b.sqlstate] = value{d: exec.DText(string(pe.Code)), t: exec.TText}
		}
		if b.sqlerrm > 0 {
			fr.vals[b.sqlerrm] = value{d: exec.DText(pe.Message), t: exec.TText}
		}
		fr.caught = append(fr.caught, pe)
		c, err := fr.runList(h.body)
		fr.caught = fr.caught[:len(fr.caught)-1]
		return fr.blockResult(b, c, err)
	}
	return ctlNext, err
}

// blockResult ends a block: an EXIT naming its label leaves it.
func (fr *frame) blockResult(b *block, c ctl, err error) (ctl, error) {
	if c == ctlExit && b.label != "" && fr.exitLabel == b.label {
		fr.exitLabel = ""
		return ctlNext, err
	}
	return c, err
}

// initVar gives a declared variable its default, or NULL.
func (fr *frame) initVar(dno int) error {
	d := fr.f.datums[dno]
	if d.rowType != "" {
		// A %ROWTYPE variable starts as a row of NULLs, its fields
		// assignable one by one.
		cols, err := fr.h.RowType(d.rowType)
		fr.vals[dno] = value{cols: cols}
		return err
	}
	if d.record {
		fr.vals[dno] = value{}
		return nil
	}
	t, err := fr.typeOf(dno)
	if err != nil {
		return err
	}
	v := exec.Null
	if d.def != nil {
		if v, err = fr.evalAs(d.def, t); err != nil {
			return err
		}
	}
	if d.notNull && v.IsNull() {
		return pgerr.New(pgerr.NullValueNotAllowed, "null value cannot be assigned to variable %q declared NOT NULL", d.name)
	}
	if err := fr.checkDomain(dno, v); err != nil {
		return err
	}
	fr.vals[dno] = value{d: v, t: t}
	return nil
}

// matches reports whether an exception handler's conditions catch code.
func matches(conds []string, code pgerr.Code) bool {
	for _, c := range conds {
		switch {
		case c == "others":
			if code != "57014" && code != pgerr.AssertFailure {
				return true
			}
		case len(c) == 5 && strings.ToUpper(c) == strings.ToUpper(string(c)) && isSQLState(c):
			if strings.EqualFold(c, string(code)) {
				return true
			}
		default:
			want, ok := conditionCodes[c]
			if !ok {
				continue
			}
			if want == code || strings.HasSuffix(string(want), "000") && strings.HasPrefix(string(code), string(want[:2])) {
				return true
			}
		}
	}
	return false
}

func isSQLState(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
			return false
		}
	}
	_, named := conditionCodes[s]
	return !named
}

type assignStmt struct {
	line       int
	dno        int
	field      string      // set when assigning a field of record dno
	subscripts []subscript // set when assigning elements of array dno
	value      *expr
}

func (s *assignStmt) lineNo() int { return s.line }
func (s *assignStmt) exec(fr *frame) (ctl, error) {
	d, t, err := fr.eval(s.value)
	if err != nil {
		return ctlNext, err
	}
	if s.field != "" {
		return ctlNext, fr.assignField(s.dno, s.field, d, t)
	}
	if len(s.subscripts) > 0 {
		return ctlNext, s.assignElement(fr, d, t)
	}
	return ctlNext, fr.assign(s.dno, d, t)
}

// assignElement stores d in the element or slice of array variable s.dno
// that the subscripts name, extending the array as an UPDATE's a[i] = v
// does.
func (s *assignStmt) assignElement(fr *frame, d exec.Datum, t exec.T) error {
	vt, err := fr.typeOf(s.dno)
	if err != nil {
		return err
	}
	if !exec.IsArrayType(vt.OID) {
		return pgerr.New(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", exec.TypeName(vt.OID))
	}
	slice := false
	for _, sub := range s.subscripts {
		slice = slice || sub.slice
	}
	n := len(s.subscripts)
	lo, hi := make([]int64, n), make([]int64, n)
	hasLo, hasHi := make([]bool, n), make([]bool, n)
	bound := func(e *expr) (int64, bool, error) {
		if e == nil {
			return 0, false, nil
		}
		x, err := fr.evalAs(e, exec.TInt8)
		if err != nil {
			return 0, false, err
		}
		if x.IsNull() {
			return 0, false, pgerr.New(pgerr.NullValueNotAllowed, "array subscript in assignment must not be null")
		}
		return x.I, true, nil
	}
	for i, sub := range s.subscripts {
		if lo[i], hasLo[i], err = bound(sub.lo); err != nil {
			return err
		}
		if hi[i], hasHi[i], err = bound(sub.hi); err != nil {
			return err
		}
	}
	cur, _ := fr.Value(s.dno << 16)
	elem := exec.ElemType(vt)
	if !slice {
		v, err := fr.convert(d, t, elem)
		if err != nil {
			return err
		}
		next, err := exec.AssignElements(cur, elem.OID, hi, v)
		if err != nil {
			return err
		}
		return fr.assign(s.dno, next, vt)
	}
	v, err := fr.convert(d, t, vt)
	if err != nil || v.IsNull() {
		return err // assigning a NULL array to a slice changes nothing
	}
	next, err := exec.AssignSlice(cur, elem.OID, lo, hi, hasLo, hasHi, v.Array().Elems)
	if err != nil {
		return err
	}
	return fr.assign(s.dno, next, vt)
}

type ifStmt struct {
	line     int
	conds    []*expr
	bodies   [][]stmt
	elseBody []stmt
}

func (s *ifStmt) lineNo() int { return s.line }
func (s *ifStmt) exec(fr *frame) (ctl, error) {
	for i, c := range s.conds {
		ok, err := fr.cond(c)
		if err != nil {
			return ctlNext, err
		}
		if ok {
			return fr.runList(s.bodies[i])
		}
	}
	return fr.runList(s.elseBody)
}

type caseStmt struct {
	line     int
	value    *expr
	dno      int
	whens    []*expr
	bodies   [][]stmt
	hasElse  bool
	elseBody []stmt
}

func (s *caseStmt) lineNo() int { return s.line }
func (s *caseStmt) exec(fr *frame) (ctl, error) {
	if s.value != nil {
		d, t, err := fr.eval(s.value)
		if err != nil {
			return ctlNext, err
		}
		fr.vals[s.dno] = value{d: d, t: t}
	}
	for i, w := range s.whens {
		ok, err := fr.cond(w)
		if err != nil {
			return ctlNext, err
		}
		if ok {
			return fr.runList(s.bodies[i])
		}
	}
	if !s.hasElse {
		return ctlNext, pgerr.New(pgerr.CaseNotFound, "case not found").WithHint("CASE statement is missing ELSE part.")
	}
	return fr.runList(s.elseBody)
}

// loopResult interprets how one iteration of a loop labelled label
// ended: stop reports whether the loop ends, with what the loop returns.
func (fr *frame) loopResult(label string, c ctl) (stop bool, out ctl) {
	switch c {
	case ctlExit:
		if fr.exitLabel == "" || fr.exitLabel == label {
			fr.exitLabel = ""
			return true, ctlNext
		}
		return true, ctlExit
	case ctlContinue:
		if fr.exitLabel == "" || fr.exitLabel == label {
			fr.exitLabel = ""
			return false, ctlNext
		}
		return true, ctlContinue
	case ctlReturn:
		return true, ctlReturn
	}
	return false, ctlNext
}

type loopStmt struct {
	line  int
	label string
	cond  *expr // WHILE's, nil for LOOP
	body  []stmt
}

func (s *loopStmt) lineNo() int { return s.line }
func (s *loopStmt) exec(fr *frame) (ctl, error) {
	for {
		if err := fr.call.Env.Ctx.Err(); err != nil {
			return ctlNext, pgerr.Wrap(err, "57014", "canceling statement due to user request")
		}
		if s.cond != nil {
			ok, err := fr.cond(s.cond)
			if err != nil || !ok {
				return ctlNext, err
			}
		}
		c, err := fr.runList(s.body)
		if err != nil {
			return ctlNext, err
		}
		if stop, out := fr.loopResult(s.label, c); stop {
			return out, nil
		}
	}
}

type forIntStmt struct {
	line               int
	label              string
	dno                int
	lower, upper, step *expr
	reverse            bool
	body               []stmt
}

func (s *forIntStmt) lineNo() int { return s.line }
func (s *forIntStmt) exec(fr *frame) (ctl, error) {
	bound := func(e *expr, what string) (int64, error) {
		d, err := fr.evalAs(e, exec.TInt4)
		if err != nil {
			return 0, err
		}
		if d.IsNull() {
			return 0, pgerr.New(pgerr.NullValueNotAllowed, "%s bound of FOR loop cannot be null", what)
		}
		return d.I, nil
	}
	lo, err := bound(s.lower, "lower")
	if err != nil {
		return ctlNext, err
	}
	hi, err := bound(s.upper, "upper")
	if err != nil {
		return ctlNext, err
	}
	step := int64(1)
	if s.step != nil {
		if step, err = bound(s.step, "BY value"); err != nil {
			return ctlNext, err
		}
		if step <= 0 {
			return ctlNext, pgerr.New(pgerr.InvalidParameterValue, "BY value of FOR loop must be greater than zero")
		}
	}
	found := false
	for i := lo; s.reverse && i >= hi || !s.reverse && i <= hi; {
		found = true
		fr.vals[s.dno] = value{d: exec.DInt(i), t: exec.TInt4}
		c, err := fr.runList(s.body)
		if err != nil {
			return ctlNext, err
		}
		if stop, out := fr.loopResult(s.label, c); stop {
			fr.setFound(true)
			return out, nil
		}
		if s.reverse {
			i -= step
		} else {
			i += step
		}
	}
	fr.setFound(found)
	return ctlNext, nil
}

type forQueryStmt struct {
	line    int
	label   string
	target  []int
	query   *expr
	dynamic bool
	params  []*expr
	body    []stmt
}

func (s *forQueryStmt) lineNo() int { return s.line }
func (s *forQueryStmt) exec(fr *frame) (ctl, error) {
	var res *Result
	var err error
	if s.dynamic {
		res, err = fr.dynamic(s.query, s.params)
	} else {
		res, err = fr.run(s.query, s.query.text)
	}
	if err != nil {
		return ctlNext, err
	}
	for _, row := range res.Rows {
		if err := fr.assignRow(s.target, res.Cols, row); err != nil {
			return ctlNext, err
		}
		c, err := fr.runList(s.body)
		if err != nil {
			return ctlNext, err
		}
		if stop, out := fr.loopResult(s.label, c); stop {
			fr.setFound(true)
			return out, nil
		}
	}
	fr.setFound(len(res.Rows) > 0)
	return ctlNext, nil
}

type foreachStmt struct {
	line  int
	label string
	dno   int
	array *expr
	slice int
	body  []stmt
}

func (s *foreachStmt) lineNo() int { return s.line }
func (s *foreachStmt) exec(fr *frame) (ctl, error) {
	d, t, err := fr.eval(s.array)
	if err != nil {
		return ctlNext, err
	}
	if d.IsNull() {
		return ctlNext, pgerr.New(pgerr.NullValueNotAllowed, "FOREACH expression must not be null")
	}
	a, ok := d.X.(*exec.Array)
	if !ok {
		return ctlNext, pgerr.New(pgerr.DatatypeMismatch, "FOREACH expression must yield an array, not type %s", exec.TypeName(t.OID))
	}
	if s.slice < 0 || s.slice > len(a.Dims) {
		return ctlNext, pgerr.New(pgerr.ArraySubscriptError, "slice dimension (%d) is out of the valid range 0..%d", s.slice, len(a.Dims))
	}
	if !fr.f.datums[s.dno].record && fr.f.datums[s.dno].field == "" {
		vt, err := fr.typeOf(s.dno)
		if err != nil {
			return ctlNext, err
		}
		switch isArray := exec.IsArrayType(vt.OID); {
		case vt.OID == 0: // a type known only from the values assigned
		case s.slice > 0 && !isArray:
			return ctlNext, pgerr.New(pgerr.DatatypeMismatch, "FOREACH ... SLICE loop variable must be of an array type")
		case s.slice == 0 && isArray:
			return ctlNext, pgerr.New(pgerr.DatatypeMismatch, "FOREACH loop variable must not be of an array type")
		}
	}
	elem := exec.ElemType(t)
	items := a.Elems
	if s.slice > 0 {
		items, elem = arraySlices(a, s.slice), t
	}
	for _, e := range items {
		if err := fr.assign(s.dno, e, elem); err != nil {
			return ctlNext, err
		}
		c, err := fr.runList(s.body)
		if err != nil {
			return ctlNext, err
		}
		if stop, out := fr.loopResult(s.label, c); stop {
			return out, nil
		}
	}
	return ctlNext, nil
}

// arraySlices cuts a into the arrays of its last n dimensions, in order,
// each with a's lower bounds of those dimensions, as FOREACH ... SLICE n
// hands them out.
func arraySlices(a *exec.Array, n int) []exec.Datum {
	dims := a.Dims[len(a.Dims)-n:]
	size := 1
	for _, d := range dims {
		size *= int(d)
	}
	if size == 0 {
		return nil
	}
	lower := make([]int32, n)
	for i := range lower {
		lower[i] = 1
	}
	if len(a.Lower) == len(a.Dims) {
		lower = a.Lower[len(a.Lower)-n:]
	}
	out := make([]exec.Datum, 0, len(a.Elems)/size)
	for i := 0; i+size <= len(a.Elems); i += size {
		// Each slice has its own slices: an assignment to an element of
		// the loop variable must not reach the others or the source.
		part := &exec.Array{Elem: a.Elem, Dims: append([]int32(nil), dims...), Lower: append([]int32(nil), lower...),
			Elems: append([]exec.Datum(nil), a.Elems[i:i+size]...)}
		for _, e := range part.Elems {
			if e.IsNull() {
				part.HasNul = true
				break
			}
		}
		out = append(out, exec.DArray(part))
	}
	return out
}

type exitStmt struct {
	line  int
	exit  bool
	label string
	cond  *expr
}

func (s *exitStmt) lineNo() int { return s.line }
func (s *exitStmt) exec(fr *frame) (ctl, error) {
	if s.cond != nil {
		ok, err := fr.cond(s.cond)
		if err != nil || !ok {
			return ctlNext, err
		}
	}
	fr.exitLabel = s.label
	if s.exit {
		return ctlExit, nil
	}
	return ctlContinue, nil
}

type returnStmt struct {
	line     int
	value    *expr
	implicit bool // the parser's, at the end of the body
}

func (s *returnStmt) lineNo() int { return s.line }
func (s *returnStmt) exec(fr *frame) (ctl, error) {
	sig := fr.f.sig
	if s.implicit && fr.f.needsReturn() {
		what := "function"
		if sig.IsTrigger() {
			what = "trigger procedure"
		}
		return ctlReturn, pgerr.New(pgerr.FunctionNoReturn, "control reached end of %s without RETURN", what)
	}
	if s.value == nil || sig.ReturnsSet || sig.Procedure {
		return ctlReturn, nil
	}
	if sig.IsTrigger() || sig.Returns.OID == exec.OIDRecord {
		name := strings.ToLower(strings.TrimSpace(s.value.text))
		if name == "null" {
			fr.retRow = nil
			return ctlReturn, nil
		}
		if dno := fr.find(name, true); dno >= 0 {
			v := fr.vals[dno]
			fr.retRow = v.row
			if fr.call.Trigger != nil && v.row == nil && v.cols == nil {
				fr.retRow = nil
			}
			return ctlReturn, nil
		}
		if sig.IsTrigger() {
			return ctlReturn, pgerr.New(pgerr.DatatypeMismatch, "cannot return non-composite value from function returning composite type")
		}
	}
	d, err := fr.evalAs(s.value, sig.Returns)
	if err != nil {
		return ctlNext, err
	}
	fr.retVal = d
	return ctlReturn, nil
}

type returnNextStmt struct {
	line  int
	value *expr
}

func (s *returnNextStmt) lineNo() int { return s.line }
func (s *returnNextStmt) exec(fr *frame) (ctl, error) {
	if s.value == nil {
		fr.results = append(fr.results, fr.outRow())
		return ctlNext, nil
	}
	if dno := fr.find(strings.ToLower(strings.TrimSpace(s.value.text)), true); dno >= 0 {
		fr.results = append(fr.results, fr.vals[dno].row)
		return ctlNext, nil
	}
	d, err := fr.evalAs(s.value, fr.f.sig.Returns)
	if err != nil {
		return ctlNext, err
	}
	fr.results = append(fr.results, exec.Row{d})
	return ctlNext, nil
}

type returnQueryStmt struct {
	line    int
	query   *expr
	dynamic bool
	params  []*expr
}

func (s *returnQueryStmt) lineNo() int { return s.line }
func (s *returnQueryStmt) exec(fr *frame) (ctl, error) {
	var res *Result
	var err error
	if s.dynamic {
		res, err = fr.dynamic(s.query, s.params)
	} else {
		res, err = fr.run(s.query, s.query.text)
	}
	if err != nil {
		return ctlNext, err
	}
	fr.results = append(fr.results, res.Rows...)
	fr.rowCount = int64(len(res.Rows))
	fr.setFound(len(res.Rows) > 0)
	return ctlNext, nil
}

type assertStmt struct {
	line    int
	cond    *expr
	message *expr
}

func (s *assertStmt) lineNo() int { return s.line }
func (s *assertStmt) exec(fr *frame) (ctl, error) {
	d, _, err := fr.eval(s.cond)
	if err != nil {
		return ctlNext, err
	}
	if !d.IsNull() && d.I != 0 {
		return ctlNext, nil
	}
	msg := "assertion failed"
	if s.message != nil {
		m, err := fr.evalAs(s.message, exec.TText)
		if err != nil {
			return ctlNext, err
		}
		if !m.IsNull() {
			msg = m.S
		}
	}
	return ctlNext, pgerr.New(pgerr.AssertFailure, "%s", msg)
}

type execStmt struct {
	line   int
	query  *expr
	into   []int
	strict bool
}

func (s *execStmt) lineNo() int { return s.line }
func (s *execStmt) exec(fr *frame) (ctl, error) {
	res, err := fr.run(s.query, s.query.text)
	if err != nil {
		return ctlNext, err
	}
	return ctlNext, fr.finish(res, s.into, s.strict, true)
}

// callStmt is CALL procedure(args): the values of the procedure's OUT
// and INOUT parameters are assigned to the variables given for them.
type callStmt struct {
	line  int
	query *expr
	// args are, by position in the call as written, the variable each
	// argument names (a name, or a qualified one), nil for another
	// expression.
	args [][]string
}

func (s *callStmt) lineNo() int { return s.line }
func (s *callStmt) exec(fr *frame) (ctl, error) {
	res, err := fr.run(s.query, s.query.text)
	if err != nil {
		return ctlNext, err
	}
	if len(res.Rows) == 0 {
		return ctlNext, nil
	}
	row := res.Rows[0]
	for i, c := range res.Cols {
		var names []string
		if i < len(res.CallOutputs) && res.CallOutputs[i] >= 0 && res.CallOutputs[i] < len(s.args) {
			names = s.args[res.CallOutputs[i]]
		}
		if err := fr.assignOutput(names, c, row[i]); err != nil {
			return ctlNext, err
		}
	}
	return ctlNext, nil
}

// assignOutput stores the value of a procedure's OUT or INOUT parameter
// p in the variable (or record field) names, which the call gave for it.
func (fr *frame) assignOutput(names []string, p exec.ResultColumn, d exec.Datum) error {
	notWritable := func() error {
		return pgerr.New(pgerr.SyntaxError, "procedure parameter %q is an output parameter but corresponding argument is not writable", p.Name)
	}
	switch len(names) {
	case 1:
		dno := fr.find(names[0], false)
		if dno < 0 {
			dno = fr.find(names[0], true)
		}
		if dno < 0 {
			return notWritable()
		}
		return fr.assign(dno, d, p.T)
	case 2:
		if dno := fr.find(names[0], true); dno >= 0 {
			return fr.assignField(dno, names[1], d, p.T)
		}
	}
	return notWritable()
}

// callArgNames returns, for the arguments of the CALL statement text, the
// variable each names, nil where it is another expression: the targets
// of the procedure's output parameters.
func callArgNames(text string) [][]string {
	tree, err := pg.Parse(text)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetCallStmt() == nil {
		return nil
	}
	var out [][]string
	for _, n := range tree.Stmts[0].Stmt.GetCallStmt().Funccall.Args {
		if na := n.GetNamedArgExpr(); na != nil {
			n = na.Arg
		}
		var names []string
		if cr := n.GetColumnRef(); cr != nil {
			for _, f := range cr.Fields {
				if f.GetString_() == nil {
					names = nil
					break
				}
				names = append(names, f.GetString_().Sval)
			}
		}
		out = append(out, names)
	}
	return out
}

// finish records a statement's row count and FOUND and stores its INTO
// row. More than one row fails a STRICT INTO, and, for a statement
// written in the body (static), an INSERT, UPDATE or DELETE ... RETURNING
// INTO, or warns or fails under the too_many_rows extra check.
func (fr *frame) finish(res *Result, into []int, strict, static bool) error {
	fr.rowCount = res.Affected
	fr.setFound(res.Affected > 0)
	if into == nil {
		if res.Tag == "SELECT" {
			return pgerr.New(pgerr.SyntaxError, "query has no destination for result data").
				WithHint("If you want to discard the results of a SELECT, use PERFORM instead.")
		}
		return nil
	}
	switch {
	case strict && len(res.Rows) == 0:
		return pgerr.New(pgerr.NoDataFound, "query returned no rows")
	case len(res.Rows) > 1:
		level := ""
		switch {
		case strict || static && (res.Tag == "INSERT" || res.Tag == "UPDATE" || res.Tag == "DELETE"):
			level = "ERROR"
		case static:
			level = ExtraCheck(fr.h.Setting, CheckTooManyRows)
		}
		if level != "" {
			err := fr.extraCheckFailed(level, pgerr.New(pgerr.TooManyRows, "query returned more than one row").
				WithHint("Make sure the query returns a single row, or use LIMIT 1."))
			if err != nil {
				return err
			}
		}
	}
	var row exec.Row
	if len(res.Rows) > 0 {
		row = res.Rows[0]
	}
	fr.setFound(len(res.Rows) > 0)
	return fr.assignRow(into, res.Cols, row)
}

type dynExecStmt struct {
	line   int
	query  *expr
	into   []int
	strict bool
	params []*expr
}

func (s *dynExecStmt) lineNo() int { return s.line }
func (s *dynExecStmt) exec(fr *frame) (ctl, error) {
	res, err := fr.dynamic(s.query, s.params)
	if err != nil {
		return ctlNext, err
	}
	if s.into == nil {
		fr.rowCount = res.Affected
		return ctlNext, nil
	}
	return ctlNext, fr.finish(res, s.into, s.strict, false)
}

// dynamic runs EXECUTE's query string with USING's values as $1...
func (fr *frame) dynamic(q *expr, params []*expr) (*Result, error) {
	d, err := fr.evalAs(q, exec.TText)
	if err != nil {
		return nil, err
	}
	if d.IsNull() {
		return nil, pgerr.New(pgerr.NullValueNotAllowed, "query string argument of EXECUTE is null")
	}
	var types []exec.T
	var vals []exec.Datum
	for _, p := range params {
		v, t, err := fr.eval(p)
		if err != nil {
			return nil, err
		}
		if t.OID == exec.OIDUnknown {
			t = exec.TText
		}
		types, vals = append(types, t), append(vals, v)
	}
	p, err := fr.h.Prepare(d.S, types, nil)
	if err != nil {
		return nil, err
	}
	return p.Run(fr.call.Env, vals, nil)
}

type performStmt struct {
	line  int
	query *expr
}

func (s *performStmt) lineNo() int { return s.line }
func (s *performStmt) exec(fr *frame) (ctl, error) {
	res, err := fr.run(s.query, s.query.text)
	if err != nil {
		return ctlNext, err
	}
	fr.rowCount = res.Affected
	fr.setFound(len(res.Rows) > 0)
	return ctlNext, nil
}

type diagItem struct {
	kind string
	dno  int
}

type getDiagStmt struct {
	line    int
	stacked bool
	items   []diagItem
}

func (s *getDiagStmt) lineNo() int { return s.line }
func (s *getDiagStmt) exec(fr *frame) (ctl, error) {
	var caught *pgerr.Error
	if s.stacked {
		if len(fr.caught) == 0 {
			return ctlNext, pgerr.New("0Z002", "GET STACKED DIAGNOSTICS cannot be used outside an exception handler")
		}
		caught = fr.caught[len(fr.caught)-1]
	}
	for _, it := range s.items {
		var d exec.Datum
		t := exec.TText
		switch strings.ToUpper(it.kind) {
		case "ROW_COUNT":
			d, t = exec.DInt(fr.rowCount), exec.TInt8
		case "PG_CONTEXT":
			d = exec.DText("PL/pgSQL function " + fr.signature() + " line " + strconv.Itoa(fr.line) + " at GET DIAGNOSTICS")
		case "RETURNED_SQLSTATE":
			d = exec.DText(string(caught.Code))
		case "MESSAGE_TEXT":
			d = exec.DText(caught.Message)
		case "PG_EXCEPTION_DETAIL":
			d = exec.DText(caught.Detail)
		case "PG_EXCEPTION_HINT":
			d = exec.DText(caught.Hint)
		case "PG_EXCEPTION_CONTEXT":
			d = exec.DText(caught.Context)
		default:
			d = exec.DText("")
		}
		if err := fr.assign(it.dno, d, t); err != nil {
			return ctlNext, err
		}
	}
	return ctlNext, nil
}

type unsupportedStmt struct {
	line int
	what string
}

func (s *unsupportedStmt) lineNo() int { return s.line }
func (s *unsupportedStmt) exec(fr *frame) (ctl, error) {
	return ctlNext, pgerr.New(pgerr.InvalidTransactionTermination, "invalid transaction termination")
}
