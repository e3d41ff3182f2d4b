"""xfab-lab up: namespaces, links, addresses, sysctls, the agents (or the
kernel's routes) and FRR, built in named steps; a failed step takes down
whatever was built."""
import json
import os
import subprocess
import sys
import time

from .cleanup import step
from .common import BUILD, FRR_DAEMONS, METRICS_PORT, LabError, run
from .model import VTEP_V4


class Builder:
    """Lab's bring-up (a mixin: self is the Lab)."""

    # -- up
    def up(self):
        if self.healthy():
            with open(os.path.join(self.state, "topology.json")) as f:
                st = json.load(f)
                if (st.get("datapath") == self.t.datapath and
                        st.get("routing", "static") == self.t.routing):
                    print("lab %s is already up (%s datapath, %s routing)" % (
                        self.t.name, self.t.datapath, self.t.routing))
                    return
        step("begin")
        self.down(quiet=True)
        started = time.time()
        try:
            self._build()
        except BaseException as e:
            print("xfab-lab: bring-up failed: %s; cleaning up" % e, file=sys.stderr)
            self._dump_logs()
            self.down(quiet=True)
            raise
        t = self.t
        print("lab %s up in %.1f s: %s%d spines, %d leaves, %d hosts, %s datapath, %s routing" % (
            t.name, time.time() - started,
            "%d pods, %d super-spines, " % (t.pods, t.supers) if t.supers else "",
            len(t.spine_names()), len(t.leaf_names()), len(t.hosts()), t.datapath, t.routing))

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

    def _dump_logs(self):
        for s in self.t.switches():
            logs = [(s, os.path.join(self.state, s + ".log"))]
            logs += [("%s %s" % (s, d), os.path.join(self.frr_dir(s), d + ".log"))
                     for d in FRR_DAEMONS]
            for who, log in logs:
                if os.path.exists(log):
                    with open(log, errors="replace") as f:
                        tail = f.read().splitlines()[-5:]
                    for line in tail:
                        print("  %s: %s" % (who, line), file=sys.stderr)

    def _build(self):
        """The lab, built in named steps (step(): where the interrupt test
        stops it)."""
        t = self.t
        xfab = t.datapath != "kernel"
        self._preflight(xfab)
        self._write_state()
        step("state")
        self._netns_and_links()
        self._tune_wires()
        step("offload-rps")
        for i, node in enumerate(t.switches()):
            self._setup_switch(node)
            if i == 0:
                step("switch-first")
        step("switches")
        for i, (h, l, k) in enumerate(t.hosts()):
            self._setup_host(h, l, k)
            if i == 0:
                step("host-first")
        step("hosts")
        self._start_control(xfab)
        step("nexthops-resolved")

    def _preflight(self, xfab):
        """What the lab needs, checked before anything is built: the programs,
        and a kernel with tcx and bpf_cast_to_kern_ctx."""
        for exe in ("xfabd", "xfabctl") if xfab else ():
            if not os.access(os.path.join(BUILD, exe), os.X_OK):
                raise LabError("%s/%s is missing: run make first" % (BUILD, exe))
        probe = subprocess.run([os.path.join(BUILD, "xfabd"), "--probe-kernel"],
                               capture_output=True, text=True) if xfab else None
        if probe and probe.returncode != 0:
            raise LabError(probe.stderr.strip() or probe.stdout.strip())

    def _write_state(self):
        """STATE/topology.json (what `up` built, for status and a second up)
        and STATE/fabric.json."""
        t = self.t
        os.makedirs(self.state, exist_ok=True)
        with open(os.path.join(self.state, "topology.json"), "w") as f:
            json.dump({"path": os.path.abspath(t.path), "name": t.name,
                       "datapath": t.datapath, "routing": t.routing}, f)
        with open(os.path.join(self.state, "fabric.json"), "w") as f:
            json.dump(t.fabric(), f, indent=1)

    def _netns_and_links(self):
        t = self.t
        for i, node in enumerate(t.nodes()):
            run(["ip", "netns", "add", t.ns(node)])
            if i == 0:
                step("netns-first")
            self.nsexec(node, ["ip", "link", "set", "lo", "up"])
        step("netns")
        for i, (a, pa, b, pb) in enumerate(t.links()):
            run(["ip", "link", "add", pa, "netns", t.ns(a), "mtu", str(t.mtu), "type", "veth",
                 "peer", pb, "netns", t.ns(b), "mtu", str(t.mtu)])
            if i == 0:
                step("links-first")
        step("links")

    def _tune_wires(self):
        """Makes the veths behave as wires: finished checksums, flows in order."""
        t = self.t
        # A wire carries finished checksums; veth would otherwise hand XDP
        # frames whose L4 checksum the sender left to "hardware" (lost on
        # an XDP redirect, so receivers would count UDP/TCP csum errors).
        for a, pa, b, pb in t.links():
            self.nsexec(a, ["ethtool", "-K", pa, "tx", "off"], check=False)
            self.nsexec(b, ["ethtool", "-K", pb, "tx", "off"], check=False)
        # A wire keeps a flow in order. A veth hands each packet to the
        # backlog of the CPU that sent it, so a queue drained now on one
        # CPU and now on another (a shaped or paused queue: timers, the
        # PFC thread's wake-up) would reorder a flow; RPS steers every
        # flow to one CPU by its hash (docs/PFC.md). The mask: every CPU.
        mask = "%x" % ((1 << min(os.cpu_count() or 1, 32)) - 1)
        for node in t.nodes():
            run(["ip", "netns", "exec", t.ns(node), "sh", "-c",
                 "for f in /sys/class/net/*/queues/rx-*/rps_cpus; do echo %s > $f; done" % mask],
                check=False)

    def _start_control(self, xfab):
        """FRR (routing bgp) and the agents, started and waited for: every
        agent forwarding, BGP converged, every nexthop resolved."""
        t = self.t
        if t.routing == "bgp":
            frr_started = time.time()
            self._start_frr()  # sessions come up while the agents start
            step("frr")
        for i, node in enumerate(t.switches() if xfab else ()):
            self._start_agent(node)
            if i == 0:
                step("agent-first")
        step("agents-started")
        for node in t.switches() if xfab else ():
            self._wait_agent(node)
        step("agents-forwarding")
        if t.routing == "bgp":
            self._wait_bgp()
            step("bgp-converged")
            print("BGP: %d sessions Established, every data plane full %.1f s after FRR "
                  "started" % (sum(t.bgp_session_count(n) for n in t.switches()) // 2,
                               time.time() - frr_started))
        if xfab:
            self._wait_converged()

    def _wait_converged(self, timeout=10):
        """Until every nexthop of every switch is resolved, so the first
        packets of a test take xfab's path rather than the kernel's."""
        deadline = time.time() + timeout
        pending = list(self.t.switches())
        while pending and time.time() < deadline:
            still = []
            for node in pending:
                res = self.nsexec(node, [os.path.join(BUILD, "xfabctl"), "-j", "-P",
                                         os.path.join(self.pin_root, node), "show", "nexthops"],
                                  check=False, capture=True)
                try:
                    if not all(nh["resolved"] for nh in json.loads(res.stdout or "[]")):
                        still.append(node)
                except ValueError:
                    still.append(node)
            pending = still
            if pending:
                time.sleep(0.05)
        if pending:
            raise LabError("nexthops still unresolved on %s after %d s" % (
                ", ".join(pending), timeout))

    def _sysctl(self, node, *kv):
        self.nsexec(node, ["sysctl", "-qw"] + list(kv))

    def _setup_switch(self, node):
        cfg, kroutes = self.t.switch_config(node)
        self._sysctl(node, "net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0",
                     "net.ipv4.conf.default.rp_filter=0", "net.ipv4.icmp_ratelimit=0",
                     "net.ipv6.conf.all.forwarding=1", "net.ipv6.icmp.ratelimit=0")
        if self.t.datapath == "kernel":  # ECMP on the 5-tuple, as xfab's default
            self._sysctl(node, "net.ipv4.fib_multipath_hash_policy=1",
                         "net.ipv6.fib_multipath_hash_policy=1")
        if self.t.routing == "bgp":
            # A port that goes down and up keeps its IPv6 addresses (the
            # kernel drops them by default), so its IPv6 session comes back.
            self._sysctl(node, "net.ipv6.conf.all.keep_addr_on_down=1")
        if self.t.vtep_leaf(node):  # the VTEP's address, advertised in the underlay
            self.nsexec(node, ["ip", "addr", "add", VTEP_V4 % self.t.index(node) + "/32",
                               "dev", "lo"])
        # a CONFIG_DB switch's loopback addresses (LOOPBACK_INTERFACE) on lo
        for table, dev in (("INTERFACE", None), ("LOOPBACK_INTERFACE", "lo")):
            for key in cfg.get(table, {}):
                if "|" not in key:  # a port's own entry (vnet_name)
                    continue
                port, pfx = key.split("|")
                self.nsexec(node, ["ip", "addr", "add", pfx, "dev", dev or port] +
                            (["nodad"] if ":" in pfx else []))
        for port in cfg["PORT"]:
            self.nsexec(node, ["ip", "link", "set", port, "up"])
        # The kernel keeps the same routes, for what xfab punts to it.
        for pfx, hops in kroutes:
            cmd = ["ip", "-6" if ":" in pfx else "-4", "route", "replace", pfx, "proto",
                   "static" if self.t.routing == "kernel" else "boot"]
            if len(hops) == 1:
                cmd += ["via", hops[0][0], "dev", hops[0][1]]
            else:
                for gw, dev in hops:
                    cmd += ["nexthop", "via", gw, "dev", dev]
            self.nsexec(node, cmd)
        if self.t.vtep_leaf(node):
            self._tenant_kernel_tables(node)
        path = os.path.join(self.state, node + ".json")
        with open(path, "w") as f:
            json.dump(cfg, f, indent=2)

    def _tenant_kernel_tables(self, node):
        """What xfab punts from a tenant port (a neighbour to resolve, TTL
        expired, too big for the tunnel) the kernel routes in that tenant's
        own table, never in the main one: `ip rule iif PORT` picks table
        10000 + n for VNET n (in the topology's order), which holds the
        tenant's local subnets, its remote ones through a route whose MTU is
        the fabric's less the 50 bytes of VXLAN (so the kernel answers a too
        big packet with ICMP fragmentation needed / packet too big; xfab
        hands it nothing else for those prefixes), and an
        unreachable default (nothing falls through to the main table). The
        answers go back by the main table, which holds the port's subnet:
        a leaf never has two tenant ports with the same subnet (docs/OVERLAY.md)."""
        t = self.t
        names = list(t.vnets)
        ports = [(p, h) for p, h, _ in t.node[node].ports if h in t.host_vnet]
        fams = ["-4"] + (["-6"] if t.ipv6 else [])
        for v in sorted({t.host_vnet[h] for _, h in ports}, key=names.index):
            table = str(10000 + names.index(v) + 1)
            mine = [p for p, h in ports if t.host_vnet[h] == v]
            for port in mine:
                for fam in fams:
                    self.nsexec(node, ["ip", fam, "rule", "add", "iif", port, "lookup", table,
                                       "pref", "1000"])
            for h in t.vnets[v]["hosts"]:
                local = next((p for p, hh in ports if hh == h), None)
                for fam, pfx in (("-4", t.tenant_v4(h)[2]), ("-6", t.tenant_v6(h)[2])):
                    if fam not in fams:
                        continue
                    if local:
                        cmd = ["dev", local]
                    elif fam == "-4":
                        cmd = ["dev", "lo", "mtu", "lock", str(t.mtu - 50)]
                    else:  # IPv6 makes a route through lo a reject route
                        cmd = ["dev", mine[0], "mtu", "lock", str(t.mtu - 50)]
                    self.nsexec(node, ["ip", fam, "route", "add", pfx] + cmd + ["table", table])
            for fam in fams:
                self.nsexec(node, ["ip", fam, "route", "add", "unreachable", "default",
                                   "table", table])

    def _setup_host(self, h, l, k):
        (gw4, addr4, _), (gw6, addr6, _) = self.t.host_addrs(h)
        self.nsexec(h, ["ip", "addr", "add", addr4 + "/24", "dev", "eth0"])
        if self.t.ipv6:
            self.nsexec(h, ["ip", "addr", "add", addr6 + "/64", "dev", "eth0", "nodad"])
        self.nsexec(h, ["ip", "link", "set", "eth0", "up"])
        # An XDP redirect into a veth lands only if the peer runs NAPI (GRO).
        self.nsexec(h, ["ethtool", "-K", "eth0", "gro", "on"], check=False)
        # A NIC has a TX ring that fills and pushes back; veth with its
        # default noqueue drops when the switch's XDP ring is full (about
        # 30k TCP retransmits in 2 s of iperf3). With a real qdisc, veth
        # stops the queue instead (kernel 6.16+).
        self.nsexec(h, ["tc", "qdisc", "replace", "dev", "eth0", "root", "pfifo", "limit",
                        "1000"])
        self.nsexec(h, ["ip", "route", "add", "default", "via", gw4])
        if self.t.ipv6:
            self.nsexec(h, ["ip", "-6", "route", "add", "default", "via", gw6])

    def _start_agent(self, node, mode="w"):
        log = open(os.path.join(self.state, node + ".log"), mode)
        cmd = ["nsenter", "--net=/run/netns/" + self.t.ns(node), os.path.join(BUILD, "xfabd"),
               "-c", os.path.join(self.state, node + ".json"), "--pin-root", self.pin_root,
               "--pidfile", os.path.join(self.state, node + ".pid"),
               # each switch's own loopback: every namespace can use the port
               "--metrics", "127.0.0.1:%d" % METRICS_PORT]
        if self.t.node[node].cfg is not None:  # a SONiC CONFIG_DB file, the lab's additions in
            cmd += ["--format", "sonic"]
        subprocess.Popen(cmd, stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                         start_new_session=True)
        log.close()

    def _wait_agent(self, node, offset=0):
        deadline = time.time() + 15
        log = os.path.join(self.state, node + ".log")
        while time.time() < deadline:
            with open(log) as f:
                f.seek(offset)
                text = f.read()
            if "forwarding on" in text and self.agent_pid(node):
                return
            if "xfabd info: stopped" in text or "xfabd error" in text:
                break
            time.sleep(0.05)
        raise LabError("xfabd on %s did not come up (see %s)" % (node, log))
