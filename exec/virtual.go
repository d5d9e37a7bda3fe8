package exec

import (
	"slices"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// VirtualRows computes the rows of a virtual table for one scan. The rows
// belong to the scan; the function may be called by several scans at once
// and must not keep state between calls.
type VirtualRows func(env *Env) ([]Row, error)

// VirtualColumn is a column of a virtual table.
type VirtualColumn struct {
	Name string
	Type T
}

// NewVirtualTable returns a read-only table whose rows are computed by
// rows at each scan: the catalog views (pg_catalog, information_schema)
// and a sequence read as a relation. It has no primary key, no indexes and
// no stored maps; DML on it fails unless VirtualWriter is set (UPDATE and
// DELETE of dolt_conflicts_<table>).
func NewVirtualTable(schema, name string, oid uint32, cols []VirtualColumn, rows VirtualRows) *Table {
	def := &sqldef.Table{Schema: schema, Name: name, Columns: make([]sqldef.Column, len(cols))}
	t := &Table{Def: def, OID: oid, Cols: make([]Column, len(cols)), Virtual: rows}
	for i, c := range cols {
		def.Columns[i] = sqldef.Column{Name: c.Name, Type: c.Type.OID, Typmod: c.Type.Typmod}
		t.Cols[i] = Column{Name: c.Name, Type: c.Type, Pos: i}
	}
	return t
}

// openVirtual starts a scan of a virtual table.
func openVirtual(env *Env, t *Table) (Rows, error) {
	rows, err := t.Virtual(env)
	if err != nil {
		return nil, err
	}
	return &bufferedRows{rows: rows}, nil
}

// virtualWriteError is the error of a statement that would change a
// virtual table, worded as PostgreSQL words it.
func virtualWriteError(kind ModifyKind, t *Table) error {
	verb := map[ModifyKind]string{Insert: "insert into", Update: "update", Delete: "delete from", Merge: "merge into"}[kind]
	switch t.VirtualKind {
	case 'v':
		return pgerr.New(pgerr.FeatureNotSupported, "cannot %s view %q", verb, t.Def.Name).
			WithDetail("Views are read-only here.")
	case 'S':
		return pgerr.New(pgerr.WrongObjectType, "cannot change sequence %q", t.Def.Name)
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied: %q is a system catalog", t.Def.Name)
}

// VirtualWriter receives the rows an UPDATE or DELETE changes in a
// virtual table, whole rows of its columns. It writes through env.Txn.
type VirtualWriter interface {
	UpdateRow(env *Env, old, row Row) error
	DeleteRow(env *Env, old Row) error
}

// VirtualInserter, when a VirtualWriter implements it, makes its table
// writable by INSERT too: it gets each new row.
type VirtualInserter interface {
	InsertRow(env *Env, row Row) error
}

// openVirtualWrite runs an UPDATE or DELETE of a writable virtual table:
// the rows the source selects go to the table's VirtualWriter.
func (p *Modify) openVirtualWrite(env *Env) (Rows, error) {
	if err := env.Txn.CheckWritable(); err != nil {
		return nil, err
	}
	src, err := p.Source.Open(env)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if p.Kind == Insert {
		return p.insertVirtual(env, src)
	}
	var changed []Row
	for {
		in, err := src.Next()
		if err != nil {
			return nil, err
		}
		if in == nil {
			break
		}
		changed = append(changed, slices.Clone(in[:len(p.Table.Cols)]))
	}
	// The source is read to the end first: writes change what it reads.
	out := &modifiedRows{}
	for _, old := range changed {
		ret := old
		if p.Kind == Update {
			row := slices.Clone(old)
			for pos, e := range p.Sets {
				if e != nil {
					if row[pos], err = e.Eval(env, old); err != nil {
						return nil, err
					}
				}
			}
			if err := p.Table.VirtualWriter.UpdateRow(env, old, row); err != nil {
				return nil, err
			}
			ret = row
		} else if err := p.Table.VirtualWriter.DeleteRow(env, old); err != nil {
			return nil, err
		}
		out.n++
		if len(p.Returning) > 0 {
			r := make(Row, len(p.Returning))
			for i, e := range p.Returning {
				if r[i], err = e.Eval(env, ret); err != nil {
					return nil, err
				}
			}
			out.rows = append(out.rows, r)
		}
	}
	return out, nil
}

// insertVirtual runs an INSERT into a virtual table whose writer takes
// new rows (VirtualInserter). A virtual table with a primary key, which
// ON CONFLICT can name, is one that holds no rows before the statement
// (a user-writable system table not stored yet): its conflicts are with
// rows the statement inserted, which DO NOTHING skips and DO UPDATE
// refuses, as PostgreSQL refuses to affect a row twice.
func (p *Modify) insertVirtual(env *Env, src Rows) (Rows, error) {
	ins := p.Table.VirtualWriter.(VirtualInserter)
	out := &modifiedRows{}
	for {
		in, err := src.Next()
		if err != nil {
			return nil, err
		}
		if in == nil {
			return out, nil
		}
		row := make(Row, len(p.Table.Cols))
		for i := range row {
			row[i] = Null
		}
		for i, pos := range p.Targets {
			row[pos] = in[i]
		}
		if err := ins.InsertRow(env, row); err != nil {
			if p.Conflict == nil || pgerr.CodeOf(err) != pgerr.UniqueViolation {
				return nil, err
			}
			if p.Conflict.Update {
				return nil, pgerr.New(pgerr.CardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time").
					WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
			}
			continue // DO NOTHING
		}
		out.n++
		if len(p.Returning) > 0 {
			r := make(Row, len(p.Returning))
			for i, e := range p.Returning {
				if r[i], err = e.Eval(env, row); err != nil {
					return nil, err
				}
			}
			out.rows = append(out.rows, r)
		}
	}
}
