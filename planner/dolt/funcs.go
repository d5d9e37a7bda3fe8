package dolt

import (
	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// version is what dolt_version() reports.
const version = "0.1.0"

// The version-control functions are registered with exec's built-ins,
// with their PostgreSQL signatures: one registry and one overload
// resolution for every call, so that they take bind parameters, coerce
// their arguments and list in pg_proc like any function. At run time they
// reach the session running the statement through exec.Env.Session.
func init() {
	text := []uint32{exec.OIDText}
	exec.Register(
		withSession("active_branch", nil, exec.OIDText, func(s session, _ *exec.Env, _ []exec.Datum) (exec.Datum, error) {
			if s.Detached() != nil {
				return exec.Null, nil
			}
			return exec.DText(s.Branch()), nil
		}),
		withSession("dolt_version", nil, exec.OIDText, func(session, *exec.Env, []exec.Datum) (exec.Datum, error) {
			return exec.DText(version), nil
		}),
		withSession("dolt_hashof", text, exec.OIDText, textResult(session.hashOf)),
		withSession("hashof", text, exec.OIDText, textResult(session.hashOf)),
		withSession("dolt_hashof_table", text, exec.OIDText, textResult(session.hashOfTable)),
		withSession("dolt_hashof_table", []uint32{exec.OIDText, exec.OIDText}, exec.OIDText, textResult(session.hashOfTable)),
		withSession("dolt_hashof_db", nil, exec.OIDText, textResult(session.hashOfDB)),
		withSession("dolt_hashof_db", text, exec.OIDText, textResult(session.hashOfDB)),
		withSession("dolt_merge_base", []uint32{exec.OIDText, exec.OIDText}, exec.OIDText, textResult(session.mergeBase)),
	)
	// The repository's commands take their arguments as command-line
	// words (dolt_commit('-am', 'message')), any number of them. Their
	// results are Doltgres's: one typed row, whose columns are the OUT
	// parameters of the function (status: dolt_add returns 0, and
	// SELECT * FROM dolt_add('.') has a column status).
	status := []exec.ResultColumn{{Name: "status", T: exec.TInt4}}
	for _, f := range []struct {
		name string
		fn   sessionFn
		errs func(error) error
		cols []exec.ResultColumn
	}{
		{"dolt_add", session.doltAdd, vcsError, status},
		{"dolt_commit", session.doltCommit, vcsError, []exec.ResultColumn{{Name: "hash", T: exec.TText}}},
		{"dolt_branch", session.doltBranch, vcsError, status},
		{"dolt_checkout", session.doltCheckout, vcsError, []exec.ResultColumn{{Name: "status", T: exec.TInt4}, {Name: "message", T: exec.TText}}},
		{"dolt_reset", session.doltReset, vcsError, status},
		{"dolt_tag", session.doltTag, vcsError, status},
		{"dolt_remote", session.doltRemote, vcsError, status},
		{"dolt_gc", session.doltGC, vcsError, status},
		{"dolt_clean", session.doltClean, vcsError, status},
		{"dolt_rm", session.doltRm, vcsError, status},
		{"dolt_merge", session.doltMerge, mergeError, []exec.ResultColumn{{Name: "hash", T: exec.TText},
			{Name: "fast_forward", T: exec.TInt4}, {Name: "conflicts", T: exec.TInt4}, {Name: "message", T: exec.TText}}},
		{"dolt_cherry_pick", session.doltCherryPick, mergeError, []exec.ResultColumn{{Name: "hash", T: exec.TText},
			{Name: "data_conflicts", T: exec.TInt4}, {Name: "schema_conflicts", T: exec.TInt4}, {Name: "constraint_violations", T: exec.TInt4}}},
		{"dolt_revert", session.doltRevert, mergeError, []exec.ResultColumn{{Name: "hash", T: exec.TText},
			{Name: "data_conflicts", T: exec.TInt4}, {Name: "schema_conflicts", T: exec.TInt4}, {Name: "constraint_violations", T: exec.TInt4}}},
		{"dolt_conflicts_resolve", session.doltConflictsResolve, mergeError, status},
		{"dolt_fetch", session.doltFetch, vcsError, status},
		{"dolt_push", session.doltPush, vcsError, []exec.ResultColumn{{Name: "status", T: exec.TInt4}, {Name: "message", T: exec.TText}}},
		{"dolt_pull", session.doltPull, mergeError, []exec.ResultColumn{{Name: "fast_forward", T: exec.TInt4},
			{Name: "conflicts", T: exec.TInt4}, {Name: "message", T: exec.TText}}},
		{"dolt_clone", session.doltClone, vcsError, status},
		{"dolt_backup", session.doltBackup, vcsError, status},
		{"dolt_rebase", session.doltRebase, mergeError, []exec.ResultColumn{{Name: "status", T: exec.TInt4}, {Name: "message", T: exec.TText}}},
	} {
		// The commands that change the session's branch need the right to
		// write it; dolt_branch and dolt_checkout -b check what they touch.
		changes := f.name != "dolt_branch" && f.name != "dolt_checkout" && f.name != "dolt_tag" &&
			f.name != "dolt_remote" && f.name != "dolt_gc" && f.name != "dolt_fetch" && f.name != "dolt_push" && f.name != "dolt_clone"
		op := versionOp(f.fn, f.errs, changes)
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
type sessionFn func(s session, env *exec.Env, args []exec.Datum) (exec.Datum, error)

// withSession makes fn, of the given parameter and result types, a
// function that reaches the statement's session.
func withSession(name string, args []uint32, ret uint32, fn sessionFn) *exec.Func {
	return &exec.Func{Name: name, Args: args, Ret: ret, Fn: func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s, ok := env.Session.(Session)
		if !ok {
			return exec.Null, pgerr.New(pgerr.FeatureNotSupported, "%s() cannot be called outside a session's statement", name)
		}
		return fn(session{s}, env, a)
	}}
}

// withSessionVariadic is withSession for a function taking any number
// (at least one) of arguments of type elem.
func withSessionVariadic(name string, elem, ret uint32, fn sessionFn) *exec.Func {
	f := withSession(name, []uint32{elem}, ret, fn)
	f.Variadic = true
	return f
}

// textResult adapts a function returning a string, with the repository's
// errors given their SQLSTATEs.
func textResult(f func(session, *exec.Env, []exec.Datum) (string, error)) sessionFn {
	return func(s session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
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
func versionOp(f sessionFn, errs func(error) error, changesBranch bool) sessionFn {
	return func(s session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if changesBranch && s.Detached() == nil {
			if err := s.RequireBranchWrite(env.Ctx, s.Branch()); err != nil {
				return exec.Null, err
			}
		}
		if err := s.FlushTransaction(env.Ctx); err != nil {
			return exec.Null, err
		}
		d, err := f(s, env, a)
		return d, errs(err)
	}
}
