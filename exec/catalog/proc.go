package catalog

import (
	"slices"
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// User-defined functions, procedures and triggers as pg_proc, pg_trigger
// and pg_language show them, and their text as pg_get_functiondef,
// pg_get_function_arguments, pg_get_function_result and
// pg_get_triggerdef write it.

// Object kinds of the derived OIDs of functions and triggers.
const (
	kindUserProc = 'F'
	kindTrigger  = 'T'
)

// OIDPlpgsql is the OID initdb gives the plpgsql language in PostgreSQL
// 15 (after the initdb-made objects, not a fixed one; tools look it up
// by name).
const OIDPlpgsql = 13563

// oidTrigger and oidVoid are the pseudo-types trigger and void.
const (
	oidTrigger = 2279
	oidVoid    = 2278
)

// FunctionOID returns a user function's OID, derived from its schema,
// name and input types, so that overloads differ.
func FunctionOID(f *sqldef.Function) uint32 {
	var b strings.Builder
	b.WriteString(f.Name + "(")
	for i, t := range f.InputTypes() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatUint(uint64(t), 10))
	}
	b.WriteByte(')')
	return exec.ObjectOID(kindUserProc, f.Schema, b.String())
}

// TriggerOID returns the OID of trigger name on table schema.table.
func TriggerOID(schema, table, name string) uint32 {
	return exec.ObjectOID(kindTrigger, schema, table+"\x00"+name)
}

// LanguageOID returns the OID of a procedural language.
func LanguageOID(lang string) uint32 {
	switch lang {
	case "internal":
		return 12
	case "c":
		return 13
	case "sql":
		return 14
	}
	return OIDPlpgsql
}

// Functions returns the root value's functions and procedures, read on
// first use.
func (s *Snapshot) Functions() ([]*sqldef.Function, error) {
	if !s.funcsRead {
		fs, err := s.Src.Root.Functions(s.Src.Ctx)
		if err != nil {
			return nil, err
		}
		s.funcs, s.funcsRead = fs, true
	}
	return s.funcs, nil
}

// FunctionByOID returns the user function with OID oid.
func (s *Snapshot) FunctionByOID(oid uint32) (*sqldef.Function, bool) {
	fs, err := s.Functions()
	if err != nil {
		return nil, false
	}
	for _, f := range fs {
		if FunctionOID(f) == oid {
			return f, true
		}
	}
	return nil, false
}

// FunctionVisible reports whether f is found by its name and argument
// types alone: its schema is the first of the search path with a
// function of that signature (pg_function_is_visible).
func (s *Snapshot) FunctionVisible(f *sqldef.Function) bool {
	fs, _ := s.Functions()
	for _, sc := range s.path() {
		for _, g := range fs {
			if g.Schema == sc && g.Name == f.Name && FunctionOID(g) != 0 && sameInputs(g, f) {
				return g == f
			}
		}
	}
	return false
}

