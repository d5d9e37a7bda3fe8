package funcs

import (
	"time"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// The functions of the clock and the session that need no catalog: now()
// and its kin, the SQL value functions (CURRENT_DATE, LOCALTIMESTAMP, ...),
// pg_typeof. current_schema and the user names need the session: the
// planner answers them.

// txnTime is the transaction's start: what now(), CURRENT_TIMESTAMP and
// 'now' read, the same all through a transaction.
func txnTime(env *exec.Env) time.Time {
	switch {
	case env != nil && !env.TxnStart.IsZero():
		return env.TxnStart
	case env != nil && env.Settings != nil && env.Settings.Now != nil:
		return env.Settings.Now()
	}
	return time.Now()
}

// CurrentTimestamp is CURRENT_TIMESTAMP[(precision)] (precision < 0: none):
// the transaction's start as a timestamptz.
func CurrentTimestamp(precision int32) exec.Fn {
	return func(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
		us := exec.TimestampTZ(txnTime(env))
		if precision >= 0 {
			us, _ = types.AdjustTimestampTypmod(us, precision)
		}
		return exec.DTimestamp(us), nil
	}
}

// LocalTimestamp is LOCALTIMESTAMP[(precision)]: the transaction's start
// on the session zone's wall clock.
func LocalTimestamp(precision int32) exec.Fn {
	return func(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
		us := exec.LocalMicros(exec.TimestampTZ(txnTime(env)), env.Settings)
		if precision >= 0 {
			us, _ = types.AdjustTimestampTypmod(us, precision)
		}
		return exec.DTimestamp(us), nil
	}
}

// LocalTime is LOCALTIME[(precision)]: the time of day of the
// transaction's start in the session zone.
func LocalTime(precision int32) exec.Fn {
	return func(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
		us := exec.LocalMicros(exec.TimestampTZ(txnTime(env)), env.Settings)
		t := us % exec.MicrosPerDay
		if t < 0 {
			t += exec.MicrosPerDay
		}
		if precision >= 0 {
			t = int64(types.AdjustTimeTypmod(types.Time(t), precision))
		}
		return exec.DTime(t), nil
	}
}

// CurrentDate is CURRENT_DATE: the session zone's date at the
// transaction's start.
func CurrentDate(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
	return exec.DDate(exec.MicrosToDate(exec.LocalMicros(exec.TimestampTZ(txnTime(env)), env.Settings))), nil
}

func registerSystem() {
	// pg_trigger_depth is how many trigger functions are running, nested.
	exec.Register(&exec.Func{Name: "pg_trigger_depth", Ret: exec.OIDInt4, Fn: func(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
		if env == nil || env.Txn == nil {
			return exec.DInt(0), nil
		}
		return exec.DInt(int64(env.Txn.TriggerDepth)), nil
	}})
	registerTxid()
	now := CurrentTimestamp(-1)
	for _, name := range []string{"now", "transaction_timestamp", "statement_timestamp"} {
		exec.Register(&exec.Func{Name: name, Ret: exec.OIDTimestampTZ, Fn: now})
	}
	exec.Register(&exec.Func{Name: "clock_timestamp", Ret: exec.OIDTimestampTZ, Fn: func(*exec.Env, []exec.Datum) (exec.Datum, error) {
		return exec.DTimestamp(exec.TimestampTZ(time.Now())), nil
	}})
	exec.Register(&exec.Func{Name: "timeofday", Ret: exec.OIDText, Fn: func(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
		// PostgreSQL's format: "%a %b %d %H:%M:%S.uuuuuu %Y %Z".
		t := time.Now().In(exec.Location(env.Settings))
		return exec.DText(t.Format("Mon Jan 02 15:04:05.000000 2006 MST")), nil
	}})
	exec.Register(&exec.Func{Name: "pg_typeof", Args: []uint32{exec.OIDAny}, Ret: exec.OIDRegtype, Build: func(args []exec.T) (exec.Fn, exec.T, error) {
		// regtypeout prints format_type_be's name, where bpchar without a
		// typmod is "character".
		oid := args[0].OID
		if cat, _ := types.UserCategoryOf(types.Oid(oid)); cat != 0 {
			return func(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
				return exec.DRegOID(oid, exec.FormatTypeIn(env.Settings, oid, -1)), nil
			}, exec.TRegtype, nil
		}
		text := types.FormatType(types.Oid(oid), -1)
		if oid == exec.OIDBpchar {
			text = "character"
		}
		name := exec.DRegOID(oid, text)
		return func(*exec.Env, []exec.Datum) (exec.Datum, error) { return name, nil }, exec.TRegtype, nil
	}})
}

// registerTxid registers the transaction id functions: txid_current
// and pg_current_xact_id (which give the transaction its id, exec.XIDs,
// if it has none yet), their _if_assigned forms, and txid_status and
// pg_xact_status: the bigint forms and the xid8 ones.
func registerTxid() {
	for _, f := range []struct {
		current, ifAssigned, status string
		t                           uint32
	}{
		{"txid_current", "txid_current_if_assigned", "txid_status", exec.OIDInt8},
		{"pg_current_xact_id", "pg_current_xact_id_if_assigned", "pg_xact_status", exec.OIDXid8},
	} {
		exec.Register(&exec.Func{Name: f.current, Ret: f.t, Fn: func(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
			if env == nil || env.Txn == nil || env.Txn.XIDs == nil {
				return exec.Null, pgerr.New(pgerr.FeatureNotSupported, "transaction ids are not available here")
			}
			return exec.DInt(env.Txn.XID()), nil
		}})
		exec.Register(&exec.Func{Name: f.ifAssigned, Ret: f.t, Fn: func(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
			if env == nil || env.Txn == nil {
				return exec.Null, nil
			}
			if id, ok := env.Txn.AssignedXID(); ok {
				return exec.DInt(id), nil
			}
			return exec.Null, nil
		}})
		exec.Register(&exec.Func{Name: f.status, Args: []uint32{f.t}, Ret: exec.OIDText, Strict: true, Fn: func(env *exec.Env, args []exec.Datum) (exec.Datum, error) {
			id := args[0].I
			if env == nil || env.Txn == nil || env.Txn.XIDs == nil {
				return exec.Null, nil
			}
			status, ok, future := env.Txn.XIDs.Status(id)
			switch {
			case future || id < 0:
				return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "transaction ID %d is in the future", uint64(id))
			case !ok:
				return exec.Null, nil
			}
			return exec.DText(status), nil
		}})
	}
}
