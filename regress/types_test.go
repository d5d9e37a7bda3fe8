package regress

import (
	"net/netip"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestUserTypesPgx writes and reads an enum column and a composite value
// through pgx, in the text format, as parameters and as results.
func TestUserTypesPgx(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, `CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`)
	exec(t, ctx, c, `CREATE TYPE complex AS (r float8, i float8)`)
	exec(t, ctx, c, `CREATE TABLE t (id int PRIMARY KEY, m mood, z complex)`)

	text := pgx.QueryExecModeSimpleProtocol
	for i, m := range []string{"happy", "sad", "ok"} {
		if _, err := c.Exec(ctx, `INSERT INTO t VALUES ($1, $2, $3)`, text, i, m, "(1.5,-2)"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Exec(ctx, `INSERT INTO t VALUES ($1, $2::text::mood, NULL)`, 9, "meh"); err == nil {
		t.Fatal("inserting an enum label that does not exist succeeded")
	}

	rows, err := c.Query(ctx, `SELECT m::text, z::text, (z).i FROM t ORDER BY t.m`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var m, z string
		var i float64
		if err := rows.Scan(&m, &z, &i); err != nil {
			t.Fatal(err)
		}
		if z != "(1.5,-2)" || i != -2 {
			t.Errorf("composite read back as %q, (z).i = %v", z, i)
		}
		got = append(got, m)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != "sad" || got[1] != "ok" || got[2] != "happy" {
		t.Errorf("enum order = %v, want [sad ok happy]", got)
	}

	// An enum result in the text format, its type unknown to pgx.
	var m string
	if err := c.QueryRow(ctx, `SELECT m FROM t WHERE id = 0`, text).Scan(&m); err != nil || m != "happy" {
		t.Errorf("SELECT m = %q, %v", m, err)
	}
}

// TestInetPgx writes and reads inet and cidr through pgx in the binary
// format (netip.Prefix and netip.Addr), as parameters and results, and
// looks a row up by a cidr parameter through the primary key.
func TestInetPgx(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, `CREATE TABLE nets (n cidr PRIMARY KEY, gw inet)`)
	for _, row := range []struct {
		n  netip.Prefix
		gw any
	}{
		{netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("10.1.0.1/32")},
		{netip.MustParsePrefix("192.168.0.0/24"), netip.MustParsePrefix("192.168.0.254/24")},
		{netip.MustParsePrefix("fe80::/64"), netip.MustParseAddr("fe80::1")},
	} {
		if _, err := c.Exec(ctx, `INSERT INTO nets VALUES ($1, $2)`, row.n, row.gw); err != nil {
			t.Fatalf("insert %v: %v", row, err)
		}
	}
	var gw netip.Prefix
	var text string
	if err := c.QueryRow(ctx, `SELECT gw, gw::text FROM nets WHERE n = $1`, netip.MustParsePrefix("192.168.0.0/24")).Scan(&gw, &text); err != nil {
		t.Fatal(err)
	}
	if gw.String() != "192.168.0.254/24" || text != "192.168.0.254/24" {
		t.Errorf("gw = %v, %q", gw, text)
	}
	var n netip.Prefix
	if err := c.QueryRow(ctx, `SELECT n FROM nets WHERE n >> $1::inet`, netip.MustParseAddr("10.1.2.3")).Scan(&n); err != nil || n.String() != "10.1.0.0/16" {
		t.Errorf("network containing 10.1.2.3 = %v, %v", n, err)
	}
}
