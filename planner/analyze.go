package planner

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"
	pgparser "github.com/pganalyze/pg_query_go/v5/parser"
	"google.golang.org/protobuf/proto"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Analysis is a statement analyzed against the current catalog: a plan, or
// a utility to run.
type Analysis struct {
	// Gen is the session's name-resolution generation the analysis was
	// made in: a new temporary relation or search path resolves names
	// differently, so plans of an older one are made again.
	Gen uint64
	// One of Plan (a query or a statement writing rows), Run (a utility,
	// run once, in the transaction it was analyzed in: it holds it) and
	// Copy (a COPY's data transfer) is set.
	Plan exec.Plan
	Run  Utility
	Copy *Copy
	// Params are the parameters' types, given or inferred; Cols the
	// result's columns; Tag the command tag without the row count.
	Params []exec.T
	Tag    string
	Cols   []exec.ResultColumn
	// CallOutputs are, for a CALL, the positions in the call as written
	// of the arguments of the procedure's OUT and INOUT parameters, one
	// per column: PL/pgSQL assigns the columns to them.
	CallOutputs []int
	// Deps are the definitions of the tables the statement uses: the
	// plan holds while they are unchanged (DepsHold).
	Deps []*sqldef.Table
	// held are, by position in Deps, the definition bytes of a record of
	// the table the dependency was found to hold for
	// (exec.Txn.TableDefinition), or nil: a later record with the same
	// bytes needs no comparison of decoded definitions. Rows committed to
	// a table change its record but not those bytes. heldMu guards it: a
	// cached analysis may be checked by more than one statement.
	held   [][]byte
	heldMu sync.Mutex
	// kin are the children the tables read had: a new child (or one
	// fewer) changes what a scan of its parent reads.
	kin []kinDep
	// funcs are the user functions the calls were resolved among: a
	// plan holds the bodies it calls, so a changed one is planned again.
	funcs []funcDep
	// Auth is the authority the statement's privileges were checked
	// with; zero when none were checked.
	Auth AuthKey
}

// ParamTypes turns the parameter type OIDs of a Parse message into the
// analyzer's starting types. OID 0 (what psycopg 3 and others send for
// text and NULL) and the unknown type both leave the parameter to be
// inferred from its context, as PostgreSQL does.
func ParamTypes(given []uint32) []exec.T {
	out := make([]exec.T, len(given))
	for i, oid := range given {
		if oid == 0 {
			oid = exec.OIDUnknown
		}
		out[i] = exec.T{OID: oid, Typmod: -1}
	}
	return out
}

// DepsHold reports whether what the analysis depended on is unchanged in
// tx: the definitions of the tables it uses (triggers included), their
// children, and the user functions its calls were resolved among.
func (an *Analysis) DepsHold(ctx context.Context, tx *exec.Txn) bool {
	for i, def := range an.Deps {
		t, ok, err := tx.Table(ctx, def.Schema, def.Name)
		if err != nil || !ok {
			return false
		}
		if t.Def == def {
			continue
		}
		d, err := tx.TableDefinition(ctx, def.Schema, def.Name)
		if err != nil {
			return false
		}
		an.heldMu.Lock()
		held := an.held != nil && d != nil && bytes.Equal(an.held[i], d)
		an.heldMu.Unlock()
		if held {
			continue
		}
		if !sqldef.SameDefinition(t.Def, def) {
			return false
		}
		an.heldMu.Lock()
		if an.held == nil {
			an.held = make([][]byte, len(an.Deps))
		}
		an.held[i] = bytes.Clone(d)
		an.heldMu.Unlock()
	}
	for _, k := range an.kin {
		children, err := tx.Catalog().Children(ctx, k.parent.Schema, k.parent.Name)
		if err != nil || !slices.Equal(children, k.children) {
			return false
		}
	}
	for _, f := range an.funcs {
		if !f.holds(ctx, tx.Catalog()) {
			return false
		}
	}
	return true
}

