package regress

import (
	"testing"
	"time"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// MERGE over the wire, where the logic tests (testdata/merge.test) do not
// reach: command tags, the extended protocol's parameters, waits for rows
// other transactions hold, and version control.

// TestMergeTagAndParameters: MERGE's command tag counts the rows
// inserted, updated and deleted; its parameters are typed from their
// context, as PostgreSQL infers them, when the statement is prepared.
func TestMergeTagAndParameters(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE kv (k int PRIMARY KEY, v text, n bigint)")
	exec(t, ctx, c, "INSERT INTO kv VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)")
	const upsert = `MERGE INTO kv USING (VALUES ($1::int, $2::text)) s(k, v) ON kv.k = s.k
		WHEN MATCHED AND s.v IS NULL THEN DELETE
		WHEN MATCHED THEN UPDATE SET v = s.v, n = kv.n + $3
		WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.v, $3)`
	for _, c2 := range []struct {
		k   int
		v   any
		n   int64
		tag string
	}{{1, "x", 10, "MERGE 1"}, {4, "d", 4, "MERGE 1"}, {2, nil, 0, "MERGE 1"}} {
		tag, err := c.Exec(ctx, upsert, c2.k, c2.v, c2.n)
		if err != nil || tag.String() != c2.tag {
			t.Fatalf("MERGE of %d: %q %v, want %s", c2.k, tag, err, c2.tag)
		}
	}
	tag, err := c.Exec(ctx, `MERGE INTO kv USING generate_series(1, 10) g(i) ON kv.k = g.i
		WHEN MATCHED AND kv.k = 3 THEN DO NOTHING
		WHEN MATCHED THEN UPDATE SET n = kv.n * 2
		WHEN NOT MATCHED AND g.i > 8 THEN INSERT (k) VALUES (g.i)`)
	if err != nil || tag.String() != "MERGE 4" {
		t.Fatalf("MERGE over generate_series: %q %v, want MERGE 4", tag, err)
	}
	wantRows(t, ctx, c, "SELECT k, v, n FROM kv ORDER BY k",
		"1 | x | 22", "3 | c | 3", "4 | d | 8", "9 | NULL | NULL", "10 | NULL | NULL")
	// An untyped parameter takes the type of the column it is assigned to.
	if tag, err := c.Exec(ctx, "MERGE INTO kv USING (SELECT 1 AS k) s ON kv.k = s.k WHEN MATCHED THEN UPDATE SET n = $1", 42); err != nil || tag.String() != "MERGE 1" {
		t.Fatalf("MERGE with an untyped parameter: %q %v", tag, err)
	}
	wantRows(t, ctx, c, "SELECT n FROM kv WHERE k = 1", "42")
	wantError(t, ctx, c, "21000", "MERGE INTO kv USING (VALUES (1), (1)) s(k) ON kv.k = s.k WHEN MATCHED THEN UPDATE SET n = 0")
}

// TestMergeWaits: a MERGE that matched a row another open transaction
// changed waits for it, then acts on the committed version as
// PostgreSQL's READ COMMITTED does: the join condition and the WHEN
// MATCHED clauses are evaluated again on it (from the first clause), and
// a row that no longer matches, or was deleted, goes to the WHEN NOT
// MATCHED clauses.
func TestMergeWaits(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE acct (id int PRIMARY KEY, status text, balance int)")
	const merge = `MERGE INTO acct t USING (VALUES (1), (2), (3)) s(id) ON t.id = s.id AND t.status <> 'closed'
		WHEN MATCHED AND t.status = 'new' THEN UPDATE SET status = 'open', balance = t.balance + 1
		WHEN MATCHED AND t.status = 'open' THEN UPDATE SET balance = t.balance + 100
		WHEN MATCHED THEN DELETE
		WHEN NOT MATCHED THEN INSERT VALUES (s.id + 10, 'copy', 0)`
	cases := []struct {
		name, change string
		tag          string
		want         []string
	}{
		{"changed, next clause", "UPDATE acct SET status = 'open', balance = 5 WHERE id = 1", "MERGE 3",
			[]string{"1 | open | 105", "2 | open | 21", "3 | open | 31"}},
		{"changed, no longer matched", "UPDATE acct SET status = 'closed' WHERE id = 1", "MERGE 3",
			[]string{"1 | closed | 10", "2 | open | 21", "3 | open | 31", "11 | copy | 0"}},
		{"deleted", "DELETE FROM acct WHERE id = 1", "MERGE 3",
			[]string{"2 | open | 21", "3 | open | 31", "11 | copy | 0"}},
		{"changed, still the same clause", "UPDATE acct SET balance = 50 WHERE id = 1", "MERGE 3",
			[]string{"1 | open | 51", "2 | open | 21", "3 | open | 31"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			exec(t, ctx, a, "TRUNCATE acct")
			exec(t, ctx, a, "INSERT INTO acct VALUES (1, 'new', 10), (2, 'new', 20), (3, 'new', 30)")
			exec(t, ctx, a, "BEGIN")
			exec(t, ctx, a, c.change)
			done := execAsync(ctx, b, merge)
			stillWaiting(t, done, 150*time.Millisecond, "MERGE after "+c.change)
			exec(t, ctx, a, "COMMIT")
			r := <-done
			if r.err != nil || r.tag != c.tag {
				t.Fatalf("MERGE: %s %v, want %s", r.tag, r.err, c.tag)
			}
			wantRows(t, ctx, a, "SELECT id, status, balance FROM acct ORDER BY id", c.want...)
		})
	}
	// A row deleted meanwhile may be inserted again under its key: the
	// commit takes the new row over the deletion.
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "DELETE FROM acct WHERE id = 2")
	done := execAsync(ctx, b, `MERGE INTO acct t USING (VALUES (2)) s(id) ON t.id = s.id
		WHEN MATCHED THEN UPDATE SET balance = 0
		WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'again', 2)`)
	stillWaiting(t, done, 150*time.Millisecond, "MERGE of a row being deleted")
	exec(t, ctx, a, "COMMIT")
	if r := <-done; r.err != nil || r.tag != "MERGE 1" {
		t.Fatalf("MERGE of a deleted row: %s %v, want MERGE 1", r.tag, r.err)
	}
	wantRows(t, ctx, a, "SELECT id, status, balance FROM acct WHERE id = 2", "2 | again | 2")
	// In REPEATABLE READ a row changed since the snapshot is 40001.
	exec(t, ctx, a, "TRUNCATE acct")
	exec(t, ctx, a, "INSERT INTO acct VALUES (1, 'new', 10)")
	exec(t, ctx, b, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	exec(t, ctx, b, "SELECT * FROM acct")
	exec(t, ctx, a, "UPDATE acct SET balance = 0 WHERE id = 1")
	wantError(t, ctx, b, "40001", merge)
	exec(t, ctx, b, "ROLLBACK")
}

// TestMergeDiff: what a MERGE changes is a change of the working set like
// any other, row by row in dolt_diff.
func TestMergeDiff(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE item (id int PRIMARY KEY, name text)")
	exec(t, ctx, c, "INSERT INTO item VALUES (1, 'one'), (2, 'two')")
	exec(t, ctx, c, "SELECT dolt_commit('-Am', 'items')")
	exec(t, ctx, c, `MERGE INTO item USING (VALUES (1, 'uno'), (2, NULL), (3, 'tres')) s(id, name) ON item.id = s.id
		WHEN MATCHED AND s.name IS NULL THEN DELETE
		WHEN MATCHED THEN UPDATE SET name = s.name
		WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.name)`)
	wantRows(t, ctx, c, "SELECT from_id, from_name, to_id, to_name, diff_type FROM dolt_diff('HEAD', 'WORKING', 'item') ORDER BY coalesce(to_id, from_id)",
		"1 | one | 1 | uno | modified", "2 | two | NULL | NULL | removed", "NULL | NULL | 3 | tres | added")
	exec(t, ctx, c, "SELECT dolt_commit('-am', 'merged')")
	wantRows(t, ctx, c, "SELECT id, name FROM item AS OF 'HEAD~1' ORDER BY id", "1 | one", "2 | two")
	wantRows(t, ctx, c, "SELECT id, name FROM item ORDER BY id", "1 | uno", "3 | tres")
}

// TestMergeConcurrentInserts: two MERGEs that insert the same key — the
// second waits for the first's transaction, then fails with 23505 if it
// committed, or inserts if it rolled back, as on PostgreSQL's unique
// index (rather than failing at COMMIT).
func TestMergeConcurrentInserts(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE reg (k int PRIMARY KEY, who text)")
	merge := func(who string) string {
		return `MERGE INTO reg USING (SELECT 1 AS k) s ON reg.k = s.k
			WHEN MATCHED THEN UPDATE SET who = reg.who || '+` + who + `'
			WHEN NOT MATCHED THEN INSERT VALUES (s.k, '` + who + `')`
	}
	for _, end := range []string{"ROLLBACK", "COMMIT"} {
		exec(t, ctx, a, "BEGIN")
		exec(t, ctx, a, merge("a"))
		done := execAsync(ctx, b, merge("b"))
		stillWaiting(t, done, 150*time.Millisecond, "a MERGE inserting a key another inserted")
		exec(t, ctx, a, end)
		r := <-done
		switch {
		case end == "ROLLBACK" && (r.err != nil || r.tag != "MERGE 1"):
			t.Fatalf("after the other rolled back: %s %v, want MERGE 1", r.tag, r.err)
		case end == "COMMIT" && sqlstate(r.err) != "23505":
			t.Fatalf("after the other committed: %s %v, want 23505", r.tag, r.err)
		}
		if end == "ROLLBACK" {
			wantRows(t, ctx, a, "SELECT k, who FROM reg", "1 | b")
			exec(t, ctx, a, "DELETE FROM reg")
		}
	}
	wantRows(t, ctx, a, "SELECT k, who FROM reg", "1 | a")
}
