// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: fabric.json (xfab-lab's, docs/LAB.md) through its
 * reader, as `xfabctl fabric report` and xfab-te take it:
 *   - xfab_fabric_parse (user/lib/fabric_parse.c): accepted, every port's peer
 *     and link indices are in range and a link's ends name each other; a
 *     snapshot is made for it and a flow walked from the first host to
 *     the last through switches that each take a port the input picks
 *     (xfab_fab_walk must end: delivered, stopped, a loop or too long);
 *   - xfab_te_fabric_parse (user/lib/te_fabric.c, over the same reader
 *     with the gateways asked for): accepted, a plan is computed
 *     for a demand between the first hosts.
 * Refused: a message that fits.
 */
#include <string.h>

#include "fabric.h"
#include "fabsnap.h"
#include "fuzz.h"
#include "te.h"

struct walk_ctx {
	const struct xfab_fabric *f;
	const uint8_t *data;
	size_t size, at;
};

/* The switch sends the flow out of a port the input's bytes pick. */
static int decide(void *arg, struct xfab_fab_hop *hop, char *why, size_t whylen)
{
	struct walk_ctx *w = arg;
	const struct xfab_fab_switch *sw = &w->f->switches[hop->sw];
	uint8_t b = w->size ? w->data[w->at++ % w->size] : 0;

	if (!sw->n_ports || b == 0xff) {
		snprintf(why, whylen, "drop: no route");
		return 1;
	}
	hop->out_port = b % sw->n_ports;
	hop->flags = 0;
	return 0;
}

static int fabric_ok(const struct xfab_fabric *f, const uint8_t *data, size_t size)
{
	struct walk_ctx w = {.f = f, .data = data, .size = size};
	struct xfab_fab_snap snap;
	struct xfab_fab_path path;

	for (unsigned int s = 0; s < f->n_switches; s++) {
		const struct xfab_fab_switch *sw = &f->switches[s];

		FUZZ_CHECK(sw->n_ports <= XFAB_FAB_MAX_PORTS);
		for (unsigned int p = 0; p < sw->n_ports; p++) {
			const struct xfab_fab_port *pt = &sw->ports[p];

			FUZZ_CHECK(pt->link >= 0 && (unsigned int)pt->link < f->n_links);
			FUZZ_CHECK((pt->peer_sw < 0) != (pt->peer_host < 0));
			FUZZ_CHECK(pt->peer_sw < (int)f->n_switches &&
				   pt->peer_host < (int)f->n_hosts);
			if (pt->peer_sw >= 0) {
				const struct xfab_fab_switch *o = &f->switches[pt->peer_sw];

				FUZZ_CHECK(pt->peer_sw_port >= 0 &&
					   (unsigned int)pt->peer_sw_port < o->n_ports);
				FUZZ_CHECK(o->ports[pt->peer_sw_port].peer_sw == (int)s);
				FUZZ_CHECK(o->ports[pt->peer_sw_port].peer_sw_port == (int)p);
			}
		}
	}
	for (unsigned int h = 0; h < f->n_hosts; h++)
		FUZZ_CHECK(f->hosts[h].leaf >= 0 && (unsigned int)f->hosts[h].leaf < f->n_switches);
	if (!xfab_fab_snap_init(&snap, f))
		xfab_fab_snap_free(&snap);
	if (f->n_hosts >= 2) {
		xfab_fab_walk(f, 0, f->n_hosts - 1, decide, &w, &path);
		FUZZ_CHECK(path.n_hops <= XFAB_FAB_MAX_HOPS);
		FUZZ_CHECK(path.status <= XFAB_PATH_ERROR);
		FUZZ_CHECK(memchr(path.why, '\0', sizeof(path.why)));
	}
	return 0;
}

static int te_ok(const struct xfab_te_fabric *f)
{
	struct xfab_te_demands dm;
	struct xfab_te_plan plan;
	char err[256];
	int ret = 0;

	xfab_te_demands_init(&dm);
	for (int s = 0; s < f->n_hosts && s < 4; s++)
		for (int d = 0; d < f->n_hosts && d < 4; d++)
			if (s != d &&
			    xfab_te_demand_add(&dm, s, d, 1000ull * (unsigned)(s + d + 1)))
				goto out;
	memset(&plan, 0, sizeof(plan));
	if (!xfab_te_plan_compute(f, &dm, &plan, err, sizeof(err))) {
		if (plan.n_pairs != dm.n) {
			fprintf(stderr, "a plan of %zu pairs for %zu demands\n", plan.n_pairs,
				dm.n);
			ret = -1;
		}
		xfab_te_plan_free(&plan);
	}
out:
	xfab_te_demands_free(&dm);
	return ret;
}

int xfab_fuzz_fabric(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), err[512];
	struct xfab_te_fabric *tf;
	struct xfab_fabric f;
	int ret = 0;

	if (!text)
		return 0;
	memset(err, 0x5a, sizeof(err));
	if (!xfab_fabric_parse(text, &f, err, sizeof(err))) {
		ret = fabric_ok(&f, data, size);
		xfab_fabric_free(&f);
	} else if (!memchr(err, '\0', sizeof(err)) || !err[0]) {
		fprintf(stderr, "a refused fabric without a message\n");
		ret = -1;
	}
	memset(err, 0x5a, sizeof(err));
	tf = xfab_te_fabric_parse(text, err, sizeof(err));
	if (!tf) {
		if (!memchr(err, '\0', sizeof(err)) || !err[0]) {
			fprintf(stderr, "a refused TE fabric without a message\n");
			ret = -1;
		}
	} else {
		if (!ret)
			ret = te_ok(tf);
		xfab_te_fabric_free(tf);
	}
	free(text);
	return ret;
}

XFAB_FUZZ_TARGET(xfab_fuzz_fabric)
