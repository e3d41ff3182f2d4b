#!/bin/bash
# netns test of `xfabctl fabric doctor` (docs/DEBUGGING.md "fabric doctor")
# on a clos-2x4 lab (lab doc, eBGP with FRR, xdp datapath). Traffic over
# every leaf-spine link both ways: h1 <-> h7 (leaf1, leaf4) and h3 <-> h5
# (leaf2, leaf3), 16 QPs each at 1,000 packets/s a QP, each QP its own
# source port. Oracles that share no code with the doctor: xfab-linkfault
# (h-optics) drops a known share of the frames arriving on one port and
# counts them; `xfabctl show counters` of each switch; the receivers'
# counts. Checked:
#   - refusals: a lab that is not up (exit 3), --undrain with --drain,
#     --link without --undrain, a threshold out of range (exit 2);
#   - a clean window (2 s) names nothing (exit 0), every leaf-spine
#     direction having carried traffic in it;
#   - 2 % loss injected on one end of one leaf-spine link, chosen at random
#     by this test (DOC_SEED sets it): the doctor (not told) names exactly
#     that link, in the direction into the faulty port, first (exit 1); its
#     lost frames are no more than xfab-linkfault dropped over the run and
#     its rate within 1..4 %; the text output says the same;
#     --svg draws it with that link, and no other, marked suspect;
#   - --drain: both ends of that link drained (their xfabd says so); a new
#     burst then leaves neither end by that link (their xfab tx counters do
#     not move) and the receivers lose nothing although the fault is still
#     on;
#   - --undrain --link: both ends back; with the fault restored, traffic
#     crosses the link again;
#   - nothing left after the lab goes down.
# The drain request and the exit status are xfabctl's own (no unit suite sees them):
# mutate: user/ctl/fabric_doctor.c; labs: doc
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
need_frr
need_cmds jq awk
TOPO="$ROOT/testbeds/clos-2x4.json"
NAME=doc
STATE=/run/xfab-lab/$NAME
CTL="$ROOT/build/xfabctl"
LF="$ROOT/build/xfab-linkfault"
L() { timeout 60 "$ROOT/scripts/xfab-lab" exec "$TOPO" --name "$NAME" "$@"; }
tmp=$(mktemp -d)
FSW="" FDEV=""
cleanup() {
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "$FDEV" ] && nsenter --net="/run/netns/$NAME-$FSW" "$LF" restore "$FDEV" >/dev/null 2>&1
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
doctor() { "$CTL" fabric doctor --lab "$NAME" "$@"; }
sessions() { # bgpd's sessions of a switch: "Established count/all"
	L "$1" vtysh -c 'show bgp summary json' |
		jq -r '[(.ipv4Unicast.peers // {}), (.ipv6Unicast.peers // {}) | to_entries[] |
			.value.state] | "\(map(select(. == "Established")) | length)/\(length)"'
}
txp() { # txp SWITCH PORT: xfab's tx_packets of the port
	L "$1" xfabctl -j show counters | jq -r --arg p "$2" '.[] | select(.port == $p) | .tx_packets'
}
# Traffic for $1 s both ways between h1 and h7, h3 and h5 (16 QPs each at
# 1,000 packets/s), in the background; wait_traffic waits for it.
HOSTS="h1:10.1.1.2 h7:10.4.1.2 h3:10.2.1.2 h5:10.3.1.2"
PAIRS="h1:10.4.1.2 h7:10.1.1.2 h3:10.3.1.2 h5:10.2.1.2"
traffic() {
	local hp h sport=41000 errs=""
	rpids="" spids=""
	for hp in $HOSTS; do
		h=${hp%%:*}
		L "$h" "$ROOT/build/xfab-roce" recv --duration $(($1 + 5)) --idle-ms 2000 -j \
			>"$tmp/$h.json" 2>"$tmp/$h.err" &
		rpids="$rpids $!"
		errs="$errs $tmp/$h.err"
	done
	# shellcheck disable=SC2086 # a list of files
	receivers_ready $errs
	for hp in $PAIRS; do
		L "${hp%%:*}" "$ROOT/build/xfab-roce" send --dst "${hp#*:}" --qps 16 --sport $sport \
			--sport-per-qp --rate 16000 --count $(($1 * 16000)) >/dev/null 2>&1 &
		spids="$spids $!"
		sport=$((sport + 1000))
	done
}
# shellcheck disable=SC2086 # lists of pids
wait_traffic() { wait $spids $rpids; }
lost_all() { # frames the four receivers missed
	local n=0 hp
	for hp in $HOSTS; do n=$((n + $(jq '.lost' "$tmp/${hp%%:*}.json"))); done
	echo $n
}

