package ispell

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// tsearchData is where a Debian PostgreSQL 15 keeps its dictionaries,
// PostgreSQL's sample ones among them.
const tsearchData = "/usr/share/postgresql/15/tsearch_data"

// TestPostgresSamples loads PostgreSQL's sample dictionaries as the
// regression test tsdicts.sql does and checks every ts_lexize call and
// every failing CREATE of it against the output PostgreSQL 15 recorded.
func TestPostgresSamples(t *testing.T) {
	if _, err := os.Stat(filepath.Join(tsearchData, "ispell_sample.dict")); err != nil {
		t.Skipf("PostgreSQL's sample dictionaries are not installed: %v", err)
	}
	expected := findShared(t, "pg-regress/expected/tsdicts.out")
	stmts := readRegressOutput(t, expected)

	createRE := regexp.MustCompile(`(?is)^CREATE TEXT SEARCH DICTIONARY (\w+)\s*\(\s*Template=ispell,\s*DictFile=(\w+),\s*AffFile=(\w+)\s*\);`)
	lexizeRE := regexp.MustCompile(`^SELECT ts_lexize\('(\w+)', '([^']*)'\);$`)
	dicts := map[string]*Dictionary{}
	var creates, lexizes int
	for _, st := range stmts {
		if m := createRE.FindStringSubmatch(st.sql); m != nil {
			creates++
			name, dictFile, affFile := m[1], m[2], m[3]
			d, err := loadFiles(filepath.Join(tsearchData, dictFile+".dict"), filepath.Join(tsearchData, affFile+".affix"))
			wantErr := ""
			if strings.HasPrefix(st.output, "ERROR:  ") {
				wantErr = strings.TrimPrefix(strings.SplitN(st.output, "\n", 2)[0], "ERROR:  ")
			}
			switch {
			case wantErr == "" && err != nil:
				t.Errorf("%s (%s, %s): unexpected error %v", name, dictFile, affFile, err)
			case wantErr != "" && err == nil:
				t.Errorf("%s (%s, %s): loaded, want error %q", name, dictFile, affFile, wantErr)
			case wantErr != "" && err.Error() != wantErr:
				t.Errorf("%s (%s, %s): error %q, want %q", name, dictFile, affFile, err, wantErr)
			case wantErr != "" && pgerr.CodeOf(err) != pgerr.ConfigFileError:
				t.Errorf("%s: SQLSTATE %s, want %s", name, pgerr.CodeOf(err), pgerr.ConfigFileError)
			case err == nil:
				dicts[name] = d
			}
			continue
		}
		m := lexizeRE.FindStringSubmatch(st.sql)
		if m == nil || dicts[m[1]] == nil {
			continue
		}
		lexizes++
		got := formatLexemes(dicts[m[1]].Lexize(m[2]))
		if want := lexizeResult(st.output); got != want {
			t.Errorf("ts_lexize('%s', '%s') = %s, want %s", m[1], m[2], got, want)
		}
	}
	if creates != 10 || lexizes != 65 {
		t.Errorf("read %d ispell dictionaries and %d ts_lexize calls from %s, want 10 and 65", creates, lexizes, expected)
	}

	// to_tsquery('hunspell_tst', 'footballklubber') shows the variants:
	// 'footballklubber' | 'foot' & 'ball' & 'klubber' | 'football' & 'klubber'.
	for _, name := range []string{"ispell", "hunspell", "hunspell_long", "hunspell_num"} {
		got := formatVariants(dicts[name].Lexize("footballklubber"))
		if want := "footballklubber | foot & ball & klubber | football & klubber"; got != want {
			t.Errorf("%s: variants of footballklubber: %s, want %s", name, got, want)
		}
	}
}

// regressStmt is one statement of a pg-regress expected file and what
// psql printed for it.
type regressStmt struct{ sql, output string }

// readRegressOutput splits a recorded pg-regress output into statements.
func readRegressOutput(t *testing.T, path string) []regressStmt {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		stmts    []regressStmt
		cur      *regressStmt
		inOutput bool
		sql, out []string
	)
	flush := func() {
		if cur != nil {
			cur.sql = strings.Join(sql, "\n")
			cur.output = strings.Join(out, "\n")
			stmts = append(stmts, *cur)
		}
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "@@@@ stmt "):
			flush()
			cur, inOutput, sql, out = &regressStmt{}, false, nil, nil
		case line == "@@@@ output @@@@":
			inOutput = true
		case cur == nil:
		case inOutput:
			out = append(out, line)
		default:
			sql = append(sql, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	flush()
	return stmts
}

// lexizeResult is the value psql printed for a one-column, one-row
// result: "" for NULL.
func lexizeResult(output string) string {
	lines := strings.Split(output, "\n")
	if len(lines) < 3 {
		return "?"
	}
	return strings.TrimSpace(lines[2])
}

// findShared locates a file of the steering repository's shared directory.
func findShared(t *testing.T, name string) string {
	t.Helper()
	for _, dir := range []string{"../../../../shared", "/work/shared"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skipf("%s not found", name)
	return ""
}

func loadFiles(dictPath, affixPath string) (*Dictionary, error) {
	df, err := os.Open(dictPath)
	if err != nil {
		return nil, err
	}
	defer df.Close()
	af, err := os.Open(affixPath)
	if err != nil {
		return nil, err
	}
	defer af.Close()
	return Load(df, af)
}

// formatLexemes prints lexemes as psql prints ts_lexize's text[]: "" for
// NULL, else {a,b}.
func formatLexemes(ls []Lexeme) string {
	if ls == nil {
		return ""
	}
	words := make([]string, len(ls))
	for i, l := range ls {
		words[i] = l.Word
	}
	return "{" + strings.Join(words, ",") + "}"
}

// formatVariants prints lexemes grouped as to_tsquery groups them: the
// lexemes of a variant joined by " & ", the variants by " | ".
func formatVariants(ls []Lexeme) string {
	var groups []string
	for i, l := range ls {
		if i > 0 && l.Variant == ls[i-1].Variant {
			groups[len(groups)-1] += " & " + l.Word
		} else {
			groups = append(groups, l.Word)
		}
	}
	return strings.Join(groups, " | ")
}
