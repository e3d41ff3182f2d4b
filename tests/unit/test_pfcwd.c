// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the PFC watchdog's state machine (user/lib/pfcwd.c).
 * Each scenario is a queue's polls written out by hand: what the data
 * plane counted at each poll (pause frames, XON among them, the gate, the
 * queue's and the PG's packets) and what SONiC's rule says must follow
 * (docs/PFC.md): the transition, the gate opened, the queue flushed,
 * whether the queue is stormed after it; at the end the storm counters
 * (detected, restored, packets sent/dropped while stormed, in total and
 * for the last storm). The expectations are worked out from the rule, not
 * from the code: a poll charges its elapsed time when frames kept coming,
 * none XON, the gate closed at both samples; detection at a charge of
 * detection_time; restoration at restoration_time without a frame.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pfcwd.h"

#define MS 1000000ull
#define MAX_STEPS 16

/* One poll: the sample, then what must come of it. */
struct wd_step {
	__u64 rx, xon;
	int gated;
	__u64 tx_ok, tx_drop, rx_ok, rx_drop;
	enum pfcwd_transition want;
	int open, flush; /* the verdict's actions */
	int stormed;	 /* the record after the poll */
};

struct wd_scenario {
	const char *name;
	struct pfcwd_settings set;
	__u64 elapsed_ms;
	int n;
	struct wd_step steps[MAX_STEPS];
	/* at the end */
	__u64 detected, restored;
	__u64 tx_ok, tx_drop, rx_ok, rx_drop;			  /* every storm */
	__u64 tx_ok_last, tx_drop_last, rx_ok_last, rx_drop_last; /* the last one */
};

#define S_STAY(rx, xon, g, st)                                                                     \
	{                                                                                          \
		rx, xon, g, 0, 0, 0, 0, PFCWD_STAY, 0, 0, st                                       \
	}
#define S_DET(rx, g, open, flush)                                                                  \
	{                                                                                          \
		rx, 0, g, 0, 0, 0, 0, PFCWD_DETECTED, open, flush, 1                               \
	}
#define S_REST(rx, g)                                                                              \
	{                                                                                          \
		rx, 0, g, 0, 0, 0, 0, PFCWD_RESTORED, 0, 0, 0                                      \
	}

