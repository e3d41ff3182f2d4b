// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SONiC's tables that xfab gives their SONiC meaning in a SONiC file
 * (docs/CONFIG.md, "SONiC CONFIG_DB files"): COPP_GROUP and COPP_TRAP onto
 * the CoPP groups (config/sonic_copp.c), STATIC_ROUTE as ROUTE
 * (sonic_route.c), LOOPBACK_INTERFACE as the router id and the VTEP's
 * source (sonic_loopback.c), FG_NHG and its members and prefixes onto the
 * resilient groups (sonic_fgnhg.c). Expected values are written by hand
 * from SONiC's files: sonic-buildimage's copp_cfg.j2 (its facts, written
 * here in our own text), our own T0 (tests/data/sonic/), sonic-swss's
 * copporch.cpp trap ids.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "cfgbad.h"
#include "scripttree.h"
#include "srcdir.h"
#include "cfgsonic.h"

static int ignored_has(const struct xfab_config *cfg, const char *name)
{
	for (int i = 0; i < cfg->n_ignored; i++)
		if (!strcmp(cfg->ignored[i], name))
			return 1;
	return 0;
}

#define HDR                                                                                        \
	"{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"                   \
	" \"PORT\": {\"Ethernet0\": {\"lanes\": \"0\"}, \"Ethernet4\": {\"lanes\": \"4\"}},\n"     \
	" \"INTERFACE\": {\"Ethernet0\": {}, \"Ethernet0|10.0.0.0/31\": {\"family\": \"IPv4\"},\n" \
	"   \"Ethernet4\": {}, \"Ethernet4|10.0.0.2/31\": {}}"
#define T(x) HDR ",\n" x "\n}\n"

/* A switch's default CoPP tables, built here from the facts of
 * sonic-buildimage's files/image_config/copp/copp_cfg.j2 (commit d282602e,
 * its non-Mgmt branch): each group's queue, trap priority, action and
 * packets-per-second meter, each trap's ids, group and always_enabled.
 * queue2_group1's genetlink names are left out: sonic-copp.yang (202511)
 * does not define them, so the catalogue refuses them (sonic.c's part).
 * "default" has no trap_action nor trap_priority, as there. */
#define COPP_GROUP(name, queue, prio, action, pps)                                                 \
	"\"" name "\": {\"cbs\": \"" pps "\", \"cir\": \"" pps "\", \"meter_type\": \"packets\", " \
	"\"mode\": \"sr_tcm\", \"queue\": \"" queue "\", \"red_action\": \"drop\", "               \
	"\"trap_action\": \"" action "\", \"trap_priority\": \"" prio "\"}"
#define COPP_TRAP(name, ids, group, always)                                                        \
	"\"" name "\": {\"trap_group\": \"" group "\", \"trap_ids\": \"" ids "\"" always "}"
#define ALWAYS ", \"always_enabled\": \"true\""

