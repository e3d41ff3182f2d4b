"""FRR's bgpd.conf of a switch given as a SONiC CONFIG_DB file (config_db.json),
rendered as SONiC's own templates render it, and the Topology's FRR files of
such a switch (its zebra, bfdd and vtysh files are the lab's).

SONiC's bgpcfgd renders these templates of sonic-buildimage
(dockers/docker-fpm-frr/frr/bgpd/, read at commit 086b03bd70f9) with the
constants of files/build_templates/constants.yml.j2; what is followed, by
template:
  bgpd.main.conf.j2               router bgp DEVICE_METADATA.bgp_asn, its
                                  basics, router-id bgp_router_id or
                                  Loopback0's IPv4, Loopback0's IPv4 /32 and
                                  IPv6 /64 (/128 with bgp_adv_lo_prefix_as_128)
                                  and VLAN_INTERFACE's subnets announced,
                                  multipath-relax, maximum-paths
  templates/general/peer-group.conf.j2  PEER_V4 and PEER_V6: soft-reconfiguration
                                  inbound, route-maps FROM_/TO_BGP_PEER_V4/6,
                                  allowas-in 1 on a ToRRouter
  templates/general/policies.conf.j2    those route-maps (permit all;
                                  IPv6's prefer the global next hop)
  templates/general/instance.conf.j2    a BGP_NEIGHBOR: remote-as asn,
                                  description name, timers keepalive holdtime,
                                  timers connect 10, shutdown when admin_status
                                  is down, its peer group, route-reflector-client
                                  (rrclient), next-hop-self (nhopself), activate
  templates/dynamic/instance.conf.j2    a BGP_PEER_RANGE: a passive peer group
                                  named after it, ebgp-multihop 255, remote-as
                                  peer_asn, bgp listen range per ip_range,
                                  update-source src_address or Loopback1's IPv4
  templates/dynamic/policies.conf.j2    FROM_BGP_SPEAKER permits, TO_BGP_SPEAKER
                                  denies (a speaker is told nothing)
  src/sonic-bgpcfgd/bgpcfgd/managers_bgp.py  a key is IP or vrf|IP (vrf
                                  "default" when there is none)

Where the templates are silent, xfab's lab habits (frrconf): BFD with the
lab's profile on every session, graceful restart on every switch (SONiC: on a
ToRRouter only, 240 s), timers 3/9 for a neighbour that gives none
(SONiC: FRR's 60/180), updates sent at once, and the subnets of INTERFACE
addresses that no neighbour lives on announced (a leaf's hosts: SONiC puts
them in a VLAN, which xfab does not have). Where xfab differs: maximum-paths
64 (SONiC 514; Debian's FRR is built for 64), no `bgp suppress-fib-pending`
(xfabd mirrors the kernel's routes, which zebra acknowledges at once).

Bad input is refused whole, before anything is written, with the file and
TABLE|KEY.field named (SonicError)."""
import ipaddress
import json

from .common import LabError
from .frrconf import BGPD_BASICS, BGPD_TIMERS, FrrConfigs, frr_gr_lines, frr_group_habits
from .model import ASN_MAX, unique_keys

# SONiC's default timers (templates/general/instance.conf.j2)
SONIC_KEEPALIVE, SONIC_HOLDTIME = 60, 180
# what FRR takes as a description or a peer-group name: printable, one line
TEXT_MAX = 80


class SonicError(LabError):
    pass


def load_config_db(path):
    """A config_db.json read (a key given twice refused)."""
    try:
        with open(path) as f:
            cfg = json.load(f, object_pairs_hook=unique_keys)
    except OSError as e:
        raise SonicError("%s: %s" % (path, e.strerror or e))
    except (LabError, ValueError) as e:
        raise SonicError("%s: %s" % (path, e))
    if not isinstance(cfg, dict):
        raise SonicError("%s: a CONFIG_DB file is a JSON object of tables" % path)
    return cfg


