package session

import (
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The system catalogs and the functions over them. exec/catalog computes
// the pg_catalog and information_schema relations from the root value;
// this file resolves their names (pg_catalog is searched before the
// search path, as in PostgreSQL), gives them the session's facts (user,
// databases, roles, settings, search path) and provides the functions
// psql's describe queries call: pg_get_expr, format_type,
// pg_table_is_visible, pg_get_indexdef, pg_get_constraintdef, ...

// CatalogSource gathers what the catalog is computed from, for a scan.
func (s *Session) CatalogSource(env *exec.Env) (*catalog.Source, error) {
	infos, _, err := versioning.LoadDatabaseInfos(env.Ctx, s.e.st)
	if err != nil {
		return nil, err
	}
	for name, d := range s.dbInfos {
		infos[name] = d // the transaction's own changes
	}
	var owner string
	if d := infos[s.repo.Name()]; d != nil {
		owner = d.Owner
	}
	dbs, err := versioning.ListDatabases(env.Ctx, s.e.st)
	if err != nil {
		return nil, err
	}
	roleMap, err := s.loadRoles(env.Ctx)
	if err != nil {
		return nil, err
	}
	roles := make([]*sqldef.Role, 0, len(roleMap))
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
		Backends: s.e.live.backends(), DatabaseInfos: infos, DatabaseOwner: owner, Stats: &s.e.stats,
		Statements: s.e.statements.snapshot,
		Memory:     goHeap,
		Locks:      func() []catalog.Lock { return s.e.live.locks(s.e.locks) },
		Ctx:        env.Ctx, Root: env.Txn.Root(), Database: s.database, Databases: dbs, User: s.user, Role: s.CurrentRole(), Roles: roles,
		SearchPath: s.lookupPath(), Settings: settings,
		Cursors: s.catalogCursors(), Prepared: s.catalogPrepared(),
		Expr: func(t *sqldef.Table, expr string, pretty bool) string {
			return planner.RenderExpr(s, env, t, expr, pretty)
		},
		Sequences: func(t *sqldef.Table, expr string) []*sqldef.Sequence {
			return s.defaultSequences(env, t, expr)
		},
		ViewEvents: func(v *sqldef.View, include []int) int {
			return planner.ViewEvents(s, env, v, include)
		},
		ViewDef: func(snap *catalog.Snapshot, query string, depends, cols []string) string {
			if text, ok := planner.ViewDef(s, env, snap, query, depends, cols, false, 0); ok {
				return text
			}
			return " " + query
		},
	}, nil
}

