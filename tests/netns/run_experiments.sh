#!/bin/bash
# Runs lab experiments of an experiments script (scripts/lb-experiments,
# scripts/ecn-experiments) in a lab of its own, one "ok"/"not ok" line each.
#   run_experiments.sh SCRIPT TAG EXPERIMENT...
if [ "$(id -u)" -ne 0 ]; then
	echo "# SKIP: $(basename "$0") needs root (network namespaces, BPF)"
	exit 77 # tests/netns/lib.sh's skip_test: a skip, a failure in CI
fi
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
script=$1
tag=$2
shift 2
NAME="$tag$$"
NAME=${NAME:0:8}
out=$(mktemp)
trap 'rm -f "$out"; "$ROOT/scripts/xfab-lab" down "$ROOT/testbeds/clos-2x4.json" --name "$NAME" >/dev/null 2>&1' EXIT INT TERM
pass=0
fail=0
for exp in "$@"; do
	timeout 300 "$ROOT/scripts/$script" "$exp" --name "$NAME" --json "$out" 2>&1 | sed 's/^/    /'
	if jq -e ".${exp}_ok == true" "$out" >/dev/null 2>&1; then
		pass=$((pass + 1))
		echo "ok - [$tag] $exp"
	else
		fail=$((fail + 1))
		echo "not ok - [$tag] $exp"
	fi
done
echo "netns $tag: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
