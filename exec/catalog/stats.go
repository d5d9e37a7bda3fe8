package catalog

import (
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/prolly"
)

// The statistics views admin tools read (pgAdmin's dashboard, DBeaver's
// table list, monitoring exporters): the cumulative counters the server
// keeps (exec.CumulativeStats: transactions, scans, rows read and
// written, deadlocks, since the server started), each table's live row
// count (n_live_tup, from the row map's subtree counts, without a scan),
// the sessions of each database, and the locks held and awaited. What
// has no counterpart here (blocks read and hit, dead tuples, vacuums) is
// zero.
func init() {
	const pc = "pg_catalog"
	const tableStats = `relid:oid schemaname:name relname:name seq_scan:bigint seq_tup_read:bigint
		idx_scan:bigint idx_tup_fetch:bigint n_tup_ins:bigint n_tup_upd:bigint n_tup_del:bigint
		n_tup_hot_upd:bigint n_live_tup:bigint n_dead_tup:bigint n_mod_since_analyze:bigint
		n_ins_since_vacuum:bigint last_vacuum:timestamptz last_autovacuum:timestamptz
		last_analyze:timestamptz last_autoanalyze:timestamptz vacuum_count:bigint
		autovacuum_count:bigint analyze_count:bigint autoanalyze_count:bigint`
	// The _all_ views list the user tables too: the system catalogs here
	// are views, which PostgreSQL's _all_ views leave out as well, so the
	// _sys_ ones are empty.
	define(pc, "pg_stat_user_tables", 12161, 'v', tableStats, pgStatTables)
	define(pc, "pg_stat_all_tables", 12142, 'v', tableStats, pgStatTables)
	define(pc, "pg_stat_sys_tables", 12152, 'v', tableStats, none)
	const tableIO = `relid:oid schemaname:name relname:name heap_blks_read:bigint
		heap_blks_hit:bigint idx_blks_read:bigint idx_blks_hit:bigint toast_blks_read:bigint toast_blks_hit:bigint
		tidx_blks_read:bigint tidx_blks_hit:bigint`
	define(pc, "pg_statio_user_tables", 12179, 'v', tableIO, pgStatioTables)
	define(pc, "pg_statio_all_tables", 12170, 'v', tableIO, pgStatioTables)
	define(pc, "pg_statio_sys_tables", 12175, 'v', tableIO, none)
	const indexStats = `relid:oid indexrelid:oid schemaname:name relname:name indexrelname:name
		idx_scan:bigint idx_tup_read:bigint idx_tup_fetch:bigint`
	define(pc, "pg_stat_user_indexes", 12192, 'v', indexStats, pgStatIndexes)
	define(pc, "pg_stat_all_indexes", 12183, 'v', indexStats, pgStatIndexes)
	const indexIO = `relid:oid indexrelid:oid schemaname:name relname:name indexrelname:name
		idx_blks_read:bigint idx_blks_hit:bigint`
	define(pc, "pg_statio_user_indexes", 12205, 'v', indexIO, pgStatioIndexes)
	define(pc, "pg_statio_all_indexes", 12196, 'v', indexIO, pgStatioIndexes)
	define(pc, "pg_stat_database", 12266, 'v', `datid:oid datname:name numbackends:integer xact_commit:bigint
		xact_rollback:bigint blks_read:bigint blks_hit:bigint tup_returned:bigint tup_fetched:bigint
		tup_inserted:bigint tup_updated:bigint tup_deleted:bigint conflicts:bigint temp_files:bigint
		temp_bytes:bigint deadlocks:bigint checksum_failures:bigint checksum_last_failure:timestamptz
		blk_read_time:float8 blk_write_time:float8 session_time:float8
		active_time:float8 idle_in_transaction_time:float8 sessions:bigint
		sessions_abandoned:bigint sessions_fatal:bigint sessions_killed:bigint stats_reset:timestamptz`, pgStatDatabase)
	define(pc, "pg_locks", 12073, 'v', `locktype:text database:oid relation:oid page:integer tuple:smallint
		virtualxid:text transactionid:text classid:oid objid:oid objsubid:smallint virtualtransaction:text
		pid:integer mode:text granted:boolean fastpath:boolean waitstart:timestamptz`, pgLocks)
}

// userTables are the stored tables of the snapshot (not partitioned
// parents, which hold no rows).
func userTables(s *Snapshot) []Relation {
	var out []Relation
	for _, r := range s.Relations() {
		if r.Kind == 'r' && r.Table != nil {
			out = append(out, r)
		}
	}
	return out
}

// repoName is the database a session's database name (db, db@rev or
// db/rev, as the client gave it) names.
func repoName(database string) string {
	name, _, _ := strings.Cut(strings.Replace(database, "/", "@", 1), "@")
	return name
}

// noTableStats are the counters of a table nothing has counted yet.
var noTableStats = &exec.TableStats{}

