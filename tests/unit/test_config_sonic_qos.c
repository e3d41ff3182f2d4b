// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SONiC's QoS and buffer tables read with SONiC's meaning
 * (user/lib/config/sonic_qos.c, sonic_buffer.c; docs/CONFIG.md "QoS and
 * buffers"): our own files in SONiC's shape (tests/data/sonic, README
 * there: a QoS fragment as sonic-cfggen renders one, a T0's buffer tables)
 * accepted onto xfab's WRED curve, classes and PG thresholds, and hostile
 * variants refused at their file:line:col. Expected values are worked by
 * hand from SONiC's YANG (sonic-buildimage src/sonic-yang-models, at the
 * commit config/sonic/README.md names), SAI's saibuffer.h and the
 * formulas CONFIG.md writes down, never by calling the code under test.
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

#include "config.h"
#include "cfgbad.h"
#include "srcdir.h"
#include "cfgsonic.h"
#include "sonicdata.h"

static void parse_ok(const char *text, struct xfab_config *cfg)
{
	cfgsonic_parse_ok(text, XFAB_CFG_AUTO, cfg); /* told by its tables */
	assert_int_equal(cfg->sonic, 1);
}

/* ---- qos-t0.json ---- */

/* The 40G ports the fragment names (4 to 96, 112 to 124, by 4, as on an
 * Arista 7050-QX32), the minimum PORT a switch has, at the end so that the
 * file's lines keep their numbers; rate: xfab's queues for the lossless
 * ones. */
static char *arista_text(void)
{
	char *text = sonicdata_text("qos-t0.json"), *end = strrchr(text, '}');
	size_t n;

	assert_non_null(end);
	n = (size_t)(end - text);
	n += (size_t)sprintf(text + n,
			     ",\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": "
			     "\"a7050\", \"hwsku\": \"Arista-7050-QX32\"}},\n \"PORT\": {");
	for (int p = 4; p <= 124; p += 4) {
		if (p > 96 && p < 112)
			continue;
		n +=
		    (size_t)sprintf(text + n,
				    "%s\n  \"Ethernet%d\": {\"lanes\": \"%d,%d,%d,%d\", \"speed\": "
				    "\"40000\", \"rate\": \"40000\"}",
				    p == 4 ? "" : ",", p, p, p + 1, p + 2, p + 3);
	}
	strcpy(text + n, "\n }\n}\n");
	return text;
}

/* sonic-wred-profile.yang's green fields onto xfab's curve: 1,048,576 and
 * 2,097,152 bytes, 5 %, ecn_all marks ECT, wred_green_enable drops
 * Not-ECT; QUEUE 3 and 4 of each port bound to it; DSCP_TO_TC_MAP read;
 * pfc_enable 3,4 with thresholds derived (no BUFFER_PG): 1500 MTU frames
 * of 1,514 bytes, 40 Gbit/s, 5 m: XOFF 8 x 1,514 = 12,112, XON 9,084,
 * headroom 2 x 1,514 + (2,000,000 + 2 x 5 x 5) ns x 40,000 / 8,000 =
 * 3,028 + 10,000,250 = 10,003,278. The maps are the identity where xfab
 * needs it, so only colours, the weight and SONiC's own fields are left. */
