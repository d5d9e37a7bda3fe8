package dolt

import (
	"bytes"
	"context"
	"slices"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Row diffs, as Doltgres has them: the dolt_diff(from, to, table) and
// dolt_diff_<table>(from, to) table functions, and the dolt_diff_<table>
// and dolt_commit_diff_<table> system tables. A row of a row diff is one
// changed row: the columns of its new version (to_<col>...), to_commit
// and to_commit_date, those of its old version (from_<col>...),
// from_commit and from_commit_date, and diff_type: added, modified or
// removed. Rows come from versioning.DiffRows, which walks the two row
// maps with prolly's Differ and skips what they share, so a diff reads in
// proportion to the change.
//
// A table's versions may differ in their columns. Each side shows the
// columns of a schema fixed at planning (the table functions: each
// revision's; the system tables: the table's current one); a stored
// version's values are matched to them by name, and read NULL where the
// version had no column of that name and type (projection).

// revision is one side of a diff, resolved.
type revision struct {
	root   versioning.RootValue
	empty  bool       // before the first commit: no tables at all
	commit exec.Datum // the commit's hash, WORKING or STAGED
	date   exec.Datum // the commit's date; NULL for WORKING and STAGED
}

// table returns the table name as of the revision, nil when absent.
func (r revision) table(ctx context.Context, name sqldef.TableName) (*sqldef.Table, error) {
	if r.empty {
		return nil, nil
	}
	t, _, err := r.root.Table(ctx, name.Schema, name.Name)
	return t, err
}

// commitRevision is the revision of commit c at addr.
func commitRevision(addr versioning.Address, c *versioning.Commit, root versioning.RootValue) revision {
	return revision{root: root, commit: exec.DText(addr.String()), date: timestampDatum(c.Committer.When)}
}

// resolveRevision resolves a revision spec: WORKING, STAGED or one that
// names a commit.
func (s session) resolveRevision(env *exec.Env, spec string) (revision, error) {
	if u := strings.ToUpper(spec); u == "WORKING" || u == "STAGED" {
		root, err := s.resolveRoot(env, spec)
		return revision{root: root, commit: exec.DText(u), date: exec.Null}, err
	}
	addr, err := s.resolveCommit(env.Ctx, spec)
	if err != nil {
		return revision{}, err
	}
	return s.commitRevision(env.Ctx, addr)
}

func (s session) commitRevision(ctx context.Context, addr versioning.Address) (revision, error) {
	root, c, err := s.Repo().CommitRoot(ctx, addr)
	if err != nil {
		return revision{}, err
	}
	return commitRevision(addr, c, root), nil
}

// parentRevision is the revision c's changes are measured against: its
// first parent, or nothing for a first commit.
func (s session) parentRevision(ctx context.Context, c *versioning.Commit) (revision, error) {
	if len(c.Parents) == 0 {
		return revision{empty: true, commit: exec.Null, date: exec.Null}, nil
	}
	return s.commitRevision(ctx, c.Parents[0])
}

// diffRange is the from and to revisions of a diff as given: two specs,
// or one argument from..to (the same) or from...to (from the two's merge
// base, as git diff has it).
type diffRange struct {
	from, to string
	base     bool // from...to: diff from the merge base of from and to
}

// diffArgs reads the revisions of a diff function's arguments, in either
// form, and returns the arguments after them.
func diffArgs(fn string, args []exec.Datum) (diffRange, []string, error) {
	var texts []string
	for _, d := range args {
		if d.IsNull() {
			return diffRange{}, nil, pgerr.New(pgerr.InvalidParameterValue, "%s: arguments must not be NULL", fn)
		}
		texts = append(texts, d.S)
	}
	if len(texts) > 0 {
		if from, to, ok := strings.Cut(texts[0], ".."); ok {
			r := diffRange{from: from, to: to}
			if rest, ok := strings.CutPrefix(to, "."); ok {
				r.to, r.base = rest, true
			}
			return r, texts[1:], nil
		}
	}
	if len(texts) < 2 {
		return diffRange{}, nil, pgerr.New(pgerr.InvalidParameterValue, "%s: a from and a to revision are required", fn)
	}
	return diffRange{from: texts[0], to: texts[1]}, texts[2:], nil
}

// resolveRange resolves a diff's revisions.
func (s session) resolveRange(env *exec.Env, r diffRange) (from, to revision, err error) {
	if to, err = s.resolveRevision(env, r.to); err != nil {
		return
	}
	if !r.base {
		from, err = s.resolveRevision(env, r.from)
		return
	}
	a, err := s.resolveCommit(env.Ctx, r.from)
	if err != nil {
		return
	}
	b, err := s.resolveCommit(env.Ctx, r.to)
	if err != nil {
		return
	}
	base, ok, err := s.Repo().MergeBase(env.Ctx, a, b)
	if err == nil && !ok {
		err = pgerr.New(pgerr.InvalidParameterValue, "%q and %q have no common ancestor", r.from, r.to)
	}
	if err != nil {
		return
	}
	from, err = s.commitRevision(env.Ctx, base)
	return
}

// findTableEither resolves a table name given as text against the to
// revision, then the from one (a table may be on one side only).
func (s session) findTableEither(ctx context.Context, from, to revision, name string) (sqldef.TableName, error) {
	var firstErr error
	for _, r := range []revision{to, from} {
		if r.empty {
			continue
		}
		t, err := s.findTableIn(ctx, r.root, name)
		if err == nil {
			return sqldef.TableName{Schema: t.Schema, Name: t.Name}, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
	}
	return sqldef.TableName{}, firstErr
}

// shownColumns are the columns a version of a table shows: its live ones.
func shownColumns(t *sqldef.Table) []exec.VirtualColumn {
	var out []exec.VirtualColumn
	for _, c := range t.Columns {
		if !c.Dropped {
			out = append(out, exec.VirtualColumn{Name: c.Name, Type: exec.T{OID: c.Type, Typmod: c.Typmod}})
		}
	}
	return out
}

// projection maps the rows of one stored version of a table onto the
// columns a diff shows: for each shown column, the position of the
// version's live column of the same name and type, or -1.
type projection struct {
	t   *exec.Table
	pos []int
}

func newProjection(def *sqldef.Table, cols []exec.VirtualColumn) *projection {
	p := &projection{t: exec.NewTable(def), pos: make([]int, len(cols))}
	for i, c := range cols {
		p.pos[i] = -1
		for j, dc := range def.Columns {
			if !dc.Dropped && dc.Name == c.Name && dc.Type == c.Type.OID {
				p.pos[i] = j
				break
			}
		}
	}
	return p
}

// project decodes the stored row v into dst, one value per shown column;
// scratch holds the decoded row between calls.
func (p *projection) project(v []byte, dst exec.Row, scratch *exec.Row) error {
	row, err := p.t.DecodeRow(v, *scratch)
	if err != nil {
		return err
	}
	*scratch = row
	for i, j := range p.pos {
		if j >= 0 {
			dst[i] = row[j]
		} else {
			dst[i] = exec.Null
		}
	}
	return nil
}

// rowAlloc hands out rows of one width from shared slabs, so that a
// table of many rows makes few allocations.
type rowAlloc struct {
	width int
	slab  []exec.Datum
}

const rowsPerSlab = 256

func (a *rowAlloc) row() exec.Row {
	if len(a.slab) < a.width {
		a.slab = make([]exec.Datum, a.width*rowsPerSlab)
	}
	r := a.slab[:a.width:a.width]
	a.slab = a.slab[a.width:]
	return r
}

// diffShape is a planned row diff of one table: its name and the columns
// each side shows.
type diffShape struct {
	name             sqldef.TableName
	fromCols, toCols []exec.VirtualColumn
}

// columns are the row diff's columns.
func (sh *diffShape) columns() []exec.VirtualColumn {
	out := make([]exec.VirtualColumn, 0, len(sh.toCols)+len(sh.fromCols)+5)
	for _, c := range sh.toCols {
		out = append(out, exec.VirtualColumn{Name: "to_" + c.Name, Type: c.Type})
	}
	out = append(out, exec.VirtualColumn{Name: "to_commit", Type: exec.TText}, exec.VirtualColumn{Name: "to_commit_date", Type: exec.TTimestamp})
	for _, c := range sh.fromCols {
		out = append(out, exec.VirtualColumn{Name: "from_" + c.Name, Type: c.Type})
	}
	return append(out, exec.VirtualColumn{Name: "from_commit", Type: exec.TText}, exec.VirtualColumn{Name: "from_commit_date", Type: exec.TTimestamp},
		exec.VirtualColumn{Name: "diff_type", Type: exec.TText})
}

// rowDiffs collects the rows of a row diff.
type rowDiffs struct {
	sh      *diffShape
	rows    []exec.Row
	alloc   rowAlloc
	scratch exec.Row
}

func newRowDiffs(sh *diffShape) *rowDiffs {
	return &rowDiffs{sh: sh, alloc: rowAlloc{width: len(sh.toCols) + len(sh.fromCols) + 5}}
}

// add appends the changes of the table from one revision to another.
func (w *rowDiffs) add(ctx context.Context, from, to revision) error {
	ft, err := from.table(ctx, w.sh.name)
	if err != nil {
		return err
	}
	tt, err := to.table(ctx, w.sh.name)
	if err != nil || ft == nil && tt == nil {
		return err
	}
	var fp, tp *projection
	if ft != nil {
		fp = newProjection(ft, w.sh.fromCols)
	}
	if tt != nil {
		tp = newProjection(tt, w.sh.toCols)
	}
	nTo, nFrom := len(w.sh.toCols), len(w.sh.fromCols)
	kinds := [...]exec.Datum{versioning.RowAdded: exec.DText("added"), versioning.RowRemoved: exec.DText("removed"), versioning.RowModified: exec.DText("modified")}
	return versioning.DiffRows(ctx, to.root.Store(), ft, tt, func(d versioning.RowDiff) error {
		row := w.alloc.row()
		if d.To != nil {
			if err := tp.project(d.To, row[:nTo], &w.scratch); err != nil {
				return err
			}
		}
		row[nTo], row[nTo+1] = to.commit, to.date
		fromAt := nTo + 2
		if d.From != nil {
			if err := fp.project(d.From, row[fromAt:fromAt+nFrom], &w.scratch); err != nil {
				return err
			}
		}
		row[fromAt+nFrom], row[fromAt+nFrom+1] = from.commit, from.date
		row[fromAt+nFrom+2] = kinds[d.Kind]
		w.rows = append(w.rows, row)
		return nil
	})
}

// planRowDiff plans the row diff of table between the revisions of r: the
// dolt_diff table function and its dolt_diff_<table> form. Revisions are
// resolved at planning for the columns, and again at each scan, so that
// WORKING and branch names read what they are then.
func (s session) planRowDiff(env *exec.Env, fn string, r diffRange, table string) (*exec.Table, error) {
	from, to, err := s.resolveRange(env, r)
	if err != nil {
		return nil, err
	}
	name, err := s.findTableEither(env.Ctx, from, to, table)
	if err != nil {
		sc, ok, serr := s.schemasArg(env.Ctx, table, to.root, from.root)
		if serr != nil {
			return nil, serr
		}
		if ok {
			return s.planSchemasDiff(fn, r, sc), nil
		}
		return nil, err
	}
	ft, err := from.table(env.Ctx, name)
	if err != nil {
		return nil, err
	}
	tt, err := to.table(env.Ctx, name)
	if err != nil {
		return nil, err
	}
	if ft == nil {
		ft = tt
	}
	if tt == nil {
		tt = ft
	}
	sh := &diffShape{name: name, fromCols: shownColumns(ft), toCols: shownColumns(tt)}
	return exec.NewVirtualTable("", fn, 0, sh.columns(), func(env *exec.Env) ([]exec.Row, error) {
		from, to, err := s.resolveRange(env, r)
		if err != nil {
			return nil, err
		}
		// from_commit and to_commit are the revisions as given, as
		// Doltgres reports them; a merge base (from...to) by its hash.
		to.commit = exec.DText(r.to)
		if !r.base {
			from.commit = exec.DText(r.from)
		}
		w := newRowDiffs(sh)
		err = w.add(env.Ctx, from, to)
		return w.rows, err
	}), nil
}

// diffTablePrefix is the prefix of the dolt_diff_<table>(from, to) table
// functions.
const diffTablePrefix = "dolt_diff_"

// perTableFunction plans dolt_diff_<table>(from, to): Doltgres's older
// form of dolt_diff(from, to, table).
func perTableFunction(name string) (tableFunc, bool) {
	table, ok := strings.CutPrefix(name, diffTablePrefix)
	if !ok || table == "" {
		return nil, false
	}
	return func(s session, env *exec.Env, args []exec.Datum) (*exec.Table, error) {
		r, rest, err := diffArgs(name, args)
		if err != nil {
			return nil, err
		}
		if len(rest) != 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "%s takes a from and a to revision", name)
		}
		return s.planRowDiff(env, name, r, table)
	}, true
}

