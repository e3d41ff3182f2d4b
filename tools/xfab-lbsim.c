// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab-lbsim: link-load balance of xfab's ECMP for RoCE traffic, computed
 * with the data plane's own hash (include/xfab_hash.h) over the group that
 * xfabd's compiler writes (a config through the RIB and user/lib/compile.c),
 * so the figures are what the switch does.
 *
 * Each trial: FLOWS host-pair flows of equal volume (RoCEv2, UDP 4791, one
 * fixed UDP source port per pair, the low-entropy case) over one LINKS-way
 * group, with a fresh hash seed and fresh addresses. A flow spread over Q QPs
 * sends 1/Q of its volume on each QP. Reported: max-to-mean link load,
 * min/median/max over the trials, for
 *   5-tuple ECMP (QP not hashed), E-ECMP with 4 QPs and with 16 QPs.
 *
 *   xfab-lbsim [--flows N] [--links N] [--trials N] [--json FILE]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "config.h"
#include "opts.h"
#include "rib.h"
#include "xfab_hash.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ---- the group: one route over LINKS gateways, compiled as xfabd does ---- */

static int grp_update(void *arg, enum xfab_table t, const void *key, const void *val)
{
	(void)key;
	if (t == XFAB_T_GROUPS)
		memcpy(arg, val, sizeof(struct xfab_group));
	return 0;
}

static int grp_remove(void *arg, enum xfab_table t, const void *key)
{
	(void)arg, (void)t, (void)key;
	return 0;
}

static int no_neigh(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6])
{
	(void)arg, (void)ifindex, (void)family, (void)addr, (void)mac;
	return -ENOENT;
}

/* Port eth1 (10.0.0.1/24, up) and 20.0.0.0/8 over 10.0.0.2 .. 10.0.0.LINKS+1,
 * weight 1 each: the group's buckets, members by nexthop id. */
static int compile_group(int links, struct xfab_group *grp)
{
	char text[4096], line[512];
	size_t n = 0;
	struct xfab_map_ops ops = {.update = grp_update, .remove = grp_remove, .arg = grp};
	struct xfab_port_live live[XFAB_MAX_PORTS] = {{.ifindex = 10, .oper_up = 1}};
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;
	struct xfab_rib *rib = xfab_rib_new();
	struct xfab_compile *c = rib ? xfab_compile_new(rib, &ops, no_neigh, NULL) : NULL;
	int err = -ENOMEM;

	n += (size_t)snprintf(text + n, sizeof(text) - n,
			      "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"lbsim\"}},\n"
			      " \"PORT\": {\"eth1\": {}},\n"
			      " \"INTERFACE\": {\"eth1|10.0.0.1/24\": {}},\n"
			      " \"ROUTE\": {\"20.0.0.0/8\": {\"nexthop\": \"");
	for (int l = 0; l < links; l++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s10.0.0.%d", l ? "," : "",
				      l + 2);
	snprintf(text + n, sizeof(text) - n, "\"}}}\n");
	memset(grp, 0, sizeof(*grp));
	if (!c)
		goto out;
	if (xfab_config_parse("lbsim.json", text, &cfg, &errs)) {
		xfab_cfg_error_format(&errs.e[0], line, sizeof(line));
		fprintf(stderr, "xfab-lbsim: %s\n", line);
		err = -EINVAL;
		goto out;
	}
	err = xfab_rib_load_config(rib, &cfg);
	if (!err)
		err = xfab_compile_config(c, &cfg, live);
	xfab_config_free(&cfg);
	if (!err && grp->num_members != links)
		err = -EINVAL;
out:
	xfab_compile_free(c);
	xfab_rib_free(rib);
	if (err)
		fprintf(stderr, "xfab-lbsim: cannot compile the group: %s\n", strerror(-err));
	return err;
}

