package funcs

import (
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// The functions that show how text search reads a document: the default
// parser's token types (ts_token_type), its tokens (ts_parse) and each
// token's dictionaries and lexemes (ts_debug); and tsquery containment
// (@>, <@).

// defaultParserOID is pg_ts_parser's OID of the default parser.
const defaultParserOID = 3722

// checkParser accepts the default parser by name or OID.
func checkParser(d exec.Datum) error {
	if d.Kind == exec.KindInt {
		if d.I == defaultParserOID {
			return nil
		}
		return pgerr.New(pgerr.UndefinedObject, "text search parser with OID %d does not exist", d.I)
	}
	if n := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(d.S)), "pg_catalog."); n != "default" {
		return pgerr.New(pgerr.UndefinedObject, "text search parser %q does not exist", d.S)
	}
	return nil
}

func registerTSDebug() {
	TX, Q := exec.OIDText, exec.OIDTSQuery
	tokenTypeCols := []exec.ResultColumn{{Name: "tokid", T: exec.TInt4}, {Name: "alias", T: exec.TText}, {Name: "description", T: exec.TText}}
	for _, arg := range []uint32{TX, exec.OIDOid} {
		exec.RegisterSRF(&exec.Func{Name: "ts_token_type", Args: []uint32{arg}, Ret: exec.OIDRecord}, func([]exec.T) *exec.SRF {
			return &exec.SRF{Cols: tokenTypeCols, Rows: func(_ *exec.Env, a []exec.Datum) ([]exec.Row, error) {
				if err := checkParser(a[0]); err != nil {
					return nil, err
				}
				rows := make([]exec.Row, len(tokenTypes))
				for i, t := range tokenTypes {
					rows[i] = exec.Row{exec.DInt(int64(i + 1)), exec.DText(t.alias), exec.DText(t.description)}
				}
				return rows, nil
			}}
		})
	}
	parseCols := []exec.ResultColumn{{Name: "tokid", T: exec.TInt4}, {Name: "token", T: exec.TText}}
	for _, arg := range []uint32{TX, exec.OIDOid} {
		exec.RegisterSRF(&exec.Func{Name: "ts_parse", Args: []uint32{arg, TX}, Ret: exec.OIDRecord}, func([]exec.T) *exec.SRF {
			return &exec.SRF{Cols: parseCols, Rows: func(_ *exec.Env, a []exec.Datum) ([]exec.Row, error) {
				if err := checkParser(a[0]); err != nil {
					return nil, err
				}
				var rows []exec.Row
				for _, t := range parseText(a[1].S) {
					rows = append(rows, exec.Row{exec.DInt(int64(t.typ)), exec.DText(t.text)})
				}
				return rows, nil
			}}
		})
	}
	debugCols := []exec.ResultColumn{{Name: "alias", T: exec.TText}, {Name: "description", T: exec.TText},
		{Name: "token", T: exec.TText}, {Name: "dictionaries", T: exec.TTextArray}, {Name: "dictionary", T: exec.TText},
		{Name: "lexemes", T: exec.TTextArray}}
	debug := func(env *exec.Env, a []exec.Datum) ([]exec.Row, error) {
		c, i, err := configArg(env, a, 2)
		if err != nil {
			return nil, err
		}
		var rows []exec.Row
		for _, t := range parseText(a[i].S) {
			tt := tokenTypes[t.typ-1]
			row := exec.Row{exec.DText(tt.alias), exec.DText(tt.description), exec.DText(t.text), textArray(nil), exec.Null, exec.Null}
			if ds := c.dicts[t.typ]; len(ds) > 0 {
				// As PostgreSQL's ts_debug: the first dictionary that
				// knows the token, or else the first, with its lexemes.
				names := make([]exec.Datum, len(ds))
				for i, d := range ds {
					names[i] = exec.DText(dictDisplayName(env, d))
				}
				row[3] = textArray(names)
				ls, d := c.lexize(t.typ, t.text)
				if d == nil {
					d = ds[0]
				}
				row[4] = exec.DText(dictDisplayName(env, d))
				if d != nil && ls != nil {
					lexemes := make([]exec.Datum, len(ls))
					for i, l := range ls {
						lexemes[i] = exec.DText(l.word)
					}
					row[5] = textArray(lexemes)
				}
			}
			rows = append(rows, row)
		}
		return rows, nil
	}
	for _, args := range [][]uint32{{TX, TX}, {exec.OIDRegconfig, TX}, {TX}} {
		exec.RegisterSRF(&exec.Func{Name: "ts_debug", Args: args, Ret: exec.OIDRecord}, func([]exec.T) *exec.SRF {
			return &exec.SRF{Cols: debugCols, Rows: debug}
		})
	}

	// tsquery containment compares the sets of lexemes (tsq_mcontains).
	contains := func(a, b exec.Datum) exec.Datum {
		have := map[string]bool{}
		collectLexemes(a.TSQuery().Root, func(l string) { have[l] = true })
		all := true
		collectLexemes(b.TSQuery().Root, func(l string) { all = all && have[l] })
		return exec.DBool(all)
	}
	exec.Register(&exec.Func{Name: "@>", Args: []uint32{Q, Q}, Ret: exec.OIDBool, Strict: true, Immutable: true,
		Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return contains(a[0], a[1]), nil }})
	exec.Register(&exec.Func{Name: "<@", Args: []uint32{Q, Q}, Ret: exec.OIDBool, Strict: true, Immutable: true,
		Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return contains(a[1], a[0]), nil }})
}

// collectLexemes calls fn with each lexeme of a query.
func collectLexemes(n *types.TSQueryNode, fn func(string)) {
	if n == nil {
		return
	}
	if n.Op == types.TSValue {
		fn(n.Lexeme)
		return
	}
	collectLexemes(n.Left, fn)
	collectLexemes(n.Right, fn)
}
