"""The multi-core scenarios (scripts/bench --multicore) and their report section."""
import json
import os
import shutil
import subprocess
import time

from .common import BUILD, DST, MAC, NS, OBJ, PIN, TOOL, sh, stats
from .config import xfab_config
from .measure import count
from .modes import egress_guard_off, gro


# ---- multi-core: how the rate scales with the cores the switch gets ----
#
# A veth hands a frame to its peer's NAPI on the CPU that sent it, so the
# main tables run generator, switch and sink on one CPU (whichever the
# generator runs on). Here: "one core" pins all three to CPU 0; "pipeline"
# gives the switch's receive (threaded NAPI on d0, its kthread pinned) a
# core of its own, CPU 1, beside the generator and the sink on CPU 0;
# "two ports" adds a second generator on CPU 1 sending into a second
# switch port (d2), each CPU running one generator, the switch's receive of
# its port and the sink's share: the aggregate against one core.
MC_PEER = {"g2": "02:00:00:00:0c:01", "d2": "02:00:00:00:0c:02"}


def ns_sh(ns, cmd):
    """A command in a namespace with its own /sys (threaded NAPI's knob)."""
    subprocess.run(["ip", "netns", "exec", NS[ns], "sh", "-c", cmd], check=True,
                   capture_output=True, timeout=30)


def napi_threads():
    out = subprocess.run(["ps", "-eo", "pid,comm"], capture_output=True, text=True).stdout
    return {int(l.split()[0]): l.split()[1] for l in out.splitlines()[1:]
            if l.split()[1].startswith("napi/")}


def threaded(ns, dev, cpu):
    """Threaded NAPI on dev, its kthread pinned to cpu; None: softirq again."""
    if cpu is None:
        ns_sh(ns, "echo 0 > /sys/class/net/%s/threaded" % dev)
        return
    before = napi_threads()
    ns_sh(ns, "echo 1 > /sys/class/net/%s/threaded" % dev)
    for pid, comm in napi_threads().items():
        if pid not in before and comm.startswith("napi/" + dev + "-"):
            subprocess.run(["taskset", "-pc", str(cpu), str(pid)], check=True,
                           capture_output=True)


def mc_topology():
    """The second generator port (g2 -> d2) and its generator."""
    sh(None, ["ip", "link", "add", "g2", "netns", NS["gen"], "address", MC_PEER["g2"], "type",
              "veth", "peer", "d2", "netns", NS["dut"], "address", MC_PEER["d2"]])
    sh(None, ["ip", "link", "add", "gspare2", "netns", NS["gen"], "type", "veth", "peer",
              "gspare3", "netns", NS["gen"]])
    for d in ("g2", "gspare2", "gspare3"):
        sh("gen", ["ip", "link", "set", d, "up"])
    sh("dut", ["ip", "link", "set", "d2", "up"])
    sh("dut", ["ip", "addr", "add", "10.11.0.1/24", "dev", "d2"])
    sh("gen", [TOOL, "attach", "--obj", OBJ, "--prog", "bench_gen", "--dev", "gspare2",
               "--skb", "--pin", PIN + "/gen2"])


def mc_config(variant):
    cfg = xfab_config(variant)
    cfg["PORT"]["d2"] = {}
    cfg["INTERFACE"]["d2|10.11.0.1/24"] = {}
    return cfg


def mc_measure(ports, cpus, seconds):
    """Mpps the sink counted with `ports` generators (g0, then g2) sending
    1,024 flows at once, generator k pinned to cpus[k]."""
    gens = [("gen", "g0", "d0", "10.10.0.2"), ("gen2", "g2", "d2", "10.11.0.2")][:ports]
    for pin, g, d, src in gens:
        dmac = MAC["d0"] if d == "d0" else MC_PEER["d2"]
        smac = MAC["g0"] if g == "g0" else MC_PEER["g2"]
        sh("gen", [TOOL, "cfg", "--pin", PIN + "/" + pin, "--flows", "1024", "--dmac", dmac,
                   "--smac", smac, "--dst", DST])
    c0, _ = count()
    procs = []
    for k, (pin, g, d, src) in enumerate(gens):
        dmac = MAC["d0"] if d == "d0" else MC_PEER["d2"]
        smac = MAC["g0"] if g == "g0" else MC_PEER["g2"]
        procs.append(subprocess.Popen(
            ["nsenter", "--net=/run/netns/" + NS["gen"], "taskset", "-c", str(cpus[k]), TOOL,
             "gen", "--pin", PIN + "/" + pin, "--dev", g, "--dmac", dmac, "--smac", smac,
             "--seconds", str(seconds), "--src", src, "--dst", DST],
            stdout=subprocess.PIPE, text=True))
    elapsed = 0.0
    for p in procs:
        out, _ = p.communicate(timeout=seconds + 30)
        elapsed = max(elapsed, float(out.split()[1]))
    time.sleep(0.1)
    c1, _ = count()
    return (c1 - c0) / elapsed / 1e6


MC_SCENARIOS = [
    ("one core", "generator, switch and sink on CPU 0", 1, [0], {}),
    ("pipeline", "generator on CPU 0; the switch's receive and the sink on CPU 1", 1, [0],
     {"d0": 1}),
    ("two ports", "a generator per CPU, each into its own switch port", 2, [0, 1], {}),
]


