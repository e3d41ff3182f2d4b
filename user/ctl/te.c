// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * te add|del|clear|sweep: runtime TE pins, kept and written by xfabd
 * (requests.c); --gen names the plan's generation (docs/CONTROL.md, "Plan
 * generations"). ctl_te_list_all reads the pins back for show te.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "ctlproto.h"
#include "json.h"

static int te_request(enum xfab_ctl_cmd cmd, const struct ctl_opts *o, const char *what)
{
	struct xfab_ctl_req r = {.cmd = cmd};

	if (cmd == XFAB_CTL_TE_ADD || cmd == XFAB_CTL_TE_DEL) {
		if (!o->in || !o->prefix || (cmd == XFAB_CTL_TE_ADD && !o->via)) {
			fprintf(stderr, "usage: xfabctl te add --in PORT --prefix P --via "
					"GW[,GW...] [--gen N]\n       xfabctl te del --in PORT "
					"--prefix P [--gen N]\n");
			return 2;
		}
		if (strlen(o->in) >= sizeof(r.in) || strlen(o->prefix) >= sizeof(r.prefix) ||
		    (o->via && strlen(o->via) >= sizeof(r.via))) {
			fprintf(stderr, "xfabctl %s: --in, --prefix or --via is too long\n", what);
			return 2;
		}
		snprintf(r.in, sizeof(r.in), "%s", o->in);
		snprintf(r.prefix, sizeof(r.prefix), "%s", o->prefix);
		if (o->via)
			snprintf(r.via, sizeof(r.via), "%s", o->via);
	}
	if (cmd == XFAB_CTL_TE_SWEEP && !o->gen) {
		fprintf(stderr, "usage: xfabctl te sweep --gen N\n");
		return 2;
	}
	if (o->gen) {
		if (xfab_ctl_parse_gen(o->gen, &r.generation)) {
			fprintf(stderr, "xfabctl %s: --gen: must be a generation, 1..%llu\n", what,
				(unsigned long long)UINT64_MAX);
			return 2;
		}
		snprintf(r.gen, sizeof(r.gen), "%s", o->gen);
	}
	return ctl_request(&r, what);
}

int ctl_te_add(const struct ctl_opts *o)
{
	return te_request(XFAB_CTL_TE_ADD, o, "te add");
}

int ctl_te_del(const struct ctl_opts *o)
{
	return te_request(XFAB_CTL_TE_DEL, o, "te del");
}

int ctl_te_clear(const struct ctl_opts *o)
{
	return te_request(XFAB_CTL_TE_CLEAR, o, "te clear");
}

int ctl_te_sweep(const struct ctl_opts *o)
{
	return te_request(XFAB_CTL_TE_SWEEP, o, "te sweep");
}

/* One te-list page into pins; the next page's start, 0 on the last, -1 on
 * an answer that is not a page. */
static long te_list_page(const char *resp, struct te_listed **pins, size_t *n,
			 unsigned long long *generation)
{
	struct json_pos pos;
	char err[128];
	struct json_value *root = xfab_json_parse(resp, err, sizeof(err), &pos);
	const struct json_value *list, *g, *next;
	long ret = -1;

	if (!root)
		return -1;
	list = xfab_json_get(root, "pins");
	g = xfab_json_get(root, "generation");
	next = xfab_json_get(root, "next");
	if (!list || list->type != JSON_ARRAY || !g || g->type != JSON_NUMBER)
		goto out;
	*generation = strtoull(g->str, NULL, 10);
	for (unsigned i = 0; i < list->count; i++) {
		const struct json_value *p = &list->children[i], *in, *pfx, *gen, *via;
		struct te_listed *grown;

		in = xfab_json_get(p, "in");
		pfx = xfab_json_get(p, "prefix");
		gen = xfab_json_get(p, "gen");
		if (!in || !pfx || !gen || in->type != JSON_STRING || pfx->type != JSON_STRING ||
		    gen->type != JSON_NUMBER)
			goto out;
		grown = realloc(*pins, (*n + 1) * sizeof(**pins));
		if (!grown)
			goto out;
		*pins = grown;
		snprintf(grown[*n].in, sizeof(grown[*n].in), "%s", in->str);
		snprintf(grown[*n].prefix, sizeof(grown[*n].prefix), "%s", pfx->str);
		via = xfab_json_get(p, "via");
		snprintf(grown[*n].via, sizeof(grown[*n].via), "%s",
			 via && via->type == JSON_STRING ? via->str : "");
		grown[*n].gen = strtoull(gen->str, NULL, 10);
		(*n)++;
	}
	ret = next && next->type == JSON_NUMBER ? strtol(next->str, NULL, 10) : 0;
out:
	xfab_json_free(root);
	return ret;
}

int ctl_te_list_all(struct te_listed **pins, size_t *n, unsigned long long *generation)
{
	char resp[XFAB_CTL_MAX_LINE + 1];
	long from = 0;

	*pins = NULL;
	*n = 0;
	/* pages until the last; a page holds at least one pin, so at most as
	 * many pages as the switch holds pins (bounded by the tables) */
	for (int page = 0; page < 1 << 20; page++) {
		struct xfab_ctl_req r = {.cmd = XFAB_CTL_TE_LIST};
		long next;

		r.from_index = (uint32_t)from;
		snprintf(r.from, sizeof(r.from), "%ld", from);
		if (ctl_query(&r, "te list", resp, sizeof(resp)))
			break;
		next = te_list_page(resp, pins, n, generation);
		if (next == 0)
			return 0;
		if (next <= from)
			break;
		from = next;
	}
	free(*pins);
	*pins = NULL;
	*n = 0;
	return -1;
}

/* te list: the runtime pins as xfabd holds them (not the maps): each with
 * its gateways and generation, and the switch's generation. */
int ctl_te_list(void)
{
	struct te_listed *pins;
	unsigned long long generation;
	size_t n;

	if (ctl_te_list_all(&pins, &n, &generation))
		return 1; /* ctl_query said why */
	if (ctl_json) {
		ctl_jw_open(NULL, '{');
		ctl_jw_uint("generation", generation);
		ctl_jw_open("pins", '[');
		for (size_t i = 0; i < n; i++) {
			ctl_jw_open(NULL, '{');
			ctl_jw_string("in", pins[i].in);
			ctl_jw_string("prefix", pins[i].prefix);
			ctl_jw_string("via", pins[i].via);
			ctl_jw_uint("gen", pins[i].gen);
			ctl_jw_close('}');
		}
		ctl_jw_close(']');
		ctl_jw_close('}');
		ctl_jw_end();
	} else {
		printf("TE plan generation %llu, %zu runtime pin(s)\n", generation, n);
		printf("%-10s %-26s %-8s %s\n", "Ingress", "Prefix", "Gen", "Via");
		for (size_t i = 0; i < n; i++)
			printf("%-10s %-26s %-8llu %s\n", pins[i].in, pins[i].prefix, pins[i].gen,
			       pins[i].via);
	}
	free(pins);
	return 0;
}
