// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-te: run: the controller's loop (link polling, demand changes, the
 * periodic audit, retries, signals). */
#include "te_tool.h"

static volatile sig_atomic_t stop_flag, hup_flag;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		hup_flag = 1;
	else
		stop_flag = 1;
}

static int audit(struct ctx *c, char *why, size_t len)
{
	for (int i = 0; i < c->f->n_switches; i++) {
		struct listed *pins;
		size_t n, want = 0;
		uint64_t gen;
		int te, ok = 1;
		char err[400];

		if (te_fetch(c, i, &gen, &te, &pins, &n, err, sizeof(err))) {
			snprintf(why, len, "%s does not answer: %s", c->f->sw[i].name, err);
			return 0;
		}
		if (gen != c->gen) {
			snprintf(why, len, "%s holds generation %llu, not %llu%s", c->f->sw[i].name,
				 (unsigned long long)gen, (unsigned long long)c->gen,
				 gen < c->gen ? " (xfabd restarted?)" : "");
			free(pins);
			return 0;
		}
		for (size_t k = 0; k < c->plan.n_pins; k++) {
			const struct xfab_te_pin *p = &c->plan.pins[k];
			char pfx[64], via[INET_ADDRSTRLEN];
			int found = 0;

			if (p->sw != i)
				continue;
			want++;
			te_pin_prefix(p, pfx, sizeof(pfx));
			inet_ntop(AF_INET, &p->via, via, sizeof(via));
			for (size_t j = 0; j < n && !found; j++)
				found = !strcmp(pins[j].in, c->f->sw[i].ports[p->in].name) &&
					!strcmp(pins[j].prefix, pfx) && !strcmp(pins[j].via, via) &&
					pins[j].gen == c->gen;
			ok &= found;
		}
		if (!ok || n != want) {
			snprintf(why, len, "%s holds %zu runtime pins, the plan %zu%s",
				 c->f->sw[i].name, n, want, ok ? "" : " (some differ)");
			free(pins);
			return 0;
		}
		free(pins);
	}
	return 1;
}

/* Applies a new plan if its pins differ from the applied one's (or when
 * forced); logs what changed. t_detect: when the change was seen. */
static void replan(struct ctx *c, const char *cause, uint64_t t_detect, int force)
{
	struct xfab_te_plan next;
	double before = c->have_plan ? c->plan.max_load : 0;
	uint64_t gen;
	int rc;

	if (te_compute(c, &next))
		return;
	if (c->have_plan && c->complete && !force && xfab_te_pins_equal(&next, &c->plan)) {
		xfab_te_plan_free(&c->plan);
		c->plan = next;
		te_event(c, "plan", -1, "%s: the same pins (max link load %.0f, was %.0f)", cause,
			 next.max_load, before);
		return;
	}
	gen = c->gen ? c->gen + 1 : te_next_gen(c);
	if (!gen) {
		xfab_te_plan_free(&next);
		te_event(c, "error", -1, "%s: no switch answers; plan not applied", cause);
		return;
	}
	if (c->have_plan)
		xfab_te_plan_free(&c->plan);
	c->plan = next;
	c->have_plan = 1;
	rc = te_apply_plan(c, &c->plan, gen);
	if (rc == -2) {
		c->status = "fenced";
		stop_flag = 1;
		te_event(
		    c, "fenced", -1,
		    "%s: plan %llu refused, a switch holds a newer generation: another controller "
		    "runs; this one stands down",
		    cause, (unsigned long long)gen);
		return;
	}
	te_event(c, rc ? "partial" : "apply", te_ms_since(t_detect),
		 "%s: plan %llu %s, %zu pins, max link load %.0f (was %.0f), computed in %.2f ms, "
		 "applied in %.1f ms",
		 cause, (unsigned long long)gen, rc ? "half applied" : "applied", c->plan.n_pins,
		 c->plan.max_load, before, c->plan_ms, c->apply_ms);
}

/* Switches that failed the last apply, tried again when due: their pins
 * with the current generation, then their sweep. */
static void retry_failed(struct ctx *c)
{
	uint64_t now = xfab_mono_ns();
	int all = 1;

	if (!c->have_plan || !c->gen)
		return;
	for (int i = 0; i < c->f->n_switches; i++) {
		struct sw_rt *s = &c->sw[i];
		int rc, k = 0;

		if (s->state == SW_OK || s->state == SW_IDLE)
			continue;
		if (now < s->next_retry_ns) {
			all = 0;
			continue;
		}
		rc = te_add_pins(c, i, &c->plan, c->gen);
		if (rc == 1)
			rc = te_sweep(c, i, c->gen, &k);
		if (rc == -2) {
			c->status = "fenced";
			stop_flag = 1;
			te_event(c, "fenced", -1, "%s: %s: this controller stands down",
				 c->f->sw[i].name, s->error);
			return;
		}
		if (rc == 1) {
			te_event(c, "retry", -1, "%s took plan %llu (%d pins, %d older removed)",
				 c->f->sw[i].name, (unsigned long long)c->gen, s->pins_added, k);
		} else {
			all = 0;
			s->next_retry_ns = now + RETRY_MS * 1000000ull;
		}
	}
	if (all && !c->complete) {
		c->complete = 1;
		te_event(c, "apply", -1, "plan %llu now on every switch",
			 (unsigned long long)c->gen);
	}
}

/* The run loop's memory between polls. */
struct run_state {
	int *was_up; /* per link, as last seen */
	uint64_t next_audit, next_jobs, sig;
};

/* The links that went up or down since the last poll, named in what (at
 * o): 1 when one did. */
