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
	ctl_addr_str(v6, a, out, len);
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
	if (bpf_map_lookup_elem(ctl_open_map(XFAB_MAP_VNETS), &vnet, &vn) == 0)
		snprintf(tun->vnet, sizeof(tun->vnet), "%s", vn.name);
	if (ctl_find_route(*v6, (__u8 *)flow->dst, XFAB_TABLE_VNET | vnet, &plen, &rt)) {
		fprintf(stderr, "xfabctl hash: no route in VNET %s\n", tun->vnet);
		return -1;
	}
	masked(*v6, flow->dst, plen, net, sizeof(net));
	snprintf(tun->prefix, sizeof(tun->prefix), "%s/%d", net, plen);
	tun->type = rt.type;
	if (rt.type != XFAB_RT_TUNNEL)
		return 1;
	id = rt.id;
	if (bpf_map_lookup_elem(ctl_open_map(XFAB_MAP_VNET_TUNNELS), &id, &tr) ||
	    bpf_map_lookup_elem(ctl_open_map(XFAB_MAP_VTEP), &zero, &vt) || !tr.num_endpoints) {
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
	ctl_addr_str(0, (const __u8 *)&tr.endpoints[id], tun->endpoint, sizeof(tun->endpoint));
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
/* What `hash` works out, stage by stage, for the printers. */
struct hash_pick {
	struct tunnel_pick tun;
	struct xfab_settings cfg;
	struct xfab_flow flow;
	struct xfab_route rt;
	struct xfab_flowlet fl;
	char fields[160], gw[INET6_ADDRSTRLEN], name[IF_NAMESIZE], pfx[INET6_ADDRSTRLEN];
	__u32 ifindex, in_vnet, hash, bucket, nh_id, group, slot;
	int plen, v6, have_fl;
	const char *source;
};

/* The flow the options describe, and the ingress port's: 0, or the exit
 * status (said why). */
static int hash_flow(const struct ctl_opts *ha, struct hash_pick *p)
{
	struct xfab_flow flow = {0};
	int v6;

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
		if (ctl_find_port(ha->in, &port)) {
			fprintf(stderr,
				"xfabctl hash: %s is not a port of switch %s (its ports: ", ha->in,
				ctl_pin_dir);
			ctl_print_port_names(stderr);
			fprintf(stderr, ")\n");
			return 2;
		}
		p->ifindex = port.ifindex;
		p->in_vnet = port.vnet;
	}
	flow.is_v6 = (__u8)v6;
	flow.proto = (__u8)ctl_parse_proto(ha->proto);
	flow.ports = htons((__u16)ha->sport) | ((__u32)htons((__u16)ha->dport) << 16);
	flow.qp = (__u32)ha->qp & 0xffffff;
	flow.flow_label = v6 ? (__u32)ha->flow_label & 0xfffff : 0;
	p->flow = flow;
	p->v6 = v6;
	return 0;
}

/* A local tenant route ends the answer there. */
static void hash_print_local(const struct tunnel_pick *tun)
{
	if (ctl_json) {
		ctl_jw_open(NULL, '{');
		ctl_jw_string("vnet", tun->vnet);
		ctl_jw_string("prefix", tun->prefix);
		ctl_jw_string("route_type", xfab_route_type_name((__u32)tun->type));
		ctl_jw_close('}');
	} else {
		printf("match      VNET %s %s (%s): a local tenant route\n", tun->vnet, tun->prefix,
		       xfab_route_type_name((__u32)tun->type));
	}
}

/* The route the data plane matches: the ingress port's TE table first,
 * then the default table. 0, or 1 when there is none (said). */
static int hash_route(const struct ctl_opts *ha, struct hash_pick *p)
{
	struct xfab_route te;
	int te_plen = -1;

	if ((p->cfg.flags & XFAB_SET_TE) && p->ifindex &&
	    ctl_find_route(p->v6, (__u8 *)p->flow.dst, XFAB_TABLE_TE | p->ifindex, &te_plen, &te) ==
		0) {
		p->rt = te;
		p->plen = te_plen;
		p->source = "te";
	} else if (ctl_find_route(p->v6, (__u8 *)p->flow.dst, XFAB_TABLE_DEFAULT, &p->plen,
				  &p->rt)) {
		fprintf(stderr, "xfabctl hash: no route to %s\n",
			p->tun.vni ? p->tun.endpoint : ha->dst);
		return 1;
	}
	return 0;
}

