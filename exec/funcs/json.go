package funcs

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// The json and jsonb operators and functions of PostgreSQL's jsonfuncs.c
// and jsonb_op.c. A jsonb Datum holds its normalized text; operators parse
// it into a types.JSONB tree and print the result back. json keeps the
// text as given, and its operators cut pieces out of it (jsonraw.go).

func parseJB(d exec.Datum) (types.JSONB, error) { return types.ParseJSONB(d.S) }

func outJB(v *types.JSONB) exec.Datum { return exec.DJSON(string(types.AppendJSONB(nil, v))) }

// jbField returns the value of key in an object.
func jbField(v *types.JSONB, key string) (*types.JSONB, bool) {
	if v.Kind != types.JSONObject {
		return nil, false
	}
	for i := range v.Pairs {
		if v.Pairs[i].Key == key {
			return &v.Pairs[i].Value, true
		}
	}
	return nil, false
}

// jbIndex returns element n of an array, n < 0 counting from the end.
func jbIndex(v *types.JSONB, n int64) (*types.JSONB, bool) {
	if v.Kind != types.JSONArray {
		return nil, false
	}
	if n < 0 {
		n += int64(len(v.Elems))
	}
	if n < 0 || n >= int64(len(v.Elems)) {
		return nil, false
	}
	return &v.Elems[n], true
}

// jbText is ->>'s text of a jsonb value.
func jbText(v *types.JSONB) exec.Datum {
	switch v.Kind {
	case types.JSONNull:
		return exec.Null
	case types.JSONString:
		return exec.DText(v.Str)
	}
	return exec.DText(string(types.AppendJSONB(nil, v)))
}

// jbPath follows a path of keys and array indexes.
func jbPath(v *types.JSONB, path []exec.Datum) (*types.JSONB, bool) {
	cur := v
	for _, p := range path {
		if p.IsNull() {
			return nil, false
		}
		switch cur.Kind {
		case types.JSONObject:
			next, ok := jbField(cur, p.S)
			if !ok {
				return nil, false
			}
			cur = next
		case types.JSONArray:
			n, err := strconv.ParseInt(strings.TrimSpace(p.S), 10, 32)
			if err != nil {
				return nil, false
			}
			next, ok := jbIndex(cur, n)
			if !ok {
				return nil, false
			}
			cur = next
		default:
			return nil, false
		}
	}
	return cur, true
}

// jsonPath is jbPath over json text; it returns the span of the value.
func jsonPath(s string, path []exec.Datum) (lo, hi int, ok bool) {
	lo, hi = jsonRoot(s)
	for _, p := range path {
		if p.IsNull() {
			return 0, 0, false
		}
		switch jsonKind(s, lo) {
		case types.JSONObject:
			if lo, hi, ok = jsonField(s, lo, p.S); !ok {
				return 0, 0, false
			}
		case types.JSONArray:
			n, err := strconv.ParseInt(strings.TrimSpace(p.S), 10, 32)
			if err != nil {
				return 0, 0, false
			}
			if lo, hi, ok = jsonIndex(s, lo, n); !ok {
				return 0, 0, false
			}
		default:
			return 0, 0, false
		}
	}
	return lo, hi, true
}

