package regress

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// execResult is what a statement run in the background gave.
type execResult struct {
	tag string
	err error
}

// execAsync runs sql on c in a goroutine, for a statement expected to
// wait for another session; receive from the channel for its outcome.
func execAsync(ctx context.Context, c *pgx.Conn, sql string) <-chan execResult {
	done := make(chan execResult, 1)
	go func() {
		tag, err := c.Exec(ctx, sql)
		done <- execResult{tag.String(), err}
	}()
	return done
}

// queryResult is what a query of one value run in the background gave,
// as text.
type queryResult struct {
	val string
	err error
}

// queryAsync runs sql, a query of one value, on c in a goroutine, for a
// query expected to wait for another session.
func queryAsync(ctx context.Context, c *pgx.Conn, sql string) <-chan queryResult {
	done := make(chan queryResult, 1)
	go func() {
		var r queryResult
		r.err = c.QueryRow(ctx, sql, pgx.QueryExecModeSimpleProtocol).Scan(&r.val)
		done <- r
	}()
	return done
}

// stillWaiting fails the test if the background statement ends within d.
func stillWaiting[R any](t *testing.T, done <-chan R, d time.Duration, what string) {
	t.Helper()
	select {
	case r := <-done:
		t.Fatalf("%s did not wait: %+v", what, r)
	case <-time.After(d):
	}
}

// twoSessions starts a server and connects two sessions to it.
func twoSessions(t *testing.T) (ctx context.Context, a, b *pgx.Conn) {
	ctx = testserver.Context(t)
	srv := testserver.Start(t)
	return ctx, connect(t, ctx, srv.DSN("postgres")), connect(t, ctx, srv.DSN("postgres"))
}

// afterCommitOf runs sqlA in a transaction of a, then sqlB in b, checks
// that sqlB waits for a, commits a and returns what sqlB gave.
func afterCommitOf(t *testing.T, ctx context.Context, a, b *pgx.Conn, sqlA, sqlB string) execResult {
	t.Helper()
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, sqlA)
	done := execAsync(ctx, b, sqlB)
	stillWaiting(t, done, 150*time.Millisecond, sqlB+" after "+sqlA)
	exec(t, ctx, a, "COMMIT")
	return <-done
}

// fromManyClients runs body on clients connections to dsn at once, each in
// a goroutine of its own, and fails the test with the error each body
// returns.
func fromManyClients(t *testing.T, ctx context.Context, dsn string, clients int, body func(c int, conn *pgx.Conn) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close(context.Background())
			if err := body(c, conn); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestKeylessInsertsFromManyClients: clients inserting into a table without
// a primary key, each in its own transaction block, never conflict and
// never lose a row, whether the rows are identical or not. The hidden row
// ids were once drawn from each transaction's snapshot: different rows
// then failed with 40001 at COMMIT, and identical rows merged into one
// while every COMMIT was acknowledged.
func TestKeylessInsertsFromManyClients(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	setup := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, setup, "CREATE TABLE same (a int, b text)")
	exec(t, ctx, setup, "CREATE TABLE stamped (a int, t timestamp)")
	exec(t, ctx, setup, "CREATE TABLE indexed (a int, b text)")
	exec(t, ctx, setup, "CREATE INDEX ON indexed (b)")

	const clients, perClient = 4, 40
	inserts := map[string]string{
		"same":    "INSERT INTO same VALUES (1, 'x')",
		"stamped": "INSERT INTO stamped VALUES (1, clock_timestamp())",
		"indexed": "INSERT INTO indexed VALUES ($1, $2)",
	}
	fromManyClients(t, ctx, srv.DSN("postgres"), clients, func(c int, conn *pgx.Conn) error {
		for i := 0; i < perClient; i++ {
			for table, sql := range inserts {
				var args []any
				if table == "indexed" {
					args = append(args, c*perClient+i, fmt.Sprint("v", c*perClient+i))
				}
				if err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
					_, err := tx.Exec(ctx, sql, args...)
					return err
				}); err != nil {
					return fmt.Errorf("%s: %w", table, err)
				}
			}
		}
		return nil
	})
	want := strconv.Itoa(clients * perClient)
	for table := range inserts {
		if got := one(t, ctx, setup, "SELECT count(*) FROM "+table); got != want {
			t.Errorf("%s: %s rows after %s acknowledged inserts", table, got, want)
		}
	}
	// The index agrees with the table.
	if got := one(t, ctx, setup, "SELECT count(*) FROM indexed WHERE b = 'v7'"); got != "1" {
		t.Errorf("index lookup: %s rows; %q", got, textRows(t, ctx, setup, "SELECT a, b FROM indexed WHERE a < 10 ORDER BY a"))
	}
}

// TestSerialsFromManyClients: clients drawing from sequences in their own
// transaction blocks (a serial key, an identity column, nextval alone)
// never draw the same value and never fail, rolled-back draws included,
// and what was drawn is kept: the sequences end at the furthest value
// drawn. Drawn from each transaction's snapshot, two transactions once
// took the same serial key and the second COMMIT failed with 23505.
func TestSerialsFromManyClients(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	setup := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, setup, "CREATE TABLE s (id serial PRIMARY KEY, v int)")
	exec(t, ctx, setup, "CREATE TABLE ident (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v int)")
	exec(t, ctx, setup, "CREATE SEQUENCE free")

	const clients, perClient = 4, 40
	var mu sync.Mutex
	drawn := map[string]map[int64]bool{"s": {}, "ident": {}, "free": {}}
	committed := 0
	fromManyClients(t, ctx, srv.DSN("postgres"), clients, func(_ int, conn *pgx.Conn) error {
		for i := 0; i < perClient; i++ {
			tx, err := conn.Begin(ctx)
			if err != nil {
				return err
			}
			var ids [3]int64
			for j, sql := range []string{
				"INSERT INTO s (v) VALUES ($1) RETURNING id",
				"INSERT INTO ident (v) VALUES ($1) RETURNING id",
				"SELECT nextval('free') + 0 * $1",
			} {
				if err := tx.QueryRow(ctx, sql, i).Scan(&ids[j]); err != nil {
					return fmt.Errorf("%s: %w", sql, err)
				}
			}
			commit := i%5 != 4
			if commit {
				err = tx.Commit(ctx)
			} else {
				err = tx.Rollback(ctx)
			}
			if err != nil {
				return fmt.Errorf("commit: %w", err)
			}
			mu.Lock()
			for j, seq := range []string{"s", "ident", "free"} {
				if drawn[seq][ids[j]] {
					t.Errorf("%s: %d drawn twice", seq, ids[j])
				}
				drawn[seq][ids[j]] = true
			}
			if commit {
				committed++
			}
			mu.Unlock()
		}
		return nil
	})
	for _, table := range []string{"s", "ident"} {
		if got, want := one(t, ctx, setup, "SELECT count(DISTINCT id) FROM "+table), strconv.Itoa(committed); got != want {
			t.Errorf("%s: %s rows after %s committed inserts", table, got, want)
		}
	}
	// Rolled-back draws are not taken back: each sequence ends at the
	// furthest value drawn, and goes on from there.
	for seq, table := range map[string]string{"s_id_seq": "s", "ident_id_seq": "ident", "free": "free"} {
		furthest := int64(0)
		for v := range drawn[table] {
			furthest = max(furthest, v)
		}
		if got := one(t, ctx, setup, "SELECT last_value FROM "+seq); got != strconv.FormatInt(furthest, 10) {
			t.Errorf("%s: last_value %s, furthest value drawn %d", seq, got, furthest)
		}
		if got := one(t, ctx, setup, "SELECT nextval($1)", seq); got != strconv.FormatInt(furthest+1, 10) {
			t.Errorf("%s: nextval %s after %d", seq, got, furthest)
		}
	}
}

// TestUniqueKeysFromManyClients: clients inserting rows with distinct
// values of a unique column, in their own transaction blocks, never
// conflict (their commits are replayed as edits, each unique key checked
// against the working set), and of those inserting one shared value
// exactly one succeeds, the others failing with 23505; the unique index
// agrees with the table.
func TestUniqueKeysFromManyClients(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	setup := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, setup, "CREATE TABLE u (id int PRIMARY KEY, email text UNIQUE, n int)")

	const clients, perClient = 4, 30
	var mu sync.Mutex
	inserted, shared := 0, 0
	fromManyClients(t, ctx, srv.DSN("postgres"), clients, func(c int, conn *pgx.Conn) error {
		for i := 0; i < perClient; i++ {
			id := c*perClient + i
			email := fmt.Sprint("e", id)
			if i%10 == 9 {
				email = "shared"
			}
			err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
				_, err := tx.Exec(ctx, "INSERT INTO u VALUES ($1, $2, $3)", id, email, i)
				return err
			})
			var pe *pgconn.PgError
			switch {
			case err == nil:
				mu.Lock()
				inserted++
				if email == "shared" {
					shared++
				}
				mu.Unlock()
			case email == "shared" && errors.As(err, &pe) && pe.Code == "23505":
			default:
				return fmt.Errorf("%s: %w", email, err)
			}
		}
		return nil
	})
	if shared != 1 {
		t.Errorf("%d inserts of the shared value succeeded, want 1", shared)
	}
	if got := one(t, ctx, setup, "SELECT count(*) FROM u"); got != strconv.Itoa(inserted) {
		t.Errorf("%s rows after %d acknowledged inserts", got, inserted)
	}
	exec(t, ctx, setup, "SET enable_seqscan = off")
	if got := one(t, ctx, setup, "SELECT count(*) FROM u WHERE email = 'shared'"); got != "1" {
		t.Errorf("the unique index finds %s rows of the shared value", got)
	}
	if got := one(t, ctx, setup, "SELECT count(*) FROM u WHERE email = 'e5'"); got != "1" {
		t.Errorf("the unique index finds %s rows of e5", got)
	}
}

