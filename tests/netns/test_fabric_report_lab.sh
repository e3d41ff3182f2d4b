#!/bin/bash
# netns test of `xfabctl fabric report` and the Grafana dashboard, on a
# clos-2x4 lab (lab name xrep, static routes: nothing converges but the
# data plane). Oracles that share no code with the report:
#   - refusals: --lab of a lab that is not up, a fabric file with a broken
#     peer (file:line:col and the port named), neither or both of
#     --fabric/--lab, a snapshot of another fabric;
#   - known RoCE traffic (xfab-roce, chosen source ports and QPs, counted
#     packets) between known hosts after a --save snapshot; the report
#     --since it: every link's bytes and packets each way equal the raw
#     port counters (`xfabctl -j show counters` of each switch, before and
#     after, the differences taken and summed here); the bytes h1 sent
#     equal what leaf1 sent up (packets x the frame's size); the ECMP
#     imbalance figures (per leaf, per tier, the worst leaf, both ways)
#     equal max/mean worked out here; ECN, queue drops, PFC and drops are
#     present and zero; the text report holds the same numbers;
#   - a job of 4 ranks x 2 QPs: the path the report gives each QP is where
#     that QP's packets go when it alone is sent (the ports whose tx
#     counters move by exactly its packets: no hash code involved);
#   - scripts/xfab-metrics-proxy serves every switch's /metrics on the
#     host's loopback (each switch's own series on its port), its targets
#     and prometheus.yml (promtool check config);
#   - every metric the dashboard queries is in a live xfabd's /metrics
#     (every switch's), every query parses (promtool check rules),
#     and the imbalance queries give max/avg on planted series (promtool
#     test rules);
#   - nothing left after the lab goes down.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
TOPO="$ROOT/testbeds/clos-2x4.json"
NAME=xrep
PY=/usr/bin/python3
CTL="$ROOT/build/xfabctl"
ROCE="$ROOT/build/xfab-roce"
DASH="$ROOT/docs/grafana/xfab-fabric.json"
tmp=$(mktemp -d)
recv_pids=""
proxy_pid=""
cleanup() {
	local pid
	for pid in $recv_pids $proxy_pid; do kill "$pid" 2>/dev/null; done
	wait 2>/dev/null
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
in_ns() {
	local ns=$1
	shift
	timeout 60 ip netns exec "$NAME-$ns" "$@"
}
report() { "$CTL" fabric report "$@"; }

# ---- refusals (before the lab is up) ----
"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
"$ROOT/scripts/xfab-lab" config "$TOPO" fabric >"$tmp/fabric-clos.json"

check_refused_not_up() {
	local out rc
	out=$(report --lab "$NAME" 2>&1 >/dev/null)
	rc=$?
	echo "    exit $rc: $out"
	[ $rc -eq 1 ] && [[ $out == *"lab $NAME is not up (no /run/xfab-lab/$NAME/fabric.json"* ]]
}

check_refused_bad_file() {
	local out rc line
	# spine1's eth2 names spine7, which the fabric does not have
	$PY - "$tmp/fabric-clos.json" "$tmp/bad.json" <<-'EOF'
		import json, sys
		f = json.load(open(sys.argv[1]))
		f["switches"]["spine1"]["ports"]["eth2"]["peer"] = "spine7"
		json.dump(f, open(sys.argv[2], "w"), indent=1)
	EOF
	line=$(grep -n '"spine7"' "$tmp/bad.json" | cut -d: -f1)
	out=$(report --fabric "$tmp/bad.json" 2>&1 >/dev/null)
	rc=$?
	echo "    exit $rc: $out"
	[ $rc -eq 2 ] || return 1
	[[ $out == *"$tmp/bad.json:$line:"*": switches.spine1.ports.eth2: peer \"spine7\" is neither a switch nor a host"* ]] || return 1
	out=$(report --fabric "$tmp/nonexistent.json" 2>&1 >/dev/null)
	[ $? -eq 2 ] && [[ $out == *"nonexistent.json: No such file or directory"* ]] || return 1
	echo "[1, 2]" >"$tmp/array.json"
	out=$(report --fabric "$tmp/array.json" 2>&1 >/dev/null)
	echo "    exit $?: $out"
	[[ $out == *"array.json:1:1: fabric: an object is needed, not array"* ]] || return 1
	out=$(report 2>&1 >/dev/null)
	[ $? -eq 2 ] && [[ $out == *"name the fabric: --fabric FILE"* ]] || return 1
	out=$(report --fabric "$tmp/fabric-clos.json" --lab "$NAME" 2>&1 >/dev/null)
	[ $? -eq 2 ] || return 1
	# a good file of a lab that is not up: its switches have no pins
	out=$(report --fabric "$tmp/fabric-clos.json" 2>&1 >/dev/null)
	echo "    exit $?: $out"
	[[ $out == *"switch spine1: no pins at /sys/fs/bpf/xfab/clos/spine1"* ]]
}
check "--lab of a lab that is not up: refused, exit 1" check_refused_not_up
check "a bad fabric file: refused with file:line:col and the port, exit 2" check_refused_bad_file

t0=$(now_ms)
if ! timeout 200 "$ROOT/scripts/xfab-lab" up "$TOPO" --name "$NAME" --routing static >"$tmp/up.log" 2>&1; then
	cat "$tmp/up.log"
	not_ok "lab $NAME up"
	echo "$pass passed, $fail failed"
	exit 1
fi
echo "# lab up in $(($(now_ms) - t0)) ms"
FABRIC=/run/xfab-lab/$NAME/fabric.json
SWITCHES=$(jq -r '.switches | keys[]' "$FABRIC")

# every switch's `show counters`, one JSON object by switch
raw() {
	local sw
	{
		for sw in $SWITCHES; do
			printf '{"%s": ' "$sw"
			"$CTL" -s "$NAME/$sw" -j show counters
			echo "}"
		done
	} | jq -s add
}

# receivers on every host, so no datagram earns an ICMP error back; every
# leaf knows its hosts' MACs (else a first packet takes the kernel)
for h in $(jq -r '.hosts | keys[]' "$FABRIC"); do
	in_ns "$h" "$ROCE" recv --duration 60 --idle-ms 100000 >/dev/null 2>&1 &
	recv_pids="$recv_pids $!"
	in_ns "$(jq -r ".hosts.$h.leaf" "$FABRIC")" ping -c 1 -W 1 \
		"$(jq -r ".hosts.$h.ipv4" "$FABRIC" | cut -d/ -f1)" >/dev/null
done
sleep 0.5

# ---- a run between two snapshots ----
raw >"$tmp/raw-a.json"
report --lab "$NAME" --save "$tmp/snap0.json" -j >"$tmp/cumulative.json"
save_rc=$?
raw >"$tmp/raw-b.json"
check "--save writes a snapshot; -j of the cumulative report parses" \
	eval '[ $save_rc -eq 0 ] && jq -e ".xfab_fabric_snapshot == 1 and .fabric == \"$NAME\"" "$tmp/snap0.json" >/dev/null && jq -e ".links | length == 16" "$tmp/cumulative.json" >/dev/null'

# h1 -> h8: 8 QPs, a source port each; h3 -> h6: 4 QPs; h5 -> h2: 1 QP
# (--count packets per QP, paced so that no veth queue overflows)
send() { # host dst qps sport count size
	in_ns "$1" "$ROCE" send --dst "$2" --qps "$3" --sport "$4" --sport-per-qp --count "$5" \
		--size "$6" --rate 20000 --no-pfc -j
}
send h1 10.4.2.2 8 50000 800 1000 >"$tmp/send1.json"
send h3 10.3.2.2 4 51000 400 500 >"$tmp/send2.json"
send h5 10.1.2.2 1 52000 300 200 >"$tmp/send3.json"
sleep 0.5
raw >"$tmp/raw-c.json"
report --lab "$NAME" --since "$tmp/snap0.json" -j >"$tmp/run.json"
run_rc=$?
report --lab "$NAME" --since "$tmp/snap0.json" >"$tmp/run.txt"
raw >"$tmp/raw-d.json"
check "report --since: -j parses" eval '[ $run_rc -eq 0 ] && jq -e .links "$tmp/run.json" >/dev/null'

# The report against the raw counters: a direction counted by tx must
# equal raw-c - raw-b (= raw-d - raw-a: nothing is forwarded meanwhile);
# a host's traffic up (its leaf's rx) lies between the two differences
# (received counters also count the hosts' own punted chatter).
check_links_vs_raw() {
	$PY - "$FABRIC" "$tmp" <<-'EOF'
		import json, sys
		fab = json.load(open(sys.argv[1]))
		d = sys.argv[2]
		raw = {k: json.load(open("%s/raw-%s.json" % (d, k))) for k in "abcd"}
		rep = json.load(open(d + "/run.json"))
		def ctr(k, sw, port, field):
		    return [p for p in raw[k][sw] if p["port"] == port][0][field]
		bad = 0
		seen = 0
		for ln in rep["links"]:
		    for dr in ("up", "down"):
		        r = ln[dr]
		        if dr == "down":
		            sw, port, rx = ln["upper"], ln["upper_port"], False
		        elif ln["kind"] == "leaf-host":
		            sw, port, rx = ln["upper"], ln["upper_port"], True
		        else:
		            sw, port, rx = ln["lower"], ln["lower_port"], False
		        want_at = "%s:%s" % (sw, port)
		        for what in ("packets", "bytes"):
		            field = ("rx_" if rx else "tx_") + what
		            lo = ctr("c", sw, port, field) - ctr("b", sw, port, field)
		            hi = ctr("d", sw, port, field) - ctr("a", sw, port, field)
		            ok = (lo <= r[what] <= hi) if rx else (r[what] == lo == hi)
		            if not ok or r["counted_at"] != want_at or r["counter"] != ("rx" if rx else "tx"):
		                print("    %s %s %s: report %s at %s %s, raw %s..%s at %s" % (
		                    ln["upper"], ln["lower"], dr, r[what], r["counted_at"], r["counter"],
		                    lo, hi, want_at))
		                bad = 1
		            seen += 1
		moved = sum(ln[dr]["bytes"] for ln in rep["links"] for dr in ("up", "down")
		            if ln["kind"] == "spine-leaf")
		print("    %d figures of %d links checked; %d bytes crossed the spines" % (
		    seen, len(rep["links"]), moved))
		sys.exit(1 if bad or moved == 0 else 0)
	EOF
}
check "per link and direction: the report's bytes and packets are the raw port counters" \
	check_links_vs_raw

# What h1 sent is what leaf1 sent up: packets x (Ethernet 14 + IPv4 20 +
# UDP 8 + BTH 12 + payload + ICRC 4).
check_sent_bytes() {
	local sent up
	sent=$(jq .sent "$tmp/send1.json")
	up=$(jq '[.links[] | select(.lower == "leaf1" and .kind == "spine-leaf") | .up.bytes] | add' "$tmp/run.json")
	echo "    h1 sent $sent packets of 1000 bytes (8 QPs x 800); leaf1 sent $up bytes up"
	[ "$sent" -eq 6400 ] && [ "$up" -eq $((sent * (14 + 20 + 8 + 12 + 1000 + 4))) ]
}
check "h1's packets x frame size = the bytes leaf1 sent up its uplinks" check_sent_bytes

check_imbalance() {
	$PY - "$FABRIC" "$tmp" <<-'EOF'
		import json, sys
		fab = json.load(open(sys.argv[1]))
		d = sys.argv[2]
		b = json.load(open(d + "/raw-b.json"))
		c = json.load(open(d + "/raw-c.json"))
		rep = json.load(open(d + "/run.json"))
		def tx(sw, port):
		    f = lambda r: [p for p in r[sw] if p["port"] == port][0]["tx_bytes"]
		    return f(c) - f(b)
		bad = 0
		for dr in ("up", "down"):
		    groups, allv = {}, []
		    for leaf in sorted(fab["switches"], key=lambda s: list(fab["switches"]).index(s)):
		        sw = fab["switches"][leaf]
		        if sw["tier"] != 1:
		            continue
		        v = []
		        for port, p in sw["ports"].items():
		            if p["direction"] != "up":
		                continue
		            v.append(tx(leaf, port) if dr == "up" else tx(p["peer"], p["peer_port"]))
		        groups[leaf] = v
		        allv += v
		    ratio = lambda v: max(v) / (sum(v) / len(v)) if sum(v) else None
		    got = [t for t in rep["imbalance"] if t["tier"] == "leaf-spine" and t["direction"] == dr][0]
		    for g in got["switches"]:
		        v = groups[g["switch"]]
		        r = ratio(v)
		        gr = g["balance"]["ratio"]
		        ok = g["bytes"] == v and g["balance"]["max"] == max(v) and \
		            abs(g["balance"]["mean"] - sum(v) / len(v)) < 1e-6 and \
		            ((r is None and gr is None) or (r is not None and gr is not None and abs(gr - r) < 1e-9))
		        print("    %-4s %s: %s max/mean %s (report %s)" % (dr, g["switch"], v,
		              "-" if r is None else "%.4f" % r, gr))
		        bad |= not ok
		    tr = ratio(allv)
		    worst = max((l for l in groups if sum(groups[l])), key=lambda l: (ratio(groups[l]), -list(groups).index(l)))
		    ok = abs(got["all"]["ratio"] - tr) < 1e-9 and got["all"]["links"] == len(allv) and got["worst"] == worst
		    print("    %-4s tier: max/mean %.4f (report %s), worst %s (report %s)" % (
		        dr, tr, got["all"]["ratio"], worst, got["worst"]))
		    bad |= not ok
		    bad |= len(got["switches"]) != len(groups)
		sys.exit(1 if bad else 0)
	EOF
}
check "ECMP imbalance per leaf and over the tier, both ways, as worked out here" check_imbalance

check_quiet_sections() {
	jq -e '.queues.ecn_marked == 0 and .queues.dropped == 0 and .pfc.rx_frames == 0 and
		.pfc.tx_frames == 0 and .pfc.pauses == 0 and .pfc.paused_ns == 0 and .drops.packets == 0 and
		([.switches[].ports[] | .ecn_marked + .queue_dropped + .pfc_rx + .pfc_tx + .paused_ns | add] | add) == 0 and
		(.switches | length) == 6 and ([.switches[].ports[]] | length) == 24 and
		([.switches[].ports[].ecn_marked | length] | unique) == [8] and
		([.switches[].drops | length] | unique | length) == 1 and
		(.since.resets == 0)' "$tmp/run.json" >/dev/null || return 1
	grep -q "^Queues: ECN marks and drops per port and queue (0 marked, 0 dropped in all" "$tmp/run.txt" &&
		grep -q "^(0 received, 0 sent, 0 pauses, 0.000 ms paused in all" "$tmp/run.txt" &&
		grep -q "^Drops by reason per switch (0 packets, 0 bytes in all" "$tmp/run.txt"
}
check "ECN, queue drops, PFC and drops: present, zero for a clean run (JSON and text)" \
	check_quiet_sections

check_text() {
	local b1 b2 row
	b1=$(jq '.links[] | select(.upper == "spine1" and .lower == "leaf1") | .up.bytes' "$tmp/run.json")
	b2=$(jq '.links[] | select(.upper == "spine1" and .lower == "leaf1") | .down.bytes' "$tmp/run.json")
	row=$(grep -E '^spine1:eth1 +leaf1:eth1 +spine-leaf ' "$tmp/run.txt")
	echo "    $row"
	[ "$(echo "$row" | awk '{print $5}')" = "$b1" ] && [ "$(echo "$row" | awk '{print $7}')" = "$b2" ] &&
		grep -q "^Fabric $NAME: 6 switches, 8 hosts, 16 links; counters of the .* s since $tmp/snap0.json" "$tmp/run.txt" &&
		grep -qE "^leaf-spine +up +\(all\) +8 " "$tmp/run.txt"
}
check "the text report: the same figures, its sections" check_text

# ---- a job's QPs: the report's path vs where each QP's packets go ----
cat >"$tmp/job.json" <<-EOF
	{"name": "ring4", "op": "allreduce", "channels": 1, "qps": 2, "qp_base": 512,
	 "bytes": 65536,
	 "ranks": [{"host": "h1", "addr": "10.1.1.2"}, {"host": "h3", "addr": "10.2.1.2"},
	           {"host": "h5", "addr": "10.3.1.2"}, {"addr": "10.4.1.2"}]}
EOF
report --lab "$NAME" --job "$tmp/job.json" -j >"$tmp/job-report.json"
job_rc=$?
report --lab "$NAME" --job "$tmp/job.json" >"$tmp/job-report.txt"
check "--job: 8 QPs, every path delivered, -j parses" \
	eval '[ $job_rc -eq 0 ] && jq -e ".job.qps == 8 and .job.delivered == 8 and ([.job.flows[].status] | unique) == [\"delivered\"]" "$tmp/job-report.json" >/dev/null'

# all tx packet counters, "switch port" -> packets
tx_all() {
	local sw
	for sw in $SWITCHES; do
		"$CTL" -s "$NAME/$sw" -j show counters | jq -r --arg s "$sw" '.[] | "\($s) \(.port) \(.tx_packets)"'
	done
}

check_paths_vs_counters() {
	local n i src dst daddr sport qpn want got bad=0 spines=""
	n=$(jq '.job.flows | length' "$tmp/job-report.json")
	for i in $(seq 0 $((n - 1))); do
		read -r src dst daddr sport qpn < <(jq -r ".job.flows[$i] | \"\(.src) \(.dst) \(.daddr) \(.sport) \(.dst_qpn)\"" "$tmp/job-report.json")
		want=$(jq -r ".job.flows[$i].path[] | \"\(.switch) \(.out)\"" "$tmp/job-report.json" | sort | tr '\n' ',')
		tx_all >"$tmp/tx0"
		in_ns "$src" "$ROCE" send --dst "$daddr" --qps 1 --qp-base "$qpn" --sport "$sport" \
			--count 25 --size 100 --no-pfc >/dev/null
		sleep 0.2
		tx_all >"$tmp/tx1"
		# the ports whose tx moved, and by how much
		got=$(join <(sort "$tmp/tx0" | awk '{print $1"/"$2, $3}' | sort) \
			<(sort "$tmp/tx1" | awk '{print $1"/"$2, $3}' | sort) |
			awk '$3 != $2 {split($1, a, "/"); print a[1], a[2], $3 - $2}' | sort)
		echo "    QP 0x$(printf %x "$qpn") $src -> $dst sport $sport: report $(jq -r ".job.flows[$i].path | map(\"\(.switch) \(.out)\") | join(\" > \")" "$tmp/job-report.json"); moved: $(echo "$got" | tr '\n' ';')"
		if [ "$(echo "$got" | awk '{print $1, $2}' | tr '\n' ',')" != "$want" ] ||
			[ -n "$(echo "$got" | awk '$3 != 25')" ]; then
			bad=1
		fi
		spines="$spines $(jq -r ".job.flows[$i].path[1].switch" "$tmp/job-report.json")"
	done
	echo "    spines the QPs took:$spines"
	[ $bad -eq 0 ]
}
check "each QP's reported path is where its packets go (tx counters, one QP at a time)" \
	check_paths_vs_counters

check_job_links() {
	# the QPs per link the report counts are its paths' hops
	jq -e '
		([.job.flows[].path[] | select(.switch | startswith("leaf")) | select(.out == "eth1" or .out == "eth2")] | length) as $ups |
		([.links[] | select(.kind == "spine-leaf") | .up.job_qps] | add) == $ups and $ups == 8 and
		([.links[] | select(.kind == "spine-leaf") | .down.job_qps] | add) == 8 and
		([.imbalance[] | select(.tier == "leaf-spine" and .direction == "up") | .switches[].qps | add] | add) == 8' \
		"$tmp/job-report.json" >/dev/null &&
		grep -q "^Job ring4: allreduce, 4 ranks, 1 channel, 2 QPs per connection: 8 QPs, 8 delivered" "$tmp/job-report.txt"
}
check "the job's QPs per link and per leaf follow from its paths" check_job_links

# ---- the Grafana dashboard, through scripts/xfab-metrics-proxy ----
PROXY_PORT=19401
check_proxy() {
	local i sw
	"$ROOT/scripts/xfab-metrics-proxy" --lab "$NAME" --port $PROXY_PORT \
		--targets "$tmp/targets.json" >"$tmp/proxy.log" 2>&1 &
	proxy_pid=$!
	eventually 10 curl -sf -o /dev/null http://127.0.0.1:$((PROXY_PORT + 5))/metrics || return 1
	i=0
	# the i-th switch of fabric.json on port + i, with its own series
	for sw in $(jq -r '.switches | keys_unsorted[]' "$FABRIC"); do
		curl -sf http://127.0.0.1:$((PROXY_PORT + i))/metrics >"$tmp/metrics-$sw" || return 1
		grep -q "^xfab_port_tx_bytes_total{switch=\"$sw\",port=\"eth1\"}" "$tmp/metrics-$sw" || return 1
		i=$((i + 1))
	done
	echo "    $i switches scraped from the host: $(tr '\n' ' ' <"$tmp/proxy.log" | cut -c1-160)..."
	jq -e "length == 6 and .[0].targets == [\"127.0.0.1:$PROXY_PORT\"] and
		.[0].labels.lab == \"$NAME\" and ([.[].labels.tier] | sort) == [\"1\",\"1\",\"1\",\"1\",\"2\",\"2\"]" \
		"$tmp/targets.json" >/dev/null || return 1
	"$ROOT/scripts/xfab-metrics-proxy" --lab "$NAME" --port $PROXY_PORT --config >"$tmp/prometheus.yml"
	# (its exit status is 1: pipefail)
	[[ $("$ROOT/scripts/xfab-metrics-proxy" --lab nolab 2>&1) == *"lab nolab is not up"* ]]
}
check "xfab-metrics-proxy: every switch's /metrics from the host, its targets" check_proxy
check_needs promtool "xfab-metrics-proxy --config: promtool takes the prometheus.yml" eval \
	'[ -s "$tmp/prometheus.yml" ] && promtool check config "$tmp/prometheus.yml" | sed "s/^/    /"'

check_dashboard_metrics() {
	$PY - "$DASH" "$tmp"/metrics-* <<-'EOF'
		import json, re, sys
		dash = json.load(open(sys.argv[1]))
		have = set()
		for path in sys.argv[2:]:
		    for line in open(path):
		        if line and not line.startswith("#"):
		            have.add(re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0))
		exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
		exprs += [v["definition"] for v in dash["templating"]["list"] if "definition" in v]
		used = set(n for e in exprs for n in re.findall(r"\bxfab_[a-z0-9_]+", e))
		missing = sorted(used - have)
		print("    %d queries name %d series; %d served by the %d switches; missing: %s" % (
		    len(exprs), len(used), len(have), len(sys.argv) - 2, missing))
		sys.exit(1 if missing or len(used) < 10 or len(sys.argv) - 2 != 6 else 0)
	EOF
}
check "every series the dashboard queries is in a live xfabd's /metrics" check_dashboard_metrics

