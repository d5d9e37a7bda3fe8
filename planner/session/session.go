package session

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"
	"go.uber.org/zap"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/planner/dolt"
	"github.com/prollypg/prollypg/planner/parsecache"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Engine is the SQL engine over one store: it opens sessions on its
// databases. It is safe for concurrent use.
type Engine struct {
	st      versioning.Store
	log     *zap.Logger
	started time.Time            // pg_postmaster_start_time
	tables  *exec.TableCache     // decoded table records, shared by the sessions
	roles   versioning.RoleCache // decoded roles, for privilege checks
	// rolesGen counts the changes of roles this engine made (all of them:
	// the process owns its store), so that a session knows its authority
	// is still current without reading the store (privileges.go).
	rolesGen atomic.Uint64
	// branches are the branch permissions, decoded (branchcontrol.go).
	branches versioning.BranchControlCache
	rowIDs   *exec.RowIDs         // hidden row ids of keyless tables, for every transaction
	xids     *exec.XIDs           // transaction ids (txid_current), for every transaction
	seqs     *exec.SequenceValues // nextval's values, for every transaction
	commits  versioning.Committer // group commit of every session's transactions
	locks    *exec.RowLocks       // row locks of every session's transactions
	ssi      *exec.SSI            // serializable transactions' reads and writes
	txnIDs   atomic.Uint64        // owners of row locks, one per transaction
	// tempSeq numbers the sessions' temporary schemas (pg_temp_N).
	tempSeq atomic.Int64
	// gate keeps dolt_gc apart from other transactions (gcgate.go).
	gate txnGate
	// stats are the cumulative statistics (pg_stat_database,
	// pg_stat_user_tables) of the server's databases, statements those
	// of pg_stat_statements.
	stats      exec.CumulativeStats
	statements statementStats
	// live are the open sessions, for pg_stat_activity and for the branches
	// in use, which are not deleted or renamed from under them without
	// --force (activity.go).
	live liveSessions
	// notify routes LISTEN/NOTIFY between the sessions (notify.go).
	notify notifyHub
	// replicas are the databases this server follows as a read replica,
	// by name, to their *replicaState (replica.go): read-only for sessions.
	replicas sync.Map
	// peer counts what peers read and wrote through the peer functions
	// (peer.go), for dolt_peer_stats, and watches the databases whose refs
	// peers follow (peerwatch.go).
	peer peerState

	// CancelBackend and TerminateBackend, set by the server, cancel the
	// statement of the session with a pid or end the session
	// (pg_cancel_backend, pg_terminate_backend); nil: no session is found.
	CancelBackend, TerminateBackend func(pid uint32) bool

	// HashPassword turns a password into the verifier kept for its role
	// (the wire layer's SCRAM-SHA-256 verifier); nil refuses passwords.
	HashPassword func(password string) (string, error)

	// ServerSettings are the settings the server fixed at its start
	// (max_connections), which sessions show instead of the defaults.
	ServerSettings map[string]string

	// TextSearch is where the dictionaries of CREATE TEXT SEARCH
	// DICTIONARY read their files from, and the dictionaries built; set
	// before the engine serves (NewEngine's reads no files).
	TextSearch *funcs.TextSearch
}

// NewEngine returns an engine over st. A store that can (store.DB) is set
// to journal only the chunks ref updates reach: the engine's transactions
// register with it and drop what they wrote and no ref reached once they
// have ended (gcgate.go). Nothing else may write st while the engine uses
// it, other than through the engine's sessions.
func NewEngine(st versioning.Store, log *zap.Logger) *Engine {
	if log == nil {
		log = zap.NewNop()
	}
	tables := exec.NewTableCache()
	e := &Engine{st: st, log: log, started: time.Now(), tables: tables, rowIDs: exec.NewRowIDs(), xids: exec.NewXIDs(), seqs: exec.NewSequenceValues(tables), locks: exec.NewRowLocks(), ssi: exec.NewSSI()}
	e.commits.Sequences = e.seqs
	e.TextSearch = funcs.NewTextSearch("")
	if fs, ok := versioning.JournalReached(st); ok {
		e.gate.fresh = fs
	}
	return e
}

