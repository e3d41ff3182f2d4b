/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xfabctl fabric report: what its files share. fabric_collect.c reads the
 * pinned maps of every switch of a fabric (its pins directory from
 * fabric.json) into a snapshot; fabric_trace.c asks a switch's loaded
 * program where a flow goes; fabric_report.c is the command and its
 * output. The arithmetic and the path walk are the library's (fabric.h,
 * fabsnap.h).
 */
#ifndef XFAB_CTL_FABRIC_REPORT_H
#define XFAB_CTL_FABRIC_REPORT_H

#include "fabric.h"
#include "fabsnap.h"
#include "job.h"

/* A switch's port table (xfabd's `ports` map) by the fabric's port index. */
struct fab_port_map {
	struct {
		int found; /* the table has a port of this name */
		__u32 ifindex;
		__u16 slot;
		__u8 mac[6];
	} port[XFAB_FAB_MAX_PORTS];
};

/* Reads every switch's port table and counters into s (initialised by the
 * caller) and pm (one per switch); -1 with why in err (a switch not
 * pinned, pins of another ABI, a map missing). */
int fab_collect(const struct xfab_fabric *f, struct fab_port_map *pm, struct xfab_fab_snap *s,
		char *err, size_t errlen);

/* Per-switch decisions from each switch's pinned trace program. */
struct fab_tracer;
struct fab_tracer *fab_tracer_new(const struct xfab_fabric *f, const struct fab_port_map *pm);
void fab_tracer_free(struct fab_tracer *t);
/* The flow the next decisions are about. */
void fab_tracer_flow(struct fab_tracer *t, const struct xfab_job_flow *flow);
/* An xfab_fab_decide_fn; ctx is a fab_tracer. */
int fab_trace_decide(void *ctx, struct xfab_fab_hop *hop, char *why, size_t whylen);

#endif
