// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfabctl: look at a running (or stopped) xfab switch through its pinned
 * maps alone. `xfabctl [options] show <object>`, `-j` for JSON.
 */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "common.h"
#include "config.h"
#include "fib4.h"
#include "fib6.h"
#include "xfab_hash.h"

static int json;
static char pin_dir[512];

/* ---- a small JSON writer (comma and nesting bookkeeping) ---- */

static int jw_depth;
static int jw_first[32];

static void jw_sep(void)
{
	if (!jw_first[jw_depth])
		putchar(',');
	jw_first[jw_depth] = 0;
}

static void jw_str_raw(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void jw_key(const char *k)
{
	jw_sep();
	if (k) {
		jw_str_raw(k);
		putchar(':');
	}
}

static void jw_open(const char *k, char c)
{
	jw_key(k);
	putchar(c);
	jw_first[++jw_depth] = 1;
}

static void jw_close(char c)
{
	putchar(c);
	jw_depth--;
}

static void jw_string(const char *k, const char *v)
{
	jw_key(k);
	jw_str_raw(v);
}

static void jw_uint(const char *k, unsigned long long v)
{
	jw_key(k);
	printf("%llu", v);
}

static void jw_bool(const char *k, int v)
{
	jw_key(k);
	printf("%s", v ? "true" : "false");
}

/* ---- helpers ---- */

static int open_map(const char *name)
{
	int fd = xfab_open_pinned_map(pin_dir, name);

	if (fd < 0) {
		fprintf(stderr, "xfabctl: cannot open %s/%s: %s\n", pin_dir, name, strerror(-fd));
		exit(1);
	}
	return fd;
}

/* A port's name as xfabd recorded it (valid from any namespace); other
 * interfaces by the kernel's name. */
static const char *port_name(__u32 ifindex, char *buf)
{
	static int fd = -1;
	struct xfab_port port;

	if (fd < 0)
		fd = xfab_open_pinned_map(pin_dir, XFAB_MAP_PORTS);
	if (fd >= 0 && bpf_map_lookup_elem(fd, &ifindex, &port) == 0 && port.ifindex == ifindex &&
	    port.name[0]) {
		snprintf(buf, IF_NAMESIZE, "%s", port.name);
		return buf;
	}
	if (!if_indextoname(ifindex, buf))
		snprintf(buf, IF_NAMESIZE, "if%u", ifindex);
	return buf;
}

static void addr_str(int v6, const __u8 *addr, char *buf, size_t len)
{
	inet_ntop(v6 ? AF_INET6 : AF_INET, addr, buf, (socklen_t)len);
}

/* Iterates all keys of a hash/LPM map into a malloc'd array. */
static void *map_keys(int fd, size_t key_size, size_t *count)
{
	size_t cap = 64, n = 0;
	char *keys = malloc(cap * key_size), *prev = NULL;

	if (!keys)
		exit(1);
	for (;;) {
		if (n == cap) {
			cap *= 2;
			keys = realloc(keys, cap * key_size);
			if (!keys)
				exit(1);
			prev = n ? keys + (n - 1) * key_size : NULL;
		}
		if (bpf_map_get_next_key(fd, prev, keys + n * key_size))
			break;
		prev = keys + n * key_size;
		n++;
	}
	*count = n;
	return keys;
}

static int load_nexthop(int fd, __u32 id, struct xfab_nexthop *nh)
{
	return bpf_map_lookup_elem(fd, &id, nh) == 0 && (nh->flags & XFAB_NH_VALID) ? 0 : -1;
}

/* ---- show ports ---- */

static int cmp_port(const void *a, const void *b)
{
	const struct xfab_port *x = a, *y = b;

	return x->slot - y->slot;
}

static size_t load_ports(struct xfab_port *ports)
{
	int fd = open_map(XFAB_MAP_PORTS);
	size_t n, out = 0;
	__u32 *keys = map_keys(fd, sizeof(__u32), &n);

	for (size_t i = 0; i < n && out < XFAB_MAX_PORTS; i++)
		if (bpf_map_lookup_elem(fd, &keys[i], &ports[out]) == 0 && ports[out].ifindex)
			out++;
	qsort(ports, out, sizeof(*ports), cmp_port);
	free(keys);
	return out;
}

static int show_ports(void)
{
	struct xfab_port ports[XFAB_MAX_PORTS] = {0};
	size_t n = load_ports(ports);
	char name[IF_NAMESIZE], mac[18];

	if (json)
		jw_open(NULL, '[');
	else
		printf("%-10s %7s %4s  %-17s  %-5s %-5s %5s  %s\n", "Port", "Ifindex", "Slot",
		       "MAC", "Admin", "Oper", "MTU", "Datapath");
	for (size_t i = 0; i < n; i++) {
		const struct xfab_port *p = &ports[i];
		const char *dp = p->datapath == XFAB_DP_TC ? "tc" : "xdp";

		port_name(p->ifindex, name);
		xfab_format_mac(p->mac, mac, sizeof(mac));
		if (json) {
			jw_open(NULL, '{');
			jw_string("port", name);
			jw_uint("ifindex", p->ifindex);
			jw_uint("slot", p->slot);
			jw_string("mac", mac);
			jw_string("admin", p->flags & XFAB_PORT_ADMIN_UP ? "up" : "down");
			jw_string("oper", p->flags & XFAB_PORT_OPER_UP ? "up" : "down");
			jw_uint("mtu", p->mtu);
			jw_string("datapath", dp);
			jw_close('}');
		} else {
			printf("%-10s %7u %4u  %-17s  %-5s %-5s %5u  %s\n", name, p->ifindex,
			       p->slot, mac, p->flags & XFAB_PORT_ADMIN_UP ? "up" : "down",
			       p->flags & XFAB_PORT_OPER_UP ? "up" : "down", p->mtu, dp);
		}
	}
	if (json)
		jw_close(']');
	return 0;
}

/* ---- show routes ---- */

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

static void print_nexthop_json(int nh_fd, __u32 id)
{
	struct xfab_nexthop nh;
	char gw[INET6_ADDRSTRLEN], name[IF_NAMESIZE], mac[18];

	jw_open(NULL, '{');
	jw_uint("nexthop", id);
	if (load_nexthop(nh_fd, id, &nh) == 0) {
		addr_str(nh.flags & XFAB_NH_IPV6, nh.gw, gw, sizeof(gw));
		jw_string("via", gw);
		jw_string("dev", port_name(nh.ifindex, name));
		jw_bool("resolved", nh.flags & XFAB_NH_RESOLVED);
		if (nh.flags & XFAB_NH_RESOLVED) {
			xfab_format_mac(nh.dmac, mac, sizeof(mac));
			jw_string("mac", mac);
		}
	}
	jw_close('}');
}

static void print_nexthop_text(int nh_fd, __u32 id, const char *sep)
{
	struct xfab_nexthop nh;
	char gw[INET6_ADDRSTRLEN], name[IF_NAMESIZE];

	if (load_nexthop(nh_fd, id, &nh)) {
		printf("%snexthop %u (missing)", sep, id);
		return;
	}
	addr_str(nh.flags & XFAB_NH_IPV6, nh.gw, gw, sizeof(gw));
	printf("%svia %s dev %s%s", sep, gw, port_name(nh.ifindex, name),
	       nh.flags & XFAB_NH_RESOLVED ? "" : " (unresolved)");
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
static int show_fib(void)
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
		printf("  tbl8:  %llu of %u groups in use\n", ext, XFAB_FIB4_TBL8_GROUPS);
		printf("  addresses covered by route type:\n");
		for (int t = 1; t < 8; t++)
			if (by_type[t])
				printf("    %-10s %llu\n", xfab_route_type_name((__u32)t),
				       by_type[t]);
	}
	if (!json) {
		printf("IPv6 FIB (table 0, 16-bit first level, then a byte per level)\n");
		printf("  tbl16: %llu of %u entries set\n", set6, XFAB_FIB6_TBL16_SIZE);
		printf("  groups: %llu of %u in use\n", groups6, XFAB_FIB6_GROUPS);
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

static int show_routes(void)
{
	int v4_fd = open_map(XFAB_MAP_ROUTES_V4), v6_fd = open_map(XFAB_MAP_ROUTES_V6);
	int nh_fd = open_map(XFAB_MAP_NEXTHOPS), grp_fd = open_map(XFAB_MAP_GROUPS);
	size_t n4, n6, n = 0;
	struct xfab_lpm_v4_key *k4 = map_keys(v4_fd, sizeof(*k4), &n4);
	struct xfab_lpm_v6_key *k6 = map_keys(v6_fd, sizeof(*k6), &n6);
	struct route_row *rows = calloc(n4 + n6 + 1, sizeof(*rows));
	char pfx[INET6_ADDRSTRLEN + 8], a[INET6_ADDRSTRLEN], name[IF_NAMESIZE];
	struct xfab_group grp;

	for (size_t i = 0; i < n4; i++) {
		if (bpf_map_lookup_elem(v4_fd, &k4[i], &rows[n].rt))
			continue;
		rows[n].plen = (int)k4[i].prefixlen - 32;
		memcpy(rows[n].addr, k4[i].addr, 4);
		n++;
	}
	for (size_t i = 0; i < n6; i++) {
		if (bpf_map_lookup_elem(v6_fd, &k6[i], &rows[n].rt))
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
		if (json) {
			jw_open(NULL, '{');
			jw_string("prefix", pfx);
			jw_string("family", r->v6 ? "ipv6" : "ipv4");
			jw_string("type", xfab_route_type_name(r->rt.type));
		} else {
			printf("%-24s %-9s", pfx, xfab_route_type_name(r->rt.type));
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

/* ---- show nexthops / groups ---- */

static int show_nexthops(void)
{
	int fd = open_map(XFAB_MAP_NEXTHOPS);
	char gw[INET6_ADDRSTRLEN], name[IF_NAMESIZE], mac[18];
	struct xfab_nexthop nh;

	if (json)
		jw_open(NULL, '[');
	else
		printf("%5s  %-26s %-10s %-17s  %s\n", "Id", "Via", "Dev", "MAC", "State");
	for (__u32 id = 1; id < XFAB_MAX_NEXTHOPS; id++) {
		if (load_nexthop(fd, id, &nh))
			continue;
		addr_str(nh.flags & XFAB_NH_IPV6, nh.gw, gw, sizeof(gw));
		port_name(nh.ifindex, name);
		xfab_format_mac(nh.dmac, mac, sizeof(mac));
		if (json) {
			jw_open(NULL, '{');
			jw_uint("id", id);
			jw_string("via", gw);
			jw_string("dev", name);
			jw_bool("resolved", nh.flags & XFAB_NH_RESOLVED);
			if (nh.flags & XFAB_NH_RESOLVED)
				jw_string("mac", mac);
			jw_close('}');
		} else {
			printf("%5u  %-26s %-10s %-17s  %s\n", id, gw, name,
			       nh.flags & XFAB_NH_RESOLVED ? mac : "-",
			       nh.flags & XFAB_NH_RESOLVED ? "resolved" : "unresolved");
		}
	}
	if (json)
		jw_close(']');
	return 0;
}

static int show_groups(void)
{
	int fd = open_map(XFAB_MAP_GROUPS), nh_fd = open_map(XFAB_MAP_NEXTHOPS);
	struct xfab_group grp;

	if (json)
		jw_open(NULL, '[');
	for (__u32 id = 1; id < XFAB_MAX_GROUPS; id++) {
		if (bpf_map_lookup_elem(fd, &id, &grp) || grp.num_members == 0)
			continue;
		if (json) {
			jw_open(NULL, '{');
			jw_uint("id", id);
			jw_string("mode", "hash");
			jw_bool("resilient", grp.flags & XFAB_GROUP_RESILIENT);
			jw_uint("members", grp.num_members);
			jw_uint("live_members", grp.live_members);
			jw_open("buckets_per_member", '[');
		} else {
			printf("group %u: mode hash%s, %u members (%u live), %d buckets\n", id,
			       grp.flags & XFAB_GROUP_RESILIENT ? " resilient" : "",
			       grp.num_members, grp.live_members, XFAB_GROUP_BUCKETS);
		}
		for (int m = 0; m < grp.num_members && m < XFAB_GROUP_MAX_MEMBERS; m++) {
			int buckets = 0;

			for (int b = 0; b < XFAB_GROUP_BUCKETS; b++)
				buckets += grp.buckets[b] == grp.members[m];
			if (json) {
				jw_open(NULL, '{');
				jw_uint("nexthop", grp.members[m]);
				jw_uint("weight", grp.weights[m]);
				jw_uint("buckets", (unsigned)buckets);
				jw_close('}');
			} else {
				print_nexthop_text(nh_fd, grp.members[m], "    ");
				printf("  nexthop %u, weight %u, %d buckets\n", grp.members[m],
				       grp.weights[m], buckets);
			}
		}
		if (json) {
			jw_close(']');
			jw_close('}');
		}
	}
	if (json)
		jw_close(']');
	return 0;
}

/* ---- show neighbors ---- */

static int show_neighbors(void)
{
	int fd = open_map(XFAB_MAP_NEIGHBORS);
	size_t n;
	struct xfab_neigh_key *keys = map_keys(fd, sizeof(*keys), &n);
	char a[INET6_ADDRSTRLEN], name[IF_NAMESIZE], mac[18];
	struct xfab_neigh nb;

	if (json)
		jw_open(NULL, '[');
	else
		printf("%-26s %-17s  %-10s %s\n", "Address", "MacAddress", "Iface", "Type");
	for (size_t i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(fd, &keys[i], &nb))
			continue;
		addr_str(keys[i].family == AF_INET6, keys[i].addr, a, sizeof(a));
		port_name(keys[i].ifindex, name);
		xfab_format_mac(nb.mac, mac, sizeof(mac));
		if (json) {
			jw_open(NULL, '{');
			jw_string("address", a);
			jw_string("mac", mac);
			jw_string("dev", name);
			jw_string("type", nb.flags & XFAB_NEIGH_STATIC ? "static" : "learnt");
			jw_close('}');
		} else {
			printf("%-26s %-17s  %-10s %s\n", a, mac, name,
			       nb.flags & XFAB_NEIGH_STATIC ? "static" : "learnt");
		}
	}
	if (json)
		jw_close(']');
	free(keys);
	return 0;
}

/* ---- show counters / drops ---- */

static int show_counters(void)
{
	struct xfab_port ports[XFAB_MAX_PORTS] = {0};
	size_t n = load_ports(ports);
	int fd = open_map(XFAB_MAP_PORT_STATS);
	char name[IF_NAMESIZE];

	if (json)
		jw_open(NULL, '[');
	else
		printf("%-10s %12s %14s %12s %14s %10s %10s\n", "Port", "RX_OK", "RX_BYTES",
		       "TX_OK", "TX_BYTES", "DROPS", "PUNTS");
	for (size_t i = 0; i < n; i++) {
		struct xfab_port_stats st;

		if (xfab_percpu_sum(fd, ports[i].slot, (__u64 *)&st, sizeof(st) / 8))
			memset(&st, 0, sizeof(st));
		port_name(ports[i].ifindex, name);
		if (json) {
			jw_open(NULL, '{');
			jw_string("port", name);
			jw_uint("rx_packets", st.rx_packets);
			jw_uint("rx_bytes", st.rx_bytes);
			jw_uint("tx_packets", st.tx_packets);
			jw_uint("tx_bytes", st.tx_bytes);
			jw_uint("drops", st.drops);
			jw_uint("punts", st.punts);
			jw_close('}');
		} else {
			printf("%-10s %12llu %14llu %12llu %14llu %10llu %10llu\n", name,
			       (unsigned long long)st.rx_packets, (unsigned long long)st.rx_bytes,
			       (unsigned long long)st.tx_packets, (unsigned long long)st.tx_bytes,
			       (unsigned long long)st.drops, (unsigned long long)st.punts);
		}
	}
	if (json)
		jw_close(']');
	return 0;
}

static void reasons(const char *title, const char *map, __u32 max, const char *(*name)(__u32))
{
	int fd = open_map(map);

	if (json)
		jw_open(title, '[');
	else
		printf("%-20s %12s %14s\n", title, "PACKETS", "BYTES");
	for (__u32 r = 1; r < max; r++) {
		struct xfab_reason_stats st;

		if (xfab_percpu_sum(fd, r, (__u64 *)&st, 2))
			memset(&st, 0, sizeof(st));
		if (json) {
			jw_open(NULL, '{');
			jw_string("reason", name(r));
			jw_uint("packets", st.packets);
			jw_uint("bytes", st.bytes);
			jw_close('}');
		} else {
			printf("%-20s %12llu %14llu\n", name(r), (unsigned long long)st.packets,
			       (unsigned long long)st.bytes);
		}
	}
	if (json)
		jw_close(']');
}

static int show_drops(void)
{
	if (json)
		jw_open(NULL, '{');
	reasons("drops", XFAB_MAP_DROP_STATS, XFAB_DROP_MAX, xfab_drop_name);
	if (!json)
		putchar('\n');
	reasons("punts", XFAB_MAP_PUNT_STATS, XFAB_PUNT_MAX, xfab_punt_name);
	if (json)
		jw_close('}');
	return 0;
}

/* ---- load balancing: counters, flowlets, hash, TE ---- */

static int show_lb(void)
{
	int fd = open_map(XFAB_MAP_LB_STATS);

	if (json)
		jw_open(NULL, '{');
	else
		printf("%-22s %14s\n", "Event", "PACKETS");
	for (__u32 k = 0; k < XFAB_LB_MAX; k++) {
		__u64 v = 0;

		xfab_percpu_sum(fd, k, &v, 1);
		if (json)
			jw_uint(xfab_lb_name(k), v);
		else
			printf("%-22s %14llu\n", xfab_lb_name(k), (unsigned long long)v);
	}
	if (json)
		jw_close('}');
	return 0;
}

/* The flowlet table's slots in use by a flow active within FLOWLET age_ms. */
static int show_flowlets(void)
{
	size_t len = (size_t)XFAB_MAX_FLOWLETS * sizeof(struct xfab_flowlet);
	int nh_fd = open_map(XFAB_MAP_NEXTHOPS);
	const struct xfab_flowlet *tbl =
	    mmap(NULL, len, PROT_READ, MAP_SHARED, open_map(XFAB_MAP_FLOWLETS), 0);
	struct xfab_settings cfg = {0};
	__u32 zero = 0;
	__u64 now = xfab_mono_ns();
	char gw[INET6_ADDRSTRLEN], name[IF_NAMESIZE];

	if (tbl == MAP_FAILED) {
		fprintf(stderr, "xfabctl: cannot map the flowlet table: %s\n", strerror(errno));
		return 1;
	}
	bpf_map_lookup_elem(open_map(XFAB_MAP_SETTINGS), &zero, &cfg);
	if (json)
		jw_open(NULL, '[');
	else
		printf("%-6s %-5s %-10s %-30s %12s %8s\n", "Slot", "Group", "Flow hash", "Member",
		       "Idle(us)", "Flowlets");
	for (__u32 i = 0; i < XFAB_MAX_FLOWLETS; i++) {
		struct xfab_flowlet fl = tbl[i];
		struct xfab_nexthop nh;
		__u64 idle;

		if (!fl.last_seen_ns || now - fl.last_seen_ns > cfg.flowlet_age_ns)
			continue;
		idle = now > fl.last_seen_ns ? (now - fl.last_seen_ns) / 1000 : 0;
		gw[0] = '\0';
		name[0] = '\0';
		if (load_nexthop(nh_fd, fl.nh_id, &nh) == 0) {
			addr_str(nh.flags & XFAB_NH_IPV6, nh.gw, gw, sizeof(gw));
			port_name(nh.ifindex, name);
		}
		if (json) {
			jw_open(NULL, '{');
			jw_uint("slot", i);
			jw_uint("group", fl.group);
			jw_uint("hash", fl.hash);
			jw_uint("nexthop", fl.nh_id);
			jw_string("via", gw);
			jw_string("dev", name);
			jw_uint("idle_us", idle);
			jw_uint("flowlets", fl.flowlets);
			jw_close('}');
		} else {
			char member[48];

			snprintf(member, sizeof(member), "%s %s", gw, name);
			printf("%-6u %-5u 0x%08x %-30s %12llu %8u\n", i, fl.group, fl.hash, member,
			       (unsigned long long)idle, fl.flowlets);
		}
	}
	if (json)
		jw_close(']');
	munmap((void *)tbl, len);
	return 0;
}

/* The longest prefix of `table` holding addr, found by walking the trie's
 * keys (the kernel's lookup returns the value, not the prefix). */
static int find_route(int v6, const __u8 *addr, __u32 table, int *plen_out,
		      struct xfab_route *rt_out)
{
	int fd = open_map(v6 ? XFAB_MAP_ROUTES_V6 : XFAB_MAP_ROUTES_V4);
	size_t ksz = v6 ? sizeof(struct xfab_lpm_v6_key) : sizeof(struct xfab_lpm_v4_key), n;
	char *keys = map_keys(fd, ksz, &n);
	int best = -1;

	for (size_t i = 0; i < n; i++) {
		char *k = keys + i * ksz;
		__u32 prefixlen = *(__u32 *)k, ktable = ntohl(*(__u32 *)(k + 4));
		struct xfab_prefix p = {.family = v6 ? AF_INET6 : AF_INET};

		if (ktable != table || prefixlen < 32)
			continue;
		p.plen = (int)prefixlen - 32;
		memcpy(p.addr, k + 8, v6 ? 16 : 4);
		if (p.plen > best && xfab_prefix_contains(&p, p.family, addr)) {
			best = p.plen;
			if (bpf_map_lookup_elem(fd, k, rt_out))
				best = -1;
		}
	}
	free(keys);
	*plen_out = best;
	return best >= 0 ? 0 : -1;
}

struct hash_args {
	const char *in, *src, *dst, *proto;
	long sport, dport, qp, flow_label;
};

static int parse_proto(const char *p)
{
	if (!p || !strcmp(p, "udp"))
		return IPPROTO_UDP;
	if (!strcmp(p, "tcp"))
		return IPPROTO_TCP;
	if (!strcmp(p, "icmp"))
		return IPPROTO_ICMP;
	if (!strcmp(p, "icmpv6"))
		return IPPROTO_ICMPV6;
	return atoi(p);
}

/* `xfabctl hash`: which member this switch picks for a described flow, and
 * why. Reads the tables only; no flowlet is created or refreshed here. */
static int cmd_hash(const struct hash_args *ha)
{
	struct xfab_settings cfg;
	struct xfab_flow flow = {0}, sel;
	struct xfab_route rt, te;
	struct xfab_group grp;
	struct xfab_nexthop nh;
	char fields[160], gw[INET6_ADDRSTRLEN], name[IF_NAMESIZE], pfx[INET6_ADDRSTRLEN];
	__u32 zero = 0, ifindex = 0, hash, bucket, nh_id = 0, group = 0;
	int plen, te_plen = -1, v6, have_fl = 0;
	struct xfab_flowlet fl;
	__u32 slot = 0;
	const char *source = "route";

	if (!ha->src || !ha->dst) {
		fprintf(stderr, "xfabctl hash: --src and --dst are needed\n");
		return 2;
	}
	v6 = strchr(ha->dst, ':') != NULL;
	if (inet_pton(v6 ? AF_INET6 : AF_INET, ha->src, flow.src) != 1 ||
	    inet_pton(v6 ? AF_INET6 : AF_INET, ha->dst, flow.dst) != 1) {
		fprintf(stderr, "xfabctl hash: bad --src/--dst\n");
		return 2;
	}
	if (ha->in) {
		ifindex = if_nametoindex(ha->in);
		if (!ifindex) {
			fprintf(stderr, "xfabctl hash: no port %s\n", ha->in);
			return 2;
		}
	}
	flow.is_v6 = (__u8)v6;
	flow.proto = (__u8)parse_proto(ha->proto);
	flow.ports = htons((__u16)ha->sport) | ((__u32)htons((__u16)ha->dport) << 16);
	flow.qp = (__u32)ha->qp & 0xffffff;
	flow.flow_label = v6 ? (__u32)ha->flow_label & 0xfffff : 0;
	if (bpf_map_lookup_elem(open_map(XFAB_MAP_SETTINGS), &zero, &cfg)) {
		fprintf(stderr, "xfabctl hash: cannot read settings\n");
		return 1;
	}
	if ((cfg.flags & XFAB_SET_TE) && ifindex &&
	    find_route(v6, (__u8 *)flow.dst, XFAB_TABLE_TE | ifindex, &te_plen, &te) == 0) {
		rt = te;
		plen = te_plen;
		source = "te";
	} else if (find_route(v6, (__u8 *)flow.dst, XFAB_TABLE_DEFAULT, &plen, &rt)) {
		fprintf(stderr, "xfabctl hash: no route to %s\n", ha->dst);
		return 1;
	}
	sel = flow;
	xfab_flow_select(&sel, cfg.hash_fields, cfg.flags & XFAB_SET_SYMMETRIC);
	hash = xfab_flow_hash(&sel, cfg.hash_seed);
	bucket = XFAB_HASH_BUCKET(hash);
	xfab_format_hash_fields(cfg.hash_fields, fields, sizeof(fields));
	{
		struct xfab_prefix m = {.family = v6 ? AF_INET6 : AF_INET, .plen = plen};

		/* the matched prefix: the destination with the host bits cleared */
		memcpy(m.addr, flow.dst, v6 ? 16 : 4);
		for (int i = 0; i < (v6 ? 16 : 4); i++) {
			int bit0 = i * 8;

			if (bit0 >= plen)
				m.addr[i] = 0;
			else if (bit0 + 8 > plen)
				m.addr[i] &= (__u8)(0xff << (8 - (plen - bit0)));
		}
		addr_str(v6, m.addr, pfx, sizeof(pfx));
	}
	if (rt.type == XFAB_RT_GROUP) {
		group = rt.id;
		if (bpf_map_lookup_elem(open_map(XFAB_MAP_GROUPS), &group, &grp))
			memset(&grp, 0, sizeof(grp));
		nh_id = grp.buckets[bucket];
		slot = XFAB_FLOWLET_SLOT(hash, group);
		if ((cfg.flags & XFAB_SET_FLOWLET) &&
		    bpf_map_lookup_elem(open_map(XFAB_MAP_FLOWLETS), &slot, &fl) == 0 &&
		    fl.last_seen_ns && fl.group == group)
			have_fl = 1;
	} else if (rt.type == XFAB_RT_NEXTHOP) {
		nh_id = rt.id;
	}
	if (have_fl && xfab_mono_ns() - fl.last_seen_ns < cfg.flowlet_gap_ns)
		nh_id = fl.nh_id;
	gw[0] = name[0] = '\0';
	if (nh_id && load_nexthop(open_map(XFAB_MAP_NEXTHOPS), nh_id, &nh) == 0) {
		addr_str(nh.flags & XFAB_NH_IPV6, nh.gw, gw, sizeof(gw));
		port_name(nh.ifindex, name);
	}
	if (json) {
		jw_open(NULL, '{');
		jw_string("match", source);
		{
			char full[INET6_ADDRSTRLEN + 8];

			snprintf(full, sizeof(full), "%s/%d", pfx, plen);
			jw_string("prefix", full);
		}
		jw_string("route_type", xfab_route_type_name(rt.type));
		jw_string("hash_fields", fields);
		jw_bool("symmetric", cfg.flags & XFAB_SET_SYMMETRIC);
		jw_uint("seed", cfg.hash_seed);
		jw_uint("hash", hash);
		jw_uint("bucket", bucket);
		if (group)
			jw_uint("group", group);
		jw_uint("nexthop", nh_id);
		jw_string("via", gw);
		jw_string("dev", name);
		jw_bool("flowlets", cfg.flags & XFAB_SET_FLOWLET);
		if (have_fl) {
			jw_uint("flowlet_slot", slot);
			jw_uint("flowlet_member", fl.nh_id);
			jw_uint("flowlet_idle_us", (xfab_mono_ns() - fl.last_seen_ns) / 1000);
		}
		jw_close('}');
		return 0;
	}
	if (rt.type == XFAB_RT_GROUP || rt.type == XFAB_RT_NEXTHOP)
		printf("match      %s %s/%d (%s %u)\n", source, pfx, plen,
		       xfab_route_type_name(rt.type), rt.id);
	else
		printf("match      %s %s/%d (%s)\n", source, pfx, plen,
		       xfab_route_type_name(rt.type));
	printf("hash       fields %s, seed 0x%08x%s\n", fields, cfg.hash_seed,
	       cfg.flags & XFAB_SET_SYMMETRIC ? ", symmetric" : "");
	printf("           hash 0x%08x -> bucket %u\n", hash, bucket);
	if (cfg.flags & XFAB_SET_FLOWLET) {
		if (have_fl)
			printf("flowlet    slot %u, member %u, idle %llu us (gap %llu us): %s\n",
			       slot, fl.nh_id,
			       (unsigned long long)((xfab_mono_ns() - fl.last_seen_ns) / 1000),
			       (unsigned long long)(cfg.flowlet_gap_ns / 1000),
			       xfab_mono_ns() - fl.last_seen_ns < cfg.flowlet_gap_ns
				   ? "the next packet continues it"
				   : "the next packet starts a new flowlet");
		else
			printf("flowlet    none: the next packet starts one (%s choice)\n",
			       cfg.flowlet_mode == XFAB_FLOWLET_LEAST_LOADED ? "least loaded"
									     : "random");
	}
	printf("member     nexthop %u via %s dev %s\n", nh_id, gw[0] ? gw : "-",
	       name[0] ? name : "-");
	return 0;
}

/* ---- te add|del|show: runtime TE entries, next to the configured ones ---- */

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

static int show_te(void)
{
	int nh_fd = open_map(XFAB_MAP_NEXTHOPS);

	if (json)
		jw_open(NULL, '[');
	else
		printf("%-10s %-26s %-8s %s\n", "Ingress", "Prefix", "Type", "Path");
	for (int v6 = 0; v6 <= 1; v6++) {
		int fd = open_map(v6 ? XFAB_MAP_ROUTES_V6 : XFAB_MAP_ROUTES_V4);
		size_t ksz = v6 ? sizeof(struct xfab_lpm_v6_key) : sizeof(struct xfab_lpm_v4_key),
		       n;
		char *keys = map_keys(fd, ksz, &n);

		for (size_t i = 0; i < n; i++) {
			char *k = keys + i * ksz, a[INET6_ADDRSTRLEN], pfx[INET6_ADDRSTRLEN + 8];
			__u32 table = ntohl(*(__u32 *)(k + 4));
			char name[IF_NAMESIZE];
			struct xfab_route rt;

			if (!(table & XFAB_TABLE_TE) || bpf_map_lookup_elem(fd, k, &rt))
				continue;
			addr_str(v6, (__u8 *)k + 8, a, sizeof(a));
			snprintf(pfx, sizeof(pfx), "%s/%u", a, *(__u32 *)k - 32);
			port_name(table & ~XFAB_TABLE_TE, name);
			if (json) {
				jw_open(NULL, '{');
				jw_string("in", name);
				jw_string("prefix", pfx);
				jw_string("type", xfab_route_type_name(rt.type));
				jw_uint("id", rt.id);
				jw_close('}');
			} else {
				printf("%-10s %-26s %-8s", name, pfx,
				       xfab_route_type_name(rt.type));
				if (rt.type == XFAB_RT_NEXTHOP)
					print_nexthop_text(nh_fd, rt.id, " ");
				else
					printf(" group %u", rt.id);
				putchar('\n');
			}
		}
		free(keys);
	}
	if (json)
		jw_close(']');
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

	if (!strcmp(verb, "show"))
		return show_te();
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

/* ---- trace: a frame through the loaded program, stage by stage ---- */

struct trace_args {
	const char *in, *src, *dst, *proto, *pcap, *smac, *dmac;
	long sport, dport, qp, dscp, ecn, ttl, len, index;
};

/* Frame n of a classic pcap file (Ethernet). */
static int read_pcap(const char *path, long index, __u8 *buf, size_t cap, size_t *len)
{
	FILE *f = fopen(path, "rb");
	__u32 gh[6], rh[4];
	int swap;

	if (!f) {
		fprintf(stderr, "xfabctl trace: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fread(gh, 4, 6, f) != 6 || (gh[0] != 0xa1b2c3d4 && gh[0] != 0xa1b23c4d &&
					gh[0] != 0xd4c3b2a1 && gh[0] != 0x4d3cb2a1)) {
		fprintf(stderr, "xfabctl trace: %s is not a pcap file\n", path);
		fclose(f);
		return -1;
	}
	swap = gh[0] == 0xd4c3b2a1 || gh[0] == 0x4d3cb2a1;
	if ((swap ? __builtin_bswap32(gh[5]) : gh[5]) != 1) {
		fprintf(stderr, "xfabctl trace: %s: only Ethernet captures\n", path);
		fclose(f);
		return -1;
	}
	for (long i = 0;; i++) {
		__u32 incl;

		if (fread(rh, 4, 4, f) != 4) {
			fprintf(stderr, "xfabctl trace: %s has no frame %ld\n", path, index);
			fclose(f);
			return -1;
		}
		incl = swap ? __builtin_bswap32(rh[2]) : rh[2];
		if (incl > cap) {
			fprintf(stderr, "xfabctl trace: frame %ld is too large\n", i);
			fclose(f);
			return -1;
		}
		if (fread(buf, 1, incl, f) != incl) {
			fclose(f);
			return -1;
		}
		if (i == index) {
			*len = incl;
			fclose(f);
			return 0;
		}
	}
}

/* A frame as described: Ethernet, IPv4/IPv6, UDP/TCP/ICMP (+ BTH on 4791). */
static int build_frame(const struct trace_args *ta, const __u8 *port_mac, __u8 *b, size_t cap,
		       size_t *len)
{
	int v6 = strchr(ta->dst, ':') != NULL, proto = parse_proto(ta->proto);
	size_t l3 = v6 ? 40 : 20, l4 = proto == IPPROTO_TCP ? 20 : 8;
	size_t payload = ta->len >= 0 ? (size_t)ta->len : 64, total = 14 + l3 + l4 + payload;
	__u8 tos = (__u8)((ta->dscp & 0x3f) << 2 | (ta->ecn & 3)), *ip = b + 14, *l4p = ip + l3;

	if (total > cap)
		return -1;
	memset(b, 0, total);
	if (ta->dmac ? xfab_parse_mac(ta->dmac, b) : (memcpy(b, port_mac, 6), 0))
		return -1;
	if (xfab_parse_mac(ta->smac ? ta->smac : "02:00:00:00:00:aa", b + 6))
		return -1;
	if (v6) {
		b[12] = 0x86;
		b[13] = 0xdd;
		ip[0] = (__u8)(0x60 | tos >> 4);
		ip[1] = (__u8)(tos << 4);
		ip[4] = (__u8)((l4 + payload) >> 8);
		ip[5] = (__u8)(l4 + payload);
		ip[6] = (__u8)proto;
		ip[7] = (__u8)ta->ttl;
		if (inet_pton(AF_INET6, ta->src, ip + 8) != 1 ||
		    inet_pton(AF_INET6, ta->dst, ip + 24) != 1)
			return -1;
	} else {
		b[12] = 0x08;
		ip[0] = 0x45;
		ip[1] = tos;
		ip[2] = (__u8)((l3 + l4 + payload) >> 8);
		ip[3] = (__u8)(l3 + l4 + payload);
		ip[8] = (__u8)ta->ttl;
		ip[9] = (__u8)proto;
		if (inet_pton(AF_INET, ta->src, ip + 12) != 1 ||
		    inet_pton(AF_INET, ta->dst, ip + 16) != 1)
			return -1;
		*(__u16 *)(ip + 10) = htons(xfab_csum16(ip, 20));
	}
	if (proto == IPPROTO_TCP || proto == IPPROTO_UDP) {
		*(__u16 *)l4p = htons((__u16)ta->sport);
		*(__u16 *)(l4p + 2) = htons((__u16)ta->dport);
		if (proto == IPPROTO_TCP)
			l4p[12] = 5 << 4;
		else
			*(__u16 *)(l4p + 4) = htons((__u16)(8 + payload));
		if (proto == IPPROTO_UDP && ta->dport == 4791 && payload >= 12) {
			l4p[8] = 0x04; /* BTH: RC SEND only, P_Key 0xffff */
			l4p[10] = l4p[11] = 0xff;
			l4p[13] = (__u8)(ta->qp >> 16);
			l4p[14] = (__u8)(ta->qp >> 8);
			l4p[15] = (__u8)ta->qp;
		}
	} else {
		l4p[0] = v6 ? 128 : 8; /* echo request */
	}
	*len = total;
	return 0;
}

static const char *const stage_names[] = {
    [XFAB_STAGE_PORT] = "port checks",		[XFAB_STAGE_PARSE] = "parse",
    [XFAB_STAGE_CLASSIFY] = "l2/address rules", [XFAB_STAGE_L3] = "route/path",
    [XFAB_STAGE_EGRESS] = "egress checks",	[XFAB_STAGE_QUEUE] = "queue",
    [XFAB_STAGE_REWRITE] = "rewrite",
};
static const char *const queue_verdicts[] = {"pass", "mark CE", "tail drop", "WRED drop"};

static int cmd_trace(const struct trace_args *ta)
{
	__u8 in_buf[2048 + sizeof(struct xfab_trace)], out_buf[sizeof(in_buf) + 256];
	struct xfab_trace *t = (void *)in_buf, *r = (void *)out_buf;
	__u8 *frame = in_buf + sizeof(*t), *out;
	struct xfab_port in_port;
	char pin[600], name[IF_NAMESIZE], a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN], pfx[64];
	__u32 ifindex = ta->in ? if_nametoindex(ta->in) : 0;
	size_t len = 0, out_len;
	int prog, err, v6 = 0;
	struct xfab_route rt;
	int plen = -1;

	if (!ifindex) {
		fprintf(stderr, "xfabctl trace: --in must name a port of this switch\n");
		return 2;
	}
	if (bpf_map_lookup_elem(open_map(XFAB_MAP_PORTS), &ifindex, &in_port)) {
		fprintf(stderr, "xfabctl trace: %s is not a port of this switch\n", ta->in);
		return 2;
	}
	if (ta->pcap) {
		if (read_pcap(ta->pcap, ta->index, frame, sizeof(in_buf) - sizeof(*t), &len))
			return 1;
	} else if (!ta->src || !ta->dst ||
		   build_frame(ta, in_port.mac, frame, sizeof(in_buf) - sizeof(*t), &len)) {
		fprintf(stderr,
			"xfabctl trace: describe the packet (--src, --dst, ...) or --pcap\n");
		return 2;
	}
	snprintf(pin, sizeof(pin), "%s/prog_trace", pin_dir);
	prog = bpf_obj_get(pin);
	if (prog < 0) {
		fprintf(stderr, "xfabctl trace: %s: %s (is xfabd running?)\n", pin,
			strerror(errno));
		return 1;
	}
	memset(t, 0, sizeof(*t));
	t->magic = XFAB_TRACE_MAGIC;
	{
		struct xdp_md ctx = {.data = sizeof(*t),
				     .data_end = (__u32)(sizeof(*t) + len),
				     .ingress_ifindex = ifindex};
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in_buf,
			    .data_size_in = (__u32)(sizeof(*t) + len), .data_out = out_buf,
			    .data_size_out = sizeof(out_buf), .ctx_in = &ctx,
			    .ctx_size_in = sizeof(ctx), .repeat = 1);

		err = bpf_prog_test_run_opts(prog, &opts);
		if (err) {
			fprintf(stderr, "xfabctl trace: BPF_PROG_TEST_RUN: %s\n", strerror(errno));
			return 1;
		}
		out_len = opts.data_size_out > sizeof(*r) ? opts.data_size_out - sizeof(*r) : 0;
	}
	out = out_buf + sizeof(*r);
	/* describe the input */
	if (len >= 34 && frame[12] == 0x08 && frame[13] == 0x00) {
		inet_ntop(AF_INET, frame + 26, a, sizeof(a));
		inet_ntop(AF_INET, frame + 30, b, sizeof(b));
	} else if (len >= 54 && frame[12] == 0x86 && frame[13] == 0xdd) {
		v6 = 1;
		inet_ntop(AF_INET6, frame + 22, a, sizeof(a));
		inet_ntop(AF_INET6, frame + 38, b, sizeof(b));
	} else {
		snprintf(a, sizeof(a), "-");
		snprintf(b, sizeof(b), "-");
	}
	pfx[0] = '\0';
	if (r->route_type && strcmp(b, "-")) {
		__u8 dst[16] = {0};

		inet_pton(v6 ? AF_INET6 : AF_INET, b, dst);
		if (find_route(v6, dst,
			       r->flags & XFAB_TRACE_TE_HIT ? XFAB_TABLE_TE | ifindex
							    : XFAB_TABLE_DEFAULT,
			       &plen, &rt) == 0) {
			char net[INET6_ADDRSTRLEN];
			struct xfab_prefix m = {.family = v6 ? AF_INET6 : AF_INET, .plen = plen};

			memcpy(m.addr, dst, 16);
			for (int i = 0; i < 16; i++)
				if (i * 8 >= plen)
					m.addr[i] = 0;
				else if (i * 8 + 8 > plen)
					m.addr[i] &= (__u8)(0xff << (8 - (plen - i * 8)));
			inet_ntop(v6 ? AF_INET6 : AF_INET, m.addr, net, sizeof(net));
			snprintf(pfx, sizeof(pfx), "%s/%d", net, plen);
		}
	}
	if (r->egress_ifindex)
		port_name(r->egress_ifindex, name);
	else
		snprintf(name, sizeof(name), "-");
	if (json) {
		char smac[18], dmac[18];

		jw_open(NULL, '{');
		jw_string("ingress", ta->in);
		jw_uint("frame_bytes", len);
		jw_string("src", a);
		jw_string("dst", b);
		jw_string("stage",
			  r->stage < 8 && stage_names[r->stage] ? stage_names[r->stage] : "?");
		jw_string("action", r->action == XFAB_ACT_FORWARD ? "forward"
				    : r->action == XFAB_ACT_PUNT  ? "punt"
								  : "drop");
		jw_string("reason", r->action == XFAB_ACT_PUNT	 ? xfab_punt_name(r->reason)
				    : r->action == XFAB_ACT_DROP ? xfab_drop_name(r->reason)
								 : "");
		jw_string("route", pfx);
		jw_string("route_type", r->route_type ? xfab_route_type_name(r->route_type) : "");
		jw_bool("te", r->flags & XFAB_TRACE_TE_HIT);
		jw_bool("te_fallback", r->flags & XFAB_TRACE_TE_FALLBACK);
		jw_uint("group", r->group);
		jw_uint("hash", r->hash);
		jw_uint("bucket", r->bucket);
		jw_uint("nexthop", r->nexthop);
		jw_string("flowlet", r->flags & XFAB_TRACE_FLOWLET_CONT	 ? "continues"
				     : r->flags & XFAB_TRACE_FLOWLET_NEW ? "new"
									 : "");
		jw_uint("qp", r->qp);
		jw_uint("tc", r->tc);
		jw_uint("queue_occupancy", r->occupancy);
		jw_string("queue_verdict", queue_verdicts[r->queue_verdict & 3]);
		jw_string("egress", name);
		if (r->action == XFAB_ACT_FORWARD && out_len >= 14) {
			xfab_format_mac(out, dmac, sizeof(dmac));
			xfab_format_mac(out + 6, smac, sizeof(smac));
			jw_string("out_dmac", dmac);
			jw_string("out_smac", smac);
		}
		jw_close('}');
		return 0;
	}
	printf("ingress   %s (slot %u): %zu-byte frame%s\n", ta->in, r->ingress_slot, len,
	       ta->pcap ? " from the capture" : "");
	printf("parse     %s -> %s, protocol %u%s", a, b, r->l4_proto,
	       r->flags & XFAB_TRACE_ROCE ? "" : "\n");
	if (r->flags & XFAB_TRACE_ROCE)
		printf(", RoCEv2 QP 0x%x\n", r->qp);
	if (r->route_type) {
		printf("route     %s%s -> %s", r->flags & XFAB_TRACE_TE_HIT ? "TE entry " : "",
		       pfx[0] ? pfx : "?", xfab_route_type_name(r->route_type));
		if (r->group)
			printf(" %u", r->group);
		if (r->flags & XFAB_TRACE_TE_FALLBACK)
			printf(" (a TE entry matched but its path is down)");
		putchar('\n');
	}
	if (r->flags & XFAB_TRACE_GROUP)
		printf("select    hash 0x%08x -> bucket %u -> nexthop %u%s\n", r->hash, r->bucket,
		       r->nexthop,
		       r->flags & XFAB_TRACE_FLOWLET_CONT ? " (continues its flowlet)"
		       : r->flags & XFAB_TRACE_FLOWLET_NEW
			   ? " (a new flowlet: random member; shown: the hash's)"
			   : "");
	if (r->nexthop && !(r->flags & XFAB_TRACE_GROUP))
		printf("select    nexthop %u\n", r->nexthop);
	if (r->nexthop) {
		print_nexthop_text(open_map(XFAB_MAP_NEXTHOPS), r->nexthop, "          ");
		putchar('\n');
	}
	if (r->stage >= XFAB_STAGE_QUEUE)
		printf("queue     %s class %u: %llu bytes queued -> %s\n", name, r->tc,
		       (unsigned long long)r->occupancy, queue_verdicts[r->queue_verdict & 3]);
	if (r->action == XFAB_ACT_FORWARD && out_len >= 14) {
		char smac[18], dmac[18];

		xfab_format_mac(out, dmac, sizeof(dmac));
		xfab_format_mac(out + 6, smac, sizeof(smac));
		printf("rewrite   dst MAC %s, src MAC %s", dmac, smac);
		if (!v6 && out_len >= 34)
			printf(", TTL %u -> %u, IPv4 checksum %s", frame[22], out[22],
			       xfab_csum16(out + 14, (size_t)(out[14] & 0xf) * 4) == 0 ? "valid"
										       : "BAD");
		else if (v6 && out_len >= 54)
			printf(", hop limit %u -> %u", frame[21], out[21]);
		putchar('\n');
		printf("verdict   forward out of %s\n", name);
	} else if (r->action == XFAB_ACT_PUNT) {
		printf("verdict   punt to the kernel: %s (at %s)\n", xfab_punt_name(r->reason),
		       r->stage < 8 && stage_names[r->stage] ? stage_names[r->stage] : "?");
	} else {
		printf("verdict   drop: %s (at %s)\n", xfab_drop_name(r->reason),
		       r->stage < 8 && stage_names[r->stage] ? stage_names[r->stage] : "?");
	}
	printf("state     unchanged (a trace writes no counter, flowlet or queue)\n");
	return 0;
}

/* ---- watch: per-second rates, refreshed ---- */

struct watch_row {
	char name[IF_NAMESIZE + 8];
	__u64 v[6];
};

/* Reads what `watch` shows: per port (counters) or per port and class. */
static size_t watch_read(int queues, struct watch_row *rows, size_t cap)
{
	struct xfab_port ports[XFAB_MAX_PORTS] = {0};
	size_t n = load_ports(ports), out = 0;
	int fd = open_map(queues ? XFAB_MAP_QUEUE_STATS : XFAB_MAP_PORT_STATS);
	char name[IF_NAMESIZE];

	for (size_t i = 0; i < n; i++) {
		port_name(ports[i].ifindex, name);
		for (__u32 tc = 0; tc < (queues ? XFAB_NUM_TC : 1u) && out < cap; tc++) {
			struct watch_row *r = &rows[out++];

			memset(r, 0, sizeof(*r));
			if (queues) {
				snprintf(r->name, sizeof(r->name), "%s UC%u", name, tc);
				xfab_percpu_sum(fd, XFAB_QUEUE_KEY((__u32)ports[i].slot, tc), r->v,
						4);
			} else {
				snprintf(r->name, sizeof(r->name), "%s", name);
				xfab_percpu_sum(fd, ports[i].slot, r->v, 6);
			}
		}
	}
	return out;
}

static int cmd_watch(const char *what, double interval, long count)
{
	static struct watch_row a[XFAB_MAX_QUEUES], b[XFAB_MAX_QUEUES];
	int queues = !strcmp(what, "queues"), tty = isatty(STDOUT_FILENO);
	size_t n;

	if (!queues && strcmp(what, "counters")) {
		fprintf(stderr, "xfabctl watch: counters or queues\n");
		return 2;
	}
	if (interval < 0.1)
		interval = 1;
	watch_read(queues, a, (size_t)XFAB_MAX_QUEUES);
	for (long it = 0; count <= 0 || it < count; it++) {
		struct timespec ts = {(time_t)interval,
				      (long)((interval - (double)(time_t)interval) * 1e9)};

		nanosleep(&ts, NULL);
		n = watch_read(queues, b, (size_t)XFAB_MAX_QUEUES);
		if (tty && !json)
			printf("\033[H\033[2J");
		if (json) {
			jw_first[0] = 1;
			jw_open(NULL, '[');
		} else if (queues) {
			printf("%-14s %12s %14s %10s %10s   (per second, every %.1f s)\n", "Queue",
			       "Pkts/s", "Bits/s", "Drops/s", "Marks/s", interval);
		} else {
			printf("%-10s %12s %14s %12s %14s %10s %10s   (per second, every %.1f s)\n",
			       "Port", "RX_PPS", "RX_BPS", "TX_PPS", "TX_BPS", "DROP/s", "PUNT/s",
			       interval);
		}
		for (size_t i = 0; i < n; i++) {
			double d[6];

			for (int k = 0; k < 6; k++)
				d[k] = (double)(b[i].v[k] - a[i].v[k]) / interval;
			if (json) {
				jw_open(NULL, '{');
				jw_string(queues ? "queue" : "port", b[i].name);
				if (queues) {
					jw_uint("packets_per_s", (__u64)d[0]);
					jw_uint("bits_per_s", (__u64)(d[1] * 8));
					jw_uint("ecn_marked_per_s", (__u64)d[2]);
					jw_uint("dropped_per_s", (__u64)d[3]);
				} else {
					jw_uint("rx_pps", (__u64)d[0]);
					jw_uint("rx_bps", (__u64)(d[1] * 8));
					jw_uint("tx_pps", (__u64)d[2]);
					jw_uint("tx_bps", (__u64)(d[3] * 8));
					jw_uint("drops_per_s", (__u64)d[4]);
					jw_uint("punts_per_s", (__u64)d[5]);
				}
				jw_close('}');
			} else if (queues) {
				printf("%-14s %12.0f %14.0f %10.0f %10.0f\n", b[i].name, d[0],
				       d[1] * 8, d[3], d[2]);
			} else {
				printf("%-10s %12.0f %14.0f %12.0f %14.0f %10.0f %10.0f\n",
				       b[i].name, d[0], d[1] * 8, d[2], d[3] * 8, d[4], d[5]);
			}
		}
		if (json) {
			jw_close(']');
			putchar('\n');
		}
		fflush(stdout);
		memcpy(a, b, sizeof(a[0]) * n);
	}
	return 0;
}

/* ---- queues: SONiC-style queue counters and watermarks ---- */

static int show_queues(void)
{
	struct xfab_port ports[XFAB_MAX_PORTS] = {0};
	size_t n = load_ports(ports);
	int st_fd = open_map(XFAB_MAP_QUEUE_STATS), cfg_fd = open_map(XFAB_MAP_QUEUE_CFG);
	char name[IF_NAMESIZE];

	if (json)
		jw_open(NULL, '[');
	else
		printf("%-10s %4s %12s %14s %10s %12s  %s\n", "Port", "TxQ", "Counter/pkts",
		       "Counter/bytes", "Drop/pkts", "ECN marked", "Profile (Kmin/Kmax/Pmax)");
	for (size_t i = 0; i < n; i++) {
		port_name(ports[i].ifindex, name);
		for (__u32 tc = 0; tc < XFAB_NUM_TC; tc++) {
			__u32 key = XFAB_QUEUE_KEY((__u32)ports[i].slot, tc);
			struct xfab_queue_stats st;
			struct xfab_queue_cfg qc = {0};
			char prof[64] = "-";

			if (xfab_percpu_sum(st_fd, key, (__u64 *)&st, 4))
				memset(&st, 0, sizeof(st));
			bpf_map_lookup_elem(cfg_fd, &key, &qc);
			if (qc.flags & XFAB_WRED_ENABLED)
				snprintf(prof, sizeof(prof), "%u/%u/%.1f%%%s", qc.kmin_bytes,
					 qc.kmax_bytes, qc.pmax / 42949672.96,
					 qc.flags & XFAB_WRED_ECN ? " ecn" : "");
			if (json) {
				jw_open(NULL, '{');
				jw_string("port", name);
				jw_uint("tc", tc);
				jw_uint("packets", st.packets);
				jw_uint("bytes", st.bytes);
				jw_uint("dropped", st.dropped);
				jw_uint("ecn_marked", st.ecn_marked);
				jw_uint("rate_kbps", qc.rate_kbps);
				jw_uint("buffer_bytes", qc.buffer_bytes);
				jw_bool("wred", qc.flags & XFAB_WRED_ENABLED);
				jw_close('}');
			} else {
				printf("%-10s  UC%u %12llu %14llu %10llu %12llu  %s\n", name, tc,
				       (unsigned long long)st.packets, (unsigned long long)st.bytes,
				       (unsigned long long)st.dropped,
				       (unsigned long long)st.ecn_marked, prof);
			}
		}
	}
	if (json)
		jw_close(']');
	return 0;
}

static int show_watermark(void)
{
	struct xfab_port ports[XFAB_MAX_PORTS] = {0};
	size_t n = load_ports(ports);
	int fd = open_map(XFAB_MAP_QUEUE_WATERMARK);
	char name[IF_NAMESIZE];

	if (json)
		jw_open(NULL, '[');
	else
		printf("%-10s %4s %14s %14s\n", "Port", "TxQ", "Current(B)", "Peak(B)");
	for (size_t i = 0; i < n; i++) {
		port_name(ports[i].ifindex, name);
		for (__u32 tc = 0; tc < XFAB_NUM_TC; tc++) {
			__u32 key = XFAB_QUEUE_KEY((__u32)ports[i].slot, tc);
			struct xfab_queue_watermark wm = {0};

			bpf_map_lookup_elem(fd, &key, &wm);
			if (json) {
				jw_open(NULL, '{');
				jw_string("port", name);
				jw_uint("tc", tc);
				jw_uint("current_bytes", wm.current_bytes);
				jw_uint("peak_bytes", wm.peak_bytes);
				jw_close('}');
			} else {
				printf("%-10s  UC%u %14llu %14llu\n", name, tc,
				       (unsigned long long)wm.current_bytes,
				       (unsigned long long)wm.peak_bytes);
			}
		}
	}
	if (json)
		jw_close(']');
	return 0;
}

/* Peaks back to zero; the current occupancy stays. */
static int clear_watermark(void)
{
	int fd = open_map(XFAB_MAP_QUEUE_WATERMARK);

	for (__u32 key = 0; key < XFAB_MAX_QUEUES; key++) {
		struct xfab_queue_watermark wm;

		if (bpf_map_lookup_elem(fd, &key, &wm) || !wm.peak_bytes)
			continue;
		wm.peak_bytes = 0;
		if (bpf_map_update_elem(fd, &key, &wm, BPF_ANY)) {
			fprintf(stderr, "xfabctl: cannot clear watermark %u: %s\n", key,
				strerror(errno));
			return 1;
		}
	}
	return 0;
}

/* ---- command table ---- */

struct command {
	const char *object;
	int (*show)(void);
	const char *help;
};

static const struct command commands[] = {
    {"ports", show_ports, "ports: MAC, state, MTU, datapath"},
    {"routes", show_routes, "IPv4/IPv6 routes with their nexthops or group members"},
    {"fib", show_fib, "the forwarding tables (IPv4 DIR-24-8, IPv6 multibit): fill, use"},
    {"nexthops", show_nexthops, "nexthops: gateway, port, neighbour MAC"},
    {"groups", show_groups, "ECMP groups: members and their share of buckets"},
    {"neighbors", show_neighbors, "neighbours learnt from the kernel or configured"},
    {"counters", show_counters, "per-port packet and byte counters"},
    {"drops", show_drops, "drop and punt counters by reason"},
    {"lb", show_lb, "load-balancing events: flowlets started, paths changed, TE"},
    {"flowlets", show_flowlets, "live flowlet slots: group, flow hash, member, idle time"},
    {"te", show_te, "TE entries (configured and runtime)"},
    {"queues", show_queues, "per port and class: packets, bytes, drops, ECN marks, profile"},
    {"watermark", show_watermark, "per port and class: current and peak queue occupancy"},
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: xfabctl [-j] [-s SWITCH | -P PIN_DIR] [--pin-root DIR] COMMAND\n"
		"commands:\n"
		"  show OBJECT\n"
		"  hash --src A --dst B [--in PORT] [--proto udp|tcp|N] [--sport N] [--dport N]\n"
		"       [--qp N] [--flow-label N]   which member this switch picks, and why\n"
		"  te add --in PORT --prefix P --via GW[,GW...]   pin a path (runtime)\n"
		"  te del --in PORT --prefix P\n"
		"  te show\n"
		"  clear watermark\n"
		"  watch counters|queues [--interval S] [--count N]   per-second rates\n"
		"  trace --in PORT (--src A --dst B [--proto] [--sport] [--dport] [--qp] [--dscp]\n"
		"        [--ecn] [--ttl] [--len] [--smac] [--dmac] | --pcap FILE [--index N])\n"
		"        run a frame through the loaded program: every stage, no state changed\n"
		"  -j             JSON output\n"
		"  -s SWITCH      switch hostname (pins under PIN_ROOT/SWITCH)\n"
		"  -P PIN_DIR     the switch's pin directory (or $XFAB_PIN_DIR)\n"
		"  --pin-root DIR default " XFAB_PIN_ROOT " (or $XFAB_PIN_ROOT)\n"
		"objects:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].object, commands[i].help);
}

/* ROOT/<lab>/NAME, when exactly one lab has a switch NAME. */
static int find_in_labs(const char *root, const char *name)
{
	DIR *d = opendir(root);
	struct dirent *de;
	struct stat st;
	char path[512];
	int found = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", root, de->d_name, name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			found++;
			snprintf(pin_dir, sizeof(pin_dir), "%s", path);
		}
	}
	closedir(d);
	return found == 1 ? 0 : -1;
}

/* With no -s/-P: the only switch under the pin root, if there is one. */
static int find_single_switch(const char *root)
{
	DIR *d = opendir(root);
	struct dirent *de;
	int found = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		found++;
		snprintf(pin_dir, sizeof(pin_dir), "%s/%s", root, de->d_name);
	}
	closedir(d);
	return found == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},		{"switch", required_argument, NULL, 's'},
	    {"pin-dir", required_argument, NULL, 'P'},	{"pin-root", required_argument, NULL, 'r'},
	    {"help", no_argument, NULL, 'h'},		{"in", required_argument, NULL, 1},
	    {"src", required_argument, NULL, 2},	{"dst", required_argument, NULL, 3},
	    {"proto", required_argument, NULL, 4},	{"sport", required_argument, NULL, 5},
	    {"dport", required_argument, NULL, 6},	{"qp", required_argument, NULL, 7},
	    {"flow-label", required_argument, NULL, 8}, {"prefix", required_argument, NULL, 9},
	    {"via", required_argument, NULL, 10},	{"dscp", required_argument, NULL, 11},
	    {"ecn", required_argument, NULL, 12},	{"ttl", required_argument, NULL, 13},
	    {"len", required_argument, NULL, 14},	{"pcap", required_argument, NULL, 15},
	    {"index", required_argument, NULL, 16},	{"smac", required_argument, NULL, 17},
	    {"dmac", required_argument, NULL, 18},	{"interval", required_argument, NULL, 19},
	    {"count", required_argument, NULL, 20},	{NULL, 0, NULL, 0},
	};
	struct hash_args ha = {0};
	struct trace_args ta = {.ttl = 64, .len = -1};
	double interval = 1;
	long count = 0;
	const char *prefix = NULL, *via = NULL;
	const char *sw = NULL, *root = getenv("XFAB_PIN_ROOT"), *dir = getenv("XFAB_PIN_DIR");
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "js:P:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = 1;
			break;
		case 's':
			sw = optarg;
			break;
		case 'P':
			dir = optarg;
			break;
		case 'r':
			root = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 1:
			ha.in = optarg;
			break;
		case 2:
			ha.src = optarg;
			break;
		case 3:
			ha.dst = optarg;
			break;
		case 4:
			ha.proto = optarg;
			break;
		case 5:
			ha.sport = strtol(optarg, NULL, 0);
			break;
		case 6:
			ha.dport = strtol(optarg, NULL, 0);
			break;
		case 7:
			ha.qp = strtol(optarg, NULL, 0);
			break;
		case 8:
			ha.flow_label = strtol(optarg, NULL, 0);
			break;
		case 9:
			prefix = optarg;
			break;
		case 10:
			via = optarg;
			break;
		case 11:
			ta.dscp = strtol(optarg, NULL, 0);
			break;
		case 12:
			ta.ecn = strtol(optarg, NULL, 0);
			break;
		case 13:
			ta.ttl = strtol(optarg, NULL, 0);
			break;
		case 14:
			ta.len = strtol(optarg, NULL, 0);
			break;
		case 15:
			ta.pcap = optarg;
			break;
		case 16:
			ta.index = strtol(optarg, NULL, 0);
			break;
		case 17:
			ta.smac = optarg;
			break;
		case 18:
			ta.dmac = optarg;
			break;
		case 19:
			interval = atof(optarg);
			break;
		case 20:
			count = atol(optarg);
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc ||
	    (strcmp(argv[optind], "show") && strcmp(argv[optind], "hash") &&
	     strcmp(argv[optind], "te") && strcmp(argv[optind], "clear") &&
	     strcmp(argv[optind], "trace") && strcmp(argv[optind], "watch")) ||
	    ((!strcmp(argv[optind], "hash") || !strcmp(argv[optind], "trace")) &&
	     argc - optind != 1) ||
	    (strcmp(argv[optind], "hash") && strcmp(argv[optind], "trace") && argc - optind != 2)) {
		usage(stderr);
		return 2;
	}
	if (!root)
		root = XFAB_PIN_ROOT;
	if (sw) {
		struct stat st;

		xfab_pin_dir(pin_dir, sizeof(pin_dir), root, sw);
		/* A lab pins under ROOT/LAB/SWITCH: -s leaf1 finds it when one
		 * lab has a leaf1 (-s LAB/leaf1 always does). */
		if (stat(pin_dir, &st) && find_in_labs(root, sw)) {
			fprintf(stderr,
				"xfabctl: no switch %s under %s (or in exactly one lab there)\n",
				sw, root);
			return 1;
		}
	} else if (dir) {
		snprintf(pin_dir, sizeof(pin_dir), "%s", dir);
	} else if (find_single_switch(root)) {
		fprintf(stderr, "xfabctl: name a switch with -s (none or several under %s)\n",
			root);
		return 1;
	}
	jw_first[0] = 1;
	if (!strcmp(argv[optind], "hash")) {
		ret = cmd_hash(&ha);
		if (json)
			putchar('\n');
		return ret;
	}
	if (!strcmp(argv[optind], "watch"))
		return cmd_watch(argv[optind + 1], interval, count);
	if (!strcmp(argv[optind], "trace")) {
		ta.in = ha.in;
		ta.src = ha.src;
		ta.dst = ha.dst;
		ta.proto = ha.proto;
		ta.sport = ha.sport;
		ta.dport = ha.dport;
		ta.qp = ha.qp;
		ret = cmd_trace(&ta);
		if (json)
			putchar('\n');
		return ret;
	}
	if (!strcmp(argv[optind], "clear")) {
		if (strcmp(argv[optind + 1], "watermark")) {
			usage(stderr);
			return 2;
		}
		return clear_watermark();
	}
	if (!strcmp(argv[optind], "te")) {
		ret = cmd_te(argv[optind + 1], ha.in, prefix, via);
		if (json)
			putchar('\n');
		return ret;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(commands[i].object, argv[optind + 1]))
			continue;
		jw_first[0] = 1;
		ret = commands[i].show();
		if (json)
			putchar('\n');
		return ret;
	}
	fprintf(stderr, "xfabctl: unknown object '%s'\n", argv[optind + 1]);
	usage(stderr);
	return 2;
}