static void arista(void **state)
{
	static const char *const want[] = {"DEVICE_METADATA.hwsku",
					   "PORT.lanes",
					   "WRED_PROFILE.wred_yellow_enable",
					   "WRED_PROFILE.wred_red_enable",
					   "WRED_PROFILE.yellow_max_threshold",
					   "WRED_PROFILE.yellow_min_threshold",
					   "WRED_PROFILE.red_max_threshold",
					   "WRED_PROFILE.red_min_threshold",
					   "WRED_PROFILE.yellow_drop_probability",
					   "WRED_PROFILE.red_drop_probability",
					   "SCHEDULER.weight",
					   NULL};
	char *text = arista_text();
	struct xfab_config cfg;
	const struct xfab_cfg_wred *w;

	(void)state;
	parse_ok(text, &cfg);
	cfgsonic_ignored_are(&cfg, want);
	assert_int_equal(cfg.n_wred, 1);
	w = &cfg.wred[0];
	assert_string_equal(w->name, "AZURE_LOSSLESS");
	assert_int_equal(w->kmin_bytes, 1048576);
	assert_int_equal(w->kmax_bytes, 2097152);
	assert_int_equal(w->pmax_percent, 5);
	assert_int_equal(w->ecn, 1);
	assert_int_equal(w->drop_nonect, 1);
	assert_int_equal(cfg.n_ports, 28);
	for (int p = 0; p < cfg.n_ports; p++) {
		const struct xfab_cfg_port *pt = &cfg.ports[p];

		for (int tc = 0; tc < 8; tc++)
			assert_int_equal(pt->wred[tc], tc == 3 || tc == 4 ? 0 : -1);
		assert_int_equal(pt->pfc.enabled, 0x18);
		assert_int_equal(pt->pfc.xoff[3], 12112);
		assert_int_equal(pt->pfc.xon[4], 9084);
		assert_int_equal(pt->pfc.headroom[3], 10003278);
	}
	assert_int_equal(cfg.dscp_to_tc[0], 1);
	assert_int_equal(cfg.dscp_to_tc[5], 2);
	assert_int_equal(cfg.dscp_to_tc[8], 0);
	assert_int_equal(cfg.dscp_to_tc[46], 5);
	assert_int_equal(cfg.dscp_to_tc[48], 6);
	xfab_config_free(&cfg);
	free(text);
}

/* The same file on the tc datapath: its schedulers' weights are the
 * classes' shares (sonic-scheduler.yang; docs/CONFIG.md "The maps and the
 * scheduler"): on every port queues 0-2, 5 and 6 name scheduler.0 (14), 3
 * and 4 scheduler.1 (15), queue 7 none (SONiC's default weight 1); the
 * weight is no longer listed as ignored. */
static void arista_tc(void **state)
{
	static const unsigned int want_w[8] = {14, 14, 14, 15, 15, 14, 14, 1};
	char *text = arista_text();
	char *tc = sonicdata_edit(text, NULL, "\"hostname\": \"a7050\"",
				  "\"hostname\": \"a7050\", \"datapath\": \"tc\"");
	struct xfab_config cfg;

	(void)state;
	parse_ok(tc, &cfg);
	assert_int_equal(cfg.datapath, XFAB_DP_TC);
	for (int i = 0; i < cfg.n_ignored; i++)
		assert_string_not_equal(cfg.ignored[i], "SCHEDULER.weight");
	assert_int_equal(cfg.n_ports, 28);
	for (int p = 0; p < cfg.n_ports; p++)
		for (int q = 0; q < 8; q++)
			assert_int_equal(xfab_config_class_weight(&cfg.ports[p], q), want_w[q]);
	xfab_config_free(&cfg);
	free(tc);
	free(text);
}

struct variant {
	const char *name, *after, *from, *to;
	const char *needle; /* in the edited text: where the error points */
	const char *key, *msg;
};

/* Each variant of base() refused whole, its first error at its needle,
 * the needle's first occurrence at or after the variant's anchor. */
static void check_variants(char *(*base)(void), const struct variant *v, size_t n)
{
	char *text = base();

	for (size_t i = 0; i < n; i++) {
		char *bad = sonicdata_edit(text, v[i].after, v[i].from, v[i].to);
		const char *at = v[i].after ? strstr(bad, v[i].after) : bad;
		struct bad_case c = {v[i].name, bad, NULL, v[i].key, v[i].msg};

		assert_non_null(at);
		/* cfgbad locates a needle's first occurrence: the text from
		 * the wanted one on occurs nowhere earlier */
		c.needle = strstr(at, v[i].needle);
		assert_non_null(c.needle);
		cfgbad_check_as(&c, cfgsonic_source(XFAB_CFG_AUTO));
		free(bad);
	}
	free(text);
}

