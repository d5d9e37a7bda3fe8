package regress

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestImplicitBlock checks the implicit transaction block PostgreSQL 15
// runs a simple query of several statements in: VACUUM cannot run there
// (nor in an explicit block), and SET TRANSACTION applies without the
// warning it gives outside any block.
func TestImplicitBlock(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	var notices []string
	cfg, err := pgconn.ParseConfig(srv.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Message) }
	c, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	code := func(err error) string {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return pe.Code
		}
		return ""
	}
	if _, err := c.Exec(ctx, "SELECT 1; VACUUM").ReadAll(); code(err) != "25001" {
		t.Errorf("SELECT 1; VACUUM: %v, want 25001", err)
	}
	if _, err := c.Exec(ctx, "VACUUM").ReadAll(); err != nil {
		t.Errorf("VACUUM alone: %v", err)
	}
	if _, err := c.Exec(ctx, "BEGIN; VACUUM").ReadAll(); code(err) != "25001" {
		t.Errorf("BEGIN; VACUUM: %v, want 25001", err)
	}
	if _, err := c.Exec(ctx, "ROLLBACK").ReadAll(); err != nil {
		t.Fatal(err)
	}
	notices = nil
	if _, err := c.Exec(ctx, "SET TRANSACTION READ ONLY; COMMIT AND CHAIN").ReadAll(); code(err) != "25P01" {
		t.Errorf("SET TRANSACTION READ ONLY; COMMIT AND CHAIN: %v, want 25P01", err)
	}
	if len(notices) != 0 {
		t.Errorf("notices in an implicit block: %q, want none", notices)
	}
	if _, err := c.Exec(ctx, "SET TRANSACTION READ ONLY").ReadAll(); err != nil || len(notices) != 1 {
		t.Errorf("SET TRANSACTION alone: %v, notices %q; want its warning", err, notices)
	}
}
