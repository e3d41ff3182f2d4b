#!/bin/bash
# netns tests of hitless restarts: a clos-2x4 BGP lab (FRR on every switch,
# xfabd mirroring the kernel's FIB), traffic both ways between h1 (leaf1) and
# h7 (leaf4), 16 QPs each way (80,000 packets in 10 s) (each its own source port, so both spines
# carry them), numbered packets (xfab-roce counts every QP's gaps).
# Under that traffic, in the xdp and in the tc datapath:
#   - leaf1's xfabd is killed (SIGKILL): its programs stay attached and
#     forward with no xfabd (the port counters, read from the pins, go on
#     growing); a new xfabd takes the links over in place;
#   - spine1's xfabd is killed and restarted at once;
#   - leaf4's xfabd restarts itself on `xfabctl restart`;
# and not one packet is lost: every QP delivers every packet, both ways.
# The oracle is the packets' own numbering, the kernel's view of the
# devices (`ip -d link`: the XDP program id), and what the switch showed
# before the restart (routes, counters).
# Then an xfabd of another ABI (the pinned ABI record rewritten) is refused
# with a clear message and leaves the data plane forwarding; --force
# replaces it. Nothing is left after the lab goes down.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
need_frr
TOPO="$ROOT/testbeds/clos-2x4.json"
DATAPATHS=${XFAB_RESTART_DATAPATHS:-xdp tc}
tmp=$(mktemp -d)
NAME=
cleanup() {
	[ -n "$NAME" ] && "$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
lab() { timeout 200 "$ROOT/scripts/xfab-lab" "$@" "$TOPO" --name "$NAME"; }
L() { timeout 60 "$ROOT/scripts/xfab-lab" exec "$TOPO" --name "$NAME" "$@"; }
pins() { echo "/sys/fs/bpf/xfab/$NAME/$1"; }
ctl() { nsenter --net="/run/netns/$NAME-$1" "$ROOT/build/xfabctl" -P "$(pins "$1")" "${@:2}"; }
# The program the kernel runs on a switch's port: "xdp ID" or "tc ID".
prog_on() {
	local out
	out=$(ip -n "$NAME-$1" -d link show "$2")
	if [[ $out =~ prog/xdp\ id\ ([0-9]+) ]]; then
		echo "xdp ${BASH_REMATCH[1]}"
		return
	fi
	# bpftool 7.1 lists no tcx attachments per device: the program of the
	# link pinned for the port (traffic shows it is attached)
	bpftool -j link show pinned "$(pins "$1")/link_tc_$2" 2>/dev/null | jq -r '"tc \(.prog_id)"'
}
rx_ok() { ctl "$1" -j show counters | jq '[.[] | .rx_packets] | add'; }
restart() { timeout 60 "$ROOT/scripts/xfab-lab" restart "$TOPO" "$@" --name "$NAME"; }
routes() { ctl "$1" -j show routes | jq -c '[.[] | {prefix, type, m: [.members[]?.dev] | sort}] | sort'; }
agent_pid() { cat "/run/xfab-lab/$NAME/$1.pid"; }

for dp in $DATAPATHS; do
	NAME="r$$$dp"
	NAME=${NAME:0:10}
	lab_up_bgp || continue
	check "$dp: leaf1's port links are pinned" \
		test -e "$(pins leaf1)/link_${dp}_eth1" -a -e "$(pins leaf1)/link_${dp}_eth2"
	routes leaf1 >"$tmp/routes.before"
	check "$dp: leaf1's data plane holds the remote hosts' prefixes" \
		grep -q '10.4.1.0/24' "$tmp/routes.before"

	# ---- traffic both ways h1 <-> h7: 10 s of 16 QPs x 500 packets/s each way
	h1_h7_traffic 30 2000 8000 5000 25
	sleep 1

	# leaf1: SIGKILL, and a second with no xfabd at all
	prog0=$(prog_on leaf1 eth1)
	rx0=$(rx_ok leaf1)
	kill -9 "$(agent_pid leaf1)"
	sleep 1
	check "$dp: leaf1's xfabd killed: its program stays on eth1 ($prog0)" \
		test "$(prog_on leaf1 eth1)" = "$prog0"
	rx1=$(rx_ok leaf1)
	check "$dp: leaf1 forwards with no xfabd (RX_OK $rx0 -> $rx1)" test "$rx1" -gt "$rx0"
	if restart leaf1 >"$tmp/restart.log" 2>&1; then
		ok "$dp: a new xfabd on leaf1 comes up"
	else
		sed 's/^/# /' "$tmp/restart.log"
		not_ok "$dp: a new xfabd on leaf1 comes up"
	fi
	check "$dp: it took over leaf1's links in place" \
		grep -q "took over $dp datapath on eth1" "/run/xfab-lab/$NAME/leaf1.log"
	prog1=$(prog_on leaf1 eth1)
	check "$dp: eth1 runs the new xfabd's program ($prog0 -> $prog1)" \
		eval '[ -n "$prog1" ] && [ "$prog1" != "$prog0" ]'
	rx2=$(rx_ok leaf1)
	check "$dp: leaf1's counters carried over (RX_OK $rx1 -> $rx2)" test "$rx2" -ge "$rx1"
	routes leaf1 >"$tmp/routes.after"
	check "$dp: leaf1's routes after the restart are those before" \
		cmp -s "$tmp/routes.after" "$tmp/routes.before"
	cmp -s "$tmp/routes.after" "$tmp/routes.before" ||
		diff <(jq -c '.[]' "$tmp/routes.before") <(jq -c '.[]' "$tmp/routes.after") |
		head -20 | sed 's/^/# /'
	check "$dp: the old program is gone" eval '! bpftool prog show id "${prog0#* }" >/dev/null 2>&1'
	sleep 1

	# spine1: SIGKILL and a new one at once
	if restart spine1 >"$tmp/restart.log" 2>&1 &&
		grep -q "took over $dp datapath on eth1" "/run/xfab-lab/$NAME/spine1.log"; then
		ok "$dp: spine1's xfabd killed and taken over"
	else
		sed 's/^/# /' "$tmp/restart.log"
		not_ok "$dp: spine1's xfabd killed and taken over"
	fi
	sleep 1

	# leaf4: a planned restart (the same pid runs xfabd again)
	pid4=$(agent_pid leaf4)
	if restart leaf4 --how request >"$tmp/restart.log" 2>&1; then
		ok "$dp: leaf4's xfabd restarts on xfabctl restart"
	else
		sed 's/^/# /' "$tmp/restart.log"
		not_ok "$dp: leaf4's xfabd restarts on xfabctl restart"
	fi
	check "$dp: ... as the same process, which took over the links" eval \
		'[ "$(agent_pid leaf4)" = "$pid4" ] &&
		 grep -q "took over $dp datapath on eth1" "/run/xfab-lab/$NAME/leaf4.log"'

	h1_h7_judge 80000 "three restarts under traffic"

	# ---- another ABI in the pins: refused, and the data plane runs on
	if [ "$dp" = xdp ]; then
		p3=$(pins leaf3)
		bpftool -j map dump pinned "$p3/abi" >"$tmp/abi.json"
		magic=$(jq '.[0].formatted.value.magic' "$tmp/abi.json")
		le() { printf '%d %d %d %d ' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
		# shellcheck disable=SC2046
		bpftool map update pinned "$p3/abi" key 0 0 0 0 value $(le "$magic") $(le 99) \
			$(le "$(jq '.[0].formatted.value.drop_max' "$tmp/abi.json")") \
			$(le "$(jq '.[0].formatted.value.punt_max' "$tmp/abi.json")")
		prog3=$(prog_on leaf3 eth1)
		kill -9 "$(agent_pid leaf3)"
		if restart leaf3 >"$tmp/restart.log" 2>&1; then
			not_ok "$dp: an xfabd refuses pins of another ABI"
		else
			check "$dp: an xfabd refuses pins of another ABI, saying which" eval \
				'grep -q "are ABI v99, this xfabd is v" "/run/xfab-lab/$NAME/leaf3.log" &&
				 grep -q "refusing to adopt them" "/run/xfab-lab/$NAME/leaf3.log"'
		fi
		check "$dp: ... and leaves the running data plane as it was" eval \
			'[ "$(prog_on leaf3 eth1)" = "$prog3" ] &&
			 L h5 ping -n -q -c 2 -i 0.2 -W 2 10.1.1.2 >/dev/null'
		nsenter --net="/run/netns/$NAME-leaf3" "$ROOT/build/xfabd" \
			-c "/run/xfab-lab/$NAME/leaf3.json" --pin-root "/sys/fs/bpf/xfab/$NAME" \
			--pidfile "/run/xfab-lab/$NAME/leaf3.pid" --force \
			>"$tmp/force.log" 2>&1 </dev/null &
		check "$dp: --force replaces them" eventually 15 grep -q "forwarding on" "$tmp/force.log"
		check "$dp: ... and leaf3 forwards on the new tables (h5 -> h1, h1 -> h6)" eval \
			'[ "$(prog_on leaf3 eth1)" != "$prog3" ] &&
			 L h5 ping -n -q -c 2 -i 0.2 -W 2 10.1.1.2 >/dev/null &&
			 L h1 ping -n -q -c 2 -i 0.2 -W 2 10.3.2.2 >/dev/null'
	fi

	lab_down_checked
	NAME=
done
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
