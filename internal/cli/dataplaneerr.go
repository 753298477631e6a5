package cli

import (
	"errors"
	"fmt"
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
