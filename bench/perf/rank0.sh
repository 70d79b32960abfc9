#!/usr/bin/env bash
# rank0.sh: run a program under mpirun with rank 0 alone under perf, the way
# docs/fidelity-notes.md ("Per-operation cost") profiled h5proxy against bench/ref.
#
#   mpirun -np 2 bench/perf/rank0.sh record OUT.data PROGRAM [ARGS...]   # perf record --call-graph dwarf
#   mpirun -np 2 bench/perf/rank0.sh stat OUT.txt PROGRAM [ARGS...]      # perf stat context switches
#   mpirun -x GODEBUG=asyncpreemptoff=1 -np 4 bench/perf/rank0.sh callgrind OUT.cg PROGRAM [ARGS...]
#       # valgrind callgrind: instructions executed, the same whatever the load; Go programs
#       # need GODEBUG=asyncpreemptoff=1 (callgrind asserts on the runtime's SIGURG otherwise)
#   perf report -i OUT.data --children --sort symbol --stdio -g none -n
#
# Other ranks run PROGRAM unchanged. Needs perf (linux-perf) and OpenMPI's
# OMPI_COMM_WORLD_RANK; as root, mpirun also needs --allow-run-as-root --oversubscribe.
set -euo pipefail
mode=${1:?usage: rank0.sh record|stat|callgrind OUT PROGRAM [ARGS...]}
out=${2:?missing OUT}
shift 2
if [[ "${OMPI_COMM_WORLD_RANK:-0}" != 0 ]]; then
	exec "$@"
fi
case $mode in
record) exec perf record -F 2000 --call-graph dwarf,16384 -o "$out" "$@" ;;
stat) exec perf stat -e context-switches,task-clock -o "$out" "$@" ;;
callgrind) exec valgrind --tool=callgrind --callgrind-out-file="$out" "$@" ;;
*) echo "rank0.sh: mode $mode: want record, stat or callgrind" >&2; exit 2 ;;
esac
