package exec

// The registry of functions and operators and PostgreSQL's overload
// resolution. Its writers: builtins.go here (arithmetic per type, text
// comparisons, lower/upper/length), the library in exec/funcs (its
// doc.go lists the families) and the planner (functions of the session).
// The registry's invariants are the package's (doc.go, 1 to 3): written
// by init functions only, in an order that fixes pg_proc's OIDs, resolved
// as PostgreSQL resolves, stateless Fns.

import (
	"strings"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// Func is one overload of a built-in function or operator.
type Func struct {
	Name string
	// Args are the parameter types (OIDs); with Variadic, the last one
	// repeats any number of times (at least once). OIDAny accepts an
	// argument of any type, which keeps its own type.
	Args     []uint32
	Variadic bool
	// Ret is the result type; when RetArg >= 0 (set RetArg to 1+index, 0
	// for none) the result has the type of that argument instead.
	Ret    uint32
	RetArg int
	// Strict functions return NULL for any NULL argument without running.
	Strict bool
	// Immutable functions depend on their arguments alone (not on the
	// session's settings, the clock or the database): the planner
	// evaluates a call of constants once, as PostgreSQL's constant
	// folding does.
	Immutable bool
	Fn        Fn
	// Build, when set, makes the implementation for the argument types of
	// a call, after resolution: functions over OIDAny (concat, format,
	// to_json, pg_typeof) need them, as a Datum's Kind does not tell a
	// date from a timestamp's output style or jsonb from text. It returns
	// the implementation and the result type.
	Build func(args []T) (Fn, T, error)
	// Extension, when set, names the extension whose script defines
	// the overload (pg_trgm's operators): resolution sees it only in a
	// database where the extension is installed (ExtensionCatalog).
	Extension string
}

// ExtensionCatalog is what the session's catalog of types
// (Settings.Types) may also answer: whether an extension is installed in
// its database. Where it cannot be asked (no settings, another catalog),
// every overload is visible.
type ExtensionCatalog interface {
	ExtensionInstalled(name string) bool
}

// visibleIn reports whether overload f may be chosen under settings st:
// an extension's only where the extension is installed, as in
// PostgreSQL, where its operators do not exist before CREATE EXTENSION
// (pg_trgm's text % text would otherwise decide unknown % unknown).
func (f *Func) visibleIn(st *Settings) bool {
	if f.Extension == "" || st == nil || st.Types == nil {
		return true
	}
	ec, ok := st.Types.(ExtensionCatalog)
	return !ok || ec.ExtensionInstalled(f.Extension)
}

// ResultType returns the type f returns for arguments of types args.
func (f *Func) ResultType(args []T) T {
	if IsPolymorphic(f.Ret) {
		return polyResult(f.Ret, f.params(len(args)), args)
	}
	if f.RetArg > 0 {
		return T{OID: args[f.RetArg-1].OID, Typmod: -1}
	}
	return T{OID: f.Ret, Typmod: -1}
}

// Bind returns the implementation and result type of f for a call whose
// arguments have (after conversion) the types args.
func (f *Func) Bind(args []T) (Fn, T, error) {
	if f.Build != nil {
		return f.Build(args)
	}
	return f.Fn, f.ResultType(args), nil
}

// funcs holds every built-in overload by name. Files register theirs from
// init functions, which run one at a time; after init the map is only read.
var funcs = map[string][]*Func{}

// Register adds overloads to the one registry every call is resolved in:
// this package's operators, the library's functions (exec/funcs) and the
// planner's functions of the session. Called from init functions only
// (the package's invariants 1 and 2); the order of the calls for one name
// fixes the overloads' pg_proc OIDs.
func Register(fs ...*Func) {
	for _, f := range fs {
		funcs[f.Name] = append(funcs[f.Name], f)
	}
}

// HasFunc reports whether any overload of name exists.
func HasFunc(name string) bool { return len(funcs[name]) > 0 }

// HasFuncIn reports whether an overload of name is visible under
// settings st: an extension's counts only where it is installed, so that
// a user function of the name of an extension's (each, similarity) is
// found in a database without the extension.
func HasFuncIn(st *Settings, name string) bool {
	for _, f := range funcs[name] {
		if f.visibleIn(st) {
			return true
		}
	}
	return false
}

// HasExact reports whether name has an overload taking exactly the types
// args, as PostgreSQL's binary_oper_exact asks before it resolves an
// operator with one unknown operand as if both had the other's type.
func HasExact(name string, args ...uint32) bool {
	for _, f := range funcs[name] {
		params := f.params(len(args))
		if params == nil {
			continue
		}
		exact := true
		for i, a := range args {
			if params[i] != a {
				exact = false
				break
			}
		}
		if exact {
			return true
		}
	}
	return false
}

// LookupFunc resolves a call of name with arguments of types args to one
// overload, by PostgreSQL's rules (func_select_candidate in parse_func.c):
// an exact match wins; otherwise among the overloads that every argument
// converts to implicitly, keep those with the most exact matches, then
// those taking the preferred type of an argument's category where it must
// be converted, then resolve unknown literals by category (string wins),
// then assume unknowns have the type of the known arguments when these
// agree. It returns the overload and the types the arguments must be
// converted to (an OIDAny parameter keeps the argument's type).
func LookupFunc(name string, args []T) (*Func, []T, error) {
	return lookupIn(funcs, name, args, nil)
}

// LookupFuncIn is LookupFunc for a session whose settings st find the
// subtypes of its user range types.
func LookupFuncIn(st *Settings, name string, args []T) (*Func, []T, error) {
	return lookupIn(funcs, name, args, st)
}

// BindIn is Bind where st finds the subtypes of user range types, which
// a polymorphic result (lower of a user range) may be.
func (f *Func) BindIn(st *Settings, args []T) (Fn, T, error) {
	if f.Build != nil || !IsPolymorphic(f.Ret) {
		return f.Bind(args)
	}
	return f.Fn, polyResultIn(f.Ret, f.params(len(args)), args, st), nil
}

// LookupIn resolves a call of name among the given overloads (a user
// function's) by the rules of LookupFunc.
func LookupIn(overloads []*Func, name string, args []T) (*Func, []T, error) {
	return lookupIn(map[string][]*Func{name: overloads}, name, args, nil)
}

// Choose picks the overload among overloads that a call of name with
// arguments of types args resolves to, by the rules of LookupFunc, and
// binds nothing: a user function's call then binds its parameters,
// defaults included, with Func.Resolve, as PostgreSQL's func_get_detail
// chooses and enforce_generic_type_consistency binds.
func Choose(overloads []*Func, name string, args []T) (*Func, error) {
	return choose(overloads, name, args, nil, nil)
}

// ChooseIn is Choose where the session's settings st find the subtypes
// of user range types.
func ChooseIn(st *Settings, overloads []*Func, name string, args []T) (*Func, error) {
	return choose(overloads, name, args, st, nil)
}

// ChooseCasts is ChooseIn where implicit, when set, tells of the
// user-defined implicit casts (CREATE CAST ... AS IMPLICIT) an argument
// may also take to its parameter's type.
func ChooseCasts(st *Settings, overloads []*Func, name string, args []T, implicit func(from, to uint32) bool) (*Func, error) {
	return choose(overloads, name, args, st, implicit)
}

// lookupIn is LookupFunc over the overloads of one registry.
func lookupIn(reg map[string][]*Func, name string, args []T, st *Settings) (*Func, []T, error) {
	f, err := choose(reg[name], name, args, st, nil)
	if err != nil {
		return nil, nil, err
	}
	return resolved(f, args, st)
}

// choose is Choose.
func choose(overloads []*Func, name string, args []T, st *Settings, implicit func(from, to uint32) bool) (*Func, error) {
	var cands []*Func
	for _, f := range overloads {
		params := f.params(len(args))
		if params == nil || !f.visibleIn(st) {
			continue
		}
		exact, ok := true, true
		for i, a := range args {
			if params[i] != a.OID {
				exact = false
			}
			if !CanCoerce(a.OID, params[i]) && (implicit == nil || !implicit(a.OID, params[i])) {
				ok = false
			}
		}
		if ok && HasPolymorphic(params) {
			if _, err := resolvePolyIn(params, args, st); isPolyMismatch(err) {
				ok = false
			}
		}
		if exact {
			return f, nil
		}
		if ok {
			cands = append(cands, f)
		}
	}
	best := selectCandidate(cands, args, st)
	switch {
	case len(best) == 1:
		return best[0], nil
	case len(best) > 1:
		return nil, pgerr.New(pgerr.AmbiguousFunction, "function %s is not unique", signature(name, args)).
			WithHint("Could not choose a best candidate function. You might need to add explicit type casts.")
	}
	return nil, NoFuncError(name, args)
}

// Resolve returns the types the arguments of a call of f, of types args,
// convert to: its polymorphic parameters bound to actual types. It is
// how a user function's call binds them once chosen (LookupIn), with
// the arguments its defaults add, which do not take part in the choice:
// arguments that disagree fail with PostgreSQL's error.
func (f *Func) Resolve(args []T) ([]T, error) {
	return f.ResolveIn(nil, args)
}

// ResolveIn is Resolve where the session's settings st find the
// subtypes of user range types.
func (f *Func) ResolveIn(st *Settings, args []T) ([]T, error) {
	_, out, err := resolved(f, args, st)
	if m, ok := err.(*polyMismatch); ok {
		return nil, m.err
	}
	return out, err
}

// resolved returns f and the types the arguments of a call of f convert
// to, its polymorphic parameters bound to actual types.
func resolved(f *Func, args []T, st *Settings) (*Func, []T, error) {
	params := f.params(len(args))
	if HasPolymorphic(params) {
		var err error
		if params, err = resolvePolyIn(params, args, st); err != nil {
			return nil, nil, err
		}
	}
	out := make([]T, len(args))
	for i, p := range params {
		out[i] = T{OID: p, Typmod: -1}
		if args[i].OID == p || p == OIDAny || p == OIDRecord && KindOf(args[i].OID) == KindRecord {
			out[i] = args[i]
		}
	}
	return f, out, nil
}

// selectCandidate narrows cands, all applicable to args, as PostgreSQL's
// func_select_candidate does; more than one result is an ambiguity.
func selectCandidate(cands []*Func, args []T, st *Settings) []*Func {
	if len(cands) <= 1 {
		return cands
	}
	n := len(args)
	keep := func(score func(params []uint32) int) {
		best, out := -1, cands[:0:0]
		for _, f := range cands {
			s := score(f.params(n))
			switch {
			case s > best:
				best, out = s, append(out[:0], f)
			case s == best:
				out = append(out, f)
			}
		}
		cands = out
	}
	// The most exact matches, then the most exact or preferred matches.
	keep(func(params []uint32) int {
		m := 0
		for i, a := range args {
			if a.OID != OIDUnknown && params[i] == a.OID {
				m++
			}
		}
		return m
	})
	if len(cands) == 1 {
		return cands
	}
	keep(func(params []uint32) int {
		m := 0
		for i, a := range args {
			if a.OID != OIDUnknown && (params[i] == a.OID || (IsPreferredType(params[i]) && TypeCategory(params[i]) == TypeCategory(a.OID))) {
				m++
			}
		}
		return m
	})
	if len(cands) == 1 {
		return cands
	}
	// Unknown literals: the category every candidate agrees on, or the
	// string category if any candidate takes it there.
	unknowns := 0
	resolved := true
	cat := make([]byte, n)
	pref := make([]bool, n)
	for i, a := range args {
		if a.OID != OIDUnknown {
			continue
		}
		unknowns++
		conflict := false
		for j, f := range cands {
			p := f.params(n)[i]
			c, isPref := TypeCategory(p), IsPreferredType(p)
			switch {
			case j == 0:
				cat[i], pref[i] = c, isPref
			case c == cat[i]:
				pref[i] = pref[i] || isPref
			case c == 'S':
				cat[i], pref[i] = c, isPref
			default:
				conflict = true // unless a string candidate wins
			}
		}
		if conflict && cat[i] != 'S' {
			resolved = false
		}
	}
	if unknowns > 0 && resolved {
		var out []*Func
		for _, f := range cands {
			params := f.params(n)
			ok := true
			for i, a := range args {
				if a.OID == OIDUnknown && (TypeCategory(params[i]) != cat[i] || (pref[i] && !IsPreferredType(params[i]))) {
					ok = false
					break
				}
			}
			if ok {
				out = append(out, f)
			}
		}
		if len(out) > 0 {
			cands = out
		}
		if len(cands) == 1 {
			return cands
		}
	}
	// Unknowns beside known arguments of one type: assume that type.
	if unknowns > 0 && unknowns < n {
		known := uint32(0)
		for _, a := range args {
			if a.OID == OIDUnknown {
				continue
			}
			if known != 0 && a.OID != known {
				return cands
			}
			known = a.OID
		}
		var out []*Func
		assumed := make([]T, n)
		for i := range assumed {
			assumed[i] = T{OID: known, Typmod: -1}
		}
		for _, f := range cands {
			params := f.params(n)
			ok := true
			for i := range args {
				if !CanCoerce(known, params[i]) {
					ok = false
					break
				}
			}
			if ok && HasPolymorphic(params) {
				_, err := resolvePolyIn(params, assumed, st)
				ok = !isPolyMismatch(err)
			}
			if ok {
				out = append(out, f)
			}
		}
		if len(out) == 1 {
			return out
		}
	}
	return cands
}

// ParamsFor returns f's parameter types for n arguments (a variadic
// one's last repeated), nil if f does not take n. The slice may be f's.
func (f *Func) ParamsFor(n int) []uint32 { return f.params(n) }

// params returns f's parameter types for n arguments, or nil if f does not
// take n.
func (f *Func) params(n int) []uint32 {
	switch {
	case !f.Variadic && n == len(f.Args):
		if f.Args == nil {
			return []uint32{} // no arguments, not "does not apply"
		}
		return f.Args
	case f.Variadic && n >= len(f.Args):
		out := append([]uint32(nil), f.Args...)
		for len(out) < n {
			out = append(out, f.Args[len(f.Args)-1])
		}
		return out
	}
	return nil
}

// numericRank orders the numeric types by implicit widening.
func numericRank(oid uint32) int {
	switch oid {
	case OIDInt2:
		return 1
	case OIDInt4:
		return 2
	case OIDInt8:
		return 3
	case OIDNumeric:
		return 4
	case OIDFloat4:
		return 5
	case OIDFloat8:
		return 6
	}
	return 0
}

// NumericRank is numericRank for the planner: 0 for a non-numeric type.
func NumericRank(oid uint32) int { return numericRank(oid) }

// TypeCategory is pg_type.typcategory: N numeric, S string, D date/time,
// T timespan, B boolean, U user (json, jsonb, uuid, bytea), A array, P
// pseudo, X unknown.
func TypeCategory(oid uint32) byte {
	switch oid {
	case OIDInt2, OIDInt4, OIDInt8, OIDFloat4, OIDFloat8, OIDNumeric, OIDOid, OIDRegclass, OIDRegtype:
		return 'N'
	case OIDText, OIDVarchar, OIDBpchar, OIDName, OIDCIText:
		return 'S'
	case OIDChar:
		return 'Z'
	case OIDDate, OIDTime, OIDTimestamp, OIDTimestampTZ, OIDTimeTZ:
		return 'D'
	case OIDInterval:
		return 'T'
	case OIDInet, OIDCidr:
		return 'I'
	case OIDPoint, OIDLSeg, OIDPath, OIDBox, OIDPolygon, OIDLine, OIDCircle:
		return 'G'
	case OIDBit, OIDVarbit:
		return 'V'
	case OIDBool:
		return 'B'
	case OIDUnknown:
		return 'X'
	case OIDAny, OIDAnyElement, OIDVoid, OIDRecord:
		return 'P'
	}
	if IsPolymorphic(oid) {
		return 'P'
	}
	if IsArrayType(oid) {
		return 'A'
	}
	if k := KindOf(oid); k == KindRange || k == KindMultirange {
		return 'R'
	}
	return 'U'
}

// IsPreferredType is pg_type.typispreferred.
func IsPreferredType(oid uint32) bool {
	switch oid {
	case OIDFloat8, OIDOid, OIDText, OIDTimestampTZ, OIDInterval, OIDBool, OIDInet, OIDVarbit:
		return true
	}
	return false
}

// CanCoerce reports whether a value of type from converts implicitly to a
// parameter of type to: the implicit casts of PostgreSQL's pg_cast, an
// unknown literal to anything, anything to OIDAny.
func CanCoerce(from, to uint32) bool {
	if from == to || from == OIDUnknown || to == OIDAny || to == OIDAnyElement {
		return true
	}
	if to == OIDRecord && KindOf(from) == KindRecord {
		return true // a composite is a record
	}
	if IsPolymorphic(to) {
		return polyAccepts(from, to)
	}
	if fe, te := ElemType(T{OID: from}), ElemType(T{OID: to}); fe.OID != 0 && te.OID != 0 {
		return CanCoerce(fe.OID, te.OID) // array_coerce over an implicit element cast
	}
	fr, tr := numericRank(from), numericRank(to)
	switch {
	case fr > 0 && tr > fr:
		return true
	case (from == OIDInt2 || from == OIDInt4 || from == OIDInt8) && (to == OIDOid || to == OIDRegclass || to == OIDRegtype):
		return true
	case from == OIDOid && IsRegType(to), IsRegType(from) && to == OIDOid:
		return true // binary-coercible, implicitly
	case (from == OIDText || from == OIDVarchar) && to == OIDRegclass:
		return true // nextval('s'::text), as pg_cast allows
	case from == OIDCIText || to == OIDCIText:
		return ciTextImplicit(from, to)
	case TypeCategory(from) == 'S' && TypeCategory(to) == 'S':
		return true
	case from == OIDChar && to == OIDText:
		return true
	case from == OIDDate && (to == OIDTimestamp || to == OIDTimestampTZ):
		return true
	case from == OIDTimestamp && to == OIDTimestampTZ:
		return true
	case from == OIDTime && (to == OIDInterval || to == OIDTimeTZ):
		return true
	case from == OIDCidr && to == OIDInet:
		return true // binary-coercible
	case (from == OIDBit || from == OIDVarbit) && (to == OIDBit || to == OIDVarbit):
		return true
	}
	return false
}

func signature(name string, args []T) string {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = TypeName(a.OID)
	}
	return name + "(" + strings.Join(names, ", ") + ")"
}

// NoFuncError is PostgreSQL's error for a call of name with arguments of
// types args that no overload takes.
func NoFuncError(name string, args []T) error {
	return pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", signature(name, args)).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
}
