#!/bin/bash
# netns test of faults and soak: first the soak's bookkeeping and its judge
# on planted input (no lab): losses to their fault windows, memory by the
# rule, a session drop to the fault that owns it (the cut link's, a hitless
# fault's as its failure, else an unplanned event from BFD's detection on),
# and what fails the soak (a hitless fault's drop or loss, an unplanned drop
# over the bound unless --no-judge-unplanned, a switch without a memory
# verdict); then `scripts/soak --minutes 2 --json` (lab xsk,
# clos-2x4, BGP, xdp; about 5 minutes) and its JSON, checked here against
# the rules, not taken on the soak's word:
#   - it exits 0 and says ok, with no failure listed;
#   - a fault of every kind happened (link, churn, xfabd-kill, reload,
#     reload-invalid, frr-restart), each with its own check passed and the
#     fabric converged after it;
#   - 0 packets lost to every xfabd kill, reload (valid or not), churn and
#     FRR restart (graceful restart: docs/LAB.md);
#     each link cut lost at most --max-cut-ms of any flow's
#     packets (the same loss as time at the rate), and so did every
#     unplanned session drop (judged by default, the lab's BFD at 300 ms);
#   - the loss figures add up with the receivers' counts: each flow's lost =
#     sent - received, every lost packet listed with its time, the faults'
#     losses plus those outside every fault = the flows' losses, each
#     fault's loss split by flow adds up to it;
#   - the invalid reload was refused (xfabd's log line) with the tables
#     unchanged; churn's prefixes appeared and went;
#   - every switch's xfabd was sampled, none grew past the tolerance and
#     every switch had one that ran long enough to be judged;
#   - no route differs between any switch's kernel FIB and its data plane,
#     and every switch has kernel routes (the comparison saw something);
#   - nothing of the lab is left (namespaces, pins, processes, state).
# Then bad options are refused with the option named, before any lab exists.
# mutate: scripts/soak scripts/xfabsoak/__init__.py scripts/xfabsoak/common.py; labs: xsk
# mutate: scripts/xfabsoak/traffic.py scripts/xfabsoak/base.py scripts/xfabsoak/flows.py; labs: xsk
# mutate: scripts/xfabsoak/faults.py scripts/xfabsoak/attribute.py scripts/xfabsoak/checks.py; labs: xsk
# mutate: scripts/xfabsoak/run.py scripts/xfabsoak/cli.py; labs: xsk
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
need_frr
NAME=xsk
TOPO="$ROOT/testbeds/clos-2x4.json"
tmp=$(mktemp -d)
SOAK= # the soak's timeout while it runs
# A signal stops the soak first (it takes its lab down itself): `timeout`
# puts the soak in a process group of its own, out of reach of a signal
# to ours, and bash runs a trap only once its foreground child is done,
# so the soak runs in the background and the test waits for it
cleanup() {
	if [ -n "$SOAK" ]; then
		kill -TERM "$SOAK" 2>/dev/null
		wait "$SOAK" 2>/dev/null
	fi
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
J="$tmp/soak.json"
q() { jq -e "$@" "$J" >/dev/null; }

# ---- --bfd-ms: the lab's topology rewritten with it (no lab: the file)
check "--bfd-ms 150 writes bfd_ms 150 into the lab's copy of the topology" \
	/usr/bin/python3 - "$ROOT/scripts" "$tmp" <<'PY'
import json, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from lab_common import TOPO
from xfabsoak.cli import with_bfd
t = json.load(open(with_bfd(TOPO, 150, sys.argv[2])))
sys.exit(0 if t["bfd_ms"] == 150 and t["spines"] == json.load(open(TOPO))["spines"] else 1)
PY

# ---- the soak's bookkeeping on planted input (no lab): losses at known send
# times against two fault windows, memory samples with a known growth; the
# expectations are worked out here
check "planted losses go to their faults, the rest to none; memory judged by the rule" \
	/usr/bin/python3 - "$ROOT/scripts" <<'PY'
import argparse, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])  # the soak's package, xfabsoak: its classes, not main
from lab_common import TOPO
from xfabsoak.run import Soak
s = Soak(argparse.Namespace(topology=TOPO, name="xsk", datapath="xdp", seed=1, rate=200.0))
s.flows = {1: {"src": "h1", "dst": "h5"}, 2: {"src": "h1", "dst": "h5"}}
s.faults = [{"kind": "link", "start": 10.0, "end": 12.0},
            {"kind": "reload", "start": 20.0, "end": 21.0}]
