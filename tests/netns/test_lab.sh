#!/bin/bash
# netns tests: a whole clos-2x4 lab per datapath, as it ships (BGP routing:
# FRR on every switch, xfabd mirroring the kernel's FIB). Reachability,
# traceroute, ECMP routes, TCP, counters against the traffic sent, config
# reload (bad and good), single instance, link failure and BGP's return, two
# labs side by side, and nothing left behind after `down`. Prints "ok"/"not
# ok" per check and a closing "N passed, M failed" line.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
LAB_TOOL="$ROOT/scripts/xfab-lab"
TOPO="$ROOT/testbeds/clos-2x4.json"
NAME="t$$"
NAME=${NAME:0:8}
NAME2="${NAME}b"
PY=/usr/bin/python3

lab() { timeout 120 "$LAB_TOOL" "$@"; }
# Events (a reload, a link change, a server starting) take a while on a
# loaded box: `eventually 5 CMD` waits for them.
listening() { # listening NODE PORT: a TCP server listens on PORT in NODE
	L "$1" ss -Hltn "sport = :$2" | grep -q LISTEN
}
L() { timeout 60 "$LAB_TOOL" exec "$TOPO" --name "$NAME" "$@"; }

cleanup() {
	"$LAB_TOOL" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	"$LAB_TOOL" down "$TOPO" --name "$NAME2" >/dev/null 2>&1
}
trap cleanup EXIT INT TERM

jq_count() { jq "$@" 2>/dev/null; }
lab_status() { lab status "$TOPO" --name "$NAME" >/dev/null; }

# Sum of a per-port counter over the given ports of a switch. FIELD may be
# an expression: rx_packets - punts is what a port received and forwarded
# (BFD and BGP packets, ND and the like are punted to the kernel).
counter() { # counter SWITCH FIELD PORT...
	local sw=$1 field=$2
	shift 2
	local ports
	ports=$(printf '"%s",' "$@")
	L "$sw" xfabctl -j show counters |
		jq "[.[] | select(.port as \$p | [${ports%,}] | index(\$p)) | .$field] | add"
}

traceroute_path() { # traceroute_path FAMILY_FLAG DEST -> hop addresses, one per line
	L h1 traceroute "$1" -n -q1 -w2 -m 6 "$2" 2>/dev/null | awk 'NR>1 {print $2}'
}

check_traceroute_v4() {
	local hops
	hops=$(traceroute_path -4 10.4.2.2 | tr '\n' ' ')
	echo "    path: $hops"
	[[ $hops =~ ^10\.1\.1\.1\ 10\.254\.[12]\.(0|2|4|6)\ 10\.254\.[12]\.7\ 10\.4\.2\.2\ $ ]]
}

check_traceroute_v6() {
	local hops
	hops=$(traceroute_path -6 fd00:4:2::2 | tr '\n' ' ')
	echo "    path: $hops"
	[[ $hops =~ ^fd00:1:1::1\ fd00:fe:[12]:1::2\ fd00:fe:[12]:4::3\ fd00:4:2::2\ $ ]]
}

# Every remote host prefix on leaf1, each with both spines as members (over
# IPv6, BGP's routes go via the spines' link-local addresses).
check_routes_json() {
	L leaf1 xfabctl -j show routes | jq -e '
	  [ .[] | select(.type == "group") ] as $g
	  | ($g | length) == 12
	  and ([ $g[] | select(.family == "ipv4") | .members | map(.via) | sort ]
	       | all(. == ["10.254.1.0", "10.254.2.0"]))
	  and ([ $g[] | .members | map(.dev) | sort ] | all(. == ["eth1", "eth2"]))
	  and ([ $g[] | .members[] | .resolved ] | all)
	  and ([ $g[] | .prefix ] | sort) == ([
	       "10.2.1.0/24","10.2.2.0/24","10.3.1.0/24","10.3.2.0/24","10.4.1.0/24","10.4.2.0/24",
	       "fd00:2:1::/64","fd00:2:2::/64","fd00:3:1::/64","fd00:3:2::/64","fd00:4:1::/64",
	       "fd00:4:2::/64"] | sort)' >/dev/null
}

check_iperf() {
	L h8 iperf3 -s -1 -D -p 5201 || return 1
	eventually 5 listening h8 5201 || return 1
	local bytes
	bytes=$(L h1 timeout 20 iperf3 -c 10.4.2.2 -p 5201 -t 2 -P 2 -J | jq '.end.sum_received.bytes')
	echo "    received $bytes bytes in 2 s"
	[ -n "$bytes" ] && [ "$bytes" -gt 10000000 ]
}

