// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Collective job files: parsing and the connections, QPs and flows a job
 * implies (job.h). */
#include "job.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "textfile.h"

static const char *const op_names[] = {
    [XFAB_JOB_ALLREDUCE] = "allreduce",
    [XFAB_JOB_ALLGATHER] = "allgather",
    [XFAB_JOB_REDUCESCATTER] = "reducescatter",
    [XFAB_JOB_ALLTOALL] = "alltoall",
};

static const char *const qp_mode_names[] = {
    [XFAB_JOB_QP_RR] = "rr",
    [XFAB_JOB_QP_SPLIT] = "split",
};

const char *xfab_job_op_name(enum xfab_job_op op)
{
	return (unsigned int)op < sizeof(op_names) / sizeof(op_names[0]) ? op_names[op] : "?";
}

const char *xfab_job_qp_mode_name(enum xfab_job_qp_mode mode)
{
	return (unsigned int)mode < sizeof(qp_mode_names) / sizeof(qp_mode_names[0])
		   ? qp_mode_names[mode]
		   : "?";
}

int xfab_job_op_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
		if (!strcmp(name, op_names[i]))
			return (int)i;
	return -1;
}

int xfab_job_qp_mode_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(qp_mode_names) / sizeof(qp_mode_names[0]); i++)
		if (!strcmp(name, qp_mode_names[i]))
			return (int)i;
	return -1;
}

/* An unsigned integer field in [lo, hi]; absent: *out = dflt (or an error
 * when dflt is NULL). */
static int job_uint(const struct json_value *obj, const char *key, uint64_t lo, uint64_t hi,
		    const uint64_t *dflt, uint64_t *out, char *err, size_t errlen)
{
	const struct json_value *v = xfab_json_get(obj, key);
	unsigned long long x;
	char *end;

	if (!v) {
		if (!dflt)
			return xfab_json_errf(err, errlen, obj->pos, key, "missing");
		*out = *dflt;
		return 0;
	}
	if (v->type != JSON_NUMBER)
		return xfab_json_errf(err, errlen, v->pos, key, "a number is needed, not %s",
				      xfab_json_type_name(v->type));
	errno = 0;
	x = strtoull(v->str, &end, 10);
	if (errno || *end || v->str[0] == '-' || x < lo || x > hi)
		return xfab_json_errf(err, errlen, v->pos, key,
				      "%s is not an integer in %llu..%llu", v->str,
				      (unsigned long long)lo, (unsigned long long)hi);
	*out = x;
	return 0;
}

/* A string field; *out is NULL when it is absent and not required. field
 * names it in errors (key itself when NULL). */
static int job_string(const struct json_value *obj, const char *key, const char *field,
		      int required, const struct json_value **out, char *err, size_t errlen)
{
	const struct json_value *v = xfab_json_get(obj, key);

	*out = NULL;
	if (!field)
		field = key;
	if (!v)
		return required ? xfab_json_errf(err, errlen, obj->pos, field, "missing") : 0;
	if (v->type != JSON_STRING)
		return xfab_json_errf(err, errlen, v->pos, field, "a string is needed, not %s",
				      xfab_json_type_name(v->type));
	*out = v;
	return 0;
}

static int job_ranks(const struct json_value *arr, struct xfab_job *job, char *err, size_t errlen)
{
	char field[48];

	if (arr->type != JSON_ARRAY)
		return xfab_json_errf(err, errlen, arr->pos, "ranks", "an array is needed, not %s",
				      xfab_json_type_name(arr->type));
	if (arr->count < 2 || arr->count > XFAB_JOB_MAX_RANKS)
		return xfab_json_errf(err, errlen, arr->pos, "ranks", "%u ranks; a job has 2..%d",
				      arr->count, XFAB_JOB_MAX_RANKS);
	job->n = arr->count;
	for (unsigned int i = 0; i < arr->count; i++) {
		const struct json_value *r = &arr->children[i], *host, *addr;
		struct xfab_job_rank *rk = &job->ranks[i];

		snprintf(field, sizeof(field), "ranks[%u]", i);
		if (r->type != JSON_OBJECT)
			return xfab_json_errf(err, errlen, r->pos, field,
					      "an object is needed, not %s",
					      xfab_json_type_name(r->type));
		for (unsigned int k = 0; k < r->count; k++)
			if (strcmp(r->children[k].key, "host") &&
			    strcmp(r->children[k].key, "addr"))
				return xfab_json_errf(err, errlen, r->children[k].key_pos, field,
						      "unknown field \"%s\" (host, addr)",
						      r->children[k].key);
		snprintf(field, sizeof(field), "ranks[%u].addr", i);
		if (job_string(r, "addr", field, 1, &addr, err, errlen) || !addr)
			return -1;
		if (inet_pton(AF_INET, addr->str, &rk->addr) != 1)
			return xfab_json_errf(err, errlen, addr->pos, field,
					      "\"%s\" is not an IPv4 address", addr->str);
		snprintf(field, sizeof(field), "ranks[%u].host", i);
		if (job_string(r, "host", field, 0, &host, err, errlen))
			return -1;
		if (host && (!host->str[0] || strlen(host->str) >= sizeof(rk->host)))
			return xfab_json_errf(err, errlen, host->pos, field, "1..%zu characters",
					      sizeof(rk->host) - 1);
		snprintf(rk->host, sizeof(rk->host), "%s", host ? host->str : "");
		for (unsigned int j = 0; j < i; j++)
			if (job->ranks[j].addr.s_addr == rk->addr.s_addr)
				return xfab_json_errf(
				    err, errlen, addr->pos, "ranks",
				    "%s is rank %u and rank %u: one rank per host", addr->str, j,
				    i);
	}
	return 0;
}

