/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The counters of every switch of a fabric at one moment (a snapshot):
 * per port the port, queue and PFC counters, per switch the drops by
 * reason. `xfabctl fabric report` reads one from the pinned maps; this file
 * is what needs no BPF: the difference of two (so a report covers one run
 * only), and a snapshot saved to a file and read back (--save, --since).
 *
 * The file (JSON): {"xfab_fabric_snapshot": 1, "fabric": NAME, "time": UNIX_S,
 *   "switches": {SW: {"ports": {PORT: {"rx_packets": N, ..., "ecn_marked": [8 N], ...}},
 *                     "drops": {REASON: [PACKETS, BYTES], ...}}}}
 */
#ifndef XFAB_FABSNAP_H
#define XFAB_FABSNAP_H

#include <stdio.h>

#include "fabric.h"

#define XFAB_FAB_NUM_TC 8
#define XFAB_FAB_MAX_REASONS 64

/* Every field a u64 counter (the difference and the file go field by
 * field through fabsnap.c's table of them). */
struct xfab_fab_port_ctr {
	uint64_t rx_packets, rx_bytes, tx_packets, tx_bytes, drops, punts;
	uint64_t q_packets[XFAB_FAB_NUM_TC], q_bytes[XFAB_FAB_NUM_TC];
	uint64_t ecn_marked[XFAB_FAB_NUM_TC], q_dropped[XFAB_FAB_NUM_TC];
	uint64_t pfc_rx[XFAB_FAB_NUM_TC], pfc_tx[XFAB_FAB_NUM_TC]; /* pause frames */
	uint64_t paused_ns[XFAB_FAB_NUM_TC], pauses[XFAB_FAB_NUM_TC];
};

struct xfab_fab_sw_ctr {
	/* by the fabric's port index; in_table: the switch's own port table
	 * has the port (a port it lacks counts nothing) */
	unsigned char in_table[XFAB_FAB_MAX_PORTS];
	struct xfab_fab_port_ctr ports[XFAB_FAB_MAX_PORTS];
	uint64_t drop_packets[XFAB_FAB_MAX_REASONS], drop_bytes[XFAB_FAB_MAX_REASONS];
};

struct xfab_fab_snap {
	char fabric[64];
	double time; /* CLOCK_REALTIME, seconds */
	unsigned int n_switches;
	struct xfab_fab_sw_ctr *sw; /* by the fabric's switch index */
};

/* A zeroed snapshot for fabric f; 0 or -1 (out of memory). */
int xfab_fab_snap_init(struct xfab_fab_snap *s, const struct xfab_fabric *f);
void xfab_fab_snap_free(struct xfab_fab_snap *s);

/*
 * cur becomes cur - base, counter by counter. A counter lower than in base
 * was reset since (cleared, or its maps made anew): as Prometheus's rate()
 * does, its whole value counts. Returns the number of such counters; the
 * first is named in note ("leaf1 eth1 tx_bytes 500 < 900").
 */
unsigned int xfab_fab_snap_delta(struct xfab_fab_snap *cur, const struct xfab_fab_snap *base,
				 const struct xfab_fabric *f, char *note, size_t notelen);

/* Writes s as JSON; 0 or -1 (a write error). */
int xfab_fab_snap_save(const struct xfab_fab_snap *s, const struct xfab_fabric *f, FILE *out);
/* Reads a snapshot of fabric f from path into s (initialised here): -1 with
 * "path:line:col: where: what" in err for a file that is not one, is of
 * another fabric, or names a switch, port or reason f does not have. */
int xfab_fab_snap_load(const char *path, const struct xfab_fabric *f, struct xfab_fab_snap *s,
		       char *err, size_t errlen);

#endif
