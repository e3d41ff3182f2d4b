// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * COPP_TABLE: control-plane policing in the config. Without the table
 * every group has SONiC's default meter (the figures written out below by
 * hand from SONiC's copp_cfg.json, docs/COPP.md); a configured group gets
 * what it says, cbs defaulting to cir, cir 0 taking its meter off; what
 * is compiled into copp_cfg is that, one entry per group; a reload writes
 * only the groups that changed; every bad entry is refused with its
 * file:line:col and key, the output untouched.
 */
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
	"{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"                   \
	" \"PORT\": {\"eth1\": {}, \"eth2\": {}}"
#define T(x) HDR ",\n" x "\n}\n"

/* The defaults, by hand: SONiC's queue4_group1 (bgp) 6000/6000, BFD
 * beside it; queue4_group2 (arp requests, replies, nd; each group a
 * bucket of its own in xfab) 600/600; queue1_group1 (ip2me)
 * 6000/6000; default 600/600, which SONiC's TTL errors fall into. */
static const struct {
	const char *name;
	__u32 cir, cbs;
} defaults[XFAB_COPP_GROUPS] = {
    [XFAB_COPP_BGP] = {"bgp", 6000, 6000},     [XFAB_COPP_BFD] = {"bfd", 6000, 6000},
    [XFAB_COPP_ARP] = {"arp", 600, 600},       [XFAB_COPP_ARP_RESP] = {"arp_resp", 600, 600},
    [XFAB_COPP_ND] = {"nd", 600, 600},	       [XFAB_COPP_TTL_ERROR] = {"ttl_error", 600, 600},
    [XFAB_COPP_IP2ME] = {"ip2me", 6000, 6000}, [XFAB_COPP_DEFAULT] = {"default", 600, 600},
};

static const char *good_text =
    T(" \"COPP_TABLE\": {\"arp\": {\"cir\": \"100\", \"cbs\": \"200\", \"meter_type\": "
      "\"packets\",\n"
      "     \"trap_ids\": \"arp_req\", \"mode\": \"sr_tcm\", \"red_action\": "
      "\"drop\"},\n"
      "   \"ttl_error\": {\"cir\": \"50\"},\n"
      "   \"default\": {\"cir\": \"0\", \"cbs\": \"9\"},\n"
      "   \"bgp\": {\"cir\": 10000000, \"cbs\": \"10000000\", \"trap_ids\": \"bgpv6, bgp\"}}");

static void test_defaults(void **state)
{
	struct xfab_config cfg;

	(void)state;
	cfgbad_parse_ok(HDR "\n}\n", &cfg);
	for (int g = 0; g < XFAB_COPP_GROUPS; g++) {
		assert_int_equal(cfg.copp[g].cir, defaults[g].cir);
		assert_int_equal(cfg.copp[g].cbs, defaults[g].cbs);
		assert_int_equal(cfg.copp[g].configured, 0);
	}
	xfab_config_free(&cfg);
}

static void test_good(void **state)
{
	struct xfab_config cfg;

	(void)state;
	cfgbad_parse_ok(good_text, &cfg);
	assert_int_equal(cfg.copp[XFAB_COPP_ARP].cir, 100);
	assert_int_equal(cfg.copp[XFAB_COPP_ARP].cbs, 200);
	assert_int_equal(cfg.copp[XFAB_COPP_TTL_ERROR].cir, 50);
	assert_int_equal(cfg.copp[XFAB_COPP_TTL_ERROR].cbs, 50); /* cbs: cir */
	assert_int_equal(cfg.copp[XFAB_COPP_DEFAULT].cir, 0);	 /* unpoliced */
	assert_int_equal(cfg.copp[XFAB_COPP_DEFAULT].cbs, 0);
	assert_int_equal(cfg.copp[XFAB_COPP_BGP].cir, 10000000);
	assert_int_equal(cfg.copp[XFAB_COPP_BGP].cbs, 10000000);
	/* the others keep their defaults */
	assert_int_equal(cfg.copp[XFAB_COPP_BFD].cir, 6000);
	assert_int_equal(cfg.copp[XFAB_COPP_ND].cbs, 600);
	assert_int_equal(cfg.copp[XFAB_COPP_IP2ME].cir, 6000);
	xfab_config_free(&cfg);
}

