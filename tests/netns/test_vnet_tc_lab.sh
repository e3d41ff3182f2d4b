#!/bin/bash
# The VXLAN overlay lab (test_vnet_lab.sh) on the tc datapath: the same
# checks, and the wire format captured on the spines' links too (tc's
# redirected packets pass the capture point XDP's skip).
XFAB_DATAPATH=tc exec "$(dirname "$0")/test_vnet_lab.sh"
