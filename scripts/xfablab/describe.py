"""The fabric as xfab-lab shows it: `config TOPOLOGY` (text) and
`config TOPOLOGY fabric` (the JSON `up` writes to STATE/fabric.json)."""
from .common import CTL_BASE, PIN_BASE


class FabricViews:
    """Topology's descriptions (a mixin: self is the Topology)."""

    def describe(self):
        """The graph as the lab builds it: every switch (role, ASN, pod) with
        its ports (peer, its addresses, speed), every host with its leaf."""
        out = ["%s: %d super-spines, %d spines, %d leaves, %d hosts, %d pod%s (%s form)\n" % (
            self.name, self.supers, len(self.spine_names()), len(self.leaf_names()),
            len(self._hosts), self.pods, "" if self.pods == 1 else "s",
            "explicit" if self.explicit else "generator")]
        for name in self.switches() + [h for h, _, _ in self._hosts]:
            n = self.node[name]
            if n.role == "host":
                port, a4, a6 = n.ports[0][2].ends[name]
                _, peer, ln = n.ports[0]
                out.append("%s host on %s %s: %s/%d%s\n" % (
                    name, peer, ln.ends[peer][0], a4, ln.plen[0],
                    ", %s/%d" % (a6, ln.plen[1]) if self.ipv6 else ""))
                continue
            out.append("%s %s AS %d%s%s, router-id %s\n" % (
                name, n.role, self.asn(name), " (the file's)" if n.asn is not None else "",
                ", pod %d" % n.pod if n.pod else "", self.router_id(name)))
            for port, peer, ln in n.ports:
                _, a4, a6 = ln.ends[name]
                out.append("  %-6s to %-16s %s/%d%s%s\n" % (
                    port, "%s %s" % (peer, ln.ends[peer][0]), a4, ln.plen[0],
                    " %s/%d" % (a6, ln.plen[1]) if self.ipv6 else "",
                    "  %d Mb/s" % ln.speed if ln.speed else ""))
        return "".join(out)

    def fabric(self):
        """The graph as data (`xfab-lab config TOPOLOGY fabric`, and
        STATE/fabric.json while the lab is up): what tools that work across
        the fabric read (xfab-te, `xfabctl fabric report`) instead of
        deriving the address plan again. Tiers: 1 leaf, 2 spine, 3 super."""
        tier = {"leaf": 1, "spine": 2, "super": 3}
        out = {"name": self.name, "datapath": self.datapath, "routing": self.routing,
               "switches": {}, "hosts": {}, "links": []}
        for name in self.switches():
            n = self.node[name]
            ports = {}
            for port, peer, ln in n.ports:
                _, a4, a6 = ln.ends[name]
                ports[port] = {"peer": peer, "peer_port": ln.ends[peer][0],
                               "ipv4": "%s/%d" % (a4, ln.plen[0]),
                               "ipv6": "%s/%d" % (a6, ln.plen[1]) if self.ipv6 else None,
                               "speed_mbps": ln.speed or None,
                               "direction": "down" if ln.upper == name else "up"}
            out["switches"][name] = {
                "role": n.role, "tier": tier[n.role], "asn": self.asn(name), "pod": n.pod,
                "router_id": self.router_id(name), "netns": self.ns(name),
                "pins": None if self.datapath == "kernel" else
                "%s/%s/%s" % (PIN_BASE, self.name, name),
                "ctl": None if self.datapath == "kernel" else
                "%s/%s/%s.sock" % (CTL_BASE, self.name, name), "ports": ports}
        for h, _, _ in self._hosts:
            port, a4, a6 = self.node[h].ports[0][2].ends[h]
            _, leaf, ln = self.node[h].ports[0]
            out["hosts"][h] = {"leaf": leaf, "leaf_port": ln.ends[leaf][0], "port": port,
                               "ipv4": "%s/%d" % (a4, ln.plen[0]),
                               "ipv6": "%s/%d" % (a6, ln.plen[1]) if self.ipv6 else None,
                               "netns": self.ns(h)}
        for ln in self.link_list:
            up, low = self.node[ln.upper], self.node[ln.lower]
            out["links"].append({"upper": ln.upper, "upper_port": ln.ends[ln.upper][0],
                                 "lower": ln.lower, "lower_port": ln.ends[ln.lower][0],
                                 "kind": "%s-%s" % (up.role, low.role),
                                 "speed_mbps": ln.speed or None})
        return out
