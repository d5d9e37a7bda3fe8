package testserver

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// Postgres is a PostgreSQL 15 cluster of one test, the reference that
// differential tests compare the server with.
type Postgres struct {
	Host string
	Port int
	dir  string
	bin  string
	cred *syscall.Credential // the user that runs PostgreSQL when the test runs as root
}

// DefaultPostgresBin is where Debian's postgresql-15 installs the
// server; the environment variable PGBIN overrides it.
const DefaultPostgresBin = "/usr/lib/postgresql/15/bin"

// StartPostgres initialises a PostgreSQL 15 cluster in a temporary
// directory (trust authentication, superuser postgres, locale C.UTF-8) and
// starts it on a free loopback port; it is stopped and removed when the
// test ends. It skips the test when the binaries are missing. PostgreSQL
// refuses to run as root: a test running as root runs it as the user
// postgres (skipping when there is none), as scripts/bench.sh does.
//
// Durability is off (fsync, synchronous_commit, full_page_writes): the
// cluster is thrown away, and the protocol answers do not depend on it.
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	bin, cred, err := postgresSetup()
	if err != nil {
		t.Skip(err)
	}
	pg := &Postgres{Host: "127.0.0.1", Port: freePort(t), bin: bin, cred: cred}
	// Not t.TempDir: its parent is private to the test's user, and the
	// user postgres must be able to reach the cluster.
	dir, err := os.MkdirTemp("", "pg15-")
	if err != nil {
		t.Fatal(err)
	}
	pg.dir = dir
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"data", "sock"} {
		p := filepath.Join(dir, sub)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if pg.cred != nil {
			if err := os.Chown(p, int(pg.cred.Uid), int(pg.cred.Gid)); err != nil {
				t.Fatal(err)
			}
		}
	}
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "sock")
	pg.run(t, "initdb", "-D", data, "-U", "postgres", "-A", "trust", "--locale=C.UTF-8", "-E", "UTF8", "--no-sync")
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off", pg.Port, sock)
	pg.run(t, "pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(sock, "postgres.log"), "-w", "start")
	t.Cleanup(func() {
		cmd := pg.command("pg_ctl", "-D", data, "-m", "fast", "-w", "stop")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("stopping PostgreSQL: %v\n%s", err, out)
		}
	})
	return pg
}

// CanStartPostgres returns nil when StartPostgres can start a cluster, and
// otherwise why it would skip the test.
func CanStartPostgres() error {
	_, _, err := postgresSetup()
	return err
}

// postgresSetup finds the binaries, and the user to run them as when the
// test runs as root (nil otherwise).
func postgresSetup() (bin string, cred *syscall.Credential, err error) {
	bin = os.Getenv("PGBIN")
	if bin == "" {
		bin = DefaultPostgresBin
	}
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
			return "", nil, fmt.Errorf("PostgreSQL 15 not found in %s (apt-get install postgresql-15, or set PGBIN): %w", bin, err)
		}
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return "", nil, fmt.Errorf("running as root and there is no user postgres to run PostgreSQL as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	return bin, cred, nil
}

// command returns a command running a PostgreSQL binary as the cluster's
// user.
func (pg *Postgres) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(pg.bin, name), args...)
	cmd.Dir = pg.dir
	if pg.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: pg.cred}
		cmd.Env = append(os.Environ(), "HOME="+pg.dir)
	}
	return cmd
}

// run runs a PostgreSQL binary and fails the test if it fails.
func (pg *Postgres) run(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := pg.command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
}

// Addr returns host:port.
func (pg *Postgres) Addr() string { return fmt.Sprintf("%s:%d", pg.Host, pg.Port) }

// DSN returns a connection string for database db.
func (pg *Postgres) DSN(db string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", pg.Addr(), db)
}
