package versioning

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Keys of a root value's map: a kind byte, the schema name, a zero byte, the
// object name. Kinds sort schemas first, then tables, then sequences.
const (
	kindTextSearchDict   = 'w' // TextSearchDictionary
	kindTextSearchConfig = 'g' // TextSearchConfig
	kindConflicts        = 'c' // merge conflicts of table schema.name awaiting resolution
	kindDefaultACL       = 'd' // DefaultPrivileges: schema ("" for all), name = role\0objtype
	kindExtension        = 'e' // Extension: schema "", name = the extension's
	kindFKRef            = 'f' // ForeignKeyRef: schema = referenced schema, name = refTable\0schema\0table\0name
	kindInherits         = 'i' // a child table: schema = parent's schema, name = parent\0schema\0child
	kindLargeObject      = 'l' // LargeObject: schema "", name = its OID, zero-padded
	kindFunction         = 'p' // Function: name = name(argtype OIDs), see functionName
	kindSchema           = 's'
	kindTable            = 't'
	kindSequence         = 'u'
	kindView             = 'v'
	kindType             = 'y' // enum, composite and domain types (CREATE TYPE, CREATE DOMAIN)
)

func objectKey(kind byte, schema, name string) []byte {
	k := make([]byte, 0, 2+len(schema)+len(name))
	k = append(k, kind)
	k = append(k, schema...)
	k = append(k, 0)
	return append(k, name...)
}

// RootValue is the whole database at one point: a Prolly map from object
// names to catalog records (schemas, tables with the roots of their row
// maps, sequences). Equal databases have equal root values, whatever
// history produced them. A RootValue is an immutable value; the Put and
// Drop methods return new ones.
type RootValue struct {
	m prolly.Map
}

// NewRootValue returns the root value of a new database: schema public and
// nothing else.
func NewRootValue(ctx context.Context, cs prolly.ChunkStore) (RootValue, error) {
	m, err := prolly.NewMap(ctx, cs)
	if err != nil {
		return RootValue{}, err
	}
	return RootValue{m}.PutSchema(ctx, sqldef.Schema{Name: "public", Owner: "postgres"})
}

// LoadRootValue returns the root value stored at addr.
func LoadRootValue(ctx context.Context, cs prolly.ChunkStore, addr store.Address) (RootValue, error) {
	m, err := prolly.Load(ctx, cs, addr)
	if err != nil {
		return RootValue{}, fmt.Errorf("versioning: loading root value: %w", err)
	}
	return RootValue{m}, nil
}

// Addr returns the root value's address; equal databases have equal ones.
func (r RootValue) Addr() store.Address { return r.m.Root() }

// Store returns the chunk store the root value lives in.
func (r RootValue) Store() prolly.ChunkStore { return r.m.Store() }

// Table returns the table schema.name.
func (r RootValue) Table(ctx context.Context, schema, name string) (*sqldef.Table, bool, error) {
	return getObject[sqldef.Table](ctx, r, objectKey(kindTable, schema, name))
}

// Sequence returns the sequence schema.name.
func (r RootValue) Sequence(ctx context.Context, schema, name string) (*sqldef.Sequence, bool, error) {
	return getObject[sqldef.Sequence](ctx, r, objectKey(kindSequence, schema, name))
}

// HasSchema reports whether schema name exists.
func (r RootValue) HasSchema(ctx context.Context, name string) (bool, error) {
	_, ok, err := r.m.Get(ctx, objectKey(kindSchema, name, ""))
	return ok, err
}

// Schema returns the schema name.
func (r RootValue) Schema(ctx context.Context, name string) (*sqldef.Schema, bool, error) {
	return getObject[sqldef.Schema](ctx, r, objectKey(kindSchema, name, ""))
}

