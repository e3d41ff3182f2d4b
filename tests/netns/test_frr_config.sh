#!/bin/bash
# BGP from CONFIG_DB (docs/SONIC.md): scripts/xfab-frr-config renders FRR's
# bgpd.conf from a SONiC config_db.json (scripts/xfablab/sonicfrr.py), and
# xfab-lab builds a topology whose switches are CONFIG_DB files
# (testbeds/sonic/). The expected lines are written by hand from
# sonic-buildimage's dockers/docker-fpm-frr/frr/bgpd/ templates (each group
# names its template) and the lab's habits (docs/LAB.md), not by the code
# under test; bad files are refused whole, TABLE|KEY.field named, nothing
# written; FRR's own parser (vtysh -C) accepts what is rendered. No root, no
# namespace; a few seconds.
# mutate: scripts/xfablab/sonicfrr.py scripts/xfablab/topology.py scripts/xfablab/swconfig.py; labs:
. "$(dirname "$0")/lib.sh"
TOOL=$ROOT/scripts/xfab-frr-config
LAB=$ROOT/scripts/xfab-lab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# block FILE FIRST: FIRST's line up to the next "exit" (a router bgp's body)
block() { sed -n "/^$2\$/,/^exit\$/p" "$1"; }
# has TEXT LINE...: every LINE is a whole line of TEXT, in this order
has() {
	local text=$1 line
	shift
	for line in "$@"; do
		grep -qxF -- "$line" <<<"$text" || {
			echo "# missing: $line"
			return 1
		}
		text=$(sed -n "/^$(sed 's/[][\/.*^$]/\\&/g' <<<"$line")\$/,\$p" <<<"$text" | tail -n +2)
	done
}
lacks() { ! grep -qF -- "$2" <<<"$1"; }

# ---- tests/data/frr/t0.json: a ToRRouter with every field the tool reads
"$TOOL" "$ROOT/tests/data/frr/t0.json" >"$T/t0.conf"
check "t0.json renders (exit 0)" test -s "$T/t0.conf"
main=$(block "$T/t0.conf" "router bgp 65100")
# bgpd.main.conf.j2: ASN, router-id from Loopback0's IPv4, the basics
check "router bgp bgp_asn, router-id Loopback0's IPv4, SONiC's basics" has "$main" \
	"router bgp 65100" " bgp router-id 10.1.0.32" " bgp log-neighbor-changes" \
	" no bgp default ipv4-unicast" " no bgp ebgp-requires-policy" \
	" bgp bestpath as-path multipath-relax"
# general/policies.conf.j2: the route-maps the peer groups name
check "policies: FROM/TO_BGP_PEER_V4/V6, V6 prefers the global next hop" has "$(cat "$T/t0.conf")" \
	"route-map FROM_BGP_PEER_V4 permit 100" "route-map TO_BGP_PEER_V4 permit 100" \
	"route-map FROM_BGP_PEER_V6 permit 1" " on-match next" " set ipv6 next-hop prefer-global" \
	"route-map FROM_BGP_PEER_V6 permit 100" "route-map TO_BGP_PEER_V6 permit 100"
check "dynamic policies: FROM_BGP_SPEAKER permits, TO_BGP_SPEAKER denies" has "$(cat "$T/t0.conf")" \
	"route-map FROM_BGP_SPEAKER permit 10" "route-map TO_BGP_SPEAKER deny 1"
# general/instance.conf.j2, per neighbour
check "neighbour 10.0.0.0: remote-as, description, timers keepalive holdtime, connect 10" has "$main" \
	" neighbor 10.0.0.0 remote-as 64600" " neighbor 10.0.0.0 description ARISTA01T1" \
	" neighbor 10.0.0.0 timers 3 10" " neighbor 10.0.0.0 timers connect 10" \
	" neighbor 10.0.0.0 peer-group PEER_V4"
check "neighbour fc00::1 (no timers given): no timers line, PEER_V6" has "$main" \
	" neighbor fc00::1 remote-as 64600" " neighbor fc00::1 timers connect 10" \
	" neighbor fc00::1 peer-group PEER_V6"
check "fc00::1 has no timers of its own (the lab's timers bgp 3 9 hold)" \
	lacks "$main" " neighbor fc00::1 timers 60"
