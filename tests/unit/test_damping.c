// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of link event damping's state machine (user/lib/damping.c).
 * The expectations come from SONiC's HLD (sonic-net/SONiC
 * doc/link_event_damping/Link-event-damping-HLD.md), computed here with
 * exp2/log2 from its formulas, never by asking the code under test:
 *   penalty    P(t) = sum over DOWNs i of flap_penalty * 2^(-(t - t_i) / half_life)
 *              while the ceiling 2^(max_suppress / half_life) * reuse is not
 *              reached; with it, each DOWN's sum is capped (P_i = min(P_i-1
 *              decayed + flap_penalty, ceiling));
 *   suppress   at the DOWN that brings P to suppress_threshold (or above);
 *   reuse      t_last_down + half_life * log2(P(t_last_down) / reuse_threshold),
 *              so never later than max_suppress_time after the last DOWN;
 * and the HLD's own worked example ("Link Event Damping Example"), whose
 * figures it prints as integers.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "damping.h"

#define MS 1000000ull
#define SEC (1000 * MS)

/* The HLD example's config: suppress 1600, reuse 1200, half-life 15 s,
 * max suppress 30 s, penalty 1000 (ceiling 4800). */
static const struct xfab_damp_cfg hld_cfg = {
    .algo = XFAB_DAMP_AIED,
    .max_suppress_time_ms = 30000,
    .decay_half_life_ms = 15000,
    .suppress_threshold = 1600,
    .reuse_threshold = 1200,
    .flap_penalty = 1000,
};

/* The penalty at t of DOWNs at downs[0..n) (ns), capped at each DOWN: the
 * HLD's accumulated-penalty rule, evaluated independently. */
static double want_penalty(const struct xfab_damp_cfg *c, const __u64 *downs, int n, __u64 t)
{
	double half = c->decay_half_life_ms * (double)MS, p = 0;
	double ceiling =
	    exp2((double)c->max_suppress_time_ms / c->decay_half_life_ms) * c->reuse_threshold;

	for (int i = 0; i < n; i++) {
		if (i)
			p *= exp2(-(double)(downs[i] - downs[i - 1]) / half);
		p += c->flap_penalty;
		if (p > ceiling)
			p = ceiling;
	}
	return n ? p * exp2(-(double)(t - downs[n - 1]) / half) : 0;
}

/* The same without any cap: the closed form as a sum. */
static double want_sum(const struct xfab_damp_cfg *c, const __u64 *downs, int n, __u64 t)
{
	double half = c->decay_half_life_ms * (double)MS, p = 0;

	for (int i = 0; i < n; i++)
		p += c->flap_penalty * exp2(-(double)(t - downs[i]) / half);
	return p;
}

static void assert_close(double got, double want)
{
	if (fabs(got - want) > 1e-9 * (fabs(want) > 1 ? fabs(want) : 1))
		fail_msg("penalty %.12g, the formula says %.12g", got, want);
}

/* The HLD's example, event by event: its penalties (integers in the
 * doc: within 1), what is advertised, when damping starts and stops. */