static const char *copp_cfg =
    T(
	"\"COPP_GROUP\": {\n"
	" \"default\": {\"cbs\": \"600\", \"cir\": \"600\", \"meter_type\": \"packets\", \"mode\": "
	"\"sr_tcm\", \"queue\": \"0\", \"red_action\": \"drop\"},\n"
	" " COPP_GROUP("queue1_group1", "1", "1", "trap",
		       "6000") ",\n"
			       " " COPP_GROUP(
				   "queue1_group2", "1", "1", "trap",
				   "600") ",\n"
					  " " COPP_GROUP(
					      "queue1_group3", "1", "1", "trap",
					      "200") ",\n"
						     " " COPP_GROUP(
							 "queue2_group1", "2", "1", "trap",
							 "1000") ",\n"
								 " " COPP_GROUP("queue4_group1", "4", "4", "trap", "6000") ",\n"
															   " " COPP_GROUP("queue4_group2", "4", "4", "copy", "600") ",\n"
																						    " " COPP_GROUP("queue4_group3", "4", "4", "trap", "100") "},\n"
																													     "\"COPP_TRAP\": {\n"
																													     " " COPP_TRAP("arp", "arp_req,arp_resp,neigh_discovery", "queue4_group2", ALWAYS) ",\n"
																																							       " " COPP_TRAP(
																																								   "bgp",
																																								   "bgp,bgpv6", "queue4_group1", "") ",\n"
																																												     " " COPP_TRAP("dhcp_relay",
																																														   "dhcp,dhcpv6", "queue4_group3", "") ",\n"
																																																		       " " COPP_TRAP("ip2me", "ip2me", "queue1_group1", ALWAYS) ",\n"
																																																										" " COPP_TRAP(
																																																										    "lacp",
																																																										    "lacp",
																																																										    "queue4_group1", ALWAYS) ",\n"
																																																													     " " COPP_TRAP(
																																																														 "lldp",
																																																														 "lldp", "queue4_group3", "") ",\n"
																																																																	      " " COPP_TRAP(
																																																																		  "macsec",
																																																																		  "eapol",
																																																																		  "queue4_group1", "") ",\n"
																																																																				       " " COPP_TRAP(
																																																																					   "nat",
																																																																					   "src_nat_miss,dest_nat_miss",
																																																																					   "queue1_group2",
																																																																					   "") ",\n"
																																																																					       " " COPP_TRAP("neighbor_miss",
																																																																							     "neighbor_miss",
																																																																							     "queue1_group3",
																																																																							     ALWAYS) ",\n"
																																																																								     " " COPP_TRAP("sflow", "sample_packet", "queue2_group1", "") ",\n"
																																																																																  " " COPP_TRAP("udld", "udld", "queue4_group3", ALWAYS) "}");

static void copp_is(const struct xfab_config *cfg, int g, __u32 cir, __u32 cbs, int configured)
{
	assert_int_equal(cfg->copp[g].cir, cir);
	assert_int_equal(cfg->copp[g].cbs, cbs);
	assert_int_equal(cfg->copp[g].configured, configured);
}

/* SONiC's default CoPP: BGP from queue4_group1, ARP and ND from
 * queue4_group2, ip2me from queue1_group1; BFD (no trap of its own) is
 * ip2me's, TTL errors and the rest the default group's. The traps xfab
 * does not classify are listed, each COPP_TRAP once. */
static void copp_default_file(void **state)
{
	static const char *const unclassified[] = {
	    "COPP_TRAP|lacp: trap lacp not classified by xfab",
	    "COPP_TRAP|lldp: trap lldp not classified by xfab",
	    "COPP_TRAP|dhcp_relay: traps dhcp,dhcpv6 not classified by xfab",
	    "COPP_TRAP|udld: trap udld not classified by xfab",
	    "COPP_TRAP|macsec: trap eapol not classified by xfab",
	    "COPP_TRAP|nat: traps src_nat_miss,dest_nat_miss not classified by xfab",
	    "COPP_TRAP|sflow: trap sample_packet not classified by xfab",
	    "COPP_TRAP|neighbor_miss: trap neighbor_miss not classified by xfab",
	    NULL};
	struct xfab_config cfg;

	(void)state;
	cfgsonic_parse_ok(copp_cfg, XFAB_CFG_SONIC, &cfg);
	copp_is(&cfg, XFAB_COPP_BGP, 6000, 6000, 1);
	copp_is(&cfg, XFAB_COPP_BFD, 6000, 6000, 1);
	copp_is(&cfg, XFAB_COPP_ARP, 600, 600, 1);
	copp_is(&cfg, XFAB_COPP_ARP_RESP, 600, 600, 1);
	copp_is(&cfg, XFAB_COPP_ND, 600, 600, 1);
	copp_is(&cfg, XFAB_COPP_TTL_ERROR, 600, 600, 1);
	copp_is(&cfg, XFAB_COPP_IP2ME, 6000, 6000, 1);
	copp_is(&cfg, XFAB_COPP_DEFAULT, 600, 600, 1);
	for (int i = 0; unclassified[i]; i++)
		assert_true(ignored_has(&cfg, unclassified[i]));
	assert_true(ignored_has(&cfg, "COPP_GROUP.queue"));
	assert_true(ignored_has(&cfg, "COPP_GROUP.trap_priority"));
	assert_false(ignored_has(&cfg, "COPP_GROUP"));
	assert_false(ignored_has(&cfg, "COPP_TRAP"));
	xfab_config_free(&cfg);
}