static int neigh_none(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6])
{
	(void)arg, (void)ifindex, (void)family, (void)addr, (void)mac;
	return -ENOENT;
}

/* copp_cfg holds one entry per group, the config's meter; a reload to
 * another config rewrites only what changed. */
static void test_compiled_and_reload(void **state)
{
	static const char *reload_text =
	    T(" \"COPP_TABLE\": {\"arp\": {\"cir\": \"100\", \"cbs\": \"200\"},\n"
	      "   \"ttl_error\": {\"cir\": \"51\"}, \"default\": {\"cir\": \"0\"},\n"
	      "   \"bgp\": {\"cir\": \"10000000\"}}");
	struct xfab_port_live live[XFAB_MAX_PORTS] = {{0}};
	struct xfab_map_ops ops = {.update = sh_update, .remove = sh_remove};
	struct shadow sh = {0};
	struct xfab_config cfg, next;
	struct xfab_rib *rib;
	struct xfab_compile *c;
	const struct xfab_copp_cfg *v;
	const __u32 want[XFAB_COPP_GROUPS][2] = {
	    [XFAB_COPP_BGP] = {10000000, 10000000},
	    [XFAB_COPP_BFD] = {6000, 6000},
	    [XFAB_COPP_ARP] = {100, 200},
	    [XFAB_COPP_ARP_RESP] = {600, 600},
	    [XFAB_COPP_ND] = {600, 600},
	    [XFAB_COPP_TTL_ERROR] = {50, 50},
	    [XFAB_COPP_IP2ME] = {6000, 6000},
	    [XFAB_COPP_DEFAULT] = {0, 0},
	};

	(void)state;
	cfgbad_parse_ok(good_text, &cfg);
	for (int p = 0; p < 2; p++) {
		live[p].ifindex = (__u32)(10 + p);
		live[p].mac[0] = 2;
		live[p].oper_up = 1;
	}
	ops.arg = &sh;
	rib = xfab_rib_new();
	c = xfab_compile_new(rib, &ops, neigh_none, NULL);
	assert_int_equal(xfab_rib_load_config(rib, &cfg), 0);
	assert_int_equal(xfab_compile_config(c, &cfg, live), 0);
	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++) {
		v = sh_get(&sh, XFAB_T_COPP_CFG, &g);
		assert_non_null(v);
		assert_int_equal(v->cir, want[g][0]);
		assert_int_equal(v->cbs, want[g][1]);
	}
	assert_int_equal(sh.updates[XFAB_T_COPP_CFG], XFAB_COPP_GROUPS);
	/* the reload: only ttl_error changed (50 -> 51) */
	cfgbad_parse_ok(reload_text, &next);
	assert_int_equal(xfab_rib_load_config(rib, &next), 0);
	assert_int_equal(xfab_compile_config(c, &next, live), 0);
	assert_int_equal(sh.updates[XFAB_T_COPP_CFG], XFAB_COPP_GROUPS + 1);
	assert_int_equal(sh.removes[XFAB_T_COPP_CFG], 0);
	{
		__u32 g = XFAB_COPP_TTL_ERROR;

		v = sh_get(&sh, XFAB_T_COPP_CFG, &g);
		assert_int_equal(v->cir, 51);
		assert_int_equal(v->cbs, 51);
	}
	xfab_compile_free(c);
	xfab_rib_free(rib);
	sh_free(&sh);
	xfab_config_free(&next);
	xfab_config_free(&cfg);
}

