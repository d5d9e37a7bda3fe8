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

// Overloads returns the overloads of the built-in function name, in the
// order they were registered (which fixes their pg_proc OIDs). The slice
// and the Funcs are the registry's: read them, never change them.
func Overloads(name string) []*Func { return funcs[name] }
