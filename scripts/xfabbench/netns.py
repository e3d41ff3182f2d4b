"""The bench's namespaces and programs: gen --(g0/d0)--> dut --(d1/s0)--> sink,
brought up from scratch and torn down."""
import os
import shutil
import subprocess
import time

from .common import MAC, NS, OBJ, PIN, TOOL, sh
from .config import extra_routes


def teardown():
    subprocess.run(["pkill", "-f", "xfabd -c /run/xfab-bench"], capture_output=True)
    time.sleep(0.2)
    for n in NS.values():
        subprocess.run(["ip", "netns", "del", n], capture_output=True)
    shutil.rmtree(PIN, ignore_errors=True)
    shutil.rmtree("/run/xfab-bench", ignore_errors=True)


def ensure_bpffs():
    """A fresh box has no bpffs on /sys/fs/bpf: mount it as xfabd would."""
    with open("/proc/mounts") as f:
        if any(l.split()[1:3] == ["/sys/fs/bpf", "bpf"] for l in f):
            return
    os.makedirs("/sys/fs/bpf", exist_ok=True)
    sh(None, ["mount", "-t", "bpf", "bpf", "/sys/fs/bpf", "-o", "mode=0700"])


def topology(big_table=True):
    teardown()
    ensure_bpffs()
    os.makedirs("/run/xfab-bench", exist_ok=True)
    os.makedirs(PIN, exist_ok=True)
    for n in NS.values():
        sh(None, ["ip", "netns", "add", n])
    sh(None, ["ip", "link", "add", "g0", "netns", NS["gen"], "address", MAC["g0"], "type", "veth",
              "peer", "d0", "netns", NS["dut"], "address", MAC["d0"]])
    # two queues each way: frames XDP redirects into a veth take the queue
    # of the CPU that sends them (the multi-core scenarios send from both)
    sh(None, ["ip", "link", "add", "d1", "netns", NS["dut"], "address", MAC["d1"],
              "numtxqueues", "2", "numrxqueues", "2", "type", "veth", "peer", "s0", "netns",
              NS["sink"], "address", MAC["s0"], "numtxqueues", "2", "numrxqueues", "2"])
    sh(None, ["ip", "link", "add", "gspare", "netns", NS["gen"], "type", "veth", "peer", "gspare1",
              "netns", NS["gen"]])
    for ns, devs in (("gen", ["lo", "g0", "gspare", "gspare1"]), ("dut", ["lo", "d0", "d1"]),
                     ("sink", ["lo", "s0"])):
        for d in devs:
            sh(ns, ["ip", "link", "set", d, "up"])
    sh("dut", ["ip", "addr", "add", "10.10.0.1/24", "dev", "d0"])
    sh("dut", ["ip", "addr", "add", "10.0.2.1/24", "dev", "d1"])
    sh("sink", ["ip", "addr", "add", "10.0.2.2/24", "dev", "s0"])
    sh("dut", ["sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0"])
    sh("dut", ["ip", "route", "add", "20.0.0.0/8", "via", "10.0.2.2", "dev", "d1"])
    sh("dut", ["ip", "neigh", "replace", "10.0.2.2", "lladdr", MAC["s0"], "dev", "d1",
               "nud", "permanent"])
    # 1M routes in table 100 for the xdp_fwd-style baseline with a big table
    # (bpf_fib_lookup of that table only; kernel forwarding keeps the main one)
    if big_table:
        path = "/run/xfab-bench/table100.batch"
        with open(path, "w") as f:
            for pfx in extra_routes(1000000, None):
                f.write("route add %s via 10.0.2.2 dev d1 table 100\n" % pfx)
        sh("dut", ["ip", "-batch", path], timeout=300)
    # the generator: attached (SKB mode) to the spare veth, run with live frames on g0
    sh("gen", [TOOL, "attach", "--obj", OBJ, "--prog", "bench_gen", "--dev", "gspare", "--skb",
               "--pin", PIN + "/gen"])
    sh("sink", [TOOL, "attach", "--obj", OBJ, "--prog", "bench_sink", "--dev", "s0",
                "--pin", PIN + "/sink"])
    # ns/packet: a wrapper that restores the frame before each test run
    sh("dut", [TOOL, "load", "--obj", OBJ, "--pin", PIN + "/nsper"])
