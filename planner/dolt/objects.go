package dolt

import (
	"context"
	"slices"
	"strings"

	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Objects other than tables in the version-control surface: views,
// types, functions and procedures, sequences (a serial column's too) and,
// in dolt_status and the staging functions, a table's triggers, named
// schema.table.trigger (versioning.KindTrigger), as Doltgres has them
// (versioning.ObjectChange.IsObject). dolt_status, dolt.diff and
// dolt_diff_summary list them by their schema-qualified names (a
// function with its argument types, public.f(integer), so overloads
// are told apart), but for views, which they list as Doltgres does, as
// the changes of their schema's dolt_schemas (schemas.go); dolt_add,
// dolt_reset and dolt_checkout take those names, a function's without
// its arguments meaning every overload, and a view's own name too.

// objectLabel is how the version-control tables name an object; rec is
// one of its records, which a function's label needs, with its
// argument types named by names (labelTypes).
func objectLabel(kind byte, schema, name string, rec []byte, names catalog.TypeNamer) string {
	if kind == versioning.KindFunction {
		var f sqldef.Function
		if rec != nil && versioning.DecodeObject(rec, &f) == nil {
			if f.Kind == 'c' {
				return schema + ".cast" + catalog.CastSignature(&f, names)
			}
			return schema + "." + f.Name + "(" + catalog.FunctionIdentityTypes(&f, names) + ")"
		}
		name = versioning.ObjectName{Kind: kind, Name: name}.BaseName()
	}
	return schema + "." + name
}

// triggerLabel is how the version-control tables name a trigger, as
// Doltgres does: schema.table.trigger.
func triggerLabel(o versioning.ObjectName) string {
	table, trig, _ := o.Trigger()
	return o.Schema + "." + table + "." + trig
}

// triggerChangeWord words the change of trigger o between two versions of
// its table's record as dolt_status does.
func triggerChangeWord(o versioning.ObjectName, from, to *sqldef.Table) string {
	_, trig, _ := o.Trigger()
	has := func(t *sqldef.Table) bool {
		return t != nil && slices.ContainsFunc(t.Triggers, func(tr sqldef.Trigger) bool { return tr.Name == trig })
	}
	switch {
	case !has(from):
		return "new trigger"
	case !has(to):
		return "deleted"
	}
	return "modified"
}

// changeLabel is objectLabel of a changed object.
func changeLabel(c versioning.ObjectChange, names catalog.TypeNamer) string {
	rec := c.To
	if rec == nil {
		rec = c.From
	}
	return objectLabel(c.Kind, c.Schema, c.Name, rec, names)
}

// objectWord is what dolt_status calls a new object of c's kind.
func objectWord(c versioning.ObjectChange) string {
	switch c.Kind {
	case versioning.KindView:
		return "view"
	case versioning.KindType:
		return "type"
	case versioning.KindSequence:
		return "sequence"
	case versioning.KindFunction:
		var f sqldef.Function
		rec := c.To
		if rec == nil {
			rec = c.From
		}
		if versioning.DecodeObject(rec, &f) == nil {
			switch f.Kind {
			case 'p':
				return "procedure"
			case 'o':
				return "operator"
			case 'c':
				return "cast"
			}
		}
		return "function"
	}
	return "table"
}

// objectChanges returns the objects other than tables that differ
// between two roots, ordered by kind, schema and name.
func objectChanges(ctx context.Context, from, to versioning.RootValue) ([]versioning.ObjectChange, error) {
	changes, err := versioning.Changes(ctx, from, to)
	if err != nil {
		return nil, err
	}
	out := changes[:0]
	for _, c := range changes {
		if c.IsObject() {
			out = append(out, c)
		}
	}
	return out, nil
}

// objectNames resolves the names given to dolt_add, dolt_reset and
// dolt_checkout against the objects of any of roots (one being deleted
// is only in some): a table, else the views, types, sequences and
// functions of that name, along the search path when unqualified. A
// function may be named with its argument types as dolt_status shows
// them, or without, for every overload.
func (s session) objectNames(ctx context.Context, roots []versioning.RootValue, names []string) ([]versioning.ObjectName, error) {
	var out []versioning.ObjectName
	for _, n := range names {
		if t, err := s.tableNamedIn(ctx, roots, n); err == nil {
			out = append(out, versioning.ObjectName{Kind: versioning.KindTable, Schema: t.Schema, Name: t.Name})
			continue
		}
		if schema, ok, err := s.schemasArg(ctx, n, roots...); err != nil {
			return nil, err
		} else if ok {
			views, err := viewNames(ctx, schema, roots)
			if err != nil {
				return nil, err
			}
			out = append(out, views...) // the schema's views (schemas.go)
			continue
		}
		found, err := s.otherObjectsNamed(ctx, roots, n)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			found = s.triggerNamed(ctx, roots, n)
		}
		if len(found) == 0 {
			return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", n)
		}
		out = append(out, found...)
	}
	return out, nil
}

