package machine

import (
	"encoding/binary"
	"fmt"
	"os"
)

// cpuLatencyPath is the kernel's PM QoS interface for the CPUs' wake-up latency: while a process
// holds it open with a value written, no CPU enters an idle state slower to leave than that.
const cpuLatencyPath = "/dev/cpu_dma_latency"

// HoldCPUsAwake asks the kernel for a CPU wake-up latency of zero, which leaves every CPU only
// its polling idle state, until release is called. The kernel drops the request when the file
// is closed, also when the process dies, so nothing outlives the run.
func HoldCPUsAwake() (release func(), err error) {
	f, err := os.OpenFile(cpuLatencyPath, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("keep the CPUs awake: %w", err)
	}
	if err := binary.Write(f, binary.NativeEndian, int32(0)); err != nil {
		f.Close()
		return nil, fmt.Errorf("keep the CPUs awake: write %s: %w", cpuLatencyPath, err)
	}
	return func() { f.Close() }, nil
}
