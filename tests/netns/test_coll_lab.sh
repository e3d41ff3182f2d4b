#!/bin/bash
# netns test of xfab-coll (collectives over RoCEv2 framing) on clos-2x4
# (BGP, xdp datapath): one rank per host, h1..h8 in ring order.
#   - a bad job file and bad options are refused with their place named,
#     before anything runs (exit 2)
#   - an 8-rank AllReduce (2 channels x 2 QPs, rr; 256 KiB and 1 MiB) is
#     right on every rank (each checks every element against the closed
#     form of the sum), rank 0 reports busbw and p99 > 0, and the per-QP
#     counters name exactly the job's flows
#   - every operation's result, as each rank dumps it (--dump), is what a
#     Python oracle computes from the data's documented formula (each
#     rank's values summed, gathered or exchanged here): the tool's own
#     check shares that formula's code with its fill, this one does not
#   - on the wire (captured at h1's end of its leaf1 cable, decoded by
#     tshark): every data packet is one of the job's flows (addresses, UDP
#     source port, BTH destination QP), ACKs travel their reverse, DSCP 3
#     with ECT(0), P_Key 0xffff, the A bit on a message's last packet; the
#     flows come from a Python oracle of the documented formulas
#     (docs/TOOLS.md), not from the C code
#   - --drop-every 50: still right, with retransmits and out-of-sequence
#     packets counted
#   - AllGather, ReduceScatter (qp_mode split) and AlltoAll right too
#   - the RTO's bounds as docs/TOOLS.md's rule gives them (--rate 40,
#     --rto-min 50, the default), in every rank's report
#   - a run that hangs (one rank stopped): every other rank, rank 0 too,
#     prints its state and the QPs it still waits on
# Run it under `flock /tmp/xfab-heavy.lock` on a shared machine.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
need_frr
BUILD=${BUILD:-$ROOT/build}
COLL=$BUILD/xfab-coll
if [ ! -x "$COLL" ]; then
	echo "not ok - $COLL is not built (make all)"
	exit 1
fi
need_cmds tshark tcpdump jq
TOPO=$ROOT/testbeds/clos-2x4.json
NAME="xcol$$"
NAME=${NAME:0:8}
tmp=$(mktemp -d)
cleanup() {
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# ---- refused input (no lab needed) ----
cat >"$tmp/bad.json" <<'EOF'
{"op": "allreduce",
 "ranks": [{"host": "h1", "addr": "10.1.1.2"}, {"host": "h2", "addr": "10.1.2.2"}],
 "channels": 9, "bytes": 4096}
EOF
cat >"$tmp/two.json" <<'EOF'
{"op": "allreduce",
 "ranks": [{"host": "h1", "addr": "10.1.1.2"}, {"host": "h2", "addr": "10.1.2.2"}],
 "bytes": 4096}
EOF
# refused CASE WANT ARGS...: exit 2 and WANT (an ERE) on stderr
refused() {
	local want=$1 rc
	shift
	"$COLL" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 2 ] && grep -qE "$want" "$tmp/err" ||
		{ echo "    exit $rc: $(cat "$tmp/err")"; return 1; }
}
check "a bad job is refused with file:line:col and the field" \
	refused "bad\.json:3:14: channels: 9 is not an integer in 1\.\.8" run --job "$tmp/bad.json" --rank 0
check "--iters 0 is refused, naming --iters" \
	refused '^xfab-coll run: --iters "0": must be 1\.\.' run --job "$tmp/two.json" --iters 0
check "--op broadcast is refused, naming --op" \
	refused '^xfab-coll run: --op "broadcast": must be one of allreduce' run --job "$tmp/two.json" --op broadcast
check "--mtu 1022 (not whole elements) is refused, naming --mtu" \
	refused '^xfab-coll: --mtu: 1022 ' run --job "$tmp/two.json" --mtu 1022
check "--rank 2 of a 2-rank job is refused, naming --rank" \
	refused '^xfab-coll: --rank: 2 is not a rank of the job \(0\.\.1\)' run --job "$tmp/two.json" --rank 2
check "--max-bytes below --min-bytes is refused, naming --max-bytes" \
	refused '^xfab-coll: --max-bytes: ' run --job "$tmp/two.json" --rank 0 --min-bytes 1M --max-bytes 64K