ns = lambda sec: int(s.t0 + sec * 1e9)
lost = {1: list(range(2100, 2105)) + [4100, 4101], 2: [2100, 2101, 2102, 3000]}  # 10.5 s, 20.5 s, 15 s
recv = {str(f): {"rx": 5000 - len(q), "hi": 4999, "hi_t": ns(4999 / 200), "first": 0,
                 "first_t": ns(0), "dup": 0, "late": 0, "missing_over": 0,
                 "missing_before_first": [], "missing": [[x, ns(x / 200)] for x in q]}
        for f, q in lost.items()}
flows, un = s.attribute({"send": {"h1": {"sent": {"1": 5000, "2": 5000}}},
                         "recv": {"h5": {"flows": recv}}})
a, b = s.faults
want = (a["lost"], a["lost_by_flow"], a["loss_ms"], b["lost"], b["lost_by_flow"], len(un),
        [f["lost"] for f in flows]) == (8, {"1": 5, "2": 3}, 25.0, 2, {"1": 2}, 1, [7, 4])
s.samples = {"leaf1": [(i * 10.0, 7, 9000 + 600 * i, 60) for i in range(10)],  # +5.4 MB
             "leaf2": [(i * 10.0, 8, 9000 + 100 * i, 60 + (i == 9)) for i in range(10)],
             "leaf3": [(0.0, 9, 9000, 60), (5.0, 9, 99000, 90), (90.0, 10, 9000, 60)]}
mem = s.memory()
want &= [p["flat"] for p in mem["leaf1"] + mem["leaf2"] + mem["leaf3"]] == [False, True, None, None]
# a long soak (900 s): a life of 150 s is judged though a third of the soak
# (300 s) is longer; one of 100 s is not (under 120 s)
s.samples = {"leaf1": [(i * 15.0, 11, 9000, 60) for i in range(11)],
             "leaf2": [(i * 90.0, 12, 9000 + 10 * i, 60) for i in range(11)],
             "leaf3": [(200 + i * 10.0, 13, 9000, 60) for i in range(11)]}
mem = s.memory()
want &= [p["flat"] for p in mem["leaf1"] + mem["leaf2"] + mem["leaf3"]] == [True, True, None]
sys.exit(0 if want else 1)
PY

# ---- the judge on planted input (no lab): who owns a session drop (bgpd's
# log lines planted), and what fails the soak; expectations worked out here
check "planted session drops: the cut link's its own, the restarted FRR's its own, one under an xfabd kill fails that fault, another is unplanned" \
	/usr/bin/python3 - "$ROOT/scripts" "$tmp" <<'PY'
import argparse, os, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from lab_common import TOPO
from xfabsoak.run import Soak
a = argparse.Namespace(topology=TOPO, name="xsk", datapath="xdp", seed=1, rate=200.0,
                       max_cut_ms=500.0, judge_unplanned=True, bfd_ms=300)
s = Soak(a)
s.lab.frr_dir = lambda sw: os.path.join(sys.argv[2], "frr", sw)
s.wall0 = time.mktime(time.strptime("2026/11/29 10:00:00", "%Y/%m/%d %H:%M:%S"))
s.faults = [{"kind": "link", "start": 10.0, "end": 12.0, "nodes": ["leaf1", "spine1"],
             "check": "ok"},
            {"kind": "xfabd-kill", "start": 20.0, "end": 21.0, "nodes": ["leaf2"],
             "check": "ok"},
            {"kind": "frr-restart", "start": 30.0, "end": 34.0, "nodes": ["spine2"],
             "check": "ok"}]
