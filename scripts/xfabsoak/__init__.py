"""xfabsoak: the code of scripts/soak (its command; the usage is in
xfabsoak/cli.py, shown by --help):

  common     the wire format, fault kinds, judging limits, SoakError, log
  traffic    the traffic's ends in the hosts (soak _send, soak _recv)
  base       the lab and the commands into it (SoakBase)
  flows      starting, stopping and sampling the traffic (Flows)
  faults     the faults, their checks and their schedule (Faults)
  attribute  losses to faults and unplanned session drops (Attribution)
  checks     memory, FIB against data plane, tear-down (Checks)
  run        Soak: the parts together, the run and its report
  cli        the command line

Each module uses only those listed before it; the lab is xfab-lab's
package, xfablab, and lab_common's paths."""
from .cli import main

__all__ = ["main"]
