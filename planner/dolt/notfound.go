package dolt

import (
	"strings"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// MissingSystemTable is the error for a relation of FROM that nothing
// defines, when it is named as the system tables are: dolt_<anything>
// in any schema, a name in schema dolt, or a system table's short name
// (schema_conflicts, docs) outside schema dolt. Doltgres says "table not
// found" there, with PostgreSQL's SQLSTATE; nil for other names, which
// keep PostgreSQL's words.
func MissingSystemTable(schema, name string) *pgerr.Error {
	_, short := systemTables[name]
	_, stored := storedTables[name]
	if !strings.HasPrefix(name, "dolt_") && schema != systemSchema && !short && !stored {
		return nil
	}
	return pgerr.New(pgerr.UndefinedTable, "table not found: %s", name)
}