// lookupPath is the order unqualified relation names are looked up in:
// the temporary schema, pg_catalog (unless the search path places it),
// then the search path.
func (s *Session) lookupPath() []string {
	path := s.SearchPath()
	for _, p := range path {
		if p == "pg_catalog" {
			return s.RelationPath()
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
	root versioning.Address
	path string
	snap *catalog.Snapshot
}

// snapshot returns the catalog as of env's root.
func (s *Session) snapshot(env *exec.Env) (*catalog.Snapshot, error) {
	path := s.vars["search_path"]
	if c := &s.catCache; c.snap != nil && c.root == env.Txn.Root().Addr() && c.path == path {
		return c.snap, nil
	}
	src, err := s.CatalogSource(env)
	if err != nil {
		return nil, err
	}
	snap, err := catalog.NewSnapshot(src)
	if err != nil {
		return nil, err
	}
	s.catCache = catalogCache{root: env.Txn.Root().Addr(), path: path, snap: snap}
	return snap, nil
}

// The functions over the catalog that psql's describe queries and
// pg_dump call, with PostgreSQL's signatures (one registration per
// pg_proc overload). Catalog objects are named by OID: an OID alias
// (regclass, regtype, ...) or an integer converts implicitly, and a
// literal reads as an OID. All but format_type and set_config are strict.
func init() {
	oid := []uint32{exec.OIDOid}
	registerStrict("pg_get_userbyid", oid, exec.OIDName, onCatalog(func(_ *Session, _ *exec.Env, _ []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
		return exec.DText(roleByOID(snap, oid)), nil
	}))
	exec.Register(&exec.Func{Name: "format_type", Args: []uint32{exec.OIDOid, exec.OIDInt4}, Ret: exec.OIDText, Fn: formatType})
	registerStrict("pg_table_is_visible", oid, exec.OIDBool, onCatalog(func(_ *Session, _ *exec.Env, _ []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
		r, ok := snap.RelationByOID(oid)
		if !ok {
			return exec.Null, nil
		}
		return exec.DBool(snap.Visible(r)), nil
	}))
	registerStrict("pg_type_is_visible", oid, exec.OIDBool, func(s *Session, _ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		oid := types.Oid(a[0].I)
		if types.Lookup(oid) != nil {
			return exec.DBool(true), nil
		}
		if u, ok := (sessionTypes{s}).UserType(oid &^ types.ArrayBit); ok {
			return exec.DBool(s.typeVisible(u.Schema, u.Name)), nil
		}
		return exec.Null, nil
	})
	// A text search configuration or dictionary is visible when its name
	// alone finds it: it prints unqualified (textSearchOut). The parser
	// and the templates are pg_catalog's.
	for name, typ := range map[string]uint32{"pg_ts_config_is_visible": exec.OIDRegconfig, "pg_ts_dict_is_visible": exec.OIDRegdictionary} {
		registerStrict(name, oid, exec.OIDBool, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			n, err := s.textSearchOut(env, typ, uint32(a[0].I))
			if err != nil || n == "" {
				return exec.Null, err
			}
			return exec.DBool(!strings.Contains(n, ".")), nil
		})
	}
	for _, name := range []string{"pg_ts_parser_is_visible", "pg_ts_template_is_visible"} {
		registerStrict(name, oid, exec.OIDBool, func(*Session, *exec.Env, []exec.Datum) (exec.Datum, error) {
			return exec.DBool(true), nil
		})
	}
	registerStrict("pg_describe_object", []uint32{exec.OIDOid, exec.OIDOid, exec.OIDInt4}, exec.OIDText, (*Session).describeObject)
	registerStrict("pg_get_partkeydef", oid, exec.OIDText, onCatalog(func(_ *Session, _ *exec.Env, _ []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
		r, ok := snap.RelationByOID(oid)
		if !ok || r.Table == nil || !r.Table.Partitioned() {
			return exec.Null, nil
		}
		return exec.DText(snap.PartitionKeyDef(r.Table)), nil
	}))
	registerStrict("pg_get_partition_constraintdef", oid, exec.OIDText, onCatalog(func(_ *Session, env *exec.Env, _ []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
		r, ok := snap.RelationByOID(oid)
		if !ok || r.Table == nil || r.Kind != 'r' {
			return exec.Null, nil
		}
		def, err := planner.PartitionConstraintDef(env.Ctx, env.Txn.Root(), r.Table)
		if err != nil || def == "" {
			return exec.Null, err
		}
		return exec.DText(def), nil
	}))
	// pg_get_expr takes a pg_node_tree, a type this executor lacks: the
	// catalog's node-tree columns (adbin, relpartbound) are text.
	for _, args := range [][]uint32{{exec.OIDText, exec.OIDOid}, {exec.OIDText, exec.OIDOid, exec.OIDBool}} {
		registerStrict("pg_get_expr", args, exec.OIDText, (*Session).getExpr)
	}
	for _, args := range [][]uint32{oid, {exec.OIDOid, exec.OIDInt4, exec.OIDBool}} {
		registerStrict("pg_get_indexdef", args, exec.OIDText, onCatalog(func(_ *Session, _ *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
			col, pretty := 0, false
			if len(a) == 3 {
				col, pretty = int(a[1].I), a[2].Bool()
			}
			def := snap.IndexDef(oid, col, pretty)
			if def == "" && col == 0 {
				return exec.Null, nil
			}
			return exec.DText(def), nil
		}))
	}
	registerStrict("pg_get_statisticsobjdef_columns", oid, exec.OIDText, onCatalog(func(_ *Session, _ *exec.Env, _ []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
		cols, ok := snap.StatisticsColumns(oid)
		if !ok {
			return exec.Null, nil
		}
		return exec.DText(cols), nil
	}))
	for _, args := range [][]uint32{oid, {exec.OIDOid, exec.OIDBool}} {
		registerStrict("pg_get_constraintdef", args, exec.OIDText, onCatalog(func(_ *Session, _ *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
			def, ok := snap.ConstraintDef(oid, len(a) == 2 && a[1].Bool())
			if !ok {
				return exec.Null, nil
			}
			return exec.DText(def), nil
		}))
		registerStrict("pg_get_triggerdef", args, exec.OIDText, onCatalog(func(_ *Session, _ *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
			t, tr, ok := snap.TriggerByOID(oid)
			if !ok {
				return exec.Null, nil
			}
			return exec.DText(snap.TriggerDef(t, tr, len(a) == 2 && a[1].Bool())), nil
		}))
	}
	registerStrict("obj_description", oid, exec.OIDText, onCatalog(func(_ *Session, _ *exec.Env, _ []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
		return description(snap, oid, 0, 0), nil
	}))
	registerStrict("obj_description", []uint32{exec.OIDOid, exec.OIDName}, exec.OIDText, onCatalog(func(_ *Session, _ *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
		parts, err := exec.ParseQualifiedName(a[1].S)
		if err != nil {
			return exec.Null, err
		}
		class := uint32(0)
		_, catalogName := planner.SplitName(parts)
		if v, ok := catalog.Lookup("pg_catalog", catalogName); ok {
			class = v.OID
		}
		return description(snap, oid, class, 0), nil
	}))
	registerStrict("col_description", []uint32{exec.OIDOid, exec.OIDInt4}, exec.OIDText, onCatalog(func(_ *Session, _ *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
		return description(snap, oid, catalog.OIDPgClass, int(a[1].I)), nil
	}))
	exec.Register(withSession("set_config", []uint32{exec.OIDText, exec.OIDText, exec.OIDBool}, exec.OIDText, (*Session).setConfig))
	// pg_get_viewdef names the view by OID or by name; the bool asks
	// for the pretty form (parentheses only where needed), the int4 of
	// (oid, integer) is the line width of the pretty form.
	for _, args := range [][]uint32{oid, {exec.OIDOid, exec.OIDBool}, {exec.OIDOid, exec.OIDInt4}} {
		registerStrict("pg_get_viewdef", args, exec.OIDText, onCatalog(func(s *Session, env *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
			pretty, wrap := viewDefForm(args, a)
			return s.viewDef(env, snap, oid, pretty, wrap), nil
		}))
	}
	for _, args := range [][]uint32{{exec.OIDText}, {exec.OIDText, exec.OIDBool}} {
		registerStrict("pg_get_viewdef", args, exec.OIDText, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			oid, _, ok, err := s.ResolveRegclass(env, a[0].S)
			if err != nil || !ok {
				return exec.Null, err
			}
			snap, err := s.snapshot(env)
			if err != nil {
				return exec.Null, err
			}
			pretty, wrap := viewDefForm(args, a)
			return s.viewDef(env, snap, oid, pretty, wrap), nil
		})
	}
	registerStrict("current_schema", nil, exec.OIDName, (*Session).currentSchema)
	for _, name := range []string{"pg_get_functiondef", "pg_get_function_arguments", "pg_get_function_identity_arguments", "pg_get_function_result", "pg_function_is_visible"} {
		ret := exec.OIDText
		if name == "pg_function_is_visible" {
			ret = exec.OIDBool
		}
		registerStrict(name, oid, ret, onCatalog(procInfo(name)))
	}
	registerStrict("pg_operator_is_visible", oid, exec.OIDBool, onCatalog(func(_ *Session, _ *exec.Env, _ []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
		op, ok := snap.OperatorByOID(oid)
		if !ok {
			return exec.Null, nil
		}
		return exec.DBool(snap.OperatorVisible(op)), nil
	}))
	registerStrict("pg_get_serial_sequence", []uint32{exec.OIDText, exec.OIDText}, exec.OIDText, (*Session).serialSequence)
	registerStrict("to_regclass", []uint32{exec.OIDText}, exec.OIDRegclass, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		oid, name, ok, err := s.ResolveRegclass(env, a[0].S)
		if err != nil || !ok {
			return exec.Null, nil
		}
		return exec.DRegOID(oid, name), nil
	})
	// Which statements a relation takes, and whether a column may be
	// updated, as the bits of PostgreSQL's relation_is_updatable.
	registerStrict("pg_relation_is_updatable", []uint32{exec.OIDRegclass, exec.OIDBool}, exec.OIDInt4, onCatalog(func(_ *Session, _ *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
		r, ok := snap.RelationByOID(oid)
		if !ok {
			return exec.DInt(0), nil
		}
		return exec.DInt(int64(relationEvents(snap, r, -1, a[1].Bool()))), nil
	}))
	registerStrict("pg_column_is_updatable", []uint32{exec.OIDRegclass, exec.OIDInt2, exec.OIDBool}, exec.OIDBool, onCatalog(func(_ *Session, _ *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
		r, ok := snap.RelationByOID(oid)
		if !ok || a[1].I <= 0 {
			return exec.DBool(false), nil
		}
		const need = planner.EventUpdate | planner.EventDelete
		return exec.DBool(relationEvents(snap, r, int(a[1].I)-1, a[2].Bool())&need == need), nil
	}))
}

