package funcs

import (
	"sort"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// Full text search: to_tsvector and the to_tsquery family over the
// built-in simple and english configurations (tsconfig.go, with the
// default parser's tokens in tsparser.go) and those CREATE TEXT SEARCH
// CONFIGURATION makes (tsdict.go), the match operator @@ with
// PostgreSQL's phrase semantics, the tsvector and tsquery editing
// functions and operators, and ranking (tsrank.go).

// defaultTSConfig is the configuration of the session's
// default_text_search_config.
func defaultTSConfig(env *exec.Env) (*tsConfig, error) {
	name := "pg_catalog.english"
	if env != nil && env.Settings != nil && env.Settings.TextSearchConfig != "" {
		name = env.Settings.TextSearchConfig
	}
	return tsConfigNamed(env, name)
}

// tsNotice sends a NOTICE to the session's client, if there is one.
func tsNotice(env *exec.Env, msg string) {
	if msg == "" || env == nil {
		return
	}
	if s, ok := env.Session.(interface{ Notice(error) }); ok {
		s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "%s", msg))
	}
}

// configArg returns the configuration a call names in its first argument,
// or the session's default when the call has one argument fewer than
// full; it returns the document's index.
func configArg(env *exec.Env, a []exec.Datum, full int) (*tsConfig, int, error) {
	if len(a) < full {
		c, err := defaultTSConfig(env)
		return c, 0, err
	}
	name := a[0].S
	if name == "" && a[0].Kind == exec.KindInt {
		// A regconfig given by OID alone (a binary parameter).
		if s, ok := env.Session.(interface {
			RegOut(env *exec.Env, typ, oid uint32) (string, error)
		}); ok {
			n, err := s.RegOut(env, exec.OIDRegconfig, uint32(a[0].I))
			if err != nil {
				return nil, 0, err
			}
			if n == "" {
				return nil, 0, pgerr.New(pgerr.UndefinedObject, "cache lookup failed for text search configuration %d", a[0].I)
			}
			name = n
		}
	}
	c, err := tsConfigNamed(env, name)
	return c, 1, err
}

// configTypes are the types a text search function's configuration
// argument may have: regconfig, PostgreSQL's, and text, which a name
// given as a literal resolves to.
var configTypes = []uint32{exec.OIDText, exec.OIDRegconfig}

// toTSQuery makes to_tsquery and its kin: syntax says how the text reads,
// op what joins the words of one operand.
func toTSQuery(syntax types.TSQuerySyntax, op types.TSOp, full int) exec.Fn {
	return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		c, i, err := configArg(env, a, full)
		if err != nil {
			return exec.Null, err
		}
		q, notice, err := types.ParseTSQueryWith(a[i].S, syntax, c.queryOperand(op))
		if err != nil {
			return exec.Null, err
		}
		tsNotice(env, notice)
		return exec.DTSQuery(q), nil
	}
}

