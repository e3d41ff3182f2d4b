"""The steady traffic (the senders and receivers in the hosts) and the
sampler of every switch's xfabd (RSS, fds)."""
import json
import os
import signal
import subprocess
import time

from xfablab.ready import wait_ready

from .common import SOAK, SPORTS_PER_DIR, SPORT_BASE, SoakError, log, mono


class Flows:
    """Starts and stops the traffic; samples xfabd's memory all along."""

    def start_traffic(self, duration):
        me = SOAK
        dsts = {}
        fid = 1
        senders = []
        for src, dst, fam in self.pairs():
            items = []
            for i in range(SPORTS_PER_DIR):
                self.flows[fid] = {"src": src, "dst": dst, "addr": self.host_addr(dst, fam),
                                   "sport": SPORT_BASE + i, "family": "ipv%d" % fam}
                items.append("%d:%d" % (fid, SPORT_BASE + i))
                fid += 1
            senders.append((src, self.host_addr(dst, fam), ",".join(items)))
            dsts[dst] = True
        for dst in dsts:
            p = subprocess.Popen(self.ns_cmd(dst) + ["/usr/bin/python3", me, "_recv",
                                                     "--duration", str(duration + 60)] +
                                 (["--v6"] if self.topo.ipv6 else []),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.procs.append(("recv", dst, p))
            wait_ready(p, "ready")  # bound: nothing sent from here on is refused
        for src, addr, items in senders:
            p = subprocess.Popen(self.ns_cmd(src) + ["/usr/bin/python3", me, "_send", "--dst",
                                                     addr, "--flows", items, "--rate",
                                                     str(self.a.rate), "--duration",
                                                     str(duration + 30)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.procs.append(("send", src, p))
        log("traffic: %d flows at %g packets/s each (%s)" % (
            len(self.flows), self.a.rate, ", ".join(sorted(set(
                "%s->%s" % (f["src"], f["dst"]) for f in self.flows.values())))))

    def stop_traffic(self):
        """Senders first, then (once the last packets are in) the receivers:
        their JSON."""
        out = {"send": {}, "recv": {}}
        for role in ("send", "recv"):
            for r, node, p in self.procs:
                if r != role or p.poll() is not None:
                    continue
                p.send_signal(signal.SIGTERM)
            for r, node, p in self.procs:
                if r != role:
                    continue
                try:
                    so, se = p.communicate(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    so, se = p.communicate()
                try:
                    out[role][node] = json.loads(so)
                except ValueError:
                    raise SoakError("the %s on %s gave no result: %s" % (
                        "sender" if role == "send" else "receiver", node, se.strip()[-300:]))
            if role == "send":
                time.sleep(1.5)  # the last packets' way through the fabric
        self.procs = []
        return out

    def sample_once(self):
        now = mono()
        for s in self.topo.switches():
            pid = self.lab.agent_pid(s)
            if not pid:
                continue
            try:
                with open("/proc/%d/status" % pid) as f:
                    rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
                fds = len(os.listdir("/proc/%d/fd" % pid))
            except (OSError, StopIteration, ValueError):
                continue
            self.samples[s].append((self.rel(now), pid, rss, fds))

    def sampler(self, period):
        while not self.sampling.wait(period):
            self.sample_once()
