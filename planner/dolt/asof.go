package dolt

import (
	"strings"

	"github.com/prollypg/prollypg/exec/catalog"
)

// AS OF: Doltgres accepts `FROM table AS OF 'rev'` (and AS OF SYSTEM
// TIME 'rev'), which PostgreSQL's grammar does not. When a statement fails to parse and has AS OF after a
// table name, the planner has RewriteAsOf rewrite the name and its clause
// to the revision-qualified name "db@rev".schema.table that the grammar
// does accept, and parses the statement again. An unqualified name gets
// the schema AnySchema, which the planner resolves along the search path.

// AnySchema stands for "the search path" in a rewritten AS OF name.
const AnySchema = "*"

// sqlToken is one lexical token of the AS OF scan: its kind and where it
// is in the statement.
type sqlToken struct {
	kind       byte // 'i' identifier or keyword, 'q' quoted identifier, 's' string, '.', or 'o' other
	start, end int
}

// scanTokens splits sql into tokens, skipping whitespace and comments. It
// is just enough of PostgreSQL's lexer to find names, dots and string
// literals.
func scanTokens(sql string) []sqlToken {
	var out []sqlToken
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			depth := 0
			for i+1 < len(sql) {
				if sql[i] == '/' && sql[i+1] == '*' {
					depth++
					i += 2
				} else if sql[i] == '*' && sql[i+1] == '/' {
					depth--
					i += 2
					if depth == 0 {
						break
					}
				} else {
					i++
				}
			}
			if depth > 0 {
				i = len(sql)
			}
		case c == '\'' || c == '"':
			start := i
			for i++; i < len(sql); i++ {
				if sql[i] == c {
					if i+1 < len(sql) && sql[i+1] == c {
						i++
						continue
					}
					break
				}
			}
			i++
			kind := byte('s')
			if c == '"' {
				kind = 'q'
			}
			out = append(out, sqlToken{kind, start, min(i, len(sql))})
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
			start := i
			for i < len(sql) && (sql[i] == '_' || sql[i] == '$' || sql[i] >= 'a' && sql[i] <= 'z' || sql[i] >= 'A' && sql[i] <= 'Z' || sql[i] >= '0' && sql[i] <= '9' || sql[i] >= 0x80) {
				i++
			}
			out = append(out, sqlToken{'i', start, i})
		case c == '.':
			out = append(out, sqlToken{'.', i, i + 1})
			i++
		default:
			out = append(out, sqlToken{'o', i, i + 1})
			i++
		}
	}
	return out
}

// RewriteAsOf rewrites every `name AS OF [SYSTEM TIME] 'rev'` of sql into a
// revision-qualified name of database db. ok is false when there is none.
func RewriteAsOf(sql, db string) (string, bool) {
	toks := scanTokens(sql)
	word := func(t sqlToken, w string) bool {
		return t.kind == 'i' && strings.EqualFold(sql[t.start:t.end], w)
	}
	var b strings.Builder
	last, found := 0, false
	for i := 0; i+2 < len(toks); i++ {
		if !word(toks[i], "as") || !word(toks[i+1], "of") || i == 0 {
			continue
		}
		lit := i + 2
		if lit+2 < len(toks) && word(toks[lit], "system") && word(toks[lit+1], "time") {
			lit += 2 // AS OF SYSTEM TIME 'rev'
		}
		if toks[lit].kind != 's' {
			continue
		}
		name := toks[i-1]
		if name.kind != 'i' && name.kind != 'q' {
			continue
		}
		first, schema := i-1, AnySchema
		if i >= 3 && toks[i-2].kind == '.' && (toks[i-3].kind == 'i' || toks[i-3].kind == 'q') {
			first, schema = i-3, identText(sql, toks[i-3])
		}
		rev := strings.ReplaceAll(sql[toks[lit].start+1:toks[lit].end-1], "''", "'")
		b.WriteString(sql[last:toks[first].start])
		b.WriteString(catalog.QuoteIdent(db + "@" + rev))
		b.WriteByte('.')
		b.WriteString(catalog.QuoteIdent(schema))
		b.WriteByte('.')
		b.WriteString(sql[name.start:name.end])
		last, found = toks[lit].end, true
		i = lit
	}
	if !found {
		return sql, false
	}
	b.WriteString(sql[last:])
	return b.String(), true
}

// identText is an identifier token's name: case-folded when unquoted.
func identText(sql string, t sqlToken) string {
	if t.kind == 'q' {
		return strings.ReplaceAll(sql[t.start+1:t.end-1], `""`, `"`)
	}
	return strings.ToLower(sql[t.start:t.end])
}
