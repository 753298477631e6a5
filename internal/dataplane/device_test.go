package dataplane

import (
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/testutil"
)

// TestUpRefusesNonEthernet: review bug: up accepted a tun device, whose frames start with the IP
// header, so the program read part of an IP address as the ethertype. It now exits 2 naming the
// device and its type, and leaves nothing behind.
func TestUpRefusesNonEthernet(t *testing.T) {
	h := newHosts(t)
	if _, errOut, code := testutil.Run(t, nil, "ip", "netns", "exec", h.a, "ip", "tuntap", "add", "dev", "qjtun0", "mode", "tun"); code != 0 {
		t.Fatalf("ip tuntap add: exit %d: %s", code, errOut)
	}
	_, errOut, code := h.qjump(t, h.a, append([]string{"up", "--dev", "qjtun0"}, testModel...)...)
	if code != 2 {
		t.Fatalf("up on a tun device: exit %d, want 2: %s", code, errOut)
	}
	for _, want := range []string{"qjtun0", "tuntap", "none", "Ethernet"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("error does not name %q: %s", want, errOut)
		}
	}
	if s := h.status(t, h.a); len(s.Devices) != 0 {
		t.Errorf("status after the refused up: %+v", s)
	}
}

// TestPoliceWarnsAboutTCP: police mode on a device that takes GSO packets (every veth) warns that
// TCP at a limited level needs shape mode; shape mode does not.
func TestPoliceWarnsAboutTCP(t *testing.T) {
	h := newHosts(t)
	_, errOut, code := h.qjump(t, h.a, upArgs("--mode", "police")...)
	if code != 0 {
		t.Fatalf("up: exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "TCP at a limited level needs --mode shape") || !strings.Contains(errOut, "levels 7 (30000B), 5 (30000B)") {
		t.Errorf("police up says nothing about TCP and GSO: %s", errOut)
	}
	h.mustQjump(t, h.a, "down", "--dev", "eth0")
	_, errOut, code = h.qjump(t, h.a, upArgs("--mode", "shape")...)
	if code != 0 {
		t.Fatalf("up --mode shape: exit %d: %s", code, errOut)
	}
	if strings.Contains(errOut, "GSO") {
		t.Errorf("shape up warns about GSO: %s", errOut)
	}
}
