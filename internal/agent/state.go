package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DefaultStateDir keeps what the agent assigned across its restarts. /run is cleared at boot, as
// bpffs is, so the two never disagree about a previous boot.
const DefaultStateDir = "/run/qjump-agent"

// state is what a restarted agent must know that the kernel does not tell: which cgroups it
// assigned (so that it can unassign those the file no longer lists) and which ceilings it set
// below them (ids of removed cgroups cannot be found any other way), and which interfaces it runs
// QJump on (so that it takes QJump off one the file stopped matching while it was not running).
type state struct {
	Cgroups map[string]*assignment `json:"cgroups"`
	Devices []string               `json:"devices,omitempty"`
}

func stateFile(dir string) string { return filepath.Join(dir, "state.json") }

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
