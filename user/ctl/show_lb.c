// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* show lb, flowlets, te: load balancing as the data plane sees it */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>

#include "ctl.h"

static int show_lb(void)
{
	int fd = ctl_open_map(XFAB_MAP_LB_STATS);

	if (ctl_json)
		ctl_jw_open(NULL, '{');
	else
		printf("%-22s %14s\n", "Event", "PACKETS");
	for (__u32 k = 0; k < XFAB_LB_MAX; k++) {
		__u64 v = 0;

		xfab_percpu_sum(fd, k, &v, 1);
		if (ctl_json)
			ctl_jw_uint(xfab_lb_name(k), v);
		else
			printf("%-22s %14llu\n", xfab_lb_name(k), (unsigned long long)v);
	}
	if (ctl_json)
		ctl_jw_close('}');
	return 0;
}

/* The flowlet table's slots in use by a flow active within FLOWLET age_ms. */
static int show_flowlets(void)
{
	size_t len = (size_t)XFAB_MAX_FLOWLETS * sizeof(struct xfab_flowlet);
	int nh_fd = ctl_open_map(XFAB_MAP_NEXTHOPS);
	const struct xfab_flowlet *tbl =
	    mmap(NULL, len, PROT_READ, MAP_SHARED, ctl_open_map(XFAB_MAP_FLOWLETS), 0);
	struct xfab_settings cfg = {0};
	__u32 zero = 0;
	__u64 now = xfab_mono_ns();
	char gw[INET6_ADDRSTRLEN], name[IF_NAMESIZE];

	if (tbl == MAP_FAILED) {
		fprintf(stderr, "xfabctl: cannot map the flowlet table: %s\n", strerror(errno));
		return 1;
	}
	bpf_map_lookup_elem(ctl_open_map(XFAB_MAP_SETTINGS), &zero, &cfg);
	if (ctl_json)
		ctl_jw_open(NULL, '[');
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
		if (ctl_load_nexthop(nh_fd, fl.nh_id, &nh) == 0) {
			ctl_addr_str(nh.flags & XFAB_NH_IPV6, nh.gw, gw, sizeof(gw));
			ctl_port_name(nh.ifindex, name);
		}
		if (ctl_json) {
			ctl_jw_open(NULL, '{');
			ctl_jw_uint("slot", i);
			ctl_jw_uint("group", fl.group);
			ctl_jw_uint("hash", fl.hash);
			ctl_jw_uint("nexthop", fl.nh_id);
			ctl_jw_string("via", gw);
			ctl_jw_string("dev", name);
			ctl_jw_uint("idle_us", idle);
			ctl_jw_uint("flowlets", fl.flowlets);
			ctl_jw_close('}');
		} else {
			char member[48];

			snprintf(member, sizeof(member), "%s %s", gw, name);
			printf("%-6u %-5u 0x%08x %-30s %12llu %8u\n", i, fl.group, fl.hash, member,
			       (unsigned long long)idle, fl.flowlets);
		}
	}
	if (ctl_json)
		ctl_jw_close(']');
	munmap((void *)tbl, len);
	return 0;
}

/* A runtime pin's generation as xfabd listed it; -1 when not listed. */
static long long listed_gen(const struct te_listed *pins, size_t n, const char *in, const char *pfx)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(pins[i].in, in) && !strcmp(pins[i].prefix, pfx))
			return (long long)pins[i].gen;
	return -1;
}

