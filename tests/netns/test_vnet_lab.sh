#!/bin/bash
# netns tests of the VXLAN overlay: testbeds/clos-2x4-vnet.json, the BGP
# Clos whose leaves are VTEPs (10.252.0.<leaf>, advertised in BGP) for two
# tenants, Vnet_red (VNI 1000: h1 h4 h7 h10) and Vnet_blue (VNI 2000: h2 h5
# h8 h11), whose host subnets are the same four 10.100.1-4.0/24 (and
# fd64:64:1-4::/64); h3 h6 h9 h12 are underlay hosts. The oracle is the
# address plan, written out here, and where packets arrive:
#   - inside each tenant every host reaches every other (IPv4, IPv6), and
#     the host that answers an address both tenants use is the tenant's own
#     (the other's counters do not move); tenants and underlay never meet;
#   - across the underlay, tenant traffic is VXLAN: VNI of the tenant, outer
#     source ports in 49152-65535 differing per flow, UDP checksum 0, DF,
#     outer DSCP equal to the inner, inner TTL one less than sent (captured
#     where the underlay delivers it to h12, and on the tc datapath on the
#     spines' links too); flows spread over both spines (their counters);
#     spines hold no tenant route;
#   - iperf3 inside a tenant;
#   - a Linux kernel VXLAN device on an underlay host (h12) exchanges
#     traffic with leaf1's VTEP both ways (an implementation we did not
#     write);
#   - PMTU: the fabric's MTU is 1500, so a 1500-byte tenant packet does not
#     fit in the tunnel: IPv4 with DF and IPv6 get ICMP fragmentation
#     needed / packet too big with MTU 1450 from the leaf;
#   - xfabctl trace shows the encapsulation (VNET, VNI, VTEP, outer port);
#   - xfabctl hash predicts a tenant flow's outer source port and underlay
#     member (checked on the wire and the spines' counters), and so does the
#     Python oracle of the hash (scripts/xfablab/flowhash.py) from leaf1's
#     config alone: the port on the wire, the bucket xfabctl looks up;
#   - xfabctl show vnet / vnet routes / vxlan tunnel / vnet counters;
#   - nothing left behind.
# Runs on the datapath of $XFAB_DATAPATH (default: the topology's, xdp).
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
need_frr
TOPO="$ROOT/testbeds/clos-2x4-vnet.json"
NAME="v$$"
NAME=${NAME:0:10}
DP=${XFAB_DATAPATH:-xdp}
lab() { timeout 240 "$ROOT/scripts/xfab-lab" "$@" "$TOPO" --name "$NAME" --datapath "$DP"; }
tmp=$(mktemp -d)
cleanup() {
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
N() { # run in a node's namespace
	local node=$1
	shift
	nsenter --net="/run/netns/$NAME-$node" "$@"
}
ctl() { # xfabctl -j on a switch
	local node=$1
	shift
	N "$node" "$ROOT/build/xfabctl" -j -P "/sys/fs/bpf/xfab/$NAME/$node" "$@"
}
PY=/usr/bin/python3 # Debian's, with scapy

# The plan: tenant -> host -> (leaf, subnet index).
RED="h1 h4 h7 h10"
BLUE="h2 h5 h8 h11"
declare -A SUBNET=([h1]=1 [h4]=2 [h7]=3 [h10]=4 [h2]=2 [h5]=3 [h8]=4 [h11]=1)
v4() { echo "10.100.${SUBNET[$1]}.2"; }
v6() { echo "fd64:64:${SUBNET[$1]}::2"; }
rx_packets() { N "$1" ip -j -s link show eth0 | jq '.[0].stats64.rx.packets'; }

echo "# lab up ($DP datapath)"
if ! lab up >"$tmp/up.log" 2>&1; then
	cat "$tmp/up.log"
	not_ok "lab up"
	echo "# $pass passed, $fail failed"
	exit 1
fi
ok "lab up: 2 spines, 4 leaves (VTEPs), 12 hosts, BGP converged"

# --- the underlay: VTEPs advertised, no tenant prefix anywhere in table 0
vteps_on_leaf1() {
	ctl leaf1 show routes | jq -r '.[] | select(.prefix | startswith("10.252.0.")) |
		[.prefix, ([.members[].dev] | sort | join(","))] | @tsv' | sort | tr '\t' ' ' |
		paste -sd';'
}
check "leaf1 reaches every other VTEP over both spines" \
	test "$(vteps_on_leaf1)" = "10.252.0.2/32 eth1,eth2;10.252.0.3/32 eth1,eth2;10.252.0.4/32 eth1,eth2"
no_tenant_in_underlay() {
	local node
	for node in spine1 spine2 leaf1 leaf2 leaf3 leaf4; do
		if ctl "$node" show routes | jq -e '[.[] | select(.table == null or .table == "default")
			| .prefix | select(startswith("10.100.") or startswith("fd64:"))] | length > 0' \
			>/dev/null; then
			echo "# $node has a tenant prefix in its underlay table"
			return 1
		fi
	done
}
check "no switch has a tenant prefix in its underlay table (spines hold no tenant state)" \
	no_tenant_in_underlay

