package dolt

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// dolt_patch and dolt_schema_diff for objects other than tables: types,
// sequences, functions, views (and, in table records, triggers). The
// statements come in dependency order around the tables' (patchRows):
// views that go first; then types, sequences and functions, which
// tables may use (functions before the tables whose triggers and
// defaults call them; a SQL function's body is not checked against the
// tables it reads); then the tables; then views, which read tables, in
// the order of their dependencies; and last the functions, sequences
// and types that go, after the tables that used them.
//
// An object is changed in place where PostgreSQL has the statement: ALTER
// TYPE ... ADD VALUE or RENAME VALUE for an enum's labels, ALTER DOMAIN
// for a domain's default, NOT NULL and checks, ALTER SEQUENCE and
// setval, CREATE OR REPLACE for a function with the same result type and
// a view whose columns only grow. Anything else is dropped and created
// again, which PostgreSQL refuses while other objects depend on it.
// Comments on these objects are not carried, nor the CREATE VIEW
// statement a view was written with (dolt_schemas.fragment): the patch
// writes its own, schema-qualified, since the one written resolved its
// names along a search path the patch cannot know.

// objectRow is a statement of dolt_patch about an object.
func (p *patch) objectRow(c versioning.ObjectChange, kind, stmt string) exec.Row {
	return exec.Row{exec.Null, p.from.commit, p.to.commit, exec.DText(changeLabel(c, p.names)), exec.DText(kind), exec.DText(stmt)}
}

// decodeChange decodes both versions of an object change into new
// values of T; nil where absent.
func decodeChange[T any](c versioning.ObjectChange) (from, to *T) {
	dec := func(b []byte) *T {
		if b == nil {
			return nil
		}
		v := new(T)
		if versioning.DecodeObject(b, v) != nil {
			return nil
		}
		return v
	}
	return dec(c.From), dec(c.To)
}

// typeSQL is the statement that creates t.
func (w *sqlWriter) typeSQL(t *sqldef.Type) string {
	name := qualifiedName(t.Schema, t.Name)
	switch t.Kind {
	case 'e':
		labels := make([]string, len(t.Labels))
		for i, l := range t.Labels {
			labels[i] = funcs.QuoteLiteral(l.Label)
		}
		return "CREATE TYPE " + name + " AS ENUM (" + strings.Join(labels, ", ") + ");"
	case 'c':
		fields := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = funcs.QuoteIdent(f.Name) + " " + w.typeName(f.Type, f.Typmod)
		}
		return "CREATE TYPE " + name + " AS (" + strings.Join(fields, ", ") + ");"
	}
	var b strings.Builder
	b.WriteString("CREATE DOMAIN " + name + " AS " + w.typeName(t.Base, t.BaseTypmod))
	if t.Default != "" {
		b.WriteString(" DEFAULT " + t.Default)
	}
	if t.NotNull {
		b.WriteString(" NOT NULL")
	}
	for _, c := range t.Checks {
		b.WriteString(" " + domainCheckSQL(c))
	}
	return b.String() + ";"
}

func domainCheckSQL(c sqldef.Check) string {
	s := "CONSTRAINT " + funcs.QuoteIdent(c.Name) + " CHECK (" + c.Expr + ")"
	if c.NotValid {
		s += " NOT VALID"
	}
	return s
}

// typeName is a type as SQL: a user type's qualified name, else the
// built-in's.
func (w *sqlWriter) typeName(oid uint32, typmod int32) string {
	return w.columnTypeSQL(sqldef.Column{Type: oid, Typmod: typmod})
}

// dropTypeSQL drops t.
func dropTypeSQL(t *sqldef.Type) string {
	what := "TYPE "
	if t.Kind == 'd' {
		what = "DOMAIN "
	}
	return "DROP " + what + qualifiedName(t.Schema, t.Name) + ";"
}

