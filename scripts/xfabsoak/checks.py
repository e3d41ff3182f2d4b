"""The end checks: xfabd's memory flat, the kernel's FIB against the data
plane; and taking everything down."""
import ipaddress
import json
import subprocess

from lab_common import LAB

from .common import FD_TOL, MEM_JUDGE_S, RSS_TOL_FRAC, RSS_TOL_KB, hop


class Checks:
    """Memory growth, FIB against data plane, and the tear-down."""

    def memory(self):
        span = max((s[-1][0] for s in self.samples.values() if s), default=0) - \
            min((s[0][0] for s in self.samples.values() if s), default=0)
        out = {}
        for sw, ss in self.samples.items():
            procs = []
            for pid in dict.fromkeys(p for _, p, _, _ in ss):
                mine = [x for x in ss if x[1] == pid]
                t0, _, rss0, fd0 = mine[0]
                t1, _, rss1, fd1 = mine[-1]
                n = len(mine)
                slope = 0.0
                if n >= 3 and t1 > t0:
                    mt = sum(x[0] for x in mine) / n
                    mr = sum(x[2] for x in mine) / n
                    den = sum((x[0] - mt) ** 2 for x in mine)
                    slope = sum((x[0] - mt) * (x[2] - mr) for x in mine) / den * 60 if den else 0
                p = {"pid": pid, "from_s": t0, "to_s": t1, "samples": n, "rss_kb_first": rss0,
                     "rss_kb_last": rss1, "rss_kb_max": max(x[2] for x in mine),
                     "rss_kb_per_min": round(slope, 1), "fds_first": fd0, "fds_last": fd1,
                     "fds_max": max(x[3] for x in mine)}
                long_enough = span > 0 and (t1 - t0) >= min(span / 3, MEM_JUDGE_S) and n >= 3
                if long_enough:
                    tol = max(RSS_TOL_KB, RSS_TOL_FRAC * rss0)
                    p["flat"] = rss1 - rss0 <= tol and fd1 - fd0 <= FD_TOL
                    p["tolerance_kb"] = int(tol)
                else:
                    p["flat"] = None  # too short a life to judge
                procs.append(p)
            out[sw] = procs
        return out

    def kernel_routes(self, sw):
        """prefix -> ["gateway@dev", ...] of the routes zebra installed in a
        switch's kernel (proto bgp)."""
        kern = {}
        for fam in ("-4", "-6") if self.topo.ipv6 else ("-4",):
            for r in json.loads(self.run(sw, ["ip", "-j", fam, "route", "show", "proto",
                                              "bgp"]) or "[]"):
                pfx = r["dst"]
                if pfx == "default":
                    pfx = "::/0" if fam == "-6" else "0.0.0.0/0"
                elif "/" not in pfx:
                    pfx += "/128" if fam == "-6" else "/32"
                pfx = str(ipaddress.ip_network(pfx))
                kern[pfx] = sorted(hop(h.get("gateway"), h.get("dev"))
                                   for h in r.get("nexthops", [r]))
        return kern

    def fib_check(self):
        """Per switch: each route the kernel holds from zebra (proto bgp) and
        what the data plane holds for the same prefix (and the reverse)."""
        out = {}
        for sw in self.topo.switches():
            kern = self.kernel_routes(sw)
            dp = {}
            for r in self.ctl(sw, "show", "routes"):
                pfx = str(ipaddress.ip_network(r["prefix"]))
                dp[pfx] = (sorted(hop(m.get("via"), m.get("dev"))
                                  for m in r.get("members", [])), r)
            diffs = []
            for pfx, devs in sorted(kern.items()):
                if pfx not in dp:
                    diffs.append({"prefix": pfx, "kernel": devs, "dataplane": None})
                elif dp[pfx][0] != devs:
                    diffs.append({"prefix": pfx, "kernel": devs, "dataplane": dp[pfx][0]})
            for pfx, (devs, r) in sorted(dp.items()):
                if pfx not in kern and self.mirrored(r):
                    diffs.append({"prefix": pfx, "kernel": None, "dataplane": devs})
            out[sw] = {"kernel_routes": len(kern), "differences": diffs}
        return out

    @staticmethod
    def mirrored(route):
        """A data-plane route that came from the kernel's FIB (not the config,
        not a connected subnet)."""
        return route.get("protocol") == "bgp"

    def down(self):
        for _, _, p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.procs = []
        if self.up and not self.a.keep:
            subprocess.run([LAB, "down", self.a.topology, "--name", self.topo.name],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
            self.up = False