static const struct wd_scenario scenarios[] = {
    {
	.name = "detect: stormed at a charge of exactly detection_time (drop opens and flushes)",
	.set = {XFAB_PFCWD_DROP, 400, 800},
	.elapsed_ms = 200,
	.n = 3,
	.steps = {S_STAY(1, 0, 1, 0), /* first sample: not paused at the last */
		  S_STAY(2, 0, 1, 0), /* charged 200 */
		  S_DET(3, 1, 1, 1)}, /* charged 400 */
	.detected = 1,
    },
    {
	.name = "detect: the charge is the elapsed time (100 ms polls need four)",
	.set = {XFAB_PFCWD_DROP, 400, 800},
	.elapsed_ms = 100,
	.n = 5,
	.steps = {S_STAY(1, 0, 1, 0), S_STAY(2, 0, 1, 0), S_STAY(3, 0, 1, 0), S_STAY(4, 0, 1, 0),
		  S_DET(5, 1, 1, 1)},
	.detected = 1,
    },
    {
	.name = "detect: a charge short of detection_time is no storm (500 ms: three polls)",
	.set = {XFAB_PFCWD_FORWARD, 500, 800},
	.elapsed_ms = 200,
	.n = 4,
	.steps = {S_STAY(1, 0, 1, 0), S_STAY(2, 0, 1, 0), S_STAY(3, 0, 1, 0), /* 400 < 500 */
		  S_DET(4, 1, 1, 0)},
	.detected = 1,
    },
    {
	.name = "no detect: the queue drains (its gate opens) between frames",
	.set = {XFAB_PFCWD_DROP, 400, 800},
	.elapsed_ms = 200,
	.n = 9,
	.steps = {S_STAY(1, 0, 1, 0), S_STAY(2, 0, 1, 0), /* charged 200 */
		  S_STAY(3, 0, 0, 0),			  /* open now: cleared */
		  S_STAY(4, 0, 1, 0),			  /* open at the last sample: 0 */
		  S_STAY(5, 0, 1, 0),			  /* 200 */
		  S_STAY(6, 0, 0, 0),			  /* cleared again */
		  S_STAY(7, 0, 1, 0), S_STAY(8, 0, 1, 0), /* 0, 200 */
		  S_DET(9, 1, 1, 1)},			  /* a storm at last: 400 */
	.detected = 1,
    },
    {
	.name = "no detect: paused, but no pause frame comes any more",
	.set = {XFAB_PFCWD_DROP, 400, 800},
	.elapsed_ms = 200,
	.n = 6,
	.steps = {S_STAY(1, 0, 1, 0), S_STAY(2, 0, 1, 0), S_STAY(2, 0, 1, 0), S_STAY(2, 0, 1, 0),
		  S_STAY(3, 0, 1, 0), S_STAY(3, 0, 1, 0)},
    },
    {
	.name = "no detect: an XON among the frames clears the charge",
	.set = {XFAB_PFCWD_DROP, 400, 800},
	.elapsed_ms = 200,
	.n = 5,
	.steps = {S_STAY(1, 0, 1, 0),
		  S_STAY(2, 0, 1, 0),
		  S_STAY(3, 1, 1, 0),				   /* XON */
		  S_STAY(4, 1, 1, 0),				   /* 200 */
		  {5, 1, 1, 0, 0, 0, 0, PFCWD_DETECTED, 1, 1, 1}}, /* 400 */
	.detected = 1,
    },
    {
	.name = "action forward: the gate opens, nothing is flushed",
	.set = {XFAB_PFCWD_FORWARD, 400, 800},
	.elapsed_ms = 200,
	.n = 3,
	.steps = {S_STAY(1, 0, 1, 0), S_STAY(2, 0, 1, 0), S_DET(3, 1, 1, 0)},
	.detected = 1,
    },
    {
	.name = "action alert: the storm is told, the gate stays, nothing is flushed",
	.set = {XFAB_PFCWD_ALERT, 400, 800},
	.elapsed_ms = 200,
	.n = 3,
	.steps = {S_STAY(1, 0, 1, 0), S_STAY(2, 0, 1, 0), S_DET(3, 1, 0, 0)},
	.detected = 1,
    },
    {
	.name = "restore: after restoration_time without a frame; a frame restarts it",
	.set = {XFAB_PFCWD_DROP, 400, 600},
	.elapsed_ms = 200,
	.n = 10,
	.steps = {S_STAY(1, 0, 1, 0), S_STAY(2, 0, 1, 0), S_DET(3, 1, 1, 1),
		  S_STAY(3, 0, 0, 1), /* quiet 200 */
		  S_STAY(3, 0, 0, 1), /* 400 */
		  S_STAY(4, 0, 0, 1), /* a frame: 0 */
		  S_STAY(4, 0, 0, 1), /* 200 */
		  S_STAY(4, 0, 0, 1), /* 400 */
		  S_REST(4, 0),	      /* 600 */
		  S_STAY(4, 0, 0, 0)},
	.detected = 1,
	.restored = 1,
    },
    {
	.name = "a stormed queue stays stormed while frames keep coming",
	.set = {XFAB_PFCWD_DROP, 400, 400},
	.elapsed_ms = 200,
	.n = 7,
	.steps = {S_STAY(1, 0, 1, 0), S_STAY(2, 0, 1, 0), S_DET(3, 1, 1, 1), S_STAY(4, 0, 1, 1),
		  S_STAY(5, 0, 1, 1), S_STAY(6, 0, 1, 1), S_STAY(7, 0, 1, 1)},
	.detected = 1,
    },
    {
	.name = "counters: packets while stormed, in total and for the last storm",
	.set = {XFAB_PFCWD_DROP, 400, 400},
	.elapsed_ms = 200,
	.n = 9,
	.steps =
	    {
		{1, 0, 1, 100, 0, 50, 0, PFCWD_STAY, 0, 0, 0},
		{2, 0, 1, 100, 0, 50, 0, PFCWD_STAY, 0, 0, 0},	    /* charged 200 */
		{3, 0, 1, 110, 1, 60, 2, PFCWD_DETECTED, 1, 1, 1},  /* from (110,1,60,2) */
		{4, 0, 0, 150, 5, 70, 12, PFCWD_STAY, 0, 0, 1},	    /* +40 +4 +10 +10 */
		{4, 0, 0, 200, 5, 80, 12, PFCWD_STAY, 0, 0, 1},	    /* quiet 200 */
		{4, 0, 1, 300, 5, 80, 12, PFCWD_RESTORED, 0, 0, 0}, /* quiet 400: 190 4 20 10 */
		{5, 0, 1, 400, 5, 85, 12, PFCWD_STAY, 0, 0, 0},	    /* charged 200 afresh */
		{6, 0, 1, 410, 5, 90, 12, PFCWD_DETECTED, 1, 1, 1}, /* from (410,5,90,12) */
		{6, 0, 0, 415, 8, 91, 15, PFCWD_STAY, 0, 0, 1},	    /* quiet 200 afresh */
	    },
	.detected = 2,
	.restored = 1,
	.tx_ok = 195,
	.tx_drop = 7,
	.rx_ok = 21,
	.rx_drop = 13,
	.tx_ok_last = 5,
	.tx_drop_last = 3,
	.rx_ok_last = 1,
	.rx_drop_last = 3,
    },
};