static const struct bad_case bad[] = {
    {"unknown group", T(" \"COPP_TABLE\": {\"queue4_group1\": {\"cir\": \"600\"}}"),
     "\"queue4_group1\"", "COPP_TABLE|queue4_group1", "unknown CoPP group"},
    {"unknown field", T(" \"COPP_TABLE\": {\"arp\": {\"cir\": \"600\", \"pir\": \"700\"}}"),
     "\"pir\"", "COPP_TABLE|arp.pir", "unknown field"},
    {"no cir", T(" \"COPP_TABLE\": {\"arp\": {\"cbs\": \"600\"}}"), "{\"cbs\"", "COPP_TABLE|arp",
     "missing field \"cir\""},
    {"cir too high", T(" \"COPP_TABLE\": {\"arp\": {\"cir\": \"10000001\"}}"), "\"10000001\"",
     "COPP_TABLE|arp.cir", "10000000"},
    {"cir negative", T(" \"COPP_TABLE\": {\"arp\": {\"cir\": \"-1\"}}"), "\"-1\"",
     "COPP_TABLE|arp.cir", ""},
    {"cir not a number", T(" \"COPP_TABLE\": {\"arp\": {\"cir\": \"6k\"}}"), "\"6k\"",
     "COPP_TABLE|arp.cir", ""},
    {"cbs too high", T(" \"COPP_TABLE\": {\"nd\": {\"cir\": \"1\", \"cbs\": \"10000001\"}}"),
     "\"10000001\"", "COPP_TABLE|nd.cbs", "10000000"},
    {"cbs 0 with a cir", T(" \"COPP_TABLE\": {\"bfd\": {\"cir\": \"100\", \"cbs\": \"0\"}}"),
     "\"0\"", "COPP_TABLE|bfd.cbs", "admits none"},
    {"meter in bytes",
     T(" \"COPP_TABLE\": {\"arp\": {\"cir\": \"600\", \"meter_type\": \"bytes\"}}"), "\"bytes\"",
     "COPP_TABLE|arp.meter_type", "must be packets"},
    {"two-rate mode", T(" \"COPP_TABLE\": {\"arp\": {\"cir\": \"600\", \"mode\": \"tr_tcm\"}}"),
     "\"tr_tcm\"", "COPP_TABLE|arp.mode", "must be sr_tcm"},
    {"red forwarded",
     T(" \"COPP_TABLE\": {\"arp\": {\"cir\": \"600\", \"red_action\": \"forward\"}}"),
     "\"forward\"", "COPP_TABLE|arp.red_action", "must be drop"},
    {"a trap of another group",
     T(" \"COPP_TABLE\": {\"bgp\": {\"cir\": \"600\", \"trap_ids\": \"bgp,arp_req\"}}"),
     "\"bgp,arp_req\"", "COPP_TABLE|bgp.trap_ids", "'arp_req' is not the bgp group's"},
    {"a trap missing",
     T(" \"COPP_TABLE\": {\"bgp\": {\"cir\": \"600\", \"trap_ids\": "
       "\"bgp\"}}"),
     "\"bgp\"}}", "COPP_TABLE|bgp.trap_ids", "bgp,bgpv6, all of them"},
    {"ARP replies are a group of their own",
     T(" \"COPP_TABLE\": {\"arp\": {\"cir\": \"600\", \"trap_ids\": "
       "\"arp_req,arp_resp\"}}"),
     "\"arp_req,arp_resp\"", "COPP_TABLE|arp.trap_ids",
     "'arp_resp' is not the arp group's (its trap ids: arp_req)"},
    {"a trap twice",
     T(" \"COPP_TABLE\": {\"bfd\": {\"cir\": \"6\", \"trap_ids\": "
       "\"bfd,bfd,bfdv6\"}}"),
     "\"bfd,bfd", "COPP_TABLE|bfd.trap_ids", "listed twice"},
    {"an empty trap",
     T(" \"COPP_TABLE\": {\"bfd\": {\"cir\": \"6\", \"trap_ids\": "
       "\"bfd,,bfdv6\"}}"),
     "\"bfd,,", "COPP_TABLE|bfd.trap_ids", "empty trap id"},
    {"group not an object", T(" \"COPP_TABLE\": {\"arp\": \"600\"}"), "\"600\"", "COPP_TABLE|arp",
     "expected an object"},
    {"table not an object", T(" \"COPP_TABLE\": [1]"), "[1]", "COPP_TABLE", "must be an object"},
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cfgbad_check(&bad[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_good),
	    cmocka_unit_test(test_compiled_and_reload),
	    cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests_name("config_copp", tests, NULL, NULL);
}
