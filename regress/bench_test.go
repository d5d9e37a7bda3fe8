package regress

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// The server benchmarks drive the real binary over loopback with pgx, as
// an application would: one connection, prepared statements, autocommit.

func benchConn(b *testing.B, rows int) (*pgx.Conn, context.Context) {
	ctx := testserver.Context(b)
	srv := testserver.Start(b)
	c, err := pgx.Connect(ctx, srv.DSN("postgres"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(context.Background()) })
	if _, err := c.Exec(ctx, "CREATE TABLE kv (k int PRIMARY KEY, v text NOT NULL)"); err != nil {
		b.Fatal(err)
	}
	data := make([][]any, rows)
	for i := range data {
		data[i] = []any{int32(i), fmt.Sprintf("value %d", i)}
	}
	if _, err := c.CopyFrom(ctx, pgx.Identifier{"kv"}, []string{"k", "v"}, pgx.CopyFromRows(data)); err != nil {
		b.Fatal(err)
	}
	return c, ctx
}

// BenchmarkPointSelect reads one row by primary key.
func BenchmarkPointSelect(b *testing.B) {
	c, ctx := benchConn(b, 10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var v string
		if err := c.QueryRow(ctx, "SELECT v FROM kv WHERE k = $1", int32(i%10000)).Scan(&v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdate changes one row by primary key, each in its own durable
// transaction.
func BenchmarkUpdate(b *testing.B) {
	c, ctx := benchConn(b, 10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Exec(ctx, "UPDATE kv SET v = $2 WHERE k = $1", int32(i%10000), "updated"); err != nil {
			b.Fatal(err)
		}
	}
}
