# h5proxy build: Go library and tools over the system's parallel HDF5 (OpenMPI flavour).
# `make demo` runs the embedded default configuration on 2 ranks; `make test` runs every test.
#
# Two HDF5s, one switch (docs/hdf5.md): HDF5=1.10 (default) builds against Debian 12's
# parallel HDF5 1.10.8; HDF5=1.14 (`HDF5=1.14 make build test`) against parallel HDF5 1.14.5
# with the subfiling VFD, which `make deps` then builds into HDF5_114_PREFIX
# (scripts/hdf5-1.14.sh, about 3 minutes on 2 cores, reused afterwards). The two builds
# never share an output: bin/ and build/cmake for 1.10, bin/hdf5-1.14/ and build/cmake-1.14
# for 1.14. `HDF5=1.14 make -s env` prints the shell exports of a build's environment.

# Recipe lines run in bash through scripts/make-shell.sh, which prints the time of each
# line that takes 2 s or more (make-time: lines; the CI log's closing table collects them).
SHELL := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))scripts/make-shell.sh
GO ?= go
HDF5 ?= 1.10
HDF5_114_PREFIX ?= /opt/h5proxy/hdf5-1.14.5
PKGS := hdf5-openmpi ompi
BIN := bin
CMAKE_BUILD_DIR ?= build/cmake
CMAKE_INSTALL_DIR ?= build/install
CMAKE_PLAIN_DIR ?= build/cmake-plain
ifeq ($(HDF5),1.14)
# scripts/hdf5-1.14.sh writes the prefix's lib/pkgconfig/hdf5-openmpi.pc. Put first in
# PKG_CONFIG_PATH, it stands in for the system's: cgo's `#cgo pkg-config: hdf5-openmpi`
# directives, CGO_CFLAGS/CGO_LDFLAGS below, CMake and the reference programs all get 1.14,
# and its Libs carry -Wl,-rpath so every binary loads that libhdf5. The prefix's bin/ comes
# first in PATH, so tests that shell out to h5dump, h5diff or h5ls run the matching tools.
export HDF5_114_PREFIX
export PKG_CONFIG_PATH := $(HDF5_114_PREFIX)/lib/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
export PATH := $(HDF5_114_PREFIX)/bin:$(PATH)
BIN := bin/hdf5-1.14
CMAKE_BUILD_DIR := build/cmake-1.14
CMAKE_PLAIN_DIR := build/cmake-plain-1.14
CMAKE_INSTALL_DIR := build/install-1.14
CMAKE_HDF5_FLAGS := -DH5PROXY_HDF5_PREFIX=$(HDF5_114_PREFIX)
else ifeq ($(HDF5),1.10)
# A shell set up for 1.14 (make env) must not leak that HDF5 into a 1.10 build: its
# directories leave PKG_CONFIG_PATH and PATH (rewritten only when they hold them, so a
# directory name with a space elsewhere survives).
colon_list = $(subst $(eval) ,:,$(strip $(1)))
without = $(call colon_list,$(filter-out $(2),$(subst :, ,$(1))))
ifneq ($(findstring $(HDF5_114_PREFIX)/lib/pkgconfig,$(PKG_CONFIG_PATH)),)
export PKG_CONFIG_PATH := $(call without,$(PKG_CONFIG_PATH),$(HDF5_114_PREFIX)/lib/pkgconfig)
endif
ifneq ($(findstring $(HDF5_114_PREFIX)/bin,$(PATH)),)
export PATH := $(call without,$(PATH),$(HDF5_114_PREFIX)/bin)
endif
CMAKE_HDF5_FLAGS := -DH5PROXY_HDF5_PREFIX=
else
$(error HDF5=$(HDF5): the builds are HDF5=1.10 (the system's 1.10.8, the default) and HDF5=1.14 (HDF5_114_PREFIX))
endif
# Tests read the switch to know which HDF5 the build must have loaded (internal/h5).
export H5PROXY_HDF5 := $(HDF5)
# gonum.org/v1/hdf5 has no pkg-config directive of its own: point cgo at the parallel HDF5.
# Recursively expanded (=, not :=): make expands an exported variable each time it starts a
# recipe, so the flags are read after `make deps` has installed hdf5-openmpi.pc. Computed
# when make parses this file, they would be empty on a fresh machine and the first build
# would fail with "hdf5.h: No such file or directory".
# GNU make 4.3 (Debian 12) does not pass exported variables to $(shell): PKG_CONFIG
# carries PKG_CONFIG_PATH itself.
PKG_CONFIG := PKG_CONFIG_PATH='$(PKG_CONFIG_PATH)' pkg-config
export CGO_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
export CGO_LDFLAGS = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
export GOFLAGS := -tags=gonum
DEMO_DIR ?= h5proxy-out

.PHONY: all deps deps-corpus deps-browser build demo test test-readme vet bench clean fuzz fuzz-short leaks env check-hdf5

all: build

deps:
	bash scripts/deps.sh
ifeq ($(HDF5),1.14)
	bash scripts/hdf5-1.14.sh
endif

# deps-corpus installs the libraries real codes write HDF5 through (parallel netCDF-4, h5py
# with MPI, PETSc: scripts/deps-corpus.sh), for tests/corpus's real writers (docs/apps.md).
# make test runs it, so CI runs the corpus.
deps-corpus:
	bash scripts/deps-corpus.sh

# darshan builds Darshan 3.5.0 into /opt/h5proxy/darshan (optional: internal/darshan's
# tests then also check written logs with the real darshan-parser; docs/profile.md).
.PHONY: darshan
darshan:
	bash scripts/darshan.sh

# pydarshan installs PyDarshan from Darshan's source tree into a venv, /opt/h5proxy/pydarshan
# (optional: internal/darshan's TestPyDarshan then opens h5proxy's logs with its summary
# and DXT readers; docs/profile.md).
.PHONY: pydarshan
pydarshan: darshan
	bash scripts/pydarshan.sh

# vol-connectors builds Argobots and the Async, Cache and log-based VOL connectors against
# the thread-safe 1.14 prefix (scripts/vol-connectors.sh; not part of deps: no registry has them).
.PHONY: vol-connectors
# Its build tools first: Argobots' autogen.sh needs libtool, which no other target installs
# (a fresh Debian 12 machine failed there with "Libtool library used but 'LIBTOOL' is undefined").
vol-connectors:
	DEPS_NAME=vol-connectors bash scripts/deps.sh autoconf automake libtool git
	HDF5_114_PREFIX=$(HDF5_114_PREFIX) bash scripts/vol-connectors.sh

# openpmd builds the real openPMD-api 8a write benchmark (h5bench's h5bench_openpmd_write) for
# comparisons under Darshan (scripts/openpmd.sh; opt-in, not part of deps or CI).
.PHONY: openpmd
openpmd:
	bash scripts/openpmd.sh

# env prints the build's environment as shell exports: eval "$$(HDF5=1.14 make -s env)".
env:
	@echo 'export H5PROXY_HDF5=$(HDF5)'
	@echo 'export PKG_CONFIG_PATH="$(PKG_CONFIG_PATH)"'
	@echo 'export PATH="$(PATH)"'
	@echo 'export CGO_CFLAGS="$(CGO_CFLAGS)"'
	@echo 'export CGO_LDFLAGS="$(CGO_LDFLAGS)"'
	@echo 'export GOFLAGS="$(GOFLAGS)"'
	@echo '# make variables: BIN=$(BIN) CMAKE_BUILD_DIR=$(CMAKE_BUILD_DIR) CMAKE_INSTALL_DIR=$(CMAKE_INSTALL_DIR)'

# check-hdf5: the built command loads exactly one libhdf5, the one of the switch, and
# `h5proxy version` names the version pkg-config found (the switch is recorded).
HDF5_LIBDIR = $(patsubst -L%,%,$(firstword $(filter -L%,$(shell $(PKG_CONFIG) --libs-only-L hdf5-openmpi))))
check-hdf5: build
	bash scripts/check-hdf5.sh $(HDF5_LIBDIR)/libhdf5.so $(BIN)/h5proxy
	@v=$$($(PKG_CONFIG) --modversion hdf5-openmpi); case "$$v" in $(HDF5).*) ;; *) \
		echo "check-hdf5: HDF5=$(HDF5) but pkg-config hdf5-openmpi is $$v" >&2; exit 1 ;; esac; \
	$(BIN)/h5proxy version | grep -qx "HDF5 $$v (build HDF5=$(HDF5).*" || { \
		$(BIN)/h5proxy version; echo "check-hdf5: h5proxy version does not name HDF5 $$v (build HDF5=$(HDF5))" >&2; exit 1; }
	@echo "check-hdf5: $(BIN)/h5proxy: HDF5=$(HDF5), one libhdf5, version recorded"

