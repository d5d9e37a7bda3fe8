package session

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// The peer functions: the server's side of postgres:// remotes and read
// replicas (store/remotestore/pgremote's doc.go states the protocol). A
// peer connects over the ordinary wire port, with its TLS and
// authentication, as a role with the REPLICATION attribute (or a
// superuser), and calls:
//
//	dolt_peer_get(addrs bytea[]) bytea[]        the chunks, NULL if absent
//	dolt_peer_absent(addrs bytea[]) bytea[]     the addresses the server lacks
//	dolt_peer_put(chunks bytea[]) int4          writes chunks, returns the count
//	dolt_peer_refs(db text) SETOF (name text, hash text)
//	dolt_peer_update_refs(db text, names text[], olds text[], news text[]) int4
//	dolt_peer_backup_refs(db text) SETOF (name text, hash text)
//	dolt_peer_backup_update_refs(db text, names text[], olds text[], news text[]) int4
//	dolt_peer_stats() (chunks_sent, bytes_sent, chunks_received, bytes_received)
//
// Chunks are the whole server's (one store holds every database), refs
// one database's, named as a remote names them (versioning.PeerRefs). As
// with PostgreSQL's replication connections, the attribute gives access to
// everything: branch permissions and table privileges do not apply.
func init() {
	byteaArray := exec.ArrayType(exec.TBytea).OID
	textArray := exec.OIDTextArray
	exec.Register(
		strict(withSession("dolt_peer_get", []uint32{byteaArray}, byteaArray, (*Session).peerGet)),
		strict(withSession("dolt_peer_absent", []uint32{byteaArray}, byteaArray, (*Session).peerAbsent)),
		strict(withSession("dolt_peer_put", []uint32{byteaArray}, exec.OIDInt4, (*Session).peerPut)),
		strict(withSession("dolt_peer_update_refs", []uint32{exec.OIDText, textArray, textArray, textArray}, exec.OIDInt4, (*Session).peerUpdateRefs)),
		strict(withSession("dolt_peer_backup_update_refs", []uint32{exec.OIDText, textArray, textArray, textArray}, exec.OIDInt4, (*Session).peerBackupUpdateRefs)),
	)
	stats := withSession("dolt_peer_stats", nil, exec.OIDRecord, nil)
	exec.RegisterSRF(stats, func([]exec.T) *exec.SRF {
		cols := []exec.ResultColumn{{Name: "chunks_sent", T: exec.TInt8}, {Name: "bytes_sent", T: exec.TInt8},
			{Name: "chunks_received", T: exec.TInt8}, {Name: "bytes_received", T: exec.TInt8}}
		return &exec.SRF{Cols: cols, Rows: func(env *exec.Env, a []exec.Datum) ([]exec.Row, error) {
			s, ok := env.Session.(*Session)
			if !ok {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "dolt_peer_stats() cannot be called outside a session's statement")
			}
			if err := s.requireReplication(env.Ctx, "dolt_peer_stats"); err != nil {
				return nil, err
			}
			p := &s.e.peer
			return []exec.Row{{exec.DInt(p.chunksSent.Load()), exec.DInt(p.bytesSent.Load()),
				exec.DInt(p.chunksReceived.Load()), exec.DInt(p.bytesReceived.Load())}}, nil
		}}
	})
	for _, f := range []struct {
		name string
		list func(*Session, *exec.Env, []exec.Datum) ([]exec.Row, error)
	}{{"dolt_peer_refs", (*Session).peerRefs}, {"dolt_peer_backup_refs", (*Session).peerBackupRefs}} {
		refs := strict(withSession(f.name, []uint32{exec.OIDText}, exec.OIDRecord, nil))
		exec.RegisterSRF(refs, func([]exec.T) *exec.SRF {
			return &exec.SRF{Cols: []exec.ResultColumn{{Name: "name", T: exec.TText}, {Name: "hash", T: exec.TText}},
				Rows: func(env *exec.Env, a []exec.Datum) ([]exec.Row, error) {
					s, ok := env.Session.(*Session)
					if !ok {
						return nil, pgerr.New(pgerr.FeatureNotSupported, "%s() cannot be called outside a session's statement", f.name)
					}
					return f.list(s, env, a)
				}}
		})
	}
}

// peerState is the engine's part in the peer protocol: counts of the
// chunks peers read (sent) and wrote (received) since the server started,
// and the watch of the databases peers follow (peerwatch.go).
type peerState struct {
	chunksSent, bytesSent, chunksReceived, bytesReceived atomic.Int64
	watch                                                peerWatch
}

