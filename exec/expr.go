package exec

import (
	"context"
	"time"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// Env is what evaluation needs besides the row: the statement's context,
// parameters, session settings and the transaction's timestamp.
type Env struct {
	Ctx      context.Context
	Params   []Datum
	Settings *Settings
	TxnStart time.Time
	Txn      *Txn
	// Session is the session the statement runs in, for the functions
	// that need more than their arguments (the session's database and
	// branch, the dolt_* functions): the package that registers such a
	// function sets it and reads it back (planner/session's *Session). Nil where
	// no session runs the expression (index builds, generated columns),
	// whose functions are immutable.
	Session any

	// args is a stack for the arguments of function calls being
	// evaluated, reused so that a call allocates nothing.
	args []Datum
	// Outer holds, inside a correlated subquery, the values of the
	// enclosing query's columns that it reads (OuterRef); see SubPlan.
	Outer []Datum
	// frame is the state of one invocation of a (sub)query: caches of
	// uncorrelated subqueries, the buffers of its CTEs; see frame.go.
	frame *frame
	// writtenOID is the table the row RETURNING is computed for was
	// written to (WrittenTableOID); writtenLocked says the row was
	// deleted or updated by ON CONFLICT (WrittenXid).
	writtenOID    uint32
	writtenLocked bool
}

// Expr is a typed scalar expression, built by the planner and evaluated
// against a row. Exprs are immutable and may be evaluated concurrently.
type Expr interface {
	Eval(env *Env, row Row) (Datum, error)
	Type() T
}

// Const is a constant.
type Const struct {
	D Datum
	T T
}

func (e *Const) Eval(*Env, Row) (Datum, error) { return e.D, nil }
func (e *Const) Type() T                       { return e.T }

// ColRef reads column Idx of the input row.
type ColRef struct {
	Idx int
	T   T
}

func (e *ColRef) Eval(_ *Env, row Row) (Datum, error) { return row[e.Idx], nil }
func (e *ColRef) Type() T                             { return e.T }

// Param reads parameter Idx ($Idx+1).
type Param struct {
	Idx int
	T   T
}

func (e *Param) Eval(env *Env, _ Row) (Datum, error) {
	if e.Idx >= len(env.Params) {
		return Null, pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", e.Idx+1)
	}
	return env.Params[e.Idx], nil
}
func (e *Param) Type() T { return e.T }

// Fn is the implementation of a function or operator over evaluated
// arguments.
type Fn func(env *Env, args []Datum) (Datum, error)

// Call applies a function to its arguments. A strict function returns NULL
// without being called when an argument is NULL.
type Call struct {
	Name   string
	Fn     Fn
	Args   []Expr
	Strict bool
	T      T
}

func (e *Call) Eval(env *Env, row Row) (Datum, error) {
	base := len(env.args)
	defer func() { env.args = env.args[:base] }()
	for _, a := range e.Args {
		d, err := a.Eval(env, row)
		if err != nil {
			return Null, err
		}
		if e.Strict && d.IsNull() {
			return Null, nil
		}
		env.args = append(env.args, d)
	}
	// The slice stays valid for the call even if a nested evaluation grows
	// the stack: growth copies, and the old array lives while referenced.
	return e.Fn(env, env.args[base:len(env.args):len(env.args)])
}
func (e *Call) Type() T { return e.T }

// BoolOp is AND or OR with SQL's three-valued logic, evaluated left to
// right and stopping as soon as the result is known.
type BoolOp struct {
	Or   bool
	Args []Expr
	// In marks x IN (v1, ..., vn): an OR whose Args are the calls x = vi of
	// one type's built-in equality, over a type that hashes, with the same
	// x in each and every vi a constant or a parameter (the planner checks
	// it). Past inSetMin of them, Eval evaluates x once and looks it up in
	// a set of the vi built once per execution, as PostgreSQL hashes a long
	// IN list, instead of comparing it with each.
	In bool
}

// inSetMin is the shortest IN list looked up in a set (BoolOp.In):
// PostgreSQL's MIN_ARRAY_SIZE_FOR_HASHED_SAOP.
const inSetMin = 9

// inSet is the set of an IN list's values, for one execution; key and buf
// are the probe's scratch space, reused from row to row (an execution
// evaluates on one goroutine).
type inSet struct {
	table   *keyTable
	hasNull bool // a NULL value: x IN (...) is NULL rather than false
	key     [1]Datum
	buf     []byte
}

func (e *BoolOp) Eval(env *Env, row Row) (Datum, error) {
	if e.In && len(e.Args) >= inSetMin {
		return e.evalIn(env, row)
	}
	sawNull := false
	for _, a := range e.Args {
		d, err := a.Eval(env, row)
		if err != nil {
			return Null, err
		}
		switch {
		case d.IsNull():
			sawNull = true
		case d.Bool() == e.Or:
			return DBool(e.Or), nil
		}
	}
	if sawNull {
		return Null, nil
	}
	return DBool(!e.Or), nil
}
func (e *BoolOp) Type() T { return TBool }

// evalIn is Eval of an IN list (BoolOp.In): true when x equals a value,
// else NULL when x or a value is NULL, else false, as the OR of the
// equalities gives.
func (e *BoolOp) evalIn(env *Env, row Row) (Datum, error) {
	var s *inSet
	if v, ok := env.shared(e); ok {
		s = v.(*inSet)
	} else {
		s = &inSet{table: newKeyTable(1)}
		for _, a := range e.Args {
			d, err := a.(*Call).Args[1].Eval(env, nil)
			if err != nil {
				return Null, err
			}
			if d.IsNull() {
				s.hasNull = true
				continue
			}
			var h uint64
			s.key[0] = d
			h, s.buf = hashDatums(s.buf, s.key[:])
			s.table.add(h, s.key[:]) // copies the key
		}
		env.share(e, s)
	}
	x, err := e.Args[0].(*Call).Args[0].Eval(env, row)
	if err != nil || x.IsNull() {
		return Null, err
	}
	var h uint64
	s.key[0] = x
	h, s.buf = hashDatums(s.buf, s.key[:])
	switch {
	case s.table.first(h, s.key[:]) >= 0:
		return DBool(true), nil
	case s.hasNull:
		return Null, nil
	}
	return DBool(false), nil
}

// Not is logical negation; NOT NULL is NULL.
type Not struct{ E Expr }

func (e *Not) Eval(env *Env, row Row) (Datum, error) {
	d, err := e.E.Eval(env, row)
	if err != nil || d.IsNull() {
		return d, err
	}
	return DBool(!d.Bool()), nil
}
func (e *Not) Type() T { return TBool }

// IsNull is IS NULL, or IS NOT NULL with Not set.
type IsNull struct {
	E   Expr
	Not bool
}

func (e *IsNull) Eval(env *Env, row Row) (Datum, error) {
	d, err := e.E.Eval(env, row)
	if err != nil {
		return Null, err
	}
	if d.Kind == KindRecord {
		// A row IS NULL when every field is, IS NOT NULL when none is.
		for _, f := range d.Record().Fields {
			if f.IsNull() == e.Not {
				return DBool(false), nil
			}
		}
		return DBool(true), nil
	}
	return DBool(d.IsNull() != e.Not), nil
}
func (e *IsNull) Type() T { return TBool }

// Case is CASE WHEN ... THEN ... ELSE ... END; a simple CASE x WHEN v is
// planned as comparisons.
type Case struct {
	Whens []Expr
	Thens []Expr
	Else  Expr // nil: NULL
	T     T
}

func (e *Case) Eval(env *Env, row Row) (Datum, error) {
	for i, w := range e.Whens {
		d, err := w.Eval(env, row)
		if err != nil {
			return Null, err
		}
		if !d.IsNull() && d.Bool() {
			return e.Thens[i].Eval(env, row)
		}
	}
	if e.Else == nil {
		return Null, nil
	}
	return e.Else.Eval(env, row)
}
func (e *Case) Type() T { return e.T }

// Coalesce returns its first non-NULL argument.
type Coalesce struct {
	Args []Expr
	T    T
}

func (e *Coalesce) Eval(env *Env, row Row) (Datum, error) {
	for _, a := range e.Args {
		d, err := a.Eval(env, row)
		if err != nil || !d.IsNull() {
			return d, err
		}
	}
	return Null, nil
}
func (e *Coalesce) Type() T { return e.T }

// MinMax is GREATEST (Greatest) or LEAST of its arguments, which the
// planner has converted to one type T. NULLs are ignored; the result is
// NULL only when every argument is.
type MinMax struct {
	Args     []Expr
	T        T
	Greatest bool
}

func (e *MinMax) Eval(env *Env, row Row) (Datum, error) {
	best := Null
	for _, a := range e.Args {
		d, err := a.Eval(env, row)
		if err != nil {
			return Null, err
		}
		if d.IsNull() {
			continue
		}
		if best.IsNull() {
			best = d
			continue
		}
		if c := Compare(d, best); c > 0 && e.Greatest || c < 0 && !e.Greatest {
			best = d
		}
	}
	return best, nil
}
func (e *MinMax) Type() T { return e.T }

// isTrue evaluates a predicate; NULL counts as false, as in WHERE.
func isTrue(env *Env, e Expr, row Row) (bool, error) {
	d, err := e.Eval(env, row)
	if err != nil {
		return false, err
	}
	return !d.IsNull() && d.Bool(), nil
}
