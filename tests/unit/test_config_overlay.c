// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The VXLAN overlay in the config (SONiC's VNET model): VXLAN_TUNNEL, VNET,
 * INTERFACE vnet_name, VNET_ROUTE_TUNNEL, VNET_ROUTE, DEVICE_METADATA mac.
 * A good config parses to what it says and compiles into the overlay's
 * tables, with every tenant route and subnet in its VNET's table and none
 * in the default one; two tenants may use the same subnet. Every bad one is
 * refused with its file:line:col and key, the output untouched.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compile.h"
#include "config.h"
#include "rib.h"
#include "shadow.h"
#include "cfgbad.h"

#define HDR                                                                                        \
	"{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\", \"mac\": "             \
	"\"02:00:00:fe:00:01\"}},\n"                                                               \
	" \"PORT\": {\"eth1\": {}, \"eth2\": {}, \"eth3\": {}, \"eth4\": {}},\n"
#define OVERLAY                                                                                    \
	" \"VXLAN_TUNNEL\": {\"vtep\": {\"src_ip\": \"10.252.0.1\"}},\n"                           \
	" \"VNET\": {\"Vnet_red\": {\"vxlan_tunnel\": \"vtep\", \"vni\": \"1000\"},\n"             \
	"   \"Vnet_blue\": {\"vxlan_tunnel\": \"vtep\", \"vni\": \"2000\", \"scope\": "            \
	"\"default\"}},\n"
#define IFACES                                                                                     \
	" \"INTERFACE\": {\"eth1|10.254.1.1/31\": {}, \"eth2|10.100.1.1/24\": {},\n"               \
	"   \"eth2|fd64:64:1::1/64\": {}, \"eth3|10.100.1.1/24\": {}, \"eth4|10.100.2.1/24\": "    \
	"{},\n"                                                                                    \
	"   \"eth2\": {\"vnet_name\": \"Vnet_red\"}, \"eth3\": {\"vnet_name\": \"Vnet_blue\"},\n"  \
	"   \"eth4\": {\"vnet_name\": \"Vnet_red\"}},\n"

static const char *good_text = HDR OVERLAY IFACES
    " \"ROUTE\": {\"10.252.0.0/24\": {\"nexthop\": \"10.254.1.0\"}},\n"
    " \"VNET_ROUTE_TUNNEL\": {\"Vnet_red|10.100.3.0/24\": {\"endpoint\": \"10.252.0.3\"},\n"
    "   \"Vnet_red|fd64:64:3::/64\": {\"endpoint\": \"10.252.0.3, 10.252.0.4\", "
    "\"mac_address\": \"02:00:00:00:ee:01\"},\n"
    "   \"Vnet_blue|10.100.3.0/24\": {\"endpoint\": \"10.252.0.2\", \"vni\": \"2001\"}},\n"
    " \"VNET_ROUTE\": {\"Vnet_red|10.100.9.0/24\": {\"nexthop\": \"10.100.1.7\", \"ifname\": "
    "\"eth2\"},\n"
    "   \"Vnet_red|10.100.8.0/24\": {\"ifname\": \"eth4\"}}\n"
    "}\n";

static int neigh_none(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6])
{
	(void)arg, (void)ifindex, (void)family, (void)addr, (void)mac;
	return -ENOENT;
}

static void ip4(const char *s, __u8 out[4])
{
	assert_int_equal(inet_pton(AF_INET, s, out), 1);
}