// historyShape is the shape of the per-table system tables: both sides
// show the table's current columns.
func historyShape(def *sqldef.Table) *diffShape {
	cols := shownColumns(def)
	return &diffShape{name: sqldef.TableName{Schema: def.Schema, Name: def.Name}, fromCols: cols, toCols: cols}
}

// systemTableOf is a per-table system table over def's schema.
func systemTableOf(def *sqldef.Table, prefix string, cols []exec.VirtualColumn, rows exec.VirtualRows) *exec.Table {
	name := prefix + def.Name
	return exec.NewVirtualTable(def.Schema, name, exec.ObjectOID('r', def.Schema, name), cols, rows)
}

// historyDiffRows are dolt_diff_<table>'s rows: the working root's
// changes against HEAD, then each commit's of the log against its first
// parent. A WHERE to_commit = X (f) limits the diffs computed to that
// one, so that asking for one commit's changes reads only those.
func (s session) historyDiffRows(env *exec.Env, sh *diffShape, f *commitDiffFilter) ([]exec.Row, error) {
	ctx := env.Ctx
	only, filtered := "", f.to != nil
	if filtered {
		d, err := f.to.Eval(env, nil)
		if err != nil || d.IsNull() {
			return nil, err
		}
		only = d.S
	}
	want := func(commit string) bool { return !filtered || commit == only }
	head, err := s.headCommit(ctx)
	if err != nil {
		return nil, err
	}
	w := newRowDiffs(sh)
	if want("WORKING") {
		headRev, err := s.commitRevision(ctx, head)
		if err != nil {
			return nil, err
		}
		working := revision{root: env.Txn.Root(), commit: exec.DText("WORKING"), date: exec.Null}
		if err := w.add(ctx, headRev, working); err != nil {
			return nil, err
		}
	}
	log, err := s.Repo().Log(ctx, []versioning.Address{head}, nil)
	if err != nil {
		return nil, err
	}
	for _, e := range log {
		if !want(e.Addr.String()) {
			continue
		}
		root, err := versioning.LoadRootValue(ctx, s.Repo().Store(), e.Commit.Root)
		if err != nil {
			return nil, err
		}
		parent, err := s.parentRevision(ctx, e.Commit)
		if err != nil {
			return nil, err
		}
		if err := w.add(ctx, parent, commitRevision(e.Addr, e.Commit, root)); err != nil {
			return nil, err
		}
	}
	return w.rows, nil
}

