package planner

import (
	"cmp"
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// Row locks: FOR UPDATE, NO KEY UPDATE, SHARE and KEY SHARE of a query
// take the locks of the rows it returns of its tables with a primary key
// (all of FROM's, or those OF names), in that mode, with NOWAIT and SKIP
// LOCKED, as UPDATE and DELETE do (exec.LockRows). A table without a
// primary key, or read through something other than its plain rows,
// leaves the clause without locks: the commit-time merge still checks
// writes against concurrent ones.

// rowLocking returns the LockRows node of a SELECT block with a locking
// clause it can apply, its In and Exprs left for the caller; nil for
// none. exprs are the block's output expressions so far: the FROM row's
// columns go after them. grouped says the block's rows are not FROM's
// (grouping or window functions).
func (a *analyzer) rowLocking(s *pg.SelectStmt, sc *scope, grouped bool, exprs []exec.Expr) (*exec.LockRows, error) {
	if len(s.LockingClause) != 1 || grouped || sc == nil || len(sc.items) == 0 {
		return nil, nil
	}
	lc := s.LockingClause[0].GetLockingClause()
	mode := exec.ForUpdate
	switch lc.Strength {
	case pg.LockClauseStrength_LCS_FORNOKEYUPDATE:
		mode = exec.ForNoKeyUpdate
	case pg.LockClauseStrength_LCS_FORSHARE:
		mode = exec.ForShare
	case pg.LockClauseStrength_LCS_FORKEYSHARE:
		mode = exec.ForKeyShare
	}
	named := func(it *nsItem) bool {
		if len(lc.LockedRels) == 0 {
			return true
		}
		for _, r := range lc.LockedRels {
			if it.relVisible && it.name == r.GetRangeVar().Relname {
				return true
			}
		}
		return false
	}
	width := 0
	var targets []exec.LockTarget
	for _, it := range sc.items {
		for _, c := range it.cols {
			width = max(width, c.idx+1)
		}
		if it.tableOID != nil {
			width = max(width, it.tableOID.idx+1)
		}
		if it.kind != itemTable || !named(it) {
			continue
		}
		if it.table == nil || !it.table.HasPrimaryKey() || it.table.Virtual != nil || len(it.cols) != len(it.table.Cols) {
			return nil, nil
		}
		at := it.cols[0].idx
		for i, c := range it.cols {
			if c.idx != at+i {
				return nil, nil // not a plain row of the table
			}
		}
		target := exec.LockTarget{Table: it.table, At: at}
		if it.tableOID != nil {
			// The rows are the members': each locks in its own table.
			members, _, err := a.family(it.table)
			if err != nil {
				return nil, err
			}
			target.OIDAt = it.tableOID.idx
			target.Members = []exec.LockMember{}
			for _, m := range members {
				if !m.t.HasPrimaryKey() || m.t.Virtual != nil {
					return nil, nil
				}
				target.Members = append(target.Members, exec.LockMember{OID: m.t.OID, Table: m.t, Layout: m.layout})
			}
		}
		targets = append(targets, target)
	}
	if len(targets) == 0 {
		return nil, nil
	}
	var recheck exec.Expr = &exec.Const{D: exec.DBool(true), T: exec.TBool}
	if s.WhereClause != nil {
		var err error
		if recheck, err = a.condition(s.WhereClause, sc, "WHERE", "argument of WHERE"); err != nil {
			return nil, err
		}
	}
	wait := exec.LockBlock
	switch lc.WaitPolicy {
	case pg.LockWaitPolicy_LockWaitSkip:
		wait = exec.LockSkip
	case pg.LockWaitPolicy_LockWaitError:
		wait = exec.LockNoWait
	}
	return &exec.LockRows{Targets: targets, RowAt: len(exprs), Width: width, Recheck: recheck, Mode: mode, Wait: wait}, nil
}

// fromColumns returns references to the columns of a FROM row of width
// columns, by position.
func fromColumns(sc *scope, width int) []exec.Expr {
	out := make([]exec.Expr, width)
	for _, it := range sc.items {
		cols := it.cols
		if it.tableOID != nil {
			cols = append(slices.Clone(cols), it.tableOID)
		}
		for _, c := range cols {
			if c.idx < width && out[c.idx] == nil {
				out[c.idx] = &exec.ColRef{Idx: c.idx, T: c.t}
			}
		}
	}
	for i, e := range out {
		if e == nil { // a column no item names (none expected)
			out[i] = &exec.Const{D: exec.Null, T: exec.TText}
		}
	}
	return out
}

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
				return WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q in %s clause not found in FROM clause", rv.Relname, what), rv.Location)
			}
			switch found.kind {
			case itemJoin:
				return WithPos(pgerr.New(pgerr.FeatureNotSupported, "%s cannot be applied to a join", what), rv.Location)
			case itemFunction:
				return WithPos(pgerr.New(pgerr.FeatureNotSupported, "%s cannot be applied to a function", what), rv.Location)
			case itemValues:
				return WithPos(pgerr.New(pgerr.FeatureNotSupported, "%s cannot be applied to VALUES", what), rv.Location)
			case itemCTE:
				return WithPos(pgerr.New(pgerr.FeatureNotSupported, "%s cannot be applied to a WITH query", what), rv.Location)
			}
		}
		// A materialized view's rows cannot be locked (PostgreSQL's
		// CheckValidRowMarkRel).
		for _, it := range sc.itemsOrNil() {
			if it.kind != itemTable || it.table == nil || it.table.Def == nil || it.table.Def.MatView == nil {
				continue
			}
			named := len(lc.LockedRels) == 0
			for _, r := range lc.LockedRels {
				named = named || it.relVisible && it.name == r.GetRangeVar().Relname
			}
			if named {
				return pgerr.New(pgerr.WrongObjectType, "cannot lock rows in materialized view %q", it.table.Def.Name)
			}
		}
	}
	return nil
}

