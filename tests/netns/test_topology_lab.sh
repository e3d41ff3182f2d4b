#!/bin/bash
# Topology files (docs/LAB.md): the explicit form (nodes and links written out)
# and the generator's planes.
# Without root (xfab-lab config reads the file only):
#   - bad explicit files are refused with the file and the entry named: an
#     unknown node in a link, a leaf with no uplink, a duplicate link, a name
#     too long, an ASN out of range, a node defined twice, and more;
#   - planes: a super-spine links only to its plane's spines, a spine's routes
#     to another pod go over its plane's super-spines only;
#   - what the explicit example says reaches the generated configs: ports in
#     link order, speeds from the link or the ends' "up"/"down", its ASNs;
#   - one fabric in both forms is one fabric: clos-3tier and a 2-plane
#     3-tier written out as nodes and links give byte-identical configs.
# With root and FRR, testbeds/explicit-small.json as a lab:
#   - a refused file builds nothing;
#   - up with BGP: every session Established, the configured ASNs are what
#     bgpd runs (its own and as its peers see it), every pair of hosts pings
#     (IPv4 and IPv6), the ports' speeds are in the config xfabd runs with;
#   - down leaves nothing behind.
. "$(dirname "$0")/lib.sh"
TOPO="$ROOT/testbeds/explicit-small.json"
XL="$ROOT/scripts/xfab-lab"
tmp=$(mktemp -d)
NAME=""
cleanup() {
	[ -n "$NAME" ] && "$XL" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# refused FILE EXPECTED: `config` on FILE fails, and its one error line names
# the file and says EXPECTED (a fixed string)
refused() {
	local out
	if out=$("$XL" config "$1" spine1 2>&1); then
		echo "    accepted: $1"
		return 1
	fi
	if ! grep -qF "xfab-lab: $1: $2" <<<"$out"; then
		echo "    got: $out"
		echo "    want: xfab-lab: $1: $2"
		return 1
	fi
}
# bad DESC JQ EXPECTED: the example changed by JQ is refused with EXPECTED
bad() {
	local f=$tmp/bad-$((pass + fail)).json
	jq "$2" "$TOPO" >"$f" || return 1
	check "refused, naming the entry: $1" refused "$f" "$3"
}

bad "a link to an unknown node" '.links += [["spine1", "spine9"]]' \
	'links[12] (spine1-spine9): unknown node spine9'
bad "a leaf with no uplink" \
	'.links |= map(select(. != ["spine1", "leaf2"] and . != ["spine2", "leaf2"]))' \
	'nodes.leaf2: a leaf needs a link up to a spine'
bad "a duplicate link (the same pair, the other way round)" '.links += [["leaf2", "spine1"]]' \
	'links[12] (leaf2-spine1): duplicate of links[2]'
bad "a name too long" \
	'.nodes["leaf-number-sixteen"] = {"role": "leaf"} | .links += [["spine1", "leaf-number-sixteen"]]' \
	"nodes.leaf-number-sixteen: a node name is 1-15 letters, digits or '-', starting with a letter"
bad "an ASN out of range" '.nodes["gpu-leaf"].asn = 4294967295' \
	'nodes.gpu-leaf: asn 4294967295: an integer 1-4294967294'
bad "an ASN that is not a number" '.nodes["gpu-leaf"].asn = "65300"' \
	'nodes.gpu-leaf: asn "65300": an integer 1-4294967294'
bad "a leaf in its spines' ASN (no eBGP session)" '.nodes["gpu-leaf"].asn = 65000' \
	'links[4] (spine1-gpu-leaf): both ends are AS 65000; eBGP needs two'
bad "two leaves with one ASN" '.nodes.leaf2.asn = 65101' \
	"nodes.leaf2: AS 65101 is leaf1's too: each leaf needs its own"
bad "a leaf-leaf link" '.links += [["leaf1", "leaf2"]]' \
	'links[12] (leaf1-leaf2): a leaf cannot link to a leaf'
bad "an unknown role" '.nodes.leaf1.role = "tor"' \
	'nodes.leaf1: role must be leaf, spine, super or host, not "tor"'
bad "a host with no link" '.nodes.h9 = {"role": "host"}' \
	'nodes.h9: a host has exactly one link, to a leaf (it has 0)'
bad "ends whose speeds disagree" '.nodes.spine1.speeds = {"down": 40000}' \
	"links[0] (spine1-leaf1): spine1's down speed 40000 and leaf1's up speed 100000 disagree"
bad "a link speed beyond a port's" '.links[0] = {"ends": ["spine1", "leaf1"], "speed": 1000000}' \
	'links[0] (spine1-leaf1): speed 1000000: 1-800000 Mb/s'
bad "generator keys beside nodes and links" '.spines = 2' \
	'nodes and links describe the fabric; spines belong to the generator form'
bad "an unknown key (a typo is not ignored)" '.plane = 2' 'unknown key "plane"'
# jq cannot write a key twice; the text can
sed 's/"h4": {"role": "host"},/&\n    "h1": {"role": "host"},/' "$TOPO" >"$tmp/dup.json"
check "refused: a node defined twice" refused "$tmp/dup.json" '"h1" is given twice in one object'
echo '{"name": "p", "spines": 2, "planes": 2}' >"$tmp/planes1.json"
check "refused: planes without super-spines" refused "$tmp/planes1.json" \
	'planes 2 needs superspines'
echo '{"name": "p", "pods": 2, "spines": 2, "superspines": 3, "planes": 2}' >"$tmp/planes2.json"
check "refused: planes that do not divide the super-spines" refused "$tmp/planes2.json" \
	'planes 2 must divide spines (2 per pod) and superspines (3)'

# planes: 2 pods of 2 spines, 4 super-spines in 2 planes: plane 1 is the
# first spine of each pod (spine1, spine3) and super1, super2
cat >"$tmp/planes.json" <<'EOF'
{"name": "p", "pods": 2, "spines": 2, "leaves": 2, "superspines": 4, "planes": 2,
 "hosts_per_leaf": 1, "routing": "static"}
EOF
cfg() { "$XL" config "$@" 2>&1; }
ports() { cfg "$@" | jq -r '[.PORT[].description] | join(",")'; }
check "planes: super1 links to plane 1's spines only (spine1, spine3)" \
	eval '[ "$(ports "$tmp/planes.json" super1)" = "to spine1,to spine3" ]'
check "planes: super4 links to plane 2's spines only (spine2, spine4)" \
	eval '[ "$(ports "$tmp/planes.json" super4)" = "to spine2,to spine4" ]'
check "planes: spine4 links to its pod's leaves and to super3, super4" \
	eval '[ "$(ports "$tmp/planes.json" spine4)" = "to leaf3,to leaf4,to super3,to super4" ]'
# 10.253.x.(2s-2)/31: super x's end even; leaf3's hosts are 10.3.k.0/24
check "planes: spine1 reaches pod 2 over super1 and super2 (10.253.1.0, 10.253.2.0)" \
	eval '[ "$(cfg "$tmp/planes.json" spine1 | jq -r ".ROUTE[\"10.3.1.0/24\"].nexthop")" = "10.253.1.0,10.253.2.0" ]'
check "planes: super3 reaches leaf1's host through spine2 (10.253.3.3)" \
	eval '[ "$(cfg "$tmp/planes.json" super3 | jq -r ".ROUTE[\"10.1.1.0/24\"].nexthop")" = "10.253.3.3" ]'

# the explicit example's configs, against what the file says
speeds() { cfg "$TOPO" "$1" | jq -r '[.PORT | to_entries[] | .key + "=" + (.value.speed // "-")] | join(",")'; }
check "explicit: gpu-leaf's ports in link order, 400G up, 200G to its hosts" \
	eval '[ "$(speeds gpu-leaf)" = "eth1=400000,eth2=400000,eth3=200000,eth4=200000" ]'
check "explicit: spine1's port to gpu-leaf takes gpu-leaf's up speed, the others leaf1/2's" \
	eval '[ "$(speeds spine1)" = "eth1=100000,eth2=100000,eth3=400000" ]'
check "explicit: gpu-leaf's own ASN in its bgpd.conf, 65300" \
	eval 'cfg "$TOPO" gpu-leaf bgpd | grep -qx "router bgp 65300"'
check "explicit: spine2 peers with gpu-leaf as AS 65300 and with leaf2 as 65102 (RFC 7938 default)" \
	eval 'cfg "$TOPO" spine2 bgpd | grep -qx " neighbor 10.254.2.5 remote-as 65300" &&
	      cfg "$TOPO" spine2 bgpd | grep -qx " neighbor 10.254.2.3 remote-as 65102"'
check "explicit: config without a switch shows gpu-leaf with the file's ASN and its 400G uplink to spine1's eth3" \
	eval 'cfg "$TOPO" | grep -qxF "gpu-leaf leaf AS 65300 (the file'"'"'s), pod 1, router-id 10.255.1.3" &&
	      cfg "$TOPO" | grep -qE "^  eth1 +to spine1 eth3 +10\.254\.1\.5/31 fd00:fe:1:3::3/127  400000 Mb/s$"'
fab() { "$XL" config "$TOPO" fabric --name fx | jq -r "$1"; }
check "explicit: the fabric as JSON: gpu-leaf's eth1 goes up to spine1's eth3 at 400G, 10.254.1.5/31" \
	eval '[ "$(fab '"'"'.switches["gpu-leaf"].ports.eth1 | [.peer, .peer_port, .speed_mbps, .ipv4, .direction] | join(",")'"'"')" = "spine1,eth3,400000,10.254.1.5/31,up" ]'
check "explicit: the fabric as JSON: gpu-leaf is tier 1, AS 65300, its control socket and pins under the lab's name" \
	eval '[ "$(fab '"'"'.switches["gpu-leaf"] | [.tier, .asn, .ctl, .pins] | map(tostring) | join(",")'"'"')" = "1,65300,/run/xfab/fx/gpu-leaf.sock,/sys/fs/bpf/xfab/fx/gpu-leaf" ]'
check "explicit: the fabric as JSON: one link entry per cable of the file, every host on a leaf port" \
	eval '[ "$(fab ".links | length")" = "$(jq ".links | length" "$TOPO")" ] &&
	      [ "$(fab "[.hosts[] | select(.leaf_port | startswith(\"eth\"))] | length")" = "$(jq "[.nodes[] | select(.role == \"host\")] | length" "$TOPO")" ]'
check "explicit: gpu-leaf advertises its hosts' subnets (host k on leaf 3: 10.3.k.0/24)" \
	eval '[ "$(cfg "$TOPO" gpu-leaf bgpd | grep -c "^  network 10\.3\.[12]\.0/24$")" = 2 ]'

# The two forms are one fabric: clos-3tier (and the planes file above)
# written out node by node and link by link give the same configs, byte for
# byte, for every switch and every file (ports in link order, pods found from
# the links, the RFC 7938 ASNs by pod).
# explicit PODS SPINES LEAVES SUPERS PLANES HOSTS NAME: the generator's
# fabric written out in the explicit form
explicit() {
	python3 - "$@" <<'PY'
import json, sys
pods, sp, lf, sup, planes, hpl = map(int, sys.argv[1:7])
nodes, links = {}, []
for x in range(1, sup + 1):
    nodes["super%d" % x] = {"role": "super"}
for s in range(1, pods * sp + 1):
    nodes["spine%d" % s] = {"role": "spine"}
for l in range(1, pods * lf + 1):
    nodes["leaf%d" % l] = {"role": "leaf"}
for h in range(1, pods * lf * hpl + 1):
    nodes["h%d" % h] = {"role": "host"}
for p in range(pods):
    for s in range(p * sp + 1, (p + 1) * sp + 1):
        links += [["spine%d" % s, "leaf%d" % l] for l in range(p * lf + 1, (p + 1) * lf + 1)]
for x in range(1, sup + 1):
    plane = (x - 1) * planes // sup  # super x's plane, from 0
    links += [["super%d" % x, "spine%d" % s] for s in range(1, pods * sp + 1)
              if ((s - 1) % sp) * planes // sp == plane]
for l in range(1, pods * lf + 1):
    links += [["leaf%d" % l, "h%d" % ((l - 1) * hpl + k)] for k in range(1, hpl + 1)]
links = [{"ends": ln, "speed": 100000} for ln in links]  # 100G everywhere
print(json.dumps({"name": sys.argv[7], "routing": "bgp", "nodes": nodes, "links": links}))
PY
}
# every config file of every switch of a topology (BGP and static routing)
# and the routes up expects, in one text (one python
# run rather than one per file: a test box is busy)
all_configs() {
	python3 - "$XL" "$1" <<'PY'
import json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))  # xfab-lab's package beside it
import xfablab as xl
t = xl.Topology(sys.argv[2])
for n in t.switches():
    print("==== %s xfabd\n%s" % (n, json.dumps(t.switch_config(n)[0], indent=2)))
    for name, text in t.frr_configs(n, xl.Lab(t).frr_dir(n)).items():
        print("==== %s %s\n%s" % (n, name, text))
    print("==== %s expected by up\n%s" % (n, json.dumps(t.expected_routes(n))))
t.routing = "static"  # the fixed routes too, and the kernel's
for n in t.switches():
    print("==== %s static\n%s" % (n, json.dumps(t.switch_config(n), indent=2)))
PY
}
same_configs() { # GENERATOR EXPLICIT: every switch's every config file alike
	all_configs "$1" >"$tmp/gen.txt" && all_configs "$2" >"$tmp/exp.txt" &&
		[ "$(grep -c "^==== " "$tmp/gen.txt")" -ge 5 ] && cmp -s "$tmp/gen.txt" "$tmp/exp.txt" ||
		{ diff "$tmp/gen.txt" "$tmp/exp.txt" | head -10 | sed 's/^/    /'; return 1; }
}
explicit 2 2 4 2 1 2 clos3 >"$tmp/clos3-explicit.json"
check "clos-3tier written out as nodes and links: the same configs for all 14 switches" \
	same_configs "$ROOT/testbeds/clos-3tier.json" "$tmp/clos3-explicit.json"
jq '.routing = "bgp" | .speeds = {"host": 100000, "leaf_uplink": 100000, "spine_uplink": 100000}' \
	"$tmp/planes.json" >"$tmp/planes-bgp.json"
explicit 2 2 2 4 2 1 p >"$tmp/planes-explicit.json"
check "2 pods in 2 planes written out: the same configs for all 12 switches" \
	same_configs "$tmp/planes-bgp.json" "$tmp/planes-explicit.json"

# the lab needs root and FRR: without them, what ran above is the result
skip_lab=$(need_root && need_frr)
if [ -n "$skip_lab" ]; then
	echo "$skip_lab (the lab part)"
	echo "# $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi
NAME="tp$$"
NAME=${NAME:0:10}
L() { timeout 60 "$XL" exec "$TOPO" --name "$NAME" "$@"; }
nothing_left() {
	! ip netns list | grep -q "^$NAME-" && [ ! -e "/sys/fs/bpf/xfab/$NAME" ] &&
		[ ! -e "/run/xfab-lab/$NAME" ] && [ ! -e "/run/xfab/$NAME" ] &&
		! pgrep -f "/run/xfab-lab/$NAME/" >/dev/null
}
check "a refused file builds nothing (up fails before any namespace)" \
	eval '! timeout 60 "$XL" up "$tmp/dup.json" --name "$NAME" >/dev/null 2>&1 && nothing_left'

if timeout 200 "$XL" up "$TOPO" --name "$NAME" >"$tmp/up.log" 2>&1; then
	ok "explicit-small up with BGP: every session Established, every data plane full"
	grep -E "^(BGP|lab)" "$tmp/up.log" | sed 's/^/# /'
else
	cat "$tmp/up.log"
	not_ok "explicit-small up"
	echo "# $pass passed, $fail failed"
	exit 1
fi
summary() { L "$1" vtysh -c "show bgp summary json"; }
if eventually 20 bgp_ends_established 24 spine1 spine2 leaf1 leaf2 gpu-leaf; then
	ok "12 BGP sessions (6 links, IPv4 and IPv6) Established, seen from both ends"
else
	not_ok "12 BGP sessions Established (have $(cat "$tmp/established") of 24 ends)"
fi
check "bgpd runs the file's ASNs: spines 65000, leaf1 65101, leaf2 65102, gpu-leaf 65300" \
	eval '[ "$(for n in spine1 spine2 leaf1 leaf2 gpu-leaf; do summary "$n" | jq .ipv4Unicast.as; done |
		paste -sd" ")" = "65000 65000 65101 65102 65300" ]'
check "spine1 sees gpu-leaf (10.254.1.5, fd00:fe:1:3::3) as AS 65300" \
	eval '[ "$(summary spine1 | jq -r "[.ipv4Unicast.peers[\"10.254.1.5\"].remoteAs,
		.ipv6Unicast.peers[\"fd00:fe:1:3::3\"].remoteAs] | join(\",\")")" = "65300,65300" ]'
if timeout 120 "$XL" ping "$TOPO" --name "$NAME" >"$tmp/ping.log" 2>&1 &&
	grep -q "60/60 reachable" "$tmp/ping.log"; then
	ok "all pairs ping, IPv4 and IPv6 (60/60: 6 hosts)"
else
	cat "$tmp/ping.log"
	not_ok "all pairs ping, IPv4 and IPv6"
fi
check "gpu1 pings h1 by its address in the plan (10.1.1.2, fd00:1:1::2)" \
	eval 'L gpu1 ping -c1 -W2 10.1.1.2 >/dev/null && L gpu1 ping -6 -c1 -W2 fd00:1:1::2 >/dev/null'
running() { jq -r "[.PORT | to_entries[] | .key + \"=\" + (.value.speed // \"-\")] | join(\",\")" \
	"/run/xfab-lab/$NAME/$1.json"; }
check "xfabd on gpu-leaf runs with the speeds the file says (400G up, 200G down)" \
	eval '[ "$(running gpu-leaf)" = "eth1=400000,eth2=400000,eth3=200000,eth4=200000" ] &&
	      grep -q "forwarding on" "/run/xfab-lab/$NAME/gpu-leaf.log"'
check "xfabd on spine2 runs with 100G to leaf1/leaf2 and the link's 400G to gpu-leaf" \
	eval '[ "$(running spine2)" = "eth1=100000,eth2=100000,eth3=400000" ]'
check "gpu-leaf reaches h3 over both spines, from BGP" \
	eval '[ "$(route_members gpu-leaf 10.2.1.0/24)" = "eth1,eth2 bgp" ]'
check "spine2 reaches gpu2 through gpu-leaf (eth3) only" \
	eval '[ "$(route_members spine2 fd00:3:2::/64)" = "eth3 bgp" ]'

"$XL" down "$TOPO" --name "$NAME" >/dev/null 2>&1
check "nothing left: namespaces, pins, state, FRR and xfabd" nothing_left
NAME=""
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
