#!/bin/bash
# netns test of FRR restarts under traffic (graceful restart, docs/LAB.md): a
# clos-2x4 BGP lab, traffic both ways between h1 (leaf1) and h7 (leaf4), 16
# QPs each way (96,000 packets), each its own source port (both spines carry some), numbered
# packets (xfab-roce counts every QP's gaps). Under that traffic, in the xdp
# (lab gr) and the tc datapath (lab gr2):
#   - spine1's FRR (zebra, bfdd, bgpd) is stopped and started again
#     (xfab-lab restart --frr all), awaited until BGP has converged again;
#     then leaf1's, whose both spines must keep its subnets meanwhile;
#   - not one packet is lost, either way;
#   - no route to a host subnet was deleted from spine1's, spine2's, leaf1's
#     or leaf4's kernel FIB meanwhile (`ip monitor route` in each: the
#     restarted switch kept its routes, the others always had a path), and
#     leaf4's route to h1's subnet is back on both spines;
#   - then spine2's and leaf1's bgpd alone (--frr bgpd) under traffic
#     again: killed, not stopped, bfdd restarted with it, zebra left
#     running, its sessions back, not one packet lost: zebra deletes every
#     route from the kernel as the new bgpd comes up (FRR 8.4's startup
#     window, docs/LAB.md: checked that it did), and xfabd holds each of
#     those withdrawals (show fib-sync) until bgpd has sent it again;
#   - every BGP session of every switch is Established again, with graceful
#     restart negotiated both ways (bgpd's neighbor JSON);
#   - a route zebra no longer has is swept: one planted in spine1's kernel as
#     zebra's own (proto bgp) before its FRR restart, mirrored into its data
#     plane, is still there right after (zebra -K keeps what it finds as
#     stale) and gone from the kernel and the data plane once zebra's
#     graceful restart time (FRR_GR_S) has passed; the kernel FIB and the
#     data plane then agree on every route.
# The oracle is the packets' own numbering, the kernel's own route events and
# tables, and bgpd's view of its sessions.
# mutate: scripts/xfablab/frr.py scripts/xfablab/frrconf.py; labs: gr gr2
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
need_frr
need_cmds jq
TOPO="$ROOT/testbeds/clos-2x4.json"
DATAPATHS=${XFAB_FRR_RESTART_DATAPATHS:-xdp tc}
# zebra's graceful restart time (-K): the lab's FRR_GR_S
GR_S=$(cd "$ROOT/scripts" && python3 -B -c 'from xfablab.common import FRR_GR_S; print(FRR_GR_S)')
STALE=10.99.0.0/24 # the planted route (no lab subnet)
tmp=$(mktemp -d)
NAME=
mons=()
cleanup() {
	[ ${#mons[@]} -gt 0 ] && kill "${mons[@]}" 2>/dev/null
	[ -n "$NAME" ] && "$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
# a signal ends the test (through cleanup), not just one of its commands
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
lab() { timeout 200 "$ROOT/scripts/xfab-lab" "$@" "$TOPO" --name "$NAME"; }
L() { timeout 120 "$ROOT/scripts/xfab-lab" exec "$TOPO" --name "$NAME" "$@"; }
ns() { nsenter --net="/run/netns/$NAME-$1" "${@:2}"; }
ctl() { ns "$1" "$ROOT/build/xfabctl" -P "/sys/fs/bpf/xfab/$NAME/$1" "${@:2}"; }
frr_restart() { # NODE all|bgpd
	if timeout 120 "$ROOT/scripts/xfab-lab" restart "$TOPO" "$1" --frr "$2" --name "$NAME" \
		>"$tmp/restart.log" 2>&1; then
		ok "$dp: $1's FRR ($2) restarted under traffic, BGP converged again ($(grep -o 'in [0-9.]* s' "$tmp/restart.log"))"
	else
		sed 's/^/# /' "$tmp/restart.log"
		not_ok "$dp: $1's FRR ($2) restarted under traffic, BGP converged again"
	fi
}
kernel_has() { ns "$1" ip -4 route show "$2" | grep -q .; }
dp_has() { ctl "$1" -j show routes | jq -e --arg p "$2" 'any(.[]; .prefix == $p)' >/dev/null; }
# every session of a switch Established, graceful restart negotiated both ways
sessions_graceful() {
	L "$1" vtysh -c "show bgp neighbors json" >"$tmp/nb.json" 2>/dev/null &&
		jq -e 'length > 0 and ([.[] | .bgpState == "Established" and
		       .neighborCapabilities.gracefulRestart == "advertisedAndReceived"] | all)' \
			"$tmp/nb.json" >/dev/null
}
# the kernel's routes from zebra (proto bgp) and the data plane's mirrored
# ones, "prefix ports" each: the same
kernel_vs_dp() {
	diff <({ ns "$1" ip -j -4 route show proto bgp; ns "$1" ip -j -6 route show proto bgp; } |
		jq -r '.[] | "\(.dst) \([(.nexthops // [.])[] | .dev] | sort | join(","))"' | sort) \
		<(ctl "$1" -j show routes | jq -r '.[] | select(.protocol == "bgp") |
		"\(.prefix) \([.members[]?.dev] | sort | join(","))"' | sort) >"$tmp/kvd" 2>&1
}

for dp in $DATAPATHS; do
	NAME=gr
	[ "$dp" = tc ] && NAME=gr2
	lab_up_bgp || continue
	for n in spine1 spine2 leaf1 leaf4; do
		ns "$n" ip -ts monitor route >"$tmp/mon.$n" 2>&1 &
		mons+=($!)
	done

	# a route zebra does not know, in spine1's kernel as zebra's own
	gw=$(ns spine1 ip -j -4 route show 10.1.1.0/24 | jq -r '.[0].gateway // .[0].nexthops[0].gateway')
	ns spine1 ip route add "$STALE" via "$gw" proto bgp metric 20
	check "$dp: a route planted in spine1's kernel (proto bgp) is mirrored into its data plane" \
		eventually 10 dp_has spine1 "$STALE"

	# ---- traffic both ways h1 <-> h7: 16 QPs x 125 packets/s each way, 48 s
	h1_h7_traffic 60 5000 2000 6000 55
	sleep 2
	t_restart=$(now_ms)
	frr_restart spine1 all
	check "$dp: right after, zebra keeps the planted route as stale: kernel and data plane hold it" \
		eval 'kernel_has spine1 "$STALE" && dp_has spine1 "$STALE"'
	sleep 2
	frr_restart leaf1 all
	h1_h7_judge 96000 "spine1's and then leaf1's FRR restarted under traffic"
	for n in spine1 spine2 leaf1 leaf4; do
		grep -E '^\[[^]]*\] ?Deleted (10\.[0-9]+\.[0-9]+\.0/24|fd00:)' "$tmp/mon.$n" |
			grep -v "$STALE" >"$tmp/del.$n"
		check "$n: no route to a host subnet left its kernel FIB ($(wc -l <"$tmp/del.$n") deleted)" \
			test ! -s "$tmp/del.$n"
		head -3 "$tmp/del.$n" | sed 's/^/#   /'
	done
	# each change of leaf4's route to h1's subnet, as one line: all its members
	awk '/^\[/ {if (r) print r; r = ""} /10\.1\.1\.0\/24/ {r = $0; next}
		r && /nexthop/ {r = r " " $0} END {if (r) print r}' "$tmp/mon.leaf4" >"$tmp/l4.routes"
	# BFD takes the restarted switch's sessions down at its neighbours (FRR 8.4,
	# docs/LAB.md): they leave its paths for a moment, never the route
	echo "# leaf4's route to h1's subnet changed $(wc -l <"$tmp/l4.routes") times, $(grep -vc "dev eth1.*dev eth2\|dev eth2.*dev eth1" "$tmp/l4.routes") of them to one spine"
	check "$dp: leaf4's route to h1's subnet is back on both spines" eval \
		'ns leaf4 ip -4 route show 10.1.1.0/24 | grep -q "dev eth1" &&
		 ns leaf4 ip -4 route show 10.1.1.0/24 | grep -q "dev eth2"'
	for n in spine1 spine2 leaf1 leaf2 leaf3 leaf4; do
		check "$dp: $n: every BGP session Established, graceful restart negotiated both ways" \
			eventually 30 sessions_graceful "$n"
	done
	# zebra sweeps what it kept and bgpd did not send again FRR_GR_S after it
	# started; bounded by that configured time, not a guess
	left=$((GR_S + 15 - ($(now_ms) - t_restart) / 1000))
	[ "$left" -lt 1 ] && left=1
	check "$dp: the planted route is swept from spine1's kernel and data plane (zebra -K $GR_S s)" \
		eventually "$left" eval '! kernel_has spine1 "$STALE" && ! dp_has spine1 "$STALE"'
	for n in spine1 leaf1 leaf4; do
		check "$dp: $n: the kernel FIB's routes and the data plane's agree after the sweep" \
			kernel_vs_dp "$n"
		head -5 "$tmp/kvd" | sed 's/^/#   /'
	done

	# ---- bgpd alone (docs/LAB.md): killed, not stopped (a cleanly exiting
	# bgpd withdraws every route it installed), and bfdd with it (its
	# sessions are bgpd's); zebra stays. spine2's, then leaf1's, under
	# traffic again: each has a neighbour whose bgpd started within 2
	# minutes (leaf1's above, then spine2's), whose Restart State bit makes
	# FRR 8.4's new bgpd tell zebra at once that its routes are complete,
	# and zebra deletes them all before bgpd sends them again (docs/LAB.md,
	# "The startup window"); xfabd holds those withdrawals (FIB_SYNC
	# restart_hold_ms) until bgpd has sent the routes again
	pids() { for d in zebra bgpd bfdd; do cat "/run/xfab-lab/$NAME/$1/$d.pid"; done | tr '\n' ' '; }
	held() { ctl "$1" -j show fib-sync | jq -r '.withdrawals_held_restart'; }
	declare -A from h0
	for n in spine2 leaf1; do
		from[$n]=$(($(wc -l <"$tmp/mon.$n") + 1))
		h0[$n]=$(held "$n")
	done
	h1_h7_traffic 55 5000 2000 4500 45
	sleep 2
	for n in spine2 leaf1; do
		p0=$(pids "$n")
		log0=$(wc -l <"/run/xfab-lab/$NAME/$n/bgpd.log") # its FRR was stopped above
		frr_restart "$n" bgpd
		read -r z0 b0 f0 <<<"$p0"
		read -r z1 b1 f1 <<<"$(pids "$n")"
		check "$dp: bgpd alone: $n's bgpd and bfdd are new ($b0 -> $b1, $f0 -> $f1), its zebra the same ($z0)" \
			eval '[ "$z1" = "$z0" ] && [ "$b1" != "$b0" ] && [ "$f1" != "$f0" ]'
		check "$dp: bgpd alone: $n's was killed, not stopped (no 'Terminating on signal' in its log)" \
			eval '! tail -n +$((log0 + 1)) "/run/xfab-lab/$NAME/$n/bgpd.log" | grep -q "Terminating on signal"'
		check "$dp: bgpd alone: $n's every BGP session Established again, graceful both ways" \
			eventually 30 sessions_graceful "$n"
	done
	h1_h7_judge 72000 "spine2's and then leaf1's bgpd restarted alone under traffic"
	for n in spine2 leaf1; do
		dels=$(tail -n +"${from[$n]}" "$tmp/mon.$n" |
			grep -cE '^\[[^]]*\] ?Deleted (10\.[0-9]+\.[0-9]+\.0/24|fd00:)')
		h=$(($(held "$n") - h0[$n]))
		# if FRR stops sweeping, this says so: the hold then has nothing to do
		check "$dp: bgpd alone: $n's zebra deleted routes to host subnets from its kernel as its new bgpd came up ($dels)" \
			test "$dels" -gt 0
		check "$dp: bgpd alone: $n's data plane held them until bgpd sent them again ($h held, restart_hold_ms)" \
			test "$h" -ge "$dels"
	done

	kill "${mons[@]}" 2>/dev/null
	wait "${mons[@]}" 2>/dev/null
	mons=()
	lab_down_checked
	NAME=
done
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