// alterTypeSQL returns the statements that turn from into to in place,
// ok false when there are none (they differ in kind or base, or an
// enum lost or reordered labels, or a composite type changed).
func (w *sqlWriter) alterTypeSQL(from, to *sqldef.Type) (stmts []string, ok bool) {
	name := qualifiedName(to.Schema, to.Name)
	switch {
	case from.Kind != to.Kind:
		return nil, false
	case to.Kind == 'e':
		return enumChangeSQL(name, from.Labels, to.Labels)
	case to.Kind == 'd':
		if from.Base != to.Base || from.BaseTypmod != to.BaseTypmod {
			return nil, false
		}
		alter := "ALTER DOMAIN " + name + " "
		if from.Default != to.Default {
			if to.Default == "" {
				stmts = append(stmts, alter+"DROP DEFAULT;")
			} else {
				stmts = append(stmts, alter+"SET DEFAULT "+to.Default+";")
			}
		}
		if from.NotNull != to.NotNull {
			stmts = append(stmts, alter+map[bool]string{true: "SET NOT NULL;", false: "DROP NOT NULL;"}[to.NotNull])
		}
		for _, c := range from.Checks {
			if !slices.ContainsFunc(to.Checks, func(d sqldef.Check) bool { return sameCheck(c, d) }) {
				stmts = append(stmts, alter+"DROP CONSTRAINT "+funcs.QuoteIdent(c.Name)+";")
			}
		}
		for _, c := range to.Checks {
			if !slices.ContainsFunc(from.Checks, func(d sqldef.Check) bool { return sameCheck(c, d) }) {
				stmts = append(stmts, alter+"ADD "+domainCheckSQL(c)+";")
			}
		}
		return stmts, true
	}
	return nil, slices.Equal(from.Fields, to.Fields)
}

func sameCheck(a, b sqldef.Check) bool {
	return a.Name == b.Name && a.Expr == b.Expr && a.NotValid == b.NotValid
}

// enumChangeSQL returns the ALTER TYPE statements that turn an enum's
// labels from into to: a renamed label (the same position and sort
// order), or labels added where they are, each before the next label
// that is there already, or last.
func enumChangeSQL(name string, from, to []sqldef.EnumLabel) ([]string, bool) {
	alter := "ALTER TYPE " + name + " "
	if len(from) == len(to) {
		var stmts []string
		for i := range from {
			if from[i].Sort != to[i].Sort {
				return nil, false
			}
			if from[i].Label != to[i].Label {
				stmts = append(stmts, alter+"RENAME VALUE "+funcs.QuoteLiteral(from[i].Label)+" TO "+funcs.QuoteLiteral(to[i].Label)+";")
			}
		}
		return stmts, true
	}
	had := map[string]bool{}
	for _, l := range from {
		had[l.Label] = true
	}
	var kept []string
	for _, l := range to {
		if had[l.Label] {
			kept = append(kept, l.Label)
		}
	}
	if len(kept) != len(from) {
		return nil, false // a label went
	}
	for i, l := range from {
		if kept[i] != l.Label {
			return nil, false // reordered
		}
	}
	var stmts []string
	for i, l := range to {
		if had[l.Label] {
			continue
		}
		stmt := alter + "ADD VALUE " + funcs.QuoteLiteral(l.Label)
		for _, next := range to[i+1:] {
			if had[next.Label] {
				stmt += " BEFORE " + funcs.QuoteLiteral(next.Label)
				break
			}
		}
		stmts = append(stmts, stmt+";")
		had[l.Label] = true
	}
	return stmts, true
}

// sequenceSQL is the statement that creates q (its position is setval's).
func sequenceSQL(q *sqldef.Sequence) string {
	return "CREATE SEQUENCE " + qualifiedName(q.Schema, q.Name) + sequenceOptions(q) + ";"
}

