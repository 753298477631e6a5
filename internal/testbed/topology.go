package testbed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/qjump-net/qjump/internal/host"
)

// Testbed is an emulated cluster that this process built or found.
type Testbed struct {
	Config Config
	Names  Names
	lock   *Lock
	qjump  bool // EnableQJump ran on every host
	// UpWarnings are what `qjump up` warned of on the first host when EnableQJump last ran (the
	// same configuration on every host): police mode's word on TCP and GSO, say, which the
	// testbed's user would otherwise never see.
	UpWarnings []string
}

// Up builds the cluster described by c and returns it holding the prefix's lock: release it with
// Release (to leave the testbed up for others) or Down. A testbed already up with the prefix is
// refused with ErrBusy; the remains of a crashed one (namespaces without a state, or a state its
// dead maker left Building, or its dead remover Removing) are removed first.
func Up(ctx context.Context, c Config) (*Testbed, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := CheckPrivilege(); err != nil {
		return nil, err
	}
	lock, err := AcquireWaiting(c.Prefix)
	if err != nil {
		return nil, err
	}
	tb := &Testbed{Config: c, Names: Names{Prefix: c.Prefix}, lock: lock}
	// With the lock held here, a state still Building (or Removing) was left by a maker (or a
	// remover) that died: remains.
	if s, err := ReadState(c.Prefix); err == nil && !s.Building && !s.Removing && nsExists(tb.Names.SwitchNS()) {
		lock.Release()
		return nil, fmt.Errorf("%w: a testbed with prefix %q is up since %s (pid %d); remove it with: %s",
			ErrBusy, c.Prefix, s.Created.Format(time.RFC3339), s.PID, DownCommand(c.Prefix))
	}
	if err := Cleanup(context.WithoutCancel(ctx), c.Prefix); err != nil {
		lock.Release()
		return nil, notRemoved(c.Prefix, err) // the remains it found are still there, in part
	}
	// The state is written before the first namespace, saying Building until Release: whatever a
	// maker killed at any point leaves is then known by the one mechanism that already tells a
	// testbed being built (lock held) from remains (lock free), with the configuration and PID for
	// status to show. Written after the build, a maker killed during it left namespaces that
	// status and exec denied, and that status would have called remains while a live up built them.
	if err := writeState(State{Config: c, PID: os.Getpid(), Created: time.Now().UTC(), Building: true}); err != nil {
		lock.Remove()
		return nil, err
	}
	if err := tb.build(ctx); err != nil {
		// What the build made is removed, or the error says what is left (review, helper-86).
		err = errors.Join(err, notRemoved(c.Prefix, Cleanup(context.WithoutCancel(ctx), c.Prefix)))
		lock.Remove()
		return nil, err
	}
	return tb, nil
}

// Release records the testbed as finished (with QJump on the hosts if EnableQJump ran) and drops
// the lock, leaving it up for others. Until then its state says it is being built, so that
// the remains of a maker that was killed are known as such.
func (tb *Testbed) Release() error {
	err := finish(tb.Config.Prefix, tb.qjump)
	tb.lock.Release()
	return err
}

// Down removes everything the testbed created and drops the lock. It does not take ctx's
// cancellation: teardown after SIGINT must still finish. What it could not remove is a
// *NotRemovedError, which callers pass on rather than saying the testbed is gone.
func (tb *Testbed) Down() error {
	err := notRemoved(tb.Config.Prefix, Cleanup(context.Background(), tb.Config.Prefix))
	tb.lock.Remove()
	return err
}

// NotRemovedError is a testbed that a removal left in part, with the command that removes the rest.
type NotRemovedError struct {
	Prefix string
	Err    error
}

func (e *NotRemovedError) Error() string {
	return fmt.Sprintf("testbed %s not removed: %v; remove the rest with: %s", e.Prefix, e.Err, DownCommand(e.Prefix))
}

func (e *NotRemovedError) Unwrap() error { return e.Err }

// notRemoved is err, Cleanup's for prefix, as a *NotRemovedError; nil for nil.
func notRemoved(prefix string, err error) error {
	if err == nil {
		return nil
	}
	return &NotRemovedError{Prefix: prefix, Err: err}
}

// Exec returns the argv that runs argv inside host i's namespace.
func (tb *Testbed) Exec(i int, argv ...string) []string { return InNS(tb.Names.HostNS(i), argv...) }

func (tb *Testbed) build(ctx context.Context) error {
	n := tb.Names
	sw := n.SwitchNS()
	for _, ns := range tb.namespaces() {
		if err := tb.addNamespace(ctx, ns); err != nil {
			return err
		}
	}
	if err := runAll(ctx, [][]string{
		{"ip", "-n", sw, "link", "add", n.Bridge(), "type", "bridge", "stp_state", "0"},
		{"ip", "-n", sw, "link", "set", n.Bridge(), "up"},
	}); err != nil {
		return err
	}
	for i := 1; i <= tb.Config.Hosts; i++ {
		if err := tb.addHost(ctx, i); err != nil {
			return err
		}
	}
	return tb.addNeighbours(ctx)
}

