package regress

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// The drivers of other languages, each running a script of
// testdata/clients against a fresh server. A test is skipped when its
// runtime or driver is not installed; .ci/run installs them (Debian's
// python3-psycopg2, python3-psycopg and libpostgresql-jdbc-java, npm's
// pg).

// runClient runs a client program against a fresh server and checks its
// output line by line.
func runClient(t *testing.T, want string, name string, args ...string) {
	t.Helper()
	srv := testserver.Start(t)
	cmd := osexec.Command(name, append(args, srv.Host, strconv.Itoa(srv.Port))...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
	if got := string(out); got != want {
		t.Fatalf("%s printed:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestPsycopg2(t *testing.T) {
	python := "/usr/bin/python3"
	if err := osexec.Command(python, "-c", "import psycopg2").Run(); err != nil {
		t.Skip("psycopg2 not installed (apt-get install python3-psycopg2)")
	}
	runClient(t, `id 1
row 1.50 2026-01-02T03:04:05+00:00 00000000-0000-0000-0000-000000000005 [1, 2, 3] {'a': [1, None]} b'\x00\x01'
commit 32
log from psycopg2
error 22012
count 1
`, python, filepath.Join("testdata", "clients", "psycopg2_check.py"))
}

// TestPsycopg3: its expected output is what the same script prints against
// PostgreSQL 15.
func TestPsycopg3(t *testing.T) {
	python := "/usr/bin/python3"
	if err := osexec.Command(python, "-c", "import psycopg").Run(); err != nil {
		t.Skip("psycopg 3 not installed (apt-get install python3-psycopg)")
	}
	runClient(t, `concat ('ab', 42, None)
where [(1, ['a', 'b c']), (2, None)]
prepared (10, 'P')
pipeline (1,)
copy [(1, 'x', Decimal('1.5')), (2, None, None), (3, 'pipe', None), (10, 'bin', Decimal('2.25')), (11, None, None)]
savepoint rolled back
after savepoints ([20, 22],)
server cursor ['id', 't'] [(2, None), (3, 'pipe')] [(10, 'bin'), (11, None), (20, None), (22, None)]
isolation ('serializable',)
isolation ('repeatable read',)
diag 23505 public p3 None p3_pkey Key (id)=(1) already exists.
diag 23502 public p3 id None Failing row contains (null, x, null, null).
kept (1,)
`, python, filepath.Join("testdata", "clients", "psycopg3_check.py"))
}

func TestNodePostgres(t *testing.T) {
	node, err := osexec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	modules, _ := filepath.Abs(filepath.Join("testdata", "clients", "node_modules"))
	if _, err := os.Stat(filepath.Join(modules, "pg")); err != nil {
		t.Skip("node-postgres not installed (npm install --prefix regress/testdata/clients pg@8)")
	}
	runClient(t, `[{"n":42,"a":[1,2],"j":{"x":1},"s":"x"}]
[{"name":"main"}]
[{"diff_type":"added","to_k":1},{"diff_type":"added","to_k":2}]
error 42P01
error 42P01
[{"id":1}] [{"n":1}]
`, node, filepath.Join("testdata", "clients", "pg_check.js"))
}

func TestJDBC(t *testing.T) {
	const jar = "/usr/share/java/postgresql.jar"
	javac, err := osexec.LookPath("javac")
	if err != nil {
		t.Skip("javac not installed")
	}
	if _, err := os.Stat(jar); err != nil {
		t.Skip("pgjdbc not installed (apt-get install libpostgresql-jdbc-java)")
	}
	classes := t.TempDir()
	if out, err := osexec.Command(javac, "-d", classes, filepath.Join("testdata", "clients", "Meta.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	runClient(t, strings.Join([]string{
		"product PostgreSQL",
		"table jchild",
		"table jt",
		"column id int4 4 NO",
		"column name text 12 NO",
		"column tags _text 2003 YES",
		"pk id 1 jt_pkey",
		"index jt_pkey id unique=true",
		"index jt_name name unique=false",
		"fk jt_id -> jt.id",
		"schema information_schema",
		"schema pg_catalog",
		"schema public",
		"row one {a,b}",
		"",
	}, "\n"), "java", "-cp", jar+string(os.PathListSeparator)+classes, "Meta")
}