// TestForeignKeyInsertsFromManyClients: clients inserting child rows of
// existing parents, and parents with their children in one transaction
// (an order and its items), never conflict (their commits are replayed as
// edits, each reference checked against the working set with the
// transaction's own rows); a commit whose parent a version-control
// operation removed in the meantime fails (the merge it then goes to
// reports 40001) instead of leaving an orphan.
func TestForeignKeyInsertsFromManyClients(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	setup := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, setup, "CREATE TABLE parent (id int PRIMARY KEY, name text)")
	exec(t, ctx, setup, "CREATE TABLE child (id serial PRIMARY KEY, parent_id int REFERENCES parent (id), n int)")
	exec(t, ctx, setup, "INSERT INTO parent SELECT g, 'p' || g FROM generate_series(1, 10) g")

	const clients, perClient = 4, 30
	fromManyClients(t, ctx, srv.DSN("postgres"), clients, func(c int, conn *pgx.Conn) error {
		for i := 0; i < perClient; i++ {
			err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
				if i%2 == 0 {
					_, err := tx.Exec(ctx, "INSERT INTO child (parent_id, n) VALUES ($1, $2)", 1+(c+i)%10, i)
					return err
				}
				id := 1000 + c*perClient + i
				if _, err := tx.Exec(ctx, "INSERT INTO parent VALUES ($1, 'order')", id); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, "INSERT INTO child (parent_id, n) VALUES ($1, 1), ($1, 2)", id)
				return err
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	wantRows(t, ctx, setup, "SELECT count(*) FROM child", strconv.Itoa(clients*perClient/2*3))
	wantRows(t, ctx, setup, "SELECT count(*) FROM child c LEFT JOIN parent p ON p.id = c.parent_id WHERE p.id IS NULL", "0")

	// A parent only the working set has, removed by dolt_reset while a
	// transaction inserts its child: the commit fails, no orphan is left.
	exec(t, ctx, setup, "SELECT dolt_commit('-Am', 'parents')")
	exec(t, ctx, setup, "INSERT INTO parent VALUES (99, 'uncommitted')")
	other := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, other, "BEGIN")
	exec(t, ctx, other, "INSERT INTO child (parent_id, n) VALUES (99, 0)")
	exec(t, ctx, setup, "SELECT dolt_reset('--hard')")
	_, err := other.Exec(ctx, "COMMIT")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23503" && pe.Code != "40001" {
		t.Errorf("COMMIT of a child whose parent was reset away: %v, want 23503 or 40001", err)
	}
	wantRows(t, ctx, setup, "SELECT count(*) FROM child WHERE parent_id = 99", "0")
}

// TestConcurrentDuplicateKey: two transactions insert the same primary or
// unique key; the one that commits second fails with 23505 and PostgreSQL's
// message and detail, whether or not its row equals the first one. (Equal
// rows once merged into one, and both COMMITs were acknowledged.)
func TestConcurrentDuplicateKey(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE dk (id int PRIMARY KEY, v text, u int UNIQUE)")
	cases := []struct {
		first, second string
		want          string
	}{
		{"(1, 'x', 1)", "(1, 'x', 1)", `23505 duplicate key value violates unique constraint "dk_pkey" Key (id)=(1) already exists.`},
		{"(2, 'x', 2)", "(2, 'y', 3)", `23505 duplicate key value violates unique constraint "dk_pkey" Key (id)=(2) already exists.`},
		{"(4, 'a', 10)", "(5, 'b', 10)", `23505 duplicate key value violates unique constraint "dk_u_key" Key (u)=(10) already exists.`},
	}
	for _, c := range cases {
		exec(t, ctx, a, "BEGIN")
		exec(t, ctx, b, "BEGIN")
		exec(t, ctx, a, "INSERT INTO dk VALUES "+c.first)
		exec(t, ctx, a, "COMMIT")
		_, err := b.Exec(ctx, "INSERT INTO dk VALUES "+c.second)
		if err == nil {
			_, err = b.Exec(ctx, "COMMIT")
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Fatalf("%s after %s: %v, want 23505", c.second, c.first, err)
		}
		if got := pe.Code + " " + pe.Message + " " + pe.Detail; got != c.want {
			t.Errorf("%s after %s:\n got %s\nwant %s", c.second, c.first, got, c.want)
		}
		b.Exec(ctx, "ROLLBACK")
	}
	wantRows(t, ctx, a, "SELECT id, v, u FROM dk ORDER BY id", "1 | x | 1", "2 | x | 2", "4 | a | 10")
}

// commitUntilStopped commits transactions on a connection to dsn, each
// made by fill with its sequence number n, until stop is closed or the
// server is gone (a connection error), calling acked with n after each
// COMMIT the server acknowledged.
func commitUntilStopped(ctx context.Context, dsn string, stop <-chan struct{}, fill func(tx pgx.Tx, n int) error, acked func(n int)) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return
	}
	defer conn.Close(context.Background())
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		default:
		}
		tx, err := conn.Begin(ctx)
		if err != nil {
			return
		}
		if err := fill(tx, n); err != nil {
			return
		}
		if tx.Commit(ctx) != nil {
			return // the server is gone: not acknowledged
		}
		acked(n)
	}
}

// TestDurabilityManyWriters kills the server (kill -9) while 16 clients
// commit through group commit: every acknowledged COMMIT is there after
// the restart, and every transaction is there whole or not at all (one
// whose acknowledgement the kill cut off may be either). The transactions
// change few rows, so their commits are journaled as redo records
// (store/redo.go), which the restart replays, index entries included.
func TestDurabilityManyWriters(t *testing.T) {
	ctx := testserver.Context(t)
	dir := t.TempDir()
	srv := testserver.StartDir(t, dir)
	setup := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, setup, "CREATE TABLE acked (id int PRIMARY KEY, writer int)")
	exec(t, ctx, setup, "CREATE TABLE log (writer int, n int)") // keyless
	exec(t, ctx, setup, "CREATE TABLE tagged (id int PRIMARY KEY, g int)")
	exec(t, ctx, setup, "CREATE INDEX tagged_g ON tagged (g)")
	exec(t, ctx, setup, "CREATE TABLE serials (id serial PRIMARY KEY, writer int, n int)")
	const writers = 16
	var mu sync.Mutex
	acked := map[int]bool{}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			commitUntilStopped(ctx, srv.DSN("postgres"), stop, func(tx pgx.Tx, n int) error {
				id := w*100000 + n
				if _, err := tx.Exec(ctx, "INSERT INTO acked VALUES ($1, $2)", id, w); err != nil {
					return err
				}
				if _, err := tx.Exec(ctx, "INSERT INTO log VALUES ($1, $2)", w, n); err != nil {
					return err
				}
				if _, err := tx.Exec(ctx, "INSERT INTO serials (writer, n) VALUES ($1, $2)", w, n); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, "INSERT INTO tagged VALUES ($1, $2)", id, n%7)
				return err
			}, func(n int) {
				mu.Lock()
				acked[w*100000+n] = true
				mu.Unlock()
			})
		}()
	}
	// Let the writers commit for a while, then kill the server under them.
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 300 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	srv.Kill()
	close(stop)
	wg.Wait()

	srv = testserver.StartDir(t, dir)
	c := connect(t, ctx, srv.DSN("postgres"))
	present := map[int]bool{}
	for _, r := range textRows(t, ctx, c, "SELECT id FROM acked") {
		id, _ := strconv.Atoi(r)
		present[id] = true
	}
	for id := range acked {
		if !present[id] {
			t.Errorf("acknowledged insert %d lost after kill -9", id)
		}
	}
	// Each transaction wrote both tables or neither.
	if a, l := one(t, ctx, c, "SELECT count(*) FROM acked"), one(t, ctx, c, "SELECT count(*) FROM log"); a != l {
		t.Errorf("after kill -9: %s rows in acked, %s in log: a transaction is half there", a, l)
	}
	// The index of tagged (its entries are replayed with its rows) finds
	// every row.
	exec(t, ctx, c, "SET enable_seqscan = off")
	if a, g := one(t, ctx, c, "SELECT count(*) FROM acked"), one(t, ctx, c, "SELECT count(*) FROM tagged WHERE g BETWEEN 0 AND 6"); a != g {
		t.Errorf("after kill -9: %s rows in acked, %s found by tagged's index", a, g)
	}
	// Every transaction drew its own serial key, and the sequence (its
	// advances are replayed with the rows) goes on past all of them.
	if a, s := one(t, ctx, c, "SELECT count(*) FROM acked"), one(t, ctx, c, "SELECT count(DISTINCT id) FROM serials"); a != s {
		t.Errorf("after kill -9: %s rows in acked, %s distinct serial keys", a, s)
	}
	if after, err := strconv.Atoi(one(t, ctx, c, "INSERT INTO serials (writer, n) VALUES (-1, -1) RETURNING id")); err != nil ||
		one(t, ctx, c, "SELECT count(*) FROM serials WHERE id >= $1", after) != "1" {
		t.Errorf("after kill -9: a new serial key %d (%v) is not past the committed ones", after, err)
	}
	t.Logf("%d acknowledged, %d present", len(acked), len(present))
}