// goHeap is the server's memory as pg_backend_memory_contexts shows it:
// the Go heap, as one context.
func goHeap() catalog.MemoryContext {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return catalog.MemoryContext{Name: "TopMemoryContext", TotalBytes: int64(m.HeapSys), Blocks: int64(m.HeapObjects), Used: int64(m.HeapAlloc)}
}

// The catalog functions whose answers are fixed here, with PostgreSQL's
// signatures. The privileges not modelled yet (all but those of tables,
// schemas, sequences, functions, types and databases: roles.go) answer true, whichever way the role, the object
// and the column are named. Comments
// on shared objects, statistics objects, rules, SQL-standard bodies kept
// as trees, temporary schemas of other sessions, publications and
// tablespaces do not exist.
func init() {
	fixed := func(name string, args []uint32, ret uint32, d exec.Datum) {
		exec.Register(strict(&exec.Func{Name: name, Args: args, Ret: ret, Fn: func(*exec.Env, []exec.Datum) (exec.Datum, error) {
			return d, nil
		}}))
	}
	const name, oid, text = exec.OIDName, exec.OIDOid, exec.OIDText
	object := [][]uint32{{name, text, text}, {name, oid, text}, {oid, text, text}, {oid, oid, text}, {text, text}, {oid, text}}
	privileges := map[string][][]uint32{
		"has_parameter_privilege": {{name, text, text}, {oid, text, text}, {text, text}},
	}
	// has_column_privilege and has_any_column_privilege are roles.go's.
	for _, kind := range []string{"foreign_data_wrapper", "language", "server", "tablespace"} {
		privileges["has_"+kind+"_privilege"] = object
	}
	names := make([]string, 0, len(privileges))
	for n := range privileges {
		names = append(names, n)
	}
	sort.Strings(names) // registration order fixes pg_proc's OIDs
	for _, n := range names {
		for _, args := range privileges[n] {
			fixed(n, args, exec.OIDBool, exec.DBool(true))
		}
	}
	fixed("shobj_description", []uint32{oid, name}, text, exec.Null)
	fixed("pg_get_statisticsobjdef_columns", []uint32{oid}, text, exec.Null)
	for _, args := range [][]uint32{{oid}, {oid, exec.OIDBool}} {
		registerStrict("pg_get_ruledef", args, text, onCatalog(func(_ *Session, _ *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
			schema, rel, r, ok := snap.RuleByOID(oid)
			if !ok {
				return exec.Null, nil
			}
			return exec.DText(catalog.RuleDef(schema, rel, r, len(a) == 2 && a[1].Bool())), nil
		}))
	}
	fixed("pg_get_function_sqlbody", []uint32{oid}, text, exec.Null)
	fixed("pg_relation_is_publishable", []uint32{exec.OIDRegclass}, exec.OIDBool, exec.DBool(false))
	fixed("pg_is_other_temp_schema", []uint32{oid}, exec.OIDBool, exec.DBool(false))
	fixed("pg_my_temp_schema", nil, oid, exec.DInt(0))
	fixed("pg_tablespace_location", []uint32{oid}, text, exec.DText(""))
	// Encodings by number: UTF8 is 6, SQL_ASCII 0.
	exec.Register(strict(&exec.Func{Name: "pg_encoding_to_char", Args: []uint32{exec.OIDInt4}, Ret: name, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		switch a[0].I {
		case 6:
			return exec.DText("UTF8"), nil
		case 0:
			return exec.DText("SQL_ASCII"), nil
		}
		return exec.DText(""), nil
	}}))
	exec.Register(strict(&exec.Func{Name: "pg_char_to_encoding", Args: []uint32{name}, Ret: exec.OIDInt4, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if strings.EqualFold(strings.ReplaceAll(a[0].S, "-", ""), "utf8") {
			return exec.DInt(6), nil
		}
		return exec.DInt(-1), nil
	}}))
}