// Bootstrap creates the role and the database postgres if the store has
// no roles or no database.
func (e *Engine) Bootstrap(ctx context.Context) error {
	if err := e.bootstrapRoles(ctx); err != nil {
		return err
	}
	names, err := versioning.ListDatabases(ctx, e.st)
	if err != nil || len(names) > 0 {
		return err
	}
	_, err = versioning.CreateDatabase(ctx, e.st, "postgres", e.signature("postgres", ""))
	if errors.Is(err, versioning.ErrDatabaseExists) {
		return nil
	}
	return err
}

func (e *Engine) signature(user, host string) versioning.Signature {
	if host == "" {
		host = "localhost"
	}
	return versioning.Signature{Name: user, Email: user + "@" + host, When: time.Now()}
}

// Session is one client's state: its database and branch, settings and
// transaction. A Session is used by one goroutine at a time.
type Session struct {
	// lockOwner is the owner id of the open transaction's row locks, 0
	// without one: other sessions read it for pg_blocking_pids.
	lockOwner atomic.Uint64
	// advOwner owns the session-level advisory locks (advisory.go), taken
	// advisory[key] times each.
	advOwner atomic.Uint64
	advisory map[exec.RowLockKey]int
	// varsUndo and varsLocal: the settings the open transaction changed
	// (settings.go).
	varsUndo  map[string]string
	varsLocal map[string]bool
	// auth is the current role's authority, while it is current
	// (privileges.go).
	auth *planner.Authority
	// rolesTxn are the role changes of the open transaction block, to be
	// saved at its COMMIT; rolesView the roles with them applied
	// (roles.go).
	rolesTxn  []func(map[string]*sqldef.Role) error
	rolesView map[string]*sqldef.Role
	// dbInfos are the open transaction's changes of databases' owners and
	// privileges, saved at its COMMIT (databases.go).
	dbInfos map[string]*versioning.DatabaseInfo
	// loDescs are the open transaction's large object descriptors, by
	// number, nil where closed (largeobject.go).
	loDescs []*largeObjectDesc
	// definers are the owners of the SECURITY DEFINER functions being
	// called, innermost last: the last is current_user (RunAs).
	definers []string
	// inGate: the session's transaction is counted in the engine's gate
	// (gcgate.go), from its begin to its commit or rollback; gen is the
	// generation it registered at there, which the contexts of the
	// session's calls carry to the store (writing), 0 outside.
	inGate bool
	gen    atomic.Uint64

	e        *Engine
	user     string
	database string // as the client gave it
	repo     *versioning.Repo
	branch   string
	vars     map[string]string

	// txn is the open transaction: an explicit one (BEGIN ... COMMIT) when
	// explicit is set, else the implicit one of the current batch, which
	// Sync commits. failed marks an explicit transaction that had an error.
	txn      *exec.Txn
	explicit bool
	failed   bool
	// inMulti is the running statement's Statement.multi.
	inMulti  bool
	saves    []savepoint
	readOnly bool // the session's revision cannot be written (a tag or commit)
	// detached is the commit a read-only session reads, when it was opened
	// on a tag or a commit rather than a branch (branch is then "").
	detached *dolt.Detached

	prng     funcs.PRNG               // random() and setseed()
	prepared map[string]*preparedStmt // PREPARE'd statements by name
	parses   *parsecache.Cache        // the simple protocol's trees, nil until used
	cursors  map[string]*cursor       // DECLAREd cursors by name
	// cursorsDeclared counts the cursors ever declared (cursor.seq).
	cursorsDeclared uint64
	cached          *exec.Settings // settings(), until a SET or a new transaction
	varSettings     *exec.Settings // what settings() takes from vars, until a SET (putVar)
	// userTypes are the user types of the transaction's root, decoded
	// for text input (sessionTypes).
	userTypes *userTypes
	seqs      seqState     // currval and lastval
	catCache  catalogCache // the catalog functions' last snapshot
	// tempSchema is the session's pg_temp_N, "" until it needs one;
	// tempReady once the schema is known to be this session's own.
	tempSchema string
	tempReady  bool
	// planning is what analysis keeps for the length of the session:
	// record types, compiled user functions (planningSession).
	planning planner.SessionState
	// planGen counts the changes to name resolution that table
	// definitions do not show (search_path, temporary relations): plans
	// analyzed under an older one are not reused.
	planGen uint64

	// ProcessID is the session's number in BackendKeyData, which
	// pg_backend_pid reports; the wire layer sets it.
	ProcessID uint32
	// ClientHost is the client's IP address, "" for a Unix socket; the
	// wire layer sets it. The session's commits are by user@ClientHost,
	// as Doltgres's are (user@localhost without one).
	ClientHost string
	started    time.Time       // backend_start
	activity   sessionActivity // what pg_stat_activity shows of it

	// Notify receives ParameterStatus changes and notices.
	OnParameter func(name, value string)
	OnNotice    func(error)
	// OnNotification is called, from any goroutine, when notifications
	// for the session are ready (see Notifications); set before the
	// session's first LISTEN.
	OnNotification func()
	notify         notifyState // LISTEN/NOTIFY (notify.go)
}