adj = "2026/11/29 10:00:%s BGP: [N3] %%ADJCHANGE: neighbor %s in vrf default %s %s"
logs = {"leaf1": [adj % ("10.500", "10.254.1.1(spine1)", "Down", "Interface down")],
        "leaf3": [adj % ("20.500", "10.254.2.5(spine2)", "Down", "BFD down received"),
                  adj % ("31.000", "10.254.2.5(spine2)", "Down", "Peer closed the session"),
                  adj % ("33.000", "10.254.2.5(spine2)", "Up", "")],
        "spine2": [adj % ("31.100", "10.254.2.4(leaf3)", "Down", "Waiting for peer OPEN")],
        "leaf4": [adj % ("40.000", "10.254.1.7(spine1)", "Down", "BFD down received"),
                  adj % ("43.000", "10.254.1.7(spine1)", "Up", "")]}
for sw, lines in logs.items():
    os.makedirs(s.lab.frr_dir(sw))
    with open(os.path.join(s.lab.frr_dir(sw), "bgpd.log"), "w") as f:
        f.write("\n".join(lines) + "\n")
ev = s.session_drops(60.0)
link, kill, frr = s.faults
ok = (link["check"] == "ok" and "session_drops" not in link and
      frr["check"] == "ok" and "session_drops" not in frr and
      kill["check"].startswith("a BGP session went down during it (leaf3 10.254.2.5(spine2)") and
      len(ev) == 1 and ev[0]["unplanned"] and ev[0]["start"] == 38.4 and  # BFD 3 x 0.3 + 0.7 s
      ev[0]["end"] == 43.0 and ev[0]["sessions"] == ["leaf4 10.254.1.7(spine1): BFD down received"])
print("    xfabd-kill: %s; events: %s" % (kill["check"], [(e["start"], e["end"]) for e in ev]))
sys.exit(0 if ok else 1)
PY
check "planted verdicts: a hitless fault's drop or loss fails, an FRR restart's loss fails, an unplanned drop over the bound fails (not with --no-judge-unplanned), a switch without a memory verdict fails" \
	/usr/bin/python3 - "$ROOT/scripts" <<'PY'
import argparse, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from lab_common import TOPO
from xfabsoak.run import Soak
a = argparse.Namespace(topology=TOPO, name="xsk", datapath="xdp", seed=1, rate=200.0,
                       max_cut_ms=500.0, judge_unplanned=True, bfd_ms=300)
s = Soak(a)
kinds = ["link", "churn", "xfabd-kill", "reload", "reload-invalid", "frr-restart"]
s.faults = [{"kind": k, "start": 10.0 * i, "check": "ok", "lost": 0, "loss_ms": 0.0}
            for i, k in enumerate(kinds)]
s.faults[0].update(lost=20, loss_ms=100.0)  # a link cut within the bound: no failure
s.faults[2]["check"] = "a BGP session went down during it (leaf3 x: BFD down received)"
s.faults[3]["lost"] = 2  # a reload that lost 2 packets
s.faults[5].update(lost=3, loss_ms=15.0)  # an FRR restart that lost 3 (within max_cut_ms)
s.faults.append({"kind": "session-down", "unplanned": True, "start": 70.0, "check": "ok",
                 "target": "leaf4 y", "lost": 120, "loss_ms": 600.0})  # 120 at 200/s
flows = [{"id": 1, "src": "h1", "dst": "h5", "sent": 10, "received": 10}]
mem = {"leaf1": [{"pid": 1, "flat": True}], "leaf2": [{"pid": 2, "flat": None}]}
fails = s.verdict(flows, [], {}, mem)
want = ["xfabd-kill at 20.0 s (None): a BGP session went down during it",
        "reload at 30.0 s (None) lost 2 packets (expected 0)",
        "frr-restart at 50.0 s (None) lost 3 packets (expected 0)",
        "an unplanned session drop at 70.0 s (leaf4 y) lost 600.0 ms of a flow (bound 500 ms)",
        "leaf2: no xfabd ran long enough to judge its memory"]
