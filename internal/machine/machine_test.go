package machine_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/machine"
	"github.com/qjump-net/qjump/internal/testutil"
)

func TestTimelineMergesCPUsAndMeasuresOverlap(t *testing.T) {
	// CPU 0 stalls 100-200 and 400-450; CPU 1 stalls 150-300 (overlapping CPU 0's first).
	tl := machine.NewTimeline([]machine.Stall{{0, 400, 450}, {1, 150, 300}, {0, 100, 200}})
	cases := []struct {
		from, to, want int64
	}{
		{0, 1000, 250},  // 100-300 and 400-450
		{0, 100, 0},     // ends where the first stall starts
		{250, 420, 70},  // 250-300 and 400-420
		{310, 390, 0},   // between stalls
		{440, 2000, 10}, // the tail of the last
	}
	for _, c := range cases {
		if got := tl.Within(c.from, c.to); got != c.want {
			t.Errorf("Within(%d, %d) = %d, want %d", c.from, c.to, got, c.want)
		}
	}
	s := machine.Summarize([]machine.Stall{{0, 400, 450}, {1, 150, 300}, {0, 100, 200}})
	if s.Count != 2 || s.TotalMS != 250e-6 || s.WorstMS != 200e-6 {
		t.Errorf("Summarize = %+v, want 2 stalls, 250 ns in all, the worst 200 ns", s)
	}
}

func TestStallCSVRoundTripAndBadInput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stalls.csv")
	in := []machine.Stall{{0, 1795467773396522169, 1795467773424906961}, {1, 5, 7}}
	if err := machine.WriteCSV(path, in); err != nil {
		t.Fatal(err)
	}
	out, err := machine.ReadCSV(path)
	if err != nil || len(out) != 2 || out[0] != in[0] || out[1] != in[1] {
		t.Fatalf("read back %v, %v; want %v", out, err, in)
	}
	bad := filepath.Join(dir, "bad.csv")
	_ = os.WriteFile(bad, []byte("cpu,from_ns,to_ns\n0,10,5\n"), 0o644)
	if _, err := machine.ReadCSV(bad); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a stall that ends before it starts: %v, want an error naming line 2", err)
	}
}

// hog holds CPU 0 at SCHED_FIFO priority prio for 30 ms, in a process of its own, and prints
// when, in wall-clock ns. It is Python, not Go: the Go runtime preempts a goroutine that runs for
// 10 ms, and a goroutine locked to its thread then waits for another thread to hand it back,
// which let the monitor run in the middle of a Go hog's hold.
const hog = `
import os, sys, time
os.sched_setaffinity(0, {0})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(int(sys.argv[1])))
start = time.monotonic_ns()
wall = time.time_ns()
while time.monotonic_ns() - start < 30_000_000:
    pass
print(wall, wall + time.monotonic_ns() - start)
`

// holdCPU0 runs hog at prio and returns the span it held CPU 0.
func holdCPU0(t *testing.T, prio int) (from, to int64) {
	python, err := exec.LookPath("python3")
	if err != nil {
		testutil.Unavailable(t, "holding a CPU at a real-time priority needs python3")
	}
	out, err := exec.Command(python, "-c", hog, strconv.Itoa(prio)).Output()
	if _, serr := fmt.Sscan(string(out), &from, &to); err != nil || serr != nil {
		t.Fatalf("hold CPU 0 at priority %d: %v %v (%q)", prio, err, serr, out)
	}
	return from, to
}

// A process above the monitor's priority that keeps CPU 0 busy for 30 ms is, for the monitor, a
// stall that covers those 30 ms; one below it is no stall at all.
func TestMonitorMeasuresACPUHeldAway(t *testing.T) {
	testutil.RequirePriv(t, "a real-time monitor thread")
	for _, c := range []struct {
		prio     int
		measured bool
	}{{machine.MonitorPriority + 1, true}, {machine.MonitorPriority - 1, false}} {
		m, err := machine.StartMonitor(machine.DefaultThreshold)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
		from, to := holdCPU0(t, c.prio)
		time.Sleep(20 * time.Millisecond)
		stalls := m.Stop()
		// The monitor's tick may fall up to a tick after the hold starts: most of the 30 ms must
		// be measured when the hog is above the monitor, and much less than that when it is
		// below (where only a stall of the machine's own can fall into the span).
		var onCPU0 []machine.Stall
		for _, s := range stalls {
			if s.CPU == 0 {
				onCPU0 = append(onCPU0, s)
			}
		}
		within := machine.NewTimeline(onCPU0).Within(from, to) / 1e6
		if c.measured && within < 25 || !c.measured && within > 15 {
			t.Errorf("CPU 0 held %d ms at priority %d (the monitor's: %d): %d ms of stall measured during it: %v",
				(to-from)/1e6, c.prio, machine.MonitorPriority, within, onCPU0)
		}
	}
}

// cpuLatencyTarget is the kernel's current CPU wake-up latency target, which reading the PM QoS
// file returns: the smallest of every request held.
func cpuLatencyTarget(t *testing.T) int32 {
	b, err := os.ReadFile(machine.CPULatencyPath)
	if err != nil || len(b) != 4 {
		t.Fatalf("read %s: %v (%d bytes)", machine.CPULatencyPath, err, len(b))
	}
	return int32(binary.NativeEndian.Uint32(b))
}

// idleEntries counts, over every CPU, the entries into the polling idle state and into the
// others (which halt).
func idleEntries() (poll, halt int64) {
	states, _ := filepath.Glob("/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state*")
	for _, s := range states {
		name, _ := os.ReadFile(filepath.Join(s, "name"))
		b, _ := os.ReadFile(filepath.Join(s, "usage"))
		n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if strings.TrimSpace(string(name)) == "POLL" {
			poll += n
		} else {
			halt += n
		}
	}
	return poll, halt
}

// While the CPUs are held awake the kernel's target is zero and idle CPUs poll instead of
// halting; released, the target is what it was.
func TestHoldCPUsAwakeLeavesOnlyPolling(t *testing.T) {
	testutil.RequirePriv(t, "the CPU latency request")
	before := cpuLatencyTarget(t)
	release, err := machine.HoldCPUsAwake()
	if err != nil {
		t.Fatal(err)
	}
	if got := cpuLatencyTarget(t); got != 0 {
		t.Errorf("held: the CPU latency target is %d µs, want 0", got)
	}
	if states, _ := filepath.Glob("/sys/devices/system/cpu/cpu0/cpuidle/state*"); len(states) >= 2 {
		time.Sleep(10 * time.Millisecond) // a CPU that entered its idle state before wakes first
		poll0, halt0 := idleEntries()
		// The CPUs may be busy for a while (the kernel cleaning up namespaces of earlier tests):
		// wait for them to go idle a few times, and count the halts meanwhile.
		var poll1, halt1 int64
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
			if poll1, halt1 = idleEntries(); poll1-poll0 >= 20 {
				break
			}
		}
		// A few halts may land just after the first reading (an idle entry chosen before the
		// request reached that CPU); an idle machine halts hundreds of times a second.
		if poll1-poll0 < 20 || halt1-halt0 > 5 {
			t.Errorf("held awake: %d polling idle entries, %d halting ones", poll1-poll0, halt1-halt0)
		}
	} else {
		t.Log("no cpuidle states under /sys/devices/system/cpu/cpu0/cpuidle: only the latency target is checked, not that idle CPUs poll")
	}
	release()
	if got := cpuLatencyTarget(t); got != before {
		t.Errorf("released: the CPU latency target is %d µs, want %d as before", got, before)
	}
}
