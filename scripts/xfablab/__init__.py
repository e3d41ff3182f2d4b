"""xfablab: the code of xfab-lab (scripts/xfab-lab is its command), for the
scripts that drive labs themselves (soak, the experiments, the tests):

  topology  a topology file read into a graph of nodes and links (Topology),
            with what is derived from it in plan, tenants, describe,
            swconfig and frrconf
  lab       a Topology in network namespaces (Lab), with build (up), frr
            (FRR's daemons), commands (restart, status, exec, ping) and
            cleanup (down, and up's named steps)
  cli       the command line

The layers go one way: common and model under everything, the Topology's
parts under topology, the Lab's parts under lab, cli on top."""
from .cli import main
from .common import BUILD, CTL_BASE, PIN_BASE, ROOT, STATE_ROOT, LabError, run
from .lab import Lab
from .topology import Topology

__all__ = ["BUILD", "CTL_BASE", "PIN_BASE", "ROOT", "STATE_ROOT", "Lab", "LabError", "Topology",
           "main", "run"]
