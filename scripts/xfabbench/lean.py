"""The lean reference ECMP forwarder's tables (bench/lean_ecmp.bpf.c),
written with one bpftool batch: what xfab's 16-way ECMP configuration
holds, as that program's maps lay it out."""
import ipaddress
import json
import os

from .common import MAC, sh

MEMBERS = 16        # LEAN_MAX_MEMBERS: 16 members of one group
ROUTE = "20.0.0.0/8"  # the bench's ECMP route (config.py), every member to the sink


def hexbytes(b):
    return " ".join("%02x" % x for x in b)


def mac(text):
    return bytes(int(x, 16) for x in text.split(":"))


def u32(v):
    return v.to_bytes(4, "little")


def route_keys(prefix):
    """lean_routes' keys of a prefix: the top-16-bit slots it covers (the
    array holds prefixes of up to 16 bits)."""
    net = ipaddress.ip_network(prefix)
    if net.prefixlen > 16:
        raise ValueError("lean_routes holds prefixes of up to /16: %s" % prefix)
    first = int(net.network_address) >> 16
    return range(first, first + (1 << (16 - net.prefixlen)))


def group(members, dmac, smac, port=0):
    """struct lean_group: the member count, padding, 16 members of (dmac,
    smac, DEVMAP slot); the unused ones zero."""
    out = u32(members) + u32(0)
    for i in range(MEMBERS):
        out += (dmac + smac + u32(port)) if i < members else bytes(16)
    return out


def batch(pin, members=MEMBERS):
    """The bpftool batch lines that fill PIN's maps: the port's MAC (d0),
    group 0 (every member to the sink's MAC out of d1's slot 0) and the
    route to it (group 0 is stored as 1: 0 means no route)."""
    upd = "map update pinned %s/%%s key hex %%s value hex %%s" % pin
    lines = [upd % ("lean_port", hexbytes(u32(0)), hexbytes(mac(MAC["d0"]) + bytes(2))),
             upd % ("lean_groups", hexbytes(u32(0)),
                    hexbytes(group(members, mac(MAC["s0"]), mac(MAC["d1"]))))]
    lines += [upd % ("lean_routes", hexbytes(u32(k)), hexbytes(u32(1)))
              for k in route_keys(ROUTE)]
    return lines


def fill(pin, workdir="/run/xfab-bench"):
    path = os.path.join(workdir, "lean.batch")
    with open(path, "w") as f:
        f.write("\n".join(batch(pin)) + "\n")
    sh("dut", ["bpftool", "batch", "file", path])


def forwarded(pin):
    """Frames the program counted forwarded (lean_count, summed over the
    CPUs): the rate the sink saw is its own, not the kernel's behind an
    XDP_PASS."""
    out = sh("dut", ["bpftool", "-j", "map", "dump", "pinned", pin + "/lean_count"])
    total = 0
    for e in json.loads(out):
        for v in e.get("values", []):
            total += int.from_bytes(bytes(int(b, 16) for b in v["value"][0:8]), "little")
    return total
