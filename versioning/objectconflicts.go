package versioning

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Objects other than tables (views, types, functions, sequences) merge
// field by field, as Doltgres merges its root objects: a field one side
// changed takes that side's value, and only the fields both sides changed
// differently conflict. A merge that leaves such fields records them
// (TableConflicts.Fields, with the object's three records) and gives the
// object the merged version, ours in the conflicting fields. An object
// dropped on one side and changed on the other is one conflict on the
// whole object, FieldRootObject. The conflicts are resolved field by
// field (SetObjectField, DropObjectFields) or all at once
// (ResolveConflicts).

// FieldRootObject names the conflict of an object dropped on one side
// and changed on the other: resolving it picks a whole version, ours,
// theirs or the ancestor's.
const FieldRootObject = "root_object"

// The versions FieldRootObject's values name.
const (
	VersionOurs     = "ours"
	VersionTheirs   = "theirs"
	VersionAncestor = "ancestor"
)

// objectField is one field of an object's record: the JSON keys of the
// record it covers, which a merge takes together from one side.
type objectField struct {
	name string
	keys []string
	// merge, when set, combines values both sides changed differently
	// rather than conflicting.
	merge func(base, ours, theirs fieldValue) fieldValue
}

// fieldValue is the part of a record's JSON object a field covers: its
// keys that are present (encoding/json omits empty ones).
type fieldValue map[string]json.RawMessage

// objectFields are the fields of each kind, in the order the conflicts
// tables list them; a record's keys that none covers are fields of their
// own, named by the key (an owner, an ACL).
var objectFields = map[byte][]objectField{
	kindFunction: {
		{name: "parameters", keys: []string{"args"}},
		{name: "return_type", keys: []string{"returns"}},
		{name: "volatility", keys: []string{"volatility"}},
		{name: "strict", keys: []string{"strict"}},
		{name: "definition", keys: []string{"body"}},
		{name: "language", keys: []string{"language"}},
		{name: "set_of", keys: []string{"returns_set"}},
		{name: "aggregate", keys: []string{"aggregate"}},
		{name: "operator", keys: []string{"operator"}},
		{name: "cast", keys: []string{"cast"}},
		{name: "comment", keys: []string{"comment"}},
	},
	// A view's columns and dependencies follow from its query, and the
	// CREATE VIEW statement it was written with goes with it.
	kindView: {
		{name: "definition", keys: []string{"query", "columns", "depends", "statement"}},
		{name: "check_option", keys: []string{"check"}},
		{name: "comment", keys: []string{"comment"}},
	},
	kindType: {
		{name: "labels", keys: []string{"labels"}},
		{name: "attributes", keys: []string{"fields"}},
		{name: "base_type", keys: []string{"base", "base_typmod"}},
		{name: "not_null", keys: []string{"not_null"}},
		{name: "default", keys: []string{"default"}},
		{name: "checks", keys: []string{"checks"}},
		{name: "comment", keys: []string{"comment"}},
	},
	kindSequence: {
		{name: "data_type", keys: []string{"type"}},
		{name: "start", keys: []string{"start"}},
		// Positions never conflict: the further one is kept.
		{name: "current", keys: []string{"last", "called"}, merge: furtherPosition},
		{name: "increment", keys: []string{"increment"}},
		{name: "minimum", keys: []string{"min"}},
		{name: "maximum", keys: []string{"max"}},
		{name: "cache", keys: []string{"cache"}},
		{name: "cycle", keys: []string{"cycle"}},
		{name: "owned_by", keys: []string{"owned_by"}},
		{name: "comment", keys: []string{"comment"}},
	},
}

// recordObject returns a new value of the record type of kind.
func recordObject(kind byte) (any, error) {
	switch kind {
	case kindView:
		return new(sqldef.View), nil
	case kindType:
		return new(sqldef.Type), nil
	case kindFunction:
		return new(sqldef.Function), nil
	case kindSequence:
		return new(sqldef.Sequence), nil
	}
	return nil, fmt.Errorf("versioning: %s records have no fields", objectKindName(kind))
}

// recordMap decodes a record's JSON object; nil for an absent record.
func recordMap(rec []byte) (map[string]json.RawMessage, error) {
	if rec == nil {
		return nil, nil
	}
	if len(rec) == 0 || rec[0] != recordVersion {
		return nil, fmt.Errorf("%w: catalog record of unknown version", ErrCorrupt)
	}
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(rec[1:], &m); err != nil {
		return nil, fmt.Errorf("%w: catalog record: %v", ErrCorrupt, err)
	}
	return m, nil
}

