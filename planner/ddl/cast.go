package ddl

// CREATE CAST and DROP CAST, as PostgreSQL's functioncmds.c CreateCast
// and pg_cast.c CastCreate do them. A cast is a sqldef.Function
// record of Kind 'c' (sqldef.Cast); planner/cast.go applies them.

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// castType is a type a cast names: its OID (a domain's own, which
// PostgreSQL records and then ignores), its name as format_type writes
// it, its typtype, and its owner ("" for a built-in type: the bootstrap
// superuser's).
type castType struct {
	oid   uint32
	name  string
	kind  byte // typtype: 'b' base, 'c' composite, 'd' domain, 'e' enum, 'p' pseudo, 'r' range
	owner string
	user  bool   // not a built-in type
	base  uint32 // a domain's base type
}

// resolveCastType resolves a type a cast statement names.
func (a *analyzer) resolveCastType(ctx context.Context, tn *pg.TypeName) (castType, error) {
	if oid, ok := planner.PseudoTypeNamed(planner.NameList(tn.Names)); ok {
		return castType{oid: oid, name: exec.TypeName(oid), kind: 'p'}, nil
	}
	if t, _, err := planner.ResolveType(tn); err == nil {
		return castType{oid: t.OID, name: exec.TypeName(t.OID), kind: 'b'}, nil // a built-in type
	}
	t, dom, _, err := a.ResolveTypeDomain(tn)
	if err != nil {
		return castType{}, err
	}
	if dom != nil {
		return castType{oid: planner.TypeOIDOf(dom), base: dom.Base, name: dom.Name, kind: 'd', owner: dom.Owner}, nil
	}
	ct := castType{oid: t.OID, name: a.TypeName(t), kind: 'b', user: true}
	if len(tn.ArrayBounds) > 0 {
		return ct, nil
	}
	schema, name := planner.SplitName(planner.NameList(tn.Names))
	if ut, err := a.LookupType(ctx, schema, name); err == nil && ut != nil {
		ct.kind, ct.owner = ut.Kind, ut.Owner
	} else if exec.KindOf(t.OID) == exec.KindRecord {
		ct.kind = 'c' // a table's row type
	}
	return ct, nil
}

// createCast is CREATE CAST.
func (a *analyzer) createCast(s *pg.CreateCastStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		def, err := a.castDef(ctx, s)
		if err != nil {
			return "", err
		}
		return "CREATE CAST", a.putRoutine(ctx, def)
	}, nil
}

