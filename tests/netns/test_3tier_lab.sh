#!/bin/bash
# netns test of the 3-tier Clos (testbeds/clos-3tier.json: 2 pods of 2 spines
# and 4 leaves under 2 super-spines, eBGP with FRR on every switch):
#   - it comes up with every BGP session Established (48: IPv4 and IPv6 on
#     every link) and every data plane full;
#   - all pairs ping, IPv4 and IPv6;
#   - a traceroute from pod 1 to pod 2 crosses leaf, spine, super-spine,
#     spine, leaf: five switches, the middle one a super-spine link address;
#   - ECMP at every tier, as the plan says: leaf1 reaches a pod-2 host over
#     both its spines, super1 over both pod-2 spines, spine1 over both
#     super-spines; all of it from BGP;
#   - ASNs by RFC 7938: pod-2 spines share an ASN other than pod 1's;
#   - nothing left after the lab goes down.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
need_frr
TOPO="$ROOT/testbeds/clos-3tier.json"
NAME="c$$"
NAME=${NAME:0:10}
L() { timeout 60 "$ROOT/scripts/xfab-lab" exec "$TOPO" --name "$NAME" "$@"; }
tmp=$(mktemp -d)
cleanup() {
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
# the member ports of a prefix in a switch's data plane, sorted, and its protocol

if timeout 300 "$ROOT/scripts/xfab-lab" up "$TOPO" --name "$NAME" >"$tmp/up.log" 2>&1; then
	ok "clos-3tier up: every session Established, every data plane full"
	grep -E "^(BGP|lab)" "$tmp/up.log" | sed 's/^/# /'
else
	cat "$tmp/up.log"
	not_ok "clos-3tier up"
	echo "# $pass passed, $fail failed"
	exit 1
fi
# Polls until "$@" holds, at most $1 seconds (BFD at 100 ms may drop a young
# session once on a busy machine; it comes back).
if eventually 20 bgp_ends_established 96 super1 super2 spine1 spine2 spine3 spine4 leaf1 leaf2 \
	leaf3 leaf4 leaf5 leaf6 leaf7 leaf8; then
	ok "48 BGP sessions (24 links, IPv4 and IPv6) Established, seen from both ends"
else
	not_ok "48 BGP sessions (24 links, IPv4 and IPv6) Established, seen from both ends (have $(cat "$tmp/established") of 96 ends)"
fi
if timeout 200 "$ROOT/scripts/xfab-lab" ping "$TOPO" --name "$NAME" >"$tmp/ping.log" 2>&1; then
	ok "all pairs ping, IPv4 and IPv6 ($(tail -1 "$tmp/ping.log" | grep -o '[0-9]*/[0-9]*'))"
else
	cat "$tmp/ping.log"
	not_ok "all pairs ping, IPv4 and IPv6"
fi
L h1 traceroute -n -q 1 -w 2 10.8.2.2 >"$tmp/tr" 2>&1
sed 's/^/# /' "$tmp/tr"
check "traceroute h1 -> h16 crosses leaf1, spine1/2, a super-spine, spine3/4, leaf8" eval \
	'[ "$(awk "NR > 1 { print \$2 }" "$tmp/tr" | paste -sd" ")" != "" ] &&
	 awk "NR > 1 { print \$2 }" "$tmp/tr" | paste -sd" " |
		grep -Eq "^10\.1\.1\.1 10\.254\.[12]\.0 10\.253\.[12]\.[0-9]+ 10\.253\.[12]\.[0-9]+ 10\.254\.[34]\.[0-9]+ 10\.8\.2\.2$"'
check "leaf1 reaches h16 over both its spines, from BGP" eval '[ "$(route_members leaf1 10.8.2.0/24)" = "eth1,eth2 bgp" ]'
check "super1 reaches h16 over both pod-2 spines (eth3, eth4)" eval '[ "$(route_members super1 10.8.2.0/24)" = "eth3,eth4 bgp" ]'
check "spine1 reaches pod 2 over both super-spines (eth5, eth6)" eval '[ "$(route_members spine1 fd00:8:2::/64)" = "eth5,eth6 bgp" ]'
check "spine1 reaches its own pod's h1 through leaf1 only" eval '[ "$(route_members spine1 10.1.1.0/24)" = "eth1 bgp" ]'
check "ASNs: pod-1 spines 65000, pod-2 spines 65001, super-spines 64900, leaf8 65108" eval \
	'[ "$(for n in spine1 spine3 super2 leaf8; do L "$n" vtysh -c "show bgp summary json" | jq .ipv4Unicast.as; done | paste -sd" ")" = "65000 65001 64900 65108" ]'

"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
check "nothing left: namespaces" eval '! ip netns list | grep -q "^$NAME-"'
check "nothing left: pins" test ! -e "/sys/fs/bpf/xfab/$NAME"
check "nothing left: FRR and xfabd" eval '! pgrep -f "/run/xfab-lab/$NAME/" >/dev/null'
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
