// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The overlay's views (docs/OVERLAY.md), SONiC's names and columns:
 *   show vxlan tunnel   the VTEP
 *   show vnet           SONiC's `show vnet brief`: VNETs, VNIs, their ports
 *   show vnet routes    SONiC's `show vnet routes all`: tunnel and local routes
 *   show vnet counters  per VNET: encap/decap packets and bytes, drops by reason
 */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "names.h"

static int read_vnet(__u32 id, struct xfab_vnet *v)
{
	return bpf_map_lookup_elem(ctl_open_map(XFAB_MAP_VNETS), &id, v) == 0 &&
	       (v->flags & XFAB_VNET_VALID);
}

static int show_vxlan_tunnel(void)
{
	struct xfab_vtep vt;
	char src[INET_ADDRSTRLEN], mac[18];
	__u32 zero = 0;
	int have = bpf_map_lookup_elem(ctl_open_map(XFAB_MAP_VTEP), &zero, &vt) == 0 &&
		   (vt.flags & XFAB_VTEP_ENABLED);

	if (have) {
		inet_ntop(AF_INET, &vt.src_v4, src, sizeof(src));
		xfab_format_mac(vt.mac, mac, sizeof(mac));
	}
	if (ctl_json) {
		ctl_jw_open(NULL, '[');
		if (have) {
			ctl_jw_open(NULL, '{');
			ctl_jw_string("name", vt.name);
			ctl_jw_string("src_ip", src);
			ctl_jw_string("dst_ip", "");
			ctl_jw_uint("udp_port", vt.udp_port);
			ctl_jw_string("mac", mac);
			ctl_jw_close('}');
		}
		ctl_jw_close(']');
		return 0;
	}
	printf("%-16s %-15s %-6s %-5s %s\n", "vxlan tunnel name", "source ip", "dst ip", "port",
	       "mac");
	printf("%-16s %-15s %-6s %-5s %s\n", "-----------------", "---------", "------", "----",
	       "---");
	if (have)
		printf("%-17s %-15s %-6s %-5u %s\n", vt.name, src, "-", vt.udp_port, mac);
	return 0;
}

static int show_vnet(void)
{
	struct xfab_port ports[XFAB_MAX_PORTS];
	size_t n = ctl_load_ports(ports);
	struct xfab_vtep vt = {.name = ""};
	__u32 zero = 0;

	bpf_map_lookup_elem(ctl_open_map(XFAB_MAP_VTEP), &zero, &vt);
	if (ctl_json)
		ctl_jw_open(NULL, '[');
	else
		printf("%-16s %-16s %-9s %s\n%-16s %-16s %-9s %s\n", "vnet name", "vxlan tunnel",
		       "vni", "interfaces", "---------", "------------", "---", "----------");
	for (__u32 id = 1; id < XFAB_MAX_VNETS; id++) {
		struct xfab_vnet v;
		char list[512] = "";
		size_t used = 0;

		if (!read_vnet(id, &v))
			continue;
		if (ctl_json) {
			ctl_jw_open(NULL, '{');
			ctl_jw_string("name", v.name);
			ctl_jw_uint("id", id);
			ctl_jw_string("vxlan_tunnel", vt.name);
			ctl_jw_uint("vni", v.vni);
			ctl_jw_open("interfaces", '[');
		}
		for (size_t p = 0; p < n; p++) {
			if (ports[p].vnet != id)
				continue;
			if (ctl_json)
				ctl_jw_string(NULL, ports[p].name);
			else if (used < sizeof(list))
				used += (size_t)snprintf(list + used, sizeof(list) - used,
							 "%s%.16s", used ? "," : "", ports[p].name);
		}
		if (ctl_json) {
			ctl_jw_close(']');
			ctl_jw_close('}');
		} else {
			printf("%-16s %-16s %-9u %s\n", v.name, vt.name, v.vni, used ? list : "-");
		}
	}
	if (ctl_json)
		ctl_jw_close(']');
	return 0;
}

struct vroute {
	__u32 vnet;
	int v6, plen;
	__u8 addr[16];
	struct xfab_route rt;
};

static int cmp_vroute(const void *a, const void *b)
{
	const struct vroute *x = a, *y = b;
	int c;

	if (x->vnet != y->vnet)
		return x->vnet < y->vnet ? -1 : 1;
	if (x->v6 != y->v6)
		return x->v6 - y->v6;
	c = memcmp(x->addr, y->addr, 16);
	return c ? c : x->plen - y->plen;
}

/* Every route of every VNET table, sorted by VNET and prefix. */
static struct vroute *vnet_routes(size_t *count)
{
	int v4_fd = ctl_open_map(XFAB_MAP_ROUTES_V4), v6_fd = ctl_open_map(XFAB_MAP_ROUTES_V6);
	size_t n4 = 0, n6 = 0, n = 0;
	struct xfab_lpm_v4_key *k4 = ctl_map_keys(v4_fd, sizeof(*k4), &n4);
	struct xfab_lpm_v6_key *k6 = ctl_map_keys(v6_fd, sizeof(*k6), &n6);
	struct vroute *rows = calloc(n4 + n6 + 1, sizeof(*rows));