static const struct variant arista_bad[] = {
    {"a drop probability above 100 %", NULL, "\"green_drop_probability\": \"5\"",
     "\"green_drop_probability\": \"105\"", "\"105\"",
     "WRED_PROFILE|AZURE_LOSSLESS.green_drop_probability", "out of range 0..100"},
    {"an ecn mode SONiC does not have", NULL, "\"ecn_all\"", "\"ecn_blue\"", "\"ecn_blue\"",
     "WRED_PROFILE|AZURE_LOSSLESS.ecn", "ecn must be one of SONiC's"},
    {"WRED drops of ECN-capable packets", NULL, "\"ecn_all\"", "\"ecn_none\"",
     "\"AZURE_LOSSLESS\": {", "WRED_PROFILE|AZURE_LOSSLESS",
     "wred_green_enable without ECN for green"},
    {"a profile for yellow and red only", NULL,
     "\"wred_green_enable\": \"true\",\n            \"wred_yellow_enable\": "
     "\"true\",\n            \"wred_red_enable\": \"true\",\n            \"ecn\": \"ecn_all\"",
     "\"wred_green_enable\": \"false\", \"wred_yellow_enable\": \"true\", \"ecn\": "
     "\"ecn_yellow_red\"",
     "\"AZURE_LOSSLESS\": {", "WRED_PROFILE|AZURE_LOSSLESS", "acts on yellow or red packets only"},
    {"green's max under its min", NULL, "\"green_max_threshold\": \"2097152\"",
     "\"green_max_threshold\": \"1000000\"", "\"1000000\"",
     "WRED_PROFILE|AZURE_LOSSLESS.green_max_threshold", "must be above green_min_threshold"},
    {"a non-identity class to queue map", "\"TC_TO_QUEUE_MAP\"", "\"5\": \"5\"", "\"5\": \"6\"",
     "\"6\",", "TC_TO_QUEUE_MAP|AZURE.5", "class 5 to queue 6"},
    {"a non-identity PFC priority to queue map", "\"MAP_PFC_PRIORITY_TO_QUEUE\"", "\"3\": \"3\"",
     "\"3\": \"4\"", "\"4\",", "MAP_PFC_PRIORITY_TO_QUEUE|AZURE.3", "PFC priority 3 to queue 4"},
    {"a lossless class in another PG", "\"TC_TO_PRIORITY_GROUP_MAP\"", "\"3\": \"3\"",
     "\"3\": \"0\"", "\"0\",\n            \"4\"", "TC_TO_PRIORITY_GROUP_MAP|AZURE.3",
     "class 3 is lossless on Ethernet4"},
    {"a lossy class in a lossless PG", "\"TC_TO_PRIORITY_GROUP_MAP\"", "\"1\": \"0\"",
     "\"1\": \"4\"", "\"4\",\n            \"2\"", "TC_TO_PRIORITY_GROUP_MAP|AZURE.1",
     "class 1 goes to PG 4, lossless on Ethernet4"},
    {"a map naming a missing entry", "\"Ethernet4\": {", "\"tc_to_queue_map\": \"AZURE\"",
     "\"tc_to_queue_map\": \"AZURE2\"", "\"AZURE2\"", "PORT_QOS_MAP|Ethernet4.tc_to_queue_map",
     "no TC_TO_QUEUE_MAP|AZURE2 (sonic-port-qos-map.yang leafref)"},
    {"a DSCP map naming a missing entry", "\"global\"", "\"AZURE\"", "\"AZ\"", "\"AZ\"",
     "PORT_QOS_MAP|global.dscp_to_tc_map",
     "no DSCP_TO_TC_MAP|AZ (sonic-port-qos-map.yang leafref)"},
    {"a watchdog list that is not pfc_enable's", "\"Ethernet8\": {", "\"pfcwd_sw_enable\": \"3,4\"",
     "\"pfcwd_sw_enable\": \"3\"", "\"3\"\n", "PORT_QOS_MAP|Ethernet8.pfcwd_sw_enable",
     "must be pfc_enable's"},
    {"a strict priority scheduler", NULL, "\"DWRR\"", "\"STRICT\"", "\"STRICT\"",
     "SCHEDULER|scheduler.0.type", "xfab has no strict priority"},
    {"a shaped scheduler", NULL, "\"weight\": \"14\"",
     "\"weight\": \"14\", \"pir\": \"9\", \"cir\": \"1\"", "\"pir\"", "SCHEDULER|scheduler.0.pir",
     "neither shaped nor prioritised"},
    {"a queue naming a missing scheduler", "\"QUEUE\"", "\"scheduler.1\"", "\"scheduler.7\"",
     "\"scheduler.7\"", "QUEUE|Ethernet4|3.scheduler",
     "no SCHEDULER|scheduler.7 (sonic-queue.yang leafref)"},
};

static void arista_refused(void **state)
{
	(void)state;
	check_variants(arista_text, arista_bad, sizeof(arista_bad) / sizeof(arista_bad[0]));
}

