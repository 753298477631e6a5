package dataplane

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/machine"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestReloadUnderTraffic: reloads swap level 5's budget between 30000 B (f=20) and 15000 B (f=10)
// while a sender saturates it, starting from up's 30000 B. Every reload (a new copy of the program
// swapped into the hook) succeeds, traffic never stops, the program lets no more than the larger
// budget through in any epoch (chargedPerEpoch), and the last reload's budget is the one in force,
// through either hook.
//
// "Never stops" is judged on the epochs the machine ran: on a VM the hypervisor can stop a vCPU
// for hundreds of milliseconds (docs/testbed.md, "Machine stalls"), and an epoch that the stall
// monitor saw mostly stalled carries nothing whatever the program does, so it is not counted.
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
	stalled := testutil.StallMonitor(t)
	stop := make(chan struct{})
	got := receive(rx, stop)
	from := time.Now()
	until := from.Add(700 * time.Millisecond)
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
	stalls := machine.NewTimeline(stalled())
	arrivals := <-got
	checkCharged(t, arrivals, testBudget)
	perEpoch := map[uint64]int{} // by arrival: whether traffic went on
	for _, d := range arrivals {
		perEpoch[realtimeToMonotonic(d.at)/uint64(testEpoch)] += d.frame
	}
	logGaps(t, from, until, arrivals, stalls)
	// A reload swaps one pointer, so traffic cannot stop; but the sender and the receiver are
	// ordinary threads on a shared host, so only a loose check of that is robust: packets were
	// admitted in at least a third of the epochs of the run that the machine ran.
	ran, carried, stalledEpochs := 0, 0, 0
	firstWhole, end := realtimeToMonotonic(from)/uint64(testEpoch)+1, realtimeToMonotonic(until)/uint64(testEpoch)
	for e := firstWhole; e < end; e++ {
		start := monotonicToRealtime(e * uint64(testEpoch))
		if stalls.Within(start, start+int64(testEpoch)) > int64(testEpoch)/2 {
			stalledEpochs++
			continue
		}
		ran++
		if perEpoch[e] > 0 {
			carried++
		}
	}
	t.Logf("%d reloads under traffic: traffic in %d of the %d epochs the machine ran (%d more epochs mostly stalled)",
		reloads, carried, ran, stalledEpochs)
	if ran < minEpochsRan {
		t.Errorf("the machine stalled for most of the run: it ran only %d epochs, too few to tell whether traffic stopped (%d needed)",
			ran, minEpochsRan)
	} else if carried < ran/3 {
		t.Errorf("traffic in only %d of the %d epochs the machine ran during reloads", carried, ran)
	}
	if t.Failed() {
		out, _, _ := h.qjump(t, h.a, "status", "--dev", "eth0")
		t.Logf("qjump status after the reloads:\n%s", out)
	}
	s := h.status(t, h.a)
	const final = testBudget / 2 // the tenth reload sets f=10
	if d := s.Devices[0]; d.Generation != reloads+1 || *d.Level(t, 5).BudgetBytes != final || !d.Attached {
		t.Errorf("after %d reloads: generation %d, level 5 budget %d, attached %v; want %d, %d and attached",
			reloads, d.Generation, *d.Level(t, 5).BudgetBytes, d.Attached, reloads+1, final)
	}
}

// minEpochsRan is the fewest unstalled epochs from which reloadUnderTraffic judges that traffic
// went on: a fifth of its 69.
const minEpochsRan = 14

// logGaps logs every pause of more than three epochs in the traffic between from and until,
// with how much of it the stall monitor measured and how many epochs the sender's stamps moved on
// across it, so that a failure says what stopped traffic: the machine (a stall); the sender not
// scheduled or the program dropping what it sent (the stamps jump as far as the pause; the status
// logged on failure counts the drops); or the device holding the datagrams (the stamps move on by
// less). A pause at either end has no stamp on that side.
func logGaps(t *testing.T, from, until time.Time, arrivals []datagram, stalls machine.Timeline) {
	t.Helper()
	edges := append(append([]datagram{{at: from}}, arrivals...), datagram{at: until})
	for i := 1; i < len(edges); i++ {
		before, after := edges[i-1], edges[i]
		gap := after.at.Sub(before.at)
		if gap <= 3*testEpoch {
			continue
		}
		stalled := time.Duration(stalls.Within(before.at.UnixNano(), after.at.UnixNano()))
		stamps := "no stamp on one side"
		if i > 1 && i < len(edges)-1 {
			stamps = fmt.Sprintf("the sender's stamps moved on %d epochs", int64(after.epoch)-int64(before.epoch))
		}
		t.Logf("no datagram for %v from %s, %v of it measured as a machine stall; %s",
			gap.Round(time.Millisecond), before.at.Format("15:04:05.000"), stalled.Round(time.Millisecond), stamps)
	}
}
