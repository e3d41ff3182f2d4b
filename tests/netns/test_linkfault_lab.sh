#!/bin/bash
# netns tests of tools/xfab-linkfault, the silent link failure the failover
# experiment uses to make BFD find a dead neighbour: on a small lab (1 spine,
# 2 leaves, a host on each) the leaf1-spine1 link drops every frame both ways
# while both ends keep their carrier, then forwards again, and restore leaves
# each end as drop found it:
#   xdp datapath: xfab's XDP program on its bpf_link is swapped for the drop
#                 program and back (the same program id after restore);
#   tc datapath:  no XDP program there: the drop program is attached and
#                 restore removes it (xfab's tcx programs stay meanwhile).
# Packets h1 -> h2 cross that link: they stop and resume. A second drop, a
# restore of what is not dropped and an unknown device are refused; an
# xfabd that restarts while its link drops takes the link back, and restore
# then releases what drop saved.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
need_cmds jq
BUILD=${BUILD:-$ROOT/build}
NAME="lf$$"
NAME=${NAME:0:8}
LF=$BUILD/xfab-linkfault
tmp=$(mktemp -d)
TOPO=$tmp/mini.json
cat >"$TOPO" <<EOF
{"name": "$NAME", "spines": 1, "leaves": 2, "hosts_per_leaf": 1, "ipv6": false,
 "routing": "static"}
EOF
N() { local node=$1; shift; timeout 30 nsenter --net="/run/netns/$NAME-$node" "$@"; }
cleanup() {
	# whatever a failed check left dropped goes back first (the pins)
	N leaf1 "$LF" restore eth1 >/dev/null 2>&1
	N spine1 "$LF" restore eth1 >/dev/null 2>&1
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

xdp_id() { N "$1" ip -d link show "$2" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p'; }
# received replies of 5 pings h1 -> h2 (every one crosses leaf1-spine1)
replies() {
	N h1 ping -n -q -c 5 -i 0.1 -W 1 10.2.1.2 2>/dev/null |
		sed -n 's/.* \([0-9]*\) received.*/\1/p'
}
# the fault on SWITCH's eth1 as status -j says it: "MODE PERCENT"
fault() { N "$1" "$LF" status eth1 -j | jq -r '"\(.mode) \(.percent)"'; }
carrier_up() { N "$1" ip link show "$2" | grep -q 'LOWER_UP'; }

# xfabd restarts while its link drops: the new one takes the link over with
# its own program (forwarding again); restore then says so and releases the
# original it saved (no pin left).
check_restart_meanwhile() {
	local r
	check "[xdp] drop leaf1 eth1, then leaf1's xfabd restarts" eval \
		'N leaf1 "$LF" drop eth1 && [ "$(replies)" == 0 ] &&
		 timeout 60 "$ROOT/scripts/xfab-lab" restart "$TOPO" leaf1 --name "$NAME" >/dev/null'
	r=$(replies)
	check "[xdp] the new xfabd's program forwards on eth1 ($r of 5)" eval \
		'[ "$r" == 5 ] && [ "$(N leaf1 "$LF" status eth1)" == "eth1: forwarding" ]'
	check "[xdp] restore then says the drop was replaced, and leaves no pin" eval \
		'! N leaf1 "$LF" restore eth1 2>"$tmp/err" && grep -q "replaced meanwhile" "$tmp/err" &&
		 [ ! -e /sys/fs/bpf/xfab-linkfault ]'
}

run_datapath() {
	local dp=$1 l0 s0 l1 s1 r
	if ! timeout 120 "$ROOT/scripts/xfab-lab" up "$TOPO" --name "$NAME" --datapath "$dp" \
		>"$tmp/up.log" 2>&1; then
		cat "$tmp/up.log"
		not_ok "[$dp] lab up"
		return
	fi
	l0=$(xdp_id leaf1 eth1)
	s0=$(xdp_id spine1 eth1)
	echo "    before: leaf1 eth1 xdp prog '${l0}', spine1 eth1 '${s0}'"
	r=$(replies)
	check "[$dp] before: h1 -> h2 answers (5 of 5: $r)" [ "$r" == 5 ]
	if [ "$dp" == xdp ]; then
		check "[$dp] xfab's XDP program on both ends" eval '[ -n "$l0" ] && [ -n "$s0" ]'
	else
		check "[$dp] no XDP program on either end" eval '[ -z "$l0" ] && [ -z "$s0" ]'
	fi

	check "[$dp] drop leaf1 eth1" N leaf1 "$LF" drop eth1
	check "[$dp] drop spine1 eth1" N spine1 "$LF" drop eth1
	l1=$(xdp_id leaf1 eth1)
	s1=$(xdp_id spine1 eth1)
	echo "    dropping: leaf1 eth1 xdp prog '$l1', spine1 eth1 '$s1'"
	check "[$dp] status: loss 100 % on both ends" eval \
		'[ "$(fault leaf1)" == "loss 100" ] && [ "$(fault spine1)" == "loss 100" ]'
	check "[$dp] both ends keep their carrier" eval 'carrier_up leaf1 eth1 && carrier_up spine1 eth1'
	r=$(replies)
	check "[$dp] dropping: h1 -> h2 gets no answer ($r of 5)" [ "$r" == 0 ]
	check "[$dp] dropping: leaf1 -> spine1 link address gets no answer" eval \
		'! N leaf1 ping -n -q -c 2 -i 0.1 -W 1 10.254.1.0 >/dev/null'
	check "[$dp] a second drop is refused and changes nothing" eval \
		'! N leaf1 "$LF" drop eth1 2>"$tmp/err" && grep -q "already faulty (loss 100.00 %)" "$tmp/err" &&
		 [ "$(xdp_id leaf1 eth1)" == "$l1" ]'

	check "[$dp] restore leaf1 eth1" N leaf1 "$LF" restore eth1
	check "[$dp] restore spine1 eth1" N spine1 "$LF" restore eth1
	check "[$dp] restored: the same XDP program as before on both ends ('$l0', '$s0')" eval \
		'[ "$(xdp_id leaf1 eth1)" == "$l0" ] && [ "$(xdp_id spine1 eth1)" == "$s0" ]'
	check "[$dp] restored: status forwarding" eval \
		'[ "$(N leaf1 "$LF" status eth1)" == "eth1: forwarding" ]'
	check "[$dp] restored: nothing pinned for it" [ ! -e /sys/fs/bpf/xfab-linkfault ]
	r=$(replies)
	check "[$dp] restored: h1 -> h2 answers again ($r of 5)" [ "$r" == 5 ]
	check "[$dp] a restore of a link not dropped is refused and changes nothing" eval \
		'! N leaf1 "$LF" restore eth1 2>/dev/null && [ "$(xdp_id leaf1 eth1)" == "$l0" ]'
	[ "$dp" == xdp ] && check_restart_meanwhile
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
}

run_datapath xdp
run_datapath tc
check "an unknown device is refused" eval '! "$LF" drop nosuch0 2>"$tmp/err" &&
	grep -q "nosuch0: no such device" "$tmp/err"'
echo "netns linkfault: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