check "a missing --job is refused, naming --job" refused '^xfab-coll: --job: ' run --iters 3

# ---- the lab ----
if ! "$ROOT/scripts/xfab-lab" up "$TOPO" --name "$NAME" >"$tmp/up.log" 2>&1; then
	tail -20 "$tmp/up.log" | sed 's/^/    /'
	echo "not ok - the lab came up"
	exit 1
fi
FABRIC=/run/xfab-lab/$NAME/fabric.json
# the job: h1..h8 in ring order, addresses from the lab's own fabric.json
job() { # job FILE MODE
	jq --arg mode "$2" '{name: "ar8", op: "allreduce", channels: 2, qps: 2, qp_mode: $mode,
		qp_base: 256, bytes: 1048576,
		ranks: [range(1; 9) as $i | .hosts["h\($i)"] |
			{host: "h\($i)", addr: (.ipv4 | split("/")[0])}]}' "$FABRIC" >"$1"
}
job "$tmp/job.json" rr
job "$tmp/split.json" split

# ranks JOB TAG ARGS...: one rank per host, rank 0 writing $tmp/TAG.json;
# every rank's exit code in $tmp/TAG.rc (rank order), rank r's result after
# the last iteration in $tmp/TAG.d(r+1)
ranks() {
	local jobf=$1 tag=$2 i pids=() rcs=""
	shift 2
	for i in 2 3 4 5 6 7 8; do
		timeout 100 nsenter --net="/run/netns/$NAME-h$i" "$COLL" run --job "$jobf" \
			--rank $((i - 1)) --timeout 90 --dump "$tmp/$tag.d$i" "$@" >"$tmp/$tag.r$i" 2>&1 &
		pids+=($!)
	done
	timeout 100 nsenter --net="/run/netns/$NAME-h1" "$COLL" run --job "$jobf" --rank 0 \
		--timeout 90 --json "$tmp/$tag.json" --dump "$tmp/$tag.d1" "$@" >"$tmp/$tag.r1" 2>&1
	rcs=$?
	for i in "${pids[@]}"; do
		wait "$i"
		rcs="$rcs $?"
	done
	echo "$rcs" >"$tmp/$tag.rc"
	if [ "$rcs" != "0 0 0 0 0 0 0 0" ]; then
		echo "    $tag: exit codes $rcs"
		grep -h "xfab-coll" "$tmp/$tag".r* | head -5 | sed 's/^/    /'
	fi
	sed 's/^/    /' "$tmp/$tag.r1"
}

nsenter --net="/run/netns/$NAME-h1" tcpdump --immediate-mode -U -i eth0 -nn -s 128 -c 4000 \
	-w "$tmp/h1.pcap" udp port 4791 2>/dev/null &
dump=$!
sleep 1
ranks "$tmp/job.json" ar --min-bytes 256K --max-bytes 1M --factor 4 --iters 5 --warmup 1
sleep 0.5
kill "$dump" 2>/dev/null
wait "$dump" 2>/dev/null

all_ok() { [ "$(cat "$tmp/$1.rc")" == "0 0 0 0 0 0 0 0" ]; }
correct() { # correct TAG: every rank exited 0, rank 0's JSON says right everywhere
	all_ok "$1" && jq -e '.correct == true and ([.per_rank[] | .correct] | all) and
		(.per_rank | length == 8) and ([.sizes[] | .correct] | all)' "$tmp/$1.json" >/dev/null
}
check "allreduce: every rank exits 0, every element right on every rank" correct ar
check "allreduce: 2 sizes (262144, 1048576), busbw > 0 and p99 > 0 for each" \
	jq -e '[.sizes[] | .bytes] == [262144, 1048576] and
	([.sizes[] | .busbw_gbps > 0 and .time_us.p99 > 0 and .time_us.p50 > 0 and
	  (.times_us | length) == 5] | all) and (.sizes[0].busbw_factor == 1.75)' "$tmp/ar.json"
check "allreduce: busbw = algbw x 2(n-1)/n, algbw = S / mean time" \
	jq -e '[.sizes[] | ((.busbw_gbps - .algbw_gbps * 1.75) | fabs) < 1e-5 and
	  ((.algbw_gbps - .bytes / 1e3 / .time_us.mean) | fabs) < 1e-5] | all' "$tmp/ar.json"

