package exec

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/prollypg/prollypg/prolly/sortkey"
)

// randomKeyArray returns an int4 or text array with NULL elements now and
// then, and now and then two dimensions or another lower bound.
func randomKeyArray(r *rand.Rand, text bool) Datum {
	n := r.IntN(4)
	elems := make([]Datum, n)
	hasNull := false
	for i := range elems {
		switch {
		case r.IntN(6) == 0:
			elems[i], hasNull = Null, true
		case text:
			elems[i] = DText(string([]byte{'a' + byte(r.IntN(3)), 'a' + byte(r.IntN(3))}[:1+r.IntN(2)]))
		default:
			elems[i] = DInt(int64(r.IntN(5) - 2))
		}
	}
	elem := uint32(OIDInt4)
	if text {
		elem = OIDText
	}
	a := &Array{Elem: elem, Elems: elems, HasNul: hasNull}
	if n > 0 {
		a.Dims, a.Lower = []int32{int32(n)}, []int32{1}
		if n == 2 && r.IntN(3) == 0 {
			a.Dims, a.Lower = []int32{1, 2}, []int32{1, 1}
		}
		if r.IntN(5) == 0 {
			a.Lower[0] = int32(r.IntN(3) - 1)
		}
	}
	return DArray(a)
}

// TestArrayKeyOrder: array keys compare bytewise as PostgreSQL compares the
// arrays (compareArray), in both directions, equal arrays encode alike,
// and a key decodes to the array it encodes.
func TestArrayKeyOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, text := range []bool{false, true} {
		typ := T{OID: OIDInt4Array, Typmod: -1}
		if text {
			typ = T{OID: OIDTextArray, Typmod: -1}
		}
		for i := 0; i < 5000; i++ {
			x, y := randomKeyArray(r, text), randomKeyArray(r, text)
			for _, o := range []sortkey.Order{sortkey.Asc, sortkey.Desc} {
				kx, err := appendKey(nil, typ, x, o)
				if err != nil {
					t.Fatal(err)
				}
				ky, err := appendKey(nil, typ, y, o)
				if err != nil {
					t.Fatal(err)
				}
				want := compareArray(x.Array(), y.Array())
				if o == sortkey.Desc {
					want = -want
				}
				if got := bytes.Compare(kx, ky); got != want {
					t.Fatalf("%s vs %s (order %v): keys compare %d, arrays %d", formatArrayForTest(x), formatArrayForTest(y), o, got, want)
				}
				d, rest, err := decodeKeyColumn(kx, typ, o)
				if err != nil || len(rest) != 0 || compareArray(d.Array(), x.Array()) != 0 {
					t.Fatalf("%s decodes to %v, %v (rest %d)", formatArrayForTest(x), d, err, len(rest))
				}
			}
		}
	}
}

func formatArrayForTest(d Datum) string {
	return string(AppendText(nil, T{OID: OIDTextArray}, d, nil))
}

// FuzzArrayKey: decoding any bytes as an array key fails or yields an
// array that encodes back to the bytes consumed; it never panics.
func FuzzArrayKey(f *testing.F) {
	typ := T{OID: OIDTextArray, Typmod: -1}
	k, _ := appendKey(nil, typ, NewArray(OIDText, []Datum{DText("a"), Null}), sortkey.Asc)
	f.Add(k)
	f.Add([]byte{0x18, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		d, rest, err := decodeKeyColumn(b, typ, sortkey.Asc)
		if err != nil || d.IsNull() {
			return
		}
		again, err := appendKey(nil, typ, d, sortkey.Asc)
		if err != nil || !bytes.Equal(again, b[:len(b)-len(rest)]) {
			t.Fatalf("%x decodes to %s, which encodes to %x (%v)", b, formatArrayForTest(d), again, err)
		}
	})
}