// rowStatement reports whether n is a query or a row change, which reads
// and writes rows through the transaction's tables and so may leave its
// changes deferred (exec/txndefer.go); any other statement begins with
// the deferred changes written.
func rowStatement(n *pg.Node) bool {
	switch {
	case n.GetSelectStmt() != nil:
		return n.GetSelectStmt().IntoClause == nil
	case n.GetInsertStmt() != nil, n.GetUpdateStmt() != nil, n.GetDeleteStmt() != nil:
		return true
	}
	return false
}

// Analyze plans a statement for session s in transaction tx; text is
// its SQL text as the client sent it (CREATE VIEW keeps it), "" for a
// statement the client did not send as such (a cursor's query).
func Analyze(ctx context.Context, s Session, tx *exec.Txn, n *pg.Node, text string, given []uint32) (*Analysis, error) {
	return analyzeWith(&analyzer{ctx: ctx, s: s, tx: tx, params: ParamTypes(given), text: text}, n)
}

// analyzeWith plans a statement with an analyzer prepared by the caller
// (a function body's, whose names may be variables).
func analyzeWith(a *analyzer, n *pg.Node) (*Analysis, error) {
	ctx := a.ctx
	if a.tx != nil && !rowStatement(n) {
		if err := a.tx.WriteDeferred(ctx); err != nil {
			return nil, err
		}
	}
	an := &Analysis{Gen: a.s.PlanGeneration()}
	var err error
	switch {
	case n.GetSelectStmt() != nil && n.GetSelectStmt().IntoClause != nil:
		an.Run, _, err = a.s.AnalyzeDDL(&Analyzer{a}, n) // CREATE TABLE AS
	case n.GetSelectStmt() != nil:
		an.Plan, err = a.selectStmt(n.GetSelectStmt())
		an.Tag = "SELECT"
	case n.GetInsertStmt() != nil:
		an.Plan, err = a.insert(n.GetInsertStmt())
		an.Tag = "INSERT"
	case n.GetUpdateStmt() != nil:
		an.Plan, err = a.update(n.GetUpdateStmt())
		an.Tag = "UPDATE"
	case n.GetDeleteStmt() != nil:
		an.Plan, err = a.delete(n.GetDeleteStmt())
		an.Tag = "DELETE"
	case n.GetMergeStmt() != nil:
		an.Plan, err = a.merge(n.GetMergeStmt())
		an.Tag = "MERGE"
	case n.GetExplainStmt() != nil:
		return explain(ctx, a, n.GetExplainStmt())
	case n.GetCallStmt() != nil:
		an.Plan, an.CallOutputs, err = a.callStmt(n.GetCallStmt())
		an.Tag = "CALL"
	case n.GetCopyStmt() != nil:
		an.Copy, err = a.copyStmt(n.GetCopyStmt())
	case n.GetVacuumStmt() != nil:
		tag := "VACUUM"
		if !n.GetVacuumStmt().IsVacuumcmd {
			tag = "ANALYZE"
		}
		rels := n.GetVacuumStmt().Rels
		an.Run = func(ctx context.Context) (string, error) { return tag, a.checkVacuumRels(ctx, rels) }
	default:
		var ok bool
		if an.Run, ok, err = a.utilityStmt(n); !ok {
			// A catalog-changing statement: package ddl's, which the
			// session knows and this package cannot import.
			if an.Run, ok, err = a.s.AnalyzeDDL(&Analyzer{a}, n); !ok {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "statement not supported yet: %s", NodeName(n))
			}
		}
	}
	if err == nil {
		err = a.checkColumns() // colpriv.go
	}
	if err != nil {
		return nil, err
	}
	for i, t := range a.params {
		if t.OID == exec.OIDUnknown {
			a.params[i] = exec.TText
		}
	}
	an.Params = a.params
	an.Deps = a.deps
	an.kin = a.kin
	an.funcs = a.funcs
	an.Auth = a.auth
	if an.Plan != nil {
		an.Cols = an.Plan.Columns()
		if an.Cols == nil && an.Tag == "SELECT" {
			// A query of no columns (SELECT FROM t, or * of a table
			// whose columns are all dropped) still returns rows, which
			// a RowDescription of no fields precedes.
			an.Cols = []exec.ResultColumn{}
		}
	}
	return an, nil
}

