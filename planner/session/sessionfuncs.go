package session

import (
	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// The functions that need the session running the statement — its
// database and user — are registered here with exec's built-ins, with
// their PostgreSQL signatures: one registry and one overload resolution
// for every call, so that they take bind parameters, coerce their
// arguments and list in pg_proc like any function. At run time they reach
// the session through exec.Env.Session. The version-control functions
// (active_branch, dolt_commit, ...) are package dolt's, registered the
// same way (dolt/funcs.go).
func init() {
	exec.Register(
		withSession("current_database", nil, exec.OIDName, func(s *Session, _ *exec.Env, _ []exec.Datum) (exec.Datum, error) {
			return exec.DText(s.database), nil
		}),
		withSession("version", nil, exec.OIDText, func(*Session, *exec.Env, []exec.Datum) (exec.Datum, error) {
			return exec.DText("PostgreSQL 15.0 (prollypg) on x86_64-pc-linux-gnu, compiled by Go, 64-bit"), nil
		}),
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
