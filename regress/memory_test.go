package regress

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestBigStatementMemory checks that a statement's memory does not grow
// with the number of rows it writes: the server's anonymous memory (its
// heap, not the mapped files of the store) grows no more during an
// INSERT of 600,000 rows than during one of 100,000, past a margin for
// the garbage collector. Before the writers spilled to the store, each
// row held some 600 bytes until the statement ended (360 MB here).
func TestBigStatementMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 700,000 rows")
	}
	// A small chunk cache, so that the cache filling up with the chunks
	// written does not count as the statement's memory.
	srv := testserver.StartOpts(t, testserver.Options{Args: []string{"--cache-mb", "8"}})
	ctx := testserver.Context(t)
	c, err := pgx.Connect(ctx, srv.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, sql := range []string{
		"SET maintenance_work_mem = '1MB'",
		"CREATE TABLE small (a int PRIMARY KEY, b text)",
		"CREATE TABLE big (a int PRIMARY KEY, b text)",
	} {
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	grow := func(table string, rows int) int64 {
		base, err := rssAnon(srv.PID())
		if err != nil {
			t.Fatal(err)
		}
		peak := base
		var mu sync.Mutex
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				case <-time.After(20 * time.Millisecond):
				}
				if r, err := rssAnon(srv.PID()); err == nil {
					mu.Lock()
					peak = max(peak, r)
					mu.Unlock()
				}
			}
		}()
		sql := fmt.Sprintf("INSERT INTO %s SELECT g, repeat('x', 100) FROM generate_series(1, %d) g", table, rows)
		_, err = c.Exec(ctx, sql)
		close(done)
		wg.Wait()
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if got := one(t, ctx, c, "SELECT count(*) FROM "+table); got != strconv.Itoa(rows) {
			t.Fatalf("%s holds %s rows, want %d", table, got, rows)
		}
		return peak - base
	}
	small := grow("small", 100_000)
	big := grow("big", 600_000)
	t.Logf("anonymous memory grew %d MiB for 100,000 rows, %d MiB for 600,000", small>>20, big>>20)
	// Six times the rows in memory would grow it about six times; a
	// bounded statement grows it by what the garbage collector has not
	// yet returned, which under a loaded machine (the full suite running
	// beside it) reached twice the small run's (92 and 166 MiB).
	if big > 2*small+64<<20 {
		t.Errorf("anonymous memory grew %d MiB for 600,000 rows, %d MiB for 100,000: it follows the rows", big>>20, small>>20)
	}
}

// rssAnon returns the anonymous resident memory of process pid, in bytes.
func rssAnon(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "RssAnon:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no RssAnon in /proc/%d/status", pid)
}
