"""xfablab: the code of xfab-lab (scripts/xfab-lab is its command), for the
scripts that drive labs themselves (soak, the experiments, the tests):

  common    paths, defaults, LabError, run
  signals   the scripts' signals into an exit through their clean-up
  model     roles, limits, Node, Link, Graph (names by role)
  topology  a topology file read into the graph (Topology), made of
            tenants, plan, swconfig, frrconf, sonicfrr and describe
  lab       a Topology in network namespaces (Lab), made of base (where
            its parts are), cleanup (down, up's named steps), frr (FRR's
            daemons), build (up) and commands (restart, status, exec, ping)
  cli       the command line

The layers go one way, each using only those listed before it (topology's
and lab's parts in their own docstrings' order): no import or call goes
back up."""
from .cli import main
from .common import BUILD, CTL_BASE, PIN_BASE, ROOT, STATE_ROOT, LabError, run
from .lab import Lab
from .topology import Topology

__all__ = ["BUILD", "CTL_BASE", "PIN_BASE", "ROOT", "STATE_ROOT", "Lab", "LabError", "Topology",
           "main", "run"]