// catalogFn is a function over the session's catalog, called with the
// OID its first argument gives.
type catalogFn func(s *Session, env *exec.Env, a []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error)

// onCatalog makes fn a function of the session: its first argument is an
// OID (never NULL: the functions are strict), the catalog that of the
// statement's root.
func onCatalog(fn catalogFn) sessionFn {
	return func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		snap, err := s.snapshot(env)
		if err != nil {
			return exec.Null, err
		}
		return fn(s, env, a, snap, uint32(a[0].I))
	}
}

// formatType is format_type(type, typmod), which is not strict: a NULL
// typmod is none.
func formatType(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	if a[0].IsNull() {
		return exec.Null, nil
	}
	typmod := int32(-1)
	if !a[1].IsNull() {
		typmod = int32(a[1].I)
	}
	if a[0].I == 0 {
		return exec.DText("-"), nil
	}
	return exec.DText(exec.FormatTypeIn(env.Settings, uint32(a[0].I), typmod)), nil
}

// getExpr is pg_get_expr(expr, relation[, pretty]): a stored expression
// of the relation rendered as SQL.
func (s *Session) getExpr(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	snap, err := s.snapshot(env)
	if err != nil {
		return exec.Null, err
	}
	r, ok := snap.RelationByOID(uint32(a[1].I))
	if !ok || r.Table == nil || r.Table.IsPartition() && a[0].S == snap.PartitionBound(r.Table) {
		return exec.DText(a[0].S), nil // relpartbound is stored as its text
	}
	return exec.DText(planner.RenderExpr(s, env, r.Table, a[0].S, len(a) == 3 && a[2].Bool())), nil
}