build: deps $(BIN)/libh5proxy-profile.so $(BIN)/h5proxy

# The build checks that every package of the module compiles (the benches, tools and
# examples too) and links the command. `go list -export ./...` compiles every package, main
# packages included, through the same build cache as `go build`, and prints the same errors;
# it does not link. `go build ./...` linked all 21 main packages at every call (Go caches
# compiles, not links): 60 s of CPU each time (`go build ./...` run twice in a clone, the
# second run links only: 42 s user + 18 s sys; `go list -export ./...` after it: 1 s;
# 2026-11-30, load 13), and CI's clone calls it three times (fresh-deps, demo, the 1.14
# suite). Side by side in new clones (2026-11-30, load 6-8), `make build` took 243 s wall
# and 165 s of CPU with `go build ./...`, 92 s and 90 s with this; again after `rm -rf bin`
# (as make demo after fresh-deps), 105 s and 68 s against 21 s and 16 s. A link checks what a compile does not only where a main package has C of its
# own that no test binary links: GO_LINK_MAINS (today bench/cgocall) are still linked.
# The whole-module build runs again only when a source changed since bin/h5proxy was built.
GO_INPUTS := go.mod go.sum $(shell find . \( -path ./build -o -path ./bin -o -path ./.git \) -prune -o \( -name '*.go' -o -name '*.c' -o -name '*.h' \) -print)
GO_LINK_MAINS = $(GO) list -f '{{if and (eq .Name "main") .CgoFiles (not .TestGoFiles) (not .XTestGoFiles)}}{{.ImportPath}}{{end}}' ./...
$(BIN)/h5proxy: $(GO_INPUTS)
	$(GO) list -export ./... >/dev/null
	mains=$$($(GO_LINK_MAINS)) && if [ -n "$$mains" ]; then $(GO) build -o /dev/null $$mains; fi
	$(GO) build -o $@ ./cmd/h5proxy