# The oracle: the job's flows from the documented formulas.
/usr/bin/python3 - "$tmp/job.json" >"$tmp/flows.txt" <<'EOF'
import json, sys
job = json.load(open(sys.argv[1]))
n, C, Q, base = len(job["ranks"]), job["channels"], job["qps"], job["qp_base"]
addr = [r["addr"] for r in job["ranks"]]
def qpn(o, p, c, q):
    return base + ((o * n + p) * C + c) * Q + q
def sport(a, b):
    v = a * b
    v ^= v >> 20
    v ^= v >> 40
    fl = v & 0xfffff
    low = (fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)
    return low | 0xc000
for c in range(C):
    for s in range(n):
        d = (s + 1) % n
        for q in range(Q):
            a, b = qpn(s, d, c, q), qpn(d, s, c, q)
            print(s, d, c, q, a, b, sport(a, b), addr[s], addr[d])
EOF
check "oracle: 8 ranks x 2 channels x 2 QPs = 32 flows" eval '[ "$(wc -l <"$tmp/flows.txt")" -eq 32 ]'
# every tx and rx QP entry of every rank is one of the oracle's flows, and
# every flow is there once each way
jq -r '.per_rank[].qps[] | "\(.dir) \(.src) \(.dst) \(.channel) \(.q) \(.src_qpn) \(.dst_qpn) \(.sport)"' \
	"$tmp/ar.json" | sort >"$tmp/jq_flows.txt"
awk '{print "tx", $1, $2, $3, $4, $5, $6, $7; print "rx", $1, $2, $3, $4, $5, $6, $7}' \
	"$tmp/flows.txt" | sort >"$tmp/want_flows.txt"
check "allreduce: the per-QP counters name exactly the job's flows (src/dst QP, sport)" \
	cmp -s "$tmp/jq_flows.txt" "$tmp/want_flows.txt"
check "allreduce: every tx QP carried packets, none retransmitted more than it sent" \
	jq -e '[.per_rank[].qps[] | select(.dir == "tx") | .packets > 0 and .retransmits < .packets] | all' \
	"$tmp/ar.json"

# The wire, as tshark decodes it.
tshark -r "$tmp/h1.pcap" -T fields -E separator=' ' -e ip.src -e ip.dst -e udp.srcport \
	-e udp.dstport -e ip.dsfield -e infiniband.bth.opcode -e infiniband.bth.destqp \
	-e infiniband.bth.p_key -e infiniband.bth.a -e frame.len 2>/dev/null >"$tmp/wire.txt"
/usr/bin/python3 - "$tmp/flows.txt" "$tmp/wire.txt" >"$tmp/wire.out" <<'EOF'
import sys
flows = [l.split() for l in open(sys.argv[1])]
data = {(f[7], f[8], int(f[6]), int(f[5])): f for f in flows}  # src, dst, sport, dst QP
back = {(f[8], f[7], int(f[6]), int(f[4])): f for f in flows}  # ACKs: reverse, to the sender's QP
seen, bad, kinds = set(), [], {"data": 0, "ack": 0}
for line in open(sys.argv[2]):
    p = line.split()
    if len(p) < 10:
        bad.append("undecoded: " + line.strip())
        continue
    src, dst, sport, dport, tos, op, qp, pkey, abit, flen = p[:10]
    op, qp, sport = int(op), int(qp, 16), int(sport)
    if dport != "4791" or int(tos, 16) != 0x0e or pkey != "65535":
        bad.append("header: " + line.strip())
    if op in (0, 1, 2, 4):
        kinds["data"] += 1
        if (src, dst, sport, qp) not in data:
            bad.append("data not a job flow: " + line.strip())
        seen.add((src, dst, sport, qp))
        if (abit == "1") != (op in (2, 4)) or int(flen) > 14 + 20 + 8 + 12 + 1024 + 4:
            bad.append("A bit or length: " + line.strip())
    elif op == 0x11:
        kinds["ack"] += 1
        if (src, dst, sport, qp) not in back:
            bad.append("ACK not the reverse of a job flow: " + line.strip())
    else:
        bad.append("opcode: " + line.strip())
