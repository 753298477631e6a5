// Package apputil puts unmodified programs on a QJump level: through the LD_PRELOAD shim
// (preload mode, any dynamically linked program) or through cgroup eBPF programs that set the
// priority of every socket made in a cgroup (cgroup mode, which also covers static binaries and
// containers).
package apputil
