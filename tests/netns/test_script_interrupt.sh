#!/bin/bash
# netns test of the scripts that build labs or namespaces (issue 32): each
# stopped from outside at two points cleans up after itself. The scripts:
# lb-experiments, ecn-experiments, pfc-experiments, fabric-experiments,
# failover-experiment, soak (each through its lab, scripts/lab_common.py
# and scripts/xfablab/signals.py) and the bench (its own namespaces).
# The points: while its lab comes up (its first namespace exists; the
# bench: its first xfabd runs) and once its traffic runs (xfab-roce, iperf3,
# xfab-coll, ping, tcpdump or the soak's own ends in a host namespace; the
# bench: its second configuration's xfabd). SIGTERM at
# the first, SIGINT at the second (SIGHUP once, for the bench). After each:
# the exit status is 128 + the signal, and nothing of the script is left:
# no namespace, lab state, pin, control socket directory or process of
# its lab (scripts/sync-bench has its own test, test_sync_bench_interrupt.sh).
# About 1-2 minutes: 12 labs brought up part of the way, 2 bench set-ups.
# mutate: scripts/lab_common.py scripts/xfablab/signals.py; labs: xq1 xq2 xq3 xq4 xq6
# mutate: scripts/xfabbench/cli.py; labs: xq1 xq2 xq3 xq4 xq6
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
need_frr
tmp=$(mktemp -d)
PID=
cleanup() {
	[ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null
	for lab in xq1 xq2 xq3 xq4 xq6 "${FX:-}"; do
		[ -n "$lab" ] && "$ROOT/scripts/xfab-lab" down "$ROOT/testbeds/clos-2x4.json" \
			--name "$lab" >/dev/null 2>&1
	done
	pkill -f "xfabd -c /run/xfab-bench" 2>/dev/null
	for n in xfb-gen xfb-dut xfb-sink; do ip netns del "$n" 2>/dev/null; done
	rm -rf /sys/fs/bpf/xfab-bench /run/xfab-bench "$tmp"
}
trap cleanup EXIT INT TERM

# what a lab or the bench left: one line per object, empty when nothing
left() { # left LAB (a lab name, or "bench")
	local pre=$1-
	[ "$1" = bench ] && pre=xfb-
	ip netns list | awk -v p="$pre" 'index($1, p) == 1 {print "netns " $1}'
	if [ "$1" = bench ]; then
		for d in /sys/fs/bpf/xfab-bench /run/xfab-bench; do [ -e "$d" ] && echo "dir $d"; done
		pgrep -f "xfabd -c /run/xfab-bench" | sed 's/^/process /'
	else
		for d in "/run/xfab-lab/$1" "/sys/fs/bpf/xfab/$1" "/run/xfab/$1"; do
			[ -e "$d" ] && echo "dir $d"
		done
		pgrep -f "/run/xfab-lab/$1/" | sed 's/^/process /'
	fi
}

# a point: the lab's first namespace (up under way); traffic (a process in
# one of its hosts); for the bench its first, then its second xfabd
lab_coming() { ip netns list | grep -q "^$1-"; }
lab_traffic() { # a traffic end in a host (not a command of the bring-up)
	local h p
	for h in h1 h2 h3 h4 h5 h6 h7 h8; do
		for p in $(ip netns pids "$1-$h" 2>/dev/null); do
			case $(ps -o comm= -p "$p") in
			xfab-roce | xfab-coll | iperf3 | python3 | soak | ping | tcpdump) return 0 ;;
			esac
		done
	done
	return 1
}
bench_xfabd() { # bench_xfabd N: the N-th xfabd the bench started is running
	[ "$(grep -c '^round .* xfab_' "$tmp/run.log" 2>/dev/null)" -ge $(($1 - 1)) ] &&
		pgrep -f "xfabd -c /run/xfab-bench" >/dev/null
}

