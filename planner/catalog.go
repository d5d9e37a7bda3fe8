package planner

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning"
)

// The system catalogs and the functions over them. exec/catalog computes
// the pg_catalog and information_schema relations from the root value;
// this file resolves their names (pg_catalog is searched before the
// search path, as in PostgreSQL), gives them the session's facts (user,
// databases, roles, settings, search path) and provides the functions
// psql's describe queries call: pg_get_expr, format_type,
// pg_table_is_visible, pg_get_indexdef, pg_get_constraintdef, ...

// virtualTable returns the catalog relation or sequence a FROM item
// names, if it names one: catalog relations first for an unqualified name
// (pg_catalog precedes the search path), sequences after the tables of
// the same schema.
func (a *analyzer) virtualTable(ctx context.Context, schema, name string) (*exec.Table, bool, error) {
	switch schema {
	case "", "pg_catalog", "information_schema":
		cs := schema
		if cs == "" {
			cs = "pg_catalog"
		}
		if v, ok := catalog.Lookup(cs, name); ok {
			t := v.Table(a.s.catalogSource)
			t.VirtualKind = 'c'
			return t, true, nil
		}
	}
	return nil, false, nil
}

// sequenceTable returns the one-row relation a sequence reads as
// (last_value, log_cnt, is_called), if schema.name (or name along the
// search path) is a sequence.
func (a *analyzer) sequenceTable(ctx context.Context, schema, name string) (*exec.Table, bool, error) {
	schemas := []string{a.s.resolveSchemaName(schema)}
	if schema == "" {
		schemas = a.s.relationPath()
	}
	for _, sc := range schemas {
		if _, ok, err := a.tx.Root.Sequence(ctx, sc, name); err != nil || !ok {
			if err != nil {
				return nil, false, err
			}
			continue
		}
		sc := sc
		cols := []exec.VirtualColumn{{Name: "last_value", Type: exec.TInt8}, {Name: "log_cnt", Type: exec.TInt8}, {Name: "is_called", Type: exec.TBool}}
		t := exec.NewVirtualTable(sc, name, catalog.SequenceOID(sc, name), cols, func(env *exec.Env) ([]exec.Row, error) {
			seq, ok, err := env.Txn.Root.Sequence(env.Ctx, sc, name)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
			}
			// log_cnt counts values PostgreSQL has WAL-logged ahead; 32
			// once the sequence is used is what a fresh server shows.
			logCnt := int64(0)
			if seq.Called {
				logCnt = 32
			}
			return []exec.Row{{exec.DInt(seq.Last), exec.DInt(logCnt), exec.DBool(seq.Called)}}, nil
		})
		t.VirtualKind = 'S'
		return t, true, nil
	}
	return nil, false, nil
}

// catalogSource gathers what the catalog is computed from, for a scan.
func (s *Session) catalogSource(env *exec.Env) (*catalog.Source, error) {
	dbs, err := versioning.ListDatabases(env.Ctx, s.e.st)
	if err != nil {
		return nil, err
	}
	roleMap, _, err := versioning.LoadRoles(env.Ctx, s.e.st)
	if err != nil {
		return nil, err
	}
	roles := make([]*versioning.Role, 0, len(roleMap))
	for _, r := range roleMap {
		roles = append(roles, r)
	}
	sort.Slice(roles, func(i, j int) bool { return roles[i].Name < roles[j].Name })
	var settings []catalog.Setting
	for name, v := range s.vars {
		settings = append(settings, catalog.Setting{Name: name, Value: v})
	}
	sort.Slice(settings, func(i, j int) bool { return settings[i].Name < settings[j].Name })
	return &catalog.Source{
		Backends: s.e.live.backends(),
		Locks:    func() []catalog.Lock { return s.e.live.locks(s.e.locks) },
		Ctx:      env.Ctx, Root: env.Txn.Root, Database: s.database, Databases: dbs, User: s.user, Roles: roles,
		SearchPath: s.lookupPath(), Settings: settings, Funcs: exec.FuncNames(),
		Cursors: s.catalogCursors(), Prepared: s.catalogPrepared(),
		Expr: func(t *versioning.Table, expr string, pretty bool) string {
			return s.renderExpr(env, t, expr, pretty)
		},
		Sequences: func(t *versioning.Table, expr string) []*versioning.Sequence {
			return s.defaultSequences(env, t, expr)
		},
	}, nil
}