static const char *const job_fields[] = {"name", "op",	    "ranks",   "channels",
					 "qps",	 "qp_mode", "qp_base", "bytes"};

int xfab_job_parse(const char *text, struct xfab_job *job, char *err, size_t errlen)
{
	static const uint64_t one = 1, base = 256;
	const struct json_value *v;
	struct json_value *doc;
	struct json_pos pos = {0, 0};
	char jerr[128];
	uint64_t x = 0;
	int rc = -1;

	memset(job, 0, sizeof(*job));
	doc = xfab_json_parse(text, jerr, sizeof(jerr), &pos);
	if (!doc)
		return xfab_json_errf(err, errlen, pos, "job", "%s", jerr);
	if (doc->type != JSON_OBJECT) {
		xfab_json_errf(err, errlen, doc->pos, "job", "an object is needed, not %s",
			       xfab_json_type_name(doc->type));
		goto out;
	}
	for (unsigned int k = 0; k < doc->count; k++) {
		size_t f = 0;

		while (f < sizeof(job_fields) / sizeof(job_fields[0]) &&
		       strcmp(doc->children[k].key, job_fields[f]))
			f++;
		if (f == sizeof(job_fields) / sizeof(job_fields[0])) {
			xfab_json_errf(
			    err, errlen, doc->children[k].key_pos, doc->children[k].key,
			    "unknown field (name, op, ranks, channels, qps, qp_mode, qp_base, "
			    "bytes)");
			goto out;
		}
	}
	if (job_string(doc, "name", NULL, 0, &v, err, errlen))
		goto out;
	if (v && strlen(v->str) >= sizeof(job->name)) {
		xfab_json_errf(err, errlen, v->pos, "name", "longer than %zu characters",
			       sizeof(job->name) - 1);
		goto out;
	}
	snprintf(job->name, sizeof(job->name), "%s", v ? v->str : "job");
	if (job_string(doc, "op", NULL, 1, &v, err, errlen) || !v)
		goto out;
	if (xfab_job_op_parse(v->str) < 0) {
		xfab_json_errf(err, errlen, v->pos, "op",
			       "\"%s\" is none of allreduce, allgather, reducescatter, alltoall",
			       v->str);
		goto out;
	}
	job->op = (enum xfab_job_op)xfab_job_op_parse(v->str);
	v = xfab_json_get(doc, "ranks");
	if (!v) {
		xfab_json_errf(err, errlen, doc->pos, "ranks", "missing");
		goto out;
	}
	if (job_ranks(v, job, err, errlen))
		goto out;
	if (job_uint(doc, "channels", 1, XFAB_JOB_MAX_CHANNELS, &one, &x, err, errlen))
		goto out;
	job->channels = (uint32_t)x;
	if (job_uint(doc, "qps", 1, XFAB_JOB_MAX_QPS, &one, &x, err, errlen))
		goto out;
	job->qps = (uint32_t)x;
	if (job_string(doc, "qp_mode", NULL, 0, &v, err, errlen))
		goto out;
	if (v && xfab_job_qp_mode_parse(v->str) < 0) {
		xfab_json_errf(err, errlen, v->pos, "qp_mode", "\"%s\" is neither rr nor split",
			       v->str);
		goto out;
	}
	job->qp_mode = v ? (enum xfab_job_qp_mode)xfab_job_qp_mode_parse(v->str) : XFAB_JOB_QP_RR;
	if (job_uint(doc, "qp_base", 1, XFAB_JOB_QPN_MAX, &base, &x, err, errlen))
		goto out;
	job->qp_base = (uint32_t)x;
	/* every QP number of the job fits the BTH's 24 bits */
	if ((uint64_t)job->qp_base + (uint64_t)job->n * job->n * job->channels * job->qps - 1 >
	    XFAB_JOB_QPN_MAX) {
		v = xfab_json_get(doc, "qp_base");
		xfab_json_errf(err, errlen, v ? v->pos : doc->pos, "qp_base",
			       "%u + the job's %llu QP numbers pass 0xffffff", job->qp_base,
			       (unsigned long long)job->n * job->n * job->channels * job->qps);
		goto out;
	}
	/* at least one byte per rank, channel and QP; at most 1 GiB */
	if (job_uint(doc, "bytes", (uint64_t)job->n * job->channels * job->qps, 1ull << 30, NULL,
		     &job->bytes, err, errlen))
		goto out;
	rc = 0;
out:
	xfab_json_free(doc);
	return rc;
}

