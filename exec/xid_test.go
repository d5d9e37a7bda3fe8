package exec

import (
	"testing"
	"time"
)

// TestXIDs checks the transaction id allocator: ids increase, a new
// allocator (a restarted server) draws above the ids an earlier one gave
// out, and the outcomes are kept for txid_status.
func TestXIDs(t *testing.T) {
	x := NewXIDs()
	a, b := x.draw(), x.draw()
	if b <= a {
		t.Fatalf("ids %d then %d, want increasing", a, b)
	}
	time.Sleep(2 * time.Microsecond)
	if c := NewXIDs().draw(); c <= b {
		t.Errorf("a new allocator drew %d, not above %d", c, b)
	}
	if s, ok, future := x.Status(a); !ok || future || s != "in progress" {
		t.Errorf("status of a running id = %q, %v, %v", s, ok, future)
	}
	x.end(a, true)
	x.end(b, false)
	for id, want := range map[int64]string{a: "committed", b: "aborted"} {
		if s, ok, _ := x.Status(id); !ok || s != want {
			t.Errorf("status(%d) = %q, %v; want %q", id, s, ok, want)
		}
	}
	if _, _, future := x.Status(b + 1); !future {
		t.Errorf("status of an id not drawn yet is not in the future")
	}
	if _, ok, future := x.Status(a - 1); ok || future {
		t.Errorf("status of an id drawn before the allocator is known")
	}
}
