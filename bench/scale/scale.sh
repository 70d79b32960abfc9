#!/bin/sh
# Plans at scale without running them: for each pattern and N ranks, `h5proxy plan -stats`
# plans the last rank's write and read phases and reports the operations, the bytes, the
# planning time and the memory (docs/reliability.md, "Scale"). Planning is serial CPU work:
# its time is noisy on a loaded machine; the memory is stable.
#
#   bench/scale/scale.sh [bin/h5proxy] [N ...]    # default N: 1024 4096 16384 65536
set -eu
h5proxy=${1:-bin/h5proxy}
[ $# -gt 0 ] && shift
sizes=${*:-1024 4096 16384 65536}

# pattern|keys: the configurations of cmd/h5proxy/scale_test.go (TestPlanAtScale); iotest's
# process grid and dlio's file counts (one train and one valid file per rank) are filled
# in per N.
configs='vpic|DIM_1=1048576 TIMESTEPS=5
vpic-unlimited|DIM_1=1048576 TIMESTEPS=5
vpic-normal-dist|DIM_1=1048576 TIMESTEPS=5
vpic-overwrite|DIM_1=1048576 TIMESTEPS=5
vpic-append|DIM_1=1048576 TIMESTEPS=5
amrex|ncells=512 max_grid_size=8 nlevs=1 ncomp=6 nppc=1
dlio|generate-data=true train=true batch-size=4
e3sm|case=F ne=120
e3sm|case=G g_cells=235160 g_levels=80
e3sm|case=I i_lat=360 i_lon=720
exerciser|
iotest|
ior|api=MPIIO blockSize=16m transferSize=1m segmentCount=4
openpmd|pattern=sx
h5perf|num-bytes=1MiB xfer-size=256KiB block-size=64KiB num-dsets=2
nova|files=65536 groups=4 datasets_per_group=4 datasets_2d=1'

echo "| pattern | keys | N | phase | operations | bytes | plan s | Go heap allocated MB | max RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|"
echo "$configs" | while IFS='|' read -r pat keys; do
	for n in $sizes; do
		extra=
		[ "$pat" = iotest ] && extra="process-rows=32 process-columns=$((n / 32))"
		[ "$pat" = dlio ] && extra="num-files-train=$n num-files-eval=$n"
		for ph in write read; do
			# shellcheck disable=SC2086
			if out=$("$h5proxy" plan -stats -size "$n" -rank $((n - 1)) -phase $ph "$pat" $keys $extra 2>&1); then
				echo "$out" | awk -v p="$pat" -v k="$keys" -v n="$n" -v ph="$ph" '
					/operations,/ { ops = $2; bytes = $4 }
					/plan_s/ { printf "| %s | %s | %d | %s | %d | %d | %.2f | %.0f | %.0f |\n", p, k, n, ph, ops, bytes, $3, $5 / 1048576, $9 / 1048576 }'
			else
				echo "| $pat | $keys | $n | $ph | $(echo "$out" | tail -1 | sed 's/|/\\|/g' | cut -c1-120) | | | | |"
			fi
		done
	done
done
