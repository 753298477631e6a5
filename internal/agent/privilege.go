package agent

import (
	"fmt"
	"strings"

	"github.com/qjump-net/qjump/internal/dataplane"
)

// checkPrivilege refuses to start an agent that could do nothing: without the dataplane's
// capabilities every interface fails at every reconcile, each logged, while /healthz (the loop is
// alive) says ok and a supervisor sees a service that runs. There is no unprivileged mode: a
// cluster file is checked by `qjump calc --config`.
func checkPrivilege() error {
	missing := dataplane.MissingPrivilege()
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%w: the agent lacks %s: run it as root (sudo qjump agent ...) or with the capabilities "+
		"that deploy/systemd/qjump-agent.service and deploy/kubernetes/daemonset.yaml grant",
		dataplane.ErrNoPrivilege, strings.Join(missing, " and "))
}