type savepoint struct {
	name   string
	mark   exec.Mark // the transaction's state here
	notify notifyMark
	vars   map[string]string // the settings SET changed in the transaction, as they were here
	// rebased: the transaction's rebased rows here (exec.Txn.RebasedMark).
	rebased map[string]map[string][]byte
	// locks marks the locks held here (exec.RowLocks.LockMark).
	locks int
	// roles counts the transaction's role changes made before it.
	roles int
	// cursors is Session.cursorsDeclared here: the cursors declared
	// since close when the savepoint is rolled back to.
	cursors uint64
	// readOnly is the transaction's read-only mode here: SET TRANSACTION
	// READ ONLY in a subtransaction lasts until it ends, released or
	// rolled back, as in PostgreSQL.
	readOnly bool
}

// defaultVars are the settings a session starts with, PostgreSQL's
// defaults for a client in the C locale.
var defaultVars = map[string]string{
	"datestyle":                           "ISO, MDY",
	"intervalstyle":                       "postgres",
	"timezone":                            "UTC",
	"client_encoding":                     "UTF8",
	"server_encoding":                     "UTF8",
	"standard_conforming_strings":         "on",
	"extra_float_digits":                  "1",
	"search_path":                         `"$user", public`,
	"application_name":                    "",
	"server_version":                      "15.0",
	"server_version_num":                  "150000",
	"integer_datetimes":                   "on",
	"transaction_isolation":               "read committed",
	"default_transaction_isolation":       "read committed",
	"lc_messages":                         "C",
	"lc_monetary":                         "C",
	"lc_numeric":                          "C",
	"lc_time":                             "C",
	"max_identifier_length":               "63",
	"is_superuser":                        "on",
	"session_authorization":               "postgres",
	"role":                                "none",
	"bytea_output":                        "hex",
	"default_text_search_config":          "pg_catalog.english",
	"escape_string_warning":               "on",
	"work_mem":                            "4MB",
	"maintenance_work_mem":                "64MB",
	"max_query_memory":                    "0", // no limit; the server sets its own (Engine.ServerSettings)
	"max_stack_depth":                     "2MB",
	"statement_timeout":                   "0",
	"lock_timeout":                        "0",
	"deadlock_timeout":                    "1s",
	"idle_in_transaction_session_timeout": "0",
	"client_min_messages":                 "notice",
	"default_transaction_read_only":       "off",
	"transaction_read_only":               "off",
	"default_transaction_deferrable":      "off",
	"transaction_deferrable":              "off",
	"synchronous_commit":                  "on",
	"timezone_abbreviations":              "Default",
	"jit":                                 "off",
	"jit_above_cost":                      "100000",
	"row_security":                        "on",
	"allow_system_table_mods":             "off",
	"restrict_nonsystem_relation_kind":    "",
	"synchronize_seqscans":                "on",
	"max_index_keys":                      "32",
	"max_function_args":                   "100",
	"block_size":                          "8192",
	"wal_block_size":                      "8192",
	"data_checksums":                      "off",
	"quote_all_identifiers":               "off",
	"xmloption":                           "content",
	"xmlbinary":                           "base64",
	"default_tablespace":                  "",
	"temp_tablespaces":                    "",
	"lo_compat_privileges":                "off",
	"idle_session_timeout":                "0",
	"session_replication_role":            "origin",
	"array_nulls":                         "on",
	"backslash_quote":                     "safe_encoding",
	"transform_null_equals":               "off",
	"default_toast_compression":           "pglz",
	"max_connections":                     "100",
	"password_encryption":                 "scram-sha-256",
	"ssl":                                 "off", // the server sets on with TLS (Engine.ServerSettings)
	"ssl_min_protocol_version":            "TLSv1.2",
	"shared_buffers":                      "128MB",
	"effective_cache_size":                "4GB",
	"log_statement":                       "none",
	"log_min_duration_statement":          "-1",
	"track_activities":                    "on",
	"check_function_bodies":               "on",
	"default_table_access_method":         "heap",
	"enable_hashagg":                      "on",
	"enable_seqscan":                      "on",
	"enable_sort":                         "on",
	"enable_bitmapscan":                   "on",
	"enable_hashjoin":                     "on",
	"enable_nestloop":                     "on",
	"enable_mergejoin":                    "on",
	"enable_indexscan":                    "on",
	"enable_indexonlyscan":                "on",
	"enable_memoize":                      "on",
	"enable_material":                     "on",
	"enable_partitionwise_join":           "off",
	"enable_partitionwise_aggregate":      "off",
	"enable_incremental_sort":             "on",
	"enable_parallel_append":              "on",
	"enable_parallel_hash":                "on",
	"enable_tidscan":                      "on",
	"enable_presorted_aggregate":          "on",
	"parallel_setup_cost":                 "1000",
	"parallel_tuple_cost":                 "0.1",
	"min_parallel_table_scan_size":        "8MB",
	"min_parallel_index_scan_size":        "512kB",
	"max_parallel_workers_per_gather":     "2",
	"random_page_cost":                    "4",
	"seq_page_cost":                       "1",
	"cpu_tuple_cost":                      "0.01",
	"from_collapse_limit":                 "8",
	"join_collapse_limit":                 "8",
	"geqo":                                "on",
	"plan_cache_mode":                     "auto",
	"constraint_exclusion":                "partition",
	"cursor_tuple_fraction":               "0.1",
	"default_statistics_target":           "100",
}

