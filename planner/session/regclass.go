package session

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The OID alias types (regclass, regtype, regnamespace, regrole, regproc).
// Their values are OIDs; casting a name to one looks the object up in the
// catalog (a literal at planning, as PostgreSQL does, anything else at
// execution), and the value keeps the name for its text output: a relation
// prints as its name, schema-qualified when the search path would not
// find it. Casting an OID to one finds the name the same way.

// RegIn converts text to a value of OID alias type typ, as its input
// function does: a number is the OID itself, anything else a name.
func (s *Session) RegIn(env *exec.Env, typ uint32, text string) (exec.Datum, error) {
	text = strings.TrimSpace(text)
	if v, err := strconv.ParseUint(text, 10, 32); err == nil {
		name, err := s.RegOut(env, typ, uint32(v))
		return exec.DRegOID(uint32(v), name), err
	}
	switch typ {
	case exec.OIDRegclass:
		oid, name, ok, err := s.ResolveRegclass(env, text)
		if err != nil {
			return exec.Null, err
		}
		if !ok {
			return exec.Null, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", text)
		}
		return exec.DRegOID(oid, name), nil
	case exec.OIDRegtype:
		r, err := pg.Parse("SELECT NULL::" + text)
		if err == nil && len(r.Stmts) == 1 {
			if tc := r.Stmts[0].Stmt.GetSelectStmt().GetTargetList()[0].GetResTarget().GetVal().GetTypeCast(); tc != nil {
				if oid, name, ok, err := s.typeNameOID(env, tc.TypeName); err != nil || ok {
					return exec.DRegOID(oid, name), err
				}
			}
		}
		return exec.Null, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", text)
	case exec.OIDRegnamespace:
		parts, err := exec.ParseQualifiedName(text)
		if err != nil || len(parts) != 1 {
			return exec.Null, pgerr.New(pgerr.InvalidName, "invalid name syntax")
		}
		snap, err := s.snapshot(env)
		if err != nil {
			return exec.Null, err
		}
		for _, n := range snap.Namespaces() {
			if n.Name == parts[0] {
				return exec.DRegOID(n.OID, planner.QuoteIdent(n.Name)), nil
			}
		}
		return exec.Null, pgerr.New(pgerr.UndefinedObject, "schema %q does not exist", parts[0])
	case exec.OIDRegconfig, exec.OIDRegdictionary:
		return s.textSearchIn(env, typ, text)
	case exec.OIDRegprocedure:
		return s.regprocedureIn(env, text)
	case exec.OIDRegrole:
		parts, err := exec.ParseQualifiedName(text)
		if err != nil || len(parts) != 1 {
			return exec.Null, pgerr.New(pgerr.InvalidName, "invalid name syntax")
		}
		snap, err := s.snapshot(env)
		if err != nil {
			return exec.Null, err
		}
		oid := catalog.RoleOID(parts[0])
		if roleByOID(snap, oid) == parts[0] {
			return exec.DRegOID(oid, planner.QuoteIdent(parts[0])), nil
		}
		return exec.Null, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", parts[0])
	case exec.OIDRegproc:
		parts, err := exec.ParseQualifiedName(text)
		if err != nil {
			return exec.Null, err
		}
		schema, name := planner.SplitName(parts)
		if d, ok, err := s.userRegproc(env, schema, name, text); ok || err != nil {
			return d, err
		}
		if !exec.HasFunc(name) && !types.IsIOFunction(name) {
			return exec.Null, pgerr.New(pgerr.UndefinedFunction, "function %q does not exist", text)
		}
		return exec.DRegOID(catalog.ProcOID(name), name), nil
	}
	return exec.Null, pgerr.New(pgerr.FeatureNotSupported, "input of type %s is not supported", exec.TypeName(typ))
}

// typeNameOID resolves a type name as regtype's input does: a built-in
// type, a user type on the search path, or a pseudo-type, by its name or
// as pg_catalog's (psql's \df reads 'pg_catalog.trigger'::pg_catalog.regtype).
func (s *Session) typeNameOID(env *exec.Env, tn *pg.TypeName) (oid uint32, name string, ok bool, err error) {
	if t, _, err := planner.ResolveType(tn); err == nil {
		return t.OID, types.FormatType(types.Oid(t.OID), -1), true, nil
	}
	if oid, ok, err := s.userTypeOID(env, tn); err != nil || ok {
		return oid, exec.FormatTypeIn(env.Settings, oid, -1), ok, err
	}
	if oid, ok := planner.PseudoTypeNamed(planner.NameList(tn.Names)); ok {
		return oid, exec.TypeName(oid), true, nil
	}
	return 0, "", false, nil
}

// functionBySignature finds the user function a signature names, as
// regprocedure's input does: name(type, ...), schema-qualified or found
// on the search path. ok is false when there is none.
func (s *Session) functionBySignature(env *exec.Env, text string) (*sqldef.Function, bool, error) {
	schema, name, inputs, err := s.parseSignature(env, text)
	if err != nil {
		return nil, false, err
	}
	schemas := s.RelationPath()
	if schema != "" {
		schemas = []string{s.ResolveSchemaName(schema)}
	}
	for _, sc := range schemas {
		f, ok, err := env.Txn.Root().Function(env.Ctx, sc, name, inputs)
		if err != nil || ok {
			return f, ok, err
		}
	}
	return nil, false, nil
}

