#!/usr/bin/env bash
# The Makefile's SHELL: runs each recipe line with bash, as `SHELL := /bin/bash` did, and
# times it, so that a CI log shows where the time went without a rehearsal. A line that
# took MAKE_TIME_MIN seconds or more (default 2) prints one line on stderr after its own
# output:
#   make-time: 177 s [1.10] go vet ./...
# (the seconds, the HDF5 build of the Makefile's switch, the recipe line's first 90
# characters); a failing line prints it too, with its exit status. A nested make's lines
# (fuzz-short, test-readme) are indented by its level, and the line that ran it counts
# their time again. With MAKE_TIME_LOG set (.ci/run sets it), the same lines are appended
# to that file too, for the run's closing table. Plain bash: SECONDS, no other tool.
t0=$SECONDS
/bin/bash "$@"
rc=$?
dt=$((SECONDS - t0))
if [ "$dt" -ge "${MAKE_TIME_MIN:-2}" ] || [ "$rc" -ne 0 ]; then
	cmd=${!#}
	cmd=${cmd//$'\\\n'/ }
	cmd=${cmd//$'\n'/ }
	cmd=${cmd//$'\t'/ }
	[ ${#cmd} -le 90 ] || cmd="${cmd:0:87}..."
	# make passes its recipes MAKELEVEL 1 at the top level, 2 in a nested make.
	level=$((${MAKELEVEL:-1} - 1))
	[ "$level" -ge 0 ] || level=0
	indent=$(printf '%*s' $((2 * level)) '')
	status=
	[ "$rc" -eq 0 ] || status=" (exit $rc)"
	line="make-time: ${indent}$dt s [${H5PROXY_HDF5:-?}] $cmd$status"
	echo "$line" >&2
	if [ -n "${MAKE_TIME_LOG:-}" ]; then echo "$line" >>"$MAKE_TIME_LOG"; fi
fi
exit "$rc"
