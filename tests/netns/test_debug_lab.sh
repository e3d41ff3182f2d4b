#!/bin/bash
# netns tests of the debugging tools in a clos-2x4 lab: `xfabctl trace`
# predicts where packets go (checked against counters), a trace changes no
# counter, the Prometheus endpoint parses and equals `show counters`,
# `watch` shows rates, `-s` finds a lab switch, trace reads a pcap.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
TOPO="$ROOT/testbeds/clos-2x4.json"
NAME="dbg$$"
NAME=${NAME:0:8}
PY=/usr/bin/python3
L() { timeout 60 "$ROOT/scripts/xfab-lab" exec "$TOPO" --name "$NAME" "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; "$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1' EXIT INT TERM

tx() { L leaf1 xfabctl -j show counters | jq ".[] | select(.port == \"$1\") | .tx_packets"; }

# 8 flows: trace says eth1 or eth2; 20 real packets of each must leave there.
check_trace_predicts() {
	local sport dev other e1 e2 d1 d2 bad=0
	for sport in $(seq 7000 7007); do
		dev=$(L leaf1 xfabctl -j trace --in eth3 --src 10.1.1.2 --dst 10.4.2.2 --proto udp \
			--sport "$sport" --dport 9000 | jq -r .egress)
		e1=$(tx eth1)
		e2=$(tx eth2)
		L h1 $PY -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('10.1.1.2', $sport))
for _ in range(20):
    s.sendto(b'x' * 100, ('10.4.2.2', 9000))"
		d1=$(($(tx eth1) - e1))
		d2=$(($(tx eth2) - e2))
		echo "    sport $sport: trace says $dev; eth1 +$d1, eth2 +$d2"
		case $dev in
		eth1) [ "$d1" -eq 20 ] && [ "$d2" -eq 0 ] || bad=1 ;;
		eth2) [ "$d2" -eq 20 ] && [ "$d1" -eq 0 ] || bad=1 ;;
		*) bad=1 ;;
		esac
	done
	return $bad
}

# What a traced packet could touch. Hosts' own background traffic (IPv6
# ND/MLD, punted to the kernel) may arrive meanwhile: it moves only rx and
# punt counters, so forwarded rx is rx - punts. (tests/bpf/test_trace.c
# compares every map byte for byte in a quiet harness.)
views() {
	L leaf1 xfabctl -j show counters | jq -c '[.[] | [.port, .rx_packets - .punts, .tx_packets, .tx_bytes, .drops]]'
	L leaf1 xfabctl -j show drops | jq -c .drops
	for v in lb flowlets queues; do L leaf1 xfabctl -j show $v; done
}

check_trace_no_state() {
	local before after
	before=$(views)
	for i in $(seq 1 50); do
		L leaf1 xfabctl trace --in eth3 --src 10.1.1.2 --dst 10.4.2.2 --sport $((8000 + i)) \
			--dport 9 >/dev/null || return 1
	done
	after=$(views)
	[ "$before" == "$after" ]
}