// parseSignature reads a function signature, name(type, ...), into its
// schema ("" when unqualified), name and argument types.
func (s *Session) parseSignature(env *exec.Env, text string) (schema, name string, inputs []uint32, err error) {
	r, err := pg.Parse("DROP FUNCTION " + text)
	if err != nil || len(r.Stmts) != 1 || len(r.Stmts[0].Stmt.GetDropStmt().GetObjects()) != 1 {
		return "", "", nil, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type regprocedure: %q", text)
	}
	ow := r.Stmts[0].Stmt.GetDropStmt().GetObjects()[0].GetObjectWithArgs()
	for _, n := range ow.Objargs {
		oid, _, ok, err := s.typeNameOID(env, n.GetTypeName())
		if err != nil {
			return "", "", nil, err
		}
		if !ok {
			return "", "", nil, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", planner.OpName(n.GetTypeName().Names))
		}
		inputs = append(inputs, oid)
	}
	schema, name = planner.SplitName(planner.NameList(ow.Objname))
	return schema, name, inputs, nil
}

// regprocedureIn is regprocedure's input: a user function by its
// signature, or a built-in overload.
func (s *Session) regprocedureIn(env *exec.Env, text string) (exec.Datum, error) {
	f, ok, err := s.functionBySignature(env, text)
	if err != nil {
		return exec.Null, err
	}
	if ok {
		oid := catalog.FunctionOID(f)
		name, err := s.RegOut(env, exec.OIDRegprocedure, oid)
		return exec.DRegOID(oid, name), err
	}
	schema, name, inputs, err := s.parseSignature(env, text)
	if err != nil {
		return exec.Null, err
	}
	if schema == "" || schema == "pg_catalog" {
		if oid, ok := catalog.BuiltinProcBySignature(name, inputs); ok {
			out, err := s.RegOut(env, exec.OIDRegprocedure, oid)
			return exec.DRegOID(oid, out), err
		}
	}
	return exec.Null, pgerr.New(pgerr.UndefinedFunction, "function %q does not exist", text)
}

// regprocedureOut is format_procedure: the function's name, qualified
// when the search path would not find it, and its argument types.
func (s *Session) regprocedureOut(env *exec.Env, snap *catalog.Snapshot, oid uint32) string {
	var name string
	var params []uint32
	if f, ok := snap.FunctionByOID(oid); ok {
		name, params = planner.QuoteIdent(f.Name), f.InputTypes()
		if !snap.FunctionVisible(f) {
			name = planner.QuoteIdent(f.Schema) + "." + name
		}
	} else if p, ok := catalog.LookupBuiltinProc(oid); ok {
		name, params = p.Name, p.Params()
	} else {
		return ""
	}
	types := make([]string, len(params))
	for i, t := range params {
		types[i] = exec.FormatTypeIn(env.Settings, t, -1)
	}
	return name + "(" + strings.Join(types, ",") + ")"
}

// RegOut returns the name an OID alias value prints as, "" when no object
// has the OID (the value then prints as the number).
func (s *Session) RegOut(env *exec.Env, typ, oid uint32) (string, error) {
	if typ == exec.OIDRegconfig || typ == exec.OIDRegdictionary {
		return s.textSearchOut(env, typ, oid)
	}
	if oid == 0 {
		return "-", nil
	}
	switch typ {
	case exec.OIDRegtype:
		if types.Lookup(types.Oid(oid)) != nil {
			return types.FormatType(types.Oid(oid), -1), nil
		}
		if name, ok := exec.PseudoTypeName(oid); ok {
			return name, nil
		}
		if name, ok := (sessionTypes{s}).TypeName(types.Oid(oid)); ok {
			return name, nil
		}
		return "", nil
	case exec.OIDRegprocedure:
		snap, err := s.snapshot(env)
		if err != nil {
			return "", err
		}
		return s.regprocedureOut(env, snap, oid), nil
	case exec.OIDRegproc:
		snap, err := s.snapshot(env)
		if err != nil {
			return "", err
		}
		if f, ok := snap.FunctionByOID(oid); ok {
			if snap.FunctionVisible(f) {
				return planner.QuoteIdent(f.Name), nil
			}
			return planner.QuoteIdent(f.Schema) + "." + planner.QuoteIdent(f.Name), nil
		}
		if p, ok := catalog.LookupBuiltinProc(oid); ok {
			return p.Name, nil
		}
		found := ""
		types.IOFunctions(func(name string) {
			if catalog.ProcOID(name) == oid {
				found = name
			}
		})
		return found, nil
	}
	snap, err := s.snapshot(env)
	if err != nil {
		return "", err
	}
	switch typ {
	case exec.OIDRegclass:
		r, ok := snap.RelationByOID(oid)
		if !ok {
			return "", nil
		}
		return relationDisplayName(snap, r), nil
	case exec.OIDRegnamespace:
		for _, n := range snap.Namespaces() {
			if n.OID == oid {
				return planner.QuoteIdent(n.Name), nil
			}
		}
	case exec.OIDRegrole:
		if name := roleByOID(snap, oid); !strings.HasPrefix(name, "unknown") {
			return planner.QuoteIdent(name), nil
		}
	}
	return "", nil
}

