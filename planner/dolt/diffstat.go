package dolt

import (
	"bytes"
	"context"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The table functions that describe the tables (and, but for
// dolt_diff_stat, the other objects) changed between two revisions,
// fn(from, to[, table]) or fn('from..to'[, table]): dolt_diff_stat
// (counts of rows and cells), dolt_diff_summary (what changed),
// dolt_schema_diff (the CREATE statements of both sides) and dolt_patch
// (the SQL that turns from into to; patch.go).

// deltaRows computes a delta function's rows for one scan.
type deltaRows func(s session, env *exec.Env, from, to revision, cs changeSet) ([]exec.Row, error)

// changeSet is what differs between two revisions: the tables, and the
// other objects (objects.go), which a function asked about one
// table leaves out. The views among the objects are also listed by
// schema, as the changes of the schemas' dolt_schemas (schemas.go), as
// the functions that list changes show them.
type changeSet struct {
	tables  []versioning.TableDelta
	objects []versioning.ObjectChange
	views   []schemaViews
	names   catalog.TypeNamer // the user types in the objects' labels
}

// registerDeltaFunc registers the table function name over the tables
// changed between two revisions. The revisions and the table are
// resolved at planning, so that errors show then, and again at each scan.
func registerDeltaFunc(name string, cols []exec.VirtualColumn, rows deltaRows) {
	systemFuncs[name] = func(s session, env *exec.Env, args []exec.Datum) (*exec.Table, error) {
		r, rest, err := diffArgs(name, args)
		if err != nil {
			return nil, err
		}
		if len(rest) > 1 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "%s takes a from revision, a to revision and an optional table", name)
		}
		from, to, err := s.resolveRange(env, r)
		if err != nil {
			return nil, err
		}
		var only changeFilter
		if len(rest) == 1 {
			if only, err = s.changeFilterFor(env.Ctx, from, to, rest[0]); err != nil {
				return nil, err
			}
		}
		return exec.NewVirtualTable("", name, 0, cols, func(env *exec.Env) ([]exec.Row, error) {
			from, to, err := s.resolveRange(env, r)
			if err != nil {
				return nil, err
			}
			deltas, err := versioning.TableDeltas(env.Ctx, from.root, to.root)
			if err != nil {
				return nil, err
			}
			switch {
			case only.table != nil:
				kept := deltas[:0]
				for _, d := range deltas {
					if d.Name() == *only.table {
						kept = append(kept, d)
					}
				}
				return rows(s, env, from, to, changeSet{tables: kept})
			case from.empty:
				if only.objects != nil {
					return nil, nil // the first commit has tables only
				}
				return rows(s, env, from, to, changeSet{tables: deltas})
			}
			cs, err := changesBetween(env.Ctx, from.root, to.root)
			if err != nil {
				return nil, err
			}
			if only.objects != nil {
				kept := changeSet{names: cs.names}
				for _, c := range cs.objects {
					if only.objects[versioning.ObjectName{Kind: c.Kind, Schema: c.Schema, Name: c.Name}] {
						kept.objects = append(kept.objects, c)
					}
				}
				if kept.views, err = viewChanges(env.Ctx, from.root, to.root, kept.objects); err != nil {
					return nil, err
				}
				cs = kept
			}
			return rows(s, env, from, to, cs)
		}), nil
	}
}

// changeFilter is what a delta function given a name is asked about:
// a table, or other objects (a function's overloads, a schema's views
// as its dolt_schemas).
type changeFilter struct {
	table   *sqldef.TableName
	objects map[versioning.ObjectName]bool
}

