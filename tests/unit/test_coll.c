// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the collectives' schedule and data (user/lib/coll.c): the
 * ring's blocks per rank and step against tables worked out by hand from
 * NCCL's ring (allreduce = reduce-scatter then all-gather), every rank of
 * a job simulated in memory step by step (each step's sends read before
 * any receive lands, as on a wire) for several rank counts, channels, QPs,
 * rr and split, uneven sizes, every operation, and the result compared
 * element by element with an oracle computed here from the documented
 * data formula (sums over ranks by loop, not the closed form); how a step
 * is cut into messages and spread over QPs (a worked example, and that
 * every element of every chunk goes exactly once); the check finding a
 * planted error; nccl-tests' bandwidth formulas against its documentation;
 * finding the message of a packet (xfab-coll's send position after a
 * rewind) against a linear scan.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coll.h"

/* The documented data formula (coll.h), written again here. */
static uint32_t oracle_value(uint32_t rank, uint64_t i)
{
	uint32_t x = (uint32_t)i, g = (x * 0x9e3779b1u) ^ (x >> 5),
		 h = x * 0x85ebca6bu + 0x27d4eb2fu;

	return g + (rank + 1) * h;
}

static uint32_t oracle_sum(uint32_t n, uint64_t i)
{
	uint32_t s = 0;

	for (uint32_t r = 0; r < n; r++)
		s += oracle_value(r, i);
	return s;
}

static void test_value_and_sum(void **state)
{
	(void)state;
	for (uint64_t i = 0; i < 5000; i += 7) {
		assert_int_equal(xfab_coll_value(0, i), oracle_value(0, i));
		assert_int_equal(xfab_coll_value(63, i), oracle_value(63, i));
	}
	/* the closed form against the loop, every rank count */
	for (uint32_t n = 2; n <= 64; n++)
		for (uint64_t i = 0; i < 100000; i += 9973)
			assert_int_equal(xfab_coll_sum(n, i), oracle_sum(n, i));
	assert_int_equal(xfab_coll_sum(8, 0xfffffffeull), oracle_sum(8, 0xfffffffeull));
	/* value 0 of rank 0 worked by hand: g(0) = 0, h(0) = 0x27d4eb2f */
	assert_int_equal(xfab_coll_value(0, 0), 0x27d4eb2fu);
	assert_int_equal(xfab_coll_value(2, 0), 3u * 0x27d4eb2fu);
}

/* NCCL's ring for 4 ranks, worked by hand: reduce-scatter step t sends
 * chunk r - t and adds chunk r - t - 1; all-gather step s sends r + 1 - s
 * (the chunk it owns first) and copies r - s. */
static void test_ring_tables(void **state)
{
	static const struct {
		enum xfab_job_op op;
		uint32_t rank;
		uint32_t send[6], recv[6];
		int reduces[6];
	} cases[] = {
	    {XFAB_JOB_ALLREDUCE, 0, {0, 3, 2, 1, 0, 3}, {3, 2, 1, 0, 3, 2}, {1, 1, 1, 0, 0, 0}},
	    {XFAB_JOB_ALLREDUCE, 2, {2, 1, 0, 3, 2, 1}, {1, 0, 3, 2, 1, 0}, {1, 1, 1, 0, 0, 0}},
	    /* reducescatter ends with rank r owning block r */
	    {XFAB_JOB_REDUCESCATTER, 0, {3, 2, 1}, {2, 1, 0}, {1, 1, 1}},
	    {XFAB_JOB_REDUCESCATTER, 3, {2, 1, 0}, {1, 0, 3}, {1, 1, 1}},
	    /* allgather: its own block first */
	    {XFAB_JOB_ALLGATHER, 0, {0, 3, 2}, {3, 2, 1}, {0, 0, 0}},
	    {XFAB_JOB_ALLGATHER, 1, {1, 0, 3}, {0, 3, 2}, {0, 0, 0}},
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint32_t steps = xfab_coll_steps(cases[c].op, 4);

		assert_int_equal(steps, cases[c].op == XFAB_JOB_ALLREDUCE ? 6 : 3);
		for (uint32_t t = 0; t < steps; t++) {
			if (xfab_coll_send_block(cases[c].op, 4, cases[c].rank, t) !=
				cases[c].send[t] ||
			    xfab_coll_recv_block(cases[c].op, 4, cases[c].rank, t) !=
				cases[c].recv[t] ||
			    xfab_coll_step_reduces(cases[c].op, 4, t) != cases[c].reduces[t])
				fail_msg("case %zu step %u: send %u recv %u reduces %d", c, t,
					 xfab_coll_send_block(cases[c].op, 4, cases[c].rank, t),
					 xfab_coll_recv_block(cases[c].op, 4, cases[c].rank, t),
					 xfab_coll_step_reduces(cases[c].op, 4, t));
		}
	}
	assert_int_equal(xfab_coll_steps(XFAB_JOB_ALLTOALL, 8), 1);
	assert_int_equal(xfab_coll_steps(XFAB_JOB_ALLREDUCE, 8), 14);
}