// jbContains is JsonbDeepContains: whether a contains b.
func jbContains(a, b *types.JSONB, top bool) bool {
	if a.Kind != b.Kind {
		// A top-level array contains a scalar it has as an element.
		if top && a.Kind == types.JSONArray && b.Kind != types.JSONObject && b.Kind != types.JSONArray {
			for i := range a.Elems {
				if jbEqual(&a.Elems[i], b) {
					return true
				}
			}
		}
		return false
	}
	switch a.Kind {
	case types.JSONObject:
		for i := range b.Pairs {
			av, ok := jbField(a, b.Pairs[i].Key)
			if !ok {
				return false
			}
			bv := &b.Pairs[i].Value
			if av.Kind != bv.Kind {
				return false
			}
			if av.Kind == types.JSONObject || av.Kind == types.JSONArray {
				if !jbContains(av, bv, false) {
					return false
				}
			} else if !jbEqual(av, bv) {
				return false
			}
		}
		return true
	case types.JSONArray:
		for i := range b.Elems {
			bv := &b.Elems[i]
			found := false
			for j := range a.Elems {
				av := &a.Elems[j]
				if av.Kind != bv.Kind {
					continue
				}
				if av.Kind == types.JSONObject || av.Kind == types.JSONArray {
					found = jbContains(av, bv, false)
				} else {
					found = jbEqual(av, bv)
				}
				if found {
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	return jbEqual(a, b)
}

// jbEqual compares two jsonb values for equality (numbers by value).
func jbEqual(a, b *types.JSONB) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case types.JSONNull:
		return true
	case types.JSONBool:
		return a.Bool == b.Bool
	case types.JSONString:
		return a.Str == b.Str
	case types.JSONNumber:
		return a.Num.Cmp(b.Num) == 0
	case types.JSONArray:
		if len(a.Elems) != len(b.Elems) {
			return false
		}
		for i := range a.Elems {
			if !jbEqual(&a.Elems[i], &b.Elems[i]) {
				return false
			}
		}
		return true
	case types.JSONObject:
		if len(a.Pairs) != len(b.Pairs) {
			return false
		}
		for i := range a.Pairs {
			if a.Pairs[i].Key != b.Pairs[i].Key || !jbEqual(&a.Pairs[i].Value, &b.Pairs[i].Value) {
				return false
			}
		}
		return true
	}
	return false
}

// jbExists is jsonb ? key: a top-level key, a string element of a
// top-level array, or the string itself.
func jbExists(v *types.JSONB, key string) bool {
	switch v.Kind {
	case types.JSONObject:
		_, ok := jbField(v, key)
		return ok
	case types.JSONArray:
		for i := range v.Elems {
			if v.Elems[i].Kind == types.JSONString && v.Elems[i].Str == key {
				return true
			}
		}
	case types.JSONString:
		return v.Str == key
	}
	return false
}

// jbObject builds an object from pairs in any order, as jsonb does: keys
// sorted, the last of duplicates kept.
func jbObject(pairs []types.JSONBPair) types.JSONB {
	var b strings.Builder
	b.WriteByte('{')
	for i := range pairs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(types.AppendJSONString(nil, pairs[i].Key))
		b.WriteByte(':')
		b.Write(types.AppendJSONB(nil, &pairs[i].Value))
	}
	b.WriteByte('}')
	v, _ := types.ParseJSONB(b.String())
	return v
}

// jbConcat is jsonb || jsonb.
func jbConcat(a, b *types.JSONB) types.JSONB {
	switch {
	case a.Kind == types.JSONObject && b.Kind == types.JSONObject:
		pairs := append(append([]types.JSONBPair{}, a.Pairs...), b.Pairs...)
		return jbObject(pairs)
	case a.Kind == types.JSONArray && b.Kind == types.JSONArray:
		return types.JSONB{Kind: types.JSONArray, Elems: append(append([]types.JSONB{}, a.Elems...), b.Elems...)}
	case a.Kind == types.JSONArray:
		return types.JSONB{Kind: types.JSONArray, Elems: append(append([]types.JSONB{}, a.Elems...), *b)}
	case b.Kind == types.JSONArray:
		return types.JSONB{Kind: types.JSONArray, Elems: append([]types.JSONB{*a}, b.Elems...)}
	}
	return types.JSONB{Kind: types.JSONArray, Elems: []types.JSONB{*a, *b}}
}

// jbDeleteKey is jsonb - text.
func jbDeleteKey(v *types.JSONB, keys ...string) (types.JSONB, error) {
	switch v.Kind {
	case types.JSONObject:
		out := types.JSONB{Kind: types.JSONObject, Pairs: []types.JSONBPair{}}
		for _, p := range v.Pairs {
			if !containsStr(keys, p.Key) {
				out.Pairs = append(out.Pairs, p)
			}
		}
		return out, nil
	case types.JSONArray:
		out := types.JSONB{Kind: types.JSONArray, Elems: []types.JSONB{}}
		for _, e := range v.Elems {
			if e.Kind != types.JSONString || !containsStr(keys, e.Str) {
				out.Elems = append(out.Elems, e)
			}
		}
		return out, nil
	}
	return types.JSONB{}, pgerr.New(pgerr.InvalidParameterValue, "cannot delete from scalar")
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// jbDeleteIndex is jsonb - int.
func jbDeleteIndex(v *types.JSONB, n int64) (types.JSONB, error) {
	switch v.Kind {
	case types.JSONObject:
		return types.JSONB{}, pgerr.New(pgerr.InvalidParameterValue, "cannot delete from object using integer index")
	case types.JSONArray:
	default:
		return types.JSONB{}, pgerr.New(pgerr.InvalidParameterValue, "cannot delete from scalar")
	}
	if n < 0 {
		n += int64(len(v.Elems))
	}
	out := types.JSONB{Kind: types.JSONArray, Elems: []types.JSONB{}}
	for i, e := range v.Elems {
		if int64(i) != n {
			out.Elems = append(out.Elems, e)
		}
	}
	return out, nil
}

// pathIndex reads an array subscript of a path; PostgreSQL's message
// counts positions from 1.
func pathIndex(p exec.Datum, pos int) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(p.S), 10, 32)
	if err != nil {
		return 0, pgerr.New(pgerr.InvalidTextRepresentation, "path element at position %d is not an integer: \"%s\"", pos+1, p.S)
	}
	return n, nil
}

// Path operation modes of setPath.
const (
	pathSet = iota
	pathInsertBefore
	pathInsertAfter
	pathDelete
)

