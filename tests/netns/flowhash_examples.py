"""The flow hash's worked examples (run by test_flowhash.sh): the Python oracle
(scripts/xfablab/flowhash.py) against numbers written out here step by step.
The same numbers are checked against the data plane and include/xfab_hash.h in
tests/bpf/test_hash.c (test_worked_examples) and against the fuzz model's
hash in tests/fuzz/packets/fuzz_packets.c (check_model_hash), so the three
implementations agree on them. Every product below is mod 2^64; a reader can
redo each line with any 64-bit calculator.

Anchors that do not come from xfab at all: splitmix64's published first
outputs for state 0 (Vigna's splitmix64.c), and the published FNV-1a 32-bit
value of "a".

The seed of every example is 12345 (the fuzz model's switch). Its keys,
splitmix64 from state 12345 in the spec's order:
  k0     0x22118258a9d111a0
  src[0] 0x346edce5f713f8ed  src[1] 0x1e9a57bc80e6721d
  src[2] 0x2d160e7e5c3f42ca  src[3] 0x81c2e6dc980d78eb
  dst[0] 0x5647e55ad933f62e  dst[1] 0x1f6622b40cb38e42
  dst[2] 0x6e7411b06820371c  dst[3] 0x7ad34039583ab917
  ports  0xde15eab5ce53fecf  misc   0x2f43a94042571d85
  label  0x61571b285c0b9816

A. IPv4 UDP 10.1.2.3:40000 -> 10.9.0.1:5000, default fields. Words (the
   network-order bytes read little-endian): src 0a 01 02 03 -> 0x0302010a,
   dst 0a 09 00 01 -> 0x0100090a, ports 9c 40 | 13 88 -> 0x8813409c,
   misc = proto 17 = 0x11.
     k0                                        = 0x22118258a9d111a0
     src[0] 0x346edce5f713f8ed * 0x0302010a    = 0xe6e2b105739aa642, sum 0x08f4335e1d6bb7e2
     dst[0] 0x5647e55ad933f62e * 0x0100090a    = 0x40b85b257daf3bcc, sum 0x49ac8e839b1af3ae
     ports  0xde15eab5ce53fecf * 0x8813409c    = 0xd12369f89c400624, sum 0x1acff87c375af9d2
     misc   0x2f43a94042571d85 * 0x00000011    = 0x237e3d4467c8f5d5, sum 0x3e4e35c09f23efa7
   hash = high 32 bits = 0x3e4e35c0; bucket = 0xc0 = 192 (a 2-member
   group's fresh fill: even bucket, the member with the lower nexthop id).
   As a tunnel hash (the default fields are the tunnel's): endpoint of 2 =
   (0x3e4e35c0 >> 8) % 2 = 0x3e4e35 % 2 = 1; outer source port = 0xc000 |
   ((0x3e4e35c0 ^ 0x3e4e) & 0x3fff) = 0xc000 | (0x3e4e0b8e & 0x3fff)
   = 0xc000 | 0x0b8e = 0xcb8e = 52110.
B. IPv6 TCP [fd01::2]:1234 -> [fd09::1]:80, flow label 0x12345, default
   fields (the label not hashed: its key is 0). Address words: fd01::2 ->
   0x000001fd, 0, 0, 0x02000000; fd09::1 -> 0x000009fd, 0, 0, 0x01000000;
   ports 04 d2 | 00 50 -> 0x5000d204; misc = 6.
     src[0] 0x346edce5f713f8ed * 0x000001fd    = 0x406d353c42b5ef39, sum 0x627eb794ec8700d9
     src[3] 0x81c2e6dc980d78eb * 0x02000000    = 0xb9301af1d6000000, sum 0x1baed286c28700d9
     dst[0] 0x5647e55ad933f62e * 0x000009fd    = 0xcc1ddc6b7c01e976, sum 0xe7ccaef23e88ea4f
     dst[3] 0x7ad34039583ab917 * 0x01000000    = 0x39583ab917000000, sum 0x2124e9ab5588ea4f
     ports  0xde15eab5ce53fecf * 0x5000d204    = 0x435b0db8d055c93c, sum 0x647ff76425deb38b
     misc   0x2f43a94042571d85 * 0x00000006    = 0x1b95f7818e0ab11e, sum 0x8015eee5b3e964a9
   hash 0x8015eee5, bucket 0xe5 = 229.
   With IPV6_FLOW_LABEL hashed too, one more term:
     label  0x61571b285c0b9816 * 0x00012345    = 0x40593281fd00ffee, sum 0xc06f2167b0ea6497
   hash 0xc06f2167, bucket 0x67 = 103; the label is a tunnel field then
   too: outer source port 0xc000 | ((0xc06f2167 ^ 0xc06f) & 0x3fff)
   = 0xc000 | (0xc06fe108 & 0x3fff) = 0xe108 = 57608.
C. Symmetric: TCP 10.9.1.2:50000 -> 10.9.2.1:443 and its reverse, default
   fields. The ends are ordered by their words as read: 10.9.1.2 ->
   0x0201090a, 10.9.2.1 -> 0x0102090a, so 10.9.2.1 is the lower end
   (numerically it is the higher address: the order is the words'), and
   both directions hash as 10.9.2.1:443 -> 10.9.1.2:50000: src 0x0102090a,
   dst 0x0201090a, ports bb 01 | c3 50 -> 0x50c3bb01, misc 6.
     src[0] 0x346edce5f713f8ed * 0x0102090a    = 0x91dbb8cc39620e42, sum 0xb3ed3b24e3331fe2
     dst[0] 0x5647e55ad933f62e * 0x0201090a    = 0x80ec684fa1dd3bcc, sum 0x34d9a37485105bae
     ports  0xde15eab5ce53fecf * 0x50c3bb01    = 0x797f2208f12233cf, sum 0xae58c57d76328f7d
     misc   0x2f43a94042571d85 * 0x00000006    = 0x1b95f7818e0ab11e, sum 0xc9eebcff043d409b
   hash 0xc9eebcff, bucket 255, both directions. Not symmetric, the first
   direction keeps its order: src 0x0201090a, dst 0x0102090a, ports 0xbb0150c3:
     src[0] 0x346edce5f713f8ed * 0x0201090a    = 0x9aecd5b12d750e42, sum 0xbcfe5809d7461fe2
     dst[0] 0x5647e55ad933f62e * 0x0102090a    = 0x0b6e0d8d6a0b3bcc, sum 0xc86c659741515bae
     ports  0xde15eab5ce53fecf * 0xbb0150c3    = 0xbc77c26b9d6ac7ad, sum 0x84e42802debc235b
     misc   0x2f43a94042571d85 * 0x00000006    = 0x1b95f7818e0ab11e, sum 0xa07a1f846cc6d479
   hash 0xa07a1f84, bucket 132.
D. E-ECMP: default fields + ROCE_DEST_QP, RoCEv2 UDP 10.1.2.3:49152 ->
   10.9.0.1:4791, QP 0x000123 and QP 0x000456. Ports c0 00 | 12 b7 ->
   0xb71200c0; misc = 17 | qp << 8 = 0x00012311 and 0x00045611. The sum
   up to misc is the same for both: 0x516323ec3da80eee
     (src 0xe6e2b105739aa642, dst 0x40b85b257daf3bcc,
      ports 0xde15eab5ce53fecf * 0xb71200c0 = 0x07b69568a28d1b40)
     QP 0x123: misc 0x2f43a94042571d85 * 0x00012311 = 0x0ce248ad6e5724d5, sum 0x5e456c99abff33c3
     QP 0x456: misc 0x2f43a94042571d85 * 0x00045611 = 0x835adcea21c7a3d5, sum 0xd4be00d65f6fb2c3
   hashes 0x5e456c99 (bucket 153) and 0xd4be00d6 (bucket 214). As tunnel
   hashes (the QP is one of the switch's fields, so the tunnel's too):
   outer source ports 0xc000 | (0x5e4532dc & 0x3fff) = 0xf2dc = 62172 and
   0xc000 | (0xd4bed468 & 0x3fff) = 0xd468 = 54376.
E. Frames, for the fuzz model's parse (tests/fuzz/packets/fuzz_packets.c
   check_model_hash, on its switch with INNER and ROCE_DEST_QP): D's first
   flow as a RoCEv2 frame, BTH 04 00 ff ff 00 00 01 23 ...: the QP is BTH
   bytes 5-7, 0x000123, so the hash is D's 0x5e456c99. A's flow (UDP
   10.1.2.3:40000 -> 10.9.0.1:5000) inside VXLAN from 10.1.2.3:50000 to
   10.9.0.1:4789: with INNER the words are the inner packet's, A's, and
   the misc word is 17 | 0 << 8 (no QP is taken from an inner packet), so
   the hash is A's 0x3e4e35c0.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts", "xfablab"))
import flowhash as F  # noqa: E402

SEED = 12345
QP_FIELDS = F.DEFAULT_FIELDS + ",ROCE_DEST_QP"
# (name, fields, symmetric, flow, hash, bucket, tunnel endpoint of 2 or None, outer sport)
EXAMPLES = [
    ("A: IPv4 UDP", None, False, F.words("10.1.2.3", "10.9.0.1", 17, 40000, 5000),
     0x3E4E35C0, 192, 1, 52110),
    ("B: IPv6 TCP, label not hashed", None, False,
     F.words("fd01::2", "fd09::1", 6, 1234, 80, label=0x12345), 0x8015EEE5, 229, None, None),
    ("B: IPv6 TCP, label hashed", F.DEFAULT_FIELDS + ",IPV6_FLOW_LABEL", False,
     F.words("fd01::2", "fd09::1", 6, 1234, 80, label=0x12345), 0xC06F2167, 103, None, 57608),
    ("C: symmetric, one way", None, True, F.words("10.9.1.2", "10.9.2.1", 6, 50000, 443),
     0xC9EEBCFF, 255, None, None),
    ("C: symmetric, the reverse", None, True, F.words("10.9.2.1", "10.9.1.2", 6, 443, 50000),
     0xC9EEBCFF, 255, None, None),
    ("C: not symmetric", None, False, F.words("10.9.1.2", "10.9.2.1", 6, 50000, 443),
     0xA07A1F84, 132, None, None),
    ("D: E-ECMP, QP 0x123", QP_FIELDS, False,
     F.words("10.1.2.3", "10.9.0.1", 17, 49152, 4791, qp=0x123), 0x5E456C99, 153, None, 62172),
    ("D: E-ECMP, QP 0x456", QP_FIELDS, False,
     F.words("10.1.2.3", "10.9.0.1", 17, 49152, 4791, qp=0x456), 0xD4BE00D6, 214, None, 54376),
]
KEYS_12345 = [0x22118258A9D111A0,
              0x346EDCE5F713F8ED, 0x1E9A57BC80E6721D, 0x2D160E7E5C3F42CA, 0x81C2E6DC980D78EB,
              0x5647E55AD933F62E, 0x1F6622B40CB38E42, 0x6E7411B06820371C, 0x7AD34039583AB917,
              0xDE15EAB5CE53FECF, 0x2F43A94042571D85, 0x61571B285C0B9816]
results = []


def check(desc, got, want):
    good = got == want
    results.append(good)
    print("%s - %s%s" % ("ok" if good else "not ok", desc,
                         "" if good else ": got %r, worked out %r" % (got, want)))


def main():
    state, outs = 0, []
    for _ in range(3):
        state, o = F.splitmix64(state)
        outs.append(o)
    check("splitmix64 from state 0: its published first outputs", outs,
          [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F])
    check("FNV-1a 32 of \"a\" (the default seed's hash): its published value",
          F.default_seed("a"), 0xE40C292C)
    k = F.keys(SEED)
    check("the keys of seed 12345 in the spec's order",
          [k["k0"]] + k["src"] + k["dst"] + [k["ports"], k["misc"], k["label"]], KEYS_12345)
    for name, fields, sym, flow, h, b, ep, sport in EXAMPLES:
        fs = F.parse_fields(fields)
        got = F.flow_hash(SEED, fs, flow, sym)
        check("%s: hash %#010x" % (name, h), got, h)
        check("%s: bucket %d" % (name, b), F.bucket(got), b)
        if ep is not None or sport is not None:
            th = F.flow_hash(SEED, F.tunnel_fields(fs), flow)
            if ep is not None:
                check("%s: tunnel endpoint %d of 2" % (name, ep), F.tunnel_endpoint(th, 2), ep)
            check("%s: outer source port %d" % (name, sport), F.vxlan_sport(th), sport)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
