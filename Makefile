# One entry point: `make` builds everything, `make test` runs every test, `make demo` runs the main
# job. Both install what a fresh Debian machine lacks first (scripts/deps).
GO      ?= go
BIN     := bin/qjump

.PHONY: all build deps test demo vet fmt-check clean

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

test: deps fmt-check vet
	$(GO) test -count=1 ./...

demo: deps build
	scripts/demo

clean:
	rm -rf bin