// sequenceOptions are q's options as CREATE and ALTER SEQUENCE take them.
func sequenceOptions(q *sqldef.Sequence) string {
	var b strings.Builder
	b.WriteString(" AS " + types.FormatType(types.Oid(q.Type), -1))
	b.WriteString(" INCREMENT BY " + strconv.FormatInt(q.Increment, 10))
	b.WriteString(" MINVALUE " + strconv.FormatInt(q.Min, 10))
	b.WriteString(" MAXVALUE " + strconv.FormatInt(q.Max, 10))
	b.WriteString(" START WITH " + strconv.FormatInt(q.Start, 10))
	b.WriteString(" CACHE " + strconv.FormatInt(q.Cache, 10))
	if q.Cycle {
		b.WriteString(" CYCLE")
	} else {
		b.WriteString(" NO CYCLE")
	}
	return b.String()
}

// setvalSQL sets q's position as it is.
func setvalSQL(q *sqldef.Sequence) string {
	return "SELECT pg_catalog.setval(" + funcs.QuoteLiteral(qualifiedName(q.Schema, q.Name)) + ", " +
		strconv.FormatInt(q.Last, 10) + ", " + strconv.FormatBool(q.Called) + ");"
}

// functionSQL is the CREATE OR REPLACE statement of f.
func (w *sqlWriter) functionSQL(f *sqldef.Function) string {
	return strings.TrimSuffix(catalog.FunctionDef(f, w.userTypes), "\n") + ";"
}

// userTypes names the user types of the writer's revision, qualified.
func (w *sqlWriter) userTypes(oid uint32) string {
	if cat, _ := types.UserCategoryOf(types.Oid(oid)); cat == 0 {
		return ""
	}
	return w.typeName(oid, -1)
}

// isOperator reports whether a changed function record is an
// operator's or a cast's, which are made after the functions they name.
func isOperator(c versioning.ObjectChange) bool {
	rec := c.To
	if rec == nil {
		rec = c.From
	}
	var f sqldef.Function
	return versioning.DecodeObject(rec, &f) == nil && (f.Kind == 'o' || f.Kind == 'c')
}

// operatorSQL and operatorDropSQL make and drop an operator or a cast.
func operatorSQL(f *sqldef.Function, name catalog.TypeNamer) string {
	if f.Kind == 'c' {
		return catalog.CastDef(f, name)
	}
	return catalog.OperatorDef(f, name)
}

func operatorDropSQL(f *sqldef.Function, name catalog.TypeNamer) string {
	if f.Kind == 'c' {
		return catalog.CastDropSQL(f, name)
	}
	return catalog.OperatorDropSQL(f, name)
}

// dropFunctionSQL drops f.
func (w *sqlWriter) dropFunctionSQL(f *sqldef.Function) string {
	what := "FUNCTION "
	if f.Kind == 'p' {
		what = "PROCEDURE "
	}
	return "DROP " + what + qualifiedName(f.Schema, f.Name) + "(" + catalog.FunctionArguments(f, false, w.userTypes) + ");"
}

// viewSQL is the statement that creates v (or replaces it, with
// replace), its columns named as the view has them.
func (w *sqlWriter) viewSQL(v *sqldef.View, replace bool) string {
	cols := make([]string, len(v.Columns))
	for i, c := range v.Columns {
		cols[i] = funcs.QuoteIdent(c.Name)
	}
	stmt := "CREATE VIEW "
	if replace {
		stmt = "CREATE OR REPLACE VIEW "
	}
	stmt += qualifiedName(v.Schema, v.Name) + " (" + strings.Join(cols, ", ") + ") AS " + w.s.ViewDefinition(w.snap, v)
	switch v.Check {
	case 'l':
		stmt += " WITH LOCAL CHECK OPTION"
	case 'c':
		stmt += " WITH CASCADED CHECK OPTION"
	}
	return stmt + ";"
}

// viewReplaceable reports whether CREATE OR REPLACE VIEW turns from into
// to: to keeps from's columns, names and types, and may add some.
func viewReplaceable(from, to *sqldef.View) bool {
	return len(to.Columns) >= len(from.Columns) && slices.Equal(from.Columns, to.Columns[:len(from.Columns)])
}

