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

int te_cmd_run(struct ctx *c)
{
	int n_links = c->f->n_links;
	int *was_up = calloc(n_links ? (size_t)n_links : 1, sizeof(*was_up));
	uint64_t next_audit, next_jobs = 0, sig = 0, t;
	struct sigaction sa = {.sa_handler = on_signal};
	int ret = 0, n_up = 0;

	if (!was_up)
		return 1;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	c->status = "running";
	if (c->o.jobs_dir)
		sig = te_jobs_signature(c->o.jobs_dir);
	te_read_links(c);
	for (int l = 0; l < n_links; l++)
		n_up += was_up[l] = xfab_te_link_up(c->f, l);
	te_event(c, "start", -1,
		 "%zu pairs from %d job(s) and %d matrix file(s)%s%s, %d of %d links up, poll "
		 "every %d ms, audit every %.0f s",
		 c->dm.n, c->n_job_names, c->o.n_matrices, c->o.jobs_dir ? ", jobs in " : "",
		 c->o.jobs_dir ? c->o.jobs_dir : "", n_up, n_links, c->o.poll_ms, c->o.interval);
	replan(c, "start", xfab_mono_ns(), 1);
	te_write_status(c);
	next_audit = xfab_mono_ns() + (uint64_t)(c->o.interval * 1e9);
	while (!stop_flag) {
		char what[1024] = "", why[512];
		size_t o = 0;
		int changed = 0, force = 0;
		struct timespec ts = {0, (long)c->o.poll_ms * 1000000L};

		nanosleep(&ts, NULL); /* a signal cuts it short */
		if (stop_flag)
			break;
		/* links */
		te_read_links(c);
		t = xfab_mono_ns();
		for (int l = 0; l < n_links; l++) {
			int up = xfab_te_link_up(c->f, l);
			char name[96];

			if (up == was_up[l])
				continue;
			was_up[l] = up;
			changed = 1;
			te_link_name(c->f, l, name, sizeof(name));
			if (o < sizeof(what) - 1)
				o += (size_t)snprintf(what + o, sizeof(what) - o, "%slink %s %s",
						      o ? ", " : "", name, up ? "up" : "down");
		}
		/* the demand: --jobs DIR changed, or SIGHUP (every file again) */
		if (hup_flag || (c->o.jobs_dir && t >= next_jobs)) {
			uint64_t now_sig = c->o.jobs_dir ? te_jobs_signature(c->o.jobs_dir) : sig;

			next_jobs = t + JOBS_CHECK_MS * 1000000ull;
			if (now_sig != sig || hup_flag) {
				struct xfab_te_demands dm;
				char err[512];

				sig = now_sig;
				if (te_load_demand(c, &dm, 1, err, sizeof(err))) {
					te_event(c, "error", -1,
						 "jobs: %s (the plan keeps the old demand)", err);
				} else {
					xfab_te_demands_free(&c->dm);
					c->dm = dm;
					changed = 1;
					if (o < sizeof(what) - 1) /* the last cause */
						snprintf(what + o, sizeof(what) - o,
							 "%s%s: %zu pairs from %d job(s)",
							 o ? ", " : "",
							 hup_flag ? "SIGHUP, demand read again"
								  : "jobs changed",
							 c->dm.n, c->n_job_names);
				}
			}
		}
		hup_flag = 0;
		/* the periodic check of what the switches hold */
		if (!changed && t >= next_audit) {
			next_audit = t + (uint64_t)(c->o.interval * 1e9);
			if (c->have_plan && c->complete && !audit(c, why, sizeof(why))) {
				changed = force = 1;
				snprintf(what, sizeof(what), "audit: %s", why);
			}
		}
		if (changed) {
			replan(c, what, t, force);
			te_write_status(c);
			continue;
		}
		if (!c->complete) {
			retry_failed(c);
			te_write_status(c);
		}
	}
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
	free(was_up);
	return ret;
}