// lookupPath is the order unqualified relation names are looked up in:
// the temporary schema, pg_catalog (unless the search path places it),
// then the search path.
func (s *Session) lookupPath() []string {
	path := s.searchPath()
	for _, p := range path {
		if p == "pg_catalog" {
			return s.relationPath()
		}
	}
	out := []string{}
	if s.tempSchema != "" {
		out = append(out, s.tempSchema)
	}
	out = append(out, "pg_catalog")
	for _, p := range path {
		if p != s.tempSchema {
			out = append(out, p)
		}
	}
	return out
}

// catalogCache keeps the last catalog snapshot the catalog functions used:
// a describe query calls them once per row, and the catalog only changes
// with the root value and the search path.
type catalogCache struct {
	root store.Address
	path string
	snap *catalog.Snapshot
}

// snapshot returns the catalog as of env's root.
func (s *Session) snapshot(env *exec.Env) (*catalog.Snapshot, error) {
	path := s.vars["search_path"]
	if c := &s.catCache; c.snap != nil && c.root == env.Txn.Root.Addr() && c.path == path {
		return c.snap, nil
	}
	src, err := s.catalogSource(env)
	if err != nil {
		return nil, err
	}
	snap, err := catalog.NewSnapshot(src)
	if err != nil {
		return nil, err
	}
	s.catCache = catalogCache{root: env.Txn.Root.Addr(), path: path, snap: snap}
	return snap, nil
}

// argOID reads an OID argument, which may come as a number, an OID alias
// or an untyped literal ('16384').
func argOID(d exec.Datum) (uint32, bool) {
	switch d.Kind {
	case exec.KindInt:
		return uint32(d.I), true
	case exec.KindText:
		v, err := strconv.ParseUint(strings.TrimSpace(d.S), 10, 32)
		return uint32(v), err == nil
	}
	return 0, false
}

func argInt(d exec.Datum) int64 {
	if d.Kind == exec.KindText {
		v, _ := strconv.ParseInt(strings.TrimSpace(d.S), 10, 64)
		return v
	}
	return d.I
}

func argBool(d exec.Datum) bool {
	if d.Kind == exec.KindText {
		v, _ := exec.ParseText(exec.TBool, d.S, nil)
		return v.Bool()
	}
	return d.Bool()
}

