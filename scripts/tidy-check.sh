#!/bin/sh
# tidy-check.sh BIN OUTDIR: runs every configuration of samples/ (and samples/studies/)
# with the h5proxy binary BIN, plus `h5proxy ior` over three APIs and `h5proxy concat`,
# and stores in OUTDIR, per run, `h5dump -pH` of each HDF5 file it left and its JSON
# report (census included) with the fields that hold times, rates, addresses of the
# machine and other run-to-run noise removed. Two trees' outputs compare with `diff -r`:
# a refactoring that changes no file and no census leaves no difference.
#
#   go build -o /tmp/h5proxy-a ./cmd/h5proxy   # in each tree
#   scripts/tidy-check.sh /tmp/h5proxy-a /tmp/check-a
#   scripts/tidy-check.sh /tmp/h5proxy-b /tmp/check-b
#   diff -r /tmp/check-a /tmp/check-b
#
# Sizes are the samples' own but for compute time (0 s: the check is about files and
# counts, not time) and sync-e3sm.json's records (2 instead of 25). Each run's stdout and
# stderr stay in OUTDIR/log/ for reading; they hold times: compare them with care.
set -eu

if [ $# -ne 2 ]; then
	echo "usage: $0 BIN OUTDIR" >&2
	exit 2
fi
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
repo=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$bin" ] || { echo "$0: $bin is not executable" >&2; exit 2; }
command -v h5dump >/dev/null || { echo "$0: h5dump not found (apt-get install hdf5-tools)" >&2; exit 2; }

# mpirun as root (the containers these checks run in); harmless otherwise.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

rm -rf "$out"
mkdir -p "$out/work" "$out/dump" "$out/report" "$out/log"
out=$(cd "$out" && pwd)

# strip writes a JSON report without its noisy fields, keys sorted, one value a line.
strip() {
	python3 - "$1" "$2" <<'EOF'
import json, re, sys
noisy = re.compile(r'(time|rate|_s$|^start$|^end$|began|finished|hidden_fraction|sys_io|host|version|'
                   r'mpiio_impl|^text$|^value$|seconds|elapsed|duration|throughput|bandwidth|^bw|latency|'
                   r'report_file|csv_file|trace_file)', re.I)
def clean(o):
    if isinstance(o, dict):
        return {k: clean(v) for k, v in o.items() if not noisy.search(k)}
    if isinstance(o, list):
        return [clean(v) for v in o]
    return o
with open(sys.argv[1]) as f:
    r = json.load(f)
with open(sys.argv[2], 'w') as f:
    json.dump(clean(r), f, indent=1, sort_keys=True)
    f.write('\n')
EOF
}

# collect NAME DIR: every HDF5 file under DIR dumped (-pH: properties, no data), every
# report.json* stripped.
collect() {
	name=$1 dir=$2
	find "$dir" -type f -not -path "$dir/data/*" | sort | while read -r f; do
		rel=${f#"$dir"/}
		flat=$(printf '%s' "$rel" | tr '/' '_')
		case $rel in
		report.json*)
			strip "$f" "$out/report/$name.$flat" ;;
		*)
			if h5dump -H "$f" >/dev/null 2>&1; then
				# The first line names the file by the path given: keep it relative.
				(cd "$dir" && h5dump -pH "$rel") >"$out/dump/$name.$flat.txt" 2>&1
			fi ;;
		esac
	done
}

# iorlines keeps of IOR's report on stdin what does not vary from run to run: the
# options, each results row's access and iteration, each summary row's access and its
# columns from Test# on.
iorlines() {
	awk '/^(Began|StartTime|Finished|Machine|Path|FS) *:/ || /^Max (Write|Read):/ { next }
	$1 ~ /^(write|read|remove)$/ && NF == 11 { print $1, $11; next }
	$1 ~ /^(write|read)$/ && NF > 13 { printf "%s", $1; for (i = 13; i <= NF; i++) printf " %s", $i; print ""; next }
	{ print }'
}

# run NAME ARGS...: runs BIN ARGS in OUTDIR/work/NAME and collects its files.
run() {
	name=$1
	shift
	dir=$out/work/$name
	mkdir -p "$dir"
	# The E3SM samples name their map as ../data/e3sm/... relative to their directory
	# (h5proxy-out): the repository's data/ beside it.
	ln -sfn "$repo/data" "$dir/data"
	echo "tidy-check: $name: h5proxy $*" >&2
	if ! (cd "$dir" && "$bin" "$@" >"$out/log/$name.stdout.txt" 2>"$out/log/$name.stderr.txt"); then
		echo "tidy-check: $name failed (see $out/log/$name.stderr.txt)" >&2
		echo "failed" >"$out/report/$name.FAILED"
	fi
	collect "$name" "$dir"
	case $1 in
	ior) iorlines <"$out/log/$name.stdout.txt" >"$out/report/$name.ior.txt" ;;
	esac
}

for f in "$repo"/samples/*.json "$repo"/samples/studies/*.json; do
	name=$(basename "$(dirname "$f")")-$(basename "$f" .json)
	name=${name#samples-}
	mkdir -p "$out/work/$name"
	cp "$f" "$out/work/$name/config.json"
	set -- -set compute_time=0s -report report.json
	case $name in
	sync-e3sm) set -- "$@" -set r=2 ;;
	esac
	run "$name" run "$@" config.json
done

# h5proxy ior: IOR's iterations one by one (the session's iterations), each API, -k keeps
# the last iteration's file.
run ior-hdf5 ior -np 2 -a HDF5 -b 64k -t 16k -s 2 -i 3 -w -r -R -k -o ior.h5
run ior-mpiio ior -np 2 -a MPIIO -b 64k -t 16k -s 2 -i 2 -w -r -C -k -o ior.bin
run ior-posix-fpp ior -np 2 -a POSIX -F -b 32k -t 8k -s 2 -i 2 -w -r -Z -k -o ior.dat

# h5proxy concat, with fill time and layout options, over the inputs the nova sample
# wrote (the nova pattern concatenates them with its own settings).
find "$out/work/native-nova" -name 'nova_*.h5' | sort >"$out/work/concat-inputs.txt"
run concat concat -np 2 -json report.json -o out.h5 -fill-time never -empty-layout compact -inputs "$out/work/concat-inputs.txt"

echo "tidy-check: $(ls "$out/dump" | wc -l) dumps, $(ls "$out/report" | wc -l) reports in $out" >&2
