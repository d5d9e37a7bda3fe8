package funcs

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/blowfish"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// pgcrypto's password hashing: crypt(password, salt) and gen_salt(type
// [, rounds]), for the two algorithms applications store passwords with,
// in pgcrypto's formats: Blowfish ("bf", "$2a$NN$" and 22 characters of
// salt, 60 characters in all) and MD5 ("md5", "$1$" and up to 8).
// crypt hashes with the salt and cost it is given, which is how a stored
// hash is checked: crypt(entered, stored) = stored. Not provided: the
// DES-based algorithms ("des", "xdes"), which crypt picks for any other
// salt (a "$2b$" or "$2y$" salt among them, as pgcrypto does); they give
// 0A000.

// bcryptEncoding is bcrypt's base64 alphabet, unpadded.
var bcryptEncoding = base64.NewEncoding("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789").WithPadding(base64.NoPadding)

// md5CryptAlphabet is the alphabet of MD5 crypt's salts and hashes.
const md5CryptAlphabet = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// bcryptMinCost and bcryptMaxCost bound a Blowfish salt's cost, the
// base-2 logarithm of its key expansions; bcryptDefaultCost is gen_salt's.
const (
	bcryptMinCost     = 4
	bcryptMaxCost     = 31
	bcryptDefaultCost = 6
)

func registerPgcryptoCrypt() {
	strFn("crypt", []uint32{exec.OIDText, exec.OIDText}, exec.OIDText, func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		h, err := crypt(env.Ctx, a[0].S, a[1].S)
		if err != nil {
			return exec.Null, err
		}
		return exec.DText(h), nil
	})
	// Volatile: each call draws a new salt.
	for _, args := range [][]uint32{{exec.OIDText}, {exec.OIDText, exec.OIDInt4}} {
		exec.Register(&exec.Func{Name: "gen_salt", Args: args, Ret: exec.OIDText, Strict: true,
			Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
				rounds := int64(-1)
				if len(a) > 1 {
					rounds = a[1].I
				}
				s, err := genSalt(a[0].S, rounds)
				if err != nil {
					return exec.Null, err
				}
				return exec.DText(s), nil
			}})
	}
}

var errInvalidSalt = pgerr.New(pgerr.InvalidParameterValue, "invalid salt")

// crypt is pgcrypto's crypt: the algorithm is the salt's.
func crypt(ctx context.Context, password, salt string) (string, error) {
	switch {
	case strings.HasPrefix(salt, "$2a$"):
		return bcryptCrypt(ctx, password, salt)
	case strings.HasPrefix(salt, "$1$"):
		return md5Crypt(password, salt[len("$1$"):]), nil
	case len(salt) < 2:
		return "", errInvalidSalt
	}
	return "", pgerr.New(pgerr.FeatureNotSupported, "crypt: DES-based salts are not supported").
		WithHint("Use gen_salt('bf') or gen_salt('md5').")
}

// bcryptCrypt hashes password with the Blowfish salt "$2a$NN$" + 22
// characters: the key (the password and a NUL, of which the first 72
// bytes count) and the salt are expanded into the cipher 2^NN times, and
// the cipher then encrypts "OrpheanBeholderScryDoubt" 64 times. The salt
// is given back as its 16 bytes encode, so a salt whose last character
// carries bits that do not fit prints as the one it stands for.
func bcryptCrypt(ctx context.Context, password, salt string) (string, error) {
	if len(salt) < 29 || salt[6] != '$' || salt[4] < '0' || salt[4] > '9' || salt[5] < '0' || salt[5] > '9' {
		return "", errInvalidSalt
	}
	cost := int(salt[4]-'0')*10 + int(salt[5]-'0')
	if cost < bcryptMinCost || cost > bcryptMaxCost {
		return "", errInvalidSalt
	}
	saltBytes, err := bcryptEncoding.DecodeString(salt[7:29])
	if err != nil || len(saltBytes) != 16 {
		return "", errInvalidSalt
	}
	key := append([]byte(password), 0)
	if len(key) > 72 {
		key = key[:72]
	}
	c, err := blowfish.NewSaltedCipher(key, saltBytes)
	if err != nil {
		return "", fmt.Errorf("crypt: %w", err)
	}
	for i := uint64(0); i < 1<<cost; i++ {
		if i%1024 == 0 && ctx != nil && ctx.Err() != nil {
			return "", ctx.Err()
		}
		blowfish.ExpandKey(key, c)
		blowfish.ExpandKey(saltBytes, c)
	}
	text := []byte("OrpheanBeholderScryDoubt")
	for i := 0; i < len(text); i += 8 {
		for range 64 {
			c.Encrypt(text[i:i+8], text[i:i+8])
		}
	}
	return salt[:7] + bcryptEncoding.EncodeToString(saltBytes) + bcryptEncoding.EncodeToString(text[:23]), nil
}

