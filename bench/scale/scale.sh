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

# The configurations, shared with cmd/h5proxy/scale_test.go (TestPlanAtScale).
configs=$(dirname "$0")/configs.txt

echo "| pattern | keys | N | phase | operations | bytes | plan s | Go heap allocated MB | max RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|"
grep -v '^#' "$configs" | while IFS='|' read -r pat template _; do
	for n in $sizes; do
		keys=$(echo "$template" | sed -e "s|{N}|$n|g" -e "s|{N/32}|$((n / 32 > 0 ? n / 32 : 1))|g" -e "s|{ROOT}|$(dirname "$0")/../..|g")
		for ph in write read; do
			# shellcheck disable=SC2086
			if out=$("$h5proxy" plan -stats -size "$n" -rank $((n - 1)) -phase $ph "$pat" $keys 2>&1); then
				echo "$out" | awk -v p="$pat" -v k="$keys" -v n="$n" -v ph="$ph" '
					/operations,/ { ops = $2; bytes = $4 }
					/plan_s/ { printf "| %s | %s | %d | %s | %d | %d | %.2f | %.0f | %.0f |\n", p, k, n, ph, ops, bytes, $3, $5 / 1048576, $9 / 1048576 }'
			else
				echo "| $pat | $keys | $n | $ph | $(echo "$out" | tail -1 | sed 's/|/\\|/g' | cut -c1-120) | | | | |"
			fi
		done
	done
done
