package apputil

// The cgroup programs are compiled from bpf/cgroup_sock.bpf.c; the generated Go and object files
// are committed so that building qjump needs no clang. `make bpf` regenerates them; `make bpf-check`
// fails when they are stale.
//go:generate go tool bpf2go -tags linux -cc clang -cflags "-O2 -g -Wall -Werror -I/usr/include/x86_64-linux-gnu" -target bpfel cgroupSock ../../bpf/cgroup_sock.bpf.c
