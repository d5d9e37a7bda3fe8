package catalog

import "github.com/prollypg/prollypg/exec"

// OIDs PostgreSQL gives the objects initdb makes; tools and psql write
// some of them literally.
const (
	OIDPgCatalog         = 11
	OIDPgToast           = 99
	OIDPublic            = 2200
	OIDInformationSchema = 13207
	OIDBootstrapRole     = 10 // the superuser initdb creates
	OIDDefaultCollation  = 100
	OIDHeapAM            = 2
	OIDBtreeAM           = 403
	OIDDefaultTablespace = 1663

	// Catalog tables, as classid and refclassid name them.
	OIDPgClass      = 1259
	OIDPgType       = 1247
	OIDPgProc       = 1255
	OIDPgNamespace  = 2615
	OIDPgConstraint = 2606
	OIDPgAttrdef    = 2604
	OIDPgDatabase   = 1262
	OIDPgAuthid     = 1260
	OIDPgRewrite    = 2618
	OIDPgTrigger    = 2620
	OIDPgOperator   = 2617
	OIDPgCast       = 2605
)

// Object kinds mixed into derived OIDs, so that a table and an index of the
// same name get different OIDs. 'r' is exec.NewTable's.
const (
	kindTable      = 'r'
	kindIndex      = 'i'
	kindSequence   = 'S'
	kindNamespace  = 'n'
	kindConstraint = 'c'
	kindAttrdef    = 'D'
	kindRole       = 'a'
	kindDatabase   = 'd'
	kindProc       = 'f'
	kindEnumLabel  = 'E'
	kindRule       = 'R'
	kindPolicy     = 'P'
	kindDefaultACL = 'L'
	kindStatistics = 'X'
	kindExtension  = 'x'
	kindTSDict     = 'w'
	kindTSConfig   = 'C'
)

// TextSearchDictOID and TextSearchConfigOID return the OIDs of a user
// text search dictionary and configuration.
func TextSearchDictOID(schema, name string) uint32 { return exec.ObjectOID(kindTSDict, schema, name) }

func TextSearchConfigOID(schema, name string) uint32 {
	return exec.ObjectOID(kindTSConfig, schema, name)
}

// NamespaceOID returns a schema's OID.
func NamespaceOID(name string) uint32 {
	switch name {
	case "pg_catalog":
		return OIDPgCatalog
	case "pg_toast":
		return OIDPgToast
	case "public":
		return OIDPublic
	case "information_schema":
		return OIDInformationSchema
	}
	return exec.ObjectOID(kindNamespace, name, "")
}

// TableOID returns a stored table's OID (the one exec.NewTable gives it).
func TableOID(schema, name string) uint32 { return exec.ObjectOID(kindTable, schema, name) }

// IndexOID returns the OID of an index, a primary key's included.
func IndexOID(schema, name string) uint32 { return exec.ObjectOID(kindIndex, schema, name) }

// ViewOID returns a view's OID.
func ViewOID(schema, name string) uint32 { return exec.ObjectOID('v', schema, name) }

// RuleOID returns the OID of the _RETURN rule of view schema.name, the
// rule PostgreSQL implements a view with.
func RuleOID(schema, view string) uint32 { return exec.ObjectOID(kindRule, schema, view) }

// SequenceOID returns a sequence's OID.
func SequenceOID(schema, name string) uint32 { return exec.ObjectOID(kindSequence, schema, name) }

// ConstraintOID returns the OID of constraint name of table schema.table.
func ConstraintOID(schema, table, name string) uint32 {
	return exec.ObjectOID(kindConstraint, schema, table+"\x00"+name)
}

// AttrdefOID returns the OID of a column default.
func AttrdefOID(schema, table, column string) uint32 {
	return exec.ObjectOID(kindAttrdef, schema, table+"\x00"+column)
}

// StatisticsOID returns the OID of extended statistics object
// schema.name.
func StatisticsOID(schema, name string) uint32 { return exec.ObjectOID(kindStatistics, schema, name) }

// RoleOID returns a role's OID: postgres, the bootstrap superuser, is 10.
func RoleOID(name string) uint32 {
	if name == "postgres" {
		return OIDBootstrapRole
	}
	for _, r := range predefinedRoles {
		if r.name == name {
			return r.oid
		}
	}
	return exec.ObjectOID(kindRole, name, "")
}

// DatabaseOID returns a database's OID: those initdb makes keep theirs.
func DatabaseOID(name string) uint32 {
	switch name {
	case "template1":
		return 1
	case "template0":
		return 4
	case "postgres":
		return 5
	}
	return exec.ObjectOID(kindDatabase, name, "")
}

// ProcOID returns the OID given to a built-in function's name.
func ProcOID(name string) uint32 { return exec.ObjectOID(kindProc, "pg_catalog", name) }

// BootstrapRole is the superuser initdb makes, OID OIDBootstrapRole.
const BootstrapRole = "postgres"

// IsPredefinedRole reports whether name is one of the roles initdb
// creates besides the superuser (pg_read_all_data, pg_monitor, ...).
func IsPredefinedRole(name string) bool {
	for _, r := range predefinedRoles {
		if r.name == name {
			return true
		}
	}
	return false
}

// predefinedRoles are the roles initdb creates besides the superuser.
var predefinedRoles = []struct {
	oid  uint32
	name string
}{
	{3373, "pg_monitor"}, {3374, "pg_read_all_settings"}, {3375, "pg_read_all_stats"},
	{3377, "pg_stat_scan_tables"}, {4200, "pg_signal_backend"}, {4544, "pg_checkpoint"},
	{4569, "pg_read_server_files"}, {4570, "pg_write_server_files"}, {4571, "pg_execute_server_program"},
	{6171, "pg_database_owner"}, {6181, "pg_read_all_data"}, {6182, "pg_write_all_data"},
}
