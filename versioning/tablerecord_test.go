package versioning

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

func sampleTable() *sqldef.Table {
	return &sqldef.Table{
		Schema: "public", Name: "t",
		Columns:    []sqldef.Column{{Name: "id", Type: 23, Typmod: -1, NotNull: true}, {Name: "v", Type: 25, Typmod: -1}},
		PrimaryKey: []int{0},
		Indexes: []sqldef.Index{
			{Name: "t_v", Columns: []sqldef.IndexColumn{{Column: 1}}, Rows: store.Hash([]byte("i1"))},
			{Name: "t_v2", Columns: []sqldef.IndexColumn{{Column: 1}}, Unique: true, Rows: store.Hash([]byte("i2"))},
		},
		NextRowID: 77,
		Rows:      store.Hash([]byte("rows")),
	}
}

// TestTableRecord: a table record decodes to the table encoded, in both
// formats; records that differ only in data have equal definitions, and
// DecodeTableAs gives what DecodeTable gives.
func TestTableRecord(t *testing.T) {
	want := sampleTable()
	rec, err := encodeRecord(want)
	if err != nil {
		t.Fatal(err)
	}
	if rec[0] != tableRecordVersion {
		t.Fatalf("record version %d", rec[0])
	}
	got, err := DecodeTable(rec)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %+v, %v; want %+v", got, err, want)
	}

	// Format 1: the whole table as JSON.
	old, _ := json.Marshal(want)
	got, err = DecodeTable(append([]byte{recordVersion}, old...))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("format 1 decoded %+v, %v", got, err)
	}
	if TableDefinition(append([]byte{recordVersion}, old...)) != nil {
		t.Fatal("a format 1 record has a definition part")
	}

	next := *want
	next.Indexes = append([]sqldef.Index(nil), want.Indexes...)
	next.Rows, next.NextRowID, next.Indexes[1].Rows = store.Hash([]byte("rows2")), 78, store.Hash([]byte("i3"))
	rec2, err := encodeRecord(&next)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(TableDefinition(rec), TableDefinition(rec2)) {
		t.Fatal("records differing in data only have different definitions")
	}
	as, err := DecodeTableAs(rec2, want)
	if err != nil || !reflect.DeepEqual(as, &next) {
		t.Fatalf("DecodeTableAs: %+v, %v; want %+v", as, err, &next)
	}
	if want.Indexes[1].Rows == as.Indexes[1].Rows {
		t.Fatal("DecodeTableAs changed the table it decoded as")
	}
	if like, err := encodeTableLike(rec, &next); err != nil || !bytes.Equal(like, rec2) {
		t.Fatalf("encodeTableLike: %v", err)
	}

	changed := *want
	changed.Comment = "x"
	rec3, _ := encodeRecord(&changed)
	if bytes.Equal(TableDefinition(rec), TableDefinition(rec3)) || sameDefinitionRecords(rec, rec3, want, &changed) {
		t.Fatal("a changed comment left the definition equal")
	}
	if !sameDefinitionRecords(rec, rec2, want, &next) {
		t.Fatal("sameDefinitionRecords: data-only change")
	}
	if _, err := DecodeTableAs(rec2, &changed); err != nil {
		t.Fatal(err)
	}
	fewer := *want
	fewer.Indexes = want.Indexes[:1]
	if _, err := DecodeTableAs(rec2, &fewer); err == nil {
		t.Fatal("DecodeTableAs accepted a definition with another number of indexes")
	}
}

// FuzzTableRecord: decoding any bytes as a table record fails or gives a
// table whose record decodes to it again; it never panics.
func FuzzTableRecord(f *testing.F) {
	rec, _ := encodeRecord(sampleTable())
	f.Add(rec)
	f.Add(rec[:len(rec)/2])
	f.Add([]byte{tableRecordVersion})
	f.Add([]byte{tableRecordVersion, 0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		tb, err := DecodeTable(b)
		_ = TableDefinition(b)
		_, _ = DecodeTableAs(b, sampleTable())
		if err != nil {
			return
		}
		again, err := encodeRecord(tb)
		if err != nil {
			return // JSON can hold what Marshal refuses (invalid UTF-8 is replaced, not refused)
		}
		tb2, err := DecodeTable(again)
		if err != nil || !reflect.DeepEqual(tb, tb2) {
			t.Fatalf("re-encoded record decodes to %+v, %v; want %+v", tb2, err, tb)
		}
	})
}

// TestTableRecordPolicies: row-level security and column privileges are
// part of the definition; a record written before they existed (a
// definition without their fields) decodes with none, and encoding a
// table without them writes the same bytes as before.
func TestTableRecordPolicies(t *testing.T) {
	plain := sampleTable()
	before, err := encodeRecord(plain)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"rls"`, `"force_rls"`, `"policies"`, `"acl"`} {
		if bytes.Contains(before, []byte(field)) {
			t.Fatalf("a table without %s writes it", field)
		}
	}
	got, err := DecodeTable(before)
	if err != nil || got.RowSecurity || got.ForceRowSecurity || got.Policies != nil || got.Columns[0].ACL != nil {
		t.Fatalf("old record decoded as %+v, %v", got, err)
	}

	secured := sampleTable()
	secured.RowSecurity, secured.ForceRowSecurity = true, true
	secured.Policies = []sqldef.Policy{
		{Name: "mine", Command: '*', Using: "owner = CURRENT_USER"},
		{Name: "short", Command: 'a', Restrictive: true, Roles: []string{"bob", "carol"}, Check: "length(v) < 10"},
	}
	secured.Columns[1].ACL = []sqldef.ACLItem{{Grantee: "bob", Grantor: "postgres", Privs: "r"}}
	rec, err := encodeRecord(secured)
	if err != nil {
		t.Fatal(err)
	}
	if got, err = DecodeTable(rec); err != nil || !reflect.DeepEqual(got, secured) {
		t.Fatalf("decoded %+v, %v; want %+v", got, err, secured)
	}
	if sameDefinitionRecords(before, rec, plain, secured) {
		t.Fatal("policies left the definition equal")
	}
}

// TestMergePolicies: policies merge by name, like constraints: one side's
// new policy and the other's changed one both survive; a policy changed
// differently on both sides is a conflict.
func TestMergePolicies(t *testing.T) {
	base := sampleTable()
	base.Policies = []sqldef.Policy{{Name: "p", Command: '*', Using: "true"}}
	ours := sampleTable()
	ours.Policies = []sqldef.Policy{{Name: "p", Command: '*', Using: "v <> ''"}}
	theirs := sampleTable()
	theirs.RowSecurity = true
	theirs.Policies = []sqldef.Policy{{Name: "a", Command: 'r', Using: "id > 0"}, {Name: "p", Command: '*', Using: "true"}}
	md := mergeDefinitions(base, ours, theirs)
	if md.conflict != "" {
		t.Fatal(md.conflict)
	}
	want := []sqldef.Policy{{Name: "a", Command: 'r', Using: "id > 0"}, {Name: "p", Command: '*', Using: "v <> ''"}}
	if !reflect.DeepEqual(md.def.Policies, want) || !md.def.RowSecurity {
		t.Fatalf("merged %+v (rls %v), want %+v", md.def.Policies, md.def.RowSecurity, want)
	}
	theirs.Policies = []sqldef.Policy{{Name: "p", Command: '*', Using: "false"}}
	if md := mergeDefinitions(base, ours, theirs); md.conflict == "" {
		t.Fatal("a policy changed differently on both sides merged")
	}
}