/* On every ring, what r + 1 receives at a step is what r sends. */
static void test_ring_agrees(void **state)
{
	static const enum xfab_job_op ops[] = {XFAB_JOB_ALLREDUCE, XFAB_JOB_REDUCESCATTER,
					       XFAB_JOB_ALLGATHER};

	(void)state;
	for (uint32_t n = 2; n <= 16; n++)
		for (size_t o = 0; o < 3; o++)
			for (uint32_t t = 0; t < xfab_coll_steps(ops[o], n); t++)
				for (uint32_t r = 0; r < n; r++)
					assert_int_equal(
					    xfab_coll_recv_block(ops[o], n, (r + 1) % n, t),
					    xfab_coll_send_block(ops[o], n, r, t));
}

/* Every rank of a job in memory. */
struct sim {
	struct xfab_coll_geom g;
	uint32_t *buf[XFAB_JOB_MAX_RANKS], *recv[XFAB_JOB_MAX_RANKS];
};

struct pending {
	uint32_t dst;
	struct xfab_coll_msg m;
	uint32_t *data;
};

/* Runs the job: at each step, every connection's messages of that step
 * are read from their senders first, then delivered (a wire between). */
static void simulate(struct sim *s)
{
	struct xfab_coll_geom *g = &s->g;
	uint32_t steps = xfab_coll_steps(g->op, g->n);
	size_t cap = 4096, np = 0;
	struct pending *p = calloc(cap, sizeof(*p));
	struct xfab_coll_msg *msgs = calloc(100000, sizeof(*msgs));
	uint8_t *mark = calloc(g->elems, 1);

	assert_non_null(p);
	assert_non_null(msgs);
	assert_non_null(mark);
	for (uint32_t r = 0; r < g->n; r++)
		xfab_coll_fill(g, r, s->buf[r], s->recv[r]);
	for (uint32_t t = 0; t < steps; t++) {
		np = 0;
		for (uint32_t src = 0; src < g->n; src++)
			for (uint32_t dst = 0; dst < g->n; dst++) {
				if (dst == src ||
				    (g->op != XFAB_JOB_ALLTOALL && dst != (src + 1) % g->n))
					continue;
				memset(mark, 0, g->elems);
				for (uint32_t c = 0; c < g->channels; c++) {
					size_t k =
					    xfab_coll_msgs(g, src, dst, c, g->qps, msgs, 100000);

					assert_true(k <= 100000);
					for (size_t i = 0; i < k; i++) {
						if (msgs[i].step != t)
							continue;
						assert_true(msgs[i].len > 0);
						assert_true(msgs[i].src_off + msgs[i].len <=
							    g->elems);
						for (uint32_t e = 0; e < msgs[i].len; e++)
							mark[msgs[i].src_off + e]++;
						if (np == cap) {
							struct pending *grown;

							cap *= 2;
							grown = realloc(p, cap * sizeof(*p));
							assert_non_null(grown);
							p = grown;
						}
						p[np].dst = dst;
						p[np].m = msgs[i];
						p[np].data = malloc((size_t)msgs[i].len * 4);
						assert_non_null(p[np].data);
						memcpy(p[np].data, s->buf[src] + msgs[i].src_off,
						       (size_t)msgs[i].len * 4);
						np++;
					}
				}
				/* the step moves the whole block the schedule names,
				 * every element once */
				{
					uint32_t blk =
					    g->op == XFAB_JOB_ALLTOALL
						? dst
						: xfab_coll_send_block(g->op, g->n, src, t);

					for (uint64_t e = 0; e < g->elems; e++)
						if (mark[e] != (e / g->m == blk))
							fail_msg("n %u op %d step %u %u->%u: "
								 "element %llu sent %u times",
								 g->n, g->op, t, src, dst,
								 (unsigned long long)e, mark[e]);
				}
			}
		for (size_t i = 0; i < np; i++) {
			uint32_t *to =
			    (g->op == XFAB_JOB_ALLTOALL ? s->recv[p[i].dst] : s->buf[p[i].dst]) +
			    p[i].m.dst_off;

			if (p[i].m.reduce)
				xfab_coll_reduce(to, p[i].data, p[i].m.len);
			else
				memcpy(to, p[i].data, (size_t)p[i].m.len * 4);
			free(p[i].data);
		}
	}
	free(p);
	free(msgs);
	free(mark);
}

