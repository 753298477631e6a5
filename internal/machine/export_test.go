package machine

// What the external tests (package machine_test, which may import testutil, itself an importer
// of this package) need of the unexported.
const (
	MonitorPriority = monitorPriority
	CPULatencyPath  = cpuLatencyPath
)
