package regress

import (
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// The ORMs applications are written with, each running an application of
// testdata/orm against a fresh server and against PostgreSQL 15 (its
// reference cluster, testserver.StartPostgres): the migrations, then the
// queries a typical app makes, whose printed results must be the same on
// both, line by line. A test is skipped when the ORM or PostgreSQL is not
// installed; .ci/run installs them.

// ormPython runs the Python script testdata/orm/<dir>/<file> (which
// imports modules, from Debian's packages) against both servers (its
// arguments: host, port and database name) and compares what it prints;
// the test is skipped when the modules or PostgreSQL are missing.
func ormPython(t *testing.T, dir, file, modules, packages string) {
	t.Helper()
	const python = "/usr/bin/python3"
	if err := osexec.Command(python, "-c", "import "+modules).Run(); err != nil {
		t.Skipf("%s not installed (apt-get install %s)", modules, packages)
	}
	if err := testserver.CanStartPostgres(); err != nil {
		t.Skip(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "orm", dir, file))
	if err != nil {
		t.Fatal(err)
	}
	ormDiff(t, script, python, "-B")
}

// ormDiff runs script against both servers (args, then host, port and
// database name) and compares what it prints.
func ormDiff(t *testing.T, script string, args ...string) {
	t.Helper()
	ref := testserver.StartPostgres(t)
	srv := testserver.Start(t)
	run := func(host string, port int) string {
		cmd := osexec.Command(args[0], append(args[1:], script, host, strconv.Itoa(port), "postgres")...)
		cmd.Dir = filepath.Dir(script)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s against %s:%d: %v\n%s", script, host, port, err, out)
		}
		return string(out)
	}
	want := run(ref.Host, ref.Port)
	got := run(srv.Host, srv.Port)
	if got == want {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(gl), len(wl)) {
		g, w := "", ""
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, g, w)
		}
	}
}

// TestDjango runs a Django 3.2 shop (Debian's python3-django): Django's
// migrations of its own apps and of the shop's models (foreign keys, a
// many-to-many, unique_together, a descending index, JSONField), then
// users and groups, bulk creation, select_related, prefetch_related (IN
// lists), annotations and aggregates, Exists and Subquery, JSON lookups,
// F-expression updates, get_or_create, savepoints, cascading deletes,
// select_for_update, and what makemigrations --check and inspectdb read
// from the catalog.
func TestDjango(t *testing.T) {
	ormPython(t, "django", "shopcheck.py", "django, psycopg2", "python3-django python3-psycopg2")
}

// TestSQLAlchemy runs an SQLAlchemy 1.4 inventory with Alembic 1.8
// (Debian's python3-sqlalchemy and python3-alembic): create_all of models
// with serial and identity keys, server defaults, an enum, a foreign key
// with ON DELETE CASCADE, indexes and check and unique constraints; what
// reflection reads back; what Alembic's autogenerate finds different
// (only the expression index it cannot compare, on both); a migration
// through Alembic's operations and back; then ORM and Core queries
// (selectinload, joinedload, JSONB, window functions, a CTE, a check
// violation, cascading deletes, a savepoint, ON CONFLICT DO UPDATE).
func TestSQLAlchemy(t *testing.T) {
	ormPython(t, "sqlalchemy", "inventorycheck.py", "sqlalchemy, alembic, psycopg2",
		"python3-sqlalchemy python3-alembic python3-psycopg2")
}

// nodeORMs are the npm packages TestNodeORMs needs, as .ci/run installs
// them into testdata/orm/node.
const nodeORMs = "sequelize@6 pg-hstore@2 typeorm@1 reflect-metadata@0.2 knex@3 pg@8"

// TestNodeORMs runs an application of each of Node.js's common ORMs,
// Sequelize, TypeORM and knex (testdata/orm/node), against both servers;
// skipped when node or the packages are not installed.
func TestNodeORMs(t *testing.T) {
	node, err := osexec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "orm", "node"))
	if err != nil {
		t.Fatal(err)
	}
	for _, app := range []struct{ name, script, module string }{
		{"sequelize", "sequelize_check.js", "sequelize"},
		{"typeorm", "typeorm_check.js", "typeorm"},
		{"knex", "knex_check.js", "knex"},
	} {
		t.Run(app.name, func(t *testing.T) {
			check := osexec.Command(node, "-e", "require('"+app.module+"')")
			check.Dir = dir
			if err := check.Run(); err != nil {
				t.Skipf("%s not installed (npm install --prefix regress/testdata/orm/node %s)", app.module, nodeORMs)
			}
			if err := testserver.CanStartPostgres(); err != nil {
				t.Skip(err)
			}
			ormDiff(t, filepath.Join(dir, app.script), node)
		})
	}
}
