package planner

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/planner/plpgsql"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Running user-defined functions. A routine is a function's record
// compiled: a LANGUAGE sql body's statements, or a PL/pgSQL function
// (package plpgsql). The session keeps routines by their record, so every
// plan calling a function, and every level of a recursive call, shares
// one, and with it the plans of its statements (bodyStmt), made when a
// statement first runs and remade only when the tables they read change.

// maxCallDepth bounds nested calls of user functions: PostgreSQL's
// max_stack_depth, counted in calls, so that endless recursion fails
// with 54001 instead of exhausting memory.
const maxCallDepth = 400

type routine struct {
	def *sqldef.Function
	sig *plpgsql.Signature
	pl  *plpgsql.Function // LANGUAGE plpgsql
	sql []*bodyStmt       // LANGUAGE sql
	// cols are the result's columns: a set's, or the OUT arguments'.
	cols []exec.ResultColumn
}

// routineOf returns the compiled form of def, compiling it the first time.
func routineOf(s Session, def *sqldef.Function) (*routine, error) {
	return routineFor(s, def, nil, "")
}

// routineFor returns the compiled form of def for a call whose inputs
// have the types actual: a polymorphic function is compiled once per
// set of actual types (its specialization), so that the plans of its
// body are made for them, as PostgreSQL caches a function's plans by
// its call's actual argument types. variant, when not empty, names
// another specialization: a trigger function's plans are made for the
// columns of the transition tables it reads (transition.go).
func routineFor(s Session, def *sqldef.Function, actual []exec.T, variant string) (*routine, error) {
	declared := def
	if in := def.InputTypes(); exec.HasPolymorphic(in) && len(actual) == len(in) {
		def = Specialize(s.Settings(), def, actual)
	}
	key, err := json.Marshal(def)
	if err != nil {
		return nil, err
	}
	key = append(key, variant...)
	state := s.PlannerState()
	if r, ok := state.routines[string(key)]; ok {
		return r, nil
	}
	r, err := compileRoutine(s, def, declared)
	if err != nil {
		return nil, err
	}
	if state.routines == nil {
		state.routines = map[string]*routine{}
	}
	state.routines[string(key)] = r
	return r, nil
}

// Specialize returns polymorphic function def with the types of a call:
// its inputs of types actual, its polymorphic OUT arguments and result
// of the types these make them.
// Settings st find the subtypes of user range types.
func Specialize(st *exec.Settings, def *sqldef.Function, actual []exec.T) *sqldef.Function {
	params := def.InputTypes()
	out := *def
	out.Args = slices.Clone(def.Args)
	k := 0
	for i, arg := range def.Args {
		if arg.IsInput() {
			out.Args[i].Type = actual[k].OID
			k++
			continue
		}
		out.Args[i].Type = exec.PolyTypeIn(st, arg.Type, params, actual).OID
	}
	out.Returns = exec.PolyTypeIn(st, def.Returns, params, actual).OID
	return &out
}

// compileRoutine compiles def, which is declared, or declared's
// specialization for a call's types.
func compileRoutine(s Session, def, declared *sqldef.Function) (*routine, error) {
	r := &routine{def: def, sig: signatureOf(def)}
	if def != declared {
		for _, t := range declared.InputTypes() {
			r.sig.Declared = append(r.sig.Declared, exec.T{OID: t, Typmod: -1})
		}
	}
	r.sig.Composite = func(name string) bool { return isCompositeType(s, name) }
	r.cols = resultColumns(def)
	switch def.Language {
	case "plpgsql":
		pl, err := plpgsql.Compile(r.sig)
		if err != nil {
			return nil, err
		}
		r.pl = pl
	case "sql":
		tree, err := pg.Parse(def.Body)
		if err != nil {
			return nil, SyntaxError(err)
		}
		for _, raw := range tree.Stmts {
			r.sql = append(r.sql, &bodyStmt{s: s, node: raw.Stmt})
		}
	default:
		return nil, pgerr.New(pgerr.UndefinedObject, "language %q does not exist", def.Language)
	}
	return r, nil
}