# The LD_PRELOAD profiler (preload/, docs/profile.md) beside bin/h5proxy, where `h5proxy
# profile` looks for it. Compiled against HDF5's and MPI's headers; linked with neither.
# Its sources: a core and one source per module, over one internal header (preload/profile.h).
PROFILE_CFLAGS ?= -O2 -g -fPIC -shared -Wall -Wextra -Werror -Wno-unused-parameter
PROFILE_SRCS := $(sort $(wildcard preload/profile-*.c))
$(BIN)/libh5proxy-profile.so: $(PROFILE_SRCS) preload/profile.h
	@mkdir -p $(BIN)
	$(CC) $(PROFILE_CFLAGS) $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) -o $@ $(PROFILE_SRCS) -ldl -lpthread

demo: build
	$(BIN)/h5proxy run

# vet checks the cgo build (vet-cgo: the Go code type-checked against the build's HDF5
# headers), then what no HDF5 build changes (vet-rest: the readme-tagged tests, the
# CGO_ENABLED=0 build of the *_nocgo.go stubs, gofmt), which the 1.14 suite of make test
# leaves to the default suite (docs/hdf5.md, "What each suite runs").
.PHONY: vet-cgo vet-rest
vet: vet-cgo vet-rest
vet-cgo: deps
	$(GO) vet ./...
