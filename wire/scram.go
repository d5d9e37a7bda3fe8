package wire

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"hash"
	"strconv"
	"strings"
)

// SCRAM-SHA-256 as PostgreSQL does it (RFC 5802, RFC 7677).
const (
	scramMechanism  = "SCRAM-SHA-256"
	scramPlus       = "SCRAM-SHA-256-PLUS"
	scramCBType     = "tls-server-end-point" // RFC 5929, the one PostgreSQL offers
	scramIterations = 4096                   // PostgreSQL's default scram_iterations
	scramSaltLen    = 16
	scramNonceLen   = 18 // raw bytes of the server's part of the nonce
)

var b64 = base64.StdEncoding

// scramVerifier is what the server keeps of a password: PostgreSQL's
// pg_authid.rolpassword "SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>".
type scramVerifier struct {
	iterations int
	salt       []byte
	storedKey  []byte
	serverKey  []byte
}

// SCRAMVerifier returns the SCRAM-SHA-256 verifier of password with a fresh
// random salt, in PostgreSQL's format. A PasswordFunc may return it instead
// of the password, so that the server never holds passwords.
func SCRAMVerifier(password string) (string, error) {
	v, err := newSCRAMVerifier(password, randomBytes(scramSaltLen), scramIterations)
	if err != nil {
		return "", err
	}
	return v.String(), nil
}

// newSCRAMVerifier derives the verifier of password.
func newSCRAMVerifier(password string, salt []byte, iterations int) (*scramVerifier, error) {
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return nil, err
	}
	clientKey := hmacSHA256(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	return &scramVerifier{
		iterations: iterations,
		salt:       salt,
		storedKey:  stored[:],
		serverKey:  hmacSHA256(salted, "Server Key"),
	}, nil
}

// String formats v as PostgreSQL stores it.
func (v *scramVerifier) String() string {
	return fmt.Sprintf("%s$%d:%s$%s:%s", scramMechanism, v.iterations,
		b64.EncodeToString(v.salt), b64.EncodeToString(v.storedKey), b64.EncodeToString(v.serverKey))
}

// parseSCRAMVerifier parses PostgreSQL's format; false when s is not one.
func parseSCRAMVerifier(s string) (*scramVerifier, bool) {
	rest, ok := strings.CutPrefix(s, scramMechanism+"$")
	if !ok {
		return nil, false
	}
	iterSalt, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return nil, false
	}
	iterStr, saltStr, ok1 := strings.Cut(iterSalt, ":")
	storedStr, serverStr, ok2 := strings.Cut(keys, ":")
	if !ok1 || !ok2 {
		return nil, false
	}
	iter, err := strconv.Atoi(iterStr)
	if err != nil || iter <= 0 {
		return nil, false
	}
	salt, err1 := b64.DecodeString(saltStr)
	stored, err2 := b64.DecodeString(storedStr)
	server, err3 := b64.DecodeString(serverStr)
	if err1 != nil || err2 != nil || err3 != nil || len(stored) != sha256.Size || len(server) != sha256.Size {
		return nil, false
	}
	return &scramVerifier{iterations: iter, salt: salt, storedKey: stored, serverKey: server}, true
}

// checkPassword reports whether password matches v (for cleartext
// authentication against a stored verifier).
func (v *scramVerifier) checkPassword(password string) bool {
	w, err := newSCRAMVerifier(password, v.salt, v.iterations)
	if err != nil {
		return false
	}
	return subtle.ConstantTimeCompare(w.storedKey, v.storedKey) == 1 &&
		subtle.ConstantTimeCompare(w.serverKey, v.serverKey) == 1
}

// scramExchange is the server side of one SCRAM-SHA-256 exchange.
type scramExchange struct {
	v    *scramVerifier
	mock bool // unknown user: go through the motions, then fail

	serverNonce string // set by tests; random otherwise

	// plus is set when the client chose SCRAM-SHA-256-PLUS, whose
	// channel binding (tls-server-end-point) is cbData, the hash of the
	// server's certificate; offered is set when the server offered it.
	plus, offered bool
	cbData        []byte

	gs2Header       string // "n,,", "y,," or "p=tls-server-end-point,,"
	clientFirstBare string
	serverFirst     string
	nonce           string // client's + server's
}

// scramMalformed is the report of a message that does not parse.
func scramMalformed(detail string) *Error {
	e := protocolError("malformed SCRAM message")
	e.Detail = detail
	return e
}

