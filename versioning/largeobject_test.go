package versioning

import (
	"bytes"
	"context"
	"math/rand"
	"testing"

	"github.com/prollypg/prollypg/store"
)

// TestLargeObjectPages checks a large object's paged bytes against a plain
// byte slice over random writes (past the end too, leaving holes),
// truncations and reads: what Read gives, and that the stored pages hold
// the bytes PostgreSQL's pg_largeobject would, none longer than a page.
func TestLargeObjectPages(t *testing.T) {
	ctx := context.Background()
	cs := store.NewMemory()
	rng := rand.New(rand.NewSource(1))
	lo := &LargeObject{OID: 1}
	var model []byte
	for step := 0; step < 400; step++ {
		var err error
		switch op := rng.Intn(10); {
		case op < 6:
			off := int64(rng.Intn(len(model) + 3*LargeObjectPage))
			data := make([]byte, rng.Intn(3*LargeObjectPage)+1)
			rng.Read(data)
			if lo, err = lo.Write(ctx, cs, off, data); err != nil {
				t.Fatal(err)
			}
			if end := off + int64(len(data)); end > int64(len(model)) {
				model = append(model, make([]byte, end-int64(len(model)))...)
			}
			copy(model[off:], data)
		case op < 8:
			n := int64(rng.Intn(len(model) + LargeObjectPage))
			if lo, err = lo.Truncate(ctx, cs, n); err != nil {
				t.Fatal(err)
			}
			if n <= int64(len(model)) {
				model = model[:n]
			} else {
				model = append(model, make([]byte, n-int64(len(model)))...)
			}
		default:
			off, n := int64(rng.Intn(len(model)+10)), int64(rng.Intn(3*LargeObjectPage))
			got, err := lo.Read(ctx, cs, off, n)
			if err != nil {
				t.Fatal(err)
			}
			want := []byte{}
			if off < int64(len(model)) {
				want = model[off:min(int64(len(model)), off+n)]
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("step %d: Read(%d, %d) = %d bytes, want %d", step, off, n, len(got), len(want))
			}
		}
		if lo.Size != int64(len(model)) {
			t.Fatalf("step %d: size %d, want %d", step, lo.Size, len(model))
		}
	}
	all, err := lo.Read(ctx, cs, 0, lo.Size)
	if err != nil || !bytes.Equal(all, model) {
		t.Fatalf("whole object: %d bytes (%v), want %d", len(all), err, len(model))
	}
	err = lo.EachPage(ctx, cs, func(n int64, page []byte) error {
		start := n * LargeObjectPage
		if len(page) > LargeObjectPage || start+int64(len(page)) > lo.Size || !bytes.Equal(page, model[start:start+int64(len(page))]) {
			t.Errorf("page %d: %d bytes, not the object's", n, len(page))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
