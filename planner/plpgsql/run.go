package plpgsql

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// Host is what the interpreter needs of the SQL engine.
type Host interface {
	// Prepare analyzes one SQL statement whose parameters $1..$n have the
	// types given and whose other names, when no column has them, are
	// variables found through vars (nil: none).
	Prepare(sql string, given []exec.T, vars Vars) (Prepared, error)
	// Type resolves a type as a declaration writes it.
	Type(name string) (exec.T, error)
	// DomainCheck returns the check of the constraints of domain name,
	// nil when name is no domain: a variable of a domain type holds
	// only values that pass it.
	DomainCheck(name string) (func(*exec.Env, exec.Datum) error, error)
	// RowType returns the columns of table name, the fields of a
	// name%ROWTYPE variable (or those of composite type name).
	RowType(name string) ([]exec.ResultColumn, error)
	// Fields returns the fields of composite type oid, ok false when it
	// is none.
	Fields(oid uint32) (cols []exec.ResultColumn, ok bool)
	// Notice sends a notice to the client.
	Notice(err *pgerr.Error)
	// Savepoint marks the transaction's state; the function it returns
	// rolls the transaction back to it.
	Savepoint() (rollback func() error)
	// Setting returns the value of a configuration parameter, "" when
	// unset (plpgsql.extra_warnings and plpgsql.extra_errors).
	Setting(name string) string
}

// ExtraChecks are the checks plpgsql.extra_warnings and
// plpgsql.extra_errors turn on: shadowed_variables, too_many_rows and
// strict_multi_assignment.
const (
	CheckShadowedVariables = "shadowed_variables"
	CheckTooManyRows       = "too_many_rows"
	CheckStrictMultiAssign = "strict_multi_assignment"
)

// ExtraCheck says what an extra check does under settings, as
// setting(name) gives them: pgerr.LevelError when plpgsql.extra_errors
// has it, pgerr.LevelWarning when plpgsql.extra_warnings has it, "" when
// neither does.
func ExtraCheck(setting func(string) string, check string) string {
	if extraListed(setting("plpgsql.extra_errors"), check) {
		return "ERROR"
	}
	if extraListed(setting("plpgsql.extra_warnings"), check) {
		return "WARNING"
	}
	return ""
}

// extraListed reports whether list, a value of plpgsql.extra_errors or
// extra_warnings ("all", "none" or names separated by commas), has check.
func extraListed(list, check string) bool {
	for _, item := range strings.Split(list, ",") {
		item = strings.ToLower(strings.TrimSpace(item))
		if item == "all" || item == check {
			return true
		}
	}
	return false
}

// extraCheckFailed reports err as the extra check at level (ExtraCheck)
// makes it: the error to return for ERROR, a warning sent for WARNING.
func (fr *frame) extraCheckFailed(level string, err *pgerr.Error) error {
	if level == "ERROR" {
		return err
	}
	err.Severity = "WARNING"
	fr.h.Notice(err)
	return nil
}

// Vars gives a prepared statement the variables it names.
type Vars interface {
	// Lookup resolves name, qualified by qualifier when not "" (NEW.x,
	// r.col), to a reference and its current type.
	Lookup(qualifier, name string) (ref int, t exec.T, ok bool)
	// Record returns the fields of the record variable name (r.* names
	// them), and whether there is one.
	Record(name string) ([]exec.ResultColumn, bool)
	// Value returns the current value and type of a reference.
	Value(ref int) (exec.Datum, exec.T)
}

// Prepared is an analyzed statement.
type Prepared interface {
	// Run executes it in env with $1..$n given and the variables of vars.
	Run(env *exec.Env, given []exec.Datum, vars Vars) (*Result, error)
}

// Result is what a statement returned.
type Result struct {
	Cols     []exec.ResultColumn
	Rows     []exec.Row
	Affected int64 // rows processed: affected by DML, returned by SELECT
	Tag      string
	// CallOutputs are, for a CALL, the positions in the call as written
	// of the arguments its row's columns belong to (the procedure's OUT
	// and INOUT parameters).
	CallOutputs []int
}