// changeFilterFor resolves the name given to a delta function against
// both revisions: a table, else a schema's dolt_schemas, else the other
// objects of that name (objects.go).
func (s session) changeFilterFor(ctx context.Context, from, to revision, name string) (changeFilter, error) {
	t, err := s.findTableEither(ctx, from, to, name)
	if err == nil {
		return changeFilter{table: &t}, nil
	}
	var roots []versioning.RootValue
	for _, r := range []revision{to, from} {
		if !r.empty {
			roots = append(roots, r.root)
		}
	}
	var found []versioning.ObjectName
	schema, ok, serr := s.schemasArg(ctx, name, roots...)
	if serr == nil && ok {
		found, serr = viewNames(ctx, schema, roots)
	} else if serr == nil {
		found, serr = s.otherObjectsNamed(ctx, roots, name)
	}
	if serr != nil {
		return changeFilter{}, serr
	}
	if len(found) == 0 && !ok {
		return changeFilter{}, err
	}
	f := changeFilter{objects: map[versioning.ObjectName]bool{}}
	for _, o := range found {
		f.objects[o] = true
	}
	return f, nil
}

// liveColumnsByName are the positions of a table's live columns, by name.
func liveColumnsByName(t *sqldef.Table) map[string]int {
	m := map[string]int{}
	if t == nil {
		return m
	}
	for i, c := range t.Columns {
		if !c.Dropped {
			m[c.Name] = i
		}
	}
	return m
}

// diffStat counts one table's changes as dolt_diff_stat does.
type diffStat struct {
	rowsAdded, rowsDeleted, rowsModified    int64
	cellsAdded, cellsDeleted, cellsModified int64
}

// cellChanges counts the cells a modified row changed, matching columns
// by name: a cell of a column only the new version has counts as added
// unless NULL, one only the old version had as deleted unless NULL.
func (st *diffStat) cellChanges(from, to *sqldef.Table, fromCols, toCols map[string]int, fv, tv []byte) {
	for name, ti := range toCols {
		tf, tnull := versioning.CellOf(to, tv, ti)
		fi, ok := fromCols[name]
		if !ok {
			if !tnull {
				st.cellsAdded++
			}
			continue
		}
		ff, fnull := versioning.CellOf(from, fv, fi)
		if fnull != tnull || !bytes.Equal(ff, tf) {
			st.cellsModified++
		}
	}
	for name, fi := range fromCols {
		if _, ok := toCols[name]; ok {
			continue
		}
		if _, fnull := versioning.CellOf(from, fv, fi); !fnull {
			st.cellsDeleted++
		}
	}
}