// castDef checks CREATE CAST, in the order of PostgreSQL's CreateCast and
// CastCreate, and builds its record.
func (a *analyzer) castDef(ctx context.Context, s *pg.CreateCastStmt) (*sqldef.Function, error) {
	src, err := a.resolveCastType(ctx, s.Sourcetype)
	if err != nil {
		return nil, err
	}
	tgt, err := a.resolveCastType(ctx, s.Targettype)
	if err != nil {
		return nil, err
	}
	if src.kind == 'p' {
		return nil, pgerr.New(pgerr.WrongObjectType, "source data type %s is a pseudo-type", src.name)
	}
	if tgt.kind == 'p' {
		return nil, pgerr.New(pgerr.WrongObjectType, "target data type %s is a pseudo-type", tgt.name)
	}
	au, err := a.Authority()
	if err != nil {
		return nil, err
	}
	if !au.Owns(src.owner) && !au.Owns(tgt.owner) {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be owner of type %s or type %s", src.name, tgt.name)
	}
	for _, tn := range []*pg.TypeName{s.Sourcetype, s.Targettype} {
		if err := a.RequireTypeNameUsage(tn); err != nil {
			return nil, err
		}
	}
	if src.kind == 'd' {
		a.s.Notice(pgerr.NewWarning(pgerr.WrongObjectType, "cast will be ignored because the source data type is a domain"))
	} else if tgt.kind == 'd' {
		a.s.Notice(pgerr.NewWarning(pgerr.WrongObjectType, "cast will be ignored because the target data type is a domain"))
	}
	c := &sqldef.Cast{Method: 'b'}
	switch {
	case s.Func != nil:
		c.Method = 'f'
	case s.Inout:
		c.Method = 'i'
	}
	nargs := 0
	if c.Method == 'f' {
		f, err := a.routineByArgs(s.Func, "function")
		if err != nil {
			return nil, err
		}
		in := f.InputTypes()
		nargs = len(in)
		switch {
		case nargs < 1 || nargs > 3:
			return nil, pgerr.New(pgerr.InvalidObjectDefinition, "cast function must take one to three arguments")
		case !binaryCoercible(src.oid, in[0]):
			return nil, pgerr.New(pgerr.InvalidObjectDefinition, "argument of cast function must match or be binary-coercible from source data type")
		case nargs > 1 && in[1] != exec.OIDInt4:
			return nil, pgerr.New(pgerr.InvalidObjectDefinition, "second argument of cast function must be type %s", "integer")
		case nargs > 2 && in[2] != exec.OIDBool:
			return nil, pgerr.New(pgerr.InvalidObjectDefinition, "third argument of cast function must be type %s", "boolean")
		case !binaryCoercible(f.Returns, tgt.oid):
			return nil, pgerr.New(pgerr.InvalidObjectDefinition, "return data type of cast function must match or be binary-coercible to target data type")
		case f.Kind != 'f':
			return nil, pgerr.New(pgerr.InvalidObjectDefinition, "cast function must be a normal function")
		case f.ReturnsSet:
			return nil, pgerr.New(pgerr.InvalidObjectDefinition, "cast function must not return a set")
		}
		c.Proc, c.ProcArgs = f.Schema+"."+f.Name, in
	}
	if c.Method == 'b' {
		if err := binaryCastCheck(au, src, tgt); err != nil {
			return nil, err
		}
	}
	if src.oid == tgt.oid && nargs < 2 {
		return nil, pgerr.New(pgerr.InvalidObjectDefinition, "source data type and target data type are the same")
	}
	switch s.Context {
	case pg.CoercionContext_COERCION_IMPLICIT:
		c.Context = 'i'
	case pg.CoercionContext_COERCION_ASSIGNMENT:
		c.Context = 'a'
	default:
		c.Context = 'e'
	}
	if _, exists, err := a.tx.Root().Cast(ctx, src.oid, tgt.oid); err != nil {
		return nil, err
	} else if exists || builtinCast(src, tgt) {
		return nil, pgerr.New(pgerr.DuplicateObject, "cast from type %s to type %s already exists", src.name, tgt.name)
	}
	return &sqldef.Function{Schema: "pg_catalog", Name: "cast", Kind: 'c', Language: "internal", Volatility: 'i',
		Args: []sqldef.FuncArg{{Type: src.oid, Mode: 'i'}}, Returns: tgt.oid, Cast: c}, nil
}

// binaryCastCheck is what CreateCast asks of a cast WITHOUT FUNCTION: a
// superuser's, between types of the same representation that are not
// composite, enum, array or domain types.
func binaryCastCheck(au *planner.Authority, src, tgt castType) error {
	if !au.Superuser {
		return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to create a cast WITHOUT FUNCTION")
	}
	if typeShape(src) != typeShape(tgt) {
		return pgerr.New(pgerr.InvalidObjectDefinition, "source and target data types are not physically compatible")
	}
	switch {
	case src.kind == 'c' || tgt.kind == 'c':
		return pgerr.New(pgerr.InvalidObjectDefinition, "composite data types are not binary-compatible")
	case src.kind == 'e' || tgt.kind == 'e':
		return pgerr.New(pgerr.InvalidObjectDefinition, "enum data types are not binary-compatible")
	case exec.ElemType(exec.T{OID: src.oid}).OID != 0 || exec.ElemType(exec.T{OID: tgt.oid}).OID != 0:
		return pgerr.New(pgerr.InvalidObjectDefinition, "array data types are not binary-compatible")
	case src.kind == 'd' || tgt.kind == 'd':
		return pgerr.New(pgerr.InvalidObjectDefinition, "domain data types must not be marked binary-compatible")
	}
	return nil
}

