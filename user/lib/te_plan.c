// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* TE's placement: greedy, largest demand first, then moves off the most
 * loaded link (te.h, docs/TE.md). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "te_int.h"

static int by_demand(const void *a, const void *b)
{
	const struct xfab_te_pair *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

/* Relative tolerance of load comparisons (loads scaled by link speeds are
 * not whole numbers). */
static int less(double a, double b)
{
	double mag = b < 0 ? -b : b;

	return a < b - 1e-9 * (mag > 1.0 ? mag : 1.0);
}

struct placer {
	const struct xfab_te_fabric *f;
	struct xfab_te_plan *plan;
	struct xfab_te_keytab keys;
	size_t pin_cap;
	unsigned char *reach_of; /* per destination leaf, computed once: [leaf][level][switch] */
	unsigned char *reach_done;
	unsigned char *good;
	struct xfab_te_cand *cands; /* the pair at hand's candidates */
	size_t n_cands;
	struct xfab_te_cand *taken; /* per pair: the path it holds */
	int *pin_of;		    /* per pair and hop: the pin it holds there, -1 none */
};

/* Whether c agrees with every pin in force for prefix_id (a pin no pair
 * holds any more is in force for nobody). */
static int consistent(const struct placer *pl, const struct xfab_te_cand *c, int prefix_id)
{
	const struct xfab_te_pin *pins = pl->plan->pins;

	for (int i = 0; i < c->n; i++) {
		int pin;

		if (!(c->pin_mask & 1u << i))
			continue;
		pin =
		    xfab_te_keytab_find(&pl->keys, xfab_te_pin_key(c->sw[i], c->in[i], prefix_id));
		if (pin >= 0 && pins[pin].pairs > 0 && pins[pin].out != c->out[i])
			return 0;
	}
	return 1;
}

static int live(const struct xfab_te_fabric *f, const struct xfab_te_cand *c)
{
	for (int i = 0; i < c->n - 1; i++)
		if (!xfab_te_link_up(f, c->dl[i] / 2))
			return 0;
	return 1;
}

/* Pair idx onto c: its loads on the links, its pins held (made, or taken
 * over from no pair); the pair records the path. */
static int take(struct placer *pl, size_t idx, const struct xfab_te_cand *c)
{
	const struct xfab_te_fabric *f = pl->f;
	struct xfab_te_plan *plan = pl->plan;
	struct xfab_te_pair *pr = &plan->pairs[idx];
	const struct xfab_te_host *dst = &f->hosts[pr->dst];
	int *held = &pl->pin_of[idx * XFAB_TE_MAX_HOPS];

	for (int i = 0; i < c->n - 1; i++)
		plan->load[c->dl[i]] += (double)pr->bytes * f->links[c->dl[i] / 2].scale;
	pr->state = XFAB_TE_PLACED;
	pr->n_hops = c->n;
	memcpy(pr->sw, c->sw, sizeof(pr->sw));
	memcpy(pr->in, c->in, sizeof(pr->in));
	memcpy(pr->out, c->out, sizeof(pr->out));
	memcpy(pr->dlink, c->dl, sizeof(pr->dlink));
	pl->taken[idx] = *c;
	for (int i = 0; i < XFAB_TE_MAX_HOPS; i++)
		held[i] = -1;
	for (int i = 0; i < c->n; i++) {
		uint64_t k = xfab_te_pin_key(c->sw[i], c->in[i], dst->prefix_id);
		const struct xfab_te_port *out = &f->sw[c->sw[i]].ports[c->out[i]];
		struct xfab_te_pin *p;
		int pin;

		if (!(c->pin_mask & 1u << i))
			continue;
		pin = xfab_te_keytab_find(&pl->keys, k);
		if (pin < 0) {
			if (plan->n_pins == pl->pin_cap) {
				size_t cap = pl->pin_cap ? pl->pin_cap * 2 : 64;
				struct xfab_te_pin *grown =
				    realloc(plan->pins, cap * sizeof(*grown));

				if (!grown)
					return -ENOMEM;
				plan->pins = grown;
				pl->pin_cap = cap;
			}
			pin = (int)plan->n_pins++;
			memset(&plan->pins[pin], 0, sizeof(plan->pins[pin]));
			if (xfab_te_keytab_put(&pl->keys, k, pin))
				return -ENOMEM;
		}
		p = &plan->pins[pin];
		if (!p->pairs) { /* new, or held by no pair any more: this path's */
			p->sw = c->sw[i];
			p->in = c->in[i];
			p->out = c->out[i];
			p->dst_host = pr->dst;
			p->prefix = dst->net;
			p->plen = dst->plen;
			p->via = f->sw[out->peer_sw].ports[out->peer_port].addr;
		}
		p->pairs++;
		p->bytes += pr->bytes;
		held[i] = pin;
	}
	return 0;
}

/* Pair idx off its path: loads and pins given back. */
static void untake(struct placer *pl, size_t idx)
{
	const struct xfab_te_fabric *f = pl->f;
	struct xfab_te_plan *plan = pl->plan;
	struct xfab_te_pair *pr = &plan->pairs[idx];
	const struct xfab_te_cand *c = &pl->taken[idx];
	int *held = &pl->pin_of[idx * XFAB_TE_MAX_HOPS];

	for (int i = 0; i < c->n - 1; i++)
		plan->load[c->dl[i]] -= (double)pr->bytes * f->links[c->dl[i] / 2].scale;
	for (int i = 0; i < XFAB_TE_MAX_HOPS; i++)
		if (held[i] >= 0) {
			plan->pins[held[i]].pairs--;
			plan->pins[held[i]].bytes -= pr->bytes;
			held[i] = -1;
		}
	pr->state = XFAB_TE_NO_PATH;
}

/* The pair's candidates (the whole topology's shortest paths) into
 * pl->cands; -1 with err past XFAB_TE_MAX_PATHS. */
static int candidates(struct placer *pl, const struct xfab_te_pair *pr, char *err, size_t errlen)
{
	const struct xfab_te_fabric *f = pl->f;
	int b = f->hosts[pr->dst].leaf;
	size_t tiers = (size_t)XFAB_TE_MAX_TIERS * (size_t)f->n_switches;
	unsigned char *reach = pl->reach_of + (size_t)b * tiers;

	if (!pl->reach_done[b]) {
		xfab_te_down_reach(f, b, reach);
		pl->reach_done[b] = 1;
	}
	if (xfab_te_paths(f, pr->src, pr->dst, reach, pl->good, pl->cands, XFAB_TE_MAX_PATHS,
			  &pl->n_cands))
		return xfab_te_err(err, errlen, NULL, "%s -> %s: more than %d candidate paths",
				   f->hosts[pr->src].name, f->hosts[pr->dst].name,
				   XFAB_TE_MAX_PATHS);
	return 0;
}

/* Of pl->cands, the live one that agrees with the pins in force whose most
 * loaded link, with the pair added, is least loaded (then the smaller sum,
 * then the first found); -1 when none. *worst_out: that link's load. */
static int best_candidate(const struct placer *pl, const struct xfab_te_pair *pr, double *worst_out)
{
	const struct xfab_te_fabric *f = pl->f;
	double best_max = 0, best_sum = 0;
	int best = -1;

	for (size_t i = 0; i < pl->n_cands; i++) {
		const struct xfab_te_cand *c = &pl->cands[i];
		double worst = 0, sum = 0;

		if (!live(f, c) || !consistent(pl, c, f->hosts[pr->dst].prefix_id))
			continue;
		for (int h = 0; h < c->n - 1; h++) {
			double after = pl->plan->load[c->dl[h]] +
				       (double)pr->bytes * f->links[c->dl[h] / 2].scale;

			sum += after;
			if (after > worst)
				worst = after;
		}
		if (best < 0 || less(worst, best_max) ||
		    (!less(best_max, worst) && less(sum, best_sum))) {
			best = (int)i;
			best_max = worst;
			best_sum = sum;
		}
	}
	*worst_out = best_max;
	return best;
}

static int place(struct placer *pl, size_t idx, char *err, size_t errlen)
{
	struct xfab_te_pair *pr = &pl->plan->pairs[idx];
	double worst;
	int best;

	if (pl->f->hosts[pr->src].leaf == pl->f->hosts[pr->dst].leaf) {
		pr->state = XFAB_TE_SAME_LEAF;
		return 0;
	}
	pr->state = XFAB_TE_NO_PATH;
	if (candidates(pl, pr, err, errlen))
		return -1;
	for (size_t i = 0; i < pl->n_cands; i++)
		pr->candidates += live(pl->f, &pl->cands[i]);
	best = best_candidate(pl, pr, &worst);
	if (best >= 0 && take(pl, idx, &pl->cands[best]))
		return xfab_te_err(err, errlen, NULL, "out of memory");
	return 0;
}

/* Whether pair idx shares a pin with another pair. Such a pair is left
 * where it is: a move could only follow the shared pin (consistent()),
 * and shared pins stay stable from plan to plan. */
static int shares_a_pin(const struct placer *pl, size_t idx)
{
	const int *held = &pl->pin_of[idx * XFAB_TE_MAX_HOPS];

	for (int i = 0; i < XFAB_TE_MAX_HOPS; i++)
		if (held[i] >= 0 && pl->plan->pins[held[i]].pairs > 1)
			return 1;
	return 0;
}

static int crosses(const struct xfab_te_pair *pr, int dlink)
{
	for (int i = 0; i < pr->n_hops - 1; i++)
		if (pr->dlink[i] == dlink)
			return 1;
	return 0;
}

/*
 * After the greedy pass: while some pair on the most loaded link has
 * another path whose most loaded link, with the pair on it, stays below
 * that load, the first such pair (in placement order) moves there. Each
 * move lowers the top load or the number of links at it, so this ends; it
 * is bounded besides. Greedy alone can be stuck at twice the optimum
 * (docs/TE.md); pairs that share a pin stay where they are.
 */
static int refine(struct placer *pl, char *err, size_t errlen)
{
	struct xfab_te_plan *plan = pl->plan;
	size_t moves = 4 * plan->n_pairs + 16;

	for (size_t m = 0; m < moves; m++) {
		double top = 0;
		int e = -1, moved = 0;

		for (int d = 0; d < plan->n_dlinks; d++)
			if (plan->load[d] > 0 && (e < 0 || less(top, plan->load[d]))) {
				top = plan->load[d];
				e = d;
			}
		if (e < 0)
			return 0;
		for (size_t i = 0; i < plan->n_pairs && !moved; i++) {
			struct xfab_te_pair *pr = &plan->pairs[i];
			double worst;
			int best;

			if (pr->state != XFAB_TE_PLACED || !crosses(pr, e) || shares_a_pin(pl, i))
				continue;
			if (candidates(pl, pr, err, errlen))
				return -1;
			untake(pl, i);
			best = best_candidate(pl, pr, &worst);
			if (best >= 0 && less(worst, top)) {
				moved = 1;
			} else {
				pl->cands[0] = pl->taken[i];
				best = 0;
			}
			if (take(pl, i, &pl->cands[best]))
				return xfab_te_err(err, errlen, NULL, "out of memory");
		}
		if (!moved)
			return 0;
	}
	return 0;
}

void xfab_te_plan_free(struct xfab_te_plan *plan)
{
	free(plan->pairs);
	free(plan->pins);
	free(plan->load);
	memset(plan, 0, sizeof(*plan));
	plan->max_dlink = -1;
}

int xfab_te_plan_compute(const struct xfab_te_fabric *f, const struct xfab_te_demands *dm,
			 struct xfab_te_plan *plan, char *err, size_t errlen)
{
	struct placer pl = {.f = f, .plan = plan};
	size_t tiers = (size_t)XFAB_TE_MAX_TIERS * (size_t)f->n_switches, n = dm->n ? dm->n : 1;
	int ret = -1;

	memset(plan, 0, sizeof(*plan));
	plan->max_dlink = -1;
	plan->n_dlinks = xfab_te_n_dlinks(f);
	plan->load = calloc(plan->n_dlinks ? (size_t)plan->n_dlinks : 1, sizeof(*plan->load));
	plan->pairs = calloc(n, sizeof(*plan->pairs));
	pl.reach_of = malloc(tiers * (size_t)f->n_switches);
	pl.reach_done = calloc((size_t)f->n_switches, 1);
	pl.good = malloc(tiers);
	pl.cands = malloc(XFAB_TE_MAX_PATHS * sizeof(*pl.cands));
	pl.taken = calloc(n, sizeof(*pl.taken));
	pl.pin_of = malloc(n * XFAB_TE_MAX_HOPS * sizeof(*pl.pin_of));
	if (!plan->load || !plan->pairs || !pl.reach_of || !pl.reach_done || !pl.good ||
	    !pl.cands || !pl.taken || !pl.pin_of) {
		xfab_te_err(err, errlen, NULL, "out of memory");
		goto out;
	}
	plan->n_pairs = dm->n;
	for (size_t i = 0; i < dm->n; i++) {
		plan->pairs[i].src = dm->d[i].src;
		plan->pairs[i].dst = dm->d[i].dst;
		plan->pairs[i].bytes = dm->d[i].bytes;
		if (dm->d[i].src < 0 || dm->d[i].src >= f->n_hosts || dm->d[i].dst < 0 ||
		    dm->d[i].dst >= f->n_hosts || dm->d[i].src == dm->d[i].dst) {
			xfab_te_err(err, errlen, NULL,
				    "demand %zu: not a pair of the fabric's hosts", i);
			goto out;
		}
	}
	qsort(plan->pairs, plan->n_pairs, sizeof(*plan->pairs), by_demand);
	for (size_t i = 0; i < plan->n_pairs * XFAB_TE_MAX_HOPS; i++)
		pl.pin_of[i] = -1;
	for (size_t i = 0; i < plan->n_pairs; i++)
		if (place(&pl, i, err, errlen))
			goto out;
	if (refine(&pl, err, errlen))
		goto out;
	for (size_t i = 0; i < plan->n_pairs; i++) {
		plan->placed += plan->pairs[i].state == XFAB_TE_PLACED;
		plan->same_leaf += plan->pairs[i].state == XFAB_TE_SAME_LEAF;
		plan->no_path += plan->pairs[i].state == XFAB_TE_NO_PATH;
	}
	xfab_te_pins_finish(plan);
	for (int d = 0; d < plan->n_dlinks; d++)
		if (plan->load[d] > 0 && (plan->max_dlink < 0 || plan->load[d] > plan->max_load)) {
			plan->max_load = plan->load[d];
			plan->max_dlink = d;
		}
	ret = 0;
out:
	xfab_te_keytab_free(&pl.keys);
	free(pl.reach_of);
	free(pl.reach_done);
	free(pl.good);
	free(pl.cands);
	free(pl.taken);
	free(pl.pin_of);
	if (ret)
		xfab_te_plan_free(plan);
	return ret;
}