// getObject returns the record stored under key, decoded.
func getObject[T any](ctx context.Context, r RootValue, key []byte) (*T, bool, error) {
	v := new(T)
	ok, err := r.get(ctx, key, v)
	if !ok || err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// listObjects returns every record of kind, decoded, ordered by schema
// and name.
func listObjects[T any](ctx context.Context, r RootValue, kind byte) ([]*T, error) {
	var out []*T
	err := r.each(ctx, kind, func(b []byte) error {
		v := new(T)
		out = append(out, v)
		return decodeRecord(b, v)
	})
	return out, err
}

func (r RootValue) get(ctx context.Context, key []byte, v any) (bool, error) {
	b, ok, err := r.m.Get(ctx, key)
	if !ok || err != nil {
		return false, err
	}
	return true, decodeRecord(b, v)
}

// Tables returns every table, ordered by schema and name.
func (r RootValue) Tables(ctx context.Context) ([]*sqldef.Table, error) {
	return listObjects[sqldef.Table](ctx, r, kindTable)
}

// Sequences returns every sequence, ordered by schema and name.
func (r RootValue) Sequences(ctx context.Context) ([]*sqldef.Sequence, error) {
	return listObjects[sqldef.Sequence](ctx, r, kindSequence)
}

// Schemas returns every schema, ordered by name.
func (r RootValue) Schemas(ctx context.Context) ([]*sqldef.Schema, error) {
	return listObjects[sqldef.Schema](ctx, r, kindSchema)
}

// rangeIter returns an iterator over the root's keys in [lo, hi), or nil
// (and no error) when there are none. Most catalog lookups find nothing
// (no user-defined function or operator of a name, no inheritance child,
// no foreign key reference), and the planner makes them for every
// statement it analyzes and every cached plan it reuses: the check costs
// no allocation, an iterator does.
func (r RootValue) rangeIter(ctx context.Context, lo, hi []byte) (*prolly.Iter, error) {
	if ok, err := r.m.AnyIn(ctx, lo, hi); !ok || err != nil {
		return nil, err
	}
	return r.m.NewIter(ctx, prolly.IterOptions{LowerBound: lo, UpperBound: hi}), nil
}

func (r RootValue) each(ctx context.Context, kind byte, fn func([]byte) error) error {
	it, err := r.rangeIter(ctx, []byte{kind}, []byte{kind + 1})
	if it == nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.Value()
		if err != nil {
			return err
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return it.Close()
}

// PutTable returns the root value with t stored under its schema and name.
func (r RootValue) PutTable(ctx context.Context, t *sqldef.Table) (RootValue, error) {
	root, _, err := r.PutTableRecord(ctx, t)
	return root, err
}

// PutTableRecord is PutTable, also returning the record as stored: the
// key under which callers cache the decoded table (see TableRecord).
func (r RootValue) PutTableRecord(ctx context.Context, t *sqldef.Table) (RootValue, []byte, error) {
	b, err := encodeRecord(t)
	if err != nil {
		return RootValue{}, nil, err
	}
	m, err := r.m.Apply(ctx, []prolly.Edit{{Key: objectKey(kindTable, t.Schema, t.Name), Value: b}})
	return RootValue{m}, b, err
}

// PutSequence returns the root value with s stored.
func (r RootValue) PutSequence(ctx context.Context, s *sqldef.Sequence) (RootValue, error) {
	return r.put(ctx, objectKey(kindSequence, s.Schema, s.Name), s)
}

// PutSchema returns the root value with s stored.
func (r RootValue) PutSchema(ctx context.Context, s sqldef.Schema) (RootValue, error) {
	return r.put(ctx, objectKey(kindSchema, s.Name, ""), &s)
}

func (r RootValue) put(ctx context.Context, key []byte, v any) (RootValue, error) {
	b, err := encodeRecord(v)
	if err != nil {
		return RootValue{}, err
	}
	m, err := r.m.Apply(ctx, []prolly.Edit{{Key: key, Value: b}})
	return RootValue{m}, err
}

// DropTable returns the root value without table schema.name.
func (r RootValue) DropTable(ctx context.Context, schema, name string) (RootValue, error) {
	return r.drop(ctx, objectKey(kindTable, schema, name))
}

// DropSequence returns the root value without sequence schema.name.
func (r RootValue) DropSequence(ctx context.Context, schema, name string) (RootValue, error) {
	return r.drop(ctx, objectKey(kindSequence, schema, name))
}

// DropSchema returns the root value without schema name (its objects must
// have been dropped first).
func (r RootValue) DropSchema(ctx context.Context, name string) (RootValue, error) {
	return r.drop(ctx, objectKey(kindSchema, name, ""))
}

func (r RootValue) drop(ctx context.Context, key []byte) (RootValue, error) {
	m, err := r.m.Apply(ctx, []prolly.Edit{{Key: key, Delete: true}})
	return RootValue{m}, err
}

// splitObjectKey returns the parts of a root value key.
func splitObjectKey(k []byte) (kind byte, schema, name string, err error) {
	i := bytes.IndexByte(k, 0)
	if len(k) < 2 || i < 0 {
		return 0, "", "", fmt.Errorf("%w: root value key %q", ErrCorrupt, k)
	}
	return k[0], string(k[1:i]), string(k[i+1:]), nil
}

// TablesIn returns the tables of schema, ordered by name.
func (r RootValue) TablesIn(ctx context.Context, schema string) ([]*sqldef.Table, error) {
	lo := objectKey(kindTable, schema, "")
	hi := append(objectKey(kindTable, schema, "")[:len(lo)-1], 1)
	var out []*sqldef.Table
	it, err := r.rangeIter(ctx, lo, hi)
	if it == nil {
		return nil, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.Value()
		if err != nil {
			it.Close()
			return nil, err
		}
		t := new(sqldef.Table)
		if err := decodeRecord(v, t); err != nil {
			it.Close()
			return nil, err
		}
		out = append(out, t)
	}
	return out, it.Close()
}

// TableRecord returns the encoded record of table schema.name, a view
// valid while the caller holds it: callers that cache decoded tables key
// them by it (equal bytes, equal table), and DecodeTable decodes it.
func (r RootValue) TableRecord(ctx context.Context, schema, name string) ([]byte, bool, error) {
	return r.m.Get(ctx, objectKey(kindTable, schema, name))
}

// DecodeTable decodes a table record from TableRecord.
func DecodeTable(b []byte) (*sqldef.Table, error) {
	t := new(sqldef.Table)
	if err := decodeRecord(b, t); err != nil {
		return nil, err
	}
	return t, nil
}

func fkRefKey(r sqldef.ForeignKeyRef) []byte {
	return objectKey(kindFKRef, r.RefSchema, r.RefTable+"\x00"+r.Schema+"\x00"+r.Table+"\x00"+r.Name)
}

// referencingTables returns the tables that have a foreign key, as
// schema "\x00" table; it reads only the foreign-key references, which
// are few, so a merge need not decode every changed table to learn which
// ones it must check.
func (r RootValue) referencingTables(ctx context.Context) (map[string]bool, error) {
	lo := []byte{kindFKRef}
	hi := []byte{kindFKRef + 1}
	var out map[string]bool
	it, err := r.rangeIter(ctx, lo, hi)
	if it == nil {
		return nil, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		_, _, name, err := splitObjectKey(it.Key())
		var parts []string
		if err == nil {
			parts = strings.Split(name, "\x00")
		}
		if len(parts) != 4 {
			it.Close()
			return nil, fmt.Errorf("%w: foreign key reference %q", ErrCorrupt, it.Key())
		}
		if out == nil {
			out = map[string]bool{}
		}
		out[parts[1]+"\x00"+parts[2]] = true
	}
	return out, it.Close()
}

// PutForeignKeyRef records a foreign key reference.
func (r RootValue) PutForeignKeyRef(ctx context.Context, ref sqldef.ForeignKeyRef) (RootValue, error) {
	m, err := r.m.Apply(ctx, []prolly.Edit{{Key: fkRefKey(ref), Value: []byte{recordVersion}}})
	return RootValue{m}, err
}

// DropForeignKeyRef forgets a foreign key reference.
func (r RootValue) DropForeignKeyRef(ctx context.Context, ref sqldef.ForeignKeyRef) (RootValue, error) {
	return r.drop(ctx, fkRefKey(ref))
}

// ReferencingKeys returns the foreign keys that reference table
// schema.table, ordered by referencing schema, table and name.
func (r RootValue) ReferencingKeys(ctx context.Context, schema, table string) ([]sqldef.ForeignKeyRef, error) {
	lo := objectKey(kindFKRef, schema, table+"\x00")
	hi := append(bytes.Clone(lo[:len(lo)-1]), 1)
	var out []sqldef.ForeignKeyRef
	it, err := r.rangeIter(ctx, lo, hi)
	if it == nil {
		return nil, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		parts := bytes.Split(it.Key()[len(lo):], []byte{0})
		if len(parts) != 3 {
			it.Close()
			return nil, fmt.Errorf("%w: foreign key reference %q", ErrCorrupt, it.Key())
		}
		out = append(out, sqldef.ForeignKeyRef{RefSchema: schema, RefTable: table, Schema: string(parts[0]), Table: string(parts[1]), Name: string(parts[2])})
	}
	return out, it.Close()
}

func inheritsKey(parent, child sqldef.TableName) []byte {
	return objectKey(kindInherits, parent.Schema, parent.Name+"\x00"+child.Schema+"\x00"+child.Name)
}

// PutInheritance records that child inherits from parent. Like foreign
// key references, these records are derived from the tables' Inherits,
// kept by the DDL that changes those, so that a scan finds a table's
// children with one seek.
func (r RootValue) PutInheritance(ctx context.Context, parent, child sqldef.TableName) (RootValue, error) {
	m, err := r.m.Apply(ctx, []prolly.Edit{{Key: inheritsKey(parent, child), Value: []byte{recordVersion}}})
	return RootValue{m}, err
}

// DropInheritance forgets that child inherits from parent.
func (r RootValue) DropInheritance(ctx context.Context, parent, child sqldef.TableName) (RootValue, error) {
	return r.drop(ctx, inheritsKey(parent, child))
}

// Children returns the tables that inherit directly from schema.name,
// ordered by schema and name.
func (r RootValue) Children(ctx context.Context, schema, name string) ([]sqldef.TableName, error) {
	lo := objectKey(kindInherits, schema, name+"\x00")
	hi := append(bytes.Clone(lo[:len(lo)-1]), 1)
	var out []sqldef.TableName
	it, err := r.rangeIter(ctx, lo, hi)
	if it == nil {
		return nil, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		parts := bytes.Split(it.Key()[len(lo):], []byte{0})
		if len(parts) != 2 {
			it.Close()
			return nil, fmt.Errorf("%w: inheritance record %q", ErrCorrupt, it.Key())
		}
		out = append(out, sqldef.TableName{Schema: string(parts[0]), Name: string(parts[1])})
	}
	return out, it.Close()
}

// View returns the view schema.name.
func (r RootValue) View(ctx context.Context, schema, name string) (*sqldef.View, bool, error) {
	return getObject[sqldef.View](ctx, r, objectKey(kindView, schema, name))
}

// Views returns every view, ordered by schema and name.
func (r RootValue) Views(ctx context.Context) ([]*sqldef.View, error) {
	return listObjects[sqldef.View](ctx, r, kindView)
}

// PutView returns the root value with v stored.
func (r RootValue) PutView(ctx context.Context, v *sqldef.View) (RootValue, error) {
	return r.put(ctx, objectKey(kindView, v.Schema, v.Name), v)
}

// DropView returns the root value without view schema.name.
func (r RootValue) DropView(ctx context.Context, schema, name string) (RootValue, error) {
	return r.drop(ctx, objectKey(kindView, schema, name))
}

// Type returns the type schema.name (an enum, composite or domain).
func (r RootValue) Type(ctx context.Context, schema, name string) (*sqldef.Type, bool, error) {
	return getObject[sqldef.Type](ctx, r, objectKey(kindType, schema, name))
}

// Types returns every type, ordered by schema and name.
func (r RootValue) Types(ctx context.Context) ([]*sqldef.Type, error) {
	return listObjects[sqldef.Type](ctx, r, kindType)
}

// functionName is the name part of a function's key: its name and the OIDs
// of its input argument types, so that overloads are distinct objects.
func functionName(name string, inputs []uint32) string {
	b := []byte(name)
	b = append(b, '(')
	for i, t := range inputs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(t), 10)
	}
	return string(append(b, ')'))
}