/* One trial: max/mean link load (link: a member's index in the group). */
static double trial(int flows, int links, int qps, __u32 fields, const struct xfab_group *grp)
{
	double load[XFAB_GROUP_MAX_MEMBERS] = {0}, max = 0, mean = 0;
	struct xfab_hash_key key;

	xfab_hash_key_derive(&key, rnd(), fields);
	for (int f = 0; f < flows; f++) {
		struct xfab_flow base = {0};

		base.src[0] = 0x0a000000u | (rnd() & 0xffffff);
		base.dst[0] = 0x0a000000u | (rnd() & 0xffffff);
		base.proto = 17;
		base.ports = 0xc000u | ((__u32)0xb712 << 16); /* sport 49152, dport 4791 (BE) */
		for (int q = 0; q < qps; q++) {
			struct xfab_flow fl = base;
			__u32 hash, nh;

			fl.qp = rnd() & 0xffffff;
			hash = xfab_flow_hash(&fl, &key);
			nh = grp->buckets[XFAB_HASH_BUCKET(hash)];
			for (int m = 0; m < grp->num_members; m++)
				if (grp->members[m] == nh)
					load[m] += 1.0 / qps;
		}
	}
	for (int l = 0; l < links; l++) {
		mean += load[l] / links;
		if (load[l] > max)
			max = load[l];
	}
	return max / mean;
}

int main(int argc, char **argv)
{
	int flows = 1000, links = 16, trials = 200;
	const char *json_path = NULL;
	struct xfab_group grp;
	const struct {
		const char *name;
		int qps;
		__u32 fields;
	} scen[] = {
	    {"5-tuple ECMP", 1, XFAB_HASH_F_DEFAULT},
	    {"E-ECMP, 4 QPs per pair", 4, XFAB_HASH_F_DEFAULT | XFAB_HASH_F_ROCE_QP},
	    {"E-ECMP, 16 QPs per pair", 16, XFAB_HASH_F_DEFAULT | XFAB_HASH_F_ROCE_QP},
	};
	FILE *jf = NULL;

	const struct xfab_opt rows[] = {
	    XFAB_OPT_INT("flows", 0, flows, 1, 100000000, "N",
			 "flows (RoCE pairs) to place (1000)"),
	    XFAB_OPT_INT("links", 0, links, 2, XFAB_GROUP_MAX_MEMBERS, "N",
			 "links in the ECMP group (16)"),
	    XFAB_OPT_INT("trials", 0, trials, 1, 100000, "N", "random trials per scheme (200)"),
	    XFAB_OPT_STR("json", 0, json_path, "FILE", "also write the results to FILE"),
	    XFAB_OPT_END,
	};
	const struct xfab_opts spec = {"xfab-lbsim", NULL, rows, NULL};
	int ret = xfab_opts_parse_all(&spec, argc, argv);

	if (ret >= 0)
		return ret;
	if (compile_group(links, &grp))
		return 1;
	if (json_path) {
		jf = fopen(json_path, "w");
		if (!jf) {
			perror(json_path);
			return 1;
		}
		fprintf(jf, "{\"flows\":%d,\"links\":%d,\"trials\":%d,\"results\":[", flows, links,
			trials);
	}
	printf("max-to-mean link load, %d flows over %d links, %d trials "
	       "(RoCEv2, fixed UDP source port per pair)\n",
	       flows, links, trials);
	printf("%-26s %8s %8s %8s\n", "scheme", "min", "median", "max");
	for (size_t s = 0; s < sizeof(scen) / sizeof(scen[0]); s++) {
		double *r = calloc((size_t)trials, sizeof(double));

		if (!r)
			return 1;
		for (int t = 0; t < trials; t++)
			r[t] = trial(flows, links, scen[s].qps, scen[s].fields, &grp);
		qsort(r, (size_t)trials, sizeof(double), cmp_double);
		printf("%-26s %8.3f %8.3f %8.3f\n", scen[s].name, r[0], r[trials / 2],
		       r[trials - 1]);
		if (jf)
			fprintf(jf,
				"%s{\"scheme\":\"%s\",\"qps\":%d,\"min\":%.4f,\"median\":%.4f,"
				"\"max\":%.4f}",
				s ? "," : "", scen[s].name, scen[s].qps, r[0], r[trials / 2],
				r[trials - 1]);
		free(r);
	}
	if (jf) {
		fprintf(jf, "]}\n");
		fclose(jf);
	}
	return 0;
}