// md5Crypt is the MD5-based crypt of FreeBSD, "$1$" salt "$" hash: salt
// is what follows "$1$", of which up to 8 characters before a '$' count.
func md5Crypt(password, salt string) string {
	if i := strings.IndexByte(salt, '$'); i >= 0 {
		salt = salt[:i]
	}
	if len(salt) > 8 {
		salt = salt[:8]
	}
	alt := md5.Sum([]byte(password + salt + password))
	h := md5.New()
	h.Write([]byte(password + "$1$" + salt))
	for n := len(password); n > 0; n -= 16 {
		h.Write(alt[:min(n, 16)])
	}
	for n := len(password); n > 0; n >>= 1 {
		if n&1 != 0 {
			h.Write([]byte{0})
		} else {
			h.Write([]byte(password[:1]))
		}
	}
	var sum [md5.Size]byte
	h.Sum(sum[:0])
	for i := range 1000 {
		h.Reset()
		if i&1 != 0 {
			h.Write([]byte(password))
		} else {
			h.Write(sum[:])
		}
		if i%3 != 0 {
			h.Write([]byte(salt))
		}
		if i%7 != 0 {
			h.Write([]byte(password))
		}
		if i&1 != 0 {
			h.Write(sum[:])
		} else {
			h.Write([]byte(password))
		}
		h.Sum(sum[:0])
	}
	out := []byte("$1$" + salt + "$")
	put := func(v uint32, n int) {
		for ; n > 0; n-- {
			out = append(out, md5CryptAlphabet[v&0x3f])
			v >>= 6
		}
	}
	for _, g := range [][3]int{{0, 6, 12}, {1, 7, 13}, {2, 8, 14}, {3, 9, 15}, {4, 10, 5}} {
		put(uint32(sum[g[0]])<<16|uint32(sum[g[1]])<<8|uint32(sum[g[2]]), 4)
	}
	put(uint32(sum[11]), 2)
	return string(out)
}

// genSalt is gen_salt: a new random salt of the algorithm named (in any
// case), with rounds (-1: the default) for Blowfish's cost; MD5's are
// fixed at 1000.
func genSalt(kind string, rounds int64) (string, error) {
	errRounds := pgerr.New(pgerr.InvalidParameterValue, "gen_salt: Incorrect number of rounds")
	switch strings.ToLower(kind) {
	case "bf":
		if rounds == -1 {
			rounds = bcryptDefaultCost
		}
		if rounds < bcryptMinCost || rounds > bcryptMaxCost {
			return "", errRounds
		}
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", fmt.Errorf("gen_salt: %w", err)
		}
		cost := strconv.FormatInt(rounds, 10)
		if rounds < 10 {
			cost = "0" + cost
		}
		return "$2a$" + cost + "$" + bcryptEncoding.EncodeToString(b[:]), nil
	case "md5":
		if rounds != -1 && rounds != 1000 {
			return "", errRounds
		}
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", fmt.Errorf("gen_salt: %w", err)
		}
		for i := range b {
			b[i] = md5CryptAlphabet[b[i]&0x3f]
		}
		return "$1$" + string(b[:]), nil
	case "des", "xdes":
		return "", pgerr.New(pgerr.FeatureNotSupported, "gen_salt: %s salts are not supported", strings.ToLower(kind)).
			WithHint("Use gen_salt('bf') or gen_salt('md5').")
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "gen_salt: Unknown salt algorithm")
}
