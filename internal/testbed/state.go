package testbed

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
	// Release clears it. Found with the lock free, it says that process died first (Probe):
	// what is there is remains, which the next Up removes.
	Building bool `json:"building,omitempty"`
	// Removing: Cleanup (testbed down, or an up replacing remains) is deleting the testbed. It is
	// written before the first namespace goes: a down killed part-way left a record of a testbed
	// that was up, and status showed it with hosts missing, their QJump "off". Found with the
	// lock free, it says the remover died first (Probe).
	Removing bool `json:"removing,omitempty"`
}

func statePath(prefix string) string { return filepath.Join(RunDir, prefix+".json") }

// writeState replaces the state file whole: it writes a file beside it and renames that over it.
// Status, exec and the other prefixes' messages read the state without the lock, and a state
// truncated and then written in place was read empty or half written ("unexpected end of JSON
// input") beside an up. Every writer holds the prefix's lock, so one temporary name is enough.
func writeState(s State) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	path := statePath(s.Config.Prefix)
	tmp := path + ".tmp"
	if err := writeReadable(tmp, b); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write testbed state: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write testbed state: %w", err)
	}
	return nil
}

// writeReadable writes b to a new file at path that anyone may read, whatever the umask: status
// reads the state without root.
func writeReadable(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ErrNotUp means no testbed with the prefix exists.
var ErrNotUp = errors.New("no testbed is up")

// ErrIncomplete means what is there under the prefix is the remains of a testbed whose maker was
// killed before it finished: one to remove (or to replace with up), not one to use.
var ErrIncomplete = errors.New("incomplete")

// ErrHalfRemoved means what is there under the prefix is what a removal killed part-way left:
// one to remove (or to replace with up), not one to use.
var ErrHalfRemoved = errors.New("half-removed")

// ReadState returns the state of the testbed with prefix; ErrNotUp when nothing of one is there,
// ErrIncomplete for namespaces without a state.
func ReadState(prefix string) (State, error) {
	var s State
	b, err := os.ReadFile(statePath(prefix))
	if errors.Is(err, os.ErrNotExist) {
		return s, noStateError(prefix)
	}
	if err != nil {
		return s, fmt.Errorf("read testbed state: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("parse testbed state %s: %w", statePath(prefix), err)
	}
	return s, nil
}

// noStateError is why prefix has no state. Namespaces without one are remains: Up writes the state
// before it makes the first namespace (and Cleanup removes it after the last), so they were left
// by a qjump from before it did, killed while building, or their state was removed by hand.
// Saying that no testbed is up hid them from status and exec, and from the list of the others.
func noStateError(prefix string) error {
	nss, _ := Namespaces(prefix)
	if len(nss) > 0 {
		return fmt.Errorf("testbed %s is %w: %d namespaces carry its prefix (%s) without the record of a testbed; "+
			"remove them with: %s", prefix, ErrIncomplete, len(nss), strings.Join(nss, ", "), DownCommand(prefix))
	}
	return fmt.Errorf("%w with prefix %q (start one with: qjump testbed up --hosts N%s)%s", ErrNotUp, prefix, prefixFlag(prefix), OthersUp(prefix))
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

// Prefixes lists the prefixes under which a testbed is up (a state file in RunDir), or its remains
// are (a namespace named as a testbed's, NetnsDir/P-sw or P-hN, without a state): under other
// prefixes than the default, those of a --prefix run, or of a test or run that was killed before
// it could remove its own.
func Prefixes() ([]string, error) {
	states, err := os.ReadDir(RunDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("list testbeds in %s: %w", RunDir, err)
	}
	var out []string
	for _, e := range states {
		if p, ok := strings.CutSuffix(e.Name(), ".json"); ok && CheckPrefix(p) == nil {
			out = append(out, p)
		}
	}
	namespaces, _ := os.ReadDir(NetnsDir) // none: no remains
	for _, e := range namespaces {
		if p, ok := testbedNamespace(e.Name()); ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// hostNamespace matches the part of a host's namespace name after its prefix (Names.HostNS).
var hostNamespace = regexp.MustCompile(`^h[0-9]+$`)

// testbedNamespace returns the prefix of ns if ns is named as a testbed names its switch or hosts:
// other namespaces (a dataplane test's pair, anyone's own) are no testbed's remains.
func testbedNamespace(ns string) (string, bool) {
	p, rest, ok := strings.Cut(ns, "-")
	if !ok || CheckPrefix(p) != nil || rest != "sw" && !hostNamespace.MatchString(rest) {
		return "", false
	}
	return p, true
}

// OthersUp names the testbeds under prefixes other than prefix, for the message that says none
// is up under prefix: a user who built one with --prefix, or whose run was killed, finds it. It
// does not say which are up and which are the remains of a killed run (finding that takes root,
// and status says it): it called remains "up".
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
		return fmt.Sprintf("; there is one with prefix %s, up, incomplete or half-removed (qjump testbed status --prefix %s says which; "+
			"remove it with qjump testbed down --prefix %s)", others[0], others[0], others[0])
	}
	return fmt.Sprintf("; with other prefixes, up, incomplete or half-removed: %s (qjump testbed status --prefix P says which; "+
		"remove one with qjump testbed down --prefix P)", strings.Join(others, ", "))
}

// removeState removes the state, and the temporary file of a writer that was killed before it
// renamed it (writeState).
func removeState(prefix string) error {
	_ = os.Remove(statePath(prefix) + ".tmp")
	err := os.Remove(statePath(prefix))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove testbed state: %w", err)
	}
	return nil
}

// Condition is what a testbed's record says of it once its lock is probed.
type Condition int

const (
	// Finished: its maker finished it and let the lock go: up, for anyone to use.
	Finished Condition = iota
	// InUse: its record says Building and its maker holds the lock: being built, or run by an
	// experiment.
	InUse
	// Killed: its record says Building and nobody holds the lock: its maker was killed before it
	// finished (SIGKILL; a handled signal takes the testbed down), and what is there is remains.
	Killed
	// BeingRemoved: its record says Removing and the remover holds the lock.
	BeingRemoved
	// HalfRemoved: its record says Removing and nobody holds the lock: the remover was killed
	// part-way, and what is there is remains.
	HalfRemoved
	// CannotTell: its record says Building or Removing and the lock cannot be probed. The lock file
	// is root's alone, so without root a live maker (or remover) and a killed one look the same.
	CannotTell
)

// String is the condition's name in status --json: up, in-use, incomplete, being-removed,
// half-removed, cannot-tell.
func (c Condition) String() string {
	switch c {
	case Finished:
		return "up"
	case InUse:
		return "in-use"
	case Killed:
		return "incomplete"
	case BeingRemoved:
		return "being-removed"
	case HalfRemoved:
		return "half-removed"
	}
	return "cannot-tell"
}

// Probe returns the testbed's state now and its condition, s being its record as read before.
// A record that says Building or Removing is read again holding the prefix's lock: every maker
// and remover writes its record holding it, so a record that says either under it was left by
// one that was killed. Probed after the record was read, a free lock also followed a maker that
// finished in between, and status, which read every host between the two, called that testbed
// incomplete. A lock that cannot be probed (without root) is CannotTell: taken for a free one, it
// made status as anyone but root call every testbed being built incomplete, its live maker killed.
func (s State) Probe() (State, Condition, error) {
	if !s.Building && !s.Removing {
		return s, Finished, nil
	}
	lock, err := acquireShared(s.Config.Prefix)
	switch {
	case errors.Is(err, ErrBusy) && s.Removing:
		return s, BeingRemoved, nil
	case errors.Is(err, ErrBusy):
		return s, InUse, nil
	case err != nil:
		return s, CannotTell, nil
	}
	defer releaseProbe(lock, s.Config.Prefix)
	now, err := ReadState(s.Config.Prefix)
	switch {
	case err != nil: // removed since: not up, or namespaces without a record
		return now, Finished, err
	case now.Removing: // before Building: an up killed while it removed a killed maker's remains
		return now, HalfRemoved, nil
	case now.Building:
		return now, Killed, nil
	}
	return now, Finished, nil
}

// releaseProbe drops the lock Probe took, removing its file when there is no record: a testbed
// removed since the record was first read left none, and the probe should not make one.
func releaseProbe(lock *Lock, prefix string) {
	if _, err := os.Stat(statePath(prefix)); errors.Is(err, os.ErrNotExist) {
		lock.Remove()
		return
	}
	lock.Release()
}

// Unusable says why a testbed in condition c is not one to use, for status to warn of and exec
// to refuse, or nil when it is (Finished, or InUse: being built, or run by an experiment).
func (s State) Unusable(c Condition) error {
	p := s.Config.Prefix
	switch c {
	case Killed:
		return fmt.Errorf("testbed %s is %w: the qjump that built it (pid %d) was killed before it finished; "+
			"remove it with: %s (testbed up replaces it)", p, ErrIncomplete, s.PID, DownCommand(p))
	case HalfRemoved:
		return fmt.Errorf("testbed %s is %w: the qjump that was removing it was killed part-way, or could not delete a namespace; "+
			"remove the rest with: %s (testbed up replaces it)", p, ErrHalfRemoved, DownCommand(p))
	case BeingRemoved:
		return fmt.Errorf("testbed %s is being removed by the qjump that holds its lock", p)
	case CannotTell:
		return s.cannotTell()
	}
	return nil
}

// cannotTell is what is known of a testbed whose record says it is being built or removed when
// its lock cannot be probed: one or the other, or the remains of a qjump killed doing it.
func (s State) cannotTell() error {
	p := s.Config.Prefix
	if s.Removing {
		return fmt.Errorf("testbed %s is being removed, or the qjump that was removing it was killed part-way: "+
			"run status as root to tell", p)
	}
	return fmt.Errorf("testbed %s is being built, or run by an experiment, by pid %d, or that qjump was killed "+
		"before it finished: run status as root to tell", p, s.PID)
}

// markRemoving records that the testbed is being removed, before anything of it goes (Removing).
// A record that cannot be read is left as it is: what status says of it (no record, or one it
// cannot parse) is what it would say with the namespaces gone.
func markRemoving(prefix string) error {
	s, err := ReadState(prefix)
	if err != nil || s.Removing {
		return nil
	}
	s.Removing = true
	return writeState(s)
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
