package session

import (
	"os"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/planner/ddl"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Large objects: lo_create, lo_open, loread, lowrite and the rest of
// PostgreSQL's server-side large object functions. The objects are
// versioning.LargeObject records of the transaction's root, so they are
// transactional (a rolled-back lowrite leaves nothing) and versioned like
// rows. A descriptor (lo_open) belongs to the session's transaction and
// is closed when it ends; descriptors are numbered from 0, the lowest free
// number first, as PostgreSQL's are.

// The mode bits of lo_open and lo_creat (libpq's INV_WRITE, INV_READ).
const (
	loWrite = 0x20000
	loRead  = 0x40000
)

// firstLargeObjectOID is where lo_create(0) starts numbering: past the
// OIDs PostgreSQL reserves for its own objects.
const firstLargeObjectOID = 16384

// largeObjectDesc is an open descriptor: the object, whether it was opened
// for writing, and the position the next read or write starts at.
type largeObjectDesc struct {
	oid   uint32
	write bool
	pos   int64
}

// endLargeObjects closes the open transaction's descriptors.
func (s *Session) endLargeObjects() { s.loDescs = nil }

// largeObject returns large object oid as of the transaction's root.
func largeObject(env *exec.Env, oid uint32) (*versioning.LargeObject, error) {
	lo, ok, err := env.Txn.Root().LargeObject(env.Ctx, oid)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedObject, "large object %d does not exist", oid)
	}
	return lo, nil
}

// putLargeObject stores lo in the transaction's root.
func putLargeObject(env *exec.Env, lo *versioning.LargeObject) error {
	if err := env.Txn.CheckWritable(); err != nil {
		return err
	}
	root, err := env.Txn.Root().PutLargeObject(env.Ctx, lo)
	if err != nil {
		return err
	}
	env.Txn.SetRoot(root)
	return nil
}

// requireLargeObject checks that the current role holds privs (SELECT
// 'r', UPDATE 'w') on lo.
func (s *Session) requireLargeObject(env *exec.Env, lo *versioning.LargeObject, privs string) error {
	if s.vars["lo_compat_privileges"] == "on" {
		return nil // PostgreSQL's compatibility mode: no checks
	}
	au, err := s.Authority(env.Ctx)
	if err != nil || au.Superuser || sqldef.ACLHolds(ddl.LargeObjectACL(lo), au.Holds, privs, false) {
		return err
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for large object %d", lo.OID)
}

// createLargeObject makes an empty large object of OID oid (0: the next
// free one) owned by the current role.
func (s *Session) createLargeObject(env *exec.Env, oid uint32) (exec.Datum, error) {
	all, err := env.Txn.Root().LargeObjects(env.Ctx)
	if err != nil {
		return exec.Null, err
	}
	if oid == 0 {
		oid = firstLargeObjectOID
		for _, lo := range all {
			oid = max(oid, lo.OID+1)
		}
	}
	for _, lo := range all {
		if lo.OID == oid {
			return exec.Null, pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint \"pg_largeobject_metadata_oid_index\"").
				WithDetail("Key (oid)=(%d) already exists.", oid)
		}
	}
	if err := putLargeObject(env, &versioning.LargeObject{OID: oid, Owner: planner.NewObjectOwner(s)}); err != nil {
		return exec.Null, err
	}
	return exec.DInt(int64(oid)), nil
}

// createLargeObjectOf makes a large object of OID oid (0: the next free
// one) holding data.
func (s *Session) createLargeObjectOf(env *exec.Env, oid uint32, data []byte) (exec.Datum, error) {
	d, err := s.createLargeObject(env, oid)
	if err != nil {
		return exec.Null, err
	}
	lo, err := largeObject(env, uint32(d.I))
	if err != nil {
		return exec.Null, err
	}
	if lo, err = lo.Write(env.Ctx, env.Txn.Catalog().Store(), 0, data); err != nil {
		return exec.Null, err
	}
	return d, putLargeObject(env, lo)
}

// descriptor returns open descriptor fd.
func (s *Session) descriptor(fd int64) (*largeObjectDesc, error) {
	if fd < 0 || fd >= int64(len(s.loDescs)) || s.loDescs[fd] == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "invalid large-object descriptor: %d", fd)
	}
	return s.loDescs[fd], nil
}

// writable returns descriptor fd and its object, failing unless it was
// opened for writing.
func (s *Session) writable(env *exec.Env, fd int64) (*largeObjectDesc, *versioning.LargeObject, error) {
	d, err := s.descriptor(fd)
	if err != nil {
		return nil, nil, err
	}
	if !d.write {
		return nil, nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "large object descriptor %d was not opened for writing", fd)
	}
	lo, err := largeObject(env, d.oid)
	return d, lo, err
}

