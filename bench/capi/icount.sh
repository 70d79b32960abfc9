#!/bin/sh
# icount.sh: instructions per null-layout step and per C ABI call, counted by callgrind
# (not distorted by a loaded machine, unlike bench_calls' timings). Each figure is the
# difference between two runs of examples/c/bench_calls that differ only in the number of
# phases of 200 steps (or of calls), divided by the difference in steps (calls): start-up
# and session creation cancel out; each phase's begin and end stay in, spread over its
# 200 steps, as in make bench-capi's run of 20 such phases.
#
#   bench/capi/icount.sh [BENCH_CALLS]      (default build/cmake/examples/c/bench_calls;
#                                            build it with make bench-capi or cmake --build)
#
# Go's preemption signals upset callgrind's signal tracking: GODEBUG=asyncpreemptoff=1.
# GOMAXPROCS=1: callgrind runs one thread at a time, and the Go scheduler's idle
# processors spin for work meanwhile, counting thousands of instructions per step that
# vary from run to run (three runs of the same program differed by 40 %).
set -eu
bench=${1:-build/cmake/examples/c/bench_calls}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ir() { # ir NAME ARGS...: total instructions of one run
	name=$1
	shift
	GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/$name.out" \
		"$bench" "$@" >"$tmp/$name.log" 2>&1 || { cat "$tmp/$name.log" >&2; exit 1; }
	sed -n 's/^==[0-9]*== Collected : //p' "$tmp/$name.log"
}
s1=$(ir s1 1 1 5 200 steps)
s2=$(ir s2 1 1 10 200 steps)
c1=$(ir c1 10 1000 1 1 calls)
c2=$(ir c2 10 2000 1 1 calls)
a1=$(ir a1 10 1000 1 1 abi)
a2=$(ir a2 10 2000 1 1 abi)
echo "instructions per h5proxy_phase_step (layout=null, vpic DIM_1=1): $(( (s2 - s1) / 1000 ))"
echo "instructions per h5proxy_session_steps (valid handle):       $(( (c2 - c1) / 10000 ))"
echo "instructions per h5proxy_abi_version (bare C->Go transition): $(( (a2 - a1) / 10000 ))"