static void run_scenario(const struct wd_scenario *sc)
{
	struct pfcwd_queue q;
	struct xfab_pfc_queue rec;

	memset(&q, 0, sizeof(q));
	memset(&rec, 0, sizeof(rec));
	rec.pauses = 77; /* a field that is not the watchdog's */
	for (int i = 0; i < sc->n; i++) {
		const struct wd_step *st = &sc->steps[i];
		struct pfcwd_sample s = {st->rx,      st->xon,	 st->gated,  st->tx_ok,
					 st->tx_drop, st->rx_ok, st->rx_drop};
		struct pfcwd_verdict v =
		    xfab_pfcwd_step(&q, &rec, &sc->set, &s, sc->elapsed_ms * MS);

		if (v.transition != st->want || v.open_gate != st->open || v.flush != st->flush ||
		    rec.stormed != st->stormed)
			fail_msg("%s: poll %d: transition %d open %d flush %d stormed %d, "
				 "expected %d %d %d %d",
				 sc->name, i + 1, v.transition, v.open_gate, v.flush, rec.stormed,
				 st->want, st->open, st->flush, st->stormed);
	}
	assert_int_equal(rec.storms_detected, sc->detected);
	assert_int_equal(rec.storms_restored, sc->restored);
	assert_int_equal(rec.wd_tx_ok, sc->tx_ok);
	assert_int_equal(rec.wd_tx_drop, sc->tx_drop);
	assert_int_equal(rec.wd_rx_ok, sc->rx_ok);
	assert_int_equal(rec.wd_rx_drop, sc->rx_drop);
	assert_int_equal(rec.wd_tx_ok_last, sc->tx_ok_last);
	assert_int_equal(rec.wd_tx_drop_last, sc->tx_drop_last);
	assert_int_equal(rec.wd_rx_ok_last, sc->rx_ok_last);
	assert_int_equal(rec.wd_rx_drop_last, sc->rx_drop_last);
	assert_int_equal(rec.pauses, 77);
	assert_int_equal(rec.gated, 0);
}

static void test_scenarios(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		run_scenario(&scenarios[i]);
}

/* The data plane's bits: drop ignores pause and discards, forward only
 * ignores pause, alert and off touch nothing. */
static void test_bits(void **state)
{
	static const struct {
		__u8 stormed, action, ignore, drop;
	} rows[] = {
	    {0x00, XFAB_PFCWD_DROP, 0x00, 0x00},    {0x08, XFAB_PFCWD_DROP, 0x08, 0x08},
	    {0x18, XFAB_PFCWD_DROP, 0x18, 0x18},    {0x18, XFAB_PFCWD_FORWARD, 0x18, 0x00},
	    {0x18, XFAB_PFCWD_ALERT, 0x00, 0x00},   {0x18, XFAB_PFCWD_OFF, 0x00, 0x00},
	    {0xff, XFAB_PFCWD_FORWARD, 0xff, 0x00},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		__u8 ignore = 0x55, drop = 0x55;

		xfab_pfcwd_bits(rows[i].stormed, rows[i].action, &ignore, &drop);
		assert_int_equal(ignore, rows[i].ignore);
		assert_int_equal(drop, rows[i].drop);
	}
}