// TestDurabilityOfBranchesAndCommits kills the server (kill -9) while
// writers commit on two branches at once (each branch's batches journaled
// as redo records of its own working set) and another session makes Dolt
// commits of main now and then (ref updates that reach the redo chunks,
// and journal them): after the restart every acknowledged row is on its
// branch, and every Dolt commit acknowledged is in main's log with the rows
// it had.
func TestDurabilityOfBranchesAndCommits(t *testing.T) {
	ctx := testserver.Context(t)
	dir := t.TempDir()
	srv := testserver.StartDir(t, dir)
	setup := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, setup, "CREATE TABLE item (id int PRIMARY KEY, v text)")
	exec(t, ctx, setup, "CREATE INDEX item_v ON item (v)")
	exec(t, ctx, setup, "SELECT dolt_commit('-Am', 'item')")
	exec(t, ctx, setup, "SELECT dolt_branch('feature')")
	var mu sync.Mutex
	acked := map[string]map[int]bool{"postgres": {}, "postgres/feature": {}}
	var commits []string // messages of the acknowledged Dolt commits
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		db := []string{"postgres", "postgres/feature"}[w%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			commitUntilStopped(ctx, srv.DSN(db), stop, func(tx pgx.Tx, n int) error {
				_, err := tx.Exec(ctx, "INSERT INTO item VALUES ($1, $2)", w*100000+n, fmt.Sprint("w", w))
				return err
			}, func(n int) {
				mu.Lock()
				acked[db][w*100000+n] = true
				mu.Unlock()
			})
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		conn, err := pgx.Connect(ctx, srv.DSN("postgres"))
		if err != nil {
			return
		}
		defer conn.Close(context.Background())
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(30 * time.Millisecond):
			}
			msg := fmt.Sprint("snapshot ", i)
			if _, err := conn.Exec(ctx, "SELECT dolt_commit('-Am', $1)", msg); err != nil {
				return
			}
			mu.Lock()
			commits = append(commits, msg)
			mu.Unlock()
		}
	}()
	for {
		mu.Lock()
		n, c := len(acked["postgres"])+len(acked["postgres/feature"]), len(commits)
		mu.Unlock()
		if n >= 400 && c >= 3 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	srv.Kill()
	close(stop)
	wg.Wait()

	srv = testserver.StartDir(t, dir)
	for db, ids := range acked {
		c := connect(t, ctx, srv.DSN(db))
		present := map[int]bool{}
		for _, r := range textRows(t, ctx, c, "SELECT id FROM item") {
			id, _ := strconv.Atoi(r)
			present[id] = true
		}
		for id := range ids {
			if !present[id] {
				t.Errorf("%s: acknowledged insert %d lost after kill -9", db, id)
			}
		}
		for id := range present {
			if (id/100000)%2 != map[string]int{"postgres": 0, "postgres/feature": 1}[db] {
				t.Errorf("%s: row %d of the other branch", db, id)
			}
		}
		if a, g := one(t, ctx, c, "SELECT count(*) FROM item"), one(t, ctx, c, "SELECT count(*) FROM item WHERE v LIKE 'w%'"); a != g {
			t.Errorf("%s: %s rows, %s found through the index", db, a, g)
		}
		c.Close(ctx)
	}
	c := connect(t, ctx, srv.DSN("postgres"))
	logged := map[string]bool{}
	for _, m := range textRows(t, ctx, c, "SELECT message FROM dolt_log") {
		logged[m] = true
	}
	for _, m := range commits {
		if !logged[m] {
			t.Errorf("acknowledged Dolt commit %q missing from dolt_log after kill -9", m)
		}
	}
	// A Dolt commit's rows are readable: the last one's table has at least
	// the rows acknowledged before it began (it reached chunks that were
	// redo chunks when it was made).
	if n := one(t, ctx, c, "SELECT count(*) FROM item AS OF 'HEAD'"); n == "0" {
		t.Errorf("HEAD's item is empty after kill -9")
	}
	t.Logf("%d + %d acknowledged rows, %d Dolt commits", len(acked["postgres"]), len(acked["postgres/feature"]), len(commits))
}

// TestCounterFromManyClients: clients incrementing shared counters in READ
// COMMITTED never fail and never lose an increment; each UPDATE waits for
// the row's lock, then adds to the newest committed value.
func TestCounterFromManyClients(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	setup := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, setup, "CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL, bucket int)")
	exec(t, ctx, setup, "CREATE INDEX ON counter (n)")
	exec(t, ctx, setup, "INSERT INTO counter VALUES (1, 0, 0), (2, 0, 0)")
	const clients, perClient = 8, 25
	fromManyClients(t, ctx, srv.DSN("postgres"), clients, func(_ int, conn *pgx.Conn) error {
		for i := 0; i < perClient; i++ {
			// Autocommit, and a block changing both rows in one order.
			if _, err := conn.Exec(ctx, "UPDATE counter SET n = n + 1, bucket = n % 3 WHERE id = 1"); err != nil {
				return err
			}
			err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1"); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 2")
				return err
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	n := clients * perClient
	wantRows(t, ctx, setup, "SELECT id, n FROM counter ORDER BY id", fmt.Sprintf("1 | %d", 2*n), fmt.Sprintf("2 | %d", n))
	// The index holds exactly the rows' current values: no entry of a
	// version an UPDATE replaced is left behind.
	wantRows(t, ctx, setup, fmt.Sprintf("SELECT id FROM counter WHERE n < %d ORDER BY id", 2*n), "2")
	wantRows(t, ctx, setup, "SELECT id FROM counter WHERE n >= 0 ORDER BY id", "1", "2")
}

// TestWaitingUpdateRechecks: an UPDATE that waited for a row's lock acts on
// the committed version if it still matches its WHERE, and on nothing if
// it no longer does; a DELETE of a row deleted meanwhile deletes nothing.
func TestWaitingUpdateRechecks(t *testing.T) {
	ctx, a, b := twoSessions(t)
	exec(t, ctx, a, "CREATE TABLE job (id int PRIMARY KEY, state text)")
	exec(t, ctx, a, "INSERT INTO job VALUES (1, 'new'), (2, 'new')")

	// run starts sqlB in b while a holds the row, commits a after making
	// sure b waits, and returns b's command tag.
	run := func(sqlA, sqlB string) string {
		t.Helper()
		r := afterCommitOf(t, ctx, a, b, sqlA, sqlB)
		if r.err != nil {
			return r.err.Error()
		}
		return r.tag
	}
	if tag := run("UPDATE job SET state = 'taken' WHERE id = 1", "UPDATE job SET state = 'mine' WHERE id = 1 AND state = 'new'"); tag != "UPDATE 0" {
		t.Errorf("the row no longer matches: %s, want UPDATE 0", tag)
	}
	if tag := run("UPDATE job SET state = 'seen' WHERE id = 2", "UPDATE job SET state = state || '+b' WHERE id = 2"); tag != "UPDATE 1" {
		t.Errorf("the row still matches: %s, want UPDATE 1", tag)
	}
	if tag := run("DELETE FROM job WHERE id = 1", "DELETE FROM job WHERE id = 1"); tag != "DELETE 0" {
		t.Errorf("a row deleted meanwhile: %s, want DELETE 0", tag)
	}
	wantRows(t, ctx, a, "SELECT id, state FROM job ORDER BY id", "2 | seen+b")
	// A row deleted and inserted again under its key is another row, not
	// a new version of the one waited for, as in PostgreSQL: the waiting
	// UPDATE and DELETE pass it by, and the waiter's INSERT of the key
	// then fails.
	exec(t, ctx, a, "INSERT INTO job VALUES (3, 'new')")
	if tag := run("DELETE FROM job WHERE id = 3; INSERT INTO job VALUES (3, 'again')", "UPDATE job SET state = 'mine' WHERE id = 3"); tag != "UPDATE 0" {
		t.Errorf("a row inserted again under its key: %s, want UPDATE 0", tag)
	}
	if tag := run("DELETE FROM job WHERE id = 3; INSERT INTO job VALUES (3, 'third')", "DELETE FROM job WHERE id = 3"); tag != "DELETE 0" {
		t.Errorf("a row inserted again under its key: %s, want DELETE 0", tag)
	}
	wantError(t, ctx, b, "23505", "INSERT INTO job VALUES (3, 'b')")
	wantRows(t, ctx, a, "SELECT id, state FROM job ORDER BY id", "2 | seen+b", "3 | third")
	// A later UPDATE of the row, which did not wait, acts on it.
	if tag := run("UPDATE job SET state = 'fourth' WHERE id = 3", "UPDATE job SET state = state || '+b' WHERE id = 3"); tag != "UPDATE 1" {
		t.Errorf("an update of the new row: %s, want UPDATE 1", tag)
	}
	wantRows(t, ctx, a, "SELECT state FROM job WHERE id = 3", "fourth+b")
}

// TestDeadlock: two transactions that lock two rows in opposite orders;
// one gets 40P01 and its transaction fails, the other goes on and commits.
// The victim is the waiter whose deadlock_timeout runs out first, as in
// PostgreSQL: here the one that closes the cycle.
func TestDeadlock(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE dl (id int PRIMARY KEY, n int)")
	exec(t, ctx, a, "INSERT INTO dl VALUES (1, 0), (2, 0)")
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, b, "BEGIN")
	exec(t, ctx, a, "SET deadlock_timeout = '10s'")
	exec(t, ctx, b, "SET deadlock_timeout = '50ms'")
	exec(t, ctx, a, "UPDATE dl SET n = n + 1 WHERE id = 1")
	exec(t, ctx, b, "UPDATE dl SET n = n + 10 WHERE id = 2")
	aDone := execAsync(ctx, a, "UPDATE dl SET n = n + 1 WHERE id = 2") // waits for b
	time.Sleep(100 * time.Millisecond)
	_, errB := b.Exec(ctx, "UPDATE dl SET n = n + 10 WHERE id = 1") // closes the cycle
	if sqlstate(errB) != "40P01" {
		t.Fatalf("the transaction closing the cycle: %v, want SQLSTATE 40P01", errB)
	}
	// The failed transaction's locks are gone at the error, before its
	// ROLLBACK: a goes on.
	if r := <-aDone; r.err != nil {
		t.Fatalf("the other transaction: %v", r.err)
	}
	exec(t, ctx, b, "ROLLBACK")
	exec(t, ctx, a, "COMMIT")
	wantRows(t, ctx, a, "SELECT id, n FROM dl ORDER BY id", "1 | 1", "2 | 1")
}