// encodeRecordMap encodes a record's JSON object as encodeRecord encodes
// its struct, so that equal objects have equal records.
func encodeRecordMap(kind byte, m map[string]json.RawMessage) ([]byte, error) {
	v, err := recordObject(kind)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return nil, fmt.Errorf("%w: catalog record: %v", ErrCorrupt, err)
	}
	return encodeRecord(v)
}

// fieldsOf returns kind's fields, then one for each key of recs that none
// covers, in key order.
func fieldsOf(kind byte, recs ...map[string]json.RawMessage) []objectField {
	fields := objectFields[kind]
	covered := map[string]bool{"schema": true, "name": true} // the record's key
	for _, f := range fields {
		for _, k := range f.keys {
			covered[k] = true
		}
	}
	var extra []string
	for _, m := range recs {
		for k := range m {
			if !covered[k] {
				covered[k] = true
				extra = append(extra, k)
			}
		}
	}
	slices.Sort(extra)
	out := slices.Clip(fields)
	for _, k := range extra {
		out = append(out, objectField{name: k, keys: []string{k}})
	}
	return out
}

// fieldNamed returns kind's field of that name (one of its declared
// fields, or a key of its records).
func fieldNamed(kind byte, name string, recs ...map[string]json.RawMessage) (objectField, bool) {
	for _, f := range fieldsOf(kind, recs...) {
		if f.name == name {
			return f, true
		}
	}
	return objectField{}, false
}

func (f objectField) value(m map[string]json.RawMessage) fieldValue {
	v := fieldValue{}
	for _, k := range f.keys {
		if raw, ok := m[k]; ok {
			v[k] = raw
		}
	}
	return v
}

func (f objectField) set(m map[string]json.RawMessage, v fieldValue) {
	for _, k := range f.keys {
		delete(m, k)
	}
	for k, raw := range v {
		m[k] = raw
	}
}

// sameValue reports whether two values of a field are equal: records are
// encoded deterministically, so equal values have equal bytes.
func sameValue(a, b fieldValue) bool {
	if len(a) != len(b) {
		return false
	}
	for k, raw := range a {
		if other, ok := b[k]; !ok || !bytes.Equal(raw, other) {
			return false
		}
	}
	return true
}

// furtherPosition merges two positions of a sequence: the one further
// along in the direction of its increment, as MergeRoots does.
func furtherPosition(_, ours, theirs fieldValue) fieldValue {
	var o, t struct {
		Last   int64 `json:"last"`
		Called bool  `json:"called"`
	}
	unmarshalField(ours, &o)
	unmarshalField(theirs, &t)
	if !o.Called || t.Called && t.Last > o.Last {
		return theirs
	}
	return ours
}

// unmarshalField decodes a field's keys into v, a struct with those keys.
func unmarshalField(f fieldValue, v any) {
	b, _ := json.Marshal(map[string]json.RawMessage(f))
	_ = json.Unmarshal(b, v)
}

// mergeObject merges an object other than a table that both sides
// changed, field by field. It returns the merged record and, when fields
// conflict, the object's conflicts.
func mergeObject(kind byte, schema, name string, c prolly.Collision, opts MergeOptions) (prolly.Resolution, *TableConflicts, error) {
	tc := &TableConflicts{Schema: schema, Name: name, Kind: kind, FromRoot: opts.FromRoot,
		BaseRecord: cloneIf(c.Base, c.InBase), OursRecord: cloneIf(c.Ours, c.InOurs), TheirsRecord: cloneIf(c.Theirs, c.InTheirs)}
	if !c.InOurs || !c.InTheirs {
		tc.Fields = []string{FieldRootObject}
		return keepOurs(c), tc, nil
	}
	var recs [3]map[string]json.RawMessage
	for i, b := range [][]byte{tc.BaseRecord, tc.OursRecord, tc.TheirsRecord} {
		var err error
		if recs[i], err = recordMap(b); err != nil {
			return prolly.Resolution{}, nil, err
		}
	}
	base, ours, theirs := recs[0], recs[1], recs[2]
	merged := maps.Clone(ours)
	for _, f := range fieldsOf(kind, base, ours, theirs) {
		b, o, t := f.value(base), f.value(ours), f.value(theirs)
		switch {
		case sameValue(o, t):
		case c.InBase && sameValue(o, b):
			f.set(merged, t)
		case c.InBase && sameValue(t, b):
		case f.merge != nil:
			f.set(merged, f.merge(b, o, t))
		default:
			tc.Fields = append(tc.Fields, f.name)
		}
	}
	rec, err := encodeRecordMap(kind, merged)
	if err != nil {
		return prolly.Resolution{}, nil, err
	}
	if len(tc.Fields) == 0 {
		return prolly.Resolution{Value: rec}, nil, nil
	}
	tc.OursRecord = rec
	return prolly.Resolution{Value: rec}, tc, nil
}

