package session

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/planner/parsecache"
	"github.com/prollypg/prollypg/versioning"
)

// Statement is one parsed statement of a session.
type Statement struct {
	s   *Session
	raw *pg.RawStmt
	sql string
	// lease holds raw when it belongs to the session's parse cache
	// (ParseSimple), until Close.
	lease *parsecache.Lease

	planState
	// params are the values of a simple query's literals when its
	// analysis is its shape's generic plan (generic.go), which reads
	// them as parameters.
	params []exec.Datum
	// multi marks a statement of a simple query of several: PostgreSQL
	// runs them in an implicit transaction block, where VACUUM and
	// CREATE DATABASE cannot run and SET TRANSACTION applies.
	multi bool
	// top marks a statement the client sent, which pg_stat_statements
	// counts (statements.go) in stat.
	top  bool
	stat *statementEntry
}

// planState is an analysis and where it was made, for reuse.
type planState struct {
	// an is the last analysis, anRoot the root value and anTxn the
	// transaction it was made in. Execute reuses a plan while the root has
	// not changed (plans read the transaction from their Env), and a
	// utility or COPY only in the same transaction, since they hold it.
	an     *planner.Analysis
	anRoot versioning.Address
	anTxn  *exec.Txn
	// heldAn's dependencies held in the root heldRoot, the last root a
	// later transaction checked them in: statements of their own, one
	// transaction each, then skip the check while nothing is written.
	heldAn   *planner.Analysis
	heldRoot versioning.Address
}

// Text returns the statement's SQL text.
func (st *Statement) Text() string {
	start := int(st.raw.StmtLocation)
	end := len(st.sql)
	if st.raw.StmtLen > 0 {
		end = start + int(st.raw.StmtLen)
	}
	return strings.TrimSpace(st.sql[start:end])
}

// IsEmpty reports whether the statement is empty (a lone semicolon).
func (st *Statement) IsEmpty() bool { return st.raw.Stmt == nil }

// Close ends the statement's use of its parse tree: one from the parse
// cache goes back to it, to be overwritten by the next query of its shape,
// so the statement is neither analyzed nor run after.
func (st *Statement) Close() {
	st.lease.Release()
	st.lease = nil
}

// Describe analyzes the statement and returns its parameter types (given
// ones kept, the others inferred) and result columns.
func (st *Statement) Describe(ctx context.Context, given []uint32) ([]exec.T, []exec.ResultColumn, error) {
	ctx = st.s.writing(ctx)
	switch n := st.raw.Stmt; {
	case isTxnControl(n) || n.GetVariableSetStmt() != nil || n.GetPrepareStmt() != nil || n.GetDeallocateStmt() != nil ||
		n.GetCreatedbStmt() != nil || n.GetDropdbStmt() != nil || n.GetCreateRoleStmt() != nil || n.GetAlterRoleStmt() != nil ||
		n.GetDropRoleStmt() != nil || n.GetGrantStmt() != nil || n.GetGrantRoleStmt() != nil:
		return planner.ParamTypes(given), nil, nil
	case n.GetVariableShowStmt() != nil:
		name := strings.ToLower(n.GetVariableShowStmt().Name)
		if name == "all" {
			return planner.ParamTypes(given), showAllCols, nil
		}
		return planner.ParamTypes(given), []exec.ResultColumn{{Name: showColumn(name), T: exec.TText}}, nil
	case n.GetClosePortalStmt() != nil:
		return planner.ParamTypes(given), nil, nil
	case n.GetDeclareCursorStmt() != nil:
		// The cursor's query may use the statement's parameters.
		if err := st.s.checkNotFailed(n); err != nil {
			return nil, nil, err
		}
		tx, err := st.s.begin(ctx)
		if err != nil {
			return nil, nil, err
		}
		an, err := planner.Analyze(ctx, st.s, tx, n.GetDeclareCursorStmt().Query, "", given)
		if err != nil {
			return nil, nil, err
		}
		return an.Params, nil, nil
	case n.GetFetchStmt() != nil:
		if c, ok := st.s.cursors[n.GetFetchStmt().Portalname]; ok && !n.GetFetchStmt().Ismove {
			return planner.ParamTypes(given), c.cols, nil
		}
		return planner.ParamTypes(given), nil, nil
	case n.GetExecuteStmt() != nil:
		ps, ok := st.s.prepared[n.GetExecuteStmt().Name]
		if !ok {
			return nil, nil, pgerr.New(pgerr.InvalidSQLStatementName, "prepared statement %q does not exist", n.GetExecuteStmt().Name)
		}
		_, cols, err := ps.st.Describe(ctx, ps.types)
		return planner.ParamTypes(given), cols, err
	case n.GetCreateTableAsStmt() != nil && n.GetCreateTableAsStmt().Query.GetExecuteStmt() != nil:
		return planner.ParamTypes(given), nil, nil // checked when it runs
	case n.GetExplainStmt() != nil && n.GetExplainStmt().Query.GetExecuteStmt() != nil:
		explained, err := st.s.explainExecute(ctx, n.GetExplainStmt())
		if err != nil {
			return nil, nil, err
		}
		tx, err := st.s.begin(ctx)
		if err != nil {
			return nil, nil, err
		}
		an, err := planner.Analyze(ctx, st.s, tx, explained, "", nil)
		if err != nil {
			return nil, nil, err
		}
		return planner.ParamTypes(given), an.Cols, nil
	}
	if err := st.s.checkNotFailed(st.raw.Stmt); err != nil {
		return nil, nil, err
	}
	tx, err := st.s.begin(ctx)
	if err != nil {
		return nil, nil, err
	}
	if cols, ok := st.describeGeneric(ctx, tx, given); ok {
		return planner.ParamTypes(given), cols, nil
	}
	an, err := planner.Analyze(ctx, st.s, tx, st.raw.Stmt, st.Text(), given)
	if err != nil {
		return nil, nil, err
	}
	st.an, st.anRoot, st.anTxn, st.params = an, tx.Catalog().Addr(), tx, nil
	return an.Params, an.Cols, nil
}