// setPath is jsonfuncs.c's setPath: jsonb_set, jsonb_insert and #-.
func setPath(v *types.JSONB, path []exec.Datum, pos int, newVal *types.JSONB, mode int, create bool) (types.JSONB, error) {
	if pos >= len(path) {
		return *v, nil
	}
	p := path[pos]
	if p.IsNull() {
		return types.JSONB{}, pgerr.New(pgerr.NullValueNotAllowed, "path element at position %d is null", pos+1)
	}
	last := pos == len(path)-1
	switch v.Kind {
	case types.JSONObject:
		out := types.JSONB{Kind: types.JSONObject, Pairs: make([]types.JSONBPair, 0, len(v.Pairs)+1)}
		found := false
		for _, pr := range v.Pairs {
			if pr.Key != p.S {
				out.Pairs = append(out.Pairs, pr)
				continue
			}
			found = true
			if last {
				switch mode {
				case pathDelete:
					continue
				case pathInsertBefore, pathInsertAfter:
					return types.JSONB{}, pgerr.New(pgerr.InvalidParameterValue, "cannot replace existing key").
						WithHint("Try using the function jsonb_set to replace key value.")
				}
				out.Pairs = append(out.Pairs, types.JSONBPair{Key: pr.Key, Value: *newVal})
				continue
			}
			sub, err := setPath(&pr.Value, path, pos+1, newVal, mode, create)
			if err != nil {
				return types.JSONB{}, err
			}
			out.Pairs = append(out.Pairs, types.JSONBPair{Key: pr.Key, Value: sub})
		}
		if !found && last && mode != pathDelete && (create || mode != pathSet) {
			out.Pairs = append(out.Pairs, types.JSONBPair{Key: p.S, Value: *newVal})
			return jbObject(out.Pairs), nil
		}
		return out, nil
	case types.JSONArray:
		n, err := pathIndex(p, pos)
		if err != nil {
			return types.JSONB{}, err
		}
		size := int64(len(v.Elems))
		if n < 0 {
			if -n > size {
				n = -1 // before the first
			} else {
				n += size
			}
		}
		out := types.JSONB{Kind: types.JSONArray, Elems: make([]types.JSONB, 0, len(v.Elems)+1)}
		if last && (n < 0 || n >= size) && mode != pathDelete && (create || mode != pathSet) {
			if n < 0 {
				out.Elems = append(append(out.Elems, *newVal), v.Elems...)
			} else {
				out.Elems = append(append(out.Elems, v.Elems...), *newVal)
			}
			return out, nil
		}
		for i, e := range v.Elems {
			if int64(i) != n {
				out.Elems = append(out.Elems, e)
				continue
			}
			if !last {
				sub, err := setPath(&e, path, pos+1, newVal, mode, create)
				if err != nil {
					return types.JSONB{}, err
				}
				out.Elems = append(out.Elems, sub)
				continue
			}
			switch mode {
			case pathDelete:
			case pathSet:
				out.Elems = append(out.Elems, *newVal)
			case pathInsertBefore:
				out.Elems = append(out.Elems, *newVal, e)
			case pathInsertAfter:
				out.Elems = append(out.Elems, e, *newVal)
			}
		}
		return out, nil
	}
	switch mode {
	case pathDelete:
		return types.JSONB{}, pgerr.New(pgerr.InvalidParameterValue, "cannot delete path in scalar")
	}
	return types.JSONB{}, pgerr.New(pgerr.InvalidParameterValue, "cannot set path in scalar")
}

// jbStripNulls drops object members whose value is null, at every level.
func jbStripNulls(v *types.JSONB) types.JSONB {
	switch v.Kind {
	case types.JSONObject:
		out := types.JSONB{Kind: types.JSONObject, Pairs: []types.JSONBPair{}}
		for _, p := range v.Pairs {
			if p.Value.Kind != types.JSONNull {
				out.Pairs = append(out.Pairs, types.JSONBPair{Key: p.Key, Value: jbStripNulls(&p.Value)})
			}
		}
		return out
	case types.JSONArray:
		out := types.JSONB{Kind: types.JSONArray, Elems: make([]types.JSONB, len(v.Elems))}
		for i := range v.Elems {
			out.Elems[i] = jbStripNulls(&v.Elems[i])
		}
		return out
	}
	return *v
}

