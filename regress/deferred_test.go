package regress

import (
	"fmt"
	"math/rand"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestDeferredChangesReachEveryReader: a transaction's small statements
// keep their changes deferred on the tables' maps (exec/txndefer.go) until
// something needs them written. Each reader below must see them: DDL of
// the same transaction (an index built, a column added, a table
// truncated), savepoints and failed statements that undo them, another
// session's commits taken over at a READ COMMITTED statement, and the
// commit itself. Before DDL wrote them first, an INSERT followed by
// CREATE INDEX in one transaction lost the row.
func TestDeferredChangesReachEveryReader(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))

	// One implicit transaction: rows, then DDL reading and rewriting them.
	exec(t, ctx, a, `CREATE TABLE p (a int, b text); INSERT INTO p VALUES (7, 'x'), (8, 'y');
		CREATE UNIQUE INDEX p_a ON p (a); ALTER TABLE p ADD COLUMN c int DEFAULT 5;
		UPDATE p SET b = 'z' WHERE a = 8; CREATE TABLE q (a int REFERENCES p (a))`, pgx.QueryExecModeSimpleProtocol)
	wantRows(t, ctx, a, "SELECT a, b, c FROM p ORDER BY a", "7 | x | 5", "8 | z | 5")
	exec(t, ctx, a, "INSERT INTO q VALUES (7)") // the foreign key finds 7 through the index
	wantError(t, ctx, a, "23505", "INSERT INTO p VALUES (8, 'dup')")

	exec(t, ctx, a, "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL)")
	exec(t, ctx, a, "INSERT INTO t VALUES (1, 0), (2, 0), (3, 0)")

	// Savepoints and statements of a block: what they undo is undone.
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "UPDATE t SET v = 10 WHERE id = 1")
	exec(t, ctx, a, "SAVEPOINT s")
	exec(t, ctx, a, "UPDATE t SET v = 20 WHERE id = 2")
	wantRows(t, ctx, a, "SELECT id, v FROM t ORDER BY id", "1 | 10", "2 | 20", "3 | 0")
	exec(t, ctx, a, "ROLLBACK TO s")
	wantRows(t, ctx, a, "SELECT id, v FROM t ORDER BY id", "1 | 10", "2 | 0", "3 | 0")
	exec(t, ctx, a, "RELEASE s") // a block with savepoints keeps its snapshot
	// Another session commits a change of another row; the next
	// statement of the READ COMMITTED block sees it beside its own.
	exec(t, ctx, b, "UPDATE t SET v = 30 WHERE id = 3")
	wantRows(t, ctx, a, "SELECT id, v FROM t ORDER BY id", "1 | 10", "2 | 0", "3 | 30")
	exec(t, ctx, a, "INSERT INTO t VALUES (4, 40)")
	exec(t, ctx, b, "INSERT INTO t VALUES (5, 50)")
	exec(t, ctx, a, "COMMIT")
	wantRows(t, ctx, b, "SELECT id, v FROM t ORDER BY id", "1 | 10", "2 | 0", "3 | 30", "4 | 40", "5 | 50")

	// A failed statement undoes the block; an implicit transaction that
	// fails keeps nothing.
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "UPDATE t SET v = v + 1 WHERE id = 1")
	wantError(t, ctx, a, "23505", "INSERT INTO t VALUES (2, 0)")
	exec(t, ctx, a, "ROLLBACK")
	wantError(t, ctx, a, "22012", "UPDATE t SET v = 99 WHERE id = 2; SELECT 1/0", pgx.QueryExecModeSimpleProtocol)
	wantRows(t, ctx, b, "SELECT id, v FROM t WHERE id <= 2 ORDER BY id", "1 | 10", "2 | 0")

	// DDL after row changes in a block, and the commit of both.
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "UPDATE t SET v = 11 WHERE id = 1")
	exec(t, ctx, a, "CREATE INDEX t_v ON t (v)")
	exec(t, ctx, a, "INSERT INTO t VALUES (6, 60)")
	exec(t, ctx, a, "TRUNCATE q")
	exec(t, ctx, a, "COMMIT")
	wantRows(t, ctx, b, "SELECT id FROM t WHERE v = 11", "1")
	wantRows(t, ctx, b, "SELECT count(*) FROM t", "6")

	// Statements writing the same table one after another build on each
	// other's deferred changes, index entries included, and a trigger
	// writing the table during a statement is carried over as well.
	exec(t, ctx, a, `CREATE TABLE tt (id int PRIMARY KEY, v int)`)
	exec(t, ctx, a, `CREATE INDEX tt_v ON tt (v)`)
	exec(t, ctx, a, `CREATE FUNCTION tt_echo() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN IF NEW.id >= 100 AND NEW.id < 200 THEN INSERT INTO tt VALUES (NEW.id + 100, NEW.v); END IF; RETURN NEW; END $$`)
	exec(t, ctx, a, `CREATE TRIGGER tt_echo AFTER INSERT ON tt FOR EACH ROW EXECUTE FUNCTION tt_echo()`)
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "INSERT INTO tt VALUES (1, 10)")
	exec(t, ctx, a, "UPDATE tt SET v = v + 1 WHERE id = 1")
	exec(t, ctx, a, "UPDATE tt SET v = v + 1 WHERE id = 1")
	exec(t, ctx, a, "INSERT INTO tt VALUES (100, 7)")
	exec(t, ctx, a, "DELETE FROM tt WHERE id = 200")
	exec(t, ctx, a, "INSERT INTO tt VALUES (150, 12)")
	wantRows(t, ctx, a, "SELECT id FROM tt WHERE v = 12 ORDER BY id", "1", "150", "250")
	exec(t, ctx, a, "COMMIT")
	wantRows(t, ctx, b, "SELECT id, v FROM tt ORDER BY id", "1 | 12", "100 | 7", "150 | 12", "250 | 12")
	wantRows(t, ctx, b, "SELECT id FROM tt WHERE v = 7", "100")

	// A deletion is deferred too, and carried onto the next snapshot.
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "DELETE FROM t WHERE id = 5")
	exec(t, ctx, b, "UPDATE t SET v = 66 WHERE id = 6")
	wantRows(t, ctx, a, "SELECT id, v FROM t WHERE id >= 5 ORDER BY id", "6 | 66")
	exec(t, ctx, a, "COMMIT")
	wantRows(t, ctx, b, "SELECT id, v FROM t WHERE id >= 4 ORDER BY id", "4 | 40", "6 | 66")

	// A concurrent insert of a key the block inserted waits for it and
	// fails once it commits.
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, a, "INSERT INTO t VALUES (7, 70)")
	done := execAsync(ctx, b, "INSERT INTO t VALUES (7, 71)")
	exec(t, ctx, a, "COMMIT")
	if r := <-done; sqlstate(r.err) != "23505" {
		t.Errorf("concurrent insert of a committed key: %v, want 23505", r.err)
	}
	wantRows(t, ctx, b, "SELECT v FROM t WHERE id = 7", "70")
}

