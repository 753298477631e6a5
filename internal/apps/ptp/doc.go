// Package ptp runs linuxptp's ptp4l as a PTP master or slave (software timestamping, UDPv4) and
// turns the slave's "master offset ... path delay" lines into samples: the paper's Fig. 5 and
// Fig. 7 clock-synchronisation workload.
//
// Every network namespace of one machine shares one system clock, so the slave must never
// adjust it: the master's clock is the same clock, and so is every other namespace's. ptp4l's
// free_running option does that, but then ptp4l prints one offset per frequency-estimation
// interval, at least a second, too few for hundreds of samples per experiment arm. Instead both
// instances run the "ntpshm" servo, which only hands each sample to an NTP daemon through shared
// memory: it always reports the unlocked state (s0), so ptp4l never steps or slews the clock, and
// it prints every Sync's offset. The shared memory segment lives in a private IPC namespace
// (unshare --ipc) and goes with it. Each instance gets its own management socket path, since
// namespaces share the filesystem.
//
// With one clock, the slave's true offset is zero: the reported master offset is exactly PTP's
// error from delay variation and path asymmetry, which is what network interference does to it.
package ptp
