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
#   - down leaves nothing behind.
# Root, FRR; about a minute.
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

if timeout 200 "$XL" up "$TOPO" --name "$NAME" >"$tmp/up.log" 2>&1; then
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

"$XL" down "$TOPO" --name "$NAME" >/dev/null 2>&1
check "nothing left: namespaces, pins, state, FRR and xfabd" nothing_left
NAME=""
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
