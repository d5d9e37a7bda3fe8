package dolt

import (
	"fmt"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// flagSet is a dolt_* function's parsed arguments.
type flagSet struct {
	flags map[string]string // by long name; "" for flags without values
	args  []string          // positional arguments, in order
}

func (f *flagSet) has(name string) bool { _, ok := f.flags[name]; return ok }

// flagSpec describes a function's flags: long name by short letter, and
// which take a value.
type flagSpec struct {
	short  map[byte]string
	values map[string]bool
}

// parseFlags parses Git-style arguments: -x, -xy (several short flags),
// -mVALUE or -m VALUE, --long, --long=VALUE or --long VALUE, and -- to end
// the flags.
func parseFlags(fn string, in []exec.Datum, spec flagSpec) (*flagSet, error) {
	f := &flagSet{flags: map[string]string{}}
	bad := func(format string, a ...any) error {
		return pgerr.New(pgerr.InvalidParameterValue, "%s: %s", fn, fmt.Sprintf(format, a...))
	}
	var args []string
	for _, d := range in {
		if d.IsNull() {
			return nil, bad("arguments must not be NULL")
		}
		args = append(args, d.S)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			f.args = append(f.args, args[i+1:]...)
			return f, nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			if _, ok := spec.values[name]; !ok && !knownLong(spec, name) {
				return nil, bad("unknown option %q", a)
			}
			if spec.values[name] && !hasVal {
				if i+1 >= len(args) {
					return nil, bad("option %q needs a value", a)
				}
				i++
				val = args[i]
			}
			f.flags[name] = val
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				name, ok := spec.short[a[j]]
				if !ok {
					return nil, bad("unknown option \"-%c\"", a[j])
				}
				if !spec.values[name] {
					f.flags[name] = ""
					continue
				}
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return nil, bad("option \"-%c\" needs a value", a[j])
					}
					i++
					val = args[i]
				}
				f.flags[name] = val
				break
			}
		default:
			f.args = append(f.args, a)
		}
	}
	return f, nil
}

func knownLong(spec flagSpec, name string) bool {
	for _, n := range spec.short {
		if n == name {
			return true
		}
	}
	return false
}
