package funcs

import (
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// The set-returning functions of the library: json(b)_each and its kin,
// jsonb_path_query, regexp_matches, regexp_split_to_table, string_to_table,
// unnest(text[]), generate_series over timestamps; json(b)_to_record(set).

func jsonEachErr(fn, kind string) error {
	return pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on %s", fn, kind)
}

func registerSRFs() {
	J, JB, TX := exec.OIDJSON, exec.OIDJSONB, exec.OIDText
	for _, jsonb := range []bool{false, true} {
		jsonb := jsonb
		prefix, jt, jT := "json", J, exec.TJSON
		if jsonb {
			prefix, jt, jT = "jsonb", JB, exec.TJSONB
		}
		for _, text := range []bool{false, true} {
			text := text
			each := prefix + "_each"
			valT := jT
			if text {
				each += "_text"
				valT = exec.TText
			}
			exec.RegisterSRF(&exec.Func{Name: each, Args: []uint32{jt}, Ret: exec.OIDRecord}, func([]exec.T) *exec.SRF {
				return &exec.SRF{Cols: []exec.ResultColumn{{Name: "key", T: exec.TText}, {Name: "value", T: valT}},
					Rows: func(_ *exec.Env, a []exec.Datum) ([]exec.Row, error) {
						return jsonEachRows(a[0], jsonb, text, each)
					}}
			})
			elements := prefix + "_array_elements"
			if text {
				elements += "_text"
			}
			exec.RegisterSRF(&exec.Func{Name: elements, Args: []uint32{jt}, Ret: exec.OIDRecord}, func([]exec.T) *exec.SRF {
				return &exec.SRF{Cols: []exec.ResultColumn{{Name: "value", T: valT}}, Named: true, // OUT value
					Rows: func(_ *exec.Env, a []exec.Datum) ([]exec.Row, error) {
						return jsonElementRows(a[0], jsonb, text)
					}}
			})
		}
		name := prefix + "_object_keys"
		exec.RegisterSRF(&exec.Func{Name: name, Args: []uint32{jt}, Ret: TX}, func([]exec.T) *exec.SRF {
			return &exec.SRF{Cols: []exec.ResultColumn{{Name: name, T: exec.TText}},
				Rows: func(_ *exec.Env, a []exec.Datum) ([]exec.Row, error) {
					rows, err := jsonEachRows(a[0], jsonb, true, name)
					for i := range rows {
						rows[i] = rows[i][:1] // the key alone
					}
					return rows, err
				}}
		})
	}
	exec.RegisterSRF(&exec.Func{Name: "jsonb_path_query", Args: []uint32{JB, TX}, Ret: JB}, func([]exec.T) *exec.SRF {
		cache := &jsonPathCache{}
		return &exec.SRF{Cols: []exec.ResultColumn{{Name: "jsonb_path_query", T: exec.TJSONB}},
			Rows: func(_ *exec.Env, a []exec.Datum) ([]exec.Row, error) {
				p, err := cache.get(a[1].S)
				if err != nil {
					return nil, err
				}
				items, err := runJSONPath(p, a[0], exec.Null)
				if err != nil {
					return nil, err
				}
				rows := make([]exec.Row, len(items))
				for i := range items {
					rows[i] = exec.Row{outJB(&items[i])}
				}
				return rows, nil
			}}
	})
	for _, args := range [][]uint32{{TX, TX}, {TX, TX, TX}} {
		exec.RegisterSRF(&exec.Func{Name: "regexp_matches", Args: args, Ret: exec.OIDTextArray}, func([]exec.T) *exec.SRF {
			c := &regexCache{}
			return &exec.SRF{Cols: []exec.ResultColumn{{Name: "regexp_matches", T: exec.TTextArray}},
				Rows: func(_ *exec.Env, a []exec.Datum) (_ []exec.Row, err error) {
					defer recoverMatchFailure(&err)
					flags := ""
					if len(a) > 2 {
						flags = a[2].S
					}
					f, err := parseReFlags(flags, "regexp_matches", true)
					if err != nil {
						return nil, err
					}
					global := f.global
					f.global = false
					re, err := c.get(a[1].S, f)
					if err != nil {
						return nil, err
					}
					n := 1
					if global {
						n = -1
					}
					var rows []exec.Row
					s := a[0].S
					for _, m := range re.FindAllStringSubmatchIndex(s, n) {
						var elems []exec.Datum
						if len(m) == 2 {
							elems = []exec.Datum{exec.DText(s[m[0]:m[1]])}
						}
						for i := 2; i < len(m); i += 2 {
							if m[i] < 0 {
								elems = append(elems, exec.Null)
							} else {
								elems = append(elems, exec.DText(s[m[i]:m[i+1]]))
							}
						}
						rows = append(rows, exec.Row{textArray(elems)})
					}
					return rows, nil
				}}
		})
		exec.RegisterSRF(&exec.Func{Name: "regexp_split_to_table", Args: args, Ret: TX}, func([]exec.T) *exec.SRF {
			c := &regexCache{}
			return &exec.SRF{Cols: []exec.ResultColumn{{Name: "regexp_split_to_table", T: exec.TText}},
				Rows: func(_ *exec.Env, a []exec.Datum) (_ []exec.Row, err error) {
					defer recoverMatchFailure(&err)
					flags := ""
					if len(a) > 2 {
						flags = a[2].S
					}
					f, err := parseReFlags(flags, "regexp_split_to_table", false)
					if err != nil {
						return nil, err
					}
					re, err := c.get(a[1].S, f)
					if err != nil {
						return nil, err
					}
					var rows []exec.Row
					for _, d := range regexSplit(a[0].S, re.FindAllStringIndex(a[0].S, -1)) {
						rows = append(rows, exec.Row{d})
					}
					return rows, nil
				}}
		})
	}
	for _, args := range [][]uint32{{TX, TX}, {TX, TX, TX}} {
		exec.RegisterSRF(&exec.Func{Name: "string_to_table", Args: args, Ret: TX}, func([]exec.T) *exec.SRF {
			return &exec.SRF{Cols: []exec.ResultColumn{{Name: "string_to_table", T: exec.TText}}, NullArgs: true,
				Rows: func(_ *exec.Env, a []exec.Datum) ([]exec.Row, error) {
					if a[0].IsNull() {
						return nil, nil
					}
					var rows []exec.Row
					for _, d := range splitString(a) {
						rows = append(rows, exec.Row{d})
					}
					return rows, nil
				}}
		})
	}
}

// jsonEachRows is json(b)_each(_text): one row per member of an object.
func jsonEachRows(d exec.Datum, jsonb, text bool, fn string) ([]exec.Row, error) {
	if jsonb {
		v, err := parseJB(d)
		if err != nil {
			return nil, err
		}
		if v.Kind != types.JSONObject {
			kind := "a non-object"
			if strings.HasSuffix(fn, "_keys") {
				kind = "a scalar"
				if v.Kind == types.JSONArray {
					kind = "an array"
				}
			}
			return nil, jsonEachErr(fn, kind)
		}
		rows := make([]exec.Row, len(v.Pairs))
		for i := range v.Pairs {
			val := outJB(&v.Pairs[i].Value)
			if text {
				val = jbText(&v.Pairs[i].Value)
			}
			rows[i] = exec.Row{exec.DText(v.Pairs[i].Key), val}
		}
		return rows, nil
	}
	s := d.S
	lo, _ := jsonRoot(s)
	if jsonKind(s, lo) != types.JSONObject {
		kind := "a non-object"
		if strings.HasSuffix(fn, "_keys") {
			kind = "a scalar"
			if jsonKind(s, lo) == types.JSONArray {
				kind = "an array"
			}
		}
		return nil, jsonEachErr(fn, kind)
	}
	var rows []exec.Row
	jsonElems(s, lo, func(key string, l, h int) bool {
		val := exec.DJSON(s[l:h])
		if text {
			val = jsonText(s, l, h)
		}
		rows = append(rows, exec.Row{exec.DText(key), val})
		return true
	})
	return rows, nil
}

// jsonElementRows is json(b)_array_elements(_text).
func jsonElementRows(d exec.Datum, jsonb, text bool) ([]exec.Row, error) {
	notArray := func(k types.JSONKind) error {
		if k == types.JSONObject {
			return pgerr.New(pgerr.InvalidParameterValue, "cannot extract elements from an object")
		}
		return pgerr.New(pgerr.InvalidParameterValue, "cannot extract elements from a scalar")
	}
	if jsonb {
		v, err := parseJB(d)
		if err != nil {
			return nil, err
		}
		if v.Kind != types.JSONArray {
			return nil, notArray(v.Kind)
		}
		rows := make([]exec.Row, len(v.Elems))
		for i := range v.Elems {
			if text {
				rows[i] = exec.Row{jbText(&v.Elems[i])}
			} else {
				rows[i] = exec.Row{outJB(&v.Elems[i])}
			}
		}
		return rows, nil
	}
	s := d.S
	lo, _ := jsonRoot(s)
	if k := jsonKind(s, lo); k != types.JSONArray {
		return nil, notArray(k)
	}
	var rows []exec.Row
	jsonElems(s, lo, func(_ string, l, h int) bool {
		if text {
			rows = append(rows, exec.Row{jsonText(s, l, h)})
		} else {
			rows = append(rows, exec.Row{exec.DJSON(s[l:h])})
		}
		return true
	})
	return rows, nil
}

// JSONToRecord is json(b)_to_record(set) with the columns a definition
// list gives: each row takes, per column, the member of that name, as the
// column's type reads it (json and jsonb columns take the JSON value
// itself, other types its text: a string unquoted, anything else as
// written); a missing member or a JSON null is NULL.
func JSONToRecord(name string, cols []exec.ResultColumn) *exec.SRF {
	set := strings.HasSuffix(name, "set")
	return &exec.SRF{Cols: cols, Rows: func(env *exec.Env, a []exec.Datum) ([]exec.Row, error) {
		objs, err := populateObjects(name, set, strings.HasPrefix(name, "json_"), a[0])
		if err != nil {
			return nil, err
		}
		rows := make([]exec.Row, len(objs))
		for i, o := range objs {
			row := make(exec.Row, len(cols))
			for j, c := range cols {
				if row[j], err = jsonToDatum(env, c.T, o.field(c.Name)); err != nil {
					return nil, err
				}
			}
			rows[i] = row
		}
		return rows, nil
	}}
}

// IsJSONToRecord reports the functions that take a column definition
// list.
func IsJSONToRecord(name string) bool {
	switch name {
	case "json_to_record", "jsonb_to_record", "json_to_recordset", "jsonb_to_recordset":
		return true
	}
	return false
}

func registerTimestampSeries() {
	// generate_series over timestamps, by an interval: lazily, as its end
	// may be infinity.
	for _, t := range []uint32{exec.OIDTimestamp, exec.OIDTimestampTZ} {
		t := t
		exec.RegisterSRF(&exec.Func{Name: "generate_series", Args: []uint32{t, t, exec.OIDInterval}, Ret: t}, func([]exec.T) *exec.SRF {
			return &exec.SRF{Cols: []exec.ResultColumn{{Name: "generate_series", T: exec.T{OID: t, Typmod: -1}}},
				Iter: func(env *exec.Env, a []exec.Datum) (func() (exec.Row, error), error) {
					step := a[2].Interval()
					if exec.CompareInterval(step, exec.Interval{}) == 0 {
						return nil, pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
					}
					up := exec.CompareInterval(step, exec.Interval{}) > 0
					cur, stop := a[0].I, a[1].I
					done := false
					return func() (exec.Row, error) {
						if done || (up && cur > stop) || (!up && cur < stop) {
							return nil, nil
						}
						row := exec.Row{exec.DTimestamp(cur)}
						var next int64
						var err error
						if t == exec.OIDTimestampTZ {
							next, err = addIntervalTZ(cur, step, exec.Location(env.Settings))
						} else {
							next, err = addInterval(cur, step)
						}
						if err != nil {
							done = true // past the range: this was the last
						}
						cur = next
						return row, nil
					}, nil
				}}
		})
	}
}
