#!/usr/bin/env bash
# Model against connector, side by side (issue 35, item 4): VPIC (h5bench's write and
# read kernel) and E3SM F (h5bench's e3sm benchmark, canonical layout, the shipped map) at
# each rank count, every run of a round interleaved with the others, and sync run twice
# per round (A and A') so that the A/A band (how far two runs of the same thing differ on
# this machine) bounds what a model-connector difference can mean:
#   sync-A, async-model, async (event sets under the Async VOL), cache-model,
#   cache (the Cache VOL over the native connector), log (the model), log-vol (the
#   log-based VOL), sync-A'.
# Per run: write raw and observed time, the flush at close, the ranks' write(2) calls and
# bytes (/proc/self/io syscw, wchar) and what reached storage (write_bytes), summed over
# ranks; medians over rounds. COUNTS=1 prints the counts alone (they hold on a loaded
# machine; the times do not). A run that fails (the Async VOL can stall under load: the
# watchdog ends it after STALL) is reported as such and the study goes on.
# Usage, from the repository root (the E3SM sample's map is relative to it):
#   bash bench/connectors/study.sh [ROUNDS] [RANKS...]   (HDF5=1.14 build in bin/hdf5-1.14)
#   env: CASES ("vpic e3sm"), STEPS (4), DIM_1 (262144), COMPUTE (0.2s), E3SM_RECORDS (1),
#        STALL (120s), H5PROXY, H5PROXY_VOL_PREFIX, OUT, TABLE (below)
set -uo pipefail
rounds=${1:-3}
shift || true
ranks=${*:-1 2 4}
cases=${CASES:-vpic e3sm}
h5=$(realpath "${H5PROXY:-bin/hdf5-1.14/h5proxy}")
lib=${H5PROXY_VOL_PREFIX:-/opt/h5proxy/vol-1.14.5}/lib
# OUT keeps every run's log and report in that directory (default: a temporary one,
# removed at the end); TABLE=1 runs nothing and prints the table of the runs already in
# OUT, so that a study stopped part-way still gives the rounds it completed.
if [ -n "${OUT:-}" ]; then out=$OUT; mkdir -p "$out"; else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
mkdir -p "$out/ssd"
# The write buffer times the ranks on the node must stay below the storage size, or
# vol-cache 1.2.1 turns its write cache off ("Unable to claim space"; mode=cache refuses
# such a config): 512 MiB a rank, 4 ranks, 4 GiB.
printf 'HDF5_CACHE_STORAGE_TYPE: SSD\nHDF5_CACHE_STORAGE_PATH: %s\nHDF5_CACHE_STORAGE_SCOPE: LOCAL\nHDF5_CACHE_STORAGE_SIZE: 4294967296\nHDF5_CACHE_WRITE_BUFFER_SIZE: 536870912\n' "$out/ssd" >"$out/cache.cfg"
runs="sync-A async-model async cache-model cache log log-vol sync-B"
[ -n "${TABLE:-}" ] && [ -z "${OUT:-}" ] && { echo "study: TABLE=1 needs OUT, the directory of an earlier study's runs" >&2; exit 2; }
[ -n "${TABLE:-}" ] || echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for r in $(seq "$rounds"); do
  [ -n "${TABLE:-}" ] && break
  echo "study: round $r at $(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  for np in $ranks; do
    for c in $cases; do
      case $c in
      vpic) sample=samples/sync-write-read-1d-contig.json
        common=(-np "$np" -quiet -set TIMESTEPS="${STEPS:-4}" -set DIM_1="${DIM_1:-262144}" -set EMULATED_COMPUTE_TIME_PER_TIMESTEP="${COMPUTE:-0.2s}" -set verify=yes) ;;
      e3sm) sample=samples/sync-e3sm-canonical.json
        common=(-np "$np" -quiet -set r="${E3SM_RECORDS:-1}") ;;
      esac
      common+=(-set stall_timeout="${STALL:-120s}")
      for run in $runs; do
        d=$out/$c-$np-$run-$r
        env=(HDF5_PLUGIN_PATH="$lib")
        sets=()
        case $run in
        sync-A | sync-B) sets=(-set mode=sync) ;;
        async-model) sets=(-set mode=async-model) ;;
        async) env+=(HDF5_VOL_CONNECTOR="async under_vol=0;under_info={}"); sets=(-set mode=async -set async.event_sets=YES) ;;
        cache-model) sets=(-set mode=cache-model -set cache.path="$out/ssd") ;;
        cache) env+=(HDF5_VOL_CONNECTOR="cache_ext config=$out/cache.cfg;under_vol=0;under_info={}"); sets=(-set mode=cache -set cache.connector=YES) ;;
        log) sets=(-set layout=log) ;;
        log-vol) sets=(-set layout=log-vol) ;;
        esac
        env "${env[@]}" "$h5" run "${common[@]}" "${sets[@]}" -dir "$d" -report "$d.json" "$sample" >"$d.log" 2>&1 ||
          { touch "$d.failed"; echo "study: $c np=$np $run round $r failed: $( (grep -m1 'h5proxy: stalled' "$d.log" || grep -m1 -i 'error' "$d.log") | cut -c1-300)" >&2; }
      done
    done
  done
