package planner

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/planner/dolt"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Session is what analysis asks of the session it plans for: how names
// resolve, the settings, where notices go, who is asking (for
// privileges), and the session's open transaction for the user functions
// a plan runs. The catalog itself is not here: the analyzer reads it from
// the transaction's root (analyzer.tx), so analysis is a function of the
// parse tree and that root, seen through this view of the session.
// *session.Session (package planner/session, which this package cannot
// import) implements it. A plan's user functions and triggers reach the
// session through it as they run, and the analyzer puts it in the
// exec.Env of what it evaluates (Env.Session), where the session's own
// functions find their concrete type.
//
// It is a dolt.Session too: the analyzer plans the version-control
// system tables, table functions and time travel (doltfrom.go), which
// package dolt serves with the session's repository and revision.
type Session interface {
	dolt.Session

	// SearchPath is search_path's schemas, "$user" resolved;
	// RelationPath puts the session's temporary schema first once it has
	// one; ResolveSchemaName maps pg_temp to that schema.
	SearchPath() []string
	RelationPath() []string
	ResolveSchemaName(schema string) string
	// TempSchema is the session's temporary schema, "" before it needs
	// one; TempSchemaName chooses it on first use. TempSchemaReady
	// reports whether the schema is known to be this session's own (not
	// a stale one of an earlier session of the same number), and
	// MarkTempSchemaReady records that it is.
	TempSchema() string
	TempSchemaName() string
	TempSchemaReady() bool
	MarkTempSchemaReady()
	// PlanGeneration counts the changes to name resolution that table
	// definitions do not show (search_path, temporary relations, user
	// functions replaced); InvalidatePlans starts a new one, so that
	// plans made before are made again.
	PlanGeneration() uint64
	InvalidatePlans()

	// Var is a setting by name ("" when unset); Settings (dolt.Session)
	// are the ones evaluation reads, their Types the session's user
	// types.
	Var(name string) string
	// Database is the database name as the client gave it, User the role
	// that connected.
	Database() string
	User() string
	// AnalyzeDDL analyzes a catalog-changing statement (package
	// planner/ddl, which this package cannot import) with a, into the
	// utility that runs it; ok is false for a statement that is not one.
	AnalyzeDDL(a *Analyzer, n *pg.Node) (run Utility, ok bool, err error)
	// Discard resets the session's own state that DISCARD target names
	// (currval and lastval, LISTEN); the temporary relations are the
	// analyzer's to drop.
	Discard(target pg.DiscardMode) error
	// Listen and Unlisten queue LISTEN and UNLISTEN (channel "" for
	// UNLISTEN *), and Notify a notification, for the transaction's
	// commit; ListeningChannels are the channels listened on now.
	Listen(channel string)
	Unlisten(channel string)
	Notify(channel, payload string) error
	ListeningChannels() []string
	// InTransactionBlock reports whether the session is in an explicit
	// transaction block (BEGIN ... COMMIT).
	InTransactionBlock() bool
	// PushSearchPath puts schema first on the search path until restore
	// is called (CREATE SCHEMA's elements run so).
	PushSearchPath(schema string) (restore func())

	// Authority is the current role's authority, AuthorityOf another
	// role's (a view's owner's); Roles are the roles as stored.
	Authority(ctx context.Context) (*Authority, error)
	AuthorityOf(ctx context.Context, role string) (*Authority, error)
	Roles(ctx context.Context) (map[string]*sqldef.Role, error)
	// CurrentRole is current_user, SessionRole session_user.
	CurrentRole() string
	SessionRole() string
	// RunAs makes role current_user until restore is called: a
	// SECURITY DEFINER function's call runs as its owner.
	RunAs(role string) (restore func())
	// RequireDatabase checks that the current role holds priv on the
	// session's database: 'C' to create schemas, 'T' temporary tables.
	// GrantDatabases runs GRANT and REVOKE ON DATABASE, and
	// AlterDatabaseOwner ALTER DATABASE ... OWNER TO: databases' owners
	// and privileges are the server's, which the session keeps.
	RequireDatabase(ctx context.Context, priv byte) error
	GrantDatabases(ctx context.Context, g *pg.GrantStmt) error
	AlterDatabaseOwner(ctx context.Context, a *pg.AlterOwnerStmt) error
	// DefaultBranchRoot is the working root of the database's default
	// branch, where the privileges of a session opened on a tag or a
	// commit are read; ok is false when there is no default branch.
	DefaultBranchRoot(ctx context.Context) (root Catalog, ok bool, err error)

	// Txn is the session's open transaction, nil outside one: the user
	// functions a plan calls run their statements in it.
	Txn() *exec.Txn
	// Savepoint marks the session's state (the transaction's root, its
	// notifications, its sequences' advances) for a PL/pgSQL block with
	// an exception handler; the function returned goes back to it.
	Savepoint(ctx context.Context) (rollback func() error)
	// CatalogSource is what pg_catalog and information_schema are
	// computed from in env's transaction.
	CatalogSource(env *exec.Env) (*catalog.Source, error)
	// RegIn, RegOut and ResolveRegclass read and print the OID alias
	// types (regclass, regtype, ...) by the session's name resolution,
	// for the constants the analyzer folds.
	RegIn(env *exec.Env, typ uint32, text string) (exec.Datum, error)
	RegOut(env *exec.Env, typ, oid uint32) (string, error)
	ResolveRegclass(env *exec.Env, text string) (uint32, string, bool, error)
	// PRNG is the generator of random() and setseed().
	PRNG() *funcs.PRNG
	// PlannerState is what analysis keeps for the length of the session.
	PlannerState() *SessionState
}

// SessionState is what analysis keeps for the length of a session, held
// by the session (Session.PlannerState).
type SessionState struct {
	// records are the anonymous record types of set-returning calls
	// (row.go).
	records recordTypes
	// viewDepth counts the views being expanded in the statement being
	// planned.
	viewDepth int
	// rlsExpanding are the tables whose row-level security policies are
	// being analyzed (rls.go), innermost last.
	rlsExpanding []uint32
	// noRLS is set while a view's query is planned at CREATE VIEW: as
	// PostgreSQL's, its policies apply when the view is read, not then.
	noRLS bool
	// routines are the user functions compiled, by their records
	// (routine.go); callDepth counts the calls running.
	routines  map[string]*routine
	callDepth int
	// transitions are the transition tables of the triggers running,
	// innermost last (transition.go).
	transitions []map[string]*transitionRel
}
