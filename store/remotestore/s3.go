package remotestore

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// s3Backend keeps a remote in an S3 bucket, under a key prefix: the
// objects "<prefix>manifest", "<prefix><name>.tbl" for each table file,
// and "<prefix>conditional-write-probe" (see probeConditional). It
// speaks to any S3-compatible store through minio-go.
//
// The manifest moves by conditional PUTs (If-Match: the ETag of the
// manifest read; If-None-Match: * for the first), which the store
// evaluates atomically with the write, as AWS S3 (since 2024), MinIO and
// SeaweedFS do. A store that ignored the conditions would let two
// writers overwrite each other, so a backend checks once, before its
// first swap, that the store refuses a PUT whose condition fails, and
// refuses to write if not.
type s3Backend struct {
	c         *minio.Core
	transport *http.Transport
	bucket    string
	prefix    string // "" or ending in "/"
	where     string // s3://bucket/prefix, for errors

	mu       sync.Mutex
	seen     []byte // the manifest as last read or written by this backend
	seenETag string // its ETag, the condition of the next swap
	probed   bool   // probeConditional passed
}

// s3Settings say where an s3:// remote is and how to sign for it.
type s3Settings struct {
	bucket   string
	prefix   string
	endpoint string // host[:port]
	secure   bool   // https
	pathKeys bool   // path-style addressing (an endpoint was given)
	region   string
	creds    *credentials.Credentials
}

// parseS3URL reads s3://bucket/prefix[?endpoint=URL&region=NAME], taking
// what the URL does not say from the AWS settings that getenv returns
// (os.Getenv in Open):
//
//   - the endpoint: the URL's endpoint parameter, else AWS_ENDPOINT_URL_S3,
//     else AWS_ENDPOINT_URL, else AWS S3 itself;
//   - the region: the URL's region parameter, else AWS_REGION, else
//     AWS_DEFAULT_REGION, else us-east-1 with an endpoint given (what
//     S3-compatible stores expect) or the bucket's own region on AWS;
//   - the credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and
//     AWS_SESSION_TOKEN), else the shared credentials file's profile
//     (AWS_SHARED_CREDENTIALS_FILE, AWS_PROFILE), else none (anonymous
//     requests).
//
// Credentials are never taken from the URL: remotes' URLs are shown to
// every user (dolt.remotes) and logged.
func parseS3URL(u *url.URL, getenv func(string) string) (s3Settings, error) {
	var s s3Settings
	if u.User != nil {
		return s, fmt.Errorf("%w: an s3:// URL must not hold credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)", ErrUnsupportedURL)
	}
	if u.Host == "" {
		return s, fmt.Errorf("%w: an s3:// URL names a bucket: s3://bucket/prefix", ErrUnsupportedURL)
	}
	s.bucket = u.Host
	if p := strings.Trim(u.Path, "/"); p != "" {
		s.prefix = p + "/"
	}
	q := u.Query()
	for k := range q {
		if k != "endpoint" && k != "region" {
			// A misspelt setting must not be ignored: the remote would be
			// another store's.
			return s, fmt.Errorf("%w: unknown s3:// URL parameter %q (there are endpoint and region)", ErrUnsupportedURL, k)
		}
	}
	endpoint := firstOf(q.Get("endpoint"), getenv("AWS_ENDPOINT_URL_S3"), getenv("AWS_ENDPOINT_URL"))
	if endpoint == "" {
		s.endpoint, s.secure = "s3.amazonaws.com", true
	} else {
		e, err := url.Parse(endpoint)
		if err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" {
			return s, fmt.Errorf("%w: S3 endpoint %q is not an http:// or https:// URL", ErrUnsupportedURL, endpoint)
		}
		if strings.Trim(e.Path, "/") != "" || e.RawQuery != "" {
			return s, fmt.Errorf("%w: S3 endpoint %q has a path; it must be scheme://host[:port]", ErrUnsupportedURL, endpoint)
		}
		// Path-style: an S3-compatible store on an address of its own
		// seldom has DNS for bucket.host.
		s.endpoint, s.secure, s.pathKeys = e.Host, e.Scheme == "https", true
	}
	s.region = firstOf(q.Get("region"), getenv("AWS_REGION"), getenv("AWS_DEFAULT_REGION"))
	if s.region == "" && s.pathKeys {
		s.region = "us-east-1"
	}
	if id, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" {
		s.creds = credentials.NewStaticV4(id, secret, getenv("AWS_SESSION_TOKEN"))
	} else {
		// A chain ends in anonymous requests when the file has no profile,
		// where the file provider alone would fail every request.
		s.creds = credentials.NewChainCredentials([]credentials.Provider{
			&credentials.FileAWSCredentials{Filename: getenv("AWS_SHARED_CREDENTIALS_FILE"), Profile: getenv("AWS_PROFILE")},
		})
	}
	return s, nil
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// openS3 returns the backend of the s3:// URL u; with create set, the
// bucket is created if it does not exist (a push), as a file:// remote's
// directory is.
func openS3(ctx context.Context, u *url.URL, create bool, getenv func(string) string) (*s3Backend, error) {
	s, err := parseS3URL(u, getenv)
	if err != nil {
		return nil, err
	}
	tr, err := minio.DefaultTransport(s.secure)
	if err != nil {
		return nil, fmt.Errorf("remotestore: %w", err)
	}
	lookup := minio.BucketLookupAuto
	if s.pathKeys {
		lookup = minio.BucketLookupPath
	}
	c, err := minio.NewCore(s.endpoint, &minio.Options{
		Creds:        s.creds,
		Secure:       s.secure,
		Transport:    tr,
		Region:       s.region,
		BucketLookup: lookup,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnsupportedURL, u.Redacted(), err)
	}
	b := &s3Backend{c: c, transport: tr, bucket: s.bucket, prefix: s.prefix, where: "s3://" + s.bucket + "/" + s.prefix}
	if create {
		if err := b.makeBucket(ctx, s.region); err != nil {
			tr.CloseIdleConnections()
			return nil, err
		}
	}
	return b, nil
}

