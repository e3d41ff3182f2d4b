// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Lossless classes in the config: PORT_QOS_MAP, CABLE_LENGTH, BUFFER_PROFILE,
 * BUFFER_PG, PFC_WD. Good configs parse to the values written (derived
 * thresholds checked against figures worked out by hand below, not with
 * the code's formula) and compile into pfc_cfg; every bad one is refused
 * with its file:line:col and key, the output untouched.
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
	"{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\", \"datapath\": "        \
	"\"tc\"}},\n"
#define PORTS                                                                                      \
	" \"PORT\": {\"eth1\": {\"rate\": \"1000\", \"mtu\": \"1500\", \"buffer\": \"300000\"},\n" \
	"   \"eth2\": {\"rate\": \"100\", \"speed\": \"10000\", \"mtu\": \"1500\"},\n"             \
	"   \"eth3\": {\"mtu\": \"1500\"}},\n"
#define QOS                                                                                        \
	" \"PORT_QOS_MAP\": {\"eth1\": {\"pfc_enable\": \"3,4\"}, \"eth2\": {\"pfc_enable\": "     \
	"\"3\"}}"

static const char *good_text =
    HDR PORTS QOS ",\n"
		  " \"CABLE_LENGTH\": {\"AZURE\": {\"eth2\": \"100m\"}},\n"
		  " \"BUFFER_PROFILE\": {\"LOSSLESS\": {\"xoff\": \"40000\", \"xon\": \"20000\", "
		  "\"headroom\": \"60000\"}},\n"
		  " \"BUFFER_PG\": {\"eth1|4\": {\"profile\": \"LOSSLESS\"}},\n"
		  " \"PFC_WD\": {\"eth1\": {\"action\": \"forward\", \"detection_time\": \"400\", "
		  "\"restoration_time\": \"800\"},\n"
		  "   \"eth2\": {}, \"GLOBAL\": {\"POLL_INTERVAL\": \"100\"}}\n"
		  "}\n";

static void test_good(void **state)
{
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;
	const struct xfab_cfg_pfc *e1, *e2, *e3;

	(void)state;
	if (xfab_config_parse("good.json", good_text, &cfg, &errs)) {
		char line[1024];

		xfab_cfg_error_format(&errs.e[0], line, sizeof(line));
		fail_msg("refused: %s", line);
	}
	e1 = &cfg.ports[0].pfc;
	e2 = &cfg.ports[1].pfc;
	e3 = &cfg.ports[2].pfc;
	assert_int_equal(e1->enabled, 0x18);
	assert_int_equal(e2->enabled, 0x08);
	assert_int_equal(e3->enabled, 0);
	/* speed: PORT speed, else the rate */
	assert_int_equal(e1->speed_mbps, 1000);
	assert_int_equal(e2->speed_mbps, 10000);
	/* eth1 PG 4 from its profile */
	assert_int_equal(e1->xoff[4], 40000);
	assert_int_equal(e1->xon[4], 20000);
	assert_int_equal(e1->headroom[4], 60000);
	/* eth1 PG 3 derived: frames of 1514 bytes; XOFF 8 of them, XON 6;
	 * headroom 2 frames + 2 ms at 1 Gbit/s (250,000 B) + 2 x 5 m of cable
	 * at 5 ns/m (50 ns: 6.25 B, rounded up to 7) = 3,028 + 250,007 */
	assert_int_equal(e1->xoff[3], 12112);
	assert_int_equal(e1->xon[3], 9084);
	assert_int_equal(e1->headroom[3], 253035);
	/* eth2 PG 3 at 10 Gbit/s over 100 m: 2 ms = 2,500,000 B, 1 us of
	 * cable round trip = 1,250 B, + 3,028 */
	assert_int_equal(e2->cable_m, 100);
	assert_int_equal(e2->headroom[3], 2504278);
	/* nothing for PGs without PFC */
	assert_int_equal(e1->xoff[0], 0);
	assert_int_equal(e2->xoff[4], 0);
	/* the watchdog */
	assert_int_equal(cfg.pfcwd_poll_ms, 100);
	assert_int_equal(e1->wd_action, XFAB_PFCWD_FORWARD);
	assert_int_equal(e1->wd_detection_ms, 400);
	assert_int_equal(e1->wd_restoration_ms, 800);
	assert_int_equal(e2->wd_action, XFAB_PFCWD_DROP); /* SONiC's defaults */
	assert_int_equal(e2->wd_detection_ms, 200);
	assert_int_equal(e2->wd_restoration_ms, 200);
	assert_int_equal(e3->wd_action, XFAB_PFCWD_OFF);
	/* a lossless queue holds what every other port may send it before
	 * its pause holds (XOFF + headroom), at least its own buffer (1 MiB) */
	assert_int_equal(xfab_pfc_queue_limit(&cfg, 0, 3), 12112 + 2504278);
	assert_int_equal(xfab_pfc_queue_limit(&cfg, 2, 3), 12112 + 253035 + 12112 + 2504278);
	assert_int_equal(xfab_pfc_queue_limit(&cfg, 1, 4), 1 << 20); /* 40,000 + 60,000 */
	xfab_config_free(&cfg);
}

/* Defaults and the derived sizing at two other speeds and cable lengths:
 * an empty pfc_enable is no PFC; a jumbo port at its rate over 40 m; a port
 * whose PORT speed (25G) differs from its rate; a watchdog given only its
 * detection time. */
static const char *defaults_text =
    HDR " \"PORT\": {\"eth1\": {\"rate\": \"1000\"},\n"
	"   \"eth2\": {\"rate\": \"1000\", \"mtu\": \"9000\"},\n"
	"   \"eth3\": {\"rate\": \"1000\", \"speed\": \"25000\"}},\n"
	" \"PORT_QOS_MAP\": {\"eth1\": {\"pfc_enable\": \"\"}, \"eth2\": {\"pfc_enable\": "
	"\"7, 0\"},\n   \"eth3\": {\"pfc_enable\": \"3\"}},\n"
	" \"CABLE_LENGTH\": {\"AZURE\": {\"eth2\": \"40m\"}},\n"
	" \"PFC_WD\": {\"eth2\": {\"detection_time\": \"300\"}, \"eth3\": {\"action\": "
	"\"alert\"}}\n"
	"}\n";

static void test_defaults(void **state)
{
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;
	const struct xfab_cfg_pfc *e1, *e2, *e3;

	(void)state;
	if (xfab_config_parse("defaults.json", defaults_text, &cfg, &errs)) {
		char line[1024];

		xfab_cfg_error_format(&errs.e[0], line, sizeof(line));
		fail_msg("refused: %s", line);
	}
	e1 = &cfg.ports[0].pfc;
	e2 = &cfg.ports[1].pfc;
	e3 = &cfg.ports[2].pfc;
	assert_int_equal(e1->enabled, 0);
	assert_int_equal(e1->xoff[3], 0);
	assert_int_equal(e1->wd_action, XFAB_PFCWD_OFF);
	/* eth2: priorities 0 and 7; frames of 9,014 bytes: XOFF 72,112,
	 * XON 54,084; 2 ms at 1 Gbit/s is 250,000 B, 2 x 40 m at 5 ns/m is
	 * 400 ns (50 B), 2 frames 18,028: 268,078 */
	assert_int_equal(e2->enabled, 0x81);
	assert_int_equal(e2->speed_mbps, 1000);
	assert_int_equal(e2->cable_m, 40);
	for (int pg = 0; pg < 8; pg += 7) {
		assert_int_equal(e2->xoff[pg], 72112);
		assert_int_equal(e2->xon[pg], 54084);
		assert_int_equal(e2->headroom[pg], 268078);
	}
	assert_int_equal(e2->xoff[3], 0);
	/* eth3: the pause time and the headroom at its PORT speed, 25 Gbit/s:
	 * 2 ms is 6,250,000 B, 50 ns of cable 156.25 B (157), 2 x 1,514:
	 * 6,253,185 */
	assert_int_equal(e3->cable_m, 5);
	assert_int_equal(e3->speed_mbps, 25000);
	assert_int_equal(e3->xoff[3], 12112);
	assert_int_equal(e3->xon[3], 9084);
	assert_int_equal(e3->headroom[3], 6253185);
	/* the watchdog: restoration 2 x the detection given (SONiC's pfcwd
	 * start), else SONiC's defaults; poll 200 ms */
	assert_int_equal(cfg.pfcwd_poll_ms, 200);
	assert_int_equal(e2->wd_action, XFAB_PFCWD_DROP);
	assert_int_equal(e2->wd_detection_ms, 300);
	assert_int_equal(e2->wd_restoration_ms, 600);
	assert_int_equal(e3->wd_action, XFAB_PFCWD_ALERT);
	assert_int_equal(e3->wd_detection_ms, 200);
	assert_int_equal(e3->wd_restoration_ms, 200);
	xfab_config_free(&cfg);
}

/* The xdp datapath hands lossless classes to tc: accepted there too. */
static void test_xdp_datapath(void **state)
{
	static const char *text =
	    "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"l\"}},\n" PORTS QOS "\n}\n";
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;

	(void)state;
	assert_int_equal(xfab_config_parse("xdp.json", text, &cfg, &errs), 0);
	assert_int_equal(cfg.datapath, XFAB_DP_XDP);
	assert_int_equal(cfg.ports[0].pfc.enabled, 0x18);
	xfab_config_free(&cfg);
}

static int neigh_none(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6])
{
	(void)arg, (void)ifindex, (void)family, (void)addr, (void)mac;
	return -ENOENT;
}

