package session

import (
	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The catalog functions pg_dump calls that psql does not: acldefault, ...
// Privileges are not modelled here, so the ACLs these return are the
// defaults PostgreSQL would show for an object nobody granted anything on.

// acldefault("char", oid) is registered with PostgreSQL's signature but
// returns text[]: aclitem is not a type here, and the catalog's aclitem[]
// columns are text[] of aclitem's text form too.
func init() {
	registerStrict("acldefault", []uint32{exec.OIDChar, exec.OIDOid}, exec.OIDTextArray, (*Session).aclDefault)
}

// aclDefault is acldefault(objtype, owner): the privileges an object of
// that kind has before any GRANT, as aclitem[] (text[] here).
func (s *Session) aclDefault(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	oid := uint32(a[1].I)
	snap, err := s.snapshot(env)
	if err != nil {
		return exec.Null, err
	}
	owner := planner.QuoteIdent(roleByOID(snap, oid))
	var items []string
	switch a[0].S {
	case "c", "p": // columns and parameters: none
	case "r":
		items = []string{owner + "=arwdDxt/" + owner}
	case "s":
		items = []string{owner + "=rwU/" + owner}
	case "d":
		items = []string{"=Tc/" + owner, owner + "=CTc/" + owner}
	case "f":
		items = []string{"=X/" + owner, owner + "=X/" + owner}
	case "l", "T":
		items = []string{"=U/" + owner, owner + "=U/" + owner}
	case "n":
		items = []string{owner + "=UC/" + owner}
	case "t":
		items = []string{owner + "=C/" + owner}
	case "F", "S":
		items = []string{owner + "=U/" + owner}
	case "L":
		items = []string{owner + "=rw/" + owner}
	default:
		return exec.Null, pgerr.New(pgerr.InternalError, "unrecognized objtype abbreviation: %s", a[0].S)
	}
	elems := make([]exec.Datum, len(items))
	for i, it := range items {
		elems[i] = exec.DText(it)
	}
	return exec.NewArray(exec.OIDText, elems), nil
}

// defaultSequences returns the sequences a stored expression of table t
// calls nextval on: an unqualified name is looked up in t's schema, then
// along the search path.
func (s *Session) defaultSequences(env *exec.Env, t *sqldef.Table, expr string) []*sqldef.Sequence {
	var seqs []*sqldef.Sequence
	planner.NextvalRefs(expr, func(schema, name string) (string, bool) {
		schemas := []string{s.ResolveSchemaName(schema)}
		if schema == "" {
			schemas = append([]string{t.Schema}, s.lookupPath()...)
		}
		for _, sc := range schemas {
			if q, ok, err := env.Txn.Root().Sequence(env.Ctx, sc, name); err == nil && ok {
				seqs = append(seqs, q)
				break
			}
		}
		return "", false
	})
	return seqs
}
