package funcs

import "github.com/prollypg/prollypg/exec"

// Named arguments: the parameter names and defaults of the functions that
// callers pass by name (make_interval(days => 1)). Registered from init.

type namedParams struct {
	names    []string
	defaults []exec.Datum
	types    []exec.T
}

var named = map[string]namedParams{}

// registerNamed records the parameter names, types and defaults of name.
func registerNamed(name string, names []string, types []exec.T, defaults []exec.Datum) {
	named[name] = namedParams{names: names, defaults: defaults, types: types}
}

// ArgNames returns the parameter names of a function that takes named
// arguments, or nil.
func ArgNames(name string) []string { return named[name].names }

// ArgDefault returns the default of parameter i of name and its type.
func ArgDefault(name string, i int) (exec.Datum, exec.T) {
	p := named[name]
	return p.defaults[i], p.types[i]
}

func registerNamedParams() {
	registerNamed("jsonb_set", []string{"jsonb_in", "path", "replacement", "create_if_missing"},
		[]exec.T{exec.TJSONB, exec.TTextArray, exec.TJSONB, exec.TBool}, []exec.Datum{exec.Null, exec.Null, exec.Null, exec.DBool(true)})
	registerNamed("jsonb_insert", []string{"jsonb_in", "path", "replacement", "insert_after"},
		[]exec.T{exec.TJSONB, exec.TTextArray, exec.TJSONB, exec.TBool}, []exec.Datum{exec.Null, exec.Null, exec.Null, exec.DBool(false)})
	registerNamed("jsonb_set_lax", []string{"jsonb_in", "path", "replacement", "create_if_missing", "null_value_treatment"},
		[]exec.T{exec.TJSONB, exec.TTextArray, exec.TJSONB, exec.TBool, exec.TText}, []exec.Datum{exec.Null, exec.Null, exec.Null, exec.DBool(true), exec.DText("use_json_null")})
	for _, name := range []string{"jsonb_path_exists", "jsonb_path_match", "jsonb_path_query_first", "jsonb_path_query_array"} {
		registerNamed(name, []string{"target", "path", "vars", "silent"},
			[]exec.T{exec.TJSONB, exec.TText, exec.TJSONB, exec.TBool}, []exec.Datum{exec.Null, exec.Null, exec.DJSON("{}"), exec.DBool(false)})
	}
}
