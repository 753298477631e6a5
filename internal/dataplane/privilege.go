package dataplane

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrNoPrivilege means the process lacks the capabilities to load, pin and attach programs.
var ErrNoPrivilege = errors.New("qjump's dataplane needs root")

// checkPrivilege looks for CAP_NET_ADMIN (qdiscs, filters, TCX) and CAP_SYS_ADMIN (bpffs, BPF
// objects) before anything is touched, so that a user without them gets one clear line instead of
// whichever syscall fails first.
func checkPrivilege() error {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil // cannot tell: let the syscalls speak
	}
	for _, line := range strings.Split(string(data), "\n") {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			if err != nil {
				return nil
			}
			const need = 1<<unix.CAP_NET_ADMIN | 1<<unix.CAP_SYS_ADMIN
			if caps&need != need {
				return fmt.Errorf("%w (CAP_NET_ADMIN and CAP_SYS_ADMIN): run it with sudo", ErrNoPrivilege)
			}
		}
	}
	return nil
}
