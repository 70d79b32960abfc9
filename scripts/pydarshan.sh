#!/bin/bash
# Installs PyDarshan (the Python package of darshan-util: `python -m darshan summary`, the
# DXT heat maps and DarshanReport, which DXT Explorer and Drishti read logs through) from
# Darshan's source tree, tag $DARSHAN_VERSION (default 3.5.0), into a virtual environment
# $PYDARSHAN (default /opt/h5proxy/pydarshan). Its Python dependencies (cffi, numpy,
# pandas, matplotlib, seaborn, mako, humanize, rich) are Debian's packages, which the venv
# sees (--system-site-packages): nothing comes from PyPI. It loads the libdarshan-util.so
# of $DARSHAN (default /opt/h5proxy/darshan, `make darshan`): run it with
# LD_LIBRARY_PATH=$DARSHAN/lib. For internal/darshan's TestPyDarshan; optional, as Darshan
# is (`make pydarshan`). Needs git; DARSHAN_GIT names another clone of darshan-hpc/darshan
# to take the tag from (a machine without GitHub).
set -euo pipefail
DARSHAN=${DARSHAN:-/opt/h5proxy/darshan}
PYDARSHAN=${PYDARSHAN:-/opt/h5proxy/pydarshan}
VERSION=${DARSHAN_VERSION:-3.5.0}
DARSHAN_GIT=${DARSHAN_GIT:-https://github.com/darshan-hpc/darshan.git}
if LD_LIBRARY_PATH="$DARSHAN/lib" "$PYDARSHAN/bin/python" -c 'import darshan.backend.cffi_backend' 2>/dev/null; then
	echo "pydarshan: $PYDARSHAN has it"
	exit 0
fi
if [ ! -e "$DARSHAN/lib/libdarshan-util.so" ]; then
	echo "pydarshan: no $DARSHAN/lib/libdarshan-util.so: build Darshan first (make darshan)" >&2
	exit 1
fi
apt-get -o DPkg::Lock::Timeout=900 install -y python3-venv python3-setuptools python3-wheel python3-cffi \
	python3-numpy python3-pandas python3-matplotlib python3-seaborn python3-mako python3-humanize python3-rich >/dev/null
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
git clone -q --depth 1 --branch "$VERSION" "$DARSHAN_GIT" "$W/src"
rm -rf "$PYDARSHAN"
/usr/bin/python3 -m venv --system-site-packages "$PYDARSHAN"
"$PYDARSHAN/bin/pip" install -q --disable-pip-version-check --no-deps --no-build-isolation --no-index "$W/src/darshan-util/pydarshan"
LD_LIBRARY_PATH="$DARSHAN/lib" "$PYDARSHAN/bin/python" -c 'import darshan.backend.cffi_backend, darshan; print("pydarshan: installed", darshan.__version__, "in '"$PYDARSHAN"'")'