// triggerSQL is the statement that creates trigger tr of t, and the one
// that disables it when it is.
func (w *sqlWriter) triggerSQL(t *sqldef.Table, tr *sqldef.Trigger) []string {
	out := []string{w.snap.TriggerDef(t, tr, false) + ";"}
	if tr.Disabled {
		out = append(out, "ALTER TABLE "+tableSQLName(t)+" DISABLE TRIGGER "+quoteName(tr.Name)+";")
	}
	return out
}

// dropTriggers adds the statements that drop the triggers of from that
// to lacks or has changed, before the table's data changes, so that they
// do not fire on them.
func (p *patch) dropTriggers(from, to *sqldef.Table) {
	if from == nil || to == nil {
		return
	}
	for _, tr := range from.Triggers {
		if now, ok := findTrigger(to, tr.Name); !ok || !sameTrigger(tr, now) {
			p.add(to, "schema", "DROP TRIGGER "+quoteName(tr.Name)+" ON "+tableSQLName(to)+";")
		}
	}
}

// createTriggers adds the statements that create the triggers to has
// and from (nil for a new table) lacks or had otherwise, after the
// table's data changes.
func (p *patch) createTriggers(from, to *sqldef.Table) {
	if to == nil {
		return
	}
	for i, tr := range to.Triggers {
		if was, ok := findTrigger(from, tr.Name); !ok || !sameTrigger(tr, was) {
			for _, st := range p.tw.triggerSQL(to, &to.Triggers[i]) {
				p.add(to, "schema", st)
			}
		}
	}
}

// keptTriggers returns the enabled triggers both versions of a table
// have alike: they would fire on the patch's data changes, which are
// their effects already, so the patch disables them meanwhile.
func keptTriggers(from, to *sqldef.Table) []string {
	if from == nil || to == nil {
		return nil
	}
	var out []string
	for _, tr := range from.Triggers {
		if now, ok := findTrigger(to, tr.Name); ok && !tr.Disabled && sameTrigger(tr, now) {
			out = append(out, tr.Name)
		}
	}
	return out
}

func findTrigger(t *sqldef.Table, name string) (sqldef.Trigger, bool) {
	if t == nil {
		return sqldef.Trigger{}, false
	}
	for _, tr := range t.Triggers {
		if tr.Name == name {
			return tr, true
		}
	}
	return sqldef.Trigger{}, false
}

// tableChanges adds one table's statements: its schema, dropping the
// triggers that go; its data, with the triggers it keeps disabled; then
// the triggers that come.
func (p *patch) tableChanges(ctx context.Context, d versioning.TableDelta) error {
	p.schema(d)
	p.dropTriggers(d.From, d.To)
	start := len(p.rows)
	if err := p.data(ctx, d); err != nil {
		return err
	}
	if kept := keptTriggers(d.From, d.To); len(kept) > 0 && len(p.rows) > start {
		data := slices.Clone(p.rows[start:])
		p.rows = p.rows[:start]
		alter := "ALTER TABLE " + tableSQLName(d.To)
		for _, n := range kept {
			p.add(d.To, "schema", alter+" DISABLE TRIGGER "+quoteName(n)+";")
		}
		p.rows = append(p.rows, data...)
		for _, n := range kept {
			p.add(d.To, "schema", alter+" ENABLE TRIGGER "+quoteName(n)+";")
		}
	}
	p.createTriggers(d.From, d.To)
	return nil
}

// sameTrigger compares triggers but for their comments.
func sameTrigger(a, b sqldef.Trigger) bool {
	a.Comment, b.Comment = "", ""
	return slices.Equal(a.Events, b.Events) && slices.Equal(a.Columns, b.Columns) && slices.Equal(a.Args, b.Args) &&
		a.Name == b.Name && a.Timing == b.Timing && a.ForEachRow == b.ForEachRow && a.When == b.When &&
		a.FuncSchema == b.FuncSchema && a.FuncName == b.FuncName && a.Disabled == b.Disabled
}