// explain plans EXPLAIN: the inner statement's plan described as
// exec.Explain describes it, after running it for EXPLAIN ANALYZE.
func explain(ctx context.Context, a *analyzer, e *pg.ExplainStmt) (*Analysis, error) {
	opts := exec.ExplainOptions{Costs: true, Timing: true, Format: "text"}
	for _, o := range e.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		if d.Defname == "format" {
			f := strings.ToLower(DefText(d.Arg))
			switch f {
			case "text", "json":
				opts.Format = f
			case "xml", "yaml":
				return nil, pgerr.New(pgerr.FeatureNotSupported, "EXPLAIN format %q is not supported", f)
			default:
				return nil, WithPos(pgerr.New(pgerr.InvalidParameterValue, "unrecognized value for EXPLAIN option \"format\": \"%s\"", f), d.Location)
			}
			continue
		}
		on, err := DefBool(d)
		if err != nil {
			return nil, err
		}
		switch d.Defname {
		case "analyze":
			opts.Analyze = on
		case "verbose":
			opts.Verbose = on
		case "costs":
			opts.Costs = on
		case "timing":
			opts.Timing = on
		case "summary":
			opts.Summary = on
		case "buffers", "settings", "wal":
			// Accepted; there is nothing of them to show.
		default:
			return nil, WithPos(pgerr.New(pgerr.SyntaxError, "unrecognized EXPLAIN option \"%s\"", d.Defname), d.Location)
		}
	}
	if !opts.Analyze {
		opts.Timing = false
	}
	if opts.Analyze && !hasOption(e, "summary") {
		opts.Summary = true // ANALYZE shows the summary unless told not to
	}
	// CREATE TABLE AS and SELECT INTO: the plan of the query that fills
	// the table. (With ANALYZE PostgreSQL creates it; that is not
	// supported here.)
	query := e.Query
	switch {
	case opts.Analyze:
	case query.GetCreateTableAsStmt() != nil && query.GetCreateTableAsStmt().Query.GetSelectStmt() != nil:
		query = query.GetCreateTableAsStmt().Query
	case query.GetSelectStmt() != nil && query.GetSelectStmt().IntoClause != nil:
		sel := proto.Clone(query.GetSelectStmt()).(*pg.SelectStmt)
		sel.IntoClause = nil
		query = &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}
	}
	began := time.Now()
	inner, err := Analyze(ctx, a.s, a.tx, query, "", nil)
	if err != nil {
		return nil, err
	}
	opts.Planning = time.Since(began)
	col := []exec.ResultColumn{{Name: "QUERY PLAN", T: exec.TText}}
	if opts.Format == "json" {
		col[0].T = exec.TJSON
	}
	an := &Analysis{Tag: "EXPLAIN", Cols: col, Params: inner.Params}
	if inner.Plan == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "EXPLAIN of this statement is not supported")
	}
	an.Plan = &explainPlan{inner: inner.Plan, opts: opts, cols: col}
	return an, nil
}

// hasOption reports whether EXPLAIN names the option.
func hasOption(e *pg.ExplainStmt, name string) bool {
	for _, o := range e.Options {
		if d := o.GetDefElem(); d != nil && d.Defname == name {
			return true
		}
	}
	return false
}

// DefText is a definition or option value's text (DefElem.Arg): a
// name, string, number or Boolean; "" for none.
func DefText(n *pg.Node) string {
	switch {
	case n == nil:
		return ""
	case n.GetTypeName() != nil:
		return strings.Join(NameList(n.GetTypeName().Names), ".")
	case n.GetString_() != nil:
		return n.GetString_().Sval
	case n.GetInteger() != nil:
		return strconv.Itoa(int(n.GetInteger().Ival))
	case n.GetFloat() != nil:
		return n.GetFloat().Fval
	case n.GetBoolean() != nil:
		return strconv.FormatBool(n.GetBoolean().Boolval)
	}
	return ""
}

