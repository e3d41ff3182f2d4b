// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-te: the one-shot commands: plan, apply, status, clear. */
#include "te_tool.h"

int te_compute(struct ctx *c, struct xfab_te_plan *plan)
{
	char err[512];
	uint64_t t0 = xfab_mono_ns();

	if (xfab_te_plan_compute(c->f, &c->dm, plan, err, sizeof(err))) {
		te_say("plan: %s", err);
		return -1;
	}
	c->plan_ms = te_ms_since(t0);
	return 0;
}

int te_cmd_plan(struct ctx *c)
{
	struct xfab_te_plan plan;
	char err[256];

	if (c->o.live) {
		te_read_links(c);
		if (te_apply_down(c, err, sizeof(err)))
			return 2;
	}
	if (te_compute(c, &plan))
		return 1;
	if (c->o.json) {
		struct xfab_jw w = {.out = stdout, .first = {1}};

		xfab_jw_open(&w, NULL, '{');
		xfab_jw_string(&w, "fabric", c->f->name);
		te_plan_json(&w, c, &plan);
		xfab_jw_close(&w, '}');
		putchar('\n');
	} else {
		te_print_plan_text(c, &plan);
	}
	xfab_te_plan_free(&plan);
	return 0;
}

int te_cmd_apply(struct ctx *c)
{
	uint64_t gen = c->o.gen;
	int rc;

	char err[256];

	te_read_links(c);
	if (te_apply_down(c, err, sizeof(err))) /* checked at start: cannot fail here */
		return 2;
	if (te_compute(c, &c->plan))
		return 1;
	c->have_plan = 1;
	if (!gen)
		gen = te_next_gen(c);
	if (!gen) {
		te_say("no switch answers on its control socket: nothing applied");
		return 1;
	}
	rc = te_apply_plan(c, &c->plan, gen);
	if (c->o.json) {
		struct xfab_jw w = {.out = stdout, .first = {1}};

		xfab_jw_open(&w, NULL, '{');
		xfab_jw_string(&w, "fabric", c->f->name);
		xfab_jw_uint(&w, "generation", gen);
		xfab_jw_string(&w, "result", rc == 0 ? "applied" : rc == -2 ? "fenced" : "partial");
		xfab_jw_num3(&w, "apply_ms", c->apply_ms);
		te_plan_json(&w, c, &c->plan);
		te_switches_json(&w, c);
		xfab_jw_close(&w, '}');
		putchar('\n');
	} else if (rc == 0) {
		printf(
		    "plan %llu applied: %zu pins on %d switches, max link load %.0f, computed in "
		    "%.2f ms, applied in %.1f ms\n",
		    (unsigned long long)gen, c->plan.n_pins, c->f->n_switches, c->plan.max_load,
		    c->plan_ms, c->apply_ms);
	}
	if (rc == -2)
		te_say("plan %llu refused: a switch holds a newer generation (another controller's "
		       "plan); nothing of this one was kept where it was refused",
		       (unsigned long long)gen);
	return rc == 0 ? 0 : rc == -2 ? 3 : 1;
}

int te_cmd_status(struct ctx *c)
{
	struct xfab_jw w = {.out = stdout, .first = {1}};
	int bad = 0;

	if (c->o.json)
		xfab_jw_open(&w, NULL, '[');
	else
		printf("%-10s %-12s %-12s %-6s %s\n", "Switch", "Generation", "Runtime pins", "TE",
		       "Control socket");
	for (int i = 0; i < c->f->n_switches; i++) {
		struct listed *pins;
		size_t n = 0;
		uint64_t gen = 0;
		int te = 0;
		char err[400];
		int rc = te_fetch(c, i, &gen, &te, &pins, &n, err, sizeof(err));

		bad += rc != 0;
		if (c->o.json) {
			xfab_jw_open(&w, NULL, '{');
			xfab_jw_string(&w, "switch", c->f->sw[i].name);
			xfab_jw_bool(&w, "reachable", rc == 0);
			if (rc) {
				xfab_jw_string(&w, "error", err);
			} else {
				xfab_jw_uint(&w, "generation", gen);
				xfab_jw_bool(&w, "te", te);
				xfab_jw_open(&w, "pins", '[');
				for (size_t k = 0; k < n; k++) {
					xfab_jw_open(&w, NULL, '{');
					xfab_jw_string(&w, "in", pins[k].in);
					xfab_jw_string(&w, "prefix", pins[k].prefix);
					xfab_jw_string(&w, "via", pins[k].via);
					xfab_jw_uint(&w, "gen", pins[k].gen);
					xfab_jw_close(&w, '}');
				}
				xfab_jw_close(&w, ']');
			}
			xfab_jw_close(&w, '}');
		} else if (rc) {
			printf("%-10s %-12s %-12s %-6s %s\n", c->f->sw[i].name, "-", "-", "-", err);
		} else {
			printf("%-10s %-12llu %-12zu %-6s %s\n", c->f->sw[i].name,
			       (unsigned long long)gen, n, te ? "on" : "off", c->f->sw[i].ctl);
		}
		if (!rc)
			free(pins);
	}
	if (c->o.json) {
		xfab_jw_close(&w, ']');
		putchar('\n');
	}
	return bad ? 1 : 0;
}

/* te-clear with a generation on every switch: every runtime pin goes. */
int te_clear_all(struct ctx *c, uint64_t gen)
{
	int bad = 0;

	for (int i = 0; i < c->f->n_switches; i++) {
		struct xfab_ctl_req r = {.cmd = XFAB_CTL_TE_CLEAR, .generation = gen};
		char resp[XFAB_CTL_MAX_LINE + 1], field[32], error[320];
		int rc;

		snprintf(r.gen, sizeof(r.gen), "%llu", (unsigned long long)gen);
		rc = te_request(c, i, &r, resp, sizeof(resp), field, sizeof(field), error,
				sizeof(error));
		if (rc != 1) {
			te_say("%s: te-clear %s: %s%s%s", c->f->sw[i].name,
			       rc < 0 ? "no answer" : "refused", field, *field ? ": " : "", error);
			bad++;
		}
	}
	return bad;
}

int te_cmd_clear(struct ctx *c)
{
	uint64_t gen = c->o.gen ? c->o.gen : te_next_gen(c);

	if (!gen) {
		te_say("no switch answers on its control socket");
		return 1;
	}
	if (te_clear_all(c, gen))
		return 1;
	printf("every runtime pin removed, generation %llu on %d switches\n",
	       (unsigned long long)gen, c->f->n_switches);
	return 0;
}

/* Whether every switch holds exactly the plan's pins with generation gen. */