class SonicBgp:
    """The BGP a CONFIG_DB holds, checked: parse(cfg, path) or raise SonicError."""

    def __init__(self, cfg, path):
        self.path = path
        self.cfg = cfg
        meta = self._table("DEVICE_METADATA").get("localhost")
        if not isinstance(meta, dict):
            self._fail("DEVICE_METADATA|localhost", "missing (it holds bgp_asn)")
        self.meta = meta
        self.hostname = self._text(meta, "DEVICE_METADATA|localhost", "hostname", True)
        self.type = self._text(meta, "DEVICE_METADATA|localhost", "type") or ""
        self.asn = self._number(meta, "DEVICE_METADATA|localhost", "bgp_asn", 1, ASN_MAX, True)
        self.loopbacks = self._prefixes("LOOPBACK_INTERFACE")
        self.interfaces = self._prefixes("INTERFACE")
        self.vlans = self._prefixes("VLAN_INTERFACE")
        self.router_id = self._router_id()
        self.neighbors = self._neighbors()  # (vrf, address, fields)
        self.ranges = self._ranges()  # (vrf, name, fields)

    # -- values, each error naming TABLE|KEY.field
    def _fail(self, where, msg):
        raise SonicError("%s: %s: %s" % (self.path, where, msg))

    def _table(self, name):
        t = self.cfg.get(name, {})
        if not isinstance(t, dict):
            self._fail(name, "a table is an object of keys")
        return t

    def _text(self, entry, where, field, required=False):
        v = entry.get(field)
        if v is None:
            if required:
                self._fail("%s.%s" % (where, field), "missing")
            return None
        if (not isinstance(v, str) or not v or len(v) > TEXT_MAX or not v.isprintable()):
            self._fail("%s.%s" % (where, field), "%s: a string of 1-%d printable characters "
                       "(every CONFIG_DB value is a string)" % (json.dumps(v), TEXT_MAX))
        return v

    def _number(self, entry, where, field, lo, hi, required=False):
        v = self._text(entry, where, field, required)
        if v is None:
            return None
        if not v.isdigit() or not v.isascii() or (len(v) > 1 and v[0] == "0") or \
                not lo <= int(v) <= hi:
            self._fail("%s.%s" % (where, field), "%s: a number %d-%d" % (json.dumps(v), lo, hi))
        return int(v)

    def _address(self, text, where):
        try:
            return ipaddress.ip_address(text)
        except ValueError:
            self._fail(where, "%s is not an IP address" % json.dumps(text))

    def _prefixes(self, table):
        """{name: [ip_interface]} of a table keyed NAME|PREFIX (NAME alone: the
        interface's own entry)."""
        out = {}
        for key in self._table(table):
            name, _, pfx = key.partition("|")
            if not pfx:
                continue
            try:
                out.setdefault(name, []).append(ipaddress.ip_interface(pfx))
            except ValueError:
                self._fail("%s|%s" % (table, key), "%s is not an address/length" %
                           json.dumps(pfx))
        return out

    def _loopback(self, name, version):
        return next((a for a in self.loopbacks.get(name, []) if a.version == version), None)

    def _router_id(self):
        """bgpd.main.conf.j2: bgp_router_id, else Loopback0's IPv4 address."""
        rid = self.meta.get("bgp_router_id")
        if rid is not None:
            a = self._address(rid, "DEVICE_METADATA|localhost.bgp_router_id")
            if a.version != 4:
                self._fail("DEVICE_METADATA|localhost.bgp_router_id", "an IPv4 address")
            return str(a)
        lo = self._loopback("Loopback0", 4)
        if lo is None:
            self._fail("LOOPBACK_INTERFACE", "no Loopback0 IPv4 address for the router-id "
                       "(or give DEVICE_METADATA|localhost.bgp_router_id)")
        return str(lo.ip)

    def _vrf_key(self, table, key):
        """managers_bgp.py's split_key: KEY or VRF|KEY."""
        vrf, sep, rest = key.partition("|")
        if not sep:
            return "default", key
        if not vrf.replace("_", "").replace("-", "").isalnum() or "|" in rest or not rest:
            self._fail("%s|%s" % (table, key), "a key is NAME or VRF|NAME")
        return vrf, rest

    def _neighbors(self):
        out, seen = [], set()
        for key, e in self._table("BGP_NEIGHBOR").items():
            where = "BGP_NEIGHBOR|%s" % key
            if not isinstance(e, dict):
                self._fail(where, "an entry is an object of fields")
            vrf, addr = self._vrf_key("BGP_NEIGHBOR", key)
            ip = self._address(addr, where)
            if (vrf, ip) in seen:
                self._fail(where, "%s is given twice" % ip)
            seen.add((vrf, ip))
            f = {"asn": self._number(e, where, "asn", 1, ASN_MAX, True),
                 "name": self._text(e, where, "name"),
                 "holdtime": self._number(e, where, "holdtime", 0, 65535),
                 "keepalive": self._number(e, where, "keepalive", 0, 65535),
                 "nhopself": self._number(e, where, "nhopself", 0, 1),
                 "rrclient": self._number(e, where, "rrclient", 0, 1)}
            st = self._text(e, where, "admin_status")
            if st not in (None, "up", "down"):
                self._fail(where + ".admin_status", "%s: up or down" % json.dumps(st))
            f["down"] = st == "down"
            if e.get("local_addr") is not None:  # bgpcfgd waits for its interface
                self._address(self._text(e, where, "local_addr"), where + ".local_addr")
            out.append((vrf, ip, f))
        return out

    def _ranges(self):
        out = []
        for key, e in self._table("BGP_PEER_RANGE").items():
            where = "BGP_PEER_RANGE|%s" % key
            if not isinstance(e, dict):
                self._fail(where, "an entry is an object of fields")
            vrf, name = self._vrf_key("BGP_PEER_RANGE", key)
            if not name.replace("_", "").replace("-", "").isalnum():
                self._fail(where, "a peer range's name is letters, digits, '_' or '-'")
            if e.get("name", name) != name:  # sonic-bgp-peerrange.yang's must
                self._fail(where + ".name", "%s: must be the key's name, %s" % (
                    json.dumps(e.get("name")), name))
            asn = self._number(e, where, "peer_asn", 1, ASN_MAX)
            if asn is None:  # SONiC's deployment_id map is not xfab's
                self._fail(where + ".peer_asn", "missing (the peers' ASN)")
            out.append((vrf, name, {"asn": asn, "ranges": self._ip_ranges(e, where),
                                    "src": self._range_source(e, where)}))
        return out

    def _ip_ranges(self, e, where):
        """ip_range: a leaf-list (a JSON list, or SONiC's comma-joined string)."""
        v = e.get("ip_range")
        items = v.split(",") if isinstance(v, str) else v
        if not isinstance(items, list) or not items or \
                not all(isinstance(i, str) for i in items):
            self._fail(where + ".ip_range", "missing (the prefixes peers connect from)")
        out = []
        for i in items:
            try:
                out.append(ipaddress.ip_network(i.strip()))
            except ValueError:
                self._fail(where + ".ip_range", "%s is not a prefix" % json.dumps(i))
        return out

    def _range_source(self, e, where):
        """update-source: src_address, else Loopback1's IPv4 (dynamic/instance.conf.j2)."""
        if e.get("src_address") is not None:
            return self._address(self._text(e, where, "src_address"), where + ".src_address")
        lo1 = self._loopback("Loopback1", 4)
        if lo1 is None:
            self._fail(where + ".src_address", "missing, and no Loopback1 IPv4 address instead")
        return lo1.ip

    # -- what is announced
    def networks(self, version):
        """bgpd.main.conf.j2: Loopback0 (IPv4 /32, IPv6 /64 or /128) and the
        VLAN_INTERFACE subnets; the lab's habit: the subnets of INTERFACE
        addresses on which no BGP_NEIGHBOR lives."""
        out = []
        lo = self._loopback("Loopback0", version)
        if lo is not None:
            as_128 = self.meta.get("bgp_adv_lo_prefix_as_128") == "true"
            plen = 32 if version == 4 else (128 if as_128 else 64)
            out.append((ipaddress.ip_interface("%s/%d" % (lo.ip, plen)).network, "Loopback0"))
        peers = [ip for _, ip, _ in self.neighbors]
        subnets = set()
        for table, names in (("VLAN_INTERFACE", self.vlans), ("INTERFACE", self.interfaces)):
            for name, addrs in names.items():
                subnets |= {(a.network, name) for a in addrs if a.version == version and (
                    table == "VLAN_INTERFACE" or not any(
                        p.version == version and p in a.network for p in peers))}
        return out + sorted(subnets)

    def session_count(self):
        """The sessions bgpd opens in the default VRF (none shut down)."""
        return sum(1 for vrf, _, f in self.neighbors if vrf == "default" and not f["down"])


