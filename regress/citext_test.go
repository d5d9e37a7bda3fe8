package regress

import (
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestCITextBinary reads and writes citext in the binary format, which is
// text's (the string's bytes), as a parameter and as a result, through the
// extended protocol: a binary parameter finds a row by the primary key
// whatever its case, and the value comes back as it was written.
func TestCITextBinary(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, `CREATE EXTENSION citext`)
	exec(t, ctx, c, `CREATE TABLE ci_bin (email citext PRIMARY KEY, n int)`)
	exec(t, ctx, c, `INSERT INTO ci_bin VALUES ('Alice@Example.com', 1)`)

	var citextOID uint32
	if err := c.QueryRow(ctx, `SELECT 'citext'::regtype::oid`).Scan(&citextOID); err != nil {
		t.Fatal(err)
	}
	const binary = 1
	rr := c.PgConn().ExecParams(ctx, `SELECT email, n FROM ci_bin WHERE email = $1`,
		[][]byte{[]byte("ALICE@EXAMPLE.COM")}, []uint32{citextOID}, []int16{binary}, []int16{binary, binary})
	res := rr.Read()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(res.Rows) != 1 || string(res.Rows[0][0]) != "Alice@Example.com" {
		t.Fatalf("rows = %q, want the one row, its email as written", res.Rows)
	}
	if f := res.FieldDescriptions[0]; f.DataTypeOID != citextOID || f.Format != binary {
		t.Errorf("email column described as type %d format %d, want %d, binary", f.DataTypeOID, f.Format, citextOID)
	}

	// A binary parameter of a second case is a duplicate of the key.
	rr = c.PgConn().ExecParams(ctx, `INSERT INTO ci_bin VALUES ($1, 2)`,
		[][]byte{[]byte("alice@example.COM")}, []uint32{citextOID}, []int16{binary}, nil)
	_, err := rr.Close()
	if pe, ok := err.(*pgconn.PgError); !ok || pe.Code != "23505" {
		t.Errorf("inserting the same email in another case: %v, want a unique violation (23505)", err)
	}
}