// TestSkipLockedQueue: workers taking jobs with FOR UPDATE SKIP LOCKED each
// get a different job, none fails, and every job is done once; NOWAIT on a
// locked row fails with 55P03; a plain FOR UPDATE waits for the holder.
func TestSkipLockedQueue(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	setup := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, setup, "CREATE TABLE jobs (id int PRIMARY KEY, state text NOT NULL, worker int)")
	exec(t, ctx, setup, "INSERT INTO jobs SELECT g, 'new', NULL FROM generate_series(1, 60) g")
	const workers = 4
	var mu sync.Mutex
	taken := map[int]int{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 1; w <= workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := pgx.Connect(ctx, srv.DSN("postgres"))
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close(context.Background())
			for {
				var id int
				err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
					err := tx.QueryRow(ctx, "SELECT id FROM jobs WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED").Scan(&id)
					if err != nil {
						return err
					}
					time.Sleep(time.Millisecond) // hold the lock a while, as a worker does
					_, err = tx.Exec(ctx, "UPDATE jobs SET state = 'done', worker = $1 WHERE id = $2", w, id)
					return err
				})
				if errors.Is(err, pgx.ErrNoRows) {
					return
				}
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				taken[id]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for id := 1; id <= 60; id++ {
		if taken[id] != 1 {
			t.Errorf("job %d taken %d times", id, taken[id])
		}
	}
	wantRows(t, ctx, setup, "SELECT count(*) FROM jobs WHERE state = 'done'", "60")

	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "BEGIN")
	wantRows(t, ctx, a, "SELECT id FROM jobs WHERE id = 1 FOR UPDATE", "1")
	exec(t, ctx, b, "BEGIN")
	if _, err := b.Exec(ctx, "SELECT id FROM jobs WHERE id = 1 FOR UPDATE NOWAIT"); sqlstate(err) != "55P03" {
		t.Errorf("NOWAIT on a locked row: %v, want SQLSTATE 55P03", err)
	}
	exec(t, ctx, b, "ROLLBACK")
	done := make(chan string, 1)
	go func() {
		var state string
		if err := b.QueryRow(ctx, "SELECT state FROM jobs WHERE id = 1 FOR UPDATE").Scan(&state); err != nil {
			state = err.Error()
		}
		done <- state
	}()
	select {
	case got := <-done:
		t.Fatalf("FOR UPDATE of a locked row returned %q before the holder ended", got)
	case <-time.After(150 * time.Millisecond):
	}
	exec(t, ctx, a, "UPDATE jobs SET state = 'again' WHERE id = 1")
	exec(t, ctx, a, "COMMIT")
	if got := <-done; got != "again" {
		t.Errorf("the waiting FOR UPDATE read %q, want the committed 'again'", got)
	}
}

// TestLockTimeout: a lock wait longer than lock_timeout fails with 55P03,
// and the holder is unaffected.
func TestLockTimeout(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE lt (id int PRIMARY KEY, n int)")
	exec(t, ctx, a, "INSERT INTO lt VALUES (1, 0)")
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "UPDATE lt SET n = 1 WHERE id = 1")
	exec(t, ctx, b, "SET lock_timeout = '100ms'")
	start := time.Now()
	_, err := b.Exec(ctx, "UPDATE lt SET n = 2 WHERE id = 1")
	if sqlstate(err) != "55P03" || !strings.Contains(err.Error(), "canceling statement due to lock timeout") {
		t.Fatalf("UPDATE past lock_timeout: %v, want 55P03 canceling statement due to lock timeout", err)
	}
	if d := time.Since(start); d < 100*time.Millisecond || d > 5*time.Second {
		t.Errorf("the wait lasted %v, want about lock_timeout", d)
	}
	exec(t, ctx, a, "COMMIT")
	wantRows(t, ctx, b, "SELECT n FROM lt", "1")
}

// TestSnapshots: a transaction block takes its snapshot at its first
// statement, not at BEGIN; in READ COMMITTED each statement sees what was
// committed before it began, its own changes kept; in REPEATABLE READ the
// first snapshot stays.
func TestSnapshots(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE snap (id int PRIMARY KEY, v text)")
	exec(t, ctx, a, "INSERT INTO snap VALUES (1, 'one')")

	for _, iso := range []string{"READ COMMITTED", "REPEATABLE READ"} {
		exec(t, ctx, a, "DELETE FROM snap WHERE id > 1")
		exec(t, ctx, b, "BEGIN ISOLATION LEVEL "+iso)
		exec(t, ctx, a, "INSERT INTO snap VALUES (2, 'before the first statement')")
		wantRows(t, ctx, b, "SELECT count(*) FROM snap", "2")
		exec(t, ctx, b, "INSERT INTO snap VALUES (10, 'mine')")
		exec(t, ctx, a, "INSERT INTO snap VALUES (3, 'after')")
		want := "4"
		if iso == "REPEATABLE READ" {
			want = "3"
		}
		if got := one(t, ctx, b, "SELECT count(*) FROM snap"); got != want {
			t.Errorf("%s: the second statement counts %s rows, want %s", iso, got, want)
		}
		exec(t, ctx, b, "COMMIT")
		wantRows(t, ctx, a, "SELECT id FROM snap ORDER BY id", "1", "2", "3", "10")
	}
}

// TestAdvisoryLocks: a session-level advisory lock blocks another session
// until it is released as many times as it was taken; pg_blocking_pids
// names the holder; a transaction-level one ends with its transaction.
func TestAdvisoryLocks(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	c := connect(t, ctx, srv.DSN("postgres"))
	aPID, bPID := one(t, ctx, a, "SELECT pg_backend_pid()"), one(t, ctx, b, "SELECT pg_backend_pid()")
	exec(t, ctx, a, "SELECT pg_advisory_lock(7)")
	exec(t, ctx, a, "SELECT pg_advisory_lock(7)")
	wantRows(t, ctx, b, "SELECT pg_try_advisory_lock(7)", "f")
	done := execAsync(ctx, b, "SELECT pg_advisory_lock(7)")
	time.Sleep(100 * time.Millisecond)
	wantRows(t, ctx, c, "SELECT pg_blocking_pids("+bPID+")", "{"+aPID+"}")
	wantRows(t, ctx, c, "SELECT pg_isolation_test_session_is_blocked("+bPID+", '{"+aPID+"}')", "t")
	exec(t, ctx, a, "SELECT pg_advisory_unlock(7)")
	stillWaiting(t, done, 100*time.Millisecond, "pg_advisory_lock of a lock taken twice and released once")
	exec(t, ctx, a, "SELECT pg_advisory_unlock(7)")
	if r := <-done; r.err != nil {
		t.Fatal(r.err)
	}
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "SELECT pg_advisory_xact_lock(8)")
	wantRows(t, ctx, c, "SELECT pg_try_advisory_xact_lock(8)", "f")
	exec(t, ctx, a, "COMMIT")
	wantRows(t, ctx, c, "SELECT pg_try_advisory_xact_lock(8)", "t")
}

// TestStatementTimeout: a statement running, or waiting for a row lock,
// past statement_timeout fails with 57014 "canceling statement due to
// statement timeout", in both protocols; the session goes on.
func TestStatementTimeout(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, b, "SET statement_timeout = '100ms'")
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		_, err := b.Exec(ctx, "SELECT pg_sleep(2)", mode)
		if sqlstate(err) != "57014" || !strings.Contains(err.Error(), "statement timeout") {
			t.Errorf("pg_sleep past statement_timeout (%v): %v", mode, err)
		}
	}
	exec(t, ctx, a, "CREATE TABLE stt (id int PRIMARY KEY, n int)")
	exec(t, ctx, a, "INSERT INTO stt VALUES (1, 0)")
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "UPDATE stt SET n = 1 WHERE id = 1")
	if _, err := b.Exec(ctx, "UPDATE stt SET n = 2 WHERE id = 1"); sqlstate(err) != "57014" {
		t.Errorf("a lock wait past statement_timeout: %v, want 57014", err)
	}
	exec(t, ctx, a, "COMMIT")
	wantRows(t, ctx, b, "SELECT n FROM stt", "1")
}