/* The hash, its bucket, and the member: the group's bucket, or a live
 * flowlet's member; the member's gateway and port. */
static void hash_member(struct hash_pick *p)
{
	const struct xfab_settings *cfg = &p->cfg;
	struct xfab_flow sel = p->flow;
	struct xfab_group grp;
	struct xfab_nexthop nh;

	xfab_flow_select(&sel, cfg->hash_fields, cfg->flags & XFAB_SET_SYMMETRIC);
	p->hash = xfab_flow_hash(&sel, &cfg->ecmp_key);
	p->bucket = XFAB_HASH_BUCKET(p->hash);
	xfab_format_hash_fields(cfg->hash_fields, p->fields, sizeof(p->fields));
	/* the matched prefix: the destination with the host bits cleared */
	masked(p->v6, p->flow.dst, p->plen, p->pfx, sizeof(p->pfx));
	if (p->rt.type == XFAB_RT_GROUP) {
		p->group = p->rt.id;
		if (bpf_map_lookup_elem(ctl_open_map(XFAB_MAP_GROUPS), &p->group, &grp))
			memset(&grp, 0, sizeof(grp));
		p->nh_id = grp.buckets[p->bucket];
		p->slot = XFAB_FLOWLET_SLOT(p->hash, p->group);
		if ((cfg->flags & XFAB_SET_FLOWLET) &&
		    bpf_map_lookup_elem(ctl_open_map(XFAB_MAP_FLOWLETS), &p->slot, &p->fl) == 0 &&
		    p->fl.last_seen_ns && p->fl.group == p->group)
			p->have_fl = 1;
	} else if (p->rt.type == XFAB_RT_NEXTHOP) {
		p->nh_id = p->rt.id;
	}
	if (p->have_fl && xfab_mono_ns() - p->fl.last_seen_ns < cfg->flowlet_gap_ns)
		p->nh_id = p->fl.nh_id;
	p->gw[0] = p->name[0] = '\0';
	if (p->nh_id && ctl_load_nexthop(ctl_open_map(XFAB_MAP_NEXTHOPS), p->nh_id, &nh) == 0) {
		ctl_addr_str(nh.flags & XFAB_NH_IPV6, nh.gw, p->gw, sizeof(p->gw));
		ctl_port_name(nh.ifindex, p->name);
	}
}

static void hash_print_json(const struct hash_pick *p)
{
	const struct tunnel_pick *tun = &p->tun;
	char full[INET6_ADDRSTRLEN + 8];

	ctl_jw_open(NULL, '{');
	if (tun->vni) {
		ctl_jw_string("vnet", tun->vnet);
		ctl_jw_string("vnet_prefix", tun->prefix);
		ctl_jw_uint("vni", tun->vni);
		ctl_jw_uint("tunnel_hash", tun->hash);
		ctl_jw_string("endpoint", tun->endpoint);
		ctl_jw_uint("outer_sport", tun->sport);
	}
	ctl_jw_string("match", p->source);
	snprintf(full, sizeof(full), "%s/%d", p->pfx, p->plen);
	ctl_jw_string("prefix", full);
	ctl_jw_string("route_type", xfab_route_type_name(p->rt.type));
	ctl_jw_string("hash_fields", p->fields);
	ctl_jw_bool("symmetric", p->cfg.flags & XFAB_SET_SYMMETRIC);
	ctl_jw_uint("seed", p->cfg.hash_seed);
	ctl_jw_uint("hash", p->hash);
	ctl_jw_uint("bucket", p->bucket);
	if (p->group)
		ctl_jw_uint("group", p->group);
	ctl_jw_uint("nexthop", p->nh_id);
	ctl_jw_string("via", p->gw);
	ctl_jw_string("dev", p->name);
	ctl_jw_bool("flowlets", p->cfg.flags & XFAB_SET_FLOWLET);
	if (p->have_fl) {
		ctl_jw_uint("flowlet_slot", p->slot);
		ctl_jw_uint("flowlet_member", p->fl.nh_id);
		ctl_jw_uint("flowlet_idle_us", (xfab_mono_ns() - p->fl.last_seen_ns) / 1000);
	}
	ctl_jw_close('}');
}