// description is the comment on object oid of the catalog class (any
// when 0) and sub-object sub (a column), NULL if none.
func description(snap *catalog.Snapshot, oid, class uint32, sub int) exec.Datum {
	for _, d := range snap.Descriptions() {
		if d.ObjOID == oid && d.SubID == sub && (class == 0 || d.ClassOID == class) {
			return exec.DText(d.Text)
		}
	}
	return exec.Null
}

// setConfig is set_config(name, value, is_local), which is not strict: a
// NULL value resets the setting.
func (s *Session) setConfig(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	if a[0].IsNull() {
		return exec.Null, pgerr.New(pgerr.NullValueNotAllowed, "SET requires parameter name")
	}
	vs := &pg.VariableSetStmt{Kind: pg.VariableSetKind_VAR_SET_VALUE, Name: a[0].S, IsLocal: a[2].Bool()}
	if a[1].IsNull() {
		vs.Kind = pg.VariableSetKind_VAR_RESET
	} else {
		vs.Args = []*pg.Node{pg.MakeAConstStrNode(a[1].S, -1)}
	}
	if _, err := s.set(env.Ctx, vs); err != nil {
		return exec.Null, err
	}
	return exec.DText(s.vars[strings.ToLower(a[0].S)]), nil
}

// viewDefForm returns the form pg_get_viewdef's arguments a (of types
// args) ask for: pretty, and the wrap column.
func viewDefForm(args []uint32, a []exec.Datum) (pretty bool, wrap int) {
	if len(args) < 2 {
		return false, 0
	}
	if args[1] == exec.OIDInt4 {
		return true, int(a[1].I)
	}
	return a[1].Bool(), 0
}

