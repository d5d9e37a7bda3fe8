package session

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/planner/ddl"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The Session as the analyzer's planningSession: the parts of its state
// that analysis reads or changes.
var _ planner.Session = (*Session)(nil)

// TempSchema is the session's temporary schema, "" before it needs one.
func (s *Session) TempSchema() string { return s.tempSchema }

// TempSchemaReady reports whether the temporary schema is known to be
// this session's own.
func (s *Session) TempSchemaReady() bool { return s.tempReady }

// MarkTempSchemaReady records that the temporary schema is this
// session's own.
func (s *Session) MarkTempSchemaReady() { s.tempReady = true }

// PlanGeneration is the session's name-resolution generation.
func (s *Session) PlanGeneration() uint64 { return s.planGen }

// InvalidatePlans starts a new name-resolution generation: plans made
// before are made again.
func (s *Session) InvalidatePlans() { s.planGen++ }

// Database is the database name as the client gave it.
func (s *Session) Database() string { return s.database }

// User is the role that connected.
func (s *Session) User() string { return s.user }

// InTransactionBlock reports whether the session is in an explicit
// transaction block.
func (s *Session) InTransactionBlock() bool { return s.explicit }

func (s *Session) PushSearchPath(schema string) (restore func()) {
	path, had := s.vars["search_path"]
	s.vars["search_path"] = planner.QuoteIdent(schema) + ", " + path
	s.planGen++ // names resolve differently meanwhile
	return func() {
		if had {
			s.vars["search_path"] = path
		} else {
			delete(s.vars, "search_path")
		}
		s.planGen++
	}
}

// AnalyzeDDL analyzes a catalog-changing statement with package ddl,
// which the planner cannot import.
func (s *Session) AnalyzeDDL(a *planner.Analyzer, n *pg.Node) (planner.Utility, bool, error) {
	return ddl.Analyze(a, n)
}

// Discard resets what DISCARD target resets of the session's own state:
// currval and lastval, and (ALL) the channels it listens on; the
// temporary relations are the caller's to drop. DISCARD ALL is refused
// in a transaction block.
func (s *Session) Discard(target pg.DiscardMode) error {
	if target == pg.DiscardMode_DISCARD_ALL && s.explicit {
		return pgerr.New(pgerr.ActiveSQLTransaction, "DISCARD ALL cannot run inside a transaction block")
	}
	if target == pg.DiscardMode_DISCARD_SEQUENCES || target == pg.DiscardMode_DISCARD_ALL {
		s.seqs.curr, s.seqs.last = nil, ""
	}
	if target == pg.DiscardMode_DISCARD_ALL {
		s.unlistenAll()
	}
	return nil
}

// Roles are the roles as the session's transaction sees them.
func (s *Session) Roles(ctx context.Context) (map[string]*sqldef.Role, error) {
	return s.loadRoles(ctx)
}

// DefaultBranchRoot is the working root of the default branch; ok is
// false when the repository has none.
func (s *Session) DefaultBranchRoot(ctx context.Context) (planner.Catalog, bool, error) {
	_, ws, err := s.repo.WorkingSet(ctx, versioning.DefaultBranch)
	if err != nil {
		return nil, false, nil
	}
	root, err := versioning.LoadRootValue(ctx, s.repo.Store(), ws.Working)
	if err != nil {
		return nil, false, err
	}
	return root, true, nil
}

// Txn is the open transaction, nil outside one.
func (s *Session) Txn() *exec.Txn { return s.txn }

// Savepoint marks the transaction's root, its notifications and its
// sequences' advances, for a PL/pgSQL exception block.
func (s *Session) Savepoint(ctx context.Context) func() error {
	tx := s.txn
	before := tx.Mark()
	mark := s.notify.mark()
	return func() error {
		tx.RestoreMark(before)
		s.notify.rollbackTo(mark)
		return s.reapplyAdvances(ctx, tx, s.seqs.advanced)
	}
}

// TextSearch is the engine's text search state: the files and
// dictionaries of CREATE TEXT SEARCH DICTIONARY.
func (s *Session) TextSearch() *funcs.TextSearch { return s.e.TextSearch }

// PRNG is the generator of random() and setseed().
func (s *Session) PRNG() *funcs.PRNG { return &s.prng }

// PlannerState is what analysis keeps for the length of the session.
func (s *Session) PlannerState() *planner.SessionState { return &s.planning }

// QueryRows runs one SQL statement given as text for a built-in function
// (ts_rewrite's and ts_stat's queries) in the statement's transaction.
func (s *Session) QueryRows(env *exec.Env, sql string) ([]exec.ResultColumn, []exec.Row, error) {
	return planner.QueryRows(s, env, sql)
}
