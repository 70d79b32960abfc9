# h5proxy build: Go library and tools over the system's parallel HDF5 (OpenMPI flavour).
# `make demo` runs the embedded default configuration on 2 ranks; `make test` runs every test.

SHELL := /bin/bash
GO ?= go
PKGS := hdf5-openmpi ompi
# gonum.org/v1/hdf5 has no pkg-config directive of its own: point cgo at the parallel HDF5.
export CGO_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
export CGO_LDFLAGS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
export GOFLAGS := -tags=gonum
BIN := bin
DEMO_DIR ?= h5proxy-out

.PHONY: all deps build demo test test-go test-race vet bench clean

all: build

deps:
	bash scripts/deps.sh

build: deps
	$(GO) build ./...
	$(GO) build -o $(BIN)/h5proxy ./cmd/h5proxy

demo: build
	$(BIN)/h5proxy run

vet: deps
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

test: build vet
	$(GO) test -race -count=1 ./patterns/... ./options ./emulate ./h5bench
	$(GO) test -count=1 -timeout 20m ./...

bench: build
	$(GO) run ./bench -np 2 -reps 9

clean:
	rm -rf $(BIN) build $(DEMO_DIR)
	$(GO) clean -testcache
