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

func init() {
	registerNamed("jsonb_set", []string{"jsonb_in", "path", "replacement", "create_if_missing"},
		[]T{TJSONB, TTextArray, TJSONB, TBool}, []Datum{Null, Null, Null, DBool(true)})
	registerNamed("jsonb_insert", []string{"jsonb_in", "path", "replacement", "insert_after"},
		[]T{TJSONB, TTextArray, TJSONB, TBool}, []Datum{Null, Null, Null, DBool(false)})
	registerNamed("jsonb_set_lax", []string{"jsonb_in", "path", "replacement", "create_if_missing", "null_value_treatment"},
		[]T{TJSONB, TTextArray, TJSONB, TBool, TText}, []Datum{Null, Null, Null, DBool(true), DText("use_json_null")})
	for _, name := range []string{"jsonb_path_exists", "jsonb_path_match", "jsonb_path_query_first", "jsonb_path_query_array"} {
		registerNamed(name, []string{"target", "path", "vars", "silent"},
			[]T{TJSONB, TText, TJSONB, TBool}, []Datum{Null, Null, DJSON("{}"), DBool(false)})
	}
}