static void test_hld_example(void **state)
{
	static const struct {
		int t_s, up;
		double penalty; /* as the HLD prints it, after the event */
		int suppressed, advertised;
	} ev[] = {
	    {3, 0, 1000, 0, 0},	 {7, 1, 831, 0, 1},   {10, 0, 1723, 1, 0},
	    {14, 1, 1432, 1, 0}, {17, 0, 2247, 1, 0}, {20, 1, 1956, 1, 0},
	};
	struct xfab_damp d;

	(void)state;
	xfab_damp_init(&d, &hld_cfg, 1, 0);
	assert_close(xfab_damp_ceiling(&hld_cfg), 4800);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		__u64 t = ev[i].t_s * SEC;
		int adv = xfab_damp_event(&d, ev[i].up, t);

		if (fabs(xfab_damp_penalty(&d, t) - ev[i].penalty) > 1)
			fail_msg("t=%d: penalty %.1f, the HLD says %.0f", ev[i].t_s,
				 xfab_damp_penalty(&d, t), ev[i].penalty);
		assert_int_equal(d.suppressed, ev[i].suppressed);
		assert_int_equal(adv, ev[i].advertised);
	}
	/* "t = 31: accumulated penalty decays below the reuse threshold":
	 * still down at 30 s, up (the last event was an UP) by 31 s */
	assert_int_equal(xfab_damp_tick(&d, 30 * SEC), 0);
	assert_int_equal(xfab_damp_tick(&d, 31 * SEC), 1);
	assert_int_equal(d.suppressed, 0);
	/* t = 40 DOWN: 776 + 1000, damping again; 44 UP: 1476, held; 46 DOWN:
	 * 2346; t = 61 reuse, but the last event was a DOWN: stays down */
	assert_int_equal(xfab_damp_event(&d, 0, 40 * SEC), 0);
	assert_true(fabs(xfab_damp_penalty(&d, 40 * SEC) - 1776) <= 1);
	assert_int_equal(d.suppressed, 1);
	assert_int_equal(xfab_damp_event(&d, 1, 44 * SEC), 0);
	assert_true(fabs(xfab_damp_penalty(&d, 44 * SEC) - 1476) <= 1);
	assert_int_equal(xfab_damp_event(&d, 0, 46 * SEC), 0);
	assert_true(fabs(xfab_damp_penalty(&d, 46 * SEC) - 2346) <= 1);
	assert_int_equal(xfab_damp_tick(&d, 60 * SEC), 0);
	assert_int_equal(d.suppressed, 1);
	assert_int_equal(xfab_damp_tick(&d, 61 * SEC), 0);
	assert_int_equal(d.suppressed, 0);
	/* t = 70 UP: not damped, advertised at once; the penalty 774 */
	assert_int_equal(xfab_damp_event(&d, 1, 70 * SEC), 1);
	assert_true(fabs(xfab_damp_penalty(&d, 70 * SEC) - 774) <= 1);
}

/* Below the thresholds every flap is advertised as it happens, and the
 * penalty is the closed-form sum at every DOWN and in between. */
static void test_closed_form_sum(void **state)
{
	struct xfab_damp_cfg c = hld_cfg;
	__u64 downs[12];
	struct xfab_damp d;
	int n = 0;

	(void)state;
	c.suppress_threshold = 1000000;	 /* never reached */
	c.max_suppress_time_ms = 600000; /* ceiling 2^40 * 1200: never reached */
	xfab_damp_init(&d, &c, 1, 0);
	for (int i = 0; i < 12; i++) {
		/* uneven gaps: 0.7 s, 2.6 s, 4.5 s, ... */
		__u64 t = (__u64)i * i * 950 * MS + (__u64)i * 700 * MS + 1;

		assert_int_equal(xfab_damp_event(&d, 0, t), 0);
		downs[n++] = t;
		assert_close(xfab_damp_penalty(&d, t), want_sum(&c, downs, n, t));
		assert_int_equal(xfab_damp_event(&d, 1, t + 333 * MS), 1);
		assert_close(xfab_damp_penalty(&d, t + 333 * MS),
			     want_sum(&c, downs, n, t + 333 * MS));
	}
	assert_int_equal(d.st.pre_down, 12);
	assert_int_equal(d.st.post_down, 12);
	assert_int_equal(d.st.post_up, 12);
	assert_int_equal(d.st.suppressions, 0);
}

/* Suppression starts at the DOWN that reaches the threshold exactly, not
 * one before: downs 1 s apart with a 1 s half-life give 1000, 1500, 1750
 * (exact in binary); with the threshold 1500 the second suppresses, with
 * 1501 the third. */