in_range() { # in_range VALUE LO HI NAME
	echo "    $4: $1 (expected $2..$3)"
	[ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}

# N pings h1 -> h8: leaf1 sees N requests in on eth3 and N out over its
# uplinks, leaf4 sends N to h8, and the spines carry N each way.
check_counters() {
	local n=300 r0 r1 u0 u1 h0 h1 s0 s1 ok=0
	r0=$(counter leaf1 rx_packets eth3)
	u0=$(counter leaf1 tx_packets eth1 eth2)
	h0=$(counter leaf4 tx_packets eth4)
	s0=$(($(counter spine1 "rx_packets - .punts" eth1 eth4) +
		$(counter spine2 "rx_packets - .punts" eth1 eth4)))
	L h1 ping -q -c $n -i 0.002 10.4.2.2 >/dev/null || return 1
	r1=$(counter leaf1 rx_packets eth3)
	u1=$(counter leaf1 tx_packets eth1 eth2)
	h1=$(counter leaf4 tx_packets eth4)
	s1=$(($(counter spine1 "rx_packets - .punts" eth1 eth4) +
		$(counter spine2 "rx_packets - .punts" eth1 eth4)))
	in_range $((r1 - r0)) $n $((n + 8)) "leaf1 eth3 rx" || ok=1
	in_range $((u1 - u0)) $n $((n + 8)) "leaf1 uplinks tx" || ok=1
	in_range $((h1 - h0)) $n $((n + 8)) "leaf4 eth4 tx" || ok=1
	in_range $((s1 - s0)) $((2 * n)) $((2 * n + 16)) "spines forwarded from leaf1+leaf4" || ok=1
	return $ok
}

# Several flows between two leaves use both spines.
check_both_spines() {
	local a0 b0 a1 b1
	a0=$(counter spine1 rx_packets eth1)
	b0=$(counter spine2 rx_packets eth1)
	L h7 iperf3 -s -1 -D -p 5202 || return 1
	eventually 5 listening h7 5202 || return 1
	L h1 timeout 20 iperf3 -c 10.4.1.2 -p 5202 -t 1 -P 16 >/dev/null || return 1
	a1=$(counter spine1 rx_packets eth1)
	b1=$(counter spine2 rx_packets eth1)
	echo "    from leaf1: spine1 +$((a1 - a0)) packets, spine2 +$((b1 - b0)) packets"
	[ $((a1 - a0)) -gt 500 ] && [ $((b1 - b0)) -gt 500 ]
}

STATE=/run/xfab-lab/$NAME

check_bad_reload() {
	local cfg=$STATE/leaf1.json pid before after
	pid=$(cat "$STATE/leaf1.pid")
	before=$(L leaf1 xfabctl -j show routes)
	cp "$cfg" "$cfg.good"
	# an error on a known line: a port with an MTU out of range
	$PY - "$cfg" <<-'EOF'
		import json, sys
		p = sys.argv[1]
		cfg = json.load(open(p))
		cfg["PORT"]["eth1"]["mtu"] = "99999"
		json.dump(cfg, open(p, "w"), indent=2)
	EOF
	local line
	line=$(grep -n '"99999"' "$cfg" | cut -d: -f1)
	# --check reports it with file:line:col and changes nothing
	local out
	out=$(L leaf1 xfabd --check -c "$cfg" 2>&1)
	echo "    xfabd --check: $(echo "$out" | head -1)"
	[[ $out == *"$cfg:$line:"*"PORT|eth1.mtu"* ]] || return 1
	kill -HUP "$pid"
	eventually 5 grep -q "reload rejected" "$STATE/leaf1.log" || return 1
	grep -q "$cfg:$line:.*PORT|eth1.mtu" "$STATE/leaf1.log" || return 1
	after=$(L leaf1 xfabctl -j show routes)
	cp "$cfg.good" "$cfg"
	[ "$before" == "$after" ] || return 1
	kill -0 "$pid" && L h1 ping -q -c 3 -i 0.1 -W 2 10.4.2.2 >/dev/null
}

check_good_reload() {
	local cfg=$STATE/leaf1.json pid
	pid=$(cat "$STATE/leaf1.pid")
	$PY - "$cfg" <<-'EOF'
		import json, sys
		p = sys.argv[1]
		cfg = json.load(open(p))
		cfg.setdefault("ROUTE", {})["10.99.0.0/16"] = {"blackhole": "true"}
		json.dump(cfg, open(p, "w"), indent=2)
	EOF
	kill -HUP "$pid"
	eventually 5 has_blackhole || return 1
	# same process, still forwarding
	[ "$(cat "$STATE/leaf1.pid")" == "$pid" ] && L h1 ping -q -c 3 -i 0.1 -W 2 10.4.2.2 >/dev/null
}

has_blackhole() {
	L leaf1 xfabctl -j show routes |
		jq -e 'any(.[]; .prefix == "10.99.0.0/16" and .type == "blackhole")' >/dev/null
}

check_fib() {
	# every switch: the data plane's FIBs agree with its route list; on
	# leaf1 the /16 blackhole added by the reload covers 65,536 addresses
	local sw
	for sw in leaf1 leaf2 leaf3 leaf4 spine1 spine2; do
		L "$sw" xfabctl -j show fib | jq -e '.v4_disagree == 0 and .v6_disagree == 0 and
			.v4_probes > 10 and .v6_probes > 10' >/dev/null || return 1
	done
	L leaf1 xfabctl -j show fib | jq -e '.addresses.blackhole == 65536' >/dev/null
}

check_single_instance() {
	local out rc
	out=$(L leaf1 timeout 5 xfabd -c "$STATE/leaf1.json" --pin-root /sys/fs/bpf/xfab/$NAME 2>&1)
	rc=$?
	echo "    second xfabd: rc=$rc: $(echo "$out" | grep -m1 already)"
	[ $rc -ne 0 ] && [[ $out == *"already runs switch leaf1"* ]]
}

# How many live paths each of leaf1's 12 remote host prefixes has, as
# "COUNT:[distinct numbers]", once it is $1 (or after $2 s, default 5: xfabd
# follows the link event, later on a loaded machine; a path comes back only
# once BGP has brought its session up). A group counts its live members; a
# route BGP left with one path is a plain nexthop (one).
live_paths() {
	local live i
	for i in $(seq $((${2:-5} * 10))); do
		live=$(L leaf1 xfabctl -j show routes | jq -r '[.[] | select(.type == "group" or
			.type == "nexthop") | if .type == "group" then .live_members else 1 end] |
			"\(length):\(unique | tojson)"')
		[ "$live" == "$1" ] && break
		sleep 0.1
	done
	echo "$live"
}

