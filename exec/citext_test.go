package exec

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"testing"

	"github.com/prollypg/prollypg/prolly/sortkey"
)

// TestCITextKeyOrder checks that citext's index keys agree with its
// comparison: for random strings of mixed case (ASCII, accented and
// Greek letters, punctuation), in both key orders, the keys' byte order
// is Compare's order, equal keys are exactly the values Compare calls
// equal, and so are equal hash keys; a citext[] key orders as its
// arrays compare. A unique index whose keys kept the case would let
// 'A' and 'a' in side by side, and a lookup by one miss the other.
func TestCITextKeyOrder(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	alphabet := []string{"a", "A", "b", "B", "z", "Z", "é", "É", "σ", "Σ", "@", ".", " ", "_", "0"}
	str := func() string {
		var b []byte
		for n := r.IntN(5); n > 0; n-- {
			b = append(b, alphabet[r.IntN(len(alphabet))]...)
		}
		return string(b)
	}
	ct := T{OID: OIDCIText, Typmod: -1}
	arr := ArrayType(ct)
	sign := func(c int) int { return cmp.Compare(c, 0) }
	for i := 0; i < 20000; i++ {
		a, b := DCIText(str()), DCIText(str())
		want := sign(Compare(a, b))
		for _, o := range []sortkey.Order{sortkey.Asc, sortkey.Desc} {
			ka, err := appendKey(nil, ct, a, o)
			if err != nil {
				t.Fatal(err)
			}
			kb, err := appendKey(nil, ct, b, o)
			if err != nil {
				t.Fatal(err)
			}
			got := sign(bytes.Compare(ka, kb))
			if o == sortkey.Desc {
				got = -got
			}
			if got != want {
				t.Fatalf("%q vs %q: keys (order %v) compare %d, values %d", a.S, b.S, o, got, want)
			}
		}
		if ha, hb := appendHashKey(nil, a), appendHashKey(nil, b); bytes.Equal(ha, hb) != (want == 0) {
			t.Fatalf("%q vs %q: hash keys equal %v, values compare %d", a.S, b.S, bytes.Equal(ha, hb), want)
		}
		xa := DArray(&Array{Elem: OIDCIText, Dims: []int32{2}, Lower: []int32{1}, Elems: []Datum{a, DCIText("x")}})
		xb := DArray(&Array{Elem: OIDCIText, Dims: []int32{2}, Lower: []int32{1}, Elems: []Datum{b, DCIText("X")}})
		ka, err := appendKey(nil, arr, xa, sortkey.Asc)
		if err != nil {
			t.Fatal(err)
		}
		kb, err := appendKey(nil, arr, xb, sortkey.Asc)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := sign(bytes.Compare(ka, kb)), sign(Compare(xa, xb)); got != want {
			t.Fatalf("{%q,x} vs {%q,X}: keys compare %d, values %d", a.S, b.S, got, want)
		}
	}
}

// TestCITextCasts checks the conversions between citext and text: the
// Datum changes kind, so that what compares it afterwards compares as
// its new type does.
func TestCITextCasts(t *testing.T) {
	toText := CastFn(TCIText, TText, false)
	d, err := toText(nil, []Datum{DCIText("AbC")})
	if err != nil || d.Kind != KindText || d.S != "AbC" {
		t.Errorf("citext to text = %+v, %v", d, err)
	}
	toCI := CastFn(T{OID: OIDBpchar, Typmod: 8}, TCIText, false)
	d, err = toCI(nil, []Datum{DText("ab  ")})
	if err != nil || d.Kind != KindCIText || d.S != "ab" {
		t.Errorf("char(4) to citext = %+v, %v", d, err)
	}
	if CanCoerce(OIDText, OIDCIText) || !CanCoerce(OIDCIText, OIDText) || !CanCoerce(OIDCIText, OIDVarchar) || CanCoerce(OIDCIText, OIDBpchar) {
		t.Error("citext's implicit casts are not pg_cast's: citext to text and varchar only")
	}
}