static void test_suppress_threshold(void **state)
{
	struct xfab_damp_cfg c = hld_cfg;
	struct xfab_damp d;

	(void)state;
	c.decay_half_life_ms = 1000;
	c.max_suppress_time_ms = 10000;
	c.reuse_threshold = 750;
	for (__u32 thr = 1500; thr <= 1501; thr++) {
		int at = thr == 1500 ? 2 : 3;

		c.suppress_threshold = thr;
		xfab_damp_init(&d, &c, 1, 0);
		for (int k = 1; k <= 3; k++) {
			__u64 t = (__u64)(k - 1) * SEC;

			xfab_damp_event(&d, 0, t);
			assert_int_equal(d.suppressed, k >= at);
			assert_close(xfab_damp_penalty(&d, t), 2000 - 1000 * exp2(1 - k));
			xfab_damp_event(&d, 1, t + 1);
			assert_int_equal(d.advertised, k < at);
		}
		assert_int_equal(d.st.suppressions, 1);
	}
}

/* A suppressed port comes back at t_last_down + half_life *
 * log2(P / reuse): not one ns before (held down, even with the link up),
 * and at that time, with the link's actual state. */
static void test_reuse_time(void **state)
{
	struct xfab_damp_cfg c = hld_cfg;
	__u64 downs[3] = {0, 500 * MS, 900 * MS}, reuse;
	struct xfab_damp d;
	double p;

	(void)state;
	xfab_damp_init(&d, &c, 1, 0);
	for (int i = 0; i < 3; i++) {
		xfab_damp_event(&d, 0, downs[i]);
		xfab_damp_event(&d, 1, downs[i] + 100 * MS);
	}
	assert_int_equal(d.suppressed, 1);
	p = want_penalty(&c, downs, 3, downs[2]);
	reuse =
	    downs[2] + (__u64)ceil(c.decay_half_life_ms * (double)MS * log2(p / c.reuse_threshold));
	assert_true(xfab_damp_next_ns(&d) >= reuse - 1 && xfab_damp_next_ns(&d) <= reuse + 1);
	assert_int_equal(xfab_damp_tick(&d, reuse - 2), 0);
	assert_int_equal(d.suppressed, 1);
	assert_int_equal(xfab_damp_tick(&d, reuse + 1), 1);
	assert_int_equal(d.suppressed, 0);
	assert_int_equal(xfab_damp_next_ns(&d), 0);
	/* the penalty at reuse is the threshold (within a ns of decay) */
	assert_true(fabs(xfab_damp_penalty(&d, reuse) - c.reuse_threshold) < 1e-3);
	assert_int_equal(d.st.post_up, 2); /* the first UP, and the reuse */
}

/* A DOWN while suppressed adds its penalty and moves the reuse time to
 * the new penalty's; an UP while suppressed moves nothing. */
static void test_rearm(void **state)
{
	struct xfab_damp_cfg c = hld_cfg;
	__u64 downs[4] = {0, 1 * SEC, 2 * SEC, 9 * SEC}, before;
	struct xfab_damp d;
	double p;

	(void)state;
	xfab_damp_init(&d, &c, 1, 0);
	for (int i = 0; i < 3; i++)
		xfab_damp_event(&d, 0, downs[i]), xfab_damp_event(&d, 1, downs[i] + 1);
	before = xfab_damp_next_ns(&d);
	xfab_damp_event(&d, 1, 5 * SEC); /* a repeat: no transition */
	assert_int_equal(xfab_damp_next_ns(&d), before);
	assert_int_equal(xfab_damp_event(&d, 0, downs[3]), 0);
	p = want_penalty(&c, downs, 4, downs[3]);
	assert_close(xfab_damp_penalty(&d, downs[3]), p);
	assert_true(fabs((double)xfab_damp_next_ns(&d) -
			 (downs[3] +
			  c.decay_half_life_ms * (double)MS * log2(p / c.reuse_threshold))) <= 1);
	assert_true(xfab_damp_next_ns(&d) > before);
	/* the kernel repeats a state (a message for another change): a
	 * second DOWN report is no flap, it adds no penalty */
	xfab_damp_event(&d, 0, downs[3] + 10 * MS);
	assert_close(xfab_damp_penalty(&d, downs[3] + 10 * MS),
		     want_penalty(&c, downs, 4, downs[3] + 10 * MS));
	assert_int_equal(d.st.pre_down, 4);
}

