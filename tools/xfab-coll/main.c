// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-coll: the entry point (the tool is described in coll_tool.h). Only
 * main() and its own steps live here: nothing else calls into this file. */
#include "coll_tool.h"

/* Opens --json's file ("-": stdout); NULL with errno set. */
static FILE *coll_json_open(const struct rank *r)
{
	return strcmp(r->o.json_path, "-") ? fopen(r->o.json_path, "w") : stdout;
}

static int coll_json_failed(const struct rank *r)
{
	fprintf(stderr, "xfab-coll: --json %s: %s\n", r->o.json_path, strerror(errno));
	return 1;
}

/* Rank 0's verdict: its own check, every peer's report and every size. */
static int coll_all_correct(const struct rank *r)
{
	int correct = r->run.first_bad < 0;

	for (uint32_t p = 1; p < r->n; p++)
		if (strstr(r->peers[p].report, "\"correct\":false"))
			correct = 0;
	for (uint32_t s = 0; s < r->nsizes; s++)
		if (r->stats[s].first_bad >= 0)
			correct = 0;
	return correct;
}

/* Rank 0's output: the JSON document and, unless it went to stdout, the
 * summary lines nccl-tests ends with. */
static int coll_finish_root(struct rank *r, int correct)
{
	if (r->o.json_path) {
		FILE *f = coll_json_open(r);

		if (!f || coll_write_json(r, f, correct) || (f != stdout && fclose(f)))
			return coll_json_failed(r);
	}
	if (!r->o.json_path || strcmp(r->o.json_path, "-")) {
		double sum = 0;

		for (uint32_t s = 0; s < r->nsizes; s++) {
			struct figures fg;

			coll_size_figures(r, &r->stats[s], &fg);
			sum += fg.busbw;
		}
		printf("# Avg bus bandwidth: %.3f GB/s\n", sum / r->nsizes);
		printf("# %s\n", correct ? "correct: every element on every rank, every "
					   "size and iteration"
					 : "WRONG RESULTS (see above)");
	}
	return 0;
}

/* Another rank's output: its report as JSON, or one line of counters. */
static int coll_finish_rank(struct rank *r, int correct)
{
	struct counters c;

	coll_my_counters(r, &c);
	if (r->o.json_path) {
		char *rep = coll_rank_report(r);
		FILE *f = coll_json_open(r);

		if (!rep || !f || fprintf(f, "%s\n", rep) < 0 || (f != stdout && fclose(f))) {
			free(rep);
			return coll_json_failed(r);
		}
		free(rep);
		return 0;
	}
	printf("xfab-coll rank %u (%s): %s; %llu out of sequence, %llu "
	       "retransmits, %llu timeouts, %llu CNPs sent, %llu received\n",
	       r->me, r->job.ranks[r->me].host[0] ? r->job.ranks[r->me].host : "-",
	       correct ? "correct" : "WRONG", (unsigned long long)c.oos,
	       (unsigned long long)c.retransmits, (unsigned long long)c.timeouts,
	       (unsigned long long)c.cnps_tx, (unsigned long long)c.cnps_rx);
	return 0;
}

/* The options and the job: 0, or the exit status 2. */
static int coll_start(struct rank *r, int argc, char **argv)
{
	char err[512];

	if (coll_parse_opts(argc, argv, &r->o))
		return 2;
	if (xfab_job_load(r->o.job_path, &r->job, err, sizeof(err))) {
		fprintf(stderr, "xfab-coll: --job %s\n", err);
		return 2;
	}
	r->n = r->job.n;
	r->op = r->o.op >= 0 ? (enum xfab_job_op)r->o.op : r->job.op;
	r->deadline = xfab_mono_ns() + (uint64_t)(r->o.timeout * 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	static struct rank rk;
	struct rank *r = &rk;
	int rc, correct;

	setvbuf(stdout, NULL, _IOLBF, 0);
	rc = coll_start(r, argc, argv);
	if (rc)
		return rc;
	rc = coll_setup(r);
	if (rc == 2)
		return 2;
	if (!rc)
		rc = coll_run_all(r, !r->o.json_path || strcmp(r->o.json_path, "-"));
	if (rc) {
		if (r->in_loop) /* what every QP of this rank still had to do */
			coll_dump_stuck(r);
		fprintf(stderr, "xfab-coll: rank %u: %s\n", r->me,
			r->failure[0] ? r->failure : "failed");
		coll_ctl_abort_all(r);
		return 1;
	}
	if (r->pfc_on)
		xfab_pfc_close(&r->pfc, xfab_mono_ns());
	correct = r->me == 0 ? coll_all_correct(r) : r->run.first_bad < 0;
	if (r->me == 0 ? coll_finish_root(r, correct) : coll_finish_rank(r, correct))
		return 1;
	if (!correct) {
		if (r->run.first_bad >= 0)
			fprintf(stderr,
				"xfab-coll: rank %u: wrong result at size %llu: element %lld is "
				"0x%08x, expected 0x%08x\n",
				r->me, (unsigned long long)r->stats[r->run.bad_s].bytes,
				(long long)r->run.first_bad, r->run.bad_got, r->run.bad_want);
		return 1;
	}
	return 0;
}
