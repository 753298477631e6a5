// Package dataplane loads QJump's eBPF rate limiter (bpf/qjump.bpf.c) onto the egress of an
// interface, pins its state under bpffs so that later commands find it, reconfigures it atomically
// and reads its per-level counters.
package dataplane
