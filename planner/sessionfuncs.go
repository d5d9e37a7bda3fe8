package planner

import (
	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// The functions that need the session running the statement — its
// database, user and branch, and the version-control functions that move
// the repository — are registered here with exec's built-ins, with their
// PostgreSQL signatures: one registry and one overload resolution for
// every call, so that they take bind parameters, coerce their arguments
// and list in pg_proc like any function. At run time they reach the
// session through exec.Env.Session.
func init() {
	text := []uint32{exec.OIDText}
	exec.Register(
		withSession("current_database", nil, exec.OIDName, func(s *Session, _ *exec.Env, _ []exec.Datum) (exec.Datum, error) {
			return exec.DText(s.database), nil
		}),
		withSession("version", nil, exec.OIDText, func(*Session, *exec.Env, []exec.Datum) (exec.Datum, error) {
			return exec.DText("PostgreSQL 15.0 (prollypg) on x86_64-pc-linux-gnu, compiled by Go, 64-bit"), nil
		}),
		withSession("active_branch", nil, exec.OIDText, func(s *Session, _ *exec.Env, _ []exec.Datum) (exec.Datum, error) {
			if s.detached != nil {
				return exec.Null, nil
			}
			return exec.DText(s.branch), nil
		}),
		withSession("dolt_version", nil, exec.OIDText, func(*Session, *exec.Env, []exec.Datum) (exec.Datum, error) {
			return exec.DText(Version), nil
		}),
		withSession("dolt_hashof", text, exec.OIDText, textResult((*Session).hashOf)),
		withSession("hashof", text, exec.OIDText, textResult((*Session).hashOf)),
		withSession("dolt_hashof_table", text, exec.OIDText, textResult((*Session).hashOfTable)),
		withSession("dolt_hashof_table", []uint32{exec.OIDText, exec.OIDText}, exec.OIDText, textResult((*Session).hashOfTable)),
		withSession("dolt_hashof_db", nil, exec.OIDText, textResult((*Session).hashOfDB)),
		withSession("dolt_hashof_db", text, exec.OIDText, textResult((*Session).hashOfDB)),
		withSession("dolt_merge_base", []uint32{exec.OIDText, exec.OIDText}, exec.OIDText, textResult((*Session).mergeBase)),
	)
	for _, f := range []struct {
		name string
		fn   sessionFn
	}{
		{"current_user", (*Session).currentUser},
		{"current_role", (*Session).currentUser},
		{"session_user", (*Session).sessionUser},
		{"user", (*Session).currentUser},
	} {
		exec.Register(withSession(f.name, nil, exec.OIDName, f.fn))
	}
	// The repository's commands take their arguments as command-line
	// words (dolt_commit('-am', 'message')), any number of them. Their
	// results are Doltgres's: one typed row, whose columns are the OUT
	// parameters of the function (statusOnly: dolt_add returns 0, and
	// SELECT * FROM dolt_add('.') has a column status).
	status := []exec.ResultColumn{{Name: "status", T: exec.TInt4}}
	for _, f := range []struct {
		name string
		fn   sessionFn
		errs func(error) error
		cols []exec.ResultColumn
	}{
		{"dolt_add", (*Session).doltAdd, vcsError, status},
		{"dolt_commit", (*Session).doltCommit, vcsError, []exec.ResultColumn{{Name: "hash", T: exec.TText}}},
		{"dolt_branch", (*Session).doltBranch, vcsError, status},
		{"dolt_checkout", (*Session).doltCheckout, vcsError, []exec.ResultColumn{{Name: "status", T: exec.TInt4}, {Name: "message", T: exec.TText}}},
		{"dolt_reset", (*Session).doltReset, vcsError, status},
		{"dolt_tag", (*Session).doltTag, vcsError, status},
		{"dolt_clean", (*Session).doltClean, vcsError, status},
		{"dolt_merge", (*Session).doltMerge, mergeError, []exec.ResultColumn{{Name: "hash", T: exec.TText},
			{Name: "fast_forward", T: exec.TInt4}, {Name: "conflicts", T: exec.TInt4}, {Name: "message", T: exec.TText}}},
		{"dolt_cherry_pick", (*Session).doltCherryPick, mergeError, []exec.ResultColumn{{Name: "hash", T: exec.TText},
			{Name: "data_conflicts", T: exec.TInt4}, {Name: "schema_conflicts", T: exec.TInt4}, {Name: "constraint_violations", T: exec.TInt4}}},
		{"dolt_revert", (*Session).doltRevert, mergeError, []exec.ResultColumn{{Name: "hash", T: exec.TText}}},
		{"dolt_conflicts_resolve", (*Session).doltConflictsResolve, mergeError, status},
	} {
		op := versionOp(f.fn, f.errs)
		ret := exec.OIDRecord
		if len(f.cols) == 1 {
			ret = f.cols[0].T.OID
		}
		// The overloads resolve calls; their row is the command's result.
		fixed, variadic := withSession(f.name, nil, ret, op), withSessionVariadic(f.name, exec.OIDText, ret, op)
		build := func([]exec.T) *exec.SRF {
			return &exec.SRF{Cols: f.cols, Named: len(f.cols) == 1, NullArgs: true, Rows: commandRow(f.cols, fixed.Fn)}
		}
		exec.RegisterSRF(fixed, build)
		exec.RegisterSRF(variadic, build)
	}
}

// commandRow makes a repository command's result (commandResult) the one
// row of its OUT columns; a missing trailing field is empty text
// (dolt_checkout of tables has no message), and a NULL result a row of
// NULLs.
func commandRow(cols []exec.ResultColumn, call func(*exec.Env, []exec.Datum) (exec.Datum, error)) func(*exec.Env, []exec.Datum) ([]exec.Row, error) {
	return func(env *exec.Env, a []exec.Datum) ([]exec.Row, error) {
		d, err := call(env, a)
		if err != nil {
			return nil, err
		}
		row := make(exec.Row, len(cols)) // NULLs: dolt_commit('--skip-empty') with nothing to commit
		if !d.IsNull() {
			fields := d.Record().Fields
			copy(row, fields)
			for i := len(fields); i < len(cols); i++ {
				row[i] = exec.DText("")
			}
		}
		return []exec.Row{row}, nil
	}
}

// sessionFn is a function of the session running the statement.
type sessionFn func(s *Session, env *exec.Env, args []exec.Datum) (exec.Datum, error)

// withSession registers fn, of the given parameter and result types, as a
// function that reaches the statement's session.
func withSession(name string, args []uint32, ret uint32, fn sessionFn) *exec.Func {
	return &exec.Func{Name: name, Args: args, Ret: ret, Fn: func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s, ok := env.Session.(*Session)
		if !ok {
			return exec.Null, pgerr.New(pgerr.FeatureNotSupported, "%s() cannot be called outside a session's statement", name)
		}
		return fn(s, env, a)
	}}
}

