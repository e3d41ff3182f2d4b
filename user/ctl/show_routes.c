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
#include "fib.h"

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
static unsigned long long fib_check(int v6, const __u32 *l1, const __u32 *l2, __u32 n_groups,
				    unsigned long long *probes, char *first_bad, size_t len)
{
	int fd = ctl_open_map(v6 ? XFAB_MAP_ROUTES_V6 : XFAB_MAP_ROUTES_V4);
	size_t ksz = v6 ? sizeof(struct xfab_lpm_v6_key) : sizeof(struct xfab_lpm_v4_key), n;
	int alen = v6 ? 16 : 4;
	char *keys = ctl_map_keys(fd, ksz, &n);
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
			got = v6 ? xfab_fib6_lookup(l1, l2, n_groups, probe.addr)
				 : xfab_fib4_lookup(l1, l2, n_groups, ntohl(a4));
			(*probes)++;
			if (got == want)
				continue;
			if (!bad++) {
				char a[INET6_ADDRSTRLEN];

				ctl_addr_str(v6, probe.addr, a, sizeof(a));
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

/* One FIB as the data plane sees it (both families have one layout,
 * xfab_abi.h): its first level and groups, mapped read-only. */
struct fib_view {
	const __u32 *l1, *l2;
	__u32 n_groups;
	size_t len1, len2;
	unsigned long long l1_set, groups_used;
	unsigned long long by_type[8]; /* IPv4: addresses each kind of route covers */
};

static void fib_open(int v6, struct fib_view *f)
{
	int fd1 = ctl_open_map(v6 ? XFAB_MAP_FIB6_TBL16 : XFAB_MAP_FIB4_TBL16),
	    fd2 = ctl_open_map(v6 ? XFAB_MAP_FIB6_TBL8 : XFAB_MAP_FIB4_TBL8);

	memset(f, 0, sizeof(*f));
	if (xfab_map_groups(fd2, &f->n_groups)) {
		fprintf(stderr, "xfabctl: cannot read the FIB's size: %s\n", strerror(errno));
		exit(1);
	}
	f->len1 = (size_t)XFAB_FIB4_TBL16_SIZE * 4;
	f->len2 = (size_t)f->n_groups * 1024;
	f->l1 = mmap(NULL, f->len1, PROT_READ, MAP_SHARED, fd1, 0);
	f->l2 = mmap(NULL, f->len2, PROT_READ, MAP_SHARED, fd2, 0);
	if (f->l1 == MAP_FAILED || f->l2 == MAP_FAILED) {
		fprintf(stderr, "xfabctl: cannot map the IPv%d FIB: %s\n", v6 ? 6 : 4,
			strerror(errno));
		exit(1);
	}
}

/* Walks the groups reachable from the first level (each once), counting
 * them and, for IPv4, the addresses each kind of route covers. */
static void fib_walk(int v6, struct fib_view *f)
{
	__u8 *seen = calloc(f->n_groups, 1);
	struct {
		__u32 g;
		int depth; /* address bits below the group's level */
	} *stack = malloc((size_t)f->n_groups * sizeof(*stack));
	size_t top = 0;

	if (!seen || !stack) {
		fprintf(stderr, "xfabctl: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < XFAB_FIB4_TBL16_SIZE; i++) {
		__u32 v = f->l1[i], g = v & XFAB_FIB4_ID_MASK;

		f->l1_set += v != 0;
		if (!(v & XFAB_FIB4_EXT)) {
			if (v && !v6)
				f->by_type[(v >> XFAB_FIB4_TYPE_SHIFT) & 7] += 1u << 16;
		} else if (g < f->n_groups && !seen[g]) {
			seen[g] = 1;
			stack[top].g = g;
			stack[top++].depth = v6 ? 112 : 16;
		}
	}
	while (top) {
		__u32 g = stack[--top].g;
		int depth = stack[top].depth - 8;

		f->groups_used++;
		for (size_t j = 0; j < 256; j++) {
			__u32 v = f->l2[(size_t)g * 256 + j], c = v & XFAB_FIB4_ID_MASK;

			if (!(v & XFAB_FIB4_EXT)) {
				if (v && !v6)
					f->by_type[(v >> XFAB_FIB4_TYPE_SHIFT) & 7] += 1ull
										       << depth;
			} else if (c < f->n_groups && !seen[c] && depth >= 8) {
				seen[c] = 1;
				stack[top].g = c;
				stack[top++].depth = depth;
			}
		}
	}
	free(seen);
	free(stack);
}

/* The FIBs as the data plane sees them: how full each level is, how many
 * addresses each kind of IPv4 route covers, and a check against the route
 * list. */
static int show_fib(void)
{
	struct fib_view f4, f6;
	unsigned long long probes4 = 0, probes6 = 0, bad4, bad6;
	char first4[160] = "", first6[200] = "";

	fib_open(0, &f4);
	fib_open(1, &f6);
	fib_walk(0, &f4);
	fib_walk(1, &f6);
	bad4 = fib_check(0, f4.l1, f4.l2, f4.n_groups, &probes4, first4, sizeof(first4));
	bad6 = fib_check(1, f6.l1, f6.l2, f6.n_groups, &probes6, first6, sizeof(first6));
	if (ctl_json) {
		ctl_jw_open(NULL, '{');
		ctl_jw_uint("v4_probes", probes4);
		ctl_jw_uint("v4_disagree", bad4);
		ctl_jw_uint("v6_probes", probes6);
		ctl_jw_uint("v6_disagree", bad6);
		ctl_jw_uint("v4_tbl16_set", f4.l1_set);
		ctl_jw_uint("v4_groups", f4.n_groups);
		ctl_jw_uint("v4_groups_used", f4.groups_used);
		ctl_jw_uint("v6_tbl16_set", f6.l1_set);
		ctl_jw_uint("v6_groups", f6.n_groups);
		ctl_jw_uint("v6_groups_used", f6.groups_used);
		ctl_jw_open("addresses", '{');
		for (int t = 1; t < 8; t++)
			if (f4.by_type[t])
				ctl_jw_uint(xfab_route_type_name((__u32)t), f4.by_type[t]);
		ctl_jw_close('}');
		ctl_jw_close('}');
	} else {
		printf("IPv4 FIB (table 0: a 16-bit first level, then a byte per level)\n");
		printf("  tbl16: %llu of %u entries set\n", f4.l1_set, XFAB_FIB4_TBL16_SIZE);
		printf("  groups: %llu of %u in use (%u KiB)\n", f4.groups_used, f4.n_groups,
		       f4.n_groups);
		printf("  addresses covered by route type:\n");
		for (int t = 1; t < 8; t++)
			if (f4.by_type[t])
				printf("    %-10s %llu\n", xfab_route_type_name((__u32)t),
				       f4.by_type[t]);
		printf("IPv6 FIB (table 0: a 16-bit first level, then a byte per level)\n");
		printf("  tbl16: %llu of %u entries set\n", f6.l1_set, XFAB_FIB6_TBL16_SIZE);
		printf("  groups: %llu of %u in use (%u KiB)\n", f6.groups_used, f6.n_groups,
		       f6.n_groups);
		printf("Check against the route list (first and last address of every route):\n");
		printf("  IPv4: %llu probed, %llu disagree%s%s\n", probes4, bad4,
		       bad4 ? "; first: " : "", first4);
		printf("  IPv6: %llu probed, %llu disagree%s%s\n", probes6, bad6,
		       bad6 ? "; first: " : "", first6);
	}
	munmap((void *)f4.l1, f4.len1);
	munmap((void *)f4.l2, f4.len2);
	munmap((void *)f6.l1, f6.len1);
	munmap((void *)f6.l2, f6.len2);
	return bad4 || bad6 ? 1 : 0;
}

static int show_routes(void)
{
	int v4_fd = ctl_open_map(XFAB_MAP_ROUTES_V4), v6_fd = ctl_open_map(XFAB_MAP_ROUTES_V6);
	int nh_fd = ctl_open_map(XFAB_MAP_NEXTHOPS), grp_fd = ctl_open_map(XFAB_MAP_GROUPS);
	size_t n4, n6, n = 0;
	struct xfab_lpm_v4_key *k4 = ctl_map_keys(v4_fd, sizeof(*k4), &n4);
	struct xfab_lpm_v6_key *k6 = ctl_map_keys(v6_fd, sizeof(*k6), &n6);
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
	if (ctl_json)
		ctl_jw_open(NULL, '[');
	for (size_t i = 0; i < n; i++) {
		const struct route_row *r = &rows[i];

		ctl_addr_str(r->v6, r->addr, a, sizeof(a));
		snprintf(pfx, sizeof(pfx), "%s/%d", a, r->plen);
		origin = xfab_route_origin_name(&r->rt, proto, sizeof(proto));
		if (ctl_json) {
			ctl_jw_open(NULL, '{');
			ctl_jw_string("prefix", pfx);
			ctl_jw_string("family", r->v6 ? "ipv6" : "ipv4");
			ctl_jw_string("protocol", origin);
			ctl_jw_string("type", xfab_route_type_name(r->rt.type));
		} else {
			printf("%-24s %-9s %-9s", pfx, origin, xfab_route_type_name(r->rt.type));
		}
		switch (r->rt.type) {
		case XFAB_RT_CONNECTED:
			ctl_port_name(r->rt.id, name);
			if (ctl_json)
				ctl_jw_string("dev", name);
			else
				printf(" dev %s", name);
			break;
		case XFAB_RT_NEXTHOP:
			if (ctl_json) {
				ctl_jw_open("members", '[');
				ctl_print_nexthop_json(nh_fd, r->rt.id);
				ctl_jw_close(']');
			} else {
				ctl_print_nexthop_text(nh_fd, r->rt.id, " ");
			}
			break;
		case XFAB_RT_GROUP:
			if (bpf_map_lookup_elem(grp_fd, &r->rt.id, &grp))
				memset(&grp, 0, sizeof(grp));
			if (ctl_json) {
				ctl_jw_uint("group", r->rt.id);
				ctl_jw_uint("live_members", grp.live_members);
				ctl_jw_open("members", '[');
				for (int m = 0; m < grp.num_members && m < XFAB_GROUP_MAX_MEMBERS;
				     m++)
					ctl_print_nexthop_json(nh_fd, grp.members[m]);
				ctl_jw_close(']');
			} else {
				printf(" group %u (%u/%u live)", r->rt.id, grp.live_members,
				       grp.num_members);
				for (int m = 0; m < grp.num_members && m < XFAB_GROUP_MAX_MEMBERS;
				     m++)
					ctl_print_nexthop_text(nh_fd, grp.members[m], "\n    ");
			}
			break;
		default:
			break;
		}
		if (ctl_json)
			ctl_jw_close('}');
		else
			putchar('\n');
	}
	if (ctl_json)
		ctl_jw_close(']');
	free(rows);
	free(k4);
	free(k6);
	return 0;
}

CTL_SHOW(show_routes_obj, "routes", 40, "routes", .view = show_routes,
	 .help = "IPv4/IPv6 routes with their nexthops or group members")
CTL_SHOW(show_fib_obj, "routes", 50, "fib", .view = show_fib,
	 .help = "the forwarding tables (16-bit first level, 8-bit groups): fill, use")