// jsonStripNulls is json_strip_nulls: json printed compactly without null
// members.
func jsonStripNulls(dst []byte, s string, lo, hi int) []byte {
	switch jsonKind(s, lo) {
	case types.JSONObject:
		dst = append(dst, '{')
		first := true
		jsonElems(s, lo, func(key string, l, h int) bool {
			if jsonKind(s, l) == types.JSONNull {
				return true
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = types.AppendJSONString(dst, key)
			dst = append(dst, ':')
			dst = jsonStripNulls(dst, s, l, h)
			return true
		})
		return append(dst, '}')
	case types.JSONArray:
		dst = append(dst, '[')
		first := true
		jsonElems(s, lo, func(_ string, l, h int) bool {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = jsonStripNulls(dst, s, l, h)
			return true
		})
		return append(dst, ']')
	}
	return append(dst, s[lo:hi]...)
}

// jbPretty is jsonb_pretty's layout: four spaces a level, "key": value.
func jbPretty(dst []byte, v *types.JSONB, level int, afterKey bool) []byte {
	indent := func(dst []byte, level int) []byte {
		dst = append(dst, '\n')
		return append(dst, strings.Repeat("    ", level)...)
	}
	switch v.Kind {
	case types.JSONObject, types.JSONArray:
		if !afterKey && level > 0 {
			dst = indent(dst, level)
		}
		open, close := byte('{'), byte('}')
		if v.Kind == types.JSONArray {
			open, close = '[', ']'
		}
		dst = append(dst, open)
		if v.Kind == types.JSONObject {
			for i := range v.Pairs {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = indent(dst, level+1)
				dst = types.AppendJSONString(dst, v.Pairs[i].Key)
				dst = append(dst, ": "...)
				dst = jbPretty(dst, &v.Pairs[i].Value, level+1, true)
			}
		} else {
			for i := range v.Elems {
				if i > 0 {
					dst = append(dst, ',')
				}
				e := &v.Elems[i]
				if e.Kind == types.JSONObject || e.Kind == types.JSONArray {
					dst = jbPretty(dst, e, level+1, false)
				} else {
					dst = indent(dst, level+1)
					dst = types.AppendJSONB(dst, e)
				}
			}
		}
		dst = indent(dst, level)
		return append(dst, close)
	}
	return types.AppendJSONB(dst, v)
}

// jsonSettings are the settings JSON output of dates uses: ISO style, in
// the session zone.
func jsonSettings(env *exec.Env) *exec.Settings {
	st := types.DefaultSettings
	if env != nil && env.Settings != nil {
		st = *env.Settings
	}
	st.DateStyle, st.IntervalStyle = types.DateStyleISO, types.IntervalStylePostgres
	return &st
}

// appendToJSON appends the JSON of a value of type t, as to_json does.
func appendToJSON(dst []byte, env *exec.Env, t exec.T, d exec.Datum) []byte {
	if d.IsNull() {
		return append(dst, "null"...)
	}
	switch d.Kind {
	case exec.KindBool:
		if d.Bool() {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case exec.KindInt:
		return strconv.AppendInt(dst, d.I, 10)
	case exec.KindFloat, exec.KindNumeric:
		s := exec.AppendText(nil, t, d, env.Settings)
		if d.Kind == exec.KindFloat && (strings.Contains(string(s), "NaN") || strings.Contains(string(s), "Infinity")) ||
			d.Kind == exec.KindNumeric && d.Numeric().Form != apd.Finite {
			return types.AppendJSONString(dst, string(s))
		}
		return append(dst, s...)
	case exec.KindJSON:
		return append(dst, d.S...)
	case exec.KindArray:
		if t.OID != exec.OIDInt2Vector && t.OID != exec.OIDOidVector {
			return appendArrayJSON(dst, env, exec.ElemType(t), d.Array(), 0, 0, false)
		}
	case exec.KindRecord:
		return appendRecordJSON(dst, env, d.Record(), false)
	case exec.KindDate, exec.KindTimestamp:
		st := jsonSettings(env)
		s := string(exec.AppendText(nil, t, d, st))
		if d.Kind == exec.KindTimestamp && !strings.Contains(s, "infinity") {
			s = strings.Replace(s, " ", "T", 1)
			if t.OID == exec.OIDTimestampTZ {
				s = xsdOffset(s)
			}
		}
		return types.AppendJSONString(dst, s)
	}
	return types.AppendJSONString(dst, textOf(env, t, d))
}

// xsdOffset writes a timestamptz's zone offset as +hh:mm, as XML Schema
// and so JSON dates have it.
func xsdOffset(s string) string {
	i := strings.LastIndexAny(s, "+-")
	if i < 10 {
		return s
	}
	if strings.Count(s[i:], ":") == 0 {
		return s + ":00"
	}
	return s
}

// toJSONB converts a value of type t to a jsonb tree.
func toJSONB(env *exec.Env, t exec.T, d exec.Datum) (types.JSONB, error) {
	if (t.OID == exec.OIDJSON || t.OID == exec.OIDJSONB) && !d.IsNull() {
		return types.ParseJSONB(d.S)
	}
	return types.ParseJSONB(string(appendToJSON(nil, env, t, d)))
}

func jsonFn(name string, args []uint32, ret uint32, fn exec.Fn) {
	exec.Register(&exec.Func{Name: name, Args: args, Ret: ret, Strict: true, Fn: fn})
}

// jbGet makes a jsonb accessor operator: pick finds the element the right
// operand names, out turns it into the result (jsonb or text); a missing
// element is NULL.
func jbGet(pick func(*types.JSONB, exec.Datum) (*types.JSONB, bool), out func(*types.JSONB) exec.Datum) exec.Fn {
	return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		v, err := parseJB(a[0])
		if err != nil {
			return exec.Null, err
		}
		if e, ok := pick(&v, a[1]); ok {
			return out(e), nil
		}
		return exec.Null, nil
	}
}

func registerJSON() {
	J, JB, TX, I4, TA := exec.OIDJSON, exec.OIDJSONB, exec.OIDText, exec.OIDInt4, exec.OIDTextArray
	// -> and ->> by key and by index, on jsonb and json.
	byKey := func(v *types.JSONB, arg exec.Datum) (*types.JSONB, bool) { return jbField(v, arg.S) }
	byIndex := func(v *types.JSONB, arg exec.Datum) (*types.JSONB, bool) { return jbIndex(v, arg.I) }
	jsonFn("->", []uint32{JB, TX}, JB, jbGet(byKey, outJB))
	jsonFn("->", []uint32{JB, I4}, JB, jbGet(byIndex, outJB))
	jsonFn("->>", []uint32{JB, TX}, TX, jbGet(byKey, jbText))
	jsonFn("->>", []uint32{JB, I4}, TX, jbGet(byIndex, jbText))
	jsonFn("->", []uint32{J, TX}, J, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s := a[0].S
		lo, _ := jsonRoot(s)
		if l, h, ok := jsonField(s, lo, a[1].S); ok {
			return exec.DJSON(s[l:h]), nil
		}
		return exec.Null, nil
	})
	jsonFn("->", []uint32{J, I4}, J, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s := a[0].S
		lo, _ := jsonRoot(s)
		if l, h, ok := jsonIndex(s, lo, a[1].I); ok {
			return exec.DJSON(s[l:h]), nil
		}
		return exec.Null, nil
	})
	jsonFn("->>", []uint32{J, TX}, TX, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s := a[0].S
		lo, _ := jsonRoot(s)
		if l, h, ok := jsonField(s, lo, a[1].S); ok {
			return jsonText(s, l, h), nil
		}
		return exec.Null, nil
	})
	jsonFn("->>", []uint32{J, I4}, TX, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s := a[0].S
		lo, _ := jsonRoot(s)
		if l, h, ok := jsonIndex(s, lo, a[1].I); ok {
			return jsonText(s, l, h), nil
		}
		return exec.Null, nil
	})
	// Paths: #> and #>>, json(b)_extract_path(_text).
	jbPathFn := func(text bool) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			v, err := parseJB(a[0])
			if err != nil {
				return exec.Null, err
			}
			path := a[1:]
			if len(a) == 2 && a[1].Kind == exec.KindArray {
				path = textArrayOf(a[1])
			}
			r, ok := jbPath(&v, path)
			if !ok {
				return exec.Null, nil
			}
			if text {
				return jbText(r), nil
			}
			return outJB(r), nil
		}
	}
	jsonPathFn := func(text bool) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			s := a[0].S
			path := a[1:]
			if len(a) == 2 && a[1].Kind == exec.KindArray {
				path = textArrayOf(a[1])
			}
			l, h, ok := jsonPath(s, path)
			if !ok {
				return exec.Null, nil
			}
			if text {
				return jsonText(s, l, h), nil
			}
			return exec.DJSON(s[l:h]), nil
		}
	}
	jsonFn("#>", []uint32{JB, TA}, JB, jbPathFn(false))
	jsonFn("#>>", []uint32{JB, TA}, TX, jbPathFn(true))
	jsonFn("#>", []uint32{J, TA}, J, jsonPathFn(false))
	jsonFn("#>>", []uint32{J, TA}, TX, jsonPathFn(true))
	exec.Register(&exec.Func{Name: "jsonb_extract_path", Args: []uint32{JB, TX}, Variadic: true, Ret: JB, Strict: true, Fn: jbPathFn(false)},
		&exec.Func{Name: "jsonb_extract_path_text", Args: []uint32{JB, TX}, Variadic: true, Ret: TX, Strict: true, Fn: jbPathFn(true)},
		&exec.Func{Name: "json_extract_path", Args: []uint32{J, TX}, Variadic: true, Ret: J, Strict: true, Fn: jsonPathFn(false)},
		&exec.Func{Name: "json_extract_path_text", Args: []uint32{J, TX}, Variadic: true, Ret: TX, Strict: true, Fn: jsonPathFn(true)})

	// Containment and existence.
	contains := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		x, err := parseJB(a[0])
		if err != nil {
			return exec.Null, err
		}
		y, err := parseJB(a[1])
		if err != nil {
			return exec.Null, err
		}
		return exec.DBool(jbContains(&x, &y, true)), nil
	}
	contained := func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return contains(env, []exec.Datum{a[1], a[0]})
	}
	jsonFn("@>", []uint32{JB, JB}, exec.OIDBool, contains)
	jsonFn("<@", []uint32{JB, JB}, exec.OIDBool, contained)
	jsonFn("jsonb_contains", []uint32{JB, JB}, exec.OIDBool, contains)
	jsonFn("jsonb_contained", []uint32{JB, JB}, exec.OIDBool, contained)
	exists := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		v, err := parseJB(a[0])
		if err != nil {
			return exec.Null, err
		}
		return exec.DBool(jbExists(&v, a[1].S)), nil
	}
	jsonFn("?", []uint32{JB, TX}, exec.OIDBool, exists)
	jsonFn("jsonb_exists", []uint32{JB, TX}, exec.OIDBool, exists)
	existsAny := func(all bool) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			v, err := parseJB(a[0])
			if err != nil {
				return exec.Null, err
			}
			for _, k := range textArrayOf(a[1]) {
				if k.IsNull() {
					continue
				}
				if jbExists(&v, k.S) != all {
					return exec.DBool(!all), nil
				}
			}
			return exec.DBool(all), nil
		}
	}
	jsonFn("?|", []uint32{JB, TA}, exec.OIDBool, existsAny(false))
	jsonFn("?&", []uint32{JB, TA}, exec.OIDBool, existsAny(true))
	jsonFn("jsonb_exists_any", []uint32{JB, TA}, exec.OIDBool, existsAny(false))
	jsonFn("jsonb_exists_all", []uint32{JB, TA}, exec.OIDBool, existsAny(true))

	// Concatenation and deletion.
	concat := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		x, err := parseJB(a[0])
		if err != nil {
			return exec.Null, err
		}
		y, err := parseJB(a[1])
		if err != nil {
			return exec.Null, err
		}
		r := jbConcat(&x, &y)
		return outJB(&r), nil
	}
	jsonFn("||", []uint32{JB, JB}, JB, concat)
	jsonFn("jsonb_concat", []uint32{JB, JB}, JB, concat)
	delKey := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		v, err := parseJB(a[0])
		if err != nil {
			return exec.Null, err
		}
		r, err := jbDeleteKey(&v, a[1].S)
		if err != nil {
			return exec.Null, err
		}
		return outJB(&r), nil
	}
	jsonFn("-", []uint32{JB, TX}, JB, delKey)
	jsonFn("jsonb_delete", []uint32{JB, TX}, JB, delKey)
	jsonFn("-", []uint32{JB, TA}, JB, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		v, err := parseJB(a[0])
		if err != nil {
			return exec.Null, err
		}
		var keys []string
		for _, k := range textArrayOf(a[1]) {
			if !k.IsNull() {
				keys = append(keys, k.S)
			}
		}
		if len(keys) == 0 {
			return a[0], nil
		}
		r, err := jbDeleteKey(&v, keys...)
		if err != nil {
			return exec.Null, err
		}
		return outJB(&r), nil
	})
	delIdx := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		v, err := parseJB(a[0])
		if err != nil {
			return exec.Null, err
		}
		r, err := jbDeleteIndex(&v, a[1].I)
		if err != nil {
			return exec.Null, err
		}
		return outJB(&r), nil
	}
	jsonFn("-", []uint32{JB, I4}, JB, delIdx)
	jsonFn("jsonb_delete", []uint32{JB, I4}, JB, delIdx)
	jsonFn("#-", []uint32{JB, TA}, JB, jsonbDeletePath)
	jsonFn("jsonb_delete_path", []uint32{JB, TA}, JB, jsonbDeletePath)

	// jsonb_set and jsonb_insert.
	jsonFn("jsonb_set", []uint32{JB, TA, JB}, JB, jsonbSet(false))
	jsonFn("jsonb_set", []uint32{JB, TA, JB, exec.OIDBool}, JB, jsonbSet(false))
	jsonFn("jsonb_insert", []uint32{JB, TA, JB}, JB, jsonbSet(true))
	jsonFn("jsonb_insert", []uint32{JB, TA, JB, exec.OIDBool}, JB, jsonbSet(true))

	// Inspection.
	jsonFn("jsonb_typeof", []uint32{JB}, TX, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		v, err := parseJB(a[0])
		if err != nil {
			return exec.Null, err
		}
		return exec.DText(exec.JSONBTypeName(&v)), nil
	})
	jsonFn("json_typeof", []uint32{J}, TX, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		lo, _ := jsonRoot(a[0].S)
		v := types.JSONB{Kind: jsonKind(a[0].S, lo)}
		return exec.DText(exec.JSONBTypeName(&v)), nil
	})
	jsonFn("jsonb_array_length", []uint32{JB}, I4, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		v, err := parseJB(a[0])
		if err != nil {
			return exec.Null, err
		}
		switch v.Kind {
		case types.JSONArray:
			return exec.DInt(int64(len(v.Elems))), nil
		case types.JSONObject:
			return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of a non-array")
		}
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of a scalar")
	})
	jsonFn("json_array_length", []uint32{J}, I4, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s := a[0].S
		lo, _ := jsonRoot(s)
		switch jsonKind(s, lo) {
		case types.JSONArray:
			return exec.DInt(int64(jsonLen(s, lo))), nil
		case types.JSONObject:
			return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of a non-array")
		}
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of a scalar")
	})
	jsonFn("jsonb_strip_nulls", []uint32{JB}, JB, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		v, err := parseJB(a[0])
		if err != nil {
			return exec.Null, err
		}
		r := jbStripNulls(&v)
		return outJB(&r), nil
	})
	jsonFn("json_strip_nulls", []uint32{J}, J, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		lo, hi := jsonRoot(a[0].S)
		return exec.DJSON(string(jsonStripNulls(nil, a[0].S, lo, hi))), nil
	})
	jsonFn("jsonb_pretty", []uint32{JB}, TX, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		v, err := parseJB(a[0])
		if err != nil {
			return exec.Null, err
		}
		return exec.DText(string(jbPretty(nil, &v, 0, false))), nil
	})

	// Construction.
	exec.Register(&exec.Func{Name: "to_json", Args: []uint32{exec.OIDAny}, Ret: J, Strict: true, Build: func(ts []exec.T) (exec.Fn, exec.T, error) {
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DJSON(string(appendToJSON(nil, env, ts[0], a[0]))), nil
		}, exec.TJSON, nil
	}})
	exec.Register(&exec.Func{Name: "to_jsonb", Args: []uint32{exec.OIDAny}, Ret: JB, Strict: true, Build: func(ts []exec.T) (exec.Fn, exec.T, error) {
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			v, err := toJSONB(env, ts[0], a[0])
			if err != nil {
				return exec.Null, err
			}
			return outJB(&v), nil
		}, exec.TJSONB, nil
	}})
	buildArray := func(jsonb bool) func([]exec.T) (exec.Fn, exec.T, error) {
		return func(ts []exec.T) (exec.Fn, exec.T, error) {
			if jsonb {
				return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
					out := types.JSONB{Kind: types.JSONArray, Elems: make([]types.JSONB, len(a))}
					for i, d := range a {
						if d.IsNull() {
							continue
						}
						v, err := toJSONB(env, ts[i], d)
						if err != nil {
							return exec.Null, err
						}
						out.Elems[i] = v
					}
					return outJB(&out), nil
				}, exec.TJSONB, nil
			}
			return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
				b := []byte{'['}
				for i, d := range a {
					if i > 0 {
						b = append(b, ", "...)
					}
					b = appendToJSON(b, env, ts[i], d)
				}
				return exec.DJSON(string(append(b, ']'))), nil
			}, exec.TJSON, nil
		}
	}
	buildObject := func(jsonb bool, name string) func([]exec.T) (exec.Fn, exec.T, error) {
		return func(ts []exec.T) (exec.Fn, exec.T, error) {
			ret := exec.TJSON
			if jsonb {
				ret = exec.TJSONB
			}
			if len(ts)%2 != 0 {
				// PostgreSQL checks when the function runs: no row, no error.
				err := pgerr.New(pgerr.InvalidParameterValue, "argument list must have even number of elements").
					WithHint("The arguments of %s() must consist of alternating keys and values.", name)
				return func(*exec.Env, []exec.Datum) (exec.Datum, error) { return exec.Null, err }, ret, nil
			}
			return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
				var pairs []types.JSONBPair
				b := []byte{'{'}
				for i := 0; i < len(a); i += 2 {
					if a[i].IsNull() && !jsonb {
						return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "argument %d cannot be null", i+1).WithHint("Object keys should be text.")
					}
					if a[i].IsNull() {
						return exec.Null, pgerr.New(pgerr.NullValueNotAllowed, "argument %d: key must not be null", i+1)
					}
					if err := scalarKey(ts[i]); err != nil {
						return exec.Null, err
					}
					key := textOf(env, ts[i], a[i])
					if jsonb {
						v := types.JSONB{}
						if !a[i+1].IsNull() {
							var err error
							if v, err = toJSONB(env, ts[i+1], a[i+1]); err != nil {
								return exec.Null, err
							}
						}
						pairs = append(pairs, types.JSONBPair{Key: key, Value: v})
						continue
					}
					if i > 0 {
						b = append(b, ", "...)
					}
					b = types.AppendJSONString(b, key)
					b = append(b, " : "...)
					b = appendToJSON(b, env, ts[i+1], a[i+1])
				}
				if jsonb {
					v := jbObject(pairs)
					if len(pairs) == 0 {
						v = types.JSONB{Kind: types.JSONObject}
					}
					return outJB(&v), nil
				}
				return exec.DJSON(string(append(b, '}'))), nil
			}, ret, nil
		}
	}
	for _, jsonb := range []bool{false, true} {
		prefix, ret := "json", J
		if jsonb {
			prefix, ret = "jsonb", JB
		}
		exec.Register(&exec.Func{Name: prefix + "_build_array", Ret: ret, Build: buildArray(jsonb)},
			&exec.Func{Name: prefix + "_build_array", Args: []uint32{exec.OIDAny}, Variadic: true, Ret: ret, Build: buildArray(jsonb)},
			&exec.Func{Name: prefix + "_build_object", Ret: ret, Build: buildObject(jsonb, prefix+"_build_object")},
			&exec.Func{Name: prefix + "_build_object", Args: []uint32{exec.OIDAny}, Variadic: true, Ret: ret, Build: buildObject(jsonb, prefix+"_build_object")})
	}
}

