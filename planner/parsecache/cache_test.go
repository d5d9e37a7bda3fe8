package parsecache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
)

// parseTwice parses sql until its shape is cached, and returns the cache.
func parseTwice(t *testing.T, sql string) *Cache {
	t.Helper()
	c := New()
	for range 2 {
		_, l, err := c.Parse(sql)
		if err != nil {
			t.Fatalf("%q: %v", sql, err)
		}
		l.Release()
	}
	return c
}

func TestParseReusesTree(t *testing.T) {
	c := parseTwice(t, "UPDATE a SET v = v + -12 WHERE id = 345 AND s = 'x''y' AND f > 1.5")
	q := "UPDATE a SET v = v + -98 WHERE id = 876 AND s = 'p''r' AND f > 2.5"
	got, l, err := c.Parse(q)
	if err != nil || l == nil {
		t.Fatalf("third parse: lease %v, err %v", l, err)
	}
	want, _ := pg.Parse(q)
	if !proto.Equal(got, want) {
		t.Fatalf("cached tree differs from the parser's:\n%v\n%v", got, want)
	}
	// While leased, the tree is not handed out again.
	if _, l2, _ := c.Parse(q); l2 != nil {
		t.Fatal("a leased tree was handed out again")
	}
	l.Release()
	if _, l3, _ := c.Parse(q); l3 == nil {
		t.Fatal("a released tree was not reused")
	}
}

// TestParseCachesTransactionControl: the statements around every explicit
// transaction of an OLTP client are parsed once.
func TestParseCachesTransactionControl(t *testing.T) {
	for _, sql := range []string{"BEGIN", "begin;", "COMMIT", "END", "ROLLBACK", "BEGIN ISOLATION LEVEL REPEATABLE READ"} {
		c := parseTwice(t, sql)
		got, l, err := c.Parse(sql)
		if err != nil || l == nil {
			t.Fatalf("%q: third parse: lease %v, err %v", sql, l, err)
		}
		want, _ := pg.Parse(sql)
		if !proto.Equal(got, want) {
			t.Fatalf("%q: cached tree differs from the parser's", sql)
		}
		l.Release()
	}
}

func TestParseRefuses(t *testing.T) {
	for _, sql := range []string{
		"SELECT 1::float(24)",              // the literal is consumed, not a constant
		"SELECT '{1}'::int[3]",             // an Integer node, not an A_Const
		"SELECT E'a\\'b'",                  // an escape string
		"SELECT 'a'\n'b'",                  // continued string
		"SELECT $$x$$",                     // dollar quoting
		"SELECT 1_000",                     // underscores
		"SELECT 0x1F",                      // base prefix
		"CREATE TABLE t (a int default 5)", // not a query
		"SELECT 1; CREATE TABLE t (a int)",
		"SELECT 1 /* \x01 */",
		"PREPARE TRANSACTION 'gid'", // a string the grammar keeps as a name
		"COMMIT PREPARED 'gid'",
	} {
		c := New()
		for i := range 3 {
			if _, l, _ := c.Parse(sql); l != nil {
				t.Errorf("%q: cached at parse %d", sql, i+1)
			}
		}
	}
}

// TestCorpusVariants is the check of invariant 1 over real SQL: for every
// statement of the regression corpora whose shape is cached, queries of
// the same shape with other literal values get exactly the parser's tree.
func TestCorpusVariants(t *testing.T) {
	stmts := corpus(t)
	if len(stmts) < 1000 {
		t.Skipf("corpus not found (%d statements)", len(stmts))
	}
	cached, checked := 0, 0
	for _, sql := range stmts {
		key, lits, ok := shape(sql, nil, nil)
		if !ok || len(sql) > maxQuery {
			continue
		}
		tree, err := pg.Parse(sql)
		if err != nil {
			continue
		}
		e := newEntry(tree, sql, lits)
		if e.tree == nil {
			continue
		}
		cached++
		for seed := range 3 {
			v, ok, same := fillVariant(e, sql, key, lits, seed)
			if !ok {
				continue
			}
			checked++
			if !same {
				t.Errorf("variant of a cached shape differs from the parser's tree:\n%s\n%s", sql, v)
				break
			}
		}
	}
	t.Logf("%d statements, %d with a cached shape, %d variants checked", len(stmts), cached, checked)
}

