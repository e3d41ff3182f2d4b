#!/bin/bash
# netns test of the PFC watchdog's actions (docs/PFC.md "The PFC watchdog")
# in the smallest lab that has a switch between two hosts: spine1, leaf1,
# h1 on leaf1 eth2, h2 on leaf1 eth3 (static routes, tc datapath: the
# gates are real queues). PFC on priority 3 on eth2 and eth3, shaped at
# 50 Mbit/s; XOFF far above what the test holds, so no pause is generated
# and only h2's storm pauses anything.
# For each action (drop from the config's PFC_WD, then forward and alert by
# `xfabctl pfcwd start`): h2 sends continuous XOFF for priority 3
# (xfab-pfcgen), which pauses leaf1's queue 3 to h2, and
#   b1  a batch h1 -> h2 on priority 3 sent once the gate is closed, before
#       the storm is declared: held in the gate;
#   b2  a batch h1 -> h2 sent once the storm is declared (into the stormed
#       queue), and rb a batch h2 -> h1 (from the stormed PG);
#   the storm ends (SIGTERM to pfcgen); once restored,
#   b3  a batch h1 -> h2: flows for every action.
# The oracle is what the hosts' kernels counted (UDP datagrams that reached
# h1's and h2's receivers), sampled at each step, and what the senders
# sent; judged against each action's meaning:
#   drop     nothing delivered during the storm (b1 flushed from the gate
#            but for the one frame a closed gate lets go, b2 and rb
#            discarded); the stats' TX DROP = b2 and RX DROP = rb exactly;
#   forward  the pause ignored: b1 released at detection, b2 and rb
#            delivered during the storm; TX OK = b2, RX OK = rb, no drop;
#   alert    nothing changes: the queue stays paused (b1, b2 held until the
#            storm's last pause runs out, then delivered), rb delivered;
#            storm counted and logged; TX OK = b2, RX OK = rb, no drop.
# Every action: one storm detected and restored, xfabd's log lines, b3 all
# delivered. Timing from xfabd's log stamps against the storm's first and
# last frame (pfcgen's wall clock): detected no sooner than the detection
# time D after the first frame and no later than D + 2 polls (the first
# poll after the gate closes charges nothing: one poll; timer lateness on
# a loaded box, accumulated over the D / poll polls: one more), restored
# no sooner than the restoration time R after the last frame and no later
# than R + 2 polls (the same two). xfabd is built first: a mutation of its
# source (tests/mutate) is what the lab runs. About 15 s.
# mutate: user/agent/pfc_wd.c; labs:
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
need_cmds jq nsenter
BUILD=${XFAB_BUILD:-$ROOT/build}
make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" "$BUILD/xfabd" "$BUILD/xfabctl" \
	"$BUILD/xfab-pfcgen" "$BUILD/xfab-roce" || exit 1