// openLargeObject is lo_open: a new descriptor of oid, checked for SELECT
// and, to write, UPDATE.
func (s *Session) openLargeObject(env *exec.Env, oid uint32, mode int64) (exec.Datum, error) {
	lo, err := largeObject(env, oid)
	if err != nil {
		return exec.Null, err
	}
	write := mode&loWrite != 0
	if err := s.requireLargeObject(env, lo, "r"); err != nil {
		return exec.Null, err
	}
	if write {
		if err := s.requireLargeObject(env, lo, "w"); err != nil {
			return exec.Null, err
		}
	}
	d := &largeObjectDesc{oid: oid, write: write}
	for i, open := range s.loDescs {
		if open == nil {
			s.loDescs[i] = d
			return exec.DInt(int64(i)), nil
		}
	}
	s.loDescs = append(s.loDescs, d)
	return exec.DInt(int64(len(s.loDescs) - 1)), nil
}

// seek moves a descriptor as lseek: whence 0 from the start, 1 from the
// current position, 2 from the end.
func (s *Session) seek(env *exec.Env, fd, off, whence int64) (int64, error) {
	d, err := s.descriptor(fd)
	if err != nil {
		return 0, err
	}
	var base int64
	switch whence {
	case 0:
	case 1:
		base = d.pos
	case 2:
		lo, err := largeObject(env, d.oid)
		if err != nil {
			return 0, err
		}
		base = lo.Size
	default:
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid whence setting: %d", whence)
	}
	if base+off < 0 {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid seek offset: %d", off)
	}
	d.pos = base + off
	return d.pos, nil
}

// truncate is lo_truncate: the object cut or zero-extended to n bytes.
func (s *Session) truncate(env *exec.Env, fd, n int64) error {
	if n < 0 {
		return pgerr.New(pgerr.InvalidParameterValue, "invalid large object truncation target: %d", n)
	}
	_, lo, err := s.writable(env, fd)
	if err != nil {
		return err
	}
	nl, err := lo.Truncate(env.Ctx, env.Txn.Catalog().Store(), n)
	if err != nil {
		return err
	}
	return putLargeObject(env, nl)
}

// requireServerFiles checks that the current role may read and write the
// server's files (lo_import, lo_export): PostgreSQL grants EXECUTE on them
// to superusers alone.
func (s *Session) requireServerFiles(env *exec.Env, fn string) error {
	au, err := s.Authority(env.Ctx)
	if err != nil || au.Superuser {
		return err
	}
	return planner.PermissionDenied("function", fn)
}

