package exec

// Named arguments: the parameter names and defaults of the functions that
// callers pass by name (make_interval(days => 1)). Registered from init.

type namedParams struct {
	names    []string
	defaults []Datum
	types    []T
}

var named = map[string]namedParams{}

// registerNamed records the parameter names, types and defaults of name.
func registerNamed(name string, names []string, types []T, defaults []Datum) {
	named[name] = namedParams{names: names, defaults: defaults, types: types}
}

// ArgNames returns the parameter names of a function that takes named
// arguments, or nil.
func ArgNames(name string) []string { return named[name].names }

// ArgDefault returns the default of parameter i of name and its type.
func ArgDefault(name string, i int) (Datum, T) {
	p := named[name]
	return p.defaults[i], p.types[i]
}