/* What rank r must hold at element i, from the oracle; 0: not checked. */
static int oracle_expect(const struct xfab_coll_geom *g, uint32_t r, uint64_t i, uint32_t *want)
{
	uint64_t m = g->m, blk = i / m;

	switch (g->op) {
	case XFAB_JOB_ALLREDUCE:
		*want = oracle_sum(g->n, i);
		return 1;
	case XFAB_JOB_REDUCESCATTER:
		*want = oracle_sum(g->n, i);
		return blk == r;
	case XFAB_JOB_ALLGATHER: /* block p is rank p's own */
		*want = oracle_value((uint32_t)blk, i);
		return 1;
	default: /* rank blk's send block r, at r's block blk */
		*want = oracle_value((uint32_t)blk, r * m + (i - blk * m));
		return 1;
	}
}

static void run_case(enum xfab_job_op op, enum xfab_job_qp_mode mode, uint32_t n, uint32_t ch,
		     uint32_t qps, uint64_t bytes, uint32_t msg_bytes)
{
	struct sim s;
	char err[160];

	assert_int_equal(
	    xfab_coll_geom_init(&s.g, op, mode, n, ch, qps, bytes, msg_bytes, err, sizeof(err)), 0);
	assert_int_equal(s.g.bytes, bytes / (4ull * n) * 4 * n);
	for (uint32_t r = 0; r < n; r++) {
		s.buf[r] = malloc(s.g.elems * 4);
		s.recv[r] = malloc(s.g.elems * 4);
		assert_non_null(s.buf[r]);
		assert_non_null(s.recv[r]);
	}
	simulate(&s);
	for (uint32_t r = 0; r < n; r++) {
		const uint32_t *res = op == XFAB_JOB_ALLTOALL ? s.recv[r] : s.buf[r];
		uint32_t got, want;

		for (uint64_t i = 0; i < s.g.elems; i++)
			if (oracle_expect(&s.g, r, i, &want) && res[i] != want)
				fail_msg(
				    "%s %s n %u channels %u qps %u bytes %llu: rank %u element "
				    "%llu is 0x%08x, want 0x%08x",
				    xfab_job_op_name(op), xfab_job_qp_mode_name(mode), n, ch, qps,
				    (unsigned long long)bytes, r, (unsigned long long)i, res[i],
				    want);
		assert_int_equal(xfab_coll_check(&s.g, r, res, &got, &want), -1);
	}
	for (uint32_t r = 0; r < n; r++) {
		free(s.buf[r]);
		free(s.recv[r]);
	}
}

