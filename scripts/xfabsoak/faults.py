"""The faults (link, churn, xfabd-kill, reload, reload-invalid,
frr-restart), each with its own check, and their seeded schedule."""
import ipaddress
import json
import os
import signal
import subprocess
import time

from xfablab import LabError

from .common import CHURN_V4, CHURN_V6, KINDS, SOAK_ROUTE, SoakError, log, mono


class Faults:
    """Each fault kind's injection and check, and the schedule that runs them."""

    # -- faults
    def fault_link(self, f):
        links = [(a, pa, b, pb) for a, pa, b, pb in self.topo.links()
                 if self.topo.role(a) != "host" and self.topo.role(b) != "host"]
        a, pa, b, pb = self.rng.choice(links)
        node, port = (a, pa) if self.rng.random() < 0.5 else (b, pb)
        hold = round(self.rng.uniform(1.0, 3.0), 2)
        f.update(target="%s %s (to %s)" % (node, port, b if node == a else a), hold_s=hold,
                 nodes=[a, b])
        self.run(node, ["ip", "link", "set", port, "down"])
        try:
            time.sleep(hold)
        finally:  # up again whatever happens
            f["up_at"] = self.rel(mono())
            self.run(node, ["ip", "link", "set", port, "up"])

    def churn_prefixes(self, leaf, n):
        li = self.topo.index(leaf)
        v4 = [str(ipaddress.ip_network(CHURN_V4 % (200 + li, i))) for i in range(n)]
        v6 = [str(ipaddress.ip_network(CHURN_V6 % (200 + li, i)))
              for i in range(n)] if self.topo.ipv6 else []
        return v4, v6

    def _dp_has(self, nodes, prefixes):
        """{node: how many of prefixes its data plane holds}."""
        return {n: sum(p in self.lab.dataplane_routes(n) for p in prefixes) for n in nodes}

    def _wait_dp(self, nodes, prefixes, present, timeout=30):
        """Until every node's data plane holds all prefixes (or none): the ms
        that took, and the ms until every node's kernel FIB did (zebra)."""
        t = time.monotonic()
        want = len(prefixes) if present else 0
        kernel_ms = None
        while True:
            if kernel_ms is None and all(
                    sum(p in self.kernel_routes(n) for p in prefixes) == want for n in nodes):
                kernel_ms = round((time.monotonic() - t) * 1000)
            have = self._dp_has(nodes, prefixes)
            if all(v == want for v in have.values()):
                return kernel_ms, round((time.monotonic() - t) * 1000)
            if time.monotonic() - t > timeout:
                bad = [n for n, v in have.items() if v != want]
                dp = self.lab.dataplane_routes(bad[0])
                odd = [p for p in prefixes if (p in dp) != present]
                kern = self.kernel_routes(bad[0])
                raise SoakError("%s: %s holds %d of the %d churn prefixes after %d s (want %d; "
                                "%s, which its kernel FIB %s)" % (
                                    "announce" if present else "withdraw", bad[0],
                                    have[bad[0]], len(prefixes), timeout, want,
                                    odd[0] if odd else "?",
                                    "holds" if odd and odd[0] in kern else "lacks"))
            time.sleep(0.2)

    def fault_churn(self, f):
        leaf = self.rng.choice(self.topo.leaf_names())
        n = self.rng.randint(10, 40)
        v4, v6 = self.churn_prefixes(leaf, n)
        asn = self.topo.asn(leaf)
        others = [s for s in self.topo.switches() if s != leaf]
        f.update(target=leaf, prefixes=len(v4) + len(v6))

        def conf(neg):
            cmds = ["configure terminal", "router bgp %d" % asn, "no bgp network import-check",
                    "address-family ipv4 unicast"]
            cmds += ["%snetwork %s" % (neg, p) for p in v4]
            if v6:
                cmds += ["exit-address-family", "address-family ipv6 unicast"]
                cmds += ["%snetwork %s" % (neg, p) for p in v6]
            self.vtysh(leaf, *cmds)

        conf("")
        try:
            f["announced_kernel_ms"], f["announced_ms"] = self._wait_dp(others, v4 + v6, True)
        finally:  # withdrawn whatever happened, so the fabric is as before
            conf("no ")
        f["withdrawn_kernel_ms"], f["withdrawn_ms"] = self._wait_dp(others, v4 + v6, False)

    def fault_xfabd_kill(self, f):
        sw = self.rng.choice(self.topo.switches())
        f.update(target=sw, old_pid=self.lab.agent_pid(sw))
        self.xlab("restart", sw, "--how", "kill", timeout=60)
        f["new_pid"] = self.lab.agent_pid(sw)
        if not f["new_pid"] or f["new_pid"] == f["old_pid"]:
            raise SoakError("%s: no new xfabd after the kill" % sw)

    def _hup(self, sw, wait_for):
        logf = self.state(sw + ".log")
        off = os.path.getsize(logf)
        os.kill(self.lab.agent_pid(sw), signal.SIGHUP)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with open(logf, errors="replace") as fh:
                fh.seek(off)
                text = fh.read()
            for w in wait_for:
                if w in text:
                    return w, text
            time.sleep(0.05)
        raise SoakError("%s: xfabd logged none of %s within 10 s of SIGHUP" % (sw, wait_for))

    def _gateway(self, sw):
        """A neighbouring switch's IPv4 address (a ROUTE nexthop that resolves)."""
        return self.topo.bgp_peers(sw)[0][2]

    def _tables(self, sw):
        routes = sorted(json.dumps(r, sort_keys=True) for r in self.ctl(sw, "show", "routes"))
        nhs = sorted(json.dumps(r, sort_keys=True) for r in self.ctl(sw, "show", "nexthops"))
        groups = sorted(json.dumps(r, sort_keys=True) for r in self.ctl(sw, "show", "groups"))
        return {"routes": routes, "nexthops": nhs, "groups": groups}

    def fault_reload(self, f):
        sw = self.rng.choice(self.topo.switches())
        path = self.state(sw + ".json")
        with open(path) as fh:
            cfg = json.load(fh)
        pfx = SOAK_ROUTE % (self.topo.switches().index(sw) + 1)
        adding = sw not in self.soak_routes
        if adding:
            cfg.setdefault("ROUTE", {})[pfx] = {"nexthop": self._gateway(sw)}
            self.soak_routes[sw] = pfx
        else:
            cfg.get("ROUTE", {}).pop(pfx, None)
            if not cfg.get("ROUTE"):
                cfg.pop("ROUTE", None)
            del self.soak_routes[sw]
        f.update(target=sw, change="%s ROUTE %s" % ("add" if adding else "remove", pfx))
        with open(path + ".tmp", "w") as fh:
            json.dump(cfg, fh, indent=2)
        os.rename(path + ".tmp", path)
        got, text = self._hup(sw, ("reloaded:", "reload rejected", "reload failed"))
        if got != "reloaded:":
            raise SoakError("%s: a valid reload was not applied: %s" % (sw, text.strip()[-300:]))
        held = pfx in self.lab.dataplane_routes(sw)
        if held != adding:
            raise SoakError("%s: after the reload the data plane %s %s" % (
                sw, "lacks" if adding else "still holds", pfx))

    def fault_reload_invalid(self, f):
        sw = self.rng.choice(self.topo.switches())
        path = self.state(sw + ".json")
        with open(path) as fh:
            text0 = fh.read()
        cfg = json.loads(text0)
        good, bad = "10.251.1.0/24", "10.251.2.0/33"
        cfg.setdefault("ROUTE", {})[good] = {"nexthop": self._gateway(sw)}
        cfg["ROUTE"][bad] = {"nexthop": self._gateway(sw)}
        f.update(target=sw, change="ROUTE %s (valid) and %s (invalid)" % (good, bad))
        before = self._tables(sw)
        try:
            with open(path + ".tmp", "w") as fh:
                json.dump(cfg, fh, indent=2)
            os.rename(path + ".tmp", path)
            got, text = self._hup(sw, ("reloaded:", "reload rejected", "reload failed"))
        finally:  # the switch's file is valid again for every later restart
            with open(path + ".tmp", "w") as fh:
                fh.write(text0)
            os.rename(path + ".tmp", path)
        if got != "reload rejected":
            raise SoakError("%s: an invalid config was not refused (%s)" % (sw, got))
        f["refused"] = text.strip().splitlines()[-1][-200:]
        after = self._tables(sw)
        changed = [k for k in before if before[k] != after[k]]
        f["tables_unchanged"] = not changed
        if changed:
            raise SoakError("%s: the refused reload changed its %s" % (sw, ", ".join(changed)))

    def fault_frr_restart(self, f):
        """A spine's (or super-spine's) zebra, bfdd and bgpd stopped
        (SIGTERM, as systemd and watchfrr stop them) and started again with
        their own command lines: graceful restart loses nothing."""
        upper = self.topo.super_names() + self.topo.spine_names()
        self._restart_frr(f, self.rng.choice(upper), ("zebra", "bfdd", "bgpd"))

    def _restart_frr(self, f, sw, daemons):
        """daemons of switch sw stopped and started again (xfab-lab's
        restart --frr)."""
        f.update(target=sw, nodes=[sw], daemons=list(daemons))
        try:
            f["killed"] = self.lab.restart_frr(sw, daemons)
        except LabError as e:
            raise SoakError("%s: %s" % (sw, e))
        f["started_at"] = self.rel(mono())
        self.precise_logs([sw])

    def schedule(self, until):
        """Faults one at a time until `until` (monotonic s), in rounds that
        each hold every kind once, in an order drawn from the seed."""
        order = []
        first_round = True
        # the first round runs to its end even past `until`: every kind once
        while time.monotonic() < until or (first_round and order):
            if not order:
                if self.faults:
                    first_round = False
                    if time.monotonic() >= until:
                        break
                order = list(KINDS)
                self.rng.shuffle(order)
            kind = order.pop(0)
            f = {"kind": kind, "start": self.rel(mono())}
            self.faults.append(f)
            log("%7.1f s  %s" % (f["start"], kind))
            try:
                getattr(self, "fault_" + kind.replace("-", "_"))(f)
                f["check"] = "ok"
            except (SoakError, OSError, subprocess.TimeoutExpired, ValueError) as e:
                f["check"] = str(e)
                log("         %s: %s" % (kind, e))
            try:
                f["converged_s"] = round(self.converge(), 2)
            except SoakError as e:
                f["converged_s"] = None
                f["check"] = "%s; not converged: %s" % (
                    "" if f["check"] == "ok" else f["check"], e)
            f["end"] = self.rel(mono())
            log("         %s: %s, converged %.1f s later (%s)" % (
                kind, f.get("target", ""), f["converged_s"] or -1, f["check"]))
            # a quiet second, so each loss is one fault's
            time.sleep(1.0 + self.rng.uniform(0, 1.0))