# --- inside each tenant: all pairs, IPv4 and IPv6
pairs() {
	local hosts=$1 fam=$2 a b bad=0 n=0
	for a in $hosts; do
		for b in $hosts; do
			[ "$a" = "$b" ] && continue
			n=$((n + 1))
			if [ "$fam" = 4 ]; then
				N "$a" ping -n -q -c 1 -W 2 "$(v4 "$b")" >/dev/null ||
					N "$a" ping -n -q -c 2 -W 2 "$(v4 "$b")" >/dev/null || {
					echo "# $a -> $b ($(v4 "$b")) failed"
					bad=$((bad + 1))
				}
			else
				N "$a" ping -6 -n -q -c 1 -W 2 "$(v6 "$b")" >/dev/null ||
					N "$a" ping -6 -n -q -c 2 -W 2 "$(v6 "$b")" >/dev/null || {
					echo "# $a -> $b ($(v6 "$b")) failed"
					bad=$((bad + 1))
				}
			fi
		done
	done
	[ "$bad" -eq 0 ]
}
check "Vnet_red: every host reaches every other (IPv4, 12 pairs)" pairs "$RED" 4
check "Vnet_red: and IPv6" pairs "$RED" 6
check "Vnet_blue: every host reaches every other (IPv4, 12 pairs)" pairs "$BLUE" 4
check "Vnet_blue: and IPv6" pairs "$BLUE" 6

# --- isolation: 10.100.2.2 is h4 (red, leaf2) and h2 (blue, leaf1)
answers_own() { # $1 pings $2's address $3 times: $2 sees them, $4 (same address) none
	local from=$1 to=$2 n=$3 other=$4 t0 o0 t1 o1
	t0=$(rx_packets "$to")
	o0=$(rx_packets "$other")
	N "$from" ping -n -q -c "$n" -i 0.01 -W 2 "$(v4 "$to")" >/dev/null || return 1
	t1=$(rx_packets "$to")
	o1=$(rx_packets "$other")
	echo "# $from -> $(v4 "$to"): $to received $((t1 - t0)), $other $((o1 - o0))"
	[ $((t1 - t0)) -ge "$n" ] && [ $((o1 - o0)) -lt 3 ]
}
check "red h1 -> 10.100.2.2 reaches red h4, not blue h2 (the same address on h1's own leaf)" \
	answers_own h1 h4 50 h2
check "blue h2 -> 10.100.1.2 reaches blue h11, not red h1 (the same address on h2's own leaf)" \
	answers_own h2 h11 50 h1