static void test_simulate(void **state)
{
	static const enum xfab_job_op ops[] = {XFAB_JOB_ALLREDUCE, XFAB_JOB_ALLGATHER,
					       XFAB_JOB_REDUCESCATTER, XFAB_JOB_ALLTOALL};
	static const uint32_t ns[] = {2, 3, 4, 5, 8};
	static const struct {
		uint32_t ch, qps;
		enum xfab_job_qp_mode mode;
	} shapes[] = {{1, 1, XFAB_JOB_QP_RR},
		      {2, 3, XFAB_JOB_QP_RR},
		      {3, 2, XFAB_JOB_QP_SPLIT},
		      {1, 4, XFAB_JOB_QP_SPLIT}};

	(void)state;
	for (size_t o = 0; o < 4; o++)
		for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++)
			for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
				uint32_t n = ns[k];

				/* even, uneven (taken down), a block smaller
				 * than the channels, many messages */
				run_case(ops[o], shapes[sh].mode, n, shapes[sh].ch, shapes[sh].qps,
					 4ull * n * 40, 64);
				run_case(ops[o], shapes[sh].mode, n, shapes[sh].ch, shapes[sh].qps,
					 4ull * n * 37 + 4ull * n - 1, 28);
				run_case(ops[o], shapes[sh].mode, n, shapes[sh].ch, shapes[sh].qps,
					 4ull * n, 64);
				run_case(ops[o], shapes[sh].mode, n, shapes[sh].ch, shapes[sh].qps,
					 4ull * n * 3000, 4096);
			}
	/* the real message size, a ring of 8 */
	run_case(XFAB_JOB_ALLREDUCE, XFAB_JOB_QP_RR, 8, 2, 4, 1 << 20, XFAB_COLL_MSG_BYTES);
}

/* A worked example of messages and QPs: 4 ranks, 1 channel, 2 QPs, blocks
 * of 40 elements, messages of 16 elements: each step is 16 + 16 + 8. */
static void test_messages(void **state)
{
	struct xfab_coll_geom g;
	struct xfab_coll_msg m[64];
	char err[160];
	size_t k;

	(void)state;
	assert_int_equal(xfab_coll_geom_init(&g, XFAB_JOB_ALLREDUCE, XFAB_JOB_QP_RR, 4, 1, 2, 640,
					     64, err, sizeof(err)),
			 0);
	assert_int_equal(g.m, 40);
	/* all of 0 -> 1: 6 steps x 3 messages, QPs 0 1 0 | 1 0 1 | ... */
	k = xfab_coll_msgs(&g, 0, 1, 0, 2, m, 64);
	assert_int_equal(k, 18);
	for (size_t i = 0; i < k; i++) {
		assert_int_equal(m[i].q, i % 2);
		assert_int_equal(m[i].step, i / 3);
		assert_int_equal(m[i].len, i % 3 == 2 ? 8 : 16);
	}
	/* step 0 sends block 0 (0..39), step 1 block 3 (120..159) */
	assert_int_equal(m[0].src_off, 0);
	assert_int_equal(m[1].src_off, 16);
	assert_int_equal(m[2].src_off, 32);
	assert_int_equal(m[3].src_off, 120);
	assert_true(m[0].reduce && m[8].reduce && !m[9].reduce);
	/* QP 1 alone: the odd ones, in order */
	k = xfab_coll_msgs(&g, 0, 1, 0, 1, m, 64);
	assert_int_equal(k, 9);
	assert_int_equal(m[0].src_off, 16);
	assert_int_equal(m[1].src_off, 120);
	assert_int_equal(m[2].src_off, 152);
	/* not a ring connection */
	assert_int_equal(xfab_coll_msgs(&g, 0, 2, 0, 2, m, 64), 0);
	assert_int_equal(xfab_coll_msgs(&g, 1, 0, 0, 2, m, 64), 0);

	/* split: each message cut in two, piece q on QP q: 8 + 8, 8 + 8, 4 + 4 */
	assert_int_equal(xfab_coll_geom_init(&g, XFAB_JOB_ALLREDUCE, XFAB_JOB_QP_SPLIT, 4, 1, 2,
					     640, 64, err, sizeof(err)),
			 0);
	k = xfab_coll_msgs(&g, 0, 1, 0, 0, m, 64);
	assert_int_equal(k, 18);
	assert_int_equal(m[0].src_off, 0);
	assert_int_equal(m[0].len, 8);
	assert_int_equal(m[1].src_off, 16);
	assert_int_equal(m[2].src_off, 32);
	assert_int_equal(m[2].len, 4);
	k = xfab_coll_msgs(&g, 0, 1, 0, 1, m, 64);
	assert_int_equal(k, 18);
	assert_int_equal(m[0].src_off, 8);
	assert_int_equal(m[2].src_off, 36);
	assert_int_equal(m[2].len, 4);

	/* alltoall: 3 ranks, 2 channels, 30-element blocks: rank 2's part 1
	 * of block 0 goes to rank 0's block 2 */
	assert_int_equal(xfab_coll_geom_init(&g, XFAB_JOB_ALLTOALL, XFAB_JOB_QP_RR, 3, 2, 1, 360,
					     4096, err, sizeof(err)),
			 0);
	k = xfab_coll_msgs(&g, 2, 0, 1, 1, m, 64);
	assert_int_equal(k, 1);
	assert_int_equal(m[0].src_off, 15);
	assert_int_equal(m[0].dst_off, 75);
	assert_int_equal(m[0].len, 15);
	assert_false(m[0].reduce);
	/* packets of a message */
	assert_int_equal(xfab_coll_msg_packets(256, 1024), 1);
	assert_int_equal(xfab_coll_msg_packets(257, 1024), 2);
	assert_int_equal(xfab_coll_msg_packets(16384, 1024), 64);
}