/* The driver's calls for a verdict, in order: a string of b (bits), f
 * (flush), o (open). */
static char wd_calls[8];
static int wd_flush_err;

static void wd_call(char c)
{
	size_t n = strlen(wd_calls);

	if (n + 1 < sizeof(wd_calls))
		wd_calls[n] = c;
}
static void wd_bits(void *ctx)
{
	(void)ctx;
	wd_call('b');
}
static int wd_flush(void *ctx)
{
	(void)ctx;
	wd_call('f');
	return wd_flush_err;
}
static void wd_open(void *ctx)
{
	(void)ctx;
	wd_call('o');
}

/* What each action's detection and a restoration make the driver do, in
 * order: the bits before anything (drop must discard what arrives while
 * the queue empties); drop empties the queue before it opens the gate
 * (opened first, the packets the gate held would leave, not be dropped:
 * found by test_pfcwd_lab.sh); forward only opens; alert and a
 * restoration only write the bits (alert's are none: the queue stays
 * paused); nothing without a transition. A failed flush is reported and
 * the gate still opens. */
static void test_carry_out(void **state)
{
	static const struct {
		struct pfcwd_verdict v;
		int flush_err;
		const char *calls;
		int ret;
	} rows[] = {
	    {{PFCWD_DETECTED, 1, 1}, 0, "bfo", 0},   /* drop */
	    {{PFCWD_DETECTED, 1, 0}, 0, "bo", 0},    /* forward */
	    {{PFCWD_DETECTED, 0, 0}, 0, "b", 0},     /* alert */
	    {{PFCWD_RESTORED, 0, 0}, 0, "b", 0},     /* any action */
	    {{PFCWD_STAY, 0, 0}, 0, "", 0},	     /* nothing happened */
	    {{PFCWD_DETECTED, 1, 1}, -5, "bfo", -5}, /* the flush failed */
	};
	const struct pfcwd_ops ops = {wd_bits, wd_flush, wd_open};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(wd_calls, 0, sizeof(wd_calls));
		wd_flush_err = rows[i].flush_err;
		assert_int_equal(xfab_pfcwd_carry_out(&rows[i].v, &ops, NULL), rows[i].ret);
		assert_string_equal(wd_calls, rows[i].calls);
	}
}

/* A gate closes for a deadline ahead of now, not for one passed, and not
 * for a queue whose pause the watchdog ignores (drop, forward), whatever
 * the deadline; another priority's ignore bit does not count. */
static void test_gate_closes(void **state)
{
	(void)state;
	assert_true(xfab_pfcwd_gate_closes(2000, 1000, 0x00, 3));
	assert_false(xfab_pfcwd_gate_closes(1000, 1000, 0x00, 3));
	assert_false(xfab_pfcwd_gate_closes(0, 1000, 0x00, 3));
	assert_false(xfab_pfcwd_gate_closes(2000, 1000, 0x08, 3));
	assert_true(xfab_pfcwd_gate_closes(2000, 1000, 0x10, 3));
	assert_false(xfab_pfcwd_gate_closes(2000, 1000, 0xff, 0));
}

static void test_action_name(void **state)
{
	(void)state;
	assert_string_equal(xfab_pfcwd_action_name(XFAB_PFCWD_DROP), "drop");
	assert_string_equal(xfab_pfcwd_action_name(XFAB_PFCWD_FORWARD), "forward");
	assert_string_equal(xfab_pfcwd_action_name(XFAB_PFCWD_ALERT), "alert");
	assert_string_equal(xfab_pfcwd_action_name(XFAB_PFCWD_OFF), "off");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scenarios),	cmocka_unit_test(test_bits),
	    cmocka_unit_test(test_carry_out),	cmocka_unit_test(test_gate_closes),
	    cmocka_unit_test(test_action_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
