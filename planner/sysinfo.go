package planner

import (
	"slices"
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
)

// systemInfoFunc resolves the functions that report on the session and
// the server: current_setting, current_schemas, pg_backend_pid, pg_is_in_recovery,
// pg_postmaster_start_time. Drivers and tools (pg_dump among them) call
// them first thing.
func (s *Session) systemInfoFunc(name string, args []exec.Expr) (exec.Fn, exec.T, bool) {
	n := len(args)
	switch {
	case name == "current_setting" && (n == 1 || n == 2):
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if a[0].IsNull() {
				return exec.Null, nil
			}
			v, ok := s.vars[strings.ToLower(a[0].S)]
			if !ok {
				if n == 2 && !a[1].IsNull() && a[1].Bool() {
					return exec.Null, nil // missing_ok
				}
				return exec.Null, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter %q", a[0].S)
			}
			return exec.DText(v), nil
		}, exec.TText, true
	case name == "current_schemas" && n == 1:
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if a[0].IsNull() {
				return exec.Null, nil
			}
			path := s.searchPath()
			if a[0].Bool() {
				path = s.lookupPath() // with the implicit schemas
			}
			var names []exec.Datum
			for _, sc := range path {
				if _, ok, err := env.Txn.Root.Schema(env.Ctx, sc); err != nil {
					return exec.Null, err
				} else if ok || isSystemSchema(sc) || sc == s.tempSchema && sc != "" {
					names = append(names, exec.DText(sc))
				}
			}
			return exec.NewArray(exec.OIDName, names), nil
		}, exec.ArrayType(exec.TName), true
	case name == "pg_blocking_pids" && n == 1:
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if a[0].IsNull() {
				return exec.Null, nil
			}
			var pids []exec.Datum
			for _, p := range s.e.live.blockingPIDs(s.e.locks, uint32(a[0].I)) {
				pids = append(pids, exec.DInt(int64(p)))
			}
			return exec.NewArray(exec.OIDInt4, pids), nil
		}, exec.ArrayType(exec.TInt4), true
	case name == "pg_isolation_test_session_is_blocked" && n == 2:
		// Whether the session waits for a lock held by one of the
		// interesting sessions: what PostgreSQL's isolation tester asks.
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if a[0].IsNull() || a[1].IsNull() {
				return exec.Null, nil
			}
			interesting := int4List(a[1])
			for _, p := range s.e.live.blockingPIDs(s.e.locks, uint32(a[0].I)) {
				if slices.Contains(interesting, int64(p)) {
					return exec.DBool(true), nil
				}
			}
			return exec.DBool(false), nil
		}, exec.TBool, true
	case name == "pg_backend_pid" && n == 0:
		return func(*exec.Env, []exec.Datum) (exec.Datum, error) {
			return exec.DInt(int64(s.ProcessID)), nil
		}, exec.TInt4, true
	case (name == "pg_cancel_backend" || name == "pg_terminate_backend") && (n == 1 || n == 2 && name == "pg_terminate_backend"):
		signal := s.e.CancelBackend
		if name == "pg_terminate_backend" {
			signal = s.e.TerminateBackend
		}
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if a[0].IsNull() {
				return exec.Null, nil
			}
			if signal == nil || a[0].I <= 0 || a[0].I > 1<<32-1 || !signal(uint32(a[0].I)) {
				s.notice(pgerr.NewWarning(pgerr.Code("01000"), "PID %d is not a PostgreSQL backend process", a[0].I))
				return exec.DBool(false), nil
			}
			return exec.DBool(true), nil
		}, exec.TBool, true
	case n == 1 && (name == "pg_relation_size" || name == "pg_table_size" || name == "pg_indexes_size" || name == "pg_total_relation_size"):
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if a[0].IsNull() {
				return exec.Null, nil
			}
			oid, ok := argOID(a[0])
			if a[0].Kind == exec.KindText { // a name, as its regclass argument
				o, _, found, err := s.resolveRegclass(env, a[0].S)
				if err != nil {
					return exec.Null, err
				}
				if !found {
					return exec.Null, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", a[0].S)
				}
				oid, ok = o, true
			}
			if !ok {
				return exec.Null, nil
			}
			snap, err := s.snapshot(env)
			if err != nil {
				return exec.Null, err
			}
			r, ok := snap.RelationByOID(oid)
			if !ok {
				return exec.Null, nil
			}
			size, err := relationSize(env, r, name)
			return exec.DInt(int64(size)), err
		}, exec.TInt8, true
	case name == "pg_database_size" && n == 1:
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if a[0].IsNull() {
				return exec.Null, nil
			}
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
		}, exec.TInt8, true
	case name == "pg_is_in_recovery" && n == 0:
		return func(*exec.Env, []exec.Datum) (exec.Datum, error) { return exec.DBool(false), nil }, exec.TBool, true
	case name == "pg_postmaster_start_time" && n == 0:
		return func(*exec.Env, []exec.Datum) (exec.Datum, error) {
			return timestampDatum(s.e.started), nil
		}, exec.TTimestampTZ, true
	}
	return s.dumpFunc(name, args)
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
	size := func(a store.Address) (uint64, error) {
		if a.IsZero() {
			return 0, nil
		}
		m, err := prolly.Load(env.Ctx, env.Txn.Root.Store(), a)
		if err != nil {
			return 0, err
		}
		return m.Size(env.Ctx)
	}
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

// int4List reads an int4[] argument, given as an array or as the text of
// one (an untyped literal such as '{1,2}').
func int4List(d exec.Datum) []int64 {
	var out []int64
	if d.Kind == exec.KindArray {
		for _, e := range d.Array().Elems {
			if !e.IsNull() {
				out = append(out, e.I)
			}
		}
		return out
	}
	for _, f := range strings.Split(strings.Trim(d.S, "{} "), ",") {
		if n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}