check_link_down() {
	L leaf1 ip link set eth1 down || return 1
	local live
	live=$(live_paths "12:[1]")
	echo "    live paths of the remote prefixes with eth1 down: $live"
	[ "$live" == "12:[1]" ] || { L leaf1 ip link set eth1 up; return 1; }
	# Every flow leaving leaf1 now takes eth2 (the data plane dropped eth1's
	# members at the carrier loss; BGP's withdrawal follows).
	local e1 e2 n=50
	e1=$(counter leaf1 tx_packets eth1)
	e2=$(counter leaf1 tx_packets eth2)
	for port in $(seq 7000 7049); do
		L h1 $PY -c "import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('', $port)); s.sendto(b'x'*64, ('10.4.2.2', 9))"
	done
	e1=$(($(counter leaf1 tx_packets eth1) - e1))
	e2=$(($(counter leaf1 tx_packets eth2) - e2))
	echo "    50 flows with eth1 down: eth1 +$e1, eth2 +$e2"
	L leaf1 ip link set eth1 up || return 1
	[ "$e1" -eq 0 ] && [ "$e2" -ge "$n" ] && [ "$e2" -le $((n + 8)) ] || return 1
	# BGP brings the session over eth1 back (BFD, then a reconnect: its
	# connect timer is 5 s), and with it the paths
	live=$(live_paths "12:[2]" 30)
	echo "    live paths with eth1 up again: $live"
	[ "$live" == "12:[2]" ]
}

# The agent is not in the forwarding or observation path: frozen, the
# switch forwards and xfabctl reads its pinned maps; killed, the pins stay
# readable, and a new xfabd adopts them (the links, counters) and takes over.
check_agent_stopped() {
	local pid c0 c1
	pid=$(cat "$STATE/leaf1.pid")
	kill -STOP "$pid"
	c0=$(counter leaf1 rx_packets eth3)
	L h1 ping -q -c 20 -i 0.01 -W 2 10.4.2.2 >/dev/null || { kill -CONT "$pid"; return 1; }
	c1=$(counter leaf1 rx_packets eth3)
	kill -CONT "$pid"
	echo "    xfabd stopped: leaf1 eth3 rx +$((c1 - c0)) while it slept"
	[ $((c1 - c0)) -ge 20 ] || return 1
	kill -KILL "$pid"
	sleep 0.3
	L leaf1 xfabctl -j show routes | jq -e 'length > 20' >/dev/null || return 1
	echo "    xfabd killed: pins still readable ($(L leaf1 xfabctl -j show routes | jq length) routes)"
	nsenter --net=/run/netns/$NAME-leaf1 "$ROOT/build/xfabd" -c "$STATE/leaf1.json" \
		--pin-root /sys/fs/bpf/xfab/$NAME --pidfile "$STATE/leaf1.pid" >>"$STATE/leaf1.log" 2>&1 &
	for _ in $(seq 50); do
		[ -s "$STATE/leaf1.pid" ] && [ "$(cat "$STATE/leaf1.pid")" != "$pid" ] && break
		sleep 0.1
	done
	sleep 0.3
	c0=$(counter leaf1 rx_packets eth3)
	L h1 ping -q -c 20 -i 0.01 -W 2 10.4.2.2 >/dev/null || return 1
	c1=$(counter leaf1 rx_packets eth3)
	echo "    new xfabd (pid $(cat "$STATE/leaf1.pid")): leaf1 eth3 rx +$((c1 - c0)) on fresh maps"
	[ $((c1 - c0)) -ge 20 ] && [ $((c1 - c0)) -le 30 ]
}

