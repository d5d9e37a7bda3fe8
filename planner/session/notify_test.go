package session_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/prollypg/prollypg/planner/internal/enginetest"
)

// TestNotifyConcurrentCommits has several sessions commit notifications
// at once while several listeners take theirs as they are woken, as the
// wire would: every listener gets every notification exactly once, each
// notifier's in its order, and all listeners in the same order. Run with
// -race to check the hub's locking.
func TestNotifyConcurrentCommits(t *testing.T) {
	const notifiers, listeners, each = 4, 3, 25
	first := enginetest.Open(t)
	type listener struct {
		db   *enginetest.DB
		wake chan struct{}
		got  []string
	}
	ls := make([]*listener, listeners)
	for i := range ls {
		db := first
		if i > 0 {
			db = first.Another()
		}
		l := &listener{db: db, wake: make(chan struct{}, 1)}
		db.S.OnNotification = func() {
			select {
			case l.wake <- struct{}{}:
			default:
			}
		}
		db.Exec("LISTEN ch")
		ls[i] = l
	}
	ns := make([]*enginetest.DB, notifiers)
	for i := range ns {
		ns[i] = first.Another()
		ns[i].S.ProcessID = uint32(100 + i)
	}

	var wg sync.WaitGroup
	for _, l := range ls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for len(l.got) < notifiers*each {
				<-l.wake
				l.db.S.Notifications(func(pid uint32, channel, payload string) {
					l.got = append(l.got, fmt.Sprintf("%d %s", pid, payload))
				})
			}
		}()
	}
	var nwg sync.WaitGroup
	for i, n := range ns {
		nwg.Add(1)
		go func() {
			defer nwg.Done()
			for j := range each {
				if _, err := n.Query(fmt.Sprintf("NOTIFY ch, '%d'", j)); err != nil {
					t.Errorf("notifier %d: %v", i, err)
					return
				}
			}
		}()
	}
	nwg.Wait()
	wg.Wait()

	for i, l := range ls {
		if !slices.Equal(l.got, ls[0].got) {
			t.Fatalf("listener %d's order differs from listener 0's:\n%v\n%v", i, l.got, ls[0].got)
		}
	}
	next := map[uint32]int{}
	for _, s := range ls[0].got {
		var pid uint32
		var j int
		fmt.Sscanf(s, "%d %d", &pid, &j)
		if j != next[pid] {
			t.Fatalf("from %d: %d, want %d (%v)", pid, j, next[pid], ls[0].got)
		}
		next[pid]++
	}
	if len(next) != notifiers {
		t.Fatalf("notifiers heard: %v", next)
	}
}

// TestNotifyNoAllocs checks that a batch of a session that does not
// receive notifications costs nothing here: Notifications returns at once,
// with or without a LISTEN, when none are pending.
func TestNotifyNoAllocs(t *testing.T) {
	db := enginetest.Open(t)
	send := func(uint32, string, string) {}
	if n := testing.AllocsPerRun(1000, func() { db.S.Notifications(send) }); n != 0 {
		t.Errorf("Notifications without LISTEN: %v allocations", n)
	}
	db.Exec("LISTEN ch")
	if n := testing.AllocsPerRun(1000, func() { db.S.Notifications(send) }); n != 0 {
		t.Errorf("Notifications with nothing pending: %v allocations", n)
	}
}
