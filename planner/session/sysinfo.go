package session

import (
	"slices"
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
)

// The functions that report on the session and the server, with
// PostgreSQL's signatures: current_setting, current_schemas,
// pg_backend_pid, pg_is_in_recovery, pg_postmaster_start_time, the lock
// waits, the backend signals and the sizes of relations and of the
// database. Drivers and tools (pg_dump among them) call them first thing.
// All are strict.
func init() {
	int4 := []uint32{exec.OIDInt4}
	for _, args := range [][]uint32{{exec.OIDText}, {exec.OIDText, exec.OIDBool}} {
		registerStrict("current_setting", args, exec.OIDText, func(s *Session, _ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			v, ok := s.vars[strings.ToLower(a[0].S)]
			if !ok {
				if len(a) == 2 && a[1].Bool() {
					return exec.Null, nil // missing_ok
				}
				return exec.Null, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter %q", a[0].S)
			}
			return exec.DText(v), nil
		})
	}
	registerStrict("current_schemas", []uint32{exec.OIDBool}, exec.ArrayType(exec.TName).OID, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		path := s.SearchPath()
		if a[0].Bool() {
			path = s.lookupPath() // with the implicit schemas
		}
		var names []exec.Datum
		for _, sc := range path {
			if _, ok, err := env.Txn.Root().Schema(env.Ctx, sc); err != nil {
				return exec.Null, err
			} else if ok || planner.IsSystemSchema(sc) || sc == s.tempSchema && sc != "" {
				names = append(names, exec.DText(sc))
			}
		}
		return exec.NewArray(exec.OIDName, names), nil
	})
	registerStrict("pg_blocking_pids", int4, exec.ArrayType(exec.TInt4).OID, func(s *Session, _ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		var pids []exec.Datum
		for _, p := range s.e.live.blockingPIDs(s.e.locks, uint32(a[0].I)) {
			pids = append(pids, exec.DInt(int64(p)))
		}
		return exec.NewArray(exec.OIDInt4, pids), nil
	})
	// Whether the session waits for a lock held by one of the
	// interesting sessions: what PostgreSQL's isolation tester asks.
	registerStrict("pg_isolation_test_session_is_blocked", []uint32{exec.OIDInt4, exec.ArrayType(exec.TInt4).OID}, exec.OIDBool, func(s *Session, _ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		var interesting []int64
		for _, e := range a[1].Array().Elems {
			if !e.IsNull() {
				interesting = append(interesting, e.I)
			}
		}
		for _, p := range s.e.live.blockingPIDs(s.e.locks, uint32(a[0].I)) {
			if slices.Contains(interesting, int64(p)) {
				return exec.DBool(true), nil
			}
		}
		return exec.DBool(false), nil
	})
	registerStrict("pg_backend_pid", nil, exec.OIDInt4, func(s *Session, _ *exec.Env, _ []exec.Datum) (exec.Datum, error) {
		return exec.DInt(int64(s.ProcessID)), nil
	})
	// pg_terminate_backend(pid integer, timeout bigint DEFAULT 0) is two
	// overloads here, as the registry has no defaults; the timeout is not
	// waited for.
	cancel := func(e *Engine) func(uint32) bool { return e.CancelBackend }
	terminate := func(e *Engine) func(uint32) bool { return e.TerminateBackend }
	registerStrict("pg_cancel_backend", int4, exec.OIDBool, signalBackend(cancel, false))
	registerStrict("pg_terminate_backend", int4, exec.OIDBool, signalBackend(terminate, true))
	registerStrict("pg_terminate_backend", []uint32{exec.OIDInt4, exec.OIDInt8}, exec.OIDBool, signalBackend(terminate, true))
	for _, name := range []string{"pg_relation_size", "pg_table_size", "pg_indexes_size", "pg_total_relation_size"} {
		registerStrict(name, []uint32{exec.OIDRegclass}, exec.OIDInt8, sizeOf(name))
	}
	registerStrict("pg_relation_size", []uint32{exec.OIDRegclass, exec.OIDText}, exec.OIDInt8, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		switch a[1].S {
		case "main":
			return sizeOf("pg_relation_size")(s, env, a)
		case "fsm", "vm", "init":
			return exec.DInt(0), nil // the row maps have no other forks
		}
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "invalid fork name").
			WithHint(`Valid fork names are "main", "fsm", "vm", and "init".`)
	})
	for _, arg := range []uint32{exec.OIDName, exec.OIDOid} {
		registerStrict("pg_database_size", []uint32{arg}, exec.OIDInt8, (*Session).databaseSize)
	}
	registerStrict("pg_is_in_recovery", nil, exec.OIDBool, func(*Session, *exec.Env, []exec.Datum) (exec.Datum, error) {
		return exec.DBool(false), nil
	})
	registerStrict("pg_postmaster_start_time", nil, exec.OIDTimestampTZ, func(s *Session, _ *exec.Env, _ []exec.Datum) (exec.Datum, error) {
		return exec.DTimestamp(int64(types.TimestampTZFromTime(s.e.started))), nil
	})
}

