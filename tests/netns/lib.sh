# shellcheck shell=bash
# What every netns test shares (sourced, not run: tests/run-all runs only
# test_*.sh): the skips, ROOT, TAP-style results and polling.
#
#   . "$(dirname "$0")/lib.sh"
#   need_root; need_frr; need_cmds CMD...
#                                  # skip unless they hold (skip_test)
#   skip_test REASON               # the whole test skipped: "# SKIP: REASON",
#                                  # exit 77; tests/run-all counts it a skip,
#                                  # a failure under CI=true (CI installs all)
#   check "DESC" CMD...            # ok/not ok by CMD's status; counts in $pass, $fail
#   check_needs TOOL "DESC" CMD... # check, or "ok - DESC # SKIP" without TOOL
#                                  # (run-all counts it a skip, a failure in CI)
#   eventually SECONDS CMD...      # CMD holds within SECONDS (polled every 0.1 s)
set -u -o pipefail
# shellcheck disable=SC2034 # ROOT, pass and fail are for the tests that source this
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
pass=0
fail=0

# Exit status 77 (automake's "skipped"): not a pass, not a failure; the
# runner counts it and says why.
skip_test() {
	echo "# SKIP: $(basename "$0") $*"
	exit 77
}

need_root() {
	[ "$(id -u)" -eq 0 ] || skip_test "needs root (network namespaces, BPF)"
}

# The shipped topologies route with BGP: FRR's daemons in every switch
# (XFAB_FRR_DIR: where they are looked for; test_skips.sh hides them).
need_frr() {
	local d=${XFAB_FRR_DIR:-/usr/lib/frr}
	if [ ! -x "$d/bgpd" ] || [ ! -x "$d/zebra" ] || ! command -v vtysh >/dev/null; then
		skip_test "needs FRR (scripts/install-deps installs it)"
	fi
}

need_cmds() { # need_cmds CMD...: each on PATH
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || skip_test "needs $c (scripts/install-deps installs it)"
	done
}

ok() {
	pass=$((pass + 1))
	echo "ok - $*"
}
not_ok() {
	fail=$((fail + 1))
	echo "not ok - $*"
}
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

