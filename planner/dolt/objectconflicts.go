package dolt

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The conflicts of objects other than tables (functions, views, types,
// sequences), as Doltgres shows its root objects' conflicts: the table
// dolt_conflicts_<object>, named as dolt_conflicts lists the object
// without its schema ("dolt_conflicts_f(integer)" for a function), has
// one row per field both sides of the merge changed differently
// (versioning.TableConflicts.Fields):
//
//	from_root_ish, base_value, our_value, our_diff_type, their_value,
//	their_diff_type, dolt_conflict_id (the field's name)
//
// It exists while the object has conflicts. UPDATE of our_value gives
// the object that value of the field: theirs' or the ancestor's value
// resolves the field, another value stays in conflict until the row is
// deleted. DELETE resolves fields keeping the object as it is. An object
// dropped on one side and changed on the other has the one field
// root_object, whose values name versions: 'ours', 'theirs',
// 'ancestor'; setting our_value picks that version.

// conflictsPrefix is how the names of the conflicts tables begin.
const conflictsPrefix = "dolt_conflicts_"

var objectConflictCols = []exec.VirtualColumn{
	{Name: "from_root_ish", Type: exec.TText}, {Name: "base_value", Type: exec.TText},
	{Name: "our_value", Type: exec.TText}, {Name: "our_diff_type", Type: exec.TText},
	{Name: "their_value", Type: exec.TText}, {Name: "their_diff_type", Type: exec.TText},
	{Name: "dolt_conflict_id", Type: exec.TText},
}

// The positions of objectConflictCols.
const (
	colBase = 1 + iota
	colOurs
	colOurDiff
	colTheirs
	colTheirDiff
	colField
)

// ObjectConflictsTable returns the conflicts table of an object a FROM
// name refers to, dolt_conflicts_<object> in schema (or along the search
// path), if root records conflicts of that object. found is false for
// any other name.
func ObjectConflictsTable(ctx context.Context, sess Session, root versioning.RootValue, schema, name string) (*exec.Table, bool, error) {
	rel, ok := strings.CutPrefix(name, conflictsPrefix)
	if !ok || rel == "" {
		return nil, false, nil
	}
	tc, err := findObjectConflict(ctx, sess, root, schema, rel)
	if err != nil || tc == nil {
		return nil, false, err
	}
	s := session{sess}
	tname := conflictsPrefix + rel
	t := exec.NewVirtualTable(tc.Schema, tname, exec.ObjectOID('r', tc.Schema, tname), objectConflictCols, func(env *exec.Env) ([]exec.Row, error) {
		return s.objectConflictRows(env, tc.Schema, tc.Name)
	})
	t.VirtualKind = 'c'
	t.VirtualWriter = objectConflictsWriter{s: s, schema: tc.Schema, name: tc.Name}
	return t, true, nil
}

// findObjectConflict finds the conflict of the object whose label
// without its schema is rel, in the first schema of the search path that
// has one (the schema given, when given); nil when there is none.
func findObjectConflict(ctx context.Context, sess Session, root versioning.RootValue, schema, rel string) (*versioning.TableConflicts, error) {
	all, err := root.AllConflicts(ctx)
	if err != nil {
		return nil, err
	}
	var objects []*versioning.TableConflicts
	for _, tc := range all {
		if tc.Kind != 0 {
			objects = append(objects, tc)
		}
	}
	if len(objects) == 0 {
		return nil, nil
	}
	names, err := labelTypes(ctx, root)
	if err != nil {
		return nil, err
	}
	want := withoutSpaces(rel)
	for _, sc := range sess.RelationSchemas(schema) {
		for _, tc := range objects {
			if tc.Schema == sc && withoutSpaces(strings.TrimPrefix(conflictLabel(tc, names), tc.Schema+".")) == want {
				return tc, nil
			}
		}
	}
	return nil, nil
}

func withoutSpaces(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// objectConflictRows are the rows of the conflicts table of object
// schema.name: one per field in conflict.
func (s session) objectConflictRows(env *exec.Env, schema, name string) ([]exec.Row, error) {
	root := env.Txn.Root()
	tc, ok, err := root.Conflicts(env.Ctx, schema, name)
	if err != nil || !ok {
		return nil, err
	}
	names, err := labelTypes(env.Ctx, root)
	if err != nil {
		return nil, err
	}
	var rows []exec.Row
	for _, field := range tc.ObjectFields() {
		row := exec.Row{exec.DText(tc.FromRoot), exec.Null, exec.Null, exec.Null, exec.Null, exec.Null, exec.DText(field)}
		if field == versioning.FieldRootObject {
			for _, v := range []struct {
				col     int
				version string
			}{{colBase, versioning.VersionAncestor}, {colOurs, versioning.VersionOurs}, {colTheirs, versioning.VersionTheirs}} {
				if rec, _ := tc.ObjectVersion(v.version); rec != nil {
					row[v.col] = exec.DText(v.version)
				}
			}
		} else {
			for col, rec := range map[int][]byte{colBase: tc.BaseRecord, colOurs: tc.OursRecord, colTheirs: tc.TheirsRecord} {
				text, ok, err := fieldText(tc.Kind, rec, field, names)
				if err != nil {
					return nil, err
				}
				if ok {
					row[col] = exec.DText(text)
				}
			}
		}
		row[colOurDiff] = exec.DText(fieldDiffType(tc, row[colBase], row[colOurs]))
		row[colTheirDiff] = exec.DText(fieldDiffType(tc, row[colBase], row[colTheirs]))
		rows = append(rows, row)
	}
	return rows, nil
}

// fieldDiffType says how one side changed a field from the ancestor.
func fieldDiffType(tc *versioning.TableConflicts, base, side exec.Datum) string {
	switch {
	case tc.BaseRecord == nil:
		return "added"
	case side.IsNull():
		return "deleted"
	case !base.IsNull() && base.S == side.S:
		return "no_change"
	}
	return "modified"
}

// fieldText is a field of an object's record as the conflicts table
// shows it; ok is false where the record is absent.
func fieldText(kind byte, rec []byte, field string, names catalog.TypeNamer) (string, bool, error) {
	if rec == nil {
		return "", false, nil
	}
	switch kind {
	case versioning.KindFunction:
		var f sqldef.Function
		if err := versioning.DecodeObject(rec, &f); err != nil {
			return "", false, err
		}
		switch field {
		case "parameters":
			return catalog.FunctionArguments(&f, true, names), true, nil
		case "return_type":
			return typeName(f.Returns, names), true, nil
		case "volatility":
			return volatilityWord(f.Volatility), true, nil
		case "definition":
			return strings.TrimSpace(f.Body), true, nil
		}
	case versioning.KindView:
		if field == "definition" {
			var v sqldef.View
			if err := versioning.DecodeObject(rec, &v); err != nil {
				return "", false, err
			}
			return strings.TrimSpace(v.Query), true, nil
		}
	case versioning.KindType:
		var t sqldef.Type
		if err := versioning.DecodeObject(rec, &t); err != nil {
			return "", false, err
		}
		switch field {
		case "labels":
			labels := make([]string, len(t.Labels))
			for i, l := range t.Labels {
				labels[i] = l.Label
			}
			return strings.Join(labels, ", "), true, nil
		case "attributes":
			attrs := make([]string, len(t.Fields))
			for i, a := range t.Fields {
				attrs[i] = catalog.QuoteIdent(a.Name) + " " + typeName(a.Type, names)
			}
			return strings.Join(attrs, ", "), true, nil
		case "base_type":
			return typeName(t.Base, names), true, nil
		}
	case versioning.KindSequence:
		if field == "data_type" {
			var sq sqldef.Sequence
			if err := versioning.DecodeObject(rec, &sq); err != nil {
				return "", false, err
			}
			return typeName(sq.Type, names), true, nil
		}
	}
	return versioning.ObjectFieldText(kind, rec, field)
}

// typeName names a type as the conflicts tables show it: its typname, as
// Doltgres shows types (int4, float8), a user type as labels name it.
func typeName(oid uint32, names catalog.TypeNamer) string {
	if n := names(oid); n != "" {
		return n
	}
	if t := types.Lookup(types.Oid(oid)); t != nil {
		return t.Name
	}
	return strconv.FormatUint(uint64(oid), 10)
}

var volatilityWords = map[byte]string{'i': "immutable", 's': "stable", 'v': "volatile"}

func volatilityWord(v byte) string {
	if w, ok := volatilityWords[v]; ok {
		return w
	}
	return string(v)
}

// objectConflictsWriter makes dolt_conflicts_<object> writable.
type objectConflictsWriter struct {
	s            session
	schema, name string
}

// conflict returns the object's conflict record as the transaction has
// it now, and whether field is still in it.
func (w objectConflictsWriter) conflict(env *exec.Env, field string) (*versioning.TableConflicts, bool, error) {
	tc, ok, err := env.Txn.Root().Conflicts(env.Ctx, w.schema, w.name)
	if err != nil || !ok {
		return nil, false, err
	}
	for _, f := range tc.ObjectFields() {
		if f == field {
			return tc, true, nil
		}
	}
	return tc, false, nil
}

// DeleteRow resolves the row's field, keeping the object as it is.
func (w objectConflictsWriter) DeleteRow(env *exec.Env, old exec.Row) error {
	tc, ok, err := w.conflict(env, old[colField].S)
	if err != nil || !ok {
		return err
	}
	root, err := versioning.DropObjectFields(env.Ctx, env.Txn.Root(), tc, old[colField].S)
	if err != nil {
		return err
	}
	env.Txn.SetRoot(root)
	return nil
}

// UpdateRow gives the object the row's new our_value of its field.
func (w objectConflictsWriter) UpdateRow(env *exec.Env, old, row exec.Row) error {
	for i := range row {
		if i != colOurs && !sameText(old[i], row[i]) {
			return pgerr.New(pgerr.FeatureNotSupported, "only our_value of a conflicts table can be changed")
		}
	}
	if sameText(old[colOurs], row[colOurs]) {
		return nil
	}
	field := old[colField].S
	tc, ok, err := w.conflict(env, field)
	if err != nil || !ok {
		return err
	}
	value := row[colOurs]
	if value.IsNull() {
		return pgerr.New(pgerr.NotNullViolation, "our_value of field %s cannot be NULL", field)
	}
	rec, resolved, err := w.s.fieldValue(env, tc, field, value.S)
	if err != nil {
		return err
	}
	root, err := versioning.SetObjectField(env.Ctx, env.Txn.Root(), tc, field, rec, resolved)
	if err != nil {
		return err
	}
	env.Txn.SetRoot(root)
	return nil
}

// fieldValue returns the record of the object in conflict tc with field
// set to value, and whether that resolves the field: a version's name
// for root_object; theirs' or the ancestor's value (resolving it), or
// another the field can take.
func (s session) fieldValue(env *exec.Env, tc *versioning.TableConflicts, field, value string) ([]byte, bool, error) {
	root := env.Txn.Root()
	cur, present, err := root.ObjectRecord(env.Ctx, versioning.ObjectName{Kind: tc.Kind, Schema: tc.Schema, Name: tc.Name})
	if err != nil {
		return nil, false, err
	}
	if field == versioning.FieldRootObject {
		if value == versioning.VersionOurs {
			if !present {
				cur = nil
			}
			return cur, true, nil // the object as it is now
		}
		rec, ok := tc.ObjectVersion(value)
		if !ok {
			return nil, false, pgerr.New(pgerr.InvalidParameterValue, "cannot replace the object with `%s`", value).
				WithHint("Set our_value to 'ours', 'theirs' or 'ancestor'.")
		}
		return rec, true, nil
	}
	if !present {
		cur = tc.OursRecord
	}
	names, err := labelTypes(env.Ctx, root)
	if err != nil {
		return nil, false, err
	}
	for _, side := range [][]byte{tc.TheirsRecord, tc.BaseRecord} {
		text, ok, err := fieldText(tc.Kind, side, field, names)
		if err != nil {
			return nil, false, err
		}
		if ok && text == value {
			rec, err := versioning.CopyObjectField(tc.Kind, cur, side, field)
			return rec, true, err
		}
	}
	rec, err := s.parseField(env, tc.Kind, cur, field, value)
	return rec, false, err
}

func sameText(a, b exec.Datum) bool {
	return a.IsNull() == b.IsNull() && a.S == b.S
}

// parseField returns rec with field set to the value text, read as the
// conflicts table shows the field.
func (s session) parseField(env *exec.Env, kind byte, rec []byte, field, text string) ([]byte, error) {
	var out []byte
	var err error
	switch {
	case kind == versioning.KindFunction && field == "definition":
		var f sqldef.Function
		if err := versioning.DecodeObject(rec, &f); err != nil {
			return nil, err
		}
		// The body keeps the space around it that ours had.
		inner := strings.TrimSpace(f.Body)
		lead := f.Body[:strings.Index(f.Body, inner)]
		trail := f.Body[len(lead)+len(inner):]
		out, err = versioning.SetObjectFieldText(kind, rec, field, lead+text+trail)
	case kind == versioning.KindFunction && field == "return_type",
		kind == versioning.KindSequence && field == "data_type":
		var oid uint32
		if oid, err = s.TypeOID(env, text); err == nil {
			out, err = versioning.SetObjectFieldValue(kind, rec, field, oid)
		}
	case kind == versioning.KindFunction && field == "volatility":
		for b, w := range volatilityWords {
			if strings.EqualFold(strings.TrimSpace(text), w) {
				return versioning.SetObjectFieldValue(kind, rec, field, b)
			}
		}
		return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid volatility %q", text).
			WithHint("Set our_value to 'immutable', 'stable' or 'volatile'.")
	default:
		out, err = versioning.SetObjectFieldText(kind, rec, field, text)
	}
	switch {
	case errors.Is(err, versioning.ErrNoField):
		return nil, pgerr.New(pgerr.FeatureNotSupported, "field %s can only take its base or their value", field).
			WithHint("Set our_value to base_value or their_value, or delete the row to keep ours.")
	case errors.Is(err, versioning.ErrBadValue):
		return nil, pgerr.New(pgerr.InvalidTextRepresentation, "%s", strings.TrimPrefix(err.Error(), versioning.ErrBadValue.Error()+": "))
	}
	return out, err
}