// signalBackend makes pg_cancel_backend or pg_terminate_backend, which
// send the engine's signal (nil when the server set none): whether it
// reached the backend of the pid, with PostgreSQL's warning when none has
// it.
func signalBackend(signalOf func(*Engine) func(pid uint32) bool, terminate bool) sessionFn {
	return func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if err := s.checkSignal(env, a[0].I, terminate); err != nil {
			return exec.Null, err
		}
		signal := signalOf(s.e)
		if signal == nil || a[0].I <= 0 || a[0].I > 1<<32-1 || !signal(uint32(a[0].I)) {
			s.notice(pgerr.NewWarning(pgerr.Code("01000"), "PID %d is not a PostgreSQL backend process", a[0].I))
			return exec.DBool(false), nil
		}
		return exec.DBool(true), nil
	}
}

// FunctionCall returns the statement that runs a fastpath call (the
// protocol's FunctionCall) of the function whose pg_proc OID is fn with n
// arguments, SELECT pg_catalog.name($1, ...), and its parameter types:
// the overload's. Only built-in functions are called this way (libpq's
// large object functions); another OID is 42883, as in PostgreSQL.
func (s *Session) FunctionCall(fn uint32, n int) (string, []uint32, error) {
	p, ok := catalog.LookupBuiltinProc(fn)
	if !ok || p.Set || p.Agg || p.Func.Variadic || len(p.Func.Args) != n {
		return "", nil, pgerr.New(pgerr.UndefinedFunction, "function with OID %d does not exist", fn)
	}
	params := make([]string, n)
	for i := range params {
		params[i] = "$" + strconv.Itoa(i+1)
	}
	return "SELECT pg_catalog." + planner.QuoteIdent(p.Name) + "(" + strings.Join(params, ", ") + ")", slices.Clone(p.Func.Args), nil
}

// checkSignal checks that the current role may cancel the query of, or
// terminate, the backend of pid, as PostgreSQL's pg_signal_backend does:
// only a superuser signals a superuser's backend; others need to be a
// member of the backend's role or of pg_signal_backend.
func (s *Session) checkSignal(env *exec.Env, pid int64, terminate bool) error {
	if pid <= 0 || pid > 1<<32-1 {
		return nil
	}
	target, ok := s.e.live.userOf(uint32(pid))
	if !ok {
		return nil
	}
	au, err := s.Authority(env.Ctx)
	if err != nil || au.Superuser {
		return err
	}
	what, whose := "cancel superuser query", "whose query is being canceled"
	if terminate {
		what, whose = "terminate superuser process", "whose process is being terminated"
	}
	if r := au.Roles[target]; target == planner.BootstrapSuperuser || r != nil && r.Superuser {
		return pgerr.New(pgerr.InsufficientPrivilege, "must be a superuser to %s", what)
	}
	if !au.Holds[target] && !au.Holds["pg_signal_backend"] {
		return pgerr.New(pgerr.InsufficientPrivilege, "must be a member of the role %s or member of pg_signal_backend", whose)
	}
	return nil
}

// sizeOf makes the size function fn of a relation (see relationSize):
// NULL for an OID no relation has.
func sizeOf(fn string) sessionFn {
	return onCatalog(func(_ *Session, env *exec.Env, _ []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
		r, ok := snap.RelationByOID(oid)
		if !ok {
			return exec.Null, nil
		}
		size, err := relationSize(env, r, fn)
		return exec.DInt(int64(size)), err
	})
}

// databaseSize is pg_database_size of the session's database, named or
// by OID: the bytes of its tables and their indexes.
func (s *Session) databaseSize(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	if a[0].Kind == exec.KindText && a[0].S != s.repo.Name() && a[0].S != s.database ||
		a[0].Kind == exec.KindInt && uint32(a[0].I) != catalog.DatabaseOID(s.database) {
		return exec.Null, pgerr.New(pgerr.FeatureNotSupported, "the size of another database than the session's is not known here")
	}
	snap, err := s.snapshot(env)
	if err != nil {
		return exec.Null, err
	}
	var total uint64
	for _, r := range snap.Relations() {
		if r.Kind != 'r' || r.Table == nil {
			continue
		}
		size, err := relationSize(env, r, "pg_total_relation_size")
		if err != nil {
			return exec.Null, err
		}
		total += size
	}
	return exec.DInt(int64(total)), nil
}

// relationSize is what the size function fn reports of relation r: the
// bytes of its row map (pg_relation_size, pg_table_size), of its
// secondary indexes (pg_indexes_size) or of both (pg_total_relation_size);
// an index's own map for an index. Virtual relations take no space.
func relationSize(env *exec.Env, r catalog.Relation, fn string) (uint64, error) {
	t := r.Table
	if t == nil {
		return 0, nil
	}
	size := func(a versioning.Address) (uint64, error) { return env.Txn.MapSize(env.Ctx, a) }
	if r.Kind == 'i' || r.Kind == 'I' {
		if r.Index == nil || fn == "pg_indexes_size" {
			return 0, nil // a primary key is the row map itself
		}
		return size(r.Index.Rows)
	}
	var total uint64
	if fn != "pg_indexes_size" {
		n, err := size(t.Rows)
		if err != nil {
			return 0, err
		}
		total += n
	}
	if fn == "pg_indexes_size" || fn == "pg_total_relation_size" {
		for _, ix := range t.Indexes {
			n, err := size(ix.Rows)
			if err != nil {
				return 0, err
			}
			total += n
		}
	}
	return total, nil
}
