package experiment

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/qjump-net/qjump/internal/machine"
	"github.com/qjump-net/qjump/internal/testbed"
)

// stallsFile is the stall monitor's output in a run's directory.
const stallsFile = "stalls.csv"

// MachineInfo is what the run knew of the machine under the emulation (docs/testbed.md,
// "Machine stalls"): whether its CPUs were kept from halting, and the stalls measured.
type MachineInfo struct {
	CPUs             string  `json:"cpus"`
	StallMonitor     string  `json:"stall_monitor"`
	StallThresholdUS float64 `json:"stall_threshold_us"`
	// Stalls is nil (null) when the stalls were not measured: not a machine without stalls.
	Stalls *machine.Summary `json:"stalls"`
}

// Method is the machine in one sentence, for summary.md.
func (m MachineInfo) Method() string {
	if m == (MachineInfo{}) {
		return "Machine: not recorded (a run from before runs held the CPUs awake and measured stalls)."
	}
	if m.StallMonitor != "on" {
		return fmt.Sprintf("Machine: CPUs %s; stalls not measured (%s).", m.CPUs, m.StallMonitor)
	}
	if m.Stalls == nil {
		return fmt.Sprintf("Machine: CPUs %s; the stall monitor ran but left no %s.", m.CPUs, stallsFile)
	}
	return fmt.Sprintf("Machine: CPUs %s; %d stalls of the machine measured (a CPU not running for over %.0f µs), %.1f ms in all, the longest %.1f ms.",
		m.CPUs, m.Stalls.Count, m.StallThresholdUS, m.Stalls.TotalMS, m.Stalls.WorstMS)
}

// machineWatch is the run's hold on the CPUs and its stall monitor.
type machineWatch struct {
	release func()
	monitor *machine.Process
}

// watchMachine keeps the CPUs polling (unless the options let them idle) and starts the stall
// monitor, writing into dir. Neither failing stops the run: it is then recorded, and the
// latencies carry the machine's stalls unmeasured.
func watchMachine(env *Env, dir string) *machineWatch {
	w := &machineWatch{}
	info := &env.res.Machine
	info.CPUs = "allowed to halt when idle (--let-cpus-idle)"
	if !env.opts.LetCPUsIdle {
		release, err := machine.HoldCPUsAwake()
		if err != nil {
			info.CPUs = "left as they were: " + err.Error()
		} else {
			w.release, info.CPUs = release, "held awake (polling when idle, /dev/cpu_dma_latency 0)"
		}
	}
	info.StallThresholdUS = float64(machine.DefaultThreshold) / 1e3
	monitor, err := machine.StartProcess(testbed.Binary, filepath.Join(dir, stallsFile))
	if err != nil {
		info.StallMonitor = "not started: " + err.Error()
	} else {
		w.monitor, info.StallMonitor = monitor, "on"
	}
	env.logf("machine: CPUs %s; stall monitor %s", info.CPUs, info.StallMonitor)
	return w
}

// stop ends the monitor, which writes its file (finish reads it, as report does), and releases
// the CPUs.
func (w *machineWatch) stop(env *Env) {
	if w.monitor != nil {
		if _, err := w.monitor.Stop(); err != nil {
			env.res.Machine.StallMonitor = "failed: " + err.Error()
		}
	}
	if w.release != nil {
		w.release()
	}
}

// loadStalls reads a run's stalls into r: what its targets take out of latencies. A run without
// the file (a monitor that failed, or results from before it existed) has none measured.
func loadStalls(r *Results, dir string) error {
	stalls, err := machine.ReadCSV(filepath.Join(dir, stallsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	tl := machine.NewTimeline(stalls)
	summary := machine.Summarize(stalls)
	r.stalls, r.Machine.Stalls = &tl, &summary
	return nil
}
