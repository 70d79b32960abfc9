#!/usr/bin/env bash
# cmake-plain.sh DIR [CMAKE ARGS...]: the CMake build as packagers and new users run it
# (`cmake -S . -B DIR && cmake --build DIR`: no build type, no developer option), from an
# empty DIR. It must build and its compilers must print no warning; then ctest's
# install_tree and install_consumer_np2 of that build install it (`cmake --install`) and
# build consumer projects against the installed tree with find_package(h5proxy) and
# pkg-config. Last, the C sources without Go in them (libh5proxy-profile.so) build as Debug
# and Release with gcc and clang, warnings as errors (H5PROXY_WERROR, the developer option).
# `make cmake-plain` runs it, CMAKE ARGS carrying the HDF5 switch. Not yet part of `make
# test`: a fresh build directory links libh5proxy and the Go simulation again (minutes on 2
# cores), which CI's time cannot yet afford twice (once per HDF5).
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
ctest --test-dir "$dir" -R '^install_' --output-on-failure

# Debug and Release, gcc and clang: the profiler's sources (the examples' C is built by the
# plain build above and by make cmake-test).
for cc in gcc clang; do
	for type in Debug Release; do
		sub=$dir/$cc-$type
		{ CC=$cc cmake -S . -B "$sub" -DCMAKE_BUILD_TYPE=$type -DH5PROXY_WERROR=ON -DH5PROXY_BUILD_EXAMPLES=OFF "$@" &&
			cmake --build "$sub" --target h5proxy_profile; } >"$sub.log" 2>&1 || {
			tail -40 "$sub.log" >&2
			echo "cmake-plain: $cc $type build of libh5proxy-profile.so failed (log: $sub.log)" >&2
			exit 1
		}
		echo "cmake-plain: $cc $type: libh5proxy-profile.so built, no warning"
	done
done
echo "cmake-plain: plain build, install, find_package consumer, Debug and Release with gcc and clang: ok"
