"""The configurations a round measures (Mode): the baselines, xfab's
variants and its stage builds, each with its set-up and tear-down."""
import json
import os
import re
import shutil
import subprocess
import sys
import time

from .common import BUILD, LEAN_OBJ, NS, OBJ, PIN, TOOL, sh
from .config import xfab_config
from .measure import count as sink_count
from .lean import fill as lean_fill, forwarded as lean_forwarded


# Stage builds (xfabd --bench-stop, bpf/bench.h): a pipeline that stops after
# a stage and sends the frame out as it is. 16-way ECMP stops after every
# stage; flowlets and the phantom queue around the stage they add to.
STOP_ORDER = ["parse", "validate", "fib", "pick", "nexthop", "queue", "rewrite", "counters"]
STOP_WHAT = {
    "parse": "port checks, scratch, Ethernet, the IP header's fields, L4 ports (the QP)",
    "validate": "L2 rules (MACs), RFC 1812 header checks (checksum, lengths), address classes",
    "fib": "the route lookup (16-bit first level, then the /24 byte: two loads), TE's flag, TTL",
    "pick": "the flow hash and the group's bucket",
    "nexthop": "the member's nexthop, its port up and its device live",
    "queue": "egress checks (tenant, MTU), the queue stage",
    "rewrite": "MACs, TTL, checksum",
    "counters": "counters (rx and tx): the whole pipeline",
}
STAGE_BUILDS = [("ecmp16", STOP_ORDER), ("flowlet", ["fib", "pick"]), ("ecn", ["nexthop", "queue"])]
# make bench-smoke: every kind of configuration once, briefly (CI keeps the
# bench from rotting; no figure from it is a result)
SMOKE = ["kernel", "redirect", "tc_redirect", "xdp_fwd", "xdp_fwd_direct", "lean_ecmp",
         "xfab_l3", "xfab_ecmp16", "xfab_ecmp16@parse", "xfab_ecmp16@nexthop", "xfab_tc",
         "xfab_vxlan_encap", "encap_min", "decap_min", "tc_rewrite"]


# Measured with 1 flow too (the rest at 1,024 flows only: make bench stays
# under 15 minutes on 2 cores): the baselines and xfab's headline paths.
ONE_FLOW = ("kernel", "redirect", "xdp_fwd", "xdp_fwd_direct", "lean_ecmp", "xfab_l3",
            "xfab_ecmp16", "xfab_eecmp")


class Mode:
    def __init__(self, name, label, setup, teardown_fn=None, prog=None, vary_qp=False, v6=False,
                 vxlan=False, restore_all=False, sink_len=None, stop=None, xfabd_args=(),
                 verify=None):
        self.name, self.label, self.setup, self.teardown = name, label, setup, teardown_fn
        # xfabd_args: what an xfab configuration adds to xfabd's command line
        self.xfabd_args = list(xfabd_args)
        # verify: called after the rates (before the test runs), raises if
        # what the sink counted was not the configuration's doing
        self.verify = verify
        self.prog, self.vary_qp, self.v6 = prog, vary_qp, v6
        # stop: a stage build (xfabd --bench-stop): priced at 1,024 flows only
        self.stop = stop
        self.flows = (1, 1024) if name in ONE_FLOW else (1024,)
        # vxlan: the generator sends VXLAN frames; restore_all: the program
        # changes the frame's length (nsper restores it whole); sink_len:
        # the frames the sink must receive (bytes before the FCS), so a
        # configuration that forwarded without its stage fails the run
        self.vxlan, self.restore_all, self.sink_len = vxlan, restore_all, sink_len


def gro(on):
    sh("dut", ["ethtool", "-K", "d0", "gro", "on" if on else "off"], check=False)


def xdp_off():
    sh("dut", ["ip", "link", "set", "d0", "xdp", "off"], check=False)


CONTROL = {}


def map_memory(pid):
    """MB of kernel memory the maps a process holds take (memlock in each
    BPF map fd's fdinfo, each map once)."""
    seen, total = set(), 0
    for fd in os.listdir("/proc/%d/fdinfo" % pid):
        try:
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                info = dict(l.split(":", 1) for l in f if ":" in l)
        except OSError:
            continue
        if "map_id" in info and info["map_id"].strip() not in seen:
            seen.add(info["map_id"].strip())
            total += int(info.get("memlock", "0"))
    return round(total / 1e6, 1)