static int links_changed(struct ctx *c, struct run_state *rs, char *what, size_t wlen, size_t *o)
{
	int changed = 0;

	for (int l = 0; l < c->f->n_links; l++) {
		int up = xfab_te_link_up(c->f, l);
		char name[96];

		if (up == rs->was_up[l])
			continue;
		rs->was_up[l] = up;
		changed = 1;
		te_link_name(c->f, l, name, sizeof(name));
		if (*o < wlen - 1)
			*o += (size_t)snprintf(what + *o, wlen - *o, "%slink %s %s", *o ? ", " : "",
					       name, up ? "up" : "down");
	}
	return changed;
}

/* The demand read again when --jobs DIR changed, or on SIGHUP (every file
 * again): 1 when it changed, the cause added to what (at o). */
static int demand_changed(struct ctx *c, struct run_state *rs, uint64_t t, char *what, size_t wlen,
			  size_t o)
{
	uint64_t now_sig;
	struct xfab_te_demands dm;
	char err[512];

	if (!hup_flag && !(c->o.jobs_dir && t >= rs->next_jobs))
		return 0;
	now_sig = c->o.jobs_dir ? te_jobs_signature(c->o.jobs_dir) : rs->sig;
	rs->next_jobs = t + JOBS_CHECK_MS * 1000000ull;
	if (now_sig == rs->sig && !hup_flag)
		return 0;
	rs->sig = now_sig;
	if (te_load_demand(c, &dm, 1, err, sizeof(err))) {
		te_event(c, "error", -1, "jobs: %s (the plan keeps the old demand)", err);
		return 0;
	}
	xfab_te_demands_free(&c->dm);
	c->dm = dm;
	if (o < wlen - 1) /* the last cause */
		snprintf(what + o, wlen - o, "%s%s: %zu pairs from %d job(s)", o ? ", " : "",
			 hup_flag ? "SIGHUP, demand read again" : "jobs changed", c->dm.n,
			 c->n_job_names);
	return 1;
}

/* One poll: links, demand, the periodic audit; a new plan when something
 * changed, else another try at the switches that did not take the last. */
static void run_poll(struct ctx *c, struct run_state *rs)
{
	char what[1024] = "", why[512];
	size_t o = 0;
	int changed, force = 0;
	uint64_t t;

	te_read_links(c);
	t = xfab_mono_ns();
	changed = links_changed(c, rs, what, sizeof(what), &o);
	changed |= demand_changed(c, rs, t, what, sizeof(what), o);
	hup_flag = 0;
	/* the periodic check of what the switches hold */
	if (!changed && t >= rs->next_audit) {
		rs->next_audit = t + (uint64_t)(c->o.interval * 1e9);
		if (c->have_plan && c->complete && !audit(c, why, sizeof(why))) {
			changed = force = 1;
			snprintf(what, sizeof(what), "audit: %s", why);
		}
	}
	if (changed) {
		replan(c, what, t, force);
		te_write_status(c);
		return;
	}
	if (!c->complete) {
		retry_failed(c);
		te_write_status(c);
	}
}

/* The end of a run: the pins left or cleared (--clear-on-exit); the exit
 * status (3: fenced by a newer controller). */
static int run_stop(struct ctx *c)
{
	int ret = 0;

	if (strcmp(c->status, "fenced"))
		c->status = "stopped";
	if (c->o.clear_on_exit && c->gen && strcmp(c->status, "fenced")) {
		int bad = te_clear_all(c, c->gen);

		te_event(c, "stop", -1, "stopped: --clear-on-exit: pins removed%s",
			 bad ? " (not on every switch: see above)" : " on every switch");
		ret = bad ? 1 : 0;
	} else {
		te_event(c, "stop", -1, "stopped; the switches keep plan %llu's pins",
			 (unsigned long long)c->gen);
	}
	if (!strcmp(c->status, "fenced"))
		ret = 3;
	te_write_status(c);
	return ret;
}

int te_cmd_run(struct ctx *c)
{
	int n_links = c->f->n_links;
	struct run_state rs = {.was_up = calloc(n_links ? (size_t)n_links : 1, sizeof(int))};
	struct sigaction sa = {.sa_handler = on_signal};
	int ret, n_up = 0;

	if (!rs.was_up)
		return 1;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	c->status = "running";
	if (c->o.jobs_dir)
		rs.sig = te_jobs_signature(c->o.jobs_dir);
	te_read_links(c);
	for (int l = 0; l < n_links; l++)
		n_up += rs.was_up[l] = xfab_te_link_up(c->f, l);
	te_event(c, "start", -1,
		 "%zu pairs from %d job(s) and %d matrix file(s)%s%s, %d of %d links up, poll "
		 "every %d ms, audit every %.0f s",
		 c->dm.n, c->n_job_names, c->o.n_matrices, c->o.jobs_dir ? ", jobs in " : "",
		 c->o.jobs_dir ? c->o.jobs_dir : "", n_up, n_links, c->o.poll_ms, c->o.interval);
	replan(c, "start", xfab_mono_ns(), 1);
	te_write_status(c);
	rs.next_audit = xfab_mono_ns() + (uint64_t)(c->o.interval * 1e9);
	while (!stop_flag) {
		struct timespec ts = {0, (long)c->o.poll_ms * 1000000L};

		nanosleep(&ts, NULL); /* a signal cuts it short */
		if (stop_flag)
			break;
		run_poll(c, &rs);
	}
	ret = run_stop(c);
	free(rs.was_up);
	return ret;
}