// makeBucket creates the bucket unless it exists. A writer that may not
// list the bucket (HeadBucket is refused) but may write objects in it
// goes on: its first write says whether the bucket is there.
func (b *s3Backend) makeBucket(ctx context.Context, region string) error {
	ok, err := b.c.BucketExists(ctx, b.bucket)
	if ok || (err != nil && minio.ToErrorResponse(err).StatusCode == http.StatusForbidden) {
		return nil
	}
	if err != nil {
		return b.errorf("checking the bucket", err)
	}
	err = b.c.MakeBucket(ctx, b.bucket, minio.MakeBucketOptions{Region: region})
	if code := minio.ToErrorResponse(err).Code; err != nil && code != "BucketAlreadyOwnedByYou" && code != "BucketAlreadyExists" {
		return b.errorf("creating the bucket", err)
	}
	return nil
}

// errorf wraps err, an error of op, with the remote's URL; an absent
// bucket wraps fs.ErrNotExist, as an absent file:// directory does.
func (b *s3Backend) errorf(op string, err error) error {
	if minio.ToErrorResponse(err).Code == minio.NoSuchBucket {
		return fmt.Errorf("remotestore: %s: %s: bucket %s does not exist: %w", b.where, op, b.bucket, fs.ErrNotExist)
	}
	return fmt.Errorf("remotestore: %s: %s: %w", b.where, op, err)
}

const probeName = "conditional-write-probe"

// getManifest returns the manifest's bytes and ETag; nil bytes if there
// is none.
func (b *s3Backend) getManifest(ctx context.Context) ([]byte, string, error) {
	rc, info, _, err := b.c.GetObject(ctx, b.bucket, b.prefix+manifestName, minio.GetObjectOptions{})
	if err == nil {
		var data []byte
		data, err = io.ReadAll(rc)
		rc.Close()
		if err == nil {
			return data, info.ETag, nil
		}
	}
	if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
		return nil, "", nil
	}
	return nil, "", b.errorf("reading the manifest", err)
}

func (b *s3Backend) readManifest(ctx context.Context) ([]byte, error) {
	data, etag, err := b.getManifest(ctx)
	if err != nil {
		return nil, err
	}
	b.remember(data, etag)
	return data, nil
}

// remember records the manifest last read or written and its ETag.
func (b *s3Backend) remember(data []byte, etag string) {
	b.mu.Lock()
	b.seen, b.seenETag = data, etag
	b.mu.Unlock()
}

// etagOf returns the ETag of the manifest prev, which the caller read:
// the one remembered, or, if the backend has read another since (another
// goroutine's refresh), the current one, provided the manifest still is
// prev. Equal bytes are the same manifest: each swap counts up its
// version, so a manifest's bytes never come back.
func (b *s3Backend) etagOf(ctx context.Context, prev []byte) (string, error) {
	b.mu.Lock()
	seen, etag := b.seen, b.seenETag
	b.mu.Unlock()
	if seen != nil && bytes.Equal(seen, prev) {
		return etag, nil
	}
	cur, etag, err := b.getManifest(ctx)
	if err != nil {
		return "", err
	}
	if !bytes.Equal(cur, prev) {
		return "", errManifestMoved
	}
	return etag, nil
}

func (b *s3Backend) swapManifest(ctx context.Context, prev, next []byte) error {
	if err := b.probeConditional(ctx); err != nil {
		return err
	}
	opts := minio.PutObjectOptions{ContentType: "application/json"}
	if prev == nil {
		opts.SetMatchETagExcept("*")
	} else {
		etag, err := b.etagOf(ctx, prev)
		if err != nil {
			return err
		}
		opts.SetMatchETag(etag)
	}
	info, err := b.c.PutObject(ctx, b.bucket, b.prefix+manifestName, bytes.NewReader(next), int64(len(next)), md5Base64(next), "", opts)
	if err == nil {
		b.remember(next, info.ETag)
		return nil
	}
	// The outcome of a failed PUT may still be this swap: minio-go
	// retries a request whose answer was lost, and the retry's condition
	// then fails against the first attempt's write; or the context ended
	// after the store took the write. A manifest equal to next is this
	// swap (or one identical to it). It is checked even if ctx has ended:
	// a swap that took effect must not be reported as failed.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if cur, etag, gerr := b.getManifest(rctx); gerr == nil && bytes.Equal(cur, next) {
		b.remember(cur, etag)
		return nil
	}
	if conditionFailed(err) {
		return errManifestMoved
	}
	return b.errorf("writing the manifest", err)
}