	for (size_t i = 0; rows && i < n4; i++) {
		__u32 t = ntohl(k4[i].table);

		if ((t & 0xf0000000u) != XFAB_TABLE_VNET ||
		    bpf_map_lookup_elem(v4_fd, &k4[i], &rows[n].rt))
			continue;
		rows[n].vnet = t & ~XFAB_TABLE_VNET;
		rows[n].plen = (int)k4[i].prefixlen - 32;
		memcpy(rows[n].addr, k4[i].addr, 4);
		n++;
	}
	for (size_t i = 0; rows && i < n6; i++) {
		__u32 t = ntohl(k6[i].table);

		if ((t & 0xf0000000u) != XFAB_TABLE_VNET ||
		    bpf_map_lookup_elem(v6_fd, &k6[i], &rows[n].rt))
			continue;
		rows[n].vnet = t & ~XFAB_TABLE_VNET;
		rows[n].v6 = 1;
		rows[n].plen = (int)k6[i].prefixlen - 32;
		memcpy(rows[n].addr, k6[i].addr, 16);
		n++;
	}
	free(k4);
	free(k6);
	if (rows)
		qsort(rows, n, sizeof(*rows), cmp_vroute);
	*count = rows ? n : 0;
	return rows;
}

static int show_vnet_routes(void)
{
	int tun_fd = ctl_open_map(XFAB_MAP_VNET_TUNNELS), nh_fd = ctl_open_map(XFAB_MAP_NEXTHOPS);
	size_t n;
	struct vroute *rows = vnet_routes(&n);

	if (ctl_json)
		ctl_jw_open(NULL, '[');
	for (int pass = 0; pass < 2; pass++) { /* tunnel routes, then local ones */
		if (!ctl_json && pass == 0)
			printf("%-16s %-22s %-32s %-18s %s\n%-16s %-22s %-32s %-18s %s\n",
			       "vnet name", "prefix", "endpoint", "mac address", "vni", "---------",
			       "------", "--------", "-----------", "---");
		if (!ctl_json && pass == 1)
			printf("\n%-16s %-22s %-10s %-26s %s\n%-16s %-22s %-10s %-26s %s\n",
			       "vnet name", "prefix", "type", "nexthop", "interface", "---------",
			       "------", "----", "-------", "---------");
		for (size_t i = 0; i < n; i++) {
			const struct vroute *r = &rows[i];
			char a[INET6_ADDRSTRLEN], pfx[INET6_ADDRSTRLEN + 8], vn[24], eps[256] = "";
			char mac[18] = "", gw[INET6_ADDRSTRLEN] = "", dev[IF_NAMESIZE] = "";
			struct xfab_tunnel_route t = {0};
			struct xfab_nexthop nh;
			struct xfab_vnet v;
			int tunnel = r->rt.type == XFAB_RT_TUNNEL;

			if (tunnel != (pass == 0))
				continue;
			if (read_vnet(r->vnet, &v))
				snprintf(vn, sizeof(vn), "%.15s", v.name);
			else
				snprintf(vn, sizeof(vn), "%u", r->vnet);
			ctl_addr_str(r->v6, r->addr, a, sizeof(a));
			snprintf(pfx, sizeof(pfx), "%s/%d", a, r->plen);
			if (tunnel) {
				size_t used = 0;
				__u32 id = r->rt.id;

				if (bpf_map_lookup_elem(tun_fd, &id, &t))
					memset(&t, 0, sizeof(t));
				for (int k = 0;
				     k < t.num_endpoints && k < XFAB_TUNNEL_MAX_ENDPOINTS; k++) {
					char ep[INET_ADDRSTRLEN];

					inet_ntop(AF_INET, &t.endpoints[k], ep, sizeof(ep));
					if (used < sizeof(eps))
						used +=
						    (size_t)snprintf(eps + used, sizeof(eps) - used,
								     "%s%s", k ? "," : "", ep);
				}
				if (t.mac[0] | t.mac[1] | t.mac[2] | t.mac[3] | t.mac[4] | t.mac[5])
					xfab_format_mac(t.mac, mac, sizeof(mac));
			} else if (r->rt.type == XFAB_RT_NEXTHOP &&
				   ctl_load_nexthop(nh_fd, r->rt.id, &nh) == 0) {
				ctl_addr_str(nh.flags & XFAB_NH_IPV6, nh.gw, gw, sizeof(gw));
				ctl_port_name(nh.ifindex, dev);
			} else if (r->rt.type == XFAB_RT_CONNECTED) {
				ctl_port_name(r->rt.id, dev);
			}
			if (ctl_json) {
				ctl_jw_open(NULL, '{');
				ctl_jw_string("vnet", vn);
				ctl_jw_string("prefix", pfx);
				ctl_jw_string("type", xfab_route_type_name(r->rt.type));
				if (tunnel) {
					ctl_jw_string("endpoints", eps);
					ctl_jw_string("mac_address", mac);
					ctl_jw_uint("vni", t.vni);
				} else {
					ctl_jw_string("nexthop", gw);
					ctl_jw_string("ifname", dev);
				}
				ctl_jw_close('}');
			} else if (tunnel) {
				printf("%-16s %-22s %-32s %-18s %u\n", vn, pfx, eps,
				       mac[0] ? mac : "-", t.vni);
			} else {
				printf("%-16s %-22s %-10s %-26s %s\n", vn, pfx,
				       xfab_route_type_name(r->rt.type), gw[0] ? gw : "-",
				       dev[0] ? dev : "-");
			}
		}
	}
	if (ctl_json)
		ctl_jw_close(']');
	free(rows);
	return 0;
}

