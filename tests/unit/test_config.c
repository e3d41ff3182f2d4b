// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the config validator and of compiling a config into tables
 * the way xfabd does (the RIB and user/lib/compile.c, into a shadow of the
 * maps): every bad config is rejected with the right file:line:col and key,
 * and leaves the output untouched; good configs compile into the expected
 * tables, and re-applying a changed config writes only the difference.
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

#define HDR "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"
#define PORTS " \"PORT\": {\"eth1\": {}, \"eth2\": {}, \"eth3\": {}},\n"
#define IFS                                                                                        \
	" \"INTERFACE\": {\"eth1|10.0.0.1/31\": {}, \"eth2|10.0.0.3/31\": {},\n"                   \
	"   \"eth3|10.1.1.1/24\": {}, \"eth1|fd00::1/127\": {}, \"eth2|fd00::3/127\": {}}"

struct bad_case {
	const char *name;
	const char *text;
	const char *needle; /* the error points at the first occurrence of this */
	int nth;	    /* ...or at its nth occurrence (0 = first) */
	const char *key;    /* expected key (prefix match); NULL: none */
	const char *msg;    /* substring of the message */
};

static const struct bad_case bad[] = {
    {"syntax: missing comma", HDR " \"PORT\": {\"eth1\": {}} \"ROUTE\": {}\n}\n", "\"ROUTE\"", 0,
     NULL, "expected ',' or '}'"},
    {"syntax: unterminated string", HDR " \"PORT\": {\"eth1: {}}\n}\n", "\n}\n", 0, NULL,
     "control character"},
    {"syntax: bad escape", HDR " \"PORT\": {\"et\\q1\": {}}\n}\n", "q1", 0, NULL, "bad escape"},
    {"syntax: trailing garbage", HDR PORTS " \"ROUTE\": {}\n} x\n", "x\n", 0, NULL,
     "trailing characters"},
    {"duplicate table", HDR PORTS " \"PORT\": {}\n}\n", "\"PORT\"", 1, NULL,
     "duplicate key \"PORT\""},
    {"top level is an array", "[\n 1\n]\n", "[", 0, NULL, "JSON object of tables"},
    {"unknown table", HDR PORTS " \"ROUTES\": {}\n}\n", "\"ROUTES\"", 0, "ROUTES", "unknown table"},
    {"table not an object", HDR " \"PORT\": [\"eth1\"]\n}\n", "[\"eth1\"]", 0, "PORT",
     "must be an object"},
    {"missing DEVICE_METADATA", "{\n \"PORT\": {\"eth1\": {}}\n}\n", "{", 0, "DEVICE_METADATA",
     "missing table"},
    {"DEVICE_METADATA without localhost",
     "{\n \"DEVICE_METADATA\": {\"switch\": {}},\n" PORTS " \"ROUTE\": {}\n}\n", "\"switch\"", 0,
     "DEVICE_METADATA", "only \"localhost\""},
    {"bad hostname",
     "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf 1\"}},\n" PORTS
     " \"ROUTE\": {}\n}\n",
     "\"leaf 1\"", 0, "DEVICE_METADATA|localhost.hostname", "hostname must be"},
    {"bad datapath",
     "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"l\", \"datapath\": "
     "\"dpdk\"}},\n" PORTS "\"ROUTE\": {}\n}\n",
     "\"dpdk\"", 0, "DEVICE_METADATA|localhost.datapath", "\"xdp\" or \"tc\""},
    {"hash seed not a number",
     "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"l\", \"hash_seed\": "
     "\"abc\"}},\n" PORTS "\"ROUTE\": {}\n}\n",
     "\"abc\"", 0, "DEVICE_METADATA|localhost.hash_seed", "not a whole number"},
    {"hash seed too large",
     "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"l\", \"hash_seed\": "
     "4294967296}},\n" PORTS "\"ROUTE\": {}\n}\n",
     "4294967296", 0, "DEVICE_METADATA|localhost.hash_seed", "out of range"},
    {"unknown DEVICE_METADATA field",
     "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"l\", \"bgp_asn\": "
     "\"65000\"}},\n" PORTS "\"ROUTE\": {}\n}\n",
     "\"bgp_asn\"", 0, "DEVICE_METADATA|localhost.bgp_asn", "unknown field"},
    {"unknown PORT field", HDR " \"PORT\": {\"eth1\": {\"mtuu\": \"9100\"}}\n}\n", "\"mtuu\"", 0,
     "PORT|eth1.mtuu", "unknown field"},
    {"PORT mtu out of range", HDR " \"PORT\": {\"eth1\": {\"mtu\": \"20000\"}}\n}\n", "\"20000\"",
     0, "PORT|eth1.mtu", "out of range 68..9216"},
    {"PORT mtu not a number", HDR " \"PORT\": {\"eth1\": {\"mtu\": \"9k\"}}\n}\n", "\"9k\"", 0,
     "PORT|eth1.mtu", "not a whole number"},
    {"PORT mtu of the wrong type", HDR " \"PORT\": {\"eth1\": {\"mtu\": {}}}\n}\n", "{}}}", 0,
     "PORT|eth1.mtu", "expected a string"},
    {"PORT admin_status", HDR " \"PORT\": {\"eth1\": {\"admin_status\": \"sideways\"}}\n}\n",
     "\"sideways\"", 0, "PORT|eth1.admin_status", "up or down"},
    {"PORT name too long", HDR " \"PORT\": {\"Ethernet012345678\": {}}\n}\n",
     "\"Ethernet012345678\"", 0, "PORT|Ethernet012345678", "1..15 characters"},
    {"PORT table empty", HDR " \"PORT\": {}\n}\n", "{}\n}", 0, "PORT", "at least one port"},
    {"INTERFACE on unknown port", HDR PORTS " \"INTERFACE\": {\"eth9|10.0.0.1/31\": {}}\n}\n",
     "\"eth9|", 0, "INTERFACE|eth9|10.0.0.1/31", "not in the PORT table"},
    {"INTERFACE bad address", HDR PORTS " \"INTERFACE\": {\"eth1|10.0.0.300/31\": {}}\n}\n",
     "\"eth1|10.0.0.300", 0, "INTERFACE|eth1|10.0.0.300/31", "not an IPv4 or IPv6 address"},
    {"INTERFACE prefix length", HDR PORTS " \"INTERFACE\": {\"eth1|10.0.0.1/33\": {}}\n}\n",
     "\"eth1|10.0.0.1/33", 0, "INTERFACE|eth1|10.0.0.1/33", "must be 0..32"},
    {"INTERFACE without length", HDR PORTS " \"INTERFACE\": {\"eth1|10.0.0.1\": {}}\n}\n",
     "\"eth1|10.0.0.1\"", 0, "INTERFACE|eth1|10.0.0.1", "not a prefix"},
    {"INTERFACE subnets overlap",
     HDR PORTS " \"INTERFACE\": {\"eth1|10.0.0.1/24\": {},\n   \"eth2|10.0.0.9/30\": {}}\n}\n",
     "\"eth2|", 0, "INTERFACE|eth2|10.0.0.9/30", "overlaps one on port eth1"},
    {"INTERFACE address twice",
     HDR PORTS " \"INTERFACE\": {\"eth1|10.0.0.1/24\": {},\n   \"eth1|10.0.0.1/25\": {}}\n}\n",
     "\"eth1|10.0.0.1/25", 0, "INTERFACE|eth1|10.0.0.1/25", "already on port eth1"},
    {"ROUTE bad prefix",
     HDR PORTS IFS ",\n \"ROUTE\": {\"10.1.0/24\": {\"nexthop\": \"10.0.0.0\"}}\n}\n",
     "\"10.1.0/24\"", 0, "ROUTE|10.1.0/24", "not an IPv4 or IPv6 address"},
    {"ROUTE host bits set",
     HDR PORTS IFS ",\n \"ROUTE\": {\"10.2.0.1/24\": {\"nexthop\": \"10.0.0.0\"}}\n}\n",
     "\"10.2.0.1/24\"", 0, "ROUTE|10.2.0.1/24", "host bits set"},
    {"ROUTE nexthop unreachable",
     HDR PORTS IFS ",\n \"ROUTE\": {\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0,10.9.9.9\"}}\n}\n",
     "\"10.0.0.0,10.9.9.9\"", 0, "ROUTE|10.2.0.0/24.nexthop", "in no connected subnet"},
    {"ROUTE nexthop of the other family",
     HDR PORTS IFS ",\n \"ROUTE\": {\"10.2.0.0/24\": {\"nexthop\": \"fd00::0\"}}\n}\n",
     "\"fd00::0\"", 0, "ROUTE|10.2.0.0/24.nexthop", "not of the prefix's family"},
    {"ROUTE nexthop not an address",
     HDR PORTS IFS ",\n \"ROUTE\": {\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.x\"}}\n}\n",
     "\"10.0.0.x\"", 0, "ROUTE|10.2.0.0/24.nexthop", "not an IP address"},
    {"ROUTE without nexthop", HDR PORTS IFS ",\n \"ROUTE\": {\"10.2.0.0/24\": {}}\n}\n", "{}}\n}",
     0, "ROUTE|10.2.0.0/24", "missing field \"nexthop\""},
    {"ROUTE ifname count",
     HDR PORTS IFS ",\n \"ROUTE\": {\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0,10.0.0.2\", "
		   "\"ifname\": \"eth1\"}}\n}\n",
     "\"eth1\"}", 0, "ROUTE|10.2.0.0/24.ifname", "1 ports for 2 nexthops"},
    {"ROUTE ifname unknown",
     HDR PORTS IFS ",\n \"ROUTE\": {\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0\", "
		   "\"ifname\": \"eth7\"}}\n}\n",
     "\"eth7\"", 0, "ROUTE|10.2.0.0/24.ifname", "\"eth7\" is not in the PORT table"},
    {"ROUTE via our own address",
     HDR PORTS IFS ",\n \"ROUTE\": {\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.1\"}}\n}\n",
     "\"10.0.0.1\"", 0, "ROUTE|10.2.0.0/24.nexthop", "this switch's own address"},
    {"ROUTE nexthop twice",
     HDR PORTS IFS ",\n \"ROUTE\": {\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0,10.0.0.0\"}}\n}\n",
     "\"10.0.0.0,", 0, "ROUTE|10.2.0.0/24.nexthop", "listed twice"},
    {"ROUTE over a connected subnet",
     HDR PORTS IFS ",\n \"ROUTE\": {\"10.1.1.0/24\": {\"nexthop\": \"10.0.0.0\"}}\n}\n",
     "\"10.1.1.0/24\"", 0, "ROUTE|10.1.1.0/24", "connected subnet of port eth3"},
    {"ROUTE blackhole with nexthop",
     HDR PORTS IFS ",\n \"ROUTE\": {\"10.2.0.0/24\": {\"blackhole\": \"true\", \"nexthop\": "
		   "\"10.0.0.0\"}}\n}\n",
     "\"10.0.0.0\"", 0, "ROUTE|10.2.0.0/24", "takes no nexthop"},
    {"ROUTE blackhole not a boolean",
     HDR PORTS IFS ",\n \"ROUTE\": {\"10.2.0.0/24\": {\"blackhole\": \"maybe\"}}\n}\n", "\"maybe\"",
     0, "ROUTE|10.2.0.0/24.blackhole", "not true or false"},
    {"ROUTE twice (same prefix, other spelling)",
     HDR PORTS IFS ",\n \"ROUTE\": {\"fd10::/64\": {\"nexthop\": \"fd00::0\"},\n"
		   "   \"fd10:0:0::/64\": {\"nexthop\": \"fd00::2\"}}\n}\n",
     "\"fd10:0:0::/64\"", 0, "ROUTE|fd10:0:0::/64", "already routed"},
    {"ROUTE weight count",
     HDR PORTS IFS ",\n \"ROUTE\": {\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0,10.0.0.2\", "
		   "\"weight\": \"1\"}}\n}\n",
     "\"1\"}", 0, "ROUTE|10.2.0.0/24.weight", "1 weights for 2 nexthops"},
    {"ROUTE weight out of range",
     HDR PORTS IFS ",\n \"ROUTE\": {\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0,10.0.0.2\", "
		   "\"weight\": \"1,0\"}}\n}\n",
     "\"1,0\"", 0, "ROUTE|10.2.0.0/24.weight", "weight 0 is out of range 1..1000"},
    {"ECMP unknown hash field",
     HDR PORTS " \"ECMP\": {\"global\": {\"hash_fields\": \"SRC_IP,DST_MAC\"}}\n}\n",
     "\"SRC_IP,DST_MAC\"", 0, "ECMP|global.hash_fields", "unknown hash field 'DST_MAC'"},
    {"ECMP entry not global", HDR PORTS " \"ECMP\": {\"default\": {}}\n}\n", "\"default\"", 0,
     "ECMP", "only \"global\""},
    {"ECMP symmetric not a boolean",
     HDR PORTS " \"ECMP\": {\"global\": {\"symmetric\": \"both\"}}\n}\n", "\"both\"", 0,
     "ECMP|global.symmetric", "not true or false"},
    {"FLOWLET mode", HDR PORTS " \"FLOWLET\": {\"global\": {\"mode\": \"conga\"}}\n}\n",
     "\"conga\"", 0, "FLOWLET|global.mode", "random or least_loaded"},
    {"FLOWLET gap out of range", HDR PORTS " \"FLOWLET\": {\"global\": {\"gap_us\": \"0\"}}\n}\n",
     "\"0\"", 0, "FLOWLET|global.gap_us", "out of range"},
    {"FIB_SYNC unknown protocol",
     HDR PORTS " \"FIB_SYNC\": {\"global\": {\"protocols\": \"bgp,frr\"}}\n}\n", "\"bgp,frr\"", 0,
     "FIB_SYNC|global.protocols", "unknown protocol \"frr\""},
    {"FIB_SYNC local table", HDR PORTS " \"FIB_SYNC\": {\"global\": {\"table\": \"255\"}}\n}\n",
     "\"255\"", 0, "FIB_SYNC|global.table", "kernel's local table"},
    {"FIB_SYNC table not a number",
     HDR PORTS " \"FIB_SYNC\": {\"global\": {\"table\": \"mine\"}}\n}\n", "\"mine\"", 0,
     "FIB_SYNC|global.table", "decimal"},
    {"FIB_SYNC withdrawal hold too long",
     HDR PORTS " \"FIB_SYNC\": {\"global\": {\"withdraw_hold_ms\": \"5001\"}}\n}\n", "\"5001\"", 0,
     "FIB_SYNC|global.withdraw_hold_ms", "5000"},
    {"FIB_SYNC restart hold past FRR's startup window",
     HDR PORTS " \"FIB_SYNC\": {\"global\": {\"restart_hold_ms\": \"120001\"}}\n}\n", "\"120001\"",
     0, "FIB_SYNC|global.restart_hold_ms", "120000"},
    {"FIB_SYNC unknown field", HDR PORTS " \"FIB_SYNC\": {\"global\": {\"vrf\": \"red\"}}\n}\n",
     "\"vrf\"", 0, "FIB_SYNC|global.vrf", "unknown field"},
    {"LOCAL_REPAIR port without a /31",
     HDR PORTS IFS ",\n \"LOCAL_REPAIR\": {\"global\": {\"bounce\": \"true\", \"ports\": "
		   "\"eth1,eth3\"}}\n}\n",
     "\"eth1,eth3\"", 0, "LOCAL_REPAIR|global.ports", "eth3 has no /31 or /127 address"},
    {"LOCAL_REPAIR one port",
     HDR PORTS IFS ",\n \"LOCAL_REPAIR\": {\"global\": {\"bounce\": \"true\", \"ports\": "
		   "\"eth1\"}}\n}\n",
     "\"eth1\"}}", 0, "LOCAL_REPAIR|global.ports", "at least two ports"},
    {"LOCAL_REPAIR unknown port",
     HDR PORTS IFS ",\n \"LOCAL_REPAIR\": {\"global\": {\"bounce\": \"true\", \"ports\": "
		   "\"eth1,eth9\"}}\n}\n",
     "\"eth1,eth9\"", 0, "LOCAL_REPAIR|global.ports", "eth9 is not in the PORT table"},
    {"LOCAL_REPAIR port twice",
     HDR PORTS IFS ",\n \"LOCAL_REPAIR\": {\"global\": {\"bounce\": \"true\", \"ports\": "
		   "\"eth1,eth2,eth1\"}}\n}\n",
     "\"eth1,eth2,eth1\"", 0, "LOCAL_REPAIR|global.ports", "eth1 listed twice"},
    {"LOCAL_REPAIR bounce without ports",
     HDR PORTS IFS ",\n \"LOCAL_REPAIR\": {\"global\": {\"bounce\": \"true\"}}\n}\n", "{\"bounce\"",
     0, "LOCAL_REPAIR|global", "bounce needs \"ports\""},
    {"LOCAL_REPAIR ports without bounce",
     HDR PORTS IFS ",\n \"LOCAL_REPAIR\": {\"global\": {\"ports\": \"eth1,eth2\"}}\n}\n",
     "\"eth1,eth2\"", 0, "LOCAL_REPAIR|global.ports", "without \"bounce\""},
    {"TE_PATH without a port",
     HDR PORTS IFS ",\n \"TE_PATH\": {\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0\"}}\n}\n",
     "\"10.2.0.0/24\"", 0, "TE_PATH|10.2.0.0/24", "INGRESS_PORT|PREFIX"},
    {"TE_PATH on an unknown port",
     HDR PORTS IFS ",\n \"TE_PATH\": {\"eth9|10.2.0.0/24\": {\"nexthop\": \"10.0.0.0\"}}\n}\n",
     "\"eth9|", 0, "TE_PATH|eth9|10.2.0.0/24", "not in the PORT table"},
    {"TE_PATH nexthop unreachable",
     HDR PORTS IFS ",\n \"TE_PATH\": {\"eth3|10.2.0.0/24\": {\"nexthop\": \"10.7.7.7\"}}\n}\n",
     "\"10.7.7.7\"", 0, "TE_PATH|eth3|10.2.0.0/24.nexthop", "in no connected subnet"},
    {"TE_PATH blackhole",
     HDR PORTS IFS ",\n \"TE_PATH\": {\"eth3|10.2.0.0/24\": {\"blackhole\": \"true\"}}\n}\n",
     "\"blackhole\"", 0, "TE_PATH|eth3|10.2.0.0/24.blackhole", "unknown field"},
    {"PORT rate out of range", HDR " \"PORT\": {\"eth1\": {\"rate\": \"0\"}}\n}\n", "\"0\"", 0,
     "PORT|eth1.rate", "out of range 1..800000"},
    {"PORT buffer too small", HDR " \"PORT\": {\"eth1\": {\"buffer\": \"100\"}}\n}\n", "\"100\"", 0,
     "PORT|eth1.buffer", "out of range 1500.."},
    {"WRED max not above min",
     HDR PORTS " \"WRED_PROFILE\": {\"P\": {\"min_threshold\": \"5000\", \"max_threshold\": "
	       "\"5000\"}}\n}\n",
     "\"5000\"}", 0, "WRED_PROFILE|P.max_threshold", "must be above min_threshold"},
    {"WRED probability over 100",
     HDR PORTS " \"WRED_PROFILE\": {\"P\": {\"min_threshold\": \"1\", \"max_threshold\": "
	       "\"2\", \"max_probability\": \"150\"}}\n}\n",
     "\"150\"", 0, "WRED_PROFILE|P.max_probability", "out of range 0..100"},
    {"WRED bad ecn mode",
     HDR PORTS " \"WRED_PROFILE\": {\"P\": {\"min_threshold\": \"1\", \"max_threshold\": "
	       "\"2\", \"ecn\": \"ecn_yellow\"}}\n}\n",
     "\"ecn_yellow\"", 0, "WRED_PROFILE|P.ecn", "ecn_all or ecn_none"},
    {"WRED without thresholds", HDR PORTS " \"WRED_PROFILE\": {\"P\": {}}\n}\n", "{}}\n}", 0,
     "WRED_PROFILE|P", "missing field \"min_threshold\""},
    {"QUEUE unknown profile",
     HDR PORTS " \"QUEUE\": {\"eth1|3\": {\"wred_profile\": \"NOPE\"}}\n}\n", "\"NOPE\"", 0,
     "QUEUE|eth1|3.wred_profile", "no WRED_PROFILE named NOPE"},
    {"QUEUE class out of range",
     HDR PORTS " \"QUEUE\": {\"eth1|3-9\": {\"wred_profile\": \"X\"}}\n}\n", "\"eth1|3-9\"", 0,
     "QUEUE|eth1|3-9", "traffic classes are 0..7"},
    {"DSCP out of range", HDR PORTS " \"DSCP_TO_TC_MAP\": {\"M\": {\"64\": \"1\"}}\n}\n", "\"64\"",
     0, "DSCP_TO_TC_MAP|M.64", "DSCP must be 0..63"},
    {"DSCP map class out of range", HDR PORTS " \"DSCP_TO_TC_MAP\": {\"M\": {\"46\": \"8\"}}\n}\n",
     "\"8\"", 0, "DSCP_TO_TC_MAP|M.46", "out of range 0..7"},
    {"two DSCP maps", HDR PORTS " \"DSCP_TO_TC_MAP\": {\"A\": {}, \"B\": {}}\n}\n", "\"B\"", 0,
     "DSCP_TO_TC_MAP", "one map per switch"},
    {"NEIGH bad MAC",
     HDR PORTS IFS ",\n \"NEIGH\": {\"eth1|10.0.0.0\": {\"neigh\": \"02:00:00:00:00\"}}\n}\n",
     "\"02:00:00:00:00\"", 0, "NEIGH|eth1|10.0.0.0.neigh", "expected a MAC address"},
    {"NEIGH multicast MAC",
     HDR PORTS IFS ",\n \"NEIGH\": {\"eth1|10.0.0.0\": {\"neigh\": \"01:00:5e:00:00:01\"}}\n}\n",
     "\"01:00:5e", 0, "NEIGH|eth1|10.0.0.0.neigh", "cannot be multicast"},
    {"NEIGH unknown port",
     HDR PORTS " \"NEIGH\": {\"eth8|10.0.0.0\": {\"neigh\": \"02:00:00:00:00:01\"}}\n}\n",
     "\"eth8|", 0, "NEIGH|eth8|10.0.0.0", "not in the PORT table"},
    {"NEIGH bad address",
     HDR PORTS " \"NEIGH\": {\"eth1|10.0.0\": {\"neigh\": \"02:00:00:00:00:01\"}}\n}\n",
     "\"eth1|10.0.0\"", 0, "NEIGH|eth1|10.0.0", "not an IP address"},
};

