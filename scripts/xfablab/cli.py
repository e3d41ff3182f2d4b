"""xfab-lab: build and drive netns Clos labs of xfab switches.

  xfab-lab up     TOPOLOGY [--datapath xdp|tc|kernel] [--routing static|kernel|bgp]
                  [--name LAB]
  xfab-lab down   TOPOLOGY [--name LAB]
  xfab-lab status TOPOLOGY [--name LAB]
  xfab-lab exec   TOPOLOGY NODE CMD...     (xfabctl finds the node's pins, vtysh
                                            its FRR daemons)
  xfab-lab ping   TOPOLOGY [--name LAB]    (all host pairs, IPv4 and IPv6)
  xfab-lab config TOPOLOGY [NODE [FILE]]   (print the generated xfabd config, or
                                            zebra|bgpd|bfdd|vtysh; without NODE the
                                            fabric: switches, ASNs, ports, addresses;
                                            NODE "fabric": the same as JSON, which
                                            `up` also writes to STATE/fabric.json)
  xfab-lab restart TOPOLOGY NODE [--how kill|request]
                                           (restart a switch's xfabd: SIGKILL and a
                                            new one, or `xfabctl restart`; the data
                                            plane forwards throughout)
  xfab-lab restart TOPOLOGY NODE --frr all|bgpd
                                           (restart a switch's FRR, zebra, bfdd and
                                            bgpd, or bgpd alone: SIGTERM, started
                                            again, returns once BGP has converged;
                                            graceful restart: a spine's loses nothing)

TOPOLOGY is a JSON file: the generator form (spines, leaves, hosts_per_leaf,
pods, superspines, planes, speeds) or nodes and links written out (role, ASN,
port speeds); see class Topology and docs/LAB.md. A bad file is refused, with
the entry named, before anything is built.

Every namespace is named LAB-NODE (LAB defaults to the topology's "name"), so
two labs coexist. `up` is idempotent and tears down whatever it built if any
step fails; `down` removes namespaces, pins, processes and state.

Datapath ("datapath" in the topology, or --datapath; default xdp): xdp or tc,
the two xfab data planes (an xfabd per switch); kernel, no xfabd at all: the
switches are Linux routers that forward with the routes (static, kernel or
FRR's), multipath hashed on the 5-tuple (fib_multipath_hash_policy 1), the
reference the experiments compare xfab with.

Routing ("routing" in the topology, or --routing; the shipped testbeds/*.json
say bgp, a file without the key means static):
  static  each switch's routes in its xfabd config (ROUTE) and, for what
          xfab punts, the same in the kernel
  kernel  the routes only in the kernel (protocol static), as a routing
          daemon would install them; xfabd mirrors them (FIB_SYNC)
  bgp     FRR (zebra, bgpd, bfdd) in every switch namespace, eBGP on every
          link as RFC 7938 has it (leaf l: AS 65100+l, the spines of pod p:
          AS 65000+p-1, super-spines: AS 64900; or the topology file's),
          BFD 100 ms x 3; zebra installs the routes (protocol bgp) and
          xfabd mirrors them (FIB_SYNC). Daemons, configs, pid files,
          sockets and logs live in STATE/NODE/ (STATE = /run/xfab-lab/LAB).
          `up` returns once BGP has converged: every session Established
          and every data plane holding every remote host prefix over all
          its paths (at most XFAB_LAB_BGP_TIMEOUT s, default 60; else it
          says which switch lacks what and tears the lab down).
"""
# The docstring above is xfab-lab --help's text (main gives it to argparse).
import argparse
import json
import os
import subprocess
import sys

from .common import LabError
from .lab import Lab
from .topology import Topology


def parse_args(argv):
    """xfab-lab's arguments; exec's command (everything after NODE, its
    options too) goes to rest untouched."""
    ap = argparse.ArgumentParser(prog="xfab-lab", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["up", "down", "status", "exec", "ping", "config",
                                        "restart"])
    ap.add_argument("topology")
    ap.add_argument("rest", nargs="*", help="exec: NODE CMD...; config: NODE [FILE]")
    ap.add_argument("--datapath", choices=["xdp", "tc", "kernel"])
    ap.add_argument("--routing", choices=["static", "kernel", "bgp"])
    ap.add_argument("--name", help="lab name (namespace prefix); default: the topology's name")
    ap.add_argument("--count", type=int, default=1, help="pings per pair")
    ap.add_argument("--how", choices=["kill", "request"], default="kill",
                    help="restart: SIGKILL and start anew, or xfabctl restart")
    ap.add_argument("--frr", choices=["all", "bgpd"],
                    help="restart: the switch's FRR daemons (all) or bgpd, not its xfabd")
    # exec: everything after NODE belongs to the command, options included.
    tail = []
    if argv[:1] == ["exec"]:
        positional, i = [], 0
        while i < len(argv) and len(positional) < 3:
            if argv[i] in ("--name", "--datapath", "--routing", "--count"):
                i += 2
                continue
            if not argv[i].startswith("-"):
                positional.append(i)
            i += 1
        if len(positional) == 3:  # exec TOPOLOGY NODE: the command follows NODE
            tail = argv[positional[2] + 1:]
            argv = argv[:positional[2] + 1]
    args = ap.parse_intermixed_args(argv)
    args.rest += tail
    return args


def config(topo, lab, rest):
    """xfab-lab config: the fabric (text or JSON), a switch's xfabd config,
    or one of its FRR files."""
    if not rest:
        sys.stdout.write(topo.describe())
        return 0
    if rest == ["fabric"]:
        print(json.dumps(topo.fabric(), indent=1))
        return 0
    if len(rest) not in (1, 2) or rest[0] not in topo.switches():
        raise LabError("config needs one switch name (%s) or fabric" %
                       ", ".join(topo.switches()))
    if len(rest) == 1:
        print(json.dumps(topo.switch_config(rest[0])[0], indent=2))
        return 0
    files = topo.frr_configs(rest[0], lab.frr_dir(rest[0]))
    name = rest[1] if rest[1].endswith(".conf") else rest[1] + ".conf"
    if name not in files:
        raise LabError("config FILE is one of zebra, bgpd, bfdd, vtysh")
    sys.stdout.write(files[name])
    return 0


def command(args):
    """Runs one command; its exit status."""
    topo = Topology(args.topology, name=args.name or os.environ.get("XFAB_LAB"),
                    datapath=args.datapath, routing=args.routing)
    lab = Lab(topo)
    if args.command == "up":
        lab.up()
        return 0
    if args.command == "down":
        lab.down()
        return 0
    if args.command == "status":
        return lab.status()
    if args.command == "ping":
        return lab.ping(args.count)
    if args.command == "restart":
        if len(args.rest) != 1:
            raise LabError("restart needs one switch name")
        if args.frr:
            lab.restart_routing(args.rest[0], args.frr)
        else:
            lab.restart(args.rest[0], args.how)
        return 0
    if args.command == "config":
        return config(topo, lab, args.rest)
    if len(args.rest) < 2:
        raise LabError("exec needs NODE and a command")
    return lab.exec_(args.rest[0], args.rest[1:])


def main():
    args = parse_args(sys.argv[1:])
    if os.geteuid() != 0 and args.command != "config":  # config only reads the file
        print("xfab-lab: run as root", file=sys.stderr)
        return 1
    try:
        return command(args)
    except BrokenPipeError:  # e.g. status | head: the reader is gone
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (LabError, OSError, subprocess.TimeoutExpired, json.JSONDecodeError) as e:
        print("xfab-lab: %s" % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