check_dashboard_promql() {
	$PY - "$DASH" "$tmp" <<-'EOF' || return 1
		import json, sys
		dash = json.load(open(sys.argv[1]))
		d = sys.argv[2]
		subs = {"$__rate_interval": "1m", "$switch": ".*", "$leaf": "leaf.*",
		        "$uplinks": "eth1|eth2", "$spine": "spine.*", "$spine_uplinks": "eth5|eth6"}
		exprs = []
		for p in dash["panels"]:
		    for t in p.get("targets", []):
		        e = t["expr"]
		        for k in sorted(subs, key=len, reverse=True):
		            e = e.replace(k, subs[k])
		        exprs.append((p["title"], e))
		json.dump({"groups": [{"name": "dashboard", "rules": [
		    {"record": "xfab:dashboard_%d" % i, "expr": e} for i, (_, e) in enumerate(exprs)]}]},
		    open(d + "/rules.yml", "w"))
		q = {t.split(":")[0]: e for t, e in exprs}
		# planted: leaf1 sends 100/s and 300/s up, leaf2 and leaf3 200/s each
		# way, leaf1 receives 50/s and 250/s; host ports and spines do not count
		series = {("leaf1", "eth1"): 100, ("leaf1", "eth2"): 300, ("leaf1", "eth3"): 9000,
		          ("leaf2", "eth1"): 200, ("leaf2", "eth2"): 200, ("leaf3", "eth1"): 200,
		          ("leaf3", "eth2"): 200, ("spine1", "eth1"): 5000}
		inputs = [{"series": 'xfab_port_tx_bytes_total{switch="%s",port="%s"}' % k,
		           "values": "0+%dx40" % (v * 15)} for k, v in series.items()]
		inputs += [{"series": 'xfab_port_rx_bytes_total{switch="leaf1",port="%s"}' % p,
		            "values": "0+%dx40" % (v * 15)} for p, v in (("eth1", 50), ("eth2", 250))]
		tests = [
		    (q["Leaf uplink imbalance"], [('{switch="leaf1"}', 1.5), ('{switch="leaf2"}', 1.0),
		                                  ('{switch="leaf3"}', 1.0)]),
		    (q["Tier imbalance"], [("{}", 300 / ((100 + 300 + 4 * 200) / 6))]),
		    (q["Leaf downlink imbalance"], [('{switch="leaf1"}', 250 / 150)]),
		]
		json.dump({"rule_files": [], "evaluation_interval": "1m", "tests": [{
		    "interval": "15s", "input_series": inputs,
		    "promql_expr_test": [{"expr": e, "eval_time": "5m", "exp_samples": [
		        {"labels": l, "value": v} for l, v in want]} for e, want in tests]}]},
		    open(d + "/promtest.yml", "w"))
		print("    %d queries; imbalance planted: leaf1 1.5, leaf2 1.0, tier 1.5, leaf1 down %.4f" % (
		    len(exprs), 250 / 150))
	EOF
	promtool check rules "$tmp/rules.yml" | sed 's/^/    /' || return 1
	promtool test rules "$tmp/promtest.yml" | sed 's/^/    /'
}
check_needs promtool "the dashboard's PromQL parses and its imbalance queries give max/avg (promtool)" \
	check_dashboard_promql

check_since_other_fabric() {
	local out
	jq '.fabric = "other"' "$tmp/snap0.json" >"$tmp/snap-other.json"
	out=$(report --lab "$NAME" --since "$tmp/snap-other.json" 2>&1 >/dev/null)
	echo "    exit $?: $out"
	[[ $out == *"fabric: the snapshot is of fabric other, this is $NAME"* ]]
}
check "--since a snapshot of another fabric: refused" check_since_other_fabric

echo "# report with the job (text):"
sed 's/^/#   /' "$tmp/job-report.txt" | head -80

for pid in $recv_pids $proxy_pid; do kill "$pid" 2>/dev/null; done
wait 2>/dev/null
recv_pids=""
proxy_pid=""
"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
check_nothing_left() {
	! ip netns list | grep -q "^$NAME-" && [ ! -e "/sys/fs/bpf/xfab/$NAME" ] &&
		[ ! -e "/run/xfab-lab/$NAME" ] && ! pgrep -f "xfabd.*/$NAME/" >/dev/null
}
check "lab down: nothing left" check_nothing_left
echo "# $(($(now_ms) - t0)) ms from lab up"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
