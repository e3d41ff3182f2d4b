#!/bin/bash
# netns tests of xfabd's control socket (docs/CONTROL.md) in a clos-2x4 lab:
# a TE pin sent through xfabctl moves real packets and survives a reload,
# bad requests are refused with their field and change no map byte, te del
# restores the old path, clear counters zeroes `show counters`, the socket
# is 0600, a killed xfabd's stale socket is replaced on restart while a live
# one's is not taken, the running config exported (xfabctl config export)
# passes xfabd --check --format sonic and, reloaded in the file's place,
# changes no table, and nothing is left after the lab goes down.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
TOPO="$ROOT/testbeds/clos-2x4.json"
NAME="t$$"
NAME=${NAME:0:10}
PY=/usr/bin/python3
STATE=/run/xfab-lab/$NAME
PINS=/sys/fs/bpf/xfab/$NAME/leaf1
SOCK=/run/xfab/$NAME/leaf1.sock
L() { timeout 60 "$ROOT/scripts/xfab-lab" exec "$TOPO" --name "$NAME" "$@"; }
tmp=$(mktemp -d)
cleanup() {
	# a second xfabd this test started (the live-socket check) and its pins
	[ -f "$tmp/second.pid" ] && kill "$(cat "$tmp/second.pid")" 2>/dev/null
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "/sys/fs/bpf/$NAME" "$tmp"
}
trap cleanup EXIT INT TERM

agent_pid() { cat "$STATE/leaf1.pid"; }
tx() { L leaf1 xfabctl -j show counters | jq ".[] | select(.port == \"$1\") | .tx_packets"; }
te_steered() { L leaf1 xfabctl -j show lb | jq .te_steered; }
egress() { # the port trace names for a flow from h1 to h... on leaf4
	L leaf1 xfabctl -j trace --in eth3 --src 10.1.1.2 --dst 10.4.2.2 --proto udp \
		--sport "$1" --dport 9000 | jq -r .egress
}
send20() {
	L h1 $PY -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('10.1.1.2', $1))
for _ in range(20):
    s.sendto(b'x' * 100, ('10.4.2.2', 9000))"
}
# 20 packets of the flow leave by port $2 and none by the other uplink
leaves_by() {
	local sport=$1 want=$2 other e1 e2 d1 d2
	e1=$(tx eth1)
	e2=$(tx eth2)
	send20 "$sport"
	d1=$(($(tx eth1) - e1))
	d2=$(($(tx eth2) - e2))
	echo "    sport $sport: eth1 +$d1, eth2 +$d2 (want $want)"
	case $want in
	eth1) [ "$d1" -eq 20 ] && [ "$d2" -eq 0 ] ;;
	eth2) [ "$d2" -eq 20 ] && [ "$d1" -eq 0 ] ;;
	*) false ;;
	esac
}
# Every table xfabd writes for routes and TE, byte for byte.
maps() {
	local m
	for m in routes_v4 routes_v6 nexthops groups; do
		echo "== $m"
		bpftool -j map dump pinned "$PINS/$m"
	done
	L leaf1 xfabctl -j show te
}
reloads() { grep -c "reloaded:" "$STATE/leaf1.log"; }
hup() { # SIGHUP and wait for the reload to be logged
	local n
	n=$(reloads)
	kill -HUP "$(agent_pid)"
	for _ in $(seq 100); do
		[ "$(reloads)" -gt "$n" ] && return 0
		sleep 0.05
	done
	echo "    no reload logged"
	return 1
}

# A flow ECMP sends over eth2 (so a pin to spine1 must move it).
SPORT=
pick_flow() {
	local s
	for s in $(seq 7000 7063); do
		if [ "$(egress "$s")" == eth2 ]; then
			SPORT=$s
			return 0
		fi
	done
	return 1
}

check_socket_mode() {
	local mode
	mode=$(stat -c '%F %a %U' "$SOCK") || return 1
	echo "    $SOCK: $mode"
	[ "$mode" == "socket 600 root" ]
}