// shape is a type's storage: typlen, typbyval and typalign.
type shape struct {
	len   int
	byVal bool
	align byte
}

// typeShape is t's storage as pg_type records it; a user type's is its
// kind's (an enum is a 4-byte value, the others are of variable length).
func typeShape(t castType) shape {
	if t.kind == 'd' {
		return typeShape(castType{oid: t.base, kind: 'b'})
	}
	if ty := types.Lookup(types.Oid(t.oid)); ty != nil {
		return shape{int(ty.Len), ty.ByVal, ty.Align}
	}
	switch t.kind {
	case 'e':
		return shape{4, true, 'i'}
	case 'c':
		return shape{-1, false, 'd'}
	}
	return shape{-1, false, 'i'}
}

// binaryCoercible reports whether a value of type from may be passed as
// one of type to unchanged, as PostgreSQL's IsBinaryCoercible says of
// the casts cast functions' arguments and results need: the same type, a
// polymorphic or "any" parameter, or a binary-coercible implicit cast of
// pg_cast (varchar to text, the OID aliases to oid and back).
func binaryCoercible(from, to uint32) bool {
	switch {
	case from == to, to == exec.OIDAny:
		return true
	case exec.IsPolymorphic(to):
		return exec.CanCoerce(from, to)
	case from == exec.OIDVarchar && to == exec.OIDText, from == exec.OIDText && to == exec.OIDVarchar:
		return true
	case from == exec.OIDOid && exec.IsRegType(to), exec.IsRegType(from) && to == exec.OIDOid:
		return true
	case from == exec.OIDCidr && to == exec.OIDInet:
		return true
	}
	return false
}

// builtinCast reports whether pg_cast has a built-in cast from src to
// tgt: the conversions between built-in types the planner knows
// (exec.CastFn), but for the text output and input conversions to and
// from the string types, which PostgreSQL makes without a pg_cast entry.
func builtinCast(src, tgt castType) bool {
	if src.kind != 'b' || tgt.kind != 'b' || src.user || tgt.user {
		return false
	}
	from, to := exec.T{OID: src.oid, Typmod: -1}, exec.T{OID: tgt.oid, Typmod: -1}
	if exec.CastFn(from, to, true) == nil {
		return false
	}
	fs, ts := exec.TypeCategory(src.oid) == 'S', exec.TypeCategory(tgt.oid) == 'S'
	if fs != ts {
		// Among the string types' conversions only these are pg_cast's.
		return exec.IsRegType(src.oid) || exec.IsRegType(tgt.oid) || src.oid == exec.OIDChar || tgt.oid == exec.OIDChar ||
			src.oid == exec.OIDXML || tgt.oid == exec.OIDXML || src.oid == exec.OIDInet || src.oid == exec.OIDCidr ||
			src.oid == exec.OIDBool
	}
	return true
}

// castNamed returns the cast DROP CAST or COMMENT ON CAST names by its
// source and target types, checking the current role owns one of them;
// nil with missingOK when there is none.
func (a *analyzer) castNamed(ctx context.Context, l *pg.List, missingOK bool) (*sqldef.Function, error) {
	if l == nil || len(l.Items) != 2 || l.Items[0].GetTypeName() == nil || l.Items[1].GetTypeName() == nil {
		return nil, pgerr.New(pgerr.SyntaxError, "a cast is named by its source and target types")
	}
	src, err := a.resolveCastType(ctx, l.Items[0].GetTypeName())
	if err != nil {
		return nil, err
	}
	tgt, err := a.resolveCastType(ctx, l.Items[1].GetTypeName())
	if err != nil {
		return nil, err
	}
	c, ok, err := a.tx.Root().Cast(ctx, src.oid, tgt.oid)
	if err != nil {
		return nil, err
	}
	if !ok {
		if missingOK {
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "cast from type %s to type %s does not exist, skipping", src.name, tgt.name))
			return nil, nil
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "cast from type %s to type %s does not exist", src.name, tgt.name)
	}
	au, err := a.Authority()
	if err != nil {
		return nil, err
	}
	if !au.Owns(src.owner) && !au.Owns(tgt.owner) {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be owner of type %s or type %s", src.name, tgt.name)
	}
	return c, nil
}