// withSessionVariadic is withSession for a function taking any number
// (at least one) of arguments of type elem.
func withSessionVariadic(name string, elem, ret uint32, fn sessionFn) *exec.Func {
	f := withSession(name, []uint32{elem}, ret, fn)
	f.Variadic = true
	return f
}

// strict marks f strict, as pg_proc's proisstrict: a call with a NULL
// argument is NULL without running.
func strict(f *exec.Func) *exec.Func {
	f.Strict = true
	return f
}

// registerStrict registers a strict function of the session (most of
// PostgreSQL's are).
func registerStrict(name string, args []uint32, ret uint32, fn sessionFn) {
	exec.Register(strict(withSession(name, args, ret, fn)))
}

// textResult adapts a function returning a string, with the repository's
// errors given their SQLSTATEs.
func textResult(f func(*Session, *exec.Env, []exec.Datum) (string, error)) sessionFn {
	return func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		v, err := f(s, env, a)
		if err != nil {
			return exec.Null, vcsError(err)
		}
		return exec.DText(v), nil
	}
}

// versionOp adapts a function that changes the repository: the open SQL
// transaction is committed first (invariant 2), and its errors are
// translated by errs.
func versionOp(f sessionFn, errs func(error) error) sessionFn {
	return func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if err := s.flushForVersionOp(env.Ctx); err != nil {
			return exec.Null, err
		}
		d, err := f(s, env, a)
		return d, errs(err)
	}
}