enable_te() { # the lab's config has no TE_PATH table: add an empty one
	jq '. + {"TE_PATH": {}}' "$STATE/leaf1.json" >"$tmp/leaf1.json" &&
		cp "$tmp/leaf1.json" "$STATE/leaf1.json" && hup
}

check_pin_moves_traffic() {
	local before after out
	leaves_by "$SPORT" eth2 || return 1
	before=$(te_steered)
	out=$(L leaf1 xfabctl te add --in eth3 --prefix 10.4.2.0/24 --via 10.254.1.0 2>&1) || {
		echo "    $out"
		return 1
	}
	[ "$(egress "$SPORT")" == eth1 ] || return 1
	leaves_by "$SPORT" eth1 || return 1
	after=$(te_steered)
	echo "    te_steered $before -> $after"
	[ $((after - before)) -ge 20 ]
}

check_pin_survives_hup() {
	hup || return 1
	grep -q "reloaded: .* 1 runtime TE pin" "$STATE/leaf1.log" || return 1
	L leaf1 xfabctl -j show te | jq -e 'map(select(.in == "eth3" and .prefix == "10.4.2.0/24")) | length == 1' >/dev/null &&
		leaves_by "$SPORT" eth1
}

# refused REQUEST-ARGS FIELD: xfabctl exits 1 naming FIELD
refused() {
	local field=$1 out rc
	shift
	out=$(L leaf1 xfabctl te "$@" 2>&1)
	rc=$?
	echo "    te $*: rc $rc: $out"
	[ "$rc" -eq 1 ] && grep -q "refused: $field: " <<<"$out"
}
# raw LINE FIELD: xfabd's answer to a raw request line refuses it by FIELD
raw() {
	local line=$1 field=$2 resp
	resp=$($PY - "$SOCK" "$line" <<-'PYEOF'
		import socket, sys
		s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
		s.settimeout(5)
		s.connect(sys.argv[1])
		s.sendall(sys.argv[2].encode() + b"\n")
		buf = b""
		try:
		    while not buf.endswith(b"\n"):
		        d = s.recv(65536)
		        if not d:
		            break
		        buf += d
		except ConnectionResetError:
		    pass
		print(buf.decode().strip())
	PYEOF
	)
	echo "    ${line:0:60}...: $resp"
	echo "$resp" | jq -e --arg f "$field" '.ok == false and (.field // "") == $f and (.error | length > 0)' >/dev/null
}

check_bad_requests() {
	local before after bad=0 long
	before=$(maps)
	grep -q '"key"' <<<"$before" || {
		echo "    the map dumps are empty"
		return 1
	}
	refused prefix add --in eth3 --prefix 10.4.2.0/33 --via 10.254.1.0 || bad=1
	refused prefix add --in eth3 --prefix 10.4.2.1/24 --via 10.254.1.0 || bad=1
	refused in add --in eth9 --prefix 10.4.2.0/24 --via 10.254.1.0 || bad=1
	refused via add --in eth3 --prefix 10.4.2.0/24 --via 10.9.9.9 || bad=1
	refused via add --in eth3 --prefix 10.4.2.0/24 --via 10.254.1.0,fd00::1 || bad=1
	refused prefix del --in eth3 --prefix 10.3.1.0/24 || bad=1
	raw '{"cmd":"te-add","in":"eth3","prefix":"10.4.2.0/24","via":"10.254.2.0","weight":"2"}' weight || bad=1
	raw '{"cmd":"te-add","in":"eth3","prefix":"10.4.2.0/24"}' via || bad=1
	raw '{"cmd":"reboot"}' cmd || bad=1
	long=$(printf '{"cmd":"te-add","in":"eth3","prefix":"10.4.2.0/24","via":"%05000d"}' 0)
	raw "$long" "" || bad=1
	after=$(maps)
	if [ "$before" != "$after" ]; then
		echo "    the maps changed:"
		diff <(echo "$before") <(echo "$after") | head -20
		bad=1
	fi
	# and the pin still steers
	leaves_by "$SPORT" eth1 || bad=1
	return $bad
}