// TestRebasedUpdateBackToSnapshotValue: an UPDATE that waited for a row
// lock and, applied to the newly committed version, gives back the value
// the transaction's snapshot had (-26 then +26) is kept. Its change was
// invisible to the commit-time merge (nothing differs from the snapshot),
// which kept the other version: pgbench's invariants broke about once in
// three 8-client runs.
func TestRebasedUpdateBackToSnapshotValue(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE nz (id int PRIMARY KEY, n int NOT NULL)")
	exec(t, ctx, a, "CREATE INDEX ON nz (n)")
	exec(t, ctx, a, "INSERT INTO nz VALUES (1, 0)")
	for _, blockB := range []bool{false, true} {
		exec(t, ctx, a, "BEGIN")
		exec(t, ctx, a, "UPDATE nz SET n = n - 26 WHERE id = 1")
		done := make(chan error, 1)
		go func() {
			var err error
			if blockB {
				err = pgx.BeginFunc(ctx, b, func(tx pgx.Tx) error {
					_, err := tx.Exec(ctx, "UPDATE nz SET n = n + 26 WHERE id = 1")
					return err
				})
			} else {
				_, err = b.Exec(ctx, "UPDATE nz SET n = n + 26 WHERE id = 1")
			}
			done <- err
		}()
		time.Sleep(100 * time.Millisecond) // b waits for a's lock, its snapshot taken
		exec(t, ctx, a, "COMMIT")
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		wantRows(t, ctx, a, "SELECT n FROM nz", "0")
		wantRows(t, ctx, a, "SELECT id FROM nz WHERE n = 0", "1")
		wantRows(t, ctx, a, "SELECT count(*) FROM nz WHERE n = -26", "0")
	}
}

// TestRebasedUpdateRolledBackToSavepoint: a change made on top of a newer
// committed version, then undone by ROLLBACK TO SAVEPOINT, leaves the
// committed version alone at COMMIT (index included).
func TestRebasedUpdateRolledBackToSavepoint(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE sp (id int PRIMARY KEY, n int NOT NULL)")
	exec(t, ctx, a, "CREATE INDEX ON sp (n)")
	exec(t, ctx, a, "INSERT INTO sp VALUES (1, 0)")
	exec(t, ctx, b, "BEGIN")
	exec(t, ctx, b, "SAVEPOINT s")
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "UPDATE sp SET n = n - 26 WHERE id = 1")
	done := execAsync(ctx, b, "UPDATE sp SET n = n + 1 WHERE id = 1")
	stillWaiting(t, done, 100*time.Millisecond, "an UPDATE of a locked row")
	exec(t, ctx, a, "COMMIT")
	if r := <-done; r.err != nil {
		t.Fatal(r.err)
	}
	exec(t, ctx, b, "ROLLBACK TO s")
	exec(t, ctx, b, "COMMIT")
	wantRows(t, ctx, a, "SELECT n FROM sp", "-26")
	wantRows(t, ctx, a, "SELECT id FROM sp WHERE n = -26", "1")
	wantRows(t, ctx, a, "SELECT count(*) FROM sp WHERE n <> -26", "0")
}

// TestLockModes: row and table locks conflict as PostgreSQL's modes do.
// FOR SHARE is shared between transactions and holds back an UPDATE; FOR
// KEY SHARE (what a foreign-key check takes) does not hold back an UPDATE
// of non-key columns, but does one of the key; LOCK TABLE waits for a
// transaction that read the table, and pg_blocking_pids names every
// holder in the way.
func TestLockModes(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE lm (id int PRIMARY KEY, v int)")
	exec(t, ctx, a, "INSERT INTO lm VALUES (1, 0)")
	pid := func(conn *pgx.Conn) int32 { return int32(conn.PgConn().PID()) }

	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, b, "BEGIN")
	exec(t, ctx, a, "SELECT * FROM lm WHERE id = 1 FOR SHARE")
	exec(t, ctx, b, "SELECT * FROM lm WHERE id = 1 FOR SHARE") // shared: no wait
	done := execAsync(ctx, c, "UPDATE lm SET v = v + 1 WHERE id = 1")
	stillWaiting(t, done, 150*time.Millisecond, "UPDATE of a row two transactions share-lock")
	var blockers []int32
	if err := a.QueryRow(ctx, "SELECT pg_blocking_pids($1::int)", pid(c)).Scan(&blockers); err != nil {
		t.Fatal(err)
	}
	if want := []int32{min(pid(a), pid(b)), max(pid(a), pid(b))}; !slices.Equal(blockers, want) {
		t.Errorf("pg_blocking_pids = %v, want %v", blockers, want)
	}
	exec(t, ctx, a, "COMMIT")
	stillWaiting(t, done, 100*time.Millisecond, "UPDATE while one share lock is left")
	exec(t, ctx, b, "COMMIT")
	if r := <-done; r.err != nil {
		t.Fatal(r.err)
	}

	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "SELECT * FROM lm WHERE id = 1 FOR KEY SHARE")
	exec(t, ctx, b, "SET lock_timeout = '2s'")              // a wait fails the test rather than hangs it
	exec(t, ctx, b, "UPDATE lm SET v = v + 1 WHERE id = 1") // no key changes: no wait
	done = execAsync(ctx, b, "UPDATE lm SET id = 2 WHERE id = 1")
	stillWaiting(t, done, 150*time.Millisecond, "UPDATE of the key of a key-share-locked row")
	exec(t, ctx, a, "COMMIT")
	if r := <-done; r.err != nil || r.tag != "UPDATE 1" {
		t.Fatalf("key update after the lock's end: %s %v", r.tag, r.err)
	}

	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "SELECT count(*) FROM lm")
	exec(t, ctx, b, "BEGIN")
	exec(t, ctx, b, "SET lock_timeout = '100ms'")
	if _, err := b.Exec(ctx, "LOCK TABLE lm IN ACCESS EXCLUSIVE MODE"); sqlstate(err) != "55P03" {
		t.Errorf("LOCK TABLE while another transaction reads the table: %v, want 55P03", err)
	}
	exec(t, ctx, b, "ROLLBACK")
	exec(t, ctx, b, "BEGIN")
	done = execAsync(ctx, b, "LOCK TABLE lm")
	stillWaiting(t, done, 150*time.Millisecond, "LOCK TABLE while another transaction reads the table")
	exec(t, ctx, a, "COMMIT")
	if r := <-done; r.err != nil {
		t.Fatal(r.err)
	}
	done = execAsync(ctx, a, "SELECT count(*) FROM lm")
	stillWaiting(t, done, 150*time.Millisecond, "SELECT of a table locked in ACCESS EXCLUSIVE mode")
	exec(t, ctx, b, "COMMIT")
	if r := <-done; r.err != nil {
		t.Fatal(r.err)
	}
}

// TestSerializableWriteSkew: two SERIALIZABLE transactions that each read
// what the other writes (write skew) cannot both commit: the second
// COMMIT fails with 40001, as in PostgreSQL; in REPEATABLE READ both
// commit. Transactions that touch disjoint tables never fail.
func TestSerializableWriteSkew(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE doctors (name text PRIMARY KEY, on_call bool)")
	exec(t, ctx, a, "CREATE TABLE other (id int PRIMARY KEY)")
	skew := func(level string) (errA, errB error) {
		exec(t, ctx, a, "DELETE FROM doctors")
		exec(t, ctx, a, "INSERT INTO doctors VALUES ('alice', true), ('bob', true)")
		exec(t, ctx, a, "BEGIN ISOLATION LEVEL "+level)
		exec(t, ctx, b, "BEGIN ISOLATION LEVEL "+level)
		wantRows(t, ctx, a, "SELECT count(*) FROM doctors WHERE on_call", "2")
		wantRows(t, ctx, b, "SELECT count(*) FROM doctors WHERE on_call", "2")
		exec(t, ctx, a, "UPDATE doctors SET on_call = false WHERE name = 'alice'")
		if _, err := b.Exec(ctx, "UPDATE doctors SET on_call = false WHERE name = 'bob'"); err != nil {
			exec(t, ctx, b, "ROLLBACK")
			_, errA = a.Exec(ctx, "COMMIT")
			return errA, err
		}
		_, errA = a.Exec(ctx, "COMMIT")
		_, errB = b.Exec(ctx, "COMMIT")
		return errA, errB
	}
	if errA, errB := skew("REPEATABLE READ"); errA != nil || errB != nil {
		t.Fatalf("REPEATABLE READ write skew: %v, %v; want both to commit", errA, errB)
	}
	errA, errB := skew("SERIALIZABLE")
	if errA != nil || sqlstate(errB) != "40001" {
		t.Fatalf("SERIALIZABLE write skew: %v, %v; want the second to fail with 40001", errA, errB)
	}
	wantRows(t, ctx, a, "SELECT count(*) FROM doctors WHERE on_call", "1")

	exec(t, ctx, a, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	exec(t, ctx, b, "BEGIN ISOLATION LEVEL SERIALIZABLE")
	wantRows(t, ctx, a, "SELECT count(*) FROM doctors", "2")
	wantRows(t, ctx, b, "SELECT count(*) FROM other", "0")
	exec(t, ctx, a, "INSERT INTO other VALUES (1)")
	exec(t, ctx, b, "INSERT INTO other VALUES (2)")
	exec(t, ctx, a, "COMMIT")
	exec(t, ctx, b, "COMMIT")
}

// TestConcurrentInsertWaits: the second inserter of a primary key waits
// for the first: 23505 when it commits, success when it rolls back; ON
// CONFLICT DO NOTHING waits too and then does nothing.
func TestConcurrentInsertWaits(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE k (id int PRIMARY KEY, v text)")
	race := func(second, end string) execResult {
		exec(t, ctx, a, "BEGIN")
		exec(t, ctx, a, "INSERT INTO k VALUES (1, 'a')")
		done := execAsync(ctx, b, second)
		stillWaiting(t, done, 150*time.Millisecond, second+" while another transaction inserts the key")
		exec(t, ctx, a, end)
		return <-done
	}
	if r := race("INSERT INTO k VALUES (1, 'b')", "COMMIT"); sqlstate(r.err) != "23505" {
		t.Errorf("second inserter after the first committed: %s %v, want 23505", r.tag, r.err)
	}
	exec(t, ctx, a, "DELETE FROM k")
	if r := race("INSERT INTO k VALUES (1, 'b')", "ROLLBACK"); r.err != nil {
		t.Errorf("second inserter after the first rolled back: %v", r.err)
	}
	exec(t, ctx, a, "DELETE FROM k")
	if r := race("INSERT INTO k VALUES (1, 'b') ON CONFLICT DO NOTHING", "COMMIT"); r.err != nil || r.tag != "INSERT 0 0" {
		t.Errorf("ON CONFLICT DO NOTHING after the first committed: %s %v, want INSERT 0 0", r.tag, r.err)
	}
	wantRows(t, ctx, a, "SELECT id, v FROM k", "1 | a")
	// DO UPDATE waits too, then updates the row the first committed.
	exec(t, ctx, a, "DELETE FROM k")
	if r := race("INSERT INTO k VALUES (1, 'b') ON CONFLICT (id) DO UPDATE SET v = k.v || '+b'", "COMMIT"); r.err != nil || r.tag != "INSERT 0 1" {
		t.Errorf("ON CONFLICT DO UPDATE after the first committed: %s %v, want INSERT 0 1", r.tag, r.err)
	}
	wantRows(t, ctx, a, "SELECT id, v FROM k", "1 | a+b")
	// And of a row both see, it acts on the newest committed version.
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "UPDATE k SET v = v || '+a'")
	done := execAsync(ctx, b, "INSERT INTO k VALUES (1, 'c') ON CONFLICT (id) DO UPDATE SET v = k.v || '+c'")
	stillWaiting(t, done, 150*time.Millisecond, "ON CONFLICT DO UPDATE of a row another transaction updates")
	exec(t, ctx, a, "COMMIT")
	if r := <-done; r.err != nil {
		t.Fatal(r.err)
	}
	wantRows(t, ctx, a, "SELECT id, v FROM k", "1 | a+b+a+c")
}