// Call is one call of a function.
type Call struct {
	Env     *exec.Env
	Host    Host
	Args    []exec.Datum
	Trigger *TriggerData // set for trigger functions
}

// TriggerData describes the firing of a trigger function.
type TriggerData struct {
	Name, When, Level, Op string
	Schema, Table         string
	RelID                 uint32 // the table's OID, TG_RELID
	Cols                  []exec.ResultColumn
	New, Old              exec.Row // nil where absent
	Args                  []string
}

// Outcome is what a call returned.
type Outcome struct {
	Value exec.Datum // a scalar result
	// Row is the result of a function with OUT arguments or of a trigger
	// function (nil: NULL).
	Row  exec.Row
	Rows []exec.Row // a set-returning function's rows
}

// frame is one call's state.
type frame struct {
	f    *Function
	call *Call
	h    Host
	vals []value
	// line is the line of the statement running, for names and CONTEXT.
	line     int
	rowCount int64
	results  []exec.Row
	// caught is the error an exception handler is handling.
	caught []*pgerr.Error
	retRow exec.Row
	retVal exec.Datum
	// exitLabel is the label an EXIT or CONTINUE targets.
	exitLabel string
}

// value is a variable's value: a scalar, or a record's columns and row
// (row nil: NULL or not assigned yet).
type value struct {
	d    exec.Datum
	t    exec.T
	cols []exec.ResultColumn
	row  exec.Row
}

type ctl uint8

const (
	ctlNext ctl = iota
	ctlExit
	ctlContinue
	ctlReturn
)

// Run calls f.
func (f *Function) Run(c *Call) (*Outcome, error) {
	fr := &frame{f: f, call: c, h: c.Host, vals: make([]value, len(f.datums))}
	for i, d := range f.datums {
		fr.vals[i] = value{d: exec.Null, t: d.t}
	}
	for i, dno := range f.args {
		if dno >= 0 && i < len(c.Args) {
			fr.bindArg(dno, f.sig.inputs()[i].T, c.Args[i])
		}
	}
	if f.found >= 0 {
		fr.vals[f.found].d = exec.DBool(false)
	}

	if td := c.Trigger; td != nil {
		if f.newDno >= 0 {
			fr.vals[f.newDno] = value{cols: td.Cols, row: slices.Clone(td.New)}
		}
		if f.oldDno >= 0 {
			fr.vals[f.oldDno] = value{cols: td.Cols, row: slices.Clone(td.Old)}
		}
	}
	_, err := fr.runBlock(f.body)
	if err != nil {
		return nil, fr.withContext(err)
	}
	out := &Outcome{Value: fr.retVal, Row: fr.retRow, Rows: fr.results}
	if len(f.outs) > 0 && !f.sig.ReturnsSet {
		out.Row = fr.outRow()
		if len(f.outs) == 1 {
			out.Value = out.Row[0]
		}
	}
	return out, nil
}

// withContext adds PostgreSQL's CONTEXT line to an error.
func (fr *frame) withContext(err error) error {
	var pe *pgerr.Error
	if !errors.As(err, &pe) {
		return err
	}
	line := fmt.Sprintf("PL/pgSQL function %s line %d", fr.signature(), fr.line)
	if pe.Context == "" {
		pe.Context = line
	} else if !strings.Contains(pe.Context, line) {
		pe.Context += "\n" + line
	}
	return pe
}

func (fr *frame) signature() string {
	var ts []string
	for _, a := range fr.f.sig.Args {
		if a.isInput() {
			ts = append(ts, typeText(a.T))
		}
	}
	if d := fr.f.sig.Declared; d != nil {
		ts = ts[:0]
		for _, t := range d {
			ts = append(ts, typeText(t))
		}
	}
	return fr.f.sig.Name + "(" + strings.Join(ts, ",") + ")"
}

func (fr *frame) outRow() exec.Row {
	row := make(exec.Row, len(fr.f.outs))
	for i, dno := range fr.f.outs {
		if dno >= 0 {
			row[i], _ = fr.Value(dno << 16) // a composite one holds a row, not a datum
		}
	}
	return row
}