def render_policies(sb):
    """policies.conf.j2 (general, and dynamic's when there are peer ranges)."""
    b = ["! template: bgpd/templates/general/policies.conf.j2",
         "route-map FROM_BGP_PEER_V4 permit 100", "!",
         "route-map TO_BGP_PEER_V4 permit 100", "!",
         "route-map FROM_BGP_PEER_V6 permit 1", " on-match next",
         " set ipv6 next-hop prefer-global", "!",
         "route-map FROM_BGP_PEER_V6 permit 100", "!",
         "route-map TO_BGP_PEER_V6 permit 100", "!"]
    if sb.ranges:
        b += ["! template: bgpd/templates/dynamic/policies.conf.j2",
              "route-map FROM_BGP_SPEAKER permit 10", "!",
              "route-map TO_BGP_SPEAKER deny 1", "!"]
    return b


def _render_neighbor(sb, ip, f):
    """templates/general/instance.conf.j2's session lines (its address family
    lines are _render_family's)."""
    n = str(ip)
    b = [" neighbor %s remote-as %d" % (n, f["asn"])]
    if f["name"]:
        b.append(" neighbor %s description %s" % (n, f["name"]))
    if f["keepalive"] is not None or f["holdtime"] is not None:
        b.append(" neighbor %s timers %d %d" % (
            n, SONIC_KEEPALIVE if f["keepalive"] is None else f["keepalive"],
            SONIC_HOLDTIME if f["holdtime"] is None else f["holdtime"]))
    b.append(" neighbor %s timers connect 10" % n)
    if f["down"]:
        b.append(" neighbor %s shutdown" % n)
    b.append(" neighbor %s peer-group PEER_V%d" % (n, ip.version))
    return b


