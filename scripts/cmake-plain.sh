#!/usr/bin/env bash
# cmake-plain.sh DIR [CMAKE ARGS...]: the CMake build as packagers and new users run it
# (`cmake -S . -B DIR && cmake --build DIR`: no build type, no developer option), from an
# empty DIR. It must build and its compilers must print no warning; then ctest's
# install_tree and install_consumer_np2 of that build install it (`cmake --install`) and
# build consumer projects against the installed tree with find_package(h5proxy) and
# pkg-config.
#
# Then Debug and Release with gcc and with clang, warnings as errors (H5PROXY_WERROR, the
# developer option), made cheap: one directory per compiler, configured for Debug, then
# reconfigured for Release (FindMPI's results cached), and every translation unit of it
# compiled (compile_commands.json: the profiler, the C examples and tests, the C++ header
# check, the Fortran module and examples) and the profiler (libh5proxy-profile.so, no Go in
# it) linked; the two compilers' directories at once. The Go libraries and programs are not
# linked again per variant: their C is cgo's, compiled by `go build` alike whatever the
# build type, and linking them is what makes a build take minutes on 2 cores; the plain
# build above links them all once.
#
# `make cmake-plain` runs it, CMAKE ARGS carrying the HDF5 switch; `make test` runs it.
set -euo pipefail
if [ $# -lt 1 ]; then
	echo "usage: $0 DIR [CMAKE ARGS...]" >&2
	exit 2
fi
dir=$1
shift
cd "$(dirname "$0")/.."
command -v clang >/dev/null || { echo "cmake-plain: clang not found (scripts/deps.sh installs it)" >&2; exit 1; }
jobs=$(nproc 2>/dev/null || echo 2)
t0=$SECONDS

rm -rf "$dir"
mkdir -p "$dir"
log=$dir/plain-build.log
echo "cmake-plain: cmake -S . -B $dir $* && cmake --build $dir (log: $log)"
{ cmake -S . -B "$dir" "$@" && cmake --build "$dir" -j "$jobs"; } >"$log" 2>&1 || {
	tail -40 "$log" >&2
	echo "cmake-plain: the plain build failed (log: $log)" >&2
	exit 1
}
if grep -n 'warning:' "$log" >&2; then
	echo "cmake-plain: the plain build's compilers warned (above; log: $log)" >&2
	exit 1
fi
echo "cmake-plain: plain build, no warning ($((SECONDS - t0)) s)"
ctest --test-dir "$dir" -R '^install_' --output-on-failure

# compile_all SUBDIR: every compile command of SUBDIR's compile_commands.json (C, C++ and
# Fortran), run in its directory (objects land where the build would put them); the Fortran
# module's source first, since the Fortran examples use its .mod.
compile_all() {
	python3 - "$1/compile_commands.json" <<'EOF'
import json, subprocess, sys
cmds = json.load(open(sys.argv[1]))
if not cmds:
    sys.exit("no compile command in " + sys.argv[1])
cmds.sort(key=lambda c: not c["file"].endswith("fortran/h5proxy.f90"))
for c in cmds:
    r = subprocess.run(c["command"], shell=True, cwd=c["directory"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(r.stdout)
    if r.returncode != 0:
        sys.exit("failed: " + c["file"])
print("compiled %d translation units" % len(cmds))
EOF
}

# variants CC: Debug, then Release, with compiler CC in $dir/CC.
variants() {
	local cc=$1 sub=$dir/$1 type t1
	for type in Debug Release; do
		t1=$SECONDS
		# Release reconfigures the Debug directory: the cache keeps what FindMPI found
		{ CC=$cc cmake -S . -B "$sub" -DCMAKE_BUILD_TYPE=$type -DH5PROXY_WERROR=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@" &&
			compile_all "$sub" &&
			cmake --build "$sub" --target h5proxy_profile; } >"$sub-$type.log" 2>&1 || {
			tail -40 "$sub-$type.log"
			echo "cmake-plain: $cc $type failed (log: $sub-$type.log)"
			return 1
		}
		echo "cmake-plain: $cc $type: $(grep -o 'compiled [0-9]* translation units' "$sub-$type.log") (C, C++, Fortran), libh5proxy-profile.so linked; no warning ($((SECONDS - t1)) s)"
	done
}

# gcc's and clang's variants run at once: each is one process at a time (a configure, then
# one compile after another), so one after the other they leave one of CI's 2 cores idle.
# They took 59 s of CPU one after the other (100 s wall), 65 s at once (100 s wall), on this
# shared machine at load 6, where the other core was taken anyway (2026-11-30, the script's
# two functions run from fresh directories); on an idle 2-core machine the two halves of that
# CPU run side by side.
t1=$SECONDS
pids=()
for cc in gcc clang; do
	variants "$cc" "$@" >"$dir/$cc-variants.out" 2>&1 &
	pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
cat "$dir/gcc-variants.out" "$dir/clang-variants.out"
if [ "$failed" -ne 0 ]; then
	echo "cmake-plain: a Debug or Release variant failed (above)" >&2
	exit 1
fi
echo "cmake-plain: gcc and clang variants, at once: $((SECONDS - t1)) s"
echo "cmake-plain: plain build, install, find_package consumers, Debug and Release with gcc and clang: ok ($((SECONDS - t0)) s)"
