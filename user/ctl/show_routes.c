// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* show routes, show fib */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include "fib4.h"
#include "fib6.h"

#include "ctl.h"

struct route_row {
	int v6;
	int plen;
	__u8 addr[16];
	struct xfab_route rt;
};

static int cmp_route(const void *a, const void *b)
{
	const struct route_row *x = a, *y = b;
	int c;

	if (x->v6 != y->v6)
		return x->v6 - y->v6;
	c = memcmp(x->addr, y->addr, 16);
	return c ? c : x->plen - y->plen;
}

/* Probes a FIB at the first and last address of every table-0 route and
 * compares it with the route list's own longest match (the trie's lookup,
 * which the data plane no longer makes for table 0): they must agree. */
static unsigned long long fib_check(int v6, const __u32 *l1, const __u32 *l2,
				    unsigned long long *probes, char *first_bad, size_t len)
{
	int fd = open_map(v6 ? XFAB_MAP_ROUTES_V6 : XFAB_MAP_ROUTES_V4);
	size_t ksz = v6 ? sizeof(struct xfab_lpm_v6_key) : sizeof(struct xfab_lpm_v4_key), n;
	int alen = v6 ? 16 : 4;
	char *keys = map_keys(fd, ksz, &n);
	unsigned long long bad = 0;

	for (size_t i = 0; i < n; i++) {
		const char *k = keys + i * ksz;
		int plen = (int)*(const __u32 *)k - 32;

		if (*(const __u32 *)(k + 4) != 0 || plen < 0 || plen > alen * 8)
			continue; /* TE tables are not in the FIB */
		for (int last = 0; last <= 1; last++) {
			struct xfab_lpm_v6_key probe = {.prefixlen = 32 + (__u32)alen * 8};
			struct xfab_route rt;
			__u32 want = 0, got, a4;

			memcpy(probe.addr, k + 8, (size_t)alen);
			for (int b = plen; last && b < alen * 8; b++)
				probe.addr[b / 8] |= (__u8)(0x80 >> (b % 8));
			if (!bpf_map_lookup_elem(fd, &probe, &rt))
				want = XFAB_FIB4_ENTRY(rt.type, rt.id & XFAB_FIB4_ID_MASK);
			memcpy(&a4, probe.addr, 4);
			got = v6 ? xfab_fib6_lookup(l1, l2, probe.addr)
				 : xfab_fib4_lookup(l1, l2, ntohl(a4));
			(*probes)++;
			if (got == want)
				continue;
			if (!bad++) {
				char a[INET6_ADDRSTRLEN];

				addr_str(v6, probe.addr, a, sizeof(a));
				snprintf(first_bad, len, "%s: FIB %s %u, route list %s %u", a,
					 xfab_route_type_name(got >> XFAB_FIB4_TYPE_SHIFT),
					 got & XFAB_FIB4_ID_MASK,
					 xfab_route_type_name(want >> XFAB_FIB4_TYPE_SHIFT),
					 want & XFAB_FIB4_ID_MASK);
			}
		}
	}
	free(keys);
	return bad;
}

/* The IPv4 FIB as the data plane sees it: how full each level is, and how
 * many addresses each kind of route covers. */