// Lookup implements Vars: a name declared in the function, by the
// declaration nearest before the statement running; a field of a
// record; the trigger variables TG_*.
func (fr *frame) Lookup(qualifier, name string) (int, exec.T, bool) {
	if qualifier != "" {
		dno := fr.find(qualifier, true)
		if dno < 0 {
			return 0, exec.T{}, false
		}
		v := &fr.vals[dno]
		for i, c := range v.cols {
			if c.Name == name {
				return dno<<16 | (i + 1), c.T, true
			}
		}
		return 0, exec.T{}, false
	}
	if dno := fr.find(name, false); dno >= 0 {
		return dno << 16, fr.vals[dno].t, true
	}
	if dno := fr.find(name, true); dno >= 0 {
		// A record as a whole: NEW, r; an argument of a composite type
		// is of that type.
		if t := fr.f.datums[dno].t; isComposite(t) {
			return dno << 16, t, true
		}
		return dno << 16, exec.TRecord, true
	}
	if fr.call.Trigger != nil {
		for i, tv := range triggerVars {
			if tv.name == name {
				return -(i + 1), tv.t, true
			}
		}
	}
	return 0, exec.T{}, false
}

// Record implements Vars: the fields a record variable holds now.
func (fr *frame) Record(name string) ([]exec.ResultColumn, bool) {
	dno := fr.find(name, true)
	if dno < 0 {
		return nil, false
	}
	return fr.vals[dno].cols, true
}

// find returns the variable named name visible at the current line.
func (fr *frame) find(name string, record bool) int {
	return fr.f.find(name, record, fr.line, len(fr.f.datums))
}

// find returns the variable named name (a record one or not) declared
// last on or before line among the first n variables, through an ALIAS
// FOR declaration too; -1 for none.
func (f *Function) find(name string, record bool, line, n int) int {
	return f.findIn(name, record, line, n, f.aliases)
}

// findIn is find through the aliases given: an alias's target is
// resolved among the aliases declared before it.
func (f *Function) findIn(name string, record bool, line, n int, aliases []alias) int {
	if name != "" && name[0] == '$' {
		// $n, the n-th input argument (in ALIAS FOR $n and $n%TYPE).
		k, err := strconv.Atoi(name[1:])
		if err != nil || k < 1 || k > len(f.args) || f.args[k-1] >= n || f.datums[f.args[k-1]].record != record {
			return -1
		}
		return f.args[k-1]
	}
	best, bestLine := -1, -1
	for i, d := range f.datums[:n] {
		if d.name != name || d.field != "" || d.row != nil || d.record != record {
			continue
		}
		if d.line <= line && d.line >= bestLine {
			best, bestLine = i, d.line
		}
	}
	for j, a := range aliases {
		if a.name != name || a.line > line || a.line < bestLine {
			continue
		}
		if dno := f.findIn(a.target, record, a.line, n, aliases[:j]); dno >= 0 {
			best, bestLine = dno, a.line
		}
	}
	return best
}

// Value implements Vars.
func (fr *frame) Value(ref int) (exec.Datum, exec.T) {
	if ref < 0 {
		tv := triggerVars[-ref-1]
		return tv.value(fr.call.Trigger), tv.t
	}
	v := &fr.vals[ref>>16]
	if field := ref & 0xffff; field > 0 {
		c := v.cols[field-1]
		if v.row == nil {
			return exec.Null, c.T
		}
		return v.row[field-1], c.T
	}
	if d := fr.f.datums[ref>>16]; d.record {
		r := v.record()
		if isComposite(d.t) {
			// An argument of a composite type is of that type.
			if !r.IsNull() {
				r.Record().Type = d.t.OID
			}
			return r, d.t
		}
		return r, exec.TRecord
	}
	return v.d, v.t
}

// record returns a record variable's value as a record datum whose
// fields carry their names (row_to_json(NEW)); NULL when unassigned.
func (v *value) record() exec.Datum {
	if v.row == nil {
		return exec.Null
	}
	r := &exec.Record{Type: exec.OIDRecord, Fields: slices.Clone(v.row), Types: make([]exec.T, len(v.cols)), Names: make([]string, len(v.cols))}
	for i, c := range v.cols {
		r.Types[i], r.Names[i] = c.T, c.Name
	}
	return exec.DRecord(r)
}

