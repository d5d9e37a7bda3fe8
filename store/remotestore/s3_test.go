package remotestore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/store/remotestore/s3test"
)

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestParseS3URL(t *testing.T) {
	for _, c := range []struct {
		url    string
		env    map[string]string
		bucket string
		prefix string
		host   string
		secure bool
		path   bool
		region string
		err    string
	}{
		{url: "s3://b", bucket: "b", host: "s3.amazonaws.com", secure: true},
		{url: "s3://b/a/c/", env: map[string]string{"AWS_DEFAULT_REGION": "eu-west-3"},
			bucket: "b", prefix: "a/c/", host: "s3.amazonaws.com", secure: true, region: "eu-west-3"},
		{url: "s3://b/p", env: map[string]string{"AWS_REGION": "r1", "AWS_DEFAULT_REGION": "r2", "AWS_ENDPOINT_URL": "https://s3.example.com"},
			bucket: "b", prefix: "p/", host: "s3.example.com", secure: true, path: true, region: "r1"},
		{url: "s3://b/p", env: map[string]string{"AWS_ENDPOINT_URL": "https://generic", "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9000"},
			bucket: "b", prefix: "p/", host: "127.0.0.1:9000", path: true, region: "us-east-1"},
		// The URL's parameters win over the environment: one server may
		// push to several stores.
		{url: "s3://b/p?endpoint=http%3A%2F%2F127.0.0.1%3A8333&region=here", env: map[string]string{"AWS_ENDPOINT_URL": "https://elsewhere", "AWS_REGION": "there"},
			bucket: "b", prefix: "p/", host: "127.0.0.1:8333", path: true, region: "here"},
		{url: "s3://b/p?endpoint=http://127.0.0.1:8333", bucket: "b", prefix: "p/", host: "127.0.0.1:8333", path: true, region: "us-east-1"},
		{url: "s3:///p", err: "names a bucket"},
		{url: "s3://key:secret@b/p", err: "must not hold credentials"},
		{url: "s3://b/p?endpiont=http://x", err: `unknown s3:// URL parameter "endpiont"`},
		{url: "s3://b/p?endpoint=127.0.0.1:8333", err: "is not an http:// or https:// URL"},
		{url: "s3://b/p?endpoint=http://h/s3", err: "has a path"},
	} {
		u, err := url.Parse(c.url)
		if err != nil {
			t.Fatal(err)
		}
		s, err := parseS3URL(u, mapEnv(c.env))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrUnsupportedURL) {
				t.Errorf("%s: %v, want an error saying %q", c.url, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if s.bucket != c.bucket || s.prefix != c.prefix || s.endpoint != c.host || s.secure != c.secure || s.pathKeys != c.path || s.region != c.region {
			t.Errorf("%s: bucket %q prefix %q endpoint %q secure %v path-style %v region %q", c.url, s.bucket, s.prefix, s.endpoint, s.secure, s.pathKeys, s.region)
		}
	}
	// Credentials: the environment's keys, else the shared file's.
	u, _ := url.Parse("s3://b")
	s, _ := parseS3URL(u, mapEnv(map[string]string{"AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "tok"}))
	v, err := s.creds.GetWithContext(nil)
	if err != nil || v.AccessKeyID != "id" || v.SecretAccessKey != "secret" || v.SessionToken != "tok" {
		t.Errorf("credentials from the environment: %+v, %v", v, err)
	}
	s, _ = parseS3URL(u, mapEnv(map[string]string{"AWS_SHARED_CREDENTIALS_FILE": t.TempDir() + "/none"}))
	if v, err := s.creds.GetWithContext(nil); err != nil || v.AccessKeyID != "" {
		t.Errorf("no credentials anywhere: %+v, %v; want anonymous", v, err)
	}
}

// TestS3 runs the remote over a real SeaweedFS.
func TestS3(t *testing.T) {
	srv := s3test.Start(t)
	ctx := context.Background()
	cl, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	backend := func(t *testing.T, bucket, prefix string) *s3Backend {
		t.Helper()
		u, _ := url.Parse(srv.URL(bucket, prefix))
		b, err := openS3(ctx, u, true, srv.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.close() })
		return b
	}

	// What the manifest's compare-and-set rests on: the store refuses a
	// PUT whose If-Match or If-None-Match fails, and of conditional PUTs
	// racing on one ETag exactly one succeeds.
	t.Run("ConditionalPut", func(t *testing.T) {
		if err := cl.MakeBucket(ctx, "cond", minio.MakeBucketOptions{}); err != nil {
			t.Fatal(err)
		}
		put := func(body string, opts minio.PutObjectOptions) (minio.UploadInfo, error) {
			return cl.PutObject(ctx, "cond", "obj", strings.NewReader(body), int64(len(body)), opts)
		}
		var none minio.PutObjectOptions
		none.SetMatchETagExcept("*")
		first, err := put("first", none)
		if err != nil {
			t.Fatalf("If-None-Match: * on an absent key: %v", err)
		}
		if _, err := put("again", none); minio.ToErrorResponse(err).StatusCode != http.StatusPreconditionFailed {
			t.Errorf("If-None-Match: * on an existing key: %v, want 412", err)
		}
		var wrong minio.PutObjectOptions
		wrong.SetMatchETag(strings.Repeat("0", 32))
		if _, err := put("wrong", wrong); minio.ToErrorResponse(err).StatusCode != http.StatusPreconditionFailed {
			t.Errorf("If-Match with another ETag: %v, want 412", err)
		}
		etag := first.ETag
		for round := 0; round < 3; round++ {
			const racers = 4
			var wg sync.WaitGroup
			infos := make([]minio.UploadInfo, racers)
			errs := make([]error, racers)
			for i := range racers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var opts minio.PutObjectOptions
					opts.SetMatchETag(etag)
					infos[i], errs[i] = put(fmt.Sprintf("round %d racer %d", round, i), opts)
				}()
			}
			wg.Wait()
			won := -1
			for i, err := range errs {
				switch {
				case err == nil && won >= 0:
					t.Fatalf("round %d: racers %d and %d both won If-Match %s", round, won, i, etag)
				case err == nil:
					won = i
				case !conditionFailed(err):
					t.Fatalf("round %d: racer %d: %v", round, i, err)
				}
			}
			if won < 0 {
				t.Fatalf("round %d: no racer won", round)
			}
			obj, err := cl.GetObject(ctx, "cond", "obj", minio.GetObjectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(obj)
			if want := fmt.Sprintf("round %d racer %d", round, won); string(got) != want {
				t.Fatalf("round %d: the object holds %q, the winner wrote %q", round, got, want)
			}
			etag = infos[won].ETag
		}
	})

	// Two writers swap from the same manifest: one wins, the other is
	// told the manifest moved; then the loser, from the winner's
	// manifest, wins.
	t.Run("ManifestCompareAndSet", func(t *testing.T) {
		a, b := backend(t, "cas", "db"), backend(t, "cas", "db")
		var prev []byte
		for round := 0; round < 4; round++ {
			pa, err := a.readManifest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			pb, err := b.readManifest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(pa, prev) || !bytes.Equal(pb, prev) {
				t.Fatalf("round %d: read %q and %q, want %q", round, pa, pb, prev)
			}
			na, nb := []byte(fmt.Sprintf(`{"round":%d,"by":"a"}`, round)), []byte(fmt.Sprintf(`{"round":%d,"by":"b"}`, round))
			var ea, eb error
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); ea = a.swapManifest(ctx, pa, na) }()
			go func() { defer wg.Done(); eb = b.swapManifest(ctx, pb, nb) }()
			wg.Wait()
			winner, loser, next := a, b, na
			switch {
			case ea == nil && errors.Is(eb, errManifestMoved):
			case eb == nil && errors.Is(ea, errManifestMoved):
				winner, loser, next = b, a, nb
			default:
				t.Fatalf("round %d: a: %v, b: %v; want one to win and the other errManifestMoved", round, ea, eb)
			}
			// The loser swapping from a stale manifest fails however often
			// it tries.
			if err := loser.swapManifest(ctx, pa, []byte("stale")); !errors.Is(err, errManifestMoved) {
				t.Fatalf("round %d: a swap from a stale manifest: %v", round, err)
			}
			cur, err := winner.readManifest(ctx)
			if err != nil || !bytes.Equal(cur, next) {
				t.Fatalf("round %d: the manifest is %q, %v; the winner wrote %q", round, cur, err, next)
			}
			prev = next
		}
		if !a.probed && !b.probed {
			t.Error("no backend checked that the store honours conditional writes")
		}
	})

	t.Run("Tables", func(t *testing.T) {
		b := backend(t, "tables", "x/y")
		data := make([]byte, 3<<20+5)
		for i := range data {
			data[i] = byte(i * 7)
		}
		if err := b.writeTable(ctx, "t1.tbl", data); err != nil {
			t.Fatal(err)
		}
		// Written again (a retried push): kept, not an error.
		if err := b.writeTable(ctx, "t1.tbl", data); err != nil {
			t.Fatal(err)
		}
		if _, err := cl.StatObject(ctx, "tables", "x/y/t1.tbl", minio.StatObjectOptions{}); err != nil {
			t.Errorf("the table is not at its key under the prefix: %v", err)
		}
		if n, err := b.tableSize(ctx, "t1.tbl"); err != nil || n != int64(len(data)) {
			t.Fatalf("tableSize: %d, %v; want %d", n, err, len(data))
		}
		for _, r := range [][2]int{{0, 1}, {0, 100}, {12345, 1 << 20}, {len(data) - 20, 20}, {len(data) - 1, 1}, {0, len(data)}} {
			p := make([]byte, r[1])
			if err := b.readTable(ctx, "t1.tbl", p, int64(r[0])); err != nil {
				t.Fatalf("readTable at %d, %d bytes: %v", r[0], r[1], err)
			}
			if !bytes.Equal(p, data[r[0]:r[0]+r[1]]) {
				t.Fatalf("readTable at %d, %d bytes: other bytes", r[0], r[1])
			}
		}
		if err := b.readTable(ctx, "t1.tbl", make([]byte, 10), int64(len(data)-5)); err == nil {
			t.Error("a read past the end succeeded")
		}
		if _, err := b.tableSize(ctx, "absent.tbl"); err == nil {
			t.Error("the size of an absent table")
		}
	})

	t.Run("RoundTrip", func(t *testing.T) {
		testRoundTrip(t, func(t *testing.T) *Store { return openURL(t, srv.URL("stores", "roundtrip"), srv.Getenv) })
	})
	t.Run("CompareAndSet", func(t *testing.T) {
		testCompareAndSet(t, srv.URL("stores", "cas"), srv.Getenv)
	})

	// Through a proxy that counts PUTs and can lose the answer of one.
	t.Run("LostAnswer", func(t *testing.T) {
		p := newS3Proxy(t, srv.Endpoint)
		url := "s3://lost/db?endpoint=" + url.QueryEscape(p.URL) + "&region=" + srv.Region
		w := openURL(t, url, srv.Getenv)
		a := put(t, w, "first")
		if err := w.UpdateRefs(ctx, []store.RefUpdate{{Name: "refs/heads/main", New: a}}, true); err != nil {
			t.Fatal(err)
		}
		// The store takes the next manifest, but its answer is lost: the
		// client retries, the retry's If-Match fails against the write
		// it made itself, and the swap must still report success.
		p.loseNext("/lost/db/" + manifestName)
		b := put(t, w, "second")
		if err := w.UpdateRefs(ctx, []store.RefUpdate{{Name: "refs/heads/main", Old: a, New: b}}, true); err != nil {
			t.Fatalf("an update whose answer was lost: %v", err)
		}
		if p.lost != 1 {
			t.Fatalf("%d answers lost, want 1", p.lost)
		}
		r := openURL(t, url, srv.Getenv)
		if got, _, _ := r.Ref(ctx, "refs/heads/main"); got != b {
			t.Errorf("main is %s after the update, want %s", got, b)
		}
	})

	// An interrupted push leaves its table files; the push again does
	// not send them again.
	t.Run("Resume", func(t *testing.T) {
		p := newS3Proxy(t, srv.Endpoint)
		url := "s3://resume/db?endpoint=" + url.QueryEscape(p.URL) + "&region=" + srv.Region
		var head store.Address
		pushAll := func(publish bool) {
			w := openURL(t, url, srv.Getenv)
			w.tableBytes = 1000
			for i := 0; i < 100; i++ {
				head = put(t, w, fmt.Sprintf("chunk %d %0100d", i, i))
			}
			if err := w.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if publish {
				if err := w.UpdateRefs(ctx, []store.RefUpdate{{Name: "refs/heads/main", New: head}}, true); err != nil {
					t.Fatal(err)
				}
			}
			w.Close()
		}
		pushAll(false) // cut before its manifest
		first := p.tablePuts()
		pushAll(true)
		if first < 10 || p.tablePuts() != first {
			t.Errorf("table PUTs: %d by the interrupted push, %d more by the resumed one", first, p.tablePuts()-first)
		}
		r := openURL(t, url, srv.Getenv)
		if got, _, _ := r.Ref(ctx, "refs/heads/main"); got != head {
			t.Errorf("main is %s, want %s", got, head)
		}
	})

	t.Run("Errors", func(t *testing.T) {
		// Signed with another secret: the store refuses (the tests'
		// requests really are signed and checked).
		bad := func(k string) string {
			if k == "AWS_SECRET_ACCESS_KEY" {
				return "not-the-secret"
			}
			return srv.Getenv(k)
		}
		if _, err := openStore(ctx, srv.URL("stores", "roundtrip"), false, bad); err == nil {
			t.Error("opened a remote with a wrong secret key")
		}
		// A fetch from a bucket that does not exist: not found, as an
		// absent directory is; a push creates it.
		if _, err := openStore(ctx, srv.URL("nobucket", "p"), false, srv.Getenv); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a fetch from an absent bucket: %v", err)
		}
		s := openURL(t, srv.URL("newbucket", "p"), srv.Getenv)
		a := put(t, s, "x")
		if err := s.UpdateRefs(ctx, []store.RefUpdate{{Name: "refs/heads/main", New: a}}, true); err != nil {
			t.Fatal(err)
		}
	})
}