# h1 (rank 0) sends to h2 (rank 1) and receives from h8 (rank 7): 4 flows each
want = {k for k, f in data.items() if f[0] == "0" or f[1] == "0"}
print("packets %d data %d acks %d flows seen %d of %d, %d bad" %
      (kinds["data"] + kinds["ack"], kinds["data"], kinds["ack"], len(seen & want), len(want), len(bad)))
for b in bad[:5]:
    print("  " + b)
print("OK" if not bad and seen == want and kinds["ack"] > 0 else "FAIL")
EOF
sed 's/^/    /' "$tmp/wire.out"
check "wire: every data packet at h1 is a job flow (addresses, sport, BTH dest QP), ACKs their reverse, all 8 of h1's flows seen, TOS 0x0e, P_Key 0xffff, A bit on last packets" \
	eval '[ "$(tail -1 "$tmp/wire.out")" == OK ]'

# ---- loss: go-back-N ----
ranks "$tmp/job.json" drop --min-bytes 1M --iters 3 --warmup 0 --drop-every 50
check "--drop-every 50: every rank still right" correct drop
check "--drop-every 50: dropped, out-of-sequence, NAKs and retransmits counted (> 0)" \
	jq -e '.totals | .dropped > 0 and .oos > 0 and .naks > 0 and .retransmits >= .dropped' "$tmp/drop.json"

# ---- the other operations ----
ranks "$tmp/job.json" ag --op allgather --min-bytes 1M --iters 3 --warmup 0
check "allgather: right on every rank, busbw factor 7/8" eval \
	'correct ag && jq -e ".op == \"allgather\" and .sizes[0].busbw_factor == 0.875" "$tmp/ag.json" >/dev/null'
ranks "$tmp/split.json" rs --op reducescatter --min-bytes 1M --iters 3 --warmup 0
check "reducescatter (qp_mode split): right on every rank" eval \
	'correct rs && jq -e ".op == \"reducescatter\" and .qp_mode == \"split\"" "$tmp/rs.json" >/dev/null'
ranks "$tmp/job.json" a2a --op alltoall --min-bytes 1M --iters 3 --warmup 0
check "alltoall: right on every rank, 7 peers x 2 channels x 2 QPs each way per rank" eval \
	'correct a2a && jq -e "[.per_rank[] | (.qps | length) == 56] | all" "$tmp/a2a.json" >/dev/null'

# ---- the results, by an oracle that is not the tool's check
# Every rank's dump of the last iteration (1 MiB: 262,144 elements, blocks
# of m = 32,768) against values computed here from docs/TOOLS.md's
# formula: rank r's element i starts as g(i) + (r + 1) h(i) mod 2^32; a
# sum adds the 8 ranks' values one by one (not the tool's closed form), a
# gather takes block p from rank p, alltoall's block q of rank r is rank
# q's block r; reducescatter leaves only block r defined on rank r.
/usr/bin/python3 - "$tmp" 8 1048576 ar:allreduce drop:allreduce ag:allgather \
	rs:reducescatter a2a:alltoall >"$tmp/dumps.out" <<'EOF'
import os, sys
from array import array
tmp, n, nbytes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
M = 0xFFFFFFFF
E = nbytes // 4 // n * n
m = E // n
def value(r, i):
    g = (i * 0x9E3779B1 & M) ^ (i >> 5)
    h = (i * 0x85EBCA6B + 0x27D4EB2F) & M
    return (g + (r + 1) * h) & M
val = [array("I", (value(r, i) for i in range(E))) for r in range(n)]
total = array("I", (sum(v[i] for v in val) & M for i in range(E)))
def want(op, r):
    """rank r's expected buffer and the element range that must match it"""
    if op == "allreduce":
        return total, 0, E
    if op == "reducescatter":
        return total, r * m, (r + 1) * m
    if op == "allgather":
        return array("I", (x for p in range(n) for x in val[p][p * m:(p + 1) * m])), 0, E
    return array("I", (x for q in range(n) for x in val[q][r * m:(r + 1) * m])), 0, E
for arg in sys.argv[4:]:
    tag, op = arg.split(":")
    bad = []
    for r in range(n):
        path = os.path.join(tmp, "%s.d%d" % (tag, r + 1))
        got = array("I")
        if os.path.exists(path):
            got.frombytes(open(path, "rb").read())
        w, lo, hi = want(op, r)
        if len(got) != E:
            bad.append("rank %d: %d elements, not %d" % (r, len(got), E))
        elif got[lo:hi] != w[lo:hi]:
            i = next(i for i in range(lo, hi) if got[i] != w[i])
            bad.append("rank %d element %d: 0x%08x, not 0x%08x" % (r, i, got[i], w[i]))
    print(tag, "OK" if not bad else "; ".join(bad[:3]))
