package session

// plannerVars are PostgreSQL's planner settings. The planner here makes
// its own choices, but clients and test suites set these (SET
// enable_hashjoin = off), so they are accepted and shown with
// PostgreSQL's defaults.
var plannerVars = map[string]string{
	"enable_async_append":             "on",
	"enable_bitmapscan":               "on",
	"enable_gathermerge":              "on",
	"enable_hashagg":                  "on",
	"enable_hashjoin":                 "on",
	"enable_incremental_sort":         "on",
	"enable_indexonlyscan":            "on",
	"enable_indexscan":                "on",
	"enable_material":                 "on",
	"enable_memoize":                  "on",
	"enable_mergejoin":                "on",
	"enable_nestloop":                 "on",
	"enable_parallel_append":          "on",
	"enable_parallel_hash":            "on",
	"enable_partition_pruning":        "on",
	"enable_partitionwise_aggregate":  "off",
	"enable_partitionwise_join":       "off",
	"enable_seqscan":                  "on",
	"enable_sort":                     "on",
	"enable_tidscan":                  "on",
	"geqo":                            "on",
	"geqo_threshold":                  "12",
	"from_collapse_limit":             "8",
	"join_collapse_limit":             "8",
	"work_mem":                        "4MB",
	"hash_mem_multiplier":             "2",
	"max_parallel_workers_per_gather": "2",
	"parallel_setup_cost":             "1000",
	"parallel_tuple_cost":             "0.1",
	"min_parallel_table_scan_size":    "8MB",
	"min_parallel_index_scan_size":    "512kB",
	"parallel_leader_participation":   "on",
	"force_parallel_mode":             "off",
	"seq_page_cost":                   "1",
	"random_page_cost":                "4",
	"cpu_tuple_cost":                  "0.01",
	"cpu_index_tuple_cost":            "0.005",
	"cpu_operator_cost":               "0.0025",
	"effective_cache_size":            "4GB",
	"constraint_exclusion":            "partition",
	"cursor_tuple_fraction":           "0.1",
	"default_statistics_target":       "100",
	"plan_cache_mode":                 "auto",
	"jit":                             "on",
}

func init() {
	for k, v := range plannerVars {
		if _, ok := defaultVars[k]; !ok {
			defaultVars[k] = v
		}
	}
}
