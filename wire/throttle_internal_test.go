package wire

import (
	"net"
	"testing"
	"time"
)

func TestAuthThrottle(t *testing.T) {
	var th authThrottle
	a := &net.TCPAddr{IP: net.ParseIP("192.0.2.1"), Port: 5000}
	b := &net.TCPAddr{IP: net.ParseIP("192.0.2.1"), Port: 6000} // same host, other port
	other := &net.TCPAddr{IP: net.ParseIP("192.0.2.2"), Port: 5000}
	now := time.Unix(1000, 0)
	want := []time.Duration{0, 0, 0, 250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second}
	for i, w := range want {
		addr := a
		if i%2 == 1 {
			addr = b
		}
		now = now.Add(time.Second)
		if d, n := th.failed(addr, now); d != w || n != i+1 {
			t.Fatalf("failure %d: delay %v after %d failures, want %v after %d", i+1, d, n, w, i+1)
		}
	}
	if d, _ := th.failed(other, now); d != 0 {
		t.Errorf("another host's first failure waits %v", d)
	}
	if d, n := th.failed(a, now.Add(throttleWindow+time.Second)); d != 0 || n != 1 {
		t.Errorf("a failure after a quiet minute: delay %v, count %d; want 0, 1", d, n)
	}
	th.failed(a, now.Add(throttleWindow+2*time.Second))
	th.succeeded(a)
	if _, n := th.failed(a, now.Add(throttleWindow+3*time.Second)); n != 1 {
		t.Errorf("after a success the count is %d, want 1", n)
	}
}
