package prolly

import (
	"context"
	"fmt"
	"testing"

	"github.com/prollypg/prollypg/store"
)

// goldenRoot pins the node format, the chunker and the hash: if it changes,
// every stored map changes address, and the format version must change too.
const goldenRoot = "dlhs0k1ag3meoo9tdqe8hea7ejvp5g31"

func TestGoldenRoot(t *testing.T) {
	ctx := context.Background()
	b := NewBuilder(store.NewMemory())
	for i := 0; i < 20000; i++ {
		val := []byte(fmt.Sprintf("value %d", i*i))
		if i%1000 == 7 {
			val = make([]byte, MaxInlineValue+i) // a few out-of-line values
			val[0] = byte(i)
		}
		if err := b.Add(ctx, []byte(fmt.Sprintf("key%08d", i)), val); err != nil {
			t.Fatal(err)
		}
	}
	m, err := b.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Root().String(); got != goldenRoot {
		t.Fatalf("root of the golden map is %s, want %s: the storage format changed", got, goldenRoot)
	}
}

// FuzzNodeDecode feeds arbitrary bytes to the node decoder: it must never
// panic, and every accessor of a node that validates must stay in bounds.
func FuzzNodeDecode(f *testing.F) {
	ctx := context.Background()
	cs := store.NewMemory()
	for _, n := range []int{0, 1, 3, 40} {
		b := NewBuilder(cs)
		for i := 0; i < n; i++ {
			_ = b.Add(ctx, []byte(fmt.Sprintf("k%03d", i)), []byte(fmt.Sprintf("v%d", i)))
		}
		m, err := b.Finish(ctx)
		if err != nil {
			f.Fatal(err)
		}
		data, _ := cs.Get(ctx, m.Root())
		f.Add(data)
	}
	f.Add([]byte{nodeMagic, 1, 1, 0, 1, 0, 1, 0, childRefSize, 0, 'k'})
	f.Fuzz(func(t *testing.T, data []byte) {
		nd, err := validateNode(data)
		if err != nil {
			return
		}
		for i := 0; i < nd.n; i++ {
			_ = nd.key(i)
			if _, blob := nd.value(i); blob && nd.leaf() {
				v, _ := nd.value(i)
				_ = validBlobRef(v)
			}
			if !nd.leaf() {
				_, _ = nd.child(i)
			}
		}
		_ = nd.treeCount()
		_ = nd.search([]byte("k"))
	})
}
