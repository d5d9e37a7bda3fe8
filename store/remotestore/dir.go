package remotestore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// backend is where a remote's bytes live: a directory (dirBackend) or an
// S3 bucket (s3Backend, with a conditional PUT for swapManifest). Its
// methods may be called from several goroutines at once.
type backend interface {
	// readManifest returns the manifest's bytes, nil if there is none.
	readManifest(ctx context.Context) ([]byte, error)
	// swapManifest replaces the manifest by next if it still is prev
	// (nil: there is none yet), durably, and fails with errManifestMoved
	// if it is not.
	swapManifest(ctx context.Context, prev, next []byte) error
	// writeTable stores a table file durably under name; readers see
	// all of it or nothing. A file of that name already there is the
	// same file (names are hashes of content) and is kept.
	writeTable(ctx context.Context, name string, data []byte) error
	// tableSize returns the size of table file name.
	tableSize(ctx context.Context, name string) (int64, error)
	// readTable fills p from table file name at off.
	readTable(ctx context.Context, name string, p []byte, off int64) error
	close() error
}

// errManifestMoved is swapManifest's refusal: another writer swapped the
// manifest since the caller read it.
var errManifestMoved = errors.New("remotestore: the manifest moved")

// dirBackend keeps a remote in a directory: table files, the manifest,
// and a lock file that serialises manifest swaps between processes
// (flock), so that a swap's compare and its rename are one step.
type dirBackend struct {
	dir   string
	mu    sync.Mutex
	files map[string]*os.File // open table files, for reads
}

const (
	manifestName = "manifest"
	lockName     = "LOCK"
)

// openDir returns the backend of directory dir, creating it if create is
// set.
func openDir(dir string, create bool) (*dirBackend, error) {
	if create {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("remotestore: %w", err)
		}
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("remotestore: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("remotestore: %s is not a directory", dir)
	}
	return &dirBackend{dir: dir, files: map[string]*os.File{}}, nil
}

func (d *dirBackend) readManifest(ctx context.Context) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(d.dir, manifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("remotestore: reading the manifest: %w", err)
	}
	return b, nil
}

func (d *dirBackend) swapManifest(ctx context.Context, prev, next []byte) error {
	lock, err := os.OpenFile(filepath.Join(d.dir, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("remotestore: %w", err)
	}
	defer lock.Close() // releases the flock too
	if err := flock(ctx, lock); err != nil {
		return err
	}
	cur, err := d.readManifest(ctx)
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, prev) || (cur == nil) != (prev == nil) {
		return errManifestMoved
	}
	return writeFileAtomic(d.dir, manifestName, next)
}

// flock takes an exclusive lock of f, waiting for other holders (which
// hold it for one small write) unless ctx ends first.
func flock(ctx context.Context, f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return fmt.Errorf("remotestore: locking %s: %w", f.Name(), err)
		}
		if err := sleepCtx(ctx); err != nil {
			return err
		}
	}
}

func (d *dirBackend) writeTable(ctx context.Context, name string, data []byte) error {
	if _, err := os.Stat(filepath.Join(d.dir, name)); err == nil {
		return nil
	}
	return writeFileAtomic(d.dir, name, data)
}

// writeFileAtomic writes data to dir/name through a temporary file that
// is synced and renamed, then syncs the directory: after a crash the
// file is either whole or absent (or the old one).
func writeFileAtomic(dir, name string, data []byte) error {
	tmp, err := os.CreateTemp(dir, name+".tmp*")
	if err != nil {
		return fmt.Errorf("remotestore: %w", err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("remotestore: writing %s: %w", name, err)
	}
	return syncDir(dir)
}

// syncDir fsyncs a directory, making the renames in it durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("remotestore: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("remotestore: syncing %s: %w", dir, err)
	}
	return nil
}

// file returns the open table file name.
func (d *dirBackend) file(name string) (*os.File, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if f, ok := d.files[name]; ok {
		return f, nil
	}
	f, err := os.Open(filepath.Join(d.dir, name))
	if err != nil {
		return nil, fmt.Errorf("remotestore: table %s: %w", name, err)
	}
	d.files[name] = f
	return f, nil
}

func (d *dirBackend) tableSize(ctx context.Context, name string) (int64, error) {
	f, err := d.file(name)
	if err != nil {
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("remotestore: %w", err)
	}
	return st.Size(), nil
}

func (d *dirBackend) readTable(ctx context.Context, name string, p []byte, off int64) error {
	f, err := d.file(name)
	if err != nil {
		return err
	}
	if _, err := f.ReadAt(p, off); err != nil {
		return fmt.Errorf("remotestore: reading table %s at %d: %w", name, off, err)
	}
	return nil
}

func (d *dirBackend) close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var first error
	for name, f := range d.files {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
		delete(d.files, name)
	}
	return first
}
