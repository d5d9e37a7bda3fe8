package sqldef

import (
	"strings"
)

// Privileges are PostgreSQL's, spelled with its aclitem letters, in the
// order it prints them (ACL_ALL_RIGHTS_STR).
const privilegeOrder = "arwdDxtXUCTcsA"

// All privileges an object kind can hold, as PostgreSQL's ACL_ALL_RIGHTS_*.
const (
	TablePrivileges    = "arwdDxt"
	SequencePrivileges = "rwU"
	SchemaPrivileges   = "UC"
	DatabasePrivileges = "CTc"
	// DatabasePublic are the database privileges PUBLIC holds by default.
	DatabasePublic     = "Tc"
	FunctionPrivileges = "X"
	TypePrivileges     = "U"
	// AllPrivileges are the privileges of every kind.
	AllPrivileges = privilegeOrder
)

// ACLItem is one entry of an access control list, as PostgreSQL's aclitem:
// the privileges Grantee ("" for PUBLIC) holds, granted by Grantor, and
// those of them it may grant to others in turn (WITH GRANT OPTION).
type ACLItem struct {
	Grantee string `json:"grantee,omitempty"`
	Grantor string `json:"grantor"`
	Privs   string `json:"privs"`
	Grant   string `json:"grant,omitempty"`
}

// String is the item as PostgreSQL's aclitemout prints it:
// grantee=privs/grantor, a '*' after each grantable privilege.
func (it ACLItem) String() string {
	var b strings.Builder
	b.WriteString(quoteACLName(it.Grantee))
	b.WriteByte('=')
	for i := 0; i < len(privilegeOrder); i++ {
		c := privilegeOrder[i]
		if strings.IndexByte(it.Privs, c) >= 0 {
			b.WriteByte(c)
			if strings.IndexByte(it.Grant, c) >= 0 {
				b.WriteByte('*')
			}
		}
	}
	b.WriteByte('/')
	b.WriteString(quoteACLName(it.Grantor))
	return b.String()
}

// quoteACLName quotes a role name in an aclitem as PostgreSQL's putid does.
func quoteACLName(s string) string {
	safe := true
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r >= 0x80) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// DefaultACL is an object's ACL before any GRANT or REVOKE changed it, as
// PostgreSQL's acldefault: PUBLIC holds public (its entry first, as
// acldefault orders them), and the owner every privilege of the kind
// (all).
func DefaultACL(owner, all, public string) []ACLItem {
	acl := InitialACL(owner, all, public)
	if len(acl) == 2 {
		acl[0], acl[1] = acl[1], acl[0]
	}
	return acl
}

// InitialACL is the ACL initdb gives its objects (the public schema, the
// catalogs): the owner's entry, then PUBLIC's when it holds public.
func InitialACL(owner, all, public string) []ACLItem {
	acl := []ACLItem{{Grantee: owner, Grantor: owner, Privs: all}}
	if public != "" {
		acl = append(acl, ACLItem{Grantor: owner, Privs: public})
	}
	return acl
}

// GrantACL returns acl with privs (and, with grantOption, the right to grant
// them) added for grantee, granted by grantor. acl is not modified.
func GrantACL(acl []ACLItem, grantee, grantor, privs string, grantOption bool) []ACLItem {
	out := append([]ACLItem(nil), acl...)
	for i := range out {
		if out[i].Grantee == grantee && out[i].Grantor == grantor {
			out[i].Privs = UnionPrivileges(out[i].Privs, privs)
			if grantOption {
				out[i].Grant = UnionPrivileges(out[i].Grant, privs)
			}
			return out
		}
	}
	it := ACLItem{Grantee: grantee, Grantor: grantor, Privs: UnionPrivileges("", privs)}
	if grantOption {
		it.Grant = it.Privs
	}
	return append(out, it)
}