// dropCasts runs DROP CAST.
func (a *analyzer) dropCasts(ctx context.Context, s *pg.DropStmt) (string, error) {
	for _, obj := range s.Objects {
		c, err := a.castNamed(ctx, obj.GetList(), s.MissingOk)
		if err != nil {
			return "", err
		}
		if c == nil {
			continue
		}
		root, err := a.tx.Root().DropFunction(ctx, c)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
	}
	a.s.InvalidatePlans()
	return "DROP CAST", nil
}

// castDescription is how dependency messages name cast c.
func (a *analyzer) castDescription(c *sqldef.Function) string {
	src, tgt := c.CastTypes()
	return "cast from " + a.TypeName(exec.T{OID: src, Typmod: -1}) + " to " + a.TypeName(exec.T{OID: tgt, Typmod: -1})
}

// dropCastsOf drops, with CASCADE, the casts that convert by function f,
// which is being dropped; without, their existence is an error, as the
// dependencies PostgreSQL records make it.
func (a *analyzer) dropCastsOf(ctx context.Context, f *sqldef.Function, cascade bool) error {
	all, err := a.tx.Root().Casts(ctx)
	if err != nil {
		return err
	}
	casts := slices.DeleteFunc(all, func(c *sqldef.Function) bool {
		return c.Cast == nil || c.Cast.Proc != f.Schema+"."+f.Name || !slices.Equal(c.Cast.ProcArgs, f.InputTypes())
	})
	if len(casts) == 0 {
		return nil
	}
	sig := procSignature(f)
	var lines []string
	for _, c := range casts {
		if !cascade {
			lines = append(lines, a.castDescription(c)+" depends on function "+sig)
			continue
		}
		lines = append(lines, "drop cascades to "+a.castDescription(c))
		root, err := a.tx.Root().DropFunction(ctx, c)
		if err != nil {
			return err
		}
		a.tx.SetRoot(root)
	}
	switch {
	case !cascade:
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop function %s because other objects depend on it", sig).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	case len(lines) == 1:
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "%s", lines[0]))
	default:
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to %d other objects", len(lines)).
			WithDetail("%s", strings.Join(lines, "\n")))
	}
	a.s.InvalidatePlans()
	return nil
}

// dropCastsOfType drops, with CASCADE, the casts from or to type t,
// which is being dropped; without, their existence is an error.
func (a *analyzer) dropCastsOfType(ctx context.Context, t *sqldef.Type, cascade bool) error {
	all, err := a.tx.Root().Casts(ctx)
	if err != nil {
		return err
	}
	oid := planner.TypeOIDOf(t)
	casts := slices.DeleteFunc(all, func(c *sqldef.Function) bool {
		src, tgt := c.CastTypes()
		return src != oid && tgt != oid
	})
	if len(casts) == 0 {
		return nil
	}
	if !cascade {
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop type %s because other objects depend on it", t.Name).
			WithDetail("%s depends on type %s", a.castDescription(casts[0]), t.Name).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	for _, c := range casts {
		a.cascaded(a.castDescription(c))
		root, err := a.tx.Root().DropFunction(ctx, c)
		if err != nil {
			return err
		}
		a.tx.SetRoot(root)
	}
	a.s.InvalidatePlans()
	return nil
}