func sameInputs(a, b *sqldef.Function) bool {
	x, y := a.InputTypes(), b.InputTypes()
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// triggerFunction finds the function a trigger runs.
func (s *Snapshot) triggerFunction(tr *sqldef.Trigger) (*sqldef.Function, bool) {
	fs, _ := s.Functions()
	for _, f := range fs {
		if f.Schema == tr.FuncSchema && f.Name == tr.FuncName && len(f.InputTypes()) == 0 {
			return f, true
		}
	}
	return nil, false
}

// TriggerByOID returns the trigger with OID oid and its table.
func (s *Snapshot) TriggerByOID(oid uint32) (*sqldef.Table, *sqldef.Trigger, bool) {
	for _, t := range s.triggerRelations() {
		for i := range t.Triggers {
			if TriggerOID(t.Schema, t.Name, t.Triggers[i].Name) == oid {
				return t, &t.Triggers[i], true
			}
		}
	}
	return nil, nil, false
}

// TypeNamer names a type in SQL text, user types included; "" leaves
// the type to format_type's built-in names.
type TypeNamer func(oid uint32) string

// routineTypeName is format_type's name for an argument or result type,
// the pseudo-types included; name, when set, names the others.
func routineTypeName(oid uint32, name TypeNamer) string {
	switch oid {
	case oidTrigger:
		return "trigger"
	case oidVoid:
		return "void"
	case exec.OIDRecord:
		return "record"
	}
	if oid == exec.OIDAny || exec.IsPolymorphic(oid) {
		return exec.TypeName(oid)
	}
	if name != nil {
		if n := name(oid); n != "" {
			return n
		}
	}
	return types.FormatType(types.Oid(oid), -1)
}

// FunctionArguments is pg_get_function_arguments (defaults true) and
// pg_get_function_identity_arguments (defaults false); name names the
// argument types.
func FunctionArguments(f *sqldef.Function, defaults bool, name TypeNamer) string {
	var parts []string
	for _, a := range f.Args {
		var b strings.Builder
		switch a.Mode {
		case 't':
			continue // RETURNS TABLE's columns are the result's
		case 'o':
			b.WriteString("OUT ")
		case 'b':
			b.WriteString("INOUT ")
		case 'v':
			b.WriteString("VARIADIC ")
		case 'i':
			if f.Kind == 'p' {
				b.WriteString("IN ") // as PostgreSQL marks procedures' arguments
			}
		}
		if a.Name != "" {
			b.WriteString(QuoteIdent(a.Name) + " ")
		}
		b.WriteString(routineTypeName(a.Type, name))
		if defaults && a.Default != "" {
			b.WriteString(" DEFAULT " + defaultText(a, name))
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, ", ")
}

// FunctionIdentityTypes is the types of f's identity arguments (its IN,
// INOUT and VARIADIC ones), comma-separated: how Doltgres labels a
// function in dolt_status and dolt_conflicts, name(types).
func FunctionIdentityTypes(f *sqldef.Function, name TypeNamer) string {
	var parts []string
	for _, a := range f.Args {
		if a.Mode == 'o' || a.Mode == 't' {
			continue
		}
		parts = append(parts, routineTypeName(a.Type, name))
	}
	return strings.Join(parts, ", ")
}

// defaultText is an argument's default as PostgreSQL deparses it: an
// untyped literal or NULL gets the argument's type.
func defaultText(a sqldef.FuncArg, name TypeNamer) string {
	d := a.Default
	if strings.EqualFold(d, "null") || strings.HasPrefix(d, "'") && strings.HasSuffix(d, "'") && len(d) >= 2 {
		if strings.EqualFold(d, "null") {
			d = "NULL"
		}
		return d + "::" + routineTypeName(a.Type, name)
	}
	return d
}

// FunctionResult is pg_get_function_result: "" for a procedure.
func FunctionResult(f *sqldef.Function, name TypeNamer) string {
	if f.Kind == 'p' {
		return ""
	}
	var table []string
	for _, a := range f.Args {
		if a.Mode == 't' {
			table = append(table, QuoteIdent(a.Name)+" "+routineTypeName(a.Type, name))
		}
	}
	if len(table) > 0 {
		return "TABLE(" + strings.Join(table, ", ") + ")"
	}
	if f.ReturnsSet {
		return "SETOF " + routineTypeName(f.Returns, name)
	}
	return routineTypeName(f.Returns, name)
}

// FunctionDef is pg_get_functiondef: the CREATE OR REPLACE statement
// that makes f.
func FunctionDef(f *sqldef.Function, name TypeNamer) string {
	kind, tag := "FUNCTION", "$function$"
	if f.Kind == 'p' {
		kind, tag = "PROCEDURE", "$procedure$"
	}
	for strings.Contains(f.Body, tag) {
		tag = tag[:len(tag)-1] + "x$"
	}
	var b strings.Builder
	b.WriteString("CREATE OR REPLACE " + kind + " " + QuoteIdent(f.Schema) + "." + QuoteIdent(f.Name) + "(" + FunctionArguments(f, true, name) + ")\n")
	if f.Kind != 'p' {
		b.WriteString(" RETURNS " + FunctionResult(f, name) + "\n")
	}
	b.WriteString(" LANGUAGE " + f.Language + "\n")
	var opts string
	switch f.Volatility {
	case 'i':
		opts += " IMMUTABLE"
	case 's':
		opts += " STABLE"
	}
	if f.Strict {
		opts += " STRICT"
	}
	if f.SecurityDefiner {
		opts += " SECURITY DEFINER"
	}
	if f.Leakproof {
		opts += " LEAKPROOF"
	}
	if opts != "" {
		b.WriteString(opts + "\n")
	}
	b.WriteString("AS " + tag + f.Body + tag + "\n")
	return b.String()
}

// triggerEvents are the events of tgtype in the order pg_get_triggerdef
// writes them, with their bits.
var triggerEvents = []struct {
	name string
	bit  int
}{{"INSERT", 1 << 2}, {"DELETE", 1 << 3}, {"UPDATE", 1 << 4}, {"TRUNCATE", 1 << 5}}

// TriggerType is pg_trigger.tgtype: PostgreSQL's bits for the level,
// timing and events.
func TriggerType(tr *sqldef.Trigger) int {
	t := 0
	if tr.ForEachRow {
		t |= 1
	}
	switch tr.Timing {
	case 'b':
		t |= 1 << 1
	case 'i':
		t |= 1 << 6
	}
	for _, ev := range triggerEvents {
		if tr.FiresOn(ev.name) {
			t |= ev.bit
		}
	}
	return t
}

// TriggerDef is pg_get_triggerdef: the CREATE TRIGGER statement that
// makes tr on t. pretty writes the table unqualified when the search
// path finds it, and the WHEN condition with one pair of parentheses.
func (s *Snapshot) TriggerDef(t *sqldef.Table, tr *sqldef.Trigger, pretty bool) string {
	var b strings.Builder
	if tr.Constraint {
		b.WriteString("CREATE CONSTRAINT TRIGGER " + QuoteIdent(tr.Name) + " ")
	} else {
		b.WriteString("CREATE TRIGGER " + QuoteIdent(tr.Name) + " ")
	}
	b.WriteString(map[byte]string{'b': "BEFORE", 'a': "AFTER", 'i': "INSTEAD OF"}[tr.Timing])
	n := 0
	for _, ev := range triggerEvents {
		if !tr.FiresOn(ev.name) {
			continue
		}
		if n > 0 {
			b.WriteString(" OR")
		}
		n++
		b.WriteString(" " + ev.name)
		if ev.name == "UPDATE" && len(tr.Columns) > 0 {
			cols := make([]string, len(tr.Columns))
			for i, c := range tr.Columns {
				cols[i] = QuoteIdent(c)
			}
			b.WriteString(" OF " + strings.Join(cols, ", "))
		}
	}
	table := QuoteIdent(t.Schema) + "." + QuoteIdent(t.Name)
	if r, ok := s.RelationByName(t.Schema, t.Name); pretty && ok && s.Visible(r) {
		table = QuoteIdent(t.Name)
	}
	b.WriteString(" ON " + table)
	if tr.Constraint {
		if tr.ConstrRelation != "" {
			schema, name, _ := strings.Cut(tr.ConstrRelation, ".")
			from := QuoteIdent(schema) + "." + QuoteIdent(name)
			if r, ok := s.RelationByName(schema, name); ok && s.Visible(r) {
				from = QuoteIdent(name)
			}
			b.WriteString(" FROM " + from)
		}
		switch {
		case !tr.Deferrable:
			b.WriteString(" NOT DEFERRABLE INITIALLY IMMEDIATE")
		case tr.InitiallyDeferred:
			b.WriteString(" DEFERRABLE INITIALLY DEFERRED")
		default:
			b.WriteString(" DEFERRABLE INITIALLY IMMEDIATE")
		}
	}
	b.WriteString(" FOR EACH ")
	if tr.ForEachRow {
		b.WriteString("ROW")
	} else {
		b.WriteString("STATEMENT")
	}
	if tr.When != "" {
		if pretty {
			b.WriteString(" WHEN (" + tr.When + ")")
		} else {
			b.WriteString(" WHEN ((" + tr.When + "))")
		}
	}
	fn := QuoteIdent(tr.FuncName)
	if f, ok := s.triggerFunction(tr); !ok || !s.FunctionVisible(f) {
		fn = QuoteIdent(tr.FuncSchema) + "." + fn
	}
	args := make([]string, len(tr.Args))
	for i, a := range tr.Args {
		args[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
	}
	b.WriteString(" EXECUTE FUNCTION " + fn + "(" + strings.Join(args, ", ") + ")")
	return b.String()
}

func pgProc(s *Snapshot) ([]exec.Row, error) {
	exts, err := installedExtensions(s)
	if err != nil {
		return nil, err
	}
	installed := map[string]bool{}
	for _, e := range exts {
		installed[e.Name] = true
	}
	var out []exec.Row
	eachBuiltinProc(func(oid uint32, p BuiltinProc) {
		if ext := procExtension(p.Func); ext == "" || installed[ext] {
			out = append(out, builtinProcRow(oid, p))
		}
	})
	fs, err := s.Functions()
	if err != nil {
		return nil, err
	}
	for _, f := range fs {
		out = append(out, userProcRow(s, f))
	}
	return out, nil
}

// procExtension is the extension whose script defines a built-in
// overload, "" for the core's: pg_proc lists an extension's functions only
// where it is installed, as PostgreSQL's, whose pg_proc has them only
// then. It is the overload's Extension, or the extension of a type among
// its arguments or result (citext's, hstore's), which resolution lets be
// used regardless.
func procExtension(f *exec.Func) string {
	if f.Extension != "" {
		return f.Extension
	}
	for _, t := range append([]uint32{f.Ret}, f.Args...) {
		if ext := types.ExtensionOf(types.Oid(t)); ext != "" {
			return ext
		}
	}
	return ""
}

// userProcRow is a user function's pg_proc row.
func userProcRow(s *Snapshot, f *sqldef.Function) exec.Row {
	var inputs []string
	var all, modes, names []exec.Datum
	onlyIn, named := true, false
	nargs, ndefaults := 0, 0
	variadic := uint32(0)
	for _, a := range f.Args {
		all = append(all, dOID(a.Type))
		modes = append(modes, dChar(a.Mode))
		names = append(names, dText(a.Name))
		named = named || a.Name != ""
		onlyIn = onlyIn && a.Mode == 'i'
		if a.IsInput() {
			inputs = append(inputs, strconv.FormatUint(uint64(a.Type), 10))
			nargs++
			if a.Default != "" {
				ndefaults++
			}
		}
		if a.Mode == 'v' {
			variadic = exec.VariadicElem(a.Type)
		}
	}
	allTypes, argModes, argNames := exec.Null, exec.Null, exec.Null
	if !onlyIn {
		allTypes = exec.NewArray(exec.OIDOid, all)
		argModes = exec.NewArray(exec.OIDChar, modes)
	}
	if named {
		argNames = exec.NewArray(exec.OIDText, names)
	}
	rows := 0.0
	if f.ReturnsSet {
		rows = 1000
	}
	ret := f.Returns
	if f.Kind == 'p' && !onlyIn && ret == oidVoid {
		for _, a := range f.Args {
			if a.IsOutput() {
				ret = exec.OIDRecord // a procedure's INOUT arguments are a record
			}
		}
	}
	owner := s.tableOwner(f.Schema)
	if f.Owner != "" {
		owner = f.Owner
	}
	return exec.Row{
		dOID(FunctionOID(f)), dText(f.Name), dOID(NamespaceOID(f.Schema)), dOID(RoleOID(owner)), dOID(LanguageOID(f.Language)),
		exec.DFloat(100), exec.DFloat(rows), dOID(variadic), dProc("-"), dChar(f.Kind), dBool(f.SecurityDefiner),
		dBool(f.Leakproof), dBool(f.Strict), dBool(f.ReturnsSet), dChar(f.Volatility), dChar('u'),
		dInt(int64(nargs)), dInt(int64(ndefaults)), dOID(ret), dVector(exec.OIDOidVector, inputs), allTypes,
		argModes, argNames, exec.Null, exec.Null, dText(f.Body),
		exec.Null, exec.Null, exec.Null, aclDatum(f.ACL),
	}
}

// triggerRelations are the relations that may have triggers: the tables,
// and the views with triggers as tables of their columns (a view's
// triggers are named as a table's, by schema, relation and name).
func (s *Snapshot) triggerRelations() []*sqldef.Table {
	out := s.Tables
	for _, v := range s.Views {
		if len(v.Triggers) == 0 {
			continue
		}
		t := &sqldef.Table{Schema: v.Schema, Name: v.Name, Triggers: v.Triggers, Owner: v.Owner}
		for _, c := range v.Columns {
			t.Columns = append(t.Columns, sqldef.Column{Name: c.Name, Type: c.Type, Typmod: c.Typmod})
		}
		out = append(slices.Clip(out), t)
	}
	return out
}

// relationOID is the OID of t, a table or a view of triggerRelations.
func (s *Snapshot) relationOID(t *sqldef.Table) uint32 {
	if slices.Contains(s.Tables, t) {
		return TableOID(t.Schema, t.Name)
	}
	return ViewOID(t.Schema, t.Name)
}

// pgTrigger lists the triggers of tables and views and, for each
// partition, the ROW triggers of the partitioned tables above it, which
// fire for its rows as PostgreSQL's clones of them do: a clone is the
// partition's, its tgparentid the trigger of the partition's parent.
func pgTrigger(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	byName := map[sqldef.TableName]*sqldef.Table{}
	for _, t := range s.Tables {
		byName[sqldef.TableName{Schema: t.Schema, Name: t.Name}] = t
	}
	for _, t := range s.triggerRelations() {
		rel := s.relationOID(t)
		for i := range t.Triggers {
			out = append(out, s.triggerRow(t, &t.Triggers[i], rel, 0))
		}
		if !t.IsPartition() {
			continue
		}
		seen := map[string]bool{}
		for i := range t.Triggers {
			seen[t.Triggers[i].Name] = true
		}
		parentOID := func(name string) uint32 { return TriggerOID(t.Inherits[0].Schema, t.Inherits[0].Name, name) }
		for cur := t; cur.IsPartition() && len(cur.Inherits) > 0; {
			parent, ok := byName[cur.Inherits[0]]
			if !ok {
				break
			}
			for i := range parent.Triggers {
				tr := &parent.Triggers[i]
				if tr.ForEachRow && !seen[tr.Name] {
					seen[tr.Name] = true
					out = append(out, s.triggerRow(t, tr, rel, parentOID(tr.Name)))
				}
			}
			cur = parent
		}
	}
	return out, nil
}

// triggerRow is the pg_trigger row of trigger tr of t, whose OID is rel;
// parent is tgparentid.
func (s *Snapshot) triggerRow(t *sqldef.Table, tr *sqldef.Trigger, rel, parent uint32) exec.Row {
	foid := uint32(0)
	if f, ok := s.triggerFunction(tr); ok {
		foid = FunctionOID(f)
	}
	enabled := byte('O')
	switch {
	case tr.Disabled:
		enabled = 'D'
	case tr.Fires != 0:
		enabled = tr.Fires
	}
	var attnums []string
	for _, c := range tr.Columns {
		for pos, col := range t.Columns {
			if col.Name == c && !col.Dropped {
				attnums = append(attnums, strconv.Itoa(pos+1))
			}
		}
	}
	var args []byte
	for _, a := range tr.Args {
		args = append(append(args, a...), 0)
	}
	constrRel, constraint := uint32(0), uint32(0)
	if tr.Constraint {
		// Its pg_constraint row is the table's, of the trigger's name
		// (a partition's copy has the partitioned table's).
		constraint = ConstraintOID(t.Schema, t.Name, tr.Name)
		if tr.ConstrRelation != "" {
			schema, name, _ := strings.Cut(tr.ConstrRelation, ".")
			if r, ok := s.RelationByName(schema, name); ok && r.Table != nil {
				constrRel = s.relationOID(r.Table)
			}
		}
	}
	return exec.Row{
		dOID(TriggerOID(t.Schema, t.Name, tr.Name)), dOID(rel), dOID(parent), dText(tr.Name), dOID(foid), dInt(int64(TriggerType(tr))),
		dChar(enabled), dBool(false), dOID(constrRel), dOID(0), dOID(constraint),
		dBool(tr.Deferrable), dBool(tr.InitiallyDeferred), dInt(int64(len(tr.Args))), dVector(exec.OIDInt2Vector, attnums), exec.DBytes(string(args)),
		dTextOrNull(tr.When), exec.Null, exec.Null,
	}
}

func pgLanguage(*Snapshot) ([]exec.Row, error) {
	return []exec.Row{
		{dOID(12), dText("internal"), dOID(OIDBootstrapRole), dBool(false), dBool(false), dOID(0), dOID(0), dOID(2246), exec.Null},
		{dOID(13), dText("c"), dOID(OIDBootstrapRole), dBool(false), dBool(false), dOID(0), dOID(0), dOID(2247), exec.Null},
		{dOID(14), dText("sql"), dOID(OIDBootstrapRole), dBool(false), dBool(true), dOID(0), dOID(0), dOID(2248), exec.Null},
		{dOID(OIDPlpgsql), dText("plpgsql"), dOID(OIDBootstrapRole), dBool(true), dBool(true), dOID(13560), dOID(13561), dOID(13562), exec.Null},
	}, nil
}
