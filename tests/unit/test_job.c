// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of collective job files (user/lib/job.c): parsing with its
 * defaults and its errors (each naming line:col and the field), the
 * connections of ring and all-to-all jobs (checked by counting what every
 * rank sends and receives), QP numbers distinct across the whole job, the
 * bytes a QP carries (nccl-tests' step arithmetic, worked by hand), and
 * RoCE's UDP source port against values worked out separately from
 * ib_verbs.h's formula (a Python implementation, not this code).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "job.h"

static const char RING8[] =
    "{\"name\": \"ar8\", \"op\": \"allreduce\",\n"
    " \"ranks\": [{\"host\": \"h1\", \"addr\": \"10.1.1.2\"}, {\"host\": \"h2\", \"addr\": "
    "\"10.1.2.2\"},\n"
    "  {\"host\": \"h3\", \"addr\": \"10.2.1.2\"}, {\"host\": \"h4\", \"addr\": \"10.2.2.2\"},\n"
    "  {\"host\": \"h5\", \"addr\": \"10.3.1.2\"}, {\"host\": \"h6\", \"addr\": \"10.3.2.2\"},\n"
    "  {\"host\": \"h7\", \"addr\": \"10.4.1.2\"}, {\"host\": \"h8\", \"addr\": \"10.4.2.2\"}],\n"
    " \"channels\": 2, \"qps\": 4, \"qp_mode\": \"split\", \"qp_base\": 4096, \"bytes\": "
    "1048576}\n";

static void test_parse_full(void **state)
{
	struct xfab_job job;
	char err[256];

	(void)state;
	assert_int_equal(xfab_job_parse(RING8, &job, err, sizeof(err)), 0);
	assert_string_equal(job.name, "ar8");
	assert_int_equal(job.op, XFAB_JOB_ALLREDUCE);
	assert_int_equal(job.n, 8);
	assert_int_equal(job.channels, 2);
	assert_int_equal(job.qps, 4);
	assert_int_equal(job.qp_mode, XFAB_JOB_QP_SPLIT);
	assert_int_equal(job.qp_base, 4096);
	assert_int_equal(job.bytes, 1048576);
	assert_string_equal(job.ranks[0].host, "h1");
	assert_int_equal(job.ranks[0].addr.s_addr, inet_addr("10.1.1.2"));
	assert_string_equal(job.ranks[7].host, "h8");
	assert_int_equal(job.ranks[7].addr.s_addr, inet_addr("10.4.2.2"));
}

static void test_parse_defaults(void **state)
{
	static const char text[] = "{\"op\": \"alltoall\", \"ranks\": [{\"addr\": \"10.0.0.1\"}, "
				   "{\"addr\": \"10.0.0.2\"}, {\"addr\": \"10.0.0.3\"}], "
				   "\"bytes\": 3000}";
	struct xfab_job job;
	char err[256];

	(void)state;
	assert_int_equal(xfab_job_parse(text, &job, err, sizeof(err)), 0);
	assert_string_equal(job.name, "job");
	assert_int_equal(job.op, XFAB_JOB_ALLTOALL);
	assert_int_equal(job.channels, 1);
	assert_int_equal(job.qps, 1);
	assert_int_equal(job.qp_mode, XFAB_JOB_QP_RR);
	assert_int_equal(job.qp_base, 256);
	assert_string_equal(job.ranks[2].host, "");
}

/* Every bad job is refused with the place and the field. */
static void test_parse_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"[1]", "1:1: job: an object is needed, not array"},
	    {"{\"op\": \"allreduce\", \"bytes\": 100, \"ranks\": [{\"addr\": \"10.0.0.1\"}, "
	     "{\"addr\": \"10.0.0.2\"}], \"qp\": 4}",
	     "1:90: qp: unknown field"},
	    {"{\"op\": \"broadcast\", \"bytes\": 100, \"ranks\": []}",
	     "1:8: op: \"broadcast\" is none of"},
	    {"{\"op\": \"allreduce\", \"bytes\": 100}", "1:1: ranks: missing"},
	    {"{\"op\": \"allreduce\", \"bytes\": 100, \"ranks\": [{\"addr\": \"10.0.0.1\"}]}",
	     "1:44: ranks: 1 ranks; a job has 2..64"},
	    {"{\"op\": \"allreduce\", \"bytes\": 100,\n \"ranks\": [{\"addr\": \"10.0.0.1\"}, "
	     "{\"addr\": \"10.0.0.256\"}]}",
	     "2:43: ranks[1].addr: \"10.0.0.256\" is not an IPv4 address"},
	    {"{\"op\": \"allreduce\", \"bytes\": 100, \"ranks\": [{\"addr\": \"10.0.0.1\"}, "
	     "{\"addr\": \"10.0.0.1\"}]}",
	     "ranks: 10.0.0.1 is rank 0 and rank 1: one rank per host"},
	    {"{\"op\": \"allreduce\", \"bytes\": 100, \"ranks\": [{\"addr\": \"10.0.0.1\"}, "
	     "{\"addr\": 7}]}",
	     "1:76: ranks[1].addr: a string is needed, not number"},
	    {"{\"op\": \"allreduce\", \"bytes\": 100, \"ranks\": [{\"addr\": \"10.0.0.1\"}, "
	     "{\"host\": \"h2\"}]}",
	     "1:67: ranks[1].addr: missing"},
	    {"{\"op\": \"allreduce\", \"bytes\": 100, \"ranks\": [{\"addr\": \"10.0.0.1\"}, "
	     "{\"ip\": \"10.0.0.2\"}]}",
	     "ranks[1]: unknown field \"ip\" (host, addr)"},
	    {"{\"op\": \"allreduce\", \"bytes\": 100, \"qps\": 65, \"ranks\": [{\"addr\": "
	     "\"10.0.0.1\"}, {\"addr\": \"10.0.0.2\"}]}",
	     "1:42: qps: 65 is not an integer in 1..64"},
	    {"{\"op\": \"allreduce\", \"bytes\": 100, \"qps\": \"4\", \"ranks\": [{\"addr\": "
	     "\"10.0.0.1\"}, {\"addr\": \"10.0.0.2\"}]}",
	     "1:42: qps: a number is needed, not string"},
	    {"{\"op\": \"allreduce\", \"bytes\": 1, \"qps\": 4, \"ranks\": [{\"addr\": "
	     "\"10.0.0.1\"}, {\"addr\": \"10.0.0.2\"}]}",
	     "bytes: 1 is not an integer in 8..1073741824"},
	    {"{\"op\": \"allreduce\", \"ranks\": [{\"addr\": \"10.0.0.1\"}, {\"addr\": "
	     "\"10.0.0.2\"}]}",
	     "bytes: missing"},
	    {"{\"op\": \"allreduce\", \"bytes\": 100, \"qp_base\": 16777215, \"ranks\": "
	     "[{\"addr\": \"10.0.0.1\"}, {\"addr\": \"10.0.0.2\"}]}",
	     "qp_base: 16777215 + the job's 4 QP numbers pass 0xffffff"},
	    {"{\"op\": \"allreduce\", \"bytes\": 100, \"qp_mode\": \"spray\", \"ranks\": "
	     "[{\"addr\": \"10.0.0.1\"}, {\"addr\": \"10.0.0.2\"}]}",
	     "qp_mode: \"spray\" is neither rr nor split"},
	    {"{\"op\": \"allreduce\", \"bytes\": -5, \"ranks\": [{\"addr\": \"10.0.0.1\"}, "
	     "{\"addr\": \"10.0.0.2\"}]}",
	     "bytes: -5 is not an integer"},
	    {"{\"op\": ", "job: "},
	};
	struct xfab_job job;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		assert_int_equal(xfab_job_parse(cases[i].text, &job, err, sizeof(err)), -1);
		if (!strstr(err, cases[i].want))
			fail_msg("case %zu: got \"%s\", want \"%s\"", i, err, cases[i].want);
	}
}