// TestTransfersFromManyClients runs pgbench's tpcb-like transaction from
// 12 clients over the simple protocol: each changes a random account, one
// of three hot tellers and logs the change in a keyless history, so that
// commits batch, most replay their deferred changes together
// (versioning's replayGroup), and the hot rows are changed on top of
// versions committed after the snapshot. No transaction may fail and no
// change may be lost or applied twice: the three sums agree.
func TestTransfersFromManyClients(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	setup := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, setup, `CREATE TABLE acct (id int PRIMARY KEY, bal int NOT NULL, filler text)`)
	exec(t, ctx, setup, `CREATE TABLE teller (id int PRIMARY KEY, bal int NOT NULL)`)
	exec(t, ctx, setup, `CREATE TABLE hist (acct int, teller int, delta int)`)
	exec(t, ctx, setup, `INSERT INTO acct SELECT g, 0, 'x' FROM generate_series(1, 5000) g`)
	exec(t, ctx, setup, `INSERT INTO teller VALUES (1, 0), (2, 0), (3, 0)`)
	const clients, perClient = 12, 30
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := 0; c < clients; c++ {
		conn := connectSimple(t, ctx, srv.DSN("postgres"))
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed))
			for i := 0; i < perClient; i++ {
				a, tl, d := 1+rng.Intn(5000), 1+rng.Intn(3), rng.Intn(2001)-1000
				err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
					for _, sql := range []string{
						fmt.Sprintf(`UPDATE acct SET bal = bal + %d WHERE id = %d`, d, a),
						fmt.Sprintf(`SELECT bal FROM acct WHERE id = %d`, a),
						fmt.Sprintf(`UPDATE teller SET bal = bal + %d WHERE id = %d`, d, tl),
						fmt.Sprintf(`INSERT INTO hist VALUES (%d, %d, %d)`, a, tl, d),
					} {
						if _, err := tx.Exec(ctx, sql); err != nil {
							return fmt.Errorf("%s: %w", sql, err)
						}
					}
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}(int64(c))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	wantRows(t, ctx, setup, `SELECT count(*) FROM hist`, fmt.Sprint(clients*perClient))
	sum := one(t, ctx, setup, `SELECT coalesce(sum(delta), 0) FROM hist`)
	wantRows(t, ctx, setup, `SELECT sum(bal) FROM acct`, sum)
	wantRows(t, ctx, setup, `SELECT sum(bal) FROM teller`, sum)
}