func signatureOf(def *sqldef.Function) *plpgsql.Signature {
	sig := &plpgsql.Signature{Name: def.Name, Returns: exec.T{OID: def.Returns, Typmod: -1}, ReturnsSet: def.ReturnsSet, Procedure: def.Kind == 'p', Body: def.Body,
		Inline: def.Schema == "" && def.Name == inlineCodeBlock}
	for _, a := range def.Args {
		sig.Args = append(sig.Args, plpgsql.Arg{Name: a.Name, T: exec.T{OID: a.Type, Typmod: -1}, Mode: a.Mode})
	}
	return sig
}

// resultColumns are the columns of a function's rows: its OUT arguments,
// or one column named after the function.
func resultColumns(def *sqldef.Function) []exec.ResultColumn {
	var cols []exec.ResultColumn
	for _, a := range def.Args {
		if a.IsOutput() {
			name := a.Name
			if name == "" {
				name = "column" + strconv.Itoa(len(cols)+1) // numbered among the outputs, as PostgreSQL's
			}
			cols = append(cols, exec.ResultColumn{Name: name, T: exec.T{OID: a.Type, Typmod: -1}})
		}
	}
	if len(cols) == 0 {
		cols = []exec.ResultColumn{{Name: def.Name, T: exec.T{OID: def.Returns, Typmod: -1}}}
	}
	return cols
}

// callRoutine runs a routine: its outcome, a scalar, a row or rows.
func callRoutine(s Session, env *exec.Env, r *routine, args []exec.Datum, td *plpgsql.TriggerData) (*plpgsql.Outcome, error) {
	state := s.PlannerState()
	if state.callDepth >= maxCallDepth {
		return nil, pgerr.New(pgerr.StatementTooComplex, "stack depth limit exceeded").
			WithHint("Increase the configuration parameter \"max_stack_depth\" (currently 2048kB), after ensuring the platform's stack depth limit is adequate.")
	}
	state.callDepth++
	defer func() { state.callDepth-- }()
	if r.def.SecurityDefiner {
		defer s.RunAs(OwnerOf(r.def.Owner))()
	}
	args = slices.Clone(args) // the caller's argument buffer is reused
	if r.pl != nil {
		out, err := r.pl.Run(&plpgsql.Call{Env: env, Host: &host{s: s, env: env}, Args: args, Trigger: td})
		if err == nil && out != nil && r.def.ReturnsSet {
			packRowsOf(env, r.def, out.Rows)
		}
		return out, err
	}
	return callSQL(env, r, args)
}

// callSQL runs a LANGUAGE sql body: every statement, the last one's rows
// are the result.
func callSQL(env *exec.Env, r *routine, args []exec.Datum) (*plpgsql.Outcome, error) {
	vars := &sqlArgs{r: r, args: args}
	given := vars.types()
	var last *plpgsql.Result
	for _, st := range r.sql {
		st.given = given
		res, err := st.Run(env, args, vars)
		if err != nil {
			return nil, withFunctionContext(err, r.def)
		}
		last = res
	}
	out := &plpgsql.Outcome{Value: exec.Null}
	if r.def.Kind == 'p' {
		return procedureOutcome(env, r, last)
	}
	if last == nil || r.def.Returns == exec.OIDVoid {
		return out, nil
	}
	if err := packComposite(env, r.def, last); err != nil {
		return nil, withFunctionContext(err, r.def)
	}
	if err := unpackOutRow(r.def, last); err != nil {
		return nil, err
	}
	if r.def.ReturnsSet {
		out.Rows = last.Rows
		return out, nil
	}
	if len(last.Rows) == 0 {
		return out, nil
	}
	out.Row = last.Rows[0]
	if len(last.Rows[0]) > 0 {
		d, err := convert(env, last.Rows[0][0], last.Cols[0].T, exec.T{OID: r.def.Returns, Typmod: -1})
		if err != nil {
			return nil, err
		}
		out.Value = d
	}
	return out, nil
}