int xfab_job_load(const char *path, struct xfab_job *job, char *err, size_t errlen)
{
	char inner[256], *text = xfab_read_text(path, 1, err, errlen);
	int rc;

	if (!text)
		return -1;
	rc = xfab_job_parse(text, job, inner, sizeof(inner));
	free(text);
	if (rc)
		snprintf(err, errlen, "%s:%s", path, inner);
	return rc;
}

/* The job's connection i (0 <= i < the count xfab_job_conns returns):
 * channel, then source rank, then destination. */
static struct xfab_job_conn job_conn_at(const struct xfab_job *job, size_t i)
{
	uint32_t per = job->op == XFAB_JOB_ALLTOALL ? job->n * (job->n - 1) : job->n;
	uint32_t c = (uint32_t)(i / per), j = (uint32_t)(i % per), s, d;

	if (job->op != XFAB_JOB_ALLTOALL)
		return (struct xfab_job_conn){j, (j + 1) % job->n, c};
	s = j / (job->n - 1);
	d = j % (job->n - 1);
	return (struct xfab_job_conn){s, d >= s ? d + 1 : d, c};
}

size_t xfab_job_conns(const struct xfab_job *job, struct xfab_job_conn *out, size_t max)
{
	size_t per = job->op == XFAB_JOB_ALLTOALL ? (size_t)job->n * (job->n - 1) : job->n;
	size_t count = per * job->channels;

	for (size_t i = 0; i < count && i < max; i++)
		out[i] = job_conn_at(job, i);
	return count;
}

uint32_t xfab_job_qpn(const struct xfab_job *job, uint32_t owner, uint32_t peer, uint32_t channel,
		      uint32_t q)
{
	return job->qp_base + ((owner * job->n + peer) * job->channels + channel) * job->qps + q;
}

uint64_t xfab_job_qp_bytes(const struct xfab_job *job)
{
	uint64_t steps, per_step, share;

	switch (job->op) {
	case XFAB_JOB_ALLREDUCE:
		steps = 2 * (uint64_t)(job->n - 1);
		break;
	case XFAB_JOB_ALLGATHER:
	case XFAB_JOB_REDUCESCATTER:
		steps = job->n - 1;
		break;
	default: /* alltoall: one S / n block to each peer */
		steps = 1;
		break;
	}
	per_step = (job->bytes + job->n - 1) / job->n;
	share = (uint64_t)job->channels * job->qps;
	return (steps * per_step + share - 1) / share;
}

size_t xfab_job_flows(const struct xfab_job *job, struct xfab_job_flow *out, size_t max)
{
	size_t nconn = xfab_job_conns(job, NULL, 0), k = 0;
	uint64_t bytes = xfab_job_qp_bytes(job);

	for (size_t i = 0; i < nconn; i++) {
		struct xfab_job_conn conn = job_conn_at(job, i);

		for (uint32_t q = 0; q < job->qps; q++, k++) {
			struct xfab_job_flow *f;

			if (k >= max)
				continue;
			f = &out[k];
			memset(f, 0, sizeof(*f));
			f->src = conn.src;
			f->dst = conn.dst;
			f->channel = conn.channel;
			f->q = q;
			f->src_qpn = xfab_job_qpn(job, conn.src, conn.dst, conn.channel, q);
			f->dst_qpn = xfab_job_qpn(job, conn.dst, conn.src, conn.channel, q);
			f->saddr = job->ranks[conn.src].addr;
			f->daddr = job->ranks[conn.dst].addr;
			f->sport = xfab_roce_sport(f->src_qpn, f->dst_qpn);
			f->dport = XFAB_ROCE_UDP_PORT;
			f->bytes = bytes;
		}
	}
	return k;
}

uint16_t xfab_roce_sport(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;
	uint32_t fl, low, high;

	v ^= v >> 20;
	v ^= v >> 40;
	fl = (uint32_t)(v & 0xfffff);
	low = fl & 0x3fff;
	high = fl & 0xfc000;
	low ^= high >> 14;
	return (uint16_t)(low | 0xc000);
}