/* Figures of one's own: BFD named with BGP's group; no ip2me trap, so
 * ip2me falls to the default group; red_action forward (SONiC's default)
 * lets everything through: cir 0; cbs absent is cir. */
static void copp_custom(void **state)
{
	struct xfab_config cfg;

	(void)state;
	cfgsonic_parse_ok(
	    T("\"COPP_GROUP\": {\n"
	      " \"default\": {\"meter_type\": \"packets\", \"mode\": \"sr_tcm\", \"cir\": "
	      "\"500\",\n  \"cbs\": \"700\", \"red_action\": \"drop\"},\n"
	      " \"g1\": {\"trap_action\": \"trap\", \"meter_type\": \"packets\", \"mode\": "
	      "\"sr_tcm\",\n  \"cir\": \"7000\", \"red_action\": \"drop\"},\n"
	      " \"g2\": {\"trap_action\": \"copy\", \"meter_type\": \"packets\", \"mode\": "
	      "\"sr_tcm\",\n  \"cir\": \"300\", \"cbs\": \"300\"}},\n"
	      "\"COPP_TRAP\": {\n"
	      " \"bgp\": {\"trap_ids\": \"bgp, bgpv6\", \"trap_group\": \"g1\"},\n"
	      " \"bfd\": {\"trap_ids\": \"bfd,bfdv6\", \"trap_group\": \"g1\"},\n"
	      " \"arp\": {\"trap_ids\": \"arp_req,arp_resp\", \"trap_group\": \"g2\"}}"),
	    XFAB_CFG_SONIC, &cfg);
	copp_is(&cfg, XFAB_COPP_BGP, 7000, 7000, 1);
	copp_is(&cfg, XFAB_COPP_BFD, 7000, 7000, 1);
	copp_is(&cfg, XFAB_COPP_ARP, 0, 0, 1);
	copp_is(&cfg, XFAB_COPP_ARP_RESP, 0, 0, 1);
	copp_is(&cfg, XFAB_COPP_ND, 500, 700, 1);
	copp_is(&cfg, XFAB_COPP_TTL_ERROR, 500, 700, 1);
	copp_is(&cfg, XFAB_COPP_IP2ME, 500, 700, 1);
	copp_is(&cfg, XFAB_COPP_DEFAULT, 500, 700, 1);
	xfab_config_free(&cfg);
}

/* ARP replies in a group of their own, as SONiC's trap ids allow: the
 * replies to the switch's own requests keep their meter under a request
 * flood (COPP.md "The flood test"). */
static void copp_arp_resp_apart(void **state)
{
	struct xfab_config cfg;

	(void)state;
	cfgsonic_parse_ok(
	    T("\"COPP_GROUP\": {\n"
	      " \"g2\": {\"trap_action\": \"trap\", \"meter_type\": \"packets\", \"mode\": "
	      "\"sr_tcm\",\n  \"cir\": \"600\", \"red_action\": \"drop\"},\n"
	      " \"g3\": {\"trap_action\": \"trap\", \"meter_type\": \"packets\", \"mode\": "
	      "\"sr_tcm\",\n  \"cir\": \"2000\", \"cbs\": \"4000\", \"red_action\": \"drop\"}},\n"
	      "\"COPP_TRAP\": {\n"
	      " \"arp\": {\"trap_ids\": \"arp_req,neigh_discovery\", \"trap_group\": \"g2\"},\n"
	      " \"arp_reply\": {\"trap_ids\": \"arp_resp\", \"trap_group\": \"g3\"}}"),
	    XFAB_CFG_SONIC, &cfg);
	copp_is(&cfg, XFAB_COPP_ARP, 600, 600, 1);
	copp_is(&cfg, XFAB_COPP_ARP_RESP, 2000, 4000, 1);
	copp_is(&cfg, XFAB_COPP_ND, 600, 600, 1);
	xfab_config_free(&cfg);
}