check "default|10.0.0.2: admin_status down is shutdown, FRR's defaults written out" has "$main" \
	" neighbor 10.0.0.2 remote-as 64601" " neighbor 10.0.0.2 timers 60 180" \
	" neighbor 10.0.0.2 shutdown" " neighbor 10.0.0.2 peer-group PEER_V4"
check "10.0.0.0 (admin_status up) is not shut down" lacks "$main" " neighbor 10.0.0.0 shutdown"
# dynamic/instance.conf.j2, per peer range
check "BGPSLBPassive: passive peer group, multihop, peer_asn, listen ranges, src_address" \
	has "$main" " neighbor BGPSLBPassive peer-group" " neighbor BGPSLBPassive passive" \
	" neighbor BGPSLBPassive ebgp-multihop 255" " neighbor BGPSLBPassive remote-as 65432" \
	" bgp listen range 10.255.0.0/25 peer-group BGPSLBPassive" \
	" bgp listen range 10.255.0.128/25 peer-group BGPSLBPassive" \
	" neighbor BGPSLBPassive update-source 10.1.0.32"
check "BGPVac: a comma string ip_range, update-source Loopback1's IPv4" has "$main" \
	" bgp listen range 192.168.0.0/21 peer-group BGPVac" " neighbor BGPVac update-source 10.1.0.33"
# the address families: networks, peer-group.conf.j2 (allowas-in on a
# ToRRouter), rrclient and nhopself, activation, maximum-paths
check "ipv4: Loopback0 /32, the VLAN's and the host port's subnets, not the /31s" has "$main" \
	" address-family ipv4 unicast" "  network 10.1.0.32/32" "  network 192.168.0.0/21" \
	"  network 192.168.10.0/24" "  neighbor PEER_V4 allowas-in 1" \
	"  neighbor PEER_V4 soft-reconfiguration inbound" \
	"  neighbor PEER_V4 route-map FROM_BGP_PEER_V4 in" \
	"  neighbor PEER_V4 route-map TO_BGP_PEER_V4 out" "  neighbor 10.0.0.0 activate" \
	"  neighbor 10.0.0.2 route-reflector-client" "  neighbor 10.0.0.2 next-hop-self" \
	"  neighbor 10.0.0.2 activate" "  neighbor BGPSLBPassive activate" \
	"  neighbor BGPSLBPassive route-map FROM_BGP_SPEAKER in" \
	"  neighbor BGPSLBPassive route-map TO_BGP_SPEAKER out" "  maximum-paths 64" \
	" exit-address-family"
check "no /31 with a neighbour on it is announced" lacks "$main" "network 10.0.0."
check "10.0.0.0 (rrclient 0, nhopself 0) is neither client nor next-hop-self" \
	eval 'lacks "$main" "neighbor 10.0.0.0 next-hop-self" &&
	      lacks "$main" "neighbor 10.0.0.0 route-reflector-client"'
check "fc00::1 (rrclient 1, no nhopself) is a client, not next-hop-self" \
	lacks "$main" "neighbor fc00::1 next-hop-self"
check "ipv6: Loopback0 as /64, the host port's /64; fc00::1 activated; ranges too" has "$main" \
	" address-family ipv6 unicast" "  network fc00:1::/64" "  network fc02:10::/64" \
	"  neighbor PEER_V6 allowas-in 1" "  neighbor fc00::1 route-reflector-client" \
	"  neighbor fc00::1 activate" \
	"  neighbor BGPSLBPassive activate" "  maximum-paths 64"
# the lab's habits where the templates are silent
check "the lab's habits: timers 3 9, graceful restart, BFD on both peer groups" has "$main" \
	" timers bgp 3 9" " bgp graceful-restart" " bgp graceful-restart preserve-fw-state" \
	" bgp graceful-restart restart-time 30" " neighbor PEER_V4 bfd" \
	" neighbor PEER_V4 bfd profile fast" " neighbor PEER_V6 bfd" " neighbor BGPVac bfd"
blue=$(block "$T/t0.conf" "router bgp 65100 vrf Vrf_blue")
check "Vrf_blue|10.20.0.1: its own router bgp, keepalive 5 with SONiC's holdtime 180" has "$blue" \
	"router bgp 65100 vrf Vrf_blue" " bgp router-id 10.1.0.32" \
	" neighbor 10.20.0.1 remote-as 64700" " neighbor 10.20.0.1 description blue peer" \
	" neighbor 10.20.0.1 timers 5 180" "  neighbor 10.20.0.1 activate"
