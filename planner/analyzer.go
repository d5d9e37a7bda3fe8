package planner

import (
	"context"
	"strings"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner/plpgsql"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Analyzer is the analysis of one statement as the DDL runners (package
// planner/ddl) use it: expressions, types and names resolved against the
// transaction's root and the session's name resolution, privileges
// checked with the current role's authority. What it resolves is recorded
// as the analysis of the statement it was made for. Like the analyzer it
// wraps, it is used by one goroutine.
type Analyzer struct{ a *analyzer }

// NewAnalyzer returns an Analyzer for a statement of session s in
// transaction tx.
func NewAnalyzer(ctx context.Context, s Session, tx *exec.Txn) *Analyzer {
	return &Analyzer{&analyzer{ctx: ctx, s: s, tx: tx}}
}

// Session and Txn are the session and transaction the statement is
// analyzed for.
func (x *Analyzer) Session() Session { return x.a.s }
func (x *Analyzer) Txn() *exec.Txn   { return x.a.tx }

// Text is the statement's SQL text as the client sent it; "" for a
// statement of a function's body or a cursor's query.
func (x *Analyzer) Text() string { return x.a.text }

// Scope is the names an expression may refer to: the columns of a table,
// for a CHECK constraint, a default or an index expression. A nil Scope
// has none.
type Scope struct{ sc *scope }

// TableScope is the scope of table t's columns, under alias.
func TableScope(t *exec.Table, alias string) *Scope { return &Scope{tableScope(t, alias)} }

func (sc *Scope) scope() *scope {
	if sc == nil {
		return nil
	}
	return sc.sc
}

// Expr analyzes expression n over the names of sc.
func (x *Analyzer) Expr(n *pg.Node, sc *Scope) (exec.Expr, error) { return x.a.expr(n, sc.scope()) }

// ClauseExpr analyzes expression n over the names of sc as a part of
// clause (for its errors: "... not allowed in clause"), and returns the
// user functions it calls.
func (x *Analyzer) ClauseExpr(clause string, n *pg.Node, sc *Scope) (exec.Expr, []*sqldef.Function, error) {
	a := x.a
	saved, calls := a.clause, len(a.called)
	a.clause = clause
	e, err := a.expr(n, sc.scope())
	a.clause = saved
	return e, a.called[calls:], err
}

// Assign coerces e to type t as an assignment to column col does;
// AssignColumn to column c, domain checks included; AssignOrIO falls back
// to an I/O conversion where no assignment cast exists.
func (x *Analyzer) Assign(e exec.Expr, t exec.T, col string, loc int32) (exec.Expr, error) {
	return x.a.assign(e, t, col, loc)
}
func (x *Analyzer) AssignColumn(e exec.Expr, c exec.Column, loc int32) (exec.Expr, error) {
	return x.a.assignColumn(e, c, loc)
}
func (x *Analyzer) AssignOrIO(e exec.Expr, t exec.T, col string) (exec.Expr, error) {
	return x.a.assignOrIO(e, t, col)
}

// Cast converts e to t as CAST (explicit) or an implicit coercion does.
// Coerce coerces e to t where a clause (what: "argument of WHERE")
// needs a value of that type.
func (x *Analyzer) Coerce(e exec.Expr, t exec.T, what string) (exec.Expr, error) {
	return x.a.coerce(e, t, what, -1)
}

func (x *Analyzer) Cast(e exec.Expr, t exec.T, explicit bool, loc int32) (exec.Expr, error) {
	return x.a.cast(e, t, explicit, loc)
}

// Query analyzes a query (CREATE TABLE AS, CREATE VIEW) and SelectStmt a
// statement's SELECT.
func (x *Analyzer) Query(s *pg.SelectStmt) (exec.Plan, error)      { return x.a.query(s, &correlation{}) }
func (x *Analyzer) SelectStmt(s *pg.SelectStmt) (exec.Plan, error) { return x.a.selectStmt(s) }

// ViewQuery plans a view's query at CREATE VIEW: without the row-level
// security of its tables, which applies to its readers (rls.go), and, as
// PostgreSQL, without checking the privileges its reads need, which are
// checked as the view is read.
func (x *Analyzer) ViewQuery(s *pg.SelectStmt) (exec.Plan, error) {
	restore, err := x.Unchecked()
	if err != nil {
		return nil, err
	}
	defer restore()
	return x.a.selectStmt(s)
}

// Unchecked turns off privilege checks and row-level security for the
// analysis until the function it returns is called: for the queries DDL
// plans to check their names and types (a view's, a policy's
// subqueries), whose privileges and policies apply when they run.
func (x *Analyzer) Unchecked() (restore func(), err error) {
	au, err := x.a.authority()
	if err != nil {
		return nil, err
	}
	rls := x.NoRowSecurity()
	saved := x.a.as
	unchecked := *au
	unchecked.Superuser, unchecked.unchecked = true, true
	x.a.as = &unchecked
	return func() { x.a.as = saved; rls() }, nil
}

// NoRowSecurity turns row-level security off for the analysis until the
// function it returns is called: for the queries DDL plans to check them
// (a view's, a policy's subqueries), not to run them.
func (x *Analyzer) NoRowSecurity() (restore func()) {
	ps := x.a.s.PlannerState()
	saved := ps.noRLS
	ps.noRLS = true
	return func() { ps.noRLS = saved }
}

// Table resolves a relation named in a statement.
func (x *Analyzer) Table(rv *pg.RangeVar) (*exec.Table, error) { return x.a.table(rv) }

// LookupTable, LookupRelation, LookupType and ViewTable look names up in
// the transaction's root by the session's search path.
func (x *Analyzer) LookupTable(ctx context.Context, schema, name string) (*exec.Table, bool, error) {
	return x.a.lookupTable(ctx, schema, name)
}
func (x *Analyzer) LookupRelation(ctx context.Context, schema, name string) (Relation, string, error) {
	return x.a.lookupRelation(ctx, schema, name)
}
func (x *Analyzer) LookupType(ctx context.Context, schema, name string) (*sqldef.Type, error) {
	return x.a.lookupType(ctx, schema, name)
}
func (x *Analyzer) ViewTable(ctx context.Context, schema, name string) (*exec.Table, bool, error) {
	return x.a.viewTable(ctx, schema, name)
}

// ResolveType resolves a type name, user types included;
// ResolveTypeDomain also returns the domain it names, if it does.
func (x *Analyzer) ResolveType(tn *pg.TypeName) (exec.T, bool, error) { return x.a.resolveType(tn) }
func (x *Analyzer) ResolveTypeDomain(tn *pg.TypeName) (exec.T, *sqldef.Type, bool, error) {
	return x.a.resolveTypeDomain(tn)
}

// UserFuncs are the user functions schema.name (name along the search
// path when schema is "").
func (x *Analyzer) UserFuncs(schema, name string) ([]*sqldef.Function, error) {
	return x.a.userFuncs(schema, name)
}

// Authority is the current role's authority, recorded as the one the
// statement was checked with; RequireTable checks privs on a table.
func (x *Analyzer) Authority() (*Authority, error)                 { return x.a.authority() }
func (x *Analyzer) RequireTable(t *exec.Table, privs string) error { return x.a.requireTable(t, privs) }

// RequireTypeNameUsage checks USAGE on the type a definition names.
func (x *Analyzer) RequireTypeNameUsage(tn *pg.TypeName) error { return x.a.requireTypeNameUsage(tn) }

// TypeName is format_type's name for t, user types included.
func (x *Analyzer) TypeName(t exec.T) string { return x.a.typeName(t) }

// RequireExecute checks that the current role may call user function f.
func (x *Analyzer) RequireExecute(f *sqldef.Function) error { return x.a.requireExecute(f) }

// CheckExpr analyzes a CHECK constraint's expression over def's columns,
// returning the columns it reads; Defaults, GeneratedExprs and
// PartitionCheck are what writing a row of t evaluates; IndexPredicate
// analyzes a partial index's predicate into its stored text.
func (x *Analyzer) CheckExpr(def *sqldef.Table, n *pg.Node) (exec.Expr, []string, error) {
	return x.a.checkExpr(def, n)
}
func (x *Analyzer) Defaults(t *exec.Table) ([]exec.Expr, error) { return x.a.defaults(t) }
func (x *Analyzer) GeneratedExprs(t *exec.Table) (exec.GeneratedCols, error) {
	return x.a.generatedExprs(t)
}
func (x *Analyzer) PartitionCheck(t *exec.Table) (*exec.PartitionCheck, error) {
	return x.a.partitionCheck(t)
}
func (x *Analyzer) IndexPredicate(t *exec.Table, n *pg.Node) (string, error) {
	return x.a.indexPredicate(t, n)
}

// IndexEval analyzes the expressions and predicate of index ix of t, as
// the executor evaluates them (exec.Txn.IndexEval).
func (x *Analyzer) IndexEval(t *exec.Table, ix *sqldef.Index) (*exec.IndexEval, error) {
	return x.a.indexEval(t, ix)
}

// Partitions are parent's partitions; FamilyTables are t and the tables
// below it, as a scan of t reads them.
func (x *Analyzer) Partitions(ctx context.Context, parent *sqldef.Table) ([]*sqldef.Table, error) {
	return x.a.partitions(ctx, parent)
}
func (x *Analyzer) FamilyTables(t *exec.Table) ([]*exec.Table, error) {
	members, _, err := x.a.family(t)
	tables := make([]*exec.Table, len(members))
	for i, m := range members {
		tables[i] = m.t
	}
	return tables, err
}

// ColumnDomain is the domain of column c, nil when its type is none;
// DomainCheckExpr analyzes a domain's CHECK expression, DomainChecks are a
// domain's checks to evaluate, DomainCheck wraps a value of its base type
// in all of a domain's constraints (those of the domains it is over too).
func (x *Analyzer) ColumnDomain(ctx context.Context, c exec.Column) (*sqldef.Type, error) {
	return x.a.columnDomain(ctx, c)
}
func (x *Analyzer) DomainCheckExpr(t *sqldef.Type, n *pg.Node) (exec.Expr, error) {
	return x.a.domainCheckExpr(t, n)
}
func (x *Analyzer) DomainChecks(t *sqldef.Type) ([]exec.CheckConstraint, error) {
	return x.a.domainChecks(t)
}
func (x *Analyzer) DomainCheck(e exec.Expr, dom *sqldef.Type) (exec.Expr, error) {
	return x.a.domainCheck(e, dom)
}

// AggSupport resolves an aggregate's support function (name, given as
// what) for args returning want; BindAggregate binds an aggregate to the
// types of a call.
func (x *Analyzer) AggSupport(name, what string, args []exec.T, want exec.T) (exec.Expr, error) {
	return x.a.aggSupport(name, what, args, want)
}
func (x *Analyzer) BindAggregate(def *sqldef.Function, args []exec.T) (*exec.UserAgg, error) {
	return x.a.bindAggregate(def, args)
}

// CheckRoutine compiles user function def (declared, or its
// specialization for a call's types) as a call would, for CREATE FUNCTION
// to reject a body that cannot run. A PL/pgSQL body's shadowed variables
// are reported as plpgsql.extra_warnings and extra_errors ask, at their
// positions in text, the CREATE FUNCTION statement.
func CheckRoutine(s Session, def, declared *sqldef.Function, text string) error {
	r, err := compileRoutine(s, def, declared)
	if err != nil || r.pl == nil {
		return err
	}
	shadowed := r.pl.Shadowed()
	if len(shadowed) == 0 {
		return nil
	}
	level := plpgsql.ExtraCheck(s.Var, plpgsql.CheckShadowedVariables)
	for _, v := range shadowed {
		e := pgerr.New(pgerr.DuplicateAlias, "variable %q shadows a previously defined variable", v.Name)
		e.Position = bodyPosition(text, def.Body, v.Line, v.Name)
		switch level {
		case "ERROR":
			return e
		case "WARNING":
			e.Severity = "WARNING"
			s.Notice(e)
		}
	}
	return nil
}

// bodyPosition returns the position in text, a CREATE FUNCTION statement,
// of the first occurrence of word on line (from 1) of the function's
// body, as PostgreSQL's errors count it (characters from 1); 0 when it
// cannot be found.
func bodyPosition(text, body string, line int, word string) int {
	start := strings.Index(text, body)
	if start < 0 || line < 1 {
		return 0
	}
	off := start
	lines := strings.SplitAfter(body, "\n")
	if line > len(lines) {
		return 0
	}
	for _, l := range lines[:line-1] {
		off += len(l)
	}
	at := strings.Index(strings.ToLower(lines[line-1]), strings.ToLower(word))
	if at < 0 {
		return 0
	}
	return utf8.RuneCountInString(text[:off+at]) + 1
}