// procedureOutcome is what a SQL procedure returns: the values of its OUT
// and INOUT arguments, the first row of its last statement, each column
// converted to its argument's type as PostgreSQL coerces a body's
// result; NULLs when that statement returns no row.
func procedureOutcome(env *exec.Env, r *routine, last *plpgsql.Result) (*plpgsql.Outcome, error) {
	out := &plpgsql.Outcome{Value: exec.Null}
	if !slices.ContainsFunc(r.def.Args, sqldef.FuncArg.IsOutput) || last == nil || len(last.Rows) == 0 {
		return out, nil
	}
	row := last.Rows[0]
	if len(row) != len(r.cols) {
		return nil, withFunctionContext(pgerr.New(pgerr.InvalidFunctionDefinition, "return type mismatch in function declared to return record").
			WithDetail("Final statement returns %d columns, but the procedure has %d output arguments.", len(row), len(r.cols)), r.def)
	}
	out.Row = make(exec.Row, len(row))
	for i, d := range row {
		conv, err := convert(env, d, last.Cols[i].T, r.cols[i].T)
		if err != nil && exec.KindOf(last.Cols[i].T.OID) == exec.KindRecord {
			conv, err = d, nil // ROW(...) for a composite argument
		}
		if err != nil {
			return nil, withFunctionContext(err, r.def)
		}
		out.Row[i] = conv
	}
	return out, nil
}

// packComposite makes each row of res, the last statement's result of a
// function declared to return a composite type or record (RETURNS tt,
// SETOF tt, SETOF record, tt a table's row type or CREATE TYPE ... AS),
// one value of that type, as PostgreSQL does with a body like SELECT *
// FROM tt: its columns become the fields, converted to the fields' types
// (a record keeps the columns' types). A body that already yields one
// composite column is left alone.
func packComposite(env *exec.Env, def *sqldef.Function, res *plpgsql.Result) error {
	t := exec.T{OID: def.Returns, Typmod: -1}
	if exec.KindOf(t.OID) != exec.KindRecord || len(resultColumns(def)) > 1 {
		return nil
	}
	if len(res.Cols) == 1 && (res.Cols[0].T.OID == t.OID || t.OID == exec.OIDRecord && exec.KindOf(res.Cols[0].T.OID) == exec.KindRecord) {
		return nil
	}
	var ftypes []exec.T
	var names []string
	if t.OID == exec.OIDRecord {
		for _, c := range res.Cols {
			ftypes, names = append(ftypes, c.T), append(names, c.Name)
		}
	} else {
		var ok bool
		if ftypes, names, ok = compositeFields(env, t.OID); !ok {
			return nil
		}
		if len(res.Cols) != len(ftypes) {
			much := "few"
			if len(res.Cols) > len(ftypes) {
				much = "many"
			}
			return pgerr.New(pgerr.InvalidFunctionDefinition, "return type mismatch in function declared to return %s", exec.TypeName(t.OID)).
				WithDetail("Final statement returns too %s columns.", much)
		}
	}
	for i, row := range res.Rows {
		fields := make([]exec.Datum, len(ftypes))
		for j := range ftypes {
			d, err := convert(env, row[j], res.Cols[j].T, ftypes[j])
			if err != nil {
				return err
			}
			fields[j] = d
		}
		res.Rows[i] = exec.Row{exec.DRecord(&exec.Record{Type: t.OID, Fields: fields, Types: ftypes, Names: names})}
	}
	res.Cols = []exec.ResultColumn{{Name: def.Name, T: t}}
	return nil
}

