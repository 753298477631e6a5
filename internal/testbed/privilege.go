package testbed

import (
	"errors"

	"github.com/qjump-net/qjump/internal/dataplane"
)

// ErrNoPrivilege means the process cannot build or remove a testbed: that makes network
// namespaces, veth pairs and qdiscs, and runs `qjump up` in each host.
var ErrNoPrivilege = errors.New("the testbed needs root")

// CheckPrivilege looks for the capabilities a testbed needs, the dataplane's (CAP_NET_ADMIN and
// CAP_SYS_ADMIN), before anything else, so that a user without them gets one line saying so and
// how to get them. Without it, the first thing to fail spoke instead: the lock file in RunDir
// ("permission denied"), or an unprivileged read of the congestion controls that made cubic look
// missing. It names only what is missing, as `qjump up` does.
func CheckPrivilege() error { return dataplane.PrivilegeError(ErrNoPrivilege) }
