#!/bin/bash
# A skip is counted, said, and never a pass (issue 32): tests/run-all on
# test files made for it and on real labs with a dependency hidden.
#   - a test that lacks a tool (lib.sh's need_cmds) exits 77 and run-all
#     counts it skipped, with the tool's name, in its last line; under
#     CI=true the same skip is a failure and run-all exits 1;
#   - a check that lacks a tool (check_needs) is "ok - ... # SKIP": counted
#     skipped, not passed;
#   - test_pfctools_lab.sh with tshark hidden from PATH, and test_bgp_lab.sh
#     with FRR's daemons hidden (XFAB_FRR_DIR), are skips, not passes, and
#     failures in CI (both stop before they build anything).
# Each inner run-all is light (no lab comes up); the test takes seconds.
# mutate: tests/run-all tests/netns/lib.sh; labs:
# shellcheck disable=SC2016,SC2034 # the checks' eval strings expand when they run
true
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/netns"

cat >"$tmp/netns/test_needs.sh" <<FAKE
#!/bin/bash
. "$ROOT/tests/netns/lib.sh"
need_cmds xfab-no-such-tool
check "never reached" true
FAKE
cat >"$tmp/netns/test_partly.sh" <<FAKE
#!/bin/bash
. "$ROOT/tests/netns/lib.sh"
check "runs" true
check_needs xfab-no-such-tool "needs the tool" false
echo "# \$pass passed, \$fail failed"
[ "\$fail" -eq 0 ]
FAKE
chmod +x "$tmp"/netns/*.sh

runall() { # runall OUT [ENV...] -- FILE: run-all's status, its output in OUT
	local out=$1
	shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" "$ROOT/tests/run-all" "$@" >"$out" 2>&1
}
last() { tail -1 "$1" | sed 's/ ([0-9]* s)$//'; }

# judge DESC RC LAST PATTERN [ENV...] -- FILE: run-all on FILE (with ENV)
# exits RC, ends "LAST" and, unless PATTERN is empty, prints PATTERN
judge() {
	local desc=$1 want_rc=$2 want_last=$3 pat=$4 rc
	shift 4
	runall "$tmp/out" "$@"
	rc=$?
	echo "    exit $rc: $(last "$tmp/out")"
	check "$desc" eval '[ $rc -eq $want_rc ] && [ "$(last "$tmp/out")" = "$want_last" ] &&
		{ [ -z "$pat" ] || grep -q -- "$pat" "$tmp/out"; }'
}

judge "a test without its tool: 1 skipped (the tool named), not a pass; exit 0 outside CI" \
	0 "1 passed, 0 failed, 1 skipped" "needs: 1 skipped (test_needs.sh needs xfab-no-such-tool" \
	CI=false -- "$tmp/netns/test_needs.sh"
judge "... under CI=true: a failure, exit 1" 1 "1 passed, 1 failed, 0 skipped" \
	"^not ok - netns: needs: skipped in CI" CI=true -- "$tmp/netns/test_needs.sh"
judge "a check without its tool: skipped, the test's other check passed" \
	0 "2 passed, 0 failed, 1 skipped" "" CI=false -- "$tmp/netns/test_partly.sh"
judge "... under CI=true: a failure" 1 "2 passed, 1 failed, 0 skipped" "" \
	CI=true -- "$tmp/netns/test_partly.sh"

# PATH without tshark: every other program of PATH linked into one directory
mkdir "$tmp/bin"
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
	for f in "$d"/*; do
		b=$(basename "$f")
		[ -x "$f" ] && [ "$b" != tshark ] && [ ! -e "$tmp/bin/$b" ] && ln -s "$f" "$tmp/bin/$b"
	done
done
LAB=$ROOT/tests/netns
judge "test_pfctools_lab.sh without tshark: skipped, saying so" 0 "1 passed, 0 failed, 1 skipped" \
	"needs tshark" CI=false PATH="$tmp/bin" -- "$LAB/test_pfctools_lab.sh"
judge "... under CI=true: a failure" 1 "1 passed, 1 failed, 0 skipped" "needs tshark" \
	CI=true PATH="$tmp/bin" -- "$LAB/test_pfctools_lab.sh"
judge "test_bgp_lab.sh without FRR's daemons, under CI=true: a failure, saying why" \
	1 "1 passed, 1 failed, 0 skipped" "needs FRR" CI=true XFAB_FRR_DIR="$tmp/nofrr" -- \
	"$LAB/test_bgp_lab.sh"

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
