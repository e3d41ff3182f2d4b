// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the ingress accounting's safety net (user/lib/pfcacct.c),
 * the rules by which xfabd corrects priority groups and keeps its pause in
 * step with the data plane:
 *   - the bound (a PG never counts more than its priority's bytes queued
 *     on the switch's other ports) and its correction, with the xoff flag
 *     cleared as the data plane clears it;
 *   - the pause following the data plane's flag (XON when xfabd asks and
 *     the flag is down: the host paused for good otherwise);
 *   - the sweep of the egress split, against a model of a switch written
 *     here: packets queued FIFO per egress port, each charged to its PG and
 *     its share at that egress, given back as it leaves except for missed
 *     give-backs (every 7th packet here; about one in a few hundred on the
 *     lab). The oracle is the model's own list of queued packets: after a
 *     sweep every PG counts at least what it really has queued, exactly
 *     what it has queued plus what it missed at queues that still hold
 *     something, and nothing once every queue has drained.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pfcacct.h"

static void test_bound(void **state)
{
	(void)state;
	assert_int_equal(xfab_pg_bound(10000, 4000), 6000);
	assert_int_equal(xfab_pg_bound(4000, 4000), 0);
	assert_int_equal(xfab_pg_bound(0, 0), 0);
	assert_int_equal(xfab_pg_bound(1000, 3000), 0); /* never below 0 */
}

static void test_resync(void **state)
{
	__u64 occ = 12345;
	__u32 xoff = 7;

	(void)state;
	/* within its bound: nothing written */
	assert_int_equal(xfab_pg_resync(5000, 1, 9000, 5000, &occ, &xoff), 0);
	assert_int_equal(xfab_pg_resync(0, 0, 9000, 0, &occ, &xoff), 0);
	assert_int_equal(occ, 12345);
	assert_int_equal(xoff, 7);
	/* above: set to the bound; the flag cleared below XON */
	assert_int_equal(xfab_pg_resync(14000, 1, 9000, 3000, &occ, &xoff), 1);
	assert_int_equal(occ, 3000);
	assert_int_equal(xoff, 0);
	/* ... kept at or above XON (the data plane clears it on a give-back) */
	assert_int_equal(xfab_pg_resync(14000, 1, 9000, 9000, &occ, &xoff), 1);
	assert_int_equal(occ, 9000);
	assert_int_equal(xoff, 1);
	assert_int_equal(xfab_pg_resync(20000, 1, 9000, 12000, &occ, &xoff), 1);
	assert_int_equal(xoff, 1);
	/* ... cleared at 0 even with an XON threshold of 0 */
	assert_int_equal(xfab_pg_resync(20000, 1, 0, 0, &occ, &xoff), 1);
	assert_int_equal(occ, 0);
	assert_int_equal(xoff, 0);
	/* a flag that was down stays down */
	assert_int_equal(xfab_pg_resync(20000, 0, 9000, 12000, &occ, &xoff), 1);
	assert_int_equal(xoff, 0);
}

static void test_follow(void **state)
{
	(void)state;
	assert_int_equal(xfab_pg_follow(0, 0), XFAB_PG_KEEP);
	assert_int_equal(xfab_pg_follow(1, 1), XFAB_PG_KEEP);
	/* the XON event lost or handled first: xfabd still asks, the flag is
	 * down, nothing would ever end the pause */
	assert_int_equal(xfab_pg_follow(1, 0), XFAB_PG_SEND_XON);
	assert_int_equal(xfab_pg_follow(8, 0), XFAB_PG_SEND_XON); /* any bit of the mask */
	/* the XOFF event lost: the flag is up, the peer never asked */
	assert_int_equal(xfab_pg_follow(0, 1), XFAB_PG_SEND_XOFF);
}

static void test_take(void **state)
{
	__u32 xoff = 9;

	(void)state;
	assert_int_equal(xfab_pg_take(20000, 8000, 1, 9000, &xoff), 12000);
	assert_int_equal(xoff, 1);
	assert_int_equal(xfab_pg_take(20000, 12000, 1, 9000, &xoff), 8000);
	assert_int_equal(xoff, 0);
	assert_int_equal(xfab_pg_take(5000, 8000, 1, 0, &xoff), 0); /* never below 0 */
	assert_int_equal(xoff, 0);
	assert_int_equal(xfab_pg_take(20000, 0, 0, 9000, &xoff), 20000);
	assert_int_equal(xoff, 0);
}

/* ---- the sweep against a model switch ---- */

#define NP 4	     /* ports: slots 1, 2, 5, 63 (any slots, not 0..n-1) */
#define PRIO 3	     /* lossless */
#define QCAP 256     /* packets a model queue holds */
#define MISS_EVERY 7 /* every 7th give-back missed */