// scalarKey fails for a key of json_build_object or json_object_agg that
// PostgreSQL refuses: arrays, composites and json itself.
func scalarKey(t exec.T) error {
	if k := t.OID; k == exec.OIDJSON || k == exec.OIDJSONB || exec.IsArrayType(k) || exec.KindOf(k) == exec.KindRecord || exec.KindOf(k) == exec.KindNull {
		return pgerr.New(pgerr.InvalidParameterValue, "key value must be scalar, not array, composite, or json")
	}
	return nil
}

// jsonObjectPairs reads json_object's arguments: one text[] of
// alternating keys and values (or of two-element rows), or two text[]s of
// keys and values.
func jsonObjectPairs(a []exec.Datum) ([]exec.Datum, []exec.Datum, error) {
	dims := func(d exec.Datum) int { return len(d.Array().Dims) }
	if len(a) == 1 {
		arr := a[0].Array()
		switch dims(a[0]) {
		case 0:
			return nil, nil, nil
		case 1:
			if len(arr.Elems)%2 != 0 {
				return nil, nil, pgerr.New(pgerr.ArraySubscriptError, "array must have even number of elements")
			}
		case 2:
			if arr.Dims[1] != 2 {
				return nil, nil, pgerr.New(pgerr.ArraySubscriptError, "array must have two columns")
			}
		default:
			return nil, nil, pgerr.New(pgerr.ArraySubscriptError, "wrong number of array subscripts")
		}
		var keys, vals []exec.Datum
		for i := 0; i+1 < len(arr.Elems); i += 2 {
			keys = append(keys, arr.Elems[i])
			vals = append(vals, arr.Elems[i+1])
		}
		return keys, vals, nil
	}
	if dims(a[0]) == 0 && dims(a[1]) == 0 {
		return nil, nil, nil
	}
	if dims(a[0]) != 1 || dims(a[1]) != 1 {
		return nil, nil, pgerr.New(pgerr.ArraySubscriptError, "wrong number of array subscripts")
	}
	keys, vals := a[0].Array().Elems, a[1].Array().Elems
	if len(keys) != len(vals) {
		return nil, nil, pgerr.New(pgerr.ArraySubscriptError, "mismatched array dimensions")
	}
	return keys, vals, nil
}