func registerTextSearch() {
	V, Q, TX, B := exec.OIDTSVector, exec.OIDTSQuery, exec.OIDText, exec.OIDBool
	ch, ta, ca := exec.OIDChar, exec.OIDTextArray, uint32(types.OidCharArray)
	fn := func(name string, args []uint32, ret uint32, f exec.Fn) {
		exec.Register(&exec.Func{Name: name, Args: args, Ret: ret, Strict: true, Fn: f})
	}
	immutable := func(name string, args []uint32, ret uint32, f exec.Fn) {
		exec.Register(&exec.Func{Name: name, Args: args, Ret: ret, Strict: true, Immutable: true, Fn: f})
	}
	toTSVector := func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		c, i, err := configArg(env, a, 2)
		if err != nil {
			return exec.Null, err
		}
		return exec.DTSVector(c.toTSVector(a[i].S)), nil
	}
	for _, cfg := range configTypes {
		immutable("to_tsvector", []uint32{cfg, TX}, V, toTSVector)
	}
	fn("to_tsvector", []uint32{TX}, V, toTSVector)
	for _, f := range []struct {
		name   string
		syntax types.TSQuerySyntax
		op     types.TSOp
	}{
		{"to_tsquery", types.TSQueryStandard, types.TSPhrase},
		{"plainto_tsquery", types.TSQueryPlain, types.TSAnd},
		{"phraseto_tsquery", types.TSQueryPlain, types.TSPhrase},
		{"websearch_to_tsquery", types.TSQueryWebSearch, types.TSPhrase},
	} {
		for _, cfg := range configTypes {
			immutable(f.name, []uint32{cfg, TX}, Q, toTSQuery(f.syntax, f.op, 2))
		}
		fn(f.name, []uint32{TX}, Q, toTSQuery(f.syntax, f.op, 2))
	}

	// Matching.
	matchVQ := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DBool(tsMatch(a[0].TSVector(), a[1].TSQuery())), nil
	}
	matchQV := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DBool(tsMatch(a[1].TSVector(), a[0].TSQuery())), nil
	}
	matchTQ := func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		c, err := defaultTSConfig(env)
		if err != nil {
			return exec.Null, err
		}
		return exec.DBool(tsMatch(c.toTSVector(a[0].S), a[1].TSQuery())), nil
	}
	matchTT := func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		c, err := defaultTSConfig(env)
		if err != nil {
			return exec.Null, err
		}
		q, notice, err := types.ParseTSQueryWith(a[1].S, types.TSQueryPlain, c.queryOperand(types.TSAnd))
		if err != nil {
			return exec.Null, err
		}
		tsNotice(env, notice)
		return exec.DBool(tsMatch(c.toTSVector(a[0].S), q)), nil
	}
	for _, op := range []string{"@@", "@@@"} {
		immutable(op, []uint32{V, Q}, B, matchVQ)
		immutable(op, []uint32{Q, V}, B, matchQV)
	}
	fn("@@", []uint32{TX, Q}, B, matchTQ)
	fn("@@", []uint32{TX, TX}, B, matchTT)
	immutable("ts_match_vq", []uint32{V, Q}, B, matchVQ)
	immutable("ts_match_qv", []uint32{Q, V}, B, matchQV)
	fn("ts_match_tq", []uint32{TX, Q}, B, matchTQ)
	fn("ts_match_tt", []uint32{TX, TX}, B, matchTT)

	// tsvector functions.
	immutable("setweight", []uint32{V, ch}, V, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		w, err := weightOf(a[1].S)
		if err != nil {
			return exec.Null, err
		}
		return exec.DTSVector(setWeight(a[0].TSVector(), w, nil)), nil
	})
	immutable("setweight", []uint32{V, ch, ta}, V, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		w, err := weightOf(a[1].S)
		if err != nil {
			return exec.Null, err
		}
		only, err := lexemeSet(a[2])
		if err != nil {
			return exec.Null, err
		}
		return exec.DTSVector(setWeight(a[0].TSVector(), w, only)), nil
	})
	immutable("strip", []uint32{V}, V, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		v := a[0].TSVector()
		out := make(types.TSVector, len(v))
		for i, l := range v {
			out[i] = types.TSLexeme{Word: l.Word}
		}
		return exec.DTSVector(out), nil
	})
	immutable("length", []uint32{V}, exec.OIDInt4, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DInt(int64(len(a[0].TSVector()))), nil
	})
	immutable("tsvector_to_array", []uint32{V}, ta, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		v := a[0].TSVector()
		elems := make([]exec.Datum, len(v))
		for i, l := range v {
			elems[i] = exec.DText(l.Word)
		}
		return textArray(elems), nil
	})
	immutable("array_to_tsvector", []uint32{ta}, V, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		var v types.TSVector
		for _, e := range a[0].Array().Elems {
			if e.IsNull() {
				return exec.Null, errLexemeNull
			}
			v = append(v, types.TSLexeme{Word: e.S})
		}
		return exec.DTSVector(types.NormalizeTSVector(v)), nil
	})
	immutable("ts_delete", []uint32{V, TX}, V, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DTSVector(deleteLexemes(a[0].TSVector(), map[string]bool{a[1].S: true})), nil
	})
	immutable("ts_delete", []uint32{V, ta}, V, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		drop, err := lexemeSet(a[1])
		if err != nil {
			return exec.Null, err
		}
		return exec.DTSVector(deleteLexemes(a[0].TSVector(), drop)), nil
	})
	immutable("ts_filter", []uint32{V, ca}, V, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		var keep [4]bool
		for _, e := range a[1].Array().Elems {
			if e.IsNull() {
				return exec.Null, pgerr.New(pgerr.NullValueNotAllowed, "weight array may not contain nulls")
			}
			w, err := weightOf(e.S)
			if err != nil {
				c := ""
				if e.S != "" {
					c = e.S[:1]
				}
				return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "unrecognized weight: \"%s\"", c)
			}
			keep[w] = true
		}
		var out types.TSVector
		for _, l := range a[0].TSVector() {
			var pos []types.TSPosition
			for _, p := range l.Pos {
				if keep[p.Weight()] {
					pos = append(pos, p)
				}
			}
			if len(pos) > 0 {
				out = append(out, types.TSLexeme{Word: l.Word, Pos: pos})
			}
		}
		return exec.DTSVector(out), nil
	})
	immutable("||", []uint32{V, V}, V, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DTSVector(concatTSVector(a[0].TSVector(), a[1].TSVector())), nil
	})
	immutable("tsvector_concat", []uint32{V, V}, V, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DTSVector(concatTSVector(a[0].TSVector(), a[1].TSVector())), nil
	})

	// tsquery functions.
	immutable("numnode", []uint32{Q}, exec.OIDInt4, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DInt(int64(types.TSQueryItems(a[0].TSQuery().Root))), nil
	})
	immutable("querytree", []uint32{Q}, TX, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		q := a[0].TSQuery()
		if q.Root == nil {
			return exec.DText(""), nil
		}
		r := withoutNot(q.Root)
		if r == nil {
			return exec.DText("T"), nil
		}
		return exec.DText(string(types.AppendTSQuery(nil, types.TSQuery{Root: r}))), nil
	})
	combine := func(op types.TSOp) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			l, r := a[0].TSQuery(), a[1].TSQuery()
			if l.Root == nil {
				return a[1], nil
			}
			if r.Root == nil {
				return a[0], nil
			}
			return exec.DTSQuery(types.TSQuery{Root: &types.TSQueryNode{Op: op, Left: l.Root, Right: r.Root}}), nil
		}
	}
	immutable("&&", []uint32{Q, Q}, Q, combine(types.TSAnd))
	immutable("||", []uint32{Q, Q}, Q, combine(types.TSOr))
	immutable("tsquery_and", []uint32{Q, Q}, Q, combine(types.TSAnd))
	immutable("tsquery_or", []uint32{Q, Q}, Q, combine(types.TSOr))
	not := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		q := a[0].TSQuery()
		if q.Root == nil {
			return a[0], nil
		}
		return exec.DTSQuery(types.TSQuery{Root: &types.TSQueryNode{Op: types.TSNot, Right: q.Root}}), nil
	}
	immutable("!!", []uint32{Q}, Q, not)
	immutable("tsquery_not", []uint32{Q}, Q, not)
	phrase := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		distance := int64(1)
		if len(a) > 2 {
			distance = a[2].I
		}
		if distance < 0 || distance > types.TSMaxPosition+1 {
			return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "distance in phrase operator must be an integer value between zero and %d inclusive", types.TSMaxPosition+1)
		}
		l, r := a[0].TSQuery(), a[1].TSQuery()
		if l.Root == nil {
			return a[1], nil
		}
		if r.Root == nil {
			return a[0], nil
		}
		return exec.DTSQuery(types.TSQuery{Root: &types.TSQueryNode{Op: types.TSPhrase, Distance: int16(distance), Left: l.Root, Right: r.Root}}), nil
	}
	immutable("<->", []uint32{Q, Q}, Q, phrase)
	immutable("tsquery_phrase", []uint32{Q, Q}, Q, phrase)
	immutable("tsquery_phrase", []uint32{Q, Q, exec.OIDInt4}, Q, phrase)
	immutable("ts_lexize", []uint32{TX, TX}, ta, func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		d, err := tsDictionaryNamed(env, a[0].S)
		if err != nil {
			return exec.Null, err
		}
		lexemes, ok := d.lexize(a[1].S)
		if !ok {
			return exec.Null, nil
		}
		elems := make([]exec.Datum, len(lexemes))
		for i, l := range lexemes {
			elems[i] = exec.DText(l.word)
		}
		return textArray(elems), nil
	})
	fn("get_current_ts_config", nil, TX, func(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
		c, err := defaultTSConfig(env)
		if err != nil {
			return exec.Null, err
		}
		return exec.DText(c.name), nil
	})
	registerTSDebug()
	registerTSRank()
	registerTSRewrite()
	registerTSHeadline()
}

