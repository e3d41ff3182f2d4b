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

int xfab_base_build(const struct xfab_config *cfg, const struct xfab_port_live *live,
		    struct xfab_base *next);
void xfab_base_free(struct xfab_base *t);
/* Writes the difference prev -> next. Returns 0 or the first error. */
int xfab_base_apply(const struct xfab_base *prev, const struct xfab_base *next,
		    const struct xfab_map_ops *ops);

#endif