// relationDisplayName is how regclass prints a relation: its name, with
// its schema when the search path would not find it by name alone.
func relationDisplayName(snap *catalog.Snapshot, r catalog.Relation) string {
	if snap.Visible(r) {
		return planner.QuoteIdent(r.Name)
	}
	return planner.QuoteIdent(r.Schema) + "." + planner.QuoteIdent(r.Name)
}

// ResolveRegclass looks a relation name, as regclass input takes it, up
// along the search path (pg_catalog first).
func (s *Session) ResolveRegclass(env *exec.Env, text string) (uint32, string, bool, error) {
	parts, err := exec.ParseQualifiedName(text)
	if err != nil {
		return 0, "", false, err
	}
	schema, name := planner.SplitName(parts)
	if oid, ok, err := s.firstSequence(env, schema, name); ok || err != nil {
		return oid, planner.QuoteIdent(name), ok, err
	}
	snap, err := s.snapshot(env)
	if err != nil {
		return 0, "", false, err
	}
	schemas := []string{s.ResolveSchemaName(schema)}
	if schema == "" {
		schemas = s.lookupPath()
	}
	for _, sc := range schemas {
		if r, ok := snap.RelationByName(sc, name); ok {
			return r.OID, relationDisplayName(snap, r), true, nil
		}
	}
	return 0, "", false, nil
}

// firstSequence resolves, without a catalog snapshot, the regclass of a
// serial column's default (nextval('t_id_seq'::regclass)), which a row
// change's analysis meets, and each commit would make it build a new
// snapshot: an unqualified name, in a session without temporary
// relations, that a sequence of the first existing schema of the search
// path has. pg_catalog, which the lookup passes first, names its
// relations pg_*, and a schema's relations (tables, indexes, views,
// sequences) share one namespace, so that sequence is what the lookup
// finds. Not ok: the ordinary lookup decides.
func (s *Session) firstSequence(env *exec.Env, schema, name string) (uint32, bool, error) {
	if schema != "" || s.tempSchema != "" || strings.HasPrefix(name, "pg_") {
		return 0, false, nil
	}
	root := env.Txn.Catalog()
	for _, sc := range s.SearchPath() {
		if sc == "pg_catalog" {
			return 0, false, nil
		}
		if _, ok, err := root.SequenceRecord(env.Ctx, sc, name); ok || err != nil {
			return catalog.SequenceOID(sc, name), ok, err
		}
		if ok, err := root.HasSchema(env.Ctx, sc); ok || err != nil {
			return 0, false, err // it may hold another relation of that name
		}
	}
	return 0, false, nil
}

// userTypeOID finds the user type (or table row type) a type name names
// along the search path, and its array type when the name has bounds.
func (s *Session) userTypeOID(env *exec.Env, tn *pg.TypeName) (uint32, bool, error) {
	names := make([]string, len(tn.Names))
	for i, n := range tn.Names {
		names[i] = n.GetString_().GetSval()
	}
	if len(names) > 2 {
		return 0, false, nil
	}
	schema, name := planner.SplitName(names)
	schemas := []string{schema}
	if schema == "" {
		schemas = s.SearchPath()
	}
	root := env.Txn.Root()
	for _, sch := range schemas {
		var oid uint32
		if t, ok, err := root.Type(env.Ctx, sch, name); err != nil {
			return 0, false, err
		} else if ok {
			oid = planner.TypeOIDOf(t)
		} else if _, ok, err := root.Table(env.Ctx, sch, name); err != nil {
			return 0, false, err
		} else if ok {
			oid = exec.TypeOID(types.UserComposite, sch, name)
		}
		if oid == 0 {
			continue
		}
		if len(tn.ArrayBounds) > 0 {
			oid = uint32(types.ArrayOf(types.Oid(oid)))
		}
		return oid, oid != 0, nil
	}
	return 0, false, nil
}

// userRegproc reads a regproc naming a user function: the one function
// of that name in schema, or in the first schema of the search path that
// has one. ok is false when no user function has the name.
func (s *Session) userRegproc(env *exec.Env, schema, name, text string) (exec.Datum, bool, error) {
	schemas := s.RelationPath()
	if schema != "" {
		schemas = []string{s.ResolveSchemaName(schema)}
	}
	for _, sc := range schemas {
		fs, err := env.Txn.Root().FunctionsNamed(env.Ctx, sc, name)
		if err != nil {
			return exec.Null, false, err
		}
		switch {
		case len(fs) > 1:
			return exec.Null, true, pgerr.New(pgerr.AmbiguousFunction, "more than one function named %q", text)
		case len(fs) == 1:
			return exec.DRegOID(catalog.FunctionOID(fs[0]), name), true, nil
		}
	}
	return exec.Null, false, nil
}
