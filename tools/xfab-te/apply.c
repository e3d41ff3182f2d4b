// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-te: a plan applied: its generation, every pin added on every switch,
 * then the older generations swept (make before break). */
#include "te_tool.h"

/* The next generation: above every switch's and our own; 0 when no
 * switch answers. */
uint64_t te_next_gen(struct ctx *c)
{
	uint64_t top = c->gen;
	int answered = 0;

	for (int i = 0; i < c->f->n_switches; i++) {
		char err[400];
		uint64_t g;
		int te;

		if (te_fetch(c, i, &g, &te, NULL, NULL, err, sizeof(err)))
			continue;
		answered++;
		if (g > top)
			top = g;
	}
	if (!answered || top == UINT64_MAX)
		return 0;
	return top + 1;
}

void te_pin_prefix(const struct xfab_te_pin *p, char *buf, size_t len)
{
	char a[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &p->prefix, a, sizeof(a));
	snprintf(buf, len, "%s/%d", a, p->plen);
}

/* What te_request()'s rc says of request what on switch s: 1 taken; 0
 * unreachable or refused (s->state, s->error); -2 refused for a stale
 * generation (fenced). */
static int answered(struct sw_rt *s, int rc, const char *what, const char *field, const char *error)
{
	if (rc < 0) {
		s->state = SW_UNREACHABLE;
		snprintf(s->error, sizeof(s->error), "%s", error);
		return 0;
	}
	if (rc == 0) {
		s->state = SW_REFUSED;
		snprintf(s->error, sizeof(s->error), "%s: %s%s%s", what, field, *field ? ": " : "",
			 error);
		return !strcmp(field, "gen") ? -2 : 0;
	}
	return 1;
}

/* The plan's pins for one switch with generation gen: 1 every one taken,
 * 0 refused or unreachable (s->state, s->error say), -2 fenced (a newer
 * generation holds the switch). */
int te_add_pins(struct ctx *c, int sw, const struct xfab_te_plan *plan, uint64_t gen)
{
	struct sw_rt *s = &c->sw[sw];
	char resp[XFAB_CTL_MAX_LINE + 1], field[32], error[320], what[sizeof(s->error)];

	s->pins_wanted = s->pins_added = 0;
	for (size_t i = 0; i < plan->n_pins; i++)
		s->pins_wanted += plan->pins[i].sw == sw;
	s->state = SW_OK;
	s->error[0] = '\0';
	for (size_t i = 0; i < plan->n_pins; i++) {
		const struct xfab_te_pin *p = &plan->pins[i];
		struct xfab_ctl_req r = {.cmd = XFAB_CTL_TE_ADD, .generation = gen};
		int rc;

		if (p->sw != sw)
			continue;
		snprintf(r.in, sizeof(r.in), "%s", c->f->sw[sw].ports[p->in].name);
		te_pin_prefix(p, r.prefix, sizeof(r.prefix));
		inet_ntop(AF_INET, &p->via, r.via, sizeof(r.via));
		snprintf(r.gen, sizeof(r.gen), "%llu", (unsigned long long)gen);
		rc = te_request(c, sw, &r, resp, sizeof(resp), field, sizeof(field), error,
				sizeof(error));
		snprintf(what, sizeof(what), "te-add %s|%s via %s", r.in, r.prefix, r.via);
		rc = answered(s, rc, what, field, error);
		if (rc != 1)
			return rc;
		s->pins_added++;
	}
	return 1;
}

/* The older generations' pins off the switch: 1, 0 (state, error), -2. */
int te_sweep(struct ctx *c, int sw, uint64_t gen, int *removed)
{
	struct sw_rt *s = &c->sw[sw];
	char resp[XFAB_CTL_MAX_LINE + 1], field[32], error[320], what[sizeof(s->error)];
	struct xfab_ctl_req r = {.cmd = XFAB_CTL_TE_SWEEP, .generation = gen};
	const char *k;
	int rc;

	snprintf(r.gen, sizeof(r.gen), "%llu", (unsigned long long)gen);
	rc = te_request(c, sw, &r, resp, sizeof(resp), field, sizeof(field), error, sizeof(error));
	snprintf(what, sizeof(what), "te-sweep %s", r.gen);
	rc = answered(s, rc, what, field, error);
	if (rc != 1)
		return rc;
	k = strstr(resp, "\"removed\":");
	*removed = k ? atoi(k + 10) : 0;
	return 1;
}

/*
 * The plan with generation gen on every switch, make before break: every
 * switch's new pins first, then, on each switch that took all of its, the
 * sweep of older generations. A switch that failed keeps its old pins (and
 * those of the new it took) and is said; `run` tries it again. Returns 0
 * when every switch took it, 1 when some did not, -2 when fenced.
 */
int te_apply_plan(struct ctx *c, const struct xfab_te_plan *plan, uint64_t gen)
{
	uint64_t t0 = xfab_mono_ns();
	int failed = 0, fenced = 0, removed = 0, pins = 0;

	for (int i = 0; i < c->f->n_switches && !fenced; i++) {
		int rc = te_add_pins(c, i, plan, gen);

		fenced = rc == -2;
		failed += rc != 1;
		pins += c->sw[i].pins_added;
	}
	for (int i = 0; i < c->f->n_switches && !fenced; i++) {
		int k = 0, rc;

		if (c->sw[i].state != SW_OK)
			continue;
		rc = te_sweep(c, i, gen, &k);
		fenced = rc == -2;
		failed += rc != 1;
		removed += k;
	}
	c->apply_ms = te_ms_since(t0);
	for (int i = 0; i < c->f->n_switches; i++)
		if (c->sw[i].state != SW_OK)
			c->sw[i].next_retry_ns = xfab_mono_ns() + RETRY_MS * 1000000ull;
	if (fenced) {
		for (int i = 0; i < c->f->n_switches; i++)
			if (c->sw[i].state == SW_REFUSED && strstr(c->sw[i].error, "stale plan"))
				te_say("fenced by %s: %s", c->f->sw[i].name, c->sw[i].error);
		return -2;
	}
	c->gen = gen;
	c->complete = !failed;
	if (failed) {
		char list[1024] = "";
		size_t o = 0;
		int bad = 0;

		for (int i = 0; i < c->f->n_switches; i++) {
			struct sw_rt *s = &c->sw[i];

			if (s->state == SW_OK)
				continue;
			bad++;
			if (o < sizeof(list) - 1)
				o += (size_t)snprintf(list + o, sizeof(list) - o,
						      "%s%s %s (%d of %d pins): %s", o ? "; " : "",
						      c->f->sw[i].name, sw_state_names[s->state],
						      s->pins_added, s->pins_wanted, s->error);
		}
		te_say("plan %llu HALF APPLIED: %d of %d switches took it, %d pins added, %d older "
		       "removed, in %.1f ms; %s; the switches that failed keep their older pins",
		       (unsigned long long)gen, c->f->n_switches - bad, c->f->n_switches, pins,
		       removed, c->apply_ms, list);
		return 1;
	}
	te_say("plan %llu applied on all %d switches: %d pins added, %d older removed, in %.1f ms",
	       (unsigned long long)gen, c->f->n_switches, pins, removed, c->apply_ms);
	return 0;
}
