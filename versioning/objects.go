package versioning

import (
	"context"
	"reflect"
	"strings"

	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Objects other than tables: views, types, functions and procedures,
// and sequences. Version control lists, stages, diffs and merges them
// one by one, as it does tables; a sequence a column owns is the
// exception, going with its table (CREATE TABLE ... serial made it).

// ObjectName names one object of a root value: its kind and the schema
// and name parts of its key. A function's name part carries its input
// argument types' OIDs (see functionName), so overloads are distinct.
type ObjectName struct {
	Kind         byte
	Schema, Name string
}

// BaseName is the object's name without a function's argument types.
func (o ObjectName) BaseName() string {
	if o.Kind == kindFunction {
		if i := strings.IndexByte(o.Name, '('); i >= 0 {
			return o.Name[:i]
		}
	}
	return o.Name
}

// IsObject reports whether the change is of an object other than a
// table that version control lists by itself: a view, a type, a function
// or procedure, or a sequence, a column's own too (Doltgres lists and
// stages those apart from their tables).
func (c ObjectChange) IsObject() bool {
	switch c.Kind {
	case kindView, kindType, kindFunction, kindSequence:
		return true
	}
	return false
}

// OwnedSequence reports whether a changed sequence is owned by a column
// in either version.
func (c ObjectChange) OwnedSequence() bool {
	for _, b := range [][]byte{c.From, c.To} {
		if b == nil {
			continue
		}
		var s sqldef.Sequence
		if decodeRecord(b, &s) == nil && s.OwnedBy != "" {
			return true
		}
	}
	return false
}

// SequenceDataOnly reports whether a changed sequence differs only in
// its position (nextval, setval): a change of data, not of definition.
func (c ObjectChange) SequenceDataOnly() bool {
	if c.Kind != kindSequence || c.From == nil || c.To == nil {
		return false
	}
	var from, to sqldef.Sequence
	if decodeRecord(c.From, &from) != nil || decodeRecord(c.To, &to) != nil {
		return false
	}
	from.Last, from.Called, to.Last, to.Called = 0, false, 0, false
	return reflect.DeepEqual(from, to)
}

// ObjectsNamed returns the objects other than tables named schema.name in
// r: a view, a type or a sequence, or every overload of a function.
func (r RootValue) ObjectsNamed(ctx context.Context, schema, name string) ([]ObjectName, error) {
	var out []ObjectName
	for _, kind := range []byte{kindView, kindType, kindSequence} {
		if _, ok, err := r.m.Get(ctx, objectKey(kind, schema, name)); err != nil {
			return nil, err
		} else if ok {
			out = append(out, ObjectName{kind, schema, name})
		}
	}
	lo := objectKey(kindFunction, schema, name+"(")
	hi := objectKey(kindFunction, schema, name+")")
	it, err := r.rangeIter(ctx, lo, hi)
	if it == nil {
		return out, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		_, _, fn, err := splitObjectKey(it.Key())
		if err != nil {
			it.Close()
			return nil, err
		}
		out = append(out, ObjectName{kindFunction, schema, fn})
	}
	return out, it.Close()
}

// ObjectRecord returns the stored record of an object, for callers that
// decode it by kind.
func (r RootValue) ObjectRecord(ctx context.Context, o ObjectName) ([]byte, bool, error) {
	return r.m.Get(ctx, objectKey(o.Kind, o.Schema, o.Name))
}

// DecodeObject decodes an object's record into v (a *View, *Type,
// *Function, *Sequence or *Table as its kind says).
func DecodeObject(b []byte, v any) error { return decodeRecord(b, v) }