// catalogFunc resolves the functions over the catalog.
func (s *Session) catalogFunc(name string, args []exec.Expr) (exec.Fn, exec.T, bool) {
	n := len(args)
	isNull := func(a []exec.Datum) bool {
		for _, d := range a {
			if d.IsNull() {
				return true
			}
		}
		return false
	}
	always := func(d exec.Datum, t exec.T) (exec.Fn, exec.T, bool) {
		return func(*exec.Env, []exec.Datum) (exec.Datum, error) { return d, nil }, t, true
	}
	switch {
	case name == "pg_get_userbyid" && n == 1:
		return s.oidFunc(func(env *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
			return exec.DText(roleByOID(snap, oid)), nil
		}), exec.TName, true
	case name == "format_type" && n == 2:
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			oid, ok := argOID(a[0])
			if !ok {
				return exec.Null, nil
			}
			typmod := int32(-1)
			if !a[1].IsNull() {
				typmod = int32(argInt(a[1]))
			}
			if oid == 0 {
				return exec.DText("-"), nil
			}
			return exec.DText(exec.FormatTypeIn(env.Settings, oid, typmod)), nil
		}, exec.TText, true
	case name == "pg_table_is_visible" && n == 1:
		return s.oidFunc(func(env *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
			r, ok := snap.RelationByOID(oid)
			if !ok {
				return exec.Null, nil
			}
			return exec.DBool(snap.Visible(r)), nil
		}), exec.TBool, true
	case name == "pg_type_is_visible" && n == 1:
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			oid, ok := argOID(a[0])
			if !ok {
				return exec.Null, nil
			}
			if types.Lookup(types.Oid(oid)) != nil {
				return exec.DBool(true), nil
			}
			if u, ok := (sessionTypes{s}).UserType(types.Oid(oid) &^ types.ArrayBit); ok {
				return exec.DBool(s.typeVisible(u.Schema, u.Name)), nil
			}
			return exec.Null, nil
		}, exec.TBool, true
	case name == "pg_get_partkeydef" && n == 1:
		return s.oidFunc(func(env *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
			r, ok := snap.RelationByOID(oid)
			if !ok || r.Table == nil || !r.Table.Partitioned() {
				return exec.Null, nil
			}
			return exec.DText(snap.PartitionKeyDef(r.Table)), nil
		}), exec.TText, true
	case name == "pg_get_partition_constraintdef" && n == 1:
		return s.oidFunc(func(env *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
			r, ok := snap.RelationByOID(oid)
			if !ok || r.Table == nil || r.Kind != 'r' {
				return exec.Null, nil
			}
			def, err := partitionConstraintDef(env.Ctx, env.Txn.Root, r.Table)
			if err != nil || def == "" {
				return exec.Null, err
			}
			return exec.DText(def), nil
		}), exec.TText, true
	case name == "pg_get_expr" && (n == 2 || n == 3):
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if isNull(a[:2]) {
				return exec.Null, nil
			}
			oid, _ := argOID(a[1])
			pretty := n == 3 && !a[2].IsNull() && argBool(a[2])
			snap, err := s.snapshot(env)
			if err != nil {
				return exec.Null, err
			}
			r, ok := snap.RelationByOID(oid)
			if !ok || r.Table == nil || r.Table.IsPartition() && a[0].S == snap.PartitionBound(r.Table) {
				return exec.DText(a[0].S), nil // relpartbound is stored as its text
			}
			return exec.DText(s.renderExpr(env, r.Table, a[0].S, pretty)), nil
		}, exec.TText, true
	case name == "pg_get_indexdef" && (n == 1 || n == 3):
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if isNull(a) {
				return exec.Null, nil
			}
			oid, _ := argOID(a[0])
			col, pretty := 0, false
			if n == 3 {
				col, pretty = int(argInt(a[1])), argBool(a[2])
			}
			snap, err := s.snapshot(env)
			if err != nil {
				return exec.Null, err
			}
			def := snap.IndexDef(oid, col, pretty)
			if def == "" && col == 0 {
				return exec.Null, nil
			}
			return exec.DText(def), nil
		}, exec.TText, true
	case name == "pg_get_constraintdef" && (n == 1 || n == 2):
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if isNull(a) {
				return exec.Null, nil
			}
			oid, _ := argOID(a[0])
			snap, err := s.snapshot(env)
			if err != nil {
				return exec.Null, err
			}
			def, ok := snap.ConstraintDef(oid, n == 2 && argBool(a[1]))
			if !ok {
				return exec.Null, nil
			}
			return exec.DText(def), nil
		}, exec.TText, true
	case name == "obj_description" && (n == 1 || n == 2), name == "col_description" && n == 2:
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if isNull(a) {
				return exec.Null, nil
			}
			oid, _ := argOID(a[0])
			class, sub := uint32(0), 0
			switch {
			case name == "col_description":
				class, sub = catalog.OIDPgClass, int(argInt(a[1]))
			case n == 2:
				parts, err := parseQualifiedName(a[1].S)
				if err != nil {
					return exec.Null, err
				}
				_, catalogName := splitName(parts)
				if v, ok := catalog.Lookup("pg_catalog", catalogName); ok {
					class = v.OID
				}
			}
			snap, err := s.snapshot(env)
			if err != nil {
				return exec.Null, err
			}
			for _, d := range snap.Descriptions() {
				if d.ObjOID == oid && d.SubID == sub && (class == 0 || d.ClassOID == class) {
					return exec.DText(d.Text), nil
				}
			}
			return exec.Null, nil
		}, exec.TText, true
	case name == "set_config" && n == 3:
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if a[0].IsNull() {
				return exec.Null, pgerr.New(pgerr.NullValueNotAllowed, "SET requires parameter name")
			}
			vs := &pg.VariableSetStmt{Kind: pg.VariableSetKind_VAR_SET_VALUE, Name: a[0].S, IsLocal: argBool(a[2])}
			if a[1].IsNull() {
				vs.Kind = pg.VariableSetKind_VAR_RESET
			} else {
				vs.Args = []*pg.Node{pg.MakeAConstStrNode(a[1].S, -1)}
			}
			if _, err := s.set(vs); err != nil {
				return exec.Null, err
			}
			return exec.DText(s.vars[strings.ToLower(a[0].S)]), nil
		}, exec.TText, true
	case name == "pg_get_viewdef" && (n == 1 || n == 2):
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if a[0].IsNull() {
				return exec.Null, nil
			}
			snap, err := s.snapshot(env)
			if err != nil {
				return exec.Null, err
			}
			oid, ok := argOID(a[0])
			if !ok && a[0].Kind == exec.KindText {
				oid, _, ok, err = s.resolveRegclass(env, a[0].S)
				if err != nil {
					return exec.Null, err
				}
			}
			if r, found := snap.RelationByOID(oid); ok && found && r.Query != nil {
				return exec.DText(" " + viewDefinition(snap, r.Query) + ";"), nil
			}
			return exec.Null, nil
		}, exec.TText, true
	case (name == "shobj_description" && n == 2) ||
		(name == "pg_get_statisticsobjdef_columns" && n == 1) ||
		(name == "pg_get_ruledef" && (n == 1 || n == 2)) || (name == "pg_get_function_sqlbody" && n == 1):
		// Comments, statistics objects, rules and SQL-standard bodies
		// kept as trees do not exist here.
		return always(exec.Null, exec.TText)
	case strings.HasPrefix(name, "has_") && strings.HasSuffix(name, "_privilege") && n >= 2 && n <= 4,
		name == "pg_has_role" && (n == 2 || n == 3):
		// Privileges are not modelled: every role may do everything.
		return always(exec.DBool(true), exec.TBool)
	case name == "pg_relation_is_publishable" && n == 1, name == "pg_is_other_temp_schema" && n == 1:
		return always(exec.DBool(false), exec.TBool)
	case name == "pg_my_temp_schema" && n == 0:
		return always(exec.DInt(0), exec.TOid)
	case name == "pg_tablespace_location" && n == 1:
		return always(exec.DText(""), exec.TText)
	case name == "pg_encoding_to_char" && n == 1:
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			switch {
			case a[0].IsNull():
				return exec.Null, nil
			case argInt(a[0]) == 6:
				return exec.DText("UTF8"), nil
			case argInt(a[0]) == 0:
				return exec.DText("SQL_ASCII"), nil
			}
			return exec.DText(""), nil
		}, exec.TName, true
	case name == "pg_char_to_encoding" && n == 1:
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if strings.EqualFold(strings.ReplaceAll(a[0].S, "-", ""), "utf8") {
				return exec.DInt(6), nil
			}
			return exec.DInt(-1), nil
		}, exec.TInt4, true
	case name == "current_schema" && n == 0:
		return func(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
			for _, sc := range s.searchPath() {
				if _, ok, err := env.Txn.Root.Schema(env.Ctx, sc); err != nil {
					return exec.Null, err
				} else if ok || isSystemSchema(sc) {
					return exec.DText(sc), nil
				}
			}
			return exec.Null, nil
		}, exec.TName, true
	case name == "pg_get_triggerdef" && (n == 1 || n == 2):
		return s.oidFunc(func(env *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
			t, tr, ok := snap.TriggerByOID(oid)
			if !ok {
				return exec.Null, nil
			}
			return exec.DText(snap.TriggerDef(t, tr, n == 2 && !a[1].IsNull() && argBool(a[1]))), nil
		}), exec.TText, true
	case n == 1 && (name == "pg_get_functiondef" || name == "pg_get_function_arguments" || name == "pg_get_function_identity_arguments" ||
		name == "pg_get_function_result" || name == "pg_function_is_visible"):
		t := exec.TText
		if name == "pg_function_is_visible" {
			t = exec.TBool
		}
		return s.oidFunc(func(env *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
			f, ok := snap.FunctionByOID(oid)
			if !ok {
				return builtinProcInfo(env, name, oid), nil
			}
			switch name {
			case "pg_get_functiondef":
				return exec.DText(catalog.FunctionDef(f, settingsTypeNamer(env.Settings))), nil
			case "pg_get_function_arguments":
				return exec.DText(catalog.FunctionArguments(f, true, settingsTypeNamer(env.Settings))), nil
			case "pg_get_function_identity_arguments":
				return exec.DText(catalog.FunctionArguments(f, false, settingsTypeNamer(env.Settings))), nil
			case "pg_get_function_result":
				if f.Kind == 'p' {
					return exec.Null, nil
				}
				return exec.DText(catalog.FunctionResult(f, settingsTypeNamer(env.Settings))), nil
			}
			return exec.DBool(snap.FunctionVisible(f)), nil
		}), t, true
	case name == "pg_get_serial_sequence" && n == 2:
		return s.serialSequence, exec.TText, true
	case name == "to_regclass" && n == 1:
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if a[0].IsNull() {
				return exec.Null, nil
			}
			oid, name, ok, err := s.resolveRegclass(env, a[0].S)
			if err != nil || !ok {
				return exec.Null, nil
			}
			return exec.DRegOID(oid, name), nil
		}, exec.T{OID: exec.OIDRegclass, Typmod: -1}, true
	}
	return s.systemInfoFunc(name, args)
}

