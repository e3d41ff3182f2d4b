"""bench: forwarding rate of xfab against same-run baselines.

    gen --(g0/d0)--> dut --(d1/s0)--> sink

The generator is BPF_PROG_RUN with live frames (bench_gen, XDP_TX out of g0,
attached in SKB mode to a spare veth so runs do not stall); every frame is
64 bytes on the wire (60 + FCS), RoCEv2 over UDP; with 1,024 flows the
source port and the destination /24 (20.0.0.0/14: inside the big route
tables too) change per flow, or only the QP for E-ECMP. The sink counts and drops in XDP. Each round
runs every configuration once (interleaved); a figure is min/median/max over
the rounds of packets the sink counted per second. ns/packet comes from
BPF_PROG_TEST_RUN of the dut's XDP program on the same frame.

The VXLAN overlay rows: for the encapsulation d0 is a tenant port whose
VNET sends 20.0.0.0/8 into a tunnel (the DUT sends 114-byte frames to the
sink); for the decapsulation the generator sends the frame inside outer
Ethernet/IPv4/UDP 4789/VXLAN (114 bytes) to the DUT's VTEP and the VNET
routes it out of d1 (64 bytes to the sink).

  scripts/bench [--rounds N] [--seconds S] [--json FILE] [--report FILE]
  scripts/bench --compile-only     control-plane events only (no lab, no root)
  scripts/bench --sync-only [--sync-routes N]
                                   route sync only (scripts/sync-bench: 100,000 routes
                                   in make bench, under a minute; 1000000 for a million)

The control-plane section runs xfab-compile-bench: what one event (a
neighbour's new MAC, a link down or up, a route added or removed) writes and
costs on a 1M-route switch: a full rebuild (a fresh compile of the whole
config) against the incremental RIB and compile state.
"""
import argparse
import json
import os
import sys

from xfablab.signals import Shielded, exit_on_signals

from .common import ROOT, SYNC_HEAD, machine, stats
from .events import (SYNC_ROUTES, compile_bench, splice_compile_section, splice_section,
                     sync_bench, sync_section)
from .measure import bringup, measure, nsper
from .modes import CONTROL, SMOKE, modes
from .multicore import multicore, multicore_section
from .netns import teardown, topology
from .report import report


def parse_args():
    ap = argparse.ArgumentParser(prog="bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--json", default=os.path.join(ROOT, "bench-out", "bench.json"))
    ap.add_argument("--report", default=os.path.join(ROOT, "docs", "PERFORMANCE.md"))
    ap.add_argument("--only", help="comma-separated mode names")
    ap.add_argument("--multicore", action="store_true",
                    help="run only the multi-core scenarios and put their section into the "
                    "report (make bench runs them too)")
    ap.add_argument("--smoke", action="store_true",
                    help="make bench-smoke: one short round of a few configurations (the "
                    "baselines, L3, 16-way ECMP, two stage builds, tc, a VXLAN encapsulation), "
                    "JSON only (the report is not touched), no target asserted; fails only if "
                    "something does not run")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite the report from the JSON of an earlier run")
    ap.add_argument("--sync-only", action="store_true",
                    help="run only the route sync benchmark (scripts/sync-bench) and put its "
                    "section into the report")
    ap.add_argument("--sync-routes", type=int, default=SYNC_ROUTES,
                    help="routes of the route sync benchmark (default %d; 1000000 for the "
                    "million-route figure)" % SYNC_ROUTES)
    ap.add_argument("--compile-only", action="store_true",
                    help="run only the control-plane event benchmark and put its section "
                    "into the report")
    return ap.parse_args()


def one_section(args, key, value, splice):
    """A run of one section: into an earlier run's JSON and the whole report
    rewritten from it, or, without that JSON, spliced into the report."""
    if os.path.exists(args.json):
        with open(args.json) as f:
            res = json.load(f)
        res[key] = value
        with open(args.json, "w") as f:
            json.dump(res, f, indent=2)
        report(res, args.report)
    else:
        splice()


def run_sections(args):
    """--sync-only, --compile-only, --multicore, --report-only: their exit
    status, or None for a full (or --only, --smoke) run."""
    if args.sync_only:
        c = sync_bench(routes=args.sync_routes)
        one_section(args, "sync", c,
                    lambda: splice_section(args.report, SYNC_HEAD, sync_section(c)))
        print("wrote %s" % args.report)
        return 0
    if args.compile_only:
        c = compile_bench()
        one_section(args, "compile", c, lambda: splice_compile_section(args.report, c))
        print("wrote %s" % args.report)
        return 0
    if args.multicore:
        try:
            topology(big_table=False)
            mc = multicore(args.rounds, args.seconds)
        finally:
            with Shielded():
                teardown()
        one_section(args, "multicore", mc,
                    lambda: splice_section(args.report, "## Multi-core", multicore_section(mc)))
        print(json.dumps(mc, indent=2))
        return 0
    if args.report_only:
        with open(args.json) as f:
            report(json.load(f), args.report)
        print("wrote %s from %s" % (args.report, args.json))
        return 0
    return None


