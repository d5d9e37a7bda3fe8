package session

import (
	"context"
	"strconv"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/planner/ddl"
)

// SearchPath returns the schemas of search_path, "$user" resolved, in
// order, whether they exist or not.
func (s *Session) SearchPath() []string {
	var out []string
	for _, part := range exec.SplitSearchPath(s.vars["search_path"]) {
		if part == "$user" {
			part = s.user
		}
		out = append(out, part)
	}
	return out
}

// TempSchemaName returns the session's temporary schema, choosing its
// number on first use.
func (s *Session) TempSchemaName() string {
	if s.tempSchema == "" {
		s.tempSchema = planner.TempSchemaPrefix + strconv.FormatInt(s.e.tempSeq.Add(1), 10)
	}
	return s.tempSchema
}

// RelationPath is the search path for relations: the session's temporary
// schema (once it has one) first, then the search path.
func (s *Session) RelationPath() []string {
	path := s.SearchPath()
	if s.tempSchema == "" {
		return path
	}
	for _, p := range path {
		if p == s.tempSchema {
			return path // placed explicitly
		}
	}
	return append([]string{s.tempSchema}, path...)
}

// ResolveSchemaName maps pg_temp to the session's temporary schema.
func (s *Session) ResolveSchemaName(schema string) string {
	if schema == "pg_temp" {
		return s.TempSchemaName()
	}
	return schema
}

// dropTempSchema drops the session's temporary relations when it ends, in
// a transaction of its own. It is best effort: what it cannot drop, the
// next session given the same number empties.
func (s *Session) dropTempSchema(ctx context.Context) {
	if s.tempSchema == "" || !s.tempReady || s.repo == nil {
		return
	}
	for range 3 {
		tx, err := s.begin(ctx)
		if err != nil {
			return
		}
		if _, ok, err := tx.Schema(ctx, s.tempSchema); err != nil || !ok {
			s.rollback()
			return
		}
		if err := ddl.EmptySchema(ctx, s, tx, s.tempSchema); err != nil {
			s.rollback()
			return
		}
		root, err := tx.Root().DropSchema(ctx, s.tempSchema)
		if err != nil {
			s.rollback()
			return
		}
		tx.SetRoot(root)
		if s.commit(ctx) == nil {
			return
		}
	}
}
