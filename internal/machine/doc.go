// Package machine is what we know of the machine we measure on (the testbed's emulated network,
// the dataplane's tests): it keeps the CPUs out of their idle states for a run, and measures
// when the CPUs stopped running.
//
// The testbed's links, queues and shapers are the kernel's softirqs and timers on the machine's
// own CPUs. On a virtual machine a vCPU that goes idle is halted, and the hypervisor wakes it
// again when it is ready to: on an idle 2-vCPU VM the monitor measured 337-1,158 stalls of over
// 0.5 ms in 15 s, up to 28 ms (`sleep 15 | qjump testbed stalls --out F.csv`, docs/testbed.md).
// Every such wait is a stall of the whole emulated network, a delay that no real network of the
// same queues has. HoldCPUsAwake removes most of them (the CPUs poll instead of halting, as
// cyclictest and tuned's latency-performance profile arrange); the Monitor measures the rest, so
// that a latency can be told apart from the time the machine stood still during it
// (docs/testbed.md, "Machine stalls").
package machine