// ObjectFields returns the fields of an object's conflict still awaiting
// resolution, in the order a merge found them. A record written before
// conflicts were kept by field is one conflict on the whole object.
func (c *TableConflicts) ObjectFields() []string {
	if c.Kind == 0 {
		return nil
	}
	if len(c.Fields) == 0 && c.SchemaConflict != "" {
		return []string{FieldRootObject}
	}
	return c.Fields
}

// ObjectFieldText is the text of one field of an object's record: a
// string as it is, a number or boolean in its SQL text form, anything
// else as JSON; the keys of a field of several are joined by ", ". ok is
// false for an absent record or an unknown field.
func ObjectFieldText(kind byte, rec []byte, field string) (text string, ok bool, err error) {
	m, err := recordMap(rec)
	if err != nil || m == nil {
		return "", false, err
	}
	f, found := fieldNamed(kind, field, m)
	if !found {
		return "", false, nil
	}
	v, err := recordObject(kind)
	if err != nil {
		return "", false, err
	}
	if err := decodeRecord(rec, v); err != nil {
		return "", false, err
	}
	var parts []string
	for _, k := range f.keys {
		fv, ok := jsonField(reflect.ValueOf(v).Elem(), k)
		if !ok {
			continue
		}
		switch fv.Kind() {
		case reflect.String:
			parts = append(parts, fv.String())
		case reflect.Bool:
			parts = append(parts, strconv.FormatBool(fv.Bool()))
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			parts = append(parts, strconv.FormatInt(fv.Int(), 10))
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			parts = append(parts, strconv.FormatUint(fv.Uint(), 10))
		default:
			b, err := json.Marshal(fv.Interface())
			if err != nil {
				return "", false, err
			}
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, ", "), true, nil
}

// jsonField finds the field of struct v whose JSON key is key.
func jsonField(v reflect.Value, key string) (reflect.Value, bool) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if tag == key {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// settableField decodes rec into its kind's struct and finds the Go
// field of a field of one key.
func settableField(kind byte, rec []byte, field string) (any, reflect.Value, error) {
	m, err := recordMap(rec)
	if err != nil {
		return nil, reflect.Value{}, err
	}
	f, found := fieldNamed(kind, field, m)
	if !found || len(f.keys) != 1 {
		return nil, reflect.Value{}, fmt.Errorf("%w: field %q cannot be set", ErrNoField, field)
	}
	v, err := recordObject(kind)
	if err != nil {
		return nil, reflect.Value{}, err
	}
	if err := decodeRecord(rec, v); err != nil {
		return nil, reflect.Value{}, err
	}
	fv, ok := jsonField(reflect.ValueOf(v).Elem(), f.keys[0])
	if !ok {
		return nil, reflect.Value{}, fmt.Errorf("%w: field %q cannot be set", ErrNoField, field)
	}
	return v, fv, nil
}

// SetObjectFieldText returns rec with a one-key field set from text, parsed
// for the field's Go type (a string, a boolean or an integer); fields of
// other types cannot be set from text.
func SetObjectFieldText(kind byte, rec []byte, field, text string) ([]byte, error) {
	v, fv, err := settableField(kind, rec, field)
	if err != nil {
		return nil, err
	}
	switch fv.Kind() {
	case reflect.String:
		fv.SetString(text)
	case reflect.Bool:
		b, err := parseBool(text)
		if err != nil {
			return nil, err
		}
		fv.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, fv.Type().Bits())
		if err != nil {
			return nil, fmt.Errorf("%w: %q is not a valid value of %s", ErrBadValue, text, field)
		}
		fv.SetInt(n)
	default:
		return nil, fmt.Errorf("%w: field %q can only take one side's value", ErrNoField, field)
	}
	return encodeRecord(v)
}

// SetObjectFieldValue returns rec with a one-key field set to val, which
// must be of the field's Go type.
func SetObjectFieldValue(kind byte, rec []byte, field string, val any) ([]byte, error) {
	v, fv, err := settableField(kind, rec, field)
	if err != nil {
		return nil, err
	}
	if reflect.TypeOf(val) != fv.Type() {
		return nil, fmt.Errorf("%w: field %q cannot be set to a %T", ErrNoField, field, val)
	}
	fv.Set(reflect.ValueOf(val))
	return encodeRecord(v)
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "t", "true", "y", "yes", "on", "1":
		return true, nil
	case "f", "false", "n", "no", "off", "0":
		return false, nil
	}
	return false, fmt.Errorf("%w: %q is not a boolean", ErrBadValue, s)
}

