/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fabric doctor's analysis (`xfabctl fabric doctor`): which links lose
 * or damage frames, from two snapshots of every switch's counters taken a
 * window apart (fabsnap.h). No BPF, no I/O: unit-tested on planted
 * snapshots (tests/unit/test_fabdoctor.c).
 *
 * Per switch-to-switch link and direction (a host is not a switch: its
 * links have one counting end only):
 *  - sent: the sending port's tx_packets (what xfab forwarded out of it);
 *  - arrived: the receiving port's rx_packets less its punts (frames for
 *    the switch's own kernel: BGP, BFD, ARP from the peer's kernel, which
 *    the sender's xfab did not count as sent);
 *  - in flight: frames the sender counted as sent that were still in its
 *    egress queue when the window closed (its queues' occupancy in bytes
 *    then, over the window's mean frame size, rounded up): they arrive in
 *    the next window, not never;
 *  - lost = sent - arrived - in flight when positive: frames that left one
 *    end and never reached the other (the wire, the optics);
 *  - damaged: the receiving switch's drops by a reason that means a
 *    damaged frame (xfab_doc_damage_reason: bad checksum, bad length,
 *    truncated...). drop_stats counts reasons per switch, port_stats counts
 *    drops per port; a port's share of the switch's damage is bounded:
 *    at most min(damage, its drops), at least damage less every other
 *    port's drops. The rule uses the lower bound: no port is blamed for
 *    damage another port may have seen.
 *
 * The rule: a direction is suspect when bad = lost + damaged (lower bound)
 * is at least min_bad frames and the lower end of its rate's interval,
 * rank = (bad - 3 sqrt(bad)) / sent (a Poisson count's 3-sigma low end),
 * is above the threshold: the loss is then above the threshold beyond the
 * count's noise, and beyond a few frames counted late (the reader keeps
 * the skew between two ends' reads on the side of hiding loss, but a frame
 * slower than its settle time looks lost; docs/DEBUGGING.md "fabric
 * doctor" has the reasoning and the measurements). The low end is 0 up to
 * 9 frames, so the default floor of 10 adds nothing to it; a higher
 * --min-frames does. Suspects rank by the same low end, so a few frames
 * lost out of few sent do not outrank a steady loss on a busy link.
 */
#ifndef XFAB_FABDOCTOR_H
#define XFAB_FABDOCTOR_H

#include <stddef.h>
#include <stdint.h>

#include "fabric.h"
#include "fabsnap.h"

#define XFAB_DOC_THRESHOLD_DEFAULT 0.001 /* 0.1 % */
#define XFAB_DOC_MIN_BAD_DEFAULT 10	 /* frames; see the rule above */

struct xfab_doc_opts {
	double threshold; /* a fraction: 0.001 is 0.1 % */
	uint64_t min_bad;
};

/* One direction of one switch-to-switch link over the window. */
struct xfab_doc_dir {
	unsigned int link;
	enum xfab_fab_dir dir;
	int tx_sw, tx_port, rx_sw, rx_port;
	uint64_t sent, arrived, in_flight, lost;
	uint64_t damaged_lo, damaged_hi;
	uint64_t bad;		 /* lost + damaged_lo */
	double rate;		 /* bad / sent; 0 when nothing was sent */
	double rank;		 /* (bad - 3 sqrt(bad)) / sent, at least 0 */
	uint64_t damage_reasons; /* bit r: damage reason r counted at rx_sw */
	/* secondary evidence: at the sender's port, ECN marks and queue drops
	 * of its egress queues and PFC frames it received; at the receiver's,
	 * PFC frames it sent */
	uint64_t ecn_marked, q_dropped, pfc_rx, pfc_tx;
	int suspect;
};

struct xfab_doc_result {
	double window_s;     /* after.time - before.time */
	unsigned int resets; /* counters lower after than before (cleared) */
	char reset_note[200];
	unsigned int n_dirs;
	struct xfab_doc_dir *dirs; /* two per switch-to-switch link, link order */
	unsigned int n_suspects;
	unsigned int *ranked; /* the suspects' indices into dirs, most evident first */
};

/* 1 when drop reason r means the frame arrived damaged. */
int xfab_doc_damage_reason(unsigned int r);

/* Bytes queued at each port's egress when the window closed (every
 * class), by switch and port: queued[sw * XFAB_FAB_MAX_PORTS + port]. */
#define XFAB_DOC_QUEUED(queued, sw, port) ((queued)[(size_t)(sw)*XFAB_FAB_MAX_PORTS + (port)])

/* Compares after with before (snapshots of fabric f; queued as above, or
 * NULL: nothing queued); 0, or -1 when out of memory (out is then empty).
 * xfab_doc_result_free() frees it. */
int xfab_doc_analyse(const struct xfab_fabric *f, const struct xfab_fab_snap *before,
		     const struct xfab_fab_snap *after, const uint64_t *queued,
		     const struct xfab_doc_opts *o, struct xfab_doc_result *out);
void xfab_doc_result_free(struct xfab_doc_result *r);

/* The evidence in words: "leaf2 eth1 -> spine1 eth2: sent 100,000, received
 * 98,990, lost 1,010 (1.01 %)", and the damage when there is some. */
void xfab_doc_why(const struct xfab_fabric *f, const struct xfab_doc_dir *d, char *buf, size_t len);
/* n with a comma every three digits. */
void xfab_doc_count(uint64_t n, char *buf, size_t len);

#endif