#define G1                                                                                         \
	"\"COPP_GROUP\": {\"g1\": {\"trap_action\": \"trap\", \"meter_type\": \"packets\", "       \
	"\"mode\": \"sr_tcm\", \"cir\": \"600\"}}"

static const struct bad_case copp_bad[] = {
    {"a trap id SONiC does not have",
     T(G1 ",\n\"COPP_TRAP\": {\"bgp\": {\"trap_ids\": \"bgp,bgpp\", \"trap_group\": \"g1\"}}"),
     "\"bgp,bgpp\"", "COPP_TRAP|bgp.trap_ids", "'bgpp' is not one of SONiC's trap ids"},
    {"a trap group that is no COPP_GROUP",
     T(G1 ",\n\"COPP_TRAP\": {\"bgp\": {\"trap_ids\": \"bgp\", \"trap_group\": \"g9\"}}"), "\"g9\"",
     "COPP_TRAP|bgp.trap_group", "no COPP_GROUP|g9 (sonic-copp.yang leafref)"},
    {"a cir that is no number (SONiC's uint64)",
     T("\"COPP_GROUP\": {\"g1\": {\"trap_action\": \"trap\", \"meter_type\": \"packets\", "
       "\"mode\": \"sr_tcm\", \"cir\": \"fast\"}}"),
     "\"fast\"", "COPP_GROUP|g1.cir", "fast"},
    {"a cir over xfab's bucket",
     T("\"COPP_GROUP\": {\"g1\": {\"trap_action\": \"trap\", \"meter_type\": \"packets\", "
       "\"mode\": \"sr_tcm\", \"cir\": \"20000000\"}}"),
     "\"20000000\"", "COPP_GROUP|g1.cir", ""},
    {"cbs below cir (sonic-copp.yang's must)",
     T("\"COPP_GROUP\": {\"g1\": {\"trap_action\": \"trap\", \"meter_type\": \"packets\", "
       "\"mode\": \"sr_tcm\", \"cir\": \"600\", \"cbs\": \"500\"}}"),
     "\"500\"", "COPP_GROUP|g1.cbs",
     "violates sonic-copp.yang's must rule: (current() >= current()/../cir)"},
    {"a meter in bytes",
     T("\"COPP_GROUP\": {\"g1\": {\"trap_action\": \"trap\", \"meter_type\": \"bytes\", "
       "\"mode\": \"sr_tcm\", \"cir\": \"600\"}}"),
     "\"bytes\"", "COPP_GROUP|g1.meter_type", "count packets"},
    {"a group without its mode",
     T("\"COPP_GROUP\": {\"g1\": {\"trap_action\": \"trap\", \"meter_type\": \"packets\", "
       "\"cir\": \"600\"}}"),
     "{\"trap_action", "COPP_GROUP|g1", "missing field \"mode\""},
    {"a two-rate meter",
     T("\"COPP_GROUP\": {\"g1\": {\"trap_action\": \"trap\", \"meter_type\": \"packets\", "
       "\"mode\": \"tr_tcm\", \"cir\": \"600\"}}"),
     "\"tr_tcm\"", "COPP_GROUP|g1.mode", "single-rate"},
    {"a trap action that does not reach the CPU",
     T("\"COPP_GROUP\": {\"g1\": {\"trap_action\": \"drop\", \"meter_type\": \"packets\", "
       "\"mode\": \"sr_tcm\", \"cir\": \"600\"}}"),
     "\"drop\"", "COPP_GROUP|g1.trap_action", "trap or copy"},
    {"bgp and bgpv6 (one xfab group) bound to two groups",
     T("\"COPP_GROUP\": {\"g1\": {\"trap_action\": \"trap\", \"meter_type\": \"packets\", "
       "\"mode\": \"sr_tcm\"},\n \"g2\": {\"trap_action\": \"trap\", \"meter_type\": "
       "\"packets\", \"mode\": \"sr_tcm\"}},\n"
       "\"COPP_TRAP\": {\"a\": {\"trap_ids\": \"bgp\", \"trap_group\": \"g1\"},\n"
       " \"b\": {\"trap_ids\": \"bgpv6\", \"trap_group\": \"g2\"}}"),
     "\"bgpv6\"", "COPP_TRAP|b.trap_ids", "already bound by COPP_TRAP|a"},
    {"xfab's COPP_TABLE beside SONiC's", T(G1 ",\n\"COPP_TABLE\": {\"bgp\": {\"cir\": \"600\"}}"),
     "\"COPP_TABLE\"", "COPP_TABLE", "one or the other"},
};

