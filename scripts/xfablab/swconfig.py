"""Each switch's xfabd config (config_db-style tables) and kernel routes,
and the routes `up` expects in its data plane."""
import copy

from .model import VTEP_MAC, VTEP_V4

# What zebra installs, mirrored; a withdrawal whose ports are up waits 250 ms
# for the route's return: zebra deletes and re-adds IPv6 routes 8-60 ms apart
# when a restarted bgpd sends them again; and for 10 s after bgpd starts, its
# sweep waits for bgpd to send them again: zebra deletes every route ~1.6 s
# before (docs/LAB.md, bgpd alone)
BGP_FIB_SYNC = {
    "global": {"protocols": "bgp", "withdraw_hold_ms": "250", "restart_hold_ms": "10000"}
}


class SwitchConfigs:
    """Topology's switch configs (a mixin: self is the Topology)."""

    def _remote_hosts(self, node):
        """(host, leaf index, k, [(port, peer)]) of every host this switch
        routes to in the underlay (not its own; tenant hosts are the
        overlay's), in host order."""
        out = []
        for h, l, k in self._hosts:
            leaf = self._leaf_name[l]
            if leaf != node and self._nh[node].get(leaf) and h not in self.host_vnet:
                out.append((h, l, k, self._nh[node][leaf]))
        return out

    def _remote_prefixes(self, node):
        """(IPv4 prefix, IPv6 prefix or None, [(port, peer)]) of what this
        switch routes in the underlay: the remote underlay hosts' subnets
        and the remote VTEPs' addresses."""
        out = []
        for h, l, k, hops in self._remote_hosts(node):
            (_, _, p4), (_, _, p6) = self.host_addrs(h)
            out.append((p4, p6 if self.ipv6 else None, hops))
        for leaf in self.leaf_names():
            if leaf != node and self.vtep_leaf(leaf) and self._nh[node].get(leaf):
                out.append((VTEP_V4 % self.index(leaf) + "/32", None, self._nh[node][leaf]))
        return out

    def switch_config(self, node):
        """The xfabd config (config_db-style tables) and kernel routes of a switch."""
        n = self.node[node]
        if n.cfg is not None:
            return self._config_db_config(n), []
        role = {"super": "SpineRouter", "spine": "SpineRouter", "leaf": "LeafRouter"}[n.role]
        ports, ifaces, down = self._ports(node)
        routes, kroutes = self._underlay_routes(node)
        cfg = {
            "DEVICE_METADATA": {"localhost": {"hostname": node, "type": role,
                                              "datapath": self.datapath}},
            "PORT": ports,
            "INTERFACE": ifaces,
        }
        # the overlay: tenant ports bound to their VNET, the VTEP's tables
        if self.vtep_leaf(node):
            cfg["DEVICE_METADATA"]["localhost"]["mac"] = VTEP_MAC % self.index(node)
            for port, peer, _ in n.ports:
                if peer in self.host_vnet:
                    ifaces[port] = {"vnet_name": self.host_vnet[peer]}
            cfg.update(self.overlay_config(node))
        # Local repair until routing converges (docs/CONFIG.md LOCAL_REPAIR): a
        # spine that lost its only link to a leaf bounces the packet down to
        # another leaf of its pod; a leaf never sends a packet back up the spine
        # it came from, so the bounce goes up another spine to its destination.
        if n.role == "spine" and len(down) >= 2:
            cfg["LOCAL_REPAIR"] = {"global": {"bounce": "true", "ports": ",".join(down)}}
        elif n.role == "leaf":
            cfg["LOCAL_REPAIR"] = {"global": {"split_horizon": "true"}}
        if self.routing == "static":
            cfg["ROUTE"] = routes
        elif self.routing == "kernel":
            cfg["FIB_SYNC"] = {"global": {"protocols": "static"}}
        else:  # bgp: FRR's zebra installs the routes, xfab-lab none
            cfg["FIB_SYNC"] = copy.deepcopy(BGP_FIB_SYNC)
            kroutes = []
        return cfg, kroutes

    def _ports(self, node):
        """PORT and INTERFACE (each port's link addresses) of a switch, and a
        spine's ports down to its leaves."""
        ports, ifaces = {}, {}
        down = []  # a spine's ports to its leaves
        for port, peer, ln in self.node[node].ports:
            ports[port] = {"admin_status": "up", "mtu": str(self.mtu), "description": "to " + peer}
            if ln.speed:
                ports[port]["speed"] = str(ln.speed)
            _, a4, a6 = ln.ends[node]
            ifaces["%s|%s/%d" % (port, a4, ln.plen[0])] = {}
            if self.ipv6:
                ifaces["%s|%s/%d" % (port, a6, ln.plen[1])] = {}
            if self.node[peer].role == "leaf":
                down.append(port)
        return ports, ifaces, down

    def _underlay_routes(self, node):
        """ROUTE (prefix -> {"nexthop"}) and the same as kernel routes
        [(prefix, [(gw, dev)])], grouped by the port of their first next hop,
        in host order."""
        n = self.node[node]
        routes, kroutes = {}, []
        pos = {port: i for i, (port, _, _) in enumerate(n.ports)}
        for p4, p6, hops in sorted(self._remote_prefixes(node), key=lambda r: pos[r[2][0][0]]):
            peer_addr = {}
            for port, peer, ln in n.ports:
                peer_addr[port] = ln.ends[peer]
            hops4 = [(peer_addr[port][1], port) for port, _ in hops]
            hops6 = [(peer_addr[port][2], port) for port, _ in hops]
            fams = [(p4, hops4)]
            if p6:
                fams.append((p6, hops6))
            for pfx, hh in fams:
                routes[pfx] = {"nexthop": ",".join(g for g, _ in hh)}
                kroutes.append((pfx, hh))
        return routes, kroutes

    def expected_routes(self, node):
        """What BGP must bring into a switch's data plane: remote host prefix ->
        the ports of its members (every shortest path up the tiers and down)."""
        out = {}
        for p4, p6, hops in self._remote_prefixes(node):
            devs = sorted(port for port, _ in hops)
            out[p4] = devs
            if p6:
                out[p6] = list(devs)
        return out

    def _config_db_config(self, n):
        """A CONFIG_DB switch's xfabd config: its file's tables, and what the
        lab adds (xfab's own, which a SONiC file lacks): the topology's
        datapath, and FIB_SYNC of what FRR's zebra installs."""
        cfg = copy.deepcopy(n.cfg)
        cfg["DEVICE_METADATA"]["localhost"]["datapath"] = self.datapath
        cfg["FIB_SYNC"] = copy.deepcopy(BGP_FIB_SYNC)
        return cfg
