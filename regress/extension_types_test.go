package regress

import (
	"bytes"
	"encoding/binary"
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

// TestHstoreBinary sends an hstore parameter in hstore_send's binary form,
// pairs out of order and a key twice, and reads the stored value back in
// binary and text: the pairs sorted by key length and bytes, the first of
// the repeated key kept, a NULL value as length -1.
func TestHstoreBinary(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, `CREATE EXTENSION hstore`)
	exec(t, ctx, c, `CREATE TABLE hs_bin (id int PRIMARY KEY, h hstore)`)
	var hstoreOID uint32
	if err := c.QueryRow(ctx, `SELECT 'hstore'::regtype::oid`).Scan(&hstoreOID); err != nil {
		t.Fatal(err)
	}
	pair := func(dst []byte, k string, v *string) []byte {
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(k)))
		dst = append(dst, k...)
		if v == nil {
			return binary.BigEndian.AppendUint32(dst, 0xFFFFFFFF)
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(*v)))
		return append(dst, *v...)
	}
	one, two, three := "1", "2", "3"
	in := binary.BigEndian.AppendUint32(nil, 4)
	in = pair(in, "bb", &one)
	in = pair(in, "a", &two)
	in = pair(in, "bb", &three)
	in = pair(in, "c", nil)
	const bin = 1
	rr := c.PgConn().ExecParams(ctx, `INSERT INTO hs_bin VALUES (1, $1)`, [][]byte{in}, []uint32{hstoreOID}, []int16{bin}, nil)
	if _, err := rr.Close(); err != nil {
		t.Fatal(err)
	}
	want := binary.BigEndian.AppendUint32(nil, 3)
	want = pair(want, "a", &two)
	want = pair(want, "c", nil)
	want = pair(want, "bb", &one)
	res := c.PgConn().ExecParams(ctx, `SELECT h, h::text FROM hs_bin WHERE id = 1`, nil, nil, nil, []int16{bin, 0}).Read()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(res.Rows) != 1 || !bytes.Equal(res.Rows[0][0], want) || string(res.Rows[0][1]) != `"a"=>"2", "c"=>NULL, "bb"=>"1"` {
		t.Errorf("read back %q, %q; want %q", res.Rows[0][0], res.Rows[0][1], want)
	}

	// A NULL key is refused, as hstore_recv refuses it.
	bad := binary.BigEndian.AppendUint32(nil, 1)
	bad = binary.BigEndian.AppendUint32(bad, 0xFFFFFFFF)
	rr = c.PgConn().ExecParams(ctx, `INSERT INTO hs_bin VALUES (2, $1)`, [][]byte{bad}, []uint32{hstoreOID}, []int16{bin}, nil)
	_, err := rr.Close()
	if pe, ok := err.(*pgconn.PgError); !ok || pe.Code != "22004" {
		t.Errorf("NULL key: %v, want 22004", err)
	}
}
