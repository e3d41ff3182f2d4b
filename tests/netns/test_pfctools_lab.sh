#!/bin/bash
# netns tests of the host PFC tools, on two namespaces joined by one veth
# (no switch, no xfabd):
#   xfab-pfcgen  the frames it sends, captured on the far end, decode in
#                tshark as PFC (opcode 0x0101) with the vector and the times
#                asked, PAUSE (0x0001) with its time; short frames hold only
#                their first times (read from the bytes: tshark calls them
#                malformed, as it does any PFC frame without its 8 times);
#                a time asked in microseconds is the closed form's quanta
#                (512 bit times at the speed given), every frame goes to
#                01:80:c2:00:00:01 with EtherType 0x8808; a storm, counted
#                in the capture, is bounded by rate x duration; a frame leaves
#                at once past a shut qdisc full of data (PACKET_QDISC_BYPASS).
#   xfab-roce    send honours PFC on its sending port: a numbered stream at
#                2,000 packets/s stops while its priority is paused and
#                resumes by itself when the time runs out (about 300 ms),
#                at once on XON, not for another priority's pause; PAUSE
#                stops it too; a second XOFF extends the pause; --duration
#                still ends a paused sender; --no-pfc ignores pause. Asserted
#                from the receiver's count and longest silence (max_gap_ms)
#                and the sender's JSON (XOFF, XON, paused_ms).
# Captures run in tcpdump's immediate mode and end on their expected count
# (bounded by a timeout): libpcap's default TPACKET_V3 ring hands frames to
# tcpdump only when a block fills or its timeout (1 s) runs out, so a tcpdump
# killed half a second after the last frame loses what its open block holds.
# That lost the shut-qdisc frame on slower boxes while pb's RX counter showed
# it had arrived; the counter is now checked too.
# Margins hold on a loaded 2-core machine: a pause is asserted against what
# the sender measured from the frame's arrival (exact to the quantum) and
# against the receiver's silence with wide bounds.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
BUILD=${BUILD:-$ROOT/build}
GEN=$BUILD/xfab-pfcgen
ROCE=$BUILD/xfab-roce
for t in "$GEN" "$ROCE"; do
	if [ ! -x "$t" ]; then
		echo "not ok - $t is not built (make all)"
		exit 1
	fi
