package regress

import (
	"flag"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prollypg/prollypg/regress/internal/protodiff"
	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// Flags of the protocol differential tester; `make protodiff` sets them
// for a long run. By default the test runs a short, fixed set of
// sequences, the same on every run.
var (
	protodiffN       = flag.Int("protodiff.n", 1500, "protodiff: number of sequences (0: until -protodiff.time)")
	protodiffSeed    = flag.Uint64("protodiff.seed", 1, "protodiff: seed of the first sequence (0: from the clock, printed)")
	protodiffTime    = flag.Duration("protodiff.time", 0, "protodiff: stop after this long (0: no limit)")
	protodiffWorkers = flag.Int("protodiff.workers", 2, "protodiff: sequences run in parallel")
	protodiffSteps   = flag.Int("protodiff.steps", 12, "protodiff: most steps in a sequence")
	protodiffKnown   = flag.String("protodiff.known", "", "protodiff: comma-separated known engine differences to generate anyway, or all")
	protodiffShrinks = flag.Int("protodiff.shrinks", 20, "protodiff: distinct differences to shrink (-1: none)")
	protodiffPG      = flag.String("protodiff.pg", "", "protodiff: HOST:PORT of a running PostgreSQL 15 to use instead of starting one")
	protodiffOurs    = flag.String("protodiff.ours", "", "protodiff: HOST:PORT of a running pgserver to use instead of starting one")
)

// TestProtodiff drives the same random sequences of frontend messages
// against PostgreSQL 15 and our server and compares every response (see
// regress/internal/protodiff). It skips when PostgreSQL 15 is not
// installed.
func TestProtodiff(t *testing.T) {
	ref, ours := *protodiffPG, *protodiffOurs
	if ref == "" {
		ref = testserver.StartPostgres(t).Addr()
	}
	if ours == "" {
		ours = testserver.Start(t).Addr()
	}
	seed := *protodiffSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	include := map[string]bool{}
	for _, name := range strings.Split(*protodiffKnown, ",") {
		switch name {
		case "":
		case "all":
			for _, k := range protodiff.KnownDiffs {
				include[k.Name] = true
			}
		default:
			if !slices.ContainsFunc(protodiff.KnownDiffs, func(k protodiff.KnownDiff) bool { return k.Name == name }) {
				t.Fatalf("-protodiff.known: no known difference is named %q", name)
			}
			include[name] = true
		}
	}
	t.Logf("protodiff: seed %d, %d sequences, %d workers", seed, *protodiffN, *protodiffWorkers)
	totals, err := protodiff.Run(protodiff.Config{
		Ref:        ref,
		Ours:       ours,
		Seed:       seed,
		N:          *protodiffN,
		Duration:   *protodiffTime,
		Workers:    *protodiffWorkers,
		Gen:        protodiff.GenOptions{MaxSteps: *protodiffSteps, Include: include},
		MaxShrinks: *protodiffShrinks,
		Log:        logWriter{t},
	})
	if err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	totals.Report(&report)
	t.Log("\n" + report.String())
	if totals.Failed() {
		t.Errorf("protodiff: the servers differ (see above)")
	}
}

// logWriter writes to the test log, so that a long run with -v shows its
// progress as it goes.
type logWriter struct{ t *testing.T }

// Write logs p.
func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