int show_fib(void)
{
	size_t len24 = (size_t)XFAB_FIB4_TBL24_SIZE * 4,
	       len8 = (size_t)XFAB_FIB4_TBL8_GROUPS * 1024;
	const __u32 *t24 =
	    mmap(NULL, len24, PROT_READ, MAP_SHARED, open_map(XFAB_MAP_FIB4_TBL24), 0);
	const __u32 *t8 = mmap(NULL, len8, PROT_READ, MAP_SHARED, open_map(XFAB_MAP_FIB4_TBL8), 0);
	unsigned long long by_type[8] = {0}, set = 0, ext = 0;

	if (t24 == MAP_FAILED || t8 == MAP_FAILED) {
		fprintf(stderr, "xfabctl: cannot map the IPv4 FIB: %s\n", strerror(errno));
		exit(1);
	}
	for (size_t i = 0; i < XFAB_FIB4_TBL24_SIZE; i++) {
		__u32 v = t24[i];

		if (!v)
			continue;
		set++;
		if (!(v & XFAB_FIB4_EXT)) {
			by_type[(v >> XFAB_FIB4_TYPE_SHIFT) & 7] += 256;
			continue;
		}
		ext++;
		if ((v & XFAB_FIB4_ID_MASK) >= XFAB_FIB4_TBL8_GROUPS)
			continue;
		for (size_t j = 0; j < 256; j++) {
			__u32 e = t8[(size_t)(v & XFAB_FIB4_ID_MASK) * 256 + j];

			if (e)
				by_type[(e >> XFAB_FIB4_TYPE_SHIFT) & 7]++;
		}
	}
	/* IPv6: first-level entries set, groups reachable from them */
	size_t len16 = (size_t)XFAB_FIB6_TBL16_SIZE * 4, len68 = (size_t)XFAB_FIB6_GROUPS * 1024;
	const __u32 *s16 =
	    mmap(NULL, len16, PROT_READ, MAP_SHARED, open_map(XFAB_MAP_FIB6_TBL16), 0);
	const __u32 *s8 = mmap(NULL, len68, PROT_READ, MAP_SHARED, open_map(XFAB_MAP_FIB6_TBL8), 0);
	unsigned long long set6 = 0, groups6 = 0;

	if (s16 == MAP_FAILED || s8 == MAP_FAILED) {
		fprintf(stderr, "xfabctl: cannot map the IPv6 FIB: %s\n", strerror(errno));
		exit(1);
	}
	{
		__u8 *seen = calloc(XFAB_FIB6_GROUPS, 1);
		__u32 *stack = malloc(XFAB_FIB6_GROUPS * sizeof(__u32));
		size_t top = 0;

		if (!seen || !stack) {
			fprintf(stderr, "xfabctl: out of memory\n");
			exit(1);
		}
		for (size_t i = 0; i < XFAB_FIB6_TBL16_SIZE; i++) {
			__u32 v = s16[i], g = v & XFAB_FIB6_ID_MASK;

			set6 += v != 0;
			if ((v & XFAB_FIB6_EXT) && g < XFAB_FIB6_GROUPS && !seen[g]) {
				seen[g] = 1;
				stack[top++] = g;
			}
		}
		while (top) {
			__u32 g = stack[--top];

			groups6++;
			for (size_t j = 0; j < 256; j++) {
				__u32 v = s8[(size_t)g * 256 + j], c = v & XFAB_FIB6_ID_MASK;

				if ((v & XFAB_FIB6_EXT) && c < XFAB_FIB6_GROUPS && !seen[c]) {
					seen[c] = 1;
					stack[top++] = c;
				}
			}
		}
		free(seen);
		free(stack);
	}
	unsigned long long probes4 = 0, probes6 = 0, bad4, bad6;
	char first4[160] = "", first6[200] = "";

	bad4 = fib_check(0, t24, t8, &probes4, first4, sizeof(first4));
	bad6 = fib_check(1, s16, s8, &probes6, first6, sizeof(first6));
	if (json) {
		jw_open(NULL, '{');
		jw_uint("v4_probes", probes4);
		jw_uint("v4_disagree", bad4);
		jw_uint("v6_probes", probes6);
		jw_uint("v6_disagree", bad6);
		jw_uint("v6_tbl16_set", set6);
		jw_uint("v6_groups", XFAB_FIB6_GROUPS);
		jw_uint("v6_groups_used", groups6);
		jw_uint("tbl24_entries", XFAB_FIB4_TBL24_SIZE);
		jw_uint("tbl24_set", set);
		jw_uint("tbl8_groups", XFAB_FIB4_TBL8_GROUPS);
		jw_uint("tbl8_groups_used", ext);
		jw_open("addresses", '{');
		for (int t = 1; t < 8; t++)
			if (by_type[t])
				jw_uint(xfab_route_type_name((__u32)t), by_type[t]);
		jw_close('}');
		jw_close('}');
	} else {
		printf("IPv4 FIB (table 0, DIR-24-8)\n");
		printf("  tbl24: %llu of %u /24 entries set, %llu point into tbl8\n", set,
		       XFAB_FIB4_TBL24_SIZE, ext);
		printf("  tbl8:  %llu of %u groups in use\n", ext, (unsigned)XFAB_FIB4_TBL8_GROUPS);
		printf("  addresses covered by route type:\n");
		for (int t = 1; t < 8; t++)
			if (by_type[t])
				printf("    %-10s %llu\n", xfab_route_type_name((__u32)t),
				       by_type[t]);
	}
	if (!json) {
		printf("IPv6 FIB (table 0, 16-bit first level, then a byte per level)\n");
		printf("  tbl16: %llu of %u entries set\n", set6, XFAB_FIB6_TBL16_SIZE);
		printf("  groups: %llu of %u in use\n", groups6, (unsigned)XFAB_FIB6_GROUPS);
		printf("Check against the route list (first and last address of every route):\n");
		printf("  IPv4: %llu probed, %llu disagree%s%s\n", probes4, bad4,
		       bad4 ? "; first: " : "", first4);
		printf("  IPv6: %llu probed, %llu disagree%s%s\n", probes6, bad6,
		       bad6 ? "; first: " : "", first6);
	}
	munmap((void *)s16, len16);
	munmap((void *)s8, len68);
	munmap((void *)t24, len24);
	munmap((void *)t8, len8);
	return bad4 || bad6 ? 1 : 0;
}

