"""FRR in a lab (routing bgp): each switch's zebra, bgpd and bfdd started in
its namespace from STATE/NODE/, their pids, vtysh, and the wait for BGP to
converge into every data plane."""
import concurrent.futures
import json
import os
import shutil
import signal
import sys
import time

from .cleanup import step
from .common import (BFDD_RT_PRIO, BGP_TIMEOUT, BUILD, FRR_BIN, FRR_DAEMONS, FRR_GR_S, FRR_USER,
                     LabError)


class FrrDaemons:
    """Lab's FRR daemons (a mixin: self is the Lab)."""

    def bgp_sessions(self, node):
        """[(address family, peer address, description, state, prefixes
        received)] from bgpd, or None when it does not answer."""
        out = self.vtysh(node, "show bgp summary json")
        if out is None:
            return None
        try:
            summary = json.loads(out)
        except ValueError:
            return None
        rows = []
        for af, fam in (("ipv4Unicast", "ipv4"), ("ipv6Unicast", "ipv6")):
            for peer, p in sorted(summary.get(af, {}).get("peers", {}).items()):
                rows.append((fam, peer, p.get("desc", ""), p.get("state", "?"),
                             p.get("pfxRcd", 0)))
        return rows

    def _start_frr(self):
        """zebra, bgpd and bfdd in every switch namespace, each with its own
        config, pid file, zserv socket and vty socket directory."""
        t = self.t
        self._frr_write_configs()
        step("frr-configs")
        self._frr_start_all("zebra", t.switches())
        step("zebra-started")
        self._frr_wait_for("zebra", [os.path.join(self.frr_dir(n), "zserv.api")
                                     for n in t.switches()])
        step("zebra-up")
        self._frr_start_all("bfdd", t.switches())
        step("bfdd-started")
        # The spines' bgpd first, listening before the leaves' start: a
        # leaf's first connection then finds its spines ready, and no two
        # sessions race each other (a collision costs a reset, and BFD may
        # then take the winner down too).
        self._frr_start_all("bgpd", t.super_names() + t.spine_names())
        self._frr_wait_for("bgpd", [os.path.join(self.frr_dir(n), "bgpd.vty")
                                    for n in t.super_names() + t.spine_names()])
        step("bgpd-upper-up")
        self._frr_start_all("bgpd", t.leaf_names())
        step("bgpd-started")
        deadline = time.time() + 15
        while True:
            dead = [(n, d) for n in t.switches() for d in FRR_DAEMONS
                    if not self.frr_pid(n, d)]
            if not dead:
                return
            if time.time() > deadline:
                raise LabError("%s on %s is not running (see %s)" % (
                    dead[0][1], dead[0][0], os.path.join(self.frr_dir(dead[0][0]),
                                                         dead[0][1] + ".log")))
            time.sleep(0.02)

    def _frr_write_configs(self):
        """FRR present, and each switch's files in STATE/NODE/, the frr user's."""
        for exe in FRR_DAEMONS:
            if not os.access(os.path.join(FRR_BIN, exe), os.X_OK):
                raise LabError("%s/%s is missing: install FRR (scripts/install-deps)" %
                               (FRR_BIN, exe))
        if shutil.which("vtysh") is None:
            raise LabError("vtysh is missing: install FRR (scripts/install-deps)")
        for node in self.t.switches():
            d = self.frr_dir(node)
            os.makedirs(d, exist_ok=True)
            for name, text in self.t.frr_configs(node, d).items():
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
            # the daemons drop privileges to frr and write here
            for p in [d] + [os.path.join(d, n) for n in os.listdir(d)]:
                shutil.chown(p, FRR_USER, FRR_USER)

    def restart_frr(self, node, daemons=FRR_DAEMONS):
        """Some of a switch's FRR daemons stopped (bfdd, and bgpd under a
        zebra that stays, killed; the rest sent SIGTERM at once; SIGKILL
        to any left after 10 s) and started again in the lab's order, each
        as `up` started it; bgpd takes bfdd with it. Graceful restart
        (docs/LAB.md) keeps the switch's routes in its kernel and data
        plane all along. True when one had to be killed."""
        if node not in self.t.switches():
            raise LabError("restart needs a switch name (%s)" % ", ".join(self.t.switches()))
        # bfdd goes with bgpd: its sessions are bgpd's, and a bfdd whose
        # bgpd has gone deletes them, which its neighbours hear as a Down
        # that resets the new bgpd's sessions as they come up (measured:
        # bgpd alone lost 8,324 of 96,000, docs/LAB.md)
        if "bgpd" in daemons and "bfdd" not in daemons:
            daemons = tuple(daemons) + ("bfdd",)
        pids = {}
        for d in daemons:
            pids[d] = self.frr_pid(node, d)
            if not pids[d]:
                raise LabError("%s on %s is not running" % (d, node))
        # all at once: a zebra still running once a graceful bgpd has gone
        # deletes that bgpd's stale routes from the kernel as it exits (FRR
        # 8.4's zebra_gr_stale_client_cleanup; measured, docs/LAB.md), so
        # zebra is not stopped last as FRR's own stop script does
        # bfdd killed first, with bgpd's: a bfdd whose bgpd deregisters (or
        # that exits) tells each neighbour its session is down, and a
        # neighbour that hears it before the closed TCP session resets the
        # session ("Cease/BFD Down") instead of keeping its routes for the
        # graceful restart: both spines of a leaf did, and the leaf's subnets
        # left the fabric (docs/LAB.md). A killed bfdd says nothing; its
        # neighbours' BFD times out after the sessions closed, and ignores it.
        sigkill = set()
        if "bfdd" in pids and "bgpd" in pids:
            sigkill.add("bfdd")
        # a bgpd restarted under a zebra that stays is killed too: stopped
        # cleanly, FRR 8.4's bgpd withdraws every route it installed as it
        # exits (bgp_delete's bgp_cleanup_routes, "Delete all kernel
        # routes"), and zebra deletes them from the kernel; a killed bgpd
        # withdraws nothing, and zebra keeps its routes, stale, for the
        # graceful restart (rib-stale-time) until the new bgpd has sent
        # them again (docs/LAB.md)
        if "bgpd" in pids and "zebra" not in pids:
            sigkill.add("bgpd")
        for d in ("bfdd", "bgpd", "zebra"):
            if d in pids:
                os.kill(pids[d], signal.SIGKILL if d in sigkill else signal.SIGTERM)
        killed = False
        deadline = time.time() + 10
        while any(os.path.exists("/proc/%d" % p) for p in pids.values()):
            if time.time() > deadline and not killed:
                for p in pids.values():
                    try:
                        os.kill(p, signal.SIGKILL)
                    except OSError:
                        pass
                killed = True
            time.sleep(0.02)
        zserv = os.path.join(self.frr_dir(node), "zserv.api")
        if "zebra" in pids:
            try:  # the new one's socket is what says it is up
                os.unlink(zserv)
            except OSError:
                pass
            self._frr_start(node, "zebra")
            self._frr_wait_for("zebra", [zserv])
        # bfdd after bgpd's sessions are up: a bgpd registers a session's BFD
        # before it knows its source and port, and again once the session is
        # up, and bfdd's swap of the two is a Down that resets the new session
        # at the neighbour; registered once, from the start, it is not
        if "bgpd" in pids:
            self._frr_start(node, "bgpd")
            if "bfdd" in pids:
                self._frr_sessions_up(node)
        if "bfdd" in pids:
            self._frr_start(node, "bfdd")
        return killed

    def _sessions_wanted(self, node):
        """How many BGP sessions node has (the topology's count)."""
        return self.t.bgp_session_count(node)

    def _frr_sessions_up(self, node, timeout=30):
        """Until every BGP session of node is Established (or timeout)."""
        want = self._sessions_wanted(node)
        deadline = time.time() + timeout
        while time.time() < deadline:
            rows = self.bgp_sessions(node)
            if rows and len(rows) == want and all(r[3] == "Established" for r in rows):
                return True
            time.sleep(0.05)
        return False

    def _frr_start(self, node, daemon):
        """One daemon of a switch, daemonized in its namespace."""
        d = self.frr_dir(node)
        cmd = [os.path.join(FRR_BIN, daemon), "-d", "-F", "datacenter",
               "-f", os.path.join(d, daemon + ".conf"),
               "-i", os.path.join(d, daemon + ".pid"),
               "-z", os.path.join(d, "zserv.api"), "--vty_socket", d, "-P", "0"]
        if daemon == "zebra":
            # a big netlink buffer; IPv6 route changes as one replace
            # (not a delete and an add: no gap in xfab's mirror)
            cmd += ["-s", "16777216", "--v6-rr-semantics"]
            # graceful restart (docs/LAB.md): the routes stay in the kernel
            # when zebra exits (-r), and a zebra that starts takes those it
            # finds as its own, stale, until bgpd has sent them again; what
            # it has not sent again by FRR_GR_S is swept then (-K)
            cmd += ["-r", "-K", str(FRR_GR_S)]
        elif daemon == "bfdd":
            cmd += ["--bfdctl", os.path.join(d, "bfdd.sock")]
        self.nsexec(node, cmd, timeout=15)
        if daemon == "bfdd":
            self._frr_realtime(node, daemon)

    def _frr_realtime(self, node, daemon):
        """The daemon's every thread at SCHED_RR BFDD_RT_PRIO: its timers
        then run on time beside a busy data plane and CPU (docs/LAB.md).
        Refused (no CAP_SYS_NICE, an RT-limited cgroup): said, not fatal;
        test_bgp_lab.sh checks it took in CI."""
        deadline = time.time() + 5
        pid = self.frr_pid(node, daemon)
        while not pid and time.time() < deadline:
            time.sleep(0.01)
            pid = self.frr_pid(node, daemon)
        try:
            if not pid:
                raise OSError("no pid file")
            for tid in os.listdir("/proc/%d/task" % pid):
                os.sched_setscheduler(int(tid), os.SCHED_RR, os.sched_param(BFDD_RT_PRIO))
        except OSError as e:
            print("xfab-lab: %s's %s stays at normal priority (SCHED_RR %d refused: %s); "
                  "its BFD sessions may drop on a busy box" % (node, daemon, BFDD_RT_PRIO, e),
                  file=sys.stderr)

    def _frr_start_all(self, daemon, nodes):
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda n: self._frr_start(n, daemon), nodes))

    @staticmethod
    def _frr_wait_for(what, paths, timeout=15):
        """Until every path (a daemon's socket) exists."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            missing = [p for p in paths if not os.path.exists(p)]
            if not missing:
                return
            time.sleep(0.02)
        raise LabError("%s: %s did not appear in %d s" % (what, missing[0], timeout))

    def _wait_bgp(self, timeout=BGP_TIMEOUT):
        """Until every BGP session of every switch is Established and every
        switch's data plane holds every remote host prefix over all its paths."""
        t = self.t
        deadline = time.time() + timeout
        want = {n: self._sessions_wanted(n) for n in t.switches()}
        pending_bgp = list(t.switches())
        pending_fib = list(t.switches())
        why = {}
        while True:
            still = []
            for node in pending_bgp:
                rows = self.bgp_sessions(node)
                if rows is None:
                    why[node] = "bgpd does not answer"
                    still.append(node)
                    continue
                down = ["%s (%s) %s" % (peer, desc, state) for _, peer, desc, state, _ in rows
                        if state != "Established"]
                if len(rows) != want[node] or down:
                    why[node] = "%d of %d sessions Established%s" % (
                        len(rows) - len(down), want[node],
                        (": " + ", ".join(down)) if down else "")
                    still.append(node)
            pending_bgp = still
            still = []
            for node in pending_fib:
                if node in pending_bgp:
                    still.append(node)
                    continue
                have = self.dataplane_routes(node)
                wrong = [p for p, devs in sorted(t.expected_routes(node).items())
                         if have.get(p) != devs]
                if wrong:
                    why[node] = "data plane lacks %d of %d remote host prefixes (%s: %s)" % (
                        len(wrong), len(t.expected_routes(node)), wrong[0],
                        ",".join(have.get(wrong[0], [])) or "none")
                    still.append(node)
            pending_fib = still
            if not pending_fib:
                return
            if time.time() > deadline:
                raise LabError("BGP did not converge in %g s: %s" % (
                    timeout, "; ".join("%s: %s" % (n, why[n]) for n in pending_fib)))
            time.sleep(0.1)

    def dataplane_routes(self, node):
        """prefix -> sorted member ports of each route in a switch's data plane
        (the kernel's FIB on the kernel datapath)."""
        if self.t.datapath == "kernel":
            out = {}
            for fam in ("-4", "-6") if self.t.ipv6 else ("-4",):
                res = self.nsexec(node, ["ip", "-j", fam, "route", "show"], check=False,
                                  capture=True)
                try:
                    routes = json.loads(res.stdout or "[]")
                except ValueError:
                    continue
                for r in routes:
                    if "gateway" not in r and "nexthops" not in r:
                        continue  # connected
                    pfx = r["dst"]
                    if "/" not in pfx:
                        pfx += "/128" if ":" in pfx else "/32"
                    out[pfx] = sorted(h["dev"] for h in r.get("nexthops", [r]))
            return out
        res = self.nsexec(node, [os.path.join(BUILD, "xfabctl"), "-j", "-P",
                                 os.path.join(self.pin_root, node), "show", "routes"],
                          check=False, capture=True)
        try:
            routes = json.loads(res.stdout or "[]")
        except ValueError:
            return {}
        return {r["prefix"]: sorted(m["dev"] for m in r.get("members", []))
                for r in routes if "prefix" in r}
