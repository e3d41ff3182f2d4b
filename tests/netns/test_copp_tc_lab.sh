#!/bin/bash
# The CoPP flood test (test_copp_lab.sh) on the tc datapath: the same checks,
# the transit pings beside the tenth-rate flood among them (issue 33: the
# flood test judges transit loss on both datapaths).
XFAB_COPP_DATAPATH=tc exec "$(dirname "$0")/test_copp_lab.sh"
