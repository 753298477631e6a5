package dataplane

// The compiled programs are committed (bpf2go writes the .o and its Go bindings), so `go build`
// needs no clang. `make bpf` regenerates them; `make bpf-check` fails when they are stale.
//go:generate go tool bpf2go -tags linux -target bpfel -type qj_ceiling -type qj_depths -type qj_demotion -type qj_level -type qj_budget -type qj_counters -type qj_tally -type qj_constants -type qj_mode -type qj_flags -type qj_verdict -type qj_tc_verdict qjump ../../bpf/qjump.bpf.c -- -I../../bpf -I/usr/include/x86_64-linux-gnu -Wall -Werror -O2
//go:generate go tool bpf2go -tags linux -target bpfel floor ../../bpf/floor.bpf.c -- -I../../bpf -I/usr/include/x86_64-linux-gnu -Wall -Werror -O2
