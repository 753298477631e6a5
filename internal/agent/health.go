package agent

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

// stuckAfter is how long the loop may go without a heartbeat before /healthz fails and a
// supervisor restarts the agent. Bringing QJump up takes milliseconds; a loop silent this long
// is wedged, not busy.
const stuckAfter = 30 * time.Second

// healthz answers whether the agent's loop is alive: restarting it helps when it is not.
func (a *Agent) healthz(w http.ResponseWriter, _ *http.Request) {
	if since := time.Since(time.Unix(0, a.beat.Load())); since > stuckAfter {
		http.Error(w, fmt.Sprintf("agent loop silent for %s", model.DurationText(since.Round(time.Second))), http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "ok")
}

// readyz answers whether every configured interface runs the current configuration.
func (a *Agent) readyz(w http.ResponseWriter, _ *http.Request) {
	if err := a.readiness(); err != nil {
		http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "ok")
}

// readiness reads the dataplane itself rather than trusting what the loop last did: an interface
// whose hook someone removed by hand is not ready, whatever the agent believes.
func (a *Agent) readiness() error {
	spec := a.current.Load()
	if spec == nil {
		return errors.New("no valid configuration loaded")
	}
	names, err := matchingLinks(spec.Agent)
	if err != nil {
		return err
	}
	for _, want := range spec.Agent.named() {
		if !slices.Contains(names, want) {
			return fmt.Errorf("interface %s: not in this network namespace", want)
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("no interface matches %v", spec.Agent.Interfaces)
	}
	// Pods' annotations are applied once their first list is in: an API server the agent cannot
	// reach (or RBAC not applied yet) left it ready with no pod on its level, and said nothing.
	if a.opts.Pods != nil && !a.podsSynced.Load() {
		return errors.New("the pods of this node are not listed yet, so their qjump.io annotations wait " +
			"(qjump_agent_apply_errors_total{operation=\"pods\"} counts the failed lists; the log says why)")
	}
	for _, dev := range names {
		st, err := dataplane.DeviceStatus(dev)
		want, _, wantErr := wantFor(*spec, dev)
		switch {
		case err != nil:
			return fmt.Errorf("interface %s: %w", dev, err)
		case wantErr != nil:
			return fmt.Errorf("interface %s: %w", dev, wantErr)
		case st.Device != dev:
			return fmt.Errorf("interface %s: qjump is not up on it: the state under its name is %s's, renamed since", dev, st.Device)
		case !st.Attached:
			return fmt.Errorf("interface %s: qjump's hook is not attached", dev)
		case st.TreeGone != "":
			return fmt.Errorf("interface %s: qjump's egress tree is gone: %s", dev, st.TreeGone)
		case !sameConfig(st.Config, want):
			return fmt.Errorf("interface %s: runs another configuration (generation %d)", dev, st.Generation)
		}
	}
	return nil
}