check "the VRF announces nothing and is not in the default instance" \
	eval '! grep -q network <<<"$blue" && ! grep -q 10.20.0.1 <<<"$main"'
"$TOOL" --bfdd --bfd-ms 250 "$ROOT/tests/data/frr/t0.json" >"$T/bfdd.conf"
check "bfdd.conf: profile fast at --bfd-ms, multiplier 3" has "$(cat "$T/bfdd.conf")" \
	"hostname t0-1" " profile fast" "  detect-multiplier 3" "  receive-interval 250" \
	"  transmit-interval 250"
check_needs vtysh "FRR's parser (vtysh -C) accepts t0.json's bgpd.conf" vtysh -C -f "$T/t0.conf"

# ---- our own T0 in SONiC's layout (tests/data/sonic/README.md), with a
# peer range, Loopback0's IPv6 advertised as a /128 and a neighbour name
# with a space planted
S=$ROOT/tests/data/sonic/t0-config_db.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
d["DEVICE_METADATA"]["localhost"]["bgp_adv_lo_prefix_as_128"] = "true"
d["BGP_NEIGHBOR"]["10.0.0.57"]["name"] = "T1-01 uplink"
d["BGP_PEER_RANGE"] = {"BGPSLBPassive": {"ip_range": ["10.255.0.0/25"], "name": "BGPSLBPassive"}}
json.dump(d, open(sys.argv[2], "w")); d.pop("BGP_PEER_RANGE"); json.dump(d, open(sys.argv[3], "w"))' \
	"$S" "$T/sample.json" "$T/sample-noranges.json"
"$TOOL" "$T/sample.json" >/dev/null 2>"$T/err"
check "the T0: its peer range without peer_asn refused (no deployment_id map)" \
	grep -qF "sample.json: BGP_PEER_RANGE|BGPSLBPassive.peer_asn: missing" "$T/err"
sample=$(block <("$TOOL" "$T/sample-noranges.json") "router bgp 65100")
check "the T0: bgp_router_id, Loopback0 IPv6 as /128 (bgp_adv_lo_prefix_as_128)" has "$sample" \
	" bgp router-id 10.1.0.132" "  network 10.1.0.32/32" "  network fc00:1::32/128"
check "the T0: a description with spaces, then timers keepalive 3 hold 10 as given" has "$sample" \
	" neighbor 10.0.0.57 description T1-01 uplink" " neighbor 10.0.0.57 timers 3 10"

# ---- bad files: refused, TABLE|KEY.field named, nothing written
said() { # said STATUS MESSAGE [DIR]: exit 1, MESSAGE on stderr, DIR empty
	if [ "$1" -eq 1 ] && grep -qF -- "$2" "$T/err" && { [ -z "${3:-}" ] || [ -z "$(ls "$3")" ]; }; then
		return 0
	fi
	echo "# status $1: $(cat "$T/err")"
	return 1
}
refused() { # refused DESC PYTHON-EDIT-OF-c EXPECTED-MESSAGE
	python3 -c "import json,sys; c=json.load(open(sys.argv[1])); $2; json.dump(c, open(sys.argv[2], 'w'))" \
		"$ROOT/tests/data/frr/t0.json" "$T/bad.json"
	rm -rf "$T/out" && mkdir "$T/out"
	"$TOOL" "$T/bad.json" -o "$T/out" 2>"$T/err"
	check "refused: $1" said $? "$3" "$T/out"
}
refused "no bgp_asn" 'del c["DEVICE_METADATA"]["localhost"]["bgp_asn"]' \
	"bad.json: DEVICE_METADATA|localhost.bgp_asn: missing"
refused "bgp_asn with a leading zero" 'c["DEVICE_METADATA"]["localhost"]["bgp_asn"] = "065100"' \
	"DEVICE_METADATA|localhost.bgp_asn: \"065100\": a number"
refused "bgp_asn 0" 'c["DEVICE_METADATA"]["localhost"]["bgp_asn"] = "0"' \
	"DEVICE_METADATA|localhost.bgp_asn: \"0\": a number"
refused "a neighbour without asn" 'del c["BGP_NEIGHBOR"]["10.0.0.0"]["asn"]' \
	"BGP_NEIGHBOR|10.0.0.0.asn: missing"
