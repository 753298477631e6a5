package testbed

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// State is what `testbed up` leaves for exec, status and down: the configuration it built.
type State struct {
	Config  Config    `json:"config"`
	PID     int       `json:"pid"`
	Created time.Time `json:"created"`
	QJump   bool      `json:"qjump"`
}

func statePath(prefix string) string { return filepath.Join(RunDir, prefix+".json") }

func writeState(s State) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(statePath(s.Config.Prefix), b, 0o644); err != nil {
		return fmt.Errorf("write testbed state: %w", err)
	}
	return nil
}

// ErrNotUp means no testbed with the prefix exists.
var ErrNotUp = errors.New("no testbed is up")

// ReadState returns the state of the testbed with prefix, or ErrNotUp.
func ReadState(prefix string) (State, error) {
	var s State
	b, err := os.ReadFile(statePath(prefix))
	if errors.Is(err, os.ErrNotExist) {
		return s, fmt.Errorf("%w with prefix %q (start one with: qjump testbed up --hosts N)", ErrNotUp, prefix)
	}
	if err != nil {
		return s, fmt.Errorf("read testbed state: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("parse testbed state %s: %w", statePath(prefix), err)
	}
	return s, nil
}

func removeState(prefix string) error {
	err := os.Remove(statePath(prefix))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove testbed state: %w", err)
	}
	return nil
}

// MarkQJump records in the state file that QJump is enabled on the hosts.
func MarkQJump(prefix string) error {
	s, err := ReadState(prefix)
	if err != nil {
		return err
	}
	s.QJump = true
	return writeState(s)
}

// OnOff is how status lines and summaries say whether QJump is enabled.
func OnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