/* The check finds a planted error at its index; reducescatter checks only
 * the rank's own block. */
static void test_check(void **state)
{
	struct xfab_coll_geom g;
	uint32_t buf[64], got, want;
	char err[160];

	(void)state;
	assert_int_equal(xfab_coll_geom_init(&g, XFAB_JOB_ALLREDUCE, XFAB_JOB_QP_RR, 4, 1, 1, 256,
					     64, err, sizeof(err)),
			 0);
	for (int i = 0; i < 64; i++)
		buf[i] = oracle_sum(4, (uint64_t)i);
	assert_int_equal(xfab_coll_check(&g, 1, buf, &got, &want), -1);
	buf[37] ^= 0x100;
	buf[50] ^= 1;
	assert_int_equal(xfab_coll_check(&g, 1, buf, &got, &want), 37);
	assert_int_equal(want, oracle_sum(4, 37));
	assert_int_equal(got, oracle_sum(4, 37) ^ 0x100);

	g.op = XFAB_JOB_REDUCESCATTER; /* rank 2 owns 32..47 */
	assert_int_equal(xfab_coll_check(&g, 2, buf, &got, &want), 37);
	assert_int_equal(xfab_coll_check(&g, 3, buf, &got, &want), 50);
	assert_int_equal(xfab_coll_check(&g, 0, buf, &got, &want), -1);
	buf[0] = 0;
	assert_int_equal(xfab_coll_check(&g, 0, buf, &got, &want), 0);

	/* allgather: a block left as it was filled (poisoned) is wrong */
	g.op = XFAB_JOB_ALLGATHER;
	xfab_coll_fill(&g, 1, buf, NULL);
	assert_int_equal(buf[16], oracle_value(1, 16));
	assert_int_equal(buf[0], XFAB_COLL_POISON);
	assert_int_equal(xfab_coll_check(&g, 1, buf, &got, &want), 0);
}

static void test_geom(void **state)
{
	struct xfab_coll_geom g;
	char err[160];

	(void)state;
	assert_int_equal(xfab_coll_geom_init(&g, XFAB_JOB_ALLREDUCE, XFAB_JOB_QP_RR, 3, 1, 1, 1000,
					     64, err, sizeof(err)),
			 0);
	assert_int_equal(g.m, 83);
	assert_int_equal(g.elems, 249);
	assert_int_equal(g.bytes, 996);
	/* 4n bytes is the least; 4n - 1 is refused */
	assert_int_equal(xfab_coll_geom_init(&g, XFAB_JOB_ALLREDUCE, XFAB_JOB_QP_RR, 8, 1, 1, 32,
					     64, err, sizeof(err)),
			 0);
	assert_int_equal(xfab_coll_geom_init(&g, XFAB_JOB_ALLREDUCE, XFAB_JOB_QP_RR, 8, 1, 1, 31,
					     64, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "no 4-byte element per rank"));
	assert_int_equal(xfab_coll_geom_init(&g, XFAB_JOB_ALLREDUCE, XFAB_JOB_QP_RR, 8, 1, 1, 64,
					     30, err, sizeof(err)),
			 -1);
	assert_int_equal(xfab_coll_geom_init(&g, XFAB_JOB_ALLREDUCE, XFAB_JOB_QP_RR, 1, 1, 1, 64,
					     64, err, sizeof(err)),
			 -1);
	/* channel parts of a 10-element block over 3 channels: 3, 3, 4 */
	{
		uint64_t first, count;

		assert_int_equal(xfab_coll_geom_init(&g, XFAB_JOB_ALLGATHER, XFAB_JOB_QP_RR, 2, 3,
						     1, 80, 64, err, sizeof(err)),
				 0);
		xfab_coll_part(&g, 1, 0, &first, &count);
		assert_int_equal(first, 10);
		assert_int_equal(count, 3);
		xfab_coll_part(&g, 1, 2, &first, &count);
		assert_int_equal(first, 16);
		assert_int_equal(count, 4);
	}
}

