#!/bin/bash
# Counts the system calls of rank 0 of IOR's read phase under strace -f -c (every thread:
# the Go runtime's hand-offs show as futex, its preemption signals as tgkill), for the real
# IOR and each h5proxy binary given, at -i 1 and -i 4: the difference is what 3 more read
# iterations cost. Each program first writes its own file (-w -k), then reads it (-r -k).
#
#   bench/ior/syscalls.sh /opt/h5proxy/ior/bin/ior MPIIO bin/h5proxy [OLD/bin/h5proxy ...]
set -eu
ior=$1 api=$2
shift 2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
set -- "$ior" "$@"
for bin in "$@"; do
	prog=("$bin")
	[ "$bin" = "$ior" ] || prog=("$bin" ior)
	args=(-a "$api" -c -b 128m -t 4m -s 2 -k -o "$dir/file")
	mpirun -np 2 "${prog[@]}" "${args[@]}" -i 1 -w >/dev/null
	for i in 1 4; do
		mpirun -np 2 bash -c 'if [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then exec strace -f -c -o "'"$dir/st"'" "$@"; else exec "$@"; fi' \
			x "${prog[@]}" "${args[@]}" -i "$i" -r >/dev/null
		# strace -c's rows: % time, seconds, usecs/call, calls, [errors,] syscall
		awk -v p="$bin" -v i="$i" '$NF ~ /^(futex|tgkill|sched_yield|nanosleep|pread64|total)$/ {print p, "-i " i, $NF, $4}' "$dir/st"
	done
	rm -f "$dir/file"
done