# ---- refusals (the lab not up yet)
"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
check_refusals() {
	local out rc
	out=$(doctor 2>&1 >/dev/null)
	rc=$?
	echo "    exit $rc: $out"
	[ $rc -eq 3 ] && [[ $out == *"lab $NAME is not up"* ]] || return 1
	out=$(doctor --undrain --drain 2>&1 >/dev/null)
	rc=$?
	echo "    exit $rc: $out"
	[ $rc -eq 2 ] && [[ $out == *"--undrain returns drained links and takes only --link"* ]] ||
		return 1
	out=$(doctor --link leaf1:eth1 2>&1 >/dev/null)
	[ $? -eq 2 ] && [[ $out == *"--link names the link --undrain returns"* ]] || return 1
	out=$(doctor --threshold 101 2>&1 >/dev/null)
	rc=$?
	echo "    exit $rc: $out"
	[ $rc -eq 2 ] && [[ $out == *threshold* ]]
}
check "refusals: not up (exit 3), options that do not go together, a bad threshold (exit 2)" \
	check_refusals

if ! timeout 300 "$ROOT/scripts/xfab-lab" up "$TOPO" --name "$NAME" --routing bgp \
	>"$tmp/up.log" 2>&1; then
	cat "$tmp/up.log"
	not_ok "lab up (eBGP)"
	echo "# $pass passed, $fail failed"
	exit 1
fi
ok "lab up (eBGP)"
for sw in leaf1 leaf2 leaf3 leaf4; do
	check "$sw's BGP sessions Established (4/4)" eventually 90 eval '[ "$(sessions $sw)" = 4/4 ]'
done

# ---- a clean window
traffic 6
sleep 1
doctor --window 2 -j >"$tmp/clean.json"
rc=$?
wait_traffic
echo "# clean window: $(jq -c '{suspects: (.suspects | length), most_lost: ([.links[].lost] | max),
	least_sent: ([.links[].sent] | min)}' "$tmp/clean.json")"
check "clean: exit 0, no suspect" eval '[ $rc -eq 0 ] && [ "$(jq ".suspects | length" "$tmp/clean.json")" = 0 ]'
check "clean: every leaf-spine direction carried traffic in the window (16 of them)" \
	eval '[ "$(jq "[.links[] | select(.kind == \"spine-leaf\" and .sent >= 1000)] | length" \
		"$tmp/clean.json")" = 16 ]'

# ---- 2 % loss on one end of one link, the test's choice
seed=${DOC_SEED:-$RANDOM}
RANDOM=$seed
spine=$((RANDOM % 2 + 1)) leaf=$((RANDOM % 4 + 1)) end=$((RANDOM % 2))
if [ $end = 0 ]; then # frames arriving at the spine from the leaf
	FSW=spine$spine FDEV=eth$leaf PEER=leaf$leaf:eth$spine
else
	FSW=leaf$leaf FDEV=eth$spine PEER=spine$spine:eth$leaf
fi
echo "# seed $seed: 2 % loss on frames arriving at $FSW $FDEV (from $PEER)"
LFN() { nsenter --net="/run/netns/$NAME-$FSW" "$LF" "$@"; }
check "xfab-linkfault loss $FDEV 2 on $FSW" LFN loss "$FDEV" 2
traffic 8
sleep 1
d0=$(LFN status "$FDEV" -j | jq .dropped)
doctor --window 2 -j --svg "$tmp/fault.svg" >"$tmp/fault.json"
rc=$?
d1=$(LFN status "$FDEV" -j | jq .dropped)
doctor --window 2 >"$tmp/fault.txt"
wait_traffic
jq -c '.suspects[] | {from, to, sent, received, lost, rate}' "$tmp/fault.json" | sed 's/^/# /'
echo "# xfab-linkfault dropped $((d1 - d0)) during that window's run"
first() { jq -r ".suspects[0].$1" "$tmp/fault.json"; }
check "fault: exit 1, the first suspect is $PEER -> $FSW:$FDEV" \
	eval '[ $rc -eq 1 ] && [ "$(first from)" = "$PEER" ] && [ "$(first to)" = "$FSW:$FDEV" ]'
check "fault: no other link is suspect" \
	eval '[ "$(jq --arg t "$FSW:$FDEV" "[.suspects[] | select(.to != \$t)] | length" \
		"$tmp/fault.json")" = 0 ]'
