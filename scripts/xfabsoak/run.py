"""A soak: the parts together, its run from bring-up to verdict, and its
report (text or JSON)."""
import json
import os
import threading
import time

from xfablab.common import ROOT

from .common import BOUNDED, GRACEFUL, HITLESS, KINDS, mono
from .base import SoakBase
from .flows import Flows
from .faults import Faults
from .attribute import Attribution
from .checks import Checks


class Soak(SoakBase, Flows, Faults, Attribution, Checks):
    """A soak: bring-up, traffic, faults, checks, verdict."""

    def soak(self):
        a = self.a
        total = a.minutes * 60
        self.bring_up()
        self.converge()
        self.precise_logs(self.topo.switches())
        self.t0 = mono()
        self.wall0 = time.time()
        self.start_traffic(total)
        self.sample_once()
        period = min(30.0, max(1.0, total / 60))
        th = threading.Thread(target=self.sampler, args=(period,), daemon=True)
        th.start()
        time.sleep(3)  # steady traffic before the first fault
        # no fault starts in the last 20 s: the last converges under traffic
        self.schedule(time.monotonic() + max(1, total - 3 - 20))
        while (mono() - self.t0) / 1e9 < total:
            time.sleep(0.2)
        self.sampling.set()
        th.join()
        self.sample_once()
        results = self.stop_traffic()
        self.faults += self.session_drops(self.rel(mono()))
        self.faults.sort(key=lambda f: f["start"])
        flows, unattributed = self.attribute(results)
        fib = self.fib_check()
        mem = self.memory()
        return self.report(flows, unattributed, fib, mem, results)

    def verdict(self, flows, unattributed, fib, mem):
        """What failed (the judge, kept apart from the run: tests/netns/
        test_soak_lab.sh plants its input)."""
        a = self.a
        fails = []
        for f in self.faults:
            if f.get("unplanned"):
                if a.judge_unplanned and f["loss_ms"] > a.max_cut_ms:
                    fails.append("an unplanned session drop at %.1f s (%s) lost %.1f ms of a "
                                 "flow (bound %g ms)" % (f["start"], f["target"], f["loss_ms"],
                                                         a.max_cut_ms))
                continue
            if f["check"] != "ok":
                fails.append("%s at %.1f s (%s): %s" % (f["kind"], f["start"], f.get("target"),
                                                      f["check"]))
            if f["kind"] in HITLESS + GRACEFUL and f["lost"]:
                fails.append("%s at %.1f s (%s) lost %d packets (expected 0)" % (
                    f["kind"], f["start"], f.get("target"), f["lost"]))
            if f["kind"] in BOUNDED and f["loss_ms"] > a.max_cut_ms:
                fails.append("%s at %.1f s (%s) lost %.1f ms of a flow (bound %g ms)" % (
                    f["kind"], f["start"], f.get("target"), f["loss_ms"], a.max_cut_ms))
        missing = [k for k in KINDS if not any(f["kind"] == k for f in self.faults)]
        if missing:
            fails.append("no fault of kind %s happened (too short a run)" % ", ".join(missing))
        if unattributed:
            fails.append("%d packets lost outside every fault's window (first at %s s)" % (
                len(unattributed), min((t for t in unattributed if t is not None), default="?")))
        for fl in flows:
            if fl["sent"] == 0 or fl["received"] == 0:
                fails.append("flow %d (%s->%s) sent %d, received %d" % (
                    fl["id"], fl["src"], fl["dst"], fl["sent"], fl["received"]))
        for sw, procs in mem.items():
            for p in procs:
                if p["flat"] is False:
                    fails.append("%s: xfabd pid %d grew from %d to %d kB RSS, %d to %d fds" % (
                        sw, p["pid"], p["rss_kb_first"], p["rss_kb_last"], p["fds_first"],
                        p["fds_last"]))
            # no verdict is not a pass: every switch has an xfabd judged
            if not any(p["flat"] is not None for p in procs):
                fails.append("%s: no xfabd ran long enough to judge its memory" % sw)
        for sw, r in fib.items():
            for d in r["differences"]:
                fails.append("%s: %s kernel %s, data plane %s" % (
                    sw, d["prefix"], d["kernel"], d["dataplane"]))
        return fails

    def report(self, flows, unattributed, fib, mem, results):
        a = self.a
        fails = self.verdict(flows, unattributed, fib, mem)
        sent = sum(f["sent"] for f in flows)
        received = sum(f["received"] for f in flows)
        out = {
            "lab": self.topo.name, "bfd_ms": getattr(a, "bfd_ms", None),
            "bfd_ms_in_lab": self.bfd_ms_in_lab,
            "topology": os.path.relpath(getattr(a, "topology_file", a.topology), ROOT),
            "datapath": self.topo.datapath, "seed": a.seed, "minutes": a.minutes,
            "rate_pps": a.rate, "max_cut_ms": a.max_cut_ms, "judge_unplanned": a.judge_unplanned,
            "traffic": {"flows": flows, "sent": sent, "received": received,
                        "lost": sent - received, "unattributed": len(unattributed),
                        "sender_errors": sum(r["errors"] for r in results["send"].values()),
                        "schedule_resets": sum(r["schedule_resets"]
                                               for r in results["send"].values()),
                        "bad_packets": sum(r["bad"] for r in results["recv"].values())},
            "faults": self.faults,
            "fault_counts": {k: sum(f["kind"] == k for f in self.faults)
                             for k in KINDS + ("session-down",)},
            "wall_start": self.wall0,
            "unplanned_drops": sum(1 for f in self.faults if f.get("unplanned")),
            "unplanned_lost": sum(f["lost"] for f in self.faults if f.get("unplanned")),
            "memory": mem, "fib": fib, "failures": fails, "ok": not fails,
        }
        if a.json:
            print(json.dumps(out, indent=1))
        else:
            self.print_text(out)
        return 0 if not fails else 1

    @staticmethod
    def print_text(o):
        tr = o["traffic"]
        print("soak of lab %s (%s, %s datapath), seed %d, %g min, %d flows at %g packets/s" % (
            o["lab"], o["topology"], o["datapath"], o["seed"], o["minutes"],
            len(tr["flows"]), o["rate_pps"]))
        print("traffic: %d sent, %d received, %d lost (%d outside every fault)" % (
            tr["sent"], tr["received"], tr["lost"], tr["unattributed"]))
        print("%8s  %-14s %-28s %7s %8s %10s  %s" % ("at s", "fault", "target", "lost",
                                                     "loss ms", "converged", "check"))
        for f in o["faults"]:
            print("%8.1f  %-14s %-28s %7d %8.1f %9ss  %s" % (
                f["start"], f["kind"], (f.get("target") or "")[:28], f["lost"], f["loss_ms"],
                f["converged_s"] if f["converged_s"] is not None else "-", f["check"]))
        print("xfabd memory (RSS kB first -> last, fds first -> last):")
        for sw, procs in o["memory"].items():
            print("  %-8s %s" % (sw, "; ".join(
                "pid %d %.0f s: %d -> %d kB (%+.0f kB/min), %d -> %d fds%s" % (
                    p["pid"], p["to_s"] - p["from_s"], p["rss_kb_first"], p["rss_kb_last"],
                    p["rss_kb_per_min"], p["fds_first"], p["fds_last"],
                    "" if p["flat"] is None else (" flat" if p["flat"] else " GROWING"))
                for p in procs)))
        if o["unplanned_drops"]:
            print("unplanned session drops: %d, %d packets lost in them (%s)" % (
                o["unplanned_drops"], o["unplanned_lost"],
                "judged" if o["judge_unplanned"] else "not judged"))
        nd = sum(len(r["differences"]) for r in o["fib"].values())
        print("FIB: %d kernel routes on %d switches, %d differences with the data planes" % (
            sum(r["kernel_routes"] for r in o["fib"].values()), len(o["fib"]), nd))
        for fail in o["failures"]:
            print("FAIL: %s" % fail)
        print("soak %s" % ("passed" if o["ok"] else "FAILED"))