// builtinProcInfo answers the function-describing functions for an OID
// that is no user function: a built-in overload is visible, its arguments
// and result are those it is registered with; an unknown OID gives NULL.
func builtinProcInfo(env *exec.Env, name string, oid uint32) exec.Datum {
	p, ok := catalog.LookupBuiltinProc(oid)
	if !ok {
		return exec.Null
	}
	switch name {
	case "pg_function_is_visible":
		return exec.DBool(true)
	case "pg_get_function_arguments", "pg_get_function_identity_arguments":
		return exec.DText(p.Arguments(settingsTypeNamer(env.Settings)))
	case "pg_get_function_result":
		return exec.DText(p.Result(settingsTypeNamer(env.Settings)))
	}
	return exec.Null
}

// oidFunc makes a catalog function whose first argument is an OID: NULL
// when it is NULL or not an OID, else fn over the session's catalog.
func (s *Session) oidFunc(fn func(env *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error)) exec.Fn {
	return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		oid, ok := argOID(a[0])
		if !ok {
			return exec.Null, nil
		}
		snap, err := s.snapshot(env)
		if err != nil {
			return exec.Null, err
		}
		return fn(env, a, snap, oid)
	}
}

// roleByOID is pg_get_userbyid.
func roleByOID(snap *catalog.Snapshot, oid uint32) string {
	if oid == catalog.OIDBootstrapRole {
		return "postgres"
	}
	for _, r := range snap.Src.Roles {
		if catalog.RoleOID(r.Name) == oid {
			return r.Name
		}
	}
	for _, name := range []string{"pg_database_owner", "pg_monitor", "pg_read_all_data", "pg_write_all_data"} {
		if catalog.RoleOID(name) == oid {
			return name
		}
	}
	return "unknown (OID=" + strconv.FormatUint(uint64(oid), 10) + ")"
}

