// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* TE's demand: bytes per (source host, destination host), from a job
 * or a traffic matrix (te.h); and the positioned errors of TE's inputs. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "te_int.h"

int xfab_te_err(char *err, size_t errlen, const struct json_pos *pos, const char *fmt, ...)
{
	char what[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (pos)
		snprintf(err, errlen, "%d:%d: %s", pos->line, pos->col, what);
	else
		snprintf(err, errlen, "%s", what);
	return -1;
}

/* A string member into buf (required or not); -1 after saying why. */
static int get_str(const struct json_value *obj, const char *key, int required, char *buf,
		   size_t len, const char *where, char *err, size_t errlen)
{
	const struct json_value *v = xfab_json_get(obj, key);

	buf[0] = '\0';
	if (!v || v->type == JSON_NULL) {
		if (required)
			return xfab_te_err(err, errlen, &obj->pos, "%s: missing \"%s\"", where,
					   key);
		return 0;
	}
	if (v->type != JSON_STRING)
		return xfab_te_err(err, errlen, &v->pos, "%s.%s: must be a string", where, key);
	if (strlen(v->str) >= len)
		return xfab_te_err(err, errlen, &v->pos, "%s.%s: longer than %zu characters", where,
				   key, len - 1);
	snprintf(buf, len, "%s", v->str);
	return 0;
}

/* A non-negative integer member in [lo, hi]; absent or null: *out = 0 when
 * optional. */
static int get_uint(const struct json_value *obj, const char *key, int required, uint64_t lo,
		    uint64_t hi, uint64_t *out, const char *where, char *err, size_t errlen)
{
	const struct json_value *v = xfab_json_get(obj, key);
	unsigned long long x;
	char *end;

	*out = 0;
	if (!v || v->type == JSON_NULL) {
		if (required)
			return xfab_te_err(err, errlen, &obj->pos, "%s: missing \"%s\"", where,
					   key);
		return 0;
	}
	if (v->type != JSON_NUMBER || v->str[0] < '0' || v->str[0] > '9')
		return xfab_te_err(err, errlen, &v->pos, "%s.%s: must be an integer %llu..%llu",
				   where, key, (unsigned long long)lo, (unsigned long long)hi);
	errno = 0;
	x = strtoull(v->str, &end, 10);
	if (*end || errno || x < lo || x > hi)
		return xfab_te_err(err, errlen, &v->pos, "%s.%s: must be an integer %llu..%llu",
				   where, key, (unsigned long long)lo, (unsigned long long)hi);
	*out = x;
	return 0;
}

void xfab_te_demands_init(struct xfab_te_demands *dm)
{
	memset(dm, 0, sizeof(*dm));
}

void xfab_te_demands_free(struct xfab_te_demands *dm)
{
	free(dm->d);
	free(dm->slot);
	memset(dm, 0, sizeof(*dm));
}

static size_t pair_slot(int src, int dst, size_t n_slots)
{
	uint64_t k = ((uint64_t)(uint32_t)src << 32 | (uint32_t)dst) * 0x9e3779b97f4a7c15ull;

	return (size_t)(k >> 32) & (n_slots - 1);
}

static int demands_rehash(struct xfab_te_demands *dm, size_t n_slots)
{
	int *slot = malloc(n_slots * sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < n_slots; i++)
		slot[i] = -1;
	for (size_t i = 0; i < dm->n; i++) {
		size_t s = pair_slot(dm->d[i].src, dm->d[i].dst, n_slots);

		while (slot[s] >= 0)
			s = (s + 1) & (n_slots - 1);
		slot[s] = (int)i;
	}
	free(dm->slot);
	dm->slot = slot;
	dm->n_slots = n_slots;
	return 0;
}

int xfab_te_demand_add(struct xfab_te_demands *dm, int src, int dst, uint64_t bytes)
{
	size_t s;

	if (src < 0 || dst < 0 || src == dst)
		return -EINVAL;
	if ((dm->n + 1) * 2 > dm->n_slots && demands_rehash(dm, dm->n_slots ? dm->n_slots * 2 : 64))
		return -ENOMEM;
	for (s = pair_slot(src, dst, dm->n_slots); dm->slot[s] >= 0;
	     s = (s + 1) & (dm->n_slots - 1)) {
		struct xfab_te_demand *d = &dm->d[dm->slot[s]];

		if (d->src == src && d->dst == dst) {
			if (d->bytes > UINT64_MAX - bytes)
				return -ERANGE;
			d->bytes += bytes;
			return 0;
		}
	}
	if (dm->n == dm->cap) {
		size_t cap = dm->cap ? dm->cap * 2 : 32;
		struct xfab_te_demand *d = realloc(dm->d, cap * sizeof(*d));

		if (!d)
			return -ENOMEM;
		dm->d = d;
		dm->cap = cap;
	}
	dm->d[dm->n] = (struct xfab_te_demand){src, dst, bytes};
	dm->slot[s] = (int)dm->n++;
	return 0;
}

int xfab_te_demand_job(struct xfab_te_demands *dm, const struct xfab_te_fabric *f,
		       const struct xfab_job *job, char *err, size_t errlen)
{
	int host[XFAB_JOB_MAX_RANKS];
	struct xfab_job_conn *conns;
	size_t n;
	uint64_t per_conn = xfab_job_qp_bytes(job) * job->qps;
	const char *name = job->name[0] ? job->name : "job";

	if (job->n > XFAB_JOB_MAX_RANKS)
		return xfab_te_err(err, errlen, NULL, "%s: more than %d ranks", name,
				   XFAB_JOB_MAX_RANKS);
	for (uint32_t r = 0; r < job->n; r++) {
		char a[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &job->ranks[r].addr, a, sizeof(a));
		host[r] = xfab_te_host_by_addr(f, job->ranks[r].addr);
		if (host[r] < 0)
			return xfab_te_err(err, errlen, NULL,
					   "%s: rank %u (%s) is no host of the fabric", name, r, a);
		if (job->ranks[r].host[0] && strcmp(job->ranks[r].host, f->hosts[host[r]].name))
			return xfab_te_err(
			    err, errlen, NULL,
			    "%s: rank %u is %s in the job, but %s is %s in the fabric", name, r,
			    job->ranks[r].host, a, f->hosts[host[r]].name);
	}
	n = xfab_job_conns(job, NULL, 0);
	conns = calloc(n ? n : 1, sizeof(*conns));
	if (!conns)
		return xfab_te_err(err, errlen, NULL, "out of memory");
	xfab_job_conns(job, conns, n);
	for (size_t i = 0; i < n; i++) {
		int rc = xfab_te_demand_add(dm, host[conns[i].src], host[conns[i].dst], per_conn);

		if (rc) {
			free(conns);
			return xfab_te_err(err, errlen, NULL, "%s: %s", name,
					   rc == -ERANGE ? "a pair's bytes overflow"
							 : strerror(-rc));
		}
	}
	free(conns);
	return 0;
}

int xfab_te_demand_matrix(struct xfab_te_demands *dm, const struct xfab_te_fabric *f,
			  const char *text, char *err, size_t errlen)
{
	struct json_pos pos = {1, 1};
	char jerr[160];
	struct json_value *root = xfab_json_parse(text, jerr, sizeof(jerr), &pos);
	struct xfab_te_demand *tmp = NULL;
	int ret = -1;

	if (!root)
		return xfab_te_err(err, errlen, &pos, "%s", jerr);
	if (root->type != JSON_ARRAY) {
		xfab_te_err(err, errlen, &root->pos,
			    "a traffic matrix is an array of {\"src\", \"dst\", \"bytes\"}");
		goto out;
	}
	tmp = calloc(root->count ? root->count : 1, sizeof(*tmp));
	if (!tmp) {
		xfab_te_err(err, errlen, NULL, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < root->count; i++) {
		const struct json_value *e = &root->children[i];
		char where[32], src[64], dst[64];
		uint64_t bytes;

		snprintf(where, sizeof(where), "[%u]", i);
		if (e->type != JSON_OBJECT) {
			xfab_te_err(err, errlen, &e->pos, "%s: must be an object", where);
			goto out;
		}
		for (unsigned k = 0; k < e->count; k++)
			if (strcmp(e->children[k].key, "src") &&
			    strcmp(e->children[k].key, "dst") &&
			    strcmp(e->children[k].key, "bytes")) {
				xfab_te_err(err, errlen, &e->children[k].key_pos,
					    "%s: unknown field \"%.32s\" (src, dst, bytes)", where,
					    e->children[k].key);
				goto out;
			}
		if (get_str(e, "src", 1, src, sizeof(src), where, err, errlen) ||
		    get_str(e, "dst", 1, dst, sizeof(dst), where, err, errlen) ||
		    get_uint(e, "bytes", 1, 1, UINT64_MAX >> 1, &bytes, where, err, errlen))
			goto out;
		tmp[i].src = xfab_te_host_index(f, src);
		tmp[i].dst = xfab_te_host_index(f, dst);
		tmp[i].bytes = bytes;
		if (tmp[i].src < 0 || tmp[i].dst < 0) {
			const char *k = tmp[i].src < 0 ? "src" : "dst";

			xfab_te_err(err, errlen, &xfab_json_get(e, k)->pos,
				    "%s.%s: no host \"%s\" in the fabric", where, k,
				    tmp[i].src < 0 ? src : dst);
			goto out;
		}
		if (tmp[i].src == tmp[i].dst) {
			xfab_te_err(err, errlen, &xfab_json_get(e, "dst")->pos,
				    "%s.dst: the same host as src", where);
			goto out;
		}
	}
	/* all or nothing: dm changes only once every entry is good */
	{
		struct xfab_te_demands copy;

		xfab_te_demands_init(&copy);
		for (size_t i = 0; i < dm->n; i++)
			if (xfab_te_demand_add(&copy, dm->d[i].src, dm->d[i].dst, dm->d[i].bytes))
				goto nomem;
		for (unsigned i = 0; i < root->count; i++) {
			int rc = xfab_te_demand_add(&copy, tmp[i].src, tmp[i].dst, tmp[i].bytes);

			if (rc == -ERANGE) {
				xfab_te_demands_free(&copy);
				xfab_te_err(err, errlen, &root->children[i].pos,
					    "[%u].bytes: the pair's bytes overflow", i);
				goto out;
			}
			if (rc)
				goto nomem;
		}
		xfab_te_demands_free(dm);
		*dm = copy;
		ret = 0;
		goto out;
	nomem:
		xfab_te_demands_free(&copy);
		xfab_te_err(err, errlen, NULL, "out of memory");
	}
out:
	free(tmp);
	xfab_json_free(root);
	return ret;
}
