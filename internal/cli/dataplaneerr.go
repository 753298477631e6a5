package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/cilium/ebpf"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

// dataplaneError turns what the dataplane (and the cgroup programs of run, assign and unassign)
// reports into what the user can act on: bad input exits 2; a missing privilege or kernel feature
// says which and exits 1.
func dataplaneError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, dataplane.ErrNoDevice), errors.Is(err, dataplane.ErrNotEthernet):
		return &UsageError{Err: fmt.Errorf("invalid --dev: %w", err)}
	case errors.Is(err, dataplane.ErrNoPrivilege):
		return err
	case errors.Is(err, os.ErrPermission):
		return fmt.Errorf("%w: this needs root (CAP_BPF, CAP_NET_ADMIN and CAP_SYS_ADMIN): run qjump with sudo", err)
	case errors.Is(err, ebpf.ErrNotSupported):
		return fmt.Errorf("%w: the kernel lacks a feature QJump needs (TCX needs Linux 6.6; --attach clsact works on older kernels)", err)
	}
	return asFlagError(err)
}

// configFileError is configError for the file that --config names: a path that names no file is
// refused naming the flag, as any other bad value is (it said "read config: open x: no such
// file or directory").
func configFileError(path string, err error) error {
	if missing := noFileError("config", path, err); missing != nil {
		return missing
	}
	return configError(err)
}

// noFileError is the refusal of --flag's path when err says it names no file (nothing there, or
// a directory), nil for any other error: --config and testbed up's --qjump alike.
func noFileError(flag, path string, err error) error {
	var pe *fs.PathError
	if (errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.EISDIR)) && errors.As(err, &pe) {
		return usageErrorf("invalid --%s %q: %v; need a configuration file's path", flag, path, pe.Err)
	}
	return nil
}

// configError reports a bad configuration file: its field errors exit 2, naming the key.
func configError(err error) error {
	var fe *model.FieldError
	if errors.As(err, &fe) {
		return &UsageError{Err: err}
	}
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.EISDIR) {
		return &UsageError{Err: err} // a path that names no file: the caller's to fix
	}
	return err
}