/* ---- buffers-t0.json ---- */

/* Our fragment of a 64-port switch's buffer tables in SONiC's dynamic
 * model (pool sizes and profiles as a Mellanox SN4600C T0 renders them;
 * sonic-buildimage's buffers_defaults_t0.j2 for that SKU): its pools and
 * profiles, and what it says of Ethernet0 (5 m, lossless PGs 3-4) and
 * Ethernet248 (40 m, 2-4 and 6). Each piece is checked to be the file's
 * (spacing aside), so the file and the text built here agree. */
static const char *const mlx_pieces[] = {
    /* CABLE_LENGTH|AZURE */
    "\"Ethernet0\": \"5m\"",
    "\"Ethernet248\": \"40m\"",
    /* BUFFER_POOL */
    "\"ingress_lossless_pool\": {\"type\": \"ingress\", \"mode\": \"dynamic\"}",
    "\"egress_lossless_pool\": {\"size\": \"60817392\", \"type\": \"egress\", \"mode\": "
    "\"dynamic\"}",
    "\"egress_lossy_pool\": {\"type\": \"egress\", \"mode\": \"dynamic\"}",
    /* BUFFER_PROFILE */
    "\"ingress_lossless_profile\": {\"pool\": \"ingress_lossless_pool\", \"size\": \"0\", "
    "\"dynamic_th\": \"7\"}",
    "\"ingress_lossy_profile\": {\"pool\": \"ingress_lossless_pool\", \"size\": \"0\", "
    "\"dynamic_th\": \"3\"}",
    "\"egress_lossless_profile\": {\"pool\": \"egress_lossless_pool\", \"size\": \"0\", "
    "\"dynamic_th\": \"7\"}",
    "\"egress_lossy_profile\": {\"pool\": \"egress_lossy_pool\", \"size\": \"9216\", "
    "\"dynamic_th\": \"7\"}",
    "\"q_lossy_profile\": {\"pool\": \"egress_lossy_pool\", \"size\": \"0\", \"dynamic_th\": "
    "\"3\"}",
    /* BUFFER_PORT_INGRESS_PROFILE_LIST, BUFFER_PORT_EGRESS_PROFILE_LIST */
    "\"Ethernet0\": {\"profile_list\": \"ingress_lossless_profile\"}",
    "\"Ethernet248\": {\"profile_list\": \"ingress_lossless_profile\"}",
    "\"Ethernet0\": {\"profile_list\": \"egress_lossless_profile,egress_lossy_profile\"}",
    "\"Ethernet248\": {\"profile_list\": \"egress_lossless_profile,egress_lossy_profile\"}",
    /* BUFFER_PG */
    "\"Ethernet0|3-4\": {\"profile\": \"NULL\"}",
    "\"Ethernet0|0\": {\"profile\": \"ingress_lossy_profile\"}",
    "\"Ethernet248|2-4\": {\"profile\": \"NULL\"}",
    "\"Ethernet248|6\": {\"profile\": \"NULL\"}",
    "\"Ethernet248|0\": {\"profile\": \"ingress_lossy_profile\"}",
    /* BUFFER_QUEUE */
    "\"Ethernet0|3-4\": {\"profile\": \"egress_lossless_profile\"}",
    "\"Ethernet0|0-2\": {\"profile\": \"q_lossy_profile\"}",
    "\"Ethernet0|5-7\": {\"profile\": \"q_lossy_profile\"}",
    "\"Ethernet248|0-1\": {\"profile\": \"q_lossy_profile\"}",
    "\"Ethernet248|2-4\": {\"profile\": \"egress_lossless_profile\"}",
    "\"Ethernet248|5\": {\"profile\": \"q_lossy_profile\"}",
    "\"Ethernet248|6\": {\"profile\": \"egress_lossless_profile\"}",
    "\"Ethernet248|7\": {\"profile\": \"q_lossy_profile\"}",
    /* DEFAULT_LOSSLESS_BUFFER_PARAMETER, LOSSLESS_TRAFFIC_PATTERN */
    "\"AZURE\": {\"default_dynamic_th\": \"0\"}",
    "\"AZURE\": {\"mtu\": \"1024\", \"small_packet_percentage\": \"50\"}",
};
#define MLX(i) mlx_pieces[i]