int ctl_show_te(void)
{
	int nh_fd = ctl_open_map(XFAB_MAP_NEXTHOPS);
	struct te_listed *pins = NULL;
	unsigned long long generation = 0;
	size_t n_pins = 0;
	int have_gen;

	/* the generations live in xfabd, not in the maps: asked for, and the
	 * view does without them when no xfabd answers */
	ctl_quiet = 1;
	have_gen = ctl_te_list_all(&pins, &n_pins, &generation) == 0;
	ctl_quiet = 0;
	if (ctl_json) {
		ctl_jw_open(NULL, '[');
	} else {
		if (have_gen)
			printf("TE plan generation %llu, %zu runtime pin(s)\n", generation, n_pins);
		else
			printf("TE plan generation unknown (xfabd does not answer)\n");
		printf("%-10s %-26s %-8s %-8s %s\n", "Ingress", "Prefix", "Type", "Gen", "Path");
	}
	for (int v6 = 0; v6 <= 1; v6++) {
		int fd = ctl_open_map(v6 ? XFAB_MAP_ROUTES_V6 : XFAB_MAP_ROUTES_V4);
		size_t ksz = v6 ? sizeof(struct xfab_lpm_v6_key) : sizeof(struct xfab_lpm_v4_key),
		       n;
		char *keys = ctl_map_keys(fd, ksz, &n);

		for (size_t i = 0; i < n; i++) {
			char *k = keys + i * ksz, a[INET6_ADDRSTRLEN], pfx[INET6_ADDRSTRLEN + 8];
			__u32 table = ntohl(*(__u32 *)(k + 4));
			char name[IF_NAMESIZE], gen[24];
			struct xfab_route rt;
			long long g;
			int runtime;

			if (!(table & XFAB_TABLE_TE) || bpf_map_lookup_elem(fd, k, &rt))
				continue;
			ctl_addr_str(v6, (__u8 *)k + 8, a, sizeof(a));
			snprintf(pfx, sizeof(pfx), "%s/%u", a, *(__u32 *)k - 32);
			ctl_port_name(table & ~XFAB_TABLE_TE, name);
			runtime = rt.source == XFAB_RSRC_TE_PIN;
			g = runtime ? listed_gen(pins, n_pins, name, pfx) : -1;
			if (ctl_json) {
				ctl_jw_open(NULL, '{');
				ctl_jw_string("in", name);
				ctl_jw_string("prefix", pfx);
				ctl_jw_string("type", xfab_route_type_name(rt.type));
				ctl_jw_uint("id", rt.id);
				if (rt.type == XFAB_RT_NEXTHOP) {
					struct xfab_nexthop nh;
					char gw[INET6_ADDRSTRLEN], dev[IF_NAMESIZE];

					if (ctl_load_nexthop(nh_fd, rt.id, &nh) == 0) {
						ctl_addr_str(nh.flags & XFAB_NH_IPV6, nh.gw, gw,
							     sizeof(gw));
						ctl_jw_string("via", gw);
						ctl_jw_string("dev",
							      ctl_port_name(nh.ifindex, dev));
					}
				}
				ctl_jw_string("source", runtime ? "runtime" : "config");
				if (g >= 0)
					ctl_jw_uint("gen", (unsigned long long)g);
				if (have_gen)
					ctl_jw_uint("switch_gen", generation);
				ctl_jw_close('}');
			} else {
				if (!runtime)
					snprintf(gen, sizeof(gen), "config");
				else if (g >= 0)
					snprintf(gen, sizeof(gen), "%lld", g);
				else
					snprintf(gen, sizeof(gen), "?");
				printf("%-10s %-26s %-8s %-8s", name, pfx,
				       xfab_route_type_name(rt.type), gen);
				if (rt.type == XFAB_RT_NEXTHOP)
					ctl_print_nexthop_text(nh_fd, rt.id, " ");
				else
					printf(" group %u", rt.id);
				putchar('\n');
			}
		}
		free(keys);
	}
	if (ctl_json)
		ctl_jw_close(']');
	free(pins);
	return 0;
}

CTL_SHOW(show_lb_obj, "ecmp", 80, "lb", .view = show_lb,
	 .help = "load-balancing events: flowlets started, paths changed, TE")
CTL_SHOW(show_flowlets_obj, "flowlet", 120, "flowlets", .view = show_flowlets,
	 .help = "live flowlet slots: group, flow hash, member, idle time")
CTL_SHOW(show_te_obj, "te", 130, "te", .view = ctl_show_te,
	 .help = "TE entries (configured and runtime)")
