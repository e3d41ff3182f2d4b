// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A SONiC CONFIG_DB file read by xfab's config (user/lib/config/sonic.c,
 * docs/CONFIG.md): told apart by its tables (one SONiC defines and xfab does
 * not) or by asking; the tables and fields xfab implements read as in an
 * xfab file; those only SONiC defines accepted, each value checked against
 * SONiC's type, and listed once by name; a table, field or key SONiC does
 * not define refused with its file:line:col. The catalogue is the tree's
 * (config/sonic/catalogue.json); the whole switch's file is tests/data/sonic's.
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
#include "scripttree.h"
#include "srcdir.h"
#include "cfgsonic.h"

#define HDR                                                                                        \
	"{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"                   \
	" \"PORT\": {\"Ethernet0\": {\"lanes\": \"0,1,2,3\", \"fec\": \"rs\", \"mtu\": "           \
	"\"9100\"},\n"                                                                             \
	"          \"Ethernet4\": {\"lanes\": \"4,5,6,7\", \"fec\": \"none\"}}"
#define T(x) HDR ",\n" x "\n}\n"

/* sonic-ntp.yang: NTP|global admin_state, stypes:admin_mode (enabled,
 * disabled); sonic-snmp.yang: SNMP|LOCATION Location, a string.
 * sonic-port.yang: lanes a string, fec rs, fc, none, auto. */
static const char *sonic_text =
    T(" \"NTP\": {\"global\": {\"admin_state\": \"enabled\", \"src_intf\": \"Ethernet0\"}},\n"
      " \"SNMP\": {\"LOCATION\": {\"Location\": \"rack 4\"}}");

/* Told by its tables: NTP and SNMP are SONiC's and not xfab's. PORT's
 * lanes and fec are SONiC's, named once though both ports carry them; mtu
 * is xfab's and read. */
static void detected(void **state)
{
	static const char *const want[] = {"NTP", "SNMP", "PORT.lanes", "PORT.fec", NULL};
	struct xfab_config cfg;

	(void)state;
	cfgsonic_parse_ok(sonic_text, XFAB_CFG_AUTO, &cfg);
	assert_int_equal(cfg.sonic, 1);
	cfgsonic_ignored_are(&cfg, want);
	assert_int_equal(cfg.n_ports, 2);
	assert_int_equal(cfg.ports[0].mtu, 9100);
	assert_string_equal(cfg.hostname, "leaf1");
	xfab_config_free(&cfg);
}

/* An xfab file names no SONiC-only table: read as today, nothing ignored;
 * asked to be SONiC's, the same tables pass with PORT's SONiC fields. */
static void asked(void **state)
{
	static const char *const want[] = {"PORT.lanes", "PORT.fec", NULL};
	struct xfab_config cfg;

	(void)state;
	cfgsonic_parse_ok("{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"a\"}},"
			  " \"PORT\": {\"eth1\": {\"mtu\": \"1500\"}}}",
			  XFAB_CFG_AUTO, &cfg);
	assert_int_equal(cfg.sonic, 0);
	assert_int_equal(cfg.n_ignored, 0);
	xfab_config_free(&cfg);
	cfgsonic_parse_ok(HDR "}", XFAB_CFG_SONIC, &cfg);
	assert_int_equal(cfg.sonic, 1);
	cfgsonic_ignored_are(&cfg, want);
	xfab_config_free(&cfg);
}

static void check_as(const struct bad_case *cases, size_t n, enum xfab_cfg_format format)
{
	for (size_t i = 0; i < n; i++)
		cfgbad_check_as(&cases[i], cfgsonic_source(format));
}

/* What SONiC does not define is refused in a SONiC file as in an xfab
 * one; what it defines is held to its type. */
