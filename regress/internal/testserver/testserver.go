package testserver

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds cmd/pgserver into a temporary directory, once.
func binary(t testing.TB) string {
	buildOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..", "..")
		dir, err := os.MkdirTemp("", "pgserver-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "pgserver")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/pgserver")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building pgserver: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// Server is a running pgserver.
type Server struct {
	Host    string
	Port    int
	DataDir string
	cmd     *exec.Cmd
	t       testing.TB
}

// Start runs a server on a fresh data directory.
func Start(t testing.TB) *Server {
	return StartDir(t, t.TempDir())
}

// StartDir runs a server on dataDir, which may hold an earlier server's
// data.
func StartDir(t testing.TB, dataDir string) *Server {
	return StartOpts(t, Options{DataDir: dataDir})
}

// Options are the less common ways to start a server.
type Options struct {
	DataDir string   // default: a new t.TempDir()
	Args    []string // extra flags
	Env     []string // extra environment, KEY=VALUE
	Port    int      // default: a free port (a restarted server may want its old one)
}

// StartOpts runs a server as o says.
func StartOpts(t testing.TB, o Options) *Server {
	t.Helper()
	bin := binary(t)
	port := o.Port
	if port == 0 {
		port = freePort(t)
	}
	if o.DataDir == "" {
		o.DataDir = t.TempDir()
	}
	s := &Server{Host: "127.0.0.1", Port: port, DataDir: o.DataDir, t: t}
	args := append([]string{"--listen", fmt.Sprintf("127.0.0.1:%d", port), "--data-dir", o.DataDir, "--log-level", "warn"}, o.Args...)
	s.cmd = exec.Command(bin, args...)
	s.cmd.Env = append(os.Environ(), o.Env...)
	s.cmd.Stdout, s.cmd.Stderr = os.Stderr, os.Stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if owned, known := listensOn(s.cmd.Process.Pid, port); known {
			if owned {
				return s
			}
		} else if c, err := net.DialTimeout("tcp", s.Addr(), time.Second); err == nil {
			c.Close()
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("pgserver did not start listening on %s", s.Addr())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// PID returns the server process's id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Addr returns host:port.
func (s *Server) Addr() string { return fmt.Sprintf("%s:%d", s.Host, s.Port) }

// DSN returns a connection string for database db.
func (s *Server) DSN(db string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", s.Addr(), db)
}

// Stop ends the server with SIGTERM and waits for it.
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil || s.cmd.ProcessState != nil {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// Kill ends the server with SIGKILL, as a crash would.
func (s *Server) Kill() {
	if s.cmd.ProcessState != nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// listensOn reports whether process pid has a listening TCP socket on
// port, from /proc (known is false where /proc does not tell). A dial is
// not enough: the port was free when freePort chose it, but until the
// server binds it after initialising its store, another test's server
// may take it, and a dial would then reach the wrong server.
func listensOn(pid, port int) (owned, known bool) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return false, false
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		// Each line: sl local_address rem_address st ... uid timeout inode.
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" { // 0A: LISTEN
				continue
			}
			i := strings.LastIndexByte(f[1], ':')
			if p, err := strconv.ParseUint(f[1][i+1:], 16, 16); err == nil && int(p) == port && inodes[f[9]] {
				return true, true
			}
		}
	}
	return false, true
}

// Context returns a context that ends with the test.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}
