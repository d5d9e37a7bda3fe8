package dolt

import (
	"bytes"
	"context"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// dolt.column_diff (dolt_column_diff): dolt.diff a column at a time. For
// each step of the diff tables (the working and staged changes, then each
// commit of the log) and each changed table, a row for each column that
// changed: added or removed with its table or alone, modified when its
// type changed or a row's value of it did (an added or removed row
// changes all its columns). Rows are read only where the step changed
// the table's data, in proportion to the change.

// columnChange is a column that changed and how: added, removed or
// modified.
type columnChange struct{ name, kind string }

// columnChanges returns the columns of a changed table that changed, in
// the order of the table's columns (the removed ones after).
func columnChanges(ctx context.Context, cs versioning.Store, d versioning.TableDelta) ([]columnChange, error) {
	fromCols, toCols := liveColumnsByName(d.From), liveColumnsByName(d.To)
	kinds := map[string]string{}
	for name, ti := range toCols {
		fi, ok := fromCols[name]
		switch {
		case !ok:
			kinds[name] = "added"
		case d.From.Columns[fi].Type != d.To.Columns[ti].Type || d.From.Columns[fi].Typmod != d.To.Columns[ti].Typmod:
			kinds[name] = "modified"
		}
	}
	for name := range fromCols {
		if _, ok := toCols[name]; !ok {
			kinds[name] = "removed"
		}
	}
	if d.From != nil && d.To != nil && d.From.Rows != d.To.Rows {
		err := versioning.DiffRows(ctx, cs, d.From, d.To, func(rd versioning.RowDiff) error {
			for name, ti := range toCols {
				fi, ok := fromCols[name]
				if !ok || kinds[name] != "" {
					continue
				}
				if rd.From == nil || rd.To == nil {
					kinds[name] = "modified"
					continue
				}
				tv, tnull := versioning.CellOf(d.To, rd.To, ti)
				fv, fnull := versioning.CellOf(d.From, rd.From, fi)
				if tnull != fnull || !bytes.Equal(tv, fv) {
					kinds[name] = "modified"
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	var out []columnChange
	for _, t := range []*sqldef.Table{d.To, d.From} {
		if t == nil {
			continue
		}
		for _, c := range t.Columns {
			if k := kinds[c.Name]; k != "" && !c.Dropped {
				out = append(out, columnChange{c.Name, k})
				delete(kinds, c.Name)
			}
		}
	}
	return out, nil
}

func init() {
	systemTables["column_diff"] = systemTable{
		cols: []exec.VirtualColumn{
			{Name: "commit_hash", Type: exec.TText}, {Name: "table_name", Type: exec.TText},
			{Name: "column_name", Type: exec.TText}, {Name: "committer", Type: exec.TText},
			{Name: "email", Type: exec.TText}, {Name: "date", Type: exec.TTimestamp},
			{Name: "message", Type: exec.TText}, {Name: "diff_type", Type: exec.TText},
		},
		rows: func(s session, env *exec.Env) ([]exec.Row, error) {
			var rows []exec.Row
			err := s.eachDiffStep(env, func(hash string, c *versioning.Commit, changes changeSet) error {
				who := commitColumns(c)
				for _, d := range changes.tables {
					cols, err := columnChanges(env.Ctx, s.Repo().Store(), d)
					if err != nil {
						return err
					}
					for _, col := range cols {
						rows = append(rows, exec.Row{exec.DText(hash), exec.DText(d.Name().String()), exec.DText(col.name),
							who[0], who[1], who[2], who[3], exec.DText(col.kind)})
					}
				}
				return nil
			})
			return rows, err
		},
	}
}