// unpackOutRow gives a function with several OUT arguments whose last
// statement yields one row value (SELECT (1, 2.1)) that value's fields as
// its columns. As in PostgreSQL, the fields must match the OUT arguments
// in number and type exactly (42804), since nothing is converted.
func unpackOutRow(def *sqldef.Function, res *plpgsql.Result) error {
	outs := resultColumns(def)
	if len(outs) < 2 || len(res.Cols) != 1 || exec.KindOf(res.Cols[0].T.OID) != exec.KindRecord {
		return nil
	}
	mismatch := func() *pgerr.Error {
		return pgerr.New(pgerr.DatatypeMismatch, "function return row and query-specified return row do not match")
	}
	for i, row := range res.Rows {
		if row[0].IsNull() {
			res.Rows[i] = make(exec.Row, len(outs))
			continue
		}
		rec, ok := row[0].X.(*exec.Record)
		if !ok {
			return mismatch()
		}
		if len(rec.Fields) != len(outs) {
			return mismatch().WithDetail("Returned row contains %d attributes, but query expects %d.", len(rec.Fields), len(outs))
		}
		for j, c := range outs {
			if j < len(rec.Types) && rec.Types[j].OID != c.T.OID {
				return mismatch().WithDetail("Returned type %s at ordinal position %d, but query expects %s.", exec.TypeName(rec.Types[j].OID), j+1, exec.TypeName(c.T.OID))
			}
		}
		res.Rows[i] = slices.Clone(rec.Fields)
	}
	res.Cols = outs
	return nil
}

// packRowsOf makes each row of a PL/pgSQL set-returning function declared
// to return a composite type (RETURNS SETOF tt) that RETURN NEXT or RETURN
// QUERY gave as its fields one value of that type, as packComposite does
// for SQL functions.
func packRowsOf(env *exec.Env, def *sqldef.Function, rows []exec.Row) {
	if exec.KindOf(def.Returns) != exec.KindRecord || def.Returns == exec.OIDRecord || len(resultColumns(def)) > 1 {
		return
	}
	ftypes, names, ok := compositeFields(env, def.Returns)
	if !ok {
		return
	}
	for i, row := range rows {
		if len(row) != len(ftypes) || len(row) == 1 && row[0].Kind == exec.KindRecord {
			continue
		}
		rows[i] = exec.Row{exec.DRecord(&exec.Record{Type: def.Returns, Fields: row, Types: ftypes, Names: names})}
	}
}

// compositeFields returns the field types and names of composite type
// oid, from the session's type catalog, which env's settings carry.
func compositeFields(env *exec.Env, oid uint32) (ftypes []exec.T, names []string, ok bool) {
	if env == nil || env.Settings == nil || env.Settings.Types == nil {
		return nil, nil, false
	}
	ut, ok := env.Settings.Types.UserType(types.Oid(oid))
	if !ok {
		return nil, nil, false
	}
	for i, ft := range ut.FieldTypes {
		ftypes = append(ftypes, exec.T{OID: uint32(ft), Typmod: ut.FieldTypmods[i]})
	}
	return ftypes, ut.FieldNames, true
}

func withFunctionContext(err error, def *sqldef.Function) error {
	if pe, ok := err.(*pgerr.Error); ok {
		line := "SQL function \"" + def.Name + "\" statement 1"
		if pe.Context == "" {
			pe.Context = line
		}
	}
	return err
}

// convert casts d to t as an assignment does.
func convert(env *exec.Env, d exec.Datum, from, to exec.T) (exec.Datum, error) {
	if d.IsNull() || to.OID == exec.OIDRecord || to.OID == exec.OIDVoid {
		return d, nil
	}
	if from.OID == to.OID {
		if to.Typmod < 0 || from.Typmod == to.Typmod {
			return d, nil
		}
		return exec.ApplyTypmod(to, d, false) // numeric(35,6) of a field, say
	}
	fn := exec.CastFn(from, to, false)
	if fn == nil {
		return exec.Null, pgerr.New(pgerr.DatatypeMismatch, "return type mismatch in function declared to return %s", exec.TypeName(to.OID))
	}
	return fn(env, []exec.Datum{d})
}

// sqlArgs are a LANGUAGE sql function's named arguments, as variables.
type sqlArgs struct {
	r    *routine
	args []exec.Datum
}