var errLexemeNull = pgerr.New(pgerr.NullValueNotAllowed, "lexeme array may not contain nulls")

// weightOf reads a weight letter: A (3) to D (0), either case.
func weightOf(s string) (uint8, error) {
	if s != "" {
		switch s[0] {
		case 'A', 'a':
			return 3, nil
		case 'B', 'b':
			return 2, nil
		case 'C', 'c':
			return 1, nil
		case 'D', 'd':
			return 0, nil
		}
	}
	c := 0
	if s != "" {
		c = int(s[0])
	}
	return 0, pgerr.New(pgerr.InternalError, "unrecognized weight: %d", c)
}

// lexemeSet reads a text[] of lexemes, which may not hold NULLs.
func lexemeSet(d exec.Datum) (map[string]bool, error) {
	set := map[string]bool{}
	for _, e := range d.Array().Elems {
		if e.IsNull() {
			return nil, errLexemeNull
		}
		set[e.S] = true
	}
	return set, nil
}

// setWeight gives every position of the lexemes in only (all when nil)
// weight w.
func setWeight(v types.TSVector, w uint8, only map[string]bool) types.TSVector {
	out := make(types.TSVector, len(v))
	for i, l := range v {
		out[i] = l
		if only != nil && !only[l.Word] || len(l.Pos) == 0 {
			continue
		}
		pos := make([]types.TSPosition, len(l.Pos))
		for j, p := range l.Pos {
			pos[j] = p.WithWeight(w)
		}
		out[i].Pos = pos
	}
	return out
}

