package apputil

import (
	"bytes"
	"crypto/sha256"
	_ "embed" // the preload shim
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/qjump-net/qjump/internal/host"
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

// rootCache is root's shim cache: under sudo -E, root inherits the user's $HOME and
// $XDG_CACHE_HOME, and must not preload a file that user could replace.
var rootCache = "/var/cache/qjump"

// cacheDir is where the shim is written: $XDG_CACHE_HOME/qjump or ~/.cache/qjump; failing that,
// /var/cache/qjump for root, or a directory in /tmp for a user without a home (nobody, a
// service). LD_PRELOAD runs what it names with the program's rights, so the directory and its
// parent must belong to this user and be writable by no one else.
func cacheDir() (string, error) {
	dir, err := userCacheDir()
	// LD_PRELOAD splits its list at spaces and colons: a shim path with one is never preloaded.
	if err == nil && !strings.ContainsAny(dir, " :\t") {
		return dir, nil
	}
	if os.Geteuid() == 0 {
		if err := os.MkdirAll(rootCache, 0o755); err != nil {
			return "", fmt.Errorf("create cache directory %s: %w", rootCache, err)
		}
		return rootCache, errors.Join(ownedByMe(filepath.Dir(rootCache), os.Stat), ownedByMe(rootCache, os.Lstat))
	}
	dir = filepath.Join(os.TempDir(), fmt.Sprintf("qjump-%d", os.Geteuid()))
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return "", fmt.Errorf("create cache directory %s: %w", dir, err)
	}
	return dir, ownedByMe(dir, os.Lstat) // /tmp itself is everyone's, but sticky
}

// userCacheDir is $XDG_CACHE_HOME/qjump or ~/.cache/qjump if it and its parent are this user's
// alone. Root checks the parent first, so as not to create anything in a user's home.
func userCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	if os.Geteuid() == 0 {
		if err := ownedByMe(base, os.Stat); err != nil {
			return "", err
		}
	}
	dir := filepath.Join(base, "qjump")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, errors.Join(ownedByMe(base, os.Stat), ownedByMe(dir, os.Lstat))
}

// ownedByMe checks that path is a directory owned by this user that no one else may write to
// (host.OwnedByMe); stat is os.Lstat where a symbolic link must not stand in for the directory.
func ownedByMe(path string, stat func(string) (os.FileInfo, error)) error {
	st, err := stat(path)
	if err != nil {
		return fmt.Errorf("check cache directory: %w", err)
	}
	if err := host.OwnedByMe(path, st); err != nil {
		return fmt.Errorf("cache directory: %w", err)
	}
	return nil
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
