"""What every part of the soak shares: the traffic's wire format and
ports, the fault kinds and how they are judged, the windows that
attribute a loss, the error it reports, the clock and the log."""
import ipaddress
import os
import re
import struct
import sys
import time

from xfablab.common import ROOT

# the soak itself, which runs the traffic's ends in the hosts
SOAK = os.path.join(ROOT, "scripts", "soak")
MAGIC = b"XSK1"
HDR = struct.Struct("!4sIQQ")  # magic, flow, sequence number, send time (CLOCK_MONOTONIC, ns)
PORT = 47000  # the receivers' UDP port
SPORT_BASE = 40001
SPORTS_PER_DIR = 4
CONVERGE_S = 60
MISSING_MAX = 200000  # lost packets a receiver lists with their times (the count goes on)
KINDS = ("link", "churn", "xfabd-kill", "reload", "reload-invalid", "frr-restart")
# 0 packets lost, and no BGP session may drop while one runs
HITLESS = ("churn", "xfabd-kill", "reload", "reload-invalid")
# 0 packets lost: graceful restart (docs/LAB.md); the restarted switch's
# sessions drop and come back by design, every other one must stay up
GRACEFUL = ("frr-restart",)
# at most --max-cut-ms of a flow lost
BOUNDED = ("link",)
# a session drop's loss begins before FRR logs it: BFD's detection (3
# intervals) and this much more
DROP_MARGIN_S = 0.7
NOTIF = re.compile(r"%NOTIFICATION.*(?:sent to|received from) neighbor (\S+) \S+ \(([^)]*)\)")
ADJ = re.compile(r"^(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d+)?) BGP: .*%ADJCHANGE: "
                 r"neighbor (\S+) in vrf \S+ (Up|Down)\s*(.*)$")
WINDOW_BEFORE_S = 0.2  # a loss this long before a fault began is still its own
WINDOW_AFTER_S = 1.0  # ... and this long after the fabric converged again

SOAK_ROUTE = "10.250.%d.0/24"  # the reload fault's ROUTE (switch index)


class SoakError(Exception):
    pass


def mono():
    return time.monotonic_ns()


def hop(gateway, dev):
    """A nexthop as "gateway@dev", the address in its canonical form."""
    gw = str(ipaddress.ip_address(gateway)) if gateway else "-"
    return "%s@%s" % (gw, dev)


def log(msg):
    print("soak: %s" % msg, file=sys.stderr, flush=True)


RSS_TOL_KB, RSS_TOL_FRAC, FD_TOL = 4096, 0.10, 4
# an xfabd's memory is judged over a life of a third of the soak, or of this
# long if shorter: in a long soak every switch's xfabd is killed again and
# again (a 10-minute one killed leaf1's 4 times: no life reached 200 s)
MEM_JUDGE_S = 120.0

CHURN_V4 = "10.%d.%d.0/24"  # 10.(200 + leaf index).i.0/24
CHURN_V6 = "fd00:c8:%x:%x::/64"