static void check_all(const struct bad_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cfgbad_check_as(&cases[i], cfgsonic_source(XFAB_CFG_SONIC));
}

static void copp_refused(void **state)
{
	(void)state;
	check_all(copp_bad, sizeof(copp_bad) / sizeof(copp_bad[0]));
}

/* STATIC_ROUTE's two key shapes, SONiC's per-nexthop lists, a blackhole;
 * bfd (not xfab's) listed as ignored. */
static void static_route(void **state)
{
	struct xfab_config cfg;
	const struct xfab_cfg_route *r;

	(void)state;
	cfgsonic_parse_ok(
	    T("\"STATIC_ROUTE\": {\n"
	      " \"default|20.20.20.0/24\": {\"nexthop\": \"10.0.0.1,10.0.0.3\",\n"
	      "  \"ifname\": \"Ethernet0,Ethernet4\", \"distance\": \"1,1\", \"nexthop-vrf\": "
	      "\"default,default\"},\n"
	      " \"30.0.0.0/8\": {\"nexthop\": \"10.0.0.3\", \"bfd\": \"false\"},\n"
	      " \"default|40.0.0.0/8\": {\"blackhole\": \"true\"}}"),
	    XFAB_CFG_SONIC, &cfg);
	assert_int_equal(cfg.n_routes, 3);
	r = &cfg.routes[0];
	assert_int_equal(r->pfx.plen, 24);
	assert_memory_equal(r->pfx.addr, ((__u8[]){20, 20, 20, 0}), 4);
	assert_int_equal(r->n_nexthops, 2);
	assert_int_equal(r->nexthops[0].port, 0);
	assert_memory_equal(r->nexthops[0].gw, ((__u8[]){10, 0, 0, 1}), 4);
	assert_int_equal(r->nexthops[1].port, 1);
	assert_memory_equal(r->nexthops[1].gw, ((__u8[]){10, 0, 0, 3}), 4);
	r = &cfg.routes[1];
	assert_int_equal(r->pfx.plen, 8);
	assert_int_equal(r->nexthops[0].port, 1);
	assert_int_equal(cfg.routes[2].blackhole, 1);
	assert_true(ignored_has(&cfg, "STATIC_ROUTE.bfd"));
	assert_false(ignored_has(&cfg, "STATIC_ROUTE"));
	xfab_config_free(&cfg);
}

static const struct bad_case route_bad[] = {
    {"a route through a port not in PORT",
     T("\"STATIC_ROUTE\": {\"default|20.0.0.0/8\": {\"nexthop\": \"10.0.0.1\", \"ifname\": "
       "\"Ethernet8\"}}"),
     "\"Ethernet8\"", "STATIC_ROUTE|default|20.0.0.0/8.ifname", "not in the PORT table"},
    {"a VRF of its own",
     T("\"STATIC_ROUTE\": {\"Vrf_blue|20.0.0.0/8\": {\"nexthop\": \"10.0.0.1\"}}"), "\"Vrf_blue|",
     "STATIC_ROUTE|Vrf_blue|20.0.0.0/8", "xfab has one VRF"},
    {"a nexthop in another VRF",
     T("\"STATIC_ROUTE\": {\"default|20.0.0.0/8\": {\"nexthop\": \"10.0.0.1\", "
       "\"nexthop-vrf\": \"Vrf1\"}}"),
     "\"Vrf1\"", "STATIC_ROUTE|default|20.0.0.0/8.nexthop-vrf", "xfab has one VRF"},
    {"the same prefix with and without its VRF",
     T("\"STATIC_ROUTE\": {\"20.0.0.0/8\": {\"nexthop\": \"10.0.0.1\"},\n"
       " \"default|20.0.0.0/8\": {\"nexthop\": \"10.0.0.3\"}}"),
     "\"default|20", "STATIC_ROUTE|default|20.0.0.0/8", "already routed"},
    {"a field SONiC's STATIC_ROUTE does not have",
     T("\"STATIC_ROUTE\": {\"20.0.0.0/8\": {\"nexthop\": \"10.0.0.1\", \"weight\": \"1\"}}"),
     "\"weight\"", "STATIC_ROUTE|20.0.0.0/8.weight", "unknown field"},
    {"xfab's ROUTE beside it",
     T("\"ROUTE\": {\"30.0.0.0/8\": {\"nexthop\": \"10.0.0.1\"}},\n"
       "\"STATIC_ROUTE\": {\"20.0.0.0/8\": {\"nexthop\": \"10.0.0.1\"}}"),
     "\"ROUTE\"", "ROUTE", "one table or the other"},
};