def run_mode(m, rnd, seconds, raw):
    """One round of one configuration: its rates and its ns per packet."""
    m.setup()
    try:
        for flows in m.flows:
            mpps, offered, got = measure(flows, m.vary_qp, seconds, m.v6, m.vxlan)
            if m.sink_len and abs(got - m.sink_len) > 0.5:
                raise RuntimeError("%s: the sink received %.1f-byte frames, not %d"
                                   % (m.name, got, m.sink_len))
            raw[m.name][str(flows)].append(mpps)
        if m.verify:
            m.verify()
        if m.prog:
            raw[m.name]["ns"].append(nsper(m.prog, m.v6, m.vxlan, m.restore_all))
    finally:
        if m.teardown:
            m.teardown()
    print("round %d %-10s %s1024 flows %.3f Mpps%s" % (
        rnd + 1, m.name,
        "1 flow %.3f Mpps, " % raw[m.name]["1"][-1] if raw[m.name]["1"] else "",
        raw[m.name]["1024"][-1],
        ", %d ns/packet" % raw[m.name]["ns"][-1] if raw[m.name]["ns"] else ""),
        flush=True)


def results(args, ms, raw, mc):
    """The run's JSON: the machine, every configuration's figures and, for a
    full run, the multi-core, bring-up and control-plane benchmarks."""
    res = {"machine": machine(), "rounds": args.rounds, "seconds": args.seconds, "modes": {},
           "smoke": bool(args.smoke)}
    if mc:
        res["multicore"] = mc
    if not args.only:
        res["bringup"] = bringup(min(args.rounds, 3))
    res["control"] = {v: {"start_s": stats(c["start_s"]), "rss_mb": stats(c["rss_mb"]),
                          "kernel_mb": c.get("kernel_mb"),
                          "routes": c["routes"],
                          "write_ms": stats(c["write_ms"]) if c["write_ms"] else None}
                      for v, c in CONTROL.items()}
    if not args.only:
        res["compile"] = compile_bench()
        res["sync"] = sync_bench(routes=args.sync_routes)
    for m in ms:
        r = raw[m.name]
        res["modes"][m.name] = {"label": m.label,
                                "mpps": {str(f): stats(r[str(f)]) for f in m.flows}}
        if m.stop:
            res["modes"][m.name]["stop"] = m.stop
        if m.xfabd_args:
            res["modes"][m.name]["xfabd_args"] = m.xfabd_args
        if r["ns"]:
            res["modes"][m.name]["ns_per_packet"] = stats(r["ns"])
    return res


def main():
    args = parse_args()
    exit_on_signals("bench")  # a signal ends it through the tear-downs below
    rc = run_sections(args)
    if rc is not None:
        return rc
    if args.smoke:
        args.rounds, args.seconds = 1, 0.5
        args.only = ",".join(SMOKE)
        if args.json == os.path.join(ROOT, "bench-out", "bench.json"):
            args.json = os.path.join(ROOT, "bench-out", "smoke.json")
    if not (1 <= args.rounds <= 50 and 0.5 <= args.seconds <= 30):
        print("bench: --rounds 1..50, --seconds 0.5..30", file=sys.stderr)
        return 2
    ms = [m for m in modes() if not args.only or m.name in args.only.split(",")]
    if args.only and len(ms) != len(args.only.split(",")):
        print("bench: no configuration %s" % ", ".join(
            sorted(set(args.only.split(",")) - set(m.name for m in ms))), file=sys.stderr)
        return 2
    raw = {m.name: {"1": [], "1024": [], "ns": []} for m in ms}
    mc = None
    try:
        topology(big_table=any(m.name == "xdp_fwd_1m" for m in ms))
        for rnd in range(args.rounds):
            for m in ms:
                run_mode(m, rnd, args.seconds, raw)
        if not args.only:
            mc = multicore(args.rounds, args.seconds)
    finally:
        with Shielded():
            teardown()
    res = results(args, ms, raw, mc)
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(res, f, indent=2)
    if args.smoke:
        bad = [n for n, r in res["modes"].items()
               if any(v["median"] <= 0 for v in r["mpps"].values())]
        print("bench smoke: %d configurations ran, %s; wrote %s" % (
            len(res["modes"]), "%d forwarded nothing: %s" % (len(bad), ", ".join(bad)) if bad
            else "each forwarded", args.json))
        return 1 if bad else 0
    if "redirect" in res["modes"] and "kernel" in res["modes"]:
        report(res, args.report)
        print("wrote %s and %s" % (args.json, args.report))
    return 0