// triggerNamed resolves table.trigger, Doltgres's name of a trigger, to
// the trigger of a table of roots; nil if none has it.
func (s session) triggerNamed(ctx context.Context, roots []versioning.RootValue, name string) []versioning.ObjectName {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 {
		return nil
	}
	t, err := s.tableNamedIn(ctx, roots, name[:i])
	if err != nil {
		return nil
	}
	trig := name[i+1:]
	for _, r := range roots {
		def, ok, err := r.Table(ctx, t.Schema, t.Name)
		if err == nil && ok && slices.ContainsFunc(def.Triggers, func(tr sqldef.Trigger) bool { return tr.Name == trig }) {
			return []versioning.ObjectName{versioning.TriggerObject(t.Schema, t.Name, trig)}
		}
	}
	return nil
}

// tableNamedIn finds a table by name in the first of roots that has it.
func (s session) tableNamedIn(ctx context.Context, roots []versioning.RootValue, name string) (*sqldef.Table, error) {
	var firstErr error
	for _, r := range roots {
		t, err := s.findTableIn(ctx, r, name)
		if err == nil {
			return t, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}

// otherObjectsNamed returns the objects other than tables that name
// means in the first schema of the search path where any of roots has
// some.
func (s session) otherObjectsNamed(ctx context.Context, roots []versioning.RootValue, name string) ([]versioning.ObjectName, error) {
	args := ""
	if i := strings.IndexByte(name, '('); i >= 0 && strings.HasSuffix(name, ")") {
		name, args = name[:i], name[i+1:len(name)-1]
	}
	schema, rel, err := s.ParseName(name)
	if err != nil {
		return nil, err
	}
	for _, sc := range s.RelationSchemas(schema) {
		seen := map[versioning.ObjectName]bool{}
		var out []versioning.ObjectName
		for _, r := range roots {
			found, err := r.ObjectsNamed(ctx, sc, rel)
			if err != nil {
				return nil, err
			}
			for _, o := range found {
				if seen[o] || args != "" && !s.functionArgsMatch(ctx, r, o, args) {
					continue
				}
				seen[o] = true
				out = append(out, o)
			}
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	return nil, nil
}

// functionArgsMatch reports whether o is a function whose identity
// arguments read args, as its label shows them.
func (s session) functionArgsMatch(ctx context.Context, root versioning.RootValue, o versioning.ObjectName, args string) bool {
	rec, ok, err := root.ObjectRecord(ctx, o)
	if err != nil || !ok || o.Kind != versioning.KindFunction {
		return false
	}
	var f sqldef.Function
	if versioning.DecodeObject(rec, &f) != nil {
		return false
	}
	names, err := labelTypes(ctx, root)
	if err != nil {
		return false
	}
	// The label's form, name(types), or the arguments as written in
	// CREATE FUNCTION, with their names.
	given := strings.ReplaceAll(args, " ", "")
	return strings.ReplaceAll(catalog.FunctionIdentityTypes(&f, names), " ", "") == given ||
		strings.ReplaceAll(catalog.FunctionArguments(&f, false, names), " ", "") == given
}

// conflictLabel names what a conflict record is about: a table, or an
// object as objectLabel does.
func conflictLabel(tc *versioning.TableConflicts, names catalog.TypeNamer) string {
	if tc.Kind == 0 {
		return tc.Schema + "." + tc.Name
	}
	rec := tc.OursRecord
	if rec == nil {
		rec = tc.TheirsRecord
	}
	return objectLabel(tc.Kind, tc.Schema, tc.Name, rec, names)
}

// conflictShortLabel is conflictLabel without the schema for a table, as
// the merge tables name tables (other objects keep it, as Doltgres's
// labels do).
func conflictShortLabel(tc *versioning.TableConflicts, names catalog.TypeNamer) string {
	if tc.Kind != 0 {
		return conflictLabel(tc, names)
	}
	return strings.TrimPrefix(conflictLabel(tc, names), tc.Schema+".")
}

// labelTypes names the user types of roots in labels: by name, with
// their schema unless it is public, so that a label does not depend on
// the search path.
func labelTypes(ctx context.Context, roots ...versioning.RootValue) (catalog.TypeNamer, error) {
	byOID := map[uint32]string{}
	for _, r := range roots {
		if r.Addr().IsZero() {
			continue
		}
		ts, err := r.Types(ctx)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			name := catalog.QuoteIdent(t.Name)
			if t.Schema != "public" {
				name = qualifiedName(t.Schema, t.Name)
			}
			byOID[catalog.TypeOID(t)] = name
		}
	}
	return func(oid uint32) string { return byOID[oid] }, nil
}
