#!/bin/bash
# netns test of load-time specialisation (bpf/spec.h, user/agent/spec.c): a
# clos-2x4 lab (static routes, xdp datapath), numbered traffic h1 -> h7 (16
# QPs, 80,000 packets in 20 s) through leaf1 and leaf4, and under it six
# reloads of both leaves: flowlets on, ECN (a WRED profile on every queue)
# on, PFC on; then PFC, ECN and flowlets off again. After each reload:
#   - the port's program is another one, and its size (the kernel's count
#     of translated instructions) grew when a feature came on and shrank
#     when it went off; at the end it is the size it started with;
#   - xfabd names the code its programs carry (`data plane code:`).
# And not one packet is lost: every QP delivers every packet, in order
# (xfab-roce's numbering). Nothing is left after the lab goes down.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
TOPO="$ROOT/testbeds/clos-2x4.json"
NAME="xspec$$"
NAME=${NAME:0:10}
STATE="/run/xfab-lab/$NAME"
tmp=$(mktemp -d)
cleanup() {
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
L() { timeout 60 "$ROOT/scripts/xfab-lab" exec "$TOPO" --name "$NAME" "$@"; }
# The size of the XDP program on a switch's port, in instructions.
prog_id() { ip -n "$NAME-$1" -d link show "$2" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p'; }
ctl() { nsenter --net="/run/netns/$NAME-$1" "$ROOT/build/xfabctl" -P "/sys/fs/bpf/xfab/$NAME/$1" "${@:2}"; }
# xfabctl's view of the XDP program: "INSTRUCTIONS CODE"
shown() { ctl "$1" -j show datapath | jq -r '.[] | select(.program == "xfab_xdp") | "\(.instructions) \(.code)"'; }
insns() { bpftool -j prog show id "$(prog_id "$1" eth1)" | jq '.bytes_xlated / 8'; }
# Edits a switch's config with a jq filter and reloads it (SIGHUP).
reconf() {
	local node=$1 filter=$2 n
	n=$(grep -c "reloaded:" "$STATE/$node.log")
	jq "$filter" "$STATE/$node.json" >"$tmp/$node.json" && cp "$tmp/$node.json" "$STATE/$node.json"
	kill -HUP "$(cat "$STATE/$node.pid")"
	eventually 20 eval "[ \$(grep -c 'reloaded:' '$STATE/$node.log') -gt $n ]"
}
FLOWLET_ON='.FLOWLET = {"global": {"enabled": "true", "gap_us": "100"}}'
ECN_ON='.WRED_PROFILE = {"ECN": {"min_threshold": "100000", "max_threshold": "400000",
	"max_probability": "10", "ecn": "ecn_all"}}
	| .QUEUE = ([.PORT | keys[] | {key: (. + "|0-7"), value: {wred_profile: "ECN"}}] | from_entries)'
# lossless priorities need the ports' real queues: a rate
PFC_ON='.PORT |= map_values(. + {rate: "1000"})
	| .PORT_QOS_MAP = ([.PORT | keys[] | {key: ., value: {pfc_enable: "3"}}] | from_entries)
	| .BUFFER_PROFILE = {"LOSSLESS": {"xoff": "40000", "xon": "20000", "headroom": "250000"}}
	| .BUFFER_PG = ([.PORT | keys[] | {key: (. + "|3"), value: {profile: "LOSSLESS"}}] | from_entries)'
FLOWLET_OFF='del(.FLOWLET)'
ECN_OFF='del(.WRED_PROFILE, .QUEUE)'
PFC_OFF='del(.PORT_QOS_MAP, .BUFFER_PROFILE, .BUFFER_PG) | .PORT |= map_values(del(.rate))'

if ! timeout 200 "$ROOT/scripts/xfab-lab" up "$TOPO" --name "$NAME" --datapath xdp \
	--routing static >"$tmp/up.log" 2>&1; then
	tail -20 "$tmp/up.log" | sed 's/^/# /'
	not_ok "the lab comes up"
	exit 1