func isTxnControl(n *pg.Node) bool { return n.GetTransactionStmt() != nil }

// EndsFailedBlock reports whether the statement may run in a failed
// transaction block (COMMIT, ROLLBACK, ROLLBACK TO SAVEPOINT, PREPARE
// TRANSACTION: PostgreSQL's IsTransactionExitStmt).
func (st *Statement) EndsFailedBlock() bool { return exitsFailedBlock(st.raw.Stmt) }

// exitsFailedBlock reports whether n may run in a failed block.
func exitsFailedBlock(n *pg.Node) bool {
	if ts := n.GetTransactionStmt(); ts != nil {
		switch ts.Kind {
		case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK, pg.TransactionStmtKind_TRANS_STMT_COMMIT,
			pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO, pg.TransactionStmtKind_TRANS_STMT_PREPARE:
			return true
		}
	}
	return false
}

// checkNotFailed rejects statements in a failed transaction block.
func (s *Session) checkNotFailed(n *pg.Node) error {
	if !s.failed || exitsFailedBlock(n) {
		return nil
	}
	return pgerr.New(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
}

// Copy is a COPY's data transfer (planner.Copy), which a Result hands the
// protocol layer.
type Copy = planner.Copy

// Result is one execution of a statement: rows to read, then a tag.
type Result struct {
	Cols []exec.ResultColumn
	// Copy, when set, is a COPY's data transfer for the protocol layer to
	// drive; the tag is then "COPY n".
	Copy *Copy
	rows exec.Rows
	tag  string
	n    int64
	// stat, when set, counts the run when it closes (statements.go):
	// began is when the statement began, failed whether a row failed.
	stat   *statementEntry
	began  time.Time
	failed bool
}

// Next returns the next row, nil at the end.
func (r *Result) Next() (exec.Row, error) {
	if r.rows == nil {
		return nil, nil
	}
	row, err := r.rows.Next()
	if row != nil {
		r.n++
	}
	if err != nil {
		r.failed = true
	}
	return row, err
}

// Tag returns the command tag, complete once Next has returned nil.
func (r *Result) Tag() string {
	if c, ok := r.rows.(exec.CountedRows); ok {
		if r.tag == "INSERT" {
			return fmt.Sprintf("INSERT 0 %d", c.Affected())
		}
		return fmt.Sprintf("%s %d", r.tag, c.Affected())
	}
	if r.tag == "SELECT" {
		return fmt.Sprintf("SELECT %d", r.n)
	}
	return r.tag
}

// Close releases the result.
func (r *Result) Close() error {
	r.countStatement()
	if r.rows == nil {
		return nil
	}
	return r.rows.Close()
}

// Execute runs the statement with the given parameter values. A failure
// leaves the transaction's root as it was before the statement; in an
// explicit transaction block, the block is then failed.
func (st *Statement) Execute(ctx context.Context, given []uint32, params []exec.Datum) (res *Result, err error) {
	if stat := st.statementEntry(); stat != nil {
		began := time.Now()
		defer func() {
			if err == nil && res != nil {
				res.stat, res.began = stat, began
			}
		}()
	}
	s := st.s
	ctx = s.writing(ctx)
	s.publish("active", st.Text())
	if err := s.checkNotFailed(st.raw.Stmt); err != nil {
		return nil, err
	}
	s.inMulti = st.multi
	if v := st.raw.Stmt.GetVacuumStmt(); v != nil && v.IsVacuumcmd && (s.explicit || st.multi) {
		return nil, pgerr.New(pgerr.ActiveSQLTransaction, "VACUUM cannot run inside a transaction block")
	}
	if ts := st.raw.Stmt.GetTransactionStmt(); ts != nil {
		tag, err := s.transaction(ctx, ts)
		return &Result{tag: tag}, err
	}
	if vs := st.raw.Stmt.GetVariableSetStmt(); vs != nil {
		tag, err := s.set(ctx, vs)
		return &Result{tag: tag}, err
	}
	switch n := st.raw.Stmt; {
	case n.GetCreatedbStmt() != nil:
		return s.createDatabase(ctx, n.GetCreatedbStmt())
	case n.GetDropdbStmt() != nil:
		return s.dropDatabase(ctx, n.GetDropdbStmt())
	case n.GetPrepareStmt() != nil:
		return s.prepare(ctx, st, n.GetPrepareStmt())
	case n.GetExecuteStmt() != nil:
		return s.executePrepared(ctx, n.GetExecuteStmt())
	case n.GetCreateTableAsStmt() != nil && n.GetCreateTableAsStmt().Query.GetExecuteStmt() != nil:
		return s.createTableAsExecute(ctx, st, n.GetCreateTableAsStmt())
	case n.GetExplainStmt() != nil && n.GetExplainStmt().Query.GetExecuteStmt() != nil:
		return s.runExplainExecute(ctx, st, n.GetExplainStmt())
	case n.GetDeallocateStmt() != nil:
		return s.deallocate(n.GetDeallocateStmt())
	case n.GetDeclareCursorStmt() != nil:
		return s.declareCursor(ctx, st, n.GetDeclareCursorStmt(), given, params)
	case n.GetFetchStmt() != nil:
		return s.fetch(ctx, n.GetFetchStmt())
	case n.GetClosePortalStmt() != nil:
		return s.closeCursor(n.GetClosePortalStmt())
	case n.GetCreateRoleStmt() != nil:
		return s.createRole(ctx, n.GetCreateRoleStmt())
	case n.GetAlterRoleStmt() != nil:
		return s.alterRole(ctx, n.GetAlterRoleStmt())
	case n.GetDropRoleStmt() != nil:
		return s.dropRole(ctx, n.GetDropRoleStmt())
	case n.GetGrantStmt() != nil && !planner.VersionedGrant(n.GetGrantStmt()):
		// Not recorded yet: the privileges of sequences, functions,
		// databases, types and the rest are not checked.
		return &Result{tag: map[bool]string{true: "GRANT", false: "REVOKE"}[n.GetGrantStmt().IsGrant]}, nil
	case n.GetGrantRoleStmt() != nil:
		return s.grantRole(ctx, n.GetGrantRoleStmt())
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	if writes(st.raw.Stmt) {
		if tx.ReadOnly {
			return nil, pgerr.New(pgerr.ReadOnlySQLTransaction, "cannot execute %s in a read-only transaction", commandTag(st.raw.Stmt))
		}
		if !writesBranchControl(st.raw.Stmt) {
			if err := s.RequireBranchWrite(ctx, s.branch); err != nil {
				return nil, err
			}
		}
	}
	tx.BeginStatement()
	if st.raw.Stmt.GetVariableShowStmt() == nil {
		if err := s.refreshSnapshot(ctx, tx); err != nil {
			return nil, err
		}
		tx.Queried = true // SHOW takes no snapshot in PostgreSQL: SET TRANSACTION may follow it
	}
	before := tx.Mark()
	res, err = st.execute(ctx, tx, given, params)
	if err != nil {
		tx.RestoreMark(before)
		if err := s.reapplyAdvances(ctx, tx, s.seqs.advanced); err != nil {
			return nil, err
		}
		if s.explicit {
			s.failBlock()
		}
	}
	return res, err
}

func (st *Statement) execute(ctx context.Context, tx *exec.Txn, given []uint32, params []exec.Datum) (*Result, error) {
	s := st.s
	if show := st.raw.Stmt.GetVariableShowStmt(); show != nil {
		return s.show(show)
	}
	an := st.an
	if !st.reusable(ctx, tx) {
		var err error
		if an, err = planner.Analyze(ctx, s, tx, st.raw.Stmt, st.Text(), given); err != nil {
			return nil, err
		}
	}
	if an.Copy != nil {
		st.an = nil
		return &Result{Copy: an.Copy, tag: "COPY"}, nil
	}
	if an.Run != nil {
		st.an = nil // a utility's closure is good for one run
		tag, err := an.Run(ctx)
		return &Result{tag: tag}, err
	}
	if err := s.lockPlanRelations(ctx, tx, an); err != nil {
		return nil, err
	}
	if len(params) == 0 && an == st.an {
		params = st.params // a generic plan's literals
	}
	env := &exec.Env{Ctx: ctx, Params: params, Settings: s.settings(), TxnStart: tx.StartTime, Txn: tx, Session: s}
	rows, err := an.Plan.Open(env)
	if err != nil {
		return nil, err
	}
	return &Result{Cols: an.Cols, rows: rows, tag: an.Tag}, nil
}

// reusable reports whether the last analysis can run in tx: a plan while
// the tables it uses keep their definitions (their data may change: plans
// read it through the transaction), a utility or COPY only in the
// transaction and root it was made for, since it holds them.
func (st *Statement) reusable(ctx context.Context, tx *exec.Txn) bool {
	return st.planState.reusable(ctx, st.s, tx)
}

func (p *planState) reusable(ctx context.Context, s *Session, tx *exec.Txn) bool {
	an := p.an
	switch {
	case an == nil:
		return false
	case an.Gen != s.planGen:
		return false
	case an.Auth != (planner.AuthKey{}) && !s.authHolds(an.Auth):
		return false
	case p.anRoot == tx.Catalog().Addr() && p.anTxn == tx:
		return true
	case an.Plan == nil || len(an.Deps) == 0:
		return false
	case p.heldAn == an && p.heldRoot == tx.Catalog().Addr():
		return true // depsHold is a function of the analysis and the root
	}
	if !an.DepsHold(ctx, tx) {
		return false
	}
	p.heldAn, p.heldRoot = an, tx.Catalog().Addr()
	return true
}

// transaction runs BEGIN, COMMIT, ROLLBACK and the savepoint statements.
func (s *Session) transaction(ctx context.Context, ts *pg.TransactionStmt) (string, error) {
	switch ts.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
		tag := "BEGIN"
		if ts.Kind == pg.TransactionStmtKind_TRANS_STMT_START {
			tag = "START TRANSACTION"
		}
		if s.explicit {
			// PostgreSQL still applies the modes given.
			s.notice(pgerr.NewWarning(pgerr.ActiveSQLTransaction, "there is already a transaction in progress"))
			return tag, s.applyTxnModes(ts.Options)
		}
		// Statements of the same query or batch before BEGIN (an implicit
		// transaction) become part of the block, as in PostgreSQL.
		if _, err := s.begin(ctx); err != nil {
			return "", err
		}
		s.explicit = true
		if err := s.applyTxnModes(ts.Options); err != nil {
			s.explicit = false // the block never began: the implicit transaction fails
			return "", err
		}
		return tag, nil
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT, pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		return s.endBlock(ctx, ts)
	case pg.TransactionStmtKind_TRANS_STMT_PREPARE:
		// max_prepared_transactions is 0, as PostgreSQL's default.
		if !s.explicit {
			s.notice(pgerr.NewWarning(pgerr.NoActiveSQLTransaction, "there is no transaction in progress"))
			s.rollback()
			return "ROLLBACK", nil
		}
		failed := s.failed
		s.rollback()
		s.keepAdvances(ctx)
		if failed {
			return "ROLLBACK", nil
		}
		return "", pgerr.New(pgerr.ObjectNotInPrerequisite, "prepared transactions are disabled").
			WithHint("Set max_prepared_transactions to a nonzero value.")
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT_PREPARED, pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_PREPARED:
		if s.explicit {
			verb := map[bool]string{true: "COMMIT", false: "ROLLBACK"}[ts.Kind == pg.TransactionStmtKind_TRANS_STMT_COMMIT_PREPARED]
			return "", pgerr.New(pgerr.ActiveSQLTransaction, "%s PREPARED cannot run inside a transaction block", verb)
		}
		return "", pgerr.New(pgerr.UndefinedObject, "prepared transaction with identifier %q does not exist", ts.Gid)
	case pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
		if !s.explicit {
			return "", pgerr.New(pgerr.NoActiveSQLTransaction, "SAVEPOINT can only be used in transaction blocks")
		}
		sp := savepoint{name: ts.SavepointName, mark: s.txn.Mark(), notify: s.notify.mark(), vars: s.varsMark(),
			rebased: s.txn.RebasedMark(), roles: len(s.rolesTxn), cursors: s.cursorsDeclared, readOnly: s.txn.ReadOnly}
		if s.txn.Locks != nil {
			sp.locks = s.txn.Locks.LockMark(s.txn.LockOwner)
		}
		s.saves = append(s.saves, sp)
		return "SAVEPOINT", nil
	case pg.TransactionStmtKind_TRANS_STMT_RELEASE, pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		verb, stmt := "RELEASE", "RELEASE SAVEPOINT"
		if ts.Kind == pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO {
			verb, stmt = "ROLLBACK", "ROLLBACK TO SAVEPOINT"
		}
		if !s.explicit {
			return "", pgerr.New(pgerr.NoActiveSQLTransaction, "%s can only be used in transaction blocks", stmt)
		}
		for i := len(s.saves) - 1; i >= 0; i-- {
			if s.saves[i].name != ts.SavepointName {
				continue
			}
			s.txn.ReadOnly = s.saves[i].readOnly
			if verb == "RELEASE" {
				s.saves = s.saves[:i]
				return "RELEASE", nil
			}
			s.txn.RestoreMark(s.saves[i].mark)
			s.txn.RollbackRebased(s.saves[i].rebased)
			if s.txn.Locks != nil {
				s.txn.Locks.RollbackLocks(s.txn.LockOwner, s.saves[i].locks)
			}
			s.notify.rollbackTo(s.saves[i].notify)
			s.cursorsRollbackTo(s.saves[i].cursors)
			s.varsRollbackTo(s.saves[i].vars)
			if err := s.rolesRollbackTo(ctx, s.saves[i].roles); err != nil {
				return "", err
			}
			if err := s.reapplyAdvances(ctx, s.txn, s.seqs.advanced); err != nil {
				return "", err
			}
			s.saves = s.saves[:i+1]
			s.failed = false
			return "ROLLBACK", nil
		}
		return "", pgerr.New(pgerr.InvalidSavepointSpec, "savepoint %q does not exist", ts.SavepointName)
	}
	return "", pgerr.New(pgerr.FeatureNotSupported, "transaction statement %s is not supported yet", ts.Kind)
}

// endBlock runs COMMIT and ROLLBACK, with or without AND CHAIN. Outside a
// transaction block they warn, and end the implicit transaction of the
// statements before them in the same query or batch (COMMIT commits it),
// as PostgreSQL does; AND CHAIN there is an error. In a block, AND CHAIN
// starts the next block at once with the same modes.
func (s *Session) endBlock(ctx context.Context, ts *pg.TransactionStmt) (string, error) {
	commit := ts.Kind == pg.TransactionStmtKind_TRANS_STMT_COMMIT
	verb := map[bool]string{true: "COMMIT", false: "ROLLBACK"}[commit]
	if !s.explicit {
		if ts.Chain {
			return "", pgerr.New(pgerr.NoActiveSQLTransaction, "%s AND CHAIN can only be used in transaction blocks", verb)
		}
		s.notice(pgerr.NewWarning(pgerr.NoActiveSQLTransaction, "there is no transaction in progress"))
		if commit {
			return "COMMIT", s.commit(ctx) // also with no transaction yet: its SETs stay
		}
		s.rollback()
		s.keepAdvances(ctx)
		return verb, nil
	}
	readOnly, iso, deferrable := s.txn != nil && s.txn.ReadOnly, s.vars["transaction_isolation"], s.vars["transaction_deferrable"]
	tag := verb
	var err error
	if commit && !s.failed {
		err = s.commit(ctx)
	} else {
		s.rollback()
		s.keepAdvances(ctx)
		tag = "ROLLBACK"
	}
	if err != nil || !ts.Chain {
		return tag, err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return "", err
	}
	s.explicit = true
	tx.ReadOnly = readOnly || s.readOnly
	s.vars["transaction_isolation"] = iso
	s.vars["transaction_deferrable"] = deferrable
	tx.Isolation = exec.ParseIsolation(iso)
	return tag, nil
}

// set runs SET and RESET.
func (s *Session) set(ctx context.Context, vs *pg.VariableSetStmt) (string, error) {
	if vs.Name == useStmt {
		return "SET", s.use(ctx, vs.Args[0].GetAConst().GetSval().GetSval())
	}
	name := strings.ToLower(vs.Name)
	if vs.Kind == pg.VariableSetKind_VAR_SET_MULTI {
		return s.setTransaction(vs)
	}
	value := defaultVars[name]
	if vs.Kind == pg.VariableSetKind_VAR_SET_VALUE {
		var parts []string
		for _, a := range vs.Args {
			c := a.GetAConst()
			if tz, ok, err := intervalTimeZone(name, a); ok || err != nil {
				if err != nil {
					return "", err
				}
				parts = append(parts, tz)
				continue
			}
			switch {
			case c == nil:
				return "", pgerr.New(pgerr.SyntaxError, "SET %s takes a constant", name)
			case c.GetSval() != nil:
				parts = append(parts, c.GetSval().Sval)
			case c.GetIval() != nil:
				parts = append(parts, fmt.Sprint(c.GetIval().Ival))
			case c.GetFval() != nil:
				parts = append(parts, c.GetFval().Fval)
			case c.GetBoolval() != nil:
				parts = append(parts, map[bool]string{true: "on", false: "off"}[c.GetBoolval().Boolval])
			}
		}
		value = strings.Join(parts, ", ")
	}
	if _, ok := defaultVars[name]; !ok {
		if !strings.Contains(name, ".") {
			return "", pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter %q", vs.Name)
		}
		if err := checkTrgmName(name); err != nil {
			return "", err
		}
	}
	value, err := s.checkSetting(name, value)
	if err != nil {
		return "", err
	}
	switch name {
	case "role":
		if err := s.checkSetRole(ctx, value); err != nil {
			return "", err
		}
	case "session_authorization":
		if vs.Kind != pg.VariableSetKind_VAR_SET_VALUE {
			value = s.user // RESET, or SET SESSION AUTHORIZATION DEFAULT
		}
		if err := s.checkSessionAuthorization(ctx, value); err != nil {
			return "", err
		}
		s.setVar("role", "none", vs.IsLocal) // as PostgreSQL: SET ROLE NONE with it
	}
	if name == "transaction_isolation" && vs.Kind == pg.VariableSetKind_VAR_SET_VALUE {
		if !s.explicit || s.txn == nil {
			return "SET", nil // lasts for the implicit transaction only
		}
		return "SET", s.setIsolation(value)
	}
	if vs.IsLocal && !s.explicit {
		s.notice(pgerr.NewWarning(pgerr.NoActiveSQLTransaction, "SET LOCAL can only be used in transaction blocks"))
		return "SET", nil
	}
	s.setVar(name, value, vs.IsLocal)
	if vs.Kind == pg.VariableSetKind_VAR_RESET {
		return "RESET", nil
	}
	return "SET", nil
}

// setTransaction runs SET TRANSACTION and SET SESSION CHARACTERISTICS AS
// TRANSACTION. Isolation levels are accepted: every transaction has
// snapshot isolation (see the versioning package).
func (s *Session) setTransaction(vs *pg.VariableSetStmt) (string, error) {
	ro, given := readOnlyOption(vs.Args)
	iso := isolationOption(vs.Args)
	if vs.Name == "SESSION CHARACTERISTICS" {
		if given {
			s.setVar("default_transaction_read_only", map[bool]string{true: "on", false: "off"}[ro], false)
		}
		if d, given := boolTxnOption(vs.Args, "transaction_deferrable"); given {
			s.setVar("default_transaction_deferrable", map[bool]string{true: "on", false: "off"}[d], false)
		}
		if iso != "" {
			s.setVar("default_transaction_isolation", iso, false)
		}
		return "SET", nil
	}
	if !s.explicit || s.txn == nil {
		if !s.inMulti { // an implicit block of several statements is one
			s.notice(pgerr.NewWarning(pgerr.NoActiveSQLTransaction, "SET TRANSACTION can only be used in transaction blocks"))
		}
		return "SET", nil
	}
	return "SET", s.applyTxnModes(vs.Args)
}

// applyTxnModes applies the transaction modes of BEGIN or SET TRANSACTION
// to the open transaction block, with PostgreSQL's checks.
func (s *Session) applyTxnModes(opts []*pg.Node) error {
	if iso := isolationOption(opts); iso != "" {
		if err := s.setIsolation(iso); err != nil {
			return err
		}
	}
	// DEFERRABLE matters only to a SERIALIZABLE READ ONLY transaction,
	// whose snapshot PostgreSQL then takes when it is safe; here every
	// serializable reader's snapshot is: the mode is kept and shown.
	if d, given := boolTxnOption(opts, "transaction_deferrable"); given {
		s.vars["transaction_deferrable"] = map[bool]string{true: "on", false: "off"}[d]
	}
	ro, given := readOnlyOption(opts)
	if !given {
		return nil
	}
	if !ro && s.txn.ReadOnly {
		switch {
		case s.readOnly:
			return pgerr.New(pgerr.ReadOnlySQLTransaction, "cannot set transaction read-write mode on a read-only revision")
		case len(s.saves) > 0:
			return pgerr.New(pgerr.ReadOnlySQLTransaction, "cannot set transaction read-write mode inside a read-only transaction")
		case s.txn.Queried:
			return pgerr.New(pgerr.ActiveSQLTransaction, "transaction read-write mode must be set before any query")
		}
	}
	s.txn.ReadOnly = ro || s.readOnly
	return nil
}

// setIsolation changes the isolation level of the open transaction block,
// which PostgreSQL allows only before its first query and outside
// savepoints.
func (s *Session) setIsolation(iso string) error {
	if s.vars["transaction_isolation"] == iso {
		return nil
	}
	switch {
	case len(s.saves) > 0:
		return pgerr.New(pgerr.ActiveSQLTransaction, "SET TRANSACTION ISOLATION LEVEL must not be called in a subtransaction")
	case s.txn.Queried:
		return pgerr.New(pgerr.ActiveSQLTransaction, "SET TRANSACTION ISOLATION LEVEL must be called before any query")
	}
	s.vars["transaction_isolation"] = iso
	s.txn.Isolation = exec.ParseIsolation(iso)
	return nil
}

// show runs SHOW.
// showAllCols are SHOW ALL's columns.
var showAllCols = []exec.ResultColumn{{Name: "name", T: exec.TText}, {Name: "setting", T: exec.TText}, {Name: "description", T: exec.TText}}

func (s *Session) show(vs *pg.VariableShowStmt) (*Result, error) {
	name := strings.ToLower(vs.Name)
	if name == "all" {
		names := make([]string, 0, len(s.vars))
		for k := range s.vars {
			names = append(names, k)
		}
		slices.Sort(names)
		rows := make([][]exec.Expr, len(names))
		for i, k := range names {
			rows[i] = []exec.Expr{&exec.Const{D: exec.DText(k), T: exec.TText}, &exec.Const{D: exec.DText(s.vars[k]), T: exec.TText},
				&exec.Const{D: exec.DText(""), T: exec.TText}}
		}
		p := &exec.Values{Rows: rows, Cols: showAllCols}
		out, _ := p.Open(nil)
		return &Result{Cols: p.Cols, rows: out, tag: "SHOW"}, nil
	}
	v, ok := s.vars[name]
	if name == "transaction_read_only" && s.txn != nil {
		v = map[bool]string{true: "on", false: "off"}[s.txn.ReadOnly]
	}
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter %q", vs.Name)
	}
	p := &exec.Values{Rows: [][]exec.Expr{{&exec.Const{D: exec.DText(v), T: exec.TText}}}, Cols: []exec.ResultColumn{{Name: showColumn(name), T: exec.TText}}}
	rows, _ := p.Open(nil)
	return &Result{Cols: p.Cols, rows: rows, tag: "SHOW"}, nil
}