# A bring-up that fails part-way (every xfabd refuses to start) leaves nothing.
check_failed_up_cleans() {
	local fake name=${NAME}f rc
	fake=$(mktemp -d)
	printf '#!/bin/sh\necho "xfabd error: refusing for the test" >&2\nexit 1\n' >"$fake/xfabd"
	cp "$ROOT/build/xfabctl" "$fake/"
	chmod +x "$fake/xfabd"
	XFAB_BUILD=$fake timeout 60 "$LAB_TOOL" up "$TOPO" --name "$name" >/dev/null 2>&1
	rc=$?
	rm -rf "$fake"
	local ns
	ns=$(ip netns list | grep -c "^$name-")
	echo "    up rc=$rc; namespaces left: $ns; pins: $([ -d /sys/fs/bpf/xfab/$name ] && echo yes || echo no); state: $([ -d /run/xfab-lab/$name ] && echo yes || echo no)"
	[ $rc -ne 0 ] && [ "$ns" -eq 0 ] && [ ! -d /sys/fs/bpf/xfab/$name ] && [ ! -d /run/xfab-lab/$name ]
}

check_two_labs() {
	lab up "$TOPO" --name "$NAME2" >/dev/null || return 1
	timeout 60 "$LAB_TOOL" ping "$TOPO" --name "$NAME2" | head -1
	local rc=${PIPESTATUS[0]}
	lab down "$TOPO" --name "$NAME2" >/dev/null
	[ "$rc" -eq 0 ] && L h1 ping -q -c 2 -i 0.1 -W 2 10.4.2.2 >/dev/null
}

check_nothing_left() {
	local ns pins procs
	ns=$(ip netns list | grep -c "^$NAME-")
	pins=$(ls /sys/fs/bpf/xfab/$NAME 2>/dev/null | wc -l)
	[ -d /sys/fs/bpf/xfab/$NAME ] && pins=$((pins + 1))
	procs=$(pgrep -f "xfab/$NAME( |$)" | wc -l)
	echo "    namespaces: $ns, pins: $pins, xfabd processes: $procs, state dir: $([ -d "$STATE" ] && echo yes || echo no)"
	[ "$ns" -eq 0 ] && [ "$pins" -eq 0 ] && [ "$procs" -eq 0 ] && [ ! -d "$STATE" ]
}

for dp in xdp tc; do
	echo "# datapath $dp, lab $NAME"
	if ! lab up "$TOPO" --name "$NAME" --datapath "$dp"; then
		not_ok "[$dp] lab up"
		continue
	fi
	ok "[$dp] lab up"
	check "[$dp] idempotent up" lab up "$TOPO" --name "$NAME" --datapath "$dp"
	# every xfabd, FRR daemon and BGP session (polled: BFD at 100 ms may
	# take a young session down once on a busy machine)
	check "[$dp] status: every session Established" eventually 5 lab_status
	check "[$dp] all-pairs ping, IPv4 and IPv6" lab ping "$TOPO" --name "$NAME"
	check "[$dp] traceroute IPv4: leaf, spine, leaf, host" check_traceroute_v4
	check "[$dp] traceroute IPv6: leaf, spine, leaf, host" check_traceroute_v6
	check "[$dp] show routes -j: remote prefixes over both spines" check_routes_json
	check "[$dp] iperf3 TCP across the fabric" check_iperf
	check "[$dp] counters agree with pings sent" check_counters
	check "[$dp] several flows use both spines" check_both_spines
	check "[$dp] bad config: file:line:col, tables untouched, forwarding" check_bad_reload
	check "[$dp] good config: updated in place" check_good_reload
	check "[$dp] FIBs agree with the route lists, after the reload too" check_fib
	check "[$dp] second xfabd for a switch refused" check_single_instance
	check "[$dp] uplink down: its paths leave, traffic moves; BGP brings them back with the link" check_link_down
	check "[$dp] xfabctl without a running agent; agent restart" check_agent_stopped
	[ "$dp" == xdp ] && check "[$dp] two labs side by side" check_two_labs
	lab down "$TOPO" --name "$NAME" >/dev/null
	check "[$dp] after down: no namespace, pin or process" check_nothing_left
done

check "failed bring-up leaves nothing behind" check_failed_up_cleans

echo "netns: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
