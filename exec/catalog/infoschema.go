package catalog

import (
	"strconv"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The information_schema views most tools read, with PostgreSQL 15's
// columns. Privileges are not modelled: every object is listed, as for a
// superuser.
func init() {
	const is = "information_schema"
	define(is, "schemata", 13442, 'v', `catalog_name:sql_identifier schema_name:sql_identifier
		schema_owner:sql_identifier default_character_set_catalog:sql_identifier
		default_character_set_schema:sql_identifier default_character_set_name:sql_identifier
		sql_path:character_data`, isSchemata)
	define(is, "tables", 13459, 'v', `table_catalog:sql_identifier table_schema:sql_identifier
		table_name:sql_identifier table_type:character_data self_referencing_column_name:sql_identifier
		reference_generation:character_data user_defined_type_catalog:sql_identifier
		user_defined_type_schema:sql_identifier user_defined_type_name:sql_identifier
		is_insertable_into:yes_or_no is_typed:yes_or_no commit_action:character_data`, isTables)
	define(is, "columns", 13389, 'v', `table_catalog:sql_identifier table_schema:sql_identifier
		table_name:sql_identifier column_name:sql_identifier ordinal_position:cardinal_number
		column_default:character_data is_nullable:yes_or_no data_type:character_data
		character_maximum_length:cardinal_number character_octet_length:cardinal_number
		numeric_precision:cardinal_number numeric_precision_radix:cardinal_number numeric_scale:cardinal_number
		datetime_precision:cardinal_number interval_type:character_data interval_precision:cardinal_number
		character_set_catalog:sql_identifier character_set_schema:sql_identifier
		character_set_name:sql_identifier collation_catalog:sql_identifier collation_schema:sql_identifier
		collation_name:sql_identifier domain_catalog:sql_identifier domain_schema:sql_identifier
		domain_name:sql_identifier udt_catalog:sql_identifier udt_schema:sql_identifier udt_name:sql_identifier
		scope_catalog:sql_identifier scope_schema:sql_identifier scope_name:sql_identifier
		maximum_cardinality:cardinal_number dtd_identifier:sql_identifier is_self_referencing:yes_or_no
		is_identity:yes_or_no identity_generation:character_data identity_start:character_data
		identity_increment:character_data identity_maximum:character_data identity_minimum:character_data
		identity_cycle:yes_or_no is_generated:character_data generation_expression:character_data
		is_updatable:yes_or_no`, isColumns)
	define(is, "table_constraints", 13454, 'v', `constraint_catalog:sql_identifier constraint_schema:sql_identifier
		constraint_name:sql_identifier table_catalog:sql_identifier table_schema:sql_identifier
		table_name:sql_identifier constraint_type:character_data is_deferrable:yes_or_no
		initially_deferred:yes_or_no enforced:yes_or_no nulls_distinct:yes_or_no`, isTableConstraints)
	define(is, "key_column_usage", 13414, 'v', `constraint_catalog:sql_identifier constraint_schema:sql_identifier
		constraint_name:sql_identifier table_catalog:sql_identifier table_schema:sql_identifier
		table_name:sql_identifier column_name:sql_identifier ordinal_position:cardinal_number
		position_in_unique_constraint:cardinal_number`, isKeyColumnUsage)
	define(is, "check_constraints", 13375, 'v', `constraint_catalog:sql_identifier constraint_schema:sql_identifier
		constraint_name:sql_identifier check_clause:character_data`, isCheckConstraints)
	define(is, "constraint_column_usage", 13384, 'v', `table_catalog:sql_identifier table_schema:sql_identifier
		table_name:sql_identifier column_name:sql_identifier constraint_catalog:sql_identifier
		constraint_schema:sql_identifier constraint_name:sql_identifier`, isConstraintColumnUsage)
	define(is, "column_column_usage", 13275, 'v', `table_catalog:sql_identifier table_schema:sql_identifier
		table_name:sql_identifier column_name:sql_identifier dependent_column:sql_identifier`, isColumnColumnUsage)
	define(is, "referential_constraints", 13434, 'v', `constraint_catalog:sql_identifier
		constraint_schema:sql_identifier constraint_name:sql_identifier unique_constraint_catalog:sql_identifier
		unique_constraint_schema:sql_identifier unique_constraint_name:sql_identifier match_option:character_data
		update_rule:character_data delete_rule:character_data`, none)
	define(is, "sequences", 13447, 'v', `sequence_catalog:sql_identifier sequence_schema:sql_identifier
		sequence_name:sql_identifier data_type:character_data numeric_precision:cardinal_number
		numeric_precision_radix:cardinal_number numeric_scale:cardinal_number start_value:character_data
		minimum_value:character_data maximum_value:character_data increment:character_data
		cycle_option:yes_or_no`, isSequences)
	define(is, "views", 13485, 'v', `table_catalog:sql_identifier table_schema:sql_identifier
		table_name:sql_identifier view_definition:character_data check_option:character_data
		is_updatable:yes_or_no is_insertable_into:yes_or_no is_trigger_updatable:yes_or_no
		is_trigger_deletable:yes_or_no is_trigger_insertable_into:yes_or_no`, isViews)
}

func isSchemata(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, n := range s.Namespaces() {
		out = append(out, exec.Row{dText(s.Src.Database), dText(n.Name), dText(n.Owner), exec.Null, exec.Null, exec.Null, exec.Null})
	}
	return out, nil
}

func isTables(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, r := range s.Relations() {
		var kind string
		switch r.Kind {
		case 'r':
			kind = "BASE TABLE"
		case 'v':
			kind = "VIEW"
		default:
			continue
		}
		out = append(out, exec.Row{dText(s.Src.Database), dText(r.Schema), dText(r.Name), dText(kind), exec.Null,
			exec.Null, exec.Null, exec.Null, exec.Null, yesNo(s.RelationEvents(r, -1)&(1<<3) != 0), yesNo(false), exec.Null})
	}
	return out, nil
}

// sqlType is a column's type as information_schema describes it.
type sqlType struct {
	dataType                   string
	charMax, charOctets        exec.Datum
	precision, radix, scale    exec.Datum
	datetimePrecision, udtName exec.Datum
}

func describeType(t exec.T) sqlType {
	st := sqlType{dataType: types.FormatType(types.Oid(t.OID), -1), charMax: exec.Null, charOctets: exec.Null,
		precision: exec.Null, radix: exec.Null, scale: exec.Null, datetimePrecision: exec.Null, udtName: exec.Null}
	if ty := types.Lookup(types.Oid(t.OID)); ty != nil {
		st.udtName = dText(ty.Name)
		if ty.IsArray {
			st.dataType = "ARRAY"
		}
	}
	switch t.OID {
	case exec.OIDInt2:
		st.precision, st.radix, st.scale = dInt(16), dInt(2), dInt(0)
	case exec.OIDInt4:
		st.precision, st.radix, st.scale = dInt(32), dInt(2), dInt(0)
	case exec.OIDInt8:
		st.precision, st.radix, st.scale = dInt(64), dInt(2), dInt(0)
	case exec.OIDFloat4:
		st.precision, st.radix = dInt(24), dInt(2)
	case exec.OIDFloat8:
		st.precision, st.radix = dInt(53), dInt(2)
	case exec.OIDNumeric:
		st.radix = dInt(10)
		if p, sc, ok := types.NumericTypmodPrecision(t.Typmod); ok {
			st.precision, st.scale = dInt(int64(p)), dInt(int64(sc))
		}
	case exec.OIDVarchar, exec.OIDBpchar:
		if n := types.CharTypmodLen(t.Typmod); n >= 0 {
			st.charMax, st.charOctets = dInt(int64(n)), dInt(int64(n)*4)
		} else {
			st.charOctets = dInt(1073741824)
		}
	case exec.OIDText:
		st.charOctets = dInt(1073741824)
	case exec.OIDDate:
		st.datetimePrecision = dInt(0)
	case exec.OIDTime, exec.OIDTimeTZ, exec.OIDTimestamp, exec.OIDTimestampTZ, exec.OIDInterval:
		p := int64(6)
		if t.Typmod >= 0 && t.OID != exec.OIDInterval {
			p = int64(t.Typmod)
		}
		st.datetimePrecision = dInt(p)
	}
	return st
}

func isColumns(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, r := range s.Relations() {
		if r.Kind != 'r' && r.Kind != 'v' {
			continue
		}
		for i, a := range attributes(r) {
			if a.dropped {
				continue
			}
			st := describeType(a.t)
			udtSchema := dText("pg_catalog")
			if ut, ok := s.TypeByOID(a.t.OID); ok && ut.Kind != 'd' {
				// An enum, composite or range type of the database: what
				// ORMs read to map the column (TypeORM's enums).
				st.dataType, st.udtName, udtSchema = "USER-DEFINED", dText(ut.Name), dText(ut.Schema)
			}
			if types.ExtensionOf(types.Oid(a.t.OID)) != "" {
				if st.dataType != "ARRAY" {
					st.dataType = "USER-DEFINED"
				}
				udtSchema = dText("public")
			}
			def := exec.Null
			identity, gen, start, inc, max, min, cycle := yesNo(false), exec.Null, exec.Null, exec.Null, exec.Null, exec.Null, yesNo(false)
			isGenerated, generation := dText("NEVER"), exec.Null
			if r.Table != nil {
				c := r.Table.Columns[i]
				switch {
				case c.Generated != 0:
					isGenerated, generation = dText("ALWAYS"), dText(s.Expr(r.Table, c.Default, false))
				case c.Default != "" && c.Identity == 0:
					def = dText(s.Expr(r.Table, c.Default, false))
				}
				if c.Identity != 0 {
					identity, gen = yesNo(true), dText("BY DEFAULT")
					if c.Identity == 'a' {
						gen = dText("ALWAYS")
					}
					for _, q := range s.Seqs {
						if QuoteIdent(q.Schema)+"."+QuoteIdent(q.Name) == c.Sequence {
							start, inc = dText(strconv.FormatInt(q.Start, 10)), dText(strconv.FormatInt(q.Increment, 10))
							max, min, cycle = dText(strconv.FormatInt(q.Max, 10)), dText(strconv.FormatInt(q.Min, 10)), yesNo(q.Cycle)
						}
					}
				}
			}
			collSchema, collName := exec.Null, exec.Null
			out = append(out, exec.Row{
				dText(s.Src.Database), dText(r.Schema), dText(r.Name), dText(a.name), dInt(int64(i + 1)),
				def, yesNo(!a.notNull), dText(st.dataType),
				st.charMax, st.charOctets,
				st.precision, st.radix, st.scale,
				st.datetimePrecision, exec.Null, exec.Null,
				exec.Null, exec.Null, exec.Null, exec.Null, collSchema, collName,
				exec.Null, exec.Null, exec.Null, dText(s.Src.Database), udtSchema, st.udtName,
				exec.Null, exec.Null, exec.Null, exec.Null, dText(strconv.Itoa(i + 1)), yesNo(false),
				identity, gen, start, inc, max, min, cycle, isGenerated, generation,
				yesNo(s.RelationEvents(r, i)&(1<<2|1<<4) == 1<<2|1<<4),
			})
		}
	}
	return out, nil
}

var constraintTypes = map[byte]string{'p': "PRIMARY KEY", 'u': "UNIQUE", 'c': "CHECK", 'f': "FOREIGN KEY"}

func isTableConstraints(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, t := range s.Tables {
		db := dText(s.Src.Database)
		for _, c := range TableConstraints(t) {
			if c.Type == 'x' {
				continue // not an SQL-standard constraint
			}
			nd := exec.Null
			if c.Type == 'p' || c.Type == 'u' {
				nd = yesNo(c.Index == nil || !c.Index.NullsNotDistinct)
			}
			deferrable := c.Index != nil && c.Index.Deferrable || c.FK != nil && c.FK.Deferrable
			deferred := c.Index != nil && c.Index.InitiallyDeferred || c.FK != nil && c.FK.InitiallyDeferred
			out = append(out, exec.Row{db, dText(t.Schema), dText(c.Name), db, dText(t.Schema), dText(t.Name),
				dText(constraintTypes[c.Type]), yesNo(deferrable), yesNo(deferred), yesNo(true), nd})
		}
		// NOT NULL constraints appear as CHECK constraints named
		// namespaceoid_tableoid_attnum_not_null.
		for i, col := range t.Columns {
			if col.NotNull && !col.Dropped {
				name := strconv.Itoa(int(NamespaceOID(t.Schema))) + "_" + strconv.Itoa(int(TableOID(t.Schema, t.Name))) + "_" + strconv.Itoa(i+1) + "_not_null"
				out = append(out, exec.Row{db, dText(t.Schema), dText(name), db, dText(t.Schema), dText(t.Name),
					dText("CHECK"), yesNo(false), yesNo(false), yesNo(true), exec.Null})
			}
		}
	}
	return out, nil
}

func isKeyColumnUsage(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	db := dText(s.Src.Database)
	for _, t := range s.Tables {
		for _, c := range TableConstraints(t) {
			if c.Type == 'c' || c.Type == 'x' {
				continue
			}
			for i, k := range c.Cols {
				pos := exec.Null
				if c.FK != nil {
					pos = s.uniquePosition(c.FK.RefSchema, c.FK.RefTable, c.FK.RefColumns, c.FK.RefColumns[i])
				}
				out = append(out, exec.Row{db, dText(t.Schema), dText(c.Name), db, dText(t.Schema), dText(t.Name),
					dText(t.Columns[k].Name), dInt(int64(i + 1)), pos})
			}
		}
	}
	return out, nil
}

func isCheckConstraints(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	db := dText(s.Src.Database)
	for _, t := range s.Tables {
		for _, c := range TableConstraints(t) {
			if c.Type == 'c' {
				// PostgreSQL takes pg_get_constraintdef from its 7th
				// character: the expression keeps CHECK's parentheses.
				out = append(out, exec.Row{db, dText(t.Schema), dText(c.Name), dText("(" + s.Expr(t, c.Check.Expr, false) + ")")})
			}
		}
		for i, col := range t.Columns {
			if col.NotNull && !col.Dropped {
				name := strconv.Itoa(int(NamespaceOID(t.Schema))) + "_" + strconv.Itoa(int(TableOID(t.Schema, t.Name))) + "_" + strconv.Itoa(i+1) + "_not_null"
				out = append(out, exec.Row{db, dText(t.Schema), dText(name), dText(QuoteIdent(col.Name) + " IS NOT NULL")})
			}
		}
	}
	return out, nil
}

func isConstraintColumnUsage(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	db := dText(s.Src.Database)
	for _, t := range s.Tables {
		for _, c := range TableConstraints(t) {
			if c.Type == 'x' {
				continue
			}
			for _, k := range c.Cols {
				out = append(out, exec.Row{db, dText(t.Schema), dText(t.Name), dText(t.Columns[k].Name), db, dText(t.Schema), dText(c.Name)})
			}
		}
	}
	return out, nil
}

// isColumnColumnUsage lists the columns each generated column's
// expression reads.
func isColumnColumnUsage(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	db := dText(s.Src.Database)
	for _, t := range s.Tables {
		for _, g := range t.Columns {
			if g.Generated == 0 || g.Dropped {
				continue
			}
			for _, c := range t.Columns {
				if !c.Dropped && c.Name != g.Name && exprMentions(g.Default, c.Name) {
					out = append(out, exec.Row{db, dText(t.Schema), dText(t.Name), dText(c.Name), dText(g.Name)})
				}
			}
		}
	}
	return out, nil
}

func isSequences(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	db := dText(s.Src.Database)
	for _, q := range s.Seqs {
		if s.identitySequence(q) {
			continue // internal to its column, as PostgreSQL hides it
		}
		st := describeType(exec.T{OID: q.Type, Typmod: -1})
		out = append(out, exec.Row{db, dText(q.Schema), dText(q.Name), dText(st.dataType), st.precision, st.radix, st.scale,
			dText(strconv.FormatInt(q.Start, 10)), dText(strconv.FormatInt(q.Min, 10)), dText(strconv.FormatInt(q.Max, 10)),
			dText(strconv.FormatInt(q.Increment, 10)), yesNo(q.Cycle)})
	}
	return out, nil
}

// identitySequence reports whether q belongs to an identity column.
func (s *Snapshot) identitySequence(q *sqldef.Sequence) bool {
	ref := QuoteIdent(q.Schema) + "." + QuoteIdent(q.Name)
	for _, t := range s.Tables {
		if t.Schema != q.Schema {
			continue
		}
		for _, c := range t.Columns {
			if c.Identity != 0 && c.Sequence == ref {
				return true
			}
		}
	}
	return false
}

// uniquePosition is the 1-based position of column col in the primary key
// or unique constraint of schema.table on exactly the columns cols.
func (s *Snapshot) uniquePosition(schema, table string, cols []int, col int) exec.Datum {
	r, ok := s.RelationByName(schema, table)
	if !ok || r.Table == nil {
		return exec.Null
	}
	sameSet := func(a []int) bool {
		if len(a) != len(cols) {
			return false
		}
		for _, c := range a {
			found := false
			for _, d := range cols {
				found = found || c == d
			}
			if !found {
				return false
			}
		}
		return true
	}
	candidates := [][]int{r.Table.PrimaryKey}
	for _, ix := range r.Table.Indexes {
		var ic []int
		for _, c := range ix.Columns {
			ic = append(ic, c.Column)
		}
		candidates = append(candidates, ic)
	}
	for _, cand := range candidates {
		if sameSet(cand) {
			for i, c := range cand {
				if c == col {
					return dInt(int64(i + 1))
				}
			}
		}
	}
	return exec.Null
}

func isViews(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	db := dText(s.Src.Database)
	for _, v := range s.Views {
		events, trig := s.RelationEvents(Relation{Kind: 'v', Query: v}, -1), TriggerEvents(v)
		check := "NONE"
		switch v.Check {
		case 'l':
			check = "LOCAL"
		case 'c':
			check = "CASCADED"
		}
		out = append(out, exec.Row{db, dText(v.Schema), dText(v.Name), dText(s.viewDef(v.Query, v.Depends, viewColumns(v))), dText(check),
			yesNo(events&(1<<2|1<<4) == 1<<2|1<<4), yesNo(events&(1<<3) != 0),
			yesNo(trig&(1<<2) != 0), yesNo(trig&(1<<4) != 0), yesNo(trig&(1<<3) != 0)})
	}
	return out, nil
}