// showColumn is the column name of SHOW name: the setting's own spelling
// (DateStyle, TimeZone, ...), as PostgreSQL names it.
func showColumn(name string) string {
	if rn, ok := reported[name]; ok {
		return rn
	}
	return name
}

// Settings returns the session settings that text I/O of this statement's
// parameters and results follows.
func (st *Statement) Settings() *exec.Settings { return st.s.settings() }

// lockPlanRelations takes the table locks a query holds in PostgreSQL on
// the relations its plan reads: ROW EXCLUSIVE for INSERT, UPDATE, DELETE
// and MERGE, ACCESS SHARE else. They conflict only with LOCK TABLE's
// stronger modes, which so wait for the transactions using the table.
//
// A statement in a transaction of its own skips them while nobody holds a
// lock they would wait for (the common case, and a mutex less per
// statement): a LOCK TABLE taken meanwhile does not wait for it, a
// difference no client can tell from a statement that ran a moment
// earlier.
func (s *Session) lockPlanRelations(ctx context.Context, tx *exec.Txn, an *planner.Analysis) error {
	if tx.Locks == nil || len(an.Deps) == 0 || !s.explicit && !tx.Locks.StrongTableLocks() {
		return nil
	}
	mode := exec.AccessShareLock
	switch an.Tag {
	case "INSERT", "UPDATE", "DELETE", "MERGE":
		mode = exec.RowExclusiveLock
	}
	waited := false
	for _, d := range an.Deps {
		w, err := tx.LockRelation(ctx, d.Schema, d.Name, mode, false)
		if err != nil {
			return err
		}
		waited = waited || w
	}
	if !waited {
		return nil
	}
	// The statement's snapshot follows its locks, as PostgreSQL takes it
	// after parse analysis locked the relations: a query that waited for
	// a TRUNCATE sees the table truncated.
	if s.explicit {
		return s.refreshSnapshot(ctx, tx)
	}
	latest, err := tx.Latest(ctx)
	if err == nil && tx.Root().Addr() == tx.Start.Addr() {
		tx.Rebase(latest, latest)
	}
	return err
}

