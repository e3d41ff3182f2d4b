#!/bin/bash
# netns test: the tc datapath fails over by itself, before xfabd hears of
# the failure. A clos-2x4 lab with the tc datapath and static routes (no
# routing daemon: nothing converges, only the data plane acts); traffic both
# ways between h1 (leaf1) and h7 (leaf4), 16 QPs each, each QP its own source
# port (so half of them cross spine1). leaf1's and spine1's xfabd are
# stopped (SIGSTOP), then the leaf1-spine1 link is cut (leaf1's eth1 down:
# spine1's eth1 loses its carrier). Nobody tells either data plane; the
# kernel would drop what is redirected into the dead devices. Checked:
#   - each data plane reads its ports' devices before it sends there
#     (bpf/kern.h): it sends nothing more into a dead device, leaf1's
#     group takes eth2, spine1 bounces h1's traffic (LOCAL_REPAIR) down
#     another leaf, which sends it up spine2 (the egress program's reroute
#     of packets already on their way to the device is tests/bpf/test_lb.c's:
#     here it depends on the race with the cut, and is not printed);
#   - no QP lost more than 2 packets (2 ms) either way while both xfabd
#     were stopped for 1.5 s (before: every QP through spine1, all of it);
#   - both xfabd, woken, agree (the ports say down), and the link back up
#     carries traffic on both members again;
#   - nothing left after the lab goes down.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
TOPO="$ROOT/testbeds/clos-2x4.json"
NAME="c$$"
NAME=${NAME:0:10}
STATE=/run/xfab-lab/$NAME
L() { timeout 60 "$ROOT/scripts/xfab-lab" exec "$TOPO" --name "$NAME" "$@"; }
tmp=$(mktemp -d)
stopped=""
cleanup() {
	local pid
	for pid in $stopped; do kill -CONT "$pid" 2>/dev/null; done
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
lb() { L "$1" xfabctl -j show lb | jq -r ".$2 // 0"; }
txp() { L "$1" xfabctl -j show counters | jq -r --arg p "$2" '.[] | select(.port == $p) | .tx_packets'; }
sum_txp() {
	local n=0 p node=$1
	shift
	for p in "$@"; do n=$((n + $(txp "$node" "$p"))); done
	echo "$n"
}
oper() { L "$1" xfabctl -j show ports | jq -r --arg p "$2" '.[] | select(.port == $p) | .oper'; }

if ! timeout 200 "$ROOT/scripts/xfab-lab" up "$TOPO" --name "$NAME" --datapath tc \
	--routing static >"$tmp/up.log" 2>&1; then
	cat "$tmp/up.log"
	not_ok "lab up (tc datapath, static routes)"
	echo "# $pass passed, $fail failed"
	exit 1
fi
ok "lab up (tc datapath, static routes)"

# ---- traffic both ways; leaf1's and spine1's xfabd stopped; the cut
L h1 "$ROOT/build/xfab-roce" recv --duration 6 --idle-ms 1500 -j >"$tmp/h1.json" 2>"$tmp/h1.err" &
r1=$!
L h7 "$ROOT/build/xfab-roce" recv --duration 6 --idle-ms 1500 -j >"$tmp/h7.json" 2>"$tmp/h7.err" &
r7=$!
receivers_ready "$tmp/h1.err" "$tmp/h7.err"
L h7 "$ROOT/build/xfab-roce" send --dst 10.1.1.2 --qps 16 --sport 41000 --sport-per-qp \
	--rate 16000 --count 4000 >/dev/null 2>&1 &
s7=$!
L h1 "$ROOT/build/xfab-roce" send --dst 10.4.1.2 --qps 16 --sport 42000 --sport-per-qp \
	--rate 16000 --count 4000 >/dev/null 2>&1 &
s1=$!
sleep 1
stopped="$(cat "$STATE/leaf1.pid") $(cat "$STATE/spine1.pid")"
# shellcheck disable=SC2086
kill -STOP $stopped
ip -n "$NAME-leaf1" link set eth1 down
sleep 1.5
l1=$(txp leaf1 eth1)
l2=$(txp leaf1 eth2)
s1x=$(txp spine1 eth1)
s4=$(sum_txp spine1 eth2 eth3 eth4)
sleep 0.5
echo "# in 0.5 s with xfabd stopped: leaf1 eth1 +$(($(txp leaf1 eth1) - l1)), eth2 +$(($(txp leaf1 eth2) - l2)); spine1 eth1 +$(($(txp spine1 eth1) - s1x)), eth2-4 +$(($(sum_txp spine1 eth2 eth3 eth4) - s4))"
check "while xfabd is stopped, leaf1's data plane sends nothing into eth1 (down), its flows take eth2" \
	eval '[ "$(txp leaf1 eth1)" = "$l1" ] && [ "$(txp leaf1 eth2)" -gt "$((l2 + 1000))" ]'
check "and spine1's nothing into eth1 (no carrier)" eval '[ "$(txp spine1 eth1)" = "$s1x" ]'
# shellcheck disable=SC2086
kill -CONT $stopped
stopped=""
wait "$s1" "$s7" "$r1" "$r7"
rep_spine1=$(lb spine1 repaired)
echo "# spine1 bounced $rep_spine1"
check "spine1 bounced h1's traffic while its xfabd was stopped (LOCAL_REPAIR)" \
	eval '[ "$rep_spine1" -ge 1000 ]'
for dir in h1 h7; do
	echo "# to $dir: $(jq -c '{packets, lost, worst_qp: ([.flows[].lost] | max)}' "$tmp/$dir.json")"
done
check "all 32 QPs arrived, none lost more than 2 packets (h7 -> h1, h1 -> h7)" \
	eval '[ "$(jq "[.flows[] | select(.packets > 3000 and .lost <= 2)] | length" "$tmp/h1.json")" = 16 ] &&
	      [ "$(jq "[.flows[] | select(.packets > 3000 and .lost <= 2)] | length" "$tmp/h7.json")" = 16 ]'

# ---- xfabd woken: it agrees, and the link back up is used again
check "leaf1's xfabd heard the cut (and says eth1 is down)" \
	eventually 5 grep -q "port eth1 is down" "$STATE/leaf1.log"
check "spine1's xfabd too" eventually 5 grep -q "port eth1 is down" "$STATE/spine1.log"
ip -n "$NAME-leaf1" link set eth1 up
check "link up: both ends up in the data plane again" \
	eventually 10 eval '[ "$(oper leaf1 eth1)" = up ] && [ "$(oper spine1 eth1)" = up ]'
tx_eth1() { L leaf1 xfabctl -j show counters | jq -r '.[] | select(.port == "eth1") | .tx_packets'; }
tx0=$(tx_eth1)
L h1 "$ROOT/build/xfab-roce" send --dst 10.4.1.2 --qps 16 --sport 42000 --sport-per-qp \
	--rate 16000 --count 100 >/dev/null 2>&1
check "link up: leaf1 sends over eth1 again" eval '[ $(($(tx_eth1) - tx0)) -ge 100 ]'
check "h1 and h7 ping each other" eval "L h1 ping -n -q -c 2 -i 0.2 -W 2 10.4.1.2 >/dev/null"

"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
check "nothing left: namespaces" eval '! ip netns list | grep -q "^$NAME-"'
check "nothing left: pins" test ! -e "/sys/fs/bpf/xfab/$NAME"
check "nothing left: state" test ! -e "$STATE"
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