// viewDef is pg_get_viewdef of the relation oid: NULL unless a view or
// a materialized view.
func (s *Session) viewDef(env *exec.Env, snap *catalog.Snapshot, oid uint32, pretty bool, wrap int) exec.Datum {
	r, ok := snap.RelationByOID(oid)
	if !ok {
		return exec.Null
	}
	var query string
	var depends, cols []string
	switch {
	case r.Query != nil:
		query, depends = r.Query.Query, r.Query.Depends
		for _, c := range r.Query.Columns {
			cols = append(cols, c.Name)
		}
	case r.Table != nil && r.Table.MatView != nil:
		query, depends = r.Table.MatView.Query, r.Table.MatView.Depends
		for _, c := range r.Table.Columns {
			if !c.Dropped {
				cols = append(cols, c.Name)
			}
		}
	default:
		return exec.Null
	}
	if text, ok := planner.ViewDef(s, env, snap, query, depends, cols, pretty, wrap); ok {
		return exec.DText(text + ";")
	}
	if r.Query != nil {
		return exec.DText(" " + planner.ViewDefinition(snap, r.Query) + ";")
	}
	return exec.DText(" " + query + ";")
}

// currentSchema is current_schema(): the first schema of the search path
// that exists, NULL if none does.
func (s *Session) currentSchema(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
	for _, sc := range s.SearchPath() {
		if _, ok, err := env.Txn.Root().Schema(env.Ctx, sc); err != nil {
			return exec.Null, err
		} else if ok || planner.IsSystemSchema(sc) {
			return exec.DText(sc), nil
		}
	}
	return exec.Null, nil
}

// procInfo is the function-describing function name (pg_get_functiondef,
// pg_get_function_arguments, ..., pg_function_is_visible) of a user
// function or, failing one, of a built-in overload.
func procInfo(name string) catalogFn {
	return func(_ *Session, env *exec.Env, _ []exec.Datum, snap *catalog.Snapshot, oid uint32) (exec.Datum, error) {
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
	}
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
	parts, err := exec.ParseQualifiedName(a[0].S)
	if err != nil {
		return exec.Null, err
	}
	schema, table := planner.SplitName(parts)
	col := a[1].S
	if len(col) >= 2 && col[0] == '"' {
		col = exec.UnquoteIdent(col)
	} else {
		col = strings.ToLower(col)
	}
	snap, err := s.snapshot(env)
	if err != nil {
		return exec.Null, err
	}
	schemas := []string{schema}
	if schema == "" {
		schemas = s.RelationPath()
	}
	for _, sc := range schemas {
		sc = s.ResolveSchemaName(sc)
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
				return exec.DText(planner.QuoteIdent(q.Schema) + "." + planner.QuoteIdent(q.Name)), nil
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

// settingsTypeNamer names types as format_type does for the session.
func settingsTypeNamer(st *exec.Settings) catalog.TypeNamer {
	return func(oid uint32) string { return exec.FormatTypeIn(st, oid, -1) }
}

// relationEvents is PostgreSQL's relation_is_updatable: the statements
// relation r (limited to its column at position col when col >= 0)
// takes, with its INSTEAD OF triggers' when triggers.
func relationEvents(snap *catalog.Snapshot, r catalog.Relation, col int, triggers bool) int {
	events := snap.RelationEvents(r, col)
	if triggers && r.Kind == 'v' && r.Query != nil {
		events |= catalog.TriggerEvents(r.Query)
	}
	return events
}
