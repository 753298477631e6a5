package dataplane

import (
	"math"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/machine"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestLevelRateMatchesModel: a greedy UDP sender at level 5 gets f·P·8/E within 5% over 1 s.
func TestLevelRateMatchesModel(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, upArgs()...)
	rx := listenUDP(t, h.b, h.addrB, 5002)
	tx := dialUDP(t, h.a, h.addrB, 5002, 5)
	stop := make(chan struct{})
	got := receive(rx, stop)
	start := time.Now()
	send(tx, sendOptions{payload: 1000 - udpFrameOverhead, until: start.Add(1300 * time.Millisecond), cpu: -1})
	close(stop)
	dgrams := <-got
	if len(dgrams) == 0 {
		t.Fatal("nothing arrived")
	}
	// One second, starting 100 ms in: whole epochs of a running flow.
	from := dgrams[0].at.Add(100 * time.Millisecond)
	to := from.Add(time.Second)
	var bytes int
	for _, d := range dgrams {
		if !d.at.Before(from) && d.at.Before(to) {
			bytes += d.frame
		}
	}
	rate := float64(bytes) * 8
	t.Logf("level 5: %.3f Mb/s over 1 s, model f·P·8/E = %.3f Mb/s (%.2f%%)", rate/1e6, testRate/1e6, 100*rate/testRate)
	if math.Abs(rate-testRate)/testRate > 0.05 {
		t.Errorf("level 5 sent %.3f Mb/s, want %.3f Mb/s ±5%%", rate/1e6, testRate/1e6)
	}
}

// TestTwoCPUsNeverExceedBudget: two senders pinned to different CPUs race for one level's budget;
// the receiver sums bytes per epoch and no epoch may carry more than f·P. A packet's epoch comes
// from its kernel receive timestamp on the clock the program reads: veth timestamps a frame in the
// same bottom-half-disabled section in which TC egress charged it, microseconds later. (The epoch
// a sender reads before its write is not enough: a sender preempted between its clock read and
// the write gets charged in a later epoch.) Senders send only in the middle of each epoch, so
// frames land far from epoch boundaries, unless the CPU stood still between the charge and the
// stamp: on a VM the hypervisor can stop a vCPU for milliseconds (docs/testbed.md, "Machine
// stalls"). An epoch over its budget is therefore excused only where the stall monitor measured a
// stall across its start (a frame charged at most 6 ms into the epoch before must have waited
// 4 ms); a few such epochs are allowed, never one without a stall.
func TestTwoCPUsNeverExceedBudget(t *testing.T) {
	if runtime.NumCPU() < 2 {
		testutil.Unavailable(t, "two senders on different CPUs need two CPUs")
	}
	h := newHosts(t)
	h.mustQjump(t, h.a, upArgs()...)
	rx := listenUDP(t, h.b, h.addrB, 5003)
	txs := []*net.UDPConn{dialUDP(t, h.a, h.addrB, 5003, 7), dialUDP(t, h.a, h.addrB, 5003, 7)}
	stalled := testutil.StallMonitor(t)
	stop := make(chan struct{})
	got := receive(rx, stop)
	until := time.Now().Add(600 * time.Millisecond)
	opts := []sendOptions{
		{id: 1, payload: 500 - udpFrameOverhead, until: until, epoch: testEpoch, lo: testEpoch / 10, hi: testEpoch * 6 / 10, cpu: 0},
		{id: 2, payload: 500 - udpFrameOverhead, until: until, epoch: testEpoch, lo: testEpoch / 10, hi: testEpoch * 6 / 10, cpu: 1},
	}
	sendAll(txs, opts)
	close(stop)
	stalls := machine.NewTimeline(stalled())
	perEpoch := map[uint64]int{}
	senders := map[uint64]map[uint8]bool{}
	for _, d := range <-got {
		e := realtimeToMonotonic(d.at) / uint64(testEpoch)
		perEpoch[e] += d.frame
		if senders[e] == nil {
			senders[e] = map[uint8]bool{}
		}
		senders[e][d.sender] = true
	}
	full, shared, worst, excused := 0, 0, 0, 0
	for e, b := range perEpoch {
		worst = max(worst, b)
		if b > testBudget {
			if start := monotonicToRealtime(e * uint64(testEpoch)); stalls.Within(start-1, start+1) > 0 {
				excused++
				t.Logf("epoch %d carried %d bytes, budget %d: the machine stood still across its start (stamped late)", e, b, testBudget)
			} else {
				t.Errorf("epoch %d carried %d bytes, budget %d", e, b, testBudget)
			}
		}
		if b+int(model.WireBytes(500)) > testBudget { // no room for one more frame
			full++
		}
		if len(senders[e]) == 2 {
			shared++
		}
	}
	t.Logf("%d epochs, %d used the whole budget, %d shared by both CPUs, most bytes in one epoch %d (budget %d)",
		len(perEpoch), full, shared, worst, testBudget)
	// On a busy host one sender may miss epochs; ten shared epochs still make the point.
	if full < len(perEpoch)/2 || shared < 10 || excused > 3 {
		t.Errorf("the senders did not contend, or the machine stalled too often to tell: %d of %d epochs full, %d shared, %d excused by stalls",
			full, len(perEpoch), shared, excused)
	}
}