// conditionFailed reports whether err is a store's refusal of a
// conditional PUT: 412 Precondition Failed, 409 ConditionalRequestConflict
// (AWS: another conditional write to the key was under way), or 404 for an
// If-Match on a key that no longer exists.
func conditionFailed(err error) bool {
	r := minio.ToErrorResponse(err)
	return r.StatusCode == http.StatusPreconditionFailed || r.StatusCode == http.StatusConflict ||
		(r.StatusCode == http.StatusNotFound && r.Code == minio.NoSuchKey)
}

// errNoConditionalWrites is the refusal to write to a store that ignores
// If-Match and If-None-Match on PUT.
var errNoConditionalWrites = errors.New("the object store does not honour conditional writes (If-Match, If-None-Match on PUT), which the manifest's compare-and-set needs")

// probeConditional checks, once per backend, that the store refuses a
// PUT whose If-None-Match or If-Match fails, on an object of its own
// (writers share it; every PUT of it writes the same bytes, and the
// conditional ones must fail whatever writer wrote it last).
func (b *s3Backend) probeConditional(ctx context.Context) error {
	b.mu.Lock()
	done := b.probed
	b.mu.Unlock()
	if done {
		return nil
	}
	key := b.prefix + probeName
	body := []byte("prollypg checks that this store refuses failed conditional writes\n")
	put := func(opts minio.PutObjectOptions) error {
		_, err := b.c.PutObject(ctx, b.bucket, key, bytes.NewReader(body), int64(len(body)), md5Base64(body), "", opts)
		return err
	}
	if err := put(minio.PutObjectOptions{}); err != nil {
		return b.errorf("writing "+probeName, err)
	}
	var ifNone, ifMatch minio.PutObjectOptions
	ifNone.SetMatchETagExcept("*")
	ifMatch.SetMatchETag(strings.Repeat("0", 32)) // no MD5 of the body: never its ETag
	for _, c := range []struct {
		header string
		opts   minio.PutObjectOptions
	}{{"If-None-Match: *", ifNone}, {"If-Match", ifMatch}} {
		err := put(c.opts)
		if err == nil {
			return fmt.Errorf("remotestore: %s: a PUT with a failing %s succeeded: %w", b.where, c.header, errNoConditionalWrites)
		}
		if !conditionFailed(err) {
			return b.errorf("writing "+probeName+" with "+c.header, err)
		}
	}
	b.mu.Lock()
	b.probed = true
	b.mu.Unlock()
	return nil
}

func (b *s3Backend) writeTable(ctx context.Context, name string, data []byte) error {
	key := b.prefix + name
	// A table file of that name is this one (names are hashes): a
	// resumed push does not send it again.
	_, err := b.c.StatObject(ctx, b.bucket, key, minio.StatObjectOptions{})
	if err == nil {
		return nil
	}
	if minio.ToErrorResponse(err).Code != minio.NoSuchKey {
		return b.errorf("checking table "+name, err)
	}
	// One PUT (not a multipart upload): an object appears whole or not
	// at all, and Content-MD5 has the store check the bytes it got.
	_, err = b.c.PutObject(ctx, b.bucket, key, bytes.NewReader(data), int64(len(data)), md5Base64(data), "", minio.PutObjectOptions{ContentType: "application/octet-stream"})
	if err != nil {
		return b.errorf("writing table "+name, err)
	}
	return nil
}

func (b *s3Backend) tableSize(ctx context.Context, name string) (int64, error) {
	info, err := b.c.StatObject(ctx, b.bucket, b.prefix+name, minio.StatObjectOptions{})
	if err != nil {
		return 0, b.errorf("table "+name, err)
	}
	return info.Size, nil
}

// readTable reads p with one ranged GET.
func (b *s3Backend) readTable(ctx context.Context, name string, p []byte, off int64) error {
	if len(p) == 0 {
		return nil
	}
	var opts minio.GetObjectOptions
	if err := opts.SetRange(off, off+int64(len(p))-1); err != nil {
		return fmt.Errorf("remotestore: %s: reading table %s at %d: %w", b.where, name, off, err)
	}
	rc, _, _, err := b.c.GetObject(ctx, b.bucket, b.prefix+name, opts)
	if err != nil {
		return b.errorf(fmt.Sprintf("reading table %s at %d", name, off), err)
	}
	defer rc.Close()
	if _, err := io.ReadFull(rc, p); err != nil {
		return fmt.Errorf("remotestore: %s: reading table %s at %d: %w", b.where, name, off, err)
	}
	return nil
}

func (b *s3Backend) close() error {
	b.transport.CloseIdleConnections()
	return nil
}

func md5Base64(data []byte) string {
	sum := md5.Sum(data)
	return base64.StdEncoding.EncodeToString(sum[:])
}
