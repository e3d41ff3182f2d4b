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

# Labs converge asynchronously (BGP, the FIB mirror, events).
eventually() {
	local end=$(($(now_ms) + $1 * 1000))
	shift
	until "$@"; do
		[ "$(now_ms)" -lt "$end" ] || return 1
		sleep 0.1
	done
}
