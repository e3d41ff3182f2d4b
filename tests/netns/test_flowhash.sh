#!/bin/bash
# The Python flow-hash oracle (scripts/xfablab/flowhash.py, written from
# include/xfab_hash.h's specification, used by test_vnet_lab.sh and
# scripts/lb-experiments) against worked examples written out by hand in
# tests/netns/flowhash_examples.py: splitmix64's and FNV-1a's published
# values, the keys of a seed, an IPv4, an IPv6, a symmetric and an E-ECMP
# flow's sums step by step, their buckets, tunnel endpoint and outer
# source port. tests/bpf/test_hash.c checks the data plane and the header
# against the same numbers, fuzz_packets.c the fuzz model. No root, no
# namespace; a second.
# mutate: scripts/xfablab/flowhash.py; labs:
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
"$PY" "$(dirname "$0")/flowhash_examples.py"
rc=$?
[ "$rc" -eq 0 ] || echo "not ok - the worked examples (exit $rc)"
exit "$rc"