def multicore(rounds, seconds):
    """Each scenario with the minimal redirect and with xfab 16-way ECMP."""
    res = {name: {"what": what, "redirect": [], "xfab_ecmp16": []}
           for name, what, _, _, _ in MC_SCENARIOS}
    mc_topology()
    for _ in range(rounds):
        for prog in ("redirect", "xfab_ecmp16"):
            proc = None
            if prog == "redirect":
                gro(False)
                for d, pin in (("d0", "/mcred0"), ("d2", "/mcred2")):
                    shutil.rmtree(PIN + pin, ignore_errors=True)
                    sh("dut", [TOOL, "attach", "--obj", OBJ, "--prog", "bench_redirect",
                               "--dev", d, "--pin", PIN + pin])
                    sh("dut", [TOOL, "devmap", "--pin", PIN + pin, "--map", "out_port",
                               "--key", "0", "--dev", "d1"])
            else:
                path = "/run/xfab-bench/dut-mc.json"
                with open(path, "w") as f:
                    json.dump(mc_config("ecmp16"), f)
                log = open("/run/xfab-bench/xfabd-mc.log", "w")
                proc = subprocess.Popen(["nsenter", "--net=/run/netns/" + NS["dut"],
                                         os.path.join(BUILD, "xfabd"), "-c", path,
                                         "--pin-root", PIN + "/xfab"], stdout=log, stderr=log,
                                        start_new_session=True)
                deadline = time.time() + 30
                while "forwarding on" not in open("/run/xfab-bench/xfabd-mc.log").read():
                    if time.time() > deadline or proc.poll() is not None:
                        raise RuntimeError("xfabd (multi-core) did not start")
                    time.sleep(0.05)
                egress_guard_off("d1")
            try:
                for name, _, ports, cpus, napi in MC_SCENARIOS:
                    for (dev, cpu) in napi.items():
                        threaded("dut" if dev != "s0" else "sink", dev, cpu)
                    try:
                        res[name][prog].append(mc_measure(ports, cpus, seconds))
                    finally:
                        for dev in napi:
                            threaded("dut" if dev != "s0" else "sink", dev, None)
            finally:
                if proc:
                    proc.terminate()
                    proc.wait(timeout=10)
                else:
                    for d in ("d0", "d2"):
                        sh("dut", ["ip", "link", "set", d, "xdp", "off"], check=False)
    out = {}
    for name, r in res.items():
        out[name] = {"what": r["what"], "redirect": stats(r["redirect"]),
                     "xfab_ecmp16": stats(r["xfab_ecmp16"])}
    return out


def multicore_section(mc):
    if not mc:
        return []
    one = mc["one core"]["xfab_ecmp16"]["median"]
    lines = ["## Multi-core", "",
             "How the rate scales with the cores the switch gets (`scripts/bench --multicore`; "
             "1,024 flows, 64-byte frames, medians). A veth hands a frame to its peer's NAPI on "
             "the CPU that sent it, so the tables above run generator, switch and sink on one "
             "CPU. *Pipeline*: the switch's receive (threaded NAPI on its port, the kthread "
             "pinned) and the sink (its queue of the CPU that sends to it) run on CPU 1, the "
             "generator alone on CPU 0: a veth hands frames between CPUs through a 256-frame "
             "ring and a wakeup of the receiving thread (interrupts between virtual CPUs here), "
             "and that handoff, not the switch, sets the row's rate, the redirect's too "
             "(threaded NAPI's busy-poll mode, which would spare the wakeups, is not in this "
             "kernel). *Two ports*: a second "
             "generator on CPU 1 sends into a second switch port; each CPU runs a generator, the "
             "switch's receive of its port and its share of the sink. This box has 2 cores.", "",
             "| scenario | where | redirect Mpps | xfab 16-way ECMP Mpps | x redirect | "
             "xfab x one core |", "|---|---|---|---|---|---|"]
    for name, _, _, _, _ in MC_SCENARIOS:
        r = mc[name]
        red, x = r["redirect"]["median"], r["xfab_ecmp16"]["median"]
        lines.append("| %s | %s | %.2f | %.2f | %.2f | %.2f |" % (
            name, r["what"], red, x, x / red if red else 0, x / one if one else 0))
    lines += ["", "What a 16-core box would do, and why: the pipeline keeps its per-packet "
              "state per CPU (the scratch slot, every counter, the batch clock) and reads "
              "shared tables (FIB, groups, nexthops, ports) that nothing writes per packet, so "
              "16-way ECMP needs no cross-CPU write and scales with the receive queues a NIC's "
              "RSS spreads flows over: one core's rate per core, until the NIC, PCIe or memory "
              "bandwidth binds. The shared writes that remain: a flowlet slot (per flow: with "
              "RSS a flow stays on one CPU, so its slot stays in that CPU's cache), the "
              "least-loaded mode's per-port byte counts (an atomic add per packet) and the "
              "phantom queue (an atomic add per packet on its egress queue's line): with many "
              "cores sending into one queue that line moves between them, and the queue's "
              "updates, not the cores, set the rate of that port's ECN-marked traffic.", ""]
    return lines