/* s without blanks, into out. */
static void squeeze(const char *s, char *out)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\n' && *s != '\t')
			*out++ = *s;
	*out = '\0';
}

/* The excerpt with the minimum a switch adds: DEVICE_METADATA, PORT (the
 * SN4600C's 100G ports at SONiC's default MTU, 9100) and the lossless
 * priorities its qos.json gives (PORT_QOS_MAP pfc_enable). */
static char *mlx_text(void)
{
	char *text = malloc(1 << 14);
	int n;

	assert_non_null(text);
	n = snprintf(
	    text, 1 << 14,
	    "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"sn4600c\"}},\n"
	    " \"PORT\": {\"Ethernet0\": {\"lanes\": \"0,1,2,3\", \"speed\": \"100000\", \"mtu\": "
	    "\"9100\", \"rate\": \"100000\"},\n  \"Ethernet248\": {\"lanes\": \"248,249,250,251\", "
	    "\"speed\": \"100000\", \"mtu\": \"9100\", \"rate\": \"100000\"}},\n"
	    " \"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3,4\"},\n"
	    "  \"Ethernet248\": {\"pfc_enable\": \"2,3,4,6\"}},\n"
	    " \"CABLE_LENGTH\": {\"AZURE\": {%s, %s}},\n"
	    " \"BUFFER_POOL\": {\n  %s,\n  %s,\n  %s},\n"
	    " \"BUFFER_PROFILE\": {\n  %s,\n  %s,\n  %s,\n  %s,\n  %s},\n"
	    " \"BUFFER_PORT_INGRESS_PROFILE_LIST\": {%s, %s},\n"
	    " \"BUFFER_PORT_EGRESS_PROFILE_LIST\": {%s, %s},\n"
	    " \"BUFFER_PG\": {\n  %s,\n  %s,\n  %s,\n  %s,\n  %s},\n"
	    " \"BUFFER_QUEUE\": {\n  %s,\n  %s,\n  %s,\n  %s,\n  %s,\n  %s,\n  %s,\n  %s},\n"
	    " \"DEFAULT_LOSSLESS_BUFFER_PARAMETER\": {%s},\n"
	    " \"LOSSLESS_TRAFFIC_PATTERN\": {%s}\n}\n",
	    MLX(0), MLX(1), MLX(2), MLX(3), MLX(4), MLX(5), MLX(6), MLX(7), MLX(8), MLX(9), MLX(10),
	    MLX(11), MLX(12), MLX(13), MLX(14), MLX(15), MLX(16), MLX(17), MLX(18), MLX(19),
	    MLX(20), MLX(21), MLX(22), MLX(23), MLX(24), MLX(25), MLX(26), MLX(27), MLX(28));
	assert_true(n > 0 && n < (1 << 14));
	return text;
}

/* Every piece of the text is the fragment file's. */
static void mlx_excerpt(void **state)
{
	char *file = sonicdata_text("buffers-t0.json");
	char *flat = malloc(strlen(file) + 1), piece[512];

	(void)state;
	assert_non_null(flat);
	squeeze(file, flat);
	for (size_t i = 0; i < sizeof(mlx_pieces) / sizeof(mlx_pieces[0]); i++) {
		squeeze(mlx_pieces[i], piece);
		if (!strstr(flat, piece))
			fail_msg("not in the file: %s", mlx_pieces[i]);
	}
	free(flat);
	free(file);
}

/* SONiC's dynamic model: a lossless PG's profile "NULL" means buffermgrd
 * works the headroom out of the port's speed, cable and MTU; xfab derives
 * it (CONFIG.md#buffer_pg): frames of 9,100 + 14 = 9,114 bytes, XOFF 8 x
 * 9,114 = 72,912, XON 6 x 9,114 = 54,684; headroom at 100 Gbit/s 2 x
 * 9,114 + (2,000,000 + 2 x 5 x 5) ns x 100,000 / 8,000 = 18,228 +
 * 25,000,625 = 25,018,853 (5 m), and with 40 m (2,000,400 ns) 18,228 +
 * 25,005,000 = 25,023,228. Lossy PGs and the egress tables are listed. */
