#!/bin/bash
# netns tests of load balancing in a clos-2x4 lab (scripts/lb-experiments):
# E-ECMP balance, flowlet reordering against the path-delay difference,
# failover mid-traffic.
exec "$(dirname "$0")/run_experiments.sh" lb-experiments lb balance flowlets failover
