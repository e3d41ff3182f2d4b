// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xfab_hash.h"

#include "ctl.h"

/* addr with the bits past plen cleared, as text */
static void masked(int v6, const void *addr, int plen, char *out, size_t len)
{
	__u8 a[16] = {0};

	memcpy(a, addr, v6 ? 16 : 4);
	for (int i = 0; i < (v6 ? 16 : 4); i++) {
		int bit0 = i * 8;

		if (bit0 >= plen)
			a[i] = 0;
		else if (bit0 + 8 > plen)
			a[i] &= (__u8)(0xff << (8 - (plen - bit0)));
	}
	addr_str(v6, a, out, len);
}

/* A tenant flow (--in a port bound to a VNET) through a tunnel route: the
 * remote VTEP and outer source port its hash picks (xfab_hash.h), and the
 * outer flow the underlay then hashes. 0: tunnelled (tun filled, flow now
 * the outer one); 1: a local tenant route (nothing more to hash); -1. */
struct tunnel_pick {
	char vnet[16], prefix[INET6_ADDRSTRLEN + 8], endpoint[INET_ADDRSTRLEN];
	__u32 vni, hash, n_endpoints;
	__u16 sport;
	int type;
};

static int tenant_pick(__u32 vnet, const struct xfab_settings *cfg, struct xfab_flow *flow, int *v6,
		       struct tunnel_pick *tun)
{
	struct xfab_tunnel_route tr;
	struct xfab_route rt;
	struct xfab_vnet vn;
	struct xfab_vtep vt;
	struct xfab_flow sel = *flow;
	char net[INET6_ADDRSTRLEN];
	__u32 zero = 0, id;
	int plen;

	memset(tun, 0, sizeof(*tun));
	if (bpf_map_lookup_elem(open_map(XFAB_MAP_VNETS), &vnet, &vn) == 0)
		snprintf(tun->vnet, sizeof(tun->vnet), "%s", vn.name);
	if (find_route(*v6, (__u8 *)flow->dst, XFAB_TABLE_VNET | vnet, &plen, &rt)) {
		fprintf(stderr, "xfabctl hash: no route in VNET %s\n", tun->vnet);
		return -1;
	}
	masked(*v6, flow->dst, plen, net, sizeof(net));
	snprintf(tun->prefix, sizeof(tun->prefix), "%s/%d", net, plen);
	tun->type = rt.type;
	if (rt.type != XFAB_RT_TUNNEL)
		return 1;
	id = rt.id;
	if (bpf_map_lookup_elem(open_map(XFAB_MAP_VNET_TUNNELS), &id, &tr) ||
	    bpf_map_lookup_elem(open_map(XFAB_MAP_VTEP), &zero, &vt) || !tr.num_endpoints) {
		fprintf(stderr, "xfabctl hash: cannot read the tunnel route or the VTEP\n");
		return -1;
	}
	xfab_flow_select(&sel, XFAB_TUNNEL_HASH_FIELDS(cfg->hash_fields), 0);
	tun->hash = xfab_flow_hash(&sel, &cfg->tunnel_key);
	tun->n_endpoints = tr.num_endpoints < XFAB_TUNNEL_MAX_ENDPOINTS ? tr.num_endpoints
									: XFAB_TUNNEL_MAX_ENDPOINTS;
	id = xfab_tunnel_endpoint(tun->hash, tun->n_endpoints);
	tun->sport = xfab_vxlan_sport(tun->hash);
	tun->vni = tr.vni;
	addr_str(0, (const __u8 *)&tr.endpoints[id], tun->endpoint, sizeof(tun->endpoint));
	/* the outer flow, as the underlay sees it */
	memset(flow, 0, sizeof(*flow));
	flow->src[0] = vt.src_v4;
	flow->dst[0] = tr.endpoints[id];
	flow->proto = 17;
	flow->ports = htons(tun->sport) | ((__u32)htons(XFAB_VXLAN_UDP_PORT) << 16);
	*v6 = 0;
	return 0;
}

/* `xfabctl hash`: which member this switch picks for a described flow, and
 * why. Reads the tables only; no flowlet is created or refreshed here. A
 * tenant flow (--in a VNET's port) through a tunnel: the remote VTEP and
 * outer source port, then the underlay member of the outer flow. */
int cmd_hash(const struct ctl_opts *ha)
{
	struct tunnel_pick tun = {.type = 0};
	__u32 in_vnet = 0;
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
		in_vnet = port.vnet;
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
	if (in_vnet) {
		int r = tenant_pick(in_vnet, &cfg, &flow, &v6, &tun);

		if (r < 0)
			return 1;
		if (r > 0) { /* a local tenant route: no tunnel, no underlay */
			if (json) {
				jw_open(NULL, '{');
				jw_string("vnet", tun.vnet);
				jw_string("prefix", tun.prefix);
				jw_string("route_type", xfab_route_type_name((__u32)tun.type));
				jw_close('}');
			} else {
				printf("match      VNET %s %s (%s): a local tenant route\n",
				       tun.vnet, tun.prefix, xfab_route_type_name((__u32)tun.type));
			}
			return 0;
		}
		ifindex = 0; /* the outer packet: no TE table of the tenant port */
	}
	if ((cfg.flags & XFAB_SET_TE) && ifindex &&
	    find_route(v6, (__u8 *)flow.dst, XFAB_TABLE_TE | ifindex, &te_plen, &te) == 0) {
		rt = te;
		plen = te_plen;
		source = "te";
	} else if (find_route(v6, (__u8 *)flow.dst, XFAB_TABLE_DEFAULT, &plen, &rt)) {
		fprintf(stderr, "xfabctl hash: no route to %s\n", tun.vni ? tun.endpoint : ha->dst);
		return 1;
	}
	sel = flow;
	xfab_flow_select(&sel, cfg.hash_fields, cfg.flags & XFAB_SET_SYMMETRIC);
	hash = xfab_flow_hash(&sel, &cfg.ecmp_key);
	bucket = XFAB_HASH_BUCKET(hash);
	xfab_format_hash_fields(cfg.hash_fields, fields, sizeof(fields));
	/* the matched prefix: the destination with the host bits cleared */
	masked(v6, flow.dst, plen, pfx, sizeof(pfx));
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
		if (tun.vni) {
			jw_string("vnet", tun.vnet);
			jw_string("vnet_prefix", tun.prefix);
			jw_uint("vni", tun.vni);
			jw_uint("tunnel_hash", tun.hash);
			jw_string("endpoint", tun.endpoint);
			jw_uint("outer_sport", tun.sport);
		}
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
	if (tun.vni)
		printf("tunnel     VNET %s %s: hash 0x%08x -> VTEP %s (%u of %u), VNI %u, outer "
		       "UDP %u -> 4789\n           the underlay routes the outer packet:\n",
		       tun.vnet, tun.prefix, tun.hash, tun.endpoint,
		       xfab_tunnel_endpoint(tun.hash, tun.n_endpoints) + 1, tun.n_endpoints,
		       tun.vni, tun.sport);
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
