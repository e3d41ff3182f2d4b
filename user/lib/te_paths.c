// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* TE's candidate paths: the shortest valley-free paths of a pair, up the
 * tiers and down, in port order (te.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "te_int.h"

struct walk {
	const struct xfab_te_fabric *f;
	const unsigned char *reach; /* [level][switch]: reaches dst leaf in level hops down */
	unsigned char *good;	    /* [level][switch]: can go on up (or turn) and reach it */
	int k;			    /* levels up */
	int dst_port;		    /* the destination host's port on the last leaf */
	struct xfab_te_cand cur;
	struct xfab_te_cand *out;
	size_t n_out, max_out;
	int overflow;
};

#define AT(arr, lvl, sw, n) ((arr)[(size_t)(lvl) * (size_t)(n) + (size_t)(sw)])

/* reach[r][sw]: sw reaches leaf dst going down r hops */
void xfab_te_down_reach(const struct xfab_te_fabric *f, int dst, unsigned char *reach)
{
	int n = f->n_switches;

	memset(reach, 0, (size_t)XFAB_TE_MAX_TIERS * (size_t)n);
	AT(reach, 0, dst, n) = 1;
	for (int r = 1; r < XFAB_TE_MAX_TIERS; r++)
		for (int s = 0; s < n; s++)
			for (int p = 0; p < f->sw[s].n_ports; p++) {
				const struct xfab_te_port *port = &f->sw[s].ports[p];

				if (!port->up && port->peer_sw >= 0 &&
				    AT(reach, r - 1, port->peer_sw, n)) {
					AT(reach, r, s, n) = 1;
					break;
				}
			}
}

/* The fewest levels up from leaf src that a path to the leaf reach was
 * computed for needs, with good[][] filled for it; -1: none. */
static int levels_up(const struct xfab_te_fabric *f, int src, const unsigned char *reach,
		     unsigned char *good)
{
	int n = f->n_switches, k = -1;

	/* good first holds the switches k levels up from src */
	memset(good, 0, (size_t)XFAB_TE_MAX_TIERS * (size_t)n);
	AT(good, 0, src, n) = 1;
	for (int d = 1; d < XFAB_TE_MAX_TIERS && k < 0; d++) {
		for (int s = 0; s < n; s++) {
			if (!AT(good, d - 1, s, n))
				continue;
			for (int p = 0; p < f->sw[s].n_ports; p++)
				if (f->sw[s].ports[p].up && f->sw[s].ports[p].peer_sw >= 0)
					AT(good, d, f->sw[s].ports[p].peer_sw, n) = 1;
		}
		for (int s = 0; s < n && k < 0; s++)
			if (AT(good, d, s, n) && AT(reach, d, s, n))
				k = d;
	}
	if (k < 0)
		return -1;
	/* then only those that lead on to the turn and down */
	for (int s = 0; s < n; s++)
		AT(good, k, s, n) = AT(good, k, s, n) && AT(reach, k, s, n);
	for (int d = k - 1; d >= 0; d--)
		for (int s = 0; s < n; s++) {
			int any = 0;

			if (!AT(good, d, s, n))
				continue;
			for (int p = 0; p < f->sw[s].n_ports && !any; p++)
				any = f->sw[s].ports[p].up && f->sw[s].ports[p].peer_sw >= 0 &&
				      AT(good, d + 1, f->sw[s].ports[p].peer_sw, n);
			AT(good, d, s, n) = (unsigned char)any;
		}
	for (int d = k + 1; d < XFAB_TE_MAX_TIERS; d++)
		memset(&AT(good, d, 0, n), 0, (size_t)n);
	return k;
}

/* Depth-first over the shortest up-down paths, in port order. */
static void walk(struct walk *w, int pos, int sw, int in, int level, int up, unsigned mask)
{
	const struct xfab_te_fabric *f = w->f;
	const struct xfab_te_switch *s = &f->sw[sw];
	int n = f->n_switches, choices = 0;

	if (w->overflow)
		return;
	w->cur.sw[pos] = sw;
	w->cur.in[pos] = in;
	if (up && level == w->k)
		up = 0; /* the turn */
	if (!up && level == 0) {
		if (w->n_out == w->max_out) {
			w->overflow = 1;
			return;
		}
		w->cur.out[pos] = w->dst_port;
		w->cur.n = pos + 1;
		w->cur.pin_mask = mask;
		w->out[w->n_out++] = w->cur;
		return;
	}
	for (int pass = 0; pass < 2; pass++)
		for (int p = 0; p < s->n_ports; p++) {
			const struct xfab_te_port *port = &s->ports[p];
			int ok = port->peer_sw >= 0 && port->up == up &&
				 (up ? AT(w->good, level + 1, port->peer_sw, n)
				     : AT(w->reach, level - 1, port->peer_sw, n));

			if (!ok)
				continue;
			if (pass == 0) {
				choices++;
				continue;
			}
			w->cur.out[pos] = p;
			w->cur.dl[pos] = 2 * port->link + (up ? 0 : 1);
			walk(w, pos + 1, port->peer_sw, port->peer_port, up ? level + 1 : level - 1,
			     up, choices > 1 ? mask | 1u << pos : mask);
		}
}

int xfab_te_paths(const struct xfab_te_fabric *f, int src, int dst, const unsigned char *reach,
		  unsigned char *good, struct xfab_te_cand *out, size_t max_out, size_t *n_out)
{
	int a = f->hosts[src].leaf;
	struct walk w = {.f = f, .out = out, .max_out = max_out};

	*n_out = 0;
	w.reach = reach;
	w.good = good;
	w.k = levels_up(f, a, reach, good);
	if (w.k < 0)
		return 0; /* the topology joins no path */
	w.dst_port = f->hosts[dst].leaf_port;
	walk(&w, 0, a, f->hosts[src].leaf_port, 0, 1, 0);
	if (w.overflow)
		return -1;
	*n_out = w.n_out;
	return 0;
}
