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

// readDeviceStatus is dataplane.DeviceStatus (a test's own reader in tests, which counts reads).
var readDeviceStatus = dataplane.DeviceStatus

// deviceState reads dev's QJump state, once, for the verbs that read or remove it (status, down),
// and checks dev as checkDev does, except that a name with state passes though its interface is
// gone (deleted, or renamed since up), since showing that state and removing it is what those
// verbs are for. A name that is no interface here and has no state is dataplane.ErrNoDevice; any
// other error is the reading's (dataplane.ErrNotUp: an interface here that is not up).
func deviceState(dev string) (dataplane.Status, error) {
	st, err := readDeviceStatus(dev)
	if errors.Is(err, dataplane.ErrNotUp) && !linkExists(dev) {
		return st, dataplane.NoDevice(dev)
	}
	return st, err
}

// linkExists reports whether this network namespace has an interface called name.
func linkExists(name string) bool {
	_, err := net.InterfaceByName(name)
	return err == nil
}
