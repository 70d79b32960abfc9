#!/bin/bash
# Makes internal/darshan/testdata's Darshan logs with a real Darshan 3.5.0 (built by
# scripts/darshan.sh into $DARSHAN, default /opt/h5proxy/darshan) and bench/ref's
# programs (make bench-ref), with darshan-parser's and darshan-dxt-parser's output for
# each, and h5proxy's profiler's record files of the same write (make build). Run from
# the repository's root: scripts/darshan-fixtures.sh
set -euo pipefail
DARSHAN=${DARSHAN:-/opt/h5proxy/darshan}
OUT=internal/darshan/testdata
W=/tmp/h5proxy-darshan-fixtures
rm -rf "$W" && mkdir -p "$W"
run() { # LOG NP DXT("" off, 1 on: the variable set at all turns DXT on) PROGRAM ARGS...
    local log=$1 np=$2 dxt=$3; shift 3
    mpirun --allow-run-as-root --oversubscribe -np "$np" -x LD_PRELOAD="$DARSHAN/lib/libdarshan.so" \
        -x DARSHAN_LOGFILE="$W/$log" ${dxt:+-x DXT_ENABLE_IO_TRACE=1} "$@" >/dev/null
}
# VPIC-IO write (h5bench's calls), 1024 particles per rank, 2 steps, 2 ranks, DXT on
run vpic-dxt.darshan 2 1 bin/ref/vpic_write "$W/vpic.h5" 1024 2 yes yes 0
# the same run under h5proxy's profiler (make build), traced: its ranks' record files
# (h5proxy-vpic/, renamed without the pid), which TestAgreesWithDarshan merges and
# compares with vpic-dxt.darshan
mkdir -p "$W/h5proxy-vpic"
mpirun --allow-run-as-root --oversubscribe -np 2 -x LD_PRELOAD="$PWD/bin/libh5proxy-profile.so" \
    -x H5PROXY_PROFILE_DIR="$W/h5proxy-vpic" -x H5PROXY_PROFILE_TRACE=1 \
    bin/ref/vpic_write "$W/vpic.h5" 1024 2 yes yes 0 >/dev/null
rm -rf "$OUT/h5proxy-vpic" && mkdir -p "$OUT/h5proxy-vpic"
for f in "$W"/h5proxy-vpic/h5proxy-profile.*.jsonl; do
    rank=$(basename "$f" | cut -d. -f2)
    cp "$f" "$OUT/h5proxy-vpic/h5proxy-profile.$rank.0.jsonl" && chmod 644 "$OUT/h5proxy-vpic/h5proxy-profile.$rank.0.jsonl"
done
# BD-CATS-IO read of that file, full, 2 ranks, DXT off
run vpic-read.darshan 2 "" bin/ref/vpic_read "$W/vpic.h5" 1024 2 yes FULL
# the write's log recompressed with bzip2 by darshan-convert
"$DARSHAN/bin/darshan-convert" --bzip2 "$W/vpic-dxt.darshan" "$W/vpic-bzip2.darshan"
for f in vpic-dxt vpic-read vpic-bzip2; do
    cp "$W/$f.darshan" "$OUT/$f.darshan" && chmod 644 "$OUT/$f.darshan"
    "$DARSHAN/bin/darshan-parser" "$OUT/$f.darshan" >"$OUT/$f.parser.txt"
    "$DARSHAN/bin/darshan-dxt-parser" "$OUT/$f.darshan" >"$OUT/$f.dxt.txt"
    grep -q '^ *X_' "$OUT/$f.dxt.txt" || rm "$OUT/$f.dxt.txt"
done
