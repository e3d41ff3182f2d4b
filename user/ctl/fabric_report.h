/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xfabctl fabric report: what its files share. fabric_collect.c reads the
 * pinned maps of every switch of a fabric (its pins directory from
 * fabric.json) into a snapshot; fabric_trace.c asks a switch's loaded
 * program where a flow goes; fabric_report.c is the command (what it
 * gathers), fabric_text.c, fabric_json.c and fabric_svg.c its outputs
 * (fabric_view.c: what they read). The arithmetic and the path walk are
 * the library's (fabric.h, fabsnap.h).
 */
#ifndef XFAB_CTL_FABRIC_REPORT_H
#define XFAB_CTL_FABRIC_REPORT_H

#include <linux/types.h>

#include "fabric.h"
#include "fabsnap.h"
#include "job.h"

#include <stdint.h>

#define N_TIERS 2 /* boundaries: leaf-spine (tier 1 below), spine-super (tier 2) */

/* One report: the fabric, its counters (since a snapshot or not), and a
 * job's paths; fabric_report.c fills it, fabric_text.c and fabric_json.c
 * print it. */
struct fab_report {
	const char *what; /* the command, for its messages: "fabric report" */
	struct xfab_fabric f;
	struct fab_port_map *pm;
	struct xfab_fab_snap cur;
	const char *since;
	double since_s;
	unsigned int resets;
	char reset_note[200];
	uint64_t *pkts[2], *bytes[2]; /* per link, per direction */
	/* what the far end of a switch-switch link took in (its rx): the
	 * sender's pkts less these were lost on the way (ctl_fab_link_loss) */
	uint64_t *rx_pkts[2];
	/* a job */
	const char *job_path;
	struct xfab_job job;
	struct xfab_job_flow *flows;
	size_t n_flows;
	int *src_host, *dst_host;
	struct xfab_fab_path *paths;
	uint64_t *qps[2], *job_bytes[2]; /* per link, per direction */
	unsigned int delivered;
	struct xfab_fab_tier_imb imb[N_TIERS][2], qp_imb[N_TIERS][2];
};

/* "up", "down"; "", "leaf-spine", "spine-super" */
extern const char *const ctl_fab_dir_names[2];
extern const char *const ctl_fab_tier_names[3];
/* The fabric's name of switch s, of its port p. */
const char *ctl_fab_sw_name(const struct fab_report *r, int s);
const char *ctl_fab_port_of(const struct fab_report *r, int s, int p);

/* Frames lost on link l in direction d: what the sending port counted
 * out (tx) less what the receiving port counted in (rx), 0 when it took in
 * more (its own kernel's chatter); frac: lost / sent. 1 when measured, 0
 * for a link to a host (a host counts nothing). */
int ctl_fab_link_loss(const struct fab_report *r, unsigned int l, int d, uint64_t *lost,
		      double *frac);

/* Sums of the per-class counters that tell of trouble. */
struct fab_trouble {
	uint64_t ecn, q_dropped, pfc_rx, pfc_tx, pauses, paused_ns, drops, drop_bytes;
};
void ctl_fab_trouble_sums(const struct fab_report *r, struct fab_trouble *t);

/* The report as text (fabric_text.c) or JSON (fabric_json.c). */
void ctl_fab_text_report(const struct fab_report *r);
void ctl_fab_json_report(const struct fab_report *r);

/* A suspect link, by the fabric's switch and port index of one end, and
 * why it is suspected (shown on the drawing). */
struct fab_svg_mark {
	unsigned int sw, port;
	const char *why;
};
/* The report drawn as a standalone SVG file at path (fabric_svg.c): tiers
 * as rows, every link coloured by its utilisation each way, lossy links
 * dashed, the n marks outlined, a job's QP paths overlaid. 0, or -1 with a
 * message on stderr naming the path (and errno, or the bad mark). */
int ctl_fab_svg_write(const struct fab_report *r, const struct fab_svg_mark *marks, unsigned int n,
		      const char *path);

/* A switch's port table (xfabd's `ports` map) by the fabric's port index. */
struct fab_port_map {
	struct {
		int found; /* the table has a port of this name */
		__u32 ifindex;
		__u16 slot;
		__u8 mac[6];
	} port[XFAB_FAB_MAX_PORTS];
};

/* The fabric named by --fabric FILE or --lab NAME into f: 0, or after
 * saying why (what: the command) 2 for a usage error or a bad file, 1 for a
 * lab that is not up. */
struct ctl_opts;
int ctl_fab_load(const struct ctl_opts *o, struct xfab_fabric *f, const char *what);
/* Every QP of r->job (loaded, with r->f, r->pm, r->qps and r->job_bytes
 * filled or allocated): its path as each switch decides, and what each link
 * carries of the job. 0, 1 (out of memory, said), 2 (a job not of this
 * fabric, said). */
int ctl_fab_job_paths(struct fab_report *r);
/* The per-link arrays (pkts, bytes, rx_pkts, qps, job_bytes; those still
 * NULL) for r->f's links: 0, or -1 out of memory. */
int ctl_fab_report_arrays(struct fab_report *r);
/* Each link's packets and bytes each way, and what the far end took in,
 * from r->cur (the counters, or what changed since a snapshot). */
void ctl_fab_link_figures(struct fab_report *r);
/* Frees what a report holds (fields NULL or allocated). */
void ctl_fab_report_free(struct fab_report *r);

/* Reads every switch's port table and counters into s (initialised by the
 * caller) and pm (one per switch); -1 with why in err (a switch not
 * pinned, pins of another ABI, a map missing). */
int ctl_fab_collect(const struct xfab_fabric *f, struct fab_port_map *pm, struct xfab_fab_snap *s,
		    char *err, size_t errlen);

/*
 * Reads again the port counters of both ends of every switch-to-switch link
 * of s (read by ctl_fab_collect, pm from it) in an order that keeps the skew
 * between the two ends on the side of arrival. The opening (queued NULL):
 * link by link, the receiving end's rx before the sending end's tx. The
 * closing: every link's tx (and the bytes each link port has queued then,
 * into queued: XFAB_DOC_QUEUED, n_switches rows of XFAB_FAB_MAX_PORTS),
 * 10 ms for what was sent to land, then every rx. A frame sent in the
 * window is then counted as received in it unless it was lost, so reading
 * the ends at different instants never makes a clean link look lossy
 * (fabdoctor.h); it can hide what arrived meanwhile. 0, or -1 with why in
 * err.
 */
int ctl_fab_collect_links(const struct xfab_fabric *f, const struct fab_port_map *pm,
			  struct xfab_fab_snap *s, uint64_t *queued, char *err, size_t errlen);

/* Per-switch decisions from each switch's pinned trace program. */
struct fab_tracer;
struct fab_tracer *ctl_fab_tracer_new(const struct xfab_fabric *f, const struct fab_port_map *pm);
void ctl_fab_tracer_free(struct fab_tracer *t);
/* The flow the next decisions are about. */
void ctl_fab_tracer_flow(struct fab_tracer *t, const struct xfab_job_flow *flow);
/* An xfab_fab_decide_fn; ctx is a fab_tracer. */
int ctl_fab_trace_decide(void *ctx, struct xfab_fab_hop *hop, char *why, size_t whylen);

#endif