static void test_good(void **state)
{
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;
	__u8 a[4];

	(void)state;
	if (xfab_config_parse("good.json", good_text, &cfg, &errs)) {
		char line[1024];

		xfab_cfg_error_format(&errs.e[0], line, sizeof(line));
		fail_msg("refused: %s", line);
	}
	assert_true(cfg.vtep);
	assert_string_equal(cfg.vtep_name, "vtep");
	ip4("10.252.0.1", a);
	assert_memory_equal(cfg.vtep_src, a, 4);
	assert_memory_equal(cfg.router_mac, "\x02\0\0\xfe\0\x01", 6);
	assert_int_equal(cfg.n_vnets, 2);
	assert_string_equal(cfg.vnets[0].name, "Vnet_red");
	assert_int_equal(cfg.vnets[0].vni, 1000);
	assert_string_equal(cfg.vnets[1].name, "Vnet_blue");
	assert_int_equal(cfg.vnets[1].vni, 2000);
	/* ports: eth1 underlay, eth2 and eth4 red (1), eth3 blue (2) */
	assert_int_equal(cfg.ports[0].vnet, 0);
	assert_int_equal(cfg.ports[1].vnet, 1);
	assert_int_equal(cfg.ports[2].vnet, 2);
	assert_int_equal(cfg.ports[3].vnet, 1);
	/* the same 10.100.1.1/24 on eth2 (red) and eth3 (blue): both kept */
	assert_int_equal(cfg.n_addrs, 5);
	assert_int_equal(cfg.n_tunnels, 3);
	assert_int_equal(cfg.tunnels[0].vnet, 1);
	assert_int_equal(cfg.tunnels[0].vni, 1000); /* the VNET's */
	assert_int_equal(cfg.tunnels[0].n_endpoints, 1);
	assert_int_equal(cfg.tunnels[1].n_endpoints, 2);
	ip4("10.252.0.4", a);
	assert_memory_equal(cfg.tunnels[1].endpoints[1], a, 4);
	assert_memory_equal(cfg.tunnels[1].mac, "\x02\0\0\0\xee\x01", 6);
	assert_int_equal(cfg.tunnels[1].pfx.family, AF_INET6);
	assert_int_equal(cfg.tunnels[2].vnet, 2);
	assert_int_equal(cfg.tunnels[2].vni, 2001); /* its own */
	assert_int_equal(cfg.n_vnet_routes, 2);
	assert_int_equal(cfg.vnet_routes[0].port, 1);
	assert_int_equal(cfg.vnet_routes[0].rt.n_nexthops, 1);
	assert_int_equal(cfg.vnet_routes[1].port, 3);
	assert_int_equal(cfg.vnet_routes[1].rt.n_nexthops, 0);
	xfab_config_free(&cfg);
}

static const struct xfab_route *lpm4(const struct shadow *sh, __u32 table, const char *addr,
				     int plen)
{
	struct xfab_lpm_v4_key k = {.prefixlen = 32 + (__u32)plen, .table = htonl(table)};

	ip4(addr, k.addr);
	return sh_get(sh, XFAB_T_ROUTES_V4, &k);
}