static void mlx(void **state)
{
	static const char *const want[] = {"BUFFER_PORT_INGRESS_PROFILE_LIST",
					   "BUFFER_PORT_EGRESS_PROFILE_LIST",
					   "BUFFER_QUEUE",
					   "DEFAULT_LOSSLESS_BUFFER_PARAMETER",
					   "LOSSLESS_TRAFFIC_PATTERN",
					   "PORT.lanes",
					   "BUFFER_PG (lossy PGs)",
					   NULL};
	static const struct {
		int port, pgs;
		__u32 headroom;
	} want_pg[] = {{0, 0x18, 25018853}, {1, 0x5c, 25023228}};
	char *text = mlx_text();
	struct xfab_config cfg;

	(void)state;
	parse_ok(text, &cfg);
	cfgsonic_ignored_are(&cfg, want);
	for (size_t i = 0; i < 2; i++) {
		const struct xfab_cfg_pfc *f = &cfg.ports[want_pg[i].port].pfc;

		assert_int_equal(f->enabled, want_pg[i].pgs);
		for (int pg = 0; pg < 8; pg++) {
			int on = !!(want_pg[i].pgs & (1 << pg));

			assert_int_equal(f->xoff[pg], on ? 72912 : 0);
			assert_int_equal(f->xon[pg], on ? 54684 : 0);
			assert_int_equal(f->headroom[pg], on ? want_pg[i].headroom : 0);
		}
	}
	xfab_config_free(&cfg);
	free(text);
}

/* A lossless profile (with xoff, sonic-swss bufferorch.cpp's test) on the
 * ingress pool sized as the file's egress_lossless_pool, 60,817,392 bytes:
 * XOFF threshold = size + the shared part, SAI's SHARED_DYNAMIC_TH alpha =
 * 2^dynamic_th of the free pool, alone alpha / (1 + alpha) of the pool:
 * dynamic_th 0 (the file's default_dynamic_th): 18,432 + 30,408,696 =
 * 30,427,128; 7: 18,432 + 60,817,392 x 128 / 129 (60,345,939) =
 * 60,364,371; -2: 18,432 + 60,817,392 / 5 (12,163,478) = 12,181,910;
 * static_th 1,000,000: 1,018,432. XON: xon, or with xon_offset 24,576
 * max(18,432, 30,427,128 - 24,576) = 30,402,552. Headroom: xoff. */
static void mlx_formula(void **state)
{
	static const struct {
		const char *th;
		__u32 xoff, xon;
	} cases[] = {
	    {"\"dynamic_th\": \"0\"", 30427128, 18432},
	    {"\"dynamic_th\": \"7\"", 60364371, 18432},
	    {"\"dynamic_th\": \"-2\"", 12181910, 18432},
	    {"\"static_th\": \"1000000\"", 1018432, 18432},
	    {"\"dynamic_th\": \"0\", \"xon_offset\": \"24576\"", 30427128, 30402552},
	};
	char *text = mlx_text(), prof[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct xfab_config cfg;
		char *sized = sonicdata_edit(text, "\"ingress_lossless_pool\": {", "\"type\"",
					     "\"size\": \"60817392\", \"type\"");
		char *bound =
		    sonicdata_edit(sized, "\"BUFFER_PG\"", "\"NULL\"", "\"pg_lossless_test\"");
		char *full;

		snprintf(prof, sizeof(prof),
			 "\"BUFFER_PROFILE\": {\n  \"pg_lossless_test\": {\"pool\": "
			 "\"ingress_lossless_pool\", \"size\": \"18432\", \"xon\": \"18432\", "
			 "\"xoff\": \"50000\", %s},",
			 cases[i].th);
		full = sonicdata_edit(bound, NULL, "\"BUFFER_PROFILE\": {", prof);
		parse_ok(full, &cfg);
		for (int pg = 3; pg <= 4; pg++) {
			assert_int_equal(cfg.ports[0].pfc.xoff[pg], cases[i].xoff);
			assert_int_equal(cfg.ports[0].pfc.xon[pg], cases[i].xon);
			assert_int_equal(cfg.ports[0].pfc.headroom[pg], 50000);
		}
		xfab_config_free(&cfg);
		free(full);
		free(bound);
		free(sized);
	}
	free(text);
}

