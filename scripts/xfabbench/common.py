"""What every part of the bench shares: where the tools and the pins
are, the three namespaces' names, MACs and addresses, a command in a
namespace, the machine and min/median/max."""
import os
import platform
import statistics

# the tree and its build: xfab-lab's (scripts/xfablab), which the entry
# script puts beside this package on the path
from xfablab.common import BUILD, ROOT, ns_output

TOOL = os.path.join(BUILD, "xfab-bench")
COMPILE_BENCH = os.path.join(BUILD, "xfab-compile-bench")
COMPILE_HEAD = "## Control plane: one event on a 1M-route switch"
SYNC_BENCH = os.path.join(ROOT, "scripts", "sync-bench")
SYNC_HEAD = "## Route sync: the kernel's routes into the data plane"
OBJ = os.path.join(BUILD, "bench.bpf.o")
LEAN_OBJ = os.path.join(BUILD, "lean_ecmp.bpf.o")  # the lean reference ECMP forwarder
PIN = "/sys/fs/bpf/xfab-bench"
NS = {"gen": "xfb-gen", "dut": "xfb-dut", "sink": "xfb-sink"}
MAC = {"g0": "02:00:00:00:0a:01", "d0": "02:00:00:00:0a:02", "d1": "02:00:00:00:0b:01",
       "s0": "02:00:00:00:0b:02"}
DST = "20.0.0.2" # with many flows, flow n goes to 20.(n >> 8).(n & 255).2
SRC6, DST6 = "fd10::2", "2001:db8::2"  # IPv6: flow n goes to 2001:db8:0:n::2
# VXLAN: the DUT's VTEP, the remote VTEP (the generator's for decap, the
# tunnel's endpoint for encap, behind the sink), the VNI of the one VNET
VTEP, PEER_VTEP, VNI = "10.255.0.1", "10.255.0.2", 1000


def sh(ns, cmd, check=True, capture=False, timeout=60):
    return ns_output(NS[ns] if ns else None, cmd, check, timeout)


def machine():
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
            "xdp_mode": "native (veth)", "frame_bytes": 64}


def stats(v):
    """min/median/max of a figure's rounds, and the rounds themselves (in
    order: round i of every configuration ran in the same pass)."""
    return {"min": round(min(v), 3), "median": round(statistics.median(v), 3),
            "max": round(max(v), 3), "rounds": [round(x, 3) for x in v]}


def paired(a, b):
    """Figure a as a share of figure b (stats): the median of the rounds'
    own ratios when both kept as many rounds, each round's pair measured in
    one pass (a slow spell of the host then slows both), else the ratio of
    the medians (a JSON from before the rounds were kept). None without b."""
    ra, rb = a.get("rounds"), b.get("rounds")
    if ra and rb and len(ra) == len(rb) and all(rb):
        return statistics.median(x / y for x, y in zip(ra, rb))
    return a["median"] / b["median"] if b["median"] else None
