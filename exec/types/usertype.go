package types

// User-defined types (CREATE TYPE, CREATE DOMAIN) have OIDs derived from
// their names, at or above FirstUserTypeOID. The low bits of such an OID
// say what the type is, so that code which sees only a type OID (row
// storage, index keys, casts, output) knows how to handle its values
// without a catalog lookup: the category, and whether it is the array type
// of that category's type, whose OID is the element's with ArrayBit set.
const (
	FirstUserTypeOID Oid = 16384

	UserEnum      Oid = 1
	UserComposite Oid = 2
	UserDomain    Oid = 3 // domains' values are their base type's: see UserType
	// UserRange is the category of range types, whose OIDs have the
	// category bits clear (the three other patterns being taken).
	UserRange    Oid = 8
	userCategory Oid = 3
	ArrayBit     Oid = 4
)

// UserCategoryOf returns the category of user type oid (UserEnum,
// UserComposite, UserDomain) and whether oid is its array type; category 0
// for a built-in type.
func UserCategoryOf(oid Oid) (category Oid, array bool) {
	if oid < FirstUserTypeOID {
		return 0, false
	}
	if oid&userCategory == 0 {
		return UserRange, oid&ArrayBit != 0
	}
	return oid & userCategory, oid&ArrayBit != 0
}

// UserTypeOID returns the OID of a user type of category cat whose name
// hashes to h.
func UserTypeOID(cat Oid, h uint32) Oid {
	const span = 1<<31 - uint32(FirstUserTypeOID)
	return (FirstUserTypeOID+Oid(h%span))&^(userCategory|ArrayBit) | cat&userCategory
}

// UserType is what text I/O needs to know of a user type: an enum's labels
// or a composite's fields. Catalog finds them by OID.
type UserType struct {
	Oid    Oid
	Schema string
	Name   string
	// Labels and Sorts are an enum's labels and their sort orders,
	// ordered by sort order.
	Labels []string
	Sorts  []float64
	// FieldNames, FieldTypes and FieldTypmods are a composite's fields.
	FieldNames   []string
	FieldTypes   []Oid
	FieldTypmods []int32
	// RangeSubtype is a range type's subtype (0 for other types), with
	// its SUBTYPE_DIFF function's name, or "".
	RangeSubtype Oid
	SubtypeDiff  string
}

// Label returns the enum label of sort order f.
func (u *UserType) Label(f float64) (string, bool) {
	for i, s := range u.Sorts {
		if s == f {
			return u.Labels[i], true
		}
	}
	return "", false
}

// Sort returns the sort order of enum label l.
func (u *UserType) Sort(l string) (float64, bool) {
	for i, s := range u.Labels {
		if s == l {
			return u.Sorts[i], true
		}
	}
	return 0, false
}

// Catalog finds user types; the session provides one that reads its
// transaction's root value.
type Catalog interface {
	UserType(oid Oid) (*UserType, bool)
	// TypeName returns the name format_type prints for user type oid
	// (or its array type): schema-qualified when the search path does
	// not find it, quoted where needed.
	TypeName(oid Oid) (string, bool)
}
