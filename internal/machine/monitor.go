package machine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/model"
)

// Tick is how often the monitor's thread on each CPU wakes. A stall shorter than a tick can be
// missed; the monitor is for stalls of milliseconds, which are what decide latency targets.
const Tick = time.Millisecond

// DefaultThreshold is how late a tick must be to count as a stall: beyond a timer's ordinary
// lateness (tens of µs on these VMs), and a tenth of the smallest bound the experiments check.
const DefaultThreshold = 500 * time.Microsecond

// MinThreshold is the smallest threshold the monitor takes: a tenth of its tick, below which a
// timer's ordinary lateness would count as stalls.
const MinThreshold = Tick / 10

// monitorPriority is the monitor threads' SCHED_FIFO priority: above every ordinary thread and
// ksoftirqd, so that a late tick means the CPU ran nothing of the guest's threads (halted,
// preempted by the hypervisor, or in interrupts for that long), and below the kernel's own
// real-time threads (migration, watchdog at 99).
const monitorPriority = 50

// Monitor measures, on every CPU the process may use, the times the CPU did not run its
// highest-priority thread when its timer was due.
type Monitor struct {
	threshold time.Duration
	stop      atomic.Bool
	wg        sync.WaitGroup
	mu        sync.Mutex
	stalls    []Stall
}

// StartMonitor starts one real-time thread per CPU. It fails, leaving nothing running, when a
// thread cannot be placed or given its priority (it needs CAP_SYS_NICE).
func StartMonitor(threshold time.Duration) (*Monitor, error) {
	if threshold < MinThreshold {
		return nil, fmt.Errorf("stall threshold %s: want at least %s", model.DurationText(threshold), model.DurationText(MinThreshold))
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("stall monitor: CPUs of this process: %w", err)
	}
	m := &Monitor{threshold: threshold}
	var errs []error
	for cpu := 0; cpu < len(set)*64; cpu++ {
		if !set.IsSet(cpu) {
			continue
		}
		ready := make(chan error)
		m.wg.Add(1)
		go m.watch(cpu, ready)
		if err := <-ready; err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		m.Stop()
		return nil, errors.Join(errs...)
	}
	return m, nil
}

// Stop ends every thread and returns the stalls measured, in the order they ended.
func (m *Monitor) Stop() []Stall {
	m.stop.Store(true)
	m.wg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stalls
}

// watch is one CPU's thread. The goroutine keeps its OS thread locked to the end, so that the
// thread, with its affinity and real-time policy, ends with it instead of returning to the
// runtime's pool.
func (m *Monitor) watch(cpu int, ready chan<- error) {
	defer m.wg.Done()
	runtime.LockOSThread()
	var one unix.CPUSet
	one.Set(cpu)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		ready <- fmt.Errorf("stall monitor: place a thread on CPU %d: %w", cpu, err)
		return
	}
	attr := unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: monitorPriority}
	if err := unix.SchedSetAttr(0, &attr, 0); err != nil {
		ready <- fmt.Errorf("stall monitor: real-time priority on CPU %d: %w", cpu, err)
		return
	}
	close(ready)
	due := monotonic()
	for !m.stop.Load() {
		due += Tick.Nanoseconds()
		sleepUntil(due)
		late := monotonic() - due
		if late <= m.threshold.Nanoseconds() {
			continue
		}
		// The wall clock, as the kernel's packet stamps: the tick was due late ns ago.
		now := time.Now().UnixNano()
		m.mu.Lock()
		m.stalls = append(m.stalls, Stall{CPU: cpu, FromNS: now - late, ToNS: now})
		m.mu.Unlock()
		due += late // the next tick is a tick from now, not a burst of overdue ones
	}
}

func monotonic() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

func sleepUntil(ns int64) {
	ts := unix.NsecToTimespec(ns)
	for unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil) == unix.EINTR {
	}
}

// Record measures stalls until ctx ends. It is meant to be a process of its own (`qjump testbed
// stalls`): a monitor thread that wakes needs one of the Go runtime's Ps to go on, and in a
// process with other work a busy P would look like a stalled CPU. With nothing else to run and a
// P for every thread, a late tick is the CPU's.
func Record(ctx context.Context, threshold time.Duration) ([]Stall, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err == nil {
		runtime.GOMAXPROCS(set.Count() + 1)
	}
	m, err := StartMonitor(threshold)
	if err != nil {
		return nil, err
	}
	<-ctx.Done()
	return m.Stop(), nil
}