# interrupt LAB SIG WAIT-CMD -- SCRIPT ARGS...: the script started, WAIT-CMD
# polled (up to 150 s), then the signal; judged: its status and what it left
interrupt() {
	local lab=$1 sig=$2 point=$3 rc reached=1
	shift 4
	"$@" >"$tmp/run.log" 2>&1 &
	PID=$!
	if ! eventually 150 eval "$point"; then
		echo "    never reached ($point): $(tail -3 "$tmp/run.log" | tr '\n' ' ')"
		reached=0
	fi
	kill "-$sig" "$PID"
	# its clean-up: a lab down takes 5-10 s here; killed if it hangs past 60
	timeout 60 tail --pid="$PID" -f /dev/null || kill -KILL "$PID"
	wait "$PID"
	rc=$?
	PID=
	[ "$lab" = fx ] && lab=$FX
	echo "    $(basename "$1") $sig at '$point': exit $rc; $(grep -m1 'cleaning up' "$tmp/run.log")"
	left "$lab" >"$tmp/left"
	sed 's/^/    left: /' "$tmp/left"
	[ "$reached" -eq 1 ] && [ "$rc" -eq $((128 + $(kill -l "$sig"))) ] && [ ! -s "$tmp/left" ]
}

# once one fails the rest are not run: they share the handler (a broken
# one costs each of them the 60 s wait above), and the first says why
judge() { # judge DESC CMD...: lib.sh's check, until one has failed
	if [ "$fail" -gt 0 ]; then
		echo "# not run after the failure above: $1"
	else
		check "$@"
	fi
}

S=$ROOT/scripts
judge "lb-experiments: SIGTERM while its lab comes up" \
	interrupt xq1 TERM "lab_coming xq1" -- "$S/lb-experiments" balance --name xq1
judge "lb-experiments: SIGINT once its traffic runs" \
	interrupt xq1 INT "lab_traffic xq1" -- "$S/lb-experiments" balance --name xq1
judge "ecn-experiments: SIGTERM while its lab comes up" \
	interrupt xq2 TERM "lab_coming xq2" -- "$S/ecn-experiments" incast --name xq2
judge "ecn-experiments: SIGINT once its traffic runs" \
	interrupt xq2 INT "lab_traffic xq2" -- "$S/ecn-experiments" incast --name xq2
judge "pfc-experiments: SIGTERM while its lab comes up" \
	interrupt xq3 TERM "lab_coming xq3" -- "$S/pfc-experiments" --runs lossless --name xq3
judge "pfc-experiments: SIGINT once its traffic runs" \
	interrupt xq3 INT "lab_traffic xq3" -- "$S/pfc-experiments" --runs lossless --name xq3
FAB=("$S/fabric-experiments" --name xq4 --modes ecmp_1qp --repeats 1 --sizes 256K --iters 1
	--out "$tmp/fab.json" --plot "$tmp/fab.png" --doc "$tmp/fab.md")
judge "fabric-experiments: SIGTERM while its lab comes up" \
	interrupt xq4 TERM "lab_coming xq4" -- "${FAB[@]}"
judge "fabric-experiments: SIGINT once its traffic runs" \
	interrupt xq4 INT "lab_traffic xq4" -- "${FAB[@]}"
# failover-experiment names its lab fx<its pid>: found once it exists
fx_coming() { FX=$(ip netns list | grep -om1 '^fx[0-9]*'); [ -n "$FX" ]; }
fx_traffic() { fx_coming && lab_traffic "$FX"; }
judge "failover-experiment: SIGTERM while its lab comes up" \
	interrupt fx TERM fx_coming -- "$S/failover-experiment" --modes xdp --failures cut
judge "failover-experiment: SIGINT once its traffic runs" \
	interrupt fx INT fx_traffic -- "$S/failover-experiment" --modes xdp --failures cut
judge "soak: SIGTERM while its lab comes up" \
	interrupt xq6 TERM "lab_coming xq6" -- "$S/soak" --minutes 1 --name xq6
judge "soak: SIGINT once its traffic runs" \
	interrupt xq6 INT "lab_traffic xq6" -- "$S/soak" --minutes 1 --name xq6
BENCH=("$S/bench" --only "redirect,xfab_l3,xfab_ecmp16" --rounds 2 --json "$tmp/b.json"
	--report "$tmp/b.md")
judge "bench: SIGTERM at its first xfabd" interrupt bench TERM "bench_xfabd 1" -- "${BENCH[@]}"
judge "bench: SIGHUP at its second xfabd" interrupt bench HUP "bench_xfabd 2" -- "${BENCH[@]}"

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