ok = all(any(f.startswith(w) for f in fails) for w in want) and len(fails) == 5
a.judge_unplanned = False
fails2 = s.verdict(flows, [], {}, mem)
ok &= len(fails2) == 4 and not any("unplanned" in f for f in fails2)
print("    " + "; ".join(fails))
sys.exit(0 if ok else 1)
PY

# a judge that fails on planted input makes the soak's own verdict
# meaningless: stop before the lab (minutes) is brought up
if [ "$fail" -gt 0 ]; then
	echo "# $pass passed, $fail failed (the soak's judge is wrong on planted input: no soak run)"
	exit 1
fi

# ---- bad options: refused, nothing built
for bad in "--minutes 0:--minutes" "--rate 5:--rate" "--max-cut-ms -1:--max-cut-ms" \
	"--seed -3:--seed" "--name has/slash:--name" "--topology /nonexistent.json:--topology" \
	"--bfd-ms 5:--bfd-ms"; do
	opt=${bad%%:*}
	# shellcheck disable=SC2086
	"$ROOT/scripts/soak" $opt --json >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	check "soak $opt is refused naming ${bad#*:}" eval \
		'[ "$rc" -eq 2 ] && grep -q -- "${bad#*:}: must\|${bad#*:}: .*no such" "$tmp/bad.err" &&
		 [ ! -s "$tmp/bad.out" ]'
done
check "... and nothing was built" eval '! ip netns list | grep -q "^$NAME-"'

# ---- the soak
start=$SECONDS
timeout 900 "$ROOT/scripts/soak" --minutes 2 --seed 7 --name "$NAME" --json >"$J" 2>"$tmp/soak.err" &
SOAK=$!
wait "$SOAK"
rc=$?
SOAK=
echo "# soak took $((SECONDS - start)) s, exit $rc"
sed 's/^/# /' "$tmp/soak.err" | tail -40
jq -r '.failures[]? | "#   failure: " + .' "$J" 2>/dev/null
check "soak exits 0" test "$rc" -eq 0
check "... its JSON says ok with no failure" q '.ok == true and (.failures | length) == 0'

for k in link churn xfabd-kill reload reload-invalid frr-restart; do
	n=$(jq --arg k "$k" '[.faults[] | select(.kind == $k)] | length' "$J" 2>/dev/null)
	check "a $k fault happened (${n:-0} times)" eval '[ "${n:-0}" -ge 1 ]'
done
check "every planned fault passed its own check and the fabric converged after it" q \
	'[.faults[] | select(.unplanned != true) | select(.check != "ok" or .converged_s == null)]
	 | length == 0'
jq -r '.faults[] | "#   \(.start) s \(.kind) \(.target // "") lost \(.lost) (\(.loss_ms) ms)"' \
	"$J" 2>/dev/null
check "0 packets lost to xfabd kills, reloads, invalid reloads, churn and FRR restarts" q \
	'[.faults[] | select(.kind | IN("xfabd-kill", "reload", "reload-invalid", "churn",
	 "frr-restart")) | .lost] | add == 0'
jq -r '.faults[] | select(.kind == "frr-restart") |
	"#   \(.kind) \(.target): \(.lost) lost"' "$J" 2>/dev/null
check "link cuts lost at most max_cut_ms of a flow" q \
	'.max_cut_ms as $b | .rate_pps as $r | [.faults[] | select(.kind == "link")
	 | (.lost_by_flow | [.[]] | max // 0) * 1000 / $r <= $b] | all'
check "each fault's loss in ms is its worst flow's packets at the rate" q \
	'.rate_pps as $r | [.faults[] | ((.lost_by_flow | [.[]] | max // 0) * 1000 / $r * 10
	 | round / 10) == .loss_ms] | all'
