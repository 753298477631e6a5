package apputil

import (
	"bytes"
	"crypto/sha256"
	_ "embed" // the preload shim
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// preloadShim is libqjump-preload.so, built from preload/ by `make preload` and committed (see
// the Makefile for why), so that the qjump binary is the whole install.
//
//go:embed libqjump-preload.so
var preloadShim []byte

// sharedObjectName is the cache file name of the embedded shim: content-addressed, so two qjump
// versions never overwrite each other's shim under a running program.
func sharedObjectName() string {
	sum := sha256.Sum256(preloadShim)
	return "libqjump-preload-" + hex.EncodeToString(sum[:8]) + ".so"
}

// SharedObject writes the embedded shim to the cache directory on first use and returns its path.
// A file already there is used only if its bytes are the shim's.
func SharedObject() (string, error) {
	dir, err := cacheDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, sharedObjectName())
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, preloadShim) {
		return path, nil
	}
	return path, writeAtomic(path, preloadShim)
}

// cacheDir is $XDG_CACHE_HOME/qjump or ~/.cache/qjump, or, for a user without a home (nobody, a
// service), a directory in /tmp owned by the user alone. LD_PRELOAD runs what it names with the
// program's rights, so the directory must not be writable by anyone else.
func cacheDir() (string, error) {
	if base, err := os.UserCacheDir(); err == nil {
		dir := filepath.Join(base, "qjump")
		if os.MkdirAll(dir, 0o700) == nil {
			return dir, nil
		}
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("qjump-%d", os.Getuid()))
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return "", fmt.Errorf("create cache directory %s: %w", dir, err)
	}
	return dir, ownedByMe(dir)
}

func ownedByMe(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check cache directory: %w", err)
	}
	if !st.IsDir() || st.Mode().Perm()&0o022 != 0 || fileOwner(st) != os.Getuid() {
		return fmt.Errorf("cache directory %s is not a directory owned and writable only by uid %d", dir, os.Getuid())
	}
	return nil
}

func fileOwner(st os.FileInfo) int {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(sys.Uid)
	}
	return -1
}

// writeAtomic writes data to path through a temporary file and a rename, so that a program
// starting at the same moment never maps half a shim.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*.so")
	if err != nil {
		return fmt.Errorf("write preload shim: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write preload shim: %w", err)
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return fmt.Errorf("write preload shim: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write preload shim: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write preload shim: %w", err)
	}
	return nil
}
