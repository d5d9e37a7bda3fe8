package catalog

import (
	"slices"
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// pg_cast: the user-defined casts (CREATE CAST). The built-in casts are
// the planner's rules (exec.CastFn) with no rows here, as psql's \dC of
// a pattern lists those of user types.

func init() {
	define("pg_catalog", "pg_cast", OIDPgCast, 'r', `oid:oid castsource:oid casttarget:oid castfunc:oid castcontext:char
		castmethod:char`, pgCast)
}

// kindUserCast is mixed into the OIDs of user casts.
const kindUserCast = 'K'

// CastOID returns the OID of user cast c.
func CastOID(c *sqldef.Function) uint32 {
	src, tgt := c.CastTypes()
	return exec.ObjectOID(kindUserCast, "", strconv.FormatUint(uint64(src), 10)+","+strconv.FormatUint(uint64(tgt), 10))
}

// Casts returns the root value's casts, read on first use.
func (s *Snapshot) Casts() ([]*sqldef.Function, error) {
	if !s.castsRead {
		cs, err := s.Src.Root.Casts(s.Src.Ctx)
		if err != nil {
			return nil, err
		}
		s.casts, s.castsRead = cs, true
	}
	return s.casts, nil
}

// CastFunction returns the user function cast c converts by, if any.
func (s *Snapshot) CastFunction(c *sqldef.Function) (*sqldef.Function, bool) {
	if c.Cast == nil || c.Cast.Proc == "" {
		return nil, false
	}
	schema, name, _ := strings.Cut(c.Cast.Proc, ".")
	fs, err := s.Functions()
	if err != nil {
		return nil, false
	}
	for _, f := range fs {
		if f.Schema == schema && f.Name == name && slices.Equal(f.InputTypes(), c.Cast.ProcArgs) {
			return f, true
		}
	}
	return nil, false
}

func pgCast(s *Snapshot) ([]exec.Row, error) {
	cs, err := s.Casts()
	if err != nil {
		return nil, err
	}
	var out []exec.Row
	for _, c := range cs {
		if c.Cast == nil {
			continue
		}
		src, tgt := c.CastTypes()
		var fn uint32
		if f, ok := s.CastFunction(c); ok {
			fn = FunctionOID(f)
		}
		out = append(out, exec.Row{dOID(CastOID(c)), dOID(src), dOID(tgt), dOID(fn), dChar(c.Cast.Context), dChar(c.Cast.Method)})
	}
	return out, nil
}

// CastDef is the CREATE CAST statement that makes cast c.
func CastDef(c *sqldef.Function, name TypeNamer) string {
	if c.Cast == nil {
		return ""
	}
	var how string
	switch c.Cast.Method {
	case 'b':
		how = "WITHOUT FUNCTION"
	case 'i':
		how = "WITH INOUT"
	default:
		schema, fn, _ := strings.Cut(c.Cast.Proc, ".")
		args := make([]string, len(c.Cast.ProcArgs))
		for i, t := range c.Cast.ProcArgs {
			args[i] = routineTypeName(t, name)
		}
		how = "WITH FUNCTION " + QuoteIdent(schema) + "." + QuoteIdent(fn) + "(" + strings.Join(args, ", ") + ")"
	}
	switch c.Cast.Context {
	case 'a':
		how += " AS ASSIGNMENT"
	case 'i':
		how += " AS IMPLICIT"
	}
	return "CREATE CAST " + CastSignature(c, name) + " " + how + ";"
}

// CastDropSQL is the DROP CAST statement that drops cast c.
func CastDropSQL(c *sqldef.Function, name TypeNamer) string {
	return "DROP CAST " + CastSignature(c, name) + ";"
}

// CastSignature is a cast's "(source AS target)", as DROP CAST names it.
func CastSignature(c *sqldef.Function, name TypeNamer) string {
	src, tgt := c.CastTypes()
	return "(" + routineTypeName(src, name) + " AS " + routineTypeName(tgt, name) + ")"
}
