package planner

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// notifyStmt plans LISTEN, UNLISTEN and NOTIFY; ok is false for other
// statements. Channel names are identifiers, already folded to lower case
// and truncated to 63 bytes by the parser.
func (a *analyzer) notifyStmt(n *pg.Node) (run Utility, ok bool) {
	s := a.s
	switch {
	case n.GetListenStmt() != nil:
		channel := n.GetListenStmt().Conditionname
		return func(context.Context) (string, error) {
			s.Listen(channel)
			return "LISTEN", nil
		}, true
	case n.GetUnlistenStmt() != nil:
		channel := n.GetUnlistenStmt().Conditionname // "": UNLISTEN *
		return func(context.Context) (string, error) {
			s.Unlisten(channel)
			return "UNLISTEN", nil
		}, true
	case n.GetNotifyStmt() != nil:
		ns := n.GetNotifyStmt()
		return func(context.Context) (string, error) {
			return "NOTIFY", s.Notify(ns.Conditionname, ns.Payload)
		}, true
	}
	return nil, false
}

// isSessionSRF reports whether name is a set-returning function that
// reads the session: pg_listening_channels.
func isSessionSRF(name string) bool { return name == "pg_listening_channels" }

// lookupSRF resolves a set-returning call: the session's own functions
// first, then exec's registry.
func (a *analyzer) lookupSRF(name string, args []exec.T) (*exec.SRF, []exec.T, error) {
	if !isSessionSRF(name) {
		return exec.LookupSRFIn(a.s.Settings(), name, args)
	}
	if len(args) > 0 {
		return nil, nil, pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", sigOf(name, args)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	s := a.s
	return &exec.SRF{
		Cols: []exec.ResultColumn{{Name: name, T: exec.TText}},
		Rows: func(*exec.Env, []exec.Datum) ([]exec.Row, error) {
			channels := s.ListeningChannels()
			rows := make([]exec.Row, len(channels))
			for i, c := range channels {
				rows[i] = exec.Row{exec.DText(c)}
			}
			return rows, nil
		},
	}, nil, nil
}
