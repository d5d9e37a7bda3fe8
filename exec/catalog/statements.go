package catalog

import (
	"math"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// pg_stat_statements: the statistics of the statements the server ran,
// one row per statement shape, user and database (Source.Statements),
// readable in a database that installed the extension (elsewhere, as in
// PostgreSQL, the view does not exist: 42P01). Planning is not timed
// apart from execution, and there are no block, WAL or JIT figures: those
// columns are zero.
func init() {
	const pc = "pg_catalog"
	define(pc, "pg_stat_statements", 16400, 'v', `userid:oid dbid:oid toplevel:boolean queryid:bigint query:text
		plans:bigint total_plan_time:float8 min_plan_time:float8 max_plan_time:float8 mean_plan_time:float8
		stddev_plan_time:float8 calls:bigint total_exec_time:float8 min_exec_time:float8 max_exec_time:float8
		mean_exec_time:float8 stddev_exec_time:float8 rows:bigint shared_blks_hit:bigint shared_blks_read:bigint
		shared_blks_dirtied:bigint shared_blks_written:bigint local_blks_hit:bigint local_blks_read:bigint
		local_blks_dirtied:bigint local_blks_written:bigint temp_blks_read:bigint temp_blks_written:bigint
		blk_read_time:float8 blk_write_time:float8 temp_blk_read_time:float8 temp_blk_write_time:float8
		wal_records:bigint wal_fpi:bigint wal_bytes:numeric jit_functions:bigint jit_generation_time:float8
		jit_inlining_count:bigint jit_inlining_time:float8 jit_optimization_count:bigint
		jit_optimization_time:float8 jit_emission_count:bigint jit_emission_time:float8`, pgStatStatements)
	define(pc, "pg_stat_statements_info", 16410, 'v', `dealloc:bigint stats_reset:timestamptz`, pgStatStatementsInfo)
}

// requireStatements refuses the views in a database without the
// extension, as PostgreSQL has no such relation there.
func requireStatements(s *Snapshot, view string) error {
	exts, err := installedExtensions(s)
	if err != nil {
		return err
	}
	for _, e := range exts {
		if e.Name == "pg_stat_statements" {
			return nil
		}
	}
	return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", view)
}

func pgStatStatements(s *Snapshot) ([]exec.Row, error) {
	if s.Src.Statements == nil {
		return nil, nil // no server's statistics (a catalog read offline)
	}
	if err := requireStatements(s, "pg_stat_statements"); err != nil {
		return nil, err
	}
	stats, _ := s.Src.Statements()
	zero, zf := dInt(0), exec.DFloat(0)
	numZero := exec.DNumeric(apd.New(0, 0))
	var out []exec.Row
	for _, st := range stats {
		if st.Calls == 0 {
			continue
		}
		row := exec.Row{dOID(RoleOID(st.User)), dOID(DatabaseOID(st.Database)), exec.DBool(true), dInt(st.QueryID),
			dText(st.Query), zero, zf, zf, zf, zf, zf, dInt(st.Calls), ms3(st.Total), ms3(st.Min), ms3(st.Max),
			ms3(st.Mean), ms3(st.StdDev), dInt(st.Rows)}
		for range 10 {
			row = append(row, zero) // shared, local and temp blocks
		}
		row = append(row, zf, zf, zf, zf, zero, zero, numZero, zero, zf, zero, zf, zero, zf, zero, zf)
		out = append(out, row)
	}
	return out, nil
}

func pgStatStatementsInfo(s *Snapshot) ([]exec.Row, error) {
	if s.Src.Statements == nil {
		return nil, nil
	}
	if err := requireStatements(s, "pg_stat_statements_info"); err != nil {
		return nil, err
	}
	_, reset := s.Src.Statements()
	return []exec.Row{{dInt(0), exec.DTimestamp(int64(types.TimestampTZFromTime(reset)))}}, nil
}

// ms3 is a time in milliseconds, to the microsecond as PostgreSQL's
// instrumentation measures it.
func ms3(v float64) exec.Datum { return exec.DFloat(math.Round(v*1000) / 1000) }
