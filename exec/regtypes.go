package exec

// The OID alias types other than regclass (oid.go). Their values are OIDs
// (KindInt); a value made by a cast from a name, or to be printed as one,
// also carries the name in Datum.S, which text output prints. Resolving
// names needs the catalog, so the planner builds those casts
// (planner/regclass.go).
const (
	OIDRegproc      uint32 = 24
	OIDRegtype      uint32 = 2206
	OIDRegnamespace uint32 = 4089
	OIDRegrole      uint32 = 4096
	// regconfig and regdictionary name text search configurations and
	// dictionaries.
	// regprocedure names a function with its argument types.
	OIDRegprocedure  uint32 = 2202
	OIDRegconfig     uint32 = 3734
	OIDRegdictionary uint32 = 3769
)

// IsRegType reports whether oid is one of the OID alias types.
func IsRegType(oid uint32) bool {
	switch oid {
	case OIDRegclass, OIDRegproc, OIDRegtype, OIDRegnamespace, OIDRegrole, OIDRegconfig, OIDRegdictionary, OIDRegprocedure:
		return true
	}
	return false
}

// DRegOID returns an OID alias value: oid, printed as name when name is
// not empty.
func DRegOID(oid uint32, name string) Datum {
	return Datum{Kind: KindInt, I: int64(oid), S: name}
}
