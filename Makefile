# One entry point: `make` builds everything, `make test` runs every test, `make demo` runs the main
# job. Both install what a fresh Debian machine lacks first (scripts/deps).
GO      ?= go
BIN     := bin/qjump

.PHONY: all build deps test demo vet fmt-check clean bpf bpf-check

all: build

build:
	$(GO) build -o $(BIN) ./cmd/qjump

deps:
	scripts/deps

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change: $$out" >&2; exit 1; fi

vet:
	$(GO) vet ./...

test: deps fmt-check vet bpf-check
	$(GO) test -count=1 ./...

# Regenerates the committed eBPF objects and their Go bindings from bpf/*.c (needs clang).
bpf:
	cd internal/dataplane && $(GO) generate ./

# Fails when clang is present and the committed eBPF objects differ from a fresh build.
bpf-check:
	scripts/bpf-check

demo: deps build
	scripts/demo

clean:
	rm -rf bin