fi
ok "the lab comes up"
size0=$(insns leaf1)
check "leaf1 runs specialised code: neither flowlets, queue nor pfc" eval \
	'grep "data plane code:" "$STATE/leaf1.log" | tail -1 | grep -vqE "flowlet|queue|pfc"'

L h7 "$ROOT/build/xfab-roce" recv --duration 50 --idle-ms 3000 -j >"$tmp/at_h7.json" 2>"$tmp/at_h7.err" &
rx=$!
receivers_ready "$tmp/at_h7.err"
L h1 "$ROOT/build/xfab-roce" send --dst 10.4.1.2 --qps 16 --sport-per-qp --rate 4000 \
	--count 5000 --size 256 --duration 40 >"$tmp/sent" 2>&1 &
tx=$!
t0=$(now_ms)
sleep 1

prev=$size0
step() { # NAME FILTER more|less CODE-WORD: reload both leaves, judge leaf1
	local what=$1 filter=$2 way=$3 word=$4 id0 size
	id0=$(prog_id leaf1 eth1)
	check "$what: both leaves reloaded" eval 'reconf leaf1 "$filter" && reconf leaf4 "$filter"'
	size=$(insns leaf1)
	echo "# $what: xfab_xdp $prev -> $size instructions"
	if [ "$way" = more ]; then
		check "$what: leaf1's program is another and larger ($prev -> $size)" eval \
			'[ "$(prog_id leaf1 eth1)" != "$id0" ] && [ "$size" -gt "$prev" ]'
		check "$what: xfabd says its code has $word" eval \
			'grep "data plane code:" "$STATE/leaf1.log" | tail -1 | grep -q "$word"'
	else
		check "$what: leaf1's program is another and smaller ($prev -> $size)" eval \
			'[ "$(prog_id leaf1 eth1)" != "$id0" ] && [ "$size" -lt "$prev" ]'
		check "$what: xfabd says its code has no $word" eval \
			'grep "data plane code:" "$STATE/leaf1.log" | tail -1 | grep -vq "$word"'
	fi
	check "$what: xfabctl show datapath agrees ($(shown leaf1))" eval \
		'set -- $(shown leaf1); has=less; [[ ",$2," == *",$word,"* ]] && has=more
		 [ "$1" = "$size" ] && [ "$has" = "$way" ]'
	prev=$size
	sleep 0.5
}
step "flowlets on" "$FLOWLET_ON" more flowlet
step "ECN on" "$ECN_ON" more queue
step "PFC on" "$PFC_ON" more pfc
step "PFC off" "$PFC_OFF" less pfc
step "ECN off" "$ECN_OFF" less queue
step "flowlets off" "$FLOWLET_OFF" less flowlet
check "back to the size it started with ($size0)" test "$prev" = "$size0"
echo "# the reloads took $(($(now_ms) - t0)) ms of the traffic's 20 s"
check "the reloads were done while the traffic still flowed" kill -0 "$tx"

wait "$tx"
wait "$rx"
sent=$(awk '/^sent/ {print $2}' "$tmp/sent")
got=$(jq '[.flows[].packets] | add' "$tmp/at_h7.json" 2>/dev/null)
lost=$(jq '.lost' "$tmp/at_h7.json" 2>/dev/null)
ooo=$(jq '.late' "$tmp/at_h7.json" 2>/dev/null)
qps=$(jq '[.flows[] | select(.packets > 0)] | length' "$tmp/at_h7.json" 2>/dev/null)
echo "# h1 -> h7: $got of $sent packets arrived on $qps QPs, $lost lost, $ooo out of order"
check "six reloads under traffic: every packet of 16 QPs arrived, in order" \
	eval '[ "$sent" = 80000 ] && [ "$got" = 80000 ] && [ "$lost" = 0 ] && [ "$ooo" = 0 ] && [ "$qps" = 16 ]'

"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
check "nothing left: namespaces" eval '! ip netns list | grep -q "^$NAME-"'
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