// objectPatch collects the statements of the changed objects other than
// tables, in the groups patchRows interleaves with the tables'.
type objectPatch struct {
	dropViews []exec.Row // views that go or are made again, dependents first
	before    []exec.Row // types, sequences and functions, before the tables
	views     []exec.Row // views, after the tables, dependencies first
	after     []exec.Row // functions, sequences and types that go, in that order
}

// objects computes the statements of the changed objects.
func (p *patch) objects(changes []versioning.ObjectChange) objectPatch {
	var op objectPatch
	var dropTypes, dropSeqs, dropFuncs, dropOps []exec.Row
	var types, seqs, funcs, ops []versioning.ObjectChange
	var views []versioning.ObjectChange
	for _, c := range changes {
		switch c.Kind {
		case versioning.KindType:
			types = append(types, c)
		case versioning.KindSequence:
			// A column's own sequence comes and goes with its table's
			// CREATE and DROP; its position is not patched.
			if !c.OwnedSequence() {
				seqs = append(seqs, c)
			}
		case versioning.KindFunction:
			if isOperator(c) {
				ops = append(ops, c)
			} else {
				funcs = append(funcs, c)
			}
		case versioning.KindView:
			views = append(views, c)
		}
	}
	for _, c := range types {
		from, to := decodeChange[sqldef.Type](c)
		switch {
		case to == nil:
			dropTypes = append(dropTypes, p.objectRow(c, "schema", dropTypeSQL(from)))
			continue
		case from != nil:
			if stmts, ok := p.tw.alterTypeSQL(from, to); ok {
				for _, st := range stmts {
					op.before = append(op.before, p.objectRow(c, "schema", st))
				}
				continue
			}
			op.before = append(op.before, p.objectRow(c, "schema", dropTypeSQL(from)))
		}
		op.before = append(op.before, p.objectRow(c, "schema", p.tw.typeSQL(to)))
	}
	for _, c := range seqs {
		from, to := decodeChange[sqldef.Sequence](c)
		switch {
		case to == nil:
			dropSeqs = append(dropSeqs, p.objectRow(c, "schema", "DROP SEQUENCE "+qualifiedName(from.Schema, from.Name)+";"))
			continue
		case from == nil:
			op.before = append(op.before, p.objectRow(c, "schema", sequenceSQL(to)))
		case !c.SequenceDataOnly():
			op.before = append(op.before, p.objectRow(c, "schema", "ALTER SEQUENCE "+qualifiedName(to.Schema, to.Name)+sequenceOptions(to)+";"))
		}
		if from == nil && !to.Called && to.Last == to.Start {
			continue // where CREATE SEQUENCE leaves it
		}
		op.before = append(op.before, p.objectRow(c, "data", setvalSQL(to)))
	}
	for _, c := range funcs {
		from, to := decodeChange[sqldef.Function](c)
		switch {
		case to == nil:
			dropFuncs = append(dropFuncs, p.objectRow(c, "schema", p.fw.dropFunctionSQL(from)))
			continue
		case from != nil && (from.Kind != to.Kind || catalog.FunctionResult(from, p.fw.userTypes) != catalog.FunctionResult(to, p.tw.userTypes) ||
			catalog.FunctionArguments(from, false, p.fw.userTypes) != catalog.FunctionArguments(to, false, p.tw.userTypes)):
			op.before = append(op.before, p.objectRow(c, "schema", p.fw.dropFunctionSQL(from)))
		}
		op.before = append(op.before, p.objectRow(c, "schema", p.tw.functionSQL(to)))
	}
	// Operators and casts come after the functions they stand for and go
	// before them; having no CREATE OR REPLACE, a changed one is made
	// again.
	for _, c := range ops {
		from, to := decodeChange[sqldef.Function](c)
		switch {
		case to == nil:
			dropOps = append(dropOps, p.objectRow(c, "schema", operatorDropSQL(from, p.fw.userTypes)))
			continue
		case from != nil:
			op.before = append(op.before, p.objectRow(c, "schema", operatorDropSQL(from, p.fw.userTypes)))
		}
		op.before = append(op.before, p.objectRow(c, "schema", operatorSQL(to, p.tw.userTypes)))
	}
	for _, c := range orderViews(views, false) {
		from, to := decodeChange[sqldef.View](c)
		if from != nil && (to == nil || !viewReplaceable(from, to)) {
			op.dropViews = append(op.dropViews, p.objectRow(c, "schema", "DROP VIEW "+qualifiedName(from.Schema, from.Name)+";"))
		}
	}
	for _, c := range orderViews(views, true) {
		from, to := decodeChange[sqldef.View](c)
		if to != nil {
			op.views = append(op.views, p.objectRow(c, "schema", p.tw.viewSQL(to, from != nil && viewReplaceable(from, to))))
		}
	}
	op.after = slices.Concat(dropOps, dropFuncs, dropSeqs, dropTypes)
	return op
}

