#!/bin/bash
# netns tests of queues and ECN in a clos-2x4 lab (scripts/ecn-experiments):
# tc-datapath TCP incast with ECN on and off, xdp phantom-queue marking
# below and above the port rate.
exec "$(dirname "$0")/run_experiments.sh" ecn-experiments ecn incast xdp
