package store

import (
	"fmt"
	"sync"
	"testing"
)

func TestCacheBound(t *testing.T) {
	const limit = 1 << 20
	c := newCache(limit)
	for i := range 2000 {
		d := chunk(uint64(i), 100+i%4000)
		c.add(Hash(d), d)
		if b, _ := c.size(); b > limit {
			t.Fatalf("after %d adds the cache holds %d bytes, bound %d", i+1, b, limit)
		}
	}
	b, n := c.size()
	if b < limit*3/4 {
		t.Fatalf("cache holds only %d bytes in %d entries; bound %d", b, n, limit)
	}
	// The charged size is exactly the chunks plus the overhead.
	var sum int64
	for i := range c.shards {
		for _, e := range c.shards[i].entries {
			sum += int64(len(e.data)) + cacheEntryOverhead
			if got, ok := c.get(e.addr); !ok || &got[0] != &e.data[0] {
				t.Fatalf("entry %s not found by get", e.addr)
			}
		}
	}
	if sum != b {
		t.Fatalf("entries sum to %d bytes, cache says %d", sum, b)
	}
}

func TestCacheEvictsUnreferencedFirst(t *testing.T) {
	c := newCache(cacheShards * 10 * (1000 + cacheEntryOverhead)) // ten 1000-byte chunks a shard
	// Fill one shard: addresses whose first byte falls in shard 0.
	var addrs []Address
	var datas [][]byte
	for i := 0; len(addrs) < 30; i++ {
		d := chunk(uint64(i), 1000)
		if a := Hash(d); a[0]%cacheShards == 0 {
			addrs, datas = append(addrs, a), append(datas, d)
		}
	}
	for i := range 10 {
		c.add(addrs[i], datas[i])
	}
	hot := addrs[3]
	for i := 10; i < 30; i++ {
		if _, ok := c.get(hot); !ok {
			t.Fatalf("hot entry evicted after %d adds", i-10)
		}
		c.add(addrs[i], datas[i])
	}
	if _, n := c.size(); n != 10 {
		t.Fatalf("shard holds %d entries, want 10", n)
	}
}

func TestCacheRejectsHugeChunk(t *testing.T) {
	c := newCache(cacheShards * 1000)
	d := chunk(1, 2000)
	c.add(Hash(d), d)
	if _, ok := c.get(Hash(d)); ok {
		t.Fatal("a chunk larger than a shard was cached")
	}
	c = newCache(-1)
	c.add(Hash(d), d)
	if _, n := c.size(); n != 0 {
		t.Fatal("a disabled cache cached a chunk")
	}
}

func TestCacheConcurrent(t *testing.T) {
	const limit = 256 << 10
	c := newCache(limit)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 500 {
				d := chunk(uint64(i%200), 1000+w)
				a := Hash(d)
				c.add(a, d)
				if got, ok := c.get(a); ok && Hash(got) != a {
					panic(fmt.Sprintf("wrong bytes for %s", a))
				}
			}
		})
	}
	wg.Wait()
	if b, _ := c.size(); b > limit {
		t.Fatalf("cache holds %d bytes, bound %d", b, limit)
	}
}
