"""The commands on a running lab: restart a switch's xfabd or its FRR,
status, exec in a node, all-pairs ping."""
import concurrent.futures
import json
import os
import signal
import subprocess
import time

from .common import BUILD, FRR_DAEMONS, LabError


class Commands:
    """Lab's commands (a mixin: self is the Lab)."""

    # -- restart: one switch's xfabd, under traffic
    def restart(self, node, how):
        """kill: SIGKILL the switch's xfabd (if it runs) and start a new one; request:
        `xfabctl restart` (xfabd runs itself again). Either way the data
        plane forwards throughout and the new xfabd takes it over."""
        if self.stored("datapath", self.t.datapath) == "kernel":
            raise LabError("lab %s runs the kernel datapath: no xfabd to restart" % self.t.name)
        if node not in self.t.switches():
            raise LabError("restart needs a switch name (%s)" % ", ".join(self.t.switches()))
        pid = self.agent_pid(node)
        if not pid and how != "kill":
            raise LabError("xfabd on %s is not running" % node)
        log = os.path.join(self.state, node + ".log")
        offset = os.path.getsize(log)
        if how == "kill":  # one that died already is just started
            if pid:
                os.kill(pid, signal.SIGKILL)
            deadline = time.time() + 5
            while pid and os.path.exists("/proc/%d" % pid) and time.time() < deadline:
                time.sleep(0.01)
            self._start_agent(node, mode="a")
        else:
            if self.exec_(node, [os.path.join(BUILD, "xfabctl"), "restart"]):
                raise LabError("xfabctl restart on %s failed" % node)
        self._wait_agent(node, offset)
        print("%s: xfabd restarted (%s), pid %d" % (node, how, self.agent_pid(node)))

    def restart_routing(self, node, which):
        """xfab-lab restart --frr all|bgpd: a switch's FRR daemons (or its
        bgpd) restarted, then the wait for BGP to converge again."""
        if self.stored("routing", self.t.routing) != "bgp":
            raise LabError("lab %s does not run BGP: no FRR to restart" % self.t.name)
        daemons = FRR_DAEMONS if which == "all" else ("bgpd",)
        t0 = time.time()
        killed = self.restart_frr(node, daemons)
        self._wait_bgp()
        print("%s: %s restarted%s, BGP converged again in %.1f s" % (
            node, ", ".join(daemons), " (one killed after 10 s)" if killed else "",
            time.time() - t0))

    # -- status
    def status(self):
        t = self.t
        have = set(self.existing_namespaces())
        if not have and not os.path.exists(self.state):
            print("lab %s is down" % t.name)
            return 1
        routing = self.stored("routing", t.routing)
        print("lab %s (%s datapath, %s routing)" % (t.name, self.stored("datapath", t.datapath),
                                                   routing))
        ok = True
        for node in t.nodes():
            present = t.ns(node) in have
            line = "  %-8s ns %-14s %s" % (node, t.ns(node), "present" if present else "MISSING")
            ok &= present
            if node in t.switches() and self.stored("datapath", t.datapath) == "kernel":
                line += "  kernel forwarding"
            elif node in t.switches():
                pid = self.agent_pid(node)
                line += "  xfabd %s" % ("pid %d" % pid if pid else "NOT RUNNING")
                ok &= bool(pid)
                if routing == "bgp":
                    down = [d for d in FRR_DAEMONS if not self.frr_pid(node, d)]
                    line += "  FRR %s" % ("running" if not down else
                                          "NOT RUNNING: " + ",".join(down))
                    ok &= not down
            print(line)
            if node in t.switches() and routing == "bgp":
                ok &= self._print_sessions(node)
        return 0 if ok else 1

    def stored(self, key, default):
        """What the lab was brought up with (datapath, routing), or default."""
        try:
            with open(os.path.join(self.state, "topology.json")) as f:
                return json.load(f).get(key, "static" if key == "routing" else default)
        except (OSError, ValueError):
            return default

    def _print_sessions(self, node):
        rows = self.bgp_sessions(node) if self.frr_pid(node, "bgpd") else None
        if rows is None:
            print("    bgp: no answer from bgpd")
            return False
        print("    bgp AS %d: %d/%d sessions Established" % (
            self.t.asn(node), sum(r[3] == "Established" for r in rows), len(rows)))
        for fam, peer, desc, state, pfx in rows:
            print("      %-4s %-22s %-14s %-12s %d prefixes received" % (
                fam, peer, desc, state, pfx))
        return all(r[3] == "Established" for r in rows)

    # -- exec
    def exec_(self, node, cmd):
        if node not in self.t.nodes():
            raise LabError("no node %r in lab %s" % (node, self.t.name))
        env = dict(os.environ)
        env["XFAB_PIN_ROOT"] = self.pin_root
        if node in self.t.switches():
            env["XFAB_PIN_DIR"] = os.path.join(self.pin_root, node)
        env["PATH"] = BUILD + ":" + env.get("PATH", "")
        # vtysh talks to this switch's own FRR daemons (their vty sockets)
        if cmd and cmd[0] == "vtysh" and node in self.t.switches():
            if not os.path.isdir(self.frr_dir(node)):
                raise LabError("%s runs no FRR (lab %s is not up with routing bgp)" % (
                    node, self.t.name))
            cmd = self.vtysh_args(node) + cmd[1:]
        return subprocess.call(["nsenter", "--net=/run/netns/" + self.t.ns(node)] + cmd, env=env)

    # -- ping
    def ping(self, count=1):
        hosts = self.t.hosts()
        pairs = []
        # every pair in the same VNET, or both in the underlay
        vnet = self.t.host_vnet
        for a, la, ka in hosts:
            for b, lb, kb in hosts:
                if a == b or vnet.get(a) != vnet.get(b):
                    continue
                (_, a4, _), (_, a6, _) = self.t.host_addrs(b)
                pairs.append((a, b, a4))
                if self.t.ipv6:
                    pairs.append((a, b, a6))

        def one(p):
            a, b, addr = p
            for _ in range(3):
                res = self.nsexec(a, ["ping", "-n", "-q", "-c", str(count), "-i", "0.2", "-W",
                                      "2", addr], check=False, capture=True)
                if res.returncode == 0:
                    return True
            return False

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            results = list(pool.map(one, pairs))
        failed = [p for p, ok in zip(pairs, results) if not ok]
        fams = "IPv4+IPv6" if self.t.ipv6 else "IPv4"
        print("all-pairs ping (%s): %d/%d reachable" % (fams, len(pairs) - len(failed), len(pairs)))
        for a, b, addr in failed:
            print("  FAIL %s -> %s (%s)" % (a, b, addr))
        return 0 if not failed else 1
