"""The address plan: ports wired in link order, the addresses of every
link and host (Topology's docstring has the plan), the pods, ASNs and
router IDs, and every switch's shortest paths up the tiers and down."""
from .common import LEAF_ASN_BASE, SPINE_ASN, SUPER_ASN, LabError
from .model import ROLES, TIER


class AddressPlan:
    """Topology's ports, addresses, numbers and paths (a mixin: self is the
    Topology)."""

    def host_addrs(self, h):
        """((gw, addr, prefix) IPv4, the same IPv6) of a host."""
        if h in self.host_vnet:
            return self.tenant_v4(h), self.tenant_v6(h)
        l, k = self._host_at[h]
        return self.host_v4(l, k), self.host_v6(l, k)

    # -- the graph: ports, addresses, pods, routes, checks
    def _wire(self):
        """The graph checked and derived, in this order (the first problem is
        the one reported): sizes, ports, each node's links, addresses, pods,
        ASNs, paths."""
        count = {r: sum(n.role == r for n in self.node.values()) for r in ROLES}
        self._check_sizes(count)
        for ln in self.link_list:
            for n in (ln.upper, ln.lower):
                node = self.node[n]
                port = ln.port_names.get(n) or (
                    "eth0" if node.role == "host" else "eth%d" % (len(node.ports) + 1))
                node.ports.append((port, ln.peer(n), ln))
        self._check_links()
        self._addresses()
        self._pods()
        self.supers = count["super"]
        self._check_asns()
        self._routes()
        for a in self.leaf_names():
            for b in self.leaf_names():
                if a != b and not self._nh[a].get(b):
                    raise LabError("%s: %s cannot reach %s: no path up the tiers and down "
                                   "again" % (self.path, a, b))

    def _check_sizes(self, count):
        if not count["leaf"] or not count["spine"]:
            raise LabError("%s: a fabric needs leaves and spines" % self.path)
        for role, most in (("leaf", 64), ("spine", 64), ("super", 16)):
            if count[role] > most:
                raise LabError("%s: at most %d %s nodes (has %d)" % (self.path, most, role,
                                                                      count[role]))

    def _check_links(self):
        """Each role's links: a host's one to a leaf, a leaf's up to a spine
        (and at most 16 hosts), a spine's down to a leaf, a super-spine's."""
        for n in self.node.values():
            where = "%s: nodes.%s" % (self.path, n.name)
            peers = [self.node[p].role for _, p, _ in n.ports]
            if n.role == "host" and len(peers) != 1:
                raise LabError("%s: a host has exactly one link, to a leaf (it has %d)" % (
                    where, len(peers)))
            if n.role == "leaf" and "spine" not in peers:
                raise LabError("%s: a leaf needs a link up to a spine" % where)
            if n.role == "leaf" and peers.count("host") > 16:
                raise LabError("%s: at most 16 hosts on a leaf" % where)
            if n.role == "spine" and "leaf" not in peers:
                raise LabError("%s: a spine needs a link down to a leaf" % where)
            if n.role == "super" and not peers:
                raise LabError("%s: a super-spine needs links down to spines" % where)

    def _addresses(self):
        """Hosts numbered on their leaf, and both ends of every link
        addressed (the plan in Topology's docstring)."""
        self._hosts = []  # (host, leaf index, host index on the leaf)
        self._leaf_name = {n.index: n.name for n in self.node.values() if n.role == "leaf"}
        host_at = {}
        for n in self.node.values():
            if n.role == "leaf":
                hosts = [p for _, p, _ in n.ports if self.node[p].role == "host"]
                for k, h in enumerate(hosts, 1):
                    host_at[h] = (n.index, k)
        for n in self.node.values():
            if n.role == "host":
                self._hosts.append((n.name,) + host_at[n.name])
        self._host_at = host_at
        for ln in self.link_list:
            up, low = self.node[ln.upper], self.node[ln.lower]
            if up.role == "leaf":
                (gw4, a4, _), (gw6, a6, _) = self.host_addrs(low.name)
                ln.plen = (24, 64)
            elif up.role == "spine":
                gw4, a4 = self.fabric_v4(up.index, low.index)
                gw6, a6 = self.fabric_v6(up.index, low.index)
            else:
                gw4, a4 = self.super_v4(up.index, low.index)
                gw6, a6 = self.super_v6(up.index, low.index)
            for n, v4, v6 in ((up, gw4, gw6), (low, a4, a6)):
                port = next(p for p, _, l in n.ports if l is ln)
                ln.ends[n.name] = (port, v4, v6)

    def _pods(self):
        """Pods: groups of spines and leaves joined by links, numbered by
        their first spine; the spines of a pod share an ASN."""
        self.pods = 0
        for n in self.node.values():
            if n.role != "spine" or n.pod:
                continue
            self.pods += 1
            todo = [n]
            while todo:
                m = todo.pop()
                if m.pod:
                    continue
                m.pod = self.pods
                todo += [self.node[p] for _, p, _ in m.ports
                         if self.node[p].role in ("leaf", "spine") and not self.node[p].pod]

    def _check_asns(self):
        """eBGP needs different ASNs at a link's ends, and a leaf whose ASN
        another leaf has drops that leaf's routes (its own ASN in the path)."""
        leaf_asn = {}
        for n in self.node.values():
            if n.role == "leaf":
                other = leaf_asn.setdefault(self.asn(n.name), n.name)
                if other != n.name:
                    raise LabError("%s: nodes.%s: AS %d is %s's too: each leaf needs its own" %
                                   (self.path, n.name, self.asn(n.name), other))
        for ln in self.link_list:
            if self.node[ln.lower].role != "host" and self.asn(ln.upper) == self.asn(ln.lower):
                raise LabError("%s: both ends are AS %d; eBGP needs two" % (
                    ln.where, self.asn(ln.upper)))

    def _routes(self):
        """_nh[switch][leaf]: the (port, peer) next hops of every shortest path
        from the switch to the leaf that goes up the tiers, then down (the
        paths eBGP with RFC 7938 ASNs takes: a path that goes down and up
        again meets its own ASN)."""
        inf = float("inf")
        sw = [n for n in self.node.values() if n.role != "host"]
        self._nh = {n.name: {} for n in sw}
        for dest in self.leaf_names():
            down = {dest: 0}  # hops going down only
            for n in sorted(sw, key=lambda n: TIER[n.role]):
                if n.name != dest:
                    d = [down[p] for _, p, _ in n.ports if p in down and
                         TIER[self.node[p].role] < TIER[n.role]]
                    if d:
                        down[n.name] = 1 + min(d)
            dist = {}
            for n in sorted(sw, key=lambda n: -TIER[n.role]):
                d = [1 + dist[p] for _, p, _ in n.ports if TIER[self.node[p].role] > TIER[n.role]]
                dist[n.name] = min([down.get(n.name, inf)] + d)
            for n in sw:
                if n.name == dest or dist[n.name] == inf:
                    continue
                self._nh[n.name][dest] = [
                    (port, p) for port, p, _ in n.ports if self.node[p].role != "host" and (
                        1 + down.get(p, inf) == dist[n.name]
                        if TIER[self.node[p].role] < TIER[n.role] else
                        1 + dist[p] == dist[n.name])]

    # numbers: RFC 7938's ASNs, router IDs
    def asn(self, node):
        """The file's, else RFC 7938's: each leaf its own ASN (65100 + leaf
        number); the spines of a pod share one (pod 1: 65000); the
        super-spines share SUPER_ASN."""
        n = self.node[node]
        if n.asn is not None:
            return n.asn
        if n.role == "super":
            return SUPER_ASN
        if n.role == "spine":
            return SPINE_ASN + n.pod - 1
        return LEAF_ASN_BASE + n.index

    def router_id(self, node):
        """An ID only (no address has it): 10.255.0.s for spine s, 10.255.1.l for
        leaf l, 10.255.2.x for super-spine x; a CONFIG_DB switch's own."""
        if self.node[node].sonic is not None:
            return self.node[node].sonic.router_id
        return "10.255.%d.%d" % ({"spine": 0, "leaf": 1, "super": 2}[self.role(node)],
                                 self.index(node))

    # addresses
    @staticmethod
    def fabric_v4(s, l):
        return "10.254.%d.%d" % (s, 2 * l - 2), "10.254.%d.%d" % (s, 2 * l - 1)

    @staticmethod
    def fabric_v6(s, l):
        return "fd00:fe:%x:%x::2" % (s, l), "fd00:fe:%x:%x::3" % (s, l)

    @staticmethod
    def super_v4(x, s):
        return "10.253.%d.%d" % (x, 2 * s - 2), "10.253.%d.%d" % (x, 2 * s - 1)

    @staticmethod
    def super_v6(x, s):
        return "fd00:fd:%x:%x::2" % (x, s), "fd00:fd:%x:%x::3" % (x, s)

    @staticmethod
    def host_v4(l, k):
        return "10.%d.%d.1" % (l, k), "10.%d.%d.2" % (l, k), "10.%d.%d.0/24" % (l, k)

    @staticmethod
    def host_v6(l, k):
        return "fd00:%x:%x::1" % (l, k), "fd00:%x:%x::2" % (l, k), "fd00:%x:%x::/64" % (l, k)

    def links(self):
        """(node a, port a, node b, port b) for every cable."""
        return [(ln.upper, ln.ends[ln.upper][0], ln.lower, ln.ends[ln.lower][0])
                for ln in self.link_list]