unreachable() { ! N "$1" ping -n -q -c 2 -i 0.2 -W 1 "$2" >/dev/null 2>&1; }
check "a tenant host cannot reach an underlay host (h1 -> h3 10.1.3.2)" unreachable h1 10.1.3.2
check "an underlay host cannot reach a tenant address (h3 -> 10.100.1.2)" unreachable h3 10.100.1.2
check "nor a VTEP's tenant gateway of another leaf (h6 -> 10.100.1.1)" unreachable h6 10.100.1.1

# --- a Linux kernel VTEP (h12, an underlay host on leaf4) in Vnet_red
# h12: vx0 (VNI 1000, its underlay address 10.4.3.2), 10.100.9.2/24; leaf1's
# VTEP (10.252.0.1, MAC 02:00:00:fe:00:01) is its gateway to 10.100.1.0/24.
# leaf1: Vnet_red's 10.100.9.0/24 through a tunnel to 10.4.3.2, inner MAC vx0's.
N h12 ip link add vx0 type vxlan id 1000 local 10.4.3.2 dstport 4789 nolearning
N h12 ip link set vx0 address 02:00:00:00:ee:01 mtu 1450 up
N h12 ip addr add 10.100.9.2/24 dev vx0
N h12 ip neigh add 10.100.9.1 lladdr 02:00:00:fe:00:01 dev vx0 nud permanent
N h12 bridge fdb append 02:00:00:fe:00:01 dev vx0 dst 10.252.0.1
N h12 ip route add 10.100.1.0/24 via 10.100.9.1 dev vx0
jq '.VNET_ROUTE_TUNNEL["Vnet_red|10.100.9.0/24"] = {"endpoint": "10.4.3.2", "mac_address": "02:00:00:00:ee:01"}' \
	"/run/xfab-lab/$NAME/leaf1.json" >"$tmp/leaf1.json" && cp "$tmp/leaf1.json" "/run/xfab-lab/$NAME/leaf1.json"
reloads() { grep -c "reloaded:" "/run/xfab-lab/$NAME/leaf1.log"; }
r0=$(reloads)
kill -HUP "$(cat "/run/xfab-lab/$NAME/leaf1.pid")"
eventually 5 test "$(reloads)" -gt "$r0"
check "kernel VTEP -> xfab VTEP: h12 (vx0 10.100.9.2) pings red h1 (10.100.1.2)" \
	N h12 ping -n -q -c 3 -i 0.2 -W 2 10.100.1.2
check "xfab VTEP -> kernel VTEP: red h1 pings h12's vx0 (10.100.9.2)" \
	N h1 ping -n -q -c 3 -i 0.2 -W 2 10.100.9.2
kvtep_counted() {
	local rx
	rx=$(N h12 ip -j -s link show vx0 | jq '.[0].stats64.rx.packets')
	echo "# h12's vx0 received $rx packets"
	[ "$rx" -ge 6 ]
}
check "the kernel's VXLAN device decapsulated them (its own counters)" kvtep_counted

# --- the wire format of tenant flows: h1 (red, leaf1) -> h12's kernel VTEP
# (10.100.9.2 behind 10.4.3.2 on leaf4): 32 UDP flows (a source port per QP),
# DSCP 26 (tos 0x68), sent with TTL 64. Captured where the underlay hands
# them to h12 (every switch on the way routed them), and, on the tc
# datapath, on the spines' links to leaf4 too (XDP's redirected frames pass
# no capture point on a switch). Which spines carried them: their counters.
spine_tx() { ctl "$1" show counters | jq '[.[] | select(.port == "eth4") | .tx_packets] | add'; }
s1=$(spine_tx spine1)
s2=$(spine_tx spine2)
drops_of() { ctl "$1" show drops | jq -c '[.drops[], .punts[] | {(.reason): .packets}] | add'; }
l1_drops=$(drops_of leaf1)
caps="h12"
[ "$DP" = tc ] && caps="h12 spine1 spine2"
for n in $caps; do
	dev=eth0
	[ "$n" != h12 ] && dev=eth4
	N "$n" timeout 8 tcpdump --immediate-mode -i "$dev" -nn -w "$tmp/$n.pcap" -c 2000 udp port 4789 \
		>/dev/null 2>&1 &
