"""xfabbench: the code of scripts/bench (its command; the usage is in
xfabbench/cli.py, shown by --help):

  common     paths, the namespaces' names and addresses, sh, machine, stats
  config     xfabd's config of each variant
  netns      the namespaces and programs (topology, teardown)
  measure    the sink's rate, ns per packet, the labs' bring-up
  lean       the lean reference ECMP forwarder's tables
  modes      the configurations a round measures (Mode, modes, CONTROL)
  multicore  the multi-core scenarios and their section
  events     the control plane's benchmarks (compile, route sync), splicing
  stages     the stage builds' table and the stages' prices
  targets    issue 15's and issue 31's targets
  report     docs/PERFORMANCE.md from a run
  cli        the command line

Each module uses only those listed before it."""
from .cli import main

__all__ = ["main"]