// serialSequence is pg_get_serial_sequence(table, column): the sequence a
// serial or identity column uses, schema-qualified.
func (s *Session) serialSequence(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	if a[0].IsNull() || a[1].IsNull() {
		return exec.Null, nil
	}
	parts, err := parseQualifiedName(a[0].S)
	if err != nil {
		return exec.Null, err
	}
	schema, table := splitName(parts)
	col := a[1].S
	if len(col) >= 2 && col[0] == '"' {
		col = unquoteIdent(col)
	} else {
		col = strings.ToLower(col)
	}
	snap, err := s.snapshot(env)
	if err != nil {
		return exec.Null, err
	}
	schemas := []string{schema}
	if schema == "" {
		schemas = s.relationPath()
	}
	for _, sc := range schemas {
		sc = s.resolveSchemaName(sc)
		r, ok := snap.RelationByName(sc, table)
		if !ok {
			continue
		}
		if r.Table == nil {
			return exec.Null, pgerr.New(pgerr.WrongObjectType, "%q is not a table", table)
		}
		found := false
		for _, c := range r.Table.Columns {
			found = found || !c.Dropped && c.Name == col
		}
		if !found {
			return exec.Null, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", col, table)
		}
		for _, q := range snap.Seqs {
			if q.Schema == sc && q.OwnedBy == table+"."+col {
				return exec.DText(quoteIdent(q.Schema) + "." + quoteIdent(q.Name)), nil
			}
		}
		return exec.Null, nil
	}
	return exec.Null, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", a[0].S)
}

// catalogCursors lists the session's cursors for pg_cursors, by name.
func (s *Session) catalogCursors() []catalog.Cursor {
	out := make([]catalog.Cursor, 0, len(s.cursors))
	for name, c := range s.cursors {
		out = append(out, catalog.Cursor{Name: name, Statement: c.text, Holdable: c.hold, Binary: c.binary, Scrollable: c.scroll, Created: c.created})
	}
	slices.SortFunc(out, func(x, y catalog.Cursor) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// catalogPrepared lists the session's PREPAREd statements for
// pg_prepared_statements, by name.
func (s *Session) catalogPrepared() []catalog.Prepared {
	out := make([]catalog.Prepared, 0, len(s.prepared))
	for name, p := range s.prepared {
		out = append(out, catalog.Prepared{Name: name, Statement: p.text, Prepared: p.created, ParamTypes: p.paramTypes})
	}
	slices.SortFunc(out, func(x, y catalog.Prepared) int { return strings.Compare(x.Name, y.Name) })
	return out
}