func init() {
	const oid, i4, i8, bytea, text, void = exec.OIDOid, exec.OIDInt4, exec.OIDInt8, exec.OIDBytea, exec.OIDText, exec.OIDVoid
	registerStrict("lo_create", []uint32{oid}, oid, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return s.createLargeObject(env, uint32(a[0].I))
	})
	registerStrict("lo_creat", []uint32{i4}, oid, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return s.createLargeObject(env, 0)
	})
	registerStrict("lo_open", []uint32{oid, i4}, i4, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return s.openLargeObject(env, uint32(a[0].I), a[1].I)
	})
	registerStrict("lo_close", []uint32{i4}, i4, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if _, err := s.descriptor(a[0].I); err != nil {
			return exec.Null, err
		}
		s.loDescs[a[0].I] = nil
		return exec.DInt(0), nil
	})
	registerStrict("loread", []uint32{i4, i4}, bytea, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		d, err := s.descriptor(a[0].I)
		if err != nil {
			return exec.Null, err
		}
		lo, err := largeObject(env, d.oid)
		if err != nil {
			return exec.Null, err
		}
		b, err := lo.Read(env.Ctx, env.Txn.Catalog().Store(), d.pos, a[1].I)
		if err != nil {
			return exec.Null, err
		}
		d.pos += int64(len(b))
		return exec.DBytes(string(b)), nil
	})
	registerStrict("lowrite", []uint32{i4, bytea}, i4, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		d, lo, err := s.writable(env, a[0].I)
		if err != nil {
			return exec.Null, err
		}
		nl, err := lo.Write(env.Ctx, env.Txn.Catalog().Store(), d.pos, []byte(a[1].S))
		if err != nil {
			return exec.Null, err
		}
		if err := putLargeObject(env, nl); err != nil {
			return exec.Null, err
		}
		d.pos += int64(len(a[1].S))
		return exec.DInt(int64(len(a[1].S))), nil
	})
	for _, wide := range []bool{false, true} {
		name, off, ret := "lo_lseek", uint32(i4), uint32(i4)
		if wide {
			name, off, ret = "lo_lseek64", i8, i8
		}
		registerStrict(name, []uint32{i4, off, i4}, ret, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			pos, err := s.seek(env, a[0].I, a[1].I, a[2].I)
			return exec.DInt(pos), err
		})
		name, ret = "lo_tell", i4
		if wide {
			name, ret = "lo_tell64", i8
		}
		registerStrict(name, []uint32{i4}, ret, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			d, err := s.descriptor(a[0].I)
			if err != nil {
				return exec.Null, err
			}
			return exec.DInt(d.pos), nil
		})
		name, off = "lo_truncate", i4
		if wide {
			name, off = "lo_truncate64", i8
		}
		registerStrict(name, []uint32{i4, off}, i4, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DInt(0), s.truncate(env, a[0].I, a[1].I)
		})
	}
	registerStrict("lo_unlink", []uint32{oid}, i4, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		lo, err := largeObject(env, uint32(a[0].I))
		if err != nil {
			return exec.Null, err
		}
		au, err := s.Authority(env.Ctx)
		if err != nil {
			return exec.Null, err
		}
		if !au.Owns(lo.Owner) && s.vars["lo_compat_privileges"] != "on" {
			return exec.Null, pgerr.New(pgerr.InsufficientPrivilege, "must be owner of large object %d", lo.OID)
		}
		if err := env.Txn.CheckWritable(); err != nil {
			return exec.Null, err
		}
		root, err := env.Txn.Root().DropLargeObject(env.Ctx, lo.OID)
		if err != nil {
			return exec.Null, err
		}
		env.Txn.SetRoot(root)
		for i, d := range s.loDescs {
			if d != nil && d.oid == lo.OID {
				s.loDescs[i] = nil
			}
		}
		return exec.DInt(1), nil
	})
	get := func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		lo, err := largeObject(env, uint32(a[0].I))
		if err != nil {
			return exec.Null, err
		}
		if err := s.requireLargeObject(env, lo, "r"); err != nil {
			return exec.Null, err
		}
		off, n := int64(0), lo.Size
		if len(a) == 3 {
			if a[1].I < 0 || a[2].I < 0 {
				return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "requested length cannot be negative")
			}
			off, n = a[1].I, a[2].I
		}
		b, err := lo.Read(env.Ctx, env.Txn.Catalog().Store(), off, n)
		return exec.DBytes(string(b)), err
	}
	registerStrict("lo_get", []uint32{oid}, bytea, get)
	registerStrict("lo_get", []uint32{oid, i8, i4}, bytea, get)
	registerStrict("lo_put", []uint32{oid, i8, bytea}, void, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		lo, err := largeObject(env, uint32(a[0].I))
		if err != nil {
			return exec.Null, err
		}
		if err := s.requireLargeObject(env, lo, "w"); err != nil {
			return exec.Null, err
		}
		nl, err := lo.Write(env.Ctx, env.Txn.Catalog().Store(), a[1].I, []byte(a[2].S))
		if err != nil {
			return exec.Null, err
		}
		return exec.Null, putLargeObject(env, nl)
	})
	registerStrict("lo_from_bytea", []uint32{oid, bytea}, oid, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return s.createLargeObjectOf(env, uint32(a[0].I), []byte(a[1].S))
	})
	lowImport := func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if err := s.requireServerFiles(env, "lo_import"); err != nil {
			return exec.Null, err
		}
		data, err := os.ReadFile(a[0].S)
		if err != nil {
			return exec.Null, pgerr.New(pgerr.UndefinedFile, "could not open server file %q: %s", a[0].S, strings.TrimPrefix(err.Error(), "open "+a[0].S+": "))
		}
		var want uint32
		if len(a) > 1 {
			want = uint32(a[1].I)
		}
		return s.createLargeObjectOf(env, want, data)
	}
	registerStrict("lo_import", []uint32{text}, oid, lowImport)
	registerStrict("lo_import", []uint32{text, oid}, oid, lowImport)
	registerStrict("lo_export", []uint32{oid, text}, i4, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if err := s.requireServerFiles(env, "lo_export"); err != nil {
			return exec.Null, err
		}
		lo, err := largeObject(env, uint32(a[0].I))
		if err != nil {
			return exec.Null, err
		}
		data, err := lo.Read(env.Ctx, env.Txn.Catalog().Store(), 0, lo.Size)
		if err != nil {
			return exec.Null, err
		}
		if err := os.WriteFile(a[1].S, data, 0o644); err != nil {
			return exec.Null, pgerr.New(pgerr.IOError, "could not create server file %q: %s", a[1].S, err)
		}
		return exec.DInt(1), nil
	})
}