// CopyObjectField returns rec with field taken from the record from (nil:
// the field's keys removed).
func CopyObjectField(kind byte, rec, from []byte, field string) ([]byte, error) {
	m, err := recordMap(rec)
	if err != nil {
		return nil, err
	}
	src, err := recordMap(from)
	if err != nil {
		return nil, err
	}
	f, found := fieldNamed(kind, field, m, src)
	if !found {
		return nil, fmt.Errorf("%w: field %q", ErrNoField, field)
	}
	f.set(m, f.value(src))
	return encodeRecordMap(kind, m)
}

// Errors of setting an object's field.
var (
	ErrNoField  = fmt.Errorf("versioning: no such field")
	ErrBadValue = fmt.Errorf("versioning: invalid field value")
)

// SetObjectField sets a field of the object in conflict c: rec is the
// object's new record, written to root (nil drops the object; for
// FieldRootObject it is the version picked) and kept as ours' version in
// c. With resolved, the field leaves the conflicts (FieldRootObject
// always does). It returns the root with c stored, or removed once no
// field is left.
func SetObjectField(ctx context.Context, root RootValue, c *TableConflicts, field string, rec []byte, resolved bool) (RootValue, error) {
	root, err := root.putObjectRecord(ctx, c, rec)
	if err != nil {
		return RootValue{}, err
	}
	c.OursRecord = rec
	if resolved || field == FieldRootObject {
		return DropObjectFields(ctx, root, c, field)
	}
	return root.PutConflicts(ctx, c)
}

// DropObjectFields marks fields of the object in conflict c resolved,
// leaving the object as it is, and returns the root with c stored, or
// removed once no field is left.
func DropObjectFields(ctx context.Context, root RootValue, c *TableConflicts, fields ...string) (RootValue, error) {
	left := slices.DeleteFunc(slices.Clone(c.ObjectFields()), func(f string) bool { return slices.Contains(fields, f) })
	c.Fields, c.SchemaConflict = left, ""
	return root.PutConflicts(ctx, c)
}

// ObjectVersion returns the record of the version of c's object a
// FieldRootObject value names (nil: absent in that version).
func (c *TableConflicts) ObjectVersion(version string) ([]byte, bool) {
	switch version {
	case VersionOurs:
		return c.OursRecord, true
	case VersionTheirs:
		return c.TheirsRecord, true
	case VersionAncestor:
		return c.BaseRecord, true
	}
	return nil, false
}

// takeTheirFields resolves the conflict c of an object with theirs: the
// conflicting fields take theirs' values (the whole object for
// FieldRootObject).
func takeTheirFields(ctx context.Context, root RootValue, c *TableConflicts) (RootValue, error) {
	fields := c.ObjectFields()
	rec := c.TheirsRecord
	if !slices.Contains(fields, FieldRootObject) {
		cur, ok, err := root.m.Get(ctx, objectKey(c.Kind, c.Schema, c.Name))
		if err != nil {
			return RootValue{}, err
		}
		if !ok {
			cur = c.OursRecord
		}
		rec = bytes.Clone(cur)
		for _, f := range fields {
			if rec, err = CopyObjectField(c.Kind, rec, c.TheirsRecord, f); err != nil {
				return RootValue{}, err
			}
		}
	}
	return root.putObjectRecord(ctx, c, rec)
}

// putObjectRecord returns r with the record of c's object set to rec, or
// the object dropped when rec is nil.
func (r RootValue) putObjectRecord(ctx context.Context, c *TableConflicts, rec []byte) (RootValue, error) {
	key := objectKey(c.Kind, c.Schema, c.Name)
	if rec == nil {
		return r.drop(ctx, key)
	}
	m, err := r.m.Apply(ctx, []prolly.Edit{{Key: key, Value: rec}})
	return RootValue{m}, err
}
