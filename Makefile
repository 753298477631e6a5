# One entry point: `make` builds everything, `make test` runs every test, `make demo` runs the main
# job. Both install what a fresh Debian machine lacks first (scripts/deps).
GO      ?= go
BIN     := bin/qjump
# The LD_PRELOAD shim ships inside the qjump binary (go:embed), so the built .so is committed next
# to the Go code that embeds it, like bpf2go's objects: a fresh clone builds with `go build` alone,
# no C toolchain needed, and `go install` works. The build is deterministic (no build id, no debug
# info, no compiler ident, stripped), so `make test` rebuilds it with the clang that made it and
# fails when the committed copy differs (scripts/objects-check); `make preload` refreshes it after
# editing preload/*.c.
PRELOAD_SO     := internal/apputil/libqjump-preload.so
PRELOAD_CFLAGS := -std=gnu11 -O2 -g0 -Wall -Wextra -Werror -fPIC -shared -fno-ident \
		  -Wl,--build-id=none -Wl,-s -Wl,--hash-style=gnu
# $(call preload_cc,OUT) compiles the shim to OUT: the one command both preload and preload-check use.
preload_cc = clang $(PRELOAD_CFLAGS) -o $(1) preload/qjump_preload.c -ldl

.PHONY: all build deps test demo vet lint fmt-check clean bpf bpf-check preload preload-to preload-check bench-preload bench-ns2 bench-sim-ab bench-sim-instructions bench-barrier

all: build

# No rule for $(PRELOAD_SO): go:embed uses the committed copy (a file rule would re-run clang in a
# fresh clone, whose checkout order makes the .so look older than its source, and overwrite it).
# The commit qjump version names is stamped by go build (-buildvcs), which these VMs' go env turns
# off (GOFLAGS=-buildvcs=false). It is turned on only where this directory is itself a git checkout
# that git reads: in a linked worktree or a tree inside another repository go would stamp that
# repository's commit, and in a checkout git refuses (another user's: "dubious ownership") the
# build would fail. There it builds without a stamp, and qjump version says "commit unknown".
BUILDVCS := $(shell [ -d .git ] && git status --porcelain >/dev/null 2>&1 && echo auto || echo false)

build:
	$(GO) build -buildvcs=$(BUILDVCS) -o $(BIN) ./cmd/qjump

preload:
	$(call preload_cc,$(PRELOAD_SO))
	scripts/objects-check --write preload

# The shim compiled to OUT, for scripts/objects-check to compare with the committed copy.
preload-to:
	$(call preload_cc,$(OUT))

# Fails when the committed shim is not what preload/shim.sum records, or, with the clang it
# records, not what a fresh build makes.
preload-check:
	scripts/objects-check preload

# What the shim adds to socket() (docs/performance.md).
bench-preload: build
	preload/bench.sh

# ns-2 2.35 and the simulator side by side on the same flows (docs/performance.md, "The ns-2
# anchor"); installs ns-2 with apt-get if it is missing. Not part of make test: it takes minutes.
# Options through NS2_ARGS, e.g. make bench-ns2 NS2_ARGS="--agents full --rounds 5".
bench-ns2:
	bench/ns2/run $(NS2_ARGS)

# The simulator's speed at two revisions, run side by side on the two cores (docs/performance.md,
# "Measuring a change"); by default the working tree against main. Options and revisions through
# AB_ARGS, e.g. make bench-sim-ab AB_ARGS="--pairs 20 main HEAD".
AB_ARGS ?= main WORKTREE
bench-sim-ab:
	bench/sim/ab $(AB_ARGS)

# What a packet-hop of the simulator executes at each revision, counted by cachegrind: instructions,
# L1 and L2 misses, mispredicted branches (docs/performance.md, "Measuring a change"); by default main
# against the working tree. Installs valgrind with apt-get if it is missing; about 25 s a revision.
INSTR_ARGS ?= main WORKTREE
bench-sim-instructions:
	bench/sim/instructions $(INSTR_ARGS)

# Barrier's QJump arm built by hand, its rounds split into the wait for the last peer's start and
# that peer's message (docs/reproducing.md, Fig. 3c). Options through BARRIER_ARGS, e.g.
# make bench-barrier BARRIER_ARGS="--bulk 5-6,6-5,5-6,6-5 --capture". Needs root; about 20 s.
bench-barrier:
	bench/barrier/by-hand $(BARRIER_ARGS)

deps:
	scripts/deps

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change: $$out" >&2; exit 1; fi

vet:
	$(GO) vet ./...

# staticcheck, pinned in go.mod's tool block: unused code, deprecated calls, suspicious
# constructs that go vet does not look for.
lint:
	$(GO) tool staticcheck ./...

# -p 1: one package at a time. The namespace suites (dataplane, apputil, testbed, experiment) each
# saturate emulated links and measure latency; run side by side on two cores they measure each
# other instead of the code. And cli's TestBadInput checks that nothing was pinned anywhere in
# bpffs, which another package's tests running beside it do. (The packages whose tests use the
# kernel also take turns by themselves, testutil.Main: a go test of a few of them without -p 1
# waits instead of failing, each binary up to 5 minutes, while its other packages still load the
# machine; -p 1 never waits.)
test: deps fmt-check vet lint bpf-check preload-check
	$(GO) test -count=1 -p 1 ./...

# Regenerates the committed eBPF objects and their Go bindings from bpf/*.c (needs clang), and
# records what made them in bpf/objects.sum.
bpf:
	cd internal/dataplane && $(GO) generate ./
	cd internal/apputil && $(GO) generate ./
	scripts/objects-check --write bpf

# Fails when the committed eBPF objects are not what bpf/objects.sum records, or, with the clang
# it records, not what a fresh build makes.
bpf-check:
	scripts/objects-check bpf

demo: deps build
	scripts/demo

clean:
	rm -rf bin