static void route_refused(void **state)
{
	(void)state;
	check_all(route_bad, sizeof(route_bad) / sizeof(route_bad[0]));
}

/* Loopback0's IPv4 address is the router id and, VXLAN_TUNNEL naming no
 * src_ip, the VTEP's; DEVICE_METADATA bgp_router_id comes first. */
static void loopback(void **state)
{
	static const char *lo =
	    "\"LOOPBACK_INTERFACE\": {\"Loopback0\": {\"admin_status\": \"up\"},\n"
	    " \"Loopback0|fc00:1::32/128\": {\"family\": \"IPv6\", \"scope\": \"global\"},\n"
	    " \"Loopback1\": {},\n"
	    " \"Loopback1|10.9.9.9/32\": {},\n"
	    " \"Loopback0|10.1.0.32/32\": {\"family\": \"IPv4\"}}";
	char text[4096];
	struct xfab_config cfg;

	(void)state;
	snprintf(text, sizeof(text), T("%s,\n\"VXLAN_TUNNEL\": {\"vtep\": {}}"), lo);
	cfgsonic_parse_ok(text, XFAB_CFG_SONIC, &cfg);
	assert_int_equal(cfg.has_router_id, 1);
	assert_memory_equal(cfg.router_id, ((__u8[]){10, 1, 0, 32}), 4);
	assert_int_equal(cfg.vtep, 1);
	assert_memory_equal(cfg.vtep_src, ((__u8[]){10, 1, 0, 32}), 4);
	assert_true(ignored_has(&cfg, "LOOPBACK_INTERFACE.admin_status"));
	assert_false(ignored_has(&cfg, "LOOPBACK_INTERFACE"));
	xfab_config_free(&cfg);
	snprintf(text, sizeof(text),
		 "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"a\", \"bgp_router_id\": "
		 "\"8.8.8.8\"}},\n \"PORT\": {\"Ethernet0\": {}},\n %s}",
		 lo);
	cfgsonic_parse_ok(text, XFAB_CFG_SONIC, &cfg);
	assert_memory_equal(cfg.router_id, ((__u8[]){8, 8, 8, 8}), 4);
	assert_false(ignored_has(&cfg, "DEVICE_METADATA.bgp_router_id"));
	xfab_config_free(&cfg);
}

static const struct bad_case loopback_bad[] = {
    {"a loopback address of the other family",
     T("\"LOOPBACK_INTERFACE\": {\"Loopback0\": {},\n"
       "\"Loopback0|10.1.0.1/32\": {\"family\": \"IPv6\"}}"),
     "\"IPv6\"", "LOOPBACK_INTERFACE|Loopback0|10.1.0.1/32.family",
     "violates sonic-loopback-interface.yang's must rule: (contains(../ip-prefix, ':') and "
     "current()='IPv6') or (contains(../ip-prefix, '.') and current()='IPv4')"},
    {"a multicast loopback address",
     T("\"LOOPBACK_INTERFACE\": {\"Loopback0\": {}, \"Loopback0|224.0.0.1/32\": {}}"),
     "\"Loopback0|224", "LOOPBACK_INTERFACE|Loopback0|224.0.0.1/32", "multicast"},
    {"a loopback in a VRF of its own",
     T("\"VRF\": {\"Vrf1\": {}},\n"
       "\"LOOPBACK_INTERFACE\": {\"Loopback0\": {\"vrf_name\": \"Vrf1\"}}"),
     "\"Vrf1\"}}", "LOOPBACK_INTERFACE|Loopback0.vrf_name", "xfab has one VRF"},
    {"an interface address of the other family",
     "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"
     " \"PORT\": {\"Ethernet0\": {\"lanes\": \"0\"}},\n"
     " \"INTERFACE\": {\"Ethernet0\": {},\n"
     "  \"Ethernet0|fc00::1/64\": {\"family\": \"IPv4\"}}\n}\n",
     "\"IPv4\"", "INTERFACE|Ethernet0|fc00::1/64.family",
     "violates sonic-interface.yang's must rule: (contains(../ip-prefix, ':') and "
     "current()='IPv6') or (contains(../ip-prefix, '.') and current()='IPv4')"},
};