int show_routes(void)
{
	int v4_fd = open_map(XFAB_MAP_ROUTES_V4), v6_fd = open_map(XFAB_MAP_ROUTES_V6);
	int nh_fd = open_map(XFAB_MAP_NEXTHOPS), grp_fd = open_map(XFAB_MAP_GROUPS);
	size_t n4, n6, n = 0;
	struct xfab_lpm_v4_key *k4 = map_keys(v4_fd, sizeof(*k4), &n4);
	struct xfab_lpm_v6_key *k6 = map_keys(v6_fd, sizeof(*k6), &n6);
	struct route_row *rows = calloc(n4 + n6 + 1, sizeof(*rows));
	char pfx[INET6_ADDRSTRLEN + 8], a[INET6_ADDRSTRLEN], name[IF_NAMESIZE], proto[16];
	const char *origin;
	struct xfab_group grp;

	/* table 0 only: TE entries are `show te`'s, the repair group `show groups`' */
	for (size_t i = 0; i < n4; i++) {
		if (k4[i].table || bpf_map_lookup_elem(v4_fd, &k4[i], &rows[n].rt))
			continue;
		rows[n].plen = (int)k4[i].prefixlen - 32;
		memcpy(rows[n].addr, k4[i].addr, 4);
		n++;
	}
	for (size_t i = 0; i < n6; i++) {
		if (k6[i].table || bpf_map_lookup_elem(v6_fd, &k6[i], &rows[n].rt))
			continue;
		rows[n].v6 = 1;
		rows[n].plen = (int)k6[i].prefixlen - 32;
		memcpy(rows[n].addr, k6[i].addr, 16);
		n++;
	}
	qsort(rows, n, sizeof(*rows), cmp_route);
	if (json)
		jw_open(NULL, '[');
	for (size_t i = 0; i < n; i++) {
		const struct route_row *r = &rows[i];

		addr_str(r->v6, r->addr, a, sizeof(a));
		snprintf(pfx, sizeof(pfx), "%s/%d", a, r->plen);
		origin = xfab_route_origin_name(&r->rt, proto, sizeof(proto));
		if (json) {
			jw_open(NULL, '{');
			jw_string("prefix", pfx);
			jw_string("family", r->v6 ? "ipv6" : "ipv4");
			jw_string("protocol", origin);
			jw_string("type", xfab_route_type_name(r->rt.type));
		} else {
			printf("%-24s %-9s %-9s", pfx, origin, xfab_route_type_name(r->rt.type));
		}
		switch (r->rt.type) {
		case XFAB_RT_CONNECTED:
			port_name(r->rt.id, name);
			if (json)
				jw_string("dev", name);
			else
				printf(" dev %s", name);
			break;
		case XFAB_RT_NEXTHOP:
			if (json) {
				jw_open("members", '[');
				print_nexthop_json(nh_fd, r->rt.id);
				jw_close(']');
			} else {
				print_nexthop_text(nh_fd, r->rt.id, " ");
			}
			break;
		case XFAB_RT_GROUP:
			if (bpf_map_lookup_elem(grp_fd, &r->rt.id, &grp))
				memset(&grp, 0, sizeof(grp));
			if (json) {
				jw_uint("group", r->rt.id);
				jw_uint("live_members", grp.live_members);
				jw_open("members", '[');
				for (int m = 0; m < grp.num_members && m < XFAB_GROUP_MAX_MEMBERS;
				     m++)
					print_nexthop_json(nh_fd, grp.members[m]);
				jw_close(']');
			} else {
				printf(" group %u (%u/%u live)", r->rt.id, grp.live_members,
				       grp.num_members);
				for (int m = 0; m < grp.num_members && m < XFAB_GROUP_MAX_MEMBERS;
				     m++)
					print_nexthop_text(nh_fd, grp.members[m], "\n    ");
			}
			break;
		default:
			break;
		}
		if (json)
			jw_close('}');
		else
			putchar('\n');
	}
	if (json)
		jw_close(']');
	free(rows);
	free(k4);
	free(k6);
	return 0;
}
