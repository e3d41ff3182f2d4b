"""The Lab: a Topology brought to life in network namespaces. It is made of
parts that each do one job, each using only those before it:

  base      where the lab's parts are: namespaces, state, pins, pids
  cleanup   down (and up's named steps)
  frr       FRR's daemons started, BGP converged
  build     up
  commands  restart, status, exec, ping"""
from .base import LabBase
from .build import Builder
from .cleanup import Cleanup
from .commands import Commands
from .frr import FrrDaemons


class Lab(Commands, Builder, FrrDaemons, Cleanup, LabBase):
    """A lab of one Topology: its namespaces LAB-NODE, state in
    STATE_ROOT/LAB, pins in PIN_BASE/LAB (Lab(topology))."""
