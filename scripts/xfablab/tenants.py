"""Tenants: the VXLAN overlay of a topology (SONiC's VNET model,
docs/OVERLAY.md): the vnets key read and checked, tenant addresses, and a
VTEP leaf's overlay tables."""
import ipaddress
import json

from .common import LabError
from .model import VTEP_NAME, VTEP_V4


class Tenants:
    """Topology's tenants (a mixin: self is the Topology)."""

    # -- tenants: the VXLAN overlay (SONiC's VNET model, docs/OVERLAY.md)
    def _parse_vnets(self, raw):
        """vnets: {NAME: {"vni": N, "hosts": {HOST: "a.b.c.0/24", ...}}}. A
        tenant host takes the subnet's .2 (its leaf port .1) and, with IPv6,
        fd64:b:c::2/64; tenants may use the same subnets (they are apart)."""
        path = self.path
        self.vnets = {}  # name -> {"vni": vni, "hosts": {host: IPv4Network}}
        self.host_vnet = {}
        if not isinstance(raw, dict):
            raise LabError("%s: vnets is {NAME: {\"vni\": N, \"hosts\": {HOST: SUBNET}}}" % path)
        vnis = {}
        for name, spec in raw.items():
            where = "%s: vnets.%s" % (path, name)
            if (not 1 <= len(name) <= 15 or not name[0].isalpha() or
                    not name.replace("_", "").replace("-", "").isalnum()):
                raise LabError("%s: a VNET name is 1-15 letters, digits, '_' or '-'" % where)
            if not isinstance(spec, dict) or set(spec) - {"vni", "hosts", "description"}:
                raise LabError("%s: give {\"vni\": N, \"hosts\": {HOST: SUBNET}}" % where)
            vni = spec.get("vni")
            if type(vni) is not int or not 1 <= vni <= 0xffffff:
                raise LabError("%s: vni %s: an integer 1-16777215" % (where, json.dumps(vni)))
            if vni in vnis:
                raise LabError("%s: vni %d is vnets.%s's too" % (where, vni, vnis[vni]))
            vnis[vni] = name
            hosts = spec.get("hosts")
            if not isinstance(hosts, dict) or not hosts:
                raise LabError("%s: hosts is {HOST: \"a.b.c.0/24\"}" % where)
            nets = {}
            for h, net in hosts.items():
                if h not in self.node or self.node[h].role != "host":
                    raise LabError("%s: hosts.%s: no such host" % (where, h))
                if h in self.host_vnet:
                    raise LabError("%s: hosts.%s is in vnets.%s already" % (
                        where, h, self.host_vnet[h]))
                try:
                    n4 = ipaddress.IPv4Network(net)
                except (ValueError, TypeError):
                    raise LabError("%s: hosts.%s: %s is not an IPv4 /24" % (
                        where, h, json.dumps(net)))
                if n4.prefixlen != 24:
                    raise LabError("%s: hosts.%s: %s is not an IPv4 /24" % (where, h, net))
                for other, n in nets.items():
                    if n.overlaps(n4):
                        raise LabError("%s: hosts.%s: %s overlaps hosts.%s's" % (
                            where, h, net, other))
                nets[h] = n4
                self.host_vnet[h] = name
            self.vnets[name] = {"vni": vni, "hosts": nets}

    def tenant_v4(self, h):
        n = self.vnets[self.host_vnet[h]]["hosts"][h]
        return str(n.network_address + 1), str(n.network_address + 2), str(n)

    def tenant_v6(self, h):
        b = self.vnets[self.host_vnet[h]]["hosts"][h].network_address.packed
        pfx = "fd64:%x:%x::" % (b[1], b[2])
        return pfx + "1", pfx + "2", pfx + "/64"

    def vtep_leaf(self, node):
        """A leaf that holds tenant hosts is a VTEP."""
        return self.role(node) == "leaf" and any(
            self.host_vnet.get(p) for _, p, _ in self.node[node].ports)

    def overlay_config(self, node):
        """A VTEP leaf's overlay tables: its VTEP, the VNETs of its tenant
        ports, and a tunnel route to every remote host of those VNETs."""
        cfg = {}
        if not self.vtep_leaf(node):
            return cfg
        l = self.index(node)
        local = {}  # vnet -> [host]
        for port, peer, _ in self.node[node].ports:
            if peer in self.host_vnet:
                local.setdefault(self.host_vnet[peer], []).append(peer)
        cfg["VXLAN_TUNNEL"] = {VTEP_NAME: {"src_ip": VTEP_V4 % l}}
        cfg["VNET"] = {v: {"vxlan_tunnel": VTEP_NAME, "vni": str(self.vnets[v]["vni"])}
                       for v in local}
        routes = {}
        for v in local:
            for h in self.vnets[v]["hosts"]:
                leaf = self.node[self.node[h].ports[0][1]]
                if leaf.name == node:
                    continue
                ep = {"endpoint": VTEP_V4 % leaf.index}
                routes["%s|%s" % (v, self.tenant_v4(h)[2])] = dict(ep)
                if self.ipv6:
                    routes["%s|%s" % (v, self.tenant_v6(h)[2])] = dict(ep)
        if routes:
            cfg["VNET_ROUTE_TUNNEL"] = routes
        return cfg
