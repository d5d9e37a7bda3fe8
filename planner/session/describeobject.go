package session

import (
	"fmt"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/planner"
)

// The catalogs an object address (classid, objid, objsubid) names, as
// pg_depend and pg_describe_object use them.
const (
	oidPgClassCatalog      = 1259
	oidPgTypeCatalog       = 1247
	oidPgProcCatalog       = 1255
	oidPgConstraintCatalog = 2606
	oidPgNamespaceCatalog  = 2615
	oidPgTriggerCatalog    = 2620
	oidPgRewriteCatalog    = 2618
	oidPgTSDictCatalog     = 3600
	oidPgTSConfigCatalog   = 3602
)

// relationKinds names pg_class's relkinds as object descriptions do.
var relationKinds = map[byte]string{'r': "table", 'p': "table", 'i': "index", 'I': "index", 'S': "sequence",
	'v': "view", 'm': "materialized view", 'c': "composite type", 'f': "foreign table"}

// describeObject is pg_describe_object: an object address in words, as
// getObjectDescription writes it ("table t", "column c of table t",
// "function f(integer)", "constraint c on table t"); NULL for an address
// of no object, or of a kind this server does not describe.
func (s *Session) describeObject(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	classID, objID, sub := uint32(a[0].I), uint32(a[1].I), int(a[2].I)
	snap, err := s.snapshot(env)
	if err != nil {
		return exec.Null, err
	}
	text := ""
	switch classID {
	case oidPgClassCatalog:
		r, ok := snap.RelationByOID(objID)
		if !ok {
			return exec.Null, nil
		}
		kind := relationKinds[r.Kind]
		if kind == "" {
			kind = "relation"
		}
		text = kind + " " + relationDisplayName(snap, r)
		if sub > 0 && r.Table != nil && sub <= len(r.Table.Columns) {
			text = fmt.Sprintf("column %s of %s", r.Table.Columns[sub-1].Name, text)
		}
	case oidPgTypeCatalog:
		name, err := s.RegOut(env, exec.OIDRegtype, objID)
		if err != nil || name == "" {
			return exec.Null, err
		}
		text = "type " + name
	case oidPgProcCatalog:
		// PostgreSQL 15 calls a procedure a function here too.
		sig := s.regprocedureOut(env, snap, objID)
		if sig == "" {
			return exec.Null, nil
		}
		text = "function " + sig
	case oidPgConstraintCatalog:
		c, ok := snap.ConstraintByOID(objID)
		switch {
		case !ok:
			return exec.Null, nil
		case c.Table != nil:
			r, _ := snap.RelationByName(c.Table.Schema, c.Table.Name)
			text = fmt.Sprintf("constraint %s on table %s", c.Name, relationDisplayName(snap, r))
		case c.Domain != nil:
			text = fmt.Sprintf("constraint %s on domain %s", c.Name, planner.QuoteIdent(c.Domain.Name))
		}
	case oidPgNamespaceCatalog:
		name, err := s.RegOut(env, exec.OIDRegnamespace, objID)
		if err != nil || name == "" {
			return exec.Null, err
		}
		text = "schema " + name
	case oidPgTriggerCatalog:
		t, tr, ok := snap.TriggerByOID(objID)
		if !ok {
			return exec.Null, nil
		}
		r, _ := snap.RelationByName(t.Schema, t.Name)
		text = fmt.Sprintf("trigger %s on %s %s", tr.Name, relationKinds[r.Kind], relationDisplayName(snap, r))
	case oidPgRewriteCatalog:
		schema, rel, rule, ok := snap.RuleByOID(objID)
		if !ok {
			return exec.Null, nil
		}
		r, _ := snap.RelationByName(schema, rel)
		text = fmt.Sprintf("rule %s on %s %s", rule.Name, relationKinds[r.Kind], relationDisplayName(snap, r))
	case oidPgTSDictCatalog, oidPgTSConfigCatalog:
		typ, kind := uint32(exec.OIDRegdictionary), "dictionary"
		if classID == oidPgTSConfigCatalog {
			typ, kind = exec.OIDRegconfig, "configuration"
		}
		name, err := s.textSearchOut(env, typ, objID)
		if err != nil || name == "" {
			return exec.Null, err
		}
		text = "text search " + kind + " " + name
	}
	if text == "" {
		return exec.Null, nil
	}
	return exec.DText(text), nil
}