// maxPeerBatch bounds the elements of one call's array: a peer sends
// batches, and a bound keeps one statement's memory in check.
const maxPeerBatch = 4096

// requireReplication refuses a role without the REPLICATION attribute.
func (s *Session) requireReplication(ctx context.Context, fn string) error {
	au, err := s.Authority(ctx)
	if err != nil {
		return err
	}
	if au.Superuser {
		return nil
	}
	if r := au.Roles[au.Role]; r != nil && r.Replication {
		return nil
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for function %s", fn).
		WithDetail("Only roles with the REPLICATION attribute may read or write the server's chunks and refs.")
}

// peerAddrs reads an array of addresses.
func peerAddrs(d exec.Datum) ([]versioning.Address, error) {
	elems := d.Array().Elems
	if len(elems) > maxPeerBatch {
		return nil, pgerr.New(pgerr.ProgramLimitExceeded, "at most %d addresses a call", maxPeerBatch)
	}
	out := make([]versioning.Address, len(elems))
	for i, e := range elems {
		if e.IsNull() || len(e.S) != len(versioning.Address{}) {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "an address is %d bytes", len(versioning.Address{}))
		}
		copy(out[i][:], e.S)
	}
	return out, nil
}

func addrArray(addrs []versioning.Address) exec.Datum {
	out := make([]exec.Datum, len(addrs))
	for i, a := range addrs {
		out[i] = exec.DBytes(string(a[:]))
	}
	return exec.NewArray(exec.OIDBytea, out)
}

// peerGet is dolt_peer_get(addrs): the chunks, in the order of addrs,
// NULL for one the server lacks.
func (s *Session) peerGet(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	if err := s.requireReplication(env.Ctx, "dolt_peer_get"); err != nil {
		return exec.Null, err
	}
	addrs, err := peerAddrs(a[0])
	if err != nil {
		return exec.Null, err
	}
	at := make(map[versioning.Address][]int, len(addrs))
	for i, ad := range addrs {
		at[ad] = append(at[ad], i)
	}
	out := make([]exec.Datum, len(addrs))
	for i := range out {
		out[i] = exec.Null
	}
	err = versioning.PeerGet(env.Ctx, s.e.st, addrs, func(ad versioning.Address, b []byte) error {
		for _, i := range at[ad] {
			out[i] = exec.DBytes(string(b))
		}
		s.e.peer.chunksSent.Add(1)
		s.e.peer.bytesSent.Add(int64(len(b)))
		return nil
	})
	if err != nil {
		return exec.Null, err
	}
	return exec.NewArray(exec.OIDBytea, out), nil
}

// peerAbsent is dolt_peer_absent(addrs): those the server lacks with
// their subtrees (versioning.PeerAbsent).
func (s *Session) peerAbsent(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	if err := s.requireReplication(env.Ctx, "dolt_peer_absent"); err != nil {
		return exec.Null, err
	}
	addrs, err := peerAddrs(a[0])
	if err != nil {
		return exec.Null, err
	}
	absent, err := versioning.PeerAbsent(env.Ctx, s.e.st, addrs)
	if err != nil {
		return exec.Null, err
	}
	return addrArray(absent), nil
}

// peerPut is dolt_peer_put(chunks): writes them, to be reached by a
// later dolt_peer_update_refs.
func (s *Session) peerPut(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	if err := s.requireReplication(env.Ctx, "dolt_peer_put"); err != nil {
		return exec.Null, err
	}
	elems := a[0].Array().Elems
	if len(elems) > maxPeerBatch {
		return exec.Null, pgerr.New(pgerr.ProgramLimitExceeded, "at most %d chunks a call", maxPeerBatch)
	}
	chunks := make([][]byte, len(elems))
	for i, e := range elems {
		if e.IsNull() {
			return exec.Null, pgerr.New(pgerr.NullValueNotAllowed, "a chunk is not NULL")
		}
		chunks[i] = []byte(e.S)
		s.e.peer.bytesReceived.Add(int64(len(e.S)))
	}
	s.e.peer.chunksReceived.Add(int64(len(chunks)))
	if err := versioning.PeerPut(env.Ctx, s.e.st, chunks); err != nil {
		return exec.Null, err
	}
	return exec.DInt(int64(len(chunks))), nil
}

