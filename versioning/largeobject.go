package versioning

import (
	"context"
	"fmt"
)

// LargeObject is one of PostgreSQL's large objects (lo_create, lo_open,
// lowrite ...): its bytes, owner and privileges (SELECT and UPDATE). It is
// a record of the root value like a table's, so that a branch, a diff, a
// merge and time travel carry large objects as they carry rows; two
// transactions writing different large objects merge, two writing one
// conflict. A write stores the whole object again (a value larger than a
// leaf lives in blob chunks, prolly/blob.go, so unchanged parts of a big
// object are shared between versions).
type LargeObject struct {
	OID     uint32    `json:"oid"`
	Owner   string    `json:"owner,omitempty"`
	ACL     []ACLItem `json:"acl,omitempty"`
	Comment string    `json:"comment,omitempty"`
	Data    []byte    `json:"data,omitempty"`
}

// LargeObjectPrivileges are those a large object can hold.
const LargeObjectPrivileges = "rw"

// largeObjectKey keys large object oid: the OID zero-padded, so that the
// records sort by OID.
func largeObjectKey(oid uint32) []byte {
	return objectKey(kindLargeObject, "", fmt.Sprintf("%010d", oid))
}

// LargeObject returns large object oid.
func (r RootValue) LargeObject(ctx context.Context, oid uint32) (*LargeObject, bool, error) {
	return getObject[LargeObject](ctx, r, largeObjectKey(oid))
}

// LargeObjects returns every large object, ordered by OID.
func (r RootValue) LargeObjects(ctx context.Context) ([]*LargeObject, error) {
	return listObjects[LargeObject](ctx, r, kindLargeObject)
}

// PutLargeObject returns the root value with lo stored.
func (r RootValue) PutLargeObject(ctx context.Context, lo *LargeObject) (RootValue, error) {
	return r.put(ctx, largeObjectKey(lo.OID), lo)
}

// DropLargeObject returns the root value without large object oid.
func (r RootValue) DropLargeObject(ctx context.Context, oid uint32) (RootValue, error) {
	return r.drop(ctx, largeObjectKey(oid))
}
