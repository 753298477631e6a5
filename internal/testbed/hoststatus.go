package testbed

import (
	"errors"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/host"
)

// HostQJump is what QJump runs on one host's interface, as `qjump status` there would say.
type HostQJump struct {
	Host       int    `json:"host"`
	Up         bool   `json:"up"`
	Attached   bool   `json:"attached,omitempty"`
	Generation uint64 `json:"generation,omitempty"`
	Mode       string `json:"mode,omitempty"`
	// ConfigHash is config.Hash of the running configuration, as the agent's metrics label it:
	// hosts that run the same cluster configuration show the same hash.
	ConfigHash string `json:"config_hash,omitempty"`
	Error      string `json:"error,omitempty"`
}

// QJumpStatus reads what QJump runs on every host, entering each host's namespace.
func (n Names) QJumpStatus(hosts int) []HostQJump {
	out := make([]HostQJump, hosts)
	for i := range out {
		out[i] = n.hostQJump(i + 1)
	}
	return out
}

func (n Names) hostQJump(i int) HostQJump {
	h := HostQJump{Host: i}
	var st dataplane.Status
	var err error
	if nsErr := host.InNetns(n.HostNS(i), func() { st, err = dataplane.DeviceStatus(n.HostIface()) }); nsErr != nil {
		err = nsErr
	}
	switch {
	case errors.Is(err, dataplane.ErrNotUp):
	case err != nil:
		h.Error = err.Error()
	default:
		h.Up, h.Attached, h.Generation = true, st.Attached, st.Generation
		h.Mode, h.ConfigHash = string(st.Config.Mode), config.Hash(st.Config)
	}
	return h
}

// Running counts the hosts that run QJump: up, and attached to the interface's egress. It is what
// the testbed's status heads with: `qjump up` or `down` inside a host changes it after up built
// the testbed with QJump or without (State.QJump).
func Running(hosts []HostQJump) int {
	n := 0
	for _, h := range hosts {
		if h.Up && h.Attached {
			n++
		}
	}
	return n
}

// Unreadable counts the hosts whose QJump could not be read (Error): neither on nor off. Counted
// as off, a host whose namespace a killed down had removed made status say QJump ran on some hosts
// and not on the others.
func Unreadable(hosts []HostQJump) int {
	n := 0
	for _, h := range hosts {
		if h.Error != "" {
			n++
		}
	}
	return n
}

// ConfigsDiffer reports whether the hosts that run QJump run different configurations: then no
// latency bound holds for the cluster.
func ConfigsDiffer(hosts []HostQJump) bool {
	seen := ""
	for _, h := range hosts {
		if !h.Up {
			continue
		}
		if seen != "" && h.ConfigHash != seen {
			return true
		}
		seen = h.ConfigHash
	}
	return false
}