var triggerVars = []struct {
	name  string
	t     exec.T
	value func(*TriggerData) exec.Datum
}{
	{"tg_name", exec.TName, func(td *TriggerData) exec.Datum { return exec.DText(td.Name) }},
	{"tg_when", exec.TText, func(td *TriggerData) exec.Datum { return exec.DText(td.When) }},
	{"tg_level", exec.TText, func(td *TriggerData) exec.Datum { return exec.DText(td.Level) }},
	{"tg_op", exec.TText, func(td *TriggerData) exec.Datum { return exec.DText(td.Op) }},
	{"tg_table_name", exec.TName, func(td *TriggerData) exec.Datum { return exec.DText(td.Table) }},
	{"tg_relname", exec.TName, func(td *TriggerData) exec.Datum { return exec.DText(td.Table) }},
	{"tg_table_schema", exec.TName, func(td *TriggerData) exec.Datum { return exec.DText(td.Schema) }},
	{"tg_relid", exec.TOid, func(td *TriggerData) exec.Datum { return exec.DInt(int64(td.RelID)) }},
	{"tg_nargs", exec.TInt4, func(td *TriggerData) exec.Datum { return exec.DInt(int64(len(td.Args))) }},
	{"tg_argv", exec.ArrayType(exec.TText), func(td *TriggerData) exec.Datum {
		elems := make([]exec.Datum, len(td.Args))
		for i, s := range td.Args {
			elems[i] = exec.DText(s)
		}
		d := exec.NewArray(exec.OIDText, elems)
		if a, ok := d.X.(*exec.Array); ok && len(a.Lower) == 1 {
			a.Lower[0] = 0 // TG_ARGV counts from 0
		}
		return d
	}},
}

// prepare returns e's prepared statement, analyzing it the first time.
func (fr *frame) prepare(e *expr, sql string) (Prepared, error) {
	if e.prep != nil {
		return e.prep, nil
	}
	fr.line = e.line
	p, err := fr.h.Prepare(sql, fr.argTypes(), fr)
	if err != nil {
		return nil, err
	}
	e.prep = p
	return p, nil
}

func (fr *frame) argTypes() []exec.T {
	var out []exec.T
	for _, a := range fr.f.sig.Args {
		if a.isInput() {
			out = append(out, a.T)
		}
	}
	return out
}

// run executes a statement of the body.
func (fr *frame) run(e *expr, sql string) (*Result, error) {
	p, err := fr.prepare(e, sql)
	if err != nil {
		return nil, err
	}
	fr.line = e.line
	return p.Run(fr.call.Env, fr.call.Args, fr)
}

// eval computes an expression's value.
func (fr *frame) eval(e *expr) (exec.Datum, exec.T, error) {
	res, err := fr.run(e, "SELECT "+e.text)
	if err != nil {
		return exec.Null, exec.T{}, err
	}
	if len(res.Cols) != 1 {
		return exec.Null, exec.T{}, pgerr.New(pgerr.SyntaxError, "query returned %d columns", len(res.Cols))
	}
	switch len(res.Rows) {
	case 0:
		return exec.Null, res.Cols[0].T, nil
	case 1:
		return res.Rows[0][0], res.Cols[0].T, nil
	}
	return exec.Null, exec.T{}, pgerr.New(pgerr.CardinalityViolation, "query returned more than one row")
}

// evalAs computes an expression converted to type t.
func (fr *frame) evalAs(e *expr, t exec.T) (exec.Datum, error) {
	d, from, err := fr.eval(e)
	if err != nil {
		return exec.Null, err
	}
	return fr.convert(d, from, t)
}

// convert casts d to t as an assignment does.
func (fr *frame) convert(d exec.Datum, from, to exec.T) (exec.Datum, error) {
	if d.IsNull() || to.OID == 0 || to.OID == exec.OIDRecord || from == to || from.OID == to.OID && to.Typmod < 0 {
		return d, nil
	}
	fn := exec.CastFn(from, to, false)
	if fn == nil {
		return exec.Null, pgerr.New(pgerr.DatatypeMismatch, "cannot cast type %s to %s", exec.TypeName(from.OID), exec.TypeName(to.OID))
	}
	return fn(fr.call.Env, []exec.Datum{d})
}

