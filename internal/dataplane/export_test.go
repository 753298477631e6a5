package dataplane

import "github.com/qjump-net/qjump/internal/model"

// The tests' ways in to what the product reaches through a lock it already holds
// (Locked.SetCgroupCeiling, from apputil) or through pins it found once (Pins.Present, from the
// agent): taking the lock, or finding the pins, on every call.

// SetCgroupCeiling is Locked.SetCgroupCeiling under the state lock: it makes max the highest level any socket of the cgroup at path, or of any cgroup
// below it, may send at, on every device QJump is up on, in every network namespace: all programs
// share one pinned map. Nested ceilings combine: the lowest one on a socket's path wins. The path
// gives the cgroup's id and its depth in the hierarchy, which the program needs.
func SetCgroupCeiling(path string, max model.Level) error {
	return WithStateLock(func(l Locked) error { return l.SetCgroupCeiling(path, max) })
}

// Present says whether QJump's hook and egress tree are on device, as DeviceStatus's Attached
// and TreeGone do, without reading its configuration and counters. No netlink event reports a TCX
// link detached. ErrNotUp when QJump has no state for the device. A caller that asks it of many
// devices again and again finds where their state is pinned once (PinsIn) and asks Pins.Present.
func Present(device string) (Presence, error) {
	p, err := pathsFor("")
	if err != nil {
		return Presence{}, err
	}
	return Pins{p}.Present(device)
}