// DefBool is a Boolean definition or option value, as defGetBoolean
// reads it: none is true, as are true, on and 1, and false, off and 0
// are false; anything else is PostgreSQL's 42601.
func DefBool(de *pg.DefElem) (bool, error) {
	if de.Arg == nil {
		return true, nil
	}
	switch strings.ToLower(DefText(de.Arg)) {
	case "true", "on", "1":
		return true, nil
	case "false", "off", "0":
		return false, nil
	}
	return false, WithPos(pgerr.New(pgerr.SyntaxError, "%s requires a Boolean value", de.Defname), de.Location)
}

// explainPlan returns EXPLAIN's lines; with ANALYZE it first runs the
// explained plan to the end.
type explainPlan struct {
	inner exec.Plan
	opts  exec.ExplainOptions
	cols  []exec.ResultColumn
}

func (p *explainPlan) Columns() []exec.ResultColumn { return p.cols }

func (p *explainPlan) Open(env *exec.Env) (exec.Rows, error) {
	lines, err := exec.Explain(env, p.inner, p.opts)
	if err != nil {
		return nil, err
	}
	rows := make([][]exec.Expr, len(lines))
	for i, l := range lines {
		rows[i] = []exec.Expr{&exec.Const{D: exec.DText(l), T: p.cols[0].T}}
	}
	return (&exec.Values{Rows: rows, Cols: p.cols}).Open(env)
}

// SyntaxError converts the parser's error into PostgreSQL's.
func SyntaxError(err error) error {
	var pe *pgparser.Error
	if errors.As(err, &pe) {
		e := pgerr.New(pgerr.SyntaxError, "%s", pe.Message)
		e.Position = pe.Cursorpos
		return e
	}
	return pgerr.Wrap(err, pgerr.SyntaxError, "%v", err)
}

// InstallHooks gives tx the planner's side of what exec.Modify does as it
// writes: the defaults of ON ... SET DEFAULT, the triggers' functions, the
// stored generated columns of cascades and merges, and the entries of
// expression and partial indexes.
func InstallHooks(s Session, tx *exec.Txn) {
	tx.Defaults = func(ctx context.Context, t *exec.Table) ([]exec.Expr, error) {
		return (&analyzer{ctx: ctx, s: s, tx: tx}).defaults(t)
	}
	tx.FireTrigger = func(env *exec.Env, c *exec.TriggerCall) (exec.Row, error) {
		tx.TriggerDepth++
		defer func() { tx.TriggerDepth-- }()
		return fireTrigger(s, env, c)
	}
	tx.FireRule = func(env *exec.Env, c *exec.RuleCall) (exec.RuleResult, error) {
		return fireRule(s, env, c)
	}
	tx.Generated = func(ctx context.Context, t *exec.Table) (exec.GeneratedCols, error) {
		return (&analyzer{ctx: ctx, s: s, tx: tx}).generatedExprs(t)
	}
	tx.IndexEval = func(ctx context.Context, t *exec.Table, ix *sqldef.Index) (*exec.IndexEval, error) {
		return (&analyzer{ctx: ctx, s: s, tx: tx}).indexEval(t, ix)
	}
}

// EvalParams evaluates EXECUTE's parameter expressions in tx, each
// assigned to its prepared statement's parameter type.
func EvalParams(ctx context.Context, s Session, tx *exec.Txn, nodes []*pg.Node, types []exec.T) ([]exec.Datum, error) {
	a := &analyzer{ctx: ctx, s: s, tx: tx}
	env := &exec.Env{Ctx: ctx, Settings: s.Settings(), Txn: tx, Session: s}
	params := make([]exec.Datum, len(types))
	for i, n := range nodes {
		x, err := a.expr(n, nil)
		if err != nil {
			return nil, err
		}
		if x, err = a.assign(x, types[i], "$"+string(rune('1'+i)), -1); err != nil {
			return nil, err
		}
		if params[i], err = x.Eval(env, nil); err != nil {
			return nil, err
		}
	}
	return params, nil
}

// Utility is a statement that is not a plan (DDL, transaction control,
// SET): it runs once and returns its command tag.
type Utility func(ctx context.Context) (string, error)

