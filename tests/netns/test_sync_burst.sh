#!/bin/bash
# netns test of route sync under traffic: scripts/sync-bench at a small size
# (2,000 routes, one round) and a burst of 40,000 route changes (20,000
# routes moved to another gateway set, then deleted) while four UDP flows
# cross four routes the changes leave alone. Checked from the packets the
# sink's receiver counted against what the senders sent:
#   - every route of each phase reached the data plane (the bench waits for
#     `show fib-sync` and fails otherwise);
#   - the flows ran through the whole burst, and not one packet of the
#     unaffected prefixes was lost;
#   - nothing left behind (sync-bench's teardown; run-all checks too).
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
OUT=$(mktemp /tmp/xfab-syncburst.XXXXXX)
trap 'rm -f "$OUT"' EXIT
j() { jq -r "$1" "$OUT"; }

timeout 300 "$ROOT/scripts/sync-bench" --routes 2000 --rounds 1 --burst 20000 \
	--burst-rate 500 --json "$OUT" | sed 's/^/# /'
check "sync-bench ran to the end (every phase programmed)" test -s "$OUT"
check "the burst changed 40,000 routes" eval '[ "$(j .burst_changes)" = 40000 ]'
# 4 flows x 500/s x 8 s = 16,000; a loaded machine holds senders up a little
check "the flows ran through the burst (>= 8,000 packets sent)" \
	eval '[ "$(j .burst_sent)" -ge 8000 ]'
check "no packet of an unaffected prefix lost ($(j .burst_sent) sent, $(j .burst_received) received)" \
	eval '[ "$(j .burst_lost)" = 0 ]'
check "every phase has a rate" \
	eval '[ "$(j .live_routes_per_s)" -gt 0 ] && [ "$(j .drain_routes_per_s)" -gt 0 ] && [ "$(j .delete_routes_per_s)" -gt 0 ]'
check "nothing left: namespaces" eval '! ip netns list | grep -q "^xfs-"'
check "nothing left: pins" test ! -e /sys/fs/bpf/xfab-syncbench
check "nothing left: xfabd" eval '! pgrep -f "xfabd -c /run/xfab-syncbench" >/dev/null'
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