// commitDiffFilter holds what dolt_commit_diff_<table> takes from its
// WHERE clause: the expressions from_commit and to_commit must equal.
//
// Doltgres computes this table only for one pair of commits, named by
// the query's WHERE from_commit = X AND to_commit = Y. Rather than
// teach the planner about this one table, the virtual table asks for the
// WHERE clause's conjuncts (exec.Table.Filters, called by the planner) and
// keeps the two equalities; it evaluates their values at each scan, so
// parameters of a prepared statement work. The conditions still filter
// the rows, which they all pass.
type commitDiffFilter struct {
	fromCol, toCol int
	from, to       exec.Expr
}

func newCommitDiffFilter(cols []exec.VirtualColumn) *commitDiffFilter {
	f := &commitDiffFilter{}
	for i, c := range cols {
		switch c.Name {
		case "from_commit":
			f.fromCol = i
		case "to_commit":
			f.toCol = i
		}
	}
	return f
}

// take keeps the equalities on from_commit and to_commit among conds.
func (f *commitDiffFilter) take(t *exec.Table, conds []exec.Expr) {
	f.from, f.to = nil, nil
	columnEqualities(t, conds, func(col int, val exec.Expr) {
		switch col {
		case f.fromCol:
			f.from = val
		case f.toCol:
			f.to = val
		}
	})
}

