#!/bin/bash
# A lab from SONiC CONFIG_DB files (docs/LAB.md, "Switches from CONFIG_DB
# files"): testbeds/sonic/clos-2x4.json, six config_db.json files, up with
# BGP from their BGP_NEIGHBOR tables (bgpd.conf rendered as SONiC's templates
# do, docs/SONIC.md):
#   - up returns: every session Established, every data plane full;
#   - 16 sessions (8 links, IPv4 and IPv6) Established from both ends, each
#     switch at its file's bgp_asn with Loopback0's address as router ID;
#   - every pair of hosts pings (IPv4 and IPv6: 112/112);
#   - xfabd runs each file (SONiC's port names) and mirrors FRR's routes:
#     leaf1 reaches h3's subnet over both uplinks, leaf2's Loopback0 too;
#   - the files' lossless tables: a lossless port's rate is its speed, the
#     XOFF/XON of the files' BUFFER_PROFILE, PFC_WD in show pfcwd config,
#     COPP_GROUP's meters in show copp; the PFC thread by its name;
#   - a lossless incast (3 hosts into h8's 100 Mbit/s port, DSCP 3 by the
#     files' DSCP_TO_TC_MAP) loses nothing, drops nothing, pauses (PFC
#     frames sent and received), trips no watchdog; on DSCP 0 it drops;
#   - down leaves nothing behind.
# Root, FRR; about two minutes.
# mutate: testbeds/sonic/leaf4.json; labs:
. "$(dirname "$0")/lib.sh"
need_root
need_frr
need_cmds jq
TOPO="$ROOT/testbeds/sonic/clos-2x4.json"
XL="$ROOT/scripts/xfab-lab"
tmp=$(mktemp -d)
NAME="sn$$"
NAME=${NAME:0:10}
cleanup() {
	[ -n "$NAME" ] && "$XL" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
L() { timeout 60 "$XL" exec "$TOPO" --name "$NAME" "$@"; }
nothing_left() {
	! ip netns list | grep -q "^$NAME-" && [ ! -e "/sys/fs/bpf/xfab/$NAME" ] &&
		[ ! -e "/run/xfab-lab/$NAME" ] && [ ! -e "/run/xfab/$NAME" ] &&
		! pgrep -f "/run/xfab-lab/$NAME/" >/dev/null
}

# The tc datapath: there every class of a port with a rate has a real queue
# at that rate (HTB), so the lossy incast below meets a full queue and drops;
# on xdp only the lossless classes go to tc (docs/PFC.md), the lossy ones
# stay on XDP, whose phantom queue drops only above PORT's buffer, which a
# SONiC file has not (BUFFER_QUEUE is not read: docs/CONFIG.md).
if timeout 200 "$XL" up "$TOPO" --name "$NAME" --datapath tc >"$tmp/up.log" 2>&1; then
	ok "up from six CONFIG_DB files: every session Established, every data plane full"
	grep -E "^(BGP|lab)" "$tmp/up.log" | sed 's/^/# /'
else
	sed 's/^/# /' "$tmp/up.log"
	not_ok "up from six CONFIG_DB files"
	echo "# $pass passed, $fail failed"
	exit 1
fi
SWITCHES="spine1 spine2 leaf1 leaf2 leaf3 leaf4"
summary() { L "$1" vtysh -c "show bgp summary json"; }
if eventually 20 bgp_ends_established 32 $SWITCHES; then
	ok "16 BGP sessions (8 links, IPv4 and IPv6) Established, seen from both ends"
else
	not_ok "16 BGP sessions Established (have $(cat "$tmp/established") of 32 ends)"
fi
check "bgpd runs the files' bgp_asn: spines 65000, leaves 65101-65104" \
	eval '[ "$(for n in $SWITCHES; do summary "$n" | jq .ipv4Unicast.as; done | paste -sd" ")" = \
		"65000 65000 65101 65102 65103 65104" ]'
check "router IDs are the files' Loopback0 addresses (spine2 10.255.0.2, leaf3 10.255.1.3)" \
	eval '[ "$(summary spine2 | jq -r .ipv4Unicast.routerId),$(summary leaf3 | jq -r .ipv4Unicast.routerId)" = \
		"10.255.0.2,10.255.1.3" ]'
check "spine1 names leaf4 by its file's BGP_NEIGHBOR name (description leaf4)" \
	eval '[ "$(summary spine1 | jq -r ".ipv4Unicast.peers[\"10.254.1.7\"].desc")" = leaf4 ]'
if timeout 120 "$XL" ping "$TOPO" --name "$NAME" >"$tmp/ping.log" 2>&1 &&
	grep -q "112/112 reachable" "$tmp/ping.log"; then
	ok "all pairs ping, IPv4 and IPv6 (112/112: 8 hosts)"
else
	sed 's/^/# /' "$tmp/ping.log"
	not_ok "all pairs ping, IPv4 and IPv6"
fi
check "xfabd on leaf1 runs its file's ports (Ethernet0-12), read as SONiC's" \
	eval '[ "$(jq -r "[.PORT | keys[]] | join(\",\")" "/run/xfab-lab/$NAME/leaf1.json")" = \
		"Ethernet0,Ethernet12,Ethernet4,Ethernet8" ] &&
	      grep -q "forwarding on" "/run/xfab-lab/$NAME/leaf1.log" &&
	      pgrep -af "xfabd.*$NAME/leaf1.json" | grep -q -- "--format sonic"'
# leaf1's routes from BGP: h3's subnet, and leaf2's Loopback0 (announced from
# its file), each over both uplinks
routes_ok() {
	[ "$(route_members leaf1 10.2.1.0/24)" = "Ethernet0,Ethernet4 bgp" ] &&
		[ "$(route_members leaf1 10.255.1.2/32)" = "Ethernet0,Ethernet4 bgp" ]
}
check "leaf1 reaches h3's subnet and leaf2's Loopback0 over both uplinks, from BGP" routes_ok

# ---- the files' lossless tables at work (docs/SONIC.md, "testbeds/sonic")
# What xfabd took from the files, each against the file's own value: the
# lossless port's rate is its PORT speed (SONiC's file has no rate), PFC on
# 3 and 4 with the XOFF threshold of pg_lossless_1000_5m_profile: size
# 56,368 + 2,097,152 / (1 + 2^3) = 56,368 + 233,016 = 289,384 bytes
# (dynamic_th -3 over ingress_lossless_pool), XON 289,384 - 2,496 (xon_offset).
pfc_of() { # pfc_of NODE PORT PRIO: "speed xoff xon" of one lossless queue
	L "$1" xfabctl -j show pfc status | jq -r --arg p "$2" --argjson q "$3" \
		'.[] | select(.port == $p) | "\(.speed_mbps) " +
		 (.priorities[] | select(.priority == $q) | "\(.xoff_bytes) \(.xon_bytes)")'
}
check "leaf1's lossless Ethernet0 runs at its speed, 1000, XOFF 289,384 and XON 286,888 bytes" \
	eval '[ "$(pfc_of leaf1 Ethernet0 3)" = "1000 289384 286888" ]'
check "leaf4's port to h8 (Ethernet12, speed 100) is shaped at 100 Mbit/s" \
	eval '[ "$(pfc_of leaf4 Ethernet12 4 | cut -d" " -f1)" = 100 ]'
# PFC_WD: every port, drop, 200 ms both ways, poll 200 (PFC_WD|GLOBAL)
pfcwd_config() {
	L spine1 xfabctl -j show pfcwd config | jq -c '[.poll_interval_ms, (.ports | length),
		([.ports[] | [.action, .detection_time_ms, .restoration_time_ms, .priorities]] | unique)]'
}
check "show pfcwd config: the file's PFC_WD (4 ports, drop, 200/200 ms, priorities 3,4, poll 200 ms)" \
	eval '[ "$(pfcwd_config)" = "[200,4,[[\"drop\",200,200,[3,4]]]]" ]'