func deleteLexemes(v types.TSVector, drop map[string]bool) types.TSVector {
	out := make(types.TSVector, 0, len(v))
	for _, l := range v {
		if !drop[l.Word] {
			out = append(out, l)
		}
	}
	return out
}

// concatTSVector is tsvector || tsvector: the right operand's positions
// follow the left's last position.
func concatTSVector(a, b types.TSVector) types.TSVector {
	maxPos := 0
	for _, l := range a {
		for _, p := range l.Pos {
			maxPos = max(maxPos, p.Pos())
		}
	}
	out := make(types.TSVector, 0, len(a)+len(b))
	out = append(out, a...)
	for _, l := range b {
		pos := make([]types.TSPosition, len(l.Pos))
		for j, p := range l.Pos {
			pos[j] = types.NewTSPosition(p.Pos()+maxPos, p.Weight())
		}
		out = append(out, types.TSLexeme{Word: l.Word, Pos: pos})
	}
	return types.NormalizeTSVector(out)
}

// withoutNot is the part of a query an index can answer (querytree's
// clean_NOT): ! subtrees go, an | with one gone goes, an & or <-> with
// one gone is its other side.
func withoutNot(n *types.TSQueryNode) *types.TSQueryNode {
	switch n.Op {
	case types.TSValue:
		return n
	case types.TSNot:
		return nil
	}
	l, r := withoutNot(n.Left), withoutNot(n.Right)
	switch {
	case n.Op == types.TSOr && (l == nil || r == nil):
		return nil
	case l == nil:
		return r
	case r == nil:
		return l
	}
	c := *n
	c.Left, c.Right = l, r
	return &c
}

// ternary is TS_execute's three-valued result: a stripped tsvector cannot
// say whether a phrase matches.
type ternary uint8