/* What xfabd writes: one pfc_cfg entry per port with PFC (key: its slot). */
static void test_compiled(void **state)
{
	struct xfab_port_live live[XFAB_MAX_PORTS] = {{0}};
	struct xfab_map_ops ops = {.update = sh_update, .remove = sh_remove};
	struct shadow sh = {0};
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;
	struct xfab_rib *rib;
	struct xfab_compile *c;
	const struct xfab_pfc_cfg *v;
	__u32 key;

	(void)state;
	assert_int_equal(xfab_config_parse("good.json", good_text, &cfg, &errs), 0);
	for (int p = 0; p < 3; p++) {
		live[p].ifindex = (__u32)(10 + p);
		live[p].mac[0] = 2;
		live[p].oper_up = 1;
	}
	ops.arg = &sh;
	rib = xfab_rib_new();
	c = xfab_compile_new(rib, &ops, neigh_none, NULL);
	assert_int_equal(xfab_rib_load_config(rib, &cfg), 0);
	assert_int_equal(xfab_compile_config(c, &cfg, live), 0);
	key = 0;
	v = sh_get(&sh, XFAB_T_PFC_CFG, &key);
	assert_non_null(v);
	assert_int_equal(v->enabled, 0x18);
	assert_int_equal(v->speed_mbps, 1000);
	assert_int_equal(v->xoff_bytes[3], 12112);
	assert_int_equal(v->xon_bytes[3], 9084);
	assert_int_equal(v->xoff_bytes[4], 40000);
	assert_int_equal(v->xon_bytes[4], 20000);
	assert_int_equal(v->wd_ignore, 0);
	assert_int_equal(v->wd_drop, 0);
	key = 1;
	v = sh_get(&sh, XFAB_T_PFC_CFG, &key);
	assert_non_null(v);
	assert_int_equal(v->enabled, 0x08);
	assert_int_equal(v->speed_mbps, 10000);
	key = 2; /* no PFC: no entry */
	assert_null(sh_get(&sh, XFAB_T_PFC_CFG, &key));
	/* the ports table says which ports have lossless classes (XDP looks
	 * their class up only there), and each port's queue its transmission
	 * time per byte (eth1, 1 Gbit/s: 8 ns, in 1/16 ns, << 16) */
	for (__u32 p = 0; p < 3; p++) {
		const struct xfab_port *port;

		key = live[p].ifindex;
		port = sh_get(&sh, XFAB_T_PORTS, &key);
		assert_non_null(port);
		assert_int_equal(!!(port->flags & XFAB_PORT_LOSSLESS), p < 2);
	}
	{
		const struct xfab_queue_cfg *q;

		key = XFAB_QUEUE_KEY(0, 1);
		q = sh_get(&sh, XFAB_T_QUEUE_CFG, &key);
		assert_non_null(q);
		assert_int_equal(q->rate_kbps, 1000000);
		assert_int_equal(q->tx_fp, 128u << 16); /* 8 ns a byte: 128 sixteenths */
	}
	/* a lossless queue never tail-drops (no buffer limit in queue_cfg:
	 * its gate holds); eth1's lossy classes keep their 300,000 bytes */
	{
		const struct xfab_queue_cfg *q;

		key = XFAB_QUEUE_KEY(0, 3);
		q = sh_get(&sh, XFAB_T_QUEUE_CFG, &key);
		assert_non_null(q);
		assert_int_equal(q->buffer_bytes, 0);
		key = XFAB_QUEUE_KEY(0, 4);
		assert_int_equal(
		    ((const struct xfab_queue_cfg *)sh_get(&sh, XFAB_T_QUEUE_CFG, &key))
			->buffer_bytes,
		    0);
		key = XFAB_QUEUE_KEY(0, 1);
		q = sh_get(&sh, XFAB_T_QUEUE_CFG, &key);
		assert_non_null(q);
		assert_int_equal(q->buffer_bytes, 300000);
	}
	xfab_compile_free(c);
	xfab_rib_free(rib);
	sh_free(&sh);
	xfab_config_free(&cfg);
}

