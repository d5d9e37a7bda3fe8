package dolt

import (
	"context"
	"errors"
	"sort"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The merge previews: dolt_preview_merge_conflicts_summary(base, branch)
// and dolt_preview_merge_conflicts(base, branch, table) say what merging
// branch into base would leave to resolve, per table and row by row, by
// running the merge in memory (versioning.Repo.PreviewMerge): nothing is
// written and no ref moves.

// previewArgs checks a preview's arguments, Doltgres's way: n of them,
// none NULL; the branches exist and are not empty names.
func (s session) previewArgs(ctx context.Context, fn string, args []exec.Datum, n int) (ours, theirs versioning.Address, err error) {
	if len(args) != n {
		return ours, theirs, pgerr.New(pgerr.UndefinedFunction, "function '%s' expected %d arguments, %d received", fn, n, len(args))
	}
	for _, a := range args {
		if a.IsNull() {
			return ours, theirs, pgerr.New(pgerr.InvalidParameterValue, "Invalid argument to %s: NULL", fn)
		}
	}
	var heads [2]versioning.Address
	for i, a := range args[:2] {
		if a.S == "" {
			if n == 2 {
				return ours, theirs, pgerr.New(pgerr.InvalidParameterValue, "branch name cannot be empty")
			}
			return ours, theirs, pgerr.New(pgerr.InvalidParameterValue, "string is not a valid branch or hash")
		}
		h, err := s.Repo().BranchHead(ctx, a.S)
		if errors.Is(err, versioning.ErrNoBranch) {
			return ours, theirs, pgerr.New(pgerr.InvalidParameterValue, "branch not found: %s", a.S)
		}
		if err != nil {
			return ours, theirs, err
		}
		heads[i] = h
	}
	return heads[0], heads[1], nil
}

// preview merges theirs into ours in memory.
func (s session) preview(env *exec.Env, ours, theirs versioning.Address) (versioning.MergeResult, error) {
	res, err := s.Repo().PreviewMerge(env.Ctx, ours, theirs, exec.NewMergeIndexer(env.Txn))
	return res, mergeError(err)
}

func init() {
	numericCols := []exec.VirtualColumn{{Name: "table", Type: exec.TText},
		{Name: "num_data_conflicts", Type: numericType}, {Name: "num_schema_conflicts", Type: numericType}}
	systemFuncs["dolt_preview_merge_conflicts_summary"] = func(s session, env *exec.Env, args []exec.Datum) (*exec.Table, error) {
		const fn = "dolt_preview_merge_conflicts_summary"
		ours, theirs, err := s.previewArgs(env.Ctx, fn, args, 2)
		if err != nil {
			return nil, err
		}
		return exec.NewVirtualTable("", fn, 0, numericCols, func(env *exec.Env) ([]exec.Row, error) {
			res, err := s.preview(env, ours, theirs)
			if err != nil {
				return nil, err
			}
			all, err := res.Root.AllConflicts(env.Ctx)
			if err != nil {
				return nil, err
			}
			var rows []exec.Row
			for _, tc := range all {
				if tc.Kind != 0 {
					continue // views, functions, types: not tables' conflicts
				}
				name := exec.DText(tc.Schema + "." + tc.Name)
				if tc.SchemaConflict != "" {
					rows = append(rows, exec.Row{name, exec.Null, exec.DNumeric(apd.New(1, 0))})
					continue
				}
				n, err := tc.RowConflictCount(env.Ctx, res.Root.Store())
				if err != nil {
					return nil, err
				}
				if n > 0 {
					rows = append(rows, exec.Row{name, exec.DNumeric(apd.New(int64(n), 0)), exec.DNumeric(apd.New(0, 0))})
				}
			}
			sort.Slice(rows, func(i, j int) bool { return rows[i][0].S < rows[j][0].S })
			return rows, nil
		}), nil
	}
	systemFuncs["dolt_preview_merge_conflicts"] = func(s session, env *exec.Env, args []exec.Datum) (*exec.Table, error) {
		const fn = "dolt_preview_merge_conflicts"
		ours, theirs, err := s.previewArgs(env.Ctx, fn, args, 3)
		if err != nil {
			return nil, err
		}
		table := args[2].S
		if table == "" {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "table name cannot be empty")
		}
		res, err := s.preview(env, ours, theirs)
		if err != nil {
			return nil, err
		}
		def, err := s.previewTable(env.Ctx, res.Root, table)
		if err != nil {
			return nil, err
		}
		t := exec.NewTable(def)
		live, cols := conflictColumns(t)
		return exec.NewVirtualTable("", fn, 0, cols, func(env *exec.Env) ([]exec.Row, error) {
			res, err := s.preview(env, ours, theirs)
			if err != nil {
				return nil, err
			}
			tc, ok, err := res.Root.Conflicts(env.Ctx, def.Schema, def.Name)
			if err != nil {
				return nil, err
			}
			if ok && tc.SchemaConflict != "" {
				return nil, pgerr.New(pgerr.ObjectNotInPrerequisite, "schema conflicts found: 1")
			}
			return conflictRowsIn(env.Ctx, res.Root, t, live)
		}), nil
	}
}

// previewTable finds table (perhaps schema-qualified) in a previewed root
// as the other version-control functions do (findTableIn), with
// Doltgres's error when it is missing: table not found: schema.name.
func (s session) previewTable(ctx context.Context, root versioning.RootValue, table string) (*sqldef.Table, error) {
	t, err := s.findTableIn(ctx, root, table)
	var pe *pgerr.Error
	if err == nil || !errors.As(err, &pe) || pe.Code != pgerr.UndefinedTable {
		return t, err
	}
	schema, name, _ := s.ParseName(table)
	if schema == "" {
		schema = "public"
		if path := s.RelationSchemas(""); len(path) > 0 {
			schema = path[len(path)-1]
		}
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "table not found: %s.%s", schema, name)
}