func (fr *frame) cond(e *expr) (bool, error) {
	d, t, err := fr.eval(e)
	if err != nil {
		return false, err
	}
	if d.IsNull() {
		return false, nil
	}
	if t.OID != exec.OIDBool {
		if d, err = fr.convert(d, t, exec.TBool); err != nil {
			return false, err
		}
	}
	return d.I != 0, nil
}

// typeOf resolves a declared variable's type, once per call.
func (fr *frame) typeOf(dno int) (exec.T, error) {
	d := fr.f.datums[dno]
	if d.t.OID != 0 || d.typName == "" || d.record {
		return d.t, nil
	}
	if base, ok := strings.CutSuffix(strings.ToLower(d.typName), "%type"); ok {
		// v%TYPE of a variable declared before (an argument's: a
		// polymorphic function's actual type); other names are columns.
		if src := fr.f.find(strings.TrimSpace(base), false, d.line, dno); src >= 0 {
			t, err := fr.typeOf(src)
			d.t = t
			return t, err
		}
	}
	t, err := fr.h.Type(d.typName)
	if err != nil {
		return exec.T{}, err
	}
	d.t = t
	return t, nil
}

// assign stores a value in variable dno (a scalar, or a record's field).
func (fr *frame) assign(dno int, d exec.Datum, from exec.T) error {
	dt := fr.f.datums[dno]
	if dt.field != "" {
		return fr.assignField(dt.parent, dt.field, d, from)
	}
	if dt.isConst {
		return pgerr.New(pgerr.ErrorInAssignment, "variable %q is declared CONSTANT", dt.name)
	}
	if dt.record && (d.Kind == exec.KindRecord || d.IsNull()) {
		fr.assignRecord(dno, d)
		return nil
	}
	t, err := fr.typeOf(dno)
	if err != nil {
		return err
	}
	if t.OID == 0 {
		t = from
	}
	conv, err := fr.convert(d, from, t)
	if err != nil {
		return err
	}
	if dt.notNull && conv.IsNull() {
		return pgerr.New(pgerr.NullValueNotAllowed, "null value cannot be assigned to variable %q declared NOT NULL", dt.name)
	}
	if err := fr.checkDomain(dno, conv); err != nil {
		return err
	}
	fr.vals[dno] = value{d: conv, t: t}
	return nil
}

// checkDomain checks a value for variable dno against the constraints of
// the domain it was declared with, if any.
func (fr *frame) checkDomain(dno int, v exec.Datum) error {
	d := fr.f.datums[dno]
	if !d.checkKnown {
		if d.typName != "" && !d.record && !strings.HasSuffix(strings.ToLower(d.typName), "%type") {
			check, err := fr.h.DomainCheck(d.typName)
			if err != nil {
				return err
			}
			d.check = check
		}
		d.checkKnown = true
	}
	if d.check == nil {
		return nil
	}
	return d.check(fr.call.Env, v)
}

// assignRecord stores a record value (r := NEW, or NULL) in record
// variable dno: its fields become the variable's.
func (fr *frame) assignRecord(dno int, d exec.Datum) {
	v := &fr.vals[dno]
	if d.IsNull() {
		v.row = nil // the variable keeps its fields, as NULL
		return
	}
	r := d.Record()
	cols := make([]exec.ResultColumn, len(r.Fields))
	for i := range cols {
		cols[i] = exec.ResultColumn{Name: "f" + strconv.Itoa(i+1), T: exec.TText}
		if i < len(r.Types) {
			cols[i].T = r.Types[i]
		}
		if i < len(r.Names) {
			cols[i].Name = r.Names[i]
		}
	}
	*v = value{cols: cols, row: slices.Clone(r.Fields)}
}

