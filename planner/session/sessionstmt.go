package session

import (
	"context"
	"errors"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
)

// Statements that act on the session or the server rather than on the
// transaction's data: PREPARE/EXECUTE/DEALLOCATE, CREATE/DROP DATABASE.

// preparedStmt is a statement made by SQL PREPARE.
type preparedStmt struct {
	st    *Statement
	types []uint32
	// text is the query string that prepared the statement, at created;
	// paramTypes the types of its parameters, given or inferred.
	text       string
	created    time.Time
	paramTypes []uint32
}

func (s *Session) prepare(ctx context.Context, outer *Statement, p *pg.PrepareStmt) (*Result, error) {
	if _, ok := s.prepared[p.Name]; ok {
		return nil, pgerr.New(pgerr.DuplicatePreparedStatement, "prepared statement %q already exists", p.Name)
	}
	var types []uint32
	for _, n := range p.Argtypes {
		if tn := n.GetTypeName(); len(tn.Names) == 1 && tn.Names[0].GetString_().GetSval() == "unknown" && len(tn.ArrayBounds) == 0 {
			types = append(types, exec.OIDUnknown) // inferred, as PostgreSQL infers it
			continue
		}
		t, _, err := planner.ResolveType(n.GetTypeName())
		if err != nil {
			return nil, err
		}
		types = append(types, t.OID)
	}
	inner := &Statement{s: s, raw: &pg.RawStmt{Stmt: p.Query}, sql: outer.sql}
	params, _, err := inner.Describe(ctx, types)
	if err != nil {
		return nil, err
	}
	ps := &preparedStmt{st: inner, types: types, text: outer.sql, created: time.Now()}
	for _, t := range params {
		ps.paramTypes = append(ps.paramTypes, t.OID)
	}
	s.prepared[p.Name] = ps
	return &Result{tag: "PREPARE"}, nil
}

func (s *Session) executePrepared(ctx context.Context, e *pg.ExecuteStmt) (*Result, error) {
	ps, given, params, err := s.preparedCall(ctx, e)
	if err != nil {
		return nil, err
	}
	return ps.st.Execute(ctx, given, params)
}

