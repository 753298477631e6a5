package testbed

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// State is what `testbed up` leaves for exec, status and down: the configuration it built.
type State struct {
	Config  Config    `json:"config"`
	PID     int       `json:"pid"`
	Created time.Time `json:"created"`
	QJump   bool      `json:"qjump"`
	// Building: the process that holds the prefix's lock is still making the testbed what it
	// asked for (testbed up: QJump on every host), or runs an experiment on it. Up sets it,
	// Release clears it. Found with the lock free, it says that process died first (SIGKILL; a
	// handled signal takes the testbed down): what is there is remains, which the next Up
	// removes.
	Building bool `json:"building,omitempty"`
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
		return s, fmt.Errorf("%w with prefix %q (start one with: qjump testbed up --hosts N)%s", ErrNotUp, prefix, OthersUp(prefix))
	}
	if err != nil {
		return s, fmt.Errorf("read testbed state: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("parse testbed state %s: %w", statePath(prefix), err)
	}
	return s, nil
}

// Exists says whether anything of a testbed with prefix is there: its state file, or a namespace
// a crashed run left without one.
func Exists(prefix string) bool {
	if _, err := os.Stat(statePath(prefix)); err == nil {
		return true
	}
	nss, _ := Namespaces(prefix)
	return len(nss) > 0
}

// Prefixes lists the prefixes of the testbeds that are up (a state file in RunDir): under other
// prefixes than the default, those of a --prefix run, or of a test or run that was killed before
// it could remove its own.
func Prefixes() ([]string, error) {
	entries, err := os.ReadDir(RunDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list testbeds in %s: %w", RunDir, err)
	}
	var out []string
	for _, e := range entries {
		if p, ok := strings.CutSuffix(e.Name(), ".json"); ok && CheckPrefix(p) == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// OthersUp names the testbeds up under prefixes other than prefix, for the message that says none
// is up under prefix: a user who built one with --prefix, or whose run was killed, finds it.
func OthersUp(prefix string) string {
	all, _ := Prefixes()
	var others []string
	for _, p := range all {
		if p != prefix {
			others = append(others, p)
		}
	}
	switch len(others) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("; one is up with prefix %s (qjump testbed status --prefix %s; remove it with qjump testbed down --prefix %s)", others[0], others[0], others[0])
	}
	return fmt.Sprintf("; up with other prefixes: %s (qjump testbed status --prefix P; remove with qjump testbed down --prefix P)", strings.Join(others, ", "))
}

func removeState(prefix string) error {
	err := os.Remove(statePath(prefix))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove testbed state: %w", err)
	}
	return nil
}

// finish records that the testbed is what its maker asked for, with QJump enabled on the hosts or
// not: it is up for others now, no longer being built.
func finish(prefix string, qjump bool) error {
	s, err := ReadState(prefix)
	if err != nil {
		return err
	}
	s.QJump, s.Building = qjump, false
	return writeState(s)
}

// OnOff is how status lines and summaries say whether QJump is enabled.
func OnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