/* 20 flaps in 4 s (down every 200 ms, up 100 ms later), the penalty
 * capped at the ceiling: it is the capped recurrence at every DOWN, the
 * port is advertised down once and held, and it returns exactly
 * max_suppress_time after the last DOWN (the ceiling's purpose). */
static void test_flap_storm_capped(void **state)
{
	struct xfab_damp_cfg c = {
	    .algo = XFAB_DAMP_AIED,
	    .max_suppress_time_ms = 6000,
	    .decay_half_life_ms = 2000,
	    .suppress_threshold = 2500,
	    .reuse_threshold = 1000,
	    .flap_penalty = 1000,
	};
	__u64 downs[20], reuse;
	struct xfab_damp d;
	int suppressed_at = -1;

	(void)state;
	xfab_damp_init(&d, &c, 1, 0);
	for (int i = 0; i < 20; i++) {
		downs[i] = (__u64)i * 200 * MS + SEC;
		xfab_damp_event(&d, 0, downs[i]);
		assert_close(xfab_damp_penalty(&d, downs[i]),
			     want_penalty(&c, downs, i + 1, downs[i]));
		if (d.suppressed && suppressed_at < 0)
			suppressed_at = i;
		xfab_damp_event(&d, 1, downs[i] + 100 * MS);
	}
	/* 1000, 1933, 2804 >= 2500: the third DOWN */
	assert_int_equal(suppressed_at, 2);
	assert_close(xfab_damp_penalty(&d, downs[19]), 8000); /* 2^(6/2) * 1000 */
	assert_int_equal(d.st.post_down, 1 + 1 + 1);
	assert_int_equal(d.st.post_up, 2);
	reuse = downs[19] + 6000 * MS;
	assert_true(xfab_damp_next_ns(&d) >= reuse - 1 && xfab_damp_next_ns(&d) <= reuse + 1);
	assert_int_equal(xfab_damp_tick(&d, reuse - 2), 0);
	assert_int_equal(xfab_damp_tick(&d, reuse + 1), 1);
	assert_int_equal(d.st.post_up, 3);
	assert_int_equal(d.st.pre_down, 20);
	assert_int_equal(d.st.pre_up, 20);
}

/* SONiC: algorithm disabled, or any parameter 0, is no damping: every
 * event is advertised as it comes. */
static void test_disabled(void **state)
{
	struct xfab_damp_cfg cs[3] = {hld_cfg, hld_cfg, hld_cfg};
	struct xfab_damp d;

	(void)state;
	cs[0].algo = XFAB_DAMP_DISABLED;
	cs[1].reuse_threshold = 0;
	cs[2].decay_half_life_ms = 0;
	for (int k = 0; k < 3; k++) {
		assert_false(xfab_damp_enabled(&cs[k]));
		xfab_damp_init(&d, &cs[k], 0, 0);
		for (int i = 0; i < 10; i++) {
			assert_int_equal(xfab_damp_event(&d, 1, (__u64)i * MS), 1);
			assert_int_equal(xfab_damp_event(&d, 0, (__u64)i * MS + 1), 0);
		}
		assert_int_equal(d.suppressed, 0);
		assert_int_equal(xfab_damp_next_ns(&d), 0);
	}
	assert_true(xfab_damp_enabled(&hld_cfg));
	assert_string_equal(xfab_damp_algo_name(XFAB_DAMP_AIED), "aied");
	assert_string_equal(xfab_damp_algo_name(XFAB_DAMP_DISABLED), "disabled");
	assert_null(xfab_damp_algo_name(7));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hld_example),
	    cmocka_unit_test(test_closed_form_sum),
	    cmocka_unit_test(test_suppress_threshold),
	    cmocka_unit_test(test_reuse_time),
	    cmocka_unit_test(test_rearm),
	    cmocka_unit_test(test_flap_storm_capped),
	    cmocka_unit_test(test_disabled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
