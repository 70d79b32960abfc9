#!/usr/bin/env bash
# layout=log (the model) against layout=log-vol (the real log-based VOL) at every level of
# `h5proxy profile` (issue 35, item 4): VPIC's write phase alone, 2 ranks, TIMESTEPS steps
# of 8 variables of DIM_1 elements per rank, no compute, each run under the LD_PRELOAD
# profiler (session key profile=yes). Per level (POSIX, MPI-IO, H5F, H5D): the files it
# touched (records, Darshan's file records; the MPI library's shared-memory files left
# out), the write calls (MPI-IO split into independent and collective) and the bytes
# written, summed over ranks. Counts only: they do not depend on the machine's load.
# Usage: bash bench/connectors/profile.sh [TIMESTEPS] [DIM_1]   (HDF5=1.14 build in bin/hdf5-1.14)
set -euo pipefail
steps=${1:-4}
dim=${2:-65536}
h5=${H5PROXY:-bin/hdf5-1.14/h5proxy}
lib=${H5PROXY_VOL_PREFIX:-/opt/h5proxy/vol-1.14.5}/lib
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat >"$out/vpic.json" <<JSON
{"pattern": "vpic", "phases": ["write"],
 "session": {"file": "vpic.h5", "compute_time": "0s", "profile": "yes"},
 "options": {"MEM_PATTERN": "CONTIG", "FILE_PATTERN": "CONTIG", "NUM_DIMS": 1, "DIM_1": $dim,
             "TIMESTEPS": $steps, "COLLECTIVE_DATA": "YES", "COLLECTIVE_METADATA": "YES"}}
JSON
for layout in native log log-vol; do
  HDF5_PLUGIN_PATH=$lib "$h5" run -np 2 -quiet -dir "$out/$layout" -report "$out/$layout.json" -set layout=$layout "$out/vpic.json" >"$out/$layout.log" 2>&1 ||
    { echo "profile: layout=$layout failed:"; tail -20 "$out/$layout.log"; exit 1; }
done
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
levels = [("POSIX", ["POSIX_WRITES"], "POSIX_BYTES_WRITTEN"),
          ("MPI-IO independent", ["MPIIO_INDEP_WRITES"], "MPIIO_BYTES_WRITTEN"),
          ("MPI-IO collective", ["MPIIO_COLL_WRITES"], None),
          ("H5F", [], None),
          ("H5D", ["H5D_WRITES"], "H5D_BYTES_WRITTEN")]
mod = {"POSIX": "POSIX", "MPI-IO independent": "MPIIO", "MPI-IO collective": "MPIIO", "H5F": "H5F", "H5D": "H5D"}
print("| level | layout | files | write calls | bytes written | opens |")
print("|---|---|---|---|---|---|")
for name, calls, nbytes in levels:
    for layout in ["native", "log", "log-vol"]:
        p = json.load(open(f"{out}/{layout}/h5proxy-profile.json"))
        recs = [r for r in p["records"] if r["module"] == mod[name] and "/ompi." not in r["file"] and not r["file"].endswith(".sm")]
        files = sorted({r["file"].split("/")[-1] if mod[name] != "H5D" else r["file"].split(":")[0].split("/")[-1] for r in recs})
        c = lambda k: sum(r["counters"].get(k, 0) for r in recs)
        opens = {"POSIX": "POSIX_OPENS", "MPIIO": "MPIIO_COLL_OPENS", "H5F": "H5F_OPENS", "H5D": "H5D_OPENS"}[mod[name]]
        w = sum(c(k) for k in calls) if calls else "-"
        b = c(nbytes) if nbytes else "-"
        print(f"| {name} | {layout} | {len(recs)} records ({', '.join(files)}) | {w} | {b} | {c(opens)} |")
rep = {l: json.load(open(f"{out}/{l}.json")) for l in ["native", "log", "log-vol"]}
for l, r in rep.items():
    c = r["phases"][0].get("census", {})
    print(f"census {l}: vol_connector {r['vol_connector']}, collective_transfers {c.get('collective_transfers')}, io_modes {c.get('io_modes')}")
PY
