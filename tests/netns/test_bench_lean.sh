#!/bin/bash
# The bench's lean reference ECMP forwarder (bench/lean_ecmp.bpf.c) in
# BPF_PROG_TEST_RUN (bpftool prog run): the rewrite of a frame against its
# bytes worked out by hand (RFC 1624's checksum: 0x5cb2 with TTL 64 becomes
# 0x5db2 with TTL 63), every other output's checksum against a full RFC 1071
# sum, the verdict of each check it shares with xfab's validate stage, and
# the 16-way pick over the bench's 1,024 flows (each member gets some).
# Its own maps, filled here with bpftool (not by the bench's code), in a
# private pin directory; no namespace needed (test runs send nothing).
# The object is made first: a mutation of the source (tests/mutate) must be
# what the test loads.
# mutate: bench/lean_ecmp.bpf.c; labs:
. "$(dirname "$0")/lib.sh"
need_root
build=${XFAB_BUILD:-$ROOT/build}
OBJ=$build/lean_ecmp.bpf.o
make -s -C "$ROOT" --no-print-directory BUILD="$build" "$OBJ" || exit 1
pin=/sys/fs/bpf/xfab-test-lean-$$
work=$(mktemp -d)
trap 'rm -rf "$pin" "$work"' EXIT

check "lean_ecmp loads (the verifier accepts it)" \
	bpftool prog loadall "$OBJ" "$pin" pinmaps "$pin" type xdp

# port MAC 02:00:00:00:0a:02; group 0: 16 members, member i with dmac
# 02:00:00:00:0c:<i>, smac 02:00:00:00:0d:<i>, slot 0 (lo: test runs only
# return the verdict); 20.0.0.0/14 -> group 0 (stored as 1)
fill() {
	local upd="map update pinned $pin" grp="10 00 00 00 00 00 00 00" i k
	for i in $(seq 0 15); do
		grp="$grp 02 00 00 00 0c $(printf %02x "$i") 02 00 00 00 0d $(printf %02x "$i") 00 00 00 00"
	done
	{
		echo "$upd/lean_port key hex 00 00 00 00 value hex 02 00 00 00 0a 02 00 00"
		echo "$upd/lean_groups key hex 00 00 00 00 value hex $grp"
		for k in 00 01 02 03; do
			echo "$upd/lean_routes key hex $k 14 00 00 value hex 01 00 00 00"
		done
		echo "$upd/lean_tx key hex 00 00 00 00 value hex 01 00 00 00 00 00 00 00"
	} >"$work/fill.batch"
	bpftool batch file "$work/fill.batch" >/dev/null
}
check "its maps take the bench's 16-way table" fill

check "frames in BPF_PROG_TEST_RUN: rewrite, verdicts, 16-way spread" /usr/bin/python3 - "$pin/lean_ecmp" "$work" <<'EOF'
import os
import re
import subprocess
import sys

prog, work = sys.argv[1], sys.argv[2]
DROP, PASS, REDIRECT = 1, 2, 4
# Ethernet to the port's MAC from 02:00:00:00:0a:01; IPv4 10.10.0.2 ->
# 20.0.0.2, total length 46, TTL 64, UDP, checksum 0x5cb2 worked out by
# hand (0x4500 + 0x002e + 0x4011 + 0x0a0a + 0x0002 + 0x1400 + 0x0002 =
# 0xa34d); UDP 10000 -> 4791, length 26; 18 bytes of zeros: 60 bytes.
BASE = bytes.fromhex("020000000a02 020000000a01 0800"
                     "4500002e 00000000 40115cb2 0a0a0002 14000002"
                     "271012b7 001a0000" + "00" * 18)
# the same out of member m: its MACs, TTL 63, checksum 0x5db2 (RFC 1624:
# ~(~0x5cb2 + ~0x4011 + 0x3f11), worked out by hand)
def expect(m):
    return (bytes.fromhex("020000000c%02x 020000000d%02x 0800" % (m, m)) +
            bytes.fromhex("4500002e 00000000 3f115db2 0a0a0002 14000002") + BASE[34:])


def csum(hdr):
    """RFC 1071 over a header whose checksum field is zeroed."""
    s = sum(int.from_bytes(hdr[i:i + 2], "big") for i in range(0, len(hdr), 2))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def ip(frame, **kw):
    """BASE with IPv4 fields changed and, unless keep_csum, the checksum
    recomputed (only the change under test is wrong)."""
    f = bytearray(frame)
    for k, v in kw.items():
        off, n = {"ver_ihl": (14, 1), "tot_len": (16, 2), "ttl": (22, 1), "check": (24, 2),
                  "src": (26, 4), "dst": (30, 4), "frag": (20, 2), "proto": (23, 1)}[k]
        f[off:off + n] = v.to_bytes(n, "big")
    if "check" not in kw:
        f[24:26] = b"\0\0"
        f[24:26] = csum(f[14:34]).to_bytes(2, "big")
    return bytes(f)


def eth(frame, dst=None, src=None, proto=None):
    f = bytearray(frame)
    if dst:
        f[0:6] = bytes.fromhex(dst)
    if src:
        f[6:12] = bytes.fromhex(src)
    if proto:
        f[12:14] = proto.to_bytes(2, "big")
    return bytes(f)


