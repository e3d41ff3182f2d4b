"""docs/PERFORMANCE.md from a run's JSON."""
from .common import VNI, paired
from .events import compile_section, sync_section
from .multicore import multicore_section
from .stages import stage_prices, stage_table
from .targets import targets


def rate_tables(res):
    """The rates at 1 and at 1,024 flows, against the same run's redirect and
    kernel forwarding."""
    lines = []
    for flows in ("1", "1024"):
        base_r = res["modes"]["redirect"]["mpps"][flows]
        base_k = res["modes"]["kernel"]["mpps"][flows]
        lines += ["## %s flow%s" % (flows, "" if flows == "1" else "s"), "",
                  "10 routes unless the configuration says otherwise.", "",
                  "| configuration | Mpps min | median | max | x redirect | x kernel | "
                  "ns/packet min / median / max |",
                  "|---|---|---|---|---|---|---|"]
        for name, r in res["modes"].items():
            if r.get("stop") or flows not in r["mpps"]:
                continue
            s = r["mpps"][flows]
            ns = r.get("ns_per_packet")
            lines.append("| %s | %.3f | %.3f | %.3f | %.2f | %.2f | %s |" % (
                r["label"], s["min"], s["median"], s["max"],
                paired(s, base_r) or 0, paired(s, base_k) or 0,
                "%d / %d / %d" % (ns["min"], ns["median"], ns["max"]) if ns else "-"))
        lines.append("")
    return lines + xfabd_args_note(res)


def xfabd_args_note(res):
    """The configurations whose xfabd took more arguments than its config
    (a row of the tables above says what they change)."""
    extra = ["%s: `xfabd %s`" % (r["label"], " ".join(r["xfabd_args"]))
             for r in res["modes"].values() if r.get("xfabd_args")]
    if not extra:
        return []
    return ["Started with more xfabd arguments than the others: %s." % "; ".join(extra), ""]


def control_section(control):
    """xfabd's start, memory and programming time per configuration."""
    lines = ["## Control plane", "",
             "xfabd from start to forwarding (parse and validate the whole config, compile, "
             "load, program every table, attach), its peak RSS (which counts the FIB "
             "arrays xfabd maps from the kernel to write them: mapped, not copied) and the "
             "kernel memory its maps hold (the FIBs are sized to the table: "
             "docs/ARCHITECTURE.md); then the programming step alone: writing every table "
             "(route tries in batches of 8,192 per syscall, the FIBs through mmap) and the "
             "routes per second that gives (for tables of 10k routes and more):", "",
             "| config | routes | start s min / median / max | program ms min / median / "
             "max | routes/s (median) | peak RSS MB min / median / max | maps MB |",
             "|---|---|---|---|---|---|---|"]
    for v, c in control.items():
        w = c.get("write_ms") or {"min": 0, "median": 0, "max": 0}
        st, rss = c["start_s"], c["rss_mb"]
        lines.append("| %s | %d | %.2f / %.2f / %.2f | %.0f / %.0f / %.0f | %s | %d / %d / %d "
                     "| %s |"
                     % (v, c.get("routes", 0), st["min"], st["median"], st["max"], w["min"],
                        w["median"], w["max"],
                        "{:,.0f}".format(c["routes"] / (w["median"] / 1e3))
                        if w["median"] and c["routes"] >= 10000 else "-",
                        rss["min"], rss["median"], rss["max"],
                        "%.1f" % c["kernel_mb"] if c.get("kernel_mb") is not None else "-"))
    lines.append("")
    return lines


def bringup_section(bringup):
    """xfab-lab up's time per topology."""
    lines = ["## Lab bring-up", "",
             "`scripts/xfab-lab up` of the topologies as they ship (BGP routing: FRR on every "
             "switch) until every session is Established, every data plane holds every "
             "remote host prefix over all its paths and every nexthop is resolved:",
             "", "| topology | s min | median | max |", "|---|---|---|---|"]
    for topo, s in bringup.items():
        lines.append("| %s | %.2f | %.2f | %.2f |" % (topo, s["min"], s["median"], s["max"]))
    lines.append("")
    return lines


def baselines_note():
    """What each baseline program does, so a ratio to it can be read."""
    return ["Baselines (bench/): the *minimal redirect* sends every frame to one DEVMAP slot "
            "untouched; the *lean reference ECMP forwarder* (bench/lean_ecmp.bpf.c, "
            "tests/netns/test_bench_lean.sh) does the 16-way ECMP job with xfab's checks and "
            "nothing more: Ethernet (source not multicast, not our own MAC, destination our "
            "MAC), RFC 1812 (version, IHL 5, header checksum, total length, source and "
            "destination classes, TTL), a route lookup in an array indexed by the "
            "destination's top 16 bits (one load, as xfab's FIB pays for 20.0.0.0/8), a "
            "multiply-xor hash of the 5-tuple picking one of 16 member records (MACs and "
            "DEVMAP slot), TTL decrement with RFC 1624's incremental checksum, one per-CPU "
            "counter, a DEVMAP redirect; the *xdp_fwd-style* forwarders are the kernel "
            "sample's job (bpf_fib_lookup, TTL, MACs, DEVMAP) with flags 0 (the FIB rules, "
            "then the main table) or BPF_FIB_LOOKUP_DIRECT (the main table, no rules); the "
            "*minimal VXLAN encapsulation and decapsulation* (bench/bench.bpf.c) are the "
            "ceilings of the overlay rows: 50 bytes of precomputed outer headers put in front "
            "(lengths, checksum and source port set per packet), or the outer headers checked "
            "and taken off and the inner MACs set, then the redirect, with no table looked up; "
            "the *minimal tc router* (bench/bench.bpf.c) is the tc datapath's: the headers "
            "read, the TTL (RFC 1624's checksum update) and the MACs rewritten, then the "
            "minimal tc redirect's bpf_redirect.",
            ""]