/* nccl-tests doc/PERFORMANCE.md: algbw = S / t; busbw = algbw * 2(n-1)/n
 * for AllReduce, (n-1)/n for ReduceScatter, AllGather and AlltoAll. */
static void test_bandwidth(void **state)
{
	(void)state;
	assert_float_equal(xfab_coll_busbw_factor(XFAB_JOB_ALLREDUCE, 8), 1.75, 1e-12);
	assert_float_equal(xfab_coll_busbw_factor(XFAB_JOB_ALLREDUCE, 16), 1.875, 1e-12);
	assert_float_equal(xfab_coll_busbw_factor(XFAB_JOB_ALLREDUCE, 2), 1.0, 1e-12);
	assert_float_equal(xfab_coll_busbw_factor(XFAB_JOB_ALLGATHER, 8), 0.875, 1e-12);
	assert_float_equal(xfab_coll_busbw_factor(XFAB_JOB_REDUCESCATTER, 4), 0.75, 1e-12);
	assert_float_equal(xfab_coll_busbw_factor(XFAB_JOB_ALLTOALL, 4), 0.75, 1e-12);
	/* 1 GB in 0.1 s: algbw 10 GB/s; on 8 ranks AllReduce's busbw 17.5 */
	assert_float_equal(xfab_coll_algbw(1000000000, 0.1), 10.0, 1e-9);
	assert_float_equal(xfab_coll_busbw(XFAB_JOB_ALLREDUCE, 8, 1000000000, 0.1), 17.5, 1e-9);
	assert_float_equal(xfab_coll_busbw(XFAB_JOB_ALLGATHER, 8, 1000000000, 0.1), 8.75, 1e-9);
	/* 128 MiB in 10 ms: 13.4217728 GB/s */
	assert_float_equal(xfab_coll_algbw(134217728, 0.01), 13.4217728, 1e-9);
	assert_float_equal(xfab_coll_algbw(1000, 0), 0.0, 0);
}

/* The message of every packet of runs of message sizes (ones, uneven, one
 * message, many) against a scan from the front: the i whose packets
 * [pfx[i], pfx[i + 1]) hold it. */
static void test_msg_at(void **state)
{
	static const uint32_t runs[][9] = {
	    {1, 5}, {3, 1, 1, 1}, {8, 7, 1, 2, 9, 1, 1, 4, 3}, {2, 1000, 1}, {5, 2, 2, 2, 2, 2},
	};
	uint64_t pfx[9];

	(void)state;
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		size_t n = runs[r][0];

		pfx[0] = 0;
		for (size_t i = 0; i < n; i++)
			pfx[i + 1] = pfx[i] + runs[r][1 + i];
		for (uint64_t off = 0; off < pfx[n]; off++) {
			size_t want = 0;

			while (!(off < pfx[want] + runs[r][1 + want]))
				want++;
			assert_int_equal(xfab_coll_msg_at(pfx, n, off), want);
		}
	}
	/* the worked example: messages of 4, 4 and 2 packets */
	pfx[0] = 0, pfx[1] = 4, pfx[2] = 8, pfx[3] = 10;
	assert_int_equal(xfab_coll_msg_at(pfx, 3, 3), 0);
	assert_int_equal(xfab_coll_msg_at(pfx, 3, 4), 1);
	assert_int_equal(xfab_coll_msg_at(pfx, 3, 8), 2);
	assert_int_equal(xfab_coll_msg_at(pfx, 3, 9), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_value_and_sum), cmocka_unit_test(test_ring_tables),
	    cmocka_unit_test(test_ring_agrees),	  cmocka_unit_test(test_simulate),
	    cmocka_unit_test(test_messages),	  cmocka_unit_test(test_check),
	    cmocka_unit_test(test_geom),	  cmocka_unit_test(test_bandwidth),
	    cmocka_unit_test(test_msg_at),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