static void loopback_refused(void **state)
{
	(void)state;
	check_all(loopback_bad, sizeof(loopback_bad) / sizeof(loopback_bad[0]));
}

#define NHG "\"FG_NHG\": {\"nhg1\": {\"bucket_size\": \"16\", \"match_mode\": \"nexthop-based\"}}"

static const struct bad_case fgnhg_bad[] = {
    {"a prefix naming a missing FG_NHG",
     T(NHG ",\n\"FG_NHG_PREFIX\": {\"10.1.0.0/16\": {\"FG_NHG\": \"nhg9\"}}"), "\"nhg9\"",
     "FG_NHG_PREFIX|10.1.0.0/16.FG_NHG", "no FG_NHG|nhg9 (sonic-fine-grained-ecmp.yang leafref)"},
    {"a member naming a missing FG_NHG",
     T(NHG ",\n\"FG_NHG_MEMBER\": {\"10.0.0.1\": {\"FG_NHG\": \"nhg9\", \"bank\": \"0\"}}"),
     "\"nhg9\"", "FG_NHG_MEMBER|10.0.0.1.FG_NHG",
     "no FG_NHG|nhg9 (sonic-fine-grained-ecmp.yang leafref)"},
    {"a group's members in two banks",
     T(NHG ",\n\"FG_NHG_MEMBER\": {\"10.0.0.1\": {\"FG_NHG\": \"nhg1\", \"bank\": \"0\"},\n"
	   " \"10.0.0.3\": {\"FG_NHG\": \"nhg1\", \"bank\": \"1\"}}"),
     "\"1\"", "FG_NHG_MEMBER|10.0.0.3.bank", "xfab's groups have no banks"},
    {"more buckets than xfab's 256",
     T("\"FG_NHG\": {\"nhg1\": {\"bucket_size\": \"512\", \"match_mode\": \"route-based\"}}"),
     "\"512\"", "FG_NHG|nhg1.bucket_size", ""},
    {"more members than a group holds",
     T("\"FG_NHG\": {\"nhg1\": {\"bucket_size\": \"64\", \"match_mode\": \"prefix-based\", "
       "\"max_next_hops\": \"100\"}}"),
     "\"100\"", "FG_NHG|nhg1.max_next_hops", ""},
    {"a member's link in neither PORT nor PORTCHANNEL",
     T(NHG ",\n\"FG_NHG_MEMBER\": {\"10.0.0.1\": {\"FG_NHG\": \"nhg1\", \"bank\": \"0\", "
	   "\"link\": \"Ethernet8\"}}"),
     "\"Ethernet8\"", "FG_NHG_MEMBER|10.0.0.1.link",
     "no PORT|Ethernet8, no PORTCHANNEL|Ethernet8 (sonic-fine-grained-ecmp.yang leafref)"},
    {"groups that do not keep their buckets",
     T("\"ECMP\": {\"global\": {\"resilient\": \"false\"}},\n" NHG), "\"FG_NHG\"", "FG_NHG",
     "resilient must be true"},
};

static void fgnhg_refused(void **state)
{
	(void)state;
	check_all(fgnhg_bad, sizeof(fgnhg_bad) / sizeof(fgnhg_bad[0]));
}

/* An xfab file is read as before: SONiC's tables are no xfab tables. Left
 * to its tables, a file with a STATIC_ROUTE is SONiC's, and the route read. */