// statRow is dolt_diff_stat's row for one changed table, whose versions
// are in root's store.
func statRow(ctx context.Context, root versioning.RootValue, d versioning.TableDelta) (exec.Row, error) {
	cs := root.Store()
	var st diffStat
	fromCols, toCols := liveColumnsByName(d.From), liveColumnsByName(d.To)
	err := versioning.DiffRows(ctx, cs, d.From, d.To, func(df versioning.RowDiff) error {
		switch df.Kind {
		case versioning.RowAdded:
			st.rowsAdded++
			st.cellsAdded += int64(len(toCols))
		case versioning.RowRemoved:
			st.rowsDeleted++
			st.cellsDeleted += int64(len(fromCols))
		case versioning.RowModified:
			st.rowsModified++
			st.cellChanges(d.From, d.To, fromCols, toCols, df.From, df.To)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	oldRows, err := versioning.RowCount(ctx, cs, d.From)
	if err != nil {
		return nil, err
	}
	newRows, err := versioning.RowCount(ctx, cs, d.To)
	if err != nil {
		return nil, err
	}
	old, nw := int64(oldRows), int64(newRows)
	return exec.Row{exec.DText(d.Name().String()), exec.DInt(old - st.rowsDeleted - st.rowsModified),
		exec.DInt(st.rowsAdded), exec.DInt(st.rowsDeleted), exec.DInt(st.rowsModified),
		exec.DInt(st.cellsAdded), exec.DInt(st.cellsDeleted), exec.DInt(st.cellsModified),
		exec.DInt(old), exec.DInt(nw), exec.DInt(old * int64(len(fromCols))), exec.DInt(nw * int64(len(toCols)))}, nil
}

// nameOrEmpty is a side's table name in a summary: "" where absent.
func nameOrEmpty(t *sqldef.Table) exec.Datum {
	if t == nil {
		return exec.DText("")
	}
	return exec.DText(sqldef.TableName{Schema: t.Schema, Name: t.Name}.String())
}

// deltaKind words a table's change as dolt_diff_summary does.
func deltaKind(d versioning.TableDelta) string {
	switch {
	case d.From == nil:
		return "added"
	case d.To == nil:
		return "dropped"
	}
	return "modified"
}

func textCols(names ...string) []exec.VirtualColumn {
	cols := make([]exec.VirtualColumn, len(names))
	for i, n := range names {
		cols[i] = exec.VirtualColumn{Name: n, Type: exec.TText}
	}
	return cols
}

func int8Cols(names ...string) []exec.VirtualColumn {
	cols := textCols(names...)
	for i := range cols {
		cols[i].Type = exec.TInt8
	}
	return cols
}

// statCounts are dolt_diff_stat's columns after table_name.
var statCounts = int8Cols("rows_unmodified", "rows_added", "rows_deleted", "rows_modified",
	"cells_added", "cells_deleted", "cells_modified", "old_row_count", "new_row_count", "old_cell_count", "new_cell_count")

func init() {
	registerDeltaFunc("dolt_diff_stat", append(textCols("table_name"), statCounts...),
		func(s session, env *exec.Env, _, to revision, cs changeSet) ([]exec.Row, error) {
			rows := make([]exec.Row, 0, len(cs.tables))
			for _, d := range cs.tables {
				row, err := statRow(env.Ctx, to.root, d)
				if err != nil {
					return nil, err
				}
				rows = append(rows, row)
			}
			// Functions and sequences are listed as Doltgres lists its
			// root objects; they have no rows or cells to count.
			for _, c := range cs.objects {
				if c.Kind == versioning.KindView || c.Kind == versioning.KindType {
					continue
				}
				row := exec.Row{exec.DText(changeLabel(c, cs.names))}
				for range statCounts {
					row = append(row, exec.Null)
				}
				rows = append(rows, row)
			}
			return rows, nil
		})
	registerDeltaFunc("dolt_diff_summary",
		append(textCols("from_table_name", "to_table_name", "diff_type"),
			exec.VirtualColumn{Name: "data_change", Type: exec.TBool}, exec.VirtualColumn{Name: "schema_change", Type: exec.TBool}),
		func(s session, env *exec.Env, _, to revision, cs changeSet) ([]exec.Row, error) {
			rows := make([]exec.Row, 0, len(cs.tables)+len(cs.objects))
			for _, d := range cs.tables {
				data, err := d.DataChange(env.Ctx, to.root.Store())
				if err != nil {
					return nil, err
				}
				rows = append(rows, exec.Row{nameOrEmpty(d.From), nameOrEmpty(d.To), exec.DText(deltaKind(d)),
					exec.DBool(data), exec.DBool(d.SchemaChange())})
			}
			for _, c := range cs.objects {
				if c.Kind == versioning.KindView {
					continue // in cs.views
				}
				from, to, kind := exec.DText(changeLabel(c, cs.names)), exec.DText(changeLabel(c, cs.names)), "modified"
				switch {
				case c.From == nil:
					from, kind = exec.DText(""), "added"
				case c.To == nil:
					to, kind = exec.DText(""), "dropped"
				}
				data := c.SequenceDataOnly()
				rows = append(rows, exec.Row{from, to, exec.DText(kind), exec.DBool(data), exec.DBool(!data)})
			}
			for _, v := range cs.views {
				from, to := exec.DText(v.label()), exec.DText(v.label())
				switch v.kind {
				case "added":
					from = exec.DText("")
				case "dropped":
					to = exec.DText("")
				}
				rows = append(rows, exec.Row{from, to, exec.DText(v.kind), exec.DBool(true), exec.DBool(v.kind != "modified")})
			}
			return rows, nil
		})
}