// Function returns the function schema.name taking inputs.
func (r RootValue) Function(ctx context.Context, schema, name string, inputs []uint32) (*sqldef.Function, bool, error) {
	return getObject[sqldef.Function](ctx, r, objectKey(kindFunction, schema, functionName(name, inputs)))
}

// Functions returns every function and procedure, ordered by schema,
// name and argument types; operators are not among them (Operators).
func (r RootValue) Functions(ctx context.Context) ([]*sqldef.Function, error) {
	fs, err := listObjects[sqldef.Function](ctx, r, kindFunction)
	return slices.DeleteFunc(fs, (*sqldef.Function).NotRoutine), err
}

// operatorName is the name part of an operator's key. It is a function's
// name part whose argument list starts with "o" and always holds both
// operands (0 for a prefix operator's left one): no function's key is an
// operator's, and a name's operators sort after its functions.
func operatorName(name string, left, right uint32) string {
	return name + "(o" + strconv.FormatUint(uint64(left), 10) + "," + strconv.FormatUint(uint64(right), 10) + ")"
}

// functionKey is the key of function or operator f.
func functionKey(f *sqldef.Function) []byte {
	if f.IsOperator() {
		l, r := f.Operands()
		return objectKey(kindFunction, f.Schema, operatorName(f.Name, l, r))
	}
	if f.IsCast() {
		return objectKey(kindFunction, castSchema, castName(f.CastTypes()))
	}
	return objectKey(kindFunction, f.Schema, functionName(f.Name, f.InputTypes()))
}