def notes():
    """How the figures were taken and what they mean."""
    return baselines_note() + ["ns/packet: BPF_PROG_TEST_RUN (1M repeats, best of 3, median over rounds) of the "
            "dut's program (XDP, or tc for the tc datapath) on the bench frame, entered through "
            "a wrapper that restores the Ethernet and IP headers before every repeat (repeats "
            "share one buffer: without it every repeat after the first would see the "
            "rewritten frame and time a drop path) and tail-calls the program; the wrapper's "
            "own cost, measured with an empty target in the same call, is taken off. A "
            "figure is kept only if the program's verdict was a redirect. Kernel forwarding "
            "has no program to time.", "",
            "VXLAN rows (the overlay, docs/OVERLAY.md): one VNET, VNI %d. *Encap*: d0 is " % VNI +
            "its tenant port and 20.0.0.0/8 a tunnel route (VNET_ROUTE_TUNNEL) to a remote "
            "VTEP behind d1: the generator's 64-byte frames leave as 114-byte VXLAN frames "
            "(the tenant table, the tunnel's endpoint and source port from the inner flow's "
            "hash, the underlay's lookup of the endpoint, 50 bytes of headers written). "
            "*Decap*: the generator sends the same frames inside outer Ethernet/IPv4/UDP "
            "4789/VXLAN (114 bytes, the outer source port varying with the inner flow) to "
            "the DUT's VTEP; d1 is the tenant port and 20.0.0.0/8 a VNET_ROUTE out of it: "
            "64-byte frames reach the sink. The run fails if the sink gets other sizes. "
            "Their ratios are to the 64-byte baselines; their stage prices (above) are the "
            "difference to plain L3 (or the tc datapath) of the same run. ns/packet of the "
            "decapsulation and the xdp encapsulation: the wrapper also moves the frame's "
            "start back and restores it whole (the same restore is in its own, subtracted "
            "cost; the head move, a few ns, is not). The tc encapsulation has no ns/packet: "
            "the test run's repeats share one skb, which the kernel then takes for "
            "encapsulated already (a second encapsulation fails).", "",
            "IPv6 rows send 78-byte frames (IPv6 + UDP + BTH does not fit in 64); their "
            "ratios are still to the IPv4 64-byte baselines. Their 100k and 1M prefixes are "
            "/64s in 2001:db8::/32. Lookups: both families in a FIB of arrays sized to the "
            "table (a 16-bit first level, then a load per address byte while a longer prefix "
            "lives under the entry: 1 load for 20.0.0.0/8, 2 for a /24, 7 for an IPv6 /64).",
            "",
            "What the hot path costs and why (docs/ARCHITECTURE.md): the flow hash is "
            "multilinear (four independent multiplies for IPv4, keys derived from the seed "
            "by xfabd; MurmurHash3's chained mixing cost about 15 ns); the chosen member's "
            "port and device are checked once; the port's device is noted once; MACs are "
            "copied and compared as two words; tx_ports is an array indexed by port slot. "
            "Flowlets, the least-loaded mode and the phantom queue read the clock once per "
            "NAPI receive batch (at most every 16 packets): bpf_ktime_get_ns costs ~29 ns on "
            "this VM (kvm-clock), more than the rest of an ECMP decision, so their program "
            "ns (test runs, no batch) overstate what they cost forwarding; the wall-clock "
            "prices are the fair ones. What stays: each lock-prefixed atomic (the phantom "
            "queue's one per packet) costs ~5.6 ns here.", ""]


def report(res, path):
    m = res["machine"]
    lines = ["# Performance", "",
             "Generated by `make bench` (`scripts/bench`); do not edit by hand. Every figure is "
             "min / median / max over %d interleaved rounds of %.1f s, measured in the same run as "
             "its baselines; a ratio is the median of the rounds' own ratios (round i of every "
             "configuration runs in one pass: a slow spell of the host slows a round's pair "
             "together)." % (res["rounds"], res["seconds"]), "",
             "Machine: %s, %d cores, kernel %s, XDP %s, %d-byte frames, gen -> dut -> sink veth "
             "namespaces, generator BPF_PROG_RUN live frames (XDP_TX), sink counts and drops in "
             "XDP. Absolute rates drift between runs on this host; the ratios are the result." % (
                 m["cpu"], m["cores"], m["kernel"], m["xdp_mode"], m["frame_bytes"]), ""]
    lines += rate_tables(res)
    lines += stage_table(res)
    lines += multicore_section(res.get("multicore"))
    lines += stage_prices(res)
    lines += targets(res)
    if res.get("control"):
        lines += control_section(res["control"])
    if res.get("compile"):
        lines += compile_section(res["compile"])
    if res.get("sync"):
        lines += sync_section(res["sync"])
    if res.get("bringup"):
        lines += bringup_section(res["bringup"])
    lines += notes()
    with open(path, "w") as f:
        f.write("\n".join(lines))
