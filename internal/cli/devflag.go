package cli

import (
	"errors"
	"net"

	"github.com/qjump-net/qjump/internal/dataplane"
)

// Every verb that takes --dev checks it the same way before it acts, so that a mistyped name is
// the same bad input (exit 2, one line) for all of them: before, up said so, reload and status
// said "not up" (exit 1), down and run succeeded having done nothing.

// noDevice is the error of a --dev that names no interface in this network namespace.
func noDevice(dev string) error {
	return dataplaneError(dataplane.NoDevice(dev))
}

// checkDev refuses a --dev that names no interface here; an empty one (not given) passes.
func checkDev(dev string) error {
	if dev == "" || linkExists(dev) {
		return nil
	}
	return noDevice(dev)
}

// checkDevOrState is checkDev for the verbs that read or remove QJump's state (status, down): a
// name that has state passes though its interface is gone (deleted, or renamed since up), since
// showing that state and removing it is what those verbs are for.
func checkDevOrState(dev string) error {
	err := checkDev(dev)
	if err == nil {
		return nil
	}
	if _, serr := dataplane.DeviceStatus(dev); !errors.Is(serr, dataplane.ErrNotUp) {
		return dataplaneError(serr) // nil: the state of a gone interface; else what reading it needs (root)
	}
	return err
}

// linkExists reports whether this network namespace has an interface called name.
func linkExists(name string) bool {
	_, err := net.InterfaceByName(name)
	return err == nil
}
