#!/usr/bin/env bash
# Measures what the shim adds to socket(): the probe times N socket()+close() pairs of UDP sockets
# without the shim and with it at a level (one setsockopt more per socket), in interleaved rounds
# so that other load on the machine hits both alike; prints the medians and their difference. As
# root it also times cgroup mode (the sock_create eBPF program instead of the shim), with the qjump
# binary built by `make build`.
# Usage: preload/bench.sh [N] [ROUNDS]   (make bench-preload)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200000}
rounds=${2:-7}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
clang -O2 -pthread -o "$tmp/probe" preload/test/testdata/probe.c
shim=$PWD/internal/apputil/libqjump-preload.so
for _ in $(seq "$rounds"); do
	"$tmp/probe" bench "$n" | awk '{print $2}' >>"$tmp/without"
	LD_PRELOAD=$shim QJUMP_LEVEL=5 "$tmp/probe" bench "$n" | awk '{print $2}' >>"$tmp/with"
	LD_PRELOAD=$shim QJUMP_LEVEL=5 QJUMP_SNDBUF=65536 "$tmp/probe" bench "$n" | awk '{print $2}' >>"$tmp/sndbuf"
	if [ "$(id -u)" -eq 0 ] && [ -x bin/qjump ]; then
		bin/qjump run --mode cgroup --level 5 -- "$tmp/probe" bench "$n" | awk '{print $2}' >>"$tmp/cgroup"
	fi
done
median() { sort -g "$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
without=$(median "$tmp/without")
with=$(median "$tmp/with")
sndbuf=$(median "$tmp/sndbuf")
echo "socket()+close(), median of $rounds rounds of $n calls:"
printf '  without the shim            %8.1f ns\n' "$without"
printf '  with QJUMP_LEVEL            %8.1f ns  (%+.1f ns per socket)\n' "$with" "$(awk "BEGIN {print $with - $without}")"
printf '  with QJUMP_LEVEL and SNDBUF %8.1f ns  (%+.1f ns per socket)\n' "$sndbuf" "$(awk "BEGIN {print $sndbuf - $without}")"
if [ -s "$tmp/cgroup" ]; then
	cgroup=$(median "$tmp/cgroup")
	printf '  cgroup mode (eBPF)          %8.1f ns  (%+.1f ns per socket)\n' "$cgroup" "$(awk "BEGIN {print $cgroup - $without}")"
fi
