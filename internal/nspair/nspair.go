// Package nspair makes two network namespaces joined by a veth pair, eth0 on both ends (as on
// every testbed host): the smallest network on which QJump can be attached and measured. The
// dataplane's tests and `qjump bench dataplane` use it. A pair whose maker was killed is removed
// by the next process that makes one (OwnerDir).
package nspair

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/qjump-net/qjump/internal/host"
)

// Pair is two namespaces A and B whose eth0 interfaces are joined, addressed AddrA and AddrB.
type Pair struct {
	A, B         string // namespace names
	AddrA, AddrB string // IPv4 addresses of eth0 in A and B, in one /24
	name         string // its record in OwnerDir
}

// Option changes how New makes the pair.
type Option func(*options)

type options struct{ queues int }

// Queues gives both ends of the veth pair n TX and RX queues (1 without it), as a server's
// multi-queue NIC has.
func Queues(n int) Option { return func(o *options) { o.queues = n } }

// New creates namespaces name+"a" and name+"b" with addresses addrA and addrB (/24), lo and eth0
// up. IPv6 is off: the kernel's own neighbour discovery and MLD go out at priority 7
// (TC_PRIO_CONTROL) and would be counted on level 7. On error nothing is left behind.
func New(ctx context.Context, name, addrA, addrB string, opts ...Option) (*Pair, error) {
	o := options{queues: 1}
	for _, f := range opts {
		f(&o)
	}
	sweepOnce.Do(func() { SweepDead() })
	p := &Pair{A: name + "a", B: name + "b", AddrA: addrA, AddrB: addrB, name: name}
	// The record comes first, so that a process killed while it makes the pair leaves one.
	if err := recordOwner(name); err != nil {
		return nil, fmt.Errorf("make namespace pair %s: record its maker in %s: %w", name, OwnerDir, err)
	}
	// veth names are temporary (renamed to eth0) but must be unique and at most 15 bytes.
	va, vb := veth(name, "a"), veth(name, "b")
	q := strconv.Itoa(o.queues)
	ipv6Off := func(ns string) func() error { return func() error { return host.DisableIPv6(ns) } }
	steps := []func() error{
		ip(ctx, "netns", "add", p.A), ip(ctx, "netns", "add", p.B),
		// Before eth0 exists, so that it never sends an IPv6 packet.
		ipv6Off(p.A), ipv6Off(p.B),
		ip(ctx, "link", "add", va, "netns", p.A, "numtxqueues", q, "numrxqueues", q, "type", "veth",
			"peer", "name", vb, "netns", p.B, "numtxqueues", q, "numrxqueues", q),
		ip(ctx, "-n", p.A, "link", "set", va, "name", "eth0"), ip(ctx, "-n", p.B, "link", "set", vb, "name", "eth0"),
		ip(ctx, "-n", p.A, "addr", "add", addrA+"/24", "dev", "eth0"),
		ip(ctx, "-n", p.B, "addr", "add", addrB+"/24", "dev", "eth0"),
		ip(ctx, "-n", p.A, "link", "set", "eth0", "up"), ip(ctx, "-n", p.B, "link", "set", "eth0", "up"),
		ip(ctx, "-n", p.A, "link", "set", "lo", "up"), ip(ctx, "-n", p.B, "link", "set", "lo", "up"),
	}
	for _, step := range steps {
		if err := step(); err != nil {
			p.Remove()
			return nil, fmt.Errorf("make namespace pair %s: %w", name, err)
		}
	}
	return p, nil
}

// ip is a step of New: the ip command with args.
func ip(ctx context.Context, args ...string) func() error {
	return func() error {
		if out, err := exec.CommandContext(ctx, "ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
}

func veth(name, end string) string {
	v := strings.ReplaceAll(name, "-", "") + end
	if len(v) > 15 {
		v = v[len(v)-15:]
	}
	return v
}

// Remove deletes both namespaces, which takes the veth pair with them, and the pair's record.
// Whatever was pinned in bpffs for their interfaces must be removed first (qjump down).
func (p *Pair) Remove() {
	removeNetns(p.A)
	removeNetns(p.B)
	if p.name != "" {
		_ = os.Remove(filepath.Join(OwnerDir, p.name))
	}
}

// removeNetns deletes a namespace (nothing if it is not there).
func removeNetns(ns string) { _ = exec.Command("ip", "netns", "del", ns).Run() }
