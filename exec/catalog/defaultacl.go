package catalog

import (
	"github.com/prollypg/prollypg/exec"
)

// pg_default_acl: the entries of ALTER DEFAULT PRIVILEGES, kept in the
// root value (sqldef.DefaultPrivileges).

func init() {
	define("pg_catalog", "pg_default_acl", 826, 'r', `oid:oid defaclrole:oid defaclnamespace:oid defaclobjtype:char
		defaclacl:aclitem[]`, pgDefaultACL)
}

func pgDefaultACL(s *Snapshot) ([]exec.Row, error) {
	all, err := s.Src.Root.AllDefaultPrivileges(s.Src.Ctx)
	if err != nil {
		return nil, err
	}
	var out []exec.Row
	for _, d := range all {
		ns := uint32(0)
		if d.Schema != "" {
			ns = NamespaceOID(d.Schema)
		}
		oid := exec.ObjectOID(kindDefaultACL, d.Schema, d.Role+"\x00"+string(d.ObjType))
		out = append(out, exec.Row{dOID(oid), dOID(RoleOID(d.Role)), dOID(ns), dChar(d.ObjType), aclDatum(d.ACL)})
	}
	return out, nil
}