EOF
sed 's/^/    /' "$tmp/dumps.out"
dump_ok() { grep -qx "$1 OK" "$tmp/dumps.out"; }
check "oracle: allreduce's result on every rank is the sum of the 8 ranks' values" dump_ok ar
check "oracle: --drop-every 50's allreduce too" dump_ok drop
check "oracle: allgather's result on every rank holds rank p's block p" dump_ok ag
check "oracle: reducescatter leaves rank r's block r the sum" dump_ok rs
check "oracle: alltoall leaves rank r's block q rank q's block r" dump_ok a2a

# ---- the RTO's bounds (docs/TOOLS.md: min = max(10 ms, 2 x 512 packets of
# 1,082 B at --rate), max = max(200 ms, 8 x min)) ----
ranks "$tmp/job.json" rto40 --min-bytes 64K --iters 1 --warmup 0 --rate 40
check "--rate 40: every rank's RTO is 221.594..1772.749 ms (2 x 512 x 1082 B at 5 MB/s, x 8)" \
	jq -e '[.per_rank[] | .rto_min_ms == 221.594 and .rto_max_ms == 1772.749] | all' \
	"$tmp/rto40.json"
ranks "$tmp/job.json" rtoopt --min-bytes 64K --iters 1 --warmup 0 --rto-min 50
check "--rto-min 50: RTO 50..400 ms (8 x the minimum)" \
	jq -e '[.per_rank[] | .rto_min_ms == 50 and .rto_max_ms == 400] | all' "$tmp/rtoopt.json"
check "default (veth's 10 Gbit/s): RTO 10..200 ms" \
	jq -e '[.per_rank[] | .rto_min_ms == 10 and .rto_max_ms == 200] | all' "$tmp/ar.json"

# ---- a run that hangs says what every rank waited for ----
# Rank 3 (h4) is stopped in the middle of a long run: the others time out
# (--timeout 8), and each prints its QPs with work left and its own state,
# rank 0 included; rank 2, which sends to rank 3, names that QP.
for i in 1 2 3 5 6 7 8; do
	timeout 60 nsenter --net="/run/netns/$NAME-h$i" "$COLL" run --job "$tmp/job.json" \
		--rank $((i - 1)) --timeout 8 --min-bytes 1M --iters 4000 --warmup 0 \
		>"$tmp/hang.r$i" 2>&1 &
done
timeout 60 nsenter --net="/run/netns/$NAME-h4" "$COLL" run --job "$tmp/job.json" --rank 3 \
	--timeout 8 --min-bytes 1M --iters 4000 --warmup 0 >"$tmp/hang.r4" 2>&1 &
stopper=$!
sleep 3
victim=$(pgrep -P "$stopper" -x xfab-coll)
[ -n "$victim" ] && kill -STOP "$victim"
sleep 9
[ -n "$victim" ] && kill -CONT "$victim"
wait
hung_says() {
	local i bad=0
	for i in 1 2 3 5 6 7 8; do
		grep -qE "^xfab-coll: rank $((i - 1)): (in|done with) the iteration, [0-9]+ QPs with work" \
			"$tmp/hang.r$i" || { echo "    rank $((i - 1)) said nothing of its QPs:"; \
			tail -3 "$tmp/hang.r$i" | sed 's/^/      /'; bad=1; }
	done
	grep -qE '^xfab-coll: rank 2 QP [0-9]+ \(peer 3 c[01] q[01]\): tx [0-9]+/[0-9]+ una' \
		"$tmp/hang.r3" || { echo "    rank 2 did not name its QPs to rank 3"; bad=1; }
	grep -q 'timed out (--timeout 8 s)' "$tmp/hang.r1" "$tmp/hang.r3" "$tmp/hang.r5" || bad=1
	return $bad
}
check "a hung run (rank 3 stopped): every other rank, rank 0 too, prints its state and its QPs with work; rank 2 names its QPs to rank 3" \
	eval '[ -n "$victim" ] && hung_says'

echo "netns coll: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