# A client that connects and says nothing (or half a line) holds up neither
# xfabd's tables nor another client.
check_stuck_client() {
	rm -f "$tmp/stuck"
	$PY - "$SOCK" "$tmp/stuck" <<-'PYEOF' &
		import socket, sys, time
		socks = []
		for i in range(3):
		    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
		    s.connect(sys.argv[1])
		    s.sendall(b'{"cmd":"pi')
		    socks.append(s)
		open(sys.argv[2], "w").write("%d\n" % (time.time_ns() // 1000000))
		time.sleep(4.5)
	PYEOF
	local pid=$! t0 t1 ms i gone
	# the three are connected (xfabd's deadline closes them after 5 s)
	for i in $(seq 50); do
		[ -s "$tmp/stuck" ] && break
		sleep 0.1
	done
	[ -s "$tmp/stuck" ] || {
		wait $pid
		return 1
	}
	t0=$(date +%s%N)
	L leaf1 xfabctl clear watermark || {
		wait $pid
		return 1
	}
	t1=$(date +%s%N)
	wait $pid
	ms=$(((t1 - t0) / 1000000))
	# when they leave: 4.5 s after the moment they were all connected
	gone=$(($(cat "$tmp/stuck") + 4500))
	echo "    a request beside 3 stuck clients took $ms ms, answered $((gone - t1 / 1000000)) ms" \
		"before they left"
	# served while they were still there, not after they left (the bound is
	# their stay, not a guess at this box's speed)
	[ $((t1 / 1000000)) -lt "$gone" ]
}

check_te_del_restores() {
	L leaf1 xfabctl te del --in eth3 --prefix 10.4.2.0/24 || return 1
	L leaf1 xfabctl -j show te | jq -e 'length == 0' >/dev/null || return 1
	[ "$(egress "$SPORT")" == eth2 ] && leaves_by "$SPORT" eth2 || return 1
	# a second del is refused: nothing is pinned
	refused prefix del --in eth3 --prefix 10.4.2.0/24
}

check_clear_counters() {
	local before after
	before=$(L leaf1 xfabctl -j show counters)
	echo "    before: $(echo "$before" | jq -c '[.[] | [.port, .rx_packets, .tx_packets]]')"
	echo "$before" | jq -e '[.[].tx_packets] | add > 0' >/dev/null || return 1
	L leaf1 xfabctl clear counters || return 1
	after=$(L leaf1 xfabctl -j show counters)
	echo "    after:  $(echo "$after" | jq -c '[.[] | [.port, .rx_packets, .tx_packets]]')"
	# background ND/ARP to the switch may arrive meanwhile: it is rx and punt
	echo "$after" | jq -e 'all(.[]; .tx_packets == 0 and .tx_bytes == 0 and .drops == 0 and
		.rx_packets - .punts == 0)' >/dev/null
}

# The lab's own command line for leaf1's xfabd, in its namespace.
start_agent() {
	nsenter --net="/run/netns/$NAME-leaf1" setsid "$ROOT/build/xfabd" -c "$STATE/leaf1.json" \
		--pin-root "/sys/fs/bpf/xfab/$NAME" --pidfile "$STATE/leaf1.pid" \
		--metrics 127.0.0.1:9400 >>"$STATE/leaf1.log" 2>&1 </dev/null &
	for _ in $(seq 200); do
		[ "$(grep -c 'forwarding on' "$STATE/leaf1.log")" -ge "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

check_stale_socket_replaced() {
	local pid
	pid=$(agent_pid)
	kill -9 "$pid"
	while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
	[ -S "$SOCK" ] || {
		echo "    no socket left by the killed xfabd: nothing to test"
		return 1
	}
	local out
	out=$(L leaf1 xfabctl clear watermark 2>&1)
	echo "    while down: $out"
	grep -q "xfabd is not running .*$SOCK" <<<"$out" || return 1
	start_agent 2 || return 1
	grep -q "replacing $SOCK" "$STATE/leaf1.log" || return 1
	check_socket_mode || return 1
	L leaf1 xfabctl clear watermark
}

# Another xfabd whose pins land elsewhere but whose socket would be the same
# (pin root /sys/fs/bpf/NAME: /run/xfab/NAME/leaf1.sock) refuses to start.
check_live_socket_kept() {
	local rc out
	timeout 20 nsenter --net="/run/netns/$NAME-leaf1" "$ROOT/build/xfabd" -c "$STATE/leaf1.json" \
		--pin-root "/sys/fs/bpf/$NAME" --pidfile "$tmp/second.pid" >"$tmp/second.log" 2>&1
	rc=$?
	out=$(grep error "$tmp/second.log")
	echo "    second xfabd: rc $rc: $out"
	[ "$rc" -ne 0 ] && grep -q "another xfabd answers on $SOCK" <<<"$out" || return 1
	[ ! -e "/sys/fs/bpf/$NAME/leaf1" ] || {
		echo "    it left its pin directory"
		return 1
	}
	L leaf1 xfabctl clear watermark # the first one still answers
}

# config export (docs/SONIC.md, "Export and coverage"): the running config
# exported, checked by xfabd --format sonic and loaded in its place by a
# reload changes no byte of the compiled tables; an edited file is refused
# until it is reloaded; show config-coverage lists every table as used.
base_maps() {
	local m
	maps
	for m in settings ports dscp_to_tc queue_cfg copp_cfg neighbors; do
		echo "== $m"
		bpftool -j map dump pinned "$PINS/$m"
	done
}
check_config_export() {
	local before after out
	L leaf1 xfabctl config export -o "$tmp/export.json" || return 1
	nsenter --net="/run/netns/$NAME-leaf1" "$ROOT/build/xfabd" -c "$tmp/export.json" \
		--format sonic --check >/dev/null || return 1
	L leaf1 xfabctl -j show config-coverage |
		jq -e '.format == "xfab" and ([.tables[].status] | all(. == "used"))' >/dev/null ||
		return 1
	before=$(base_maps)
	cp "$tmp/export.json" "$STATE/leaf1.json" && hup || return 1
	after=$(base_maps)
	[ "$before" = "$after" ] || {
		echo "    the tables changed with the exported config"
		return 1
	}
	L leaf1 xfabctl config export | cmp -s - "$tmp/export.json" || return 1
	echo " " >>"$STATE/leaf1.json"
	out=$(L leaf1 xfabctl config export 2>&1) && return 1
	grep -q "changed since xfabd loaded it: reload first" <<<"$out" || return 1
	hup && L leaf1 xfabctl config export >/dev/null
}

check_down_removes() {
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	[ ! -e "$SOCK" ] && [ ! -e "/run/xfab/$NAME" ]
}

# Static routes: the control socket is the subject, and a BGP session that
# flaps on a loaded box (BFD 100 ms x 3) would move the ECMP flow it pins.
if ! timeout 120 "$ROOT/scripts/xfab-lab" up "$TOPO" --name "$NAME" --routing static >/dev/null; then
	not_ok "[control] lab up"
else
	check "[control] socket $SOCK is root's, mode 0600" check_socket_mode
	out=$(L leaf1 xfabctl te add --in eth3 --prefix 10.4.2.0/24 --via 10.254.1.0 2>&1)
	check "[control] te add is refused while the config has no TE_PATH" \
		grep -q "refused: cmd: TE is off" <<<"$out"
	if ! enable_te || ! pick_flow; then
		not_ok "[control] TE on by reload, and an ECMP flow over eth2"
	else
		check "[control] a TE pin through xfabctl moves real traffic to eth1" check_pin_moves_traffic
		check "[control] the pin survives kill -HUP" check_pin_survives_hup
		check "[control] bad requests are refused by field; no map byte changes" check_bad_requests
		check "[control] stuck clients hold up nobody" check_stuck_client
		check "[control] te del restores the ECMP path" check_te_del_restores
		check "[control] clear counters zeroes show counters" check_clear_counters
		check "[control] config export reloads with no change in the tables" check_config_export
	fi
	check "[control] a live xfabd's socket is not taken" check_live_socket_kept
	check "[control] a kill -9'd xfabd's stale socket is replaced on restart" check_stale_socket_replaced
	check "[control] lab down leaves no socket" check_down_removes
fi
echo "netns control: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