done
[ -n "${TABLE:-}" ] || echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 - "$out" "$rounds" "$ranks" "$cases" "$runs" "${COUNTS:-}" <<'PY'
import glob, json, statistics, sys
out, rounds, ranks, cases, runs, counts = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split(), sys.argv[5].split(), sys.argv[6]
def med(xs): return statistics.median(xs) if xs else float("nan")
def mx(v): return v["max"] if isinstance(v, dict) else v  # a reduced stat, or one value
if counts:
    print("| case | ranks | run | write(2) calls | bytes written | storage bytes | completed |")
    print("|---|---|---|---|---|---|---|")
else:
    print("| case | ranks | run | write raw s | write observed s | close s | read raw s | write(2) calls | bytes written | storage bytes | completed |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
for c in cases:
    for np in ranks:
        for run in runs:
            rows = []
            for r in range(1, rounds + 1):
                files = sorted(glob.glob(f"{out}/{c}-{np}-{run}-{r}.json*"))
                if not files or glob.glob(f"{out}/{c}-{np}-{run}-{r}.failed"):
                    continue
                phases = [p for f in files for p in json.load(open(f))["phases"]]
                w = [p for p in phases if p["phase"] == "write"]
                rd = [p for p in phases if p["phase"] == "read"]
                if any(not p.get("verified", True) for p in rd):
                    continue
                io = lambda k: sum(p["census"]["sys_io"][k]["sum"] for p in w)
                rows.append((sum(mx(p["raw_time"]) for p in w), sum(mx(p["observed_time"]) for p in w),
                             sum(mx(p["file_close_time"]) for p in w), sum(mx(p["raw_time"]) for p in rd),
                             io("syscw"), io("wchar"), io("write_bytes")))
            m = [med(x) for x in zip(*rows)] if rows else [float("nan")] * 7
            done = f"{len(rows)}/{rounds}"
            if counts:
                print(f"| {c} | {np} | {run} | {m[4]:.0f} | {m[5]:.0f} | {m[6]:.0f} | {done} |")
            else:
                print(f"| {c} | {np} | {run} | {m[0]:.3f} | {m[1]:.3f} | {m[2]:.3f} | {m[3]:.3f} | {m[4]:.0f} | {m[5]:.0f} | {m[6]:.0f} | {done} |")
        if not counts:
            a = lambda run: [mx(json.load(open(f))["phases"][0]["observed_time"]) for f in sorted(glob.glob(f"{out}/{c}-{np}-{run}-*.json*")) if json.load(open(f))["phases"][0]["phase"] == "write"]
            A, B = a("sync-A"), a("sync-B")
            if A and B:
                band = abs(med(A) - med(B)) / med(A)
                print(f"| {c} | {np} | A/A band | write observed: sync-A {med(A):.3f} s, sync-A' {med(B):.3f} s: {band:.1%} | | | | | | | |")
PY
