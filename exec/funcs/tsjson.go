package funcs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// Full text search over json and jsonb documents, as PostgreSQL's
// tsvector_op.c and wparser.c: to_tsvector indexes a document's string
// values, json(b)_to_tsvector the kinds of values its filter names, and
// ts_headline highlights the string values and keeps the rest of the
// document. Values are read in document order (jsonb's, for jsonb);
// each continues the positions of the one before, one further on when it
// gave lexemes, so that a phrase never spans two values.

// Kinds of values a json(b)_to_tsvector filter selects.
const (
	tsjString = 1 << iota
	tsjNumeric
	tsjBoolean
	tsjKey
	tsjAll = tsjString | tsjNumeric | tsjBoolean | tsjKey
)

var tsjFlags = map[string]int{"string": tsjString, "numeric": tsjNumeric, "boolean": tsjBoolean, "key": tsjKey, "all": tsjAll}

// parseTSJSONFilter reads a filter: a JSON array of kind names, or one.
func parseTSJSONFilter(filter string) (int, error) {
	var v any
	if err := json.Unmarshal([]byte(filter), &v); err != nil {
		return 0, err
	}
	var names []any
	switch x := v.(type) {
	case []any:
		names = x
	case string:
		names = []any{x}
	default:
		return 0, pgerr.New(pgerr.InvalidParameterValue, "wrong flag type, only arrays and scalars are allowed")
	}
	flags := 0
	for _, n := range names {
		s, ok := n.(string)
		if !ok {
			return 0, pgerr.New(pgerr.InvalidParameterValue, "flag array element is not a string").
				WithHint(`Possible values are: "string", "numeric", "boolean", "key", and "all".`)
		}
		f, ok := tsjFlags[s]
		if !ok {
			return 0, pgerr.New(pgerr.InvalidParameterValue, "wrong flag in flag array: %q", s).
				WithHint(`Possible values are: "string", "numeric", "boolean", "key", and "all".`)
		}
		flags |= f
	}
	return flags, nil
}

// jsonWalk calls scalar with each scalar of doc in document order (its
// text, its kind, and whether it is an object's key), and, when out is
// not nil, writes the document to it compactly with each string value
// (not key) as value returns it.
func jsonWalk(doc string, scalar func(text string, kind int, key bool), value func(string) string, out *bytes.Buffer) error {
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	type level struct {
		obj, wantKey bool
		n            int // items written
	}
	var stack []level
	writeString := func(s string) {
		if out == nil {
			return
		}
		var b bytes.Buffer
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(false)
		_ = e.Encode(s)
		out.Write(bytes.TrimRight(b.Bytes(), "\n"))
	}
	write := func(s string) {
		if out != nil {
			out.WriteString(s)
		}
	}
	// before writes the separator an item needs; it reports whether the
	// item is an object's key.
	before := func() bool {
		if len(stack) == 0 {
			return false
		}
		top := &stack[len(stack)-1]
		if top.obj && !top.wantKey {
			write(":")
			top.wantKey = true
			return false
		}
		if top.n > 0 {
			write(",")
		}
		top.n++
		if top.obj {
			top.wantKey = false
			return true
		}
		return false
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				before()
				write(string(v))
				stack = append(stack, level{obj: v == '{', wantKey: v == '{'})
			default:
				write(string(v))
				stack = stack[:len(stack)-1]
			}
		case string:
			key := before()
			kind := tsjString
			if key {
				kind = tsjKey
			}
			if scalar != nil {
				scalar(v, kind, key)
			}
			if !key && value != nil {
				v = value(v)
			}
			writeString(v)
		case json.Number:
			before()
			if scalar != nil {
				scalar(string(v), tsjNumeric, false)
			}
			write(string(v))
		case bool:
			before()
			if scalar != nil {
				scalar(fmt.Sprint(v), tsjBoolean, false)
			}
			write(fmt.Sprint(v))
		case nil:
			before()
			write("null")
		}
	}
}

// jsonToTSVector is to_tsvector of a json or jsonb document, indexing
// the values of the kinds flags selects.
func (c *tsConfig) jsonToTSVector(doc string, flags int) (types.TSVector, error) {
	var v types.TSVector
	pos := 0
	err := jsonWalk(doc, func(text string, kind int, _ bool) {
		if flags&kind == 0 {
			return
		}
		words, end := c.parseFrom(text, pos)
		for _, w := range words {
			v = append(v, types.TSLexeme{Word: w.word, Pos: []types.TSPosition{types.NewTSPosition(w.pos, 0)}})
		}
		pos = end
		if len(words) > 0 {
			pos++ // the boundary between two values
		}
	}, nil, nil)
	if err != nil {
		return nil, err
	}
	return types.NormalizeTSVector(v), nil
}

func registerJSONTextSearch() {
	V, Q, TX := exec.OIDTSVector, exec.OIDTSQuery, exec.OIDText
	JS, JB := exec.OIDJSON, exec.OIDJSONB
	reg := func(name string, args []uint32, ret uint32, immutable bool, f exec.Fn) {
		exec.Register(&exec.Func{Name: name, Args: args, Ret: ret, Strict: true, Immutable: immutable, Fn: f})
	}
	toTSVector := func(filtered bool) exec.Fn {
		full := 2
		if filtered {
			full = 3
		}
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			c, i, err := configArg(env, a, full)
			if err != nil {
				return exec.Null, err
			}
			flags := tsjString
			if filtered {
				if flags, err = parseTSJSONFilter(a[i+1].S); err != nil {
					return exec.Null, err
				}
			}
			v, err := c.jsonToTSVector(a[i].S, flags)
			if err != nil {
				return exec.Null, err
			}
			return exec.DTSVector(v), nil
		}
	}
	for _, doc := range []uint32{JS, JB} {
		for _, cfg := range configTypes {
			reg("to_tsvector", []uint32{cfg, doc}, V, true, toTSVector(false))
		}
		reg("to_tsvector", []uint32{doc}, V, false, toTSVector(false))
		name := "json_to_tsvector"
		if doc == JB {
			name = "jsonb_to_tsvector"
		}
		for _, cfg := range configTypes {
			reg(name, []uint32{cfg, doc, JB}, V, true, toTSVector(true))
		}
		reg(name, []uint32{doc, JB}, V, false, toTSVector(true))
	}
	headline := func(ret uint32, withConfig, withOptions bool) exec.Fn {
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			c, doc, q, o, err := headlineArgs(env, a, withOptions)
			if err != nil {
				return exec.Null, err
			}
			var out bytes.Buffer
			err = jsonWalk(doc.S, nil, func(s string) string {
				return c.headlineOf(s, q, o)
			}, &out)
			if err != nil {
				return exec.Null, err
			}
			if ret == JB {
				return exec.ParseText(exec.TJSONB, out.String(), env.Settings)
			}
			return exec.DJSON(out.String()), nil
		}
	}
	for _, doc := range []uint32{JS, JB} {
		for _, cfg := range configTypes {
			reg("ts_headline", []uint32{cfg, doc, Q, TX}, doc, true, headline(doc, true, true))
			reg("ts_headline", []uint32{cfg, doc, Q}, doc, true, headline(doc, true, false))
		}
		reg("ts_headline", []uint32{doc, Q, TX}, doc, false, headline(doc, false, true))
		reg("ts_headline", []uint32{doc, Q}, doc, false, headline(doc, false, false))
	}
}