// RevokeACL returns acl without privs for grantee as granted by grantor;
// with grantOptionOnly, only the right to grant them goes (REVOKE GRANT
// OPTION FOR). Items left with no privilege are dropped. What grantee
// granted on of those privileges, it can no longer have granted: with
// cascade, those grants are revoked too (and theirs, recursively);
// without, ok is false and acl is returned unchanged (PostgreSQL's
// "dependent privileges exist").
func RevokeACL(acl []ACLItem, grantee, grantor, privs string, grantOptionOnly, cascade bool) (out []ACLItem, ok bool) {
	for _, it := range acl {
		if it.Grantee == grantee && it.Grantor == grantor {
			it.Grant = MinusPrivileges(it.Grant, privs)
			if !grantOptionOnly {
				it.Privs = MinusPrivileges(it.Privs, privs)
			}
			if it.Privs == "" {
				continue
			}
		}
		out = append(out, it)
	}
	if out == nil {
		// Empty, not the default: everything was revoked, the owner's
		// privileges too (records keep it: their acl is omitzero, which
		// omits only a nil list).
		out = []ACLItem{}
	}
	if grantee == "" {
		return out, true // PUBLIC grants nothing on
	}
	// The privileges grantee may no longer grant on, and the grants it
	// made of them.
	var still string
	for _, it := range out {
		if it.Grantee == grantee {
			still = UnionPrivileges(still, it.Grant)
		}
	}
	lost := MinusPrivileges(privs, still)
	for _, it := range out {
		if it.Grantor != grantee || it.Grantee == grantee || !strings.ContainsAny(it.Privs, lost) {
			continue
		}
		if !cascade {
			return acl, false
		}
		out, _ = RevokeACL(out, it.Grantee, grantee, lost, false, true)
		return RevokeACL(out, grantee, grantor, privs, grantOptionOnly, true)
	}
	return out, true
}

// ACLHolds reports whether the roles (a role and those it inherits from,
// "" for PUBLIC included) hold every privilege of privs in acl, or, with
// grantable, may grant them.
func ACLHolds(acl []ACLItem, roles map[string]bool, privs string, grantable bool) bool {
	var held string
	for _, it := range acl {
		if roles[it.Grantee] {
			if grantable {
				held = UnionPrivileges(held, it.Grant)
			} else {
				held = UnionPrivileges(held, it.Privs)
			}
		}
	}
	return MinusPrivileges(privs, held) == ""
}

// ACLAny reports whether the roles hold any privilege of privs in acl.
func ACLAny(acl []ACLItem, roles map[string]bool, privs string) bool {
	for _, it := range acl {
		if roles[it.Grantee] && strings.ContainsAny(it.Privs, privs) {
			return true
		}
	}
	return false
}

// UnionPrivileges returns the privileges of a or b, in PostgreSQL's order.
func UnionPrivileges(a, b string) string {
	var out []byte
	for i := 0; i < len(privilegeOrder); i++ {
		c := privilegeOrder[i]
		if strings.IndexByte(a, c) >= 0 || strings.IndexByte(b, c) >= 0 {
			out = append(out, c)
		}
	}
	return string(out)
}

// MinusPrivileges returns the privileges of a not in b.
func MinusPrivileges(a, b string) string {
	var out []byte
	for i := 0; i < len(a); i++ {
		if strings.IndexByte(b, a[i]) < 0 {
			out = append(out, a[i])
		}
	}
	return string(out)
}

// ChangeACLOwner returns acl with the old owner's entries given to the new
// one, as PostgreSQL's aclnewowner does when an object changes hands. A nil
// (default) ACL stays nil: it follows whoever owns the object.
func ChangeACLOwner(acl []ACLItem, old, owner string) []ACLItem {
	if acl == nil {
		return nil
	}
	var out []ACLItem
	for _, it := range acl {
		if it.Grantee == old {
			it.Grantee = owner
		}
		if it.Grantor == old {
			it.Grantor = owner
		}
		merged := false
		for i := range out {
			if out[i].Grantee == it.Grantee && out[i].Grantor == it.Grantor {
				out[i].Privs = UnionPrivileges(out[i].Privs, it.Privs)
				out[i].Grant = UnionPrivileges(out[i].Grant, it.Grant)
				merged = true
			}
		}
		if !merged {
			out = append(out, it)
		}
	}
	return out
}

// KeepPrivileges returns the privileges of a that are in b.
func KeepPrivileges(a, b string) string {
	return MinusPrivileges(a, MinusPrivileges(a, b))
}

// DefaultedACL is acl, or the default of an object owned by owner whose
// privileges are all when acl is nil (no GRANT or REVOKE has set one).
func DefaultedACL(acl []ACLItem, owner, all string) []ACLItem {
	if acl != nil {
		return acl
	}
	return DefaultACL(owner, all, "")
}
