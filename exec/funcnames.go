package exec

import "sort"

// FuncNames returns the names of the built-in functions and operators
// that are names (not symbols), sorted: pg_proc lists them.
func FuncNames() []string {
	out := make([]string, 0, len(funcs))
	for name := range funcs {
		if c := name[0]; c == '_' || c >= 'a' && c <= 'z' {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
