"""The Topology: a topology file read (either form) into the graph of
nodes and links (model: Node, Link, and Graph, the names by role). What is
derived from the graph lives in the parts it is made of, each using only
those before it:

  tenants   the VXLAN overlay (vnets), tenant addresses, a VTEP's tables
  plan      ports, addresses, pods, ASNs and router IDs, paths
  swconfig  each switch's xfabd config and kernel routes
  frrconf   each switch's FRR files
  sonicfrr  a CONFIG_DB switch's bgpd.conf, from its file
  describe  the fabric as text and JSON (config, fabric.json)"""
import ipaddress
import json
import os

from .common import LabError
from .describe import FabricViews
from .model import (COMMON_KEYS, EXPLICIT_KEYS, GENERATOR_KEYS, LINK_ROLES, NODE_NAME_MAX,
                    ROLES, SPEED_MAX, ASN_MAX, TIER, Graph, Link, Node, unique_keys)
from .plan import AddressPlan
from .sonicfrr import SonicBgp, SonicFrrConfigs, load_config_db
from .swconfig import SwitchConfigs
from .tenants import Tenants


class Topology(SwitchConfigs, SonicFrrConfigs, FabricViews, AddressPlan, Tenants, Graph):
    """A Clos fabric as a graph of nodes (leaves, spines, super-spines, hosts)
    and links, with its address plan. Two ways to write one (docs/LAB.md):

    Generator form: `spines` and `leaves` per pod, `hosts_per_leaf`, `pods`,
    `superspines`, `planes`, `speeds`. Every spine linked to every leaf of its
    pod; with super-spines, every spine to every super-spine of its plane
    (planes 1: all of them). Spines and leaves are numbered across pods (pod
    p has spines (p-1)*spines+1.. and leaves (p-1)*leaves+1..), hosts h1..
    leaf by leaf.
    Explicit form: `nodes` (name -> role leaf|spine|super|host, optional asn
    and speeds {"up", "down"}, a switch's optional config_db) and `links`
    ([A, B] or {"ends": [A, B], "speed": Mb/s}; an end "NODE:PORT" names a
    CONFIG_DB switch's port, by its PORT key or alias).

    Both become the same graph; everything else (ports, addresses, routes,
    FRR configs, the routes `up` expects) is derived from it:
    ports: a switch's eth1, eth2, ... in the order its links are listed (the
           generator lists spine-leaf links, then super-spine links, then
           host links); a host's one port is eth0.
    Spine s, leaf l, super-spine x, host k of a leaf: their positions among
    the nodes of their role (and among the leaf's host links), from 1.
    link spine s <-> leaf l:        10.254.s.(2l-2)/31 (spine even, leaf odd),
                                    fd00:fe:s:l::2/127 (spine), ::3 (leaf)
    link super x <-> spine s:       10.253.x.(2s-2)/31 (super even, spine odd),
                                    fd00:fd:x:s::2/127 (super), ::3 (spine)
    host k on leaf l:               10.l.k.0/24 (leaf .1, host .2),
                                    fd00:l:k::/64 (leaf ::1, host ::2)
    Routes: each switch reaches a remote leaf's hosts over every shortest
    path that goes up the tiers and then down (as eBGP with RFC 7938 ASNs
    selects them), ECMP over all of them.
    """

    def __init__(self, path, name=None, datapath=None, routing=None):
        with open(path) as f:
            try:
                t = json.load(f, object_pairs_hook=unique_keys)
            except (LabError, ValueError) as e:
                raise LabError("%s: %s" % (path, e))
        if not isinstance(t, dict):
            raise LabError("%s: a topology is a JSON object" % path)
        self.path = path
        unknown = sorted(set(t) - COMMON_KEYS - GENERATOR_KEYS - EXPLICIT_KEYS)
        if unknown:
            raise LabError("%s: unknown key %s (known: %s)" % (
                path, ", ".join('"%s"' % k for k in unknown),
                ", ".join(sorted(COMMON_KEYS | GENERATOR_KEYS | EXPLICIT_KEYS))))
        self.name = name or t.get("name", "xfab")
        self.datapath = datapath or t.get("datapath", "xdp")
        self.routing = routing or t.get("routing", "static")
        self.ipv6 = bool(t.get("ipv6", True))
        try:
            self.mtu = int(t.get("mtu", 1500))
        except (TypeError, ValueError):
            raise LabError("%s: mtu must be a number" % path)
        bfd = t.get("bfd_ms", 100)
        if isinstance(bfd, bool) or not isinstance(bfd, int) or not 10 <= bfd <= 10000:
            raise LabError("%s: bfd_ms must be a number of milliseconds, 10..10000" % path)
        self.bfd_ms = bfd
        if self.datapath not in ("xdp", "tc", "kernel"):
            raise LabError("datapath must be xdp, tc or kernel, not %r" % self.datapath)
        if self.routing not in ("static", "kernel", "bgp"):
            raise LabError("routing must be static, kernel or bgp, not %r" % self.routing)
        if len(self.name) > 10 or not self.name.replace("-", "").isalnum():
            raise LabError("lab name %r: use up to 10 letters, digits or '-'" % self.name)
        self.node = {}  # name -> Node, in the file's (or the generator's) order
        self.link_list = []
        self.explicit = bool(EXPLICIT_KEYS & set(t))
        if self.explicit:
            both = sorted(GENERATOR_KEYS & set(t))
            if both:
                raise LabError("%s: nodes and links describe the fabric; %s belong to the "
                               "generator form, not beside them" % (path, ", ".join(both)))
            self._explicit(t)
        else:
            try:
                self._generate(t)
            except (TypeError, ValueError, AttributeError) as e:
                raise LabError("%s: the generator's sizes and speeds are numbers (%s)" % (path, e))
        self._parse_vnets(t.get("vnets", {}))
        self._wire()
        for n in self.node.values():
            if n.cfg is not None:
                self._check_config_db(n)

    # -- the two forms
    def _add_node(self, name, role, asn=None, speeds=None):
        index = 1 + sum(n.role == role for n in self.node.values())
        self.node[name] = Node(name, role, index, asn, speeds)

    def _add_link(self, a, b, speed, where=None):
        na, nb = self.node[a], self.node[b]
        up, low = (a, b) if TIER[na.role] > TIER[nb.role] else (b, a)
        where = where or "%s: the link %s-%s" % (self.path, up, low)
        self.link_list.append(Link(up, low, speed, where))

    def _generate(self, t):
        path = self.path
        spines = int(t.get("spines", 2))  # per pod
        leaves = int(t.get("leaves", 4))  # per pod
        pods = int(t.get("pods", 1))
        supers = int(t.get("superspines", 0))
        planes = int(t.get("planes", 1))
        hpl = int(t.get("hosts_per_leaf", 2))
        # port speeds in Mb/s (PORT speed): the oversubscription a leaf and a
        # spine have (informational for xfab: no shaping unless "rate" is set)
        speeds = {k: int(v) for k, v in t.get("speeds", {}).items()}
        if not (1 <= spines <= 16 and 1 <= leaves <= 64 and 1 <= hpl <= 16 and
                1 <= pods <= 8 and 0 <= supers <= 8):
            raise LabError("%s: sizes out of range (spines 1-16, leaves 1-64, hosts 1-16 per "
                           "leaf, pods 1-8, superspines 0-8)" % path)
        if pods * leaves > 64 or pods * spines > 16:
            raise LabError("%s: at most 64 leaves and 16 spines in all" % path)
        if pods > 1 and not supers:
            raise LabError("%s: %d pods need superspines to join them" % (path, pods))
        if set(speeds) - {"host", "leaf_uplink", "spine_uplink"}:
            raise LabError("%s: speeds has host, leaf_uplink and spine_uplink only" % path)
        if planes < 1:
            raise LabError("%s: planes must be 1 or more" % path)
        if planes > 1 and not supers:
            raise LabError("%s: planes %d needs superspines (a plane is a set of spines and "
                           "the super-spines they alone connect to)" % (path, planes))
        if spines % planes or supers % planes:
            raise LabError("%s: planes %d must divide spines (%d per pod) and superspines (%d)"
                           % (path, planes, spines, supers))
        for x in range(1, supers + 1):
            self._add_node("super%d" % x, "super")
        for s in range(1, pods * spines + 1):
            self._add_node("spine%d" % s, "spine")
        for l in range(1, pods * leaves + 1):
            self._add_node("leaf%d" % l, "leaf")
        for l in range(1, pods * leaves + 1):
            for k in range(1, hpl + 1):
                self._add_node("h%d" % ((l - 1) * hpl + k), "host")
        for s in range(1, pods * spines + 1):
            p = (s - 1) // spines
            for l in range(p * leaves + 1, (p + 1) * leaves + 1):
                self._add_link("spine%d" % s, "leaf%d" % l, speeds.get("leaf_uplink"))
        # plane q: spines (q-1)*spines/planes+1.. of each pod and super-spines
        # (q-1)*superspines/planes+1..; a spine links only to its plane's
        for x in range(1, supers + 1):
            for s in range(1, pods * spines + 1):
                if ((s - 1) % spines) // (spines // planes) == (x - 1) // (supers // planes):
                    self._add_link("super%d" % x, "spine%d" % s, speeds.get("spine_uplink"))
        for l in range(1, pods * leaves + 1):
            for k in range(1, hpl + 1):
                self._add_link("leaf%d" % l, "h%d" % ((l - 1) * hpl + k), speeds.get("host"))

    def _explicit(self, t):
        path = self.path
        nodes, links = t.get("nodes"), t.get("links")
        if not isinstance(nodes, dict) or not nodes:
            raise LabError("%s: nodes must be an object of node name -> {\"role\": ...}" % path)
        if not isinstance(links, list) or not links:
            raise LabError("%s: links must be a list of [A, B] or {\"ends\": [A, B], "
                           "\"speed\": Mb/s}" % path)
        for name, spec in nodes.items():
            self._explicit_node(name, spec)
        seen = {}  # {a, b} -> the index of the link that joins them
        for i, ln in enumerate(links):
            self._explicit_link(i, ln, seen)

    def _explicit_node(self, name, spec):
        """nodes.NAME: {"role", "asn", "speeds", "description"}, checked and added."""
        where = "%s: nodes.%s" % (self.path, name)
        if (not 1 <= len(name) <= NODE_NAME_MAX or not name[0].isalpha() or
                not name.replace("-", "").isalnum() or not name.isascii()):
            raise LabError("%s: a node name is 1-%d letters, digits or '-', starting with a "
                           "letter" % (where, NODE_NAME_MAX))
        if not isinstance(spec, dict):
            raise LabError("%s: give an object, e.g. {\"role\": \"leaf\"}" % where)
        bad = sorted(set(spec) - {"role", "asn", "speeds", "description", "config_db"})
        if bad:
            raise LabError("%s: unknown key %s (role, asn, speeds, description, config_db)" % (
                where, ", ".join('"%s"' % k for k in bad)))
        role = spec.get("role")
        if role not in ROLES:
            raise LabError("%s: role must be leaf, spine, super or host, not %s" % (
                where, json.dumps(role)))
        asn = spec.get("asn")
        if asn is not None and (role == "host" or type(asn) is not int or
                                not 1 <= asn <= ASN_MAX):
            raise LabError("%s: asn %s: %s" % (
                where, json.dumps(asn), "a host has none" if role == "host" else
                "an integer 1-%d" % ASN_MAX))
        speeds = spec.get("speeds", {})
        if not isinstance(speeds, dict) or (speeds and role == "host"):
            raise LabError("%s: speeds is {\"up\": Mb/s, \"down\": Mb/s} of a switch" % where)
        for k, v in speeds.items():
            if k not in ("up", "down") or type(v) is not int or not 1 <= v <= SPEED_MAX:
                raise LabError("%s: speeds.%s: \"up\" or \"down\", 1-%d Mb/s" % (
                    where, k, SPEED_MAX))
        self._add_node(name, role, asn, speeds)
        if "config_db" in spec:
            self._load_config_db(self.node[name], spec["config_db"], where)

    def _load_config_db(self, n, path, where):
        """nodes.NAME.config_db: a SONiC CONFIG_DB file (relative to the
        topology's folder), its BGP checked (sonicfrr), its hostname the
        node's, its bgp_asn the node's ASN."""
        if n.role == "host" or not isinstance(path, str) or not path:
            raise LabError("%s: config_db: a switch's SONiC config_db.json (a path)" % where)
        n.config_db = os.path.join(os.path.dirname(os.path.abspath(self.path)), path)
        n.cfg = load_config_db(n.config_db)
        n.sonic = SonicBgp(n.cfg, n.config_db)
        if n.sonic.hostname != n.name:
            raise LabError("%s: DEVICE_METADATA|localhost.hostname %s is not the node's name" %
                           (n.config_db, json.dumps(n.sonic.hostname)))
        if n.asn is not None and n.asn != n.sonic.asn:
            raise LabError("%s: asn %d, but its config_db's bgp_asn is %d" % (
                where, n.asn, n.sonic.asn))
        n.asn = n.sonic.asn

    def _explicit_link(self, i, ln, seen):
        """links[i]: [A, B] or {"ends": [A, B], "speed": Mb/s}, checked (a
        link joins two tiers, once) and added with its speed (the link's, or
        its ends' by direction)."""
        where = "%s: links[%d]" % (self.path, i)
        speed = None
        if isinstance(ln, dict):
            bad = sorted(set(ln) - {"ends", "speed"})
            if bad:
                raise LabError("%s: unknown key %s (ends, speed)" % (
                    where, ", ".join('"%s"' % k for k in bad)))
            speed = ln.get("speed")
            ln = ln.get("ends")
        if (not isinstance(ln, list) or len(ln) != 2 or
                not all(isinstance(e, str) for e in ln)):
            raise LabError("%s: a link is [A, B] or {\"ends\": [A, B], \"speed\": Mb/s}" %
                           where)
        where += " (%s-%s)" % tuple(ln)
        (a, pa), (b, pb) = [e.partition(":")[::2] for e in ln]
        for e in (a, b):
            if e not in self.node:
                raise LabError("%s: unknown node %s" % (where, e))
        ports = {e: self._port_name(e, p, where) for e, p in ((a, pa), (b, pb))
                 if self.node[e].cfg is not None or p}
        if a == b:
            raise LabError("%s: a link joins two different nodes" % where)
        roles = {self.node[a].role, self.node[b].role}
        if roles not in LINK_ROLES:
            raise LabError("%s: a %s cannot link to a %s (links join leaf-spine, "
                           "spine-super or leaf-host)" % (
                               where, self.node[a].role, self.node[b].role))
        pair = frozenset((a, b))
        if pair in seen:
            raise LabError("%s: duplicate of links[%d]" % (where, seen[pair]))
        seen[pair] = i
        if speed is not None and (type(speed) is not int or not 1 <= speed <= SPEED_MAX):
            raise LabError("%s: speed %s: 1-%d Mb/s" % (where, json.dumps(speed), SPEED_MAX))
        if speed is None:  # the ends' own speeds, by direction
            up, low = sorted((a, b), key=lambda n: -TIER[self.node[n].role])
            s_up = self.node[up].speeds.get("down")
            s_low = self.node[low].speeds.get("up")
            if s_up and s_low and s_up != s_low:
                raise LabError("%s: %s's down speed %d and %s's up speed %d disagree "
                               "(give the link a speed)" % (where, up, s_up, low, s_low))
            speed = s_up or s_low
        self._add_link(a, b, speed, where)
        self.link_list[-1].port_names = ports

    def _port_name(self, node, port, where):
        """The PORT key a link's end "NODE:PORT" names (PORT's key or alias)."""
        n = self.node[node]
        if n.cfg is None:
            raise LabError("%s: only a switch given by its config_db names its ports" % where)
        if not port:
            raise LabError("%s: name %s's port: \"%s:PORT\" (its PORT key or alias)" % (
                where, node, node))
        table = n.cfg.get("PORT", {})
        name = port if port in table else next(
            (k for k, v in table.items() if isinstance(v, dict) and v.get("alias") == port), None)
        if name is None:
            raise LabError("%s: %s has no port %s (%s's PORT, by name or alias)" % (
                where, node, port, n.config_db))
        if any(ln.port_names.get(node) == name for ln in self.link_list):
            raise LabError("%s: %s's port %s is wired twice" % (where, node, name))
        return name

    def _check_config_db(self, n):
        """A CONFIG_DB switch fits the lab: BGP routing, no VTEP, every PORT
        wired, and the plan's addresses in INTERFACE (the lab's hosts and
        generated neighbours are addressed by the plan)."""
        where = "%s: nodes.%s (%s)" % (self.path, n.name, n.config_db)
        if self.routing != "bgp":
            raise LabError("%s: a CONFIG_DB switch routes with BGP (routing bgp, not %s)" % (
                where, self.routing))
        if self.vtep_leaf(n.name):
            raise LabError("%s: a CONFIG_DB leaf cannot have tenant hosts (vnets)" % where)
        unwired = sorted(set(n.cfg.get("PORT", {})) - {p for p, _, _ in n.ports})
        if unwired:
            raise LabError("%s: PORT|%s is wired to no link (xfabd needs every port)" % (
                where, unwired[0]))
        have = {tuple(k.split("|", 1)) for k in n.cfg.get("INTERFACE", {}) if "|" in k}
        have = {(p, ipaddress.ip_interface(a)) for p, a in have}
        for port, peer, ln in n.ports:
            _, a4, a6 = ln.ends[n.name]
            for a, plen in ((a4, ln.plen[0]), (a6, ln.plen[1]) if self.ipv6 else (None, 0)):
                if a and (port, ipaddress.ip_interface("%s/%d" % (a, plen))) not in have:
                    raise LabError("%s: INTERFACE|%s|%s/%d is missing: the plan addresses "
                                   "the link to %s so (docs/LAB.md)" % (where, port, a, plen,
                                                                       peer))
