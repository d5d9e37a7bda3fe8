package regress

import (
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
	"github.com/prollypg/prollypg/store/remotestore/s3test"
)

// TestDoltRemoteS3 runs the remote scenarios through an s3:// remote on a
// real SeaweedFS: TestDoltRemoteRoundTrip's push, clone, pull and
// restart, with dolt_hashof_db equal on both servers; and two servers
// pushing at once, to one branch (one wins, the other is told to pull,
// and after it does nothing is lost) and to a branch each (both land:
// the manifest's compare-and-set retries the loser of the swap).
func TestDoltRemoteS3(t *testing.T) {
	weed := s3test.Start(t)
	env := weed.Env()
	t.Run("RoundTrip", func(t *testing.T) {
		testDoltRemoteRoundTrip(t, weed.URL("roundtrip", "team/db"), env)
	})
	// A backup with a branch and uncommitted changes, synced to S3 and
	// restored on another server.
	t.Run("Backup", func(t *testing.T) {
		ctx := testserver.Context(t)
		url := weed.URL("backups", "nightly/postgres")
		srvA, srvB := testserver.StartOpts(t, testserver.Options{Env: env}), testserver.StartOpts(t, testserver.Options{Env: env})
		a := connect(t, ctx, srvA.DSN("postgres"))
		exec(t, ctx, a, "CREATE TABLE small (id int PRIMARY KEY, v text)")
		exec(t, ctx, a, "INSERT INTO small SELECT g, 'row ' || g FROM generate_series(1, 1000) g")
		exec(t, ctx, a, "SELECT dolt_commit('-Am', 'load')")
		exec(t, ctx, a, "SELECT dolt_branch('feature')")
		exec(t, ctx, a, "INSERT INTO small VALUES (0, 'uncommitted')")
		exec(t, ctx, a, "SELECT dolt_backup('add', 'bak', $1)", url)
		exec(t, ctx, a, "SELECT dolt_backup('sync', 'bak')")
		exec(t, ctx, a, "UPDATE small SET v = 'changed' WHERE id = 500")
		exec(t, ctx, a, "SELECT dolt_backup('sync', 'bak')")
		b := connect(t, ctx, srvB.DSN("postgres"))
		exec(t, ctx, b, "SELECT dolt_backup('restore', $1, 'restored')", url)
		r := connect(t, ctx, srvB.DSN("restored"))
		if x, y := dbState(t, ctx, a), dbState(t, ctx, r); x != y {
			t.Errorf("the restored database differs from the original:\n%s\nrestored:\n%s", x, y)
		}
		wantErrorText(t, ctx, b, "XX000", "restore failed", "SELECT dolt_backup('restore', '"+weed.URL("nosuchbucket", "x")+"', 'other')")
	})
	t.Run("ConcurrentPushes", func(t *testing.T) {
		ctx := testserver.Context(t)
		url := weed.URL("concurrent", "db")
		srvA, srvB := testserver.StartOpts(t, testserver.Options{Env: env}), testserver.StartOpts(t, testserver.Options{Env: env})
		a := connect(t, ctx, srvA.DSN("postgres"))
		exec(t, ctx, a, "CREATE TABLE items (id int PRIMARY KEY, who text NOT NULL)")
		exec(t, ctx, a, "INSERT INTO items VALUES (1, 'base')")
		exec(t, ctx, a, "SELECT dolt_commit('-Am', 'base')")
		exec(t, ctx, a, "SELECT dolt_remote('add', 'origin', $1)", url)
		exec(t, ctx, a, "SELECT dolt_push('origin', 'main')")
		b0 := connect(t, ctx, srvB.DSN("postgres"))
		exec(t, ctx, b0, "SELECT dolt_clone($1, 'cloned')", url)
		b := connect(t, ctx, srvB.DSN("cloned"))
		conns := map[string]*pgx.Conn{"a": a, "b": b}
		for i, name := range []string{"a", "b"} {
			c := conns[name]
			exec(t, ctx, c, "INSERT INTO items VALUES ($1, $2)", 10+i, name)
			exec(t, ctx, c, "SELECT dolt_commit('-am', $1)", "diverge "+name)
			exec(t, ctx, c, "SELECT dolt_branch($1)", "side-"+name)
		}
		// push runs each side's push at once and returns the errors.
		push := func(args func(name string) string) map[string]error {
			var wg sync.WaitGroup
			var mu sync.Mutex
			errs := map[string]error{}
			start := make(chan struct{})
			for name, c := range conns {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					_, err := c.Exec(ctx, "SELECT dolt_push("+args(name)+")")
					mu.Lock()
					errs[name] = err
					mu.Unlock()
				}()
			}
			close(start)
			wg.Wait()
			return errs
		}
		errs := push(func(string) string { return "'origin', 'main'" })
		var winner, loser string
		for name, err := range errs {
			switch {
			case err == nil && winner == "":
				winner = name
			case err != nil && loser == "" && strings.Contains(err.Error(), "[rejected]") &&
				strings.Contains(err.Error(), "(non-fast-forward)") && strings.Contains(err.Error(), "'dolt pull ...'"):
				loser = name
			default:
				t.Fatalf("concurrent pushes to main: %v; want one to win and the other told to pull", errs)
			}
		}
		if winner == "" || loser == "" {
			t.Fatalf("concurrent pushes to main: %v; want one to win and the other told to pull", errs)
		}
		t.Logf("%s won, %s was told to pull", winner, loser)
		// The loser does as told; then the winner catches up.
		l, w := conns[loser], conns[winner]
		if got := status(t, ctx, l, "SELECT dolt_pull('origin')"); strings.Join(got, ",") != "0,0,merge successful" {
			t.Errorf("the loser's pull: %q", got)
		}
		exec(t, ctx, l, "SELECT dolt_push('origin', 'main')")
		exec(t, ctx, w, "SELECT dolt_pull('origin')")
		for _, c := range []*pgx.Conn{a, b} {
			wantRows(t, ctx, c, "SELECT id, who FROM items ORDER BY id", "1 | base", "10 | a", "11 | b")
		}
		if ha, hb := one(t, ctx, a, "SELECT dolt_hashof_db()"), one(t, ctx, b, "SELECT dolt_hashof_db()"); ha != hb {
			t.Errorf("after the race and the pulls: dolt_hashof_db() %s on the first server, %s on the second", ha, hb)
		}

		// A branch each, at once: both land.
		errs = push(func(name string) string { return "'origin', 'side-" + name + "'" })
		for name, err := range errs {
			if err != nil {
				t.Errorf("the push of side-%s: %v", name, err)
			}
		}
		for _, c := range []*pgx.Conn{a, b} {
			exec(t, ctx, c, "SELECT dolt_fetch('origin')")
		}
		wantRows(t, ctx, b, "SELECT name FROM dolt_remote_branches ORDER BY name",
			"remotes/origin/main", "remotes/origin/side-a", "remotes/origin/side-b")
		for _, name := range []string{"a", "b"} {
			x := one(t, ctx, conns[name], "SELECT dolt_hashof($1)", "side-"+name)
			y := one(t, ctx, a, "SELECT dolt_hashof($1)", "origin/side-"+name)
			if x != y {
				t.Errorf("side-%s is %s on its server, %s on the remote", name, x, y)
			}
		}
	})
}
