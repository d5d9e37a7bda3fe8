package catalog

import (
	"slices"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// BuiltinExtension is an extension whose objects this server has built
// in, so that CREATE EXTENSION has only to record it
// (sqldef.Extension): its version and comment as PostgreSQL 15's
// control file has them, and whether it is relocatable.
type BuiltinExtension struct {
	Name, Version, Comment string
	Relocatable            bool
}

// builtinExtensions are the extensions there are here, by name:
// btree_gin and btree_gist, whose operator classes let gin and gist index
// the scalar types (CREATE INDEX keeps those as btree indexes);
// plpgsql, which every database has; uuid-ossp, for uuid_generate_v4;
// pgcrypto, for its hashing functions and gen_random_uuid
// (exec/funcs/pgcrypto.go); citext, the case-insensitive text type
// (exec/citext.go, exec/funcs/citext.go); pg_trgm, trigram similarity
// (exec/funcs/trgm.go); hstore, sets of key/value pairs (exec/hstore.go,
// exec/funcs/hstore.go); pg_stat_statements, the statistics of the
// statements run (statements.go), which the server keeps whether or not a
// database installed it.
var builtinExtensions = []BuiltinExtension{
	{"btree_gin", "1.3", "support for indexing common datatypes in GIN", true},
	{"btree_gist", "1.7", "support for indexing common datatypes in GiST", true},
	{"citext", "1.6", "data type for case-insensitive character strings", true},
	{"hstore", "1.8", "data type for storing sets of (key, value) pairs", true},
	{"pg_stat_statements", "1.10", "track planning and execution statistics of all SQL statements executed", true},
	{"pg_trgm", "1.6", "text similarity measurement and index searching based on trigrams", true},
	{"pgcrypto", "1.3", "cryptographic functions", true},
	{"plpgsql", "1.0", "PL/pgSQL procedural language", false},
	{"uuid-ossp", "1.1", "generate universally unique identifiers (UUIDs)", true},
}

// LookupExtension returns the built-in extension name.
func LookupExtension(name string) (BuiltinExtension, bool) {
	i := slices.IndexFunc(builtinExtensions, func(e BuiltinExtension) bool { return e.Name == name })
	if i < 0 {
		return BuiltinExtension{}, false
	}
	return builtinExtensions[i], true
}

// oidPlpgsqlExtension is plpgsql's pg_extension OID, which initdb gives it;
// oidPgExtension is pg_extension's, the classoid of its comments.
const (
	oidPlpgsqlExtension = 13572
	oidPgExtension      = 3079
)

// ExtensionOID is the pg_extension OID of extension name.
func ExtensionOID(name string) uint32 {
	if name == "plpgsql" {
		return oidPlpgsqlExtension
	}
	return exec.ObjectOID(kindExtension, "", name)
}

func init() {
	const pc = "pg_catalog"
	define(pc, "pg_available_extensions", 12081, 'v', "name:name default_version:text installed_version:text comment:text", pgAvailableExtensions)
}

// installedExtensions returns the extensions of the snapshot's database:
// plpgsql, which every database has, and those CREATE EXTENSION recorded.
func installedExtensions(s *Snapshot) ([]*sqldef.Extension, error) {
	recorded, err := s.Src.Root.Extensions(s.Src.Ctx)
	if err != nil {
		return nil, err
	}
	out := []*sqldef.Extension{{Name: "plpgsql", Schema: "pg_catalog", Version: "1.0"}}
	return append(out, recorded...), nil
}

// pgExtension lists the installed extensions; psql's \dx and ORMs read
// it (Rails' schema dump, Django's CreateExtension).
func pgExtension(s *Snapshot) ([]exec.Row, error) {
	exts, err := installedExtensions(s)
	if err != nil {
		return nil, err
	}
	var out []exec.Row
	for _, e := range exts {
		b, _ := LookupExtension(e.Name)
		owner := uint32(OIDBootstrapRole)
		if e.Owner != "" {
			owner = RoleOID(e.Owner)
		}
		out = append(out, exec.Row{dOID(ExtensionOID(e.Name)), dText(e.Name), dOID(owner), dOID(NamespaceOID(e.Schema)),
			dBool(b.Relocatable), dText(e.Version), exec.Null, exec.Null})
	}
	return out, nil
}

// pgAvailableExtensions lists the built-in extensions with the version
// installed in the database, if any (Rails' extension_enabled? reads it).
func pgAvailableExtensions(s *Snapshot) ([]exec.Row, error) {
	exts, err := installedExtensions(s)
	if err != nil {
		return nil, err
	}
	var out []exec.Row
	for _, b := range builtinExtensions {
		installed := exec.Null
		for _, e := range exts {
			if e.Name == b.Name {
				installed = dText(e.Version)
			}
		}
		out = append(out, exec.Row{dText(b.Name), dText(b.Version), installed, dText(b.Comment)})
	}
	return out, nil
}
