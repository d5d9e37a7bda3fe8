package planner

import (
	"slices"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// scope is what an expression can name: the FROM items of its query, as
// namespace items over the input row, and through corr the scope of the
// enclosing query (correlated subqueries). A scope with group set is the
// same namespace seen after aggregation (see grouping).
type scope struct {
	items []*nsItem
	corr  *correlation
	group *grouping
	// track, when set, is told of every item a column is resolved in:
	// the planner learns so which FROM items a condition reads.
	track func(*nsItem)
}

// nsItem is one entry of a FROM clause's namespace, as PostgreSQL's
// ParseNamespaceItem: a table, subquery, CTE or join, with the name it is
// referred to by and its columns at their positions in the input row.
type nsItem struct {
	name string
	// relVisible: the item can be named (name.col, name.*); colsVisible:
	// its columns can be named unqualified and * expands them. An
	// unaliased join hides the columns of its two sides (its own list
	// has them, the USING columns merged); an aliased one hides the sides
	// entirely.
	relVisible  bool
	colsVisible bool
	cols        []*scopeCol
	table       *exec.Table // a base table's: for columns its primary key determines
	kind        itemKind
	// written marks the target of an INSERT, UPDATE or DELETE in its
	// RETURNING list: its tableoid is the table a row was written to.
	written bool
	// tableOID is a table's system column tableoid when its rows come
	// from several tables (an Append of its descendants): the row's
	// column after the table's. Otherwise tableoid is the table's OID.
	tableOID *scopeCol
}

// itemKind is what a namespace item names.
type itemKind uint8

const (
	itemTable itemKind = iota
	itemSubquery
	itemJoin
	itemFunction
	itemValues
	itemCTE
)

type scopeCol struct {
	name     string
	t        exec.T
	idx      int
	tableOID uint32
	attnum   int16
	pos      int // the table column's position (base tables)
	ref      *exec.ColRef
	// virtual, when set, is the column's value as an expression that
	// does not read the row (an outer value, a constant), valid in the
	// context of correlation virtualCorr (see setVirtual).
	virtual     exec.Expr
	virtualCorr *correlation
}

// colRef returns the column's reference, one per column so that equal
// references are the same pointer.
func (c *scopeCol) colRef() *exec.ColRef {
	if c.ref == nil {
		c.ref = &exec.ColRef{Idx: c.idx, T: c.t}
	}
	return c.ref
}

// correlation links a query to the query it is nested in. Columns of the
// enclosing query that the nested one names become args, evaluated over
// the enclosing row and read inside as exec.OuterRef (see exec.SubPlan).
// A derived table in FROM shares its query's correlation: it runs inside
// the same plan, with the same outer values.
type correlation struct {
	outer *scope
	args  []exec.Expr
	// fromSub is set when the nested query is a subquery expression, for
	// the wording of grouping errors; inAgg when that expression is in the
	// arguments of an aggregate of the enclosing query.
	fromSub bool
	inAgg   bool
}

// ref returns the OuterRef of outer expression e, adding it to args.
func (c *correlation) ref(e exec.Expr) exec.Expr {
	for i, a := range c.args {
		if sameOuterValue(a, e) {
			return &exec.OuterRef{Idx: i, T: e.Type()}
		}
	}
	c.args = append(c.args, e)
	return &exec.OuterRef{Idx: len(c.args) - 1, T: e.Type()}
}

// tableItem returns the namespace item of a table's rows, named alias.
func tableItem(t *exec.Table, alias string) *nsItem {
	it := &nsItem{name: alias, relVisible: true, colsVisible: true, table: t}
	for _, c := range t.Cols {
		if c.Dropped {
			continue
		}
		it.cols = append(it.cols, &scopeCol{name: c.Name, t: c.Type, idx: c.Pos, pos: c.Pos, tableOID: t.OID, attnum: int16(c.Pos + 1)})
	}
	return it
}

// tableScope returns the scope of one table's rows, named alias.
func tableScope(t *exec.Table, alias string) *scope {
	return &scope{items: []*nsItem{tableItem(t, alias)}}
}

// shifted returns copies of items whose columns sit off places further
// right in the row.
func shifted(items []*nsItem, off int) []*nsItem {
	out := make([]*nsItem, len(items))
	for i, it := range items {
		c := *it
		c.cols = make([]*scopeCol, len(it.cols))
		for j, col := range it.cols {
			cc := *col
			cc.idx += off
			cc.ref = nil
			c.cols[j] = &cc
		}
		if it.tableOID != nil {
			cc := *it.tableOID
			cc.idx += off
			cc.ref = nil
			c.tableOID = &cc
		}
		out[i] = &c
	}
	return out
}

// lookup finds the column table.name among sc's own items. It returns no
// column and no error when the name is not there, so that the caller can
// look in the enclosing query.
func (sc *scope) lookup(table, name string, loc int32) (*nsItem, *scopeCol, error) {
	if sc == nil {
		return nil, nil, nil
	}
	var foundItem *nsItem
	var found *scopeCol
	if table == "" {
		for _, it := range sc.items {
			if !it.colsVisible {
				continue
			}
			for _, c := range it.cols {
				if c.name != name {
					continue
				}
				if found != nil {
					return nil, nil, WithPos(pgerr.New(pgerr.AmbiguousColumn, "column reference %q is ambiguous", name), loc)
				}
				foundItem, found = it, c
			}
		}
		return foundItem, found, nil
	}
	var item *nsItem
	for _, it := range sc.items {
		if it.relVisible && it.name == table {
			if item != nil {
				return nil, nil, WithPos(pgerr.New(codeAmbiguousAlias, "table reference %q is ambiguous", table), loc)
			}
			item = it
		}
	}
	if item == nil {
		return nil, nil, nil
	}
	for _, c := range item.cols {
		if c.name == name {
			if found != nil {
				return nil, nil, WithPos(pgerr.New(pgerr.AmbiguousColumn, "column reference %q is ambiguous", name), loc)
			}
			found = c
		}
	}
	if found == nil {
		return nil, nil, WithPos(pgerr.New(pgerr.UndefinedColumn, "column %s.%s does not exist", table, name), loc)
	}
	return item, found, nil
}

// hasItem reports whether sc or an enclosing scope has an item named table.
func (sc *scope) hasItem(table string) bool {
	for s := sc; s != nil; {
		for _, it := range s.items {
			if it.relVisible && it.name == table {
				return true
			}
		}
		if s.corr == nil {
			break
		}
		s = s.corr.outer
	}
	return false
}

// WithPos sets an error's position from a 0-based byte offset of the
// parser (-1 for none).
func WithPos(e *pgerr.Error, loc int32) *pgerr.Error {
	if loc >= 0 && e.Position == 0 {
		e.Position = int(loc) + 1
	}
	return e
}

// SQLSTATE codes of the query machinery that pgerr does not name yet.
const (
	codeAmbiguousAlias   pgerr.Code = "42P09"
	codeInvalidRecursion pgerr.Code = "42P19"
	codeWindowingError   pgerr.Code = "42P20"
)

// resolveColumn resolves the column table.name (table may be empty) in sc
// or, failing that, in the enclosing queries, with PostgreSQL's errors for
// missing and ambiguous names.
func (a *analyzer) resolveColumn(sc *scope, table, name string, loc int32) (exec.Expr, error) {
	e, err := a.resolveIn(sc, table, name, loc, false)
	if err != nil || e != nil {
		return e, err
	}
	if a.vars != nil {
		if e, ok := a.vars.param(a, table, name); ok {
			return e, nil
		}
	}
	if table != "" && !sc.hasItem(table) {
		if slices.Contains(a.hidden, table) {
			return nil, WithPos(pgerr.New(pgerr.UndefinedTable, "invalid reference to FROM-clause entry for table %q", table).
				WithHint("There is an entry for table %q, but it cannot be referenced from this part of the query.", table), loc)
		}
		return nil, WithPos(pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", table), loc)
	}
	if table != "" {
		return nil, WithPos(pgerr.New(pgerr.UndefinedColumn, "column %s.%s does not exist", table, name), loc)
	}
	return nil, WithPos(pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", name), loc)
}

// resolveIn is resolveColumn returning nil, nil for a name found nowhere;
// fromSub says the name is used inside a subquery of sc's query.
func (a *analyzer) resolveIn(sc *scope, table, name string, loc int32, fromSub bool) (exec.Expr, error) {
	if sc == nil {
		return nil, nil
	}
	item, col, err := sc.lookup(table, name, loc)
	if err != nil && !isUndefinedColumn(err) {
		return nil, err
	}
	if col == nil && (name == "xmin" || name == "xmax") {
		if it := sc.writtenItem(table); it != nil {
			// RETURNING's xmin and xmax of a row just written: the
			// writing transaction's id, and that id or 0.
			return exec.WrittenXid{Xmax: name == "xmax"}, nil
		}
	}
	if col == nil && name == "tableoid" {
		var sys exec.Expr
		if item, col, sys, err = sc.systemColumn(table, loc); sys != nil || err != nil {
			if sys != nil && sc.track != nil {
				sc.track(item) // a condition on it is a condition on its table
			}
			return sys, err
		}
	} else if err != nil {
		return nil, err
	}
	if col != nil {
		return a.columnIn(sc, item, col, loc, fromSub)
	}
	if sc.corr == nil || sc.corr.outer == nil {
		return nil, nil
	}
	e, err := a.resolveIn(sc.corr.outer, table, name, loc, fromSub || sc.corr.fromSub)
	if e == nil || err != nil {
		return nil, err
	}
	return sc.corr.ref(e), nil
}

// columnIn is the reference to column col of item, found in sc.
func (a *analyzer) columnIn(sc *scope, item *nsItem, col *scopeCol, loc int32, fromSub bool) (exec.Expr, error) {
	a.useColumn(col)
	if col.virtual != nil && sc.corr == col.virtualCorr && sc.group == nil {
		return col.virtual, nil
	}
	if sc.track != nil {
		sc.track(item)
	}
	if sc.group != nil {
		return a.groupedColumn(sc, item, col, loc, fromSub)
	}
	return col.colRef(), nil
}

// resolveItemColumn is resolveIn for column col of FROM item item, found
// by identity instead of by name, in sc or an enclosing scope: a whole-row
// reference reads each column so, duplicate names (a subquery's
// ?column?s) included.
func (a *analyzer) resolveItemColumn(sc *scope, item *nsItem, col *scopeCol, loc int32, fromSub bool) (exec.Expr, error) {
	if sc == nil {
		return nil, nil
	}
	if slices.Contains(sc.items, item) {
		return a.columnIn(sc, item, col, loc, fromSub)
	}
	if sc.corr == nil || sc.corr.outer == nil {
		return nil, nil
	}
	e, err := a.resolveItemColumn(sc.corr.outer, item, col, loc, fromSub || sc.corr.fromSub)
	if e == nil || err != nil {
		return nil, err
	}
	return sc.corr.ref(e), nil
}

// sameOuterValue reports whether two expressions of one enclosing scope
// read the same value: the same pointer, or references to the same
// column. (References whose place is not settled yet, Idx -1, are equal
// only to themselves.)
func sameOuterValue(a, b exec.Expr) bool {
	if a == b {
		return true
	}
	switch x := a.(type) {
	case *exec.ColRef:
		y, ok := b.(*exec.ColRef)
		return ok && x.Idx >= 0 && x.Idx == y.Idx && x.T == y.T
	case *exec.OuterRef:
		y, ok := b.(*exec.OuterRef)
		return ok && x.Idx == y.Idx && x.T == y.T
	}
	return false
}

// isUndefinedColumn reports whether err is a missing column's error.
func isUndefinedColumn(err error) bool {
	e, ok := err.(*pgerr.Error)
	return ok && e.Code == pgerr.UndefinedColumn
}

// writtenItem returns the item named table (any item when table is
// empty) when it is the target of the INSERT, UPDATE or DELETE whose
// RETURNING list is being analyzed, nil otherwise.
func (sc *scope) writtenItem(table string) *nsItem {
	for _, it := range sc.items {
		if it.written && (table == "" && it.colsVisible || table != "" && it.relVisible && it.name == table) {
			return it
		}
	}
	return nil
}

// systemColumn resolves the system column tableoid of the table item
// named table (any table item when table is empty): the OID of the
// table a row was read from. That is a constant unless the item reads
// several tables, when it is the column the Append adds (col).
func (sc *scope) systemColumn(table string, loc int32) (*nsItem, *scopeCol, exec.Expr, error) {
	var found *nsItem
	for _, it := range sc.items {
		if it.table == nil || it.kind != itemTable || (table == "" && !it.colsVisible) || (table != "" && (!it.relVisible || it.name != table)) {
			continue
		}
		if found != nil {
			return nil, nil, nil, WithPos(pgerr.New(pgerr.AmbiguousColumn, "column reference %q is ambiguous", "tableoid"), loc)
		}
		found = it
	}
	switch {
	case found == nil && table != "" && sc.hasItem(table):
		return nil, nil, nil, WithPos(pgerr.New(pgerr.UndefinedColumn, "column %s.%s does not exist", table, "tableoid"), loc)
	case found == nil:
		return nil, nil, nil, nil
	case found.written:
		return found, nil, exec.WrittenTableOID{}, nil
	case found.tableOID != nil:
		return found, found.tableOID, nil, nil
	}
	return found, nil, &exec.Const{D: exec.DInt(int64(found.table.OID)), T: exec.T{OID: exec.OIDOid, Typmod: -1}}, nil
}
