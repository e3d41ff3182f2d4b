"""Issue 15's targets against a run's medians (a report section)."""


def control_targets(res, row):
    """The control plane's targets: start to forwarding and memory, route
    sync, the labs' bring-up (row: adds one)."""
    ctl = res.get("control", {})
    for v, fam in (("ecmp16_1m", "IPv4"), ("ecmp16_v6_1m", "IPv6")):
        c = ctl.get(v)
        if c:
            st = c["start_s"]["median"]
            row("1M %s routes: xfabd start to forwarding (peak RSS %d MB)" % (
                fam, c["rss_mb"]["median"]), "<= 5 s", "%.1f s" % st, st <= 5)
    sync = res.get("sync")
    if sync and sync.get("drain_routes_per_s"):
        r = sync["drain_routes_per_s"]
        row("route sync from the kernel (xfabd's own rate, %s routes)" % "{:,}".format(
            sync["routes"]), ">= 200,000 routes/s", "{:,}".format(r), r >= 200000)
    for topo, limit in (("clos-2x4", 10), ("clos-4x8", 30)):
        b = (res.get("bringup") or {}).get(topo)
        if b:
            row("lab bring-up, %s (BGP up, every route in every data plane)" % topo,
                "<= %d s" % limit, "%.1f s" % b["median"], b["median"] <= limit)
    small = ctl.get("l3")
    if small and small.get("kernel_mb") is not None:
        tot = small["rss_mb"]["median"] + small["kernel_mb"]
        row("a switch with a small table: xfabd's peak RSS + its maps' kernel memory",
            "<= 30 MB", "%d + %.1f = %.1f MB" % (small["rss_mb"]["median"], small["kernel_mb"],
                                                tot), tot <= 30)


def targets(res):
    """Issue 15's targets against this run's medians (1,024 flows): ratios to
    the baselines of the same run, stage prices, the control plane's
    figures. A target that this run has no figure for is left out."""
    md = res["modes"]

    def med(name):
        r = md.get(name)
        return r["mpps"]["1024"]["median"] if r and "1024" in r["mpps"] else None

    def ns(name):
        r = md.get(name)
        return (r.get("ns_per_packet") or {}).get("median") if r else None

    def wall(name):
        m = med(name)
        return 1e3 / m if m else None
    rows = []

    def row(what, want, got, ok):
        rows.append("| %s | %s | %s | %s |" % (what, want, got, "met" if ok else "NOT met"))
    red, ker, fwd = med("redirect"), med("kernel"), med("xdp_fwd")
    for name, label in (("xfab_ecmp16", "L3 + 16-way ECMP"), ("xfab_eecmp", "E-ECMP (QP hashed)")):
        x = med(name)
        if not x:
            continue
        if red:
            row("%s vs the minimal redirect" % label, ">= 0.80x", "%.2fx" % (x / red),
                x / red >= 0.8)
        if fwd:
            row("%s vs the xdp_fwd-style forwarder" % label, ">= 1.10x", "%.2fx" % (x / fwd),
                x / fwd >= 1.1)
        if ker:
            row("%s vs kernel forwarding" % label, ">= 3.0x", "%.2fx" % (x / ker), x / ker >= 3)
    pick, fib = ns("xfab_ecmp16@pick"), ns("xfab_ecmp16@fib")
    if pick is not None and fib is not None:
        row("hash and member choice (the pick stage, program ns)", "<= 5 ns",
            "%.1f ns" % (pick - fib), pick - fib <= 5)
    e, f = wall("xfab_ecmp16"), wall("xfab_flowlet")
    if e and f:
        row("flowlets vs the ECMP path (wall-clock ns/packet)", "<= 1.25x", "%.2fx (%.1f vs "
            "%.1f ns)" % (f / e, f, e), f / e <= 1.25)
    l3, q = wall("xfab_l3"), wall("xfab_ecn")
    if l3 and q:
        row("ECN phantom queue (wall-clock, vs plain L3)", "<= +10 ns", "%+.1f ns" % (q - l3),
            q - l3 <= 10)
    tc = med("xfab_tc")
    if tc and ker:
        row("tc datapath vs kernel forwarding", ">= 1.5x", "%.2fx" % (tc / ker), tc / ker >= 1.5)
    for big, small, fam in (("xfab_ecmp16_1m", "xfab_ecmp16", "IPv4"),
                            ("xfab_ecmp16_v6_1m", "xfab_ecmp16_v6", "IPv6")):
        b, sm = med(big), med(small)
        if b and sm:
            row("1M %s routes: rate against 10 routes" % fam, "within 10 %",
                "%+.1f %%" % (100 * (b / sm - 1)), b / sm >= 0.9)
    control_targets(res, row)
    if not rows:
        return []
    return ["## Targets (issue 15)", "",
            "Medians of this run, 1,024 flows; ratios to baselines of the same run.", "",
            "| target | wanted | this run | |", "|---|---|---|---|"] + rows + [""]
