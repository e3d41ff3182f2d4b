#!/bin/bash
# netns test of `xfabctl fabric report --svg`, on clos-2x4 (lab svg, static
# routes) and clos-3tier (lab svg3). The drawing is read with python's
# xml.etree, which shares nothing with fabric_svg.c; what it must show comes
# from the fabric file and the switches' own counters:
#   - clos-2x4, traffic h1 -> h8 (8 QPs) after a --save snapshot, with
#     spine1's eth1 dropping every frame it receives (xfab-linkfault) while
#     it runs: every switch, host and link of fabric.json is drawn once
#     (ids sw-/host-/link-LOWER-PORT-UPPER-PORT), each link's title names
#     its two ends; the leaf1 -> spine1 direction is drawn lossy, and its
#     loss is leaf1 eth1's tx less spine1 eth1's rx (`xfabctl show
#     counters`), no other link is; a direction that carried nothing is u0,
#     the busiest u5, and the colour levels follow the bytes;
#   - --job: a QP path per QP, each titled with its hosts;
#   - clos-3tier: every switch and link drawn, the tiers as rows (super
#     above spine above leaf above host), the scale of the ports' speeds;
#   - nothing left after each lab goes down.
# mutate: user/ctl/fabric_report.c; labs: svg svg3
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
TOPO="$ROOT/testbeds/clos-2x4.json"
TOPO3="$ROOT/testbeds/clos-3tier.json"
NAME=svg
NAME3=svg3
PY=/usr/bin/python3
CTL="$ROOT/build/xfabctl"
ROCE="$ROOT/build/xfab-roce"
LF="$ROOT/build/xfab-linkfault"
tmp=$(mktemp -d)
recv_pids=""
cleanup() {
	local pid
	for pid in $recv_pids; do kill "$pid" 2>/dev/null; done
	wait 2>/dev/null
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	"$ROOT/scripts/xfab-lab" down "$TOPO3" --name "$NAME3" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
in_ns() {
	local ns=$1
	shift
	timeout 60 ip netns exec "$NAME-$ns" "$@"
}
report() { "$CTL" fabric report "$@"; }
lab_up() { # topo name
	if ! timeout 300 "$ROOT/scripts/xfab-lab" up "$1" --name "$2" --routing static >"$tmp/up-$2.log" 2>&1; then
		cat "$tmp/up-$2.log"
		not_ok "lab $2 up"
		echo "$pass passed, $fail failed"
		exit 1
	fi
}
nothing_left() { # name
	! ip netns list | grep -q "^$1-" && [ ! -e "/sys/fs/bpf/xfab/$1" ] &&
		[ ! -e "/run/xfab-lab/$1" ] && ! pgrep -f "xfabd.*/$1/" >/dev/null
}
port_ctr() { # switch port field
	"$CTL" -s "$NAME/$1" -j show counters | jq ".[] | select(.port == \"$2\") | .$3"
}

# Every switch, host and link of the fabric file drawn once, as the ids
# say; prints what it counted. The id of a name: [A-Za-z0-9.] as is, any
# other character _XX.
check_drawn() { # fabric svg
	$PY - "$1" "$2" <<-'EOF'
		import json, re, sys
		import xml.etree.ElementTree as ET
		fab = json.load(open(sys.argv[1]))
		root = ET.parse(sys.argv[2]).getroot()
		ns = "{http://www.w3.org/2000/svg}"
		idn = lambda s: re.sub(r"[^A-Za-z0-9.]", lambda m: "_%02x" % ord(m.group(0)), s)
		ids = [e.get("id") for e in root.iter() if e.get("id")]
		bad = [i for i in set(ids) if ids.count(i) > 1]
		want = ["sw-" + idn(s) for s in fab["switches"]] + ["host-" + idn(h) for h in fab["hosts"]]
		for ln in fab["links"]:
		    up = "%s-%s" % (idn(ln["upper"]), idn(ln["upper_port"]))
		    if ln["kind"] == "leaf-host":
		        host = fab["hosts"][ln["lower"]]
		        low = "%s-%s" % (idn(ln["lower"]), idn(host["port"]))
		        ends = ("%s:%s" % (ln["lower"], host["port"]), "%s:%s" % (ln["upper"], ln["upper_port"]))
		    else:
		        low = "%s-%s" % (idn(ln["lower"]), idn(ln["lower_port"]))
		        ends = ("%s:%s" % (ln["lower"], ln["lower_port"]), "%s:%s" % (ln["upper"], ln["upper_port"]))
		    lid = "link-%s-%s" % (low, up)
		    want.append(lid)
		    g = [e for e in root.iter(ns + "g") if e.get("id") == lid]
		    if len(g) == 1:
		        t = g[0].find(ns + "title").text
		        if not t.startswith("%s - %s" % ends):
		            bad.append("%s: title %r" % (lid, t.split("\n")[0]))
		        dirs = [e.get("id") for e in g[0].iter(ns + "line") if "dir" in e.get("class", "").split()]
		        if dirs != [lid + "-up", lid + "-down"]:
		            bad.append("%s: lines %s" % (lid, dirs))
		missing = [w for w in want if w not in ids]
		sw = [e for e in root.iter(ns + "g") if "switch" in e.get("class", "").split()]
		links = [e for e in root.iter(ns + "g") if "link" in e.get("class", "").split()]
		print("    %d switches, %d hosts, %d links in the file; drawn: %d switches, %d links; missing: %s; wrong: %s" % (
		    len(fab["switches"]), len(fab["hosts"]), len(fab["links"]), len(sw), len(links), missing, bad))
		sys.exit(1 if missing or bad or len(sw) != len(fab["switches"]) or len(links) != len(fab["links"]) else 0)
	EOF
}

# ---- clos-2x4: traffic, one direction of one link lossy ----
"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
"$ROOT/scripts/xfab-lab" down "$TOPO3" --name "$NAME3" >/dev/null 2>&1
t0=$(now_ms)
lab_up "$TOPO" "$NAME"
echo "# lab $NAME up in $(($(now_ms) - t0)) ms"
FABRIC=/run/xfab-lab/$NAME/fabric.json
for h in $(jq -r '.hosts | keys[]' "$FABRIC"); do
	in_ns "$h" "$ROCE" recv --duration 60 --idle-ms 100000 >/dev/null 2>&1 &
	recv_pids="$recv_pids $!"
	in_ns "$(jq -r ".hosts.$h.leaf" "$FABRIC")" ping -c 1 -W 1 \
		"$(jq -r ".hosts.$h.ipv4" "$FABRIC" | cut -d/ -f1)" >/dev/null
done
sleep 0.5

# leaf1 eth1's tx and spine1 eth1's rx before (a) and after (b) the
# snapshot, before (c) and after (d) the reports: what the reports count
# lies between (the kernels' own frames may come in any gap)
ctrs() { echo "$(port_ctr leaf1 eth1 tx_packets) $(port_ctr spine1 eth1 rx_packets)"; }
read -r tx_a rx_a < <(ctrs)
report --lab "$NAME" --save "$tmp/snap0.json" >/dev/null
read -r tx_b rx_b < <(ctrs)
# spine1 hears nothing on eth1 while h1 sends (6400 frames, 8 QPs each on
# its own source port: ECMP spreads them over both spines)
nsenter --net="/run/netns/$NAME-spine1" "$LF" drop eth1 >"$tmp/lf.log" 2>&1
in_ns h1 "$ROCE" send --dst 10.4.2.2 --qps 8 --sport 50000 --sport-per-qp --count 800 \
	--size 1000 --rate 20000 --no-pfc -j >"$tmp/send.json"
nsenter --net="/run/netns/$NAME-spine1" "$LF" restore eth1 >>"$tmp/lf.log" 2>&1
lf_rc=$?
sleep 0.3
read -r tx_c rx_c < <(ctrs)
report --lab "$NAME" --since "$tmp/snap0.json" -j --svg "$tmp/run.svg" >"$tmp/run.json"
svg_rc=$?
report --lab "$NAME" --since "$tmp/snap0.json" >"$tmp/run.txt"
read -r tx_d rx_d < <(ctrs)
lost_lo=$(((tx_c - tx_b) - (rx_d - rx_a)))
lost_hi=$(((tx_d - tx_a) - (rx_c - rx_b)))
check_written() {
	echo "    report exit $svg_rc, $(wc -c <"$tmp/run.svg") bytes; xfab-linkfault: $(tr '\n' ' ' <"$tmp/lf.log")"
	[ "$svg_rc" -eq 0 ] && [ "$lf_rc" -eq 0 ] && [ -s "$tmp/run.svg" ] && jq -e .links "$tmp/run.json" >/dev/null
}
check "--svg writes a drawing beside -j (exit 0), linkfault restored" check_written
check "clos-2x4: every switch, host and link of fabric.json drawn once, titled by its ends" \
	check_drawn "$FABRIC" "$tmp/run.svg"

check_lossy() {
	echo "    leaf1 eth1 sent $((tx_c - tx_b))..$((tx_d - tx_a)), spine1 eth1 received $((rx_c - rx_b))..$((rx_d - rx_a)): $lost_lo..$lost_hi lost"
	$PY - "$tmp/run.svg" "$tmp/run.json" "$lost_lo" "$lost_hi" "$(jq .sent "$tmp/send.json")" <<-'EOF'
		import json, sys
		import xml.etree.ElementTree as ET
		root = ET.parse(sys.argv[1]).getroot()
		rep = json.load(open(sys.argv[2]))
		lo, hi = int(sys.argv[3]), int(sys.argv[4])
		ns = "{http://www.w3.org/2000/svg}"
		lid = "link-leaf1-eth1-spine1-eth1"
		lossy = sorted(e.get("id") for e in root.iter(ns + "g") if "lossy" in e.get("class", "").split())
		lines = {e.get("id"): e for e in root.iter(ns + "line") if e.get("id")}
		up, down = lines[lid + "-up"], lines[lid + "-down"]
		title = [e for e in root.iter(ns + "g") if e.get("id") == lid][0].find(ns + "title").text
		got = [ln["up"]["lost_packets"] for ln in rep["links"] if ln["upper"] == "spine1" and ln["lower"] == "leaf1"][0]
		print("    lossy links drawn: %s; %s: up %s dash %s, down %s; report lost %s; title: %s" % (
		    lossy, lid, up.get("class"), up.get("stroke-dasharray"), down.get("class"), got,
		    title.split("\n")[1]))
		ok = 0 < lo <= got <= hi <= int(sys.argv[5]) and lossy == [lid] and \
		    "lossy" in up.get("class").split() and up.get("stroke-dasharray") and \
		    "lossy" not in down.get("class").split() and not down.get("stroke-dasharray") and \
		    ("%d lost" % got) in title
		sys.exit(0 if ok else 1)
	EOF
}
check "the link spine1 dropped on is drawn lossy (up only), its loss = leaf1's tx - spine1's rx; no other" \
	check_lossy

check_text_loss() {
	local row lost
	row=$(grep -E '^spine1:eth1 +leaf1:eth1 +spine-leaf ' "$tmp/run.txt")
	echo "    $row"
	lost=$(echo "$row" | awk '{print $8}')
	[ "$lost" -ge "$lost_lo" ] && [ "$lost" -le "$lost_hi" ] &&
		[ "$(echo "$row" | awk '{print $9}')" = 0 ] &&
		grep -qE '^leaf1:eth3 +h1 +leaf-host .* - +-$' "$tmp/run.txt"
}
check "the text report: Up/lost and Down/lost columns (- to a host)" check_text_loss

check_levels() {
	$PY - "$tmp/run.svg" "$tmp/run.json" <<-'EOF'
		import json, re, sys
		import xml.etree.ElementTree as ET
		root = ET.parse(sys.argv[1]).getroot()
		rep = json.load(open(sys.argv[2]))
		ns = "{http://www.w3.org/2000/svg}"
		legend = {}
		for g in root.iter(ns + "g"):
		    m = re.match(r"legend-u(\d)$", g.get("id") or "")
		    if m:
		        legend[g.find(ns + "line").get("stroke")] = int(m.group(1))
		byid = {e.get("id"): e for e in root.iter() if e.get("id")}
		pairs = []
		for g in root.iter(ns + "g"):
		    if "link" not in g.get("class", "").split():
		        continue
		    for dr in ("up", "down"):
		        e = byid[g.get("id") + "-" + dr]
		        pairs.append((e.get("id"), legend[e.get("stroke")]))
		# the bytes of each direction, from the report's JSON (its links in the fabric's order)
		b = [ln[dr]["bytes"] for ln in rep["links"] for dr in ("up", "down")]
		bad = [(p, v) for p, v in zip(pairs, b) if (v == 0) != (p[1] == 0)]
		order = sorted(zip(b, [p[1] for p in pairs]))
		bad += [(x, y) for x, y in zip(order, order[1:]) if x[1] > y[1]]
		top = [p for p, v in zip(pairs, b) if v == max(b)]
		print("    %d directions; levels by bytes: %s; the busiest %s; wrong: %s" % (
		    len(pairs), sorted(set(order)), top, bad[:4]))
		sys.exit(1 if bad or len(pairs) != 32 or any(p[1] != 5 for p in top) or len(legend) != 6 else 0)
	EOF
}
check "colour levels follow the bytes: nothing u0, the busiest u5, by the legend's colours" check_levels

cat >"$tmp/job.json" <<-EOF
	{"name": "ring4", "op": "allreduce", "channels": 1, "qps": 2, "qp_base": 512,
	 "bytes": 65536,
	 "ranks": [{"host": "h1", "addr": "10.1.1.2"}, {"host": "h3", "addr": "10.2.1.2"},
	           {"host": "h5", "addr": "10.3.1.2"}, {"addr": "10.4.1.2"}]}
EOF
check_job() {
	report --lab "$NAME" --job "$tmp/job.json" -j --svg "$tmp/job.svg" >"$tmp/job.json.out" || return 1
	$PY - "$tmp/job.svg" "$tmp/job.json.out" <<-'EOF'
		import json, sys
		import xml.etree.ElementTree as ET
		root = ET.parse(sys.argv[1]).getroot()
		rep = json.load(open(sys.argv[2]))
		ns = "{http://www.w3.org/2000/svg}"
		qps = [e for e in root.iter(ns + "polyline") if "qp" in e.get("class", "").split()]
		want = ["QP 0x%x %s > %s" % (f["src_qpn"], f["src"], f["dst"]) for f in rep["job"]["flows"]]
		got = [e.find(ns + "title").text for e in qps]
		bad = [(w, g) for w, g in zip(want, got) if not g.startswith(w)]
		# a path's points: host, then 2 per switch it crosses, then the host
		pts = [len(e.get("points").split()) for e in qps]
		hops = [2 + 2 * len(f["path"]) for f in rep["job"]["flows"]]
		print("    %d QP paths drawn for %d QPs; points %s (want %s); wrong titles: %s" % (
		    len(qps), len(want), pts, hops, bad))
		sys.exit(1 if len(qps) != 8 or len(want) != 8 or bad or pts != hops else 0)
	EOF
}
check "--job: one path per QP, titled with its QP and hosts, a point at each port it crosses" check_job

echo "# the drawing: $(wc -c <"$tmp/run.svg") bytes"
# XFAB_SVG_KEEP=DIR keeps the drawings and the text report (docs/DEBUGGING.md)
if [ -n "${XFAB_SVG_KEEP:-}" ]; then cp "$tmp/run.svg" "$tmp/job.svg" "$tmp/run.txt" "$XFAB_SVG_KEEP/"; fi

for pid in $recv_pids; do kill "$pid" 2>/dev/null; done
wait 2>/dev/null
recv_pids=""
"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
check "lab $NAME down: nothing left" nothing_left "$NAME"

# ---- clos-3tier: the tiers as rows ----
t0=$(now_ms)
lab_up "$TOPO3" "$NAME3"
echo "# lab $NAME3 up in $(($(now_ms) - t0)) ms"
FABRIC3=/run/xfab-lab/$NAME3/fabric.json
# --since: a rate, so the scale is of the ports' speeds (the file gives them)
report --lab "$NAME3" --save "$tmp/snap3.json" >/dev/null
in_ns3() { timeout 60 ip netns exec "$NAME3-$1" "${@:2}"; }
in_ns3 leaf1 ping -c 3 -i 0.2 -W 1 "$(jq -r '.hosts.h1.ipv4' /run/xfab-lab/$NAME3/fabric.json | cut -d/ -f1)" >/dev/null
report --lab "$NAME3" --since "$tmp/snap3.json" --svg "$tmp/3tier.svg" >/dev/null
check "clos-3tier: every switch, host and link of fabric.json drawn once, titled by its ends" \
	check_drawn "$FABRIC3" "$tmp/3tier.svg"
check_rows() {
	$PY - "$FABRIC3" "$tmp/3tier.svg" <<-'EOF'
		import json, re, sys
		import xml.etree.ElementTree as ET
		fab = json.load(open(sys.argv[1]))
		root = ET.parse(sys.argv[2]).getroot()
		ns = "{http://www.w3.org/2000/svg}"
		idn = lambda s: re.sub(r"[^A-Za-z0-9.]", lambda m: "_%02x" % ord(m.group(0)), s)
		y = {}
		for g in root.iter(ns + "g"):
		    i = g.get("id") or ""
		    if i.startswith("sw-") or i.startswith("host-"):
		        y[i] = float(g.find(ns + "rect").get("y"))
		rows = {}
		for s, sw in fab["switches"].items():
		    rows.setdefault(sw["tier"], set()).add(y["sw-" + idn(s)])
		rows[0] = set(y["host-" + idn(h)] for h in fab["hosts"])
		print("    rows (tier: y): %s" % {t: sorted(v) for t, v in sorted(rows.items())})
		ok = sorted(rows) == [0, 1, 2, 3] and all(len(v) == 1 for v in rows.values()) and \
		    min(rows[3]) < min(rows[2]) < min(rows[1]) < min(rows[0])
		scale = [t.text for t in root.iter(ns + "text") if t.text and t.text.startswith("Utilisation")]
		print("    scale: %s" % scale)
		sys.exit(0 if ok and scale == ["Utilisation each way: of the port's speed"] else 1)
	EOF
}
check "clos-3tier: one row per tier, super-spines on top, hosts at the bottom" check_rows
"$ROOT/scripts/xfab-lab" down "$TOPO3" --name "$NAME3" >/dev/null 2>&1
check "lab $NAME3 down: nothing left" nothing_left "$NAME3"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
