package planner

import (
	"cmp"
	"context"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// Row locks (FOR UPDATE and friends) need no work under snapshot
// isolation with a serializable commit check: a transaction's writes are
// checked against concurrent ones at COMMIT. They are accepted, with
// PostgreSQL's errors for queries they cannot apply to.

// lockStrength returns the SQL of a locking clause's strength.
func lockStrength(lc *pg.LockingClause) string {
	switch lc.Strength {
	case pg.LockClauseStrength_LCS_FORKEYSHARE:
		return "FOR KEY SHARE"
	case pg.LockClauseStrength_LCS_FORSHARE:
		return "FOR SHARE"
	case pg.LockClauseStrength_LCS_FORNOKEYUPDATE:
		return "FOR NO KEY UPDATE"
	}
	return "FOR UPDATE"
}

// checkLocking checks the locking clauses of a query, as PostgreSQL's
// CheckSelectLocking and transformLockingClause: what the query may not
// have, and that each table named is a table of its FROM clause.
func checkLocking(s *pg.SelectStmt, sc *scope, grouped, srfs bool) error {
	for _, n := range s.LockingClause {
		lc := n.GetLockingClause()
		what := lockStrength(lc)
		switch {
		case s.Op != pg.SetOperation_SETOP_NONE:
			return pgerr.New(pgerr.FeatureNotSupported, "%s is not allowed with UNION/INTERSECT/EXCEPT", what)
		case len(s.DistinctClause) > 0:
			return pgerr.New(pgerr.FeatureNotSupported, "%s is not allowed with DISTINCT clause", what)
		case len(s.GroupClause) > 0:
			return pgerr.New(pgerr.FeatureNotSupported, "%s is not allowed with GROUP BY clause", what)
		case s.HavingClause != nil:
			return pgerr.New(pgerr.FeatureNotSupported, "%s is not allowed with HAVING clause", what)
		case grouped:
			return pgerr.New(pgerr.FeatureNotSupported, "%s is not allowed with aggregate functions", what)
		case srfs:
			return pgerr.New(pgerr.FeatureNotSupported, "%s is not allowed with set-returning functions in the target list", what)
		}
		for _, r := range lc.LockedRels {
			rv := r.GetRangeVar()
			var found *nsItem
			for _, it := range sc.itemsOrNil() {
				if it.relVisible && it.name == rv.Relname {
					found = it
				}
			}
			if found == nil {
				return withPos(pgerr.New(pgerr.UndefinedTable, "relation %q in %s clause not found in FROM clause", rv.Relname, what), rv.Location)
			}
			switch found.kind {
			case itemJoin:
				return withPos(pgerr.New(pgerr.FeatureNotSupported, "%s cannot be applied to a join", what), rv.Location)
			case itemFunction:
				return withPos(pgerr.New(pgerr.FeatureNotSupported, "%s cannot be applied to a function", what), rv.Location)
			case itemValues:
				return withPos(pgerr.New(pgerr.FeatureNotSupported, "%s cannot be applied to VALUES", what), rv.Location)
			case itemCTE:
				return withPos(pgerr.New(pgerr.FeatureNotSupported, "%s cannot be applied to a WITH query", what), rv.Location)
			}
		}
	}
	return nil
}

// rowExclusiveLock is the LockStmt mode ROW EXCLUSIVE, the strongest a
// read-only transaction may take.
const rowExclusiveLock = 3

// lockTable is LOCK TABLE. A transaction here never waits on another's
// table locks: it reads its snapshot and its writes are checked against
// concurrent ones at COMMIT, which is what the locks pg_dump takes (ACCESS
// SHARE, to keep tables from being dropped under it) protect. So the
// statement only checks what PostgreSQL checks: that it runs in a
// transaction block and names existing tables or views.
func (a *analyzer) lockTable(st *pg.LockStmt) (utility, error) {
	return func(ctx context.Context) (string, error) {
		if !a.s.explicit {
			return "", pgerr.New(pgerr.NoActiveSQLTransaction, "LOCK TABLE can only be used in transaction blocks")
		}
		for _, n := range st.Relations {
			rv := n.GetRangeVar()
			if rv.Schemaname == "" || rv.Schemaname == "pg_catalog" || rv.Schemaname == "information_schema" {
				if _, ok := catalog.Lookup(cmp.Or(rv.Schemaname, "pg_catalog"), rv.Relname); ok {
					continue
				}
			}
			rel, _, err := a.lookupRelation(ctx, rv.Schemaname, rv.Relname)
			if err != nil {
				return "", err
			}
			switch rel.kind {
			case relNone:
				return "", withPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", qualified(rv)), rv.Location)
			case relTable, relView:
			default:
				return "", pgerr.New(pgerr.WrongObjectType, "%q is not a table or view", rv.Relname)
			}
		}
		return "LOCK TABLE", nil
	}, nil
}