check "0 packets lost outside every fault's window" q '.traffic.unattributed == 0'
# BGP sessions that dropped by themselves: judged like a link cut (the
# soak's default), the lab at its topology's own BFD timers (100 ms x 3)
check "unplanned session drops (judged: $(jq -r '"\(.unplanned_drops), \(.unplanned_lost) packets lost in them"' "$J")) lost at most max_cut_ms each, BFD at the lab's 100 ms" q \
	'.judge_unplanned == true and .bfd_ms == 100 and .bfd_ms_in_lab == 100 and .max_cut_ms as $b |
	 [.faults[] | select(.unplanned == true) | .loss_ms <= $b] | all'
check "unplanned session drops are counted as their events say" q \
	'.unplanned_drops == ([.faults[] | select(.unplanned == true)] | length) and
	 ([.faults[] | select(.unplanned == true) | .kind == "session-down" and
	  (.sessions | length) > 0] | all)'

# the loss figures against the receivers' counts
check "every flow sent and received packets" q \
	'[.traffic.flows[] | .sent > 0 and .received > 0] | all'
check "each flow's lost = sent - received, every one listed with its time" q \
	'[.traffic.flows[] | .lost == .sent - .received and .lost_listed == .lost] | all'
check "the flows' losses add up to the total, sent and received too" q \
	'.traffic | .lost == ([.flows[].lost] | add) and .sent == ([.flows[].sent] | add) and
	 .received == ([.flows[].received] | add) and .lost == .sent - .received'
check "the faults' losses plus those outside them = the flows' losses" q \
	'([.faults[].lost] | add) + .traffic.unattributed == .traffic.lost'
check "each fault's loss split by flow adds up to it" q \
	'[.faults[] | .lost == ([.lost_by_flow[]] | add // 0)] | all'
check "the flows cover both ways of every pair, 4 source ports each" q \
	'[.traffic.flows[] | "\(.src)>\(.dst)"] | group_by(.) | map(length) | all(. == 4) and
	 (length >= 2)'
echo "# traffic: $(jq -r '.traffic | "\(.sent) sent, \(.received) received, \(.lost) lost"' "$J")"

# the faults' own evidence
check "the invalid reload was refused by xfabd, tables unchanged" q \
	'[.faults[] | select(.kind == "reload-invalid") | (.refused | test("reload rejected")) and
	 .tables_unchanged == true] | all'
check "churn's prefixes reached every other switch and left again" q \
	'[.faults[] | select(.kind == "churn") | .prefixes > 0 and .announced_ms >= 0 and
	 .withdrawn_ms >= 0] | all'
check "each xfabd kill left a new xfabd" q \
	'[.faults[] | select(.kind == "xfabd-kill") | .new_pid != .old_pid and .new_pid > 0] | all'

# memory
for sw in spine1 spine2 leaf1 leaf2 leaf3 leaf4; do
	check "$sw: xfabd sampled, one judged flat, none judged growing" q --arg s "$sw" \
		'(.memory[$s] | length) >= 1 and ([.memory[$s][] | .flat != false] | all) and
		 ([.memory[$s][] | select(.flat == true)] | length) >= 1'
done
check "the flat judgement holds by the rule (growth within max(4 MiB, 10 %), 4 fds)" q \
	'[.memory[][] | select(.flat != null) | .flat == ((.rss_kb_last - .rss_kb_first) <=
	 ([4096, .rss_kb_first * 0.1] | max) and (.fds_last - .fds_first) <= 4)] | all'

# the FIB
check "no route differs between a kernel FIB and its data plane" q \
	'[.fib[].differences | length] | add == 0'
check "every switch's kernel held routes to compare" q '[.fib[].kernel_routes > 0] | all'

check "nothing of the lab is left" eval \
	'! ip netns list | grep -q "^$NAME-" && [ ! -e "/sys/fs/bpf/xfab/$NAME" ] &&
	 [ ! -e "/run/xfab-lab/$NAME" ] && [ ! -e "/run/xfab/$NAME" ] &&
	 ! pgrep -f "/run/xfab-lab/$NAME/" >/dev/null'
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