const (
	tsNo ternary = iota
	tsYes
	tsMaybe
)

// phraseData is the positions where a phrase's subquery matches, as
// PostgreSQL's ExecPhraseData: with negate, the positions where it does
// not; width is how many positions the match spans beyond its last.
type phraseData struct {
	pos    []int
	negate bool
	width  int
}

// operandCheck says whether a query operand is there and, with data,
// where: in a tsvector (@@) or in a cover being ranked (ts_rank_cd).
type operandCheck func(n *types.TSQueryNode, data *phraseData) ternary

// tsMatch is tsvector @@ tsquery.
func tsMatch(v types.TSVector, q types.TSQuery) bool {
	if q.Root == nil {
		return false
	}
	check := func(n *types.TSQueryNode, data *phraseData) ternary { return checkLexeme(v, n, data) }
	return tsExecute(check, q.Root) != tsNo
}

// tsExecute is TS_execute: whether query n holds where check finds its
// operands.
func tsExecute(check operandCheck, n *types.TSQueryNode) ternary {
	switch n.Op {
	case types.TSValue:
		return check(n, nil)
	case types.TSNot:
		switch tsExecute(check, n.Right) {
		case tsYes:
			return tsNo
		case tsNo:
			return tsYes
		}
		return tsMaybe
	case types.TSAnd:
		l := tsExecute(check, n.Left)
		if l == tsNo {
			return tsNo
		}
		switch tsExecute(check, n.Right) {
		case tsNo:
			return tsNo
		case tsYes:
			return l
		}
		return tsMaybe
	case types.TSOr:
		l := tsExecute(check, n.Left)
		if l == tsYes {
			return tsYes
		}
		switch tsExecute(check, n.Right) {
		case tsNo:
			return l
		case tsYes:
			return tsYes
		}
		return tsMaybe
	}
	// A phrase whose positions are unknown does not match.
	if tsPhrase(check, n, nil) == tsYes {
		return tsYes
	}
	return tsNo
}

// lexemeRange returns the lexemes of v a query operand matches: the one
// equal to it, or for a prefix all those beginning with it.
func lexemeRange(v types.TSVector, n *types.TSQueryNode) (lo, hi int) {
	lo = sort.Search(len(v), func(i int) bool { return v[i].Word >= n.Lexeme })
	hi = lo
	if n.Prefix {
		for hi < len(v) && strings.HasPrefix(v[hi].Word, n.Lexeme) {
			hi++
		}
	} else if hi < len(v) && v[hi].Word == n.Lexeme {
		hi++
	}
	return lo, hi
}

// checkLexeme is checkcondition_str: whether v has the operand's lexeme
// with one of its weights; with data, at which positions.
func checkLexeme(v types.TSVector, n *types.TSQueryNode, data *phraseData) ternary {
	lo, hi := lexemeRange(v, n)
	res := tsNo
	var all []int
	for _, l := range v[lo:hi] {
		if len(l.Pos) == 0 {
			// Stripped: no weights to check, no positions to give.
			if data != nil {
				return tsMaybe
			}
			return tsYes
		}
		for _, p := range l.Pos {
			if n.Weights == 0 || n.Weights&(1<<p.Weight()) != 0 {
				res = tsYes
				if data == nil {
					return tsYes
				}
				all = append(all, p.Pos())
			}
		}
	}
	if data != nil && res == tsYes {
		sort.Ints(all)
		data.pos = uniqueInts(all)
	}
	return res
}

