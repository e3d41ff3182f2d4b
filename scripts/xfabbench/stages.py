"""What each pipeline stage costs: the stage builds' table and the
same-run prices of the stages a configuration adds."""
from .modes import STOP_ORDER, STOP_WHAT


# What a stage costs: the same-run difference between a configuration
# with it and one without, in wall-clock ns per packet (1,000 / Mpps, 1024
# flows). Several stages forward through the same CPUs as the generator and
# sink, so these are upper bounds of the program's own cost.
STAGES = [
    ("xfab_l3", "xfab_ecmp16", "group pick (16-way ECMP)"),
    ("xfab_ecmp16", "xfab_eecmp", "E-ECMP (RoCE QP in the hash)"),
    ("xfab_ecmp16", "xfab_flowlet", "flowlets"),
    ("xfab_l3", "xfab_ecn", "ECN phantom queue"),
    ("xfab_l3", "xfab_pfc_lossy", "PFC port, lossy class (the lossless check in XDP)"),
    ("xfab_tc", "xfab_pfc_handoff", "lossless class on xdp: handed to tc (vs tc datapath)"),
    ("xfab_tc", "xfab_tc_pfc", "PFC accounting (charge at ingress, credit as it leaves)"),
    ("xfab_l3", "xfab_vxlan_encap", "VXLAN encapsulation (tenant table, tunnel, +50 bytes)"),
    ("xfab_l3", "xfab_vxlan_decap", "VXLAN decapsulation (VTEP checks, -50 bytes, tenant "
     "table)"),
    ("xfab_tc", "xfab_tc_vxlan_encap", "VXLAN encapsulation on the tc datapath"),
]


def fmt(v, sign=False):
    return "-" if v is None else ("%+.1f" if sign else "%.1f") % v


def diff(a, b):
    return None if a is None or b is None else a - b


def build(variant, stop):
    """A stage build's mode name (stop "full": the switch's own build)."""
    return "xfab_%s" % variant if stop == "full" else "xfab_%s@%s" % (variant, stop)


def other_stages(nsp, wall):
    """The stages flowlets and the phantom queue add, beside 16-way ECMP's
    same stage (nsp, wall: a build's program and wall-clock ns)."""
    extra = []
    for label, variant, a, b in (
            ("flowlets (in place of the hash's bucket)", "flowlet", "fib", "pick"),
            ("ECN phantom queue (a queued port, vs the egress checks alone)", "ecn",
             "nexthop", "queue")):
        mine = (diff(nsp(build(variant, b)), nsp(build(variant, a))),
                diff(wall(build(variant, b)), wall(build(variant, a))))
        base = (diff(nsp(build("ecmp16", b)), nsp(build("ecmp16", a))),
                diff(wall(build("ecmp16", b)), wall(build("ecmp16", a))))
        if mine[1] is None or base[1] is None:
            continue
        extra.append("| %s | %s -> %s | %s | %s | %s | %s |" % (
            label, a, b, fmt(base[0]), fmt(mine[0]), fmt(base[1]), fmt(mine[1])))
    if not extra:
        return []
    return ["", "Stages other configurations add, priced the same way (their %s build "
            "against the one before; 16-way ECMP's same stage beside it):" % "stage",
            "", "| stage | between | ECMP program ns | program ns | ECMP wall ns | "
            "wall ns |", "|---|---|---|---|---|---|"] + extra + [
            "", "The program column of flowlets and the phantom queue reads the clock "
            "on every test run (no NAPI batch there: bpf/kern.h); forwarding reads it "
            "once per receive batch, which the wall-clock column shows."]


