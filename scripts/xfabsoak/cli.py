"""soak: the BGP lab under steady numbered traffic and a seeded random
schedule of faults, for a set time; what each fault cost, judged.

  soak [--minutes N] [--seed S] [--topology FILE] [--datapath xdp|tc]
       [--name LAB] [--rate PPS] [--max-cut-ms MS] [--bfd-ms MS] [--no-judge-unplanned]
       [--json] [--keep]

Brings up TOPOLOGY (testbeds/clos-2x4.json) with BGP routing (FRR on every
switch) as lab LAB (default xsk), then runs UDP flows both ways between pairs
of hosts on different leaves (4 source ports per direction, so every spine
carries some; IPv4 and, on a dual-stack lab, IPv6). Every packet carries its
flow, its sequence number and the time it was sent, so the receiver knows
each lost packet's flow and send time (between its neighbours'), and with
the time the fault that was active then. Faults, one at a time, each followed
by a wait until the fabric has converged again (every BGP session up, every
data plane holding every remote host prefix over all its paths), in an order
drawn from --seed (every kind once per round, the rounds shuffled):

  link            a switch-to-switch link set down at one end (ip link),
                  1-3 s, and up again
  churn           10-40 IPv4 and IPv6 prefixes announced by a leaf's bgpd
                  (network), in every other switch's data plane, withdrawn,
                  out of every one
  xfabd-kill      a switch's xfabd killed (SIGKILL) and a new one started
                  (xfab-lab restart: the data plane forwards throughout)
  reload          a valid config change (a ROUTE added or removed) and SIGHUP:
                  reloaded, the route in the data plane (or gone)
  reload-invalid  a config with a valid and an invalid ROUTE, SIGHUP: refused
                  whole (the log says so, routes, nexthops and groups as before)
  frr-restart     a spine's FRR (zebra, bfdd, bgpd) stopped and started
                  again (xfab-lab restart --frr all)

The lab runs BFD at the topology's timers (100 ms x 3 unless it says
otherwise; its bfdd real-time, docs/LAB.md), or at --bfd-ms. A
BGP session drop (found in bgpd's logs) belongs to the fault that caused it:
the cut link's sessions to the link fault, the restarted FRR's to that
fault; one that drops during a hitless fault (churn, an xfabd kill, a
reload) fails that fault, which must drop nothing. Any other is an unplanned
session-down event with the loss it caused (from BFD's detection, 3 x
--bfd-ms + 0.7 s, before FRR logged it), judged like a link cut
(--max-cut-ms) unless --no-judge-unplanned.

Judged (exit 1 when one fails): 0 packets lost to xfabd-kill, reload,
reload-invalid, churn and frr-restart (the lab's FRR restarts gracefully:
docs/LAB.md); a link cut loses at most --max-cut-ms of any
flow's traffic; 0 lost outside every fault's window; each
fault's own check (churn seen and gone, reload applied, invalid reload
refused, convergence within 60 s); xfabd's RSS and open fds flat on every
switch (sampled all along: the growth from the first sample of a process to
its last within max(4 MiB, 10 %) and 4 fds, for each process that ran at
least a third of the soak; a switch with no such process fails: no verdict
is not a pass); and at the end no route that differs between a
switch's kernel FIB (the routes zebra installed, proto bgp) and its data
plane (xfabctl show routes): missing, extra or with other nexthop ports.

Prints a text report, or with --json one JSON object. Everything it brings up
goes down again (also on failure or Ctrl-C).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

from lab_common import TOPO
import xfablab
from xfablab.signals import Shielded, exit_on_signals

from .common import SoakError, log
from .run import Soak
from .traffic import receiver, sender


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "_send":
        return sender(sys.argv[2:])
    if len(sys.argv) > 1 and sys.argv[1] == "_recv":
        return receiver(sys.argv[2:])
    ap = argparse.ArgumentParser(prog="soak", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--topology", default=TOPO)
    ap.add_argument("--datapath", choices=["xdp", "tc"], default="xdp")
    ap.add_argument("--name", default="xsk")
    ap.add_argument("--rate", type=float, default=200.0, help="packets/s per flow")
    ap.add_argument("--max-cut-ms", type=float, default=500.0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--bfd-ms", type=int, default=None,
                    help="the lab's BFD interval (detection: 3 of them; default: the "
                    "topology's, as any lab of it runs)")
    ap.add_argument("--judge-unplanned", action="store_true", default=True,
                    help="bound the loss of unplanned session drops by --max-cut-ms too "
                    "(the default)")
    ap.add_argument("--no-judge-unplanned", dest="judge_unplanned", action="store_false",
                    help="report unplanned session drops without judging their loss")
    ap.add_argument("--keep", action="store_true",
                    help="leave the lab up at the end (to look at it; xfab-lab down removes it)")
    a = ap.parse_args()
    errs = []
    if not 0.5 <= a.minutes <= 24 * 60:
        errs.append("--minutes: must be 0.5..1440")
    if not 10 <= a.rate <= 2000:
        errs.append("--rate: must be 10..2000 packets/s per flow")
    if not 0 <= a.max_cut_ms <= 60000:
        errs.append("--max-cut-ms: must be 0..60000")
    if not 0 <= a.seed < 2 ** 32:
        errs.append("--seed: must be 0..4294967295")
    if not 1 <= len(a.name) <= 8 or not a.name.replace("-", "").isalnum():
        errs.append("--name: must be 1..8 letters, digits or '-'")
    if not os.path.isfile(a.topology):
        errs.append("--topology: %s: no such file" % a.topology)
    if a.bfd_ms is not None and not 10 <= a.bfd_ms <= 10000:
        errs.append("--bfd-ms: must be 10..10000")
    if errs:
        for e in errs:
            print("soak: %s" % e, file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("soak: run as root (network namespaces, BPF)", file=sys.stderr)
        return 2
    s = None
    exit_on_signals("soak")  # SIGTERM, SIGINT, SIGHUP: the finally below, then 128 + it
    tmp = tempfile.mkdtemp(prefix="xfab-soak-")
    try:
        if a.bfd_ms is None:  # the topology's own timers
            a.bfd_ms = xfablab.Topology(a.topology).bfd_ms
        else:
            a.topology_file, a.topology = a.topology, with_bfd(a.topology, a.bfd_ms, tmp)
        s = Soak(a)
        return s.soak()
    except (SoakError, xfablab.LabError, OSError, subprocess.TimeoutExpired, ValueError) as e:
        log("error: %s" % e)
        return 1
    finally:
        with Shielded():
            if s is not None:
                s.down()
            shutil.rmtree(tmp, ignore_errors=True)


def with_bfd(path, ms, tmp):
    """The topology at path with BFD at ms, as a file in tmp (the lab is
    brought up and down from it)."""
    with open(path) as f:
        t = json.load(f)
    t["bfd_ms"] = ms
    out = os.path.join(tmp, os.path.basename(path))
    with open(out, "w") as f:
        json.dump(t, f)
    return out
