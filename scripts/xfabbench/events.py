"""The control plane's benchmarks: xfab-compile-bench (one event on a
1M-route switch) and scripts/sync-bench (the kernel's routes into the
data plane), their report sections, and splicing a section into the report."""
import json
import os
import statistics
import subprocess

from xfablab.signals import run_child

from .common import COMPILE_BENCH, COMPILE_HEAD, ROOT, SYNC_BENCH, SYNC_HEAD, machine


def compile_bench(routes=1000000, repeat=5):
    """xfab-compile-bench's JSON, plus the command that produced it."""
    out = os.path.join(ROOT, "bench-out", "compile.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    cmd = [COMPILE_BENCH, "--routes", str(routes), "--repeat", str(repeat), "--json", out]
    subprocess.run(cmd, check=True, timeout=1800)
    with open(out) as f:
        c = json.load(f)
    c["command"] = "build/xfab-compile-bench --routes %d --repeat %d" % (routes, repeat)
    c["machine"] = machine()
    return c


# make bench's size: a round of 100,000 routes takes 10-15 s here, so the
# three rounds and the burst stay under a minute; a million routes take
# `scripts/bench --sync-only --sync-routes 1000000` (about 2 minutes a round)
SYNC_ROUTES, SYNC_ROUNDS, SYNC_BURST = 100000, 3, 100000


def sync_bench(routes=SYNC_ROUTES, rounds=SYNC_ROUNDS, burst=SYNC_BURST):
    """scripts/sync-bench's JSON (FIB_SYNC, kernel -> data plane)."""
    out = os.path.join(ROOT, "bench-out", "sync.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    # exit status 1: a packet lost in the burst, which the report shows
    # run_child: interrupted, sync-bench is asked to clean up, not killed
    r = run_child([SYNC_BENCH, "--routes", str(routes), "--rounds", str(rounds), "--burst",
                   str(burst), "--json", out], timeout=3600)
    if r.returncode not in (0, 1):
        raise RuntimeError("sync-bench failed (exit status %d)" % r.returncode)
    with open(out) as f:
        c = json.load(f)
    c["command"] = "scripts/sync-bench --routes %d --rounds %d --burst %d" % (routes, rounds,
                                                                             burst)
    c["machine"] = machine()
    return c


def sync_section(c):
    m, med = c["machine"], statistics.median
    lines = [SYNC_HEAD, "",
             "`%s` (`make bench` runs it at 100,000 routes, `scripts/bench --sync-only "
             "--sync-routes N` at any size) on %s, %d cores, kernel %s: xfabd with "
            "FIB_SYNC in a namespace; %s IPv4 /24 routes over 8 gateways (RTA_MULTIPATH, as "
            "zebra installs them without nexthop objects) fed to the kernel by "
            "build/xfab-route-inject; done when `xfabctl show fib-sync` says every route is "
            "programmed. Medians of %d rounds." % (
                c["command"], m["cpu"], m["cores"], m["kernel"], "{:,}".format(c["routes"]),
                len(c["kernel_s"])), "",
            "| measurement | s (median) | routes/s | |", "|---|---|---|---|",
            "| kernel alone (a table xfabd does not mirror): the baseline | %.2f | %s | |" % (
                med(c["kernel_s"]), "{:,}".format(c["kernel_routes_per_s"])),
            "| live: into the kernel and on into xfab's data plane | %.2f | %s | %.2f x the "
            "kernel alone; done %.0f ms after the kernel |" % (
                med(c["live_s"]), "{:,}".format(c["live_routes_per_s"]), c["live_ratio"],
                med(c["live_lag_s"]) * 1e3),
            "| drain: xfabd stopped while the kernel took them, then woken | %.2f | %s | "
            "xfabd's own rate: %.2f x the kernel alone |" % (
                med(c["drain_s"]), "{:,}".format(c["drain_routes_per_s"]),
                c.get("drain_ratio", c["drain_routes_per_s"] / c["kernel_routes_per_s"])),
            "| kernel alone deleting them: the baseline of deletes | %s | %s | |" % (
                "%.2f" % med(c["kernel_delete_s"]) if c.get("kernel_delete_s") else "-",
                "{:,}".format(c["kernel_delete_routes_per_s"])
                if c.get("kernel_delete_routes_per_s") else "-"),
            "| delete: all withdrawn, until the data plane holds none | %.2f | %s | %s |" % (
                med(c["delete_s"]), "{:,}".format(c["delete_routes_per_s"]),
                "%.2f x the kernel's deletes" % c["delete_ratio"]
                if c.get("delete_ratio") else ""),
            ""]
    if c.get("burst_changes"):
        lines += ["Burst under traffic: %s route changes (%s routes moved to other gateways, "
                  "then deleted) in %.2f s while 4 UDP flows crossed 4 other routes: %s packets "
                  "sent, **%s lost**." % (
                      "{:,}".format(c["burst_changes"]), "{:,}".format(c["burst_changes"] // 2),
                      c["burst_s"], "{:,}".format(c["burst_sent"]), c["burst_lost"]), ""]
    lines += ["xfabd's peak RSS: %d MB; resyncs: %s; load average %s before, %s after (2 "
              "cores shared with other work: the ratios to the kernel of the same run are what "
              "compares)." % (c["xfabd_rss_mb"], c["resyncs"], c.get("loadavg_before", "?"),
                              c.get("loadavg_after", "?")), ""]
    return lines


def compile_section(c):
    m = c["machine"]
    lines = [COMPILE_HEAD, "",
             "`%s` (run by `scripts/bench`, or alone by `scripts/bench --compile-only`) on %s, "
             "%d cores, kernel %s: the agent's library writing into a counting map writer and "
             "FIB arrays in memory, no kernel. %s IPv4 /24 routes over %d ports, %d ECMP groups "
             "of %d (every 16th route on one nexthop), resilient groups. Both columns come from "
             "the one compiler xfabd uses, the RIB and compile.c (docs/ARCHITECTURE.md). *Full*: "
             "a full rebuild after the event: a fresh RIB and compile state load the whole "
             "config and write every entry, into empty FIB arrays. *Incremental*: the running "
             "RIB and compile state are told of the event and write what it implies. Entries "
             "written: map entries written or removed plus FIB entries stored; time: median of "
             "%d repeats, wall clock of the library calls."
             % (c["command"], m["cpu"], m["cores"], m["kernel"], "{:,}".format(c["routes"]),
                c["ports"], c["groups"], c["ways"], c["repeat"]), "",
             "| event | full: entries written | full: of which map entries | "
             "full: ms | incremental: entries written | incremental: us |",
             "|---|---|---|---|---|---|"]
    for e in c["events"]:
        lines.append("| %s | %s | %s | %.0f | %d | %.1f |" % (
            e["name"], "{:,}".format(e["full"]["entries"]), "{:,}".format(e["full"]["compiled"]),
            e["full"]["ms"], e["incremental"]["entries"], e["incremental"]["ms"] * 1e3))
    lines += ["", "First programming of the whole table (the same fresh compile, run once for "
              "each column): %.0f ms and %.0f ms (the RIB indexes every prefix and interns its "
              "path once; every later incremental event is then independent of the table size)."
              % (c["setup_ms"]["full"], c["setup_ms"]["incremental"]), ""]
    return lines


def splice_section(path, head, lines):
    """Replaces (or appends) the section starting at head of a report."""
    with open(path) as f:
        text = f.read()
    sec = "\n".join(lines)
    i = text.find(head)
    if i < 0:
        text = text.rstrip("\n") + "\n\n" + sec
    else:
        j = text.find("\n## ", i + len(head))
        text = text[:i] + sec + ("\n" + text[j + 1:] if j >= 0 else "")
    with open(path, "w") as f:
        f.write(text)


def splice_compile_section(path, c):
    """Replaces (or appends) the control-plane event section of a report."""
    splice_section(path, COMPILE_HEAD, compile_section(c))
