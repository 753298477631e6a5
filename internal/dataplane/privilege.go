package dataplane

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/host"
)

// ErrNoPrivilege means the process lacks the capabilities to load, pin and attach programs.
var ErrNoPrivilege = errors.New("qjump's dataplane needs root")

// required are the capabilities the dataplane needs: CAP_NET_ADMIN for qdiscs, filters and TCX,
// CAP_SYS_ADMIN for bpffs and BPF objects (it also grants what CAP_BPF and CAP_PERFMON do).
var required = []struct {
	cap  int
	name string
}{{unix.CAP_NET_ADMIN, "CAP_NET_ADMIN"}, {unix.CAP_SYS_ADMIN, "CAP_SYS_ADMIN"}}

// MissingPrivilege names the capabilities the dataplane needs that this process does not have
// effective; none when it has them all, or when its capabilities cannot be read (then the
// syscalls speak).
func MissingPrivilege() []string {
	caps, err := host.ReadCaps()
	if err != nil {
		return nil
	}
	var missing []string
	for _, r := range required {
		if caps.Eff&host.CapMask(r.cap) == 0 {
			missing = append(missing, r.name)
		}
	}
	return missing
}

// checkPrivilege looks for the required capabilities before anything is touched, so that a user
// without them gets one clear line instead of whichever syscall fails first. It names only what
// is missing: root in a container that dropped one capability needs that one granted, and a
// line naming both sends them looking for the one they have.
func checkPrivilege() error { return PrivilegeError(ErrNoPrivilege) }

// PrivilegeError is nil when this process has the dataplane's capabilities, else sentinel with
// the ones it lacks and how to get them: the one line of every verb that needs them (the
// testbed's too, with its own sentinel).
func PrivilegeError(sentinel error) error {
	if missing := MissingPrivilege(); len(missing) > 0 {
		m := strings.Join(missing, " and ")
		return fmt.Errorf("%w: this process lacks %s: run it with sudo, or grant it %s", sentinel, m, m)
	}
	return nil
}
