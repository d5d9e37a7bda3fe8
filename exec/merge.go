package exec

import (
	"slices"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// MERGE. A Modify of kind Merge reads as its Source the source rows
// joined to the target table's rows (an outer join, keeping every source
// row, when a WHEN NOT MATCHED clause inserts): each joined row holds the
// target's columns in Table's layout, the matched target row's key
// (RowKeys, NULL when the source row matched none), then the source's
// columns. For each joined row, the first WHEN clause of its kind
// (MATCHED or NOT MATCHED) whose condition holds acts, through the same
// writers as INSERT, UPDATE and DELETE (rowTarget), with their
// constraints, triggers and foreign keys.
//
// A target row is changed (updated or deleted) at most once: a second
// source row that would change it again fails with 21000, as in
// PostgreSQL. Before changing a row, MERGE takes its row lock; in READ
// COMMITTED, a row that a concurrent transaction changed meanwhile is
// acted on in its newest committed version, as PostgreSQL's EvalPlanQual
// does: the join condition is tested again on it with the same source
// row, and the WHEN MATCHED clauses chosen again from the first; a row
// that no longer matches, or was deleted, goes to the WHEN NOT MATCHED
// clauses.

// MergeClause is what a MERGE's Modify adds to the other kinds: where its
// joined rows keep the target row's key, its join condition and its
// WHEN clauses.
type MergeClause struct {
	// KeyAt is the position of the key column in the source's rows:
	// the target's columns are before it, the source's after it.
	KeyAt int
	// On is the join condition over a joined row, tested again on the
	// newer version of a target row (READ COMMITTED).
	On Expr
	// Matched and NotMatched are the WHEN clauses of each kind, in their
	// order.
	Matched, NotMatched []MergeAction
}

// MergeKind is what a WHEN clause does.
type MergeKind uint8

const (
	MergeDoNothing MergeKind = iota
	MergeInsert
	MergeUpdate
	MergeDelete
)

// MergeAction is one WHEN clause of a MERGE. Its expressions are over
// the joined row (a NOT MATCHED clause's read only the source's columns).
type MergeAction struct {
	Kind MergeKind
	Cond Expr // nil: always
	// Sets, for UPDATE, compute the new values of columns by position
	// (nil: unchanged), as Modify.Sets.
	Sets []Expr
	// Values, for INSERT, compute the columns Targets; Modify.Defaults
	// the others.
	Targets []int
	Values  []Expr
	// Existing are the row-level security checks of the target row an
	// UPDATE or DELETE acts on (their policies' USING expressions, as an
	// error); Policies those of the row an UPDATE or INSERT writes, over
	// the table's layout (rls.go).
	Existing, Policies []PolicyCheck
}

// events returns the trigger events of c's actions, in the order of
// PostgreSQL's BEFORE statement triggers, and the union of the columns
// its UPDATE actions assign (for UPDATE OF triggers).
func (c *MergeClause) events(width int) ([]string, []Expr) {
	var has [4]bool
	var sets []Expr
	for _, acts := range [][]MergeAction{c.Matched, c.NotMatched} {
		for _, a := range acts {
			has[a.Kind] = true
			if a.Kind != MergeUpdate {
				continue
			}
			if sets == nil {
				sets = make([]Expr, width)
			}
			for pos, e := range a.Sets {
				if e != nil {
					sets[pos] = e
				}
			}
		}
	}
	var events []string
	for k, name := range [...]string{MergeInsert: "INSERT", MergeUpdate: "UPDATE", MergeDelete: "DELETE"} {
		if has[k] && name != "" {
			events = append(events, name)
		}
	}
	return events, sets
}

// openMerge runs a MERGE.
func (p *Modify) openMerge(env *Env) (Rows, error) {
	events, sets := p.Merge.events(len(p.Table.Cols))
	var target rowTarget
	if p.Members != nil {
		mt, err := p.openFamily(env, events, sets)
		if err != nil {
			return nil, err
		}
		target = mt
	} else {
		tt, err := p.openTable(env, events, sets)
		if err != nil {
			return nil, err
		}
		target = tt
	}
	src, err := p.Source.Open(env)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	out := &modifiedRows{}
	changed := map[string]bool{} // the target rows updated or deleted
	for {
		in, err := src.Next()
		if err != nil {
			return nil, err
		}
		if in == nil {
			break
		}
		done, err := p.mergeRow(env, target, in, changed)
		if err != nil {
			return nil, err
		}
		if done {
			out.n++
		}
	}
	if err := target.finish(); err != nil {
		return nil, err
	}
	return out, nil
}

// mergeRow acts on one joined row: done reports that a row was written.
func (p *Modify) mergeRow(env *Env, target rowTarget, in Row, changed map[string]bool) (done bool, err error) {
	m := p.Merge
	if k := in[m.KeyAt]; !k.IsNull() {
		key := []byte(k.S)
		stored := in[:len(p.Table.Cols)] // the version in the transaction's maps
		var based []byte                 // the newer committed version acted on
		for {
			act, err := m.choose(env, m.Matched, in)
			if err != nil || act == nil || act.Kind == MergeDoNothing {
				return false, err
			}
			if changed[string(key)] {
				return false, pgerr.New(pgerr.CardinalityViolation, "MERGE command cannot affect row a second time").
					WithHint("Ensure that not more than one source row matches any one target row.")
			}
			mode := ForUpdate
			if act.Kind == MergeUpdate {
				mode = updateLockMode(p.Table, act.Sets)
			}
			newer, now, gone, err := target.lock(key, mode, alwaysTrue)
			if err != nil {
				return false, err
			}
			if gone || newer != nil {
				// A concurrent transaction changed or deleted the row and
				// committed while this one waited for its lock (which is
				// ours now): act on what it left, as PostgreSQL's
				// EvalPlanQual does.
				joined := slices.Clone(in)
				matched := false
				if gone {
					if err := target.vanish(key, stored); err != nil {
						return false, err
					}
				} else {
					copy(joined, newer)
					if matched, err = isTrue(env, m.On, joined); err != nil {
						return false, err
					}
				}
				in = joined
				if matched {
					based = now
					continue // choose again, from the first WHEN MATCHED
				}
				clear(in[:m.KeyAt+1])
				break // no longer matched
			}
			if err := checkPolicies(env, p.Table, act.Existing, in[:len(p.Table.Cols)]); err != nil {
				return false, err
			}
			target.checkWith(act.Policies)
			if act.Kind == MergeUpdate {
				_, done, err = target.update(key, stored, in, act.Sets, based)
			} else {
				_, done, err = target.delete(key, stored, in, based)
			}
			if done {
				changed[string(key)] = true
			}
			return done, err
		}
	}
	act, err := m.choose(env, m.NotMatched, in)
	if err != nil || act == nil || act.Kind == MergeDoNothing {
		return false, err
	}
	vals := make(Row, len(act.Values))
	for i, e := range act.Values {
		if vals[i], err = e.Eval(env, in); err != nil {
			return false, err
		}
	}
	row := make(Row, len(p.Table.Cols))
	if err := p.newRow(env, act.Targets, vals, row); err != nil {
		return false, err
	}
	target.checkWith(act.Policies)
	_, done, err = target.insert(row)
	return done, err
}

// choose returns the first of acts whose condition holds on row, nil if
// none does.
func (c *MergeClause) choose(env *Env, acts []MergeAction, row Row) (*MergeAction, error) {
	for i := range acts {
		a := &acts[i]
		if a.Cond == nil {
			return a, nil
		}
		ok, err := isTrue(env, a.Cond, row)
		if err != nil {
			return nil, err
		}
		if ok {
			return a, nil
		}
	}
	return nil, nil
}

// RowKeys adds to each row of In, which reads a table (or a family of
// tables, an Append), the key of the stored row it is, as a bytea column
// after In's: what PostgreSQL's ctid is to its MERGE, the identity of a
// target row that survives the join with the source rows.
type RowKeys struct {
	In Plan
}

func (p *RowKeys) Columns() []ResultColumn {
	return append(slices.Clip(p.In.Columns()), ResultColumn{Name: "?key?", T: TBytea})
}

func (p *RowKeys) Open(env *Env) (Rows, error) {
	in, err := p.In.Open(env)
	if err != nil {
		return nil, err
	}
	return &rowKeysRows{in: in.(keyedRows)}, nil
}

type rowKeysRows struct {
	in  keyedRows
	out Row
}

func (r *rowKeysRows) Next() (Row, error) {
	row, err := r.in.Next()
	if row == nil || err != nil {
		return nil, err
	}
	r.out = append(append(r.out[:0], row...), DBytes(string(r.in.Key())))
	return r.out, nil
}

func (r *rowKeysRows) Close() error { return r.in.Close() }