// peerRefs is dolt_peer_refs(db): the database's refs by their peer names.
func (s *Session) peerRefs(env *exec.Env, a []exec.Datum) ([]exec.Row, error) {
	if err := s.requireReplication(env.Ctx, "dolt_peer_refs"); err != nil {
		return nil, err
	}
	s.e.watchPeerRefs(a[0].S)
	var rows []exec.Row
	err := versioning.PeerRefs(env.Ctx, s.e.st, a[0].S, func(name string, ad versioning.Address) error {
		rows = append(rows, exec.Row{exec.DText(name), exec.DText(ad.String())})
		return nil
	})
	return rows, err
}

// peerBackupRefs is dolt_peer_backup_refs(db): the database's refs by
// their names in a backup (versioning.PeerBackupRefs).
func (s *Session) peerBackupRefs(env *exec.Env, a []exec.Datum) ([]exec.Row, error) {
	if err := s.requireReplication(env.Ctx, "dolt_peer_backup_refs"); err != nil {
		return nil, err
	}
	var rows []exec.Row
	err := versioning.PeerBackupRefs(env.Ctx, s.e.st, a[0].S, func(name string, ad versioning.Address) error {
		rows = append(rows, exec.Row{exec.DText(name), exec.DText(ad.String())})
		return nil
	})
	return rows, err
}

// peerUpdateRefs is dolt_peer_update_refs(db, names, olds, news): a
// compare-and-set of the database's refs, all or none; ” is no ref.
// A ref not at its old value fails with 40001, a branch with uncommitted
// changes with 55000.
func (s *Session) peerUpdateRefs(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	return s.peerRefUpdates(env, a, "dolt_peer_update_refs", versioning.PeerUpdateRefs)
}

// peerBackupUpdateRefs is dolt_peer_backup_update_refs(db, names, olds,
// news): a peer's backup sync, refs named as in a backup
// (versioning.PeerBackupUpdateRefs), with dolt_peer_update_refs's
// arguments and errors.
func (s *Session) peerBackupUpdateRefs(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	return s.peerRefUpdates(env, a, "dolt_peer_backup_update_refs", versioning.PeerBackupUpdateRefs)
}

// peerRefUpdates reads the ref updates of function fn's arguments (db,
// names, olds, news) and makes them with update.
func (s *Session) peerRefUpdates(env *exec.Env, a []exec.Datum, fn string,
	update func(context.Context, versioning.Store, string, []versioning.PeerRefUpdate) error) (exec.Datum, error) {
	if err := s.requireReplication(env.Ctx, fn); err != nil {
		return exec.Null, err
	}
	db := a[0].S
	if s.e.Replicated(db) {
		return exec.Null, pgerr.New(pgerr.ReadOnlySQLTransaction, "cannot update refs of database %q: it is a read replica", db)
	}
	names, olds, news := a[1].Array().Elems, a[2].Array().Elems, a[3].Array().Elems
	if len(olds) != len(names) || len(news) != len(names) {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "names, olds and news must have the same length")
	}
	updates := make([]versioning.PeerRefUpdate, len(names))
	for i := range names {
		u := &updates[i]
		u.Name = names[i].S
		for _, p := range []struct {
			d  exec.Datum
			to *versioning.Address
		}{{olds[i], &u.Old}, {news[i], &u.New}} {
			if p.d.IsNull() || p.d.S == "" {
				continue
			}
			ad, err := versioning.ParseAddress(p.d.S)
			if err != nil {
				return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "invalid hash %q", p.d.S)
			}
			*p.to = ad
		}
	}
	err := update(env.Ctx, s.e.st, db, updates)
	switch {
	case err == nil:
		return exec.DInt(int64(len(updates))), nil
	case errors.Is(err, versioning.ErrRefMoved):
		return exec.Null, pgerr.Wrap(err, pgerr.SerializationFailure, "%s", err)
	case errors.Is(err, versioning.ErrCollected):
		return exec.Null, pgerr.Wrap(err, pgerr.ForeignKeyViolation, "%s", err)
	case errors.Is(err, versioning.ErrBranchDirty):
		return exec.Null, pgerr.Wrap(err, pgerr.ObjectNotInPrerequisiteState, "%s", err)
	case errors.Is(err, versioning.ErrPeerRef):
		return exec.Null, pgerr.Wrap(err, pgerr.InvalidParameterValue, "%s", err)
	}
	return exec.Null, fmt.Errorf("%s: %w", fn, err)
}

// Replicated reports whether database db is a read replica's copy
// (StartReplica), which sessions read but do not write.
func (e *Engine) Replicated(db string) bool {
	_, ok := e.replicas.Load(db)
	return ok
}