// Operator returns the operator schema.name over left and right (left 0
// for a prefix operator).
func (r RootValue) Operator(ctx context.Context, schema, name string, left, right uint32) (*sqldef.Function, bool, error) {
	return getObject[sqldef.Function](ctx, r, objectKey(kindFunction, schema, operatorName(name, left, right)))
}

// Operators returns every operator, ordered by schema, name and operand
// types.
func (r RootValue) Operators(ctx context.Context) ([]*sqldef.Function, error) {
	fs, err := listObjects[sqldef.Function](ctx, r, kindFunction)
	return slices.DeleteFunc(fs, func(f *sqldef.Function) bool { return !f.IsOperator() }), err
}

// PutType returns the root value with t stored.
func (r RootValue) PutType(ctx context.Context, t *sqldef.Type) (RootValue, error) {
	return r.put(ctx, objectKey(kindType, t.Schema, t.Name), t)
}

// DropType returns the root value without type schema.name.
func (r RootValue) DropType(ctx context.Context, schema, name string) (RootValue, error) {
	return r.drop(ctx, objectKey(kindType, schema, name))
}

// FunctionsNamed returns the overloads of schema.name.
func (r RootValue) FunctionsNamed(ctx context.Context, schema, name string) ([]*sqldef.Function, error) {
	fs, err := r.routinesNamed(ctx, schema, name)
	return slices.DeleteFunc(fs, (*sqldef.Function).NotRoutine), err
}