# A datagram from the sink to the DUT's egress port (its ARP request is the
# frame the data plane must see). Not ping: ping sets SO_TIMESTAMP, which
# turns the kernel's receive timestamps on for every skb, and the deferred
# work that turns them off again waits while the generator keeps its CPU busy:
# the tc rows measured then paid a clock read per packet (read_tsc, 3-4 % of
# perf's samples in xfab_tc's run, none 2 s later).
POKE = ("import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
        "s.sendto(b'', ('10.0.2.1', 9))")


def poke_dut():
    sh("sink", [sys.executable, "-c", POKE], check=False)
    time.sleep(0.2)


def guard_off(variant):
    """The egress guard off d1 before measuring: the XDP variants' DEVMAP
    program, the tc variants' egress program (a lossless class no longer
    keeps it: the ingress program charges its packets)."""
    if not variant.startswith("tc"):
        egress_guard_off("d1")
    else:
        tc_egress_guard_off("d1")


def tc_egress_guard_off(dev="d1", timeout=5.0):
    """tc datapath: as egress_guard_off, until xfabd has taken the tc egress
    program off dev (its link's pin gone), which it does for a port without
    a queue once the data plane has seen its device."""
    pin = PIN + "/xfab/dut/link_tc_egress_" + dev
    deadline = time.time() + timeout
    while time.time() < deadline:
        poke_dut()
        if not os.path.exists(pin):
            return
    raise RuntimeError("the tc egress program stayed on %s (its device unseen)" % dev)


def egress_guard_off(dev="d1", timeout=5.0):
    """Sends a frame into the DUT's egress port from the sink and waits until
    its tx_ports entry no longer runs the egress guard: xfabd takes the guard
    off (each second) once the data plane has seen the port's device, which a
    fabric port, always receiving something, is; a port that only transmits,
    as d1 does in the bench, would keep it on every frame it sends."""
    ifindex = json.loads(sh("dut", ["ip", "-j", "link", "show", "dev", dev]))[0]["ifindex"]
    deadline = time.time() + timeout
    while time.time() < deadline:
        poke_dut()
        out = sh("dut", ["bpftool", "-j", "map", "dump", "pinned",
                         PIN + "/xfab/dut/tx_ports"], check=False)
        try:
            entries = json.loads(out) if out.strip() else []
        except ValueError:
            entries = []
        for e in entries:
            try:  # a DEVMAP's empty slots dump as errors
                v = [int(b, 16) for b in e["value"]]
            except (KeyError, TypeError, ValueError):
                continue
            if len(v) >= 8 and int.from_bytes(bytes(v[0:4]), "little") == ifindex:
                if int.from_bytes(bytes(v[4:8]), "little") == 0:
                    return
        time.sleep(0.2)
    raise RuntimeError("the egress guard stayed on %s (its device unseen)" % dev)


