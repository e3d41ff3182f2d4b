#!/bin/bash
# netns tests of load balancing in a clos-2x4 lab (scripts/lb-experiments):
# E-ECMP balance, flowlet reordering against the path-delay difference,
# failover mid-traffic. One "ok"/"not ok" line per experiment.
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NAME="lb$$"
NAME=${NAME:0:8}
out=$(mktemp)
trap 'rm -f "$out"; "$ROOT/scripts/xfab-lab" down "$ROOT/testbeds/clos-2x4.json" --name "$NAME" >/dev/null 2>&1' EXIT INT TERM
pass=0
fail=0
for exp in balance flowlets failover; do
	timeout 300 "$ROOT/scripts/lb-experiments" "$exp" --name "$NAME" --json "$out" 2>&1 | sed 's/^/    /'
	if jq -e ".${exp}_ok == true" "$out" >/dev/null 2>&1; then
		pass=$((pass + 1))
		echo "ok - [lb] $exp"
	else
		fail=$((fail + 1))
		echo "not ok - [lb] $exp"
	fi
done
echo "netns lb: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