/* The last QP number may be 0xffffff: the first base past it is refused
 * (2 ranks, 1 channel, 1 QP: 2 x 2 numbers). */
static void test_qp_base_boundary(void **state)
{
	static const char fmt[] =
	    "{\"op\": \"allreduce\", \"bytes\": 100, \"qp_base\": %u, "
	    "\"ranks\": [{\"addr\": \"10.0.0.1\"}, {\"addr\": \"10.0.0.2\"}]}";
	struct xfab_job job;
	char text[256], err[256];

	(void)state;
	snprintf(text, sizeof(text), fmt, 0xfffffcu);
	assert_int_equal(xfab_job_parse(text, &job, err, sizeof(err)), 0);
	/* n x n (owner, peer) numbers are reserved, the last one 0xffffff */
	assert_int_equal(xfab_job_qpn(&job, 1, 1, 0, 0), 0xffffffu);
	snprintf(text, sizeof(text), fmt, 0xfffffdu);
	assert_int_equal(xfab_job_parse(text, &job, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "qp_base: 16777213 + the job's 4 QP numbers pass 0xffffff"));
}

static void test_load(void **state)
{
	char path[] = "/tmp/xfab-test-job-XXXXXX", err[512];
	struct xfab_job job;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, RING8, strlen(RING8)), (ssize_t)strlen(RING8));
	close(fd);
	assert_int_equal(xfab_job_load(path, &job, err, sizeof(err)), 0);
	assert_int_equal(job.n, 8);
	/* an error names the file */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\"op\": 3}", 9), 9);
	close(fd);
	assert_int_equal(xfab_job_load(path, &job, err, sizeof(err)), -1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, ":1:8: op: a string is needed"));
	unlink(path);
	assert_int_equal(xfab_job_load(path, &job, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
}

/* Ring jobs: per channel every rank sends to exactly its successor and
 * receives from its predecessor; alltoall: every ordered pair once. */
static void test_conns(void **state)
{
	static struct xfab_job_conn conns[8 * 7 * 3];
	int sends[8][8];
	struct xfab_job job;
	char err[256];
	size_t n;

	(void)state;
	assert_int_equal(xfab_job_parse(RING8, &job, err, sizeof(err)), 0);
	n = xfab_job_conns(&job, conns, 16);
	assert_int_equal(n, 16);
	memset(sends, 0, sizeof(sends));
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(conns[i].dst, (conns[i].src + 1) % 8);
		assert_int_equal(conns[i].channel, i / 8);
		sends[conns[i].src][conns[i].dst]++;
	}
	for (int s = 0; s < 8; s++)
		assert_int_equal(sends[s][(s + 1) % 8], 2);
	/* max bounds what is written, not the count */
	assert_int_equal(xfab_job_conns(&job, conns, 3), 16);

	job.op = XFAB_JOB_ALLTOALL;
	job.channels = 3;
	n = xfab_job_conns(&job, conns, sizeof(conns) / sizeof(conns[0]));
	assert_int_equal(n, 8 * 7 * 3);
	memset(sends, 0, sizeof(sends));
	for (size_t i = 0; i < n; i++) {
		assert_int_not_equal(conns[i].src, conns[i].dst);
		assert_true(conns[i].src < 8 && conns[i].dst < 8 && conns[i].channel < 3);
		sends[conns[i].src][conns[i].dst]++;
	}
	for (int s = 0; s < 8; s++)
		for (int d = 0; d < 8; d++)
			assert_int_equal(sends[s][d], s == d ? 0 : 3);
}