func (tb *Testbed) namespaces() []string {
	ns := []string{tb.Names.SwitchNS()}
	for i := 1; i <= tb.Config.Hosts; i++ {
		ns = append(ns, tb.Names.HostNS(i))
	}
	return ns
}

// addNamespace creates ns with loopback up and IPv6 off: router solicitations and DAD would be
// stray packets in every latency measurement.
func (tb *Testbed) addNamespace(ctx context.Context, ns string) error {
	if err := runAll(ctx, [][]string{
		{"ip", "netns", "add", ns},
		{"ip", "-n", ns, "link", "set", "lo", "up"},
	}); err != nil {
		return err
	}
	return host.DisableIPv6(ns)
}

// hostMAC is fixed so that neighbours and the bridge's forwarding table can be static: no ARP and
// no flooding during an experiment.
func hostMAC(i int) string { return fmt.Sprintf("02:71:6a:00:%02x:%02x", i>>8&0xff, i&0xff) }

func (tb *Testbed) addHost(ctx context.Context, i int) error {
	n := tb.Names
	h, sw, dev, port := n.HostNS(i), n.SwitchNS(), n.HostIface(), n.Port(i)
	addr := fmt.Sprintf("%s/%d", n.HostAddr(i), HostPrefixLen)
	steps := [][]string{
		append(append([]string{"ip", "link", "add", dev, "netns", h, "address", hostMAC(i)}, hostVethArgs(tb.Config)...),
			"type", "veth", "peer", "name", port, "netns", sw),
		hostOffloads(h, dev, tb.Config),
		// Segmentation offloads would put 64 kB super-packets into the queues: one "packet" of a
		// B-packet buffer and one HTB dequeue would be 45 frames. Real switches see frames.
		InNS(sw, "ethtool", "-K", port, "tso", "off", "gso", "off", "gro", "off"),
		{"ip", "-n", h, "addr", "add", addr, "dev", dev},
		{"ip", "-n", h, "link", "set", dev, "up"},
		{"ip", "-n", sw, "link", "set", port, "master", n.Bridge()},
		{"ip", "-n", sw, "link", "set", port, "up"},
		{"bridge", "-n", sw, "fdb", "replace", hostMAC(i), "dev", port, "master", "static"},
	}
	if err := runAll(ctx, steps); err != nil {
		return err
	}
	if err := shapeHostEgress(ctx, h, dev, tb.Config); err != nil {
		return err
	}
	return shapeSwitchPort(ctx, sw, port, tb.Config)
}

func (tb *Testbed) addNeighbours(ctx context.Context) error {
	var steps [][]string
	for i := 1; i <= tb.Config.Hosts; i++ {
		for j := 1; j <= tb.Config.Hosts; j++ {
			if i == j {
				continue
			}
			steps = append(steps, []string{"ip", "-n", tb.Names.HostNS(i), "neigh", "replace",
				tb.Names.HostAddr(j).String(), "lladdr", hostMAC(j), "dev", tb.Names.HostIface(), "nud", "permanent"})
		}
	}
	return runAll(ctx, steps)
}

// NetnsDir is where `ip netns` keeps the named network namespaces. Tests point it at a directory
// of their own, so that what they list is theirs alone, not the testbeds others have up.
var NetnsDir = "/run/netns"

func nsExists(ns string) bool {
	_, err := os.Stat(filepath.Join(NetnsDir, ns))
	return err == nil
}

// Namespaces lists the network namespaces that carry prefix.
func Namespaces(prefix string) ([]string, error) {
	entries, err := os.ReadDir(NetnsDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list network namespaces: %w", err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix+"-") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// Cleanup removes every namespace carrying prefix (with the veths, bridge and qdiscs inside), and
// the state file. It is what `testbed down` runs and also what clears a crashed run's remains.
// The state says Removing before the first namespace goes and is removed after the last, so that
// a Cleanup killed part-way, or one that could not delete a namespace, leaves a testbed that
// status and exec call half-removed.
func Cleanup(ctx context.Context, prefix string) error {
	if err := CheckPrefix(prefix); err != nil {
		return err
	}
	nss, err := Namespaces(prefix)
	if err != nil {
		return err
	}
	if err := markRemoving(prefix); err != nil {
		return err
	}
	var errs []error
	for _, ns := range nss {
		// Detach QJump before the namespace goes (best effort: the namespace goes regardless).
		if ns != (Names{prefix}).SwitchNS() {
			qjumpDown(ctx, ns)
		}
		if err := run(ctx, "ip", "netns", "del", ns); err != nil && nsExists(ns) {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		// The record stays, marked removing, so that status calls what is left half-removed
		// and the next down finds it, rather than a testbed that is gone by its record alone.
		return errors.Join(errs...)
	}
	return removeState(prefix)
}
