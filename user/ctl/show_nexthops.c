// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* show nexthops, groups, neighbors */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

static int show_nexthops(void)
{
	int fd = ctl_open_map(XFAB_MAP_NEXTHOPS);
	char gw[INET6_ADDRSTRLEN], name[IF_NAMESIZE], mac[18];
	struct xfab_nexthop nh;

	if (ctl_json)
		ctl_jw_open(NULL, '[');
	else
		printf("%5s  %-26s %-10s %-17s  %s\n", "Id", "Via", "Dev", "MAC", "State");
	for (__u32 id = 1; id < XFAB_MAX_NEXTHOPS; id++) {
		int up;

		if (ctl_load_nexthop(fd, id, &nh))
			continue;
		/* the nexthop's up bit: its record's copy of its port's */
		up = (nh.port.flags & XFAB_PORT_UP) == XFAB_PORT_UP;
		ctl_addr_str(nh.flags & XFAB_NH_IPV6, nh.gw, gw, sizeof(gw));
		ctl_port_name(nh.ifindex, name);
		xfab_format_mac(nh.dmac, mac, sizeof(mac));
		if (ctl_json) {
			ctl_jw_open(NULL, '{');
			ctl_jw_uint("id", id);
			ctl_jw_string("via", gw);
			ctl_jw_string("dev", name);
			ctl_jw_bool("resolved", nh.flags & XFAB_NH_RESOLVED);
			if (nh.flags & XFAB_NH_RESOLVED)
				ctl_jw_string("mac", mac);
			ctl_jw_bool("up", up);
			ctl_jw_uint("mtu", nh.port.mtu);
			ctl_jw_close('}');
		} else {
			printf("%5u  %-26s %-10s %-17s  %s%s\n", id, gw, name,
			       nh.flags & XFAB_NH_RESOLVED ? mac : "-",
			       nh.flags & XFAB_NH_RESOLVED ? "resolved" : "unresolved",
			       up ? "" : ", down");
		}
	}
	if (ctl_json)
		ctl_jw_close(']');
	return 0;
}

static int show_groups(void)
{
	int fd = ctl_open_map(XFAB_MAP_GROUPS), nh_fd = ctl_open_map(XFAB_MAP_NEXTHOPS);
	struct xfab_group grp;

	if (ctl_json)
		ctl_jw_open(NULL, '[');
	for (__u32 id = 1; id < XFAB_MAX_GROUPS; id++) {
		if (bpf_map_lookup_elem(fd, &id, &grp) || grp.num_members == 0)
			continue;
		if (ctl_json) {
			ctl_jw_open(NULL, '{');
			ctl_jw_uint("id", id);
			ctl_jw_string("mode", "hash");
			ctl_jw_bool("resilient", grp.flags & XFAB_GROUP_RESILIENT);
			ctl_jw_uint("members", grp.num_members);
			ctl_jw_uint("live_members", grp.live_members);
			ctl_jw_open("buckets_per_member", '[');
		} else {
			printf("group %u: mode hash%s, %u members (%u live), %d buckets\n", id,
			       grp.flags & XFAB_GROUP_RESILIENT ? " resilient" : "",
			       grp.num_members, grp.live_members, XFAB_GROUP_BUCKETS);
		}
		for (int m = 0; m < grp.num_members && m < XFAB_GROUP_MAX_MEMBERS; m++) {
			int buckets = 0;

			for (int b = 0; b < XFAB_GROUP_BUCKETS; b++)
				buckets += grp.buckets[b] == grp.members[m];
			if (ctl_json) {
				ctl_jw_open(NULL, '{');
				ctl_jw_uint("nexthop", grp.members[m]);
				ctl_jw_uint("weight", grp.weights[m]);
				ctl_jw_uint("buckets", (unsigned)buckets);
				ctl_jw_close('}');
			} else {
				ctl_print_nexthop_text(nh_fd, grp.members[m], "    ");
				printf("  nexthop %u, weight %u, %d buckets\n", grp.members[m],
				       grp.weights[m], buckets);
			}
		}
		if (ctl_json) {
			ctl_jw_close(']');
			ctl_jw_close('}');
		}
	}
	if (ctl_json)
		ctl_jw_close(']');
	return 0;
}

static int show_neighbors(void)
{
	int fd = ctl_open_map(XFAB_MAP_NEIGHBORS);
	size_t n;
	struct xfab_neigh_key *keys = ctl_map_keys(fd, sizeof(*keys), &n);
	char a[INET6_ADDRSTRLEN], name[IF_NAMESIZE], mac[18];
	struct xfab_neigh nb;

	if (ctl_json)
		ctl_jw_open(NULL, '[');
	else
		printf("%-26s %-17s  %-10s %s\n", "Address", "MacAddress", "Iface", "Type");
	for (size_t i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(fd, &keys[i], &nb))
			continue;
		ctl_addr_str(keys[i].family == AF_INET6, keys[i].addr, a, sizeof(a));
		ctl_port_name(keys[i].ifindex, name);
		xfab_format_mac(nb.mac, mac, sizeof(mac));
		if (ctl_json) {
			ctl_jw_open(NULL, '{');
			ctl_jw_string("address", a);
			ctl_jw_string("mac", mac);
			ctl_jw_string("dev", name);
			ctl_jw_string("type", nb.flags & XFAB_NEIGH_STATIC ? "static" : "learnt");
			ctl_jw_close('}');
		} else {
			printf("%-26s %-17s  %-10s %s\n", a, mac, name,
			       nb.flags & XFAB_NEIGH_STATIC ? "static" : "learnt");
		}
	}
	if (ctl_json)
		ctl_jw_close(']');
	free(keys);
	return 0;
}

CTL_SHOW(show_nexthops_obj, "routes", 60, "nexthops", .view = show_nexthops,
	 .help = "nexthops: gateway, port, neighbour MAC, up (the port as the nexthop carries it)")
CTL_SHOW(show_groups_obj, "ecmp", 70, "groups", .view = show_groups,
	 .help = "ECMP groups: members and their share of buckets")
CTL_SHOW(show_neighbors_obj, "neighbours", 90, "neighbors", .view = show_neighbors,
	 .help = "neighbours learnt from the kernel or configured")