/* The defaults compile too: eth1 (empty pfc_enable) gets no entry. */
static void test_compiled_defaults(void **state)
{
	struct xfab_port_live live[XFAB_MAX_PORTS] = {{0}};
	struct xfab_map_ops ops = {.update = sh_update, .remove = sh_remove};
	struct shadow sh = {0};
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;
	struct xfab_rib *rib;
	struct xfab_compile *c;
	const struct xfab_pfc_cfg *v;
	__u32 key;

	(void)state;
	assert_int_equal(xfab_config_parse("defaults.json", defaults_text, &cfg, &errs), 0);
	for (int p = 0; p < 3; p++) {
		live[p].ifindex = (__u32)(10 + p);
		live[p].mac[0] = 2;
		live[p].oper_up = 1;
	}
	ops.arg = &sh;
	rib = xfab_rib_new();
	c = xfab_compile_new(rib, &ops, neigh_none, NULL);
	assert_int_equal(xfab_rib_load_config(rib, &cfg), 0);
	assert_int_equal(xfab_compile_config(c, &cfg, live), 0);
	key = 0;
	assert_null(sh_get(&sh, XFAB_T_PFC_CFG, &key));
	key = 1;
	v = sh_get(&sh, XFAB_T_PFC_CFG, &key);
	assert_non_null(v);
	assert_int_equal(v->enabled, 0x81);
	assert_int_equal(v->speed_mbps, 1000);
	assert_int_equal(v->xoff_bytes[0], 72112);
	assert_int_equal(v->xon_bytes[0], 54084);
	assert_int_equal(v->xoff_bytes[7], 72112);
	assert_int_equal(v->xon_bytes[7], 54084);
	assert_int_equal(v->xoff_bytes[3], 0);
	assert_int_equal(v->xon_bytes[3], 0);
	key = 2;
	v = sh_get(&sh, XFAB_T_PFC_CFG, &key);
	assert_non_null(v);
	assert_int_equal(v->enabled, 0x08);
	assert_int_equal(v->speed_mbps, 25000);
	assert_int_equal(v->xoff_bytes[3], 12112);
	assert_int_equal(v->xon_bytes[3], 9084);
	xfab_compile_free(c);
	xfab_rib_free(rib);
	sh_free(&sh);
	xfab_config_free(&cfg);
}

