"""What every part of xfab-lab shares: where things live (the build, the
labs' state, pins and control sockets, FRR), the routing defaults, the
error it reports, and running a command."""
import os
import subprocess

# The tree this file is in (scripts/xfablab/) and its build; make install
# writes its lib/xfab/bin into BUILD instead.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("XFAB_BUILD", os.path.join(ROOT, "build"))
STATE_ROOT = "/run/xfab-lab"
PIN_BASE = "/sys/fs/bpf/xfab"
CTL_BASE = "/run/xfab"  # xfabd's control sockets: CTL_BASE/<lab>/<switch>.sock
METRICS_PORT = 9400
FRR_BIN = os.environ.get("XFAB_FRR_BIN", "/usr/lib/frr")  # Debian's frr package
FRR_DAEMONS = ("zebra", "bgpd", "bfdd")
FRR_USER = "frr"  # the daemons drop privileges to it
SPINE_ASN = 65000  # RFC 7938 5.2.1: the spines of a plane share one ASN (pod p: 65000 + p - 1)
SUPER_ASN = 64900  # the super-spines of a 3-tier Clos share one too
LEAF_ASN_BASE = 65100  # leaf l: 65100 + l
# s a restarting FRR has to come back in (docs/LAB.md, graceful restart):
# zebra keeps the kernel's routes that long after it starts (-K), bgpd's
# neighbours keep its routes that long after its session dropped
# (restart-time) and as long again for its End-of-RIB (stalepath-time)
FRR_GR_S = 30
# bfdd's real-time priority (SCHED_RR): on a busy box a bfdd at normal
# priority waited on the run queue past 3 x 100 ms and took down every
# session of its switch (docs/LAB.md, "BFD on a loaded CPU")
BFDD_RT_PRIO = 50
# s until every session is up and every data plane full
BGP_TIMEOUT = float(os.environ.get("XFAB_LAB_BGP_TIMEOUT", "60"))


class LabError(Exception):
    pass


def run(cmd, check=True, capture=False, timeout=30):
    """Runs a command (list); raises LabError with its output on failure."""
    res = subprocess.run(cmd, stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, timeout=timeout)
    if check and res.returncode != 0:
        raise LabError("%s: %s" % (" ".join(cmd), res.stderr.strip()))
    return res


def ns_output(netns, cmd, check=True, timeout=60, tail=None):
    """Runs a command (list) in network namespace netns (None: here) and
    returns its stdout; on failure raises LabError with its stderr (the
    last tail characters of it, if tail is given). The benches' one way
    into their namespaces."""
    full = ["nsenter", "--net=/run/netns/" + netns] + cmd if netns else cmd
    res = subprocess.run(full, capture_output=True, text=True, timeout=timeout)
    if check and res.returncode != 0:
        err = res.stderr.strip()
        raise LabError("%s: %s" % (" ".join(cmd), err[-tail:] if tail else err))
    return res.stdout