func (v *sqlArgs) types() []exec.T {
	var out []exec.T
	for _, a := range v.r.def.Args {
		if a.IsInput() {
			out = append(out, exec.T{OID: a.Type, Typmod: -1})
		}
	}
	return out
}

// Record implements plpgsql.Vars: an SQL function's arguments are not
// record variables.
func (v *sqlArgs) Record(string) ([]exec.ResultColumn, bool) { return nil, false }

func (v *sqlArgs) Lookup(qualifier, name string) (int, exec.T, bool) {
	if qualifier != "" && qualifier != v.r.def.Name {
		return 0, exec.T{}, false
	}
	i := 0
	for _, a := range v.r.def.Args {
		if !a.IsInput() {
			continue
		}
		if a.Name == name {
			return i, exec.T{OID: a.Type, Typmod: -1}, true
		}
		i++
	}
	return 0, exec.T{}, false
}

func (v *sqlArgs) Value(ref int) (exec.Datum, exec.T) {
	return v.args[ref], v.types()[ref]
}

// host is the planner as the PL/pgSQL interpreter's Host, for one call.
type host struct {
	s   Session
	env *exec.Env
}

// QueryRows runs one SQL statement given as text to a built-in function
// (ts_rewrite's and ts_stat's queries) in the calling statement's
// transaction, as PL/pgSQL runs its statements, and returns its rows.
func QueryRows(s Session, env *exec.Env, sql string) ([]exec.ResultColumn, []exec.Row, error) {
	p, err := (&host{s: s, env: env}).Prepare(sql, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	r, err := p.Run(env, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	return r.Cols, r.Rows, nil
}

func (h *host) Prepare(sql string, given []exec.T, vars plpgsql.Vars) (plpgsql.Prepared, error) {
	tree, err := pg.Parse(sql)
	if err != nil {
		return nil, SyntaxError(err)
	}
	if len(tree.Stmts) != 1 {
		return nil, pgerr.New(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	return &bodyStmt{s: h.s, node: tree.Stmts[0].Stmt, given: given}, nil
}

func (h *host) Type(name string) (exec.T, error) {
	lower := strings.ToLower(name)
	if strings.HasSuffix(lower, "%type") {
		return h.columnType(strings.TrimSuffix(lower, "%type"))
	}
	tree, err := pg.Parse("SELECT NULL::" + name)
	if err != nil {
		return exec.T{}, SyntaxError(err)
	}
	tc := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val.GetTypeCast()
	a := &analyzer{ctx: h.env.Ctx, s: h.s, tx: h.env.Txn}
	t, _, err := a.resolveType(tc.TypeName) // built-in and user types
	return t, err
}

func (h *host) DomainCheck(name string) (func(*exec.Env, exec.Datum) error, error) {
	tree, err := pg.Parse("SELECT NULL::" + name)
	if err != nil {
		return nil, SyntaxError(err)
	}
	tc := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val.GetTypeCast()
	a := &analyzer{ctx: h.env.Ctx, s: h.s, tx: h.env.Txn}
	t, dom, _, err := a.resolveTypeDomain(tc.TypeName)
	if err != nil || dom == nil {
		return nil, err
	}
	in := &exec.Param{Idx: 0, T: t}
	check, err := a.domainCheck(in, dom)
	if err != nil || check == exec.Expr(in) {
		return nil, err
	}
	return func(env *exec.Env, v exec.Datum) error {
		cenv := *env
		cenv.Params = []exec.Datum{v}
		_, err := check.Eval(&cenv, nil)
		return err
	}, nil
}

func (h *host) RowType(name string) ([]exec.ResultColumn, error) {
	schema, table := "", name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		schema, table = name[:i], name[i+1:]
	}
	a := &analyzer{ctx: h.env.Ctx, s: h.s, tx: h.s.Txn()}
	t, ok, err := a.lookupTable(h.env.Ctx, strings.ToLower(schema), strings.ToLower(table))
	if err != nil {
		return nil, err
	}
	if !ok {
		// A composite type's fields.
		if ut, err := a.lookupType(h.env.Ctx, strings.ToLower(schema), strings.ToLower(table)); err != nil || ut != nil && ut.Kind == 'c' {
			var cols []exec.ResultColumn
			if ut != nil {
				for _, f := range ut.Fields {
					cols = append(cols, exec.ResultColumn{Name: f.Name, T: exec.T{OID: f.Type, Typmod: f.Typmod}})
				}
			}
			return cols, err
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "relation %q does not exist", name)
	}
	var cols []exec.ResultColumn
	for _, c := range t.Cols {
		if !c.Dropped {
			cols = append(cols, exec.ResultColumn{Name: c.Name, T: c.Type})
		}
	}
	return cols, nil
}

// columnType resolves table.column%TYPE.
func (h *host) columnType(ref string) (exec.T, error) {
	parts := strings.Split(strings.TrimSpace(ref), ".")
	if len(parts) < 2 {
		return exec.T{}, pgerr.New(pgerr.SyntaxError, "invalid type name %q", ref+"%TYPE")
	}
	schema, table, col := "", parts[len(parts)-2], parts[len(parts)-1]
	if len(parts) == 3 {
		schema = parts[0]
	}
	a := &analyzer{ctx: h.env.Ctx, s: h.s, tx: h.s.Txn()}
	t, ok, err := a.lookupTable(h.env.Ctx, schema, table)
	if err != nil {
		return exec.T{}, err
	}
	if ok {
		for _, c := range t.Cols {
			if !c.Dropped && c.Name == col {
				return c.Type, nil
			}
		}
	}
	return exec.T{}, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", ref+"%TYPE")
}

func (h *host) Notice(err *pgerr.Error) { h.s.Notice(err) }

func (h *host) Setting(name string) string { return h.s.Var(name) }

func (h *host) Fields(oid uint32) ([]exec.ResultColumn, bool) {
	if h.s.Txn() == nil {
		return nil, false
	}
	ut, err := typeByOID(h.env.Ctx, h.s.Txn().Catalog(), oid)
	if err != nil || ut == nil || ut.Kind != 'c' {
		return nil, false
	}
	cols := make([]exec.ResultColumn, len(ut.Fields))
	for i, f := range ut.Fields {
		cols[i] = exec.ResultColumn{Name: f.Name, T: exec.T{OID: f.Type, Typmod: f.Typmod}}
	}
	return cols, true
}

func (h *host) Savepoint() func() error {
	return h.s.Savepoint(h.env.Ctx)
}

// bodyStmt is a statement of a function's body, analyzed when it first
// runs and again only when the tables it read or the types of the
// variables it reads changed.
type bodyStmt struct {
	s     Session
	node  *pg.Node
	given []exec.T
	an    *Analysis
	// ver is the catalog the statement was analyzed against.
	ver  exec.CatalogVersion
	vars *varScope
}

func (b *bodyStmt) Run(env *exec.Env, given []exec.Datum, vars plpgsql.Vars) (*plpgsql.Result, error) {
	tx := b.s.Txn()
	if tx == nil {
		return nil, pgerr.New(pgerr.InternalError, "function body run outside a transaction")
	}
	if !b.reusable(env.Ctx, tx, vars) {
		if err := b.analyze(env.Ctx, tx, vars); err != nil {
			return nil, err
		}
	}
	an := b.an
	if an.Copy != nil {
		b.an = nil
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY is not supported in functions")
	}
	if an.Run != nil {
		b.an = nil // a utility's closure is good for one run
		tag, err := an.Run(env.Ctx)
		return &plpgsql.Result{Tag: tag}, err
	}
	params := slices.Clone(given)
	if b.vars != nil {
		for _, ref := range b.vars.refs {
			d, _ := vars.Value(ref)
			params = append(params, d)
		}
	}
	inner := &exec.Env{Ctx: env.Ctx, Params: params, Settings: b.s.Settings(), TxnStart: tx.StartTime, Txn: tx, Session: b.s}
	rows, err := an.Plan.Open(inner)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	res := &plpgsql.Result{Cols: an.Cols, Tag: an.Tag, CallOutputs: an.CallOutputs}
	for {
		row, err := rows.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			break
		}
		res.Rows = append(res.Rows, slices.Clone(row))
	}
	res.Affected = int64(len(res.Rows))
	if c, ok := rows.(exec.CountedRows); ok {
		res.Affected = c.Affected()
	}
	return res, rows.Close()
}

// reusable reports whether the last analysis still holds: the same
// tables' definitions and the same variable types.
func (b *bodyStmt) reusable(ctx context.Context, tx *exec.Txn, vars plpgsql.Vars) bool {
	an := b.an
	if an == nil || an.Gen != b.s.PlanGeneration() {
		return false
	}
	if b.vars != nil {
		// Each name must still find the same variable, of the same type:
		// a trigger function's NEW.col is another field of NEW for a
		// table of another layout (partitions, or another table's
		// trigger), and a record variable assigned a row of another
		// shape has other fields.
		for i, ref := range b.vars.refs {
			n := b.vars.names[i]
			if r, t, ok := vars.Lookup(n[0], n[1]); !ok || r != ref || t != b.vars.types[i] {
				return false
			}
		}
	}
	switch {
	case b.ver == tx.CatalogVersion():
		return true
	case an.Plan == nil:
		return false
	}
	return an.DepsHold(ctx, tx)
}

func (b *bodyStmt) analyze(ctx context.Context, tx *exec.Txn, vars plpgsql.Vars) error {
	a := &analyzer{ctx: ctx, s: b.s, tx: tx, params: slices.Clone(b.given)}
	b.vars = nil
	if vars != nil {
		b.vars = &varScope{vars: vars, base: len(b.given), index: map[int]int{}}
		a.vars = b.vars
	}
	an, err := analyzeWith(a, b.node)
	if err != nil {
		return err
	}
	b.an, b.ver = an, tx.CatalogVersion()
	return nil
}

// varScope resolves the names of a function body's statement that are
// no column to the routine's variables, each a parameter after the
// statement's own $1..$n.
type varScope struct {
	vars  plpgsql.Vars
	base  int
	refs  []int
	types []exec.T
	names [][2]string // the qualifier and name each ref was found by
	index map[int]int
}

func (v *varScope) param(a *analyzer, qualifier, name string) (exec.Expr, bool) {
	ref, t, ok := v.vars.Lookup(qualifier, name)
	if !ok {
		return nil, false
	}
	idx, seen := v.index[ref]
	if !seen {
		idx = v.base + len(v.refs)
		v.refs = append(v.refs, ref)
		v.names = append(v.names, [2]string{qualifier, name})
		v.types = append(v.types, t)
		v.names = append(v.names, [2]string{qualifier, name})
		v.index[ref] = idx
	}
	pt := t
	if pt.OID == 0 {
		pt = exec.TText
	}
	for len(a.params) <= idx {
		a.params = append(a.params, exec.TUnknown)
	}
	a.params[idx] = pt
	return &exec.Param{Idx: idx, T: pt}, true
}

// isCompositeType reports whether name (possibly schema-qualified) is a
// composite type of the session's transaction, or a table's row type.
func isCompositeType(s Session, name string) bool {
	tx := s.Txn()
	if tx == nil {
		return false
	}
	schema, typ := "", name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		schema, typ = name[:i], name[i+1:]
	}
	a := &analyzer{ctx: context.Background(), s: s, tx: tx}
	ut, err := a.lookupType(a.ctx, strings.ToLower(schema), strings.ToLower(typ))
	if err == nil && ut != nil {
		return ut.Kind == 'c'
	}
	// A table's name is its row type.
	rel, _, err := a.lookupRelation(a.ctx, strings.ToLower(schema), strings.ToLower(typ))
	return err == nil && rel.Kind == RelTable
}
