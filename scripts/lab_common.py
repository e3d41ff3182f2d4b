"""Helpers shared by the lab experiment scripts: a clos-2x4 lab that is
brought up and always torn down, commands in its namespaces, xfabctl JSON,
and config changes applied with SIGHUP. The lab's paths are xfab-lab's own
(its package, xfablab, beside this file); up and down run the command, so a
lab an experiment leaves is one `xfab-lab down` removes."""
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from xfablab import BUILD, PIN_BASE, ROOT, STATE_ROOT  # noqa: E402
from xfablab.ready import wait_ready  # noqa: E402
from xfablab.signals import Shielded, exit_on_signals, run_child  # noqa: E402

LAB = os.path.join(ROOT, "scripts", "xfab-lab")
TOPO = os.path.join(ROOT, "testbeds", "clos-2x4.json")
ROCE = os.path.join(BUILD, "xfab-roce")
HOST_ADDR = {"h%d" % (2 * (l - 1) + k): "10.%d.%d.2" % (l, k) for l in range(1, 5) for k in (1, 2)}


class Lab:
    def __init__(self, name, datapath, routing=None, topo=TOPO):
        self.name, self.datapath, self.routing, self.topo = name, datapath, routing, topo
        self.state = os.path.join(STATE_ROOT, name)

    def __enter__(self):
        # a signal ends the experiment through __exit__ (the lab down)
        exit_on_signals(os.path.basename(sys.argv[0]))
        try:
            cmd = [LAB, "up", self.topo, "--name", self.name, "--datapath", self.datapath] + \
                (["--routing", self.routing] if self.routing else [])
            if run_child(cmd, stdout=subprocess.DEVNULL, timeout=180).returncode:
                raise RuntimeError("%s failed" % " ".join(cmd))
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        with Shielded():
            subprocess.run([LAB, "down", self.topo, "--name", self.name],
                           stdout=subprocess.DEVNULL, timeout=120)

    def ns(self, node):
        return ["nsenter", "--net=/run/netns/%s-%s" % (self.name, node)]

    def pins(self, node):
        """A switch's pin directory (its xfabd's maps and programs)."""
        return os.path.join(PIN_BASE, self.name, node)

    def run(self, node, cmd, timeout=60, check=True):
        env = dict(os.environ, XFAB_PIN_DIR=self.pins(node))
        res = subprocess.run(self.ns(node) + cmd, capture_output=True, text=True, env=env,
                             timeout=timeout)
        if check and res.returncode != 0:
            raise RuntimeError("%s on %s: %s" % (" ".join(cmd), node, res.stderr.strip()))
        return res.stdout

    def spawn(self, node, cmd):
        env = dict(os.environ, XFAB_PIN_DIR=self.pins(node))
        return subprocess.Popen(self.ns(node) + cmd, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)

    def spawn_receiver(self, node, cmd):
        """spawn, returning once the receiver says it is bound (xfab-roce
        recv -j's "listening on UDP" on stderr): what is sent before then the
        host refuses, and a fixed sleep is outlasted on a busy box."""
        return wait_ready(self.spawn(node, cmd), "listening on UDP")

    def ctl(self, node, *args):
        return json.loads(self.run(node, [os.path.join(BUILD, "xfabctl"), "-j"] + list(args)))

    def reconfigure(self, node, tables):
        """Adds/replaces config tables of a switch and reloads it (SIGHUP)."""
        path = os.path.join(self.state, node + ".json")
        with open(path) as f:
            cfg = json.load(f)
        cfg.update(tables)
        with open(path, "w") as f:
            json.dump(cfg, f, indent=2)
        with open(os.path.join(self.state, node + ".pid")) as f:
            pid = int(f.read())
        log = os.path.join(self.state, node + ".log")
        before = open(log).read().count("reloaded:")
        os.kill(pid, signal.SIGHUP)
        # a reload that sets up shaped queues takes about a second a port
        # on a loaded box (a 3-tier spine: six)
        deadline = time.time() + 30
        while time.time() < deadline:
            if open(log).read().count("reloaded:") > before:
                return
            time.sleep(0.05)
        raise RuntimeError("%s did not reload: %s" % (node, open(log).read()[-400:]))

    def counters(self, node):
        return {c["port"]: c for c in self.ctl(node, "show", "counters")}

    def queues(self, node, port):
        """{tc: queue counters} of one port."""
        return {q["tc"]: q for q in self.ctl(node, "show", "queues") if q["port"] == port}

    def watermark(self, node, port, tc):
        for w in self.ctl(node, "show", "watermark"):
            if w["port"] == port and w["tc"] == tc:
                return w
        return None


