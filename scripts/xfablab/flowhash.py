"""xfab's flow hash, written from its specification (include/xfab_hash.h's
header comment, docs/LOAD_BALANCING.md "How a member is chosen" and
docs/OVERLAY.md step 2), not from the C: an oracle for the labs and
lb-experiments that shares no code with the data plane or `xfabctl hash`.

  h = (k0 + sum of k_i * w_i) mod 2^64, the flow hash is h's high 32 bits
  w_i: the flow's 32-bit words, each address word and the ports word
       (sport | dport << 16) being the packet's network-order bytes read as
       a little-endian integer (the data plane's hosts are little-endian),
       misc = proto | qp << 8, and the IPv6 flow label
  k_i: splitmix64 outputs from state = the switch's seed, in the order
       k0, src[0..3], dst[0..3], ports, misc, label
  a field the switch does not hash on contributes nothing; with
  `symmetric` the (address, port) ends are ordered first, lower end as
  the source; bucket = hash & 255; VXLAN: the tunnel hash (5-tuple plus
  the switch's QP/label fields, never symmetric) picks endpoint
  (hash >> 8) % n and outer source port 49152 | ((hash ^ hash >> 16) & 0x3fff).

  flowhash.py --seed N|--hostname NAME [--fields LIST] [--symmetric]
              --src A --dst B [--proto P] [--sport S] [--dport D] [--qp Q]
              [--label L] [--endpoints N]      prints JSON
"""
import argparse
import ipaddress
import json
import sys

MASK64 = (1 << 64) - 1
FIELD_BITS = {"SRC_IP": 1 << 0, "DST_IP": 1 << 1, "IP_PROTOCOL": 1 << 2,
              "L4_SRC_PORT": 1 << 3, "L4_DST_PORT": 1 << 4, "IPV6_FLOW_LABEL": 1 << 5,
              "ROCE_DEST_QP": 1 << 6, "INNER": 1 << 7}
DEFAULT_FIELDS = "SRC_IP,DST_IP,IP_PROTOCOL,L4_SRC_PORT,L4_DST_PORT"
PROTOS = {"tcp": 6, "udp": 17, "icmp": 1, "icmpv6": 58}
VXLAN_PORT = 4789
SPORT_MIN = 49152


def splitmix64(state):
    """One step of splitmix64 (Steele, Lea and Flood, 2014): (state, output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def keys(seed):
    """The 12 keys of a seed, in the spec's order, none masked."""
    state, out = seed & 0xFFFFFFFF, []
    for _ in range(12):
        state, k = splitmix64(state)
        out.append(k)
    return {"k0": out[0], "src": out[1:5], "dst": out[5:9], "ports": out[9],
            "misc": out[10], "label": out[11]}


def default_seed(hostname):
    """A switch's seed when its config names none: 32-bit FNV-1a of its
    hostname (docs/CONFIG.md, DEVICE_METADATA hash_seed)."""
    h = 0x811C9DC5
    for byte in hostname.encode():
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def parse_fields(text):
    """ECMP|global hash_fields ("SRC_IP,DST_IP,...") as a set of names."""
    names = {f.strip() for f in (text or DEFAULT_FIELDS).split(",") if f.strip()}
    unknown = names - set(FIELD_BITS)
    if unknown:
        raise ValueError("unknown hash field(s): %s" % ",".join(sorted(unknown)))
    return names


def _le32(b):
    return int.from_bytes(b, "little")


def words(src, dst, proto, sport=0, dport=0, qp=0, label=0):
    """The flow's words before selection: address words, ports, misc, label."""
    a, b = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    if a.version != b.version:
        raise ValueError("%s and %s are of two families" % (src, dst))
    sp, dp = sport.to_bytes(2, "big"), dport.to_bytes(2, "big")
    return {"v6": a.version == 6,
            "src": [_le32(a.packed[i:i + 4]) for i in range(0, len(a.packed), 4)],
            "dst": [_le32(b.packed[i:i + 4]) for i in range(0, len(b.packed), 4)],
            "sport": _le32(sp), "dport": _le32(dp), "proto": proto & 0xFF,
            "qp": qp & 0xFFFFFF, "label": label & 0xFFFFF if a.version == 6 else 0}


