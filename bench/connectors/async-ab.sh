#!/usr/bin/env bash
# The Async VOL's columns of the connector matrix (TestSamplesUnderConnectors:
# async-implicit, async-explicit, cache-over-async) against two connector prefixes,
# interleaved sample by sample (the order alternates), so that both see the same load:
# the stock build of scripts/vol-connectors.sh and one built with VOL_ASYNC_PATCH
# (docs/modes.md, "The lost wake-up, tested with a patched connector"). Each sample's
# test run logs its cells (equal, failed, a required failure) and every stall line of
# the watchdog (stall_timeout=150s). Per sample and prefix: OUT/SAMPLE.NAME.log, and
# OUT/progress with the load at each start and the matrix rows.
# Usage, from the repository root, with the HDF5=1.14 environment (eval "$(HDF5=1.14 make -s env)"):
#   bash bench/connectors/async-ab.sh OUT [SAMPLE.json...]   (default: every sample of the matrix)
#   env: STOCK (/opt/h5proxy/vol-1.14.5), PATCHED (/opt/h5proxy/vol-1.14.5-patched),
#        RUNS (the three Async columns)
set -uo pipefail
out=$(realpath -m "${1:?usage: async-ab.sh OUT [SAMPLE.json...]}")
shift
samples=("$@")
[ ${#samples[@]} -gt 0 ] || samples=(sync-write-1d-contig-contig-read-full.json sync-write-2d-contig-contig-read-full.json
  sync-write-3d-contig-contig-read-full.json sync-write-1d-contig-interleaved.json sync-write-2d-contig-interleaved.json
  sync-amrex.json sync-openpmd.json sync-e3sm-canonical.json)
declare -A prefix=([stock]=${STOCK:-/opt/h5proxy/vol-1.14.5} [patched]=${PATCHED:-/opt/h5proxy/vol-1.14.5-patched})
mkdir -p "$out"
go test -c -o "$out/h5proxy.test" ./cmd/h5proxy || exit 1
cd cmd/h5proxy || exit 1
export H5PROXY_TEST_ASYNC_VOL=1 H5PROXY_CONNECTOR_RUNS=${RUNS:-async-implicit,async-explicit,cache-over-async}
i=0
for s in "${samples[@]}"; do
  order="stock patched"
  [ $((i % 2)) = 1 ] && order="patched stock"
  i=$((i + 1))
  for v in $order; do
    log=$out/${s%.json}.$v.log
    echo "$(date -u +%T) start $s $v load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/progress"
    H5PROXY_VOL_PREFIX=${prefix[$v]} H5PROXY_CONNECTOR_SAMPLES=$s "$out/h5proxy.test" -test.count=1 -test.timeout 60m \
      -test.run '^TestSamplesUnderConnectors$' -test.v >"$log" 2>&1
    rc=$?
    echo "$(date -u +%T) end   $s $v exit $rc load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/progress"
    { grep -E '^\s+\| (sample|sync)' "$log" | sed 's/^ *//'; grep -E 'h5proxy: stalled:' "$log" | sed 's/^ *//' | cut -c1-220; } | tee -a "$out/progress"
  done
done