// assignField stores a value in field of record variable dno.
func (fr *frame) assignField(dno int, field string, d exec.Datum, from exec.T) error {
	v := &fr.vals[dno]
	if v.cols == nil {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "record %q is not assigned yet", fr.f.datums[dno].name).
			WithDetail("The tuple structure of a not-yet-assigned record is indeterminate.")
	}
	for i, c := range v.cols {
		if c.Name == field {
			conv, err := fr.convert(d, from, c.T)
			if err != nil {
				return err
			}
			if v.row == nil {
				v.row = make(exec.Row, len(v.cols))
			}
			v.row[i] = conv
			return nil
		}
	}
	return pgerr.New(pgerr.UndefinedColumn, "record %q has no field %q", fr.f.datums[dno].name, field)
}

// assignRow stores a result row in targets: one record variable takes it
// whole, a list of variables takes it column by column.
func (fr *frame) assignRow(targets []int, cols []exec.ResultColumn, row exec.Row) error {
	if len(targets) == 1 && fr.f.datums[targets[0]].record {
		if fr.f.datums[targets[0]].rowType != "" {
			if err := fr.checkMultiAssign(len(cols), len(fr.vals[targets[0]].cols)); err != nil {
				return err
			}
			return fr.assignRowType(targets[0], cols, row)
		}
		fr.vals[targets[0]] = value{cols: cols, row: slices.Clone(row)}
		return nil
	}
	if err := fr.checkMultiAssign(len(cols), len(targets)); err != nil {
		return err
	}
	for i, dno := range targets {
		d, t := exec.Null, exec.TText
		if i < len(cols) {
			t = cols[i].T
			if row != nil {
				d = row[i]
			}
		}
		if err := fr.assign(dno, d, t); err != nil {
			return err
		}
	}
	return nil
}

// checkMultiAssign is the strict_multi_assignment extra check of an
// assignment of n columns to a target of fields fields.
func (fr *frame) checkMultiAssign(n, fields int) error {
	if n == fields {
		return nil
	}
	level := ExtraCheck(fr.h.Setting, CheckStrictMultiAssign)
	if level == "" {
		return nil
	}
	param := "extra_warnings"
	if level == "ERROR" {
		param = "extra_errors"
	}
	return fr.extraCheckFailed(level, pgerr.New(pgerr.DatatypeMismatch, "number of source and target fields in assignment does not match").
		WithDetail("%s check of %s is active.", CheckStrictMultiAssign, param).
		WithHint("Make sure the query returns the exact list of columns."))
}

// assignRowType stores a result row in a %ROWTYPE variable: its fields
// keep their names and types and take the row's columns by position, as
// PostgreSQL's SELECT ... INTO does (columns past the fields are ignored,
// fields past the columns become NULL).
func (fr *frame) assignRowType(dno int, cols []exec.ResultColumn, row exec.Row) error {
	v := &fr.vals[dno]
	next := make(exec.Row, len(v.cols))
	if row == nil {
		v.row = next // no row: every field NULL
		return nil
	}
	for i, c := range v.cols {
		if i >= len(row) || i >= len(cols) {
			break
		}
		d, err := fr.convert(row[i], cols[i].T, c.T)
		if err != nil {
			return err
		}
		next[i] = d
	}
	v.row = next
	return nil
}

func (fr *frame) setFound(b bool) {
	if fr.f.found >= 0 {
		fr.vals[fr.f.found].d = exec.DBool(b)
	}
}

// bindArg gives argument variable dno its value d, of type t: a record
// variable (a composite argument) its fields.
func (fr *frame) bindArg(dno int, t exec.T, d exec.Datum) {
	if !fr.f.datums[dno].record {
		fr.vals[dno].d = d
		return
	}
	cols, ok := fr.h.Fields(t.OID)
	if !ok {
		fr.vals[dno].d = d
		return
	}
	v := value{cols: cols}
	if !d.IsNull() {
		v.row = slices.Clone(d.Record().Fields)
	}
	fr.vals[dno] = v
}

// needsReturn reports whether a call of f must end with RETURN: one that
// returns a value, not through OUT parameters, RETURN NEXT or QUERY.
func (f *Function) needsReturn() bool {
	s := f.sig
	return !s.Procedure && !s.ReturnsSet && len(f.outs) == 0 && s.Returns.OID != exec.OIDVoid && s.Returns.OID != 0
}