refused "an asn as a JSON number" 'c["BGP_NEIGHBOR"]["10.0.0.0"]["asn"] = 64600' \
	"BGP_NEIGHBOR|10.0.0.0.asn: 64600: a string"
refused "a bad neighbour address" 'c["BGP_NEIGHBOR"]["10.0.0.256"] = {"asn": "1"}' \
	'BGP_NEIGHBOR|10.0.0.256: "10.0.0.256" is not an IP address'
refused "a neighbour twice (IP and default|IP)" 'c["BGP_NEIGHBOR"]["default|10.0.0.0"] = {"asn": "1"}' \
	"BGP_NEIGHBOR|default|10.0.0.0: 10.0.0.0 is given twice"
refused "admin_status Up" 'c["BGP_NEIGHBOR"]["10.0.0.0"]["admin_status"] = "Up"' \
	'BGP_NEIGHBOR|10.0.0.0.admin_status: "Up": up or down'
refused "nhopself 2" 'c["BGP_NEIGHBOR"]["10.0.0.0"]["nhopself"] = "2"' \
	'BGP_NEIGHBOR|10.0.0.0.nhopself: "2": a number 0-1'
refused "holdtime 65536" 'c["BGP_NEIGHBOR"]["10.0.0.0"]["holdtime"] = "65536"' \
	'BGP_NEIGHBOR|10.0.0.0.holdtime: "65536": a number 0-65535'
refused "a bad local_addr" 'c["BGP_NEIGHBOR"]["10.0.0.0"]["local_addr"] = "10.0.0"' \
	'BGP_NEIGHBOR|10.0.0.0.local_addr: "10.0.0" is not an IP address'
refused "no router-id (no Loopback0 IPv4)" 'del c["LOOPBACK_INTERFACE"]["Loopback0|10.1.0.32/32"]' \
	"LOOPBACK_INTERFACE: no Loopback0 IPv4 address for the router-id"
refused "a bad loopback prefix" 'c["LOOPBACK_INTERFACE"]["Loopback2|10.1.0.300/32"] = {}' \
	'LOOPBACK_INTERFACE|Loopback2|10.1.0.300/32: "10.1.0.300/32" is not an address/length'
refused "a range without peer_asn" 'del c["BGP_PEER_RANGE"]["BGPVac"]["peer_asn"]' \
	"BGP_PEER_RANGE|BGPVac.peer_asn: missing"
refused "a bad ip_range" 'c["BGP_PEER_RANGE"]["BGPVac"]["ip_range"] = "192.168.0.0/33"' \
	'BGP_PEER_RANGE|BGPVac.ip_range: "192.168.0.0/33" is not a prefix'
refused "a range's name not its key's" 'c["BGP_PEER_RANGE"]["BGPVac"]["name"] = "Vac"' \
	'BGP_PEER_RANGE|BGPVac.name: "Vac": must be the key'"'"'s name'
refused "no src_address and no Loopback1" \
	'del c["LOOPBACK_INTERFACE"]["Loopback1|10.1.0.33/32"]' \
	"BGP_PEER_RANGE|BGPVac.src_address: missing, and no Loopback1 IPv4 address"

# ---- the lab from CONFIG_DB files (testbeds/sonic/): what up would run
TB=$ROOT/testbeds/sonic
for f in "$TB"/spine?.json "$TB"/leaf?.json; do
	check "xfab-frr-config --check $(basename "$f")" "$TOOL" --check "$f"
done
"$LAB" config "$TB/clos-2x4.json" leaf2 bgpd >"$T/leaf2.conf"
leaf2=$(block "$T/leaf2.conf" "router bgp 65102")
check "lab leaf2: bgp_asn, Loopback0's router-id, both spines over IPv4 and IPv6" has "$leaf2" \
	"router bgp 65102" " bgp router-id 10.255.1.2" " neighbor 10.254.1.2 remote-as 65000" \
	" neighbor 10.254.1.2 description spine1" " neighbor 10.254.1.2 timers 3 9" \
	" neighbor 10.254.2.2 remote-as 65000" " neighbor fd00:fe:1:2::2 peer-group PEER_V6" \
	" neighbor fd00:fe:2:2::2 peer-group PEER_V6"
check "lab leaf2 announces its loopback and its hosts' subnets" has "$leaf2" \
	"  network 10.255.1.2/32" "  network 10.2.1.0/24" "  network 10.2.2.0/24" \
	"  network fd00:ff:1:2::/64" "  network fd00:2:1::/64" "  network fd00:2:2::/64"