# The PFC work's thread, by its name: what an operator gives a real-time
# priority to (docs/PFC.md)
pfc_thread() {
	local p
	for p in $(pgrep -f "xfabd.*$NAME/leaf4.json"); do
		grep -qx xfabd-pfc /proc/"$p"/task/*/comm 2>/dev/null && return 0
	done
	return 1
}
check "leaf4's xfabd runs its PFC work in a thread named xfabd-pfc (ps -L)" pfc_thread
# CoPP: the meters of the COPP_GROUP each xfab group's traps name: bgp
# queue4_group1 (6000), arp, arp_resp and nd (neigh_discovery)
# queue4_group2 (600),
# ip2me queue1_group1 (6000), bfd ip2me's (no trap names it), ttl_error
# and default the file's default group: 300 (SONiC's copp_cfg.j2 and
# xfab's own default say 600; 300 tells the file's meter from them)
copp_meters() {
	L leaf2 xfabctl -j show copp | jq -r '[.[] | "\(.group)=\(.cir)/\(.cbs)"] | join(" ")'
}
check "show copp: the file's COPP_GROUP meters (bgp, bfd, ip2me 6000; arp, arp_resp, nd 600; ttl_error, default 300)" \
	eval '[ "$(copp_meters)" = "bgp=6000/6000 bfd=6000/6000 arp=600/600 arp_resp=600/600 nd=600/600 ttl_error=300/300 ip2me=6000/6000 default=300/300" ]'

# Incast into h8's 100 Mbit/s port: h1, h3 and h5 each at 60 Mbit/s for
# 2 s (1.8 times the port), 1,000-byte RoCEv2-format packets on 4 QPs
# each. Lossless: DSCP 3, which the files' DSCP_TO_TC_MAP AZURE puts in
# class 3 (pfc_enable "3,4"), ECT(0) as RoCE sends (tos 14): the queue
# fills, leaf4 pauses the spines, they pause the leaves, the leaves the
# hosts: every packet arrives, no queue drops one, and PFC frames were
# sent and received. Lossy: DSCP 0, class 1 (no PFC): the queue drops.
ROCE=$ROOT/build/xfab-roce
SENDERS="h1 h3 h5"
queue_drops() {
	local n sum=0 d
	for n in $SWITCHES; do
		d=$(L "$n" xfabctl -j show queues | jq '[.[].dropped] | add')
		sum=$((sum + ${d:-0}))
	done
	echo "$sum"
}
# the kernel's count of what the queues under leaf4's Ethernet12 (h8's
# port) dropped: its lossy classes' bfifos (1 MiB: xfab's default on tc,
# a SONiC file sets no buffer), its lossless classes' gates (TBF)
h8_port_drops() {
	L leaf4 tc -s -j qdisc show dev Ethernet12 | jq '[.[] | select(.root != true) | .drops] | add'
}
pfc_frames() { # "sent received" over every switch, every port and priority
	local n tx=0 rx=0 t r
	for n in $SWITCHES; do
		read -r t r < <(L "$n" xfabctl -j show pfc counters |
			jq -r '"\([.[].tx[]] | add) \([.[].rx[]] | add)"')
		tx=$((tx + ${t:-0}))
		rx=$((rx + ${r:-0}))
	done
	echo "$tx $rx"
}
# incast TOS WHAT SIZE: sent, delivered, lost, xfab's queue drops, the
# kernel's drops at h8's port, in $tmp/WHAT
incast() {
	local tos=$1 what=$2 size=$3 h sent=0 s d0 k0 pids=()
	for h in $SENDERS; do # each sender reaches h8 once: leaf4 knows it first
		L "$h" ping -c 1 -W 2 10.4.2.2 >/dev/null
	done
	d0=$(queue_drops)
	k0=$(h8_port_drops)
	L h8 "$ROCE" recv --duration 14 --idle-ms 2000 -j >"$tmp/$what.json" 2>"$tmp/$what.err" &
	local rcv=$!
	receivers_ready "$tmp/$what.err" || return 1
	for h in $SENDERS; do
		L "$h" "$ROCE" send --dst 10.4.2.2 --qps 4 --sport-per-qp --count 3750 --rate 7500 \
			--size "$size" --tos "$tos" --duration 10 --speed 1000 >"$tmp/$what.$h" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	wait "$rcv"
	for h in $SENDERS; do
		s=$(awk '/^sent/ {print $2}' "$tmp/$what.$h")
		sent=$((sent + ${s:-0}))
	done
	echo "$sent $(jq '[.flows[].packets] | add' "$tmp/$what.json") $(jq .lost "$tmp/$what.json") $(($(queue_drops) - d0)) $(($(h8_port_drops) - k0))" >"$tmp/$what"
	echo "# $what: sent, delivered, lost, xfab's queue drops, the kernel's at h8's port: $(cat "$tmp/$what")"
}
read -r tx0 rx0 < <(pfc_frames)
incast 14 lossless 1000
read -r tx1 rx1 < <(pfc_frames)
# shellcheck disable=SC2034 # the checks' eval reads them
read -r sent got lost drops kdrops <"$tmp/lossless"
echo "# PFC frames sent $((tx1 - tx0)), received $((rx1 - rx0))"
check "lossless incast (DSCP 3: class 3 by the files' map): all 45,000 sent arrived, none lost" \
	eval '[ "$sent" = 45000 ] && [ "$got" = 45000 ] && [ "$lost" = 0 ]'
check "lossless incast: no queue dropped a packet (xfab's counters, the kernel's at h8's port)" \
	eval '[ "$drops" = 0 ] && [ "$kdrops" = 0 ]'
check "lossless incast: PFC frames sent and received (the files' pfc_enable at work)" \
	eval '[ $((tx1 - tx0)) -gt 0 ] && [ $((rx1 - rx0)) -gt 0 ]'
storms() { # "NODE QUEUE STORMS" of every queue the watchdog stormed
	local n
	for n in $SWITCHES; do
		L "$n" xfabctl -j show pfcwd stats |
			jq -r --arg n "$n" '.[] | select(.storm_detected > 0) | "\($n) \(.queue) \(.storm_detected)"'
	done
}
storms >"$tmp/storms"
sed 's/^/# stormed: /' "$tmp/storms"
check "PFC_WD declared no storm (an incast is no storm)" eval '[ ! -s "$tmp/storms" ]'
sleep 1
# 1,400-byte payloads (1,444 on the wire: a host's MTU is 1,500): the
# senders are held back by the CPU, per packet, and the queue overflows only
# when they offer more than the port's 100 Mbit/s plus its 1 MiB over the
# ~3 s they send; at 1,000 bytes they offered ~113 Mbit/s beside a CPU hog,
# and the queue dropped only 673 of 45,000 in one such run
incast 0 lossy 1400
# shellcheck disable=SC2034 # the checks' eval reads them
read -r sent got lost drops kdrops <"$tmp/lossy"
check "lossy incast (DSCP 0: class 1, no PFC): h8's port drops (the kernel's count > 0, fewer arrive)" \
	eval '[ "$sent" = 45000 ] && [ "$kdrops" -gt 0 ] && [ "$got" -lt "$sent" ]'

"$XL" down "$TOPO" --name "$NAME" >/dev/null 2>&1
check "nothing left: namespaces, pins, state, FRR and xfabd" nothing_left
NAME=""
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
