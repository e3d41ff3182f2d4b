#!/bin/bash
# The CoPP flood test (docs/COPP.md): clos-2x4 with BGP and BFD (FRR, eBGP on
# every link, BFD 100 ms x 3) on the xdp datapath (XFAB_COPP_DATAPATH=tc for
# the tc one), lab `xcp`. Host h1 floods its leaf, leaf1, for 20 s with TTL-1
# packets to h8 (behind leaf4) and ARP requests for leaf1's address,
# alternately, as fast as it can send (tools/xfab-flood), while h2 pings
# h8 through leaf1. Then a second flood at a tenth of the first one's
# measured rate while h2 pings h8 again. The oracle:
#   - no BGP session and no BFD session on any switch went down: bgpd's
#     established/dropped counts per peer, bfdd's status and session
#     up/down counters, the same before and after;
#   - leaf1 policed the flood: the arp and ttl_error groups admitted about
#     cir x t + cbs each (SONiC's 600/s and 600, computed here), the rest of
#     what arrived (leaf1's port counter) is red, and show drops counts the
#     red as copp_policed; bgp and bfd policed nothing;
#   - what reached leaf1's control plane, counted outside xfab: its kernel
#     answers each ARP request for its address and each TTL-1 packet (a
#     Time Exceeded), and h1 captures the answers (tcpdump, decoded by
#     tshark): as many as each group's green count, and cir x t + cbs;
#   - leaf1 kept resolving its neighbours beside the full-rate flood: no
#     entry of its kernel went FAILED (ip monitor neigh), no ARP reply was
#     policed (arp_resp, apart from the flood's requests), and every one of
#     h2's 100 pings across the fabric was answered within 1 s (a FAILED
#     entry held them 0.2-2.0 s on tc before arp_resp; docs/COPP.md);
#   - every one of h2's pings during the second flood is answered too;
#   - nothing is left behind, also when a check fails.
# shellcheck disable=SC2034 # variables the checks' eval strings read
true
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
need_frr
need_cmds jq tcpdump tshark
TOPO="$ROOT/testbeds/clos-2x4.json"
NAME=xcp
DP=${XFAB_COPP_DATAPATH:-xdp}
SECS=${XFAB_COPP_SECONDS:-20}
CIR=600 # SONiC's default for arp and for what TTL errors fall into
CBS=600
STATE=/run/xfab-lab/$NAME
lab() { timeout 300 "$ROOT/scripts/xfab-lab" "$@" "$TOPO" --name "$NAME" --routing bgp --datapath "$DP"; }
L() { timeout 60 "$ROOT/scripts/xfab-lab" exec "$TOPO" --name "$NAME" "$@"; }
tmp=$(mktemp -d)
bg=()
cleanup() {
	local p
	for p in "${bg[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
SWITCHES="spine1 spine2 leaf1 leaf2 leaf3 leaf4"

sessions() {
	L "$1" vtysh -c 'show bgp summary json' |
		jq -r '[(.ipv4Unicast.peers // {}), (.ipv6Unicast.peers // {}) | to_entries[] |
			.value.state] | "\(map(select(. == "Established")) | length)/\(length)"'
}
all_established() {
	local sw want
	for sw in $SWITCHES; do
		case $sw in spine*) want=8/8 ;; *) want=4/4 ;; esac
		[ "$(sessions "$sw")" = "$want" ] || return 1
	done
}
bfd_up() {
	L "$1" vtysh -c 'show bfd peers json' | jq '[.[] | select(.status == "up")] | length'
}
all_bfd_up() {
	local sw want
	for sw in $SWITCHES; do
		case $sw in spine*) want=8 ;; *) want=4 ;; esac
		[ "$(bfd_up "$sw")" = "$want" ] || return 1
	done
}
# Every session's history, one line per session: a session that went down
# (and maybe came back) changes its line.
history() {
	local sw
	for sw in $SWITCHES; do
		L "$sw" vtysh -c 'show bgp summary json' | jq -r --arg sw "$sw" '
			(.ipv4Unicast.peers // {}), (.ipv6Unicast.peers // {}) | to_entries[] |
			"\($sw) bgp \(.key) \(.value.state) established=\(.value.connectionsEstablished) dropped=\(.value.connectionsDropped)"'
		L "$sw" vtysh -c 'show bfd peers counters json' | jq -r --arg sw "$sw" '
			.[] | "\($sw) bfd \(.peer) \(.interface // "-") up=\(."session-up") down=\(."session-down")"'
		L "$sw" vtysh -c 'show bfd peers json' | jq -r --arg sw "$sw" '
			.[] | "\($sw) bfd-status \(.peer) \(.interface // "-") \(.status)"'
	done | sort
}
copp() { L leaf1 xfabctl -j show copp >"$1"; }
# field $3 of group $2 in the show copp JSON $1
cf() { jq -r --arg g "$2" ".[] | select(.group == \$g) | .$3" "$1"; }
port_rx() { L leaf1 xfabctl -j show counters | jq -r '.[] | select(.port == "eth3") | .rx_packets'; }
policed() { L leaf1 xfabctl -j show drops | jq -r '.drops[] | select(.reason == "copp_policed") | .packets'; }

# a lab of this name left over from an interrupted run goes first
"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
t0=$(now_ms)
if ! lab up >"$tmp/up.log" 2>&1; then
	cat "$tmp/up.log"
	not_ok "lab up (clos-2x4, --routing bgp, --datapath $DP)"
	echo "# $pass passed, $fail failed"
	exit 1
fi
ok "lab up (clos-2x4, --routing bgp, --datapath $DP)"
echo "# bring-up: $(($(now_ms) - t0)) ms"

check "every BGP session Established (spines 8/8, leaves 4/4)" eventually 60 all_established
check "BFD up on every session (spines 8, leaves 4)" eventually 30 all_bfd_up
sleep 3 # settled: a young session flapping once is not the flood's doing
history >"$tmp/before"
echo "# sessions watched: $(grep -c ' bgp ' "$tmp/before") BGP, $(grep -c ' bfd ' "$tmp/before") BFD"
check "leaf1's CoPP groups carry SONiC's defaults (arp, ttl_error $CIR/$CBS; bgp, bfd 6000)" eval \
	'copp "$tmp/c" && [ "$(jq -c "[.[] | [.group, .cir, .cbs]]" "$tmp/c")" = \
	 "[[\"bgp\",6000,6000],[\"bfd\",6000,6000],[\"arp\",600,600],[\"arp_resp\",600,600],[\"nd\",600,600],[\"ttl_error\",600,600],[\"ip2me\",6000,6000],[\"default\",600,600]]" ]'

dmac=$(ip -n "$NAME-leaf1" -j link show eth3 | jq -r '.[0].address')
# leaf1's kernel answers every punt it gets: ARP replies always, Time
# Exceeded once its own ICMP limits are out of the way (xfab-lab lifts the
# per-destination one; the global 1,000/s with a burst of 50 would clip
# the cbs burst); h1 captures what comes back, its own flood left out (-Q in)
L leaf1 sysctl -qw net.ipv4.icmp_msgs_per_sec=100000 net.ipv4.icmp_msgs_burst=100000
ip netns exec "$NAME-h1" timeout $((SECS + 40)) tcpdump --immediate-mode -U -Q in -i eth0 -nn \
	-s 96 -w "$tmp/answers.pcap" "arp or icmp" 2>"$tmp/answers.err" &
answers_pid=$!
bg+=("$answers_pid")
eventually 10 grep -q "listening on" "$tmp/answers.err"
# h2 resolves its gateway anew just before the flood: REACHABLE for 15 s
# at least (base_reachable_time 30 s, halved at worst), then DELAY 5 s and
# 3 probes 1 s apart: it cannot go FAILED within a flood of up to 21 s. A
# host's own requests share the arp group with a request flood (as in
# SONiC): the switch's side, judged here, is its own resolution.
ip -n "$NAME-h2" neigh del 10.1.2.1 dev eth0 2>/dev/null
ip netns exec "$NAME-h2" ping -q -c 1 -W 2 10.4.2.2 >/dev/null
nsenter --net="/run/netns/$NAME-leaf1" ip -ts monitor neigh >"$tmp/neigh" 2>&1 &
neigh_pid=$!
bg+=("$neigh_pid")
copp "$tmp/c0"
rx0=$(port_rx)
pol0=$(policed)
ip netns exec "$NAME-h2" ping -q -c $((SECS * 5)) -i 0.2 -W 1 10.4.2.2 >"$tmp/ping1" 2>&1 &
ping1_pid=$!
bg+=("$ping1_pid")
ip netns exec "$NAME-h1" timeout $((SECS + 30)) "$ROOT/build/xfab-flood" --dev eth0 \
	--dmac "$dmac" --src 10.1.1.2 --dst 10.4.2.2 --arp-target 10.1.1.1 --seconds "$SECS" \
	-j >"$tmp/flood.json"
check "the flood ran its $SECS s" eval "jq -e '.seconds >= $SECS and .sent > 0' $tmp/flood.json >/dev/null"
wait "$ping1_pid"
mon_alive=0
kill "$neigh_pid" && mon_alive=1 # it watched the whole flood
sleep 1 # what the flood left in flight is counted
copp "$tmp/c1"
rx1=$(port_rx)
pol1=$(policed)
kill -INT "$answers_pid"
wait "$answers_pid"
sent=$(jq .sent "$tmp/flood.json")
secs=$(jq .seconds "$tmp/flood.json")
echo "# flood: $(cat "$tmp/flood.json")"
echo "# leaf1 eth3 received $((rx1 - rx0)) packets meanwhile"
sleep 3 # BFD detects a dead session in 300 ms, bgpd drops it after
history >"$tmp/after"

# ---- the sessions
check "no BGP or BFD session went down on any switch (counters, uptimes, status unchanged)" \
	eval 'diff "$tmp/before" "$tmp/after" >"$tmp/diff"'
[ -s "$tmp/diff" ] && sed 's/^/# /' "$tmp/diff"
check "every BGP session still Established, BFD up" eval 'all_established && all_bfd_up'

# ---- the policing, against cir x t + cbs
d() { echo $(($(cf "$tmp/c1" "$1" "$2") - $(cf "$tmp/c0" "$1" "$2"))); }
for g in arp ttl_error; do
	echo "# $g: green $(d $g green_packets), red $(d $g red_packets)"
done
for g in arp_resp bgp bfd nd ip2me default; do
	echo "# $g: green $(d $g green_packets), red $(d $g red_packets)"
done
green_ok() {
	local g=$1 green want
	green=$(d "$g" green_packets)
	want=$(jq -n "$CIR * $secs + $CBS | floor")
	# the flood outruns cir all along: green is cir x t + cbs, within half a
	# second's tokens (the flood's start and end against the counters')
	echo "# $g green $green, expected $want +- $((CIR / 2))"
	[ "$green" -le $((want + CIR / 2)) ] && [ "$green" -ge $((want - CIR / 2)) ]
}
check "arp: green is cir x t + cbs ($CIR/s x ${secs} s + $CBS)" green_ok arp
check "ttl_error: green is cir x t + cbs" green_ok ttl_error
# answered GROUP FILTER: the answers h1 captured (tshark's FILTER) are the
# group's green count (within 1 %, at least 10) and cir x t + cbs (as
# green_ok); the capture lost nothing
answered() {
	local g=$1 n green want slack
	n=$(tshark -r "$tmp/answers.pcap" -Y "$2" 2>/dev/null | wc -l)
	green=$(d "$g" green_packets)
	want=$(jq -n "$CIR * $secs + $CBS | floor")
	slack=$((green / 100 > 10 ? green / 100 : 10))
	echo "# $g: leaf1's kernel answered $n (green $green +- $slack, cir x t + cbs $want +- $((CIR / 2)))"
	grep -q "^0 packets dropped by kernel" "$tmp/answers.err" &&
		[ $((n - green)) -le "$slack" ] && [ $((green - n)) -le "$slack" ] &&
		[ "$n" -le $((want + CIR / 2)) ] && [ "$n" -ge $((want - CIR / 2)) ]
}
check "arp: leaf1's kernel replied to as many ARP requests as were green (h1's capture)" \
	answered arp "arp.opcode == 2 && arp.src.proto_ipv4 == 10.1.1.1"
check "ttl_error: leaf1's kernel sent as many Time Exceeded as were green (h1's capture)" \
	answered ttl_error "icmp.type == 11 && icmp.code == 0"
arrived() { echo $(($(d arp green_packets) + $(d arp red_packets) + $(d ttl_error green_packets) + $(d ttl_error red_packets))); }
check "what arrived at leaf1's port is what the two groups counted (within 100: h1's own ARP and ND)" \
	eval 'a=$(arrived); r=$((rx1 - rx0)); [ $((a - r)) -le 100 ] && [ $((r - a)) -le 100 ]'
check "most of the flood arrived (at least half of what was sent)" \
	eval '[ $((2 * (rx1 - rx0))) -ge "$sent" ]'
check "red = arrived - green, and show drops counts it as copp_policed" \
	eval '[ $((pol1 - pol0)) = $(($(d arp red_packets) + $(d ttl_error red_packets))) ] &&
	      [ $((pol1 - pol0)) -gt 0 ]'
echo "# leaf1's neighbours during the flood: $(grep -c . "$tmp/neigh") changes," \
	"$(grep -c FAILED "$tmp/neigh") FAILED; arp_resp green $(d arp_resp green_packets)"
check "leaf1 resolved its neighbours beside the flood: no entry FAILED (ip monitor neigh)" \
	eval '[ "$mon_alive" = 1 ] && ! grep -q FAILED "$tmp/neigh"'
check "arp_resp policed no ARP reply while arp policed the flood's requests" eval \
	'[ "$(d arp_resp red_packets)" = 0 ] && [ "$(d arp red_packets)" -gt 0 ]'
echo "# h2 -> h8 beside the full-rate flood: $(grep -E 'packets transmitted' "$tmp/ping1")"
check "every transit ping h2 -> h8 beside the full-rate flood answered within 1 s ($((SECS * 5)) of $((SECS * 5)))" \
	grep -q "$((SECS * 5)) packets transmitted, $((SECS * 5)) received" "$tmp/ping1"
check "bgp and bfd policed nothing, and their packets kept coming (green grew)" eval \
	'[ "$(d bgp red_packets)" = 0 ] && [ "$(d bfd red_packets)" = 0 ] &&
	 [ "$(d bgp green_packets)" -gt 0 ] && [ "$(d bfd green_packets)" -gt $((SECS * 10)) ]'

# ---- transit traffic beside a flood the box has CPU for: a tenth of the
# rate h1 reached above, 5 s, while h2 pings h8 through leaf1 5 times a second
rate=$(jq '(.sent / .seconds / 10) | floor' "$tmp/flood.json")
ip netns exec "$NAME-h2" ping -q -c 25 -i 0.2 -W 1 10.4.2.2 >"$tmp/ping" 2>&1 &
bg+=($!)
ping_pid=$!
ip netns exec "$NAME-h1" timeout 40 "$ROOT/build/xfab-flood" --dev eth0 --dmac "$dmac" \
	--src 10.1.1.2 --dst 10.4.2.2 --arp-target 10.1.1.1 --seconds 5 --rate "$rate" -j \
	>"$tmp/flood2.json"
wait "$ping_pid"
echo "# second flood: $(cat "$tmp/flood2.json"); h2 -> h8: $(grep -E 'packets transmitted' "$tmp/ping")"
check "at a tenth of the flood's rate ($rate/s) every transit ping h2 -> h8 is answered (25 of 25)" \
	eval 'jq -e ".sent > 0" "$tmp/flood2.json" >/dev/null &&
	      grep -q "25 packets transmitted, 25 received" "$tmp/ping"'
check "show copp (text): SONiC's columns" eval \
	'L leaf1 xfabctl show copp | head -1 | grep -q "^GROUP *TRAP IDS *CIR *CBS *GREEN PKTS *RED PKTS"'

# ---- nothing left
trap - EXIT INT TERM
cleanup
check "nothing left: namespaces, pins, state, daemons" eval \
	'! ip netns list | grep -q "^$NAME-" && [ ! -e "/sys/fs/bpf/xfab/$NAME" ] &&
	 [ ! -e "$STATE" ] && ! pgrep -f "$STATE/" >/dev/null'
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
