package catalog

import (
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The dependencies pg_dump orders its output by, beyond sequence
// ownership: a table on the tables it inherits from, a column default on the sequences it calls nextval on (so
// that a serial's sequence is created before the default that uses it),
// and a view, through its _RETURN rule, on the relations its query reads.

// dependRow is one row of pg_depend: object (classid, objid, objsubid)
// depends on (refclassid, refobjid, refobjsubid) in the way deptype says.
func dependRow(classID, objID uint32, objSub int, refClassID, refObjID uint32, refSub int, deptype byte) exec.Row {
	return exec.Row{dOID(classID), dOID(objID), dInt(int64(objSub)), dOID(refClassID), dOID(refObjID), dInt(int64(refSub)), dChar(deptype)}
}

// defaultDepends lists each column default as depending on its column
// ('a', automatic) and on the sequences it calls nextval on ('n', normal).
func (s *Snapshot) defaultDepends() []exec.Row {
	var out []exec.Row
	for _, t := range s.Tables {
		toid := TableOID(t.Schema, t.Name)
		for i, c := range t.Columns {
			if c.Default == "" || c.Dropped || c.Identity != 0 {
				continue
			}
			def := AttrdefOID(t.Schema, t.Name, c.Name)
			out = append(out, dependRow(OIDPgAttrdef, def, 0, OIDPgClass, toid, i+1, 'a'))
			if s.Src.Sequences == nil || !strings.Contains(c.Default, "nextval") {
				continue
			}
			for _, q := range s.Src.Sequences(t, c.Default) {
				out = append(out, dependRow(OIDPgAttrdef, def, 0, OIDPgClass, SequenceOID(q.Schema, q.Name), 0, 'n'))
			}
		}
	}
	return out
}

// inheritDepends lists each table as depending on the tables it
// inherits from: normally ('n'), or automatically ('a') for a partition.
func (s *Snapshot) inheritDepends() []exec.Row {
	var out []exec.Row
	for _, t := range s.Tables {
		dep := byte('n')
		if t.IsPartition() {
			dep = 'a'
		}
		for _, p := range t.Inherits {
			out = append(out, dependRow(OIDPgClass, TableOID(t.Schema, t.Name), 0, OIDPgClass, TableOID(p.Schema, p.Name), 0, dep))
		}
	}
	return out
}

// viewDepends lists each view's _RETURN rule as part of the view ('i',
// internal) and depending on each relation the view's query reads ('n').
func (s *Snapshot) viewDepends() []exec.Row {
	var out []exec.Row
	for _, v := range s.Views {
		rule := RuleOID(v.Schema, v.Name)
		out = append(out, dependRow(OIDPgRewrite, rule, 0, OIDPgClass, ViewOID(v.Schema, v.Name), 0, 'i'))
		for _, d := range v.Depends {
			schema, name, _ := strings.Cut(d, ".")
			if r, ok := s.RelationByName(schema, name); ok {
				out = append(out, dependRow(OIDPgRewrite, rule, 0, OIDPgClass, r.OID, 0, 'n'))
			}
		}
	}
	return out
}

// pgRewrite lists the _RETURN rule of each view, the one rule a view has
// here. ev_action holds the view's query as SQL text, not a node tree.
func pgRewrite(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, v := range s.Views {
		out = append(out, exec.Row{dOID(RuleOID(v.Schema, v.Name)), dText("_RETURN"), dOID(ViewOID(v.Schema, v.Name)),
			dChar('1'), dChar('O'), dBool(true), dText("<>"), dText(v.Query)})
	}
	return append(out, s.ruleRows()...), nil
}

// hasForeignKeyTriggers reports whether PostgreSQL would give table t
// triggers for foreign keys (relhastriggers): t has a foreign key or is
// referenced by one. pg_dump reads the foreign keys of such tables only.
func (s *Snapshot) hasForeignKeyTriggers(t *sqldef.Table) bool {
	if len(t.ForeignKeys) > 0 {
		return true
	}
	if s.referenced == nil {
		s.referenced = map[string]bool{}
		for _, o := range s.Tables {
			for _, fk := range o.ForeignKeys {
				s.referenced[fk.RefSchema+"\x00"+fk.RefTable] = true
			}
		}
	}
	return s.referenced[t.Schema+"\x00"+t.Name]
}
