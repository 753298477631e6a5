package dataplane

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestReloadUnderTraffic: reloads swap level 5's budget between 30000 B (f=20) and 15000 B (f=10)
// while a sender saturates it, starting from up's 30000 B. Every reload (a new copy of the program
// swapped into the hook) succeeds, traffic never stops, no epoch carries more than the larger
// budget, and the last reload's budget is the one in force, through either hook.
func TestReloadUnderTraffic(t *testing.T) {
	for _, attach := range []string{"tcx", "clsact"} {
		t.Run(attach, func(t *testing.T) { reloadUnderTraffic(t, attach) })
	}
}

func reloadUnderTraffic(t *testing.T, attach string) {
	h := newHosts(t)
	h.mustQjump(t, h.a, upArgs("--attach", attach)...)
	dir := t.TempDir()
	files := map[int]string{}
	for _, f := range []int{10, 20} {
		files[f] = filepath.Join(dir, fmt.Sprintf("f%d.yaml", f))
		body := fmt.Sprintf("hosts: 100\nrate: 240M\npacket: 1500B\nfactors: {7: 20, 5: %d, 0: unlimited}\n", f)
		if err := os.WriteFile(files[f], []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rx := listenUDP(t, h.b, h.addrB, 5005)
	tx := dialUDP(t, h.a, h.addrB, 5005, 5)
	stop := make(chan struct{})
	got := receive(rx, stop)
	until := time.Now().Add(700 * time.Millisecond)
	done := make(chan struct{})
	go func() {
		defer close(done)
		send(tx, sendOptions{payload: 500 - udpFrameOverhead, until: until, epoch: testEpoch,
			lo: testEpoch / 10, hi: testEpoch * 6 / 10, cpu: -1})
	}()
	const reloads = 10
	for i := 0; i < reloads; i++ {
		time.Sleep(50 * time.Millisecond)
		h.mustQjump(t, h.a, "reload", "--dev", "eth0", "--config", files[[]int{20, 10}[i%2]])
	}
	<-done
	close(stop)
	perEpoch := map[uint64]int{}
	var first, last time.Time
	var gap time.Duration
	for i, d := range <-got {
		perEpoch[realtimeToMonotonic(d.at)/uint64(testEpoch)] += d.frame
		if i == 0 {
			first = d.at
		} else {
			gap = max(gap, d.at.Sub(last))
		}
		last = d.at
	}
	for e, b := range perEpoch {
		if b > testBudget {
			t.Errorf("epoch %d carried %d bytes, more than the larger budget %d", e, b, testBudget)
		}
	}
	t.Logf("%d reloads under traffic: %d epochs over %v, longest gap %v", reloads, len(perEpoch), last.Sub(first).Round(time.Millisecond), gap)
	// A reload swaps one pointer, so traffic cannot stop; but the sender and the receiver are
	// ordinary threads on a shared host, so only a loose check of that is robust: packets were
	// admitted in at least a third of the epochs the run spanned.
	spanned := int(last.Sub(first)/testEpoch) + 1
	if len(perEpoch) < spanned/3 {
		t.Errorf("traffic in only %d of %d epochs during reloads", len(perEpoch), spanned)
	}
	s := h.status(t, h.a)
	const final = testBudget / 2 // the tenth reload sets f=10
	if d := s.Devices[0]; d.Generation != reloads+1 || *d.Level(t, 5).BudgetBytes != final || !d.Attached {
		t.Errorf("after %d reloads: generation %d, level 5 budget %d, attached %v; want %d, %d and attached",
			reloads, d.Generation, *d.Level(t, 5).BudgetBytes, d.Attached, reloads+1, final)
	}
}