def _render_range(sb, name, f):
    """templates/dynamic/instance.conf.j2's session lines."""
    b = [" neighbor %s peer-group" % name, " neighbor %s passive" % name,
         " neighbor %s ebgp-multihop 255" % name,
         " neighbor %s remote-as %d" % (name, f["asn"])]
    b += [" bgp listen range %s peer-group %s" % (r, name) for r in f["ranges"]]
    b.append(" neighbor %s update-source %s" % (name, f["src"]))
    return b + frr_group_habits(name)[2:]  # BFD (the lab's habit)


def _render_family(sb, version, vrf, neighbors, ranges):
    """address-family ipvN unicast: what is announced (the default VRF's),
    the peer group's policy, each neighbour's and range's activation."""
    g = "PEER_V%d" % version
    b = [" address-family ipv%d unicast" % version]
    if vrf == "default":
        b += ["  network %s" % net for net, _ in sb.networks(version)]
    if sb.type == "ToRRouter":  # peer-group.conf.j2
        b.append("  neighbor %s allowas-in 1" % g)
    b += ["  neighbor %s soft-reconfiguration inbound" % g,
          "  neighbor %s route-map FROM_BGP_%s in" % (g, g),
          "  neighbor %s route-map TO_BGP_%s out" % (g, g)]
    for ip, f in neighbors:
        if ip.version != version:
            continue
        if f["rrclient"]:
            b.append("  neighbor %s route-reflector-client" % ip)
        if f["nhopself"]:
            b.append("  neighbor %s next-hop-self" % ip)
        b.append("  neighbor %s activate" % ip)
    for name, _ in ranges:
        b += ["  neighbor %s activate" % name,
              "  neighbor %s soft-reconfiguration inbound" % name,
              "  neighbor %s route-map FROM_BGP_SPEAKER in" % name,
              "  neighbor %s route-map TO_BGP_SPEAKER out" % name]
    b += ["  maximum-paths 64", " exit-address-family"]
    return b


def _render_instance(sb, vrf):
    """router bgp ASN [vrf VRF]: bgpd.main.conf.j2's globals, the lab's
    timers and graceful restart, the peer groups and sessions, the families."""
    neighbors = [(ip, f) for v, ip, f in sb.neighbors if v == vrf]
    ranges = [(name, f) for v, name, f in sb.ranges if v == vrf]
    b = ["router bgp %d%s" % (sb.asn, "" if vrf == "default" else " vrf " + vrf)]
    b.append(" bgp router-id %s" % sb.router_id)
    b += BGPD_BASICS + BGPD_TIMERS
    if vrf == "default":  # graceful restart is the switch's, set once
        b += frr_gr_lines()
    b.append(" ! template: bgpd/templates/general/peer-group.conf.j2 (and the lab's BFD)")
    for g in ("PEER_V4", "PEER_V6"):
        b.append(" neighbor %s peer-group" % g)
        b += frr_group_habits(g)
    if neighbors:
        b.append(" ! template: bgpd/templates/general/instance.conf.j2, one per BGP_NEIGHBOR")
    for ip, f in neighbors:
        b += _render_neighbor(sb, ip, f)
    if ranges:
        b.append(" ! template: bgpd/templates/dynamic/instance.conf.j2, one per BGP_PEER_RANGE")
    for name, f in ranges:
        b += _render_range(sb, name, f)
    b.append(" !")
    for version in (4, 6):
        b += _render_family(sb, version, vrf, neighbors, ranges)
    return b + ["exit", "!"]


def render_bgpd(sb, head):
    """bgpd.conf's text: head (the file's first lines), the policies, then a
    router bgp per VRF, the default one first."""
    b = [head.rstrip("\n"), "!",
         "! rendered from %s as sonic-buildimage's dockers/docker-fpm-frr/frr/bgpd/"
         " templates do" % sb.path, "!"]
    b += render_policies(sb)
    vrfs = sorted({v for v, _, _ in sb.neighbors + sb.ranges} - {"default"})
    for vrf in ["default"] + vrfs:
        b += _render_instance(sb, vrf)
    return "\n".join(b) + "\n"


class SonicFrrConfigs(FrrConfigs):
    """Topology's FRR files, a CONFIG_DB switch's bgpd.conf rendered from its
    file (a mixin: self is the Topology; node.sonic is its SonicBgp)."""

    def frr_configs(self, node, rundir):
        files = super().frr_configs(node, rundir)
        sb = self.node[node].sonic
        if sb is not None:
            files["bgpd.conf"] = render_bgpd(sb, self._frr_head(node, rundir, "bgpd"))
        return files

    def bgp_session_count(self, node):
        sb = self.node[node].sonic
        return sb.session_count() if sb is not None else super().bgp_session_count(node)
