package planner

import (
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
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
	case name == "pg_is_in_recovery" && n == 0:
		return func(*exec.Env, []exec.Datum) (exec.Datum, error) { return exec.DBool(false), nil }, exec.TBool, true
	case name == "pg_postmaster_start_time" && n == 0:
		return func(*exec.Env, []exec.Datum) (exec.Datum, error) {
			return timestampDatum(s.e.started), nil
		}, exec.TTimestampTZ, true
	}
	return s.dumpFunc(name, args)
}
