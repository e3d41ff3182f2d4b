// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* te add|del: runtime TE entries, next to the configured ones */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "ctl.h"

/* The nexthop id of an existing nexthop via gw (on dev, if given). */
static __u32 find_nexthop(int v6, const __u8 *gw, __u32 dev)
{
	int fd = open_map(XFAB_MAP_NEXTHOPS);
	struct xfab_nexthop nh;

	for (__u32 id = 1; id < XFAB_MAX_NEXTHOPS; id++) {
		if (load_nexthop(fd, id, &nh))
			continue;
		if (!!(nh.flags & XFAB_NH_IPV6) == !!v6 && !memcmp(nh.gw, gw, v6 ? 16 : 4) &&
		    (!dev || nh.ifindex == dev))
			return id;
	}
	return 0;
}

static __u32 find_group(const __u32 *members, int n)
{
	int fd = open_map(XFAB_MAP_GROUPS);
	struct xfab_group grp;

	for (__u32 id = 1; id < XFAB_MAX_GROUPS; id++) {
		int hit = 0;

		if (bpf_map_lookup_elem(fd, &id, &grp) || grp.num_members != n)
			continue;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				hit += grp.members[j] == members[i];
		if (hit == n)
			return id;
	}
	return 0;
}

static int te_key(const char *in, const char *prefix, int *v6, void *key, size_t *ksz)
{
	struct xfab_prefix p;
	char why[160];
	__u32 ifindex = if_nametoindex(in ? in : "");

	if (!ifindex) {
		fprintf(stderr, "xfabctl te: --in names no port\n");
		return -1;
	}
	if (!prefix || xfab_parse_prefix(prefix, &p, why, sizeof(why))) {
		fprintf(stderr, "xfabctl te: --prefix: %s\n", prefix ? why : "missing");
		return -1;
	}
	*v6 = p.family == AF_INET6;
	if (*v6) {
		struct xfab_lpm_v6_key *k = key;

		k->prefixlen = 32 + (__u32)p.plen;
		k->table = htonl(XFAB_TABLE_TE | ifindex);
		memcpy(k->addr, p.addr, 16);
		*ksz = sizeof(*k);
	} else {
		struct xfab_lpm_v4_key *k = key;

		k->prefixlen = 32 + (__u32)p.plen;
		k->table = htonl(XFAB_TABLE_TE | ifindex);
		memcpy(k->addr, p.addr, 4);
		*ksz = sizeof(*k);
	}
	return 0;
}

static int cmd_te(const char *verb, const char *in, const char *prefix, const char *via)
{
	struct xfab_lpm_v6_key key = {0}; /* large enough for either family */
	struct xfab_settings cfg;
	struct xfab_route rt = {0};
	__u32 zero = 0, members[XFAB_GROUP_MAX_MEMBERS];
	size_t ksz;
	int v6, fd, n = 0;

	if (bpf_map_lookup_elem(open_map(XFAB_MAP_SETTINGS), &zero, &cfg) ||
	    !(cfg.flags & XFAB_SET_TE)) {
		fprintf(stderr, "xfabctl te: TE is off on this switch; add a TE_PATH table "
				"(it may be empty) to its config\n");
		return 1;
	}
	if (te_key(in, prefix, &v6, &key, &ksz))
		return 2;
	fd = open_map(v6 ? XFAB_MAP_ROUTES_V6 : XFAB_MAP_ROUTES_V4);
	if (!strcmp(verb, "del")) {
		if (bpf_map_delete_elem(fd, &key)) {
			fprintf(stderr, "xfabctl te del: no such entry\n");
			return 1;
		}
		return 0;
	}
	if (strcmp(verb, "add") || !via) {
		fprintf(stderr, "usage: xfabctl te add --in PORT --prefix P --via GW[,GW...]\n");
		return 2;
	}
	{
		char copy[1024], *tok, *save = NULL;

		snprintf(copy, sizeof(copy), "%s", via);
		for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			__u8 gw[16] = {0};

			if (n == XFAB_GROUP_MAX_MEMBERS ||
			    inet_pton(v6 ? AF_INET6 : AF_INET, tok, gw) != 1) {
				fprintf(stderr, "xfabctl te add: bad --via %s\n", tok);
				return 2;
			}
			members[n] = find_nexthop(v6, gw, 0);
			if (!members[n]) {
				fprintf(stderr,
					"xfabctl te add: %s is no nexthop of this switch (TE pins "
					"to nexthops the routes already use)\n",
					tok);
				return 1;
			}
			n++;
		}
	}
	if (n == 1) {
		rt.type = XFAB_RT_NEXTHOP;
		rt.id = members[0];
	} else {
		rt.type = XFAB_RT_GROUP;
		rt.id = find_group(members, n);
		if (!rt.id) {
			fprintf(stderr, "xfabctl te add: no group has exactly these members\n");
			return 1;
		}
	}
	if (bpf_map_update_elem(fd, &key, &rt, BPF_ANY)) {
		fprintf(stderr, "xfabctl te add: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

int te_add(const struct ctl_opts *o)
{
	return cmd_te("add", o->in, o->prefix, o->via);
}

int te_del(const struct ctl_opts *o)
{
	return cmd_te("del", o->in, o->prefix, o->via);
}