done
# the receiver binds first: a port unreachable would cost the sender packets
N h12 timeout 7 "$ROOT/build/xfab-roce" recv --duration 5 >/dev/null 2>&1 &
sleep 1
N h1 "$ROOT/build/xfab-roce" send --dst 10.100.9.2 --qps 32 --sport-per-qp --count 20 \
	--rate 2000 --size 200 --tos 0x68 --no-pfc -j >"$tmp/send.json" 2>&1
echo "# h1 sent: $(jq -c '{sent, errors}' "$tmp/send.json" 2>/dev/null)"
wait
cat >"$tmp/wire.py" <<'EOF'
import json, sys
from scapy.all import rdpcap, IP, UDP
res = {}
for path in sys.argv[1:]:
    out = {"packets": 0, "vni": set(), "sport": set(), "sport_min": 65536, "csum": set(),
           "dscp_equal": 0, "inner_ttl": set(), "df": 0, "outer_ttl": set()}
    for p in rdpcap(path):
        if IP not in p or UDP not in p or p[UDP].dport != 4789:
            continue
        raw = bytes(p[UDP].payload)
        if len(raw) < 8 + 14 + 20 or raw[0] != 0x08:
            continue
        inner = IP(raw[8 + 14:])
        if inner.dst != "10.100.9.2" or inner.src != "10.100.1.2" or UDP not in inner \
                or inner[UDP].dport != 4791:
            continue
        out["packets"] += 1
        out["vni"].add(int.from_bytes(raw[4:7], "big"))
        out["sport"].add(p[UDP].sport)
        out["sport_min"] = min(out["sport_min"], p[UDP].sport)
        out["csum"].add(p[UDP].chksum)
        out["dscp_equal"] += (p[IP].tos >> 2) == (inner.tos >> 2) == 26
        out["inner_ttl"].add(inner.ttl)
        out["outer_ttl"].add(p[IP].ttl)
        out["df"] += bool(p[IP].flags & 2)
    res[path.rsplit("/", 1)[-1].split(".")[0]] = {
        k: sorted(v) if isinstance(v, set) else v for k, v in out.items()}
print(json.dumps(res))
EOF
# shellcheck disable=SC2046
$PY "$tmp/wire.py" $(for n in $caps; do echo "$tmp/$n.pcap"; done) >"$tmp/wire.json" 2>"$tmp/wire.err"
d1=$(($(spine_tx spine1) - s1))
d2=$(($(spine_tx spine2) - s2))
# what leaf1 dropped or punted meanwhile, if anything
jq -rn --argjson a "$l1_drops" --argjson b "$(drops_of leaf1)" \
	'$b | to_entries[] | select(.value != ($a[.key] // 0)) |
	 "# leaf1 meanwhile: \(.key) +\(.value - ($a[.key] // 0))"'
echo "# at h12: $(jq -c '.h12 | {packets, vni, sports: (.sport | length), sport_min, csum, inner_ttl, outer_ttl}' "$tmp/wire.json" 2>/dev/null); spines to leaf4: $d1, $d2 packets"
W() { jq -e "$1" "$tmp/wire.json" >/dev/null 2>&1; }
check "tenant flows arrive as VXLAN: all 640 packets, VNI 1000 (Vnet_red)" \
	W '.h12.packets == 640 and .h12.vni == [1000]'
check "outer source ports in 49152-65535, different per flow (>= 28 of 32 flows)" \
	W '.h12.sport_min >= 49152 and (.h12.sport | length) >= 28'
check "UDP checksum 0 (RFC 7348), DF set" W '.h12.csum == [0] and .h12.df == .h12.packets'
check "outer DSCP equal to the inner (26), inner TTL one less (63), outer TTL 64 less 2 hops" \
	W '.h12.dscp_equal == .h12.packets and .h12.inner_ttl == [63] and .h12.outer_ttl == [62]'