// columnEqualities calls fn with each of conds that says a column of t
// equals a value that reads no column (col = value or value = col).
func columnEqualities(t *exec.Table, conds []exec.Expr, fn func(col int, val exec.Expr)) {
	for _, c := range conds {
		call, ok := c.(*exec.Call)
		if !ok || call.Name != "=" || len(call.Args) != 2 {
			continue
		}
		for i := 0; i < 2; i++ {
			if col, ok := exec.KeyColumn(t, call.Args[i]); ok && rowIndependent(call.Args[1-i]) {
				fn(col, call.Args[1-i])
			}
		}
	}
}

// rowIndependent reports whether e reads no column: constants,
// parameters and function calls of them.
func rowIndependent(e exec.Expr) bool {
	switch x := e.(type) {
	case *exec.Const, *exec.Param:
		return true
	case *exec.Call:
		for _, a := range x.Args {
			if !rowIndependent(a) {
				return false
			}
		}
		return true
	}
	return false
}

// spec evaluates one side's revision.
func (f *commitDiffFilter) spec(env *exec.Env, e exec.Expr, col string) (string, error) {
	d, err := e.Eval(env, nil)
	if err != nil {
		return "", err
	}
	if d.IsNull() {
		return "", pgerr.New(pgerr.InvalidParameterValue, "%s must not be NULL", col)
	}
	return d.S, nil
}

// commitDiffRows are dolt_commit_diff_<table>'s rows.
func (s session) commitDiffRows(env *exec.Env, sh *diffShape, f *commitDiffFilter) ([]exec.Row, error) {
	if f.from == nil || f.to == nil {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "dolt_commit_diff_%s needs the commits to compare: filter it with WHERE from_commit = ... AND to_commit = ...", sh.name.Name)
	}
	fromSpec, err := f.spec(env, f.from, "from_commit")
	if err != nil {
		return nil, err
	}
	toSpec, err := f.spec(env, f.to, "to_commit")
	if err != nil {
		return nil, err
	}
	from, to, err := s.resolveRange(env, diffRange{from: fromSpec, to: toSpec})
	if err != nil {
		return nil, err
	}
	w := newRowDiffs(sh)
	err = w.add(env.Ctx, from, to)
	return w.rows, err
}

// historyFilter holds what dolt_history_<table> takes from its WHERE
// clause (exec.Table.Filters, as commitDiffFilter): an equality on
// commit_hash, which limits the commits read to that one, and equalities
// on every column of the table's primary key, which turn each version's
// scan into one lookup (the history of a row). Without them a query reads
// every row of every commit: 300 commits of a table of 10,000 rows took
// 7.6 s for one commit's rows. The conditions still filter the rows.
type historyFilter struct {
	hashCol int
	hash    exec.Expr
	pk      []int       // the shown columns of the primary key, in key order
	pkVals  []exec.Expr // what each must equal; nil where not given
}

func newHistoryFilter(def *sqldef.Table, cols []exec.VirtualColumn) *historyFilter {
	f := &historyFilter{hashCol: len(cols)}
	for _, c := range def.PrimaryKey {
		i := slices.IndexFunc(cols, func(v exec.VirtualColumn) bool { return v.Name == def.Columns[c].Name })
		if i < 0 {
			f.pk = nil
			break
		}
		f.pk = append(f.pk, i)
	}
	return f
}