// RowExclusiveLock is the LockStmt mode ROW EXCLUSIVE, the strongest a
// read-only transaction may take.
const RowExclusiveLock = 3

// lockTable is LOCK TABLE: it takes the table lock of each table named,
// in the mode given (ACCESS EXCLUSIVE by default), held until the
// transaction ends, waiting for conflicting LOCK TABLE locks of other
// transactions (or failing at once with NOWAIT). Other statements take no
// table locks: a transaction reads its snapshot and its writes are checked
// against concurrent ones at COMMIT, which is what the table locks of
// reads and writes protect in PostgreSQL.
func (a *analyzer) lockTable(st *pg.LockStmt) (Utility, error) {
	return func(ctx context.Context) (string, error) {
		if !a.s.InTransactionBlock() {
			return "", pgerr.New(pgerr.NoActiveSQLTransaction, "LOCK TABLE can only be used in transaction blocks")
		}
		mode := exec.LockMode(st.Mode)
		if mode < exec.AccessShareLock || mode > exec.AccessExclusiveLock {
			mode = exec.AccessExclusiveLock
		}
		for _, n := range st.Relations {
			rv := n.GetRangeVar()
			if rv.Schemaname == "" || rv.Schemaname == "pg_catalog" || rv.Schemaname == "information_schema" {
				if _, ok := catalog.Lookup(cmp.Or(rv.Schemaname, "pg_catalog"), rv.Relname); ok {
					continue
				}
			}
			rel, schema, err := a.lookupRelation(ctx, rv.Schemaname, rv.Relname)
			if err != nil {
				return "", err
			}
			switch rel.Kind {
			case RelNone:
				return "", WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", Qualified(rv)), rv.Location)
			case RelTable, RelView:
			default:
				return "", pgerr.New(pgerr.WrongObjectType, "%q is not a table or view", rv.Relname)
			}
			if err := a.lockPrivileges(rel, mode); err != nil {
				return "", err
			}
			if _, err := a.tx.LockRelation(ctx, schema, rv.Relname, mode, st.Nowait); err != nil {
				return "", err
			}
		}
		return "LOCK TABLE", nil
	}, nil
}

// lockPrivileges checks that the current role may LOCK TABLE rel in mode:
// as PostgreSQL 15's LockTableAclCheck, ACCESS SHARE needs SELECT, ROW
// EXCLUSIVE one of INSERT, UPDATE, DELETE and TRUNCATE, the stronger
// modes one of UPDATE, DELETE and TRUNCATE.
func (a *analyzer) lockPrivileges(rel Relation, mode exec.LockMode) error {
	au, err := a.authority()
	if err != nil || au.Superuser {
		return err
	}
	oneOf := "wdD"
	switch mode {
	case exec.AccessShareLock:
		oneOf = "r"
	case exec.RowExclusiveLock:
		oneOf = "awdD"
	}
	acl, name := TableACL(rel.Table), rel.Table.Name
	if rel.Kind == RelView {
		acl, name = ViewACL(rel.View), rel.View.Name
	}
	for _, p := range oneOf {
		if au.may(acl, string(p)) {
			return nil
		}
	}
	return PermissionDenied("table", name)
}

// lockingPrivileges checks that the current role may lock the rows of
// the tables a SELECT block's locking clauses name (all of FROM's when
// they name none): PostgreSQL asks for UPDATE on the table or one of its
// columns besides SELECT.
func (a *analyzer) lockingPrivileges(s *pg.SelectStmt, sc *scope) error {
	if len(s.LockingClause) == 0 || sc == nil {
		return nil
	}
	for _, it := range sc.items {
		if it.kind != itemTable || it.table == nil || !lockingUpdates(s.LockingClause, it.name) {
			continue
		}
		if it.table.Virtual != nil {
			if it.table.VirtualKind != 'v' || it.table.Def == nil {
				continue
			}
			au, err := a.authority()
			if err != nil {
				return err
			}
			if err := a.lockView(au, it.table.Def.Schema, it.table.Def.Name, 0); err != nil {
				return err
			}
			continue
		}
		if err := a.requireColumns(it.table, "w", nil); err != nil {
			return err
		}
	}
	return nil
}

// lockView checks that au may lock the rows of view schema.name: it needs
// UPDATE on the view, and the view's owner (the current user, for a
// security_invoker view) UPDATE on the tables and views it reads, as
// PostgreSQL's FOR UPDATE through a view asks.
func (a *analyzer) lockView(au *Authority, schema, name string, depth int) error {
	v, ok, err := a.tx.Catalog().View(a.ctx, schema, name)
	if err != nil || !ok || depth > maxViewDepth {
		return err
	}
	if !au.may(ViewACL(v), "w") {
		return PermissionDenied("view", v.Name)
	}
	// The owner reads what the view reads; for a security_invoker view,
	// the current user, also under another view (viewRelation).
	reader, err := a.s.Authority(a.ctx)
	if err != nil {
		return err
	}
	if !optionTrue(v.Option("security_invoker")) {
		if reader, err = a.s.AuthorityOf(a.ctx, OwnerOf(v.Owner)); err != nil {
			return err
		}
	}
	for _, d := range v.Depends {
		sc, n, _ := strings.Cut(d, ".")
		t, ok, err := a.tx.Table(a.ctx, sc, n)
		if err != nil {
			return err
		}
		if !ok {
			if err := a.lockView(reader, sc, n, depth+1); err != nil {
				return err
			}
			continue
		}
		if !anyColumnMay(reader, t.Def, "w") {
			return PermissionDenied("table", t.Def.Name)
		}
	}
	return nil
}
