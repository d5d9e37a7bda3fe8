package regress

import (
	"context"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// LISTEN/NOTIFY between sessions, through pgx as applications use it
// (Conn.WaitForNotification), against a real server. What one session
// sees of its own statements (errors, pg_listening_channels) is in
// testdata/notify.test.

// waitNote returns the next notification c receives, failing the test if
// none comes within ten seconds.
func waitNote(t *testing.T, c *pgx.Conn) *pgconn.Notification {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := c.WaitForNotification(ctx)
	if err != nil {
		t.Fatalf("waiting for a notification: %v", err)
	}
	return n
}

// wantNotes checks the next notifications c receives: each "channel
// payload", all from pid.
func wantNotes(t *testing.T, c *pgx.Conn, pid uint32, want ...string) {
	t.Helper()
	for _, w := range want {
		n := waitNote(t, c)
		if got := n.Channel + " " + n.Payload; got != w || n.PID != pid {
			t.Fatalf("notification %q from pid %d, want %q from pid %d", got, n.PID, w, pid)
		}
	}
}

// noNote checks that c receives no notification within a short while.
// pgx keeps the connection usable after the wait times out.
func noNote(t *testing.T, c *pgx.Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	n, err := c.WaitForNotification(ctx)
	if err == nil {
		t.Fatalf("unexpected notification %q %q from pid %d", n.Channel, n.Payload, n.PID)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting: %v", err)
	}
}

// buffered returns the notifications c has already received, without
// reading: those that came with the responses to its statements.
func buffered(c *pgx.Conn) []string {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	var out []string
	for {
		n, err := c.WaitForNotification(done)
		if err != nil || n == nil {
			return out
		}
		out = append(out, n.Channel+" "+n.Payload)
	}
}

func pid(c *pgx.Conn) uint32 { return c.PgConn().PID() }

func TestNotifyBetweenSessions(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	dsn := srv.DSN("postgres")
	l := connect(t, ctx, dsn)
	n := connect(t, ctx, dsn)
	n2 := connect(t, ctx, dsn)
	exec(t, ctx, l, "LISTEN jobs")

	t.Run("payloads", func(t *testing.T) {
		exec(t, ctx, n, "NOTIFY jobs, 'hello'")
		exec(t, ctx, n, "NOTIFY jobs")
		exec(t, ctx, n, "SELECT pg_notify('jobs', $1)", "it's a payload: ünïcödé")
		exec(t, ctx, n, "SELECT pg_notify('jobs', NULL)")
		exec(t, ctx, n, "NOTIFY other, 'not listened'")
		wantNotes(t, l, pid(n), "jobs hello", "jobs ", "jobs it's a payload: ünïcödé", "jobs ")
		noNote(t, l)
	})

	t.Run("idle listener is woken", func(t *testing.T) {
		// The listener sends nothing: it blocks reading, and the server
		// must interrupt its own idle read to send the notification.
		got := make(chan *pgconn.Notification, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			nt, _ := l.WaitForNotification(ctx)
			got <- nt
		}()
		time.Sleep(100 * time.Millisecond)
		exec(t, ctx, n, "NOTIFY jobs, 'wake up'")
		nt := <-got
		if nt == nil || nt.Payload != "wake up" || nt.PID != pid(n) {
			t.Fatalf("idle listener got %+v", nt)
		}
		// Several wakes in a row leave the session in step.
		for i := range 10 {
			exec(t, ctx, n, fmt.Sprintf("NOTIFY jobs, '%d'", i))
			wantNotes(t, l, pid(n), fmt.Sprintf("jobs %d", i))
		}
		wantRows(t, ctx, l, "SELECT 1", "1")
	})

	t.Run("commit order", func(t *testing.T) {
		exec(t, ctx, n, "BEGIN")
		exec(t, ctx, n, "NOTIFY jobs, 'first begun'")
		exec(t, ctx, n2, "BEGIN")
		exec(t, ctx, n2, "NOTIFY jobs, 'first committed'")
		noNote(t, l)
		exec(t, ctx, n2, "COMMIT")
		exec(t, ctx, n, "NOTIFY jobs, 'second committed'")
		exec(t, ctx, n, "COMMIT")
		wantNotes(t, l, pid(n2), "jobs first committed")
		wantNotes(t, l, pid(n), "jobs first begun", "jobs second committed")
	})

	t.Run("rollback drops", func(t *testing.T) {
		exec(t, ctx, n, "BEGIN")
		exec(t, ctx, n, "NOTIFY jobs, 'rolled back'")
		exec(t, ctx, n, "ROLLBACK")
		// A failed statement fails its implicit transaction.
		if _, err := n.Exec(ctx, "NOTIFY jobs, 'failed batch'; SELECT 1/0", pgx.QueryExecModeSimpleProtocol); sqlstate(err) != "22012" {
			t.Fatalf("1/0: %v", err)
		}
		// A failed transaction block commits as a rollback.
		exec(t, ctx, n, "BEGIN")
		exec(t, ctx, n, "NOTIFY jobs, 'failed block'")
		if _, err := n.Exec(ctx, "SELECT 1/0"); sqlstate(err) != "22012" {
			t.Fatalf("1/0: %v", err)
		}
		exec(t, ctx, n, "COMMIT")
		// A savepoint rolled back drops its notifications only.
		exec(t, ctx, n, "BEGIN")
		exec(t, ctx, n, "NOTIFY jobs, 'kept 1'")
		exec(t, ctx, n, "SAVEPOINT s")
		exec(t, ctx, n, "NOTIFY jobs, 'savepoint'")
		exec(t, ctx, n, "SELECT pg_notify('jobs', 'savepoint too')")
		exec(t, ctx, n, "ROLLBACK TO SAVEPOINT s")
		exec(t, ctx, n, "NOTIFY jobs, 'kept 2'")
		exec(t, ctx, n, "SAVEPOINT t")
		exec(t, ctx, n, "NOTIFY jobs, 'released'")
		exec(t, ctx, n, "RELEASE t")
		exec(t, ctx, n, "COMMIT")
		// A PL/pgSQL exception block is a savepoint too.
		exec(t, ctx, n, `DO $$
			BEGIN
				PERFORM pg_notify('jobs', 'before block');
				BEGIN
					PERFORM pg_notify('jobs', 'in failed block');
					PERFORM 1/0;
				EXCEPTION WHEN division_by_zero THEN
					PERFORM pg_notify('jobs', 'in handler');
				END;
			END $$`)
		wantNotes(t, l, pid(n), "jobs kept 1", "jobs kept 2", "jobs released", "jobs before block", "jobs in handler")
		noNote(t, l)
	})

	t.Run("duplicates folded", func(t *testing.T) {
		exec(t, ctx, n, "BEGIN")
		for _, p := range []string{"d", "d", "e", "d", "e", "f"} {
			exec(t, ctx, n, "NOTIFY jobs, '"+p+"'")
		}
		exec(t, ctx, n, "SELECT pg_notify('jobs', 'd')")
		exec(t, ctx, n, "NOTIFY other, 'd'")
		exec(t, ctx, n, "COMMIT")
		wantNotes(t, l, pid(n), "jobs d", "jobs e", "jobs f")
		noNote(t, l)
		// Many distinct ones (a hash table folds them past 16), each
		// twice; the same in separate transactions are not folded.
		exec(t, ctx, n, "SELECT pg_notify('jobs', (i % 40)::text) FROM generate_series(0, 79) i")
		var want []string
		for i := range 40 {
			want = append(want, fmt.Sprintf("jobs %d", i))
		}
		wantNotes(t, l, pid(n), want...)
		exec(t, ctx, n, "NOTIFY jobs, 'again'")
		exec(t, ctx, n, "NOTIFY jobs, 'again'")
		wantNotes(t, l, pid(n), "jobs again", "jobs again")
		noNote(t, l)
	})

	t.Run("listener in a transaction block", func(t *testing.T) {
		exec(t, ctx, l, "BEGIN")
		exec(t, ctx, n, "NOTIFY jobs, 'while busy'")
		noNote(t, l)
		wantRows(t, ctx, l, "SELECT 2", "2")
		if got := buffered(l); len(got) != 0 {
			t.Fatalf("delivered inside the transaction block: %q", got)
		}
		exec(t, ctx, l, "COMMIT")
		// It came with COMMIT's response, before its ReadyForQuery.
		if got := buffered(l); strings.Join(got, ",") != "jobs while busy" {
			t.Fatalf("after COMMIT: %q", got)
		}
	})

	t.Run("own notifications and LISTEN at commit", func(t *testing.T) {
		exec(t, ctx, n, "BEGIN")
		exec(t, ctx, n, "LISTEN own")
		exec(t, ctx, n, "NOTIFY own, 'self'")
		// Committed before the LISTEN was: PostgreSQL may or may not
		// deliver it (it depends on how far the other listeners have
		// read the queue); here it never is.
		exec(t, ctx, l, "NOTIFY own, 'before the LISTEN committed'")
		exec(t, ctx, n, "COMMIT")
		if got := buffered(n); strings.Join(got, ",") != "own self" {
			t.Fatalf("own notification: %q", got)
		}
		exec(t, ctx, l, "NOTIFY own, 'from l'")
		wantNotes(t, n, pid(l), "own from l")
		// UNLISTEN in the notifying transaction: nothing comes back.
		exec(t, ctx, n, "BEGIN")
		exec(t, ctx, n, "UNLISTEN own")
		exec(t, ctx, n, "NOTIFY own, 'unheard'")
		exec(t, ctx, n, "COMMIT")
		noNote(t, n)
	})

	t.Run("UNLISTEN *", func(t *testing.T) {
		exec(t, ctx, l, "LISTEN second")
		wantRows(t, ctx, l, "SELECT * FROM pg_listening_channels() ORDER BY 1", "jobs", "second")
		exec(t, ctx, l, "UNLISTEN *")
		wantRows(t, ctx, l, "SELECT pg_listening_channels()")
		exec(t, ctx, n, "NOTIFY jobs, 'nobody'")
		exec(t, ctx, n, "NOTIFY second, 'nobody'")
		noNote(t, l)
		exec(t, ctx, l, "LISTEN jobs")
		exec(t, ctx, n, "NOTIFY jobs, 'back'")
		wantNotes(t, l, pid(n), "jobs back")
	})

	t.Run("channel names", func(t *testing.T) {
		exec(t, ctx, l, `LISTEN "Chan"`)
		exec(t, ctx, n, "NOTIFY Chan, 'folded: not heard'")
		exec(t, ctx, n, `NOTIFY "Chan", 'quoted'`)
		exec(t, ctx, n, "SELECT pg_notify('Chan', 'as is')")
		exec(t, ctx, n, "SELECT pg_notify('chan', 'lower: not heard')")
		wantNotes(t, l, pid(n), "Chan quoted", "Chan as is")
		noNote(t, l)
	})

	t.Run("closed listener", func(t *testing.T) {
		gone := connect(t, ctx, dsn)
		exec(t, ctx, gone, "LISTEN jobs")
		gone.Close(ctx)
		exec(t, ctx, n, "NOTIFY jobs, 'after close'")
		wantNotes(t, l, pid(n), "jobs after close")
	})
}

// TestNotifyBranches checks that notifications stay within their
// database and branch, and follow a session that checks out another
// branch.
func TestNotifyBranches(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	admin := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, admin, "CREATE DATABASE other")
	exec(t, ctx, admin, "SELECT dolt_branch('feature')")

	main := connect(t, ctx, srv.DSN("postgres"))
	feature := connect(t, ctx, srv.DSN("postgres@feature"))
	featureSlash := connect(t, ctx, srv.DSN("postgres/feature"))
	other := connect(t, ctx, srv.DSN("other"))
	for _, c := range []*pgx.Conn{main, feature, featureSlash, other} {
		exec(t, ctx, c, "LISTEN ch")
	}

	exec(t, ctx, feature, "NOTIFY ch, 'to feature'")
	wantNotes(t, featureSlash, pid(feature), "ch to feature")
	if got := buffered(feature); strings.Join(got, ",") != "ch to feature" {
		t.Fatalf("feature's own: %q", got)
	}
	exec(t, ctx, admin, "NOTIFY ch, 'to main'")
	wantNotes(t, main, pid(admin), "ch to main")
	exec(t, ctx, other, "NOTIFY ch, 'to other'")
	if got := buffered(other); strings.Join(got, ",") != "ch to other" {
		t.Fatalf("other's own: %q", got)
	}
	noNote(t, main)
	noNote(t, feature)
	noNote(t, featureSlash)
	noNote(t, other)

	// Sessions on a tag (read-only) share the tag's commit.
	exec(t, ctx, admin, "SELECT dolt_tag('v1')")
	tag := connect(t, ctx, srv.DSN("postgres@v1"))
	tag2 := connect(t, ctx, srv.DSN("postgres@v1"))
	exec(t, ctx, tag2, "LISTEN ch")
	exec(t, ctx, tag, "NOTIFY ch, 'to v1'")
	wantNotes(t, tag2, pid(tag), "ch to v1")
	noNote(t, main)

	// A session that checks out a branch hears that branch from then on.
	exec(t, ctx, main, "SELECT dolt_checkout('feature')")
	exec(t, ctx, feature, "NOTIFY ch, 'checked out'")
	wantNotes(t, main, pid(feature), "ch checked out")
	wantNotes(t, featureSlash, pid(feature), "ch checked out")
	exec(t, ctx, admin, "NOTIFY ch, 'to main again'")
	noNote(t, main)
}

