package types

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"net/netip"
	"testing"
)

// checkInetRoundTrip checks that v prints and reads back, in text and in
// binary, and that its key decodes to it.
func checkInetRoundTrip(t *testing.T, v Inet, cidr bool) {
	t.Helper()
	out := AppendInet(nil, v, cidr)
	if v2, err := ParseInet(string(out), cidr); err != nil || v2 != v {
		t.Fatalf("inet %v (cidr %v): %q reads back as %v, %v", v, cidr, out, v2, err)
	}
	if v2, err := ParseInetBinary(AppendInetBinary(nil, v, cidr), cidr); err != nil || v2 != v {
		t.Fatalf("inet %v: binary round trip gives %v, %v", v, v2, err)
	}
	if v2, err := InetFromKey(InetKey(v)); err != nil || v2 != v {
		t.Fatalf("inet %v: key round trip gives %v, %v", v, v2, err)
	}
}

// networkCmp is PostgreSQL's network_cmp_internal, written from its
// definition: family, then the bits both networks have, then the mask
// length, then the whole address.
func networkCmp(a, b Inet) int {
	if a.Family() != b.Family() {
		return cmp.Compare(a.Family(), b.Family())
	}
	bitAt := func(v Inet, i int) byte {
		s := v.Addr.AsSlice()
		return s[i/8] >> (7 - i%8) & 1
	}
	for i := range min(a.Bits, b.Bits) {
		if c := cmp.Compare(bitAt(a, i), bitAt(b, i)); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(a.Bits, b.Bits); c != 0 {
		return c
	}
	return bytes.Compare(a.Addr.AsSlice(), b.Addr.AsSlice())
}

// TestInetKeyOrder checks that the bytes a Datum of inet holds sort as
// PostgreSQL orders the values, which makes Compare and index keys right.
func TestInetKeyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	random := func() Inet {
		if rng.IntN(4) == 0 {
			var b [16]byte
			for i := range b {
				b[i] = byte(rng.IntN(3)) // few distinct bits: many shared prefixes
			}
			return Inet{Addr: netip.AddrFrom16(b), Bits: rng.IntN(129)}
		}
		b := [4]byte{10, byte(rng.IntN(3)), byte(rng.IntN(256)), byte(rng.IntN(4))}
		return Inet{Addr: netip.AddrFrom4(b), Bits: rng.IntN(33)}
	}
	for range 20000 {
		a, b := random(), random()
		want := networkCmp(a, b)
		if got := cmp.Compare(InetKey(a), InetKey(b)); got != want {
			t.Fatalf("%v vs %v: keys compare %d, network_cmp %d", a, b, got, want)
		}
		checkInetRoundTrip(t, a, false)
		checkInetRoundTrip(t, a.Network(), true)
	}
}
