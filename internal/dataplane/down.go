package dataplane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Down detaches QJump from the device, puts back the egress tree Up found and removes everything
// Up created: the hook, the clsact qdisc if Up added it, the pins. A device that is not up is not an
// error; what QJump left on it with its state gone (an orphan) is removed.
func Down(device string) error {
	p, err := pathsFor(device)
	if err != nil {
		return err
	}
	// State under this name is what down means, even if its device has been renamed since (the
	// agent asks for that when an interface leaves its set by a rename); without any, the name
	// may be the new one of a renamed device: stateOf, as status finds it.
	unlock, err := lockState(context.Background(), p.root, false)
	if errors.Is(err, os.ErrNotExist) {
		// No state root, so no lock to take: nothing is up here, and an up may be making it. Only
		// what QJump left on the device with its state gone is removed, never a directory that
		// up is writing its record into (review, helper-103).
		return removeOrphan(device)
	}
	if err != nil {
		return err
	}
	defer unlock()
	if err := down(stateOf(p, device)); err != nil {
		return err
	}
	// Last, as the lock is given up: removing the state directory lets the next process lock a
	// new one, so nothing may be done under this lock afterwards.
	removeEmpty(p)
	return nil
}

// down is Down under the state lock, without removing the state directory: up --replace goes on
// to build under the same lock.
func down(p paths) error {
	rec, err := readRecord(p)
	if err != nil {
		if errors.Is(err, ErrNotUp) {
			return errors.Join(removeOrphan(p.deviceName()), removeDebris(p))
		}
		return err
	}
	return teardown(p, rec)
}

// free says whether a device's state directory holds no state: there is none, or it is a
// directory without a record (what a killed down leaves). One test for removeDebris and for
// followRenames' choice of a name to move a state to, so that a name called free is always
// made free (review, helper-103).
func free(p paths) bool {
	fi, err := os.Lstat(p.device)
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	if err != nil || !fi.IsDir() {
		return false
	}
	_, err = os.Lstat(p.pin(pinMeta))
	return errors.Is(err, os.ErrNotExist)
}

// removeDebris removes what is left of a device's state without its record: a down killed after
// it removed the record (teardown removes it first) and before the rest. Up writes the record as
// soon as it makes the directory, under the same lock, so a directory without one is nobody's:
// left, it hid the device from status and failed the next up ("pin egress tree: file exists";
// review, helper-100).
func removeDebris(p paths) error {
	// Only a device's own directory (never the namespace's or the state root, as a name . or ..
	// would make it, nor a state on its way to a new name), and only without a record:
	// readRecord says ErrNotUp for a record it cannot load as well (EMFILE, an LSM's refusal),
	// where the state is live (review, helper-102). Always under the state lock.
	if p.device == "" || filepath.Dir(p.device) != p.netns || strings.Contains(filepath.Base(p.device), ":") || !free(p) {
		return nil
	}
	if err := os.RemoveAll(p.device); err != nil {
		return fmt.Errorf("remove what a killed down left of %s's state: %w", p.deviceName(), err)
	}
	return nil
}

// teardown undoes what up did on one device and removes its state; the state directory stays
// (removeEmpty, by the caller that is done with the lock).
func teardown(p paths, rec record) error {
	err := detach(p, rec)
	if rec.Egress || rec.HTB {
		err = errors.Join(err, giveBack(p, rec))
	}
	if err != nil {
		return err
	}
	// The record goes first: status and the agent read without the lock, and one that read the
	// record and then missed a pin RemoveAll had taken (counters) failed for every device, the
	// record being still there to say the device was up (TestStatusDuringUpAndDown, once in 6,819
	// reads; found by scripts/fresh-debian). With the record gone first, a missing pin is a
	// device being taken down (vanished), and skipped.
	if err := os.Remove(p.pin(pinMeta)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the record of %s: %w", p.deviceName(), err)
	}
	return os.RemoveAll(p.device)
}

// removeOrphan removes what QJump left on the device called name with no state, if anything.
func removeOrphan(name string) error {
	if o := orphanNamed(name); o.found() {
		if err := o.remove(); err != nil {
			return fmt.Errorf("remove what QJump left on %s: %w", name, err)
		}
	}
	return nil
}
