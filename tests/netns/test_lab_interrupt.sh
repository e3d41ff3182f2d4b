#!/bin/bash
# netns test of the lab's robustness: `xfab-lab up` killed at each of its
# steps in turn, then `xfab-lab down`, leaves nothing behind.
# The steps are not listed here: a full `up` of clos-2x4 (BGP, xdp) with
# XFAB_LAB_STEPS=1 prints each step's name as it passes it, so a step added
# to xfab-lab is interrupted too. Then for every step, a fresh `up` with
# XFAB_LAB_KILL_AT=STEP (xfab-lab SIGKILLs itself there: no handler, no
# clean-up of its own, like a power cut of the shell) and a `down`. After
# each: no namespace of the lab, no network device in the root namespace
# that was not there before, no pin (nor an empty pin directory) under
# /sys/fs/bpf/xfab, no process whose command line names the lab's state
# directory (xfabd, zebra, bgpd, bfdd, in a namespace or in one already
# deleted), no lab state under /run/xfab-lab or /run/xfab, no qdisc or
# attached program in the root namespace that was not there before. The
# lab name is xsi; the test takes about 3-4 minutes.
# mutate: scripts/xfab-lab scripts/xfablab/cleanup.py; labs: xsi
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
need_frr
TOPO="$ROOT/testbeds/clos-2x4.json"
NAME=xsi
tmp=$(mktemp -d)
lab() { timeout 200 "$ROOT/scripts/xfab-lab" "$1" "$TOPO" --name "$NAME" "${@:2}"; }
cleanup() {
	lab down >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# Everything of this lab the machine holds, one line per object (compare
# tests/run-all's leftover check, which sees the whole machine).
snapshot() {
	ip netns list 2>/dev/null | awk -v p="$NAME-" 'index($1, p) == 1 {print "netns " $1}'
	ip -o link show 2>/dev/null | awk -F': ' '{print "link " $2}' | sed 's/@.*//'
	[ -e "/sys/fs/bpf/xfab/$NAME" ] && find "/sys/fs/bpf/xfab/$NAME" | sed 's/^/pin /'
	# the pin base is the lab's own leftover when no other lab uses it
	[ -d /sys/fs/bpf/xfab ] && [ -z "$(ls -A /sys/fs/bpf/xfab)" ] && echo "pin empty /sys/fs/bpf/xfab"
	for d in "/run/xfab-lab/$NAME" "/run/xfab/$NAME"; do
		[ -e "$d" ] && find "$d" | sed 's/^/file /'
	done
	for d in /run/xfab-lab /run/xfab; do
		[ -d "$d" ] && [ -z "$(ls -A "$d")" ] && echo "file empty $d"
	done
	pgrep -a -f "/run/xfab-lab/$NAME/" | grep -v -e pgrep -e "$0" | sed 's/^/process /'
	tc qdisc show 2>/dev/null | grep -vE ' (noqueue|mq|fq_codel|pfifo_fast) ' | sed 's/^/qdisc /'
	bpftool net show 2>/dev/null | grep -E '^[a-z0-9@._-]+\(' | sed 's/^/attached /'
}

lab down >/dev/null 2>&1
snapshot | sort >"$tmp/before"

# ---- the steps, from a full run
if XFAB_LAB_STEPS=1 lab up --datapath xdp --routing bgp >"$tmp/full.out" 2>"$tmp/full.err"; then
	ok "a full up passes its steps"
else
	tail -20 "$tmp/full.err" | sed 's/^/# /'
	not_ok "a full up passes its steps"
fi
sed -n 's/^xfab-lab step: //p' "$tmp/full.err" >"$tmp/steps"
mapfile -t steps <"$tmp/steps"
echo "# ${#steps[@]} steps: ${steps[*]}"
# the oracle of the hook: the step names the test knows up must pass
for s in begin state netns-first links agents-started bgp-converged nexthops-resolved; do
	check "up passes step $s" grep -qx "$s" "$tmp/steps"
done
check "no step is passed twice" eval '[ "$(sort "$tmp/steps" | uniq -d | wc -l)" -eq 0 ]'
check "the full lab forwards (h1 -> h8)" eval \
	'"$ROOT/scripts/xfab-lab" exec "$TOPO" --name "$NAME" h1 ping -c 1 -W 2 -q 10.4.2.2 >/dev/null'
lab down >/dev/null 2>&1
snapshot | sort >"$tmp/after"
check "down after a full up leaves nothing" cmp -s "$tmp/before" "$tmp/after"

# ---- each step in turn
for s in "${steps[@]}"; do
	XFAB_LAB_KILL_AT=$s lab up --datapath xdp --routing bgp >"$tmp/up.out" 2>&1
	rc=$?
	# 137: killed by SIGKILL where the step is (not failed, not finished)
	if [ "$rc" -ne 137 ]; then
		# the hook did not fire: the other steps would test nothing either
		not_ok "up killed at step $s (exit $rc, not 137: stopping)"
		break
	fi
	ok "up killed at step $s (exit $rc)"
	# what a killed up left is real: its namespaces (once past netns-first)
	if [ "$s" = netns-first ]; then
		check "... it left a namespace behind for down to find" \
			eval 'ip netns list | grep -q "^$NAME-"'
	fi
	lab down >"$tmp/down.out" 2>&1
	check "... down after it succeeds" grep -q "is down" "$tmp/down.out"
	snapshot | sort >"$tmp/after"
	if cmp -s "$tmp/before" "$tmp/after"; then
		ok "... nothing left after down (killed at $s)"
	else
		comm -13 "$tmp/before" "$tmp/after" | sed 's/^/#   left: /'
		comm -23 "$tmp/before" "$tmp/after" | sed 's/^/#   gone: /'
		not_ok "... nothing left after down (killed at $s)"
		# the next step starts clean anyway
		lab down >/dev/null 2>&1
	fi
done
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
