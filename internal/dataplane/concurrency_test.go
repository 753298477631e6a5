package dataplane

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestBudgetExactUnderConcurrentRuns hammers one level from two CPUs at once through
// BPF_PROG_TEST_RUN, which runs the program on the calling CPU. With one long epoch the level must
// send exactly its budget; with 20 µs epochs (a rollover every few hundred packets, raced by both
// CPUs) it must never send more than one budget per epoch the run spanned.
func TestBudgetExactUnderConcurrentRuns(t *testing.T) {
	cpus := allowedCPUs(t)
	if len(cpus) < 2 {
		testutil.Unavailable(t, "two runs on different CPUs need two CPUs this process may run on")
	}
	const frame = 64
	wire := uint64(model.WireBytes(frame))
	cases := []struct {
		name   string
		rate   model.Rate // with n=1, P=1000B, m=2: E = 16000/R s
		factor float64
	}{
		{name: "one long epoch", rate: 1000, factor: 88},                      // E = 16 s, budget 1000 frames of 88 wire bytes
		{name: "20 µs epochs", rate: 800e6, factor: float64(wire) * 4 / 1000}, // budget 4 frames
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := testConfig()
			d.Model.Rate = tc.rate
			d.Model.Factors = model.Factors{5: model.Limited(tc.factor)}
			r := newRunner(t, d)
			budget, _ := d.Model.Budget(d.Model.Factors[5])
			const runs = 200000
			start := time.Now()
			// cilium/ebpf restarts a test run that a signal interrupts (EINTR), re-running packets
			// the counters already saw; Reset tells us it happened.
			var restarts atomic.Int32
			var wg sync.WaitGroup
			for _, cpu := range cpus[:2] {
				wg.Add(1)
				go func(cpu int) {
					defer wg.Done()
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					var set unix.CPUSet
					set.Set(cpu)
					// Unpinned, both runs could share a CPU and never race: the test would pass
					// without testing anything (review, helper-86).
					if err := unix.SchedSetaffinity(0, &set); err != nil {
						t.Errorf("pin a run to CPU %d: %v", cpu, err)
						return
					}
					_, err := r.objs.QjumpEgress.Run(&ebpf.RunOptions{Data: udp4(frame, 0), Repeat: runs,
						Context: skbContext{Priority: 5}, Reset: func() { restarts.Add(1) }})
					if err != nil {
						t.Error(err)
					}
				}(cpu)
			}
			wg.Wait()
			elapsed := time.Since(start)
			c := r.counters()[5]
			// Every packet is counted once, or more often only if a run was restarted. Restarts
			// only add packets, so the budget checks below hold either way.
			total := c.SentBytes + c.DroppedBytes + c.ContendedBytes
			if restarts.Load() == 0 && total != 2*runs*wire || total < 2*runs*wire {
				t.Fatalf("sent %d + dropped %d + contended %d wire bytes, want %d in all (%d restarted runs)",
					c.SentBytes, c.DroppedBytes, c.ContendedBytes, 2*runs*wire, restarts.Load())
			}
			epochs := uint64(elapsed/d.Model.Epoch()) + 2
			t.Logf("%v: %d packets sent, %d dropped, %d lost to contention over %v; at most %d epochs × %d B", tc.name,
				c.SentPackets, c.DroppedPackets, c.ContendedPackets, elapsed.Round(time.Millisecond), epochs, budget)
			if d.Model.Epoch() > time.Second && c.SentBytes != uint64(budget) {
				t.Errorf("one epoch: sent %d bytes, want exactly the budget %d", c.SentBytes, budget)
			}
			if c.SentBytes > epochs*uint64(budget) {
				t.Errorf("sent %d bytes, more than %d epochs × %d", c.SentBytes, epochs, budget)
			}
		})
	}
}

// allowedCPUs are the CPUs this process may run on.
func allowedCPUs(t *testing.T) []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatalf("CPUs this process may run on: %v", err)
	}
	var cpus []int
	for cpu := 0; cpu < runtime.NumCPU()*4 && len(cpus) < set.Count(); cpu++ {
		if set.IsSet(cpu) {
			cpus = append(cpus, cpu)
		}
	}
	return cpus
}