func registerJSONBuild() {
	object := func(jsonb bool) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			keys, vals, err := jsonObjectPairs(a)
			if err != nil {
				return exec.Null, err
			}
			var pairs []types.JSONBPair
			b := []byte{'{'}
			for i, k := range keys {
				if k.IsNull() {
					return exec.Null, pgerr.New(pgerr.NullValueNotAllowed, "null value not allowed for object key")
				}
				v := types.JSONB{}
				if !vals[i].IsNull() {
					v = types.JSONB{Kind: types.JSONString, Str: vals[i].S}
				}
				if jsonb {
					pairs = append(pairs, types.JSONBPair{Key: k.S, Value: v})
					continue
				}
				if i > 0 {
					b = append(b, ", "...)
				}
				b = types.AppendJSONString(b, k.S)
				b = append(b, " : "...)
				b = types.AppendJSONB(b, &v)
			}
			if jsonb {
				v := types.JSONB{Kind: types.JSONObject}
				if len(pairs) > 0 {
					v = jbObject(pairs)
				}
				return outJB(&v), nil
			}
			return exec.DJSON(string(append(b, '}'))), nil
		}
	}
	TA := exec.OIDTextArray
	for _, jsonb := range []bool{false, true} {
		name, ret := "json_object", exec.OIDJSON
		if jsonb {
			name, ret = "jsonb_object", exec.OIDJSONB
		}
		jsonFn(name, []uint32{TA}, ret, object(jsonb))
		jsonFn(name, []uint32{TA, TA}, ret, object(jsonb))
	}
	// jsonb_set_lax: jsonb_set that says what an SQL NULL new value means.
	setLax := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if a[0].IsNull() || a[1].IsNull() {
			return exec.Null, nil
		}
		create, treatment := true, "use_json_null"
		if len(a) > 3 {
			if a[3].IsNull() {
				return exec.Null, nil
			}
			create = a[3].Bool()
		}
		if len(a) > 4 {
			if a[4].IsNull() {
				return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "null_value_treatment must be \"delete_key\", \"return_target\", \"use_json_null\", or \"raise_exception\"")
			}
			treatment = a[4].S
		}
		nv := a[2]
		if nv.IsNull() {
			switch treatment {
			case "raise_exception":
				return exec.Null, pgerr.New(pgerr.NullValueNotAllowed, "JSON value must not be null").
					WithDetail("Exception was raised because null_value_treatment is \"raise_exception\".").
					WithHint("To avoid, either change the null_value_treatment argument or ensure that an SQL NULL is not passed.")
			case "use_json_null":
				nv = exec.DJSON("null")
			case "delete_key":
				return jsonbDeletePath(nil, a[:2])
			case "return_target":
				return a[0], nil
			default:
				return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "null_value_treatment must be \"delete_key\", \"return_target\", \"use_json_null\", or \"raise_exception\"")
			}
		}
		return jsonbSet(false)(nil, []exec.Datum{a[0], a[1], nv, exec.DBool(create)})
	}
	JB := exec.OIDJSONB
	for _, args := range [][]uint32{{JB, TA, JB}, {JB, TA, JB, exec.OIDBool}, {JB, TA, JB, exec.OIDBool, exec.OIDText}} {
		exec.Register(&exec.Func{Name: "jsonb_set_lax", Args: args, Ret: JB, Fn: setLax})
	}
}

