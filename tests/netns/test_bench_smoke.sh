#!/bin/bash
# make bench-smoke in CI, so the bench never rots: one short round of the
# baselines (kernel, the minimal XDP and tc redirects, the xdp_fwd-style
# forwarder with flags 0 and with BPF_FIB_LOOKUP_DIRECT, the lean reference
# ECMP forwarder, the minimal VXLAN encapsulation and decapsulation, the
# minimal tc router), L3, 16-way ECMP, two stage builds (xfabd --bench-stop), the tc
# datapath and a VXLAN encapsulation. Nothing here asserts a rate against a
# target (rates are the machine's); what must hold is that every
# configuration ran and forwarded (the sink counted frames), that each xfab
# program and each baseline program forwarded in its test run (a ns/packet
# figure, the bench's own check; the lean forwarder's run also fails unless
# its own counter holds what the sink got), that the build stopping after parsing costs less than the later
# ones in the test run, and that scripts/bench-compare flags a run slower by more than
# 10 % (against a copy of this run with one configuration made slower) and
# passes this run against itself; and a ratio is the median of the rounds'
# own ratios (a worked example), each configuration's round kept.
# mutate: scripts/xfabbench/common.py; labs:
. "$(dirname "$0")/lib.sh"
need_root
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

check "bench --smoke runs and every configuration forwards" \
	"$ROOT/scripts/bench" --smoke --json "$out/smoke.json"

py() { /usr/bin/python3 -c "$@"; }
check "every smoke configuration is in the JSON with a rate" py "
import json, sys
sys.path.insert(0, '$ROOT/scripts')
r = json.load(open('$out/smoke.json'))['modes']
want = ['kernel', 'redirect', 'tc_redirect', 'xdp_fwd', 'xdp_fwd_direct', 'lean_ecmp',
        'xfab_l3', 'xfab_ecmp16', 'xfab_ecmp16@parse', 'xfab_ecmp16@nexthop', 'xfab_tc',
        'xfab_vxlan_encap', 'encap_min', 'decap_min', 'tc_rewrite']
missing = [w for w in want if w not in r or r[w]['mpps']['1024']['median'] <= 0]
sys.exit('missing or 0: %s' % missing if missing else 0)"
check "each xfab xdp program forwarded in its test run (ns/packet)" py "
import json, sys
r = json.load(open('$out/smoke.json'))['modes']
bad = [n for n in ('xfab_l3', 'xfab_ecmp16', 'xfab_ecmp16@parse', 'xfab_ecmp16@nexthop')
       if not (r[n].get('ns_per_packet') or {}).get('median')]
sys.exit('no ns/packet: %s' % bad if bad else 0)"
# (a 2x margin: a busy host's run can take twice as long)
check "each baseline program forwarded in its test run (ns/packet)" py "
import json, sys
r = json.load(open('$out/smoke.json'))['modes']
# the redirect's own time, the wrapper's taken off, may round to 0 ns: a
# figure all the same (missing is what fails)
bad = [n for n in ('redirect', 'xdp_fwd', 'xdp_fwd_direct', 'lean_ecmp', 'encap_min',
                  'decap_min')
       if (r[n].get('ns_per_packet') or {}).get('median') is None]
sys.exit('no ns/packet: %s' % bad if bad else 0)"
# the stage builds are the general pipeline's; the switch's own build takes
# the fast path (bpf/fast.h), which may cost less than parsing alone there
check "a build that stops after parsing costs less than one after the nexthop (test run)" py "
import json, sys
r = json.load(open('$out/smoke.json'))['modes']
ns = lambda n: r[n]['ns_per_packet']['min']
p, n = ns('xfab_ecmp16@parse'), ns('xfab_ecmp16@nexthop')
sys.exit(0 if p < n else 'parse %d, nexthop %d' % (p, n))"

check "bench-compare: a run against itself flags nothing" \
	"$ROOT/scripts/bench-compare" "$out/smoke.json" "$out/smoke.json"
py "
import json
res = json.load(open('$out/smoke.json'))
m = res['modes']['xfab_ecmp16']['mpps']['1024']
for k in m:
    m[k] = [x * 0.8 for x in m[k]] if k == 'rounds' else m[k] * 0.8
json.dump(res, open('$out/slower.json', 'w'))"
"$ROOT/scripts/bench-compare" "$out/smoke.json" "$out/slower.json" >"$out/cmp.txt"
rc=$?
check "bench-compare: 20 % slower is flagged (exit 1)" test "$rc" -eq 1
check "bench-compare: ... on that configuration only" \
	bash -c "grep 'SLOWER' '$out/cmp.txt' | grep -c . | grep -qx 1 && grep -q '^xfab_ecmp16 .*SLOWER by 20 %' '$out/cmp.txt'"

# the ratios the report and the targets print: each round's pair measured in
# one pass, so a ratio is the median of the rounds' own ratios; worked by
# hand: rounds 4, 6, 10 against 2, 6, 4 are 2.0, 1.0, 2.5 (median 2.0),
# where the medians' ratio would be 6 / 4 = 1.5 (a JSON without its rounds)
check "a ratio is the median of the rounds' ratios, the medians' without rounds" py "
import json, sys
sys.path.insert(0, '$ROOT/scripts')
from xfabbench.common import paired
a = {'median': 6, 'rounds': [4, 6, 10]}
b = {'median': 4, 'rounds': [2, 6, 4]}
got = (paired(a, b), paired({'median': 6}, {'median': 4}), paired(a, {'median': 4, 'rounds': [4]}))
sys.exit(0 if got == (2.0, 1.5, 1.5) else 'got %s' % (got,))"
check "the smoke JSON keeps each configuration's round" py "
import json, sys
r = json.load(open('$out/smoke.json'))['modes']
bad = [n for n, v in r.items() if len(v['mpps']['1024'].get('rounds', [])) != 1]
sys.exit('no rounds: %s' % bad if bad else 0)"

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
