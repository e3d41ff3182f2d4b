// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Link event damping: SONiC's aied algorithm as a pure state machine
 * (damping.h says what was taken from where). */
#include "damping.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define DAMP_NS_PER_MS 1000000.0
#define DAMP_CEILING_MAX 4294967295.0 /* syncd keeps the ceiling in a uint32 */

int xfab_damp_enabled(const struct xfab_damp_cfg *cfg)
{
	return cfg->algo == XFAB_DAMP_AIED && cfg->max_suppress_time_ms &&
	       cfg->decay_half_life_ms && cfg->suppress_threshold && cfg->reuse_threshold &&
	       cfg->flap_penalty;
}

double xfab_damp_ceiling(const struct xfab_damp_cfg *cfg)
{
	double c;

	if (!xfab_damp_enabled(cfg))
		return 0;
	c = exp2((double)cfg->max_suppress_time_ms / cfg->decay_half_life_ms) *
	    cfg->reuse_threshold;
	return c > DAMP_CEILING_MAX ? DAMP_CEILING_MAX : c;
}

void xfab_damp_init(struct xfab_damp *d, const struct xfab_damp_cfg *cfg, int up, __u64 now_ns)
{
	memset(d, 0, sizeof(*d));
	d->cfg = *cfg;
	d->ceiling = xfab_damp_ceiling(cfg);
	d->last_ns = now_ns;
	d->actual = d->advertised = !!up;
}

double xfab_damp_penalty(const struct xfab_damp *d, __u64 now_ns)
{
	double half_ns = d->cfg.decay_half_life_ms * DAMP_NS_PER_MS;

	if (d->penalty <= 0 || now_ns <= d->last_ns || half_ns <= 0)
		return d->penalty;
	return d->penalty * exp2(-(double)(now_ns - d->last_ns) / half_ns);
}

/* The penalty brought up to now_ns, so the next step starts from it. */
static void damp_decay(struct xfab_damp *d, __u64 now_ns)
{
	d->penalty = xfab_damp_penalty(d, now_ns);
	if (now_ns > d->last_ns)
		d->last_ns = now_ns;
}

/* When the penalty, as of now, will have decayed to the reuse threshold:
 * half_life * log2(penalty / reuse) from now (rounded up, so that at the
 * reuse time the penalty is at or below the threshold). */
static __u64 damp_reuse_at(const struct xfab_damp *d)
{
	double half_ns = d->cfg.decay_half_life_ms * DAMP_NS_PER_MS, wait;

	if (d->penalty <= d->cfg.reuse_threshold)
		return d->last_ns;
	wait = half_ns * log2(d->penalty / d->cfg.reuse_threshold);
	return d->last_ns + (__u64)ceil(wait);
}

static void damp_advertise(struct xfab_damp *d, int up)
{
	if (d->advertised == up)
		return;
	d->advertised = up;
	if (up)
		d->st.post_up++;
	else
		d->st.post_down++;
}

/* A DOWN: its penalty (capped), then suppression starts, is re-armed, or
 * (the penalty already at reuse) ends. */
static void damp_down(struct xfab_damp *d, __u64 now_ns)
{
	damp_decay(d, now_ns);
	d->penalty += d->cfg.flap_penalty;
	if (d->penalty > d->ceiling)
		d->penalty = d->ceiling;
	if (!d->suppressed) {
		damp_advertise(d, 0);
		if (d->penalty < d->cfg.suppress_threshold)
			return;
		d->suppressed = 1;
		d->suppressed_since_ns = now_ns;
		d->st.suppressions++;
	} else if (d->penalty <= d->cfg.reuse_threshold) {
		d->suppressed = 0;
		damp_advertise(d, d->actual);
		return;
	}
	d->reuse_ns = damp_reuse_at(d);
}

int xfab_damp_event(struct xfab_damp *d, int up, __u64 now_ns)
{
	up = !!up;
	if (up == d->actual)
		return d->advertised;
	d->actual = up;
	if (up)
		d->st.pre_up++;
	else
		d->st.pre_down++;
	if (!xfab_damp_enabled(&d->cfg)) {
		damp_advertise(d, up);
		return d->advertised;
	}
	if (!up) {
		damp_down(d, now_ns);
		return d->advertised;
	}
	/* an UP adds nothing; it is advertised unless the port is suppressed */
	xfab_damp_tick(d, now_ns);
	if (!d->suppressed)
		damp_advertise(d, 1);
	return d->advertised;
}

int xfab_damp_tick(struct xfab_damp *d, __u64 now_ns)
{
	if (d->suppressed && now_ns >= d->reuse_ns) {
		damp_decay(d, now_ns);
		d->suppressed = 0;
		damp_advertise(d, d->actual);
	}
	return d->advertised;
}

__u64 xfab_damp_next_ns(const struct xfab_damp *d)
{
	return d->suppressed ? d->reuse_ns : 0;
}

const char *xfab_damp_algo_name(__u32 algo)
{
	switch (algo) {
	case XFAB_DAMP_DISABLED:
		return "disabled";
	case XFAB_DAMP_AIED:
		return "aied";
	}
	return NULL;
}