func pgStatTables(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	zero := dInt(0)
	for _, r := range userTables(s) {
		live := dInt(0)
		if !r.Table.Rows.IsZero() {
			m, err := prolly.Load(s.Src.Ctx, s.Src.Root.Store(), r.Table.Rows)
			if err != nil {
				return nil, err
			}
			live = dInt(int64(m.Count()))
		}
		ts := noTableStats
		if s.Src.Stats != nil {
			if t := s.Src.Stats.Peek(repoName(s.Src.Database)).PeekTable(r.OID); t != nil {
				ts = t
			}
		}
		out = append(out, exec.Row{dOID(r.OID), dText(r.Schema), dText(r.Name),
			dInt(ts.SeqScan.Load()), dInt(ts.SeqTupRead.Load()), dInt(ts.IdxScan.Load()), dInt(ts.IdxTupFetch.Load()),
			dInt(ts.TupIns.Load()), dInt(ts.TupUpd.Load()), dInt(ts.TupDel.Load()),
			zero, live, zero, zero, zero, exec.Null, exec.Null, exec.Null, exec.Null, zero, zero, zero, zero})
	}
	return out, nil
}

func pgStatioTables(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	zero := dInt(0)
	for _, r := range userTables(s) {
		out = append(out, exec.Row{dOID(r.OID), dText(r.Schema), dText(r.Name), zero, zero, zero, zero, zero, zero, zero, zero})
	}
	return out, nil
}

// indexRows is a row per index of a stored table: its table's and its
// own OID and names, then the counters counts gives of its statistics
// (nil when nothing counted it yet).
func indexRows(s *Snapshot, counts func(*exec.IndexStats) []int64) []exec.Row {
	var out []exec.Row
	var db *exec.DatabaseStats
	if s.Src.Stats != nil {
		db = s.Src.Stats.Peek(repoName(s.Src.Database))
	}
	for _, r := range s.Relations() {
		if r.Kind != 'i' || r.Table == nil {
			continue
		}
		table := TableOID(r.Table.Schema, r.Table.Name)
		row := exec.Row{dOID(table), dOID(r.OID), dText(r.Schema), dText(r.Table.Name), dText(r.Name)}
		for _, n := range counts(db.PeekTable(table).PeekIndex(r.Name)) {
			row = append(row, dInt(n))
		}
		out = append(out, row)
	}
	return out
}

func pgStatIndexes(s *Snapshot) ([]exec.Row, error) {
	return indexRows(s, func(x *exec.IndexStats) []int64 {
		if x == nil {
			return []int64{0, 0, 0}
		}
		return []int64{x.IdxScan.Load(), x.IdxTupRead.Load(), x.IdxTupFetch.Load()}
	}), nil
}

func pgStatioIndexes(s *Snapshot) ([]exec.Row, error) {
	return indexRows(s, func(*exec.IndexStats) []int64 { return []int64{0, 0} }), nil
}

func pgStatDatabase(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	zero, zf := dInt(0), exec.DFloat(0)
	for _, db := range s.Src.Databases {
		backends := 0
		for _, b := range s.Src.Backends {
			if repoName(b.Database) == db {
				backends++
			}
		}
		var ds *exec.DatabaseStats
		if s.Src.Stats != nil {
			ds = s.Src.Stats.Peek(db)
		}
		if ds == nil {
			ds = &exec.DatabaseStats{}
		}
		out = append(out, exec.Row{dOID(DatabaseOID(db)), dText(db), dInt(int64(backends)),
			dInt(ds.XactCommit.Load()), dInt(ds.XactRollback.Load()), zero, zero,
			dInt(ds.TupReturned.Load()), dInt(ds.TupFetched.Load()), dInt(ds.TupInserted.Load()),
			dInt(ds.TupUpdated.Load()), dInt(ds.TupDeleted.Load()), zero, zero, zero, dInt(ds.Deadlocks.Load()),
			zero, exec.Null, zf, zf, zf, zf, zf, zero, zero, zero, zero, exec.Null})
	}
	return out, nil
}

// pgLocks lists the locks the server's transactions and sessions hold or
// wait for: table locks as "relation", row locks as "tuple" (with the
// modes PostgreSQL's heap maps row lock strengths to; no page or tuple
// number, since rows here have none), advisory locks as "advisory" with
// their key in classid, objid and objsubid as PostgreSQL spells it.
func pgLocks(s *Snapshot) ([]exec.Row, error) {
	if s.Src.Locks == nil {
		return nil, nil
	}
	var out []exec.Row
	for _, l := range s.Src.Locks() {
		row := exec.Row{dText(l.Type), dOID(DatabaseOID(l.Database)), exec.Null, exec.Null, exec.Null,
			exec.Null, exec.Null, exec.Null, exec.Null, exec.Null, exec.Null,
			exec.Null, dText(l.Mode), exec.DBool(l.Granted), exec.DBool(false), exec.Null}
		if l.Table != "" {
			schema, name, _ := strings.Cut(l.Table, ".")
			row[2] = dOID(TableOID(schema, name))
		}
		if l.Type == "advisory" {
			row[7], row[8], row[9] = dOID(l.ClassID), dOID(l.ObjID), exec.DInt(int64(l.ObjSubID))
		}
		if l.PID != 0 {
			row[11] = dInt(int64(l.PID))
		}
		out = append(out, row)
	}
	return out, nil
}