check_metrics() {
	L leaf1 $PY - <<-'PYEOF'
		import json, subprocess, sys, urllib.request
		from prometheus_client.parser import text_string_to_metric_families
		def show():
		    return json.loads(subprocess.run(["xfabctl", "-j", "show", "counters"],
		                                     capture_output=True, text=True, check=True).stdout)
		# the lab is never silent (ND, ARP): the scrape must fall between two reads
		before = show()
		text = urllib.request.urlopen("http://127.0.0.1:9400/metrics", timeout=5).read().decode()
		after = show()
		fams = {f.name: f for f in text_string_to_metric_families(text)}
		bad = 0
		for port, later in zip(before, after):
		    for field in ("rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "drops", "punts"):
		        name = "xfab_port_" + field
		        got = [s.value for s in fams[name].samples
		               if s.labels["port"] == port["port"] and s.labels["switch"] == "leaf1"]
		        if len(got) != 1 or not port[field] <= got[0] <= later[field]:
		            print("    %s %s: metrics %s, xfabctl %s then %s" % (
		                port["port"], field, got, port[field], later[field]))
		            bad = 1
		need = ("xfab_drops", "xfab_punts", "xfab_queue_packets", "xfab_queue_watermark_bytes",
		        "xfab_lb_events", "xfab_pfc_rx_frames", "xfab_pfc_tx_frames",
		        "xfab_pfc_paused_seconds", "xfab_pfcwd_stormed")
		missing = [n for n in need if n not in fams]
		print("    %d metric families, %d samples; ports agree: %s; missing: %s" % (
		    len(fams), sum(len(f.samples) for f in fams.values()), not bad, missing))
		sys.exit(1 if bad or missing else 0)
	PYEOF
}

# A live switch's PFC views (tests/bpf/test_pfcshow.c checks them against
# planted values): every port, every priority, the series say the same, no
# queue stormed.
check_pfc_views() {
	L leaf1 $PY - <<-'PYEOF' || return 1
		import json, subprocess, sys, urllib.request
		from prometheus_client.parser import text_string_to_metric_families
		def ctl(*args):
		    r = subprocess.run(["xfabctl", "-j"] + list(args), capture_output=True, text=True)
		    return r.returncode, json.loads(r.stdout)
		_, ports = ctl("show", "ports")
		_, counters = ctl("show", "pfc", "counters")
		_, status = ctl("show", "pfc", "status")
		rc, stats = ctl("show", "pfcwd", "stats", "--check-storm")
		text = urllib.request.urlopen("http://127.0.0.1:9400/metrics", timeout=5).read().decode()
		fams = {f.name: f for f in text_string_to_metric_families(text)}
		bad = [p["port"] for p in ports] != [c["port"] for c in counters] or \
		      [p["port"] for p in ports] != [s["port"] for s in status] or rc != 0
		for c in counters:
		    for prio in range(8):
		        for fam, key in (("xfab_pfc_rx_frames", "rx"), ("xfab_pfc_tx_frames", "tx")):
		            got = [s.value for s in fams[fam].samples if s.labels["port"] == c["port"]
		                   and s.labels["priority"] == str(prio)]
		            if got != [c[key][prio]]:
		                print("    %s %s prio %d: metrics %s, xfabctl %s" % (c["port"], fam, prio, got, c[key][prio]))
		                bad = True
		print("    %d ports x 8 priorities; check-storm exit %d; stormed queues %d" % (
		    len(counters), rc, sum(s["status"] == "stormed" for s in stats)))
		sys.exit(1 if bad else 0)
	PYEOF
}

check_watch() {
	L h1 ping -q -c 40 -i 0.05 10.4.2.2 >/dev/null &
	local out
	out=$(L leaf1 xfabctl -j watch counters --interval 1 --count 1)
	wait
	echo "    $(echo "$out" | jq -c '[.[] | select(.port == "eth3") | .rx_pps]')"
	[ "$(echo "$out" | jq '[.[] | select(.port == "eth3") | .rx_pps][0]')" -ge 10 ]
}

check_switch_by_name() {
	# from the root namespace: the lab's pins, port names from the table
	"$ROOT/build/xfabctl" -s "$NAME/leaf1" -j show ports | jq -e '[.[].port] == ["eth1","eth2","eth3","eth4"]' >/dev/null
}

# From the root namespace: ports resolve from the switch's own port table
# and the run enters the switch's namespace, so the answer is the one given
# inside it; text output shows every stage.
check_trace_from_root() {
	local sport inside outside txt bad=0
	for sport in 7000 7001 7002 7003; do
		inside=$(L leaf1 xfabctl -j trace --in eth3 --src 10.1.1.2 --dst 10.4.2.2 --proto udp \
			--sport "$sport" --dport 9000) || return 1
		outside=$("$ROOT/build/xfabctl" -s "$NAME/leaf1" -j trace --in eth3 --src 10.1.1.2 \
			--dst 10.4.2.2 --proto udp --sport "$sport" --dport 9000) || return 1
		echo "    sport $sport: $(echo "$outside" | jq -c '{action, route, nexthop, egress}')"
		[ "$inside" == "$outside" ] || bad=1
		echo "$outside" | jq -e '.action == "forward" and .route == "10.4.2.0/24" and
			(.egress == "eth1" or .egress == "eth2")' >/dev/null || bad=1
	done
	txt=$("$ROOT/build/xfabctl" -s "$NAME/leaf1" trace --in eth3 --src 10.1.1.2 --dst 10.4.2.2) || return 1
	for stage in ingress parse route select queue rewrite verdict; do
		grep -q "^$stage " <<<"$txt" || { echo "    no $stage line"; bad=1; }
	done
	grep -Eq '^verdict   forward out of eth[12]$' <<<"$txt" || bad=1
	# hash --in from the root names the same member as inside
	[ "$(L leaf1 xfabctl -j hash --in eth3 --src 10.1.1.2 --dst 10.4.2.2 --sport 7000 --dport 9000 | jq -c '{nexthop, dev}')" == \
		"$("$ROOT/build/xfabctl" -s "$NAME/leaf1" -j hash --in eth3 --src 10.1.1.2 --dst 10.4.2.2 --sport 7000 --dport 9000 | jq -c '{nexthop, dev}')" ] || bad=1
	return $bad
}

check_trace_unknown() {
	local out rc bad=0
	out=$("$ROOT/build/xfabctl" -s "$NAME/leaf1" trace --in eth9 --src 10.1.1.2 --dst 10.4.2.2 2>&1)
	rc=$?
	echo "    rc $rc: $out"
	[ "$rc" -ne 0 ] && grep -q 'eth9 is not a port of switch .*eth1, eth2, eth3, eth4' <<<"$out" || bad=1
	out=$("$ROOT/build/xfabctl" -s "$NAME/leaf1" hash --in eth9 --src 10.1.1.2 --dst 10.4.2.2 2>&1)
	rc=$?
	[ "$rc" -ne 0 ] && grep -q 'eth9 is not a port' <<<"$out" || bad=1
	out=$("$ROOT/build/xfabctl" -s "$NAME/leaf9" trace --in eth3 --src 10.1.1.2 --dst 10.4.2.2 2>&1)
	rc=$?
	echo "    rc $rc: $out"
	[ "$rc" -ne 0 ] && grep -q "no switch $NAME/leaf9" <<<"$out" || bad=1
	return $bad
}

check_trace_pcap() {
	L h1 timeout 10 tcpdump -i eth0 -c 1 -w "$tmp/one.pcap" 'icmp and dst host 10.4.2.2' \
		>"$tmp/tcpdump.out" 2>&1 &
	local i
	for i in $(seq 50); do # until it captures
		grep -q "listening on" "$tmp/tcpdump.out" && break
		sleep 0.1
	done
	L h1 ping -c 2 -i 0.2 10.4.2.2 >/dev/null
	wait
	local v
	v=$(L leaf1 xfabctl -j trace --in eth3 --pcap "$tmp/one.pcap")
	echo "    $(echo "$v" | jq -c '{src, dst, action, route, egress}')"
	[ "$(echo "$v" | jq -r .action)" == forward ] && [ "$(echo "$v" | jq -r .route)" == 10.4.2.0/24 ]
}

if ! timeout 120 "$ROOT/scripts/xfab-lab" up "$TOPO" --name "$NAME" >/dev/null; then
	not_ok "[debug] lab up"
else
	check "[debug] trace predicts the egress of real flows" check_trace_predicts
	check "[debug] 50 traces change no counter, flowlet or queue" check_trace_no_state
	check "[debug] metrics parse and agree with show counters" check_metrics
	check "[debug] PFC views: every port and priority, metrics agree, no storm" check_pfc_views
	check "[debug] watch shows live rates" check_watch
	check "[debug] xfabctl -s LAB/SWITCH from the root namespace" check_switch_by_name
	check "[debug] trace a frame from a pcap" check_trace_pcap
	check "[debug] trace and hash --in PORT from the root namespace" check_trace_from_root
	check "[debug] trace from the root: an unknown port or switch is refused" check_trace_unknown
fi
echo "netns debug: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