def select(w, fields, symmetric=False):
    """Keeps the fields the switch hashes on; orders the ends if symmetric."""
    n = len(w["src"])
    s = dict(w)
    s["src"] = w["src"] if "SRC_IP" in fields else [0] * n
    s["dst"] = w["dst"] if "DST_IP" in fields else [0] * n
    s["sport"] = w["sport"] if "L4_SRC_PORT" in fields else 0
    s["dport"] = w["dport"] if "L4_DST_PORT" in fields else 0
    s["proto"] = w["proto"] if "IP_PROTOCOL" in fields else 0
    s["qp"] = w["qp"] if "ROCE_DEST_QP" in fields else 0
    s["label"] = w["label"] if "IPV6_FLOW_LABEL" in fields and w["v6"] else 0
    # the lower (address words in order, then port) end goes first
    if symmetric and (s["src"], s["sport"]) > (s["dst"], s["dport"]):
        s["src"], s["dst"] = s["dst"], s["src"]
        s["sport"], s["dport"] = s["dport"], s["sport"]
    return s


def terms(seed, s):
    """[(name, key, word)] of the sum after k0, for a selected flow."""
    k = keys(seed)
    out = [("src[%d]" % i, k["src"][i], s["src"][i]) for i in range(len(s["src"]))]
    out += [("dst[%d]" % i, k["dst"][i], s["dst"][i]) for i in range(len(s["dst"]))]
    out += [("ports", k["ports"], s["sport"] | s["dport"] << 16),
            ("misc", k["misc"], s["proto"] | s["qp"] << 8)]
    if s["v6"]:
        out.append(("label", k["label"], s["label"]))
    return out


def flow_hash(seed, fields, flow, symmetric=False):
    """The 32-bit flow hash of flow (words()) under a seed and field set."""
    s = select(flow, fields, symmetric)
    h = keys(seed)["k0"]
    for _name, key, word in terms(seed, s):
        h = (h + key * word) & MASK64
    return h >> 32


def bucket(h):
    return h & 0xFF


def tunnel_fields(fields):
    """The tunnel hash's fields: the 5-tuple always, plus what else the
    switch hashes on; never the inner-header option."""
    return (set(fields) | parse_fields(DEFAULT_FIELDS)) - {"INNER"}


def vxlan_sport(h):
    return SPORT_MIN | ((h ^ (h >> 16)) & 0x3FFF)


def tunnel_endpoint(h, n):
    return (h >> 8) % n if n else 0


def switch_hash_config(cfg):
    """(seed, fields, symmetric) of a switch's config (xfabd's JSON)."""
    meta = cfg.get("DEVICE_METADATA", {}).get("localhost", {})
    ecmp = cfg.get("ECMP", {}).get("global", {})
    seed = meta.get("hash_seed")
    seed = int(seed) if seed is not None else default_seed(meta.get("hostname", ""))
    sym = str(ecmp.get("symmetric", "false")).lower() == "true"
    return seed, parse_fields(ecmp.get("hash_fields")), sym


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    who = ap.add_mutually_exclusive_group(required=True)
    who.add_argument("--seed", type=int)
    who.add_argument("--hostname")
    who.add_argument("--config", help="the switch's config file (seed, fields, symmetric)")
    ap.add_argument("--fields")
    ap.add_argument("--symmetric", action="store_true")
    ap.add_argument("--src", required=True)
    ap.add_argument("--dst", required=True)
    ap.add_argument("--proto", default="udp")
    ap.add_argument("--sport", type=int, default=0)
    ap.add_argument("--dport", type=int, default=0)
    ap.add_argument("--qp", type=int, default=0)
    ap.add_argument("--label", type=int, default=0)
    ap.add_argument("--endpoints", type=int, default=0, help="a tunnel's endpoint count")
    a = ap.parse_args(argv)
    symmetric = a.symmetric
    if a.config:
        with open(a.config) as f:
            seed, fields, symmetric = switch_hash_config(json.load(f))
    else:
        seed = a.seed if a.seed is not None else default_seed(a.hostname)
        fields = parse_fields(a.fields)
    if a.fields and a.config:
        fields = parse_fields(a.fields)
    proto = PROTOS.get(a.proto, None)
    proto = int(a.proto) if proto is None else proto
    flow = words(a.src, a.dst, proto, a.sport, a.dport, a.qp, a.label)
    h = flow_hash(seed, fields, flow, symmetric)
    out = {"seed": seed, "hash_fields": ",".join(sorted(fields, key=FIELD_BITS.get)),
           "symmetric": symmetric, "hash": h, "bucket": bucket(h)}
    if a.endpoints:
        th = flow_hash(seed, tunnel_fields(fields), flow)
        out.update(tunnel_hash=th, endpoint_index=tunnel_endpoint(th, a.endpoints),
                   outer_sport=vxlan_sport(th))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
