package wire

import (
	"net"
	"sync"
	"time"
)

// Failed logins are slowed down per client address, so that guessing
// passwords over the network costs time: the first failures of an
// address are answered at once (a mistyped password should not wait),
// later ones after a delay that doubles with each failure, up to a cap.
// A failure more than throttleWindow after the address's last one starts
// the count over; a success clears it.
const (
	throttleFree   = 3                      // failures answered without delay
	throttleBase   = 250 * time.Millisecond // the delay of the first slowed failure
	throttleMax    = 8 * time.Second
	throttleWindow = time.Minute
	throttleHosts  = 10000 // addresses remembered before old ones are dropped
)

// authThrottle counts recent authentication failures per client address.
type authThrottle struct {
	mu     sync.Mutex
	byHost map[string]failures
}

type failures struct {
	n    int
	last time.Time
}

// failed records a failure from addr at now and returns how long to wait
// before answering it, and the failures of addr in the window so far.
func (t *authThrottle) failed(addr net.Addr, now time.Time) (time.Duration, int) {
	host := throttleHost(addr)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byHost == nil {
		t.byHost = map[string]failures{}
	}
	f := t.byHost[host]
	if now.Sub(f.last) > throttleWindow {
		f.n = 0
	}
	f.n++
	f.last = now
	if len(t.byHost) >= throttleHosts {
		t.forgetBefore(now.Add(-throttleWindow))
	}
	t.byHost[host] = f
	if f.n <= throttleFree {
		return 0, f.n
	}
	d := throttleBase << min(f.n-throttleFree-1, 16)
	return min(d, throttleMax), f.n
}

// succeeded forgets addr's failures.
func (t *authThrottle) succeeded(addr net.Addr) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.byHost, throttleHost(addr))
}

// forgetBefore drops the addresses whose last failure is older than
// cutoff. t.mu is held.
func (t *authThrottle) forgetBefore(cutoff time.Time) {
	for h, f := range t.byHost {
		if f.last.Before(cutoff) {
			delete(t.byHost, h)
		}
	}
}

// throttleHost is the part of addr failures are counted by: the IP
// address, without the port.
func throttleHost(addr net.Addr) string {
	if a, ok := addr.(*net.TCPAddr); ok {
		return a.IP.String()
	}
	if addr == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}
