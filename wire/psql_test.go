package wire_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prollypg/prollypg/wire"
	"github.com/prollypg/prollypg/wire/internal/wiretest"
)

// psql runs psql against srv with the given arguments and standard input,
// returning its standard output, standard error and exit code. The test is
// skipped when psql is not installed.
func psql(t *testing.T, srv *wiretest.Server, env []string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	path, err := exec.LookPath("psql")
	if err != nil {
		t.Skip("psql is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	base := []string{"-X", "-h", srv.Host, "-p", fmt.Sprint(srv.Port), "-U", "pat", "-d", "db", "-v", "ON_ERROR_STOP=1"}
	cmd := exec.CommandContext(ctx, path, append(base, args...)...)
	cmd.Env = append([]string{"PGCONNECT_TIMEOUT=10", "LC_ALL=C.UTF-8", "PGCLIENTENCODING=UTF8"}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

func TestPsql(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})

	out, errOut, code := psql(t, srv, nil, "", "-At", "-c", "SELECT generate_series(1,3)")
	if code != 0 || out != "1\n2\n3\n" {
		t.Fatalf("select: %d %q %q", code, out, errOut)
	}

	out, errOut, code = psql(t, srv, nil, "", "-c", "SELECT raise('22012', 'division by zero')")
	if code == 0 || !strings.Contains(errOut, "ERROR:  division by zero") || !strings.Contains(errOut, "DETAIL:  detail of 22012") ||
		!strings.Contains(errOut, "HINT:  hint of 22012") || !strings.Contains(errOut, "LINE 1: SELECT raise(") {
		t.Fatalf("error: %d %q %q", code, out, errOut)
	}

	out, errOut, code = psql(t, srv, nil, "", "-At", "-c", "BEGIN", "-c", "SELECT 1", "-c", "SELECT notice('careful')", "-c", "COMMIT")
	if code != 0 || out != "BEGIN\n1\nok\nCOMMIT\n" || !strings.Contains(errOut, "NOTICE:  careful") {
		t.Fatalf("transaction: %d %q %q", code, out, errOut)
	}

	out, errOut, code = psql(t, srv, nil, "1\tx\n2\ty\n\\.\n", "-c", "COPY pt (a, b) FROM STDIN")
	if code != 0 || out != "COPY 2\n" {
		t.Fatalf("copy in: %d %q %q", code, out, errOut)
	}
	out, errOut, code = psql(t, srv, nil, "", "-c", "COPY pt TO STDOUT")
	if code != 0 || out != "1\tx\n2\ty\n" {
		t.Fatalf("copy out: %d %q %q", code, out, errOut)
	}
	out, errOut, code = psql(t, srv, nil, "3,z\n", "-c", "COPY pt FROM STDIN WITH (FORMAT csv)")
	if code != 0 || out != "COPY 1\n" {
		t.Fatalf("copy csv: %d %q %q", code, out, errOut)
	}

	// Several statements in one -c string run as one simple query.
	out, errOut, code = psql(t, srv, nil, "", "-At", "-c", "SET TimeZone = 'Asia/Tokyo'; SHOW timezone")
	if code != 0 || out != "SET\nAsia/Tokyo\n" { // psql 15 prints every result
		t.Fatalf("multi: %d %q %q", code, out, errOut)
	}
}

func TestPsqlTLS(t *testing.T) {
	e := wiretest.NewEngine()
	var sawTLS atomic.Bool
	e.OnConnect = func(s *wire.Startup) { sawTLS.Store(s.TLS != nil && s.TLS.HandshakeComplete) }
	srv := wiretest.Start(t, wire.Config{TLS: wiretest.TLSConfig(t), Handler: e})
	out, errOut, code := psql(t, srv, []string{"PGSSLMODE=require"}, "", "-c", `\conninfo`)
	if code != 0 || !strings.Contains(out, "SSL connection") {
		t.Fatalf("TLS: %d %q %q", code, out, errOut)
	}
	if !sawTLS.Load() {
		t.Error("the handler was not told about TLS")
	}
}
