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

#include "common.h"

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

static const char *port_name(__u32 ifindex, char *buf)
{
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
		if (bpf_map_lookup_elem(fd, &keys[i], &ports[out]) == 0)
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
			jw_uint("members", grp.num_members);
			jw_uint("live_members", grp.live_members);
			jw_open("buckets_per_member", '[');
		} else {
			printf("group %u: mode hash, %u members (%u live), %d buckets\n", id,
			       grp.num_members, grp.live_members, XFAB_GROUP_BUCKETS);
		}
		for (int m = 0; m < grp.num_members && m < XFAB_GROUP_MAX_MEMBERS; m++) {
			int buckets = 0;

			for (int b = 0; b < XFAB_GROUP_BUCKETS; b++)
				buckets += grp.buckets[b] == grp.members[m];
			if (json) {
				jw_open(NULL, '{');
				jw_uint("nexthop", grp.members[m]);
				jw_uint("buckets", (unsigned)buckets);
				jw_close('}');
			} else {
				print_nexthop_text(nh_fd, grp.members[m], "    ");
				printf("  nexthop %u, %d buckets\n", grp.members[m], buckets);
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

/* ---- command table ---- */

struct command {
	const char *object;
	int (*show)(void);
	const char *help;
};

static const struct command commands[] = {
    {"ports", show_ports, "ports: MAC, state, MTU, datapath"},
    {"routes", show_routes, "IPv4/IPv6 routes with their nexthops or group members"},
    {"nexthops", show_nexthops, "nexthops: gateway, port, neighbour MAC"},
    {"groups", show_groups, "ECMP groups: members and their share of buckets"},
    {"neighbors", show_neighbors, "neighbours learnt from the kernel or configured"},
    {"counters", show_counters, "per-port packet and byte counters"},
    {"drops", show_drops, "drop and punt counters by reason"},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: xfabctl [-j] [-s SWITCH | -P PIN_DIR] [--pin-root DIR] show OBJECT\n"
		     "  -j             JSON output\n"
		     "  -s SWITCH      switch hostname (pins under PIN_ROOT/SWITCH)\n"
		     "  -P PIN_DIR     the switch's pin directory (or $XFAB_PIN_DIR)\n"
		     "  --pin-root DIR default " XFAB_PIN_ROOT " (or $XFAB_PIN_ROOT)\n"
		     "objects:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].object, commands[i].help);
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
	    {"json", no_argument, NULL, 'j'},	       {"switch", required_argument, NULL, 's'},
	    {"pin-dir", required_argument, NULL, 'P'}, {"pin-root", required_argument, NULL, 'r'},
	    {"help", no_argument, NULL, 'h'},	       {NULL, 0, NULL, 0},
	};
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
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2 || strcmp(argv[optind], "show")) {
		usage(stderr);
		return 2;
	}
	if (!root)
		root = XFAB_PIN_ROOT;
	if (sw) {
		xfab_pin_dir(pin_dir, sizeof(pin_dir), root, sw);
	} else if (dir) {
		snprintf(pin_dir, sizeof(pin_dir), "%s", dir);
	} else if (find_single_switch(root)) {
		fprintf(stderr, "xfabctl: name a switch with -s (none or several under %s)\n",
			root);
		return 1;
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