check_needs() {
	local tool=$1
	shift
	if command -v "$tool" >/dev/null; then
		check "$@"
	else
		echo "ok - $1 # SKIP needs $tool (scripts/install-deps installs it)"
	fi
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# Receivers (xfab-roce recv -j, each one's stderr in a FILE) are bound: their
# senders start after this, not after a sleep a busy box can outlast (what
# arrives before the bind the host refuses, and no receiver counts it).
receivers_ready() {
	local f
	for f in "$@"; do
		eventually 30 grep -q "listening on UDP" "$f" || {
			not_ok "a receiver bound its port ($f)"
			return 1
		}
	done
}

# Numbered RoCE traffic both ways between h1 (10.1.1.2) and h7 (10.4.1.2),
# 16 QPs each way, through the caller's L (xfab-lab exec): the receivers
# first (JSON in $tmp/at_h1.json and at_h7.json), then the senders (their
# reports in $tmp/sent_h1 and sent_h7). Sets r1 r7 s1 s7, the pids.
# h1_h7_traffic RECV_S IDLE_MS RATE COUNT SEND_S (RATE: packets/s a way;
# COUNT: per QP)
# shellcheck disable=SC2154,SC2034 # tmp and L are the caller's; the pids are for it
h1_h7_traffic() {
	L h1 "$ROOT/build/xfab-roce" recv --duration "$1" --idle-ms "$2" -j >"$tmp/at_h1.json" \
		2>"$tmp/at_h1.err" &
	r1=$!
	L h7 "$ROOT/build/xfab-roce" recv --duration "$1" --idle-ms "$2" -j >"$tmp/at_h7.json" \
		2>"$tmp/at_h7.err" &
	r7=$!
	receivers_ready "$tmp/at_h1.err" "$tmp/at_h7.err"
	L h7 "$ROOT/build/xfab-roce" send --dst 10.1.1.2 --qps 16 --sport-per-qp --rate "$3" \
		--count "$4" --size 256 --duration "$5" >"$tmp/sent_h7" 2>&1 &
	s7=$!
	L h1 "$ROOT/build/xfab-roce" send --dst 10.4.1.2 --qps 16 --sport-per-qp --rate "$3" \
		--count "$4" --size 256 --duration "$5" >"$tmp/sent_h1" 2>&1 &
	s1=$!
}

# Waits for h1_h7_traffic's senders and receivers, then checks each way:
# all SENT packets sent and arrived, none lost (the packets' own
# numbering), on 16 QPs. h1_h7_judge SENT WHAT ("$dp: WHAT h7 -> h1: ...")
# shellcheck disable=SC2154 # tmp, dp and the pids are the caller's
h1_h7_judge() {
	local way f sent got lost qps want=$1
	wait "$s1" "$s7"
	wait "$r1" "$r7"
	for way in "h7 -> h1:at_h1:sent_h7" "h1 -> h7:at_h7:sent_h1"; do
		f=${way#*:}
		sent=$(awk '/^sent/ {print $2}' "$tmp/${f#*:}")
		f="$tmp/${f%:*}.json"
		got=$(jq '[.flows[].packets] | add' "$f" 2>/dev/null)
		lost=$(jq '.lost' "$f" 2>/dev/null)
		qps=$(jq '[.flows[] | select(.packets > 0)] | length' "$f" 2>/dev/null)
		way=${way%%:*}
		echo "# $way: $got of $sent packets sent arrived on $qps QPs, $lost lost (longest gap $(jq .max_gap_ms "$f" 2>/dev/null) ms)"
		check "$dp: $2 $way: every packet of 16 QPs arrived" \
			eval '[ "$sent" = "$want" ] && [ "$got" = "$want" ] && [ "$lost" = 0 ] && [ "$qps" = 16 ]'
	done
}

# The caller's lab (its `lab` function) up on datapath $dp with BGP: ok, or
# not ok with up's last lines (the caller then goes on to its next datapath).
# shellcheck disable=SC2154 # tmp and dp are the caller's
lab_up_bgp() {
	echo "# ---- $dp datapath, lab $NAME"
	if ! lab up --datapath "$dp" --routing bgp >"$tmp/up.log" 2>&1; then
		tail -20 "$tmp/up.log" | sed 's/^/# /'
		not_ok "$dp: the lab comes up"
		return 1
	fi
	ok "$dp: the lab comes up"
}

# The caller's lab (its `lab` function) down, and nothing of lab $NAME
# left: namespaces, pins, control sockets, agents.
# shellcheck disable=SC2154 # dp is the caller's
lab_down_checked() {
	lab down >/dev/null 2>&1
	check "$dp: nothing left after the lab goes down (namespaces, pins, sockets, agents)" eval \
		'! ip netns list | grep -q "^$NAME-" && [ ! -e "/sys/fs/bpf/xfab/$NAME" ] &&
		 [ ! -e "/run/xfab/$NAME" ] && ! pgrep -f "/run/xfab-lab/$NAME/" >/dev/null'
}

# bgp_ends_established WANT NODE...: the Established sessions of the nodes'
# bgpd, IPv4 and IPv6, summed (a session counted at both its ends), are
# WANT; the sum is left in $tmp/established. The caller's L runs a command
# in a node (xfab-lab exec).
# shellcheck disable=SC2154 # tmp is the caller's
bgp_ends_established() {
	local want=$1 n sum=0 c
	shift
	for n in "$@"; do
		c=$(L "$n" vtysh -c "show bgp summary json" |
			jq '[.ipv4Unicast.peers[], .ipv6Unicast.peers[] | select(.state == "Established")] | length')
		sum=$((sum + ${c:-0}))
	done
	echo "$sum" >"$tmp/established"
	[ "$sum" = "$want" ]
}

# route_members NODE PREFIX: "PORT,PORT PROTOCOL" of PREFIX's route in the
# node's data plane (its members' ports, sorted), by the caller's L.
route_members() {
	L "$1" xfabctl -j show routes | jq -r --arg p "$2" \
		'.[] | select(.prefix == $p) | ([.members[].dev] | sort | join(",")) + " " + .protocol'
}

# Labs converge asynchronously (BGP, the FIB mirror, events).
eventually() {
	local end=$(($(now_ms) + $1 * 1000))
	shift
	until "$@"; do
		[ "$(now_ms)" -lt "$end" ] || return 1
		sleep 0.1
	done
}
