package catalog

import "github.com/prollypg/prollypg/exec"

// The large objects' catalogs: pg_largeobject_metadata (owner and
// privileges) and pg_largeobject, the bytes in pages of PostgreSQL's
// LOBLKSIZE, which only superusers may read.
func init() {
	const pc = "pg_catalog"
	define(pc, "pg_largeobject_metadata", 2995, 'r', "oid:oid lomowner:oid lomacl:aclitem[]", pgLargeObjectMetadata)
	define(pc, "pg_largeobject", oidPgLargeObject, 'r', "loid:oid pageno:integer data:bytea", pgLargeObject)
}

// oidPgLargeObject is pg_largeobject's OID, the class of large objects'
// comments in pg_description.
const oidPgLargeObject = 2613

func pgLargeObjectMetadata(s *Snapshot) ([]exec.Row, error) {
	los, err := s.Src.Root.LargeObjects(s.Src.Ctx)
	if err != nil {
		return nil, err
	}
	out := make([]exec.Row, 0, len(los))
	for _, lo := range los {
		owner := uint32(OIDBootstrapRole)
		if lo.Owner != "" {
			owner = RoleOID(lo.Owner)
		}
		out = append(out, exec.Row{dOID(lo.OID), dOID(owner), aclDatum(lo.ACL)})
	}
	return out, nil
}

func pgLargeObject(s *Snapshot) ([]exec.Row, error) {
	los, err := s.Src.Root.LargeObjects(s.Src.Ctx)
	if err != nil {
		return nil, err
	}
	var out []exec.Row
	for _, lo := range los {
		err := lo.EachPage(s.Src.Ctx, s.Src.Root.Store(), func(n int64, page []byte) error {
			out = append(out, exec.Row{dOID(lo.OID), dInt(n), exec.DBytes(string(page))})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