#define T(x) HDR PORTS x "\n}\n"
static const struct bad_case bad[] = {
    {"priority twice", T(" \"PORT_QOS_MAP\": {\"eth1\": {\"pfc_enable\": \"3,3\"}}"), "\"3,3\"",
     "PORT_QOS_MAP|eth1.pfc_enable", "listed twice"},
    {"priority 8", T(" \"PORT_QOS_MAP\": {\"eth1\": {\"pfc_enable\": \"8\"}}"), "\"8\"",
     "PORT_QOS_MAP|eth1.pfc_enable", "not a priority 0..7"},
    {"priority not a number", T(" \"PORT_QOS_MAP\": {\"eth1\": {\"pfc_enable\": \"3,x\"}}"),
     "\"3,x\"", "PORT_QOS_MAP|eth1.pfc_enable", "'x' is not a priority"},
    {"unknown port", T(" \"PORT_QOS_MAP\": {\"eth9\": {\"pfc_enable\": \"3\"}}"), "\"eth9\"",
     "PORT_QOS_MAP|eth9", "not in the PORT table"},
    {"unknown field", T(" \"PORT_QOS_MAP\": {\"eth1\": {\"pfc_enabled\": \"3\"}}"),
     "\"pfc_enabled\"", "PORT_QOS_MAP|eth1.pfc_enabled", "unknown field"},
    {"no rate", T(" \"PORT_QOS_MAP\": {\"eth3\": {\"pfc_enable\": \"3\"}}"), "\"3\"",
     "PORT_QOS_MAP|eth3.pfc_enable", "set PORT|eth3 rate"},
    {"profile with a pool",
     T(QOS ",\n \"BUFFER_PROFILE\": {\"P\": {\"pool\": \"ingress_lossless_pool\", \"xoff\": "
	   "\"1\", \"xon\": \"0\", \"headroom\": \"1\"}}"),
     "\"pool\"", "BUFFER_PROFILE|P.pool", "no shared buffer pools"},
    {"xon not below xoff",
     T(QOS ",\n \"BUFFER_PROFILE\": {\"P\": {\"xoff\": \"1000\", \"xon\": \"1000\", "
	   "\"headroom\": \"1\"}}"),
     "\"1000\", \"headroom", "BUFFER_PROFILE|P.xon", "must be below xoff"},
    {"profile without headroom",
     T(QOS ",\n \"BUFFER_PROFILE\": {\"P\": {\"xoff\": \"1000\", \"xon\": \"10\"}}"), "{\"xoff",
     "BUFFER_PROFILE|P", "missing field \"headroom\""},
    {"PG without PFC",
     T(QOS ",\n \"BUFFER_PROFILE\": {\"P\": {\"xoff\": \"1000\", \"xon\": \"10\", "
	   "\"headroom\": \"1\"}},\n \"BUFFER_PG\": {\"eth1|2-3\": {\"profile\": \"P\"}}"),
     "\"eth1|2-3\"", "BUFFER_PG|eth1|2-3", "PG 2 of eth1 has no PFC"},
    {"PGs set twice",
     T(QOS ",\n \"BUFFER_PROFILE\": {\"P\": {\"xoff\": \"1000\", \"xon\": \"10\", "
	   "\"headroom\": \"1\"}},\n \"BUFFER_PG\": {\"eth1|3-4\": {\"profile\": \"P\"}, "
	   "\"eth1|4\": {\"profile\": \"P\"}}"),
     "\"eth1|4\"", "BUFFER_PG|eth1|4", "PG 4 of eth1 is already set"},
    {"PG range backwards", T(QOS ",\n \"BUFFER_PG\": {\"eth1|4-3\": {\"profile\": \"P\"}}"),
     "\"eth1|4-3\"", "BUFFER_PG|eth1|4-3", "PORT|PG-PG"},
    {"unknown profile", T(QOS ",\n \"BUFFER_PG\": {\"eth1|3\": {\"profile\": \"Q\"}}"), "\"Q\"",
     "BUFFER_PG|eth1|3.profile", "no BUFFER_PROFILE named Q"},
    {"cable without unit", T(QOS ",\n \"CABLE_LENGTH\": {\"AZURE\": {\"eth1\": \"5\"}}"), "\"5\"",
     "CABLE_LENGTH|AZURE.eth1", "meters"},
    {"profile name too long",
     T(QOS ",\n \"BUFFER_PROFILE\": {\"P0123456789012345678901234567890123456789012345678901234567"
	   "89012\": {\"xoff\": \"1000\", \"xon\": \"10\", \"headroom\": \"1\"}}"),
     "\"P0123", "BUFFER_PROFILE|P012345678901234567890123456789012345678901234567890123456789012",
     "at most 63 characters"},
    {"watchdog entry not an object", T(QOS ",\n \"PFC_WD\": {\"eth1\": \"drop\"}"), "\"drop\"",
     "PFC_WD|eth1", "object"},
    {"pfc_enable not text", T(" \"PORT_QOS_MAP\": {\"eth1\": {\"pfc_enable\": [3]}}"), "[3]",
     "PORT_QOS_MAP|eth1.pfc_enable", "expected a string"},
    {"cable set twice",
     T(QOS ",\n \"CABLE_LENGTH\": {\"AZURE\": {\"eth1\": \"5m\"},\n   \"OTHER\": {\"eth1\": "
	   "\"7m\"}}"),
     "\"eth1\": \"7m", "CABLE_LENGTH|OTHER.eth1", "already set (line 7)"},
    {"cable of an unknown port", T(QOS ",\n \"CABLE_LENGTH\": {\"AZURE\": {\"eth7\": \"5m\"}}"),
     "\"eth7\"", "CABLE_LENGTH|AZURE.eth7", "not in the PORT table"},
    {"watchdog action", T(QOS ",\n \"PFC_WD\": {\"eth1\": {\"action\": \"shutdown\"}}"),
     "\"shutdown\"", "PFC_WD|eth1.action", "drop, forward or alert"},
    {"detection too short", T(QOS ",\n \"PFC_WD\": {\"eth1\": {\"detection_time\": \"99\"}}"),
     "\"99\"", "PFC_WD|eth1.detection_time", "out of range"},
    {"restoration too long", T(QOS ",\n \"PFC_WD\": {\"eth1\": {\"restoration_time\": \"60001\"}}"),
     "\"60001\"", "PFC_WD|eth1.restoration_time", "out of range"},
    {"poll too long", T(QOS ",\n \"PFC_WD\": {\"GLOBAL\": {\"POLL_INTERVAL\": \"1001\"}}"),
     "\"1001\"", "PFC_WD|GLOBAL.POLL_INTERVAL", "out of range"},
    {"poll longer than detection",
     T(QOS ",\n \"PFC_WD\": {\"GLOBAL\": {\"POLL_INTERVAL\": \"500\"}, \"eth1\": "
	   "{\"detection_time\": \"400\"}}"),
     "\"eth1\": {\"det", "PFC_WD|eth1", "POLL_INTERVAL (500 ms, line"},
    {"poll longer than restoration",
     T(QOS ",\n \"PFC_WD\": {\"GLOBAL\": {\"POLL_INTERVAL\": \"500\"}, \"eth1\": "
	   "{\"detection_time\": \"600\", \"restoration_time\": \"400\"}}"),
     "\"eth1\": {\"det", "PFC_WD|eth1", "POLL_INTERVAL (500 ms, line"},
    {"empty priority item", T(" \"PORT_QOS_MAP\": {\"eth1\": {\"pfc_enable\": \"3,,4\"}}"),
     "\"3,,4\"", "PORT_QOS_MAP|eth1.pfc_enable", "an empty item"},
    {"nine priorities", T(" \"PORT_QOS_MAP\": {\"eth1\": {\"pfc_enable\": \"0,1,2,3,4,5,6,7,0\"}}"),
     "\"0,1,2", "PORT_QOS_MAP|eth1.pfc_enable", "more than 8"},
    {"qos map key with a PG", T(" \"PORT_QOS_MAP\": {\"eth1|3\": {\"pfc_enable\": \"3\"}}"),
     "\"eth1|3\"", "PORT_QOS_MAP|eth1|3", "expected PORT_QOS_MAP|PORT"},
    {"SONiC's size",
     T(QOS ",\n \"BUFFER_PROFILE\": {\"P\": {\"xoff\": \"1000\", \"xon\": \"10\", "
	   "\"size\": \"1518\"}}"),
     "\"size\"", "BUFFER_PROFILE|P.size", "no shared buffer pools"},
    {"SONiC's dynamic_th",
     T(QOS ",\n \"BUFFER_PROFILE\": {\"P\": {\"xoff\": \"1000\", \"xon\": \"10\", "
	   "\"headroom\": \"1\", \"dynamic_th\": \"-3\"}}"),
     "\"dynamic_th\"", "BUFFER_PROFILE|P.dynamic_th", "no shared buffer pools"},
    {"xoff of 0",
     T(QOS ",\n \"BUFFER_PROFILE\": {\"P\": {\"xoff\": \"0\", \"xon\": \"0\", "
	   "\"headroom\": \"1\"}}"),
     "\"0\", \"xon", "BUFFER_PROFILE|P.xoff", "out of range"},
    {"headroom of 0",
     T(QOS ",\n \"BUFFER_PROFILE\": {\"P\": {\"xoff\": \"10\", \"xon\": \"0\", "
	   "\"headroom\": \"0\"}}"),
     "\"0\"}}", "BUFFER_PROFILE|P.headroom", "out of range"},
    {"PG without a PG", T(QOS ",\n \"BUFFER_PG\": {\"eth1\": {\"profile\": \"P\"}}"),
     "\"eth1\": {\"profile", "BUFFER_PG|eth1", "PORT|PG-PG"},
    {"PG 8", T(QOS ",\n \"BUFFER_PG\": {\"eth1|8\": {\"profile\": \"P\"}}"), "\"eth1|8\"",
     "BUFFER_PG|eth1|8", "PORT|PG-PG"},
    {"PG of an unknown port", T(QOS ",\n \"BUFFER_PG\": {\"eth9|3\": {\"profile\": \"P\"}}"),
     "\"eth9|3\"", "BUFFER_PG|eth9|3", "not in the PORT table"},
    {"PG without profile", T(QOS ",\n \"BUFFER_PG\": {\"eth1|3\": {}}"), "{}}", "BUFFER_PG|eth1|3",
     "missing field \"profile\""},
    {"cable with a leading zero", T(QOS ",\n \"CABLE_LENGTH\": {\"AZURE\": {\"eth1\": \"05m\"}}"),
     "\"05m\"", "CABLE_LENGTH|AZURE.eth1", "meters"},
    {"cable too long", T(QOS ",\n \"CABLE_LENGTH\": {\"AZURE\": {\"eth1\": \"100001m\"}}"),
     "\"100001m\"", "CABLE_LENGTH|AZURE.eth1", "meters"},
    {"watchdog key with a queue", T(QOS ",\n \"PFC_WD\": {\"eth1|3\": {}}"), "\"eth1|3\"",
     "PFC_WD|eth1|3", "expected PFC_WD|PORT or PFC_WD|GLOBAL"},
    {"watchdog of an unknown port", T(QOS ",\n \"PFC_WD\": {\"eth9\": {}}"), "\"eth9\"",
     "PFC_WD|eth9", "not in the PORT table"},
    {"detection too long", T(QOS ",\n \"PFC_WD\": {\"eth1\": {\"detection_time\": \"5001\"}}"),
     "\"5001\"", "PFC_WD|eth1.detection_time", "out of range"},
    {"poll too short", T(QOS ",\n \"PFC_WD\": {\"GLOBAL\": {\"POLL_INTERVAL\": \"99\"}}"), "\"99\"",
     "PFC_WD|GLOBAL.POLL_INTERVAL", "out of range"},
    {"global unknown field",
     T(QOS ",\n \"PFC_WD\": {\"GLOBAL\": {\"BIG_RED_SWITCH\": \"enable\"}}"), "\"BIG_RED_SWITCH\"",
     "PFC_WD|GLOBAL.BIG_RED_SWITCH", "unknown field"},
    {"watchdog unknown field",
     T(QOS ",\n \"PFC_WD\": {\"eth1\": {\"pfc_stat_history\": \"enable\"}}"),
     "\"pfc_stat_history\"", "PFC_WD|eth1.pfc_stat_history", "unknown field"},
    {"watchdog without PFC", T(QOS ",\n \"PFC_WD\": {\"eth3\": {}}"), "\"eth3\": {}", "PFC_WD|eth3",
     "no lossless priority"},
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
	    cmocka_unit_test(test_good),
	    cmocka_unit_test(test_compiled),
	    cmocka_unit_test(test_xdp_datapath),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_compiled_defaults),
	    cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests_name("config_pfc", tests, NULL, NULL);
}
