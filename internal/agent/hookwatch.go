package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/model"
)

// A hook removed by hand (a TCX link detached with bpftool, the cls_bpf filter or the clsact
// qdisc deleted with tc) leaves its interface unlimited, and an egress tree deleted or replaced
// by hand (tc qdisc del dev IF root) leaves its levels without strict priority and the cap at R.
// The resync puts either back, but only every DefaultResync; between resyncs the agent looks for
// itself.
//
// No event reports a TCX link detached, so the loop asks the dataplane whether each interface's
// hook and egress tree are in place every hookCheck: 0.18-0.24 ms an interface (Pins.Present: its
// record, hook and tree, by bpf and netlink syscalls; the tree's leaf kinds are a dump of the
// namespace's qdiscs, about 0.6 µs more a qdisc) and 2-3 µs a round (PinsIn: bpffs), against
// 0.22-0.29 ms an interface for dataplane.Present, which checks the privilege and reads the
// network namespace each time too, and 0.48-0.53 ms for a full DeviceStatus (all four from
// dataplane's BenchmarkPresent: sudo go test -run - -bench Present -benchtime 5000x ./internal/dataplane).
// The removal of a tc filter, qdisc or class is reported (RTM_DELTFILTER, RTM_DELQDISC,
// RTM_DELTCLASS, to RTNLGRP_TC), so a clsact hook or the tree is looked at as soon as a part of it
// on an interface of ours goes (a leaf qdisc too), not up to a second later.

// hookCheck is how often the loop checks the hooks of the interfaces it runs QJump on.
const hookCheck = time.Second

// Where a missing hook was found, for the log.
const (
	foundByCheck   = "periodic check"
	foundByTCEvent = "tc event"
)

// checkHooks puts back the hook or egress tree of every interface QJump runs on where it is gone.
func (a *Agent) checkHooks(foundBy string) {
	pins, ok := a.pins()
	if !ok {
		return
	}
	for dev := range a.devices {
		a.checkHook(pins, dev, foundBy)
	}
}

// pins is where the agent's interfaces keep their pinned state, for a round of checks: the
// privilege was checked when the agent started (Run) and its network namespace read then, neither
// of which changes while it runs (read again here while it could not be); bpffs, which may be
// mounted anew, is looked for each round. False when it cannot be told now (the resync says why,
// as it reconciles).
func (a *Agent) pins() (dataplane.Pins, bool) {
	if a.netns == "" {
		ns, err := host.NetnsKey()
		if err != nil {
			return dataplane.Pins{}, false
		}
		a.netns = ns
	}
	pins, err := dataplane.PinsIn(a.netns)
	return pins, err == nil
}

// checkHook puts back dev's hook or egress tree if either is gone, by reconciling dev (counted in
// qjump_agent_interface_actions_total as its action: replaced or up for a hook, reloaded for a
// tree). One it failed to put back
// is left to the resync: trying every second would only log the same failure every second. One
// whose interface is gone is no failure: reconcile took it off the agent's interfaces (down).
func (a *Agent) checkHook(pins dataplane.Pins, dev, foundBy string) {
	if a.hookFailed[dev] {
		return
	}
	pr, err := pins.Present(dev)
	switch {
	case err != nil && !errors.Is(err, dataplane.ErrNotUp):
		return // not readable now (the resync says why, as it reconciles)
	case err != nil || !pr.Attached:
		a.log.Warn("qjump's hook is gone from the interface: putting it back", "interface", dev, "found_by", foundBy)
	case pr.TreeGone != "":
		a.log.Warn("qjump's egress tree is gone from the interface: putting it back", "interface", dev,
			"found_by", foundBy, "tree", pr.TreeGone)
	default:
		return
	}
	if a.reconcile(dev) {
		return
	}
	if _, ours := a.devices[dev]; ours {
		a.hookFailed[dev] = true
	}
}

// onTC looks at the hook and egress tree of the interface that a tc event is about, if it is one
// of ours.
func (a *Agent) onTC(ifindex int) {
	for dev, index := range a.devices {
		if index != ifindex {
			continue
		}
		if pins, ok := a.pins(); ok {
			a.checkHook(pins, dev, foundByTCEvent)
		}
	}
}

// watchTC sends the index of each interface that lost a clsact qdisc, an egress filter, its root
// qdisc, or a class of QJump's HTB or its leaf qdisc. It is
// an early word only: the periodic check finds whatever it misses, so the watch is not made again
// when its subscription fails (it says so), and a full buffer (ENOBUFS) loses events, not the
// watch.
func watchTC(ctx context.Context, out chan<- int, errs chan<- error) error {
	s, err := nl.Subscribe(unix.NETLINK_ROUTE, unix.RTNLGRP_TC)
	if err != nil {
		return fmt.Errorf("subscribe to tc events: %w", err)
	}
	_ = s.SetReceiveBufferSize(linkEventBuffer, false)
	go func() {
		<-ctx.Done()
		s.Close()
	}()
	go func() {
		for {
			msgs, _, err := s.Receive()
			if errors.Is(err, unix.ENOBUFS) {
				continue
			}
			if err != nil {
				if ctx.Err() == nil {
					report(errs, fmt.Errorf("tc events (a removed hook or tree is found by the check every %s): %w", model.DurationText(hookCheck), err))
				}
				return
			}
			for _, m := range msgs {
				ifindex, ok := hookRemoval(m.Header.Type, m.Data)
				if !ok {
					continue
				}
				select {
				case out <- ifindex:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return nil
}

// hookRemoval says whether a tc message is a removal that can take a clsact hook or QJump's egress
// tree with it, and the index of its interface: a filter deleted on egress, the clsact qdisc
// deleted, the root qdisc deleted or replaced (the kernel reports the old root deleted), a class
// of QJump's HTB deleted, or the leaf qdisc below one. QJump's own up, reload and down send some
// of these too (a reload deletes a leaf it replaces by one of another kind): the check then finds
// everything in place, or the interface not up, as for a down by hand. It does not mistake their
// middle for a gone tree: what it finds missing without the state lock it looks at again holding
// it (dataplane.Present), by when the reload is over.
func hookRemoval(typ uint16, data []byte) (ifindex int, ok bool) {
	if len(data) < nl.SizeofTcMsg {
		return 0, false
	}
	tc := nl.DeserializeTcMsg(data)
	switch {
	case typ == unix.RTM_DELTFILTER && tc.Parent == netlink.HANDLE_MIN_EGRESS:
	case typ == unix.RTM_DELQDISC && (tc.Parent == netlink.HANDLE_CLSACT || tc.Parent == netlink.HANDLE_ROOT):
	case typ == unix.RTM_DELTCLASS && tc.Handle>>16 == dataplane.TreeMajor:
	case typ == unix.RTM_DELQDISC && tc.Parent>>16 == dataplane.TreeMajor: // a level's leaf
	default:
		return 0, false
	}
	return int(tc.Ifindex), true
}