func uniqueInts(s []int) []int {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// The parts of a merge of two position lists that tsPhraseOutput emits.
const (
	emitBoth  = 1 << iota // positions in both
	emitLOnly             // positions only in the left list
	emitROnly             // positions only in the right list
)

// tsPhrase is TS_phrase_execute: the positions where n matches, for the
// phrase operator above it.
func tsPhrase(check operandCheck, n *types.TSQueryNode, data *phraseData) ternary {
	switch n.Op {
	case types.TSValue:
		return check(n, data)
	case types.TSNot:
		if data == nil {
			data = &phraseData{}
		}
		switch tsPhrase(check, n.Right, data) {
		case tsNo:
			data.negate = true // nothing matches: everything does
			return tsYes
		case tsYes:
			if len(data.pos) > 0 {
				data.negate = !data.negate
				return tsYes
			}
			if data.negate {
				data.negate = false
				return tsNo
			}
			return tsNo
		}
		return tsMaybe
	case types.TSPhrase, types.TSAnd:
		var ld, rd phraseData
		l := tsPhrase(check, n.Left, &ld)
		if l == tsNo {
			return tsNo
		}
		r := tsPhrase(check, n.Right, &rd)
		if r == tsNo {
			return tsNo
		}
		if l == tsMaybe || r == tsMaybe {
			return tsMaybe
		}
		var loff, roff int
		if n.Op == types.TSPhrase {
			loff = int(n.Distance) + rd.width
			if data != nil {
				data.width = int(n.Distance) + ld.width + rd.width
			}
		} else {
			w := max(ld.width, rd.width)
			loff, roff = w-ld.width, w-rd.width
			if data != nil {
				data.width = w
			}
		}
		switch {
		case ld.negate && rd.negate:
			tsPhraseOutput(data, &ld, &rd, emitBoth|emitLOnly|emitROnly, loff, roff)
			if data != nil {
				data.negate = true
			}
			return tsYes
		case ld.negate:
			return tsPhraseOutput(data, &ld, &rd, emitROnly, loff, roff)
		case rd.negate:
			return tsPhraseOutput(data, &ld, &rd, emitLOnly, loff, roff)
		}
		return tsPhraseOutput(data, &ld, &rd, emitBoth, loff, roff)
	case types.TSOr:
		var ld, rd phraseData
		l := tsPhrase(check, n.Left, &ld)
		r := tsPhrase(check, n.Right, &rd)
		if l == tsNo && r == tsNo {
			return tsNo
		}
		if l == tsMaybe || r == tsMaybe {
			return tsMaybe
		}
		if l == tsNo {
			ld = phraseData{}
		}
		if r == tsNo {
			rd = phraseData{}
		}
		w := max(ld.width, rd.width)
		loff, roff := w-ld.width, w-rd.width
		if data == nil {
			data = &phraseData{}
		}
		data.width = w
		switch {
		case ld.negate && rd.negate:
			tsPhraseOutput(data, &ld, &rd, emitBoth, loff, roff)
			data.negate = true
			return tsYes
		case ld.negate:
			tsPhraseOutput(data, &ld, &rd, emitLOnly, loff, roff)
			data.negate = true
			return tsYes
		case rd.negate:
			tsPhraseOutput(data, &ld, &rd, emitROnly, loff, roff)
			data.negate = true
			return tsYes
		}
		return tsPhraseOutput(data, &ld, &rd, emitBoth|emitLOnly|emitROnly, loff, roff)
	}
	return tsNo
}

// tsPhraseOutput merges two position lists, shifted by their offsets,
// emitting the kinds of positions emit asks for into data (TS_phrase_output).
// Without data it only says whether there would be one.
func tsPhraseOutput(data, l, r *phraseData, emit int, loff, roff int) ternary {
	const inf = int(^uint(0) >> 1)
	li, ri := 0, 0
	for li < len(l.pos) || ri < len(r.pos) {
		lp, rp := inf, inf
		if li < len(l.pos) {
			lp = l.pos[li] + loff
		} else if emit&emitROnly == 0 {
			break
		}
		if ri < len(r.pos) {
			rp = r.pos[ri] + roff
		} else if emit&emitLOnly == 0 {
			break
		}
		out := 0
		switch {
		case lp < rp:
			if emit&emitLOnly != 0 {
				out = lp
			}
			li++
		case lp == rp:
			if emit&emitBoth != 0 {
				out = rp
			}
			li++
			ri++
		default:
			if emit&emitROnly != 0 {
				out = rp
			}
			ri++
		}
		if out > 0 {
			if data == nil {
				return tsYes
			}
			data.pos = append(data.pos, out)
		}
	}
	if data != nil && len(data.pos) > 0 {
		return tsYes
	}
	return tsNo
}