// TestWaitingUpdateRecomputesGenerated: an UPDATE in READ COMMITTED that
// waited for a concurrent one applies its SET to the version that
// committed, and its stored generated columns (and their index) follow
// that version, not the snapshot's: PostgreSQL's eval-plan-qual spec
// (balance2 numeric GENERATED ALWAYS AS (balance * 2) STORED).
func TestWaitingUpdateRecomputesGenerated(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, `CREATE TABLE accounts (accountid text PRIMARY KEY, balance numeric NOT NULL,
		balance2 numeric GENERATED ALWAYS AS (balance * 2) STORED)`)
	exec(t, ctx, a, "CREATE INDEX ON accounts (balance2)")
	exec(t, ctx, a, "INSERT INTO accounts VALUES ('checking', 600), ('savings', 600)")

	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "UPDATE accounts SET balance = balance - 200 WHERE accountid = 'checking'")
	exec(t, ctx, b, "BEGIN ISOLATION LEVEL READ COMMITTED")
	var got string
	done := make(chan error, 1)
	go func() {
		done <- b.QueryRow(ctx, "UPDATE accounts SET balance = balance + 450 WHERE accountid = 'checking' RETURNING balance || ' ' || balance2").Scan(&got)
	}()
	time.Sleep(150 * time.Millisecond) // b waits for a's row lock
	exec(t, ctx, a, "COMMIT")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got != "850 1700" {
		t.Errorf("RETURNING after the wait: %q, want 850 1700", got)
	}
	exec(t, ctx, b, "COMMIT")
	wantRows(t, ctx, a, "SELECT accountid, balance, balance2 FROM accounts ORDER BY accountid",
		"checking | 850 | 1700", "savings | 600 | 1200")
	wantRows(t, ctx, a, "SELECT accountid FROM accounts WHERE balance2 = 1700", "checking")
	wantRows(t, ctx, a, "SELECT count(*) FROM accounts WHERE balance2 IN (800, 2100)", "0")

	// A WHERE on the generated column is tested again on the newer
	// version's value: passing, the change is made on it; failing, the
	// row is left.
	run := func(sqlA, sqlB, want string) {
		t.Helper()
		exec(t, ctx, a, "BEGIN")
		exec(t, ctx, a, sqlA)
		wait := execAsync(ctx, b, sqlB)
		stillWaiting(t, wait, 150*time.Millisecond, sqlB)
		exec(t, ctx, a, "COMMIT")
		if r := <-wait; r.err != nil || r.tag != want {
			t.Fatalf("%s: %s %v, want %s", sqlB, r.tag, r.err, want)
		}
	}
	run("UPDATE accounts SET balance = 1000 WHERE accountid = 'savings'",
		"UPDATE accounts SET balance = balance + 1 WHERE accountid = 'savings' AND balance2 >= 1200", "UPDATE 1")
	run("UPDATE accounts SET balance = 100 WHERE accountid = 'checking'",
		"UPDATE accounts SET balance = balance + 1 WHERE accountid = 'checking' AND balance2 >= 1200", "UPDATE 0")
	wantRows(t, ctx, a, "SELECT accountid, balance, balance2 FROM accounts ORDER BY accountid",
		"checking | 100 | 200", "savings | 1001 | 2002")
}

// TestWaitingPartitionUpdate: an UPDATE through a partitioned table (or
// a parent of inheritance) locks the rows it changes in their partitions
// as a direct one does: it waits for a concurrent change, tests its WHERE
// on the version that committed and bases its change, generated columns
// included, on it.
func TestWaitingPartitionUpdate(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE parttbl (a int, b int, c int, d int GENERATED ALWAYS AS (a + b) STORED) PARTITION BY LIST (a)")
	exec(t, ctx, a, "CREATE TABLE parttbl1 PARTITION OF parttbl FOR VALUES IN (1)")
	exec(t, ctx, a, "CREATE TABLE parttbl2 PARTITION OF parttbl FOR VALUES IN (2)")
	exec(t, ctx, a, "INSERT INTO parttbl VALUES (1, 1, 1), (2, 2, 2)")

	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "UPDATE parttbl SET b = b + 10")
	done := execAsync(ctx, b, "UPDATE parttbl SET c = -c WHERE b < 10")
	stillWaiting(t, done, 150*time.Millisecond, "an UPDATE of a locked partition row")
	exec(t, ctx, a, "COMMIT")
	if r := <-done; r.err != nil || r.tag != "UPDATE 0" {
		t.Fatalf("the rows no longer match: %s %v, want UPDATE 0", r.tag, r.err)
	}

	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "UPDATE parttbl SET b = b + 1 WHERE a = 1")
	done = execAsync(ctx, b, "UPDATE parttbl SET b = b * 2 WHERE a = 1 AND b > 5")
	stillWaiting(t, done, 150*time.Millisecond, "an UPDATE of a locked partition row")
	exec(t, ctx, a, "COMMIT")
	if r := <-done; r.err != nil || r.tag != "UPDATE 1" {
		t.Fatalf("the row still matches: %s %v, want UPDATE 1", r.tag, r.err)
	}
	wantRows(t, ctx, a, "SELECT * FROM parttbl ORDER BY a", "1 | 24 | 1 | 25", "2 | 12 | 2 | 14")
}

// TestForeignKeyLocks: a foreign-key check takes FOR KEY SHARE on the
// parent row, as PostgreSQL's does. A child inserted while another
// transaction deletes its parent waits, then fails with 23503; a parent
// deleted while another transaction inserts a child waits, then fails
// with 23503; an update of the parent's other columns waits for nobody.
func TestForeignKeyLocks(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE parent (id int PRIMARY KEY, note text)")
	exec(t, ctx, a, "CREATE TABLE child (id int PRIMARY KEY, parent_id int REFERENCES parent)")
	exec(t, ctx, a, "INSERT INTO parent VALUES (1, ''), (2, '')")

	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "DELETE FROM parent WHERE id = 1")
	done := execAsync(ctx, b, "INSERT INTO child VALUES (10, 1)")
	stillWaiting(t, done, 150*time.Millisecond, "a child of a parent being deleted")
	exec(t, ctx, a, "COMMIT")
	if r := <-done; sqlstate(r.err) != "23503" {
		t.Errorf("child of a parent deleted meanwhile: %s %v, want 23503", r.tag, r.err)
	}

	exec(t, ctx, b, "BEGIN")
	exec(t, ctx, b, "INSERT INTO child VALUES (20, 2)")
	exec(t, ctx, a, "SET lock_timeout = '2s'")                   // a wait fails the test rather than hangs it
	exec(t, ctx, a, "UPDATE parent SET note = 'x' WHERE id = 2") // no key change: no wait
	done = execAsync(ctx, a, "DELETE FROM parent WHERE id = 2")
	stillWaiting(t, done, 150*time.Millisecond, "a delete of a parent a running transaction gives a child")
	exec(t, ctx, b, "COMMIT")
	if r := <-done; sqlstate(r.err) != "23503" {
		t.Errorf("delete of a parent given a child meanwhile: %s %v, want 23503", r.tag, r.err)
	}
	wantRows(t, ctx, a, "SELECT id, parent_id FROM child", "20 | 2")
}