vet-rest: deps
	$(GO) vet -tags=readme ./tests/readme
	CGO_ENABLED=0 GOFLAGS= $(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

# deps-browser installs Debian's chromium for the report pages' rendering test
# (internal/report: TestPagesInBrowser, which make test requires).
deps-browser:
	DEPS_NAME=deps-browser bash scripts/deps.sh chromium

test: export H5PROXY_REQUIRE_BROWSER = 1
# Ranks waiting in MPI give up their core (sched_yield) instead of polling: go test runs two
# packages at once, each launching 2-rank jobs on CI's 2 cores, where a polling rank holds
# the core another job's rank needs (OpenMPI yields by itself only when one job has more
# ranks than cores). Two copies at once of `go test ./proxy -run '^TestLayoutsE3SM$'` (2
# ranks) took 70-79 s each, 29-32 s with it, and 14 s of CPU each instead of 22 (shared
# machine, the runs at nice -15, 2026-11-29).
test: export OMPI_MCA_mpi_yield_when_idle = 1
# The packagers' plain build (cmake-plain) runs with the system's HDF5, as packagers build;
# the 1.14 suite skips it to keep CI's two suites within their time.
TEST_PLAIN := $(if $(filter 1.14,$(HDF5)),,cmake-plain)
# The fuzz targets' seeds run as unit tests (the race run's or the Go step's go test); their
# mutation (fuzz-short) runs once, in the default suite: the targets parse text, and CI's
# two suites must stay within its time.
TEST_FUZZ := $(if $(filter 1.14,$(HDF5)),@echo "fuzz-short: run by the default suite (seeds ran above)",$(MAKE) --no-print-directory fuzz-short)
# The README's blocks (test-readme) run in the default suite only: they are text, the same
# for both builds, and what they exercise that depends on the build is checked in the 1.14
# suite too: ctest's install_tree and install_consumer_np2 (C and Fortran consumers of the
# installed package through find_package and pkg-config, run at 2 ranks), hdf5_one_library,
# examples/go's test (a Go program over the library) and cmd/h5proxy's tests of the
# commands. It took 65 s of the 1.14 suite (rehearsal of 2026-11-30, quiet machine).
TEST_README := $(if $(filter 1.14,$(HDF5)),@echo "test-readme: run by the default suite (the README's text; ctest's install consumers ran above)",$(MAKE) --no-print-directory test-readme)
# Work that does not depend on the HDF5 build runs in the default suite only (docs/hdf5.md,
# "What each suite runs"): the race run of the packages that link no HDF5 (patterns,
# options, emulate); the tests of the packages scripts/test-packages.sh lists as HDF5-free
# (it checks that they build no cgo); the tests it lists as SAME_ON_BOTH, each with its
# reason (`scripts/test-packages.sh skip 1.14` prints the -skip pattern and checks that each
# is defined, in its package only); and the 1, 2 and 4-rank sweeps' 1- and 4-rank runs:
# the 1.14 suite sweeps at 2 ranks alone (H5PROXY_TEST_SWEEP, read by mpitest.Sweep; tests
# whose point is the rank count, tests/corpus among them, do not sweep through it). ctest's
# rank counts follow the same rule (cmake-test below passes H5PROXY_RANK_COUNTS).
# The race run's packages are not run again by the Go step after it (scripts/test-packages.sh
# leaves out the packages passed after the build): their tests have just run, race detector on.
TEST_RACE := $(if $(filter 1.14,$(HDF5)),,./patterns/... ./options ./emulate) ./h5bench ./proxy/layout/log ./proxy/e3smmap
test: export H5PROXY_TEST_SWEEP = $(if $(filter 1.14,$(HDF5)),2)
# Each Go step's `go test -json` goes through internal/testtime: plain go test's output (a
# failing test's whole log), then the slowest tests and packages, so that a CI log shows
# where the time went.
TESTTIME = set -o pipefail; $(GO) build -o $(BIN)/testtime ./internal/testtime &&
# The package timeout is 30 minutes: where the VOL connectors are built (make vol-connectors),
# cmd/h5proxy's connector matrix runs too and the package took 1,186 s of the 1.14 suite here
# (about 735 s without it, as in CI).
TEST_VET := $(if $(filter 1.14,$(HDF5)),vet-cgo,vet)
# The Go steps run with -vet=off: go test's own vet (10 of vet's analyzers) runs on every
# package it tests, once per build configuration (the race build and each HDF5 build are
# configurations of their own), while `go vet ./...` of every analyzer, test files
# included, has run in the same suite just before (vet-cgo in both). Over the module go
# test's analyzers took 61 s of CPU (`go vet -atomic -bool -buildtags -directive -errorsas
# -ifaceassert -nilfunc -printf -slog -stringintconv -tests ./...` after the test binaries
# were built, in a new clone, 2026-11-30, load 12-15).
test: build $(TEST_VET) check-hdf5 cmake-test $(TEST_PLAIN) deps-corpus deps-browser
	$(TESTTIME) $(GO) test -json -vet=off -race -count=1 $(TEST_RACE) | $(BIN)/testtime -n 5
	$(TESTTIME) $(GO) test -json -vet=off -race -count=1 -run '^TestConcurrentSessions$$' ./bench/leaks | $(BIN)/testtime -n 1
	pkgs=$$(bash scripts/test-packages.sh $(HDF5) $(TEST_RACE)) && skip=$$(bash scripts/test-packages.sh skip $(HDF5)) && \
		$(TESTTIME) $(GO) test -json -vet=off -count=1 -timeout 30m $${skip:+-skip "$$skip"} $$pkgs | $(BIN)/testtime -n 25
	$(TEST_FUZZ)
	$(TEST_README)

# ---- reliability (docs/reliability.md) ------------------------------------------------------
# FUZZ_TARGETS lists package:target pairs. `go test` runs each target's seed corpus
# (testdata/fuzz/<target> and its f.Add seeds) as a unit test; `make fuzz` mutates inputs
# for FUZZTIME per target (the figures in docs/reliability.md), `make fuzz-short` (run by
# `make test`) for FUZZTIME_SHORT. A failing input is written to the package's
# testdata/fuzz/<target>/: commit it with the fix.
FUZZ_TARGETS := patterns/ior:FuzzParse patterns/h5perf:FuzzParse patterns/macsio:FuzzParse options:FuzzParse proxy:FuzzOptionText proxy:FuzzNativeConfig h5bench:FuzzParse \
	proxy/layout/log:FuzzIndexDecoder proxy/layout/subfiling:FuzzMasterDescription \
	proxy/e3smmap:FuzzMapDecode capi:FuzzSessionStrings internal/darshan:FuzzRead
FUZZTIME ?= 30s
# make test's run counts inputs, not seconds: a duration-based -fuzztime can end in a
# spurious "context deadline exceeded" failure in Go 1.26's fuzz coordinator when the
# deadline hits a worker mid-input (go.dev/issue/75804, fixed in Go 1.27); seen here once.
FUZZTIME_SHORT ?= 2000x
# Fuzzing runs with -vet=off: the fuzz build instruments every package, a build
# configuration of its own, so go test's vet ran again on each target's package and its
# dependencies, 8 s of CPU of proxy's 16 for FuzzOptionText once compiled (2026-11-30, load
# 10; `go test [-vet=off] -run='^$' -fuzz='^FuzzOptionText$' -fuzztime=2000x ./proxy`).
# `make vet` (make test runs it first) vets the same code with every analyzer.

fuzz: deps
	@set -e; for pt in $(FUZZ_TARGETS); do \
		echo "== $${pt%%:*} $${pt##*:} ($(FUZZTIME))"; \
		$(GO) test -vet=off -run='^$$' -fuzz="^$${pt##*:}$$" -fuzztime=$(FUZZTIME) ./$${pt%%:*} 2>&1 | \
			awk '/execs:/ {last=$$0} !/execs:/ {print} END {if (last) print last}'; \
		test $${PIPESTATUS[0]} -eq 0; \
	done

fuzz-short:
	$(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZTIME_SHORT)

# leaks runs LEAK_SESSIONS sessions per layout x mode in one process, from Go and through
# the C ABI (tests/capi/leaks.c), and prints the figures of docs/reliability.md.
LEAK_SESSIONS ?= 1000
leaks: build
	$(GO) run ./bench/leaks -n $(LEAK_SESSIONS)
	cmake -S . -B $(CMAKE_BUILD_DIR) $(CMAKE_DEV) $(CMAKE_HDF5_FLAGS)
	cmake --build $(CMAKE_BUILD_DIR) -j $(NPROC) --target leaks_c
	mkdir -p $(CMAKE_BUILD_DIR)/test-output/leaks-full
	mpirun $(if $(filter 0,$(shell id -u)),--allow-run-as-root) -np 1 $(CMAKE_BUILD_DIR)/tests/capi/leaks_c $(CMAKE_BUILD_DIR)/test-output/leaks-full $(LEAK_SESSIONS)

# The README's code blocks, run as written (tests/readme): needs $(BIN)/h5proxy (what the
# README's bin/h5proxy stands for) and the CMake build of cmake-test, which `make test` has
# made by then.
test-readme:
	$(GO) test -tags=readme -count=1 -timeout 10m ./tests/readme -args -cmake-build=$(CMAKE_BUILD_DIR) -bin=$(BIN)

bench: build
	$(GO) run ./bench/mpiio -np 2 -reps 9
	$(GO) run ./bench/overlap -np 1 -reps 5
	$(GO) run ./bench/overlap -np 2 -bind core -compute sleep -steps 8 -ratios 1.5 -modes sync,async -reps 7 -membound=false
	$(GO) run ./bench/fidelity -np 2 -reps 7
	$(GO) run ./bench/app -np 2 -reps 7
	$(GO) run ./bench/nova -np 2 -reps 7
	$(GO) run ./bench/nova -np 2 -reps 7 -tool
	$(GO) run ./bench/cgocall -reps 9
	$(GO) run ./bench/capture -reps 7

# bench-ior compares h5proxy ior with a real IOR binary (issue 14; docs/ior.md says how
# one was built): IOR=/path/to/ior make bench-ior. Not part of bench: no IOR ships here.
.PHONY: bench-ior
bench-ior:
	@test -n "$(IOR)" || { echo "bench-ior: set IOR to a real IOR binary (docs/ior.md: comparing with the real IOR)" >&2; exit 2; }
	$(MAKE) build
	$(GO) run ./bench/ior -ior "$(IOR)" -np 2 -reps 7

clean:
	rm -rf bin build $(DEMO_DIR)
	$(GO) clean -testcache

# ---- C ABI, Fortran module and CMake package (include/, capi/, fortran/, cmake/) ----------
# cmake-test configures and builds libh5proxy.so/.a, the Fortran module and the examples into
# build/cmake, installs into build/install, and runs ctest (MPI tests at 1, 2 and 4 ranks,
# the installed-package consumers, the C/Fortran/Go file comparison).
# bench-capi measures the cost of a no-op C call and the per-phase overhead outside HDF5; its
# last line gives the step and the valid-handle call beside the bare C->Go transition.
# The developer's CMake build (cmake-test, leaks, bench-capi) turns compiler warnings into
# errors (H5PROXY_WERROR, off by default); cmake-plain builds as packagers do (no build type,
# no option) into an empty CMAKE_PLAIN_DIR, requires no warning, installs it and builds
# find_package(h5proxy) consumers against it, then configures Debug and Release with gcc
# and clang (the two at once) and compiles their C, C++ and Fortran without linking Go again
# (scripts/cmake-plain.sh; `make test` runs it).
.PHONY: cmake-test cmake-plain bench-capi
NPROC := $(shell nproc 2>/dev/null || echo 2)
CMAKE_DEV := -DCMAKE_BUILD_TYPE=RelWithDebInfo -DH5PROXY_WERROR=ON

# ctest's MPI tests of the C and Fortran programs run at 1, 2 and 4 ranks
# (H5PROXY_RANK_COUNTS), at the one count H5PROXY_TEST_SWEEP names when make test sets it:
# 2 in the 1.14 suite, by the rank-sweep rule of the Go tests (docs/hdf5.md, "What each suite
# runs"; the programs' decomposition is their own C, the same on both builds). Passed at every
# configure, so that the cache of an earlier run does not keep another list.
CMAKE_RANK_COUNTS = $(or $(H5PROXY_TEST_SWEEP),1;2;4)
cmake-test: deps
	cmake -S . -B $(CMAKE_BUILD_DIR) $(CMAKE_DEV) $(CMAKE_HDF5_FLAGS) '-DH5PROXY_RANK_COUNTS=$(CMAKE_RANK_COUNTS)'
	cmake --build $(CMAKE_BUILD_DIR) -j $(NPROC)
	cmake --install $(CMAKE_BUILD_DIR) --prefix $(CURDIR)/$(CMAKE_INSTALL_DIR)
	ctest --test-dir $(CMAKE_BUILD_DIR) --output-on-failure -j $(NPROC)

cmake-plain: deps
	scripts/cmake-plain.sh $(CMAKE_PLAIN_DIR) $(CMAKE_HDF5_FLAGS)

bench-capi: deps
	cmake -S . -B $(CMAKE_BUILD_DIR) $(CMAKE_DEV) $(CMAKE_HDF5_FLAGS)
	cmake --build $(CMAKE_BUILD_DIR) -j $(NPROC) --target bench_calls
	cmake --build $(CMAKE_BUILD_DIR) --target bench-capi

# bench-capi-icount: instructions per null-layout step and per C ABI call under callgrind
# (meaningful on a loaded machine, unlike bench-capi's times; docs/metrics.md).
.PHONY: bench-capi-icount
bench-capi-icount: deps
	cmake -S . -B $(CMAKE_BUILD_DIR) $(CMAKE_DEV)
	cmake --build $(CMAKE_BUILD_DIR) -j $(NPROC) --target bench_calls
	bench/capi/icount.sh $(CMAKE_BUILD_DIR)/examples/c/bench_calls

# ---- bench/ref: C reference programs issuing h5bench's VPIC-IO/BD-CATS and E3SM-IO's canonical
# HDF5 call sequences (see bench/ref/*.c); bench/fidelity times them against h5proxy.
.PHONY: bench-ref
REF_CC ?= mpicc
REF_CFLAGS ?= -O2 -Wall -Werror $(shell $(PKG_CONFIG) --cflags hdf5-openmpi 2>/dev/null)
REF_LIBS := $(shell $(PKG_CONFIG) --libs hdf5-openmpi 2>/dev/null)
REF_PROGS := $(BIN)/ref/vpic_write $(BIN)/ref/vpic_read $(BIN)/ref/e3sm_canonical
bench: bench-ref
bench-ref: $(REF_PROGS)
$(BIN)/ref/%: bench/ref/%.c bench/ref/ref_common.h
	@mkdir -p $(BIN)/ref
	$(REF_CC) $(REF_CFLAGS) -o $@ $< $(REF_LIBS)
