package regress

import (
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestArraysBinary round-trips arrays of the common element types through
// pgx in the binary format (array_send and array_recv), as parameters and
// as results, and checks = ANY ($1) with a Go slice.
func TestArraysBinary(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, `CREATE TABLE arr (id int PRIMARY KEY, i4 int4[], i8 int8[], tx text[], f8 float8[], b bool[],
		n numeric[], u uuid[], ts timestamptz[], grid int4[][])`)

	one, three := int32(1), int32(3)
	ts1 := time.Date(2024, 2, 29, 12, 30, 0, 123456000, time.UTC)
	ts2 := time.Date(1999, 12, 31, 23, 59, 59, 0, time.UTC)
	u1 := [16]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8}
	type row struct {
		i4   []*int32
		i8   []int64
		tx   []string
		f8   []float64
		b    []bool
		u    []pgtype.UUID
		ts   []time.Time
		grid [][]int32
	}
	want := row{
		i4:   []*int32{&one, nil, &three},
		i8:   []int64{-9223372036854775808, 0, 9223372036854775807},
		tx:   []string{"a", "", "NULL", `quo"te`, "comma,space ", "ünï"},
		f8:   []float64{1.5, -0.25, 1e300},
		b:    []bool{true, false},
		u:    []pgtype.UUID{{Bytes: u1, Valid: true}},
		ts:   []time.Time{ts1, ts2},
		grid: [][]int32{{1, 2}, {3, 4}},
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeExec} {
		exec(t, ctx, c, "DELETE FROM arr")
		var grid any = want.grid
		if mode == pgx.QueryExecModeExec {
			grid = "{{1,2},{3,4}}" // pgx has no text encoding of [][]int32 for an untyped parameter
		}
		_, err := c.Exec(ctx, "INSERT INTO arr VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8, $9)", mode,
			want.i4, want.i8, want.tx, want.f8, want.b, []float64{1.25, -3}, want.u, want.ts, grid)
		if err != nil {
			t.Fatalf("mode %v: insert: %v", mode, err)
		}
		var got row
		var n []pgtype.Numeric
		err = c.QueryRow(ctx, "SELECT i4, i8, tx, f8, b, n, u, ts, grid FROM arr WHERE id = 1", mode).
			Scan(&got.i4, &got.i8, &got.tx, &got.f8, &got.b, &n, &got.u, &got.ts, &got.grid)
		if err != nil {
			t.Fatalf("mode %v: select: %v", mode, err)
		}
		for i := range got.ts {
			got.ts[i] = got.ts[i].UTC()
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("mode %v: round trip:\ngot  %+v\nwant %+v", mode, got, want)
		}
		if len(n) != 2 {
			t.Fatalf("mode %v: numeric[]: %v", mode, n)
		}
		if f, _ := n[0].Float64Value(); f.Float64 != 1.25 {
			t.Errorf("mode %v: numeric[] element %v", mode, n[0])
		}
	}

	exec(t, ctx, c, "INSERT INTO arr (id) SELECT g FROM generate_series(2, 10) g")
	var ids []int32
	rows, err := c.Query(ctx, "SELECT id FROM arr WHERE id = ANY ($1) ORDER BY id", []int64{3, 5, 11, 1})
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int32
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if rows.Err() != nil || !reflect.DeepEqual(ids, []int32{1, 3, 5}) {
		t.Fatalf("= ANY ($1): %v, %v", ids, rows.Err())
	}
	var card int32
	var texts []string
	if err := c.QueryRow(ctx, "SELECT cardinality($1::int[]), $2::text[] || 'z'::text", []int32{4, 5, 6}, []string{"x", "y"}).Scan(&card, &texts); err != nil ||
		card != 3 || !reflect.DeepEqual(texts, []string{"x", "y", "z"}) {
		t.Fatalf("$1::int[]: %d %v %v", card, texts, err)
	}
	var none bool
	if err := c.QueryRow(ctx, "SELECT 'b' <> ALL ($1)", []string{"a", "c"}).Scan(&none); err != nil || !none {
		t.Fatalf("<> ALL ($1): %v %v", none, err)
	}
}