check "tenant flows spread over both spines (each carried >= 64 of the 640)" \
	test "$d1" -ge 64 -a "$d2" -ge 64 -a $((d1 + d2)) -eq 640
if [ "$DP" = tc ]; then
	check "captured on the spines' links: the same format, outer TTL 63 (one hop)" \
		W '[.spine1, .spine2] | (map(.packets) | add) == 640 and all(.[]; .packets == 0 or
			(.vni == [1000] and .csum == [0] and .outer_ttl == [63] and .inner_ttl == [63]
			 and .sport_min >= 49152))'
fi

# --- xfabctl hash predicts a tenant flow's tunnel and underlay member:
# h1 -> 10.100.9.2 UDP 40000 -> 4791, checked against the wire (the outer
# source port h12 sees) and the spines' counters (the member taken)
ctl leaf1 hash --in eth3 --src 10.100.1.2 --dst 10.100.9.2 --proto udp --sport 40000 \
	--dport 4791 >"$tmp/hash.json" 2>&1
echo "# hash: $(jq -c '{vnet, vni, endpoint, outer_sport, dev}' "$tmp/hash.json" 2>/dev/null)"
psport=$(jq -r '.outer_sport // empty' "$tmp/hash.json" 2>/dev/null)
pdev=$(jq -r '.dev // empty' "$tmp/hash.json" 2>/dev/null)
s1=$(spine_tx spine1)
s2=$(spine_tx spine2)
N h12 timeout 5 tcpdump --immediate-mode -i eth0 -nn -w "$tmp/one.pcap" -c 20 udp dst port 4789 and dst host \
	10.4.3.2 >/dev/null 2>&1 &
N h12 timeout 5 "$ROOT/build/xfab-roce" recv --duration 4 >/dev/null 2>&1 &
sleep 1
N h1 "$ROOT/build/xfab-roce" send --dst 10.100.9.2 --qps 1 --sport 40000 --count 20 \
	--rate 1000 --size 100 --no-pfc >/dev/null 2>&1
wait
# "IP 10.252.0.1.SPORT > 10.4.3.2.4789: VXLAN ...": the outer source port(s)
seen=$(N h12 tcpdump -nn -r "$tmp/one.pcap" 2>/dev/null | awk '$2 == "IP" {print $3}' |
	sed 's/.*\.//' | sort -u | paste -sd,)
d1=$(($(spine_tx spine1) - s1))
d2=$(($(spine_tx spine2) - s2))
echo "# wire: outer source port(s) $seen; spine1 +$d1, spine2 +$d2"
check "hash: Vnet_red's tunnel to 10.4.3.2, VNI 1000" \
	jq -e '.vnet == "Vnet_red" and .vni == 1000 and .endpoint == "10.4.3.2"' "$tmp/hash.json"
check "hash: the predicted outer source port ($psport) is the one on the wire" \
	test -n "$psport" -a "$seen" = "$psport"
predicted_member() {
	case "$pdev" in
	eth1) [ "$d1" -ge 20 ] && [ "$d2" -lt 5 ] ;;
	eth2) [ "$d2" -ge 20 ] && [ "$d1" -lt 5 ] ;;
	*) return 1 ;;
	esac
}
check "hash: the predicted underlay member ($pdev) carried the flow" predicted_member
# The same flow by the Python oracle (scripts/xfablab/flowhash.py, written
# from the hash's specification: no code shared with xfabctl or the data
# plane), from leaf1's config alone: its seed (hash_seed, or FNV-1a of its
# hostname), its fields, the tunnel route's endpoints, its VTEP address.
$PY - "$ROOT/scripts/xfablab" "/run/xfab-lab/$NAME/leaf1.json" >"$tmp/oracle.json" \
	2>"$tmp/oracle.err" <<'PYEOF'
import json, sys
sys.path.insert(0, sys.argv[1])
import flowhash as F
with open(sys.argv[2]) as f:
    cfg = json.load(f)