// fillVariant fills e, the entry of sql's shape key, with a variant of
// sql's literals and reports whether its tree then is the parser's tree
// of the variant; ok is false when the variant has another shape or does
// not parse, and was not checked.
func fillVariant(e *entry, sql string, key []byte, lits []literal, seed int) (v string, ok, same bool) {
	v = variant(sql, lits, seed)
	vkey, vlits, ok := shape(v, nil, nil)
	if !ok || string(vkey) != string(key) {
		return v, false, false
	}
	want, err := pg.Parse(v)
	if err != nil {
		return v, false, false
	}
	e.fill(v, vlits)
	return v, true, proto.Equal(e.tree, want)
}

// variant returns sql with every literal changed, keeping its kind and
// length.
func variant(sql string, lits []literal, seed int) string {
	b := []byte(sql)
	for _, l := range lits {
		switch l.kind {
		case kindString:
			for i := l.start + 1; i < l.end-1; i++ {
				if b[i] == '\'' {
					i++ // keep doubled quotes
					continue
				}
				b[i] = "qz x\\"[(i+seed)%5]
			}
		default:
			for i := l.start; i < l.end; i++ {
				if c := b[i]; c >= '0' && c <= '9' {
					d := (int(c-'0') + 1 + seed) % 10
					if i == l.start && d == 0 && l.end-l.start > 1 {
						d = 1
					}
					b[i] = byte('0' + d)
				}
			}
		}
	}
	return string(b)
}

// corpus returns the statements of the logic tests and of the
// PostgreSQL regression corpus (when ../shared is there).
func corpus(t *testing.T) []string {
	var out []string
	files, _ := filepath.Glob("../../../shared/pg-regress/expected/*.out")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range strings.Split(string(data), "@@@@ stmt ")[1:] {
			_, rest, ok := strings.Cut(part, "@@@@\n")
			if !ok {
				continue
			}
			stmt, _, _ := strings.Cut(rest, "@@@@ output @@@@")
			out = append(out, strings.TrimSpace(stmt))
		}
	}
	tests, _ := filepath.Glob("../../regress/testdata/*.test")
	for _, f := range tests {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range strings.Split(string(data), "\n\n") {
			first, body, ok := strings.Cut(block, "\n")
			if !ok || !(strings.HasPrefix(first, "statement") || strings.HasPrefix(first, "query")) {
				continue
			}
			body, _, _ = strings.Cut(body, "\n----")
			out = append(out, body)
		}
	}
	return out
}

func BenchmarkParse(b *testing.B) {
	const q = "UPDATE pgbench_accounts SET abalance = abalance + -1234 WHERE aid = 34567;"
	b.Run("parser", func(b *testing.B) {
		for range b.N {
			if _, err := pg.Parse(q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cache", func(b *testing.B) {
		c := New()
		b.ReportAllocs()
		for range b.N {
			_, l, err := c.Parse(q)
			if err != nil {
				b.Fatal(err)
			}
			l.Release()
		}
	})
}

// FuzzShape checks the scanner on any input, and invariant 1 on those of
// its inputs that parse into a cacheable shape.
func FuzzShape(f *testing.F) {
	for _, s := range []string{
		"SELECT 1", "select - 5, 'a''b', 1.5e3, $1 FROM t WHERE x = -2147483648",
		"SELECT 'a' -- c\n 'b'", "SELECT /* /* */ */ 3", `SELECT "a""b" FROM t`, "SELECT 1..2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		key, lits, ok := shape(sql, nil, nil)
		if !ok {
			return
		}
		if len(key) != len(sql) {
			t.Fatalf("shape of %d bytes for a query of %d", len(key), len(sql))
		}
		for i, l := range lits {
			if l.start >= l.end || l.end > len(sql) || (i > 0 && lits[i-1].end > l.start) {
				t.Fatalf("literal %d out of order: %+v", i, l)
			}
		}
		tree, err := pg.Parse(sql)
		if err != nil {
			return
		}
		e := newEntry(tree, sql, lits)
		if e.tree == nil {
			return
		}
		if v, ok, same := fillVariant(e, sql, key, lits, 1); ok && !same {
			t.Fatalf("variant %q of %q: cached tree differs from the parser's", v, sql)
		}
	})
}