// TestS3NoConditionalWrites: a store that ignores If-Match and
// If-None-Match (a stand-in that takes every PUT) is refused before the
// manifest is written.
func TestS3NoConditionalWrites(t *testing.T) {
	var mu sync.Mutex
	objects := map[string][]byte{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.Method {
		case http.MethodPut:
			b, _ := io.ReadAll(r.Body)
			objects[r.URL.Path] = b
			w.Header().Set("ETag", `"0123456789abcdef0123456789abcdef"`)
		case http.MethodGet, http.MethodHead:
			if b, ok := objects[r.URL.Path]; ok {
				w.Write(b)
				return
			}
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>none</Message></Error>`)
		default:
			w.WriteHeader(http.StatusNotImplemented)
		}
	})
	ts := httptest.NewServer(h)
	defer ts.Close()
	ctx := context.Background()
	u, _ := url.Parse("s3://bkt/p?endpoint=" + url.QueryEscape(ts.URL))
	b, err := openS3(ctx, u, false, mapEnv(map[string]string{"AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"}))
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	err = b.swapManifest(ctx, nil, []byte("{}"))
	if !errors.Is(err, errNoConditionalWrites) {
		t.Fatalf("swapManifest on a store without conditional writes: %v", err)
	}
	if _, ok := objects["/bkt/p/"+manifestName]; ok {
		t.Error("the manifest was written")
	}
}

// s3Proxy stands between a backend and the store: it counts the PUTs of
// table files, and loses the answer of the next PUT of a key when told.
type s3Proxy struct {
	URL string

	mu     sync.Mutex
	rp     *httputil.ReverseProxy
	tables int
	lose   string // the path whose next PUT's answer is lost
	lost   int
}

func newS3Proxy(t *testing.T, endpoint string) *s3Proxy {
	target, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	// The request keeps its Host header (the proxy's), which its
	// signature covers.
	p := &s3Proxy{rp: httputil.NewSingleHostReverseProxy(target)}
	ts := httptest.NewServer(p)
	t.Cleanup(ts.Close)
	p.URL = ts.URL
	return p
}

func (p *s3Proxy) loseNext(path string) {
	p.mu.Lock()
	p.lose = path
	p.mu.Unlock()
}

func (p *s3Proxy) tablePuts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tables
}

func (p *s3Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	lose := r.Method == http.MethodPut && r.URL.Path == p.lose
	if lose {
		p.lose = ""
		p.lost++
	}
	if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, tableSuffix) {
		p.tables++
	}
	p.mu.Unlock()
	if !lose {
		p.rp.ServeHTTP(w, r)
		return
	}
	// The store does the write; the client hears a retryable error.
	p.rp.ServeHTTP(httptest.NewRecorder(), r)
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusServiceUnavailable)
	fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>lost</Message></Error>`)
}