// clientFirst takes client-first-message and returns server-first-message.
func (x *scramExchange) clientFirst(msg []byte) (string, *Error) {
	s := string(msg)
	flag, rest, ok := strings.Cut(s, ",")
	if !ok {
		return "", scramMalformed("Unexpected channel-binding flag.")
	}
	switch {
	case x.plus:
		cbType, isP := strings.CutPrefix(flag, "p=")
		if !isP {
			return "", scramMalformed("The client selected SCRAM-SHA-256-PLUS, but the SCRAM message does not include channel binding data.")
		}
		if cbType != scramCBType {
			return "", protocolError("unsupported SCRAM channel-binding type %q", cbType)
		}
	case flag == "n":
	case flag == "y":
		// The client supports channel binding but thinks the server does
		// not: if it was offered, someone in between removed it.
		if x.offered {
			e := protocolError("SCRAM channel binding negotiation error")
			e.Detail = "The client supports SCRAM channel binding but thinks the server does not.  However, this server does support channel binding."
			return "", e
		}
	case strings.HasPrefix(flag, "p="):
		return "", scramMalformed("The client selected SCRAM-SHA-256 without channel binding, but the SCRAM message includes channel binding data.")
	default:
		return "", scramMalformed("Unexpected channel-binding flag.")
	}
	rest = "," + rest
	if strings.HasPrefix(rest, "a=") {
		return "", &Error{Severity: SeverityFatal, Code: CodeFeatureNotSupported,
			Message: "client uses authorization identity, but it is not supported"}
	}
	if !strings.HasPrefix(rest, ",,") {
		return "", scramMalformed("Unexpected attribute in client-first-message.")
	}
	x.gs2Header = flag + ",,"
	x.clientFirstBare = rest[2:]
	attrs := strings.Split(x.clientFirstBare, ",")
	if len(attrs) < 2 {
		return "", scramMalformed("Missing attributes in client-first-message.")
	}
	if strings.HasPrefix(attrs[0], "m=") {
		return "", &Error{Severity: SeverityFatal, Code: CodeFeatureNotSupported,
			Message: "client requires an unsupported SCRAM extension"}
	}
	if !strings.HasPrefix(attrs[0], "n=") {
		return "", scramMalformed("Expected attribute \"n\".")
	}
	// The user name in the SCRAM message is ignored, as PostgreSQL does:
	// the startup packet's user is authoritative.
	clientNonce, ok := strings.CutPrefix(attrs[1], "r=")
	if !ok || clientNonce == "" || !printable(clientNonce) {
		return "", scramMalformed("Expected a printable nonce in attribute \"r\".")
	}
	if x.serverNonce == "" {
		x.serverNonce = b64.EncodeToString(randomBytes(scramNonceLen))
	}
	x.nonce = clientNonce + x.serverNonce
	x.serverFirst = "r=" + x.nonce + ",s=" + b64.EncodeToString(x.v.salt) + ",i=" + strconv.Itoa(x.v.iterations)
	return x.serverFirst, nil
}

// clientFinal takes client-final-message and returns server-final-message.
// A proof that does not match is an error with SQLSTATE 28P01.
func (x *scramExchange) clientFinal(msg []byte) (string, *Error) {
	s := string(msg)
	cb, ok := strings.CutPrefix(s, "c=")
	if !ok {
		return "", scramMalformed("Expected attribute \"c\".")
	}
	i := strings.LastIndex(s, ",p=")
	if i < 0 {
		return "", scramMalformed("Could not find proof in client-final-message.")
	}
	withoutProof, proofB64 := s[:i], s[i+3:]
	attrs := strings.Split(withoutProof, ",")
	if len(attrs) < 2 {
		return "", scramMalformed("Missing attributes in client-final-message.")
	}
	cb = strings.TrimPrefix(attrs[0], "c=")
	gotCB, err := b64.DecodeString(cb)
	want := []byte(x.gs2Header)
	if x.plus {
		want = append(want, x.cbData...)
	}
	if err != nil || subtle.ConstantTimeCompare(gotCB, want) != 1 {
		return "", scramMalformed("SCRAM channel binding check failed.")
	}
	nonce, ok := strings.CutPrefix(attrs[1], "r=")
	if !ok || nonce != x.nonce {
		return "", scramMalformed("Nonce does not match.")
	}
	proof, err := b64.DecodeString(proofB64)
	if err != nil || len(proof) != sha256.Size {
		return "", scramMalformed("Malformed proof in client-final-message.")
	}
	if x.mock {
		return "", &Error{Severity: SeverityFatal, Code: CodeInvalidPassword, Message: "no such user"}
	}
	authMessage := x.clientFirstBare + "," + x.serverFirst + "," + withoutProof
	clientSig := hmacSHA256(x.v.storedKey, authMessage)
	clientKey := make([]byte, sha256.Size)
	subtle.XORBytes(clientKey, proof, clientSig)
	stored := sha256.Sum256(clientKey)
	if subtle.ConstantTimeCompare(stored[:], x.v.storedKey) != 1 {
		return "", &Error{Severity: SeverityFatal, Code: CodeInvalidPassword, Message: "password does not match"}
	}
	return "v=" + b64.EncodeToString(hmacSHA256(x.v.serverKey, authMessage)), nil
}

// printable reports whether s has only the characters RFC 5802 allows in
// a nonce: printable ASCII except ','.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e || s[i] == ',' {
			return false
		}
	}
	return true
}

// hmacSHA256 returns HMAC-SHA-256(key, msg).
func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// certificateHash is the tls-server-end-point channel binding of cfg's
// certificate (RFC 5929): its DER hashed with the hash of its signature
// algorithm, SHA-256 for MD5 and SHA-1. nil when there is no single fixed
// certificate, or its algorithm names no hash (Ed25519): then
// SCRAM-SHA-256-PLUS is not offered, as PostgreSQL cannot either.
func certificateHash(cfg *tls.Config) []byte {
	if cfg == nil || len(cfg.Certificates) != 1 || cfg.GetCertificate != nil || len(cfg.Certificates[0].Certificate) == 0 {
		return nil
	}
	der := cfg.Certificates[0].Certificate[0]
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil
	}
	var h hash.Hash
	switch cert.SignatureAlgorithm {
	case x509.MD5WithRSA, x509.SHA1WithRSA, x509.ECDSAWithSHA1, x509.DSAWithSHA1,
		x509.SHA256WithRSA, x509.SHA256WithRSAPSS, x509.ECDSAWithSHA256, x509.DSAWithSHA256:
		h = sha256.New()
	case x509.SHA384WithRSA, x509.SHA384WithRSAPSS, x509.ECDSAWithSHA384:
		h = sha512.New384()
	case x509.SHA512WithRSA, x509.SHA512WithRSAPSS, x509.ECDSAWithSHA512:
		h = sha512.New()
	default:
		return nil
	}
	h.Write(der)
	return h.Sum(nil)
}

// randomBytes returns n bytes from crypto/rand.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b) // never fails (Go 1.24+)
	return b
}