// jsonbDeletePath is jsonb #- text[].
func jsonbDeletePath(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	v, err := parseJB(a[0])
	if err != nil {
		return exec.Null, err
	}
	path := textArrayOf(a[1])
	if v.Kind != types.JSONObject && v.Kind != types.JSONArray {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "cannot delete path in scalar")
	}
	if len(path) == 0 || len(v.Pairs)+len(v.Elems) == 0 {
		return a[0], nil
	}
	r, err := setPath(&v, path, 0, nil, pathDelete, false)
	if err != nil {
		return exec.Null, err
	}
	return outJB(&r), nil
}

// jsonbSet is jsonb_set, or jsonb_insert with insert.
func jsonbSet(insert bool) exec.Fn {
	return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		v, err := parseJB(a[0])
		if err != nil {
			return exec.Null, err
		}
		nv, err := parseJB(a[2])
		if err != nil {
			return exec.Null, err
		}
		flag := !insert
		if len(a) > 3 {
			flag = a[3].Bool()
		}
		path := textArrayOf(a[1])
		if v.Kind != types.JSONObject && v.Kind != types.JSONArray {
			return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "cannot set path in scalar")
		}
		if len(path) == 0 {
			return a[0], nil
		}
		mode := pathSet
		if insert {
			mode = pathInsertBefore
			if flag {
				mode = pathInsertAfter
			}
		}
		r, err := setPath(&v, path, 0, &nv, mode, flag)
		if err != nil {
			return exec.Null, err
		}
		return outJB(&r), nil
	}
}

