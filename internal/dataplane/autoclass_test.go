package dataplane

import "testing"

// TestAutoclassDemotionSticksToTheSocket: review bug: autoclass demoted packet by packet, so a
// socket's small packet could still fit its level after a larger one was demoted, and overtake
// it in every strict-priority queue on the way. A demotion now lasts for the socket until the
// epoch ends; another socket at the level is not affected.
//
// Level 7 has 1100 wire bytes in an epoch of 17.6 s (n=1, R=1kb/s): a 900-byte frame (924 on the
// wire) fits, a 200-byte one (224) does not and is demoted to 5, and a 60-byte one (84) would
// fit again (924 + 84 ≤ 1100) but must follow the demoted one.
func TestAutoclassDemotionSticksToTheSocket(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, "up", "--dev", "eth0", "--hosts", "1", "--rate", "1000", "--packet", "1100B",
		"--factors", "7=1,5=10,0=unlimited", "--autoclass")
	for _, port := range []int{5011, 5012} {
		listenUDP(t, h.b, h.addrB, port) // no port-unreachable to fail the next write
	}
	a := dialUDP(t, h.a, h.addrB, 5011, 7)
	other := dialUDP(t, h.a, h.addrB, 5012, 7)
	before := h.status(t, h.a).Devices[0]
	for i, payload := range []int{900 - 42, 200 - 42, 60 - 42} {
		if _, err := a.Write(make([]byte, payload)); err != nil {
			t.Fatalf("datagram %d: %v", i, err)
		}
	}
	if _, err := other.Write(make([]byte, 60-42)); err != nil {
		t.Fatal(err)
	}
	after := h.status(t, h.a).Devices[0]
	sent := func(l int) uint64 { return after.Level(t, l).SentPackets - before.Level(t, l).SentPackets }
	demoted := after.Level(t, 7).DemotedPackets - before.Level(t, 7).DemotedPackets
	expect(t, "level 7 sent (the 900-byte frame and the other socket's)", sent(7), 2)
	expect(t, "level 7 demoted (the 200- and the 60-byte frame)", demoted, 2)
	expect(t, "level 5 sent", sent(5), 2)
}