static const struct bad_case sonic_bad[] = {
    {"a table neither xfab's nor SONiC's",
     T(" \"NTP\": {\"global\": {\"admin_state\": \"enabled\"}},\n \"NTPP\": {}"), "\"NTPP\"",
     "NTPP", "unknown table"},
    {"a field of an ignored table SONiC does not define",
     T(" \"NTP\": {\"global\": {\"admin_stat\": \"enabled\"}}"), "\"admin_stat\"",
     "NTP|global.admin_stat", "unknown field \"admin_stat\""},
    {"a bad value of an ignored table's field",
     T(" \"NTP\": {\"global\": {\"admin_state\": \"on\"}}"), "\"on\"", "NTP|global.admin_state",
     "is not one of enabled, disabled"},
    {"a key of no list of an ignored table",
     T(" \"NTP\": {\"global|x\": {\"admin_state\": \"enabled\"}}"), "\"global|x\"", "NTP|global|x",
     "no list of SONiC's table"},
    {"a bad key part of an ignored table",
     T(" \"STATIC_ROUTE\": {\"default|10.1.0.0/33\": {\"nexthop\": \"10.0.0.1\"}}"),
     "\"default|10.1.0.0/33\"", "STATIC_ROUTE|default|10.1.0.0/33", "\"10.1.0.0/33\""},
    {"an ignored table that is no object", T(" \"NTP\": [1]"), "[1]", "NTP",
     "a table must be an object"},
    {"an entry of an ignored table that is no object", T(" \"NTP\": {\"global\": \"x\"}"), "\"x\"",
     "NTP|global", "expected an object of fields"},
    {"a field of an xfab table SONiC does not define",
     "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"
     " \"PORT\": {\"Ethernet0\": {\"fecc\": \"rs\"}},\n \"NTP\": {}\n}\n",
     "\"fecc\"", "PORT|Ethernet0.fecc", "unknown field \"fecc\""},
    {"a bad value of an ignored field of an xfab table",
     "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"
     " \"PORT\": {\"Ethernet0\": {\"fec\": \"fast\"}},\n \"NTP\": {}\n}\n",
     "\"fast\"", "PORT|Ethernet0.fec", "\"fast\" is not one of"},
};

/* Not a SONiC file (no SONiC-only table, or asked for xfab's): PORT's
 * SONiC fields are no xfab fields, NTP no xfab table. */
static const struct bad_case xfab_bad[] = {
    {"a SONiC field in an xfab file", HDR "}", "\"lanes\"", "PORT|Ethernet0.lanes",
     "unknown field \"lanes\""},
};
static const struct bad_case forced_bad[] = {
    {"a SONiC table in a file asked to be xfab's",
     T(" \"NTP\": {\"global\": {\"admin_state\": \"enabled\"}}"), "\"NTP\"", "NTP",
     "unknown table"},
};

static void refused(void **state)
{
	(void)state;
	check_as(sonic_bad, sizeof(sonic_bad) / sizeof(sonic_bad[0]), XFAB_CFG_AUTO);
	check_as(xfab_bad, sizeof(xfab_bad) / sizeof(xfab_bad[0]), XFAB_CFG_AUTO);
	check_as(forced_bad, sizeof(forced_bad) / sizeof(forced_bad[0]), XFAB_CFG_XFAB);
}

/* Asked to be SONiC's without a catalogue: refused, the file named. */
static void no_catalogue(void **state)
{
	struct xfab_cfg_source src = {XFAB_CFG_SONIC, "/nonexistent/catalogue.json"};
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;

	(void)state;
	assert_int_equal(xfab_config_parse_as("a.json", sonic_text, &src, &cfg, &errs), -1);
	assert_non_null(strstr(errs.e[0].msg, "/nonexistent/catalogue.json"));
	/* left to the tables, the file is xfab's: NTP an unknown table */
	src.format = XFAB_CFG_AUTO;
	assert_int_equal(xfab_config_parse_as("a.json", sonic_text, &src, &cfg, &errs), -1);
	assert_string_equal(errs.e[0].key, "NTP");
	assert_string_equal(errs.e[0].msg, "unknown table");
}