/* Every (owner, peer, channel, q) of the largest job has a QP number of its
 * own, within 24 bits. */
static void test_qpn_distinct(void **state)
{
	static unsigned char seen[(XFAB_JOB_QPN_MAX + 1) / 8];
	struct xfab_job job = {.n = 64, .channels = 8, .qps = 64, .qp_base = 1};

	(void)state;
	memset(seen, 0, sizeof(seen));
	for (uint32_t o = 0; o < job.n; o++)
		for (uint32_t p = 0; p < job.n; p++)
			for (uint32_t c = 0; c < job.channels; c++)
				for (uint32_t q = 0; q < job.qps; q++) {
					uint32_t x = xfab_job_qpn(&job, o, p, c, q);

					assert_true(x >= 1 && x <= XFAB_JOB_QPN_MAX);
					assert_false(seen[x / 8] & (1u << (x % 8)));
					seen[x / 8] |= (unsigned char)(1u << (x % 8));
				}
}

static void test_qp_bytes(void **state)
{
	struct xfab_job job;
	char err[256];

	(void)state;
	assert_int_equal(xfab_job_parse(RING8, &job, err, sizeof(err)), 0);
	/* allreduce: 2 * 7 steps of 1 MiB / 8, over 2 channels x 4 QPs */
	assert_int_equal(xfab_job_qp_bytes(&job), 14 * 131072 / 8);
	job.op = XFAB_JOB_ALLGATHER;
	assert_int_equal(xfab_job_qp_bytes(&job), 7 * 131072 / 8);
	job.op = XFAB_JOB_REDUCESCATTER;
	assert_int_equal(xfab_job_qp_bytes(&job), 7 * 131072 / 8);
	job.op = XFAB_JOB_ALLTOALL;
	assert_int_equal(xfab_job_qp_bytes(&job), 131072 / 8);
	/* rounded up: 1000 bytes, 3 ranks, allgather, 1 channel, 1 QP: 2 x 334 */
	job.n = 3;
	job.bytes = 1000;
	job.channels = 1;
	job.qps = 1;
	job.op = XFAB_JOB_ALLGATHER;
	assert_int_equal(xfab_job_qp_bytes(&job), 668);
}