NAME="w$$"
NAME=${NAME:0:8}
PRIO=3 TOS=12 SPEED=50          # priority 3 is DSCP 3 (TOS 12); Mbit/s
# An XOFF of 65,535 quanta pauses for 65,535 x 512 bits at 50 Mbit/s:
# 671 ms. Longer than a step of the test (a poll or two), so a gate left
# closed shows; shorter than the restoration time R, so alert's held
# packets are out (the pause run out, 95 KB drained in 15 ms) once
# restored. Poll P, detection D, restoration R (ms; multiples of P, as
# the watchdog charges whole polls):
PAUSE_MS=$((65535 * 512 / SPEED / 1000))
# D leaves room for the b1 step (the gate seen closed, a 50-packet batch,
# one poll, a count: beside CI's hog that took over 300 ms, and forward's
# b1 was out before it was counted); its reading is stamped and judged
# before the detection's log line all the same
P=100 D=600
R=$(((PAUSE_MS + 2 * P + P - 1) / P * P))
BATCH=50 SIZE=900 RATE=5000     # packets per batch, payload bytes, packets/s
tmp=$(mktemp -d)
TOPO=$tmp/wd.json
STORM=                          # pfcgen's pid while a storm runs
RECV=()
cleanup() {
	local p
	for p in $STORM "${RECV[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
cat >"$TOPO" <<-'EOF'
	{"name": "wd", "routing": "static", "datapath": "tc", "spines": 1, "leaves": 1,
	 "hosts_per_leaf": 2}
EOF
H1=10.1.1.2 H2=10.1.2.2 # host k of leaf 1: 10.1.k.2 (xfab-lab's address plan)

in_ns() { nsenter --net="/run/netns/$NAME-$1" "${@:2}"; }
SW() { XFAB_PIN_DIR="/sys/fs/bpf/xfab/$NAME/leaf1" in_ns leaf1 "$BUILD/xfabctl" "$@"; }
# UDP datagrams that reached a host's sockets (the kernel's own count;
# a full socket buffer counts too: the datagram did arrive)
udp_in() {
	in_ns "$1" awk '/^Udp:/ && !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
		/^Udp:/ { print $c["InDatagrams"] + $c["RcvbufErrors"] }' /proc/net/snmp
}
sleep_ms() { sleep "$(awk -v ms="$1" 'BEGIN { printf "%.3f", ms / 1000 }')"; }
# the watched queue's `show pfcwd stats` row, FIELD
wd_stat() { SW -j show pfcwd stats --empty | jq -r ".[] | select(.queue == \"eth3:$PRIO\") | .$1"; }
gated() { SW -j show pfc status | jq -e ".[] | select(.port == \"eth3\") | .priorities[] |
	select(.priority == $PRIO) | .gated" >/dev/null; }
# send SRC DST QP_BASE: one batch, its JSON in $tmp/SRC-QP.json
send() {
	in_ns "$1" "$BUILD/xfab-roce" send --dst "$2" --qps 1 --qp-base "$3" --count "$BATCH" \
		--rate "$RATE" --size "$SIZE" --tos "$TOS" --speed "$SPEED" --duration 5 -j \
		>"$tmp/$1-$3.json"
}
sent() { jq .sent "$tmp/$1-$2.json"; }
# the wall-clock stamp of xfabd's first log line holding TEXT after line N
log_at() { tail -n +"$2" "/run/xfab-lab/$NAME/leaf1.log" | grep -F -m1 "$1" | cut -d' ' -f1; }

# ---- the lab, PFC on leaf1 (a reload), receivers on both hosts
if ! timeout 120 "$ROOT/scripts/xfab-lab" up "$TOPO" --name "$NAME" >"$tmp/up.log" 2>&1; then
	cat "$tmp/up.log"
	not_ok "the lab comes up"
	exit 1
fi
/usr/bin/python3 - "$ROOT" "$NAME" "$TOPO" "$PRIO" "$SPEED" "$D" "$R" "$P" <<-'EOF' || exit 1
	import json, sys
	root, name, topo, prio, speed, det, rest, poll = sys.argv[1:]
	sys.path.insert(0, root + "/scripts")
	from lab_common import Lab
	lab, ports = Lab(name, "tc", topo=topo), ["eth2", "eth3"]
	with open(lab.state + "/leaf1.json") as f:
	    port = json.load(f)["PORT"]
	for p in port.values():  # shaped: the queues and their gates
	    p.update(rate=speed, speed=speed)
	lab.reconfigure("leaf1", {
	    "PORT": port,
	    "PORT_QOS_MAP": {p: {"pfc_enable": prio} for p in ports},
	    "BUFFER_PROFILE": {"LOSSLESS": {"xoff": "1000000", "xon": "500000",
	                                    "headroom": "250000"}},
	    "BUFFER_PG": {"%s|%s" % (p, prio): {"profile": "LOSSLESS"} for p in ports},
	    "PFC_WD": {"eth3": {"action": "drop", "detection_time": det, "restoration_time": rest},
	               "GLOBAL": {"POLL_INTERVAL": poll}}})
EOF
for h in h1 h2; do
	nsenter --net="/run/netns/$NAME-$h" "$BUILD/xfab-roce" recv --duration 60 \
		--idle-ms 60000 -j >"$tmp/recv-$h.json" 2>"$tmp/recv-$h.err" &
	RECV+=($!)
done
receivers_ready "$tmp/recv-h1.err" "$tmp/recv-h2.err"
# leaf1 learns both hosts' addresses first: a packet to an unresolved
# neighbour waits in the kernel's ARP queue, outside the gates
check "h1 and h2 reach each other (ping)" eval \
	'in_ns h1 ping -q -c 1 -W 2 $H2 >/dev/null && in_ns h2 ping -q -c 1 -W 2 $H1 >/dev/null'
check "the watchdog runs on eth3 from the config: drop, $D ms, $R ms, poll $P ms" eventually 5 eval \
	'SW -j show pfcwd config | jq -e ".poll_interval_ms == $P and ([.ports[] | select(.port == \"eth3\") |
	 .action == \"drop\" and .detection_time_ms == $D and .restoration_time_ms == $R] == [true])" >/dev/null'

# ---- one action: the storm, the batches, the counts at each step
# storm_run ACTION: leaves what the hosts counted in $tmp/ACTION.*
storm_run() {
	local a=$1 line c0 r0 s0
	line=$(($(wc -l <"/run/xfab-lab/$NAME/leaf1.log") + 1))
	echo "$line" >"$tmp/$a.line"
	s0=$(SW -j show pfcwd stats --empty | jq -c ".[] | select(.queue == \"eth3:$PRIO\")")
	echo "$s0" >"$tmp/$a.stats0"
	c0=$(udp_in h2) r0=$(udp_in h1)
	# nsenter, not in_ns: $! is then pfcgen itself (nsenter execs it)
	nsenter --net="/run/netns/$NAME-h2" "$BUILD/xfab-pfcgen" --dev eth0 --prio "$PRIO" \
		--rate 1000 --duration 30 --speed "$SPEED" -j >"$tmp/$a.storm" &
	STORM=$!
	check "$a: the storm closes the gate (leaf1's own view: the sequence needs it)" eventually 5 gated
	send h1 "$H2" 256 # b1: into the closed gate
	sleep_ms "$P"
	echo $(($(udp_in h2) - c0)) >"$tmp/$a.b1"
	date +%s.%N >"$tmp/$a.b1_at"
	check "$a: the storm is declared (show pfcwd stats: stormed)" \
		eventually 5 eval '[ "$(wd_stat status)" == stormed ]'
	# the poll that marks the queue stormed writes the data plane's bits
	# too: one poll later they are in place
	sleep_ms "$P"
	send h1 "$H2" 512 # b2: into the stormed queue
	send h2 "$H1" 768 # rb: from the stormed PG
	sleep_ms "$P"
	echo $(($(udp_in h2) - c0)) >"$tmp/$a.b2"
	echo $(($(udp_in h1) - r0)) >"$tmp/$a.rb"
	kill -TERM "$STORM"
	wait "$STORM"
	STORM=
	check "$a: the storm is over (show pfcwd stats: operational)" \
		eventually 10 eval '[ "$(wd_stat status)" == operational ]'
	echo $(($(udp_in h2) - c0)) >"$tmp/$a.after"
	send h1 "$H2" 1024 # b3: after the storm
	eventually 2 eval '[ $(($(udp_in h2) - c0)) -ge $(($(cat "$tmp/$a.after") + BATCH)) ]'
	sleep_ms "$P"
	echo $(($(udp_in h2) - c0)) >"$tmp/$a.b3"
	SW -j show pfcwd stats --empty | jq -c ".[] | select(.queue == \"eth3:$PRIO\")" >"$tmp/$a.stats1"
	for f in storm b1 b2 rb after b3 stats1; do echo "# $a $f: $(cat "$tmp/$a.$f")"; done
	for f in h1-256 h1-512 h2-768 h1-1024; do echo "# $a sent $f: $(jq -c '{sent,pauses}' "$tmp/$f.json")"; done
	echo "# log detect $(log_at "detected PFC storm on port eth3, priority $PRIO" "$line") restore $(log_at "storm restored on port eth3, priority $PRIO" "$line")"
}
# ---- the judgement of one action against its meaning
# stat0/stat1 FIELD: the queue's stats row before / after the storm
stat0() { jq ".$1 // 0" "$tmp/$a.stats0"; }
stat1() { jq ".$1" "$tmp/$a.stats1"; }
# wall-clock ms between a pfcgen stamp (s) and a log stamp (s, ms)
ms_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", (b - a) * 1000 }'; }
# judge_stats ACTION B2 RB: `show pfcwd stats` against what the hosts sent
# into the stormed queue (b2, all of it after the storm was declared) and
# from the stormed PG (rb); the last storm's columns, and the totals grew
# by as much
judge_stats() {
	local a=$1 s2=$2 sr=$3 ok=$2 drop=0 rok=$3 rdrop=0 k d
	[ "$a" == drop ] && ok=0 drop=$s2 rok=0 rdrop=$sr
	echo "# $a: stats before $(cat "$tmp/$a.stats0"), after $(cat "$tmp/$a.stats1")"
	check "$a: stats: one storm detected and restored" eval \
		'[ $(($(stat1 storm_detected) - $(stat0 storm_detected))) -eq 1 ] &&
		 [ $(($(stat1 storm_restored) - $(stat0 storm_restored))) -eq 1 ]'
	check "$a: stats: last storm TX OK/DROP $ok/$drop, RX OK/DROP $rok/$rdrop (the hosts' counts)" \
		eval '[ "$(jq -r "[.tx_last_ok, .tx_last_drop, .rx_last_ok, .rx_last_drop] | join(\"/\")" \
			"$tmp/$a.stats1")" == "$ok/$drop/$rok/$rdrop" ]'
	d=0
	for k in tx_ok tx_drop rx_ok rx_drop; do
		[ $(($(stat1 "$k") - $(stat0 "$k"))) -eq "$(stat1 "${k/_/_last_}")" ] || d=1
	done
	check "$a: stats: the totals grew by the last storm's counts" test "$d" -eq 0
}
# judge_times ACTION: xfabd's log lines, and their stamps against the
# storm's first and last frame (bounds in the header)
judge_times() {
	local a=$1 line first last first_min last_max det rest
	line=$(cat "$tmp/$a.line")
	det=$(log_at "detected PFC storm on port eth3, priority $PRIO, action $a" "$line")
	rest=$(log_at "storm restored on port eth3, priority $PRIO" "$line")
	check "$a: xfabd logged the storm (action $a) and its restoration" \
		test -n "$det" -a -n "$rest"
	[ -n "$det" ] && [ -n "$rest" ] || return
	# each frame left between pfcgen's stamps around its send(): a lower
	# bound is judged from the earlier stamp, an upper one from the later
	first=$(ms_between "$(jq .first_at "$tmp/$a.storm")" "$det")
	first_min=$(ms_between "$(jq .first_sent_at "$tmp/$a.storm")" "$det")
	last=$(ms_between "$(jq .last_start_at "$tmp/$a.storm")" "$rest")
	last_max=$(ms_between "$(jq .last_at "$tmp/$a.storm")" "$rest")
	# the log's stamps are whole ms (truncated): 1 ms earlier at most
	check "$a: detected $first_min..$first ms after the storm's first frame: $((D - 1))..$((D + 2 * P))" \
		test "$first" -ge $((D - 1)) -a "$first_min" -le $((D + 2 * P))
	check "$a: restored $last_max..$last ms after its last frame: $((R - 1))..$((R + 2 * P))" \
		test "$last" -ge $((R - 1)) -a "$last_max" -le $((R + 2 * P))
}
judge() {
	local a=$1 s1 s2 sr s3 b1 b2 rb after b3 first last det rest held during
	s1=$(sent h1 256) s2=$(sent h1 512) sr=$(sent h2 768) s3=$(sent h1 1024)
	b1=$(cat "$tmp/$a.b1") b2=$(cat "$tmp/$a.b2") rb=$(cat "$tmp/$a.rb")
	after=$(cat "$tmp/$a.after") b3=$(cat "$tmp/$a.b3")
	echo "# $a: sent b1 $s1, b2 $s2, rb $sr, b3 $s3; h2 counted $b1 after b1, $b2 after b2," \
		"$after after the storm, $b3 after b3; h1 counted $rb of rb"
	check "$a: every batch sent whole ($BATCH packets each), none paused at its host" eval \
		'[ "$s1$s2$sr$s3" == "$BATCH$BATCH$BATCH$BATCH" ] &&
		 jq -se "all(.pauses == 0)" "$tmp"/h1-{256,512,1024}.json "$tmp/h2-768.json" >/dev/null'
	# a gate that closes lets one burst go (1,518 bytes: one of these
	# frames), as a frame already on the wire would (docs/PFC.md)
	check "$a: b1 held by the closed gate before the storm is declared ($b1 <= 1 delivered)" \
		test "$b1" -le 1
	# that count must come before the detection (else forward's b1 is out)
	local det_at
	det_at=$(log_at "detected PFC storm on port eth3, priority $PRIO, action $a" "$(cat "$tmp/$a.line")")
	check "$a: b1 counted before xfabd declared the storm ($(ms_between "$(cat "$tmp/$a.b1_at")" "${det_at:-0}") ms before)" \
		test -n "$det_at" -a "$(ms_between "$(cat "$tmp/$a.b1_at")" "${det_at:-0}")" -gt 0
	# h2's counts are since before b1: what it may have got by the end of
	# the storm (during) and once the storm is over (held)
	case $a in
	drop) during=$b1 held=$b1 ;;                     # b1 flushed, b2 and rb discarded
	forward) during=$((s1 + s2)) held=$((s1 + s2)) ;; # b1 released, b2 passed
	alert) during=$b1 held=$((s1 + s2)) ;;           # held until the pause runs out
	esac
	check "$a: by the storm's end h2 had $during (it had $b2)" test "$b2" -eq "$during"
	if [ "$a" == drop ]; then
		check "drop: rb from the stormed PG discarded (h1 got $rb of $sr)" test "$rb" -eq 0
	else
		check "$a: rb from the stormed PG delivered (h1 got $rb of $sr)" test "$rb" -eq "$sr"
	fi
	check "$a: once restored h2 had $held of b1 and b2 (it had $after)" \
		test "$after" -eq "$held"
	check "$a: restored, b3 flows: all $s3 delivered (got $((b3 - after)))" \
		test $((b3 - after)) -eq "$s3"
	judge_stats "$a" "$s2" "$sr"
	judge_times "$a"
}

storm_run drop
judge drop
for a in forward alert; do
	check "$a: xfabctl pfcwd start --action $a" \
		SW pfcwd start --ports eth3 --action "$a" --detection-time "$D" --restoration-time "$R"
	check "$a: show pfcwd config says so" eventually 2 eval \
		'SW -j show pfcwd config | jq -e "[.ports[] | select(.port == \"eth3\") | .action] == [\"$a\"]" >/dev/null'
	storm_run "$a"
	judge "$a"
done
kill "${RECV[@]}" 2>/dev/null
wait "${RECV[@]}" 2>/dev/null
RECV=()
"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
check "nothing left: the lab's namespaces" eval '! ip netns list | grep -q "^$NAME-"'
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
