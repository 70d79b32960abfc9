#!/usr/bin/env bash
# Model against connector (issue 35, item 4), VPIC at 2 ranks, interleaved rounds:
#   cache: sync, cache-model, cache through the Cache VOL (cache_ext over the native
#          connector): write phase raw and observed time, the flush at close
#          (file_close_time), what reaches storage (write_bytes) and the write calls;
#   log:   log (the model) and log-vol (the real log-based VOL): write calls and bytes
#          (read(2)/write(2) counts of /proc/self/io: syscw, wchar), storage bytes, and the
#          read-back time (raw read time of the verified read phase).
# Usage: bash bench/connectors/rows.sh [ROUNDS] [DIM_1]   (HDF5=1.14 build in bin/hdf5-1.14)
set -euo pipefail
rounds=${1:-3}
dim=${2:-262144}
h5=${H5PROXY:-bin/hdf5-1.14/h5proxy}
lib=${H5PROXY_VOL_PREFIX:-/opt/h5proxy/vol-1.14.5}/lib
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/ssd"
# The write buffer times the ranks on the node must stay below the storage size, or
# vol-cache 1.2.1 turns its write cache off ("Unable to claim space"; mode=cache refuses
# such a config): 512 MiB a rank, 4 ranks, 4 GiB.
printf 'HDF5_CACHE_STORAGE_TYPE: SSD\nHDF5_CACHE_STORAGE_PATH: %s\nHDF5_CACHE_STORAGE_SCOPE: LOCAL\nHDF5_CACHE_STORAGE_SIZE: 4294967296\nHDF5_CACHE_WRITE_BUFFER_SIZE: 536870912\n' "$out/ssd" >"$out/cache.cfg"
sample=samples/sync-write-read-1d-contig.json
common=(-np 2 -quiet -set TIMESTEPS=4 -set DIM_1="$dim" -set EMULATED_COMPUTE_TIME_PER_TIMESTEP=0.2s -set verify=yes)
for r in $(seq "$rounds"); do
  for c in sync cache-model cache-vol log log-vol; do
    d=$out/$c-$r
    case $c in
    sync) "$h5" run "${common[@]}" -dir "$d" -report "$d.json" -set MODE=SYNC "$sample" ;;
    cache-model) "$h5" run "${common[@]}" -dir "$d" -report "$d.json" -set mode=cache-model -set cache.path="$out/ssd" "$sample" ;;
    cache-vol) HDF5_PLUGIN_PATH=$lib HDF5_VOL_CONNECTOR="cache_ext config=$out/cache.cfg;under_vol=0;under_info={}" \
      "$h5" run "${common[@]}" -dir "$d" -report "$d.json" -set mode=cache -set cache.connector=YES "$sample" ;;
    log) "$h5" run "${common[@]}" -dir "$d" -report "$d.json" -set layout=log "$sample" ;;
    log-vol) HDF5_PLUGIN_PATH=$lib "$h5" run "${common[@]}" -dir "$d" -report "$d.json" -set layout=log-vol "$sample" ;;
    esac >"$d.log" 2>&1 || { echo "rows: $c round $r failed:"; tail -20 "$d.log"; exit 1; }
  done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
print("| run | write raw s | write observed s | close (flush) s | write(2) calls | bytes written | storage bytes | read raw s |")
print("|---|---|---|---|---|---|---|---|")
for c in ["sync", "cache-model", "cache-vol", "log", "log-vol"]:
    rows = []
    for r in range(1, rounds + 1):
        w = json.load(open(f"{out}/{c}-{r}.json.0"))["phases"][0]
        rd = json.load(open(f"{out}/{c}-{r}.json.1"))["phases"][0]
        assert rd["verified"], (c, r)
        io = w["census"]["sys_io"]
        rows.append((w["raw_time"]["max"], w["observed_time"]["max"] if isinstance(w["observed_time"], dict) else w["observed_time"],
                     w["file_close_time"]["max"], io["syscw"]["sum"], io["wchar"]["sum"], io["write_bytes"]["sum"], rd["raw_time"]["max"]))
    med = [statistics.median(x) for x in zip(*rows)]
    print(f"| {c} | {med[0]:.3f} | {med[1]:.3f} | {med[2]:.3f} | {med[3]:.0f} | {med[4]:.0f} | {med[5]:.0f} | {med[6]:.3f} |")
PY
