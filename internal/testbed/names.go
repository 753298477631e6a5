package testbed

import (
	"fmt"
	"net/netip"
	"regexp"

	"github.com/qjump-net/qjump/internal/model"
)

// DefaultPrefix names every kernel object of the testbed that `qjump testbed` builds.
const DefaultPrefix = "qjtb"

// hostIface is the interface name inside every host namespace, as on a real server.
const hostIface = "eth0"

var prefixPattern = regexp.MustCompile(`^[a-z][a-z0-9]{1,7}$`)

// Names derives every namespace, link and address from the prefix, so that up, exec and cleanup
// agree without sharing state.
type Names struct{ Prefix string }

// HostNS is the namespace of host i (1-based).
func (n Names) HostNS(i int) string { return fmt.Sprintf("%s-h%d", n.Prefix, i) }

// SwitchNS is the namespace holding the bridge.
func (n Names) SwitchNS() string { return n.Prefix + "-sw" }

// Bridge is the switch's bridge device, inside SwitchNS.
func (n Names) Bridge() string { return n.Prefix + "-br" }

// Port is the switch port facing host i, inside SwitchNS; its egress qdisc is the switch queue.
func (n Names) Port(i int) string { return fmt.Sprintf("%s-s%d", n.Prefix, i) }

// HostIface is the interface of every host, inside its own namespace.
func (n Names) HostIface() string { return hostIface }

// HostAddr is host i's address: 198.18.0.0/15 is reserved for benchmarking (RFC 2544), so it never
// clashes with a real network.
func (n Names) HostAddr(i int) netip.Addr {
	return netip.AddrFrom4([4]byte{198, 18, byte(i >> 8), byte(i)})
}

// HostPrefixLen is the prefix length of the emulated subnet: one /16 of the benchmarking range.
const HostPrefixLen = 16

// PrefixAllowed is what a prefix may be: it names namespaces, links (at most 15 bytes with
// "-h255") and the files in RunDir.
const PrefixAllowed = "2-8 lowercase letters or digits, starting with a letter"

// CheckPrefix refuses a prefix that cannot name a testbed, as a FieldError of --prefix: every verb
// and every function that makes something of a prefix (Acquire, Up, Cleanup) checks it first, so
// that "", "Zq" or "../../tmp/x" never becomes a lock file or a path outside RunDir.
func CheckPrefix(p string) error {
	if !prefixPattern.MatchString(p) {
		return &model.FieldError{Field: "prefix", Value: p, Allowed: PrefixAllowed}
	}
	return nil
}

// DownCommand is the command that removes the testbed of prefix: with --prefix unless it is the
// default, so that copying it never removes another testbed (plain `qjump testbed down` removes qjtb).
func DownCommand(prefix string) string { return "qjump testbed down" + prefixFlag(prefix) }

// prefixFlag is the --prefix that a command for the testbed of prefix needs: none for the default.
func prefixFlag(prefix string) string {
	if prefix == DefaultPrefix {
		return ""
	}
	return " --prefix " + prefix
}