def stage_table(res):
    """Where 16-way ECMP's time goes: each stage's price is the difference
    to the build that stops before it (the first: to the minimal redirect),
    as the program's own ns (test runs) and as wall clock (1,000 / Mpps)."""
    md = res["modes"]

    def wall(name):
        r = md.get(name)
        # the best round: what disturbs a rate (a neighbour, an interrupt)
        # only lowers it, and a stage's price is a small difference of two
        # rates measured seconds apart, which one slow round would swamp
        if not r or "1024" not in r["mpps"] or r["mpps"]["1024"]["max"] <= 0:
            return None
        return 1e3 / r["mpps"]["1024"]["max"]

    def nsp(name):
        r = md.get(name)
        return (r.get("ns_per_packet") or {}).get("median") if r else None

    if "redirect" not in md or build("ecmp16", "parse") not in md:
        return []
    lines = ["## Where the time goes: 16-way ECMP, stage by stage", "",
             "Builds of the same data plane that stop after a stage and send the frame out as "
             "it is (`xfabd --bench-stop STAGE`, bpf/bench.h: xfab_xdp_bench, the pipeline with "
             "the stage checks, a program a switch never loads). These are the general "
             "pipeline's stages: the packets the fast path (bpf/fast.h) leaves to it pay them; "
             "the switch's own build below forwards the bench's frame in the fast path's one "
             "pass, so its row is that pass's whole cost, not a sum of these. A "
             "stage's price is the difference to the build that stops before it; the first "
             "row's is to the minimal redirect. Program: "
             "BPF_PROG_TEST_RUN ns/packet (one flow, hot caches; the median of the rounds); "
             "wall clock: 1,000 / Mpps at 1,024 flows of the best round, the whole gen -> "
             "dut -> sink path on the same CPU (interference only ever slows a round, and a "
             "price is a small difference of two rates measured seconds apart: the medians "
             "swing by tens of ns on a shared host).", "",
             "| stage | what it adds | program ns | price | wall-clock ns | price |",
             "|---|---|---|---|---|---|",
             "| minimal redirect (the ceiling) | one DEVMAP redirect | %s | | %s | |" % (
                 fmt(nsp("redirect")), fmt(wall("redirect")))]
    prev_n, prev_w = nsp("redirect"), wall("redirect")
    for stop in STOP_ORDER:
        name = build("ecmp16", stop)
        n, w = nsp(name), wall(name)
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            stop, STOP_WHAT[stop], fmt(n), fmt(diff(n, prev_n), True), fmt(w),
            fmt(diff(w, prev_w), True)))
        prev_n, prev_w = n, w
    n, w = nsp("xfab_ecmp16"), wall("xfab_ecmp16")
    lines.append("| the switch's own build | the fast path's one pass (the frame takes it), "
                 "no stage checks | %s | %s | %s | %s |" % (
                     fmt(n), fmt(diff(n, prev_n), True), fmt(w), fmt(diff(w, prev_w), True)))
    red, full = wall("redirect"), wall("xfab_ecmp16")
    if red and full:
        allowed = red / 0.8 - red
        lines += ["", "The budget: at 0.8 x the minimal redirect, 16-way ECMP may add %.1f ns "
                  "per packet (wall clock) to the redirect's %.1f; it adds %.1f (%s)." % (
                      allowed, red, full - red,
                      "within" if full - red <= allowed else "over by %.1f ns" %
                      (full - red - allowed))]
    lines += other_stages(nsp, wall)
    return lines + [""]


def stage_prices(res):
    rows = []
    for base, with_, what in STAGES:
        a, b = res["modes"].get(base), res["modes"].get(with_)
        if not a or not b:
            continue
        ma, mb = a["mpps"]["1024"]["median"], b["mpps"]["1024"]["median"]
        if ma <= 0 or mb <= 0:
            continue
        rows.append("| %s | %s | %.1f | %.1f | %+.1f |" % (what, a["label"], 1e3 / ma,
                                                          1e3 / mb, 1e3 / mb - 1e3 / ma))
    if not rows:
        return []
    return ["## Stage prices", "",
            "Each stage's price is the difference, in the same run, between a configuration "
            "with it and one without. It is given in wall-clock ns per packet (1,000 / median "
            "Mpps, 1024 flows).", "",
            "| stage | compared with | ns/packet without | with | price |",
            "|---|---|---|---|---|"] + rows + [""]