// reported are the settings whose changes are sent as ParameterStatus.
var reported = map[string]string{
	"datestyle": "DateStyle", "intervalstyle": "IntervalStyle", "timezone": "TimeZone",
	"client_encoding": "client_encoding", "application_name": "application_name",
	"standard_conforming_strings": "standard_conforming_strings", "is_superuser": "is_superuser",
}

// Connect opens a session on database, which may name a revision as
// db/rev or db@rev: a branch (read-write), or a tag, a commit hash or any
// other revision spec (read-only, SQLSTATE 25006 on writes).
func (e *Engine) Connect(ctx context.Context, user, database string, params map[string]string) (*Session, error) {
	if err := e.checkConnectionLimit(ctx, user); err != nil {
		return nil, err
	}
	repo, branch, detached, err := e.openDatabase(ctx, database)
	if err != nil {
		return nil, err
	}
	if err := e.checkConnect(ctx, user, repo.Name()); err != nil {
		return nil, err
	}
	s := &Session{e: e, user: user, database: database, repo: repo, branch: branch, detached: detached, readOnly: detached != nil || e.Replicated(repo.Name()), vars: map[string]string{}, prepared: map[string]*preparedStmt{}, cursors: map[string]*cursor{}}
	for k, v := range defaultVars {
		s.vars[k] = v
	}
	for k, v := range e.ServerSettings {
		s.vars[k] = v
	}
	s.vars["session_authorization"] = user
	for k, v := range params {
		k = strings.ToLower(k)
		if _, ok := defaultVars[k]; ok && k != "server_version" {
			s.vars[k] = v
		}
	}
	s.started = time.Now()
	s.publish("idle", "")
	e.live.add(s)
	return s, nil
}