/* Our own T0 in SONiC's layout (tests/data/sonic/README.md): PORT,
 * PORTCHANNEL, VLAN, BGP_NEIGHBOR, LOOPBACK_INTERFACE, the QoS and buffer
 * tables, ... Accepted as it is, told by its tables: the four uplinks with
 * PFC (PORT_QOS_MAP pfc_enable "3,4": Ethernet112 to 124) run at their
 * speed, 100,000 Mbit/s, as their rate (device.c: SONiC's PORT has no
 * rate), the other ports unshaped; everything xfab does not implement
 * named: its tables, then its fields (LOOPBACK_INTERFACE, STATIC_ROUTE,
 * the QoS, buffer and CoPP tables are not: xfab reads them). */
static void t0_file(void **state)
{
	static const char *const want[] = {"BGP_NEIGHBOR",
					   "CONSOLE_SWITCH",
					   "DEVICE_NEIGHBOR",
					   "DEVICE_NEIGHBOR_METADATA",
					   "DHCP_RELAY",
					   "DHCP_SERVER",
					   "FEATURE",
					   "FLEX_COUNTER_TABLE",
					   "KDUMP",
					   "MGMT_INTERFACE",
					   "MGMT_PORT",
					   "NTP",
					   "NTP_SERVER",
					   "PORTCHANNEL",
					   "PORTCHANNEL_INTERFACE",
					   "PORTCHANNEL_MEMBER",
					   "SNMP",
					   "SNMP_COMMUNITY",
					   "SYSLOG_SERVER",
					   "VERSIONS",
					   "VLAN",
					   "VLAN_INTERFACE",
					   "VLAN_MEMBER",
					   "DEVICE_METADATA.bgp_asn",
					   "DEVICE_METADATA.buffer_model",
					   "DEVICE_METADATA.default_bgp_status",
					   "DEVICE_METADATA.default_pfcwd_status",
					   "DEVICE_METADATA.deployment_id",
					   "DEVICE_METADATA.docker_routing_config_mode",
					   "DEVICE_METADATA.hwsku",
					   "DEVICE_METADATA.platform",
					   "DEVICE_METADATA.synchronous_mode",
					   "PORT.fec",
					   "PORT.index",
					   "PORT.lanes",
					   "PORT.pfc_asym",
					   "PORT.tpid",
					   "SCHEDULER.weight",
					   "BUFFER_PG (lossy PGs)",
					   "COPP_GROUP.queue",
					   "COPP_GROUP.trap_priority",
					   NULL};
	struct xfab_cfg_errors errs;
	struct xfab_config cfg;
	char path[4096], name[16];

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/data/sonic/t0-config_db.json", test_srcdir());
	if (xfab_config_load_as(path, cfgsonic_source(XFAB_CFG_AUTO), &cfg, &errs)) {
		xfab_cfg_error_format(&errs.e[0], path, sizeof(path));
		fail_msg("refused: %s", path);
	}
	assert_int_equal(cfg.sonic, 1);
	for (int p = 0; p < 128; p += 4) {
		int i;

		snprintf(name, sizeof(name), "Ethernet%d", p);
		i = xfab_config_port_index(&cfg, name);
		assert_true(i >= 0);
		assert_int_equal(cfg.ports[i].rate_mbps, p >= 112 ? 100000 : 0);
	}
	cfgsonic_ignored_are(&cfg, want);
	assert_string_equal(cfg.hostname, "t0-lab-01");
	assert_int_equal(cfg.n_ports, 32);
	/* DEVICE_METADATA's bgp_router_id before Loopback0's 10.1.0.32 */
	assert_int_equal(cfg.has_router_id, 1);
	assert_memory_equal(cfg.router_id, ((__u8[]){10, 1, 0, 132}), 4);
	xfab_config_free(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(detected),	    cmocka_unit_test(asked),   cmocka_unit_test(refused),
	    cmocka_unit_test(no_catalogue), cmocka_unit_test(t0_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