static void hash_print_flowlet(const struct hash_pick *p)
{
	const struct xfab_settings *cfg = &p->cfg;

	if (p->have_fl)
		printf("flowlet    slot %u, member %u, idle %llu us (gap %llu us): %s\n", p->slot,
		       p->fl.nh_id,
		       (unsigned long long)((xfab_mono_ns() - p->fl.last_seen_ns) / 1000),
		       (unsigned long long)(cfg->flowlet_gap_ns / 1000),
		       xfab_mono_ns() - p->fl.last_seen_ns < cfg->flowlet_gap_ns
			   ? "the next packet continues it"
			   : "the next packet starts a new flowlet");
	else
		printf("flowlet    none: the next packet starts one (%s choice)\n",
		       cfg->flowlet_mode == XFAB_FLOWLET_LEAST_LOADED ? "least loaded" : "random");
}

static void hash_print_text(const struct hash_pick *p)
{
	const struct tunnel_pick *tun = &p->tun;

	if (tun->vni)
		printf("tunnel     VNET %s %s: hash 0x%08x -> VTEP %s (%u of %u), VNI %u, outer "
		       "UDP %u -> 4789\n           the underlay routes the outer packet:\n",
		       tun->vnet, tun->prefix, tun->hash, tun->endpoint,
		       xfab_tunnel_endpoint(tun->hash, tun->n_endpoints) + 1, tun->n_endpoints,
		       tun->vni, tun->sport);
	if (p->rt.type == XFAB_RT_GROUP || p->rt.type == XFAB_RT_NEXTHOP)
		printf("match      %s %s/%d (%s %u)\n", p->source, p->pfx, p->plen,
		       xfab_route_type_name(p->rt.type), p->rt.id);
	else
		printf("match      %s %s/%d (%s)\n", p->source, p->pfx, p->plen,
		       xfab_route_type_name(p->rt.type));
	printf("hash       fields %s, seed 0x%08x%s\n", p->fields, p->cfg.hash_seed,
	       p->cfg.flags & XFAB_SET_SYMMETRIC ? ", symmetric" : "");
	printf("           hash 0x%08x -> bucket %u\n", p->hash, p->bucket);
	if (p->cfg.flags & XFAB_SET_FLOWLET)
		hash_print_flowlet(p);
	printf("member     nexthop %u via %s dev %s\n", p->nh_id, p->gw[0] ? p->gw : "-",
	       p->name[0] ? p->name : "-");
}

int ctl_cmd_hash(const struct ctl_opts *ha)
{
	struct hash_pick p = {.source = "route"};
	__u32 zero = 0;
	int rc = hash_flow(ha, &p);

	if (rc)
		return rc;
	if (bpf_map_lookup_elem(ctl_open_map(XFAB_MAP_SETTINGS), &zero, &p.cfg)) {
		fprintf(stderr, "xfabctl hash: cannot read settings\n");
		return 1;
	}
	if (p.in_vnet) {
		int r = tenant_pick(p.in_vnet, &p.cfg, &p.flow, &p.v6, &p.tun);

		if (r < 0)
			return 1;
		if (r > 0) { /* a local tenant route: no tunnel, no underlay */
			hash_print_local(&p.tun);
			return 0;
		}
		p.ifindex = 0; /* the outer packet: no TE table of the tenant port */
	}
	if (hash_route(ha, &p))
		return 1;
	hash_member(&p);
	if (ctl_json)
		hash_print_json(&p);
	else
		hash_print_text(&p);
	return 0;
}