// openDatabase opens a database name as a session does: db, db/rev or
// db@rev, where rev is a branch (read-write) or any other revision
// (read-only: detached is set).
func (e *Engine) openDatabase(ctx context.Context, database string) (repo *versioning.Repo, branch string, detached *dolt.Detached, err error) {
	name, rev := SplitDatabaseName(database)
	repo, err = versioning.OpenDatabase(ctx, e.st, name)
	if errors.Is(err, versioning.ErrNoDatabase) {
		return nil, "", nil, pgerr.New(pgerr.InvalidCatalogName, "database %q does not exist", database)
	}
	if err != nil {
		return nil, "", nil, err
	}
	if rev == "" {
		if rev, err = repo.HomeBranch(ctx); err != nil {
			return nil, "", nil, err
		}
	}
	repo.SetCommitter(&e.commits)
	branch, detached, err = dolt.OpenRevision(ctx, repo, rev)
	if err != nil {
		return nil, "", nil, err
	}
	return repo, branch, detached, nil
}

// SplitDatabaseName splits a database name as a connection gives it (db,
// db/rev or db@rev) into the database and the revision, "" when none is
// named (the session then opens the database's home branch).
func SplitDatabaseName(database string) (name, rev string) {
	if i := strings.IndexAny(database, "@/"); i >= 0 {
		return database[:i], database[i+1:]
	}
	return database, ""
}

// useStmt is the name under which a USE statement, which PostgreSQL's
// grammar does not have, reaches set (see statements).
const useStmt = "\x00use"

// use runs USE db, USE "db/branch", USE 'db@rev': Doltgres's way to move a
// session to another database, branch or revision, as if it had connected
// to that name. Not inside a transaction block: the open transaction reads
// the old one.
func (s *Session) use(ctx context.Context, target string) error {
	if s.explicit {
		return pgerr.New(pgerr.ActiveSQLTransaction, "USE cannot run inside a transaction block")
	}
	repo, branch, detached, err := s.e.openDatabase(ctx, target)
	if err != nil {
		return err
	}
	s.database, s.repo, s.detached, s.readOnly = target, repo, detached, detached != nil || s.e.Replicated(repo.Name())
	s.SwitchBranch(branch)
	return nil
}

// useTarget reports whether sql is a USE statement, and its target with
// quotes removed.
func useTarget(sql string) (string, bool) {
	t := strings.TrimSpace(sql)
	t = strings.TrimSpace(strings.TrimSuffix(t, ";"))
	if len(t) < 4 || !strings.EqualFold(t[:3], "use") || (t[3] != ' ' && t[3] != '\t' && t[3] != '\n' && t[3] != '"' && t[3] != '\'') {
		return "", false
	}
	arg := strings.TrimSpace(t[3:])
	if n := len(arg); n >= 2 && (arg[0] == '"' && arg[n-1] == '"' || arg[0] == '\'' && arg[n-1] == '\'') {
		return strings.ReplaceAll(arg[1:n-1], arg[:1]+arg[:1], arg[:1]), true
	}
	if arg == "" || strings.ContainsAny(arg, " \t\n;") {
		return "", false
	}
	return arg, true
}

// Var returns a setting's current value.
func (s *Session) Var(name string) string { return s.vars[strings.ToLower(name)] }

// ReportedVars returns the settings sent as ParameterStatus at startup.
func (s *Session) ReportedVars() map[string]string {
	out := map[string]string{}
	for k, name := range reported {
		out[name] = s.vars[k]
	}
	return out
}

// notice sends a notice or warning to the client unless its severity is
// below client_min_messages, as PostgreSQL does; INFO is always sent.
func (s *Session) notice(err error) {
	if s.OnNotice == nil {
		return
	}
	severity := "NOTICE"
	if e, ok := errors.AsType[*pgerr.Error](err); ok && e.Severity != "" {
		severity = e.Severity
	}
	if severity != "INFO" && messageLevel(severity) < messageLevel(s.vars["client_min_messages"]) && messageLevel(severity) != 0 {
		return
	}
	s.OnNotice(err)
}

// messageLevel ranks a message severity, or a client_min_messages value, in
// PostgreSQL's order for messages sent to the client (LOG and INFO rank
// below NOTICE there); 0 for a name that is neither.
func messageLevel(name string) int {
	switch strings.ToLower(name) {
	case "debug5":
		return 1
	case "debug4":
		return 2
	case "debug3":
		return 3
	case "debug2", "debug":
		return 4
	case "debug1":
		return 5
	case "log":
		return 6
	case "info":
		return 7
	case "notice":
		return 8
	case "warning":
		return 9
	case "error":
		return 10
	}
	return 0
}