seed, fields, sym = F.switch_hash_config(cfg)
eps = cfg["VNET_ROUTE_TUNNEL"]["Vnet_red|10.100.9.0/24"]["endpoint"].split(",")
inner = F.words("10.100.1.2", "10.100.9.2", 17, 40000, 4791)
th = F.flow_hash(seed, F.tunnel_fields(fields), inner)
sport, ep = F.vxlan_sport(th), eps[F.tunnel_endpoint(th, len(eps))]
vtep = cfg["VXLAN_TUNNEL"]["vtep"]["src_ip"]
h = F.flow_hash(seed, fields, F.words(vtep, ep, 17, sport, F.VXLAN_PORT), sym)
print(json.dumps({"seed": seed, "endpoint": ep, "outer_sport": sport, "bucket": F.bucket(h)}))
PYEOF
echo "# oracle: $(cat "$tmp/oracle.json" "$tmp/oracle.err")"
osport=$(jq -r '.outer_sport // empty' "$tmp/oracle.json" 2>/dev/null)
check "oracle: the outer source port ($osport) is the one on the wire" \
	test -n "$osport" -a "$seen" = "$osport"
check "oracle: leaf1's seed (FNV-1a of its hostname), endpoint and underlay bucket are xfabctl's" \
	jq -en --slurpfile o "$tmp/oracle.json" --slurpfile x "$tmp/hash.json" \
	'$o[0].seed == $x[0].seed and $o[0].endpoint == $x[0].endpoint and
	 $o[0].bucket == $x[0].bucket'

# --- xfabctl trace shows the overlay stages: red h1 -> 10.100.2.2 on leaf1
ctl leaf1 trace --in eth3 --src 10.100.1.2 --dst 10.100.2.2 --proto udp --sport 7 \
	--dport 9 >"$tmp/trace.json" 2>&1
echo "# trace: $(jq -c '{action, overlay, vnet, vni, endpoint, outer_sport, egress}' "$tmp/trace.json" 2>/dev/null)"
check "trace: encapsulated in Vnet_red (VNI 1000) to leaf2's VTEP, out of an uplink" \
	jq -e '.action == "forward" and .overlay == "encap" and .vnet == "Vnet_red" and
		.vni == 1000 and .endpoint == "10.252.0.2" and .outer_sport >= 49152 and
		(.egress == "eth1" or .egress == "eth2")' "$tmp/trace.json"

# --- iperf3 inside a tenant (TCP finds the tunnel's MTU by PMTU discovery)
N h10 iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
sleep 0.3
if N h1 timeout 20 iperf3 -c "$(v4 h10)" -p 5201 -t 3 -J >"$tmp/iperf.json" 2>/dev/null; then
	mbps=$(jq '.end.sum_received.bits_per_second / 1e6 | floor' "$tmp/iperf.json")
	echo "# iperf3 h1 -> h10 (Vnet_red): $mbps Mbit/s"
	check "iperf3 inside Vnet_red: h1 -> h10 carried data ($mbps Mbit/s)" test "${mbps:-0}" -gt 10
else
	not_ok "iperf3 inside Vnet_red: h1 -> h10"
fi
N h10 pkill -x iperf3 2>/dev/null

# --- PMTU: 1500-byte tenant packets do not fit the 1500-byte fabric
pmtu4() {
	local out
	out=$(N h7 ping -n -c 1 -W 2 -M do -s 1472 "$(v4 h10)" 2>&1)
	echo "# h7 -> h10, 1500 bytes, DF: $(echo "$out" | grep -m1 -E 'mtu|Frag' || echo "$out" | tail -1)"
	echo "$out" | grep -q "mtu = 1450"
}
check "IPv4 with DF, too big for the tunnel: ICMP fragmentation needed, MTU 1450, from the leaf" \
	pmtu4
check "and the host then sends 1450-byte packets through (ping -s 1422, DF)" \
	N h7 ping -n -q -c 1 -W 2 -M do -s 1422 "$(v4 h10)"