// TestTemporaryChildrenOfOthers: a scan of a parent table reads the
// session's own temporary children, never another session's.
func TestTemporaryChildrenOfOthers(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE inh_parent (a int)")
	exec(t, ctx, a, "CREATE TEMPORARY TABLE tc_a () INHERITS (inh_parent)")
	exec(t, ctx, b, "CREATE TEMPORARY TABLE tc_b () INHERITS (inh_parent)")
	exec(t, ctx, a, "INSERT INTO tc_a VALUES (1)")
	exec(t, ctx, b, "INSERT INTO tc_b VALUES (2)")
	wantRows(t, ctx, a, "SELECT a FROM inh_parent", "1")
	wantRows(t, ctx, b, "SELECT a FROM inh_parent", "2")
	exec(t, ctx, a, "TRUNCATE inh_parent")
	wantRows(t, ctx, b, "SELECT a FROM inh_parent", "2")
}

// TestRowMovedToAnotherPartition: an UPDATE that waited for a row another
// transaction moved to another partition (an update of the partition
// key) fails with 40001 rather than taking the row for deleted, as in
// PostgreSQL.
func TestRowMovedToAnotherPartition(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE pm (k int, v text) PARTITION BY LIST (k)")
	exec(t, ctx, a, "CREATE TABLE pm1 PARTITION OF pm FOR VALUES IN (1)")
	exec(t, ctx, a, "CREATE TABLE pm2 PARTITION OF pm FOR VALUES IN (2)")
	exec(t, ctx, a, "INSERT INTO pm VALUES (1, 'x')")
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "UPDATE pm SET k = 2 WHERE k = 1")
	done := execAsync(ctx, b, "UPDATE pm SET v = 'y' WHERE k = 1")
	stillWaiting(t, done, 150*time.Millisecond, "an update of a row being moved")
	exec(t, ctx, a, "COMMIT")
	r := <-done
	var pe *pgconn.PgError
	if !errors.As(r.err, &pe) || pe.Code != "40001" || !strings.Contains(pe.Message, "moved to another partition") {
		t.Fatalf("update of a row moved meanwhile: %s %v, want 40001 (moved to another partition)", r.tag, r.err)
	}
	wantRows(t, ctx, a, "SELECT k, v FROM pm", "2 | x")
}

// TestRollbackToSavepointReleasesLocks: ROLLBACK TO a savepoint gives back
// the row locks taken after it, as PostgreSQL's subtransaction abort
// does, and keeps those taken before.
func TestRollbackToSavepointReleasesLocks(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE sv (id int PRIMARY KEY, v int)")
	exec(t, ctx, a, "INSERT INTO sv VALUES (1, 0), (2, 0)")
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "UPDATE sv SET v = 1 WHERE id = 1")
	exec(t, ctx, a, "SAVEPOINT s")
	exec(t, ctx, a, "UPDATE sv SET v = 1 WHERE id = 2")
	exec(t, ctx, a, "ROLLBACK TO s")
	exec(t, ctx, b, "SET lock_timeout = '2s'")
	exec(t, ctx, b, "UPDATE sv SET v = 2 WHERE id = 2") // released: no wait
	done := execAsync(ctx, b, "UPDATE sv SET v = 2 WHERE id = 1")
	stillWaiting(t, done, 150*time.Millisecond, "an update of a row locked before the savepoint")
	exec(t, ctx, a, "COMMIT")
	if r := <-done; r.err != nil {
		t.Fatal(r.err)
	}
	wantRows(t, ctx, a, "SELECT id, v FROM sv ORDER BY id", "1 | 2", "2 | 2")
}

// TestForUpdateOverJoin: FOR UPDATE OF one table of a join waits for the
// rows of that table another transaction holds, not for the others, and
// then rechecks the whole WHERE on the join row with the newer version in
// place, as PostgreSQL's EvalPlanQual does.
func TestForUpdateOverJoin(t *testing.T) {
	ctx, a, b := twoSessions(t)
	exec(t, ctx, a, "CREATE TABLE acct (id int PRIMARY KEY, bal int)")
	exec(t, ctx, a, "CREATE TABLE owner (id int PRIMARY KEY, acct int, name text)")
	exec(t, ctx, a, "INSERT INTO acct VALUES (1, 100), (2, 100)")
	exec(t, ctx, a, "INSERT INTO owner VALUES (10, 1, 'ann'), (20, 2, 'bob')")

	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "UPDATE acct SET bal = bal + 100 WHERE id = 1")
	// Locking the owners does not wait for the account a holds.
	wantRows(t, ctx, b, "SELECT o.name, x.bal FROM owner o JOIN acct x ON x.id = o.acct ORDER BY o.id FOR UPDATE OF o",
		"ann | 100", "bob | 100")

	type result struct {
		rows []string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		rows, err := b.Query(ctx, "SELECT o.name, x.bal FROM owner o, acct x WHERE x.id = o.acct AND x.bal < 150 ORDER BY o.id FOR UPDATE OF x")
		if err == nil {
			for rows.Next() {
				var name string
				var bal int
				if err := rows.Scan(&name, &bal); err != nil {
					r.err = err
				}
				r.rows = append(r.rows, fmt.Sprintf("%s | %d", name, bal))
			}
			rows.Close()
			err = rows.Err()
		}
		r.err = cmp.Or(r.err, err)
		done <- r
	}()
	select {
	case r := <-done:
		t.Fatalf("FOR UPDATE OF acct did not wait for the row a changed: %v %v", r.rows, r.err)
	case <-time.After(150 * time.Millisecond):
	}
	exec(t, ctx, a, "COMMIT")
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	// ann's account now holds 200: the recheck leaves her out.
	if !slices.Equal(r.rows, []string{"bob | 100"}) {
		t.Errorf("after the wait: %q, want [bob | 100]", r.rows)
	}
}

// TestUpsertConcurrency: ON CONFLICT DO UPDATE under concurrency, as
// PostgreSQL's insert-conflict-do-update specs show it: an upsert waits for
// a concurrent insert of the same value of a unique expression index and
// then updates that row; a row locked and then moved to another partition
// is gone for an upsert, which inserts; an upsert that changes no key
// column does not block FOR KEY SHARE, even through a partitioned table.
func TestUpsertConcurrency(t *testing.T) {
	ctx, a, b := twoSessions(t)
	exec(t, ctx, a, "CREATE TABLE ups (key text NOT NULL, payload text)")
	exec(t, ctx, a, "CREATE UNIQUE INDEX ON ups (lower(key))")
	exec(t, ctx, a, "CREATE TABLE upp (i int PRIMARY KEY, j int, k int) PARTITION BY RANGE (i)")
	exec(t, ctx, a, "CREATE TABLE upp_1 PARTITION OF upp FOR VALUES FROM (1) TO (100)")
	exec(t, ctx, a, "CREATE TABLE upp_2 (k int, j int, i int PRIMARY KEY)") // another column order
	exec(t, ctx, a, "ALTER TABLE upp ATTACH PARTITION upp_2 FOR VALUES FROM (100) TO (200)")
	exec(t, ctx, a, "INSERT INTO upp VALUES (1, 10, 100), (150, 20, 200)")

	upsertKey := "INSERT INTO ups VALUES ('FOOFOO', 'b') ON CONFLICT (lower(key)) DO UPDATE SET key = EXCLUDED.key, payload = ups.payload || ' then ' || EXCLUDED.payload"
	if r := afterCommitOf(t, ctx, a, b, "INSERT INTO ups VALUES ('FooFoo', 'a')", upsertKey); r.err != nil || r.tag != "INSERT 0 1" {
		t.Fatalf("upsert after the insert committed: %s %v", r.tag, r.err)
	}
	wantRows(t, ctx, a, "SELECT * FROM ups", "FOOFOO | a then b")

	exec(t, ctx, a, "BEGIN")
	wantRows(t, ctx, a, "SELECT i FROM upp WHERE i = 1 FOR UPDATE", "1")
	done := execAsync(ctx, b, "INSERT INTO upp VALUES (1, 11, 111) ON CONFLICT (i) DO UPDATE SET k = EXCLUDED.k")
	stillWaiting(t, done, 150*time.Millisecond, "an upsert of a row locked FOR UPDATE through the partitioned table")
	exec(t, ctx, a, "UPDATE upp SET i = i + 150 WHERE i = 1")
	exec(t, ctx, a, "COMMIT")
	if r := <-done; r.err != nil || r.tag != "INSERT 0 1" {
		t.Fatalf("upsert of a row moved to another partition: %s %v", r.tag, r.err)
	}
	wantRows(t, ctx, a, "SELECT i, j, k FROM upp ORDER BY i", "1 | 11 | 111", "150 | 20 | 200", "151 | 10 | 100")

	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "INSERT INTO upp VALUES (150, 0, 0) ON CONFLICT (i) DO UPDATE SET j = 21")
	wantRows(t, ctx, b, "SELECT i, j FROM upp WHERE i = 150 FOR KEY SHARE", "150 | 20")
	exec(t, ctx, a, "COMMIT")
}