// TxStatus is 'I' outside a transaction block, 'T' inside, 'E' inside a
// failed one.
func (s *Session) TxStatus() byte {
	switch {
	case !s.explicit:
		return 'I'
	case s.failed:
		return 'E'
	}
	return 'T'
}

// begin makes sure a transaction is open, starting one from the branch's
// working root.
func (s *Session) begin(ctx context.Context) (*exec.Txn, error) {
	if s.txn != nil {
		return s.txn, nil
	}
	if !s.inGate {
		gen, err := s.e.gate.enter(ctx)
		if err != nil {
			return nil, err
		}
		s.inGate = true
		s.gen.Store(gen)
	}
	root, err := s.workingRoot(ctx)
	if err != nil {
		s.leaveGate()
		return nil, err
	}
	ro := s.readOnly || s.vars["default_transaction_read_only"] == "on"
	s.vars["transaction_isolation"] = s.vars["default_transaction_isolation"] // BEGIN or SET TRANSACTION may change it
	s.vars["transaction_deferrable"] = s.vars["default_transaction_deferrable"]
	s.txn = exec.NewTxn(s.repo, s.branch, ro, root)
	s.txn.Tables = s.e.tables
	s.txn.RowIDs = s.e.rowIDs
	s.txn.XIDs = s.e.xids
	s.txn.Sequences = s.e.seqs
	s.txn.WriteBuffer = s.writeBuffer
	s.txn.Stats = s.e.stats.Database(s.repo.Name())
	if s.detached == nil {
		s.txn.Locks, s.txn.LockOwner, s.txn.Latest = s.e.locks, s.e.txnIDs.Add(1), s.workingRoot
		s.lockOwner.Store(s.txn.LockOwner)
		s.txn.LockTimeouts = s.lockTimeouts
		s.txn.SSI = s.e.ssi
		s.txn.Isolation = exec.ParseIsolation(s.vars["transaction_isolation"])
	}
	tx := s.txn
	planner.InstallHooks(s, tx)
	s.cached = nil // Now moves to the new transaction's start
	return s.txn, nil
}

// refreshSnapshot gives the statement about to run the snapshot PostgreSQL
// gives it: a transaction block's first statement takes its snapshot then,
// not at BEGIN; in READ COMMITTED every statement takes a new one, with
// the transaction's own changes carried onto it (merged as COMMIT merges
// them, so a concurrent insert of one of its keys fails here with 23505).
// A READ COMMITTED block with savepoints keeps its snapshot: their roots
// were taken on it.
func (s *Session) refreshSnapshot(ctx context.Context, tx *exec.Txn) error {
	if !s.explicit || tx.Latest == nil || tx.Queried && (tx.Isolation != exec.ReadCommitted || len(s.saves) > 0) {
		return nil // an implicit transaction began with its statement
	}
	latest, err := tx.Latest(ctx)
	if err != nil || latest.Addr() == tx.Start.Addr() {
		return err
	}
	if ok, err := tx.RebaseDeferred(ctx, latest); ok || err != nil {
		return commitError(err)
	}
	root := latest
	if tx.Root().Addr() != tx.Start.Addr() || tx.HasRebased() {
		if root, err = versioning.MergeRoots(ctx, tx.Start, tx.Root(), latest, exec.NewMergeIndexer(tx)); err != nil {
			return commitError(err)
		}
	}
	tx.Rebase(latest, root)
	return nil
}

