"""The Lab: a Topology brought to life in network namespaces, and what it
finds of itself (namespaces, agents). What it does lives in the mixins it
is made of: build (up), frr (FRR's daemons), commands (restart, status,
exec, ping), cleanup (down)."""
import os

from .build import Builder
from .cleanup import Cleanup
from .commands import Commands
from .common import FRR_DAEMONS, PIN_BASE, STATE_ROOT, run
from .frr import FrrDaemons


class Lab(Builder, FrrDaemons, Commands, Cleanup):
    """A lab of one Topology: its namespaces LAB-NODE, state in
    STATE_ROOT/LAB, pins in PIN_BASE/LAB."""

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

    def healthy(self):
        if not os.path.exists(os.path.join(self.state, "topology.json")):
            return False
        have = set(self.existing_namespaces())
        if any(self.t.ns(n) not in have for n in self.t.nodes()):
            return False
        if self.t.routing == "bgp" and not all(
                self.frr_pid(s, d) for s in self.t.switches() for d in FRR_DAEMONS):
            return False
        return self.t.datapath == "kernel" or all(self.agent_pid(s) for s in self.t.switches())