// TestDoNothingWaitsForDelete: INSERT ... ON CONFLICT DO NOTHING that finds
// a row a concurrent transaction is deleting waits for it, and inserts when
// it commits, as PostgreSQL's speculative insertion does; afterwards it
// holds no lock on the row (a later DELETE does not wait for it).
func TestDoNothingWaitsForDelete(t *testing.T) {
	ctx, a, b := twoSessions(t)
	exec(t, ctx, a, "CREATE TABLE dn (id int PRIMARY KEY, v text)")
	exec(t, ctx, a, "INSERT INTO dn VALUES (1, 'old'), (2, 'old')")

	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "DELETE FROM dn WHERE id = 1")
	exec(t, ctx, b, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	done := execAsync(ctx, b, "INSERT INTO dn VALUES (1, 'new') ON CONFLICT DO NOTHING")
	stillWaiting(t, done, 150*time.Millisecond, "DO NOTHING on a row being deleted")
	exec(t, ctx, a, "COMMIT")
	if r := <-done; r.err != nil || r.tag != "INSERT 0 1" {
		t.Fatalf("DO NOTHING after the delete committed: %s %v", r.tag, r.err)
	}
	exec(t, ctx, b, "COMMIT")
	wantRows(t, ctx, a, "SELECT * FROM dn ORDER BY id", "1 | new", "2 | old")

	exec(t, ctx, b, "BEGIN")
	exec(t, ctx, b, "INSERT INTO dn VALUES (2, 'x') ON CONFLICT DO NOTHING")
	exec(t, ctx, a, "SET lock_timeout = '2s'")
	exec(t, ctx, a, "DELETE FROM dn WHERE id = 2") // would time out if DO NOTHING held a lock
	exec(t, ctx, b, "COMMIT")
}

// TestTruncateBlocksReaders: TRUNCATE takes ACCESS EXCLUSIVE, so a query
// of the table waits for its transaction, and then, its snapshot taken
// after its locks as in PostgreSQL, sees the table empty.
func TestTruncateBlocksReaders(t *testing.T) {
	ctx, a, b := twoSessions(t)
	exec(t, ctx, a, "CREATE TABLE tr (id int)")
	exec(t, ctx, a, "INSERT INTO tr VALUES (1), (2)")
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "TRUNCATE tr")
	done := queryAsync(ctx, b, "SELECT count(*) FROM tr")
	stillWaiting(t, done, 150*time.Millisecond, "a query of a table being truncated")
	exec(t, ctx, a, "COMMIT")
	if r := <-done; r.err != nil || r.val != "0" {
		t.Fatalf("after the TRUNCATE committed: %s rows, %v; want 0", r.val, r.err)
	}
}

// TestParentDeleteSeesAttachedPartition: a parent row's delete that waited
// for a transaction attaching a partition of the referencing table (whose
// foreign-key check locked the row) sees the rows of the attached
// partition once that transaction commits: 23503, as in PostgreSQL.
func TestParentDeleteSeesAttachedPartition(t *testing.T) {
	ctx, a, b := twoSessions(t)
	for _, sql := range []string{
		"CREATE TABLE ppk (a int PRIMARY KEY) PARTITION BY LIST (a)",
		"CREATE TABLE ppk1 PARTITION OF ppk FOR VALUES IN (1)",
		"INSERT INTO ppk VALUES (1)",
		"CREATE TABLE pfk (a int REFERENCES ppk) PARTITION BY LIST (a)",
		"CREATE TABLE pfk1 (a int NOT NULL)",
		"INSERT INTO pfk1 VALUES (1)",
	} {
		exec(t, ctx, a, sql)
	}
	if r := afterCommitOf(t, ctx, a, b, "ALTER TABLE pfk ATTACH PARTITION pfk1 FOR VALUES IN (1)", "DELETE FROM ppk1 WHERE a = 1"); sqlstate(r.err) != "23503" {
		t.Fatalf("delete after the attach committed: %s %v, want 23503", r.tag, r.err)
	}
}

// TestCascadeMissesNewChildren: in REPEATABLE READ, a delete whose ON
// DELETE CASCADE would miss a referencing row committed since the
// snapshot fails with 40001, as PostgreSQL's crosscheck snapshot makes it;
// in READ COMMITTED the cascade takes the new row too.
func TestCascadeMissesNewChildren(t *testing.T) {
	ctx, a, b := twoSessions(t)
	exec(t, ctx, a, "CREATE TABLE cp (id int PRIMARY KEY)")
	exec(t, ctx, a, "CREATE TABLE cc (id int PRIMARY KEY, p int REFERENCES cp ON DELETE CASCADE)")
	exec(t, ctx, a, "INSERT INTO cp VALUES (1), (2)")

	exec(t, ctx, a, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	wantRows(t, ctx, a, "SELECT count(*) FROM cc", "0")
	exec(t, ctx, b, "INSERT INTO cc VALUES (10, 1)")
	wantError(t, ctx, a, "40001", "DELETE FROM cp WHERE id = 1")
	exec(t, ctx, a, "ROLLBACK")

	exec(t, ctx, a, "BEGIN")
	wantRows(t, ctx, a, "SELECT count(*) FROM cc", "1")
	exec(t, ctx, b, "INSERT INTO cc VALUES (20, 2)")
	exec(t, ctx, a, "DELETE FROM cp WHERE id = 2")
	exec(t, ctx, a, "COMMIT")
	wantRows(t, ctx, a, "SELECT id FROM cc ORDER BY id", "10")
}

// TestKeyShareKeepsReadVersion: FOR KEY SHARE of a row whose other columns
// a concurrent transaction updated and committed while the statement ran
// returns the version the statement read, as PostgreSQL does (the update
// does not conflict with the lock).
func TestKeyShareKeepsReadVersion(t *testing.T) {
	ctx, a, b := twoSessions(t)
	exec(t, ctx, a, "CREATE TABLE ks (key int PRIMARY KEY, value int)")
	exec(t, ctx, a, "INSERT INTO ks VALUES (1, 1)")
	exec(t, ctx, b, "SELECT pg_advisory_lock(0)")
	done := queryAsync(ctx, a, "SELECT value FROM ks WHERE pg_advisory_xact_lock(0) IS NOT NULL AND key = 1 FOR KEY SHARE")
	stillWaiting(t, done, 150*time.Millisecond, "a query waiting for an advisory lock")
	exec(t, ctx, b, "UPDATE ks SET value = 2 WHERE key = 1")
	exec(t, ctx, b, "SELECT pg_advisory_unlock(0)")
	if r := <-done; r.err != nil || r.val != "1" {
		t.Fatalf("FOR KEY SHARE after a non-key update: %s %v, want the version read (1)", r.val, r.err)
	}
}

// TestMovedRowTriggersSeeNewerVersion: an UPDATE that waited for a
// concurrent change of a row and then moves it to another partition fires
// the old partition's DELETE trigger with the row's newest version, as
// PostgreSQL's triggers see the row EvalPlanQual fetched.
func TestMovedRowTriggersSeeNewerVersion(t *testing.T) {
	ctx, a, b := twoSessions(t)
	for _, sql := range []string{
		"CREATE TABLE mt (a int, b text) PARTITION BY LIST (a)",
		"CREATE TABLE mt1 PARTITION OF mt FOR VALUES IN (1)",
		"CREATE TABLE mt2 PARTITION OF mt FOR VALUES IN (2)",
		"CREATE TABLE mtlog (a int, b text)",
		"INSERT INTO mt VALUES (1, 'ABC')",
		`CREATE FUNCTION mt_trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO mtlog SELECT OLD.*; RETURN OLD; END $$`,
		"CREATE TRIGGER mt_ondel BEFORE DELETE ON mt1 FOR EACH ROW EXECUTE PROCEDURE mt_trg()",
	} {
		exec(t, ctx, a, sql)
	}
	if r := afterCommitOf(t, ctx, a, b, "UPDATE mt SET b = b || ' update2' WHERE a = 1", "UPDATE mt SET a = a + 1, b = b || ' update1' WHERE b LIKE '%ABC%'"); r.err != nil || r.tag != "UPDATE 1" {
		t.Fatalf("update after the wait: %s %v", r.tag, r.err)
	}
	wantRows(t, ctx, a, "SELECT * FROM mt", "2 | ABC update2 update1")
	wantRows(t, ctx, a, "SELECT * FROM mtlog", "1 | ABC update2")
}

// TestWaitingUpdateFromRechecks: an UPDATE ... FROM that waited for a
// concurrent change of its target row rechecks its WHERE on the joined
// row with the newest version in place, and acts on that version, as
// PostgreSQL's EvalPlanQual does (it used to fail with 40001).
func TestWaitingUpdateFromRechecks(t *testing.T) {
	ctx, a, b := twoSessions(t)
	exec(t, ctx, a, "CREATE TABLE uf (id int PRIMARY KEY, v int)")
	exec(t, ctx, a, "CREATE TABLE ug (id int PRIMARY KEY, w int)")
	exec(t, ctx, a, "INSERT INTO uf VALUES (1, 1), (2, 1)")
	exec(t, ctx, a, "INSERT INTO ug VALUES (1, 10), (2, 10)")
	run := func(sqlA, sqlB, want string) {
		t.Helper()
		if r := afterCommitOf(t, ctx, a, b, sqlA, sqlB); r.err != nil || r.tag != want {
			t.Fatalf("%s after %s: %s %v, want %s", sqlB, sqlA, r.tag, r.err, want)
		}
	}
	run("UPDATE uf SET v = 5 WHERE id = 1", "UPDATE uf SET v = uf.v + ug.w FROM ug WHERE uf.id = ug.id AND uf.id = 1 AND uf.v < 3", "UPDATE 0")
	run("UPDATE uf SET v = 2 WHERE id = 2", "UPDATE uf SET v = uf.v + ug.w FROM ug WHERE uf.id = ug.id AND uf.id = 2 AND uf.v < 3", "UPDATE 1")
	run("UPDATE uf SET v = 200 WHERE id = 2", "DELETE FROM uf USING ug WHERE uf.id = ug.id AND uf.id = 2 AND uf.v < 100", "DELETE 0")
	wantRows(t, ctx, a, "SELECT * FROM uf ORDER BY id", "1 | 5", "2 | 200")
}
