#!/bin/bash
# netns tests of queues and ECN in a clos-2x4 lab (scripts/ecn-experiments):
# tc-datapath TCP incast with ECN on and off, xdp phantom-queue marking
# below and above the port rate. One "ok"/"not ok" line per experiment.
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NAME="ecn$$"
NAME=${NAME:0:8}
out=$(mktemp)
trap 'rm -f "$out"; "$ROOT/scripts/xfab-lab" down "$ROOT/testbeds/clos-2x4.json" --name "$NAME" >/dev/null 2>&1' EXIT INT TERM
pass=0
fail=0
for exp in incast xdp; do
	timeout 300 "$ROOT/scripts/ecn-experiments" "$exp" --name "$NAME" --json "$out" 2>&1 | sed 's/^/    /'
	if jq -e ".${exp}_ok == true" "$out" >/dev/null 2>&1; then
		pass=$((pass + 1))
		echo "ok - [ecn] $exp"
	else
		fail=$((fail + 1))
		echo "not ok - [ecn] $exp"
	fi
done
echo "netns ecn: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
