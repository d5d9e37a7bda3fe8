package session

import (
	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// pg_partition_tree and pg_partition_root (pg_partition_ancestors is
// exec's, inherit.go): a partitioned table's tree as PostgreSQL's
// functions give it, from the tables' records (a partition's parent is its Inherits[0], a partitioned
// table's partitions are its children). A relation that is neither a
// partitioned table nor a partition gives no rows (NULL for the root), as
// does an OID that names nothing.
func init() {
	regclassT := exec.T{OID: exec.OIDRegclass, Typmod: -1}
	exec.RegisterSRF(&exec.Func{Name: "pg_partition_tree", Args: []uint32{exec.OIDRegclass}, Ret: exec.OIDRecord}, func([]exec.T) *exec.SRF {
		return &exec.SRF{Cols: []exec.ResultColumn{{Name: "relid", T: regclassT}, {Name: "parentrelid", T: regclassT},
			{Name: "isleaf", T: exec.TBool}, {Name: "level", T: exec.TInt4}}, Rows: partitionTree}
	})
	exec.Register(strict(&exec.Func{Name: "pg_partition_root", Args: []uint32{exec.OIDRegclass}, Ret: exec.OIDRegclass, Fn: partitionRoot}))
}

// partitioned returns the table whose OID d is, if it is partitioned or a
// partition.
func partitioned(env *exec.Env, d exec.Datum) (*catalog.Snapshot, *sqldef.Table, error) {
	s, ok := env.Session.(*Session)
	if !ok || d.IsNull() {
		return nil, nil, nil
	}
	snap, err := s.snapshot(env)
	if err != nil {
		return nil, nil, err
	}
	rel, ok := snap.RelationByOID(uint32(d.I))
	if !ok || rel.Kind != 'r' || rel.Table == nil || !rel.Table.Partitioned() && rel.Table.PartitionBound == nil {
		return nil, nil, nil
	}
	return snap, rel.Table, nil
}

// regclass is a table's regclass value, named as regclass output names it.
func regclass(env *exec.Env, t *sqldef.Table) (exec.Datum, error) {
	oid := catalog.TableOID(t.Schema, t.Name)
	name, err := env.Session.(*Session).RegOut(env, exec.OIDRegclass, oid)
	return exec.DRegOID(oid, name), err
}

// parentOf is a partition's partitioned table.
func parentOf(snap *catalog.Snapshot, t *sqldef.Table) (*sqldef.Table, bool) {
	if t.PartitionBound == nil || len(t.Inherits) == 0 {
		return nil, false
	}
	rel, ok := snap.RelationByName(t.Inherits[0].Schema, t.Inherits[0].Name)
	return rel.Table, ok && rel.Table != nil
}

func partitionTree(env *exec.Env, args []exec.Datum) ([]exec.Row, error) {
	snap, top, err := partitioned(env, args[0])
	if err != nil || top == nil {
		return nil, err
	}
	type node struct {
		t      *sqldef.Table
		parent exec.Datum
		level  int64
	}
	var rows []exec.Row
	parent := exec.Null
	if p, ok := parentOf(snap, top); ok {
		if parent, err = regclass(env, p); err != nil {
			return nil, err
		}
	}
	queue := []node{{top, parent, 0}}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		oid, err := regclass(env, n.t)
		if err != nil {
			return nil, err
		}
		rows = append(rows, exec.Row{oid, n.parent, exec.DBool(!n.t.Partitioned()), exec.DInt(n.level)})
		if !n.t.Partitioned() {
			continue
		}
		children, err := env.Txn.Root().Children(env.Ctx, n.t.Schema, n.t.Name)
		if err != nil {
			return nil, err
		}
		for _, c := range children {
			if rel, ok := snap.RelationByName(c.Schema, c.Name); ok && rel.Table != nil {
				queue = append(queue, node{rel.Table, oid, n.level + 1})
			}
		}
	}
	return rows, nil
}

func partitionRoot(env *exec.Env, args []exec.Datum) (exec.Datum, error) {
	snap, t, err := partitioned(env, args[0])
	if err != nil || t == nil {
		return exec.Null, err
	}
	for p, ok := parentOf(snap, t); ok; p, ok = parentOf(snap, t) {
		t = p
	}
	return regclass(env, t)
}