// OperatorsNamed returns the operators schema.name.
func (r RootValue) OperatorsNamed(ctx context.Context, schema, name string) ([]*sqldef.Function, error) {
	fs, err := r.routinesNamed(ctx, schema, name+"(o")
	return slices.DeleteFunc(fs, func(f *sqldef.Function) bool { return !f.IsOperator() }), err
}

// routinesNamed returns the records whose key's name part starts with
// name and "(": the overloads of a function name, or, for prefix
// "name(o", the operators of that name.
func (r RootValue) routinesNamed(ctx context.Context, schema, prefix string) ([]*sqldef.Function, error) {
	name, _, _ := strings.Cut(prefix, "(")
	lo := objectKey(kindFunction, schema, prefix)
	hi := objectKey(kindFunction, schema, name+")")
	var out []*sqldef.Function
	it, err := r.rangeIter(ctx, lo, hi)
	if it == nil {
		return nil, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.Value()
		if err != nil {
			it.Close()
			return nil, err
		}
		f := new(sqldef.Function)
		if err := decodeRecord(v, f); err != nil {
			it.Close()
			return nil, err
		}
		out = append(out, f)
	}
	return out, it.Close()
}

// PutFunction returns the root value with f, a function or an operator,
// stored.
func (r RootValue) PutFunction(ctx context.Context, f *sqldef.Function) (RootValue, error) {
	return r.put(ctx, functionKey(f), f)
}

// DropFunction returns the root value without f, a function or an
// operator.
func (r RootValue) DropFunction(ctx context.Context, f *sqldef.Function) (RootValue, error) {
	return r.drop(ctx, functionKey(f))
}

// castSchema and castName place a cast's record in the function key
// space: casts have no schema of their own, and pg_catalog holds no
// user function, so no function's key is a cast's.
const castSchema = "pg_catalog"

// castName is the name part of the key of the cast from source to
// target: "cast(c<source>,<target>)".
func castName(source, target uint32) string {
	return "cast(c" + strconv.FormatUint(uint64(source), 10) + "," + strconv.FormatUint(uint64(target), 10) + ")"
}

// Cast returns the user-defined cast from source to target.
func (r RootValue) Cast(ctx context.Context, source, target uint32) (*sqldef.Function, bool, error) {
	return getObject[sqldef.Function](ctx, r, objectKey(kindFunction, castSchema, castName(source, target)))
}

// Casts returns every user-defined cast, ordered by source and target
// type.
func (r RootValue) Casts(ctx context.Context) ([]*sqldef.Function, error) {
	fs, err := r.routinesNamed(ctx, castSchema, "cast(c")
	return slices.DeleteFunc(fs, func(f *sqldef.Function) bool { return !f.IsCast() }), err
}
