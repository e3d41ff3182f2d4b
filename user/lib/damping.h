/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Link event damping (docs/OPERATIONS.md, "Flapping links"), as a state
 * machine with no side effects: xfabd (user/agent/damping.c) hands it a
 * port's link events with their time, and acts on the state it advertises.
 * No clock, no map: times are CLOCK_MONOTONIC ns, handed in.
 *
 * The algorithm is SONiC's "aied" (additive increase, exponential decrease),
 * as sonic-net/SONiC doc/link_event_damping/Link-event-damping-HLD.md
 * ("Algorithm for Link Event Damping") defines it, with the behaviour the
 * reference implementation (sonic-sairedis syncd/PortLinkEventDamper)
 * gives where the HLD is loose:
 *   - each link DOWN (up -> down) adds flap_penalty to an accumulated
 *     penalty; an UP adds nothing;
 *   - the penalty always decays, halving every decay_half_life ms:
 *     P(t) = P(t0) * 2^(-(t - t0) / half_life);
 *   - it is capped at the ceiling 2^(max_suppress_time / decay_half_life) *
 *     reuse_threshold (and at 2^32 - 1, as syncd caps it), so that no port
 *     stays suppressed longer than max_suppress_time after its last DOWN;
 *   - a DOWN that brings the penalty to suppress_threshold or above
 *     (syncd's >=; the HLD says "exceeded") starts suppression; that DOWN
 *     itself is advertised (the port was going down anyway);
 *   - while suppressed, no event is advertised: the port stays down; each
 *     DOWN adds its penalty and re-arms the reuse time;
 *   - the reuse time is when the penalty has decayed to reuse_threshold:
 *     t + half_life * log2(P(t) / reuse_threshold); then suppression ends
 *     and the link's actual state (up, if the last event was an UP) is
 *     advertised.
 */
#ifndef XFAB_DAMPING_H
#define XFAB_DAMPING_H

#include <linux/types.h>

/* PORT's link_event_damping_algorithm (SONiC's values) */
enum xfab_damp_algo {
	XFAB_DAMP_DISABLED = 0, /* "disabled", the default */
	XFAB_DAMP_AIED = 1,	/* "aied" */
};

/* A port's damping config: SONiC's PORT fields, their units (ms). */
struct xfab_damp_cfg {
	__u32 algo; /* enum xfab_damp_algo */
	__u32 max_suppress_time_ms;
	__u32 decay_half_life_ms;
	__u32 suppress_threshold;
	__u32 reuse_threshold;
	__u32 flap_penalty;
};

/* Link events as counted before and after damping (SONiC's COUNTERS_DB
 * pre/post-damping transitions). */
struct xfab_damp_stats {
	__u64 pre_up, pre_down;	  /* events received (state changes) */
	__u64 post_up, post_down; /* advertised */
	__u64 suppressions;	  /* times suppression started */
};

/* One port's damper. Zeroed is not a valid state: xfab_damp_init. */
struct xfab_damp {
	struct xfab_damp_cfg cfg;
	double ceiling;		   /* the penalty's cap */
	double penalty;		   /* as of last_ns */
	__u64 last_ns;		   /* when the penalty was last brought up to date */
	__u64 reuse_ns;		   /* suppressed: when suppression ends */
	__u64 suppressed_since_ns; /* suppressed: when it began */
	int actual;		   /* the link as last reported: 1 up */
	int advertised;		   /* what the switch acts on */
	int suppressed;
	struct xfab_damp_stats st;
};

/* Damping is on: algorithm aied and every parameter non-zero (SONiC: a 0
 * parameter disables it). */
int xfab_damp_enabled(const struct xfab_damp_cfg *cfg);
/* The penalty's ceiling for cfg (0 when damping is off). */
double xfab_damp_ceiling(const struct xfab_damp_cfg *cfg);
/* A fresh damper: no penalty, not suppressed, the link as it is now. */
void xfab_damp_init(struct xfab_damp *d, const struct xfab_damp_cfg *cfg, int up, __u64 now_ns);
/* A link event at now_ns (now_ns never goes back): up 1 or 0. An event
 * that repeats the actual state is no transition and changes nothing.
 * Returns the advertised state after it (with damping off, up). */
int xfab_damp_event(struct xfab_damp *d, int up, __u64 now_ns);
/* Time has passed: at or after the reuse time, suppression ends. Returns
 * the advertised state. */
int xfab_damp_tick(struct xfab_damp *d, __u64 now_ns);
/* The penalty at now_ns (decayed; the damper is not changed). */
double xfab_damp_penalty(const struct xfab_damp *d, __u64 now_ns);
/* When xfab_damp_tick must next be called; 0: nothing pending. */
__u64 xfab_damp_next_ns(const struct xfab_damp *d);
/* "disabled" / "aied"; NULL for another value. */
const char *xfab_damp_algo_name(__u32 algo);

#endif