// appendArrayJSON appends the elements of dimension dim of a from
// element off on as a JSON array, as array_to_json does; pretty puts a
// line break between the elements of the outermost dimension.
func appendArrayJSON(dst []byte, env *exec.Env, elem exec.T, a *exec.Array, dim, off int, pretty bool) []byte {
	dst = append(dst, '[')
	if len(a.Dims) == 0 {
		return append(dst, ']')
	}
	stride := 1
	for _, n := range a.Dims[dim+1:] {
		stride *= int(n)
	}
	for i := 0; i < int(a.Dims[dim]); i++ {
		if i > 0 {
			dst = append(dst, ',')
			if pretty && dim == 0 {
				dst = append(dst, "\n "...)
			}
		}
		if dim+1 < len(a.Dims) {
			dst = appendArrayJSON(dst, env, elem, a, dim+1, off+i*stride, false)
			continue
		}
		dst = appendToJSON(dst, env, elem, a.Elems[off+i])
	}
	return append(dst, ']')
}

// appendRecordJSON appends r as a JSON object, as row_to_json does: its
// fields by name, in order; pretty puts each field after the first on a
// line of its own.
func appendRecordJSON(dst []byte, env *exec.Env, r *exec.Record, pretty bool) []byte {
	names := r.FieldNames(env.Settings)
	dst = append(dst, '{')
	for i, f := range r.Fields {
		if i > 0 {
			dst = append(dst, ',')
			if pretty {
				dst = append(dst, "\n "...)
			}
		}
		dst = types.AppendJSONString(dst, names[i])
		dst = append(dst, ':')
		dst = appendToJSON(dst, env, r.Types[i], f)
	}
	return append(dst, '}')
}

func registerRowToJSON() {
	rowToJSON := func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		pretty := len(a) > 1 && a[1].Bool()
		return exec.DJSON(string(appendRecordJSON(nil, env, a[0].Record(), pretty))), nil
	}
	exec.Register(&exec.Func{Name: "row_to_json", Args: []uint32{exec.OIDRecord}, Ret: exec.OIDJSON, Strict: true, Fn: rowToJSON})
	exec.Register(&exec.Func{Name: "row_to_json", Args: []uint32{exec.OIDRecord, exec.OIDBool}, Ret: exec.OIDJSON, Strict: true, Fn: rowToJSON})
	// array_to_json(anyarray [, pretty]): pretty puts each element of the
	// first dimension after the first on a line of its own.
	arrayToJSON := func(ts []exec.T) (exec.Fn, exec.T, error) {
		elem := exec.ElemType(ts[0])
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			pretty := len(a) > 1 && a[1].Bool()
			return exec.DJSON(string(appendArrayJSON(nil, env, elem, a[0].Array(), 0, 0, pretty))), nil
		}, exec.TJSON, nil
	}
	exec.Register(&exec.Func{Name: "array_to_json", Args: []uint32{exec.OIDAnyArray}, Ret: exec.OIDJSON, Strict: true, Build: arrayToJSON})
	exec.Register(&exec.Func{Name: "array_to_json", Args: []uint32{exec.OIDAnyArray, exec.OIDBool}, Ret: exec.OIDJSON, Strict: true, Build: arrayToJSON})
}