/* What xfabd writes. */
static void test_compiled(void **state)
{
	struct xfab_port_live live[XFAB_MAX_PORTS] = {{0}};
	struct xfab_map_ops ops = {.update = sh_update, .remove = sh_remove};
	struct shadow sh = {0};
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;
	struct xfab_rib *rib;
	struct xfab_compile *c;
	const struct xfab_route *r;
	const struct xfab_port *port;
	const struct xfab_vtep *vt;
	const struct xfab_vnet *vn;
	const struct xfab_tunnel_route *tr;
	const __u32 *id;
	__u32 key;
	__u8 a[4];

	(void)state;
	assert_int_equal(xfab_config_parse("good.json", good_text, &cfg, &errs), 0);
	for (int p = 0; p < 4; p++) {
		live[p].ifindex = (__u32)(10 + p);
		live[p].mac[0] = 2;
		live[p].mac[5] = (__u8)p;
		live[p].oper_up = 1;
	}
	ops.arg = &sh;
	rib = xfab_rib_new();
	c = xfab_compile_new(rib, &ops, neigh_none, NULL);
	assert_int_equal(xfab_rib_load_config(rib, &cfg), 0);
	assert_int_equal(xfab_compile_config(c, &cfg, live), 0);
	/* the VTEP: its address, the router MAC, 4789 */
	key = 0;
	vt = sh_get(&sh, XFAB_T_VTEP, &key);
	assert_non_null(vt);
	ip4("10.252.0.1", a);
	assert_memory_equal(&vt->src_v4, a, 4);
	assert_int_equal(vt->flags, XFAB_VTEP_ENABLED);
	assert_memory_equal(vt->mac, "\x02\0\0\xfe\0\x01", 6);
	assert_int_equal(vt->udp_port, 4789);
	assert_string_equal(vt->name, "vtep");
	/* VNETs 1 and 2, both ways */
	key = 1;
	vn = sh_get(&sh, XFAB_T_VNETS, &key);
	assert_non_null(vn);
	assert_int_equal(vn->vni, 1000);
	assert_string_equal(vn->name, "Vnet_red");
	key = 2000;
	id = sh_get(&sh, XFAB_T_VNI_TO_VNET, &key);
	assert_non_null(id);
	assert_int_equal(*id, 2);
	/* ports carry their VNET */
	key = 11;
	port = sh_get(&sh, XFAB_T_PORTS, &key);
	assert_non_null(port);
	assert_int_equal(port->vnet, 1);
	key = 10;
	port = sh_get(&sh, XFAB_T_PORTS, &key);
	assert_int_equal(port->vnet, 0);
	/* red's subnet and address on eth2 in red's table, blue's on eth3 in
	 * blue's; none in the default table */
	r = lpm4(&sh, XFAB_TABLE_VNET | 1, "10.100.1.0", 24);
	assert_non_null(r);
	assert_int_equal(r->type, XFAB_RT_CONNECTED);
	assert_int_equal(r->id, 11);
	r = lpm4(&sh, XFAB_TABLE_VNET | 1, "10.100.1.1", 32);
	assert_non_null(r);
	assert_int_equal(r->type, XFAB_RT_LOCAL);
	r = lpm4(&sh, XFAB_TABLE_VNET | 2, "10.100.1.0", 24);
	assert_non_null(r);
	assert_int_equal(r->id, 12);
	assert_null(lpm4(&sh, 0, "10.100.1.0", 24));
	assert_null(lpm4(&sh, 0, "10.100.2.0", 24));
	assert_non_null(lpm4(&sh, 0, "10.254.1.0", 31)); /* the underlay's own */
	/* tunnel routes: red's 10.100.3.0/24 -> entry 1, blue's -> entry 3 */
	r = lpm4(&sh, XFAB_TABLE_VNET | 1, "10.100.3.0", 24);
	assert_non_null(r);
	assert_int_equal(r->type, XFAB_RT_TUNNEL);
	key = r->id;
	tr = sh_get(&sh, XFAB_T_VNET_TUNNELS, &key);
	assert_non_null(tr);
	assert_int_equal(tr->vni, 1000);
	assert_int_equal(tr->num_endpoints, 1);
	ip4("10.252.0.3", a);
	assert_memory_equal(&tr->endpoints[0], a, 4);
	r = lpm4(&sh, XFAB_TABLE_VNET | 2, "10.100.3.0", 24);
	assert_non_null(r);
	key = r->id;
	tr = sh_get(&sh, XFAB_T_VNET_TUNNELS, &key);
	assert_non_null(tr);
	assert_int_equal(tr->vni, 2001);
	/* the IPv6 tunnel route, two endpoints and the inner MAC */
	{
		struct xfab_lpm_v6_key k6 = {.prefixlen = 32 + 64,
					     .table = htonl(XFAB_TABLE_VNET | 1)};

		assert_int_equal(inet_pton(AF_INET6, "fd64:64:3::", k6.addr), 1);
		r = sh_get(&sh, XFAB_T_ROUTES_V6, &k6);
		assert_non_null(r);
		assert_int_equal(r->type, XFAB_RT_TUNNEL);
		key = r->id;
		tr = sh_get(&sh, XFAB_T_VNET_TUNNELS, &key);
		assert_non_null(tr);
		assert_int_equal(tr->num_endpoints, 2);
		assert_memory_equal(tr->mac, "\x02\0\0\0\xee\x01", 6);
	}
	/* VNET_ROUTE: a nexthop on eth2, and connected to eth4 */
	r = lpm4(&sh, XFAB_TABLE_VNET | 1, "10.100.9.0", 24);
	assert_non_null(r);
	assert_int_equal(r->type, XFAB_RT_NEXTHOP);
	{
		const struct xfab_nexthop *nh;

		key = r->id;
		nh = sh_get(&sh, XFAB_T_NEXTHOPS, &key);
		assert_non_null(nh);
		assert_int_equal(nh->ifindex, 11);
		ip4("10.100.1.7", a);
		assert_memory_equal(nh->gw, a, 4);
	}
	r = lpm4(&sh, XFAB_TABLE_VNET | 1, "10.100.8.0", 24);
	assert_non_null(r);
	assert_int_equal(r->type, XFAB_RT_CONNECTED);
	assert_int_equal(r->id, 13);
	xfab_compile_free(c);
	xfab_rib_free(rib);
	sh_free(&sh);
	xfab_config_free(&cfg);
}