// commit ends the open transaction, making its changes durable; its
// notifications are delivered if it succeeds.
func (s *Session) commit(ctx context.Context) (err error) {
	if tx := s.txn; tx != nil {
		// Deferred constraint triggers fire first, while the transaction
		// can still run their functions' statements.
		if err := tx.FireDeferredTriggers(ctx); err != nil {
			s.rollback()
			return err
		}
	}
	if err := s.holdCursors(ctx); err != nil {
		s.rollback() // as PostgreSQL: a held cursor that fails fails the commit
		return err
	}
	defer func() {
		if rerr := s.endRoles(ctx, err == nil); err == nil {
			err = rerr
		}
		if derr := s.endDatabaseInfos(ctx, err == nil); err == nil {
			err = derr
		}
		s.endNotify(err == nil)
		s.endVars(err == nil)
	}()
	s.endCursors(true)
	s.endLargeObjects()
	tx := s.txn
	s.txn, s.explicit, s.failed, s.saves = nil, false, false, nil
	defer s.leaveGate()   // after the commit: its roots are the branch's then
	s.seqs.advanced = nil // committed with the rest
	if tx == nil {
		return nil
	}
	if err := tx.CheckDeferred(ctx); err != nil {
		s.releaseLocks(tx, false)
		recordEnd(tx, false)
		return err // a deferred unique constraint fails: nothing is committed
	}
	if err := tx.SerialPreCommit(); err != nil {
		s.releaseLocks(tx, false)
		recordEnd(tx, false)
		return err
	}
	// The deferred changes are not written here: the committer replays
	// them onto the branch's working root (versioning.Replayer).
	_, err = s.repo.CommitTransaction(ctx, s.branch, tx.Start, tx.Catalog(), exec.NewMergeIndexer(tx))
	s.releaseLocks(tx, err == nil) // after the commit is durable: waiters then see the change
	recordEnd(tx, err == nil)
	return commitError(err)
}

// recordEnd records the end of tx, committed or rolled back: in its
// database's statistics, and as its transaction id's outcome
// (txid_status).
func recordEnd(tx *exec.Txn, committed bool) {
	if tx != nil {
		tx.EndXID(committed)
	}
	switch {
	case tx == nil || tx.Stats == nil:
	case committed:
		tx.Stats.XactCommit.Add(1)
	default:
		tx.Stats.XactRollback.Add(1)
	}
}

// releaseLocks ends tx's hold on its locks, and its part in serializable
// snapshot isolation, committed or not.
func (s *Session) releaseLocks(tx *exec.Txn, committed bool) {
	if tx != nil {
		tx.SerialEnd(committed)
	}
	if tx != nil && tx.Locks != nil {
		if committed {
			tx.Locks.PublishMoved(tx.LockOwner)
		}
		tx.Locks.ReleaseAll(tx.LockOwner)
		s.lockOwner.CompareAndSwap(tx.LockOwner, 0)
	}
}

// commitError turns a failed commit-time merge into PostgreSQL's error: a
// key both transactions inserted is 23505, as for PostgreSQL's second
// inserter; other concurrent changes to one row are 40001.
func commitError(err error) error {
	var dup *versioning.DuplicateKeyError
	switch {
	case errors.As(err, &dup):
		e := pgerr.Wrap(err, pgerr.UniqueViolation, "%s", dup.Error()).WithTable(dup.Schema, dup.Table).WithConstraint(dup.Constraint)
		if dup.Def != nil {
			e.Detail = exec.DuplicateKeyDetail(dup.Def, dup.Row, dup.Cols)
		}
		return e
	case errors.Is(err, versioning.ErrConflict):
		return pgerr.Wrap(err, pgerr.SerializationFailure, "could not serialize access due to concurrent update")
	case errors.Is(err, versioning.ErrCollected):
		return pgerr.Wrap(err, pgerr.SerializationFailure, "could not serialize access due to a concurrent garbage collection")
	}
	return err
}

func (s *Session) rollback() {
	s.endNotify(false)
	s.endVars(false)
	s.endCursors(false)
	s.endLargeObjects()
	s.endRoles(context.Background(), false)         // a rollback saves nothing: no error
	s.endDatabaseInfos(context.Background(), false) // nor here
	s.releaseLocks(s.txn, false)
	recordEnd(s.txn, false)
	s.txn, s.explicit, s.failed, s.saves = nil, false, false, nil
	s.leaveGate()
}

// writing returns ctx carrying the session's generation, for a call that
// may write chunks (gcgate.go).
func (s *Session) writing(ctx context.Context) context.Context {
	return versioning.WithWriterGeneration(ctx, &s.gen)
}

// leaveGate counts the session's transaction out of the engine's gate.
func (s *Session) leaveGate() {
	if s.inGate {
		s.inGate = false
		s.e.gate.leave(s.gen.Swap(0))
	}
}