#define N_BAD (sizeof(bad) / sizeof(bad[0]))

/* Line and column (1-based) of the nth occurrence of needle in text. */
static void locate(const char *text, const char *needle, int nth, int *line, int *col)
{
	const char *at = strstr(text, needle);

	for (int i = 0; i < nth && at; i++)
		at = strstr(at + 1, needle);
	assert_non_null(at);
	*line = 1;
	*col = 1;
	for (const char *p = text; p < at; p++) {
		if (*p == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static void test_bad_config(void **state)
{
	const struct bad_case *c = *state;
	struct xfab_config cfg, sentinel;
	struct xfab_cfg_errors errs;
	char line_text[1024];
	int line, col;

	memset(&cfg, 0xa5, sizeof(cfg));
	sentinel = cfg;
	assert_int_equal(xfab_config_parse("bad.json", c->text, &cfg, &errs), -1);
	/* rejected whole: the output was not touched */
	assert_memory_equal(&cfg, &sentinel, sizeof(cfg));
	assert_true(errs.count >= 1);
	locate(c->text, c->needle, c->nth, &line, &col);
	xfab_cfg_error_format(&errs.e[0], line_text, sizeof(line_text));
	print_message("    %s\n", line_text);
	assert_int_equal(errs.e[0].line, line);
	assert_int_equal(errs.e[0].col, col);
	assert_string_equal(errs.e[0].file, "bad.json");
	if (c->key)
		assert_string_equal(errs.e[0].key, c->key);
	else
		assert_string_equal(errs.e[0].key, "");
	assert_non_null(strstr(errs.e[0].msg, c->msg));
	/* the formatted line leads with file:line:col */
	snprintf(line_text, sizeof(line_text), "bad.json:%d:%d: ", line, col);
	{
		char full[1024];

		xfab_cfg_error_format(&errs.e[0], full, sizeof(full));
		assert_int_equal(strncmp(full, line_text, strlen(line_text)), 0);
	}
}

static const char *good_text =
    "{\n"
    " \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\", \"type\": \"LeafRouter\"}},\n"
    " \"PORT\": {\"eth1\": {\"mtu\": \"9100\", \"admin_status\": \"up\"}, \"eth2\": {\"mtu\": "
    "9100},\n"
    "   \"eth3\": {\"description\": \"to host\"}},\n"
    " \"INTERFACE\": {\"eth1\": {}, \"eth1|10.0.0.1/31\": {}, \"eth2|10.0.0.3/31\": {},\n"
    "   \"eth3|10.1.1.1/24\": {}, \"eth1|fd00::1/127\": {}, \"eth2|fd00::3/127\": {}},\n"
    " \"ROUTE\": {\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0,10.0.0.2\"},\n"
    "   \"10.3.0.0/24\": {\"nexthop\": \"10.0.0.0\", \"ifname\": \"eth1\"},\n"
    "   \"10.4.0.0/16\": {\"blackhole\": \"true\"},\n"
    "   \"fd10::/64\": {\"nexthop\": \"fd00::0,fd00::2\"}},\n"
    " \"NEIGH\": {\"eth1|10.0.0.0\": {\"neigh\": \"02:00:00:00:00:01\"}}\n"
    "}\n";

static void test_good_config(void **state)
{
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;

	(void)state;
	assert_int_equal(xfab_config_parse("good.json", good_text, &cfg, &errs), 0);
	assert_string_equal(cfg.hostname, "leaf1");
	assert_int_equal(cfg.datapath, XFAB_DP_XDP);
	assert_int_equal(cfg.hash_seed, xfab_default_hash_seed("leaf1"));
	assert_int_not_equal(xfab_default_hash_seed("leaf1"), xfab_default_hash_seed("leaf2"));
	assert_int_equal(cfg.n_ports, 3);
	assert_int_equal(cfg.ports[0].mtu, 9100);
	assert_int_equal(cfg.ports[1].mtu, 9100);
	assert_int_equal(cfg.ports[2].mtu, 1500);
	assert_int_equal(cfg.n_addrs, 5);
	assert_int_equal(cfg.n_routes, 4);
	assert_int_equal(cfg.routes[0].n_nexthops, 2);
	assert_int_equal(cfg.routes[0].nexthops[1].port, 1); /* 10.0.0.2 is on eth2 */
	assert_int_equal(cfg.routes[2].blackhole, 1);
	assert_int_equal(cfg.n_neighs, 1);
	assert_int_equal(cfg.fib_sync, 0); /* no FIB_SYNC table: static routes only */
	xfab_config_free(&cfg);
}

/* LOCAL_REPAIR: a port's peer is the other end of its /31 (or /127) */
static void test_local_repair(void **state)
{
	const char *text =
	    HDR PORTS IFS ",\n \"LOCAL_REPAIR\": {\"global\": {\"bounce\": \"true\", "
			  "\"ports\": \"eth2, eth1\", \"split_horizon\": \"true\"}}\n}\n";
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;
	char a[INET6_ADDRSTRLEN];

	(void)state;
	assert_int_equal(xfab_config_parse("lr.json", text, &cfg, &errs), 0);
	assert_int_equal(cfg.repair_bounce, 1);
	assert_int_equal(cfg.split_horizon, 1);
	assert_int_equal(cfg.repair.n_nexthops, 2);
	assert_int_equal(cfg.repair.nexthops[0].port, 1); /* eth2: 10.0.0.3/31 -> .2 */
	inet_ntop(AF_INET, cfg.repair.nexthops[0].gw, a, sizeof(a));
	assert_string_equal(a, "10.0.0.2");
	assert_int_equal(cfg.repair.nexthops[1].port, 0); /* eth1: 10.0.0.1/31 -> .0 */
	inet_ntop(AF_INET, cfg.repair.nexthops[1].gw, a, sizeof(a));
	assert_string_equal(a, "10.0.0.0");
	xfab_config_free(&cfg);
	/* only an IPv6 /127: its peer */
	text = HDR PORTS " \"INTERFACE\": {\"eth1|fd00::1/127\": {}, \"eth2|fd00::2/127\": {}},\n"
			 " \"LOCAL_REPAIR\": {\"global\": {\"bounce\": \"true\", \"ports\": "
			 "\"eth1,eth2\"}}\n}\n";
	assert_int_equal(xfab_config_parse("lr.json", text, &cfg, &errs), 0);
	inet_ntop(AF_INET6, cfg.repair.nexthops[0].gw, a, sizeof(a));
	assert_string_equal(a, "fd00::");
	inet_ntop(AF_INET6, cfg.repair.nexthops[1].gw, a, sizeof(a));
	assert_string_equal(a, "fd00::3");
	xfab_config_free(&cfg);
}

static void test_fib_sync(void **state)
{
	const char *deflt = HDR PORTS " \"FIB_SYNC\": {\"global\": {}}\n}\n";
	const char *set = HDR PORTS " \"FIB_SYNC\": {\"global\": {\"table\": \"100\", "
				    "\"protocols\": \"static,zebra,17\"}}\n}\n";
	const char *off = HDR PORTS " \"FIB_SYNC\": {\"global\": {\"enabled\": \"false\"}}\n}\n";
	struct xfab_config cfg, cfg2;
	struct xfab_cfg_errors errs;

	(void)state;
	assert_int_equal(xfab_config_parse("fs.json", deflt, &cfg, &errs), 0);
	assert_int_equal(cfg.fib_sync, 1);
	assert_int_equal(cfg.fib_table, 254);
	for (int p = 0; p < 256; p++) /* bgp (186) only */
		assert_int_equal(!!(cfg.fib_protocols[p / 8] & (1u << (p % 8))), p == 186);
	assert_int_equal(xfab_config_parse("fs.json", set, &cfg2, &errs), 0);
	assert_int_equal(cfg2.fib_table, 100);
	for (int p = 0; p < 256; p++)
		assert_int_equal(!!(cfg2.fib_protocols[p / 8] & (1u << (p % 8))),
				 p == 4 || p == 11 || p == 17);
	/* a reload may not change what is mirrored: the table, the protocols,
	 * or whether at all; the same again is fine */
	assert_int_equal(xfab_config_check_change(&cfg, &cfg2, "fs.json", &errs), -1);
	assert_string_equal(errs.e[0].key, "FIB_SYNC");
	assert_non_null(strstr(errs.e[0].msg, "restart xfabd"));
	xfab_config_free(&cfg2);
	assert_int_equal(xfab_config_check_change(&cfg, &cfg, "fs.json", &errs), 0);
	{
		const char *tbl = HDR PORTS " \"FIB_SYNC\": {\"global\": {\"table\": \"7\"}}\n}\n";
		const char *prot =
		    HDR PORTS " \"FIB_SYNC\": {\"global\": {\"protocols\": \"ospf\"}}\n}\n";
		const char *none = HDR " \"PORT\": {\"eth1\": {}, \"eth2\": {}, \"eth3\": {}}\n}\n";

		assert_int_equal(xfab_config_parse("fs.json", tbl, &cfg2, &errs), 0);
		assert_int_equal(xfab_config_check_change(&cfg, &cfg2, "fs.json", &errs), -1);
		xfab_config_free(&cfg2);
		assert_int_equal(xfab_config_parse("fs.json", prot, &cfg2, &errs), 0);
		assert_int_equal(xfab_config_check_change(&cfg, &cfg2, "fs.json", &errs), -1);
		xfab_config_free(&cfg2);
		assert_int_equal(xfab_config_parse("fs.json", none, &cfg2, &errs), 0);
		assert_int_equal(xfab_config_check_change(&cfg2, &cfg, "fs.json", &errs), -1);
		xfab_config_free(&cfg2);
	}
	assert_int_equal(xfab_config_parse("fs.json", off, &cfg2, &errs), 0);
	assert_int_equal(cfg2.fib_sync, 0);
	xfab_config_free(&cfg2);
	xfab_config_free(&cfg);
}

static void test_all_errors_reported(void **state)
{
	const char *text =
	    HDR " \"PORT\": {\"eth1\": {\"mtu\": \"1\"}, \"eth2\": {\"speed\": \"x\"}}\n}\n";
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;

	(void)state;
	assert_int_equal(xfab_config_parse("two.json", text, &cfg, &errs), -1);
	assert_int_equal(errs.count, 2);
	assert_string_equal(errs.e[0].key, "PORT|eth1.mtu");
	assert_string_equal(errs.e[1].key, "PORT|eth2.speed");
}

/* Prefixes routed more than once (spelt differently), out of order in the
 * file: reported in prefix order, each naming the occurrence before it. */
static void test_duplicate_prefixes_order(void **state)
{
	const char *text = HDR PORTS IFS ",\n \"ROUTE\": {\n"
					 "  \"fd20::/64\": {\"nexthop\": \"fd00::0\"},\n"
					 "  \"20.0.0.0/24\": {\"nexthop\": \"10.0.0.0\"},\n"
					 "  \"fd20:0::/64\": {\"nexthop\": \"fd00::0\"},\n"
					 "  \"fd10::/64\": {\"nexthop\": \"fd00::0\"},\n"
					 "  \"fd20:0:0::/64\": {\"nexthop\": \"fd00::0\"},\n"
					 "  \"fd10:0::/64\": {\"nexthop\": \"fd00::0\"}}\n}\n";
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;

	(void)state;
	assert_int_equal(xfab_config_parse("dups.json", text, &cfg, &errs), -1);
	assert_int_equal(errs.total, 3);
	assert_string_equal(errs.e[0].key, "ROUTE|fd10:0::/64");
	assert_int_equal(errs.e[0].line, 12);
	assert_non_null(strstr(errs.e[0].msg, "(line 10)"));
	assert_string_equal(errs.e[1].key, "ROUTE|fd20:0::/64");
	assert_int_equal(errs.e[1].line, 9);
	assert_non_null(strstr(errs.e[1].msg, "(line 7)"));
	assert_string_equal(errs.e[2].key, "ROUTE|fd20:0:0::/64");
	assert_int_equal(errs.e[2].line, 11);
	assert_non_null(strstr(errs.e[2].msg, "(line 9)"));
}

static void test_missing_file(void **state)
{
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;

	(void)state;
	assert_int_equal(xfab_config_load("/nonexistent/xfab.json", &cfg, &errs), -1);
	assert_non_null(strstr(errs.e[0].msg, "cannot open"));
}

/* ---- tables: the config compiled as xfabd compiles it ---- */

static int neigh_none(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6])
{
	(void)arg, (void)ifindex, (void)family, (void)addr, (void)mac;
	return -ENOENT;
}

/* A switch: three live ports (ifindex 10, 11, 12), the RIB and compile
 * state, and the maps they write (a shadow). */
struct sw {
	struct xfab_port_live live[XFAB_MAX_PORTS];
	struct xfab_rib *rib;
	struct xfab_compile *c;
	struct shadow sh;
};

static struct sw *sw_new(void)
{
	struct sw *s = calloc(1, sizeof(*s));
	struct xfab_map_ops ops = {.update = sh_update, .remove = sh_remove};

	assert_non_null(s);
	for (int p = 0; p < 3; p++) {
		s->live[p].ifindex = (__u32)(10 + p);
		s->live[p].mac[0] = 2;
		s->live[p].mac[5] = (__u8)p;
		s->live[p].oper_up = 1;
	}
	ops.arg = &s->sh;
	s->rib = xfab_rib_new();
	assert_non_null(s->rib);
	s->c = xfab_compile_new(s->rib, &ops, neigh_none, NULL);
	assert_non_null(s->c);
	return s;
}

static void sw_free(struct sw *s)
{
	xfab_compile_free(s->c);
	xfab_rib_free(s->rib);
	sh_free(&s->sh);
	free(s);
}

/* A config load, as xfabd's: the RIB takes the config, compile writes. */
static void sw_load(struct sw *s, const struct xfab_config *cfg)
{
	assert_int_equal(xfab_rib_load_config(s->rib, cfg), 0);
	assert_int_equal(xfab_compile_config(s->c, cfg, s->live), 0);
}

/* The way a reload goes (parse, then load): 0 if it wrote. */
static int sw_reload(struct sw *s, const char *text)
{
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;

	if (xfab_config_parse("cfg.json", text, &cfg, &errs))
		return -1;
	sw_load(s, &cfg);
	xfab_config_free(&cfg);
	return 0;
}

static const struct xfab_route *route_v4(const struct sw *s, const char *addr, int plen)
{
	struct xfab_lpm_v4_key key = {.prefixlen = 32u + (__u32)plen};

	assert_int_equal(inet_pton(AF_INET, addr, key.addr), 1);
	return sh_get(&s->sh, XFAB_T_ROUTES_V4, &key);
}

static const struct xfab_group *group(const struct sw *s, __u32 id)
{
	return sh_get(&s->sh, XFAB_T_GROUPS, &id);
}

static const struct xfab_nexthop *nexthop(const struct sw *s, __u32 id)
{
	return sh_get(&s->sh, XFAB_T_NEXTHOPS, &id);
}

static long total(const long *v)
{
	long n = 0;

	for (int t = 0; t < XFAB_T_COUNT; t++)
		n += v[t];
	return n;
}

static void test_tables_build(void **state)
{
	struct sw *s = sw_new();
	const struct xfab_route *r;
	const struct xfab_group *g;
	const struct xfab_nexthop *nh;
	int share[2] = {0};

	(void)state;
	assert_int_equal(sw_reload(s, good_text), 0);
	/* connected subnet and our own address */
	r = route_v4(s, "10.0.0.0", 31);
	assert_non_null(r);
	assert_int_equal(r->type, XFAB_RT_CONNECTED);
	assert_int_equal(r->id, 10);
	r = route_v4(s, "10.0.0.1", 32);
	assert_non_null(r);
	assert_int_equal(r->type, XFAB_RT_LOCAL);
	/* a two-way group with its buckets split evenly, one member per port */
	r = route_v4(s, "10.2.0.0", 24);
	assert_non_null(r);
	assert_int_equal(r->type, XFAB_RT_GROUP);
	g = group(s, r->id);
	assert_non_null(g);
	assert_int_equal(g->num_members, 2);
	assert_int_equal(g->live_members, 2);
	assert_int_not_equal(nexthop(s, g->members[0])->ifindex,
			     nexthop(s, g->members[1])->ifindex);
	for (int b = 0; b < XFAB_GROUP_BUCKETS; b++)
		share[g->buckets[b] == g->members[1]]++;
	assert_int_equal(share[0], XFAB_GROUP_BUCKETS / 2);
	/* the single-nexthop route shares the group's eth1 nexthop, resolved
	 * by the static neighbour */
	r = route_v4(s, "10.3.0.0", 24);
	assert_int_equal(r->type, XFAB_RT_NEXTHOP);
	assert_true(r->id == g->members[0] || r->id == g->members[1]);
	nh = nexthop(s, r->id);
	assert_non_null(nh);
	assert_int_equal(nh->ifindex, 10);
	assert_true(nh->flags & XFAB_NH_RESOLVED);
	assert_int_equal(nh->dmac[5], 1);
	assert_int_equal(s->sh.t[XFAB_T_NEXTHOPS].n, 4); /* 2 IPv4 + 2 IPv6 gateways */
	assert_non_null(route_v4(s, "10.4.0.0", 16));
	assert_int_equal(s->sh.t[XFAB_T_ROUTES_V6].n, 2 + 2 + 1); /* 2 subnets, 2 local, 1 route */
	assert_int_equal(s->sh.t[XFAB_T_PORTS].n, 3);
	sw_free(s);
}

/* A port going down leaves every group at once; coming back, it returns. */
static void test_link_down_leaves_groups(void **state)
{
	struct sw *s = sw_new();
	const struct xfab_group *g;
	__u32 gid;

	(void)state;
	assert_int_equal(sw_reload(s, good_text), 0);
	gid = route_v4(s, "10.2.0.0", 24)->id;
	sh_reset_counts(&s->sh);
	s->live[0].oper_up = 0; /* eth1, as xfabd's link event */
	assert_int_equal(xfab_compile_link(s->c, 0, 0), 0);
	g = group(s, gid);
	assert_int_equal(g->live_members, 1);
	for (int b = 0; b < XFAB_GROUP_BUCKETS; b++)
		assert_int_equal(nexthop(s, g->buckets[b])->ifindex, 11); /* all on eth2's */
	/* only the port's state, its two nexthops' copies of it (v4, v6: their
	 * up bits) and the two groups (v4, v6) change */
	assert_int_equal(s->sh.updates[XFAB_T_PORTS], 1);
	assert_int_equal(s->sh.updates[XFAB_T_NEXTHOPS], 2);
	assert_int_equal(s->sh.updates[XFAB_T_GROUPS], 2);
	assert_int_equal(total(s->sh.updates), 5);
	assert_int_equal(total(s->sh.removes), 0);
	assert_false(
	    ((const struct xfab_port *)sh_get(&s->sh, XFAB_T_PORTS, &s->live[0].ifindex))->flags &
	    XFAB_PORT_OPER_UP);
	/* back up: the same five entries, both members live again */
	sh_reset_counts(&s->sh);
	s->live[0].oper_up = 1;
	assert_int_equal(xfab_compile_link(s->c, 0, 1), 0);
	assert_int_equal(total(s->sh.updates), 5);
	assert_int_equal(group(s, gid)->live_members, 2);
	sw_free(s);
}

/* Re-applying: same config writes nothing; a changed one writes only the
 * difference, and nexthop/group ids stay where they were. */
static void test_reapply_diff(void **state)
{
	const char *changed =
	    "{\n"
	    " \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\", \"type\": "
	    "\"LeafRouter\"}},\n"
	    " \"PORT\": {\"eth1\": {\"mtu\": \"9100\", \"admin_status\": \"up\"}, \"eth2\": "
	    "{\"mtu\": 9100},\n"
	    "   \"eth3\": {\"description\": \"to host\"}},\n"
	    " \"INTERFACE\": {\"eth1\": {}, \"eth1|10.0.0.1/31\": {}, \"eth2|10.0.0.3/31\": {},\n"
	    "   \"eth3|10.1.1.1/24\": {}, \"eth1|fd00::1/127\": {}, \"eth2|fd00::3/127\": {}},\n"
	    " \"ROUTE\": {\"10.2.0.0/24\": {\"nexthop\": \"10.0.0.0,10.0.0.2\"},\n"
	    "   \"10.3.0.0/24\": {\"nexthop\": \"10.0.0.0\", \"ifname\": \"eth1\"},\n"
	    "   \"10.5.0.0/24\": {\"nexthop\": \"10.0.0.2,10.0.0.0\"},\n"
	    "   \"fd10::/64\": {\"nexthop\": \"fd00::0,fd00::2\"}},\n"
	    " \"NEIGH\": {\"eth1|10.0.0.0\": {\"neigh\": \"02:00:00:00:00:01\"}}\n"
	    "}\n";
	struct sw *s = sw_new();
	__u32 group_before;

	(void)state;
	assert_int_equal(sw_reload(s, good_text), 0);
	assert_true(s->sh.writes > 10);
	group_before = route_v4(s, "10.2.0.0", 24)->id;

	sh_reset_counts(&s->sh);
	assert_int_equal(sw_reload(s, good_text), 0);
	assert_int_equal(s->sh.writes, 0);

	assert_int_equal(sw_reload(s, changed), 0);
	/* +10.5.0.0/24 (same member set: reuses the group), -10.4.0.0/16 */
	assert_int_equal(s->sh.updates[XFAB_T_ROUTES_V4], 1);
	assert_int_equal(s->sh.removes[XFAB_T_ROUTES_V4], 1);
	assert_int_equal(total(s->sh.updates), 1);
	assert_int_equal(total(s->sh.removes), 1);
	assert_null(route_v4(s, "10.4.0.0", 16));
	assert_int_equal(route_v4(s, "10.5.0.0", 24)->id, group_before);
	assert_int_equal(route_v4(s, "10.2.0.0", 24)->id, group_before);
	sw_free(s);
}

/* A full table repeats its nexthop lists: 3,000 routes over two spellings of
 * one list (the array holding them is reallocated many times while routes
 * share the parse); a list that differs is parsed again. */
static void test_many_routes_shared_lists(void **state)
{
	size_t cap = 300000, n = 0;
	char *text = malloc(cap);
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;
	struct sw *s = sw_new();

	(void)state;
	assert_non_null(text);
	n += (size_t)snprintf(text + n, cap - n, "%s", HDR PORTS IFS ",\n \"ROUTE\": {\n");
	for (int i = 0; i < 3000; i++)
		n += (size_t)snprintf(text + n, cap - n,
				      "  \"20.%d.%d.0/24\": {\"nexthop\": \"%s\"}%s\n", i / 256,
				      i % 256, i < 2000 ? "10.0.0.0,10.0.0.2" : "10.0.0.2,10.0.0.0",
				      i == 2999 ? "" : ",");
	snprintf(text + n, cap - n, " }\n}\n");
	assert_int_equal(xfab_config_parse("big.json", text, &cfg, &errs), 0);
	assert_int_equal(cfg.n_routes, 3000);
	assert_int_equal(cfg.routes[2999].n_nexthops, 2);
	assert_int_equal(cfg.routes[2999].nexthops[0].port, 1); /* 10.0.0.2 first there */
	assert_int_equal(cfg.routes[0].nexthops[0].port, 0);
	sw_load(s, &cfg);
	/* one group: a group is its member set, whatever the order written */
	assert_int_equal(s->sh.t[XFAB_T_GROUPS].n, 1);
	assert_int_equal(s->sh.t[XFAB_T_ROUTES_V4].n, 3000 + 3 * 2); /* + 3 connected, 3 local */
	xfab_config_free(&cfg);
	sw_free(s);
	free(text);
}

/* Host routes in n distinct /24s of 20.0.0.0/16 and up, the FIB's IPv4
 * groups set to groups (0: not set). */
static char *host_routes_config(int n, int groups)
{
	size_t cap = (size_t)n * 64 + 4096, len = 0;
	char *text = malloc(cap);

	assert_non_null(text);
	if (groups)
		len += (size_t)snprintf(text + len, cap - len,
					"{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": "
					"\"leaf1\", \"fib_ipv4_groups\": \"%d\"}},\n",
					groups);
	else
		len += (size_t)snprintf(text + len, cap - len, "%s", HDR);
	len += (size_t)snprintf(text + len, cap - len, "%s", PORTS IFS ",\n \"ROUTE\": {\n");
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"  \"20.%d.%d.1/32\": {\"nexthop\": \"10.0.0.0\"}%s\n",
					i / 256, i % 256, i == n - 1 ? "" : ",");
	snprintf(text + len, cap - len, " }\n}\n");
	return text;
}

/* The IPv4 FIB's groups (xfab_abi.h: one per path that holds longer
 * prefixes), DEVICE_METADATA fib_ipv4_groups: 256 here. The interfaces'
 * own /32s take four (10.0.0.0/16 and 10.0.0.0/24, 10.1.0.0/16 and
 * 10.1.1.0/24); host routes in distinct /24s of 20.0.0.0/16 take one for
 * the /16, then one each: 251 fit, the 252nd (index 251) does not. Without
 * the field the FIB is sized to the config: twice what it needs, a power of
 * two, XFAB_FIB_GROUPS_DEFAULT at least. */
static void test_fib4_groups_limit(void **state)
{
	char *fits = host_routes_config(251, 256), *over = host_routes_config(252, 256);
	char *big = host_routes_config(700, 0), want_key[64];
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;
	int last = 251;

	(void)state;
	assert_int_equal(xfab_config_parse("fits.json", fits, &cfg, &errs), 0);
	assert_int_equal(cfg.fib_groups_need[0], 256);
	assert_int_equal(xfab_config_fib_groups(&cfg, 0), 256);
	xfab_config_free(&cfg);
	assert_int_equal(xfab_config_parse("over.json", over, &cfg, &errs), -1);
	assert_int_equal(errs.count, 1);
	snprintf(want_key, sizeof(want_key), "ROUTE|20.%d.%d.1/32", last / 256, last % 256);
	assert_string_equal(errs.e[0].key, want_key);
	assert_int_equal(errs.e[0].line, 7 + last); /* 6 header lines, then a route a line */
	assert_non_null(strstr(errs.e[0].msg, "no room"));
	assert_non_null(strstr(errs.e[0].msg, "fib_ipv4_groups"));
	/* 700 /24s over three /16s: 4 + 3 + 700 groups, loaded with 2,048 */
	assert_int_equal(xfab_config_parse("big.json", big, &cfg, &errs), 0);
	assert_int_equal(cfg.fib_groups_need[0], 707);
	assert_int_equal(xfab_config_fib_groups(&cfg, 0), 2048);
	assert_int_equal(xfab_config_fib_groups(&cfg, 1), XFAB_FIB_GROUPS_DEFAULT);
	/* loaded with fewer (a reload's limit): the same config no longer fits */
	cfg.fib_groups_loaded[0] = 512;
	assert_int_equal(xfab_config_check_capacity(&cfg, "big.json", &errs), -1);
	assert_non_null(strstr(errs.e[0].msg, "512"));
	xfab_config_free(&cfg);
	free(fits);
	free(over);
	free(big);
}

/* IPv6: /40s under 2001::/16 (256 under each 2001:HH00::/24) need one
 * group each at byte 4, one per HH at byte 3 and one at byte 2; the two
 * interface addresses' /128s (fd00::1, fd00::3) share 14 more. With
 * fib_ipv6_groups 1024: 14 + 1 + 4 + 1005 + 1 > 1024 at index 1005. */
static void test_fib6_groups_limit(void **state)
{
	int n = 1024, last = 1005;
	size_t cap = (size_t)n * 64 + 4096, len = 0;
	char *text = malloc(cap), want_key[64];
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;
	const char *hdr = "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": "
			  "\"leaf1\", \"fib_ipv6_groups\": \"1024\"}},\n";

	(void)state;
	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len, "%s%s", hdr, PORTS IFS ",\n \"ROUTE\": {\n");
	for (int i = 0; i < n; i++)
		len +=
		    (size_t)snprintf(text + len, cap - len,
				     "  \"2001:%02x%02x:8000::/40\": {\"nexthop\": \"fd00::\"}%s\n",
				     i / 256, i % 256, i == n - 1 ? "" : ",");
	snprintf(text + len, cap - len, " }\n}\n");
	assert_int_equal(xfab_config_parse("over6.json", text, &cfg, &errs), -1);
	assert_int_equal(errs.count, 1);
	snprintf(want_key, sizeof(want_key), "ROUTE|2001:%02x%02x:8000::/40", last / 256,
		 last % 256);
	assert_string_equal(errs.e[0].key, want_key);
	assert_int_equal(errs.e[0].line, 7 + last);
	assert_non_null(strstr(errs.e[0].msg, "no room"));
	/* one route fewer than that fits */
	len = 0;
	len += (size_t)snprintf(text + len, cap - len, "%s%s", hdr, PORTS IFS ",\n \"ROUTE\": {\n");
	for (int i = 0; i < last; i++)
		len +=
		    (size_t)snprintf(text + len, cap - len,
				     "  \"2001:%02x%02x:8000::/40\": {\"nexthop\": \"fd00::\"}%s\n",
				     i / 256, i % 256, i == last - 1 ? "" : ",");
	snprintf(text + len, cap - len, " }\n}\n");
	assert_int_equal(xfab_config_parse("fits6.json", text, &cfg, &errs), 0);
	xfab_config_free(&cfg);
	free(text);
}