static const struct variant mlx_bad[] = {
    {"dynamic_th out of SONiC's range", "\"ingress_lossy_profile\"", "\"dynamic_th\": \"3\"",
     "\"dynamic_th\": \"8\"", "\"8\"", "BUFFER_PROFILE|ingress_lossy_profile.dynamic_th",
     "dynamic_th must be -8..7"},
    {"dynamic_th below SONiC's range", "\"ingress_lossy_profile\"", "\"dynamic_th\": \"3\"",
     "\"dynamic_th\": \"-9\"", "\"-9\"", "BUFFER_PROFILE|ingress_lossy_profile.dynamic_th",
     "dynamic_th must be -8..7"},
    {"a profile naming a missing pool", "\"ingress_lossy_profile\"", "\"ingress_lossless_pool\"",
     "\"ingress_pool\"", "\"ingress_pool\"", "BUFFER_PROFILE|ingress_lossy_profile.pool",
     "no BUFFER_POOL|ingress_pool (sonic-buffer-profile.yang leafref)"},
    {"a PG naming a missing profile", "\"Ethernet0|0\"", "\"ingress_lossy_profile\"",
     "\"ingress_lossy\"", "\"ingress_lossy\"", "BUFFER_PG|Ethernet0|0.profile",
     "no BUFFER_PROFILE|ingress_lossy (sonic-buffer-pg.yang leafref)"},
    {"a derived PG without PFC", "\"Ethernet248\": {\"pfc_enable\"", "\"2,3,4,6\"", "\"2,3,4\"",
     "\"Ethernet248|6\"", "BUFFER_PG|Ethernet248|6", "PG 6 of Ethernet248 has no PFC"},
    {"a lossy profile on a PFC PG", "\"Ethernet0\": {\"pfc_enable\"", "\"3,4\"", "\"0,3,4\"",
     "\"Ethernet0|0\"", "BUFFER_PG|Ethernet0|0",
     "but BUFFER_PROFILE ingress_lossy_profile is lossy"},
    {"a lossless profile on a pool SONiC sizes at run time", "\"ingress_lossless_profile\"",
     "\"dynamic_th\": \"7\"", "\"dynamic_th\": \"7\", \"xoff\": \"50000\"",
     "\"ingress_lossless_profile\"", "BUFFER_PROFILE|ingress_lossless_profile",
     "BUFFER_POOL ingress_lossless_pool has no size"},
    {"headroom on an egress pool's profile", "\"egress_lossy_profile\"", "\"size\": \"9216\"",
     "\"size\": \"9216\", \"xoff\": \"1\"", "\"1\",", "BUFFER_PROFILE|egress_lossy_profile.xoff",
     "on a profile of egress pool egress_lossy_pool"},
    {"XON at the XOFF threshold", "\"egress_lossy_profile\"",
     "\"pool\": \"egress_lossy_pool\", \"size\": \"9216\", \"dynamic_th\": \"7\"",
     "\"pool\": \"ingress_lossless_pool\", \"size\": \"9216\", \"static_th\": \"0\", \"xoff\": "
     "\"1\", "
     "\"xon\": \"9216\"",
     "\"egress_lossy_profile\"", "BUFFER_PROFILE|egress_lossy_profile",
     "XON threshold 9216 must be below the XOFF threshold 9216"},
    {"a shared headroom pool", "\"egress_lossy_pool\"", "\"type\"", "\"xoff\": \"1000\", \"type\"",
     "\"1000\"", "BUFFER_POOL|egress_lossy_pool.xoff", "no shared headroom pool"},
    {"a queue naming a missing profile", "\"BUFFER_QUEUE\"", "\"q_lossy_profile\"", "\"q_lossy\"",
     "\"q_lossy\"", "BUFFER_QUEUE|Ethernet0|0-2.profile",
     "no BUFFER_PROFILE|q_lossy (sonic-buffer-queue.yang leafref)"},
    {"a queue xfab does not have", "\"BUFFER_QUEUE\"", "\"Ethernet248|7\"", "\"Ethernet248|9\"",
     "\"Ethernet248|9\"", "BUFFER_QUEUE|Ethernet248|9", "xfab's queues 0..7"},
};

static void mlx_refused(void **state)
{
	(void)state;
	check_variants(mlx_text, mlx_bad, sizeof(mlx_bad) / sizeof(mlx_bad[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(arista),
	    cmocka_unit_test(arista_tc),
	    cmocka_unit_test(arista_refused),
	    cmocka_unit_test(mlx_excerpt),
	    cmocka_unit_test(mlx),
	    cmocka_unit_test(mlx_formula),
	    cmocka_unit_test(mlx_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
