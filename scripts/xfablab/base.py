"""What a lab has and where: its namespaces (LAB-NODE), state directory
(STATE_ROOT/LAB), pins (PIN_BASE/LAB), its agents' and FRR daemons' pids,
and a command run in a node's namespace or on a switch's vtysh. Every other
part of the Lab builds on these."""
import os

from .common import FRR_BIN, FRR_DAEMONS, PIN_BASE, STATE_ROOT, run


class LabBase:
    """A lab of one Topology: where its parts are (a mixin's base: self is
    the Lab)."""

    def __init__(self, topo):
        self.t = topo
        self.state = os.path.join(STATE_ROOT, topo.name)
        self.pin_root = os.path.join(PIN_BASE, topo.name)

    def nsexec(self, node, cmd, **kw):
        return run(["nsenter", "--net=/run/netns/" + self.t.ns(node)] + cmd, **kw)

    def existing_namespaces(self):
        res = run(["ip", "netns", "list"], capture=True)
        mine = set(self.t.ns(n) for n in self.t.nodes())
        prefix = self.t.name + "-"
        out = []
        for line in res.stdout.splitlines():
            ns = line.split()[0] if line.strip() else ""
            if ns in mine or (ns.startswith(prefix) and os.path.exists(self.state)):
                out.append(ns)
        return out

    def agent_pid(self, node):
        try:
            with open(os.path.join(self.state, node + ".pid")) as f:
                pid = int(f.read().strip())
            os.kill(pid, 0)
            return pid
        except (OSError, ValueError):
            return None

    # -- FRR (routing bgp): one directory per switch, STATE/NODE/
    def frr_dir(self, node):
        return os.path.join(self.state, node)

    def frr_pid(self, node, daemon):
        """The pid of a switch's FRR daemon, if its pid file names a live
        process that really is that daemon (a stale file may name another)."""
        try:
            with open(os.path.join(self.frr_dir(node), daemon + ".pid")) as f:
                pid = int(f.read().strip())
            exe = os.readlink("/proc/%d/exe" % pid)
        except (OSError, ValueError):
            return None
        want = os.path.realpath(os.path.join(FRR_BIN, daemon))
        return pid if exe in (want, want + " (deleted)") else None

    def vtysh_args(self, node):
        d = self.frr_dir(node)
        return ["vtysh", "--vty_socket", d, "--config_dir", d]

    def vtysh(self, node, command, timeout=10):
        res = run(self.vtysh_args(node) + ["-c", command], check=False, capture=True,
                  timeout=timeout)
        return res.stdout if res.returncode == 0 else None

    def _frr_pids(self):
        """Every running FRR daemon of the lab, found by its pid file (down
        sends them SIGTERM, then SIGKILL to any still there after 5 s)."""
        pids = []
        for node in self.t.switches():
            for daemon in FRR_DAEMONS:
                pid = self.frr_pid(node, daemon)
                if pid:
                    pids.append(pid)
        return pids