/* ib_verbs.h's source port, values from an implementation of its formula
 * written apart from this one. */
static void test_sport(void **state)
{
	static const struct {
		uint32_t l, r;
		uint16_t sport;
	} cases[] = {
	    {0x100, 0x101, 49412}, {0x100, 0x1234, 62473},  {0xffffff, 0xffffff, 65313},
	    {0x1, 0x1, 49153},	   {0x11, 0x2f00a3, 51934},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(xfab_roce_sport(cases[i].l, cases[i].r), cases[i].sport);
		assert_int_equal(xfab_roce_sport(cases[i].r, cases[i].l), cases[i].sport);
	}
}

/* Flows: one per QP of every connection, its ends and its ports. */
static void test_flows(void **state)
{
	static struct xfab_job_flow flows[64];
	struct xfab_job job;
	char err[256];
	size_t n;

	(void)state;
	assert_int_equal(xfab_job_parse(RING8, &job, err, sizeof(err)), 0);
	n = xfab_job_flows(&job, flows, 64);
	assert_int_equal(n, 8 * 2 * 4);
	for (size_t i = 0; i < n; i++) {
		const struct xfab_job_flow *f = &flows[i];

		assert_int_equal(f->dst, (f->src + 1) % 8);
		assert_int_equal(f->channel, i / 32);
		assert_int_equal(f->src, (i / 4) % 8);
		assert_int_equal(f->q, i % 4);
		assert_int_equal(f->saddr.s_addr, job.ranks[f->src].addr.s_addr);
		assert_int_equal(f->daddr.s_addr, job.ranks[f->dst].addr.s_addr);
		assert_int_equal(f->src_qpn,
				 4096 + ((f->src * 8 + f->dst) * 2 + f->channel) * 4 + f->q);
		assert_int_equal(f->dst_qpn,
				 4096 + ((f->dst * 8 + f->src) * 2 + f->channel) * 4 + f->q);
		assert_int_equal(f->dport, 4791);
		assert_int_equal(f->sport, xfab_roce_sport(f->src_qpn, f->dst_qpn));
		assert_int_equal(f->bytes, 14 * 131072 / 8);
	}
	/* a QP's two ends use one source port (the flow label is symmetric) */
	assert_int_equal(xfab_roce_sport(flows[0].src_qpn, flows[0].dst_qpn),
			 xfab_roce_sport(flows[0].dst_qpn, flows[0].src_qpn));
}

static void test_names(void **state)
{
	(void)state;
	for (int op = XFAB_JOB_ALLREDUCE; op <= XFAB_JOB_ALLTOALL; op++)
		assert_int_equal(xfab_job_op_parse(xfab_job_op_name((enum xfab_job_op)op)), op);
	assert_int_equal(xfab_job_op_parse("reduce"), -1);
	assert_int_equal(xfab_job_qp_mode_parse("rr"), XFAB_JOB_QP_RR);
	assert_int_equal(xfab_job_qp_mode_parse("split"), XFAB_JOB_QP_SPLIT);
	assert_int_equal(xfab_job_qp_mode_parse("RR"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_full),	 cmocka_unit_test(test_parse_defaults),
	    cmocka_unit_test(test_parse_errors), cmocka_unit_test(test_qp_base_boundary),
	    cmocka_unit_test(test_load),	 cmocka_unit_test(test_conns),
	    cmocka_unit_test(test_qpn_distinct), cmocka_unit_test(test_qp_bytes),
	    cmocka_unit_test(test_sport),	 cmocka_unit_test(test_flows),
	    cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
