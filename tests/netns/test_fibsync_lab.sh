#!/bin/bash
# netns tests of FIB_SYNC: xfabd mirrors the kernel's routing table into the
# data plane. A clos-2x4 lab comes up with --routing kernel, so the switches'
# configs hold no route at all: every remote host prefix reaches the data
# plane from the kernel (protocol static, as a routing daemon installs it).
# Checked against the kernel's own table (ip -j route) and real packets:
#   - at start: every remote prefix on leaf1 with both spines as members, all
#     pairs ping (IPv4 and IPv6);
#   - events: a route added, replaced and deleted; one of another protocol or
#     table left out; nexthop objects and groups, a group changed in place;
#   - link down: the kernel drops the port's IPv4 nexthops without a word,
#     and the mirror drops them too, writing nothing for a route whose group
#     the link event fixed; link up gives nothing back until the routes are
#     installed again;
#   - lost events: xfabd stopped while 3,000 routes change, with a small
#     socket buffer, overflows; on waking it resynchronises (a dump, mark and
#     sweep) to exactly the kernel's table, and the routes it kept were not
#     rewritten;
#   - show fib-sync and the Prometheus metrics count routes, messages, batches
#     and resyncs;
#   - nothing left after the lab goes down.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
TOPO="$ROOT/testbeds/clos-2x4.json"
NAME="f$$"
NAME=${NAME:0:10}
STATE=/run/xfab-lab/$NAME
PINS=/sys/fs/bpf/xfab/$NAME/leaf1
lab() { timeout 120 "$ROOT/scripts/xfab-lab" "$@" "$TOPO" --name "$NAME" --routing kernel; }
L() { timeout 60 "$ROOT/scripts/xfab-lab" exec "$TOPO" --name "$NAME" "$@"; }
leaf1() { nsenter --net="/run/netns/$NAME-leaf1" "$@"; }
tmp=$(mktemp -d)
cleanup() {
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# The devices of prefix $1's live members in leaf1's data plane, sorted
# ("" without a route, "blackhole" for one; a group keeps a member on a port
# that went down, unused, until the port is back).
members() {
	L leaf1 xfabctl -j show routes | jq -r --arg p "$1" '
		[.[] | select(.prefix == $p)] |
		if length == 0 then "" elif .[0].type == "blackhole" then "blackhole"
		else [.[0].members[] | select(.live) | .dev] | sort | join(",") end'
}
# Polls until "$@" holds (3 s): events take effect asynchronously.
is() { [ "$(members "$1")" = "$2" ]; }
# The kernel's IPv4 and IPv6 routes of protocol static, as prefix -> devices,
# and the same from leaf1's data plane (only routes with members).
kernel_table() {
	{
		leaf1 ip -j -4 route show proto static
		leaf1 ip -j -6 route show proto static
	} | jq -s -r 'add | .[] | [.dst, ([if .nexthops then (.nexthops[] |
		select((.flags // []) | index("dead") | not) | .dev) else (.dev // empty) end] |
		sort | join(","))] | select(.[1] != "") | @tsv' |
		awk -F'\t' '{ p = $1; if (p !~ /\//) p = p (p ~ /:/ ? "/128" : "/32"); print p "\t" $2 }' |
		sort
}
xfab_table() {
	L leaf1 xfabctl -j show routes | jq -r '.[] | select(.type == "nexthop" or .type == "group") |
		[.prefix, ([.members[] | select(.live) | .dev] | sort | join(","))] | @tsv' | sort
}
# every prefix of the kernel's table is in the data plane with the same
# devices, and the data plane has no route the kernel lacks (beyond the
# connected subnets, which are not of type nexthop or group)
same_tables() {
	kernel_table >"$tmp/k"
	xfab_table >"$tmp/x"
	cmp -s "$tmp/k" "$tmp/x"
}

if ! lab up >"$tmp/up.log" 2>&1; then
	cat "$tmp/up.log"
	not_ok "lab up (--routing kernel)"
	echo "# $pass passed, $((fail)) failed"
	exit 1
fi
ok "lab up (--routing kernel)"
check "leaf1's config has no ROUTE table and mirrors protocol static" \
	eval 'jq -e "(has(\"ROUTE\") | not) and .FIB_SYNC.global.protocols == \"static\"" \
	"$STATE/leaf1.json" >/dev/null'
check "leaf1: every remote host prefix via both spines (IPv4)" \
	eval '[ "$(members 10.4.2.0/24)" = "eth1,eth2" ] && [ "$(members 10.2.1.0/24)" = "eth1,eth2" ]'
check "leaf1: and IPv6" is fd00:3:2::/64 eth1,eth2
proto_of() { L leaf1 xfabctl -j show routes | jq -r --arg p "$1" '.[] | select(.prefix == $p) | .protocol'; }
check "show routes: a mirrored route's protocol is the kernel route's (static), a subnet's connected" \
	eval '[ "$(proto_of 10.4.2.0/24)" = static ] && [ "$(proto_of 10.1.1.0/24)" = connected ] &&
		[ "$(proto_of 10.1.1.1/32)" = local ]'
check "spine1: a host prefix via its leaf" \
	eval '[ "$(L spine1 xfabctl -j show routes | jq -r ".[] | select(.prefix == \"10.3.1.0/24\") | .members[0].dev")" = eth3 ]'
check "leaf1's data plane holds exactly the kernel's table" same_tables
if lab ping >"$tmp/ping.log" 2>&1; then
	ok "all pairs ping, IPv4 and IPv6 (routes from the kernel only)"
else
	cat "$tmp/ping.log"
	not_ok "all pairs ping, IPv4 and IPv6 (routes from the kernel only)"
fi
check "xfabd read the kernel's 12 routes (6 remote host prefixes, IPv4 and IPv6) at start" \
	grep -q "mirroring the kernel's table 254: 12 routes" "$STATE/leaf1.log"

fs() { L leaf1 xfabctl -j show fib-sync | jq -r ".$1"; }
check "show fib-sync: on, table 254, protocol static, 12 routes all programmed, no resync" \
	eval '[ "$(fs enabled)" = true ] && [ "$(fs table)" = 254 ] && [ "$(fs protocols)" = static ] &&
		[ "$(fs routes)" = 12 ] && [ "$(fs programmed)" = 12 ] && [ "$(fs resyncs)" = 0 ]'
check "show fib-sync (text) reads as a table" \
	eval 'L leaf1 xfabctl show fib-sync | grep -Eq "^routes held +12$"'
# the metrics say the same (Prometheus text, parsed by its own client library)
check "metrics: xfab_fib_sync_routes{state=programmed} 12, messages and batches counted" \
	L leaf1 /usr/bin/python3 -c '
import sys, urllib.request
from prometheus_client.parser import text_string_to_metric_families
text = urllib.request.urlopen("http://127.0.0.1:9400/metrics", timeout=5).read().decode()
f = {x.name: x for x in text_string_to_metric_families(text)}
prog = [s.value for s in f["xfab_fib_sync_routes"].samples if s.labels["state"] == "programmed"]
applied = [s.value for s in f["xfab_fib_sync_messages"].samples if s.labels["result"] == "applied"]
ok = prog == [12] and applied and applied[0] >= 12 and f["xfab_fib_sync_batches"].samples[0].value >= 1
sys.exit(0 if ok else 1)'

# ---- events
leaf1 ip route add 10.99.0.0/24 proto static nexthop via 10.254.1.0 dev eth1 \
	nexthop via 10.254.2.0 dev eth2
check "a route added: both members" eventually 3 is 10.99.0.0/24 eth1,eth2
leaf1 ip route replace 10.99.0.0/24 proto static via 10.254.2.0 dev eth2
check "replaced by one nexthop: eth2 only" eventually 3 is 10.99.0.0/24 eth2
leaf1 ip route add 10.98.0.0/24 proto bgp via 10.254.1.0 dev eth1
leaf1 ip route add 10.97.0.0/24 proto static via 10.254.1.0 dev eth1 table 100
leaf1 ip route add 10.96.0.0/24 proto static via 10.254.1.0 dev eth1
eventually 3 is 10.96.0.0/24 eth1 >/dev/null
check "another protocol (bgp) and another table (100) are not mirrored" \
	eval '[ -z "$(members 10.98.0.0/24)" ] && [ -z "$(members 10.97.0.0/24)" ]'
leaf1 ip route del 10.99.0.0/24 proto static
check "a route deleted: gone" eventually 3 is 10.99.0.0/24 ""
leaf1 ip route add blackhole 10.95.0.0/24 proto static
check "a blackhole route" eventually 3 is 10.95.0.0/24 blackhole
leaf1 ip -6 route add fd00:99::/64 proto static nexthop via fd00:fe:1:1::2 dev eth1 \
	nexthop via fd00:fe:2:1::2 dev eth2
check "an IPv6 multipath route" eventually 3 is fd00:99::/64 eth1,eth2

# nexthop objects: a group shared by two routes, changed in place
leaf1 ip nexthop add id 10 via 10.254.1.0 dev eth1 proto static
leaf1 ip nexthop add id 11 via 10.254.2.0 dev eth2 proto static
leaf1 ip nexthop add id 12 group 10/11 proto static
leaf1 ip route add 10.94.0.0/24 nhid 12 proto static
leaf1 ip route add 10.93.0.0/24 nhid 12 proto static
check "routes through a nexthop group object" eventually 3 is 10.93.0.0/24 eth1,eth2
grp() { L leaf1 xfabctl -j show routes | jq -r --arg p "$1" '.[] | select(.prefix == $p) | .group'; }
check "two routes through one group object share one data-plane group" \
	eval '[ "$(grp 10.94.0.0/24)" = "$(grp 10.93.0.0/24)" ] && [ -n "$(grp 10.94.0.0/24)" ]'
g_before=$(grp 10.94.0.0/24)
leaf1 ip nexthop replace id 12 group 11 proto static
check "the group object changed: one member, for both routes" \
	eventually 3 eval 'is 10.94.0.0/24 eth2 && is 10.93.0.0/24 eth2'
check "the routes still point at the same data-plane group (rewritten in place)" \
	eval '[ "$(grp 10.94.0.0/24)" = "$g_before" ]'
leaf1 ip nexthop del id 11
check "its last member deleted: the kernel drops the routes, and so does xfab" \
	eventually 3 eval 'is 10.94.0.0/24 "" && is 10.93.0.0/24 ""'
check "after the events, the data plane is the kernel's table again" eventually 3 same_tables

# ---- link down: the kernel drops IPv4 nexthops on the link without a message
g_both=$(grp 10.4.2.0/24)
leaf1 ip link set eth1 down
check "eth1 down: remote prefixes keep eth2 only (IPv4)" eventually 3 is 10.4.2.0/24 eth2
check "eth1 down: the route keeps its group, which dropped eth1 already (nothing written)" \
	eval '[ -n "$g_both" ] && [ "$(grp 10.4.2.0/24)" = "$g_both" ]'
check "and the kernel agrees" eventually 3 same_tables
check "traffic still flows (h1 -> h8)" L h1 ping -c 2 -i 0.2 -W 2 -q 10.4.2.2 >/dev/null
# what a routing daemon does when its session over eth1 drops: withdraw that
# path (the kernel, which revives a downed nexthop silently on link up and
# ignores a replace that changes nothing, then holds what the daemon says)
leaf1 ip route replace 10.4.2.0/24 proto static via 10.254.2.0 dev eth2
leaf1 ip link set eth1 up
sleep 0.2
check "eth1 up: nothing restored before the routing daemon says so" is 10.4.2.0/24 eth2
# and when the session comes back: install the path again
leaf1 ip route replace 10.4.2.0/24 proto static nexthop via 10.254.1.0 dev eth1 \
	nexthop via 10.254.2.0 dev eth2
check "eth1 up and the route installed again: both members" eventually 3 is 10.4.2.0/24 eth1,eth2

# ---- lost events: overflow, then a resync
pid=$(cat "$STATE/leaf1.pid")
kill "$pid"
for i in $(seq 100); do [ -e "/proc/$pid" ] || break; sleep 0.05; done
nsenter --net="/run/netns/$NAME-leaf1" "$ROOT/build/xfabd" -c "$STATE/leaf1.json" \
	--pin-root "/sys/fs/bpf/xfab/$NAME" --pidfile "$STATE/leaf1.pid" \
	--netlink-rcvbuf 4096 >"$STATE/leaf1.log" 2>&1 </dev/null &
for i in $(seq 200); do grep -q "forwarding on" "$STATE/leaf1.log" && break; sleep 0.05; done
check "xfabd restarted with a 4 KiB event buffer" grep -q "forwarding on" "$STATE/leaf1.log"
pid=$(cat "$STATE/leaf1.pid")
# a route that stays, and one that goes while xfabd cannot listen
leaf1 ip route add 10.92.0.0/24 proto static via 10.254.2.0 dev eth2
leaf1 ip route add 10.91.0.0/24 proto static via 10.254.1.0 dev eth1
eventually 3 is 10.91.0.0/24 eth1 >/dev/null
kept_id=$(L leaf1 xfabctl -j show routes | jq -r '.[] | select(.prefix == "10.92.0.0/24") | .members[0].nexthop')
kill -STOP "$pid"
for i in $(seq 0 2999); do
	echo "route add 10.200.$((i / 250)).$((i % 250))/32 proto static via 10.254.2.0 dev eth2"
done >"$tmp/batch"
echo "route del 10.91.0.0/24 proto static" >>"$tmp/batch"
leaf1 ip -batch "$tmp/batch"
kill -CONT "$pid"
check "the stopped xfabd's socket overflowed and it resynchronised" \
	eventually 3 grep -q "resynchronised with the kernel" "$STATE/leaf1.log"
check "after the resync, the data plane is exactly the kernel's table (3,000 routes more)" \
	eventually 3 same_tables
check "a route deleted while events were lost is gone" is 10.91.0.0/24 ""
check "show fib-sync counts the resync and the route it found gone" \
	eval '[ "$(fs resyncs)" -ge 1 ] && [ "$(fs swept_routes)" -ge 1 ]' 
check "a route that stayed kept its nexthop entry (not rewritten)" \
	eval '[ "$(L leaf1 xfabctl -j show routes | jq -r ".[] | select(.prefix == \"10.92.0.0/24\") | .members[0].nexthop")" = "$kept_id" ]'
check "traffic still flows after the resync" L h1 ping -c 2 -i 0.2 -W 2 -q 10.4.2.2 >/dev/null

lab down >/dev/null 2>&1
check "nothing left: namespaces" eval '! ip netns list | grep -q "^$NAME-"'
check "nothing left: pins" test ! -e "/sys/fs/bpf/xfab/$NAME"
check "nothing left: xfabd" eval '! pgrep -f "xfabd -c $STATE/" >/dev/null'
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