// take keeps the equalities on commit_hash and the primary key among
// conds, those whose value can be a key of the column.
func (f *historyFilter) take(t *exec.Table, conds []exec.Expr) {
	f.hash, f.pkVals = nil, make([]exec.Expr, len(f.pk))
	columnEqualities(t, conds, func(col int, val exec.Expr) {
		if col == f.hashCol {
			f.hash = val
		}
		if k := slices.Index(f.pk, col); k >= 0 && constantValue(val) && exec.KeyCompatible(t.Cols[col].Type, val.Type()) {
			f.pkVals[k] = val
		}
	})
}

// constantValue reports whether e is a constant, a parameter or a cast of
// one: a value that evaluating once for the scan, not once per row as the
// filter does, cannot change.
func constantValue(e exec.Expr) bool {
	switch x := e.(type) {
	case *exec.Const, *exec.Param:
		return true
	case *exec.Call:
		return x.Name == "cast" && len(x.Args) == 1 && constantValue(x.Args[0])
	}
	return false
}

// key evaluates the primary key's values; ok is false unless every
// column has one. none reports a NULL among them, which no row matches.
func (f *historyFilter) key(env *exec.Env) (vals []exec.Datum, ok, none bool, err error) {
	if len(f.pkVals) == 0 || slices.Contains(f.pkVals, nil) {
		return nil, false, false, nil
	}
	vals = make([]exec.Datum, len(f.pkVals))
	for i, e := range f.pkVals {
		if vals[i], err = e.Eval(env, nil); err != nil {
			return nil, false, false, err
		}
		if vals[i].IsNull() {
			return nil, false, true, nil
		}
	}
	return vals, true, false, nil
}

// lookupVersion returns the row of version t whose primary key is vals
// (values of def's key columns), projected, if t's key is def's (the
// same columns, by name and type): ok is false when it is not, and the
// caller reads the whole version.
func (f *historyFilter) lookupVersion(ctx context.Context, cs versioning.Store, def, t *sqldef.Table, vals []exec.Datum, p *projection, alloc *rowAlloc, scratch *exec.Row) (rows []exec.Row, ok bool, err error) {
	if len(t.PrimaryKey) != len(def.PrimaryKey) || t.Partitioned() {
		return nil, false, nil
	}
	for i, c := range t.PrimaryKey {
		tc, dc := t.Columns[c], def.Columns[def.PrimaryKey[i]]
		if tc.Name != dc.Name || tc.Type != dc.Type || tc.Typmod != dc.Typmod {
			return nil, false, nil
		}
	}
	key, err := exec.PrimaryKey(exec.NewTable(t), vals)
	if err != nil {
		return nil, true, nil // a value no key of the column holds
	}
	v, found, err := versioning.StoredRow(ctx, cs, t, key)
	if err != nil || !found {
		return nil, true, err
	}
	row := alloc.row()
	return []exec.Row{row}, true, p.project(v, row, scratch)
}

