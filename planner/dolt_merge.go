package planner

import "github.com/prollypg/prollypg/exec"

// doltMergeFunc resolves the functions that merge commits: dolt_merge,
// dolt_cherry_pick, dolt_revert and dolt_conflicts_resolve.
func (s *Session) doltMergeFunc(name string, args []exec.Expr) (exec.Fn, exec.T, bool) {
	return nil, exec.T{}, false
}