static void xfab_file_unchanged(void **state)
{
	static const struct bad_case forced = {
	    "STATIC_ROUTE in a file asked to be xfab's",
	    "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"a\"}},\n"
	    " \"PORT\": {\"eth0\": {}},\n \"STATIC_ROUTE\": {}}",
	    "\"STATIC_ROUTE\"", "STATIC_ROUTE", "unknown table"};
	struct xfab_cfg_source src = *cfgsonic_source(XFAB_CFG_SONIC);
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;

	(void)state;
	src.format = XFAB_CFG_XFAB;
	cfgbad_check_as(&forced, &src);
	src.format = XFAB_CFG_AUTO;
	assert_int_equal(xfab_config_parse_as("a.json",
					      T("\"STATIC_ROUTE\": {\"20.0.0.0/8\": "
						"{\"nexthop\": \"10.0.0.1\"}}"),
					      &src, &cfg, &errs),
			 0);
	assert_int_equal(cfg.sonic, 1);
	assert_int_equal(cfg.n_routes, 1);
	xfab_config_free(&cfg);
}

/* Our own T0 (tests/data/sonic/README.md), its tables of these kinds:
 * accepted, and read as its text says. */
static void t0_file(void **state)
{
	static char text[1 << 17];
	struct xfab_config cfg;
	char cmd[4600];

	(void)state;
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
		 "print(json.dumps({t: d[t] for t in sys.argv[2:]}, indent=1))' "
		 "%s/tests/data/sonic/t0-config_db.json DEVICE_METADATA PORT "
		 "INTERFACE LOOPBACK_INTERFACE STATIC_ROUTE COPP_GROUP COPP_TRAP PORTCHANNEL",
		 test_srcdir());
	assert_int_equal(test_run_cmd(cmd, text, sizeof(text)), 0);
	assert_true(strlen(text) + 1 < sizeof(text));
	cfgsonic_parse_ok(text, XFAB_CFG_SONIC, &cfg);
	assert_string_equal(cfg.hostname, "t0-lab-01");
	assert_int_equal(cfg.n_ports, 32);
	/* "10.100.0.0/16": 10.0.1.1 on Ethernet100 */
	assert_int_equal(cfg.n_routes, 1);
	assert_memory_equal(cfg.routes[0].pfx.addr, ((__u8[]){10, 100, 0, 0}), 4);
	assert_string_equal(cfg.ports[cfg.routes[0].nexthops[0].port].name, "Ethernet100");
	/* bgp_router_id 10.1.0.132 before Loopback0's 10.1.0.32 */
	assert_memory_equal(cfg.router_id, ((__u8[]){10, 1, 0, 132}), 4);
	assert_memory_equal(cfg.loopback4, ((__u8[]){10, 1, 0, 32}), 4);
	/* queue4_group1 (6000): bgp; queue4_group2 (600): arp and
	 * neigh_discovery; no ip2me trap, so BFD and ip2me take the default
	 * group's (600; sonic_copp.c's header) */
	copp_is(&cfg, XFAB_COPP_BGP, 6000, 6000, 1);
	copp_is(&cfg, XFAB_COPP_BFD, 600, 600, 1);
	copp_is(&cfg, XFAB_COPP_ARP, 600, 600, 1);
	copp_is(&cfg, XFAB_COPP_ARP_RESP, 600, 600, 1);
	copp_is(&cfg, XFAB_COPP_ND, 600, 600, 1);
	copp_is(&cfg, XFAB_COPP_IP2ME, 600, 600, 1);
	xfab_config_free(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(copp_default_file),
	    cmocka_unit_test(copp_custom),
	    cmocka_unit_test(copp_arp_resp_apart),
	    cmocka_unit_test(copp_refused),
	    cmocka_unit_test(static_route),
	    cmocka_unit_test(route_refused),
	    cmocka_unit_test(loopback),
	    cmocka_unit_test(loopback_refused),
	    cmocka_unit_test(fgnhg_refused),
	    cmocka_unit_test(xfab_file_unchanged),
	    cmocka_unit_test(t0_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
