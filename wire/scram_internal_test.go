package wire

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestSCRAMVector runs the server side of the example exchange of RFC 7677
// section 3 (user "user", password "pencil").
func TestSCRAMVector(t *testing.T) {
	salt, _ := base64.StdEncoding.DecodeString("W22ZaJ0SNY7soEsUEjb6gQ==")
	v, err := newSCRAMVerifier("pencil", salt, 4096)
	if err != nil {
		t.Fatal(err)
	}
	x := &scramExchange{v: v, serverNonce: "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"}
	first, werr := x.clientFirst([]byte("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"))
	if werr != nil {
		t.Fatal(werr)
	}
	if want := "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"; first != want {
		t.Fatalf("server-first %q, want %q", first, want)
	}
	final, werr := x.clientFinal([]byte("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="))
	if werr != nil {
		t.Fatal(werr)
	}
	if want := "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="; final != want {
		t.Fatalf("server-final %q, want %q", final, want)
	}

	// The same proof against another password fails with 28P01.
	w, _ := newSCRAMVerifier("pencil2", salt, 4096)
	x = &scramExchange{v: w, serverNonce: "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"}
	x.clientFirst([]byte("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"))
	if _, werr := x.clientFinal([]byte("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")); werr == nil || werr.Code != CodeInvalidPassword {
		t.Fatalf("wrong password: %v", werr)
	}
}

func TestSCRAMVerifierFormat(t *testing.T) {
	s, err := SCRAMVerifier("pencil")
	if err != nil {
		t.Fatal(err)
	}
	v, ok := parseSCRAMVerifier(s)
	if !ok || v.String() != s || v.iterations != 4096 || len(v.salt) != 16 {
		t.Fatalf("round trip of %q: %v %v", s, v, ok)
	}
	if !v.checkPassword("pencil") || v.checkPassword("pencil ") {
		t.Fatal("checkPassword")
	}
	// A verifier in the shape PostgreSQL stores (24-character salt, 44-character keys).
	pg := "SCRAM-SHA-256$4096:yTLQYxYbOsPyDXS6sCdmnQ==$x+zB4a0OSV7R1BWRH+NU0zBgzqjDFzmNsLwTdy4AeJc=:gVK5DmmTNM4tANZkqaOP86W3Ik/cTVcMdtL9ZXcLB0I="
	v, ok = parseSCRAMVerifier(pg)
	if !ok {
		t.Fatal("PostgreSQL's verifier does not parse")
	}
	for _, bad := range []string{"", "md5abc", "SCRAM-SHA-256$x:yy$zz:ww", "SCRAM-SHA-256$4096:c2FsdA==$AAAA:AAAA"} {
		if _, ok := parseSCRAMVerifier(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestSCRAMMalformed(t *testing.T) {
	v, _ := newSCRAMVerifier("pw", []byte("0123456789abcdef"), 4096)
	for _, msg := range []string{"", "x", "p=tls-server-end-point,,n=,r=abc", "n,a=admin,n=,r=abc", "n,,m=ext,n=,r=abc",
		"n,,n=", "n,,n=,r=", "n,,n=,r=a\x01b", "n,,r=abc", "n,x"} {
		x := &scramExchange{v: v}
		if _, err := x.clientFirst([]byte(msg)); err == nil {
			t.Errorf("client-first %q accepted", msg)
		}
	}
	for _, msg := range []string{"", "c=biws", "c=biws,r=abcSERVER", "c=eSws,r=abcSERVER,p=AAAA", "c=biws,r=wrong,p=" +
		base64.StdEncoding.EncodeToString(make([]byte, 32)), "c=biws,r=abcSERVER,p=!!"} {
		x := &scramExchange{v: v, serverNonce: "SERVER"}
		x.clientFirst([]byte("n,,n=,r=abc"))
		if _, err := x.clientFinal([]byte(msg)); err == nil || err.Code == "" {
			t.Errorf("client-final %q accepted", msg)
		}
	}
}

// TestSCRAMChannelBinding: with SCRAM-SHA-256-PLUS the client-final
// message must carry the GS2 header and the certificate hash; a client
// that claims the server offers no binding when it did is refused.
func TestSCRAMChannelBinding(t *testing.T) {
	salt, _ := base64.StdEncoding.DecodeString("W22ZaJ0SNY7soEsUEjb6gQ==")
	v, _ := newSCRAMVerifier("pencil", salt, 4096)
	cb := []byte("certificate hash")
	header := "p=tls-server-end-point,,"
	b64 := base64.StdEncoding.EncodeToString

	x := &scramExchange{v: v, serverNonce: "S", plus: true, offered: true, cbData: cb}
	if _, err := x.clientFirst([]byte(header + "n=,r=C")); err != nil {
		t.Fatal(err)
	}
	if _, err := x.clientFinal([]byte("c=" + b64([]byte(header)) + ",r=CS,p=" + b64(make([]byte, 32)))); err == nil || err.Detail != "SCRAM channel binding check failed." {
		t.Errorf("binding without the certificate hash: %v", err)
	}
	// The right binding gets as far as the proof (a made-up one).
	x = &scramExchange{v: v, serverNonce: "S", plus: true, offered: true, cbData: cb}
	x.clientFirst([]byte(header + "n=,r=C"))
	if _, err := x.clientFinal([]byte("c=" + b64(append([]byte(header), cb...)) + ",r=CS,p=" + b64(make([]byte, 32)))); err == nil || err.Code != CodeInvalidPassword {
		t.Errorf("right binding, wrong proof: %v, want 28P01", err)
	}

	for _, tc := range []struct {
		plus, offered bool
		first, want   string
	}{
		{true, true, "n,,n=,r=C", "does not include channel binding data"},
		{true, true, "p=tls-unique,,n=,r=C", `unsupported SCRAM channel-binding type "tls-unique"`},
		{false, true, "y,,n=,r=C", "SCRAM channel binding negotiation error"},
		{false, false, "y,,n=,r=C", ""},
		{false, true, "p=tls-server-end-point,,n=,r=C", "includes channel binding data"},
	} {
		x := &scramExchange{v: v, serverNonce: "S", plus: tc.plus, offered: tc.offered, cbData: cb}
		_, err := x.clientFirst([]byte(tc.first))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.first, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Message+" "+err.Detail, tc.want)):
			t.Errorf("%q: %v, want %q", tc.first, err, tc.want)
		}
	}
}