static int show_vnet_counters(void)
{
	int st_fd = ctl_open_map(XFAB_MAP_VNET_STATS), dr_fd = ctl_open_map(XFAB_MAP_VNET_DROPS);

	if (ctl_json)
		ctl_jw_open(NULL, '[');
	else
		printf("%-16s %-9s %12s %14s %12s %14s %9s %9s\n", "vnet name", "vni", "encap pkts",
		       "encap bytes", "decap pkts", "decap bytes", "drops", "punts");
	for (__u32 id = 0; id < XFAB_MAX_VNETS; id++) {
		__u64 st[6] = {0};
		struct xfab_vnet v = {.vni = 0};
		char vn[24];
		int known = id && read_vnet(id, &v);

		if (xfab_percpu_sum(st_fd, id, st, 6))
			continue;
		/* vnet 0: packets to this VTEP with a VNI of no VNET */
		if (!known && !(st[0] | st[2] | st[4] | st[5]))
			continue;
		if (known)
			snprintf(vn, sizeof(vn), "%.15s", v.name);
		else
			snprintf(vn, sizeof(vn), "%s", id ? "?" : "(unknown VNI)");
		if (ctl_json) {
			ctl_jw_open(NULL, '{');
			ctl_jw_string("vnet", vn);
			ctl_jw_uint("vni", v.vni);
			ctl_jw_uint("encap_packets", st[0]);
			ctl_jw_uint("encap_bytes", st[1]);
			ctl_jw_uint("decap_packets", st[2]);
			ctl_jw_uint("decap_bytes", st[3]);
			ctl_jw_uint("drops", st[4]);
			ctl_jw_uint("punts", st[5]);
			ctl_jw_open("drop_reasons", '{');
		} else {
			printf("%-16s %-9u %12llu %14llu %12llu %14llu %9llu %9llu\n", vn, v.vni,
			       (unsigned long long)st[0], (unsigned long long)st[1],
			       (unsigned long long)st[2], (unsigned long long)st[3],
			       (unsigned long long)st[4], (unsigned long long)st[5]);
		}
		for (__u32 r = 1; r < XFAB_DROP_MAX; r++) {
			__u64 d[2] = {0};

			if (xfab_percpu_sum(dr_fd, XFAB_VNET_DROP_KEY(id, r), d, 2) || !d[0])
				continue;
			if (ctl_json)
				ctl_jw_uint(xfab_drop_name(r), d[0]);
			else
				printf("%-16s   dropped %llu: %s\n", "", (unsigned long long)d[0],
				       xfab_drop_name(r));
		}
		if (ctl_json) {
			ctl_jw_close('}');
			ctl_jw_close('}');
		}
	}
	if (ctl_json)
		ctl_jw_close(']');
	return 0;
}

static const struct ctl_cmd show_vnet_cmds[] = {
    {"brief", NULL, show_vnet, NULL, "VNETs: VXLAN tunnel, VNI, ports (also `show vnet`)"},
    {"routes", NULL, show_vnet_routes, NULL,
     "tenant routes: tunnel (endpoints, MAC, VNI) and local (nexthop, port)"},
    {"counters", NULL, show_vnet_counters, NULL,
     "per VNET: encap/decap packets and bytes, drops by reason, punts"},
    {NULL},
};

static const struct ctl_cmd show_vxlan_cmds[] = {
    {"tunnel", NULL, show_vxlan_tunnel, NULL, "the VTEP: source address, UDP port, MAC"},
    {NULL},
};

CTL_SHOW(show_vnet_obj, "overlay", 200, "vnet", .sub = show_vnet_cmds, .view = show_vnet,
	 .help = "the overlay's VNETs (docs/OVERLAY.md)")
CTL_SHOW(show_vxlan_obj, "overlay", 210, "vxlan", .sub = show_vxlan_cmds,
	 .help = "the VXLAN tunnel (VTEP)")
