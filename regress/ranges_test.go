package regress

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestRangesBinary round-trips ranges and multiranges through pgx in the
// binary format (range_send and range_recv, multirange_send and
// multirange_recv), as parameters and as results.
func TestRangesBinary(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, `CREATE TABLE rng (id int PRIMARY KEY, i4 int4range, i8 int8range, n numrange, d daterange, ts tsrange, m int4multirange)`)

	i4 := pgtype.Range[pgtype.Int4]{Lower: pgtype.Int4{Int32: 1, Valid: true}, Upper: pgtype.Int4{Int32: 5, Valid: true},
		LowerType: pgtype.Exclusive, UpperType: pgtype.Inclusive, Valid: true} // (1,5] is [2,6)
	i8 := pgtype.Range[pgtype.Int8]{LowerType: pgtype.Unbounded, Upper: pgtype.Int8{Int64: 1 << 40, Valid: true}, UpperType: pgtype.Exclusive, Valid: true}
	d := pgtype.Range[pgtype.Date]{Lower: pgtype.Date{Time: time.Date(2020, 2, 1, 0, 0, 0, 0, time.UTC), Valid: true},
		Upper: pgtype.Date{Time: time.Date(2020, 3, 1, 0, 0, 0, 0, time.UTC), Valid: true}, LowerType: pgtype.Inclusive, UpperType: pgtype.Exclusive, Valid: true}
	ts := pgtype.Range[pgtype.Timestamp]{Lower: pgtype.Timestamp{Time: time.Date(2020, 1, 1, 10, 0, 0, 0, time.UTC), Valid: true},
		LowerType: pgtype.Inclusive, UpperType: pgtype.Unbounded, Valid: true}
	empty := pgtype.Range[pgtype.Int4]{LowerType: pgtype.Empty, UpperType: pgtype.Empty, Valid: true}
	m := pgtype.Multirange[pgtype.Range[pgtype.Int4]]{
		{Lower: pgtype.Int4{Int32: 5, Valid: true}, Upper: pgtype.Int4{Int32: 7, Valid: true}, LowerType: pgtype.Inclusive, UpperType: pgtype.Exclusive, Valid: true},
		{Lower: pgtype.Int4{Int32: 1, Valid: true}, Upper: pgtype.Int4{Int32: 5, Valid: true}, LowerType: pgtype.Inclusive, UpperType: pgtype.Exclusive, Valid: true},
	}
	if _, err := c.Exec(ctx, "INSERT INTO rng VALUES (1, $1, $2, '[1.5,2.5)', $3, $4, $5), (2, $6, NULL, 'empty', NULL, NULL, '{}')",
		i4, i8, d, ts, m, empty); err != nil {
		t.Fatalf("insert: %v", err)
	}
	var text string
	if err := c.QueryRow(ctx, "SELECT concat_ws(' ', i4, i8, n, d, ts, m) FROM rng WHERE id = 1").Scan(&text); err != nil {
		t.Fatal(err)
	}
	if want := `[2,6) (,1099511627776) [1.5,2.5) [2020-02-01,2020-03-01) ["2020-01-01 10:00:00",) {[1,7)}`; text != want {
		t.Errorf("stored %s, want %s", text, want)
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeExec} {
		var g4 pgtype.Range[pgtype.Int4]
		var g8 pgtype.Range[pgtype.Int8]
		var gn pgtype.Range[pgtype.Numeric]
		var gd pgtype.Range[pgtype.Date]
		var gm pgtype.Multirange[pgtype.Range[pgtype.Int4]]
		if err := c.QueryRow(ctx, "SELECT i4, i8, n, d, m FROM rng WHERE id = 1", mode).Scan(&g4, &g8, &gn, &gd, &gm); err != nil {
			t.Fatalf("mode %v: %v", mode, err)
		}
		if g4.Lower.Int32 != 2 || g4.Upper.Int32 != 6 || g4.LowerType != pgtype.Inclusive || g4.UpperType != pgtype.Exclusive {
			t.Errorf("mode %v: int4range %+v", mode, g4)
		}
		if g8.LowerType != pgtype.Unbounded || g8.Upper.Int64 != 1<<40 {
			t.Errorf("mode %v: int8range %+v", mode, g8)
		}
		if f, _ := gn.Lower.Float64Value(); f.Float64 != 1.5 || gn.UpperType != pgtype.Exclusive {
			t.Errorf("mode %v: numrange %+v", mode, gn)
		}
		if !gd.Lower.Time.Equal(d.Lower.Time) || !gd.Upper.Time.Equal(d.Upper.Time) {
			t.Errorf("mode %v: daterange %+v", mode, gd)
		}
		if len(gm) != 1 || gm[0].Lower.Int32 != 1 || gm[0].Upper.Int32 != 7 {
			t.Errorf("mode %v: int4multirange %+v", mode, gm)
		}
		var ge pgtype.Range[pgtype.Int4]
		if err := c.QueryRow(ctx, "SELECT i4 FROM rng WHERE id = 2", mode).Scan(&ge); err != nil {
			t.Fatalf("mode %v: %v", mode, err)
		}
		if ge.LowerType != pgtype.Empty {
			t.Errorf("mode %v: empty range read as %+v", mode, ge)
		}
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM rng WHERE i4 @> $1::int4", mode, 3).Scan(&n); err != nil || n != 1 {
			t.Errorf("mode %v: @> with a parameter: %d, %v", mode, n, err)
		}
	}
}