check "lab leaf2's bgpd.conf logs into its lab directory" \
	grep -qxF "log file /run/xfab-lab/sonic/leaf2/bgpd.log informational" "$T/leaf2.conf"
check_needs vtysh "FRR's parser (vtysh -C) accepts lab leaf2's bgpd.conf" vtysh -C -f "$T/leaf2.conf"
"$LAB" config "$TB/clos-2x4.json" spine1 >"$T/spine1.json"
check "lab spine1's xfabd config: its file with the datapath and FIB_SYNC (bgp, a 250 ms withdrawal hold, a 10 s restart hold) added" python3 -c '
import json, sys
got, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert got.pop("FIB_SYNC") == {
    "global": {"protocols": "bgp", "withdraw_hold_ms": "250", "restart_hold_ms": "10000"}
}
assert got["DEVICE_METADATA"]["localhost"].pop("datapath") == "xdp"
assert got == want' "$T/spine1.json" "$TB/spine1.json"
"$LAB" config "$TB/clos-2x4.json" >"$T/fabric.txt"
check "the fabric: ports by PORT name, a host port by its alias (etp3 is Ethernet8)" has \
	"$(cat "$T/fabric.txt")" "  Ethernet12 to leaf4 Ethernet0  10.254.1.6/31 fd00:fe:1:4::2/127" \
	"  Ethernet8 to h1 eth0          10.1.1.1/24 fd00:1:1::1/64"

# a bad topology or file: refused before anything is built
badtopo() { # badtopo DESC PYTHON-EDIT-OF-t-AND-FILES EXPECTED
	rm -rf "$T/tb" && cp -r "$TB" "$T/tb"
	python3 -c "import json,sys,os; d=sys.argv[1]; p=os.path.join(d,'clos-2x4.json')
t=json.load(open(p)); f=lambda n: json.load(open(os.path.join(d, n+'.json')))
w=lambda n, c: json.dump(c, open(os.path.join(d, n+'.json'), 'w'))
$2
json.dump(t, open(p, 'w'))" "$T/tb"
	"$LAB" config "$T/tb/clos-2x4.json" >/dev/null 2>"$T/err"
	check "topology refused: $1" said $? "$3"
}
badtopo "an unknown port" 't["links"][0][0] = "spine1:Ethernet99"' \
	"links[0] (spine1:Ethernet99-leaf1:Ethernet0): spine1 has no port Ethernet99"
badtopo "a CONFIG_DB switch's port unnamed" 't["links"][0][0] = "spine1"' \
	"name spine1's port"
badtopo "a port wired twice (by its name, then its alias)" 't["links"][5][1] = "leaf2:etp1"' \
	"leaf2's port Ethernet0 is wired twice"
badtopo "a port wired to nothing" 'c=f("leaf1"); c["PORT"]["Ethernet16"]=dict(c["PORT"]["Ethernet0"], alias="etp5"); w("leaf1", c)' \
	"PORT|Ethernet16 is wired to no link"
badtopo "an address not the plan's" 'c=f("leaf3"); c["INTERFACE"]["Ethernet8|10.3.1.9/24"]=c["INTERFACE"].pop("Ethernet8|10.3.1.1/24"); w("leaf3", c)' \
	"INTERFACE|Ethernet8|10.3.1.1/24 is missing"
badtopo "a hostname not the node's" 'c=f("spine2"); c["DEVICE_METADATA"]["localhost"]["hostname"]="sp2"; w("spine2", c)' \
	'DEVICE_METADATA|localhost.hostname "sp2" is not the node'"'"'s name'
badtopo "an asn unlike the file's bgp_asn" 't["nodes"]["leaf1"]["asn"] = 65001' \
	"asn 65001, but its config_db's bgp_asn is 65101"
badtopo "static routing" 't["routing"] = "static"' \
	"a CONFIG_DB switch routes with BGP"
badtopo "a neighbour without asn in a switch's file" 'c=f("leaf4"); del c["BGP_NEIGHBOR"]["10.254.1.6"]["asn"]; w("leaf4", c)' \
	"leaf4.json: BGP_NEIGHBOR|10.254.1.6.asn: missing"
badtopo "a host naming its port" 't["links"][8][1] = "h1:eth0"' \
	"only a switch given by its config_db names its ports"

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