static const __u32 SLOTS[NP] = {1, 2, 5, 63};

struct pkt {
	__u32 in; /* ingress slot */
	__u32 len;
};

struct model {
	__u64 eg[XFAB_PFC_EG_ENTRIES]; /* the data plane's split (what the sweep sees) */
	__u64 occ[XFAB_MAX_PORTS];     /* the data plane's PG occupancy, prio PRIO */
	struct pkt q[XFAB_MAX_PORTS][QCAP];
	__u32 head[XFAB_MAX_PORTS], n[XFAB_MAX_PORTS];
	__u64 gives; /* give-backs so far (every MISS_EVERY-th missed) */
	__u64 missed;
};

static struct model M;

static void enqueue(__u32 in, __u32 out, __u32 len)
{
	struct pkt *p;

	assert_true(M.n[out] < QCAP);
	p = &M.q[out][(M.head[out] + M.n[out]++) % QCAP];
	p->in = in;
	p->len = len;
	M.eg[XFAB_PFC_EG_KEY(out, in, PRIO)] += len; /* the charge */
	M.occ[in] += len;
}

static __u64 sub0(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

static void dequeue(__u32 out)
{
	struct pkt *p;

	assert_true(M.n[out] > 0);
	p = &M.q[out][M.head[out]];
	M.head[out] = (M.head[out] + 1) % QCAP;
	M.n[out]--;
	if (++M.gives % MISS_EVERY == 0) { /* the tracepoint did not fire */
		M.missed += p->len;
		return;
	}
	M.eg[XFAB_PFC_EG_KEY(out, p->in, PRIO)] =
	    sub0(M.eg[XFAB_PFC_EG_KEY(out, p->in, PRIO)], p->len);
	M.occ[p->in] = sub0(M.occ[p->in], p->len);
}

/* What the model really holds of PG in (at out; out == -1: anywhere). */
static __u64 truly(__u32 in, int out)
{
	__u64 b = 0;

	for (int o = 0; o < NP; o++) {
		__u32 s = SLOTS[o];

		if (out >= 0 && (__u32)out != s)
			continue;
		for (__u32 k = 0; k < M.n[s]; k++) {
			const struct pkt *p = &M.q[s][(M.head[s] + k) % QCAP];

			if (p->in == in)
				b += p->len;
		}
	}
	return b;
}

/* xfabd's poll: the queues' backlogs, the sweep, each PG less its take. */
static __u64 poll_sweep(void)
{
	static __u64 queued[XFAB_MAX_PORTS][XFAB_NUM_PRIO], leak[XFAB_MAX_PORTS][XFAB_NUM_PRIO];
	__u64 took;

	memset(queued, 0, sizeof(queued));
	memset(leak, 0, sizeof(leak));
	for (int o = 0; o < NP; o++)
		queued[SLOTS[o]][PRIO] =
		    truly(SLOTS[0], (int)SLOTS[o]) + truly(SLOTS[1], (int)SLOTS[o]) +
		    truly(SLOTS[2], (int)SLOTS[o]) + truly(SLOTS[3], (int)SLOTS[o]);
	/* priority 4 named too: its entries (all 0 here) are left alone */
	took = xfab_pg_sweep(M.eg, SLOTS, NP, (1u << PRIO) | (1u << 4),
			     (const __u64(*)[XFAB_NUM_PRIO])queued, leak);
	for (int i = 0; i < NP; i++) {
		__u32 x;

		M.occ[SLOTS[i]] = xfab_pg_take(M.occ[SLOTS[i]], leak[SLOTS[i]][PRIO], 0, 0, &x);
		assert_int_equal(leak[SLOTS[i]][4], 0);
	}
	/* an empty queue's entries are all taken */
	for (int o = 0; o < NP; o++)
		for (int i = 0; i < NP; i++)
			if (!queued[SLOTS[o]][PRIO])
				assert_int_equal(M.eg[XFAB_PFC_EG_KEY(SLOTS[o], SLOTS[i], PRIO)],
						 0);
	return took;
}

/* After a sweep: each PG counts what it truly has queued, plus exactly
 * what its share at a still busy queue missed (the model knows: the split
 * at such a queue less what truly waits there). */
static void check_pgs(void)
{
	for (int i = 0; i < NP; i++) {
		__u32 in = SLOTS[i];
		__u64 extra = 0;

		for (int o = 0; o < NP; o++)
			extra +=
			    M.eg[XFAB_PFC_EG_KEY(SLOTS[o], in, PRIO)] - truly(in, (int)SLOTS[o]);
		assert_true(M.occ[in] >= truly(in, -1));
		assert_int_equal(M.occ[in], truly(in, -1) + extra);
	}
}

static void test_sweep_model(void **state)
{
	__u32 rnd = 12345, swept = 0, polls = 0;

	(void)state;
	memset(&M, 0, sizeof(M));
	for (int step = 0; step < 20000; step++) {
		__u32 r;

		rnd = rnd * 1103515245u + 12345u;
		r = rnd >> 8;
		if (r % 3 != 2) { /* a packet in at one port, out at another */
			__u32 in = SLOTS[r % NP], out = SLOTS[(r / NP) % NP];
			__u32 len = (r / 64) % 2 ? 1082 : 62;

			if (in == out)
				out = SLOTS[(r / NP + 1) % NP];
			if (M.n[out] < QCAP - 1)
				enqueue(in, out, len);
		}
		/* the queues drain, out of step with each other: port 63 slowly */
		for (int o = 0; o < NP; o++)
			if (M.n[SLOTS[o]] && (SLOTS[o] != 63 || step % 3 == 0) && (r >> o) % 2)
				dequeue(SLOTS[o]);
		if (step % 97 == 0) {
			swept += (__u32)(poll_sweep() > 0);
			polls++;
			check_pgs();
		}
	}
	assert_true(M.missed > 0);
	assert_true(swept > 0);
	/* everything drains: nothing counted anywhere after one more sweep */
	for (int o = 0; o < NP; o++)
		while (M.n[SLOTS[o]])
			dequeue(SLOTS[o]);
	poll_sweep();
	for (int i = 0; i < NP; i++)
		assert_int_equal(M.occ[SLOTS[i]], 0);
	for (size_t k = 0; k < XFAB_PFC_EG_ENTRIES; k++)
		assert_int_equal(M.eg[k], 0);
	print_message("    %llu bytes of give-backs missed, taken back in %u of %u polls\n",
		      (unsigned long long)M.missed, swept, polls);
}

/* Without the sweep, the same traffic leaves the PGs counting what was
 * missed (the drift that kept the lab's switches pausing each other). */
static void test_drift_without_sweep(void **state)
{
	__u64 left = 0;

	(void)state;
	memset(&M, 0, sizeof(M));
	for (int k = 0; k < 70; k++)
		enqueue(SLOTS[k % 2], SLOTS[2 + k % 2], 1082);
	for (int o = 2; o < 4; o++)
		while (M.n[SLOTS[o]])
			dequeue(SLOTS[o]);
	for (int i = 0; i < NP; i++)
		left += M.occ[SLOTS[i]];
	assert_int_equal(left, M.missed);
	assert_int_equal(M.missed, 10 * 1082);
	assert_int_equal(poll_sweep(), 10 * 1082);
	for (int i = 0; i < NP; i++)
		assert_int_equal(M.occ[SLOTS[i]], 0);
}

/* Slots outside the ports, and priorities outside the mask, are left
 * alone. */
static void test_sweep_bounds(void **state)
{
	static __u64 queued[XFAB_MAX_PORTS][XFAB_NUM_PRIO], leak[XFAB_MAX_PORTS][XFAB_NUM_PRIO];
	const __u32 slots[3] = {0, 7, 64}; /* 64: no such slot */

	(void)state;
	memset(&M, 0, sizeof(M));
	memset(leak, 0, sizeof(leak));
	M.eg[XFAB_PFC_EG_KEY(0, 7, 3)] = 500;
	M.eg[XFAB_PFC_EG_KEY(0, 7, 4)] = 600; /* priority not swept */
	M.eg[XFAB_PFC_EG_KEY(0, 9, 3)] = 700; /* ingress not among the ports */
	M.eg[XFAB_PFC_EG_KEY(7, 0, 3)] = 800; /* its queue holds something */
	queued[7][3] = 800;
	assert_int_equal(
	    xfab_pg_sweep(M.eg, slots, 3, 1u << 3, (const __u64(*)[XFAB_NUM_PRIO])queued, leak),
	    500);
	assert_int_equal(leak[7][3], 500);
	assert_int_equal(M.eg[XFAB_PFC_EG_KEY(0, 7, 3)], 0);
	assert_int_equal(M.eg[XFAB_PFC_EG_KEY(0, 7, 4)], 600);
	assert_int_equal(M.eg[XFAB_PFC_EG_KEY(0, 9, 3)], 700);
	assert_int_equal(M.eg[XFAB_PFC_EG_KEY(7, 0, 3)], 800);
	assert_int_equal(leak[0][3], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bound),	 cmocka_unit_test(test_resync),
	    cmocka_unit_test(test_follow),	 cmocka_unit_test(test_take),
	    cmocka_unit_test(test_sweep_model),	 cmocka_unit_test(test_drift_without_sweep),
	    cmocka_unit_test(test_sweep_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
