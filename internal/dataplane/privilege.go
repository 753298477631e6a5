package dataplane

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/host"
)

// ErrNoPrivilege means the process lacks the capabilities to load, pin and attach programs.
var ErrNoPrivilege = errors.New("qjump's dataplane needs root")

// checkPrivilege looks for CAP_NET_ADMIN (qdiscs, filters, TCX) and CAP_SYS_ADMIN (bpffs, BPF
// objects) before anything is touched, so that a user without them gets one clear line instead of
// whichever syscall fails first.
func checkPrivilege() error {
	caps, err := host.ReadCaps()
	if err != nil {
		return nil // cannot tell: let the syscalls speak
	}
	if need := host.CapMask(unix.CAP_NET_ADMIN, unix.CAP_SYS_ADMIN); caps.Eff&need != need {
		return fmt.Errorf("%w (CAP_NET_ADMIN and CAP_SYS_ADMIN): run it with sudo", ErrNoPrivilege)
	}
	return nil
}