/* Without DEVICE_METADATA mac, the VTEP's MAC is the first port's. */
static void test_vtep_mac_default(void **state)
{
	static const char *text =
	    "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"
	    " \"PORT\": {\"eth1\": {}, \"eth2\": {}},\n" OVERLAY
	    " \"INTERFACE\": {\"eth2\": {\"vnet_name\": \"Vnet_red\"}}\n}\n";
	struct xfab_port_live live[XFAB_MAX_PORTS] = {{0}};
	struct xfab_map_ops ops = {.update = sh_update, .remove = sh_remove};
	struct shadow sh = {0};
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;
	struct xfab_rib *rib;
	struct xfab_compile *c;
	const struct xfab_vtep *vt;
	__u32 key = 0;

	(void)state;
	assert_int_equal(xfab_config_parse("mac.json", text, &cfg, &errs), 0);
	for (int p = 0; p < 2; p++) {
		live[p].ifindex = (__u32)(10 + p);
		memcpy(live[p].mac, "\x02\x11\x22\x33\x44", 5);
		live[p].mac[5] = (__u8)(0x50 + p);
		live[p].oper_up = 1;
	}
	ops.arg = &sh;
	rib = xfab_rib_new();
	c = xfab_compile_new(rib, &ops, neigh_none, NULL);
	assert_int_equal(xfab_rib_load_config(rib, &cfg), 0);
	assert_int_equal(xfab_compile_config(c, &cfg, live), 0);
	vt = sh_get(&sh, XFAB_T_VTEP, &key);
	assert_non_null(vt);
	assert_memory_equal(vt->mac, "\x02\x11\x22\x33\x44\x50", 6);
	xfab_compile_free(c);
	xfab_rib_free(rib);
	sh_free(&sh);
	xfab_config_free(&cfg);
}

#define T(x) HDR x "\n}\n"
#define TO(x) HDR OVERLAY x "\n}\n"
#define RED_PORTS                                                                                  \
	" \"INTERFACE\": {\"eth2|10.100.1.1/24\": {}, \"eth2\": {\"vnet_name\": \"Vnet_red\"}}"
