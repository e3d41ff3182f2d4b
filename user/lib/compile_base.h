/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The base tables, part of user/lib/compile.c: the tables that do not hang
 * off routes (settings, ports, tx ports, static neighbours, the DSCP map,
 * queues). They are small, so a config load builds them whole from the
 * config and the live ports and writes the difference from the image it
 * wrote before: new and changed entries first, then removals.
 */
#ifndef XFAB_COMPILE_BASE_H
#define XFAB_COMPILE_BASE_H

#include <stddef.h>

#include "config.h"
#include "maps.h"

/* One table: a sorted array of fixed-size {key, value} entries (the layout
 * of struct xfab_e_*). */
struct xfab_table_image {
	void *entries;
	size_t count;
};

/* The base tables' image; the route tables, nexthops and groups stay empty. */
struct xfab_base {
	struct xfab_table_image t[XFAB_T_COUNT];
};

/* One build: what the features' build steps (struct xfab_feature) read
 * and the image they add to. */
struct xfab_base_build {
	const struct xfab_config *cfg;
	const struct xfab_port_live *live;
	struct xfab_base *next;
	size_t cap[XFAB_T_COUNT]; /* of each table's entries */
};

/* A zeroed entry appended to table t of b's image; NULL: out of memory
 * (base_image.c). */
void *xfab_base_push(struct xfab_base_build *b, enum xfab_table t);

/* Every feature's build step, in registry order (user/lib/feature.c). */
int xfab_base_build(const struct xfab_config *cfg, const struct xfab_port_live *live,
		    struct xfab_base *next);
void xfab_base_free(struct xfab_base *t); /* base_image.c */
/* The registered features' build steps (base_tables.c); 0 or -ENOMEM. */
/* 1 if port p's egress has a queue the queue stage judges (XFAB_PORT_QUEUED) */
int xfab_port_queued(const struct xfab_config *cfg, int p);
int xfab_build_device(struct xfab_base_build *b);  /* settings, ports, tx ports */
int xfab_build_neighs(struct xfab_base_build *b);  /* static neighbours */
int xfab_build_qos(struct xfab_base_build *b);	   /* DSCP map, queues */
int xfab_build_pfc(struct xfab_base_build *b);	   /* lossless classes */
int xfab_build_overlay(struct xfab_base_build *b); /* VTEP, VNETs, tunnels */
int xfab_build_copp(struct xfab_base_build *b);	   /* CoPP meters */

/* Writes the difference prev -> next. Returns 0 or the first error. */
int xfab_base_apply(const struct xfab_base *prev, const struct xfab_base *next,
		    const struct xfab_map_ops *ops);

#endif