check "fault: lost <= what xfab-linkfault dropped meanwhile; the rate within 1..4 %" \
	eval '[ "$(first lost)" -le $((d1 - d0)) ] &&
	      awk -v r="$(first rate)" "BEGIN { exit !(r >= 0.01 && r <= 0.04) }"'
# the drawing (read with python's xml.etree): that link's group, and no
# other, is marked suspect, its title giving the direction into the fault
marked() {
	/usr/bin/python3 - "$tmp/fault.svg" <<-'EOF'
		import sys
		import xml.etree.ElementTree as ET
		ns = "{http://www.w3.org/2000/svg}"
		groups = ET.parse(sys.argv[1]).getroot().iter(ns + "g")
		for g in groups:
		    if "suspect" in g.get("class", "").split():
		        print(g.get("id"), g.find(ns + "title").text.replace("\n", " "))
	EOF
}
marked | sed 's/^/# svg: /'
check "fault: --svg marks that link alone, with the doctor's reason" \
	eval '[ "$(marked | wc -l)" = 1 ] &&
	      marked | grep -q "^link-leaf$leaf-eth$spine-spine$spine-eth$leaf .*${PEER%:*} ${PEER#*:} -> $FSW $FDEV: sent"'
check "fault: the text output names it first, with its evidence" \
	eval 'grep -A1 "most evident first" "$tmp/fault.txt" |
	      grep -q "1\. ${PEER%:*} ${PEER#*:} -> $FSW $FDEV: sent .*, lost .* (.*%)"'

# ---- --drain: both ends out of every group
traffic 8
sleep 1
doctor --window 2 --drain -j >"$tmp/drain.json"
rc=$?
wait_traffic
jq -c '.drained' "$tmp/drain.json" | sed 's/^/# drained: /'
check "--drain: both ends of the link drained (xfabd's answers)" \
	eval '[ $rc -eq 1 ] && [ "$(jq -r --arg a "$FSW:$FDEV" --arg b "$PEER" \
		"[.drained[] | select(.drained and ((.switch + \":\" + .port) == \$a or
		(.switch + \":\" + .port) == \$b))] | length" "$tmp/drain.json")" = 2 ]'
sleep 1
ta0=$(txp "$FSW" "$FDEV") tb0=$(txp "${PEER%:*}" "${PEER#*:}")
traffic 3
wait_traffic
ta1=$(txp "$FSW" "$FDEV") tb1=$(txp "${PEER%:*}" "${PEER#*:}")
echo "# drained: $FSW $FDEV sent $((ta1 - ta0)), $PEER sent $((tb1 - tb0)); receivers lost $(lost_all)"
check "drained: neither end forwards over the link, the receivers lose nothing" \
	eval '[ $((ta1 - ta0)) -eq 0 ] && [ $((tb1 - tb0)) -eq 0 ] && [ "$(lost_all)" -eq 0 ]'

# ---- --undrain: back
check "xfab-linkfault restore" LFN restore "$FDEV"
FDEV_DONE=$FDEV
FDEV=""
doctor --undrain --link "$FSW:$FDEV_DONE" -j >"$tmp/undrain.json"
jq -c . "$tmp/undrain.json" | sed 's/^/# /'
check "--undrain --link: both ends answered, neither drained now" \
	eval '[ "$(jq "[.undrained[] | select(.answered and (.drained | not))] | length" \
		"$tmp/undrain.json")" = 2 ]'
LEAF=$FSW
[[ $LEAF == leaf* ]] || LEAF=${PEER%:*}
check "undrained: $LEAF's BGP sessions back (4/4)" eventually 120 eval '[ "$(sessions $LEAF)" = 4/4 ]'
sleep 1
ta0=$(txp "$FSW" "$FDEV_DONE") tb0=$(txp "${PEER%:*}" "${PEER#*:}")
traffic 3
wait_traffic
ta1=$(txp "$FSW" "$FDEV_DONE") tb1=$(txp "${PEER%:*}" "${PEER#*:}")
echo "# undrained: $FSW $FDEV_DONE sent $((ta1 - ta0)), $PEER sent $((tb1 - tb0))"
check "undrained: both ends forward over the link again" \
	eval '[ $((ta1 - ta0)) -gt 0 ] && [ $((tb1 - tb0)) -gt 0 ]'

"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
check "nothing left: namespaces" eval '! ip netns list | grep -q "^$NAME-"'
check "nothing left: pins" test ! -e "/sys/fs/bpf/xfab/$NAME"
check "nothing left: state" test ! -e "$STATE"
echo "# $pass passed, $fail failed"
[ $fail -eq 0 ]
