/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the files of the TE computation share among themselves, not with
 * its users (they include te.h): the demand (te_demand.c), the candidate
 * paths (te_paths.c), the pins' key table and their output (te_pins.c)
 * and the placement (te_plan.c), over the model of te_fabric.c.
 */
#ifndef XFAB_TE_INT_H
#define XFAB_TE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"
#include "te.h"

/* "line:col: what" into err (no position: "what"); returns -1. */
int xfab_te_err(char *err, size_t errlen, const struct json_pos *pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The host with this address; -1 when none. */
int xfab_te_host_by_addr(const struct xfab_te_fabric *f, struct in_addr a);

/* A candidate path: the switches from the source leaf to the destination
 * leaf, the ports in and out of each, the directed links between, and
 * which hops are choices (pins). */
struct xfab_te_cand {
	int n;
	int sw[XFAB_TE_MAX_HOPS], in[XFAB_TE_MAX_HOPS], out[XFAB_TE_MAX_HOPS];
	int dl[XFAB_TE_MAX_HOPS - 1];
	unsigned pin_mask; /* bit i: the switch at hop i has a choice here */
};

/* reach ([XFAB_TE_MAX_TIERS][n_switches]): which switches reach leaf dst
 * going down, by the number of hops; a pair's paths to that leaf need it. */
void xfab_te_down_reach(const struct xfab_te_fabric *f, int dst, unsigned char *reach);
/* The shortest valley-free paths of the pair src -> dst (hosts) into out,
 * in port order, with reach the destination leaf's and good a scratch of
 * reach's size: 0 with their number in *n_out (0 when the topology joins
 * none), -1 when there are more than max_out. */
int xfab_te_paths(const struct xfab_te_fabric *f, int src, int dst, const unsigned char *reach,
		  unsigned char *good, struct xfab_te_cand *out, size_t max_out, size_t *n_out);

/* Pins as they are fixed: (switch, ingress, prefix) -> the pin's index. */
struct xfab_te_keytab {
	uint64_t *key;
	int *pin; /* index into the plan's pins; -1 empty */
	size_t n, n_slots;
};

static inline uint64_t xfab_te_pin_key(int sw, int in, int prefix_id)
{
	return (uint64_t)(uint32_t)sw << 40 | (uint64_t)(uint32_t)in << 24 | (uint32_t)prefix_id;
}

/* The pin of key k, -1 when none. */
int xfab_te_keytab_find(const struct xfab_te_keytab *t, uint64_t k);
int xfab_te_keytab_put(struct xfab_te_keytab *t, uint64_t k, int pin);
void xfab_te_keytab_free(struct xfab_te_keytab *t);
/* The plan's pins as it hands them out: those no pair holds any more
 * dropped, the rest in key order (switch, ingress port, prefix). */
void xfab_te_pins_finish(struct xfab_te_plan *plan);

#endif
