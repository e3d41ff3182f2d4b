"""The fabric's parts: the roles a node may have, the limits a topology file
is held to, and the Node and Link the Topology is a graph of."""
from .common import LabError

ROLES = ("leaf", "spine", "super", "host")
TIER = {"host": 0, "leaf": 1, "spine": 2, "super": 3}
# which roles a link may join (a Clos: hosts hang off leaves, leaves go up to
# spines, spines to super-spines)
LINK_ROLES = ({"leaf", "spine"}, {"spine", "super"}, {"leaf", "host"})
COMMON_KEYS = {"name", "description", "routing", "datapath", "ipv6", "mtu", "bfd_ms", "vnets"}
GENERATOR_KEYS = {"spines", "leaves", "hosts_per_leaf", "pods", "planes", "superspines", "speeds"}
EXPLICIT_KEYS = {"nodes", "links"}
NODE_NAME_MAX = 15
SPEED_MAX = 800000  # Mb/s, what xfabd's PORT speed takes
ASN_MAX = 4294967294  # 4294967295 is reserved (RFC 7300)
VTEP_V4 = "10.252.0.%d"  # leaf l's VTEP address (on lo), advertised in BGP
VTEP_MAC = "02:00:00:fe:00:%02x"  # leaf l's VTEP MAC (DEVICE_METADATA mac)
VTEP_NAME = "vtep"  # every leaf's VXLAN_TUNNEL


def unique_keys(pairs):
    """json object_pairs_hook: a key given twice is an error, not the last one wins."""
    out = {}
    for k, v in pairs:
        if k in out:
            raise LabError('"%s" is given twice in one object' % k)
        out[k] = v
    return out


class Node:
    def __init__(self, name, role, index, asn=None, speeds=None):
        self.name, self.role, self.index = name, role, index
        self.asn = asn  # from the file; None: the RFC 7938 default
        self.speeds = speeds or {}  # "up", "down": Mb/s of its ports by direction
        self.ports = []  # (port, peer, Link) in port order: eth1, eth2, ... (a host: eth0)
        self.pod = None  # spines and leaves: their pod (a connected spine-leaf group)
        self.config_db = None  # a switch given as a SONiC CONFIG_DB file: its path,
        self.cfg = None  # its tables,
        self.sonic = None  # and its BGP (sonicfrr.SonicBgp)


class Link:
    """A cable between an upper node (the higher tier) and a lower one."""

    def __init__(self, upper, lower, speed, where):
        self.upper, self.lower, self.speed, self.where = upper, lower, speed, where
        self.ends = {}  # node -> (port, IPv4 address, IPv6 address)
        self.port_names = {}  # node -> its port named in the file (a CONFIG_DB switch's)
        self.plen = (31, 127)  # host links: (24, 64)

    def peer(self, node):
        return self.lower if node == self.upper else self.upper


class Graph:
    """The names in a Topology's graph, by role and in order (a mixin: self
    is the Topology; its node dict and hosts are the Topology's)."""

    def ns(self, node):
        return "%s-%s" % (self.name, node)

    def _names(self, role):
        return [n.name for n in self.node.values() if n.role == role]

    def spine_names(self):
        return self._names("spine")

    def leaf_names(self):
        return self._names("leaf")

    def super_names(self):
        return self._names("super")

    def hosts(self):
        """(host name, leaf index, host index on the leaf)."""
        return list(self._hosts)

    def switches(self):
        return self.super_names() + self.spine_names() + self.leaf_names()

    def nodes(self):
        return self.switches() + [h for h, _, _ in self.hosts()]

    def role(self, node):
        return self.node[node].role

    def index(self, node):
        return self.node[node].index
