package types

import (
	"bytes"
	"testing"
)

// FuzzTimeTZ parses arbitrary text as time with time zone: whatever parses
// prints and parses back to the same value; its binary form and its key
// round-trip; keys order as CompareTimeTZ does. Nothing may panic.
func FuzzTimeTZ(f *testing.F) {
	for _, s := range []string{"11:00 BST", "12:00:01.5+05:30", "allballs", "2003-07-01 13:00 America/New_York",
		"24:00:00-15:59:59", "10:00 EST5EDT", "04:05:06.789-8", "T040506", "1:2:3 pm -03"} {
		f.Add(uint8(0), s, []byte{})
	}
	f.Fuzz(func(t *testing.T, sel uint8, s string, raw []byte) {
		st := fuzzSettings[int(sel)%len(fuzzSettings)]
		if _, err := ParseTimeTZBinary(raw, -1); err == nil {
			v, _ := ParseTimeTZBinary(raw, -1)
			if !bytes.Equal(AppendTimeTZBinary(nil, v), raw) {
				t.Fatalf("binary %x does not round-trip", raw)
			}
		}
		v, err := ParseTimeTZ(s, int32(sel%8)-1, st)
		if err != nil || v.Zone <= -16*3600 || v.Zone >= 16*3600 {
			return // PostgreSQL prints zones past 15:59:59 it cannot read back
		}
		out := AppendTimeTZ(nil, v)
		v2, err := ParseTimeTZ(string(out), -1, st)
		if err != nil || v2 != v {
			t.Fatalf("%q -> %q -> %v, %v (want %v)", s, out, v2, err, v)
		}
		if v3, err := ParseTimeTZBinary(AppendTimeTZBinary(nil, v), -1); err != nil || v3 != v {
			t.Fatalf("%q: binary round trip gives %v, %v", s, v3, err)
		}
		k := AppendTimeTZKey(nil, v)
		if v4, err := TimeTZFromKey(k); err != nil || v4 != v {
			t.Fatalf("%q: key round trip gives %v, %v", s, v4, err)
		}
		other := TimeTZ{Time: Time(int64(sel) * 3600e6 % usecsPerDay), Zone: int32(sel%31-15) * 3600}
		if got, want := bytes.Compare(k, AppendTimeTZKey(nil, other)), CompareTimeTZ(v, other); got != want {
			t.Fatalf("%v vs %v: keys order %d, values %d", v, other, got, want)
		}
	})
}