pmtu6() {
	local out
	out=$(N h8 ping -6 -n -c 1 -W 2 -M do -s 1452 "$(v6 h11)" 2>&1)
	echo "# h8 -> h11, 1500 bytes IPv6: $(echo "$out" | grep -m1 -iE 'mtu|too big' || echo "$out" | tail -1)"
	echo "$out" | grep -qiE "mtu ?[=:]? ?1450"
}
check "IPv6 too big for the tunnel: ICMPv6 packet too big, MTU 1450" pmtu6
check "the leaves counted those as vnet_too_big punts" \
	test "$(ctl leaf3 show drops | jq '[.punts[] | select(.reason == "vnet_too_big") | .packets] | add')" -ge 1

# --- show (SONiC's views) and the metrics
J() { # J NODE 'JQ' ARGS...: the JSON of `xfabctl show ARGS...` satisfies JQ
	local node=$1 q=$2
	shift 2
	ctl "$node" show "$@" >"$tmp/show.json" 2>&1 && jq -e "$q" "$tmp/show.json" >/dev/null || {
		echo "# show $*: $(head -c 600 "$tmp/show.json")"
		return 1
	}
}
check "show vxlan tunnel: leaf1's VTEP, 10.252.0.1 port 4789, MAC 02:00:00:fe:00:01" \
	J leaf1 '.[0].name == "vtep" and .[0].src_ip == "10.252.0.1" and .[0].udp_port == 4789 and
		.[0].mac == "02:00:00:fe:00:01"' vxlan tunnel
check "show vnet: Vnet_red VNI 1000 on eth3, Vnet_blue VNI 2000 on eth4" \
	J leaf1 'map({(.name): [.vni, .interfaces]}) | add ==
		{"Vnet_red": [1000, ["eth3"]], "Vnet_blue": [2000, ["eth4"]]}' vnet
check "show vnet routes: Vnet_red 10.100.2.0/24 by tunnel to 10.252.0.2 (VNI 1000), blue's to 10.252.0.4" \
	J leaf1 '(map(select(.vnet == "Vnet_red" and .prefix == "10.100.2.0/24"))[0] |
		.type == "tunnel" and .endpoints == "10.252.0.2" and .vni == 1000) and
		(map(select(.vnet == "Vnet_blue" and .prefix == "10.100.1.0/24"))[0] |
		.endpoints == "10.252.0.4" and .vni == 2000)' vnet routes
check "show vnet routes: the local subnets, connected on their ports" \
	J leaf1 '(map(select(.vnet == "Vnet_red" and .prefix == "10.100.1.0/24"))[0] |
		.type == "connected" and .ifname == "eth3") and
		(map(select(.vnet == "Vnet_blue" and .prefix == "10.100.2.0/24"))[0] |
		.ifname == "eth4")' vnet routes
check "show vnet counters: leaf1 encapsulated and decapsulated Vnet_red traffic" \
	J leaf1 'map(select(.vnet == "Vnet_red"))[0] | .encap_packets > 600 and
		.decap_packets > 10 and .encap_bytes > .encap_packets * 60' vnet counters
metric() {
	N leaf1 $PY -c 'import urllib.request as u
print(u.urlopen("http://127.0.0.1:9400/metrics", timeout=5).read().decode())' |
		awk -v m="$1" 'index($0, m) == 1 {print $2}'
}
check "metrics: xfab_vnet_encap_packets_total of Vnet_red (VNI 1000) counts them too" \
	test "$(metric 'xfab_vnet_encap_packets_total{switch="leaf1",vnet="Vnet_red",vni="1000"}')" -gt 600

lab down >/dev/null 2>&1
left() {
	! ip netns list | grep -q "^$NAME-" && [ ! -e "/sys/fs/bpf/xfab/$NAME" ] &&
		[ ! -e "/run/xfab-lab/$NAME" ]
}
check "lab down: no namespace, pin or state left" left
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
