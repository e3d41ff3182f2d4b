// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-te: the demand: job files, traffic matrices and --jobs DIR. */
#include "te_tool.h"

/* The jobs in --jobs DIR (*.json, by name) into names; -1 on a bad dir. */
static int jobs_in_dir(const char *dir, char names[][512], int max, char *err, size_t errlen)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort), k = 0;

	if (n < 0) {
		snprintf(err, errlen, "--jobs %s: %s", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		size_t l = strlen(list[i]->d_name);

		if (list[i]->d_name[0] != '.' && l > 5 &&
		    !strcmp(list[i]->d_name + l - 5, ".json") && k < max)
			snprintf(names[k++], 512, "%s/%s", dir, list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return k;
}

/* The flows of a job, kept for plan -j's listing. */
static void keep_flows(struct ctx *c, const struct xfab_job *job, int job_idx)
{
	size_t n = xfab_job_flows(job, NULL, 0);
	struct xfab_job_flow *fl;
	struct flowrec *grown;

	if (c->n_flows + n > MAX_FLOWS)
		return; /* listing only: a huge job is planned, not listed */
	fl = calloc(n ? n : 1, sizeof(*fl));
	grown = realloc(c->flows, (c->n_flows + n + 1) * sizeof(*grown));
	if (!fl || !grown) {
		free(fl);
		if (grown)
			c->flows = grown;
		return;
	}
	c->flows = grown;
	xfab_job_flows(job, fl, n);
	for (size_t i = 0; i < n; i++) {
		struct flowrec *r = &c->flows[c->n_flows++];

		r->src = xfab_te_host_index(c->f, inet_ntoa(fl[i].saddr));
		r->dst = xfab_te_host_index(c->f, inet_ntoa(fl[i].daddr));
		r->sport = fl[i].sport;
		r->src_qpn = fl[i].src_qpn;
		r->dst_qpn = fl[i].dst_qpn;
		r->job = job_idx;
	}
	free(fl);
}

static int add_job(struct ctx *c, struct xfab_te_demands *dm, const char *path, char *err,
		   size_t errlen)
{
	struct xfab_job *job = calloc(1, sizeof(*job));
	char inner[400];
	int idx;

	if (!job) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (xfab_job_load(path, job, err, errlen)) {
		free(job);
		return -1;
	}
	if (xfab_te_demand_job(dm, c->f, job, inner, sizeof(inner))) {
		snprintf(err, errlen, "%s: %s", path, inner);
		free(job);
		return -1;
	}
	idx = c->n_job_names < (int)(sizeof(c->job_names) / sizeof(c->job_names[0]))
		  ? c->n_job_names++
		  : -1;
	if (idx >= 0) {
		snprintf(c->job_names[idx], sizeof(c->job_names[idx]), "%s",
			 job->name[0] ? job->name : path);
		keep_flows(c, job, idx);
	}
	free(job);
	return 0;
}

/* Every --job, --matrix and job of --jobs DIR into a new demand; with
 * skip_bad (run), a bad file in DIR is said and left out. */
int te_load_demand(struct ctx *c, struct xfab_te_demands *dm, int skip_bad, char *err,
		   size_t errlen)
{
	static char names[256][512];
	int n;

	xfab_te_demands_init(dm);
	free(c->flows);
	c->flows = NULL;
	c->n_flows = 0;
	c->n_job_names = 0;
	for (int i = 0; i < c->o.n_jobs; i++)
		if (add_job(c, dm, c->o.jobs[i], err, errlen))
			goto fail;
	for (int i = 0; i < c->o.n_matrices; i++) {
		char inner[400],
		    *text = xfab_read_text(c->o.matrices[i], MAX_FILE_MIB, err, errlen);
		int rc;

		if (!text)
			goto fail;
		rc = xfab_te_demand_matrix(dm, c->f, text, inner, sizeof(inner));
		free(text);
		if (rc) {
			snprintf(err, errlen, "%s:%s", c->o.matrices[i], inner);
			goto fail;
		}
	}
	if (!c->o.jobs_dir)
		return 0;
	n = jobs_in_dir(c->o.jobs_dir, names, 256, err, errlen);
	if (n < 0)
		goto fail;
	for (int i = 0; i < n; i++) {
		struct xfab_te_demands copy;
		char why[512];

		/* a job refused halfway must leave nothing: add it to a copy */
		xfab_te_demands_init(&copy);
		for (size_t k = 0; k < dm->n; k++)
			xfab_te_demand_add(&copy, dm->d[k].src, dm->d[k].dst, dm->d[k].bytes);
		if (add_job(c, &copy, names[i], why, sizeof(why))) {
			xfab_te_demands_free(&copy);
			if (!skip_bad) {
				snprintf(err, errlen, "%s", why);
				goto fail;
			}
			te_say("job refused, left out of the plan: %s", why);
			continue;
		}
		xfab_te_demands_free(dm);
		*dm = copy;
	}
	return 0;
fail:
	xfab_te_demands_free(dm);
	return -1;
}

/* What --jobs DIR holds now: names, sizes and times (a change replans). */
uint64_t te_jobs_signature(const char *dir)
{
	static char names[256][512];
	char err[256];
	uint64_t h = 1469598103934665603ull;
	int n = jobs_in_dir(dir, names, 256, err, sizeof(err));

	for (int i = 0; i < n; i++) {
		struct stat st;
		uint64_t v[3] = {0, 0, 0};

		if (!stat(names[i], &st)) {
			v[0] = (uint64_t)st.st_size;
			v[1] = (uint64_t)st.st_mtim.tv_sec;
			v[2] = (uint64_t)st.st_mtim.tv_nsec;
		}
		for (const char *s = names[i]; *s; s++)
			h = (h ^ (unsigned char)*s) * 1099511628211ull;
		for (int k = 0; k < 3; k++)
			h = (h ^ v[k]) * 1099511628211ull;
	}
	return h ^ (uint64_t)n;
}
