#!/bin/bash
# netns test of the TE controller (build/xfab-te, docs/TE.md) on clos-2x4
# (lab xte, xdp datapath, BGP), with an 8-rank allreduce job whose ring
# crosses leaves at every step:
#   - plan: every pair placed, the pins keyed as the address plan says
#     (source leaf, the source host's port, the destination's /24), the max
#     link load the optimum worked out here (one pair per uplink);
#   - apply: every leaf holds the planned pins with the plan's generation
#     (`xfabctl -j show te` on each leaf);
#   - RoCE traffic of a pinned pair (xfab-roce with the job's source ports
#     and QPs) crosses the pinned spine only: the spines' own port counters;
#   - a second controller with an older generation is refused and changes
#     no pin on any leaf;
#   - xfab-te run: a leaf uplink the plan uses goes down under traffic; the
#     controller moves the pins off it within a bound, the traffic arrives
#     (loss measured and bounded), the status file records the event;
#     SIGTERM leaves the pins, `xfab-te clear` removes them;
#   - nothing is left afterwards.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
need_frr
t_start=$(now_ms)
NAME=xte
STATE=/run/xfab-lab/$NAME
FABRIC=$STATE/fabric.json
TE=$ROOT/build/xfab-te
CTL=$ROOT/build/xfabctl
ROCE=$ROOT/build/xfab-roce
tmp=$(mktemp -d)
# clos-2x4 with BFD at 300 ms (3 misses: 0.9 s) instead of 100: the cut
# below is a carrier loss, which xfabd and zebra hear of at once, so BFD's
# speed is not what this test measures; at 100 ms a 2-core box starved of
# CPU for 0.3 s dropped sessions of other links under the moved pins (their
# routes gone for a while), and the loss across the cut was then not judged
TOPO="$tmp/clos-2x4.json"
jq '.bfd_ms = 300' "$ROOT/testbeds/clos-2x4.json" >"$TOPO"
run_pid=
cleanup() {
	if [ -n "$run_pid" ] && kill -0 "$run_pid" 2>/dev/null; then
		kill "$run_pid"
		wait "$run_pid" 2>/dev/null
	fi
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

in_ns() { # NODE CMD...: in the node's network namespace (bpffs still mounted)
	local node=$1
	shift
	nsenter --net="/run/netns/$NAME-$node" "$@"
}
show_te() { "$CTL" -s "$NAME/$1" -j show te; }
rx() { # SWITCH PORT: rx bytes of the switch's port (xfab's own counters)
	"$CTL" -s "$NAME/$1" -j show counters | jq ".[] | select(.port == \"$2\") | .rx_bytes"
}

# The ring h1 h3 h5 h7 h2 h4 h6 h8: every step crosses leaves, each leaf
# sends two pairs and receives two.
cat >"$tmp/job.json" <<'EOF'
{"name": "ar8", "op": "allreduce",
 "ranks": [{"host": "h1", "addr": "10.1.1.2"}, {"host": "h3", "addr": "10.2.1.2"},
           {"host": "h5", "addr": "10.3.1.2"}, {"host": "h7", "addr": "10.4.1.2"},
           {"host": "h2", "addr": "10.1.2.2"}, {"host": "h4", "addr": "10.2.2.2"},
           {"host": "h6", "addr": "10.3.2.2"}, {"host": "h8", "addr": "10.4.2.2"}],
 "channels": 2, "qps": 4, "qp_base": 256, "bytes": 8388608}
EOF
# A second controller's demand: all of it from leaf1 (other pins).
cat >"$tmp/other.json" <<'EOF'
[{"src": "h1", "dst": "h5", "bytes": 1000}, {"src": "h2", "dst": "h7", "bytes": 900}]
EOF

# Each switch's xfabd needs a TE_PATH table (an empty one) for runtime pins.
enable_te() {
	local sw n
	for sw in leaf1 leaf2 leaf3 leaf4; do
		jq '. + {"TE_PATH": {}}' "$STATE/$sw.json" >"$tmp/$sw.json" &&
			cp "$tmp/$sw.json" "$STATE/$sw.json" || return 1
		n=$(grep -c "reloaded:" "$STATE/$sw.log")
		kill -HUP "$(cat "$STATE/$sw.pid")"
		eventually 10 eval "[ \$(grep -c 'reloaded:' '$STATE/$sw.log') -gt $n ]" || return 1
	done
}

# ---- the plan, against what is worked out here ----
# allreduce, n = 8, S = 8 MiB: 2(n - 1) ring steps of S/n per connection,
# shared by its 2 channels x 4 QPs; a pair carries 2 * 7 * 1 MiB
PAIR_BYTES=$((2 * 7 * 1048576))
check_plan() {
	local keys want
	jq -e --argjson b "$PAIR_BYTES" '.placed == 8 and .no_path == 0 and (.pins | length) == 8 and
		all(.pairs[]; .bytes == $b and (.flows | length) == 8)' "$tmp/plan.json" >/dev/null || return 1
	# the optimum: each leaf's two pairs out over its two uplinks, and two
	# in over its two downlinks: one pair's bytes on the most loaded link
	jq -e --argjson b "$PAIR_BYTES" '.max_load == $b' "$tmp/plan.json" >/dev/null || {
		echo "    max load $(jq .max_load "$tmp/plan.json"), want $PAIR_BYTES"
		return 1
	}
	# one pin per pair on its source leaf, keyed by the source host's port
	# and the destination's /24 (fabric.json's hosts), via a spine's end of
	# one of that leaf's uplinks
	keys=$(jq -r '.pins[] | "\(.switch) \(.in) \(.prefix)"' "$tmp/plan.json" | sort)
	want=$(jq -r --slurpfile f "$FABRIC" '.pairs[] | . as $p | $f[0].hosts as $h |
		"\($h[$p.src].leaf) \($h[$p.src].leaf_port) \($h[$p.dst].ipv4 | sub("\\.2/24$"; ".0/24"))"' \
		"$tmp/plan.json" | sort)
	[ "$keys" == "$want" ] || {
		echo "    pins $keys"
		echo "    want $want"
		return 1
	}
	jq -e --slurpfile f "$FABRIC" 'all(.pins[]; . as $p | $f[0].switches[$p.switch].ports |
		to_entries | any(.value.direction == "up" and .value.peer == $p.next and
		(.value.ipv4 | sub("\\.[0-9]+/31$"; "")) == ($p.via | sub("\\.[0-9]+$"; ""))))' \
		"$tmp/plan.json" >/dev/null
}

# Every leaf's runtime pins, as `xfabctl -j show te` shows them, are the
# plan's pins for that leaf, each with generation $1.
leaves_hold() {
	local gen=$1 sw have want
	for sw in leaf1 leaf2 leaf3 leaf4; do
		have=$(show_te "$sw" | jq -c '[.[] | select(.source == "runtime") |
			{in, prefix, via, gen}] | sort')
		want=$(jq -c --arg s "$sw" --argjson g "$gen" '[.pins[] | select(.switch == $s) |
			{in, prefix, via, gen: $g}] | sort' "$tmp/plan.json")
		[ "$have" == "$want" ] || {
			echo "    $sw holds $have"
			echo "    plan says $want"
			return 1
		}
	done
}

# The pair h1 -> h3's flows (the job's source ports and QPs) cross the
# pinned spine only, by the spines' counters of their ports from leaf1.
check_traffic_on_pinned_spine() {
	local pinned other before_p before_o after_p after_o sent recv moved=0 s q
	pinned=$(jq -r '.pins[] | select(.switch == "leaf1" and .prefix == "10.2.1.0/24") | .next' "$tmp/plan.json")
	[ "$pinned" == spine1 ] && other=spine2 || other=spine1
	# ECMP alone (the hash the leaf computes) would have sent some elsewhere
	while read -r s q; do
		[ "$("$CTL" -s "$NAME/leaf1" -j hash --in eth3 --src 10.1.1.2 --dst 10.2.1.2 \
			--proto udp --sport "$s" --dport 4791 --qp "$q" | jq -r .match)" == te ] || return 1
	done < <(jq -r '.pairs[] | select(.src == "h1" and .dst == "h3") | .flows[] | "\(.sport) \(.dst_qp)"' "$tmp/plan.json")
	before_p=$(rx "$pinned" eth1)
	before_o=$(rx "$other" eth1)
	in_ns h3 "$ROCE" recv --duration 8 --idle-ms 1000 -j >"$tmp/recv1.json" 2>"$tmp/recv1.err" &
	local rpid=$!
	receivers_ready "$tmp/recv1.err"
	jq -r '.pairs[] | select(.src == "h1" and .dst == "h3") | .flows[] | "\(.sport) \(.dst_qp)"' \
		"$tmp/plan.json" >"$tmp/flows13"
	while read -r s q; do
		in_ns h1 "$ROCE" send --dst 10.2.1.2 --sport "$s" --qp-base "$q" --qps 1 --count 250 \
			--rate 2500 --size 1000 >/dev/null 2>&1 &
	done <"$tmp/flows13"
	wait $(jobs -p | grep -v "^$rpid$") 2>/dev/null
	wait "$rpid"
	after_p=$(rx "$pinned" eth1)
	after_o=$(rx "$other" eth1)
	sent=$((8 * 250))
	recv=$(jq .packets "$tmp/recv1.json")
	echo "    8 flows x 250 packets h1 -> h3: $recv received; $pinned eth1 rx +$((after_p - before_p)) bytes," \
		"$other eth1 rx +$((after_o - before_o)) bytes (control traffic)"
	# 2000 packets of 1000 bytes of payload: at least 2 MB on the pinned
	# spine; the other sees BGP and BFD only (a few KB)
	[ "$recv" -eq "$sent" ] && [ $((after_p - before_p)) -ge $((sent * 1000)) ] &&
		[ $((after_o - before_o)) -lt $((sent * 1000 / 50)) ]
}

check_stale_refused() {
	local gen=$1 before after rc
	before=$(for sw in leaf1 leaf2 leaf3 leaf4; do show_te "$sw"; done)
	"$TE" apply --fabric "$FABRIC" --matrix "$tmp/other.json" --gen $((gen - 1)) >"$tmp/stale.out" 2>"$tmp/stale.err"
	rc=$?
	after=$(for sw in leaf1 leaf2 leaf3 leaf4; do show_te "$sw"; done)
	echo "    rc $rc: $(grep -m1 'stale plan' "$tmp/stale.err")"
	[ "$rc" -eq 3 ] && grep -q "stale plan: generation $((gen - 1)), the switch holds $gen" "$tmp/stale.err" &&
		[ "$before" == "$after" ]
}

if ! timeout 150 "$ROOT/scripts/xfab-lab" up "$TOPO" --name "$NAME" --datapath xdp >"$tmp/up.log" 2>&1; then
	tail -20 "$tmp/up.log"
	not_ok "[te] lab up"
	exit 1
fi
check "[te] TE_PATH on every leaf (reload)" enable_te

t0=$(now_ms)
"$TE" plan --fabric "$FABRIC" --job "$tmp/job.json" -j >"$tmp/plan.json"
rc=$?
wall=$(($(now_ms) - t0))
echo "# xfab-te plan: rc $rc, $wall ms wall, computed in $(jq .compute_ms "$tmp/plan.json") ms"
# the controller's own clock against the command's: its compute is part of it
check "[te] plan: its compute time is measured and inside the command's wall time" \
	jq -e --argjson w "$wall" '.compute_ms > 0 and .compute_ms <= $w' "$tmp/plan.json"
check "[te] plan: 8 pairs placed, one pin each, the optimum's max link load" check_plan

t0=$(now_ms)
"$TE" apply --fabric "$FABRIC" --job "$tmp/job.json" -j >"$tmp/apply.json" 2>"$tmp/apply.err"
rc=$?
GEN=$(jq .generation "$tmp/apply.json")
wall=$(($(now_ms) - t0))
echo "# xfab-te apply: rc $rc, generation $GEN, $wall ms wall, applied in" \
	"$(jq .apply_ms "$tmp/apply.json") ms (8 pins on 4 leaves, sweeps on 6 switches)"
check "[te] apply: its apply time is measured and inside the command's wall time" \
	jq -e --argjson w "$wall" '.apply_ms > 0 and .apply_ms <= $w' "$tmp/apply.json"
check "[te] apply: exit 0, every switch took it" eval \
	'[ "$rc" -eq 0 ] && jq -e ".result == \"applied\" and all(.switches[]; .state == \"ok\")" "$tmp/apply.json" >/dev/null'
check "[te] every leaf holds the planned pins with generation $GEN (show te)" leaves_hold "$GEN"
status_ok() { # every switch answers at generation $1 (the sweep raised the spines' too) with
	# as many pins as the plan gives it, TE on where enable_te put it (the leaves)
	"$TE" status --fabric "$FABRIC" -j | jq -e --argjson g "$1" --slurpfile p "$tmp/plan.json" '
		length == 6 and all(.[]; . as $s | .reachable and .generation == $g and
			.te == (.switch | startswith("leaf")) and
			(.pins | length) == ([$p[0].pins[] | select(.switch == $s.switch)] | length))' >/dev/null
}
check "[te] status: every switch at generation $GEN with its planned pins" status_ok "$GEN"
# the same plan again: the next generation, the same pins, the older swept
"$TE" apply --fabric "$FABRIC" --job "$tmp/job.json" -j >"$tmp/apply2.json" 2>>"$tmp/apply.err"
rc=$?
check "[te] apply again: generation $((GEN + 1)), the same pins, the older ones swept" eval \
	'[ "$rc" -eq 0 ] && [ "$(jq .generation "$tmp/apply2.json")" -eq $((GEN + 1)) ] && leaves_hold $((GEN + 1))'
GEN=$((GEN + 1))
check "[te] a pinned pair's RoCE flows cross the pinned spine only (spine counters)" check_traffic_on_pinned_spine
check "[te] a second controller's older generation is refused; no pin changes" check_stale_refused "$GEN"

# ---- run: a leaf uplink the plan uses goes down under traffic ----
mkdir "$tmp/jobs"
cp "$tmp/job.json" "$tmp/jobs/ar8.json"
POLL_MS=100
"$TE" run --fabric "$FABRIC" --jobs "$tmp/jobs" --json "$tmp/status.json" --poll-ms $POLL_MS \
	--interval 30 2>"$tmp/run.log" &
run_pid=$!
started() { [ -f "$tmp/status.json" ] && jq -e '.generation > '"$GEN"' and .complete' "$tmp/status.json" >/dev/null; }
check "[te] run: starts with a new generation on every switch" eventually 10 started
GEN2=$(jq .generation "$tmp/status.json")
# the uplink h1 -> h3's pin takes, and the pair pinned into leaf1 over it
up_port=$(jq -r '.pins[] | select(.switch == "leaf1" and .prefix == "10.2.1.0/24") | .out' "$tmp/plan.json")
spine=$(jq -r '.pins[] | select(.switch == "leaf1" and .prefix == "10.2.1.0/24") | .next' "$tmp/plan.json")
into=$(jq -r --arg s "$spine" '.pins[] | select(.next == $s and (.prefix | startswith("10.1."))) |
	"\(.switch) \(.prefix)"' "$tmp/plan.json" | head -1)
into_leaf=${into% *}
into_pfx=${into#* }
into_src=$(jq -r --slurpfile f "$FABRIC" --arg l "$into_leaf" --arg p "$into_pfx" '.pairs[] | . as $q |
	$f[0].hosts as $h | select($h[$q.src].leaf == $l and ($h[$q.dst].ipv4 | sub("\\.2/24$"; ".0/24")) == $p) |
	"\(.src) \(.dst)"' "$tmp/plan.json" | head -1)
src2=${into_src% *}
dst2=${into_src#* }
addr() { jq -r --arg h "$1" '.hosts[$h].ipv4 | sub("/24$"; "")' "$FABRIC"; }
echo "# cut: leaf1 $up_port (to $spine): h1 -> h3 leaves by it, $src2 -> $dst2 ($into_leaf) arrives by it"
in_ns h3 "$ROCE" recv --duration 9 --idle-ms 1500 -j >"$tmp/recv_out.json" 2>"$tmp/recv_out.err" &
r1=$!
in_ns "$dst2" "$ROCE" recv --duration 9 --idle-ms 1500 -j >"$tmp/recv_in.json" 2>"$tmp/recv_in.err" &
r2=$!
receivers_ready "$tmp/recv_out.err" "$tmp/recv_in.err"
RATE=1000
COUNT=3000 # 3 s per flow
senders=()
while read -r s q; do
	in_ns h1 "$ROCE" send --dst 10.2.1.2 --sport "$s" --qp-base "$q" --qps 1 --count $COUNT --rate $RATE >/dev/null 2>&1 &
	senders+=($!)
done < <(jq -r '.pairs[] | select(.src == "h1" and .dst == "h3") | .flows[] | "\(.sport) \(.dst_qp)"' "$tmp/plan.json")
while read -r s q; do
	in_ns "$src2" "$ROCE" send --dst "$(addr "$dst2")" --sport "$s" --qp-base "$q" --qps 1 --count $COUNT \
		--rate $RATE >/dev/null 2>&1 &
	senders+=($!)
done < <(jq -r --arg a "$src2" --arg b "$dst2" '.pairs[] | select(.src == $a and .dst == $b) | .flows[] |
	"\(.sport) \(.dst_qp)"' "$tmp/plan.json")
sleep 1
fb0=$("$CTL" -s "$NAME/leaf1" -j show lb | jq .te_fallback)
t_cut=$(now_ms)
ip -n "$NAME-leaf1" link set "$up_port" down
# the pins avoid the link: leaf1's for h3 and the one into leaf1 over it
moved() {
	local a b
	a=$(show_te leaf1 | jq -r '.[] | select(.prefix == "10.2.1.0/24") | .dev')
	b=$(show_te "$into_leaf" | jq -r --arg p "$into_pfx" '.[] | select(.prefix == $p) | .via')
	# b is not the failed spine's end of its link with into_leaf
	[ -n "$a" ] && [ "$a" != "$up_port" ] && [ -n "$b" ] &&
		! jq -e --arg s "$spine" --arg v "$b" --arg l "$into_leaf" \
			'.switches[$s].ports[] | select(.peer == $l) | .ipv4 | startswith($v + "/")' "$FABRIC" >/dev/null
}
check "[te] run: the pins move off the failed link" eventually 5 moved
# The fabric report walks every QP of the job through each switch's own
# tables (its trace program: pins, then ECMP): none crosses the dead link
# either way any more, and every one still reaches its host.
peer_port=$(jq -r --arg p "$up_port" '.switches.leaf1.ports[$p].peer_port' "$FABRIC")
report_avoids() {
	"$CTL" -j fabric report --lab "$NAME" --job "$tmp/job.json" >"$tmp/report.json" 2>"$tmp/report.err" ||
		return 1
	jq -e --arg p "$up_port" --arg s "$spine" --arg q "$peer_port" '.job.flows | length == 64 and
		all(.status == "delivered") and
		all(.path | all((.switch != "leaf1" or .out != $p) and (.switch != $s or .out != $q)))' \
		"$tmp/report.json" >/dev/null
}
# The two pins above can move before the rest of the new plan reached every
# switch (a race seen once on a slower box): judge the report once the
# controller's status says the plan made for the cut (links_down 1) is
# complete on every switch, with the controller's own wait for it as bound.
cut_applied() {
	jq -e --argjson g "$GEN2" '.generation > $g and .complete and (.plan.links_down | length) == 1' \
		"$tmp/status.json" >/dev/null 2>&1
}
check "[te] run: the controller's plan for the cut is complete on every switch" eventually 10 cut_applied
check "[te] run: the fabric report's 64 QP paths avoid the failed link, each delivered" report_avoids
# the flows that broke it, if any
jq -c --arg p "$up_port" '.job.flows[] | select(.status != "delivered" or
		any(.path[]; .switch == "leaf1" and .out == $p))' "$tmp/report.json" 2>/dev/null | head -3 | sed 's/^/# /'
wait "${senders[@]}" 2>/dev/null
wait "$r1" "$r2"
event=$(jq -c '[.events[] | select(.kind == "apply" and (.what | contains("down")))] | last' "$tmp/status.json")
applied_ms=$(($(jq .unix_ms <<<"$event") - t_cut))
d2a=$(jq '.detect_to_applied_ms | ceil' <<<"$event")
# the controller's own timing of its two steps, from the event's text
read -r comp_ms app_ms < <(jq -r '.what | capture("computed in (?<c>[0-9.]+) ms, applied in (?<a>[0-9.]+) ms") |
	"\(.c | tonumber | ceil) \(.a | tonumber | ceil)"' <<<"$event")
echo "# link cut to pins applied on every switch: $applied_ms ms (the controller's event time);" \
	"detection to applied $d2a ms: computed in $comp_ms ms, applied in $app_ms ms (poll every $POLL_MS ms)"
echo "# status event: $event"
# where the time went: xfabd's log stamps (seconds.ms) of the port going
# down on both ends, the controller's detection (its event less detection
# to applied)
seen_at() { # SWITCH PORT: ms from the cut to xfabd logging the port down
	local ts
	ts=$(grep "xfabd info: port $2 is down" "$STATE/$1.log" | tail -1 | cut -d' ' -f1)
	[ -n "$ts" ] && echo $((${ts%.*} * 1000 + 10#${ts#*.} - t_cut)) || echo "?"
}
seen_leaf=$(seen_at leaf1 "$up_port")
seen_spine=$(seen_at "$spine" eth1)
detect_rel=$(($(jq '(.unix_ms - .detect_to_applied_ms) | floor' <<<"$event") - t_cut))
echo "# from the cut: leaf1's xfabd saw $up_port down at $seen_leaf ms, $spine's xfabd its eth1 at" \
	"$seen_spine ms, the controller detected it at $detect_rel ms, pins applied everywhere at $applied_ms ms"
# The reaction is judged step by step against what each step's own actor
# measured, not against a flat figure a slower box would miss (TE.md: "within
# a poll and an apply"). Detection: the controller reads the ports maps
# xfabd writes (just after its "port is down" line, stamped to the ms) every
# POLL_MS; a read that just missed the later end is followed by one sleep of
# POLL_MS and one more read, so it detects by that end's stamp + 2 x POLL_MS
# (the second poll for the two reads of 6 ports maps and the sleep's late
# wake-up on a loaded box), and not before the earlier end's stamp (it has
# no other source). Detection to applied: its compute and its apply, which it
# times itself, and less than one poll of anything else: between the two it
# works in memory, so a wait or another read there is a bug. The apply
# itself: every switch took it (cut_applied), so no request waited out its
# reply timeout.
both_seen() { [ "$seen_leaf" != "?" ] && [ "$seen_spine" != "?" ]; }
detected_in_time() {
	local first=$((seen_leaf < seen_spine ? seen_leaf : seen_spine))
	local last=$((seen_leaf > seen_spine ? seen_leaf : seen_spine))
	[ "$detect_rel" -ge "$first" ] && [ "$detect_rel" -le $((last + 2 * POLL_MS)) ]
}
check "[te] run: both ends' xfabd logged the port down" both_seen
check "[te] run: detected ($detect_rel ms) after the first xfabd saw it, within 2 polls ($((2 * POLL_MS)) ms) of the later" \
	eval 'both_seen && detected_in_time'
check "[te] run: detection to applied ($d2a ms) within the controller's compute + apply ($comp_ms + $app_ms ms) + a poll" \
	eval '[ -n "$app_ms" ] && [ "$applied_ms" -ge 0 ] && [ "$d2a" -le $((comp_ms + app_ms + POLL_MS)) ]'
fb=$(($("$CTL" -s "$NAME/leaf1" -j show lb | jq .te_fallback) - fb0))
echo "# leaf1 sent $fb packets by ECMP (te_fallback) while its pin's port was down, before the pin moved"
check "[te] run: until the controller moved it, the dead pin fell back to ECMP (te_fallback)" [ "$fb" -gt 0 ]
check "[te] run: the status file records the link-down event, a newer generation, the link down" eval \
	'jq -e --argjson g "$GEN2" ".generation > \$g and (.plan.links_down | length) == 1 and
		([.events[] | select(.kind == \"apply\" and (.what | contains(\"down\")))] | length) == 1" \
		"$tmp/status.json" >/dev/null'
check "[te] run: the log says what changed and the new max link load" \
	grep -q "apply: link leaf1:$up_port-$spine:eth1 down: plan [0-9]* applied, 8 pins, max link load" "$tmp/run.log"
got_out=$(jq .packets "$tmp/recv_out.json")
got_in=$(jq .packets "$tmp/recv_in.json")
sent=$((8 * COUNT))
echo "# across the cut: h1 -> h3 $got_out of $sent, $src2 -> $dst2 $got_in of $sent" \
	"(lost $((sent - got_out)) and $((sent - got_in)), $RATE packets/s per flow)"
if [ $((sent - got_out)) -gt $((sent / 100)) ] || [ $((sent - got_in)) -gt $((sent / 100)) ]; then
	for sw in leaf1 spine1 spine2 "$into_leaf"; do
		echo "#   $sw drops $("$CTL" -s "$NAME/$sw" -j show drops | jq -c '[.[] | arrays | .[] |
			select(.packets > 0) | [.reason, .packets]]') lb $("$CTL" -s "$NAME/$sw" -j show lb | jq -c .)"
	done
	jq -c '{max_gap_ms, max_gap_at_ms}' "$tmp/recv_out.json" "$tmp/recv_in.json" | sed 's/^/#   /'
	show_te "$into_leaf" | jq -c '.[] | select(.source == "runtime")' | sed 's/^/#   /'
	grep -v "^$" "$tmp/run.log" | tail -4 | sed 's/^/#   /'
	jq -c '[.flows[] | {src, qp, packets, lost}]' "$tmp/recv_out.json" "$tmp/recv_in.json" | sed 's/^/#   /'
	for sw in leaf1 spine1 spine2 "$into_leaf"; do
		tail -n 6 "$STATE/$sw.log" | sed "s/^/#   $sw: /"
	done
	# sessions that went down or came up since the lab was up (BGP, BFD)
	for sw in leaf1 leaf2 leaf3 leaf4 spine1 spine2; do
		for d in bgpd bfdd; do
			grep -hiE "adjchange|state-change|session.*(down|up)" "$STATE/$sw/$d.log" 2>/dev/null |
				sed "s/^/#   $sw $d: /"
		done
	done
fi
# a packet in flight per flow, and what spine1 sends into the dead link
# before its xfabd hears of it (LOAD_BALANCING.md, LAB.md): at most 1 %,
# always judged. A BGP session of another link that went down since the lab
# came up is printed beside it (BFD at 300 ms: TOPO above).
other_downs() { # BGP sessions down since the lab came up, but the cut link's
	local sw
	for sw in leaf1 leaf2 leaf3 leaf4 spine1 spine2; do
		grep -h "ADJCHANGE.* Down" "$STATE/$sw/bgpd.log" 2>/dev/null |
			if [ "$sw" == leaf1 ]; then grep -v "($spine)"; elif [ "$sw" == "$spine" ]; then
				grep -v "(leaf1)"
			else cat; fi | sed "s/^/$sw: /"
	done
}
other_downs | sed 's/^/#   underlay: /'
check "[te] run: traffic arrives across the cut (loss under 1 % each way)" eval \
	'[ $((sent - got_out)) -le $((sent / 100)) ] && [ $((sent - got_in)) -le $((sent / 100)) ]'
ip -n "$NAME-leaf1" link set "$up_port" up
check "[te] run: the link back up is an event too" eventually 10 eval \
	"jq -e '[.events[] | select(.what | contains(\"$spine:eth1 up\"))] | length == 1' '$tmp/status.json' >/dev/null"
# the demand follows --jobs DIR: a job h1 <-> h8 added (h8 -> h1 is also
# a step of the ring; h1 -> h8 is new: leaf1's pin for h8's /24), then
# removed; SIGHUP reads every file again
cat >"$tmp/jobs/pair.json" <<'EOF'
{"name": "p2", "op": "allreduce", "ranks": [{"host": "h1", "addr": "10.1.1.2"},
 {"host": "h8", "addr": "10.4.2.2"}], "bytes": 1048576}
EOF
has_pin() { show_te "$1" | jq -e --arg p "$2" 'any(.[]; .source == "runtime" and .prefix == $p)' >/dev/null; }
check "[te] run: a new job in --jobs DIR is planned and pinned (leaf1, h8's /24)" eventually 5 has_pin leaf1 10.4.2.0/24
rm "$tmp/jobs/pair.json"
check "[te] run: the job removed, its pin goes" eventually 5 eval '! has_pin leaf1 10.4.2.0/24'
check "[te] run: the status file records both job changes" eval \
	"jq -e '[.events[] | select(.what | startswith(\"jobs changed\"))] | length == 2' '$tmp/status.json' >/dev/null"
kill -HUP "$run_pid"
check "[te] run: SIGHUP reads the demand again: the same pins, no new plan" eventually 3 eval \
	"jq -e '.events[-1] | .kind == \"plan\" and (.what | startswith(\"SIGHUP\") and contains(\"the same pins\"))' \
		'$tmp/status.json' >/dev/null"
kill "$run_pid"
t0=$(now_ms)
wait "$run_pid"
rc=$?
run_pid=
check "[te] run: SIGTERM ends it (exit 0, status stopped) and leaves the pins" eval \
	'[ "$rc" -eq 0 ] && [ $(($(now_ms) - t0)) -lt 3000 ] && jq -e ".state == \"stopped\"" "$tmp/status.json" >/dev/null &&
	 [ "$(show_te leaf1 | jq "[.[] | select(.source == \"runtime\")] | length")" -eq 2 ]'
check "[te] clear: every runtime pin goes" eval \
	'"$TE" clear --fabric "$FABRIC" >/dev/null &&
	 for sw in leaf1 leaf2 leaf3 leaf4; do show_te $sw | jq -e "all(.[]; .source != \"runtime\")" >/dev/null || exit 1; done'

"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
check "[te] nothing left: namespaces" eval '! ip netns list | grep -q "^$NAME-"'
check "[te] nothing left: pins, state, sockets" eval \
	'[ ! -e "/sys/fs/bpf/xfab/$NAME" ] && [ ! -e "$STATE" ] && [ ! -e "/run/xfab/$NAME" ]'
check "[te] nothing left: processes" eval '! pgrep -f "xfab-te run --fabric $FABRIC" >/dev/null'
echo "netns te: $pass passed, $fail failed in $((($(now_ms) - t_start) / 1000)) s"
[ "$fail" -eq 0 ]
