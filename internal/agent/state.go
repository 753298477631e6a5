package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/host"
)

// DefaultStateDir keeps what the agent assigned across its restarts. /run is cleared at boot, as
// bpffs is, so the two never disagree about a previous boot.
const DefaultStateDir = "/run/qjump-agent"

// state is what a restarted agent must know that the kernel does not tell: which cgroups it
// assigned (so that it can unassign those the file no longer lists) and which ceilings it set
// below them (ids of removed cgroups cannot be found any other way), and which interfaces it runs
// QJump on (so that it takes QJump off one the file stopped matching while it was not running).
// Netns is the network namespace (host.NetnsKey) the Devices are in, for qjump status (Manages):
// interface names are per namespace.
type state struct {
	Cgroups map[string]*assignment `json:"cgroups"`
	Devices []string               `json:"devices,omitempty"`
	Netns   string                 `json:"netns,omitempty"`
}

func stateFile(dir string) string { return filepath.Join(dir, "state.json") }

func lockFile(dir string) string { return filepath.Join(dir, "agent.lock") }

// lockStateDir makes this agent the only one that uses dir, until the returned file is closed (or
// the process ends, however it ends). The network namespace's lock (lockNetns) keeps two agents
// off one namespace's interfaces; this one keeps two agents off one record, which the first
// does not: agents in two network namespaces (pods without the host network, or tests) given the
// same directory would each overwrite the other's record of the cgroups they assigned, and cgroups
// are the host's, not a namespace's. `qjump status` also finds the agent of a state directory by
// this lock (Manages). The second agent is refused, naming the first.
//
// An agent stopping with DownOnExit removes the lock file (stop). Another agent that opened it
// just before would then get its flock on a file no longer at the path, which nobody else sees:
// a third one would create a new file and lock that too, and two agents would share dir. So a
// lock counts only on the file at the path (host.LockAt, as for testbed.Acquire and the
// dataplane's state lock).
func lockStateDir(dir string) (*os.File, error) {
	path := lockFile(dir)
	open := func() (*os.File, error) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create state directory: %w", err)
		}
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("lock agent state: %w", err) // missing: dir removed by a stopping agent, made again
		}
		return f, nil
	}
	return host.LockAt(path, true, open, func(f *os.File) error {
		beforeStateFlock(path)
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return stateDirHeld(dir)
			}
			return fmt.Errorf("lock agent state %s: %w", path, err)
		}
		return nil
	})
}

// beforeStateFlock runs between lockStateDir's open of the lock file and its flock: a test's
// seam, to remove or replace the file at that moment as a stopping agent could.
var beforeStateFlock = func(path string) {}

// stateDirHeld is the refusal of a second agent on a state directory, naming the first.
func stateDirHeld(dir string) error {
	other := "another qjump agent"
	if pid, ok := host.LockHolder(lockFile(dir)); ok { // the same lookup as status's (Manages)
		other += fmt.Sprintf(" (pid %d)", pid)
	}
	return fmt.Errorf("%s keeps its state in %s: give each agent its own --state-dir, or stop the "+
		"other (its systemd unit, its DaemonSet's pod, or the process)", other, dir)
}

func readState(dir string) (state, error) {
	s := state{Cgroups: map[string]*assignment{}}
	data, err := os.ReadFile(stateFile(dir))
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read agent state: %w", err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return state{Cgroups: map[string]*assignment{}}, fmt.Errorf("decode agent state %s: %w", stateFile(dir), err)
	}
	return s, nil
}

// writeState replaces the file atomically: a crash mid-write leaves the previous state.
func writeState(dir string, s state) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create state directory: %w", err)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode agent state: %w", err)
	}
	tmp := stateFile(dir) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("write agent state: %w", err)
	}
	if err := os.Rename(tmp, stateFile(dir)); err != nil {
		return fmt.Errorf("write agent state: %w", err)
	}
	return nil
}