// TestNotifyJobQueue is the pattern LISTEN/NOTIFY is used for: a worker
// LISTENs and waits; a producer inserts a job and notifies in one
// transaction; the worker wakes and finds the committed row.
func TestNotifyJobQueue(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	dsn := srv.DSN("postgres")
	producer := connect(t, ctx, dsn)
	exec(t, ctx, producer, "CREATE TABLE jobs (id int PRIMARY KEY, task text, done bool DEFAULT false)")

	const jobs = 5
	done := make(chan error, 1)
	worker := connect(t, ctx, dsn)
	exec(t, ctx, worker, "LISTEN new_job")
	go func() {
		done <- func() error {
			for handled := 0; handled < jobs; {
				wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				nt, err := worker.WaitForNotification(wctx)
				cancel()
				if err != nil {
					return fmt.Errorf("worker waiting: %w", err)
				}
				var task string
				if err := worker.QueryRow(ctx, "UPDATE jobs SET done = true WHERE id = $1::int AND NOT done RETURNING task", nt.Payload).Scan(&task); err != nil {
					return fmt.Errorf("job %s: %w", nt.Payload, err)
				}
				if task != "task "+nt.Payload {
					return fmt.Errorf("job %s: task %q", nt.Payload, task)
				}
				handled++
			}
			return nil
		}()
	}()
	for i := 1; i <= jobs; i++ {
		time.Sleep(20 * time.Millisecond) // let the worker block idle now and then
		tx, err := producer.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO jobs (id, task) VALUES ($1, $2)", i, fmt.Sprint("task ", i)); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "SELECT pg_notify('new_job', $1)", fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	wantRows(t, ctx, producer, "SELECT count(*) FROM jobs WHERE done", "5")
}

// TestPsqlNotify checks psql's report of notifications, which it prints
// after each command; the expected output is PostgreSQL 15's.
func TestPsqlNotify(t *testing.T) {
	psql, err := osexec.LookPath("psql")
	if err != nil {
		t.Skip("psql not installed")
	}
	srv := testserver.Start(t)
	script := `SELECT pg_backend_pid() AS pid \gset
\echo pid :pid
LISTEN jobs;
NOTIFY jobs, 'from psql';
NOTIFY jobs;
SELECT pg_notify('jobs', 'in a query') IS NULL AS "null";
BEGIN;
NOTIFY jobs, 'at commit';
COMMIT;
`
	cmd := osexec.Command(psql, "-X", "-q", "-h", srv.Host, "-p", strconv.Itoa(srv.Port), "-U", "postgres", "-d", "postgres", "-f", "-")
	cmd.Stdin = strings.NewReader(script)
	cmd.Env = []string{"PGCLIENTENCODING=UTF8", "LC_ALL=C.UTF-8", "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	pid, ok := strings.CutPrefix(first, "pid ")
	if !ok {
		t.Fatalf("psql printed:\n%s", out)
	}
	want := `pid PID
Asynchronous notification "jobs" with payload "from psql" received from server process with PID PID.
Asynchronous notification "jobs" received from server process with PID PID.
 null 
------
 f
(1 row)

Asynchronous notification "jobs" with payload "in a query" received from server process with PID PID.
Asynchronous notification "jobs" with payload "at commit" received from server process with PID PID.
`
	if got := strings.ReplaceAll(string(out), pid, "PID"); got != want {
		t.Errorf("psql printed:\n%s\nwant:\n%s", got, want)
	}
}