static const struct bad_case bad[] = {
    {"two tunnels",
     T(" \"VXLAN_TUNNEL\": {\"a\": {\"src_ip\": \"10.0.0.1\"}, \"b\": {\"src_ip\": "
       "\"10.0.0.2\"}}"),
     "\"b\"", "VXLAN_TUNNEL|b", "one VTEP per switch"},
    {"tunnel without src_ip", T(" \"VXLAN_TUNNEL\": {\"a\": {}}"), "{}}\n}",
     "VXLAN_TUNNEL|a.src_ip", "missing"},
    {"IPv6 src_ip", T(" \"VXLAN_TUNNEL\": {\"a\": {\"src_ip\": \"fd00::1\"}}"), "\"fd00::1\"",
     "VXLAN_TUNNEL|a.src_ip", "not an IPv4 address"},
    {"multicast src_ip", T(" \"VXLAN_TUNNEL\": {\"a\": {\"src_ip\": \"239.1.1.1\"}}"),
     "\"239.1.1.1\"", "VXLAN_TUNNEL|a.src_ip", "not a VTEP address"},
    {"tunnel unknown field",
     T(" \"VXLAN_TUNNEL\": {\"a\": {\"src_ip\": \"10.0.0.1\", \"dst_ip\": \"10.0.0.2\"}}"),
     "\"dst_ip\"", "VXLAN_TUNNEL|a.dst_ip", "unknown field"},
    {"VNET of no tunnel", T(" \"VNET\": {\"V\": {\"vxlan_tunnel\": \"vtep\", \"vni\": \"5\"}}"),
     "\"vtep\"", "VNET|V.vxlan_tunnel", "no VXLAN_TUNNEL|vtep"},
    {"VNI 0",
     T(" \"VXLAN_TUNNEL\": {\"vtep\": {\"src_ip\": \"10.0.0.1\"}},\n \"VNET\": {\"V\": "
       "{\"vxlan_tunnel\": \"vtep\", \"vni\": \"0\"}}"),
     "\"0\"", "VNET|V.vni", "out of range"},
    {"VNI too big",
     T(" \"VXLAN_TUNNEL\": {\"vtep\": {\"src_ip\": \"10.0.0.1\"}},\n \"VNET\": {\"V\": "
       "{\"vxlan_tunnel\": \"vtep\", \"vni\": \"16777216\"}}"),
     "\"16777216\"", "VNET|V.vni", "out of range"},
    {"VNET without vni",
     T(" \"VXLAN_TUNNEL\": {\"vtep\": {\"src_ip\": \"10.0.0.1\"}},\n \"VNET\": {\"V\": "
       "{\"vxlan_tunnel\": \"vtep\"}}"),
     "{\"vxlan_tunnel\": \"vtep\"}", "VNET|V.vni", "missing"},
    {"VNET scope",
     T(" \"VXLAN_TUNNEL\": {\"vtep\": {\"src_ip\": \"10.0.0.1\"}},\n \"VNET\": {\"V\": "
       "{\"vxlan_tunnel\": \"vtep\", \"vni\": \"5\", \"scope\": \"global\"}}"),
     "\"global\"", "VNET|V.scope", "only \"default\""},
    {"VNET name too long",
     T(" \"VXLAN_TUNNEL\": {\"vtep\": {\"src_ip\": \"10.0.0.1\"}},\n \"VNET\": "
       "{\"Vnet_0123456789abc\": {\"vxlan_tunnel\": \"vtep\", \"vni\": \"5\"}}"),
     "\"Vnet_0123456789abc\"", "VNET|Vnet_0123456789abc", "1-15 letters"},
    {"unknown vnet_name", TO(" \"INTERFACE\": {\"eth2\": {\"vnet_name\": \"Vnet_green\"}}"),
     "\"Vnet_green\"", "INTERFACE|eth2.vnet_name", "no VNET|Vnet_green"},
    {"address entry with a field",
     TO(" \"INTERFACE\": {\"eth2|10.1.1.1/24\": {\"vnet_name\": \"Vnet_red\"}}"), "\"vnet_name\"",
     "INTERFACE|eth2|10.1.1.1/24.vnet_name", "unknown field"},
    {"overlap inside a VNET",
     TO(" \"INTERFACE\": {\"eth2|10.100.1.1/24\": {}, \"eth4|10.100.1.129/25\": {},\n \"eth2\": "
	"{\"vnet_name\": \"Vnet_red\"}, \"eth4\": {\"vnet_name\": \"Vnet_red\"}}"),
     "\"eth4|10.100.1.129/25\"", "INTERFACE|eth4|10.100.1.129/25", "overlaps one on port eth2"},
    {"overlap inside the underlay",
     TO(" \"INTERFACE\": {\"eth1|10.1.1.1/24\": {}, \"eth4|10.1.1.129/25\": {}}"),
     "\"eth4|10.1.1.129/25\"", "INTERFACE|eth4|10.1.1.129/25", "overlaps one on port eth1"},
    {"tunnel route of no VNET",
     TO(RED_PORTS ",\n \"VNET_ROUTE_TUNNEL\": {\"Vnet_x|10.9.0.0/16\": {\"endpoint\": "
		  "\"10.252.0.2\"}}"),
     "\"Vnet_x|10.9.0.0/16\"", "VNET_ROUTE_TUNNEL|Vnet_x|10.9.0.0/16", "no VNET|Vnet_x"},
    {"tunnel route without VNET",
     TO(RED_PORTS ",\n \"VNET_ROUTE_TUNNEL\": {\"10.9.0.0/16\": {\"endpoint\": \"10.252.0.2\"}}"),
     "\"10.9.0.0/16\"", "VNET_ROUTE_TUNNEL|10.9.0.0/16", "expected VNET|PREFIX"},
    {"tunnel route host bits",
     TO(RED_PORTS ",\n \"VNET_ROUTE_TUNNEL\": {\"Vnet_red|10.9.0.1/16\": {\"endpoint\": "
		  "\"10.252.0.2\"}}"),
     "\"Vnet_red|10.9.0.1/16\"", "VNET_ROUTE_TUNNEL|Vnet_red|10.9.0.1/16", "host bits"},
    {"tunnel route without endpoint",
     TO(RED_PORTS ",\n \"VNET_ROUTE_TUNNEL\": {\"Vnet_red|10.9.0.0/16\": {}}"), "{}}\n}",
     "VNET_ROUTE_TUNNEL|Vnet_red|10.9.0.0/16.endpoint", "missing"},
    {"endpoint not IPv4",
     TO(RED_PORTS ",\n \"VNET_ROUTE_TUNNEL\": {\"Vnet_red|10.9.0.0/16\": {\"endpoint\": "
		  "\"x\"}}"),
     "\"x\"", "VNET_ROUTE_TUNNEL|Vnet_red|10.9.0.0/16.endpoint", "\"x\" is not an IPv4"},
    {"endpoint twice",
     TO(RED_PORTS ",\n \"VNET_ROUTE_TUNNEL\": {\"Vnet_red|10.9.0.0/16\": {\"endpoint\": "
		  "\"10.252.0.2,10.252.0.2\"}}"),
     "\"10.252.0.2,10.252.0.2\"", "VNET_ROUTE_TUNNEL|Vnet_red|10.9.0.0/16.endpoint", "given twice"},
    {"endpoint is this VTEP",
     TO(RED_PORTS ",\n \"VNET_ROUTE_TUNNEL\": {\"Vnet_red|10.9.0.0/16\": {\"endpoint\": "
		  "\"10.252.0.1\"}}"),
     "\"10.252.0.1\"}}\n}", "VNET_ROUTE_TUNNEL|Vnet_red|10.9.0.0/16.endpoint", "own VTEP"},
    {"17 endpoints",
     TO(RED_PORTS ",\n \"VNET_ROUTE_TUNNEL\": {\"Vnet_red|10.9.0.0/16\": {\"endpoint\": "
		  "\"1.0.0.1,1.0.0.2,1.0.0.3,1.0.0.4,1.0.0.5,1.0.0.6,1.0.0.7,1.0.0.8,1.0.0.9,"
		  "1.0.0.10,1.0.0.11,1.0.0.12,1.0.0.13,1.0.0.14,1.0.0.15,1.0.0.16,1.0.0.17\"}}"),
     "\"1.0.0.1,", "VNET_ROUTE_TUNNEL|Vnet_red|10.9.0.0/16.endpoint", "more than 16"},
    {"multicast inner MAC",
     TO(RED_PORTS ",\n \"VNET_ROUTE_TUNNEL\": {\"Vnet_red|10.9.0.0/16\": {\"endpoint\": "
		  "\"10.252.0.2\", \"mac_address\": \"01:00:5e:00:00:01\"}}"),
     "\"01:00:5e:00:00:01\"", "VNET_ROUTE_TUNNEL|Vnet_red|10.9.0.0/16.mac_address",
     "not a unicast MAC"},
    {"route VNI 0",
     TO(RED_PORTS ",\n \"VNET_ROUTE_TUNNEL\": {\"Vnet_red|10.9.0.0/16\": {\"endpoint\": "
		  "\"10.252.0.2\", \"vni\": \"0\"}}"),
     "\"0\"}", "VNET_ROUTE_TUNNEL|Vnet_red|10.9.0.0/16.vni", "out of range"},
    {"prefix in both tables",
     TO(RED_PORTS ",\n \"VNET_ROUTE_TUNNEL\": {\"Vnet_red|10.9.0.0/16\": {\"endpoint\": "
		  "\"10.252.0.2\"}},\n \"VNET_ROUTE\": {\"Vnet_red|10.9.0.0/16\": {\"ifname\": "
		  "\"eth2\"}}"),
     "\"Vnet_red|10.9.0.0/16\": {\"ifname", "VNET_ROUTE|Vnet_red|10.9.0.0/16",
     "routed in VNET_ROUTE_TUNNEL already"},
    {"local route without ifname",
     TO(RED_PORTS ",\n \"VNET_ROUTE\": {\"Vnet_red|10.9.0.0/16\": {\"nexthop\": "
		  "\"10.100.1.5\"}}"),
     "{\"nexthop", "VNET_ROUTE|Vnet_red|10.9.0.0/16.ifname", "missing"},
    {"local route to another VNET's port",
     TO(RED_PORTS ",\n \"VNET_ROUTE\": {\"Vnet_blue|10.9.0.0/16\": {\"ifname\": \"eth2\"}}"),
     "\"eth2\"}", "VNET_ROUTE|Vnet_blue|10.9.0.0/16.ifname", "not bound to VNET Vnet_blue"},
    {"local route to an underlay port",
     TO(RED_PORTS ",\n \"VNET_ROUTE\": {\"Vnet_red|10.9.0.0/16\": {\"ifname\": \"eth1\"}}"),
     "\"eth1\"}", "VNET_ROUTE|Vnet_red|10.9.0.0/16.ifname", "not bound to VNET Vnet_red"},
    {"nexthop outside the port's subnet",
     TO(RED_PORTS ",\n \"VNET_ROUTE\": {\"Vnet_red|10.9.0.0/16\": {\"nexthop\": \"10.100.2.5\", "
		  "\"ifname\": \"eth2\"}}"),
     "\"10.100.2.5\"", "VNET_ROUTE|Vnet_red|10.9.0.0/16.nexthop", "in no subnet of port eth2"},
    {"underlay nexthop only in a tenant's subnet",
     TO(RED_PORTS ",\n \"ROUTE\": {\"10.9.0.0/16\": {\"nexthop\": \"10.100.1.5\"}}"),
     "\"10.100.1.5\"", "ROUTE|10.9.0.0/16.nexthop", "no connected subnet"},
    {"router MAC multicast",
     "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"x\", \"mac\": "
     "\"ff:ff:ff:ff:ff:ff\"}},\n \"PORT\": {\"eth1\": {}}\n}\n",
     "\"ff:ff:ff:ff:ff:ff\"", "DEVICE_METADATA|localhost.mac", "not a unicast MAC"},
};

static void test_bad(void **state)
{
	static const struct bad_case vni_twice = {
	    "VNI twice",
	    HDR " \"VXLAN_TUNNEL\": {\"vtep\": {\"src_ip\": \"10.0.0.1\"}},\n \"VNET\": {\"A\": "
		"{\"vxlan_tunnel\": \"vtep\", \"vni\": \"7\"}, \"B\": {\"vxlan_tunnel\": \"vtep\", "
		"\"vni\": \"7\"}}\n}\n",
	    "\"7\"}}", "VNET|B.vni", "VNI 7 is VNET|A's already"};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cfgbad_check(&bad[i]);
	cfgbad_check(&vni_twice);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good),
	    cmocka_unit_test(test_compiled),
	    cmocka_unit_test(test_vtep_mac_default),
	    cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests_name("config_overlay", tests, NULL, NULL);
}