// Sync ends a batch of statements: the implicit transaction commits, or
// rolls back if the batch failed; an explicit one is marked failed.
func (s *Session) Sync(ctx context.Context, failed bool) error {
	ctx = s.writing(ctx)
	defer s.publishIdle()
	if s.explicit {
		if failed {
			s.failBlock()
		}
		return nil
	}
	if failed {
		s.rollback()
		s.keepAdvances(ctx)
		return nil
	}
	return s.commit(ctx)
}

// publishIdle records the session as waiting for its client.
func (s *Session) publishIdle() {
	switch {
	case s.explicit && s.failed:
		s.publish("idle in transaction (aborted)", "")
	case s.explicit:
		s.publish("idle in transaction", "")
	default:
		s.publish("idle", "")
	}
}

// Close ends the session, abandoning any open transaction.
func (s *Session) Close() {
	s.e.live.remove(s)
	s.closeNotify()
	s.rollback()
	s.unlockAdvisoryAll()
	s.dropTempSchema(context.Background())
}

// Parse parses sql into its statements.
func (s *Session) Parse(sql string) ([]*Statement, error) {
	tree, err := pg.Parse(sql)
	return s.statements(sql, tree, nil, err)
}

// ParseSimple parses the string of a simple Query message. A query the
// session repeats with other literals reuses the tree of an earlier one
// (package parsecache); its statement holds that tree until Close.
func (s *Session) ParseSimple(sql string) ([]*Statement, error) {
	if s.parses == nil {
		s.parses = parsecache.New()
	}
	tree, lease, err := s.parses.Parse(sql)
	return s.statements(sql, tree, lease, err)
}

// statements makes the statements of a parse; when the parser failed, of
// the query rewritten from AS OF, if it was that.
func (s *Session) statements(sql string, tree *pg.ParseResult, lease *parsecache.Lease, err error) ([]*Statement, error) {
	if err != nil {
		if target, ok := useTarget(sql); ok {
			use := &pg.VariableSetStmt{Kind: pg.VariableSetKind_VAR_SET_VALUE, Name: useStmt, Args: []*pg.Node{pg.MakeAConstStrNode(target, -1)}}
			raw := &pg.RawStmt{Stmt: &pg.Node{Node: &pg.Node_VariableSetStmt{VariableSetStmt: use}}, StmtLen: int32(len(sql))}
			return []*Statement{{s: s, raw: raw, sql: sql, lease: lease}}, nil
		}
		rewritten, ok := dolt.RewriteAsOf(sql, s.repo.Name())
		if !ok {
			return nil, planner.SyntaxError(err)
		}
		if tree, err = pg.Parse(rewritten); err != nil {
			return nil, planner.SyntaxError(err)
		}
		// The statements' positions are in the rewritten text, which is
		// then their text (Statement.Text).
		sql = rewritten
	}
	out := make([]*Statement, 0, len(tree.Stmts))
	for _, raw := range tree.Stmts {
		hoistInto(raw.Stmt.GetSelectStmt())
		out = append(out, &Statement{s: s, raw: raw, sql: sql, lease: lease, multi: len(tree.Stmts) > 1, top: true})
	}
	return out, nil
}

// currentUser is current_user, current_role and user: the role SET ROLE
// chose, else the session's.
func (s *Session) currentUser(*exec.Env, []exec.Datum) (exec.Datum, error) {
	return exec.DText(s.CurrentRole()), nil
}

// sessionUser is session_user: the role that connected.
func (s *Session) sessionUser(*exec.Env, []exec.Datum) (exec.Datum, error) {
	return exec.DText(s.SessionRole()), nil
}

// hoistInto moves the INTO of a set operation's first SELECT (SELECT 1
// INTO t UNION SELECT 2, where the grammar leaves it) to the set
// operation itself, as PostgreSQL's analysis does: the statement creates
// t from the whole result. Moving it twice is moving it once, so a cached
// parse may be hoisted again.
func hoistInto(sel *pg.SelectStmt) {
	if sel == nil || sel.Op == pg.SetOperation_SETOP_NONE || sel.IntoClause != nil {
		return
	}
	first := sel
	for first.Op != pg.SetOperation_SETOP_NONE && first.Larg != nil {
		first = first.Larg
	}
	if first.IntoClause != nil {
		sel.IntoClause, first.IntoClause = first.IntoClause, nil
	}
}