// orderViews orders changed views so that a view comes after the views
// it reads (dependenciesFirst) or before them (to drop dependents first).
func orderViews(views []versioning.ObjectChange, dependenciesFirst bool) []versioning.ObjectChange {
	byName := map[string]int{}
	for i, c := range views {
		byName[c.Schema+"."+c.Name] = i
	}
	var out []versioning.ObjectChange
	state := make([]int, len(views)) // 0 unseen, 1 visiting, 2 done
	var visit func(i int)
	visit = func(i int) {
		if state[i] != 0 {
			return
		}
		state[i] = 1
		c := views[i]
		rec := c.To
		if !dependenciesFirst || rec == nil {
			rec = c.From
		}
		var v sqldef.View
		if rec != nil && versioning.DecodeObject(rec, &v) == nil {
			for _, d := range v.Depends {
				if j, ok := byName[d]; ok {
					visit(j)
				}
			}
		}
		state[i] = 2
		out = append(out, c)
	}
	for i := range views {
		visit(i)
	}
	if !dependenciesFirst {
		slices.Reverse(out)
	}
	return out
}

// objectCreateSQL is the statement that creates an object of kind from
// its record, for dolt_schema_diff and dolt_schema_conflicts; "" for nil.
func (w *sqlWriter) objectCreateSQL(kind byte, rec []byte) string {
	if rec == nil {
		return ""
	}
	switch kind {
	case versioning.KindType:
		var t sqldef.Type
		if versioning.DecodeObject(rec, &t) == nil {
			return w.typeSQL(&t)
		}
	case versioning.KindSequence:
		var q sqldef.Sequence
		if versioning.DecodeObject(rec, &q) == nil {
			return sequenceSQL(&q)
		}
	case versioning.KindFunction:
		var f sqldef.Function
		if versioning.DecodeObject(rec, &f) == nil {
			if f.Kind == 'o' || f.Kind == 'c' {
				return operatorSQL(&f, w.userTypes)
			}
			return w.functionSQL(&f)
		}
	case versioning.KindView:
		var v sqldef.View
		if versioning.DecodeObject(rec, &v) == nil {
			return w.viewSQL(&v, false)
		}
	}
	return ""
}

// patchSchemas returns the schemas that the changed tables and objects
// live in and that to adds or drops.
func patchSchemas(ctx context.Context, from, to revision, deltas []versioning.TableDelta, objects []versioning.ObjectChange) (added, dropped []string, err error) {
	used := map[string]bool{}
	for _, d := range deltas {
		used[d.Name().Schema] = true
	}
	for _, c := range objects {
		used[c.Schema] = true
	}
	return schemaChanges(ctx, from, to, used)
}
