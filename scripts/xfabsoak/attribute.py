"""Losses attributed to the faults and to the sessions that dropped by
themselves (bgpd's logs)."""
import os
import time

from .common import (ADJ, DROP_MARGIN_S, GRACEFUL, HITLESS, NOTIF, SoakError,
                     WINDOW_AFTER_S, WINDOW_BEFORE_S, log)


class Attribution:
    """Which fault (or unplanned session drop) each lost packet belongs to."""

    def precise_logs(self, switches):
        """FRR's log times to the millisecond (the unplanned session drops
        are found in bgpd's log)."""
        for sw in switches:
            try:
                self.vtysh(sw, "configure terminal", "log timestamp precision 3")
            except SoakError as e:
                log("%s: %s" % (sw, e))

    def session_drops(self, end):
        """Every BGP session that went down outside every fault's window, from
        the switches' bgpd logs: an unplanned event of its own (kind
        session-down), from the first drop to the last session's return."""
        drops = []
        for sw in self.topo.switches():
            try:
                with open(os.path.join(self.lab.frr_dir(sw), "bgpd.log"), errors="replace") as fh:
                    lines = fh.read().splitlines()
            except OSError:
                continue
            reason = {}
            for line in lines:
                n = NOTIF.search(line)
                if n:
                    reason[n.group(1)] = n.group(2)
                m = ADJ.match(line)
                if not m:
                    continue
                stamp = m.group(1)
                frac = float("0" + stamp[stamp.index("."):]) if "." in stamp else 0.0
                wall = time.mktime(time.strptime(stamp[:19], "%Y/%m/%d %H:%M:%S")) + frac
                t = round(wall - self.wall0, 3)
                why = m.group(4).strip()
                addr = m.group(2).split("(")[0]
                if "Notification" in why and addr in reason:
                    why += " (%s)" % reason.pop(addr)
                if 0 <= t <= end:
                    drops.append((t, sw, m.group(2), m.group(3), why))
        drops.sort()
        before = 3 * self.a.bfd_ms / 1000.0 + DROP_MARGIN_S
        events = []
        downs = {}
        for t, sw, peer, what, why in drops:
            key = (sw, peer)
            if what == "Down":
                f = self.drop_owner(t, sw, peer)
                if f is not None:
                    if f["kind"] in HITLESS:  # its failure: it must drop nothing
                        f.setdefault("session_drops", []).append("%s %s: %s" % (sw, peer, why))
                        if f["check"] == "ok":
                            f["check"] = "a BGP session went down during it (%s %s: %s)" % (
                                sw, peer, why)
                    continue
                if events and t <= events[-1]["end"] + 2:
                    ev = events[-1]
                else:
                    ev = {"kind": "session-down", "unplanned": True,
                          "start": round(t - before, 3), "logged": t, "end": t,
                          "sessions": [], "check": "ok", "converged_s": None}
                    events.append(ev)
                ev["sessions"].append("%s %s: %s" % (sw, peer, why))
                ev["end"] = max(ev["end"], t)
                downs[key] = ev
            elif key in downs:  # back: the event lasts until then
                ev = downs.pop(key)
                ev["end"] = max(ev["end"], t)
        for ev in events:
            ev["target"] = ", ".join(ev["sessions"][:2]) + (
                " (+%d)" % (len(ev["sessions"]) - 2) if len(ev["sessions"]) > 2 else "")
            if ev["sessions"]:
                ev["converged_s"] = round(ev["end"] - ev["logged"], 2)
        return events

    def drop_owner(self, t, sw, peer):
        """The fault a session drop at t (switch sw, neighbour peer) belongs
        to, or None (an unplanned drop): a session of the cut link, or of the
        switch whose FRR restarted, is that fault's; any session that drops
        during a hitless fault (an xfabd kill, a reload, churn) is that
        fault's too, as its failure: it was the fault's doing or at least
        happened under it, and the fault's loss must be 0 either way."""
        for f in self.faults:
            if not f["start"] - WINDOW_BEFORE_S <= t <= f["end"] + WINDOW_AFTER_S:
                continue
            nodes = f.get("nodes", ())
            if f["kind"] in HITLESS:
                return f
            if sw in nodes and any("(%s)" % n in peer for n in nodes if n != sw):
                return f
            if f["kind"] in GRACEFUL and (sw in nodes or "(%s)" % nodes[0] in peer):
                return f
        return None

    # -- the end: losses, memory, FIB
    def attribute(self, results):
        """Every lost packet of every flow, with its send time, given to the
        fault whose window holds it (or to none)."""
        rate = self.a.rate
        sent_all = {}
        for node, r in results["send"].items():
            for fid, n in r["sent"].items():
                sent_all[int(fid)] = n
        got = {}
        for node, r in results["recv"].items():
            for fid, fr in r["flows"].items():
                got[int(fid)] = fr
        flows = []
        lost_at = []  # (time s, flow)
        for fid in sorted(self.flows):
            fl = self.flows[fid]
            sent = sent_all.get(fid, 0)
            fr = got.get(fid)
            if fr is None:
                row = dict(fl, id=fid, sent=sent, received=0, lost=sent, reordered=0,
                           duplicates=0)
                flows.append(row)
                lost_at += [(None, fid)] * sent
                continue
            times = [(m, t) for m, t in fr["missing"] if m < sent]
            # before the first packet seen and after the last: by the rate
            step = int(1e9 / rate)
            times += [(m, fr["first_t"] - (fr["first"] - m) * step)
                      for m in fr["missing_before_first"]]
            times += [(m, fr["hi_t"] + (m - fr["hi"]) * step) for m in range(fr["hi"] + 1, sent)]
            lost = len(times) + fr["missing_over"]
            row = dict(fl, id=fid, sent=sent, received=fr["rx"], lost=sent - fr["rx"],
                       lost_listed=lost, reordered=fr["late"], duplicates=fr["dup"])
            flows.append(row)
            lost_at += [(self.rel(t), fid) for _, t in times]
            lost_at += [(None, fid)] * fr["missing_over"]
        per_fault = [{} for _ in self.faults]
        times = [[] for _ in self.faults]
        unattributed = []
        for t, fid in lost_at:
            # the fault (or unplanned session drop) that began last before it
            # among those whose window holds it
            owner = None
            if t is not None:
                for i, f in enumerate(self.faults):
                    if f["start"] - WINDOW_BEFORE_S <= t <= f["end"] + WINDOW_AFTER_S and (
                            owner is None or f["start"] >= self.faults[owner]["start"]):
                        owner = i
            if owner is None:
                unattributed.append(t)
            else:
                per_fault[owner][fid] = per_fault[owner].get(fid, 0) + 1
                times[owner].append(t)
        for f, by_flow, ts in zip(self.faults, per_fault, times):
            f["lost"] = sum(by_flow.values())
            f["lost_from_s"] = min(ts) if ts else None
            f["lost_to_s"] = max(ts) if ts else None
            f["lost_by_flow"] = {str(k): v for k, v in sorted(by_flow.items())}
            # the failover window: the worst flow's loss as time at its rate
            f["loss_ms"] = round(max(by_flow.values(), default=0) * 1000.0 / rate, 1)
        return flows, unattributed
