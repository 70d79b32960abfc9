#!/usr/bin/env bash
# Repeated runs of one sample in the event-set mode (mode=async, async.event_sets=YES) under
# the Async VOL, catching what goes wrong with its evidence:
#   - a run whose step STEP is not logged done within WAIT seconds, or not ended within
#     TOTAL: both ranks' stacks (gdb -p, every thread), then the run is killed;
#   - a rank killed by a signal (the double free of docs/modes.md): its core file's stacks
#     (ulimit -c unlimited, GOTRACEBACK=crash; each run has its own working directory);
#   - a run that completes: its files compared with h5diff -r against one native run.
# Usage, from the repository root, after HDF5=1.14 make build:
#   bash bench/connectors/es-catch.sh OUT RUNS [SAMPLE.json]   (default samples/sync-e3sm-canonical.json)
#   env: VOL (/opt/h5proxy/vol-1.14.5), H5PROXY (bin/hdf5-1.14/h5proxy), NP (2),
#        WAIT (300: at load 12 a 2-rank E3SM F step 0 took 130 s), STEP (0), TOTAL (600),
#        SET (extra -set K=V words, default "r=1"), H5DIFF (HDF5_114_PREFIX's h5diff),
#        KEEP_CORE (set: keep a core file beside its stacks)
# OUT/tally has one line per run: its number, start, load, seconds and outcome
# (equal, differs, stalled, signal, failed); OUT/runN/ keeps the log, stacks and files.
set -uo pipefail
out=$(realpath -m "${1:?usage: es-catch.sh OUT RUNS [SAMPLE.json]}")
runs=${2:?usage: es-catch.sh OUT RUNS [SAMPLE.json]}
sample=$(realpath "${3:-samples/sync-e3sm-canonical.json}")
vol=${VOL:-/opt/h5proxy/vol-1.14.5}
h5proxy=$(realpath "${H5PROXY:-bin/hdf5-1.14/h5proxy}")
np=${NP:-2}
wait=${WAIT:-300}
step=${STEP:-0}
total=${TOTAL:-600}
h5diff=${H5DIFF:-${HDF5_114_PREFIX:-/opt/h5proxy/hdf5-1.14.5}/bin/h5diff}
sets=()
for kv in ${SET:-r=1}; do sets+=(-set "$kv"); done
[ -x "$h5proxy" ] || { echo "es-catch: no $h5proxy (HDF5=1.14 make build)" >&2; exit 2; }
[ -f "$vol/lib/libh5async.so" ] || { echo "es-catch: no Async VOL in $vol/lib" >&2; exit 2; }
mkdir -p "$out"
# The sample names its map relative to samples/; each run works in its own directory.
desc=$out/sample.json
sed "s|\"\.\./data/|\"$(dirname "$(dirname "$sample")")/data/|" "$sample" >"$desc"

if [ ! -d "$out/native" ]; then
  (cd "$out" && "$h5proxy" run -np "$np" "${sets[@]}" -dir native "$desc" >native.log 2>&1) ||
    { echo "es-catch: the native run failed: $out/native.log" >&2; exit 1; }
fi

stacks() { # pid file: every thread's stack, the frames that say where it waits
  timeout 60 gdb -p "$1" -batch -ex 'thread apply all bt 40' 2>/dev/null |
    grep -E '^Thread|^#' >>"$2"
}

for i in $(seq 1 "$runs"); do
  d=$out/run$i
  rm -rf "$d"
  mkdir -p "$d"
  start=$(date -u +%T)
  load=$(cut -d' ' -f1 /proc/loadavg)
  t0=$(date +%s)
  (
    cd "$d" || exit 1
    ulimit -c unlimited
    exec env GOTRACEBACK=crash HDF5_PLUGIN_PATH="$vol/lib" HDF5_VOL_CONNECTOR="async under_vol=0;under_info={}" \
      "$h5proxy" run -np "$np" -set stall_timeout=600s "${sets[@]}" -set mode=async -set async.event_sets=YES \
      -dir files "$desc" >run.log 2>&1
  ) &
  pid=$!
  outcome=
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    el=$(($(date +%s) - t0))
    if { [ "$el" -ge "$wait" ] && ! grep -q "step done.*step=$step\b" "$d/run.log"; } || [ "$el" -ge "$total" ]; then
      for p in $(pgrep -f "h5proxy run .*-dir files $desc"); do
        [ "$(ps -o ppid= -p "$p" | tr -d ' ')" = "$pid" ] && continue # the launcher
        case "$(tr '\0' ' ' </proc/"$p"/cmdline)" in mpirun*) continue ;; esac
        echo "== pid $p" >>"$d/stacks"
        stacks "$p" "$d/stacks"
      done
      pkill -P "$pid"
      kill "$pid" 2>/dev/null
      outcome=stalled
      break
    fi
  done
  wait "$pid"
  rc=$?
  secs=$(($(date +%s) - t0))
  if [ -z "$outcome" ]; then
    core=$(ls "$d"/core* 2>/dev/null | head -1)
    if [ -n "$core" ]; then
      outcome=signal
      gdb -batch -ex 'thread apply all bt full 40' "$h5proxy" "$core" >"$d/core.stacks" 2>&1
      [ -n "${KEEP_CORE:-}" ] || rm -f "$core"
    elif [ "$rc" != 0 ]; then
      outcome=failed
    else
      outcome=equal
      for f in "$out"/native/*.h5; do
        "$h5diff" -r "$f" "$d/files/$(basename "$f")" >"$d/h5diff.$(basename "$f").txt" 2>&1 || outcome=differs
      done
    fi
  fi
  echo "$i $start load $load ${secs}s $outcome" | tee -a "$out/tally"
done
