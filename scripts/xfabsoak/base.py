"""The soak's lab and how it reaches into it: commands in a node, xfab-lab,
xfabctl and vtysh, convergence, the host pairs and their addresses."""
import json
import os
import random
import re
import subprocess
import threading
import time

import xfablab

from lab_common import LAB
from xfablab.common import BUILD

from .common import CONVERGE_S, SoakError, log, mono


class SoakBase:
    """The lab, its state and the commands every part runs in it."""

    def __init__(self, a):
        self.a = a
        self.topo = xfablab.Topology(a.topology, name=a.name, datapath=a.datapath,
                                     routing="bgp")
        self.lab = xfablab.Lab(self.topo)
        self.rng = random.Random(a.seed)
        self.t0 = mono()
        self.wall0 = time.time()
        self.procs = []  # (role, node, Popen)
        self.faults = []
        self.samples = {s: [] for s in self.topo.switches()}
        self.sampling = threading.Event()
        self.soak_routes = {}  # switch -> prefix of its ROUTE added by a reload
        self.flows = {}  # id -> {src, dst, addr, sport}
        self.up = False
        self.bfd_ms_in_lab = None  # bring_up reads it

    # -- helpers
    def rel(self, ns):
        return round((ns - self.t0) / 1e9, 3)

    def ns_cmd(self, node):
        return ["nsenter", "--net=/run/netns/" + self.topo.ns(node)]

    def run(self, node, cmd, timeout=30, check=True):
        env = dict(os.environ, XFAB_PIN_DIR=os.path.join(self.lab.pin_root, node))
        res = subprocess.run(self.ns_cmd(node) + cmd, capture_output=True, text=True,
                             timeout=timeout, env=env)
        if check and res.returncode:
            raise SoakError("%s on %s: %s" % (" ".join(cmd), node, res.stderr.strip()[-300:]))
        return res.stdout

    def xlab(self, *args, timeout=240):
        res = subprocess.run([LAB] + list(args[:1]) + [self.a.topology] + list(args[1:]) +
                             ["--name", self.topo.name], capture_output=True, text=True,
                             timeout=timeout)
        if res.returncode:
            raise SoakError("xfab-lab %s: %s" % (args[0], (res.stderr or res.stdout).strip()))
        return res.stdout

    def ctl(self, node, *args):
        out = self.run(node, [os.path.join(BUILD, "xfabctl"), "-j", "-P",
                              os.path.join(self.lab.pin_root, node)] + list(args))
        return json.loads(out)

    def vtysh(self, node, *cmds):
        args = self.lab.vtysh_args(node)
        for c in cmds:
            args += ["-c", c]
        res = subprocess.run(args, capture_output=True, text=True, timeout=30)
        if res.returncode:
            raise SoakError("vtysh on %s: %s" % (node, (res.stderr or res.stdout).strip()))
        return res.stdout

    def state(self, *parts):
        return os.path.join(self.lab.state, *parts)

    def converge(self):
        """Until every session is up and every data plane holds every remote
        host prefix over all its paths; the time it took (s)."""
        t = time.monotonic()
        try:
            self.lab._wait_bgp(timeout=CONVERGE_S)
        except xfablab.LabError as e:
            raise SoakError(str(e))
        return time.monotonic() - t

    # -- bring-up, traffic, sampling
    def bring_up(self):
        log("bringing up lab %s (%s datapath, BGP)" % (self.topo.name, self.topo.datapath))
        self.up = True  # from here on, down() runs whatever happens
        out = self.xlab("up", "--datapath", self.topo.datapath, "--routing", "bgp")
        log(out.strip().splitlines()[-1] if out.strip() else "up")
        self.bfd_ms_in_lab = self.lab_bfd_ms()

    def lab_bfd_ms(self):
        """The BFD interval the lab's bfdd runs with, from what it reads (the
        first switch's bfdd.conf): the report's check of --bfd-ms."""
        path = os.path.join(self.lab.frr_dir(self.topo.switches()[0]), "bfdd.conf")
        with open(path) as f:
            m = re.search(r"receive-interval (\d+)", f.read())
        return int(m.group(1)) if m else None

    def pairs(self):
        """(src host, dst host, family): hosts on leaves half the fabric apart,
        both ways; IPv6 on every second pair of a dual-stack lab."""
        leaves = self.topo.leaf_names()
        first = {}
        for h, l, k in self.topo.hosts():
            if h in self.topo.host_vnet:
                continue
            first.setdefault(l, h)
        idx = sorted(first)
        half = max(1, len(idx) // 2)
        out = []
        for i in range(min(half, len(idx) - half) if len(idx) > 1 else 0):
            a, b = first[idx[i]], first[idx[i + half]]
            fam = 6 if (self.topo.ipv6 and i % 2) else 4
            out += [(a, b, fam), (b, a, fam)]
        if not out:
            raise SoakError("%s: no two leaves with hosts (%d leaves)" % (
                self.a.topology, len(leaves)))
        return out

    def host_addr(self, h, fam):
        (_, a4, _), (_, a6, _) = self.topo.host_addrs(h)
        return a6 if fam == 6 else a4
