package regress

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestErrorDoesNotLeakIntoNextBatch is the data loss that node-postgres
// and the ORMs on it met: a simple query fails, and the next statement,
// sent with bind parameters (extended protocol), was acknowledged and then
// rolled back at its Sync, because the failure of the first batch was
// still recorded. Inside a transaction block the same leak failed the
// block without an error message. Both protocols, both orders.
func TestErrorDoesNotLeakIntoNextBatch(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE lossy (id int PRIMARY KEY)")

	simple := pgx.QueryExecModeSimpleProtocol
	extended := pgx.QueryExecModeExec
	modes := []struct {
		name        string
		fail, write pgx.QueryExecMode
		id          int
	}{
		{"simple error, extended insert", simple, extended, 1},
		{"extended error, simple insert", extended, simple, 2},
		{"extended error, extended insert", extended, extended, 3},
		{"simple error, simple insert", simple, simple, 4},
	}
	for _, m := range modes {
		wantError(t, ctx, c, "42P01", "SELECT * FROM no_such_table", m.fail)
		var got int
		if err := c.QueryRow(ctx, "INSERT INTO lossy VALUES ($1) RETURNING id", m.write, m.id).Scan(&got); err != nil || got != m.id {
			t.Fatalf("%s: insert: %v (got %d)", m.name, err, got)
		}
		if n := one(t, ctx, c, "SELECT count(*) FROM lossy WHERE id = $1", m.id); n != "1" {
			t.Errorf("%s: the acknowledged insert is gone (count %s)", m.name, n)
		}

		// In a transaction block: the error ends one block; the next
		// block must be healthy and its insert must commit.
		exec(t, ctx, c, "BEGIN")
		wantError(t, ctx, c, "42P01", "SELECT * FROM no_such_table", m.fail)
		exec(t, ctx, c, "ROLLBACK")
		tx, err := c.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO lossy VALUES ($1)", m.write, m.id+10); err != nil {
			t.Fatalf("%s: insert in block: %v", m.name, err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatalf("%s: commit: %v", m.name, err)
		}
		if n := one(t, ctx, c, "SELECT count(*) FROM lossy WHERE id = $1", m.id+10); n != "1" {
			t.Errorf("%s: the committed insert is gone (count %s)", m.name, n)
		}
	}
	// A second connection sees every acknowledged row.
	c2 := connect(t, ctx, srv.DSN("postgres"))
	wantRows(t, ctx, c2, "SELECT id FROM lossy ORDER BY id", "1", "2", "3", "4", "11", "12", "13", "14")
}
