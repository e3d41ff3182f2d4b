#!/bin/bash
# netns test of scripts/sync-bench's clean-up, about 1 minute: the bench
# stopped at each of its named steps (XFAB_SYNC_BENCH_SIGNAL_AT=STEP: it
# sends itself the signal there, as if it came from outside) by SIGTERM,
# SIGINT at two of them, and failing by itself (an xfabd that never comes
# up: the bench gives up after 30 s with that xfabd still running). After
# each: the exit status says so (128 + the signal, or 1), and nothing of the
# bench is left: no xfs-* namespace, no pin directory, no state or control
# socket directory, no process of the bench's xfabd (nor the stand-in's).
# mutate: scripts/sync-bench; labs:
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
tmp=$(mktemp -d)
BENCH_PID=
cleanup() {
	[ -n "$BENCH_PID" ] && kill "$BENCH_PID" 2>/dev/null && wait "$BENCH_PID" 2>/dev/null
	# the stale namespace's process, if the bench did not remove it
	for pid in $(pgrep -fx "sleep 3017"); do kill "$pid"; done
	ip netns del xfs-dut 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

BUILD=${XFAB_BUILD:-$ROOT/build}
# left: what the bench left behind, named; fails if anything
left() {
	local what="" ns
	ns=$(ip netns list | awk '/^xfs-/{printf " %s", $1}')
	[ -n "$ns" ] && what+=" namespaces:$ns"
	[ -e /sys/fs/bpf/xfab-syncbench ] && what+=" pins"
	[ -e /run/xfab-syncbench ] && what+=" /run/xfab-syncbench"
	[ -e /run/xfab/xfab-syncbench ] && what+=" /run/xfab/xfab-syncbench"
	pgrep -f -- '--pin-root /sys/fs/bpf/xfab-syncbench' >/dev/null && what+=" xfabd"
	pgrep -f -- "$tmp/build/xfabd" >/dev/null && what+=" the stand-in xfabd"
	pgrep -fx "sleep 3017" >/dev/null && what+=" the stale namespace's process"
	[ -z "$what" ] || {
		echo "    left:$what"
		return 1
	}
}

# bench STEP SIGNAL [ENV...]: the bench (small: 1,000 routes, 2 rounds, a
# burst of 1,000) signalled at STEP; its exit status in $tmp/rc, its
# output in $tmp/out
bench() {
	local step=$1 sig=$2
	shift 2
	env XFAB_SYNC_BENCH_SIGNAL_AT="$step" XFAB_SYNC_BENCH_SIGNAL="$sig" "$@" \
		timeout 200 "$ROOT/scripts/sync-bench" --routes 1000 --rounds 2 --burst 1000 \
		>"$tmp/out" 2>&1 &
	BENCH_PID=$!
	wait "$BENCH_PID"
	echo $? >"$tmp/rc"
	BENCH_PID=
}

# stopped STEP SIGNAL: the bench ended by SIGNAL at STEP, said so, and left nothing
stopped() {
	local step=$1 sig=$2 want
	want=$((128 + $(kill -l "$sig")))
	bench "$step" "$sig"
	if [ "$(cat "$tmp/rc")" != "$want" ] || ! grep -q "sync-bench: SIG$sig, cleaning up" "$tmp/out"; then
		echo "    exit status $(cat "$tmp/rc") (want $want); output:"
		tail -5 "$tmp/out" | sed 's/^/    /'
		return 1
	fi
	left
}

check "nothing of a bench before the test" left
for step in netns xfabd-started forwarding round xfabd-stopped burst; do
	check "SIGTERM at $step: exit status 143, nothing left" stopped "$step" TERM
done
for step in forwarding xfabd-stopped; do
	check "SIGINT at $step: exit status 130, nothing left" stopped "$step" INT
done

# a bench killed outright (SIGKILL: no clean-up) left its namespace with a
# process in it; the next run removes both before it builds
stale() {
	ip netns add xfs-dut && ip netns exec xfs-dut sleep 3017 &
	eventually 5 pgrep -fx "sleep 3017" >/dev/null || return 1
	stopped netns TERM
}
check "a namespace and process a killed bench left: the next run removes them" stale

# its own failure: an xfabd that runs but never forwards (the real tools
# beside it), so the bench fails while that xfabd still runs
mkdir "$tmp/build"
for f in xfabctl xfab-route-inject xfab-roce; do
	ln -s "$BUILD/$f" "$tmp/build/$f"
done
printf '#!/bin/bash\n# an xfabd that never comes up\nwhile :; do sleep 0.2; done\n' \
	>"$tmp/build/xfabd"
chmod +x "$tmp/build/xfabd"
failed() {
	bench none TERM XFAB_BUILD="$tmp/build"
	if [ "$(cat "$tmp/rc")" != 1 ] || ! grep -q "xfabd did not start" "$tmp/out"; then
		echo "    exit status $(cat "$tmp/rc") (want 1); output:"
		tail -5 "$tmp/out" | sed 's/^/    /'
		return 1
	fi
	left
}
check "an xfabd that never comes up: the bench fails (status 1), stops it, nothing left" failed
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
