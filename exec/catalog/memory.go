package catalog

import "github.com/prollypg/prollypg/exec"

// The views of the server's memory, which PostgreSQL lets superusers and
// pg_read_all_stats read: pg_backend_memory_contexts (the memory of this
// process, here the Go heap as one context) and pg_shmem_allocations
// (shared memory, which this server does not use: no rows). The memory is
// the Source's to read, so that the catalog stays a function of what it is
// given.
func init() {
	const pc = "pg_catalog"
	define(pc, "pg_backend_memory_contexts", 12254, 'v', `name:text ident:text parent:text level:integer
		total_bytes:bigint total_nblocks:bigint free_bytes:bigint free_chunks:bigint used_bytes:bigint`, pgBackendMemoryContexts)
	define(pc, "pg_shmem_allocations", 12250, 'v', "name:text off:bigint size:bigint allocated_size:bigint", none)
}

// MemoryContext is one row of pg_backend_memory_contexts.
type MemoryContext struct {
	Name                     string
	TotalBytes, Blocks, Used int64
}

func pgBackendMemoryContexts(s *Snapshot) ([]exec.Row, error) {
	if s.Src.Memory == nil {
		return nil, nil
	}
	m := s.Src.Memory()
	return []exec.Row{{
		dText(m.Name), exec.Null, exec.Null, dInt(0),
		dInt(m.TotalBytes), dInt(m.Blocks), dInt(m.TotalBytes - m.Used), dInt(0), dInt(m.Used),
	}}, nil
}