done
need_cmds tshark tcpdump jq
NSA="xfab-pfa$$" # the RoCE sender (its port: pa)
NSB="xfab-pfb$$" # the receiver, where pause frames come from (pb)
tmp=$(mktemp -d)
cleanup() {
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
A() { timeout 30 ip netns exec "$NSA" "$@"; }
B() { timeout 30 ip netns exec "$NSB" "$@"; }

ip netns add "$NSA" && ip netns add "$NSB" &&
	ip link add pa netns "$NSA" type veth peer name pb netns "$NSB" &&
	A ip addr add 10.99.0.1/24 dev pa && B ip addr add 10.99.0.2/24 dev pb &&
	A ip link set pa up && B ip link set pb up && A ip link set lo up && B ip link set lo up || {
	echo "not ok - cannot build the two namespaces"
	exit 1
}
# the neighbours known: no ARP in the way of the first packets
A ip neigh replace 10.99.0.2 lladdr "$(B cat /sys/class/net/pb/address)" dev pa

# ---- xfab-pfcgen: what is on the wire ----
# capture NAME COUNT: pb's PFC/PAUSE frames into $tmp/NAME.pcap until COUNT
# arrived (or 20 s), immediate mode; returns once tcpdump listens.
capture() {
	B timeout 20 tcpdump --immediate-mode -U -i pb -nn -c "$2" -w "$tmp/$1.pcap" \
		ether proto 0x8808 2>"$tmp/$1.err" &
	dump=$!
	for _ in $(seq 100); do
		grep -q "listening on" "$tmp/$1.err" && return
		sleep 0.1
	done
}
# rx_packets: pb's received frames (the kernel's count, whatever captures)
rx_packets() { B cat /sys/class/net/pb/statistics/rx_packets; }
capture gen 1000000 # stopped by kill once every frame is counted below
A "$GEN" --dev pa --prio 3,4 --count 2 -j >"$tmp/g1.json"             # 2 x XOFF 65535
A "$GEN" --dev pa --vector 0x85 --time 4660 >/dev/null                 # 0, 2, 7
A "$GEN" --dev pa --prio 3 --xon >/dev/null                            # XON
A "$GEN" --dev pa --pause --time 4660 -j >"$tmp/g4.json"               # PAUSE
A "$GEN" --dev pa --vector 0x85 --time 4660 --timers 3 >/dev/null      # short: 24 bytes
A "$GEN" --dev pa --prio 0-6 --time 513 --timers 7 >/dev/null          # SONiC's 7 times
A "$GEN" --dev pa --prio 5 --time 1 --src-mac 02:00:00:00:00:aa >/dev/null
A "$GEN" --dev pa --prio 3 --time-us 300000 --speed 100 >/dev/null     # 300 ms at 100 Mbit/s
A "$GEN" --dev pa --pause --time-us 300000 --speed 100 >/dev/null      # the same as PAUSE
STORM_RATE=1000 STORM_MS=500
A "$GEN" --dev pa --prio 3 --rate $STORM_RATE --duration 0.$STORM_MS -j >"$tmp/storm.json"
# immediate mode: each frame is in the file once tcpdump saw it; wait for
# them all (10 + the storm), then stop it
want=$((10 + $(jq .sent "$tmp/storm.json")))
for _ in $(seq 100); do
	[ "$(tcpdump -r "$tmp/gen.pcap" 2>/dev/null | wc -l)" -ge "$want" ] && break
	sleep 0.1
done
kill "$dump"
wait "$dump" 2>/dev/null
tshark -r "$tmp/gen.pcap" -T fields -E separator=' ' -e frame.len -e eth.src -e macc.opcode \
	-e macc.cbfc.enbv -e macc.cbfc.pause_time.c0 -e macc.cbfc.pause_time.c1 \
	-e macc.cbfc.pause_time.c2 -e macc.cbfc.pause_time.c3 -e macc.cbfc.pause_time.c4 \
	-e macc.cbfc.pause_time.c7 -e macc.pause_time 2>/dev/null >"$tmp/gen.txt"
# frame N of the capture (1-based), tshark's fields without the source MAC
row() { sed -n "${1}p" "$tmp/gen.txt" | cut -d' ' -f1,3-; }
# bytes FROM..TO (0-based) of frame N, in hex, from the pcap itself
bytes() {
	python3 - "$tmp/gen.pcap" "$@" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
n, lo, hi = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
off = 24
for i in range(n):
    incl = struct.unpack("<I", data[off + 8:off + 12])[0]
    frame = data[off + 16:off + 16 + incl]
    off += 16 + incl
print(frame[lo:hi + 1].hex())
EOF
}
check "pfcgen: XOFF for 3,4 decodes as PFC, vector 0x18, c3 = c4 = 65535, c0 = 0 (twice)" eval \
	'[ "$(row 1)" == "60 0x0101 0x0018 0 0 0 65535 65535 0 " ] && [ "$(row 2)" == "$(row 1)" ]'
mac=$(A cat /sys/class/net/pa/address)
check "pfcgen: its JSON says so (2 sent, 60 bytes, the port's own MAC $mac)" eval \
	'jq -e --arg mac "$mac" ".sent == 2 and .vector == 24 and .priorities == [3,4] and
	 .quanta == 65535 and .frame_bytes == 60 and .src_mac == \$mac" "$tmp/g1.json" >/dev/null'
check "pfcgen: --vector 0x85 --time 4660 names 0, 2, 7 with 4660 each, 1 and 3 zero" eval \
	'[ "$(row 3)" == "60 0x0101 0x0085 4660 0 4660 0 0 4660 " ]'
check "pfcgen: --xon is time 0 for priority 3" eval \
	'[ "$(row 4)" == "60 0x0101 0x0008 0 0 0 0 0 0 " ]'
check "pfcgen: --pause is 802.3x PAUSE (0x0001) with its time" eval \
	'[ "$(row 5)" == "60 0x0001        4660" ] && jq -e ".kind == \"pause\" and .sent == 1" "$tmp/g4.json" >/dev/null'
check "pfcgen: --timers 3 is a 24-byte PFC frame, vector 0x85, times 4660 0 4660 (bytes)" eval \
	'[ "$(row 6 | cut -d" " -f1-3)" == "24 0x0101 0x0085" ] &&
	 [ "$(bytes 6 12 23)" == "88080101008512340000""1234" ]'
check "pfcgen: --timers 7 is 32 bytes, 7 times of 513, nothing after" eval \
	'[ "$(row 7 | cut -d" " -f1-3)" == "32 0x0101 0x007f" ] &&
	 [ "$(bytes 7 18 31)" == "0201020102010201020102010201" ]'
check "pfcgen: --src-mac writes the source address" eval \
	'[ "$(sed -n 8p "$tmp/gen.txt" | cut -d" " -f2)" == "02:00:00:00:00:aa" ]'
# The closed form of a quantum (512 bit times): 300 ms at 100 Mbit/s is
# 30,000,000 bits, 58,593.75 quanta, asked as the 58,594 that last at least
# that long; written here, not by the code that converts (pfcframe.c).
q300=$(((300000 * 100 + 511) / 512))
check "pfcgen: --time-us 300000 --speed 100 asks $q300 quanta for priority 3 (512 bit times each)" eval \
	'[ "$(row 9)" == "60 0x0101 0x0008 0 0 0 $q300 0 0 " ]'
check "pfcgen: ... and as PAUSE, one time of $q300 quanta" eval '[ "$(row 10)" == "60 0x0001        $q300" ]'
# shellcheck disable=SC2034 # read by the check's eval string
MACC_EXPERT="macc.dst_address_invalid || macc.opcode.unknown || macc.cbfc.enbv.not_zero"
# every frame, as tshark reads its Ethernet header: the MAC Control
# multicast address and EtherType, and no dissector complaint about either
check "pfcgen: every frame goes to 01:80:c2:00:00:01 with EtherType 0x8808, none malformed there" eval \
	'[ "$(tshark -r "$tmp/gen.pcap" -T fields -e eth.dst -e eth.type 2>/dev/null | sort -u)" == \
	   "$(printf "01:80:c2:00:00:01\t0x8808")" ] &&
	 [ "$(tshark -r "$tmp/gen.pcap" -Y "$MACC_EXPERT" 2>/dev/null | wc -l)" -eq 0 ]'
# the storm counted on the wire, not from its sender: rate x duration at
# most (paced: frame n leaves at n / rate), and 4/5 of it at least
storm=$(($(wc -l <"$tmp/gen.txt") - 10))
storm_max=$((STORM_RATE * STORM_MS / 1000))
# shellcheck disable=SC2034 # read by the check's eval string
storm_rows=$(sed -n '11,$p' "$tmp/gen.txt" | cut -d' ' -f1,3- | sort | uniq -c | sed 's/^ *//')
check "pfcgen: a storm at $STORM_RATE/s for $STORM_MS ms: pb captured $storm frames, $((storm_max * 4 / 5))..$storm_max, each XOFF 65535 for 3, as it says it sent" eval \
	'[ "$storm" -ge $((storm_max * 4 / 5)) ] && [ "$storm" -le "$storm_max" ] &&
	 [ "$storm_rows" == "$storm 60 0x0101 0x0008 0 0 0 65535 0 0 " ] &&
	 jq -e --argjson n "$storm" ".sent == \$n and .seconds < $STORM_MS / 1000 + 0.1" "$tmp/storm.json" >/dev/null'
check "pfcgen: bad input refused (priority 8, --xon with --time, --pause with --prio)" eval \
	'! A "$GEN" --dev pa --prio 8 2>/dev/null && ! A "$GEN" --dev pa --prio 3 --xon --time 5 2>/dev/null &&
	 ! A "$GEN" --dev pa --pause --prio 3 2>/dev/null && ! A "$GEN" --dev nosuch --prio 3 2>/dev/null'

# Around the qdisc: with pa's queue shut (TBF at 8 bit/s) and data waiting
# in it, a PFC frame still leaves at once: pb counts exactly one more frame
# right after the send (the data stays in the qdisc), and the capture, which
# ends on its first frame, decodes it.
capture bypass 1
A tc qdisc add dev pa root handle 1: tbf rate 8bit burst 1600 limit 100000
A "$ROCE" send --dst 10.99.0.2 --qps 1 --count 20 --no-pfc >/dev/null
rx0=$(rx_packets)
A "$GEN" --dev pa --prio 6 --time 77 >/dev/null
rx1=$(rx_packets)
backlog=$(A tc -s qdisc show dev pa | sed -n 's/.*backlog [0-9]*b \([0-9]*\)p.*/\1/p' | head -1)
wait "$dump" 2>/dev/null
A tc qdisc del dev pa root
check "pfcgen: a frame leaves around a shut qdisc holding $backlog packets of data (pb counted $((rx1 - rx0)))" eval \
	'[ "${backlog:-0}" -ge 15 ] && [ $((rx1 - rx0)) -eq 1 ] &&
	 [ "$(tshark -r "$tmp/bypass.pcap" -T fields -e macc.cbfc.pause_time.c6 2>/dev/null)" == 77 ]'

# ---- xfab-roce: the sender honours pause ----
# run NAME SENDER_ARGS -- PAUSE_SCRIPT: a 2,000 packets/s stream from A to B
# for 1.5 s (3,000 packets) on DSCP 3 (priority 3 by SONiC's default map),
# the pause script run in B after 0.5 s; $tmp/NAME.send and .recv the JSON.
run() {
	local name=$1 s r
	shift
	local args=()
	while [ "$1" != "--" ]; do
		args+=("$1")
		shift
	done
	shift
	B "$ROCE" recv --duration 8 --idle-ms 1500 -j >"$tmp/$name.recv" 2>"$tmp/$name.rerr" &
	r=$!
	receivers_ready "$tmp/$name.rerr"
	A "$ROCE" send --dst 10.99.0.2 --qps 1 --rate 2000 --count 3000 --duration 6 --tos 12 \
		"${args[@]}" -j >"$tmp/$name.send" &
	s=$!
	sleep 0.5
	"$@"
	wait "$s"
	wait "$r"
}
gen() { B "$GEN" --dev pb "$@" >/dev/null; }
S() { jq -e "$2" "$tmp/$1.send" >/dev/null; }
R() { jq -e "$2" "$tmp/$1.recv" >/dev/null; }
say() { echo "# $1: sender $(cat "$tmp/$1.send")"; echo "# $1: receiver $(jq -c 'del(.flows)' "$tmp/$1.recv")"; }

# XOFF for ~300 ms at 100 Mbit/s (58,594 quanta of 5.12 us), no XON
run timed --speed 100 -- gen --prio 3 --time-us 300000 --speed 100
say timed
check "roce: XOFF 300 ms: the sender saw 1 XOFF and was paused 300 ms (to the quantum)" S timed \
	'.prio == 3 and .dev == "pa" and .speed_mbps == 100 and .xoff == 1 and .xon == 0 and
	 .pauses == 1 and .paused_ms >= 299.9 and .paused_ms <= 300.1'
check "roce: XOFF 300 ms: the receiver saw a silence of 200..1000 ms, then everything (3,000)" R timed \
	'.max_gap_ms >= 200 and .max_gap_ms <= 1000 and .packets == 3000 and .lost == 0 and .oos == 0'
check "roce: XOFF 300 ms: resumed by itself (all 3,000 sent in 1.7..4 s)" S timed \
	'.sent == 3000 and .seconds >= 1.7 and .seconds < 4'

# XOFF with the longest time at 10 Mbit/s (3.36 s), XON 0.2 s later
run xon --speed 10 -- eval 'gen --prio 3 --time 65535; sleep 0.2; gen --prio 3 --xon'
say xon
check "roce: XOFF 3.36 s then XON: paused 150..1500 ms, not the whole time" S xon \
	'.xoff == 1 and .xon == 1 and .pauses == 1 and .paused_ms >= 150 and .paused_ms <= 1500 and
	 .sent == 3000 and .seconds < 3.2'
check "roce: XOFF then XON: the receiver's silence 100..1600 ms, everything delivered" R xon \
	'.max_gap_ms >= 100 and .max_gap_ms <= 1600 and .packets == 3000 and .lost == 0'
gap=$(jq .max_gap_ms "$tmp/xon.recv")
check "roce: XON resumes at once: the silence ($gap ms) within 100 ms of the pause the sender saw" S xon \
	"(.paused_ms - $gap) | fabs < 100"

# every priority but 3 paused for 3.36 s: priority 3 keeps flowing
run other --speed 10 -- gen --vector 0xf7 --time 65535
say other
check "roce: a pause for every other priority: not paused, the frame seen as another's" S other \
	'.xoff == 0 and .pause_frames == 1 and .other_prio_frames == 1 and .paused_ms == 0 and
	 .sent == 3000'
check "roce: ... and the receiver saw no silence over 200 ms" R other \
	'.max_gap_ms < 200 and .packets == 3000'

# 802.3x PAUSE stops every priority
run pause --speed 100 -- gen --pause --time-us 300000 --speed 100
say pause
check "roce: PAUSE 300 ms: paused 300 ms, a 200..1000 ms silence, everything delivered" eval \
	'S pause ".xoff == 1 and .paused_ms >= 299.9 and .paused_ms <= 300.1 and .sent == 3000" &&
	 R pause ".max_gap_ms >= 200 and .max_gap_ms <= 1000 and .packets == 3000"'

# a second XOFF during the pause restarts its time: one pause, longer. One
# pfcgen paces both frames (7/s: 143 ms apart); a second process started by
# the shell 0.15 s later came after the first pause had ended at a load
# average of 8 (two pauses of 300 ms)
run extend --speed 100 -- gen --prio 3 --time-us 300000 --speed 100 --count 2 --rate 7 --duration 1
say extend
check "roce: a second XOFF 0.14 s in extends the pause: 1 pause, 2 XOFF, 420..1000 ms" S extend \
	'.xoff == 2 and .pauses == 1 and .paused_ms >= 420 and .paused_ms <= 1000 and .sent == 3000'
check "roce: ... the receiver's silence is over 350 ms" R extend '.max_gap_ms >= 350'

# --duration ends a paused sender: 1 s, paused 3.36 s from 0.5 s
run bounded --speed 10 --duration 1 -- gen --prio 3 --time 65535
say bounded
check "roce: --duration 1 ends a paused sender in time (< 1.5 s), paused until then" S bounded \
	'.seconds < 1.5 and .sent < 3000 and .paused_ms >= 200 and .paused_ms <= 700'

# --no-pfc: pause frames ignored
run nopfc --speed 100 --no-pfc -- gen --prio 3 --time-us 300000 --speed 100
say nopfc
check "roce: --no-pfc: not paused, no silence over 200 ms" eval \
	'S nopfc ".pfc == false and .paused_ms == 0 and .pause_frames == 0 and .sent == 3000" &&
	 R nopfc ".max_gap_ms < 200 and .packets == 3000"'

# the priority from the DSCP, by SONiC's default DSCP_TO_TC map; the speed
# from ethtool (veth: 10,000)
prios=""
for dscp in 3 4 46 48 8 5 0 10; do
	p=$(A "$ROCE" send --dst 10.99.0.2 --qps 1 --count 1 --tos $((dscp << 2)) -j | jq .prio)
	prios="$prios $p"
done
speed=$(A "$ROCE" send --dst 10.99.0.2 --qps 1 --count 1 -j | jq -r '"\(.speed_mbps) \(.speed_from)"')
check "roce: DSCP 3 4 46 48 8 5 0 10 -> priorities 3 4 5 6 0 2 1 1 ($prios)" \
	[ "$prios" == " 3 4 5 6 0 2 1 1" ]
check "roce: the speed from ethtool (veth: 10000): $speed" [ "$speed" == "10000 ethtool" ]

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