// historyRows are dolt_history_<table>'s rows: every row of the table at
// every commit of the log, with the commit's hash, committer and date;
// with f's conditions, those of one commit, or of one primary key.
// Consecutive commits that share the table's version share its decoding.
func (s session) historyRows(env *exec.Env, def *sqldef.Table, cols []exec.VirtualColumn, f *historyFilter) ([]exec.Row, error) {
	ctx := env.Ctx
	onlyCommit := ""
	if f.hash != nil {
		d, err := f.hash.Eval(env, nil)
		if err != nil || d.IsNull() {
			return nil, err
		}
		onlyCommit = d.S
	}
	keyVals, byKey, none, err := f.key(env)
	if err != nil || none {
		return nil, err
	}
	head, err := s.headCommit(ctx)
	if err != nil {
		return nil, err
	}
	log, err := s.Repo().Log(ctx, []versioning.Address{head}, nil)
	if err != nil {
		return nil, err
	}
	n := len(cols)
	alloc := rowAlloc{width: n + 3}
	var (
		rows      []exec.Row
		lastRec   []byte
		version   []exec.Row // the projected rows of the table version lastRec
		scratch   exec.Row
		dataAlloc = rowAlloc{width: n}
	)
	for _, e := range log {
		if onlyCommit != "" && e.Addr.String() != onlyCommit {
			continue
		}
		root, err := versioning.LoadRootValue(ctx, s.Repo().Store(), e.Commit.Root)
		if err != nil {
			return nil, err
		}
		rec, ok, err := root.TableRecord(ctx, def.Schema, def.Name)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if lastRec == nil || string(rec) != string(lastRec) {
			lastRec, version = append(lastRec[:0], rec...), version[:0]
			t, err := versioning.DecodeTable(rec)
			if err != nil {
				return nil, err
			}
			p := newProjection(t, cols)
			looked := false
			if byKey {
				var found []exec.Row
				if found, looked, err = f.lookupVersion(ctx, s.Repo().Store(), def, t, keyVals, p, &dataAlloc, &scratch); err != nil {
					return nil, err
				}
				version = append(version, found...)
			}
			if !looked {
				err = versioning.EachStoredRow(ctx, s.Repo().Store(), t, func(_, v []byte) error {
					row := dataAlloc.row()
					version = append(version, row)
					return p.project(v, row, &scratch)
				})
				if err != nil {
					return nil, err
				}
			}
		}
		// The committer column names the commit's author, as Dolt's
		// history shows the name a commit was made --author.
		hash, who, when := exec.DText(e.Addr.String()), exec.DText(e.Commit.Author.Name), timestampDatum(e.Commit.Committer.When)
		for _, v := range version {
			row := alloc.row()
			copy(row, v)
			row[n], row[n+1], row[n+2] = hash, who, when
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// blameRows are dolt_blame_<table>'s rows: each row of the table at HEAD,
// by its primary key, with the commit that last added or changed it (its
// hash, date, committer, email and message), as Dolt's blame view
// computes it from the table's diffs. The log is walked from HEAD, each
// commit diffed against its first parent, until every row at HEAD has
// its commit; rows come in primary key order.
func (s session) blameRows(env *exec.Env, def *sqldef.Table, keyCols []exec.VirtualColumn) ([]exec.Row, error) {
	ctx := env.Ctx
	head, err := s.headCommit(ctx)
	if err != nil {
		return nil, err
	}
	headRev, err := s.commitRevision(ctx, head)
	if err != nil {
		return nil, err
	}
	name := sqldef.TableName{Schema: def.Schema, Name: def.Name}
	ht, err := headRev.table(ctx, name)
	if err != nil || ht == nil {
		return nil, err
	}
	left, err := versioning.RowCount(ctx, s.Repo().Store(), ht)
	if err != nil {
		return nil, err
	}
	log, err := s.Repo().Log(ctx, []versioning.Address{head}, nil)
	if err != nil {
		return nil, err
	}
	type blamed struct {
		key []byte
		row exec.Row
	}
	var (
		out     []blamed
		seen    = map[string]bool{}
		scratch exec.Row
		alloc   = rowAlloc{width: len(keyCols) + 5}
	)
	for _, e := range log {
		if left == 0 {
			break
		}
		to, err := s.commitRevision(ctx, e.Addr)
		if err != nil {
			return nil, err
		}
		from, err := s.parentRevision(ctx, e.Commit)
		if err != nil {
			return nil, err
		}
		ft, err := from.table(ctx, name)
		if err != nil {
			return nil, err
		}
		tt, err := to.table(ctx, name)
		if err != nil || tt == nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		p := newProjection(tt, keyCols)
		// Named by the commit's author, as dolt_history_<table> is.
		c := e.Commit
		hash, when, who, email, msg := exec.DText(e.Addr.String()), timestampDatum(c.Committer.When), exec.DText(c.Author.Name), exec.DText(c.Author.Email), exec.DText(c.Message)
		err = versioning.DiffRows(ctx, s.Repo().Store(), ft, tt, func(d versioning.RowDiff) error {
			if seen[string(d.Key)] {
				return nil
			}
			seen[string(d.Key)] = true
			if d.Kind == versioning.RowRemoved {
				return nil // gone since, unless a later commit added it again, which was seen first
			}
			row := alloc.row()
			if err := p.project(d.To, row[:len(keyCols)], &scratch); err != nil {
				return err
			}
			n := len(keyCols)
			row[n], row[n+1], row[n+2], row[n+3], row[n+4] = hash, when, who, email, msg
			out = append(out, blamed{key: bytes.Clone(d.Key), row: row})
			left--
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b blamed) int { return bytes.Compare(a.key, b.key) })
	rows := make([]exec.Row, len(out))
	for i, b := range out {
		rows[i] = b.row
	}
	return rows, nil
}

// diffSummaryRows are the rows of the dolt_diff system table for the
// changes from one root to the next: one per changed table, with the
// commit's hash, committer, email, date and message (c nil for WORKING
// and STAGED, which have none).
func diffSummaryRows(ctx context.Context, cs versioning.Store, hash string, c *versioning.Commit, changes changeSet) ([]exec.Row, error) {
	var rows []exec.Row
	add := func(name string, data, schema bool) {
		who := commitColumns(c)
		row := exec.Row{exec.DText(hash), exec.DText(name), who[0], who[1], who[2], who[3],
			exec.DBool(data), exec.DBool(schema), exec.Null, exec.Null, exec.Null}
		if c != nil {
			row[8], row[9], row[10] = exec.DText(c.Author.Name), exec.DText(c.Author.Email), timestampDatum(c.Author.When)
		}
		rows = append(rows, row)
	}
	for _, d := range changes.tables {
		data, err := d.DataChange(ctx, cs)
		if err != nil {
			return nil, err
		}
		add(d.Name().String(), data, d.SchemaChange())
	}
	for _, o := range changes.objects {
		if o.Kind == versioning.KindView {
			continue // in changes.views
		}
		data := o.SequenceDataOnly()
		add(changeLabel(o, changes.names), data, !data)
	}
	for _, v := range changes.views {
		add(v.label(), true, v.kind != "modified")
	}
	return rows, nil
}

// commitColumns are the committer, email, date and message columns of
// the unscoped diff tables for commit c; NULLs for the working and
// staged changes (c nil).
func commitColumns(c *versioning.Commit) [4]exec.Datum {
	if c == nil {
		return [4]exec.Datum{exec.Null, exec.Null, exec.Null, exec.Null}
	}
	return [4]exec.Datum{exec.DText(c.Committer.Name), exec.DText(c.Committer.Email), timestampDatum(c.Committer.When), exec.DText(c.Message)}
}

// commitChanges is what commit c changed against its first parent; a
// first commit adds every table it has (and holds no other objects).
func (s session) commitChanges(ctx context.Context, c *versioning.Commit) (changeSet, error) {
	parent, ok, err := s.Repo().ParentRoot(ctx, c)
	if err != nil {
		return changeSet{}, err
	}
	if !ok {
		tables, err := s.Repo().CommitDeltas(ctx, c)
		return changeSet{tables: tables}, err
	}
	to, err := versioning.LoadRootValue(ctx, s.Repo().Store(), c.Root)
	if err != nil {
		return changeSet{}, err
	}
	return changesBetween(ctx, parent, to)
}

// changesBetween is the changeSet from one root to another.
func changesBetween(ctx context.Context, from, to versioning.RootValue) (changeSet, error) {
	tables, err := versioning.TableDeltas(ctx, from, to)
	if err != nil {
		return changeSet{}, err
	}
	objects, err := objectChanges(ctx, from, to)
	if err != nil {
		return changeSet{}, err
	}
	views, err := viewChanges(ctx, from, to, objects)
	if err != nil {
		return changeSet{}, err
	}
	names, err := labelTypes(ctx, from, to)
	return changeSet{tables: tables, objects: objects, views: views, names: names}, err
}

// doltDiffRows are the dolt_diff system table's rows: one per changed
// table or object of each diff step (eachDiffStep).
func (s session) doltDiffRows(env *exec.Env) ([]exec.Row, error) {
	var rows []exec.Row
	err := s.eachDiffStep(env, func(hash string, c *versioning.Commit, changes changeSet) error {
		r, err := diffSummaryRows(env.Ctx, s.Repo().Store(), hash, c, changes)
		rows = append(rows, r...)
		return err
	})
	return rows, err
}

// eachDiffStep calls fn with the changes the unscoped diff tables
// (dolt.diff, dolt.column_diff) list, step by step: the working root's
// changes against the staged root (hash WORKING), the staged root's
// against HEAD (STAGED), then each commit's of the log against its
// first parent (c being the commit).
func (s session) eachDiffStep(env *exec.Env, fn func(hash string, c *versioning.Commit, changes changeSet) error) error {
	ctx := env.Ctx
	head, err := s.headCommit(ctx)
	if err != nil {
		return err
	}
	headRoot, _, err := s.Repo().CommitRoot(ctx, head)
	if err != nil {
		return err
	}
	staged, err := s.resolveRoot(env, "STAGED")
	if err != nil {
		return err
	}
	for _, step := range []struct {
		name     string
		from, to versioning.RootValue
	}{{"WORKING", staged, env.Txn.Root()}, {"STAGED", headRoot, staged}} {
		changes, err := changesBetween(ctx, step.from, step.to)
		if err != nil {
			return err
		}
		if err := fn(step.name, nil, changes); err != nil {
			return err
		}
	}
	log, err := s.Repo().Log(ctx, []versioning.Address{head}, nil)
	if err != nil {
		return err
	}
	for _, e := range log {
		changes, err := s.commitChanges(ctx, e.Commit)
		if err != nil {
			return err
		}
		if err := fn(e.Addr.String(), e.Commit, changes); err != nil {
			return err
		}
	}
	return nil
}

func init() {
	systemFuncs["dolt_diff"] = func(s session, env *exec.Env, args []exec.Datum) (*exec.Table, error) {
		r, rest, err := diffArgs("dolt_diff", args)
		if err != nil {
			return nil, err
		}
		if len(rest) != 1 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "dolt_diff takes a from revision, a to revision and a table")
		}
		return s.planRowDiff(env, "dolt_diff", r, rest[0])
	}
	perTableSystem["diff_"] = func(s session, def *sqldef.Table) (*exec.Table, error) {
		sh := historyShape(def)
		cols := sh.columns()
		f := newCommitDiffFilter(cols)
		t := systemTableOf(def, "dolt_diff_", cols, func(env *exec.Env) ([]exec.Row, error) {
			return s.historyDiffRows(env, sh, f)
		})
		t.Filters = func(conds []exec.Expr) { f.take(t, conds) }
		return t, nil
	}
	perTableSystem["commit_diff_"] = func(s session, def *sqldef.Table) (*exec.Table, error) {
		sh := historyShape(def)
		cols := sh.columns()
		f := newCommitDiffFilter(cols)
		t := systemTableOf(def, "dolt_commit_diff_", cols, func(env *exec.Env) ([]exec.Row, error) {
			return s.commitDiffRows(env, sh, f)
		})
		t.Filters = func(conds []exec.Expr) { f.take(t, conds) }
		return t, nil
	}
	perTableSystem["history_"] = func(s session, def *sqldef.Table) (*exec.Table, error) {
		cols := shownColumns(def)
		all := append(cols[:len(cols):len(cols)],
			exec.VirtualColumn{Name: "commit_hash", Type: exec.TText}, exec.VirtualColumn{Name: "committer", Type: exec.TText},
			exec.VirtualColumn{Name: "commit_date", Type: exec.TTimestamp})
		f := newHistoryFilter(def, cols)
		t := systemTableOf(def, "dolt_history_", all, func(env *exec.Env) ([]exec.Row, error) {
			return s.historyRows(env, def, cols, f)
		})
		t.Filters = func(conds []exec.Expr) { f.take(t, conds) }
		return t, nil
	}
	// dolt_blame_<table>: who last changed each row at HEAD (blameRows);
	// a table without a primary key has none, as in Dolt.
	perTableSystem["blame_"] = func(s session, def *sqldef.Table) (*exec.Table, error) {
		if len(def.PrimaryKey) == 0 {
			return nil, nil
		}
		var keyCols []exec.VirtualColumn
		for _, c := range def.PrimaryKey {
			col := def.Columns[c]
			keyCols = append(keyCols, exec.VirtualColumn{Name: col.Name, Type: exec.T{OID: col.Type, Typmod: col.Typmod}})
		}
		cols := append(keyCols[:len(keyCols):len(keyCols)], exec.VirtualColumn{Name: "commit", Type: exec.TText},
			exec.VirtualColumn{Name: "commit_date", Type: exec.TTimestamp}, exec.VirtualColumn{Name: "committer", Type: exec.TText},
			exec.VirtualColumn{Name: "email", Type: exec.TText}, exec.VirtualColumn{Name: "message", Type: exec.TText})
		return systemTableOf(def, "dolt_blame_", cols, func(env *exec.Env) ([]exec.Row, error) {
			return s.blameRows(env, def, keyCols)
		}), nil
	}
	// dolt_workspace_<table>: the table's uncommitted changes, the staged
	// ones (HEAD to STAGED) first and then the others (STAGED to
	// WORKING), numbered from 0, as Doltgres shows them.
	perTableSystem["workspace_"] = func(s session, def *sqldef.Table) (*exec.Table, error) {
		sh := historyShape(def)
		cols := []exec.VirtualColumn{{Name: "id", Type: exec.TInt8}, {Name: "staged", Type: exec.TBool}, {Name: "diff_type", Type: exec.TText}}
		for _, c := range sh.toCols {
			cols = append(cols, exec.VirtualColumn{Name: "to_" + c.Name, Type: c.Type})
		}
		for _, c := range sh.fromCols {
			cols = append(cols, exec.VirtualColumn{Name: "from_" + c.Name, Type: c.Type})
		}
		return systemTableOf(def, "dolt_workspace_", cols, func(env *exec.Env) ([]exec.Row, error) {
			var revs [3]revision
			for i, spec := range []string{"HEAD", "STAGED", "WORKING"} {
				var err error
				if revs[i], err = s.resolveRevision(env, spec); err != nil {
					return nil, err
				}
			}
			nTo, nFrom := len(sh.toCols), len(sh.fromCols)
			var out []exec.Row
			for i, staged := range []bool{true, false} {
				w := newRowDiffs(sh)
				if err := w.add(env.Ctx, revs[i], revs[i+1]); err != nil {
					return nil, err
				}
				for _, d := range w.rows {
					row := make(exec.Row, 0, len(cols))
					row = append(row, exec.DInt(int64(len(out))), exec.DBool(staged), d[nTo+2+nFrom+2])
					row = append(row, d[:nTo]...)
					row = append(row, d[nTo+2:nTo+2+nFrom]...)
					out = append(out, row)
				}
			}
			return out, nil
		}), nil
	}
	systemTables["diff"] = systemTable{
		cols: []exec.VirtualColumn{
			{Name: "commit_hash", Type: exec.TText}, {Name: "table_name", Type: exec.TText},
			{Name: "committer", Type: exec.TText}, {Name: "email", Type: exec.TText},
			{Name: "date", Type: exec.TTimestamp}, {Name: "message", Type: exec.TText},
			{Name: "data_change", Type: exec.TBool}, {Name: "schema_change", Type: exec.TBool},
			{Name: "author", Type: exec.TText}, {Name: "author_email", Type: exec.TText}, {Name: "author_date", Type: exec.TTimestamp},
		},
		rows: func(s session, env *exec.Env) ([]exec.Row, error) { return s.doltDiffRows(env) },
	}
}
