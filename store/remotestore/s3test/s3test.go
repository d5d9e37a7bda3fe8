// Package s3test starts SeaweedFS, an S3-compatible object store, for the
// tests of s3:// remotes: a real server on free loopback ports over a
// directory in t.TempDir(), stopped when the test ends, through
// scripts/seaweedfs.sh (which .ci/run uses to build it).
//
// The weed binary is PROLLYPG_WEED if set, else the one
// `scripts/seaweedfs.sh build` caches. Without it a test is skipped, with
// a message on stderr saying how to get it; with PROLLYPG_REQUIRE_WEED
// set (CI sets it) it fails instead, so that a broken build cannot pass
// as skipped tests.
package s3test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Server is a running SeaweedFS with an S3 gateway that requires
// requests signed with AccessKey and SecretKey.
type Server struct {
	Endpoint  string // http://127.0.0.1:port
	Region    string
	AccessKey string
	SecretKey string
	Dir       string // its data, and weed.log
	cmd       *exec.Cmd
	done      chan struct{}
	ports     []int
}

// script returns the path of scripts/seaweedfs.sh.
func script() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "scripts", "seaweedfs.sh")
}

// Binary returns the weed binary's path, or skips (or fails) t.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("PROLLYPG_WEED"); p != "" {
		return p
	}
	out, err := exec.Command("bash", script(), "path").Output()
	if err != nil {
		how := "Build it once (about 5 minutes on 2 cores; cached outside the repository): scripts/seaweedfs.sh build\n" +
			"or point PROLLYPG_WEED at a weed binary."
		if os.Getenv("PROLLYPG_REQUIRE_WEED") != "" {
			t.Fatal("SeaweedFS (weed) is not built, and PROLLYPG_REQUIRE_WEED is set.\n" + how)
		}
		// go test shows a passing package's output only with -v; make
		// test says it too.
		msg := "SeaweedFS (weed) is not built, so the s3:// remote tests are SKIPPED.\n" + how
		fmt.Fprintf(os.Stderr, "\n*** %s: %s\n\n", t.Name(), strings.ReplaceAll(msg, "\n", "\n*** "))
		t.Skip(msg)
	}
	return strings.TrimSpace(string(out))
}

// Start runs a SeaweedFS server for the test.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary(t)
	var lastErr error
	// The free ports are free when chosen; another process may take one
	// before weed binds it, hence a few tries.
	for try := 0; try < 3; try++ {
		s, err := start(t, bin)
		if err == nil {
			return s
		}
		lastErr = err
	}
	t.Fatal(lastErr)
	return nil
}

func start(t testing.TB, bin string) (*Server, error) {
	dir, err := os.MkdirTemp(t.TempDir(), "weed")
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(8)
	if err != nil {
		return nil, err
	}
	s := &Server{
		Endpoint:  fmt.Sprintf("http://127.0.0.1:%d", ports[0]),
		Region:    "us-east-1",
		AccessKey: "prollypg" + randomHex(4),
		SecretKey: randomHex(20),
		Dir:       dir,
		done:      make(chan struct{}),
		ports:     ports,
	}
	args := []string{script(), "serve", dir}
	for _, p := range ports {
		args = append(args, fmt.Sprint(p))
	}
	log, err := os.Create(filepath.Join(dir, "weed.log"))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	s.cmd = exec.Command("bash", args...)
	s.cmd.Env = append(os.Environ(), "PROLLYPG_WEED="+bin, "AWS_ACCESS_KEY_ID="+s.AccessKey, "AWS_SECRET_ACCESS_KEY="+s.SecretKey)
	s.cmd.Stdout, s.cmd.Stderr = log, log
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	if err := s.ready(); err != nil {
		s.stop()
		return nil, fmt.Errorf("SeaweedFS: %w\n%s", err, s.logTail())
	}
	t.Cleanup(s.stop)
	return s, nil
}

// ready waits until the store takes a write: the S3 port answers within
// seconds, but a PUT needs the volume server to have joined the master.
func (s *Server) ready() error {
	c, err := s.Client()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		err = c.MakeBucket(ctx, "ready", minio.MakeBucketOptions{})
		if err == nil || minio.ToErrorResponse(err).Code == "BucketAlreadyOwnedByYou" {
			_, err = c.PutObject(ctx, "ready", "probe", bytes.NewReader([]byte("ok")), 2, minio.PutObjectOptions{})
			if err == nil {
				return nil
			}
		}
		select {
		case <-s.done:
			return fmt.Errorf("weed exited: %v", s.cmd.ProcessState)
		case <-ctx.Done():
			return fmt.Errorf("not ready within 60 s: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Client returns a client of the server, for checks behind the remote's
// back.
func (s *Server) Client() (*minio.Client, error) {
	u, _ := url.Parse(s.Endpoint)
	return minio.New(u.Host, &minio.Options{
		Creds:        credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""),
		Region:       s.Region,
		BucketLookup: minio.BucketLookupPath,
		MaxRetries:   1,
	})
}

// URL returns the s3:// URL of a remote in bucket under prefix on this
// server, its endpoint and region as parameters; the credentials are the
// environment's (Env, Getenv).
func (s *Server) URL(bucket, prefix string) string {
	return "s3://" + bucket + "/" + prefix + "?endpoint=" + url.QueryEscape(s.Endpoint) + "&region=" + s.Region
}

// Env returns the settings a server process needs to sign requests to
// this one, as KEY=VALUE.
func (s *Server) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + s.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s.SecretKey}
}

// Getenv looks up the settings of Env, as os.Getenv would with them set.
func (s *Server) Getenv(key string) string {
	for _, kv := range s.Env() {
		if k, v, _ := strings.Cut(kv, "="); k == key {
			return v
		}
	}
	return ""
}

// stop kills weed: its data is thrown away, and a graceful stop takes
// it some 15 seconds. It removes the Unix sockets weed makes in /tmp for
// its services (named by their ports), which a kill leaves behind.
func (s *Server) stop() {
	_ = s.cmd.Process.Kill()
	<-s.done
	for _, p := range s.ports {
		socks, _ := filepath.Glob(fmt.Sprintf("/tmp/seaweedfs-*-%d.sock", p))
		for _, f := range socks {
			os.Remove(f)
		}
	}
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "weed.log"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// freePorts returns n distinct loopback ports that were free, each held
// until all are chosen so that none is chosen twice.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