/* Nothing reaches the tables from a config that fails validation: the
 * shadow sees the good config's writes, then none from any bad one, and
 * holds byte for byte what it held. */
static void test_bad_config_applies_nothing(void **state)
{
	struct sw *s = sw_new();
	struct shadow before;

	(void)state;
	assert_int_equal(sw_reload(s, good_text), 0);
	assert_true(s->sh.writes > 10); /* the shadow does see writes */
	assert_int_equal(sh_copy(&before, &s->sh), 0);
	sh_reset_counts(&s->sh);
	for (size_t i = 0; i < N_BAD; i++)
		assert_int_equal(sw_reload(s, bad[i].text), -1);
	assert_int_equal(s->sh.writes, 0);
	assert_true(sh_equal(&s->sh, &before));
	/* and the compile state did not move either: the good config again
	 * writes nothing */
	assert_int_equal(sw_reload(s, good_text), 0);
	assert_int_equal(s->sh.writes, 0);
	sh_free(&before);
	sw_free(s);
}

int main(void)
{
	struct CMUnitTest tests[N_BAD + 14];
	size_t n = 0;

	for (size_t i = 0; i < N_BAD; i++)
		tests[n++] = (struct CMUnitTest){.name = bad[i].name,
						 .test_func = test_bad_config,
						 .initial_state = (void *)&bad[i]};
	tests[n++] = (struct CMUnitTest){.name = "good config", .test_func = test_good_config};
	tests[n++] = (struct CMUnitTest){.name = "LOCAL_REPAIR: the peers of /31 and /127 ports",
					 .test_func = test_local_repair};
	tests[n++] = (struct CMUnitTest){.name = "FIB_SYNC: defaults, a set, off, no reload change",
					 .test_func = test_fib_sync};
	tests[n++] = (struct CMUnitTest){.name = "every error reported",
					 .test_func = test_all_errors_reported};
	tests[n++] = (struct CMUnitTest){.name = "prefixes routed twice: in prefix order",
					 .test_func = test_duplicate_prefixes_order};
	tests[n++] = (struct CMUnitTest){.name = "missing file", .test_func = test_missing_file};
	tests[n++] = (struct CMUnitTest){.name = "tables: build", .test_func = test_tables_build};
	tests[n++] = (struct CMUnitTest){.name = "tables: link down leaves groups",
					 .test_func = test_link_down_leaves_groups};
	tests[n++] = (struct CMUnitTest){.name = "tables: re-apply writes the difference",
					 .test_func = test_reapply_diff};
	tests[n++] = (struct CMUnitTest){.name = "3,000 routes sharing nexthop lists",
					 .test_func = test_many_routes_shared_lists};
	tests[n++] = (struct CMUnitTest){.name = "IPv4 FIB: /24s with longer prefixes, limit",
					 .test_func = test_fib4_groups_limit};
	tests[n++] = (struct CMUnitTest){.name = "IPv6 FIB: group limit",
					 .test_func = test_fib6_groups_limit};
	tests[n++] = (struct CMUnitTest){.name = "bad configs apply nothing",
					 .test_func = test_bad_config_applies_nothing};
	return _cmocka_run_group_tests("config_and_tables", tests, n, NULL, NULL);
}