def a(text):
    return int.from_bytes(bytes(int(x) for x in text.split(".")), "big")


CASES = [
    ("the bench frame", BASE, REDIRECT),
    ("trailing Ethernet padding", BASE + bytes(4), REDIRECT),
    ("a fragment (L3 hash)", ip(BASE, frag=0x2001), REDIRECT),
    ("TTL 255, source 200.1.2.3", ip(BASE, ttl=255, src=a("200.1.2.3")), REDIRECT),
    ("frame shorter than IPv4", BASE[:33], DROP),
    ("multicast source MAC", eth(BASE, src="010000000a01"), DROP),
    ("source MAC = destination MAC", eth(BASE, src="020000000a02"), DROP),
    ("another unicast MAC", eth(BASE, dst="020000000a09"), DROP),
    ("broadcast destination MAC", eth(BASE, dst="ffffffffffff"), PASS),
    ("ARP", eth(BASE, proto=0x0806), PASS),
    ("IPv6 ethertype", eth(BASE, proto=0x86dd), PASS),
    ("version 6 in an IPv4 frame", ip(BASE, ver_ihl=0x65), DROP),
    ("IHL 4", ip(BASE, ver_ihl=0x44), DROP),
    ("IHL 6 (options)", ip(BASE, ver_ihl=0x46), PASS),
    ("header checksum off by one", ip(BASE, check=0x5cb3), DROP),
    ("total length past the frame", ip(BASE, tot_len=47), DROP),
    ("total length below the header", ip(BASE, tot_len=19), DROP),
    ("TTL 1", ip(BASE, ttl=1), PASS),
    ("TTL 0", ip(BASE, ttl=0), PASS),
    ("source loopback", ip(BASE, src=a("127.0.0.1")), DROP),
    ("source multicast", ip(BASE, src=a("224.0.0.1")), DROP),
    ("source class E", ip(BASE, src=a("240.0.0.1")), DROP),
    ("source broadcast", ip(BASE, src=a("255.255.255.255")), DROP),
    ("source network 0", ip(BASE, src=a("0.1.2.3")), DROP),
    ("destination multicast", ip(BASE, dst=a("224.0.0.5")), PASS),
    ("destination broadcast", ip(BASE, dst=a("255.255.255.255")), PASS),
    ("destination link-local", ip(BASE, dst=a("169.254.1.1")), PASS),
    ("source link-local", ip(BASE, src=a("169.254.1.1")), PASS),
    ("no route (30.0.0.1)", ip(BASE, dst=a("30.0.0.1")), PASS),
]


def run(frames):
    """Each frame once through the program (one bpftool batch): verdicts
    and output frames."""
    lines = []
    for i, f in enumerate(frames):
        with open(os.path.join(work, "in%d" % i), "wb") as fh:
            fh.write(f)
        lines.append("prog run pinned %s data_in %s/in%d data_out %s/out%d" % (
            prog, work, i, work, i))
    with open(os.path.join(work, "run.batch"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    out = subprocess.run(["bpftool", "batch", "file", os.path.join(work, "run.batch")],
                         capture_output=True, text=True, check=True).stdout
    verdicts = [int(v) for v in re.findall(r"Return value: (\d+)", out)]
    outs = []
    for i in range(len(frames)):
        with open(os.path.join(work, "out%d" % i), "rb") as fh:
            outs.append(fh.read())
    return verdicts, outs


bad = []
verdicts, outs = run([f for _, f, _ in CASES])
for (what, f, want), got, o in zip(CASES, verdicts, outs):
    if got != want:
        bad.append("%s: verdict %d, not %d" % (what, got, want))
    elif want == REDIRECT:
        m = o[5]
        ok = (o[0:5] == bytes.fromhex("020000000c") and o[6:11] == bytes.fromhex("020000000d")
              and o[11] == m and m < 16 and o[22] == f[22] - 1 and
              int.from_bytes(o[24:26], "big") == csum(o[14:24] + b"\0\0" + o[26:34]) and
              o[12:22] == f[12:22] and o[23] == f[23] and o[26:] == f[26:])
        if not ok:
            bad.append("%s: rewritten as %s" % (what, o.hex()))
if not bad and outs[0] != expect(outs[0][5]):
    bad.append("the bench frame: %s, not %s" % (outs[0].hex(), expect(outs[0][5]).hex()))

# the bench's 1,024 flows (scripts/xfabbench: UDP source 10000 + n, to
# 20.(n >> 8).(n & 255).2): 64 a member on average; each must get 32..96
flows = [ip(BASE[:34] + (10000 + n).to_bytes(2, "big") + BASE[36:],
            dst=a("20.%d.%d.2" % (n >> 8, n & 255))) for n in range(1024)]
verdicts, outs = run(flows)
per = [0] * 16
for v, o in zip(verdicts, outs):
    if v == REDIRECT and o[5] < 16:
        per[o[5]] += 1
if len(verdicts) != 1024 or sum(per) != 1024 or min(per) < 32 or max(per) > 96:
    bad.append("1,024 flows over the members: %s" % per)
print("\n".join("# " + b for b in bad) or "# members of 1,024 flows: %s" % per)
sys.exit(1 if bad else 0)
EOF

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
