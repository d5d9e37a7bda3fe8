package funcs

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// pgcrypto's hashing functions, which CREATE EXTENSION pgcrypto finds
// built in (planner/ddl/extension.go): digest, hmac and gen_random_bytes,
// with pgcrypto's algorithm names, errors and SQLSTATEs; its password
// hashing is in pgcrypto_crypt.go. Not provided: the PGP and raw
// encryption functions.

// digestHashes are the algorithms digest and hmac take, by lower-case
// name (pgcrypto matches them case-insensitively).
var digestHashes = map[string]func() hash.Hash{
	"md5":    md5.New,
	"sha1":   sha1.New,
	"sha224": sha256.New224,
	"sha256": sha256.New,
	"sha384": sha512.New384,
	"sha512": sha512.New,
}

// digestHash returns the algorithm name names, or pgcrypto's error.
func digestHash(name string) (func() hash.Hash, error) {
	if h, ok := digestHashes[strings.ToLower(name)]; ok {
		return h, nil
	}
	return nil, pgerr.New(pgerr.InvalidParameterValue, "Cannot use %q: No such hash algorithm", name)
}

// maxRandomBytes is pgcrypto's bound on gen_random_bytes.
const maxRandomBytes = 1024

func registerPgcrypto() {
	for _, data := range []uint32{exec.OIDText, exec.OIDBytea} {
		strFn("digest", []uint32{data, exec.OIDText}, exec.OIDBytea, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			h, err := digestHash(a[1].S)
			if err != nil {
				return exec.Null, err
			}
			d := h()
			d.Write([]byte(a[0].S))
			return exec.DBytes(string(d.Sum(nil))), nil
		})
		strFn("hmac", []uint32{data, data, exec.OIDText}, exec.OIDBytea, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			h, err := digestHash(a[2].S)
			if err != nil {
				return exec.Null, err
			}
			m := hmac.New(h, []byte(a[1].S))
			m.Write([]byte(a[0].S))
			return exec.DBytes(string(m.Sum(nil))), nil
		})
	}
	// Volatile: each call draws anew.
	exec.Register(&exec.Func{Name: "gen_random_bytes", Args: []uint32{exec.OIDInt4}, Ret: exec.OIDBytea, Strict: true,
		Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			n := a[0].I
			if n < 1 || n > maxRandomBytes {
				return exec.Null, pgerr.New(pgerr.Code("39000"), "Length not in range")
			}
			b := make([]byte, n)
			if _, err := rand.Read(b); err != nil {
				return exec.Null, fmt.Errorf("gen_random_bytes: %w", err)
			}
			return exec.DBytes(string(b)), nil
		}})
}
