# shellcheck shell=bash
# What every netns test shares (sourced, not run: tests/run-all runs only
# test_*.sh): the skips, ROOT, TAP-style results and polling.
#
#   . "$(dirname "$0")/lib.sh"
#   need_root; need_frr            # skip (exit 0, saying why) unless they hold
#   check "DESC" CMD...            # ok/not ok by CMD's status; counts in $pass, $fail
#   eventually SECONDS CMD...      # CMD holds within SECONDS (polled every 0.1 s)
set -u -o pipefail
# shellcheck disable=SC2034 # ROOT, pass and fail are for the tests that source this
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
pass=0
fail=0

need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "# skipped: $(basename "$0") needs root (network namespaces, BPF)"
		exit 0
	fi
}

# The shipped topologies route with BGP: FRR's daemons in every switch.
need_frr() {
	if [ ! -x /usr/lib/frr/bgpd ] || ! command -v vtysh >/dev/null; then
		echo "# skipped: $(basename "$0") needs FRR (scripts/install-deps installs it)"
		exit 0
	fi
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

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# Labs converge asynchronously (BGP, the FIB mirror, events).
eventually() {
	local end=$(($(now_ms) + $1 * 1000))
	shift
	until "$@"; do
		[ "$(now_ms)" -lt "$end" ] || return 1
		sleep 0.1
	done
}