// preparedCall finds the prepared statement EXECUTE names and evaluates
// its parameters: it returns the statement and the parameters' types and
// values.
func (s *Session) preparedCall(ctx context.Context, e *pg.ExecuteStmt) (*preparedStmt, []uint32, []exec.Datum, error) {
	ps, ok := s.prepared[e.Name]
	if !ok {
		return nil, nil, nil, pgerr.New(pgerr.InvalidSQLStatementName, "prepared statement %q does not exist", e.Name)
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	types, _, err := ps.st.Describe(ctx, ps.types)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(e.Params) != len(types) {
		return nil, nil, nil, pgerr.New(pgerr.SyntaxError, "wrong number of parameters for prepared statement %q", e.Name).
			WithDetail("Expected %d parameters but got %d.", len(types), len(e.Params))
	}
	params, err := planner.EvalParams(ctx, s, tx, e.Params, types)
	if err != nil {
		return nil, nil, nil, err
	}
	given := make([]uint32, len(types))
	for i, t := range types {
		given[i] = t.OID
	}
	return ps, given, params, nil
}

// createTableAsExecute runs CREATE TABLE ... AS EXECUTE name(params): as
// CREATE TABLE ... AS the prepared statement's query, run with the
// parameters. PostgreSQL allows only a SELECT there.
func (s *Session) createTableAsExecute(ctx context.Context, outer *Statement, ct *pg.CreateTableAsStmt) (*Result, error) {
	ps, given, params, err := s.preparedCall(ctx, ct.Query.GetExecuteStmt())
	if err != nil {
		return nil, err
	}
	if ps.st.raw.Stmt.GetSelectStmt() == nil {
		return nil, pgerr.New(pgerr.WrongObjectType, "prepared statement is not a SELECT")
	}
	query, err := planner.BindParams(ps.st.raw.Stmt, given, params, s.Settings())
	if err != nil {
		return nil, err
	}
	as := &pg.CreateTableAsStmt{Query: query, Into: ct.Into, Objtype: ct.Objtype, IsSelectInto: ct.IsSelectInto, IfNotExists: ct.IfNotExists}
	inner := &Statement{s: s, raw: &pg.RawStmt{Stmt: &pg.Node{Node: &pg.Node_CreateTableAsStmt{CreateTableAsStmt: as}}}, sql: outer.sql}
	res, err := inner.Execute(ctx, nil, nil)
	if err == nil && ct.Into.SkipData && res.tag == "CREATE TABLE AS" {
		res.tag = "SELECT 0" // the tag of an EXECUTE that returned nothing
	}
	return res, err
}

// explainExecute is EXPLAIN [ANALYZE] EXECUTE name(params): EXPLAIN of
// the prepared statement's query with the parameters' values in place.
func (s *Session) explainExecute(ctx context.Context, es *pg.ExplainStmt) (*pg.Node, error) {
	ps, given, params, err := s.preparedCall(ctx, es.Query.GetExecuteStmt())
	if err != nil {
		return nil, err
	}
	query, err := planner.BindParams(ps.st.raw.Stmt, given, params, s.Settings())
	if err != nil {
		return nil, err
	}
	return &pg.Node{Node: &pg.Node_ExplainStmt{ExplainStmt: &pg.ExplainStmt{Query: query, Options: es.Options}}}, nil
}

// runExplainExecute runs EXPLAIN ... EXECUTE (explainExecute).
func (s *Session) runExplainExecute(ctx context.Context, outer *Statement, es *pg.ExplainStmt) (*Result, error) {
	n, err := s.explainExecute(ctx, es)
	if err != nil {
		return nil, err
	}
	inner := &Statement{s: s, raw: &pg.RawStmt{Stmt: n}, sql: outer.sql}
	return inner.Execute(ctx, nil, nil)
}

func (s *Session) deallocate(d *pg.DeallocateStmt) (*Result, error) {
	if d.Name == "" {
		clear(s.prepared)
		return &Result{tag: "DEALLOCATE ALL"}, nil
	}
	if _, ok := s.prepared[d.Name]; !ok {
		return nil, pgerr.New(pgerr.InvalidSQLStatementName, "prepared statement %q does not exist", d.Name)
	}
	delete(s.prepared, d.Name)
	return &Result{tag: "DEALLOCATE"}, nil
}

func (s *Session) createDatabase(ctx context.Context, c *pg.CreatedbStmt) (*Result, error) {
	if s.explicit || s.inMulti {
		return nil, pgerr.New(pgerr.ActiveSQLTransaction, "CREATE DATABASE cannot run inside a transaction block")
	}
	if err := s.RequireCreateDB(ctx); err != nil {
		return nil, err
	}
	if strings.ContainsAny(c.Dbname, "@/") {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "database name %q may not contain '@' or '/'", c.Dbname).
			WithHint("Those characters select a branch or revision when connecting.")
	}
	_, err := versioning.CreateDatabase(ctx, s.e.st, c.Dbname, s.Signature())
	if errors.Is(err, versioning.ErrDatabaseExists) {
		return nil, pgerr.New(pgerr.DuplicateDatabase, "database %q already exists", c.Dbname)
	}
	if err != nil {
		return nil, err
	}
	// Its owner is the role that made it; a record left by a database of
	// the name dropped before goes.
	err = versioning.UpdateDatabaseInfos(ctx, s.e.st, func(infos map[string]*versioning.DatabaseInfo) error {
		delete(infos, c.Dbname)
		if owner := planner.NewObjectOwner(s); owner != "" {
			infos[c.Dbname] = &versioning.DatabaseInfo{Name: c.Dbname, Owner: owner}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Result{tag: "CREATE DATABASE"}, nil
}

func (s *Session) dropDatabase(ctx context.Context, d *pg.DropdbStmt) (*Result, error) {
	if s.explicit {
		return nil, pgerr.New(pgerr.ActiveSQLTransaction, "DROP DATABASE cannot run inside a transaction block")
	}
	if d.Dbname == s.repo.Name() {
		return nil, pgerr.New(pgerr.ObjectInUse, "cannot drop the currently open database")
	}
	if s.e.requireDatabase(ctx, d.Dbname) == nil {
		info, err := s.e.databaseInfo(ctx, d.Dbname)
		if err != nil {
			return nil, err
		}
		au, err := s.Authority(ctx)
		if err != nil {
			return nil, err
		}
		if !au.Owns(info.Owner) {
			return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be owner of database %s", d.Dbname)
		}
	}
	err := versioning.DropDatabase(ctx, s.e.st, d.Dbname)
	if errors.Is(err, versioning.ErrNoDatabase) {
		if d.MissingOk {
			s.notice(pgerr.New(pgerr.SuccessfulCompletion, "database %q does not exist, skipping", d.Dbname))
			return &Result{tag: "DROP DATABASE"}, nil
		}
		return nil, pgerr.New(pgerr.InvalidCatalogName, "database %q does not exist", d.Dbname)
	}
	if err != nil {
		return nil, err
	}
	err = versioning.UpdateDatabaseInfos(ctx, s.e.st, func(infos map[string]*versioning.DatabaseInfo) error {
		delete(infos, d.Dbname)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Result{tag: "DROP DATABASE"}, nil
}

// writes reports whether a statement changes data or schema, for the
// read-only transaction check.
func writes(n *pg.Node) bool {
	switch {
	case n.GetSelectStmt() != nil:
		return n.GetSelectStmt().IntoClause != nil
	case n.GetExplainStmt() != nil:
		return writes(n.GetExplainStmt().Query)
	case n.GetVariableShowStmt() != nil, n.GetCopyStmt() != nil && !n.GetCopyStmt().IsFrom, isNotifyStmt(n):
		return false
	case n.GetLockStmt() != nil:
		// Modes up to ROW EXCLUSIVE (lock modes 1 to 3) are allowed in a
		// read-only transaction, as in PostgreSQL.
		return n.GetLockStmt().Mode > planner.RowExclusiveLock
	}
	return true
}

// commandTag names a statement as PostgreSQL's messages and tags do.
func commandTag(n *pg.Node) string {
	switch {
	case n.GetInsertStmt() != nil:
		return "INSERT"
	case n.GetUpdateStmt() != nil:
		return "UPDATE"
	case n.GetDeleteStmt() != nil:
		return "DELETE"
	case n.GetSelectStmt() != nil:
		if n.GetSelectStmt().IntoClause != nil {
			return "SELECT INTO"
		}
		return "SELECT"
	case n.GetCreateStmt() != nil:
		return "CREATE TABLE"
	case n.GetCreateTableAsStmt() != nil:
		return "CREATE TABLE AS"
	case n.GetDropStmt() != nil:
		return "DROP " + strings.TrimPrefix(n.GetDropStmt().RemoveType.String(), "OBJECT_")
	case n.GetCopyStmt() != nil:
		return "COPY FROM"
	case n.GetTruncateStmt() != nil:
		return "TRUNCATE TABLE"
	case n.GetAlterTableStmt() != nil:
		return "ALTER TABLE"
	case n.GetIndexStmt() != nil:
		return "CREATE INDEX"
	case n.GetCreateSeqStmt() != nil:
		return "CREATE SEQUENCE"
	case n.GetCreateSchemaStmt() != nil:
		return "CREATE SCHEMA"
	}
	return strings.ToUpper(strings.ReplaceAll(strings.TrimSuffix(planner.NodeName(n), "_stmt"), "_", " "))
}

// readOnlyOption returns the READ ONLY / READ WRITE option of a BEGIN or
// SET TRANSACTION, if given.
// isolationOption finds the ISOLATION LEVEL of BEGIN or SET TRANSACTION,
// as the name transaction_isolation shows it; "" when not given.
func isolationOption(opts []*pg.Node) string {
	for _, o := range opts {
		d := o.GetDefElem()
		if d != nil && d.Defname == "transaction_isolation" {
			if c := d.Arg.GetAConst(); c != nil && c.GetSval() != nil {
				return c.GetSval().Sval
			}
		}
	}
	return ""
}

func readOnlyOption(opts []*pg.Node) (readOnly, given bool) {
	return boolTxnOption(opts, "transaction_read_only")
}

// boolTxnOption returns the boolean transaction mode name of BEGIN or SET
// TRANSACTION's options (READ ONLY is transaction_read_only, DEFERRABLE
// transaction_deferrable), and whether it is given.
func boolTxnOption(opts []*pg.Node, name string) (value, given bool) {
	for _, o := range opts {
		d := o.GetDefElem()
		if d != nil && d.Defname == name {
			if c := d.Arg.GetAConst(); c != nil && c.GetIval() != nil {
				return c.GetIval().Ival != 0, true
			}
		}
	}
	return false, false
}
