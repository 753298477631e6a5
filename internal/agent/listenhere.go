package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"time"

	"github.com/qjump-net/qjump/internal/model"
)

// resolveTimeout bounds the lookup of agent.listen's host name in an edit: the loop waits for it.
const resolveTimeout = 2 * time.Second

// checkListenHere refuses, as an invalid file, an agent.listen this host cannot listen on: a name
// that does not resolve, or an address that is not one of this network namespace's (nor the
// unspecified or a loopback address). The edit used to be taken, logged as taking effect at the
// next restart, and at that restart the agent could not listen and exited, again and again under
// its unit. The address is checked rather than bound: the agent may hold the port already, on
// another address, and a test bind would fail for that. Of a name, the address checked is the one
// net.Listen would bind: the first IPv4 address, else the first. A name the resolver cannot answer
// for now (a timeout, no DNS server) passes: refused, the file would stay refused after the
// resolver is back, until it is edited again.
func checkListenHere(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return nil // CheckListen has refused the first; the second is every address
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		var dnsErr *net.DNSError
		if ip, err = lookupListen(host); errors.As(err, &dnsErr) && !dnsErr.IsNotFound {
			return nil
		}
		if err != nil {
			return &model.FieldError{Field: "agent.listen", Value: addr,
				Allowed: fmt.Sprintf("need a host this host can listen on: %v", err)}
		}
	}
	ip = ip.Unmap().WithZone("")
	if ip.IsUnspecified() || ip.IsLoopback() || isLocalAddr(ip) {
		return nil
	}
	return &model.FieldError{Field: "agent.listen", Value: addr, Allowed: fmt.Sprintf(
		"need an address of this host to listen on: %s is none of its interfaces' addresses, nor unspecified (:9781) or loopback, "+
			"so the agent could not listen at its next restart", ip)}
}

// lookupListen is the address net.Listen would bind for host name: its first IPv4 address, else its first.
func lookupListen(host string) (netip.Addr, error) {
	ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return netip.Addr{}, err
	}
	if i := slices.IndexFunc(ips, func(ip netip.Addr) bool { return ip.Unmap().Is4() }); i >= 0 {
		return ips[i], nil
	}
	if len(ips) == 0 {
		return netip.Addr{}, fmt.Errorf("%s has no address", host)
	}
	return ips[0], nil
}

// isLocalAddr says whether ip is an address of an interface of this network namespace.
func isLocalAddr(ip netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return true // unknown: refusing the file for it would be a guess
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if local, ok := netip.AddrFromSlice(n.IP); ok && local.Unmap() == ip {
				return true
			}
		}
	}
	return false
}
