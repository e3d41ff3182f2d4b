// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xfab_hash.h"

#include "ctl.h"

/* `xfabctl hash`: which member this switch picks for a described flow, and
 * why. Reads the tables only; no flowlet is created or refreshed here. */
int cmd_hash(const struct ctl_opts *ha)
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
		struct xfab_port port;

		/* by the name xfabd recorded: valid from any namespace */
		if (find_port(ha->in, &port)) {
			fprintf(stderr,
				"xfabctl hash: %s is not a port of switch %s (its ports: ", ha->in,
				pin_dir);
			print_port_names(stderr);
			fprintf(stderr, ")\n");
			return 2;
		}
		ifindex = port.ifindex;
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