// intervalTimeZone reads SET TIME ZONE INTERVAL '+05:30' HOUR TO MINUTE
// (Sequelize sends it on every connection) as the fixed offset it names,
// in the POSIX form PostgreSQL shows for it: <+05:30>-05:30. ok is false
// for any other argument.
func intervalTimeZone(name string, n *pg.Node) (string, bool, error) {
	tc := n.GetTypeCast()
	if name != "timezone" || tc == nil || tc.Arg.GetAConst() == nil || tc.Arg.GetAConst().GetSval() == nil {
		return "", false, nil
	}
	if names := planner.NameList(tc.TypeName.Names); names[len(names)-1] != "interval" {
		return "", false, nil
	}
	v := strings.TrimSpace(tc.Arg.GetAConst().GetSval().Sval)
	sign := 1
	switch {
	case strings.HasPrefix(v, "-"):
		sign, v = -1, v[1:]
	case strings.HasPrefix(v, "+"):
		v = v[1:]
	}
	h, m, _ := strings.Cut(v, ":")
	hours, err1 := strconv.Atoi(h)
	mins := 0
	var err2 error
	if m != "" {
		mins, err2 = strconv.Atoi(m)
	}
	if err1 != nil || err2 != nil || hours > 15 || mins > 59 {
		return "", true, pgerr.New(pgerr.InvalidParameterValue, "invalid interval value for time zone: %q", tc.Arg.GetAConst().GetSval().Sval)
	}
	east := fmt.Sprintf("%02d", hours)
	if mins != 0 {
		east += fmt.Sprintf(":%02d", mins)
	}
	if sign < 0 {
		return "<-" + east + ">+" + east, true, nil
	}
	return "<+" + east + ">-" + east, true, nil
}
