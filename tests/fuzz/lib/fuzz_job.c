// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: a job file (docs/TOOLS.md "Job files") through
 * xfab_job_parse (user/lib/job.c), as xfab-coll, xfab-te and `xfabctl
 * fabric report` read it. Refused: a message "line:col: field: what" that
 * fits. Accepted: its connections and flows as the header counts them
 * (n x channels for the rings, n x (n - 1) x channels for alltoall, qps
 * flows each), each flow between two different ranks, to UDP 4791 from a
 * RoCE source port (0xc000..0xffff), with QP numbers of 24 bits.
 */
#include <string.h>

#include "fuzz.h"
#include "job.h"

#define FUZZ_MAX_FLOWS                                                                             \
	((size_t)XFAB_JOB_MAX_RANKS * (XFAB_JOB_MAX_RANKS - 1) * XFAB_JOB_MAX_CHANNELS)

static int accepted(const struct xfab_job *job)
{
	static struct xfab_job_conn conns[FUZZ_MAX_FLOWS];
	static struct xfab_job_flow flows[8192];
	size_t want, n, m;

	FUZZ_CHECK(job->n >= 1 && job->n <= XFAB_JOB_MAX_RANKS);
	FUZZ_CHECK(job->channels >= 1 && job->channels <= XFAB_JOB_MAX_CHANNELS);
	FUZZ_CHECK(job->qps >= 1 && job->qps <= XFAB_JOB_MAX_QPS);
	FUZZ_CHECK(memchr(job->name, '\0', sizeof(job->name)));
	FUZZ_CHECK(strcmp(xfab_job_op_name(job->op), "?"));
	want = (size_t)job->n * job->channels * (job->op == XFAB_JOB_ALLTOALL ? job->n - 1 : 1);
	if (job->n == 1)
		want = job->op == XFAB_JOB_ALLTOALL ? 0 : want;
	n = xfab_job_conns(job, conns, FUZZ_MAX_FLOWS);
	FUZZ_CHECK(n == want);
	for (size_t i = 0; i < n && i < FUZZ_MAX_FLOWS; i++) {
		FUZZ_CHECK(conns[i].src < job->n && conns[i].dst < job->n);
		FUZZ_CHECK(conns[i].channel < job->channels);
	}
	m = xfab_job_flows(job, flows, sizeof(flows) / sizeof(flows[0]));
	FUZZ_CHECK(m == n * job->qps);
	for (size_t i = 0; i < m && i < sizeof(flows) / sizeof(flows[0]); i++) {
		const struct xfab_job_flow *fl = &flows[i];

		FUZZ_CHECK(fl->src < job->n && fl->dst < job->n && fl->q < job->qps);
		FUZZ_CHECK(fl->dport == XFAB_ROCE_UDP_PORT && fl->sport >= 0xc000);
		FUZZ_CHECK(fl->src_qpn <= XFAB_JOB_QPN_MAX && fl->dst_qpn <= XFAB_JOB_QPN_MAX);
		FUZZ_CHECK(fl->bytes == xfab_job_qp_bytes(job));
	}
	return 0;
}

static int refusal_unsaid(void)
{
	fprintf(stderr, "a refused job without a message\n");
	return -1;
}

int xfab_fuzz_job(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), err[512];
	struct xfab_job *job = malloc(sizeof(*job));
	int ret = 0;

	if (text && job) {
		memset(err, 0x5a, sizeof(err));
		if (!xfab_job_parse(text, job, err, sizeof(err)))
			ret = accepted(job);
		else if (!memchr(err, '\0', sizeof(err)) || !err[0])
			ret = refusal_unsaid();
	}
	free(job);
	free(text);
	return ret;
}

XFAB_FUZZ_TARGET(xfab_fuzz_job)
