#!/usr/bin/env bash
# study.sh: h5bench_write's VPIC-style case and the same configuration through h5proxy,
# side by side against the real Async VOL (issue 35): per round, each program's SYNC run
# (native, no connector, as h5bench's sync mode runs) and ASYNC run (the connector loaded:
# h5bench_write turns to its event sets when HDF5_VOL_CONNECTOR names async, h5proxy's
# MODE ASYNC does the same through async.event_sets=AUTO), interleaved
# (h5bench sync, h5proxy sync, h5bench async, h5proxy async, h5proxy's async-model
# without the connector: MODEL). For each program and
# round it prints the observed completion time, the total emulated compute both print,
# the un-hidden I/O (observed minus compute, as h5bench counts it) and the share of the
# sync run's un-hidden I/O the async run hid; then the medians over the rounds.
#
#   HDF5=1.14 make build     # bin/hdf5-1.14/h5proxy, on the thread-safe 1.14.5 the connector needs
#   H5PROXY=bin/hdf5-1.14/h5proxy bench/asyncvol/study.sh /path/to/h5bench_write [ROUNDS]
#
# h5bench_write is h5bench's, built against the same prefix with -DWITH_ASYNC_VOL=ON
# (docs/modes.md). Environment: VOL_PREFIX (Argobots and vol-async; default
# /opt/h5proxy/vol-1.14.5, scripts/vol-connectors.sh), NP (2), STEPS (8), DIM (1048576
# particles per rank), COMPUTE ("190 ms" a step, as h5bench spells it: 1.5 times a step's sync I/O here), TIMEOUT
# (seconds per run, 300: a run the connector's lost wake-up stalls is ended and reported).
set -euo pipefail
h5bench=${1:?usage: $0 H5BENCH_WRITE [ROUNDS]}
rounds=${2:-3}
here=$(cd "$(dirname "$0")/../.." && pwd)
h5proxy=${H5PROXY:-$here/bin/h5proxy}
vol=${VOL_PREFIX:-/opt/h5proxy/vol-1.14.5}
np=${NP:-2} steps=${STEPS:-8} dim=${DIM:-1048576} compute=${COMPUTE:-190 ms} limit=${TIMEOUT:-300}
for f in "$h5bench" "$h5proxy" "$vol/lib"; do
	[[ -e $f ]] || { echo "study.sh: $f is missing" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
connector=(env HDF5_PLUGIN_PATH="$vol/lib" HDF5_VOL_CONNECTOR="async under_vol=0;under_info={}"
	LD_LIBRARY_PATH="$vol/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

keys() { # the write configuration's keys, as KEY=VALUE lines (h5bench_write's file has no MODE)
	printf '%s\n' MEM_PATTERN=CONTIG FILE_PATTERN=CONTIG "TIMESTEPS=$steps" DELAYED_CLOSE_TIMESTEPS=0 \
		COLLECTIVE_DATA=YES COLLECTIVE_METADATA=NO "EMULATED_COMPUTE_TIME_PER_TIMESTEP=$compute" \
		NUM_DIMS=1 "DIM_1=$dim" DIM_2=1 DIM_3=1
}
keys >"$work/bench.cfg"
# MODEL is h5proxy's async-model without the connector (h5bench_write has none): the
# model against the real Async VOL in the same interleaved rounds.
for mode in SYNC ASYNC MODEL; do
	{
		printf '{"mpi": {"command": "mpirun", "ranks": "%s", "configuration": "-np %s"}, "vol": {}, "file-system": {},\n' "$np" "$np"
		printf ' "directory": "%s", "benchmarks": [{"benchmark": "write", "file": "proxy.h5", "configuration": {' "$work/out"
		{ keys; if [[ $mode == MODEL ]]; then echo "MODE=async-model"; else echo "MODE=$mode"; fi; } | sed 's/^\([^=]*\)=\(.*\)$/"\1": "\2"/' | paste -sd, -
		printf '}}]}\n'
	} >"$work/$mode.json"
done

field() { sed -n "s/^.*$1: *\([0-9.]*\) s.*$/\1/p" "$2" | head -1; }
run() { # PROGRAM MODE ROUND: one run, its line of figures on stdout
	local out=$work/$1-$2-$3.log rc=0 with=(env)
	[[ $2 == ASYNC ]] && with=("${connector[@]}")
	case $1 in
	h5bench) timeout "$limit" "${with[@]}" mpirun -np "$np" "$h5bench" "$work/bench.cfg" "$work/bench.h5" >"$out" 2>&1 || rc=$? ;;
	h5proxy) timeout "$limit" "${with[@]}" "$h5proxy" run "$work/$2.json" >"$out" 2>&1 || rc=$? ;;
	esac
	local obs comp
	obs=$(field "Observed completion time" "$out") comp=$(field "Total emulated compute time" "$out")
	if [[ $rc != 0 || -z $obs || -z $comp ]]; then
		echo "study.sh: $1 $2 round $3: exit $rc, no figures (log kept as $out.kept):" >&2
		tail -3 "$out" >&2
		cp "$out" "/tmp/$(basename "$out").kept"
		echo "$1 $2 $3 - - -"
		return
	fi
	awk -v p="$1" -v m="$2" -v r="$3" -v o="$obs" -v c="$comp" 'BEGIN {printf "%s %s %s %s %s %.3f\n", p, m, r, o, c, o - c}'
}
echo "program mode round observed_s compute_s unhidden_s"
for r in $(seq 1 "$rounds"); do
	for mode in SYNC ASYNC MODEL; do
		for prog in h5bench h5proxy; do
			[[ $mode == MODEL && $prog == h5bench ]] && continue
			run $prog $mode "$r" | tee -a "$work/figures"
		done
	done
done
echo
echo "hidden share per round (1 - async un-hidden / sync un-hidden), then the median:"
for pm in "h5bench ASYNC" "h5proxy ASYNC" "h5proxy MODEL"; do
	read -r prog mode <<<"$pm"
	shares=$(awk -v p=$prog -v m=$mode '$1==p && $6!="-" {u[$2" "$3]=$6} END {for (k in u) {split(k, a, " "); if (a[1]=="SYNC" && ((m " " a[2]) in u)) printf "%.3f\n", 1 - u[m " " a[2]] / u[k]}}' "$work/figures" | sort -n)
	med=$(echo "$shares" | awk 'NF {v[++n]=$1} END {if (n) print (n % 2 ? v[(n+1)/2] : (v[n/2]+v[n/2+1])/2); else print "-"}')
	echo "$prog $mode: $(echo $shares) median $med"
done