// utilityStmt analyzes the utilities that change no catalog: LISTEN,
// UNLISTEN, NOTIFY, SET CONSTRAINTS, DO and LOCK; ok is false for
// another statement.
func (a *analyzer) utilityStmt(n *pg.Node) (run Utility, ok bool, err error) {
	if run, ok := a.notifyStmt(n); ok {
		return run, true, nil
	}
	switch {
	case n.GetConstraintsSetStmt() != nil:
		run, err = a.setConstraints(n.GetConstraintsSetStmt())
	case n.GetDoStmt() != nil:
		run, err = a.doStmt(n.GetDoStmt())
	case n.GetLockStmt() != nil:
		run, err = a.lockTable(n.GetLockStmt())
	default:
		return nil, false, nil
	}
	return run, true, err
}

// setConstraints runs SET CONSTRAINTS {ALL | name, ...} {DEFERRED |
// IMMEDIATE}, for the rest of the transaction block.
func (a *analyzer) setConstraints(s *pg.ConstraintsSetStmt) (Utility, error) {
	return func(ctx context.Context) (string, error) {
		if !a.s.InTransactionBlock() {
			// PostgreSQL warns, and still checks the names: the settings
			// end with the statement's own transaction.
			a.s.Notice(pgerr.NewWarning(pgerr.NoActiveSQLTransaction, "SET CONSTRAINTS can only be used in transaction blocks"))
		}
		var names []string
		for _, n := range s.Constraints {
			rv := n.GetRangeVar()
			found, deferrable := false, false
			schemas := []string{a.s.ResolveSchemaName(rv.Schemaname)}
			if rv.Schemaname == "" {
				schemas = a.s.RelationPath()
			}
			for _, sc := range schemas {
				tables, err := a.tx.Catalog().TablesIn(ctx, sc)
				if err != nil {
					return "", err
				}
				for _, t := range tables {
					if ConstraintExists(t, rv.Relname) {
						found = true
						for _, ix := range t.Indexes {
							deferrable = deferrable || ix.Constraint && ix.Name == rv.Relname && ix.Deferrable
						}
						for _, fk := range t.ForeignKeys {
							deferrable = deferrable || fk.Name == rv.Relname && fk.Deferrable
						}
						for _, x := range t.Exclusions {
							deferrable = deferrable || x.Name == rv.Relname && x.Deferrable
						}
						for _, tr := range t.Triggers {
							deferrable = deferrable || tr.Constraint && tr.Name == rv.Relname && tr.Deferrable
						}
					}
				}
				if found {
					break
				}
			}
			if !found {
				return "", pgerr.New(pgerr.UndefinedObject, "constraint %q does not exist", rv.Relname)
			}
			if !deferrable {
				return "", pgerr.New(pgerr.WrongObjectType, "constraint %q is not deferrable", rv.Relname)
			}
			names = append(names, rv.Relname)
		}
		if len(s.Constraints) == 0 {
			names = nil
		}
		return "SET CONSTRAINTS", a.tx.SetConstraints(ctx, names, s.Deferred)
	}, nil
}

// checkVacuumRels checks the relations, and columns, VACUUM or ANALYZE
// names, which have nothing else to do here: storage needs no vacuum and
// the planner no statistics. PostgreSQL's errors for a missing one are
// kept.
func (a *analyzer) checkVacuumRels(ctx context.Context, rels []*pg.Node) error {
	for _, n := range rels {
		vr := n.GetVacuumRelation()
		if vr == nil || vr.Relation == nil {
			continue
		}
		rel, _, err := a.lookupRelation(ctx, vr.Relation.Schemaname, vr.Relation.Relname)
		if err != nil {
			return err
		}
		if rel.Kind == RelNone {
			return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", Qualified(vr.Relation))
		}
		if rel.Kind != RelTable {
			continue
		}
		for _, c := range vr.VaCols {
			if name := c.GetString_().GetSval(); ColumnIndex(rel.Table, name) < 0 {
				return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, rel.Table.Name)
			}
		}
	}
	return nil
}
