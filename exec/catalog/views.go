package catalog

import (
	"strings"

	"github.com/prollypg/prollypg/exec"
)

// View is a catalog table or view: its place in pg_class and its columns.
type View struct {
	Schema string
	Name   string
	OID    uint32
	Kind   byte // 'r' for PostgreSQL's catalog tables, 'v' for its views
	Cols   []exec.VirtualColumn
	rows   func(s *Snapshot) ([]exec.Row, error)
}

// views holds every catalog relation, built by the init functions of this
// package's files (which run one at a time); after init it is only read.
var (
	views  []*View
	byName = map[string]*View{}
)

// define adds a catalog relation. spec lists its columns as "name:type",
// separated by spaces, the types as format_type prints them (see colType).
func define(schema, name string, oid uint32, kind byte, spec string, rows func(*Snapshot) ([]exec.Row, error)) {
	v := &View{Schema: schema, Name: name, OID: oid, Kind: kind, rows: rows}
	for _, f := range strings.Fields(spec) {
		i := strings.LastIndexByte(f, ':')
		v.Cols = append(v.Cols, exec.VirtualColumn{Name: f[:i], Type: colType(f[i+1:])})
	}
	views = append(views, v)
	byName[schema+"."+name] = v
}

// colType maps the types of catalog columns to the executor's (see the
// package doc for the types it lacks).
func colType(name string) exec.T {
	if elem, ok := strings.CutSuffix(name, "[]"); ok {
		if elem == "aclitem" {
			return exec.TTextArray // aclitem's text form, in a text[]
		}
		if t := exec.ArrayType(colType(elem)); t.OID != 0 {
			return t
		}
		return exec.TText
	}
	switch name {
	case "int2vector":
		return exec.T{OID: exec.OIDInt2Vector, Typmod: -1}
	case "oidvector":
		return exec.T{OID: exec.OIDOidVector, Typmod: -1}
	case "oid":
		return exec.TOid
	case "name", "sql_identifier":
		return exec.TName
	case "smallint":
		return exec.TInt2
	case "integer", "cardinal_number":
		return exec.TInt4
	case "bigint":
		return exec.TInt8
	case "boolean":
		return exec.TBool
	case "char":
		return exec.T{OID: exec.OIDChar, Typmod: -1}
	case "real":
		return exec.TFloat4
	case "float8":
		return exec.TFloat8
	case "regproc":
		return exec.T{OID: exec.OIDRegproc, Typmod: -1}
	case "regtype":
		return exec.T{OID: exec.OIDRegtype, Typmod: -1}
	case "timestamptz":
		return exec.TTimestampTZ
	case "bytea":
		return exec.TBytea
	case "numeric":
		return exec.T{OID: exec.OIDNumeric, Typmod: -1}
	case "character_data", "yes_or_no":
		return exec.T{OID: exec.OIDVarchar, Typmod: -1}
	}
	return exec.TText
}

// Lookup returns the catalog relation schema.name.
func Lookup(schema, name string) (*View, bool) {
	v, ok := byName[schema+"."+name]
	return v, ok
}

// Views returns every catalog relation.
func Views() []*View { return views }

// Table returns the relation as an executor table whose rows are computed
// at each scan from the Source src returns.
func (v *View) Table(src func(*exec.Env) (*Source, error)) *exec.Table {
	return exec.NewVirtualTable(v.Schema, v.Name, v.OID, v.Cols, func(env *exec.Env) ([]exec.Row, error) {
		s, err := src(env)
		if err != nil {
			return nil, err
		}
		snap, err := NewSnapshot(s)
		if err != nil {
			return nil, err
		}
		return v.rows(snap)
	})
}

// Rows computes the relation's rows from a snapshot.
func (v *View) Rows(s *Snapshot) ([]exec.Row, error) { return v.rows(s) }

// Values for rows.
func dOID(v uint32) exec.Datum  { return exec.DInt(int64(v)) }
func dText(s string) exec.Datum { return exec.DText(s) }

// dProc is a regproc naming a function: its OID, printed as its name;
// OID 0, printed "-", for none.
func dProc(name string) exec.Datum {
	if name == "" || name == "-" {
		return exec.DRegOID(0, "-")
	}
	return exec.DRegOID(ProcOID(name), name)
}

// dVector is an int2vector or oidvector of the numbers in fields.
func dVector(oid uint32, fields []string) exec.Datum {
	d, err := exec.ParseText(exec.T{OID: oid, Typmod: -1}, strings.Join(fields, " "), nil)
	if err != nil {
		panic("catalog: bad vector " + strings.Join(fields, " ")) // the catalog's own numbers
	}
	return d
}

// dAttnums is a smallint[] of the 1-based attribute numbers of the 0-based
// columns cols (conkey, confkey), NULL for none.
func dAttnums(cols []int) exec.Datum {
	if len(cols) == 0 {
		return exec.Null
	}
	elems := make([]exec.Datum, len(cols))
	for i, c := range cols {
		elems[i] = exec.DInt(int64(c + 1))
	}
	return exec.NewArray(exec.OIDInt2, elems)
}
func dInt(v int64) exec.Datum { return exec.DInt(v) }
func dBool(b bool) exec.Datum { return exec.DBool(b) }

// dChar is a "char" value; 0 is the empty "char" PostgreSQL prints as ”.
func dChar(c byte) exec.Datum {
	if c == 0 {
		return exec.DText("")
	}
	return exec.DText(string([]byte{c}))
}

// dTextOrNull is NULL for "".
func dTextOrNull(s string) exec.Datum {
	if s == "" {
		return exec.Null
	}
	return exec.DText(s)
}

func yesNo(b bool) exec.Datum {
	if b {
		return exec.DText("YES")
	}
	return exec.DText("NO")
}

// none is the row source of catalogs that are always empty here
// (pg_description, pg_inherits, ...).
func none(*Snapshot) ([]exec.Row, error) { return nil, nil }