def start_xfab(variant, stop=None, args=()):
    path = "/run/xfab-bench/dut-%s.json" % variant
    if not os.path.exists(path):
        with open(path, "w") as f:
            json.dump(xfab_config(variant), f)
    t0 = time.time()
    log = open("/run/xfab-bench/xfabd.log", "w")
    extra = (["--bench-stop", stop, "--bench-port", "d1"] if stop else []) + list(args)
    proc = subprocess.Popen(["nsenter", "--net=/run/netns/" + NS["dut"],
                             os.path.join(BUILD, "xfabd"), "-c", path, "--pin-root",
                             PIN + "/xfab"] + extra, stdout=log, stderr=log,
                            start_new_session=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        text = open("/run/xfab-bench/xfabd.log").read()
        if "forwarding on" in text and stop:
            guard_off(variant)
            return proc
        if "forwarding on" in text:
            rss = 0
            with open("/proc/%d/status" % proc.pid) as st:
                for line in st:
                    if line.startswith("VmHWM:"):
                        rss = int(line.split()[1]) // 1024
            c = CONTROL.setdefault(variant, {"start_s": [], "rss_mb": [], "write_ms": [],
                                             "routes": 0})
            c["start_s"].append(time.time() - t0)
            c["rss_mb"].append(rss)
            c["kernel_mb"] = map_memory(proc.pid)
            # "programmed N IPv4 and M IPv6 routes: compile X ms, write Y ms (...)"
            m = re.search(r"programmed (\d+) IPv4 and (\d+) IPv6 routes: compile \S+ ms, "
                          r"write (\S+) ms", text)
            if m:
                c["routes"] = int(m.group(1)) + int(m.group(2))
                c["write_ms"].append(float(m.group(3)))
            guard_off(variant)
            return proc
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise RuntimeError("xfabd did not start: " + open("/run/xfab-bench/xfabd.log").read()[-300:])


# the xfab variants: (name, label); each is a Mode xfab_<name>
XFAB_VARIANTS = (("l3", "xfab xdp, L3, one nexthop"),
                 ("ecmp16", "xfab xdp, 16-way ECMP"),
                 ("eecmp", "xfab xdp, 16-way E-ECMP (QP hashed)"),
                 ("flowlet", "xfab xdp, 16-way + flowlets"),
                 ("ecn", "xfab xdp, ECN phantom queue"),
                 ("tc", "xfab tc datapath"),
                 ("pfc_lossy", "xfab xdp, L3, PFC port, lossy class"),
                 ("pfc_handoff", "xfab xdp, L3, lossless class (handed to tc)"),
                 ("tc_pfc", "xfab tc datapath, lossless class (PFC accounting)"),
                 ("ecmp16_100k", "xfab xdp, 16-way ECMP, 100k routes"),
                 ("ecmp16_1m", "xfab xdp, 16-way ECMP, 1M routes"),
                 ("ecmp16_v6", "xfab xdp, 16-way ECMP, IPv6 (78-byte frames)"),
                 ("ecmp16_v6_100k", "xfab xdp, 16-way ECMP, IPv6, 100k prefixes"),
                 ("ecmp16_v6_1m", "xfab xdp, 16-way ECMP, IPv6, 1M prefixes"),
                 ("vxlan_encap", "xfab xdp, VXLAN encap (tenant port into a tunnel)"),
                 ("vxlan_decap", "xfab xdp, VXLAN decap (VTEP to a tenant port)"),
                 ("tc_vxlan_encap", "xfab tc datapath, VXLAN encap"),
                 # what specialisation saves: the 16-way ECMP config
                 # (xfab_config reads the "ecmp16" prefix) with every
                 # feature's code loaded (XFABD_ARGS: xfabd --code all)
                 ("ecmp16_all", "xfab xdp, 16-way ECMP, every feature's code "
                  "loaded (not specialised)"),
                 )
# Variants whose xfabd takes more arguments than -c and --pin-root (variant
# -> argument list; the JSON and the report say which they were); a variant
# named here and not in XFAB_VARIANTS is not measured.
XFABD_ARGS = {"ecmp16_all": ["--code", "all"]}
# the xfabd a variant's set-up started, for its tear-down
XFABD = {}
# the sink's count when lean_ecmp was set up (its verify)
LEAN = {}


def xfab(variant, stop=None):
    """An xfab variant's set-up and tear-down (stop: a stage build)."""
    def up():
        xdp_off()
        gro(variant.startswith("tc") or variant == "pfc_handoff")
        XFABD["proc"] = start_xfab(variant, stop, XFABD_ARGS.get(variant, ()))

    def down():
        p = XFABD.pop("proc", None)
        if p:
            p.terminate()
            p.wait(timeout=10)
    return up, down


def attach_d0(prog, pin, devmap, key, obj=OBJ):
    """A baseline program on d0 (pinned in PIN/pin, anew) and its DEVMAP
    devmap sending to d1 (key: ["--key", "0"] for a one-slot map, [] for
    one indexed by ifindex)."""
    shutil.rmtree(PIN + "/" + pin, ignore_errors=True)
    sh("dut", [TOOL, "attach", "--obj", obj, "--prog", prog, "--dev", "d0",
               "--pin", PIN + "/" + pin])
    sh("dut", [TOOL, "devmap", "--pin", PIN + "/" + pin, "--map", devmap] + key +
       ["--dev", "d1"])


def baseline_modes():
    """The baselines: kernel forwarding, minimal redirects, the lean
    reference ECMP forwarder, xdp_fwd-style (flags 0 and DIRECT)."""
    def kernel():
        xdp_off()
        gro(True)

    def redirect(prog="bench_redirect"):
        def up():
            gro(False)
            attach_d0(prog, prog, "out_port", ["--key", "0"])
        return up

    def tc_redirect(prog="bench_tc_redirect", pin="tcred"):
        def up():
            xdp_off()
            gro(True)
            attach_d0(prog, pin, "tc_out", ["--key", "0"])
        return up

    def tc_redirect_off(pin="tcred"):
        def down():
            shutil.rmtree(PIN + "/" + pin, ignore_errors=True)  # the link's pin: detaches
        return down

    def fwd(prog="bench_fwd"):
        def up():
            gro(False)
            attach_d0(prog, prog, "fwd_ports", [])
        return up

    def lean():
        gro(False)
        attach_d0("lean_ecmp", "lean_ecmp", "lean_tx", ["--key", "0"], obj=LEAN_OBJ)
        lean_fill(PIN + "/lean_ecmp")
        LEAN["sink0"] = sink_count()[0]

    def lean_verify():
        """Every frame the sink got, the program forwarded (none went
        through the kernel after an XDP_PASS)."""
        got, fwd = sink_count()[0] - LEAN["sink0"], lean_forwarded(PIN + "/lean_ecmp")
        if not got or fwd < 0.99 * got:
            raise RuntimeError("lean_ecmp: the sink got %d frames, the program forwarded %d"
                               % (got, fwd))

    return [Mode("kernel", "Linux kernel forwarding", kernel),
           Mode("redirect", "minimal XDP DEVMAP redirect (ceiling)", redirect(), xdp_off,
                prog=PIN + "/bench_redirect/bench_redirect"),
           Mode("redirect_read", "minimal redirect after reading the headers (a router's "
                "ceiling)", redirect("bench_redirect_read"), xdp_off,
                prog=PIN + "/bench_redirect_read/bench_redirect_read"),
           Mode("lean_ecmp", "lean reference ECMP forwarder", lean, xdp_off,
                prog=PIN + "/lean_ecmp/lean_ecmp", verify=lean_verify),
           Mode("xdp_fwd", "xdp_fwd-style (bpf_fib_lookup flags 0 + rewrite)", fwd(), xdp_off,
                prog=PIN + "/bench_fwd/bench_fwd"),
           Mode("xdp_fwd_direct", "xdp_fwd-style, BPF_FIB_LOOKUP_DIRECT (no FIB rules)",
                fwd("bench_fwd_direct"), xdp_off,
                prog=PIN + "/bench_fwd_direct/bench_fwd_direct"),
           Mode("encap_min", "minimal VXLAN encapsulation (precomputed outer headers, "
                "the encapsulation's ceiling)", redirect("bench_encap"), xdp_off,
                prog=PIN + "/bench_encap/bench_encap", restore_all=True, sink_len=110),
           Mode("decap_min", "minimal VXLAN decapsulation (outer headers checked and "
                "dropped, the decapsulation's ceiling)", redirect("bench_decap"), xdp_off,
                prog=PIN + "/bench_decap/bench_decap", vxlan=True, restore_all=True,
                sink_len=60),
           Mode("tc_redirect", "minimal tc redirect (the tc datapath's ceiling)", tc_redirect(),
                tc_redirect_off()),
           Mode("tc_rewrite", "minimal tc router (headers read, TTL and MACs rewritten: a tc "
                "router's ceiling)", tc_redirect("bench_tc_rewrite", "tcrw"),
                tc_redirect_off("tcrw")),
           Mode("xdp_fwd_1m", "xdp_fwd-style, 1M routes (kernel FIB)", fwd("bench_fwd_big"),
                xdp_off, prog=PIN + "/bench_fwd_big/bench_fwd_big")]


def modes():
    out = baseline_modes()
    for variant, label in XFAB_VARIANTS:
        up, down = xfab(variant)
        # the hand-over's test run ends in XDP_PASS (tc forwards): no ns/packet;
        # nor for an encapsulation on tc: the test run's repeats share one
        # skb, which the kernel then holds for encapsulated already (a second
        # bpf_skb_adjust_room encapsulation fails with EALREADY)
        out.append(Mode("xfab_" + variant, label, up, down,
                        prog=None if variant in ("pfc_handoff", "tc_vxlan_encap") else
                        PIN + "/xfab/dut/" + ("prog_tc" if variant.startswith("tc")
                                              else "prog_xdp"),
                        vary_qp=variant == "eecmp", v6="_v6" in variant,
                        vxlan=variant.endswith("vxlan_decap"),
                        restore_all="vxlan" in variant,
                        sink_len=110 if variant.endswith("vxlan_encap") else
                        60 if variant.endswith("vxlan_decap") else None,
                        xfabd_args=XFABD_ARGS.get(variant, ())))
    # stage builds: where a configuration's time goes (stage_table)
    for variant, stops in STAGE_BUILDS:
        for stop in stops:
            up, down = xfab(variant, stop)
            out.append(Mode("xfab_%s@%s" % (variant, stop), "xfab xdp, %s, stopped after %s"
                            % (variant, stop), up, down, prog=PIN + "/xfab/dut/prog_xdp",
                            vary_qp=variant == "eecmp", stop=stop))
    # last in every round, as far from the redirect as any row: the same
    # program measured again, whose share of the first is this run's noise
    # (targets.noise_note)
    red = next(m for m in out if m.name == "redirect")
    out.append(Mode("redirect_again", "minimal XDP DEVMAP redirect, measured again at the end of "
                    "each round (this run's noise)", red.setup, red.teardown, prog=red.prog))
    return out
