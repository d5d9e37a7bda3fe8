package ddl

import (
	"context"
	"fmt"
	"strings"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
)

// existingSchema reports whether schema exists as of the transaction's
// root; pg_catalog and information_schema always do.
func (a *analyzer) existingSchema(ctx context.Context, schema string) (bool, error) {
	if planner.IsSystemSchema(schema) {
		return true, nil
	}
	_, ok, err := a.tx.Schema(ctx, schema)
	return ok, err
}

// newObjectName resolves the name CREATE gives a schema object (an
// operator, a text search dictionary or configuration): the transaction
// must be writable, the object goes in the schema its name gives or the
// first of the search path (creationSchema), and the current role must
// hold CREATE there.
func (a *analyzer) newObjectName(ctx context.Context, names []string) (schema, name string, err error) {
	if err := a.tx.CheckWritable(); err != nil {
		return "", "", err
	}
	schema, name = planner.SplitName(names)
	if schema, err = a.creationSchema(ctx, schema, -1); err != nil {
		return "", "", err
	}
	return schema, name, a.requireSchemaCreate(ctx, schema)
}

// creationSchema returns the schema a new object named in schema (""
// when unqualified) goes in.
func (a *analyzer) creationSchema(ctx context.Context, schema string, loc int32) (string, error) {
	if schema == "pg_temp" || schema != "" && schema == a.s.TempSchema() {
		return a.ensureTempSchema(ctx)
	}
	if schema != "" {
		ok, err := a.existingSchema(ctx, schema)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", planner.WithPos(pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", schema), loc)
		}
		return schema, nil
	}
	for _, s := range a.s.SearchPath() {
		if planner.IsSystemSchema(s) {
			continue
		}
		ok, err := a.existingSchema(ctx, s)
		if err != nil {
			return "", err
		}
		if ok {
			return s, nil
		}
	}
	return "", planner.WithPos(pgerr.New(pgerr.InvalidSchemaName, "no schema has been selected to create in"), loc)
}

// nameSet holds the names taken in one schema: relations (tables,
// indexes, sequences) and constraints. DDL that invents names (index,
// constraint and sequence names) adds what it picks as it goes.
type nameSet struct {
	rels, cons map[string]bool
}

// takenNames collects the names used in schema.
func takenNames(ctx context.Context, root versioning.RootValue, schema string) (*nameSet, error) {
	ns := &nameSet{rels: map[string]bool{}, cons: map[string]bool{}}
	tables, err := root.TablesIn(ctx, schema)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		ns.rels[t.Name] = true
		if len(t.PrimaryKey) > 0 {
			ns.rels[t.PrimaryKeyName] = true
			ns.cons[t.PrimaryKeyName] = true
		}
		for _, ix := range t.Indexes {
			ns.rels[ix.Name] = true
			if ix.Constraint {
				ns.cons[ix.Name] = true
			}
		}
		for _, c := range t.Checks {
			ns.cons[c.Name] = true
		}
		for _, fk := range t.ForeignKeys {
			ns.cons[fk.Name] = true
		}
		for _, x := range t.Exclusions {
			// PostgreSQL makes an index of the constraint's name.
			ns.rels[x.Name], ns.cons[x.Name] = true, true
		}
	}
	seqs, err := root.Sequences(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range seqs {
		if s.Schema == schema {
			ns.rels[s.Name] = true
		}
	}
	views, err := root.Views(ctx)
	if err != nil {
		return nil, err
	}
	for _, v := range views {
		if v.Schema == schema {
			ns.rels[v.Name] = true
		}
	}
	return ns, nil
}

// chooseRelationName picks a relation name as ChooseRelationName does:
// name1_name2_label, cut to fit 63 bytes, then label1, label2, ... until
// no relation (and, for a constraint's index, no constraint) has it.
func (ns *nameSet) chooseRelationName(name1, name2, label string, constraint bool) string {
	mod := label
	for pass := 1; ; pass++ {
		name := makeObjectName(name1, name2, mod)
		if !ns.rels[name] && (!constraint || !ns.cons[name]) {
			ns.rels[name] = true
			if constraint {
				ns.cons[name] = true
			}
			return name
		}
		mod = fmt.Sprintf("%s%d", label, pass)
	}
}

// chooseConstraintName picks a constraint name (CHECK, FOREIGN KEY) as
// ChooseConstraintName does; constraint names need not differ from
// relation names.
func (ns *nameSet) chooseConstraintName(name1, name2, label string) string {
	mod := label
	for pass := 1; ; pass++ {
		name := makeObjectName(name1, name2, mod)
		if !ns.cons[name] {
			ns.cons[name] = true
			return name
		}
		mod = fmt.Sprintf("%s%d", label, pass)
	}
}

// makeObjectName joins name1, name2 (may be empty) and label with
// underscores, cutting the longer of name1 and name2 until the whole fits
// in 63 bytes, as PostgreSQL's makeObjectName does.
func makeObjectName(name1, name2, label string) string {
	overhead := 0
	if label != "" {
		overhead = len(label) + 1
	}
	if name2 != "" {
		overhead++
	}
	avail := planner.NameDataLen - 1 - overhead
	n1, n2 := len(name1), len(name2)
	for n1+n2 > avail {
		if n1 > n2 {
			n1--
		} else {
			n2--
		}
	}
	out := planner.ClipUTF8(name1, n1)
	if name2 != "" {
		out += "_" + planner.ClipUTF8(name2, n2)
	}
	if label != "" {
		out += "_" + label
	}
	return out
}

// indexNameAddition joins column names for an index name as
// ChooseIndexNameAddition does, stopping once the result is long enough.
func indexNameAddition(cols []string) string {
	var b strings.Builder
	for _, c := range cols {
		if b.Len() > 0 {
			b.WriteByte('_')
		}
		b.WriteString(c)
		if b.Len() >= planner.NameDataLen {
			break
		}
	}
	return b.String()
}

// codeProgramLimit is 54000 (program_limit_exceeded): too many columns.
const codeProgramLimit = pgerr.Code("54000")
