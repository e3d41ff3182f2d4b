// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Hostile SONiC CONFIG_DB files, each one edit away from a whole switch's,
 * read as `xfabd --check` reads them (xfab_config_parse_as, told SONiC's
 * by its tables): each refused, its first error at the place written here
 * by hand (line:col counted in the edited text) with its key and message.
 * The base is our own T0 in SONiC's layout
 * (tests/data/sonic/t0-config_db.json, README there) with each port's
 * xfab rate added on its speed line (lines keep their numbers), which is
 * accepted (test_config_sonic's t0_file). The edits break what SONiC's
 * YANG models say (sonic-buildimage src/sonic-yang-models/yang-models at
 * the commit config/sonic/README.md names; file named at each):
 * unknown tables and fields, bad values, key shapes, prefixes and JSON
 * types, references to entries the file lacks (leafrefs, also into PORT,
 * a table xfab implements), and must and when rules
 * (user/lib/config/sonic_refs.c), a broken rule named by its module and
 * its expression. Last, the base less tables whose entries others refer
 * to, and a buffer fragment without PORT, refused or accepted as SONiC's
 * models say, with the tables listed as ignored. No root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "srcdir.h"
#include "cfgsonic.h"
#include "sonicdata.h"

/* One edit of the base: on line `line`, the first `find` becomes `repl`;
 * refused with the first error at eline:ecol, its key `key` and `msg` in
 * its message. */
struct hostile {
	const char *name;
	int line;
	const char *find, *repl;
	int eline, ecol;
	const char *key, *msg;
};

/* text with case h's edit made (malloc'd). */
static char *edited(const char *text, const struct hostile *h)
{
	const char *at = text, *hit;
	char *out;

	for (int l = 1; l < h->line; l++) {
		at = strchr(at, '\n');
		assert_non_null(at);
		at++;
	}
	hit = strstr(at, h->find);
	assert_non_null(hit);
	assert_true(!memchr(at, '\n', (size_t)(hit - at))); /* on that line */
	out = malloc(strlen(text) + strlen(h->repl) + 1);
	assert_non_null(out);
	memcpy(out, text, (size_t)(hit - text));
	strcpy(out + (hit - text), h->repl);
	strcat(out, hit + strlen(h->find));
	return out;
}

static void refused_as(const char *text, const struct hostile *h)
{
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;
	char got[1024];
	char *bad = edited(text, h);
	int r = xfab_config_parse_as("t0.json", bad, cfgsonic_source(XFAB_CFG_AUTO), &cfg, &errs);

	free(bad);
	if (r != -1)
		fail_msg("%s: accepted", h->name);
	xfab_cfg_error_format(&errs.e[0], got, sizeof(got));
	print_message("    %s: %s\n", h->name, got);
	if (errs.e[0].line != h->eline || errs.e[0].col != h->ecol ||
	    strcmp(errs.e[0].key, h->key) || !strstr(errs.e[0].msg, h->msg))
		fail_msg("%s: got %s, expected %d:%d: %s: ...%s...", h->name, got, h->eline,
			 h->ecol, h->key, h->msg);
}

/* The base, each port's rate (xfab's, for its lossless queues) put on its
 * speed line: "speed" becomes "rate": "100000", "speed" (malloc'd). */
static char *base_text(void)
{
	static const char speed[] = "\"speed\": \"100000\"";
	static const char rated[] = "\"rate\": \"100000\", \"speed\": \"100000\"";
	char *text = sonicdata_text("t0-config_db.json"), *out, *o;
	const char *at, *from = text;

	out = malloc(strlen(text) * 2 + 1);
	assert_non_null(out);
	o = out;
	while ((at = strstr(from, speed))) {
		memcpy(o, from, (size_t)(at - from));
		o += at - from;
		strcpy(o, rated);
		o += strlen(rated);
		from = at + strlen(speed);
	}
	strcpy(o, from);
	free(text);
	return out;
}

static void run_cases(const struct hostile *cases, size_t n)
{
	char *text = base_text();

	for (size_t i = 0; i < n; i++)
		refused_as(text, &cases[i]);
	free(text);
}

#define RUN(cases) run_cases(cases, sizeof(cases) / sizeof(cases[0]))

/* Names SONiC does not define; values, keys and JSON types its YANG
 * refuses. */
static const struct hostile shape_cases[] = {
    /* no sonic-*.yang has a table SNMP_COMUNITY */
    {"unknown table", 1090, "\"SNMP_COMMUNITY\"", "\"SNMP_COMUNITY\"", 1090, 5, "SNMP_COMUNITY",
     "unknown table"},
    /* sonic-kdump.yang: KDUMP|config has enabled, memory, num_dumps, ... */
    {"unknown field", 436, "\"num_dumps\"", "\"num_dump\"", 436, 13, "KDUMP|config.num_dump",
     "unknown field \"num_dump\""},
    /* sonic-port.yang: pfc_asym, no pfc_asymm; PORT is xfab's table */
    {"unknown field of an xfab table", 517, "\"pfc_asym\"", "\"pfc_asymm\"", 517, 13,
     "PORT|Ethernet0.pfc_asymm", "unknown field \"pfc_asymm\""},
    /* sonic-snmp.yang: SNMP_COMMUNITY TYPE, enumeration RO, RW */
    {"bad enum", 1092, "\"RO\"", "\"RX\"", 1092, 21, "SNMP_COMMUNITY|public.TYPE",
     "\"RX\" is not one of RO, RW"},
    /* sonic-flex_counter.yang: FLEX_COUNTER_STATUS, enable or disable */
    {"bad enum (flex counter)", 415, "\"enable\"", "\"enabled\"", 415, 36,
     "FLEX_COUNTER_TABLE|ACL.FLEX_COUNTER_STATUS", "\"enabled\" is not one of enable, disable"},
    /* sonic-port.yang: fec, pattern rs|fc|none|auto */
    {"bad enum of an xfab table's SONiC field", 513, "\"rs\"", "\"fast\"", 513, 20,
     "PORT|Ethernet0.fec", "\"fast\" is not one of rs, fc, none, auto"},
    /* sonic-kdump.yang: num_dumps uint8, range 1..9 */
    {"out of range", 436, "\"3\"", "\"10\"", 436, 26, "KDUMP|config.num_dumps",
     "\"10\" is out of range 1..9"},
    /* sonic-portchannel.yang: min_links uint16, range 1..1024 */
    {"out of range (portchannel)", 898, "\"1\"", "\"1025\"", 898, 26,
     "PORTCHANNEL|PortChannel101.min_links", "\"1025\" is out of range 1..1024"},
    /* sonic-portchannel.yang: mtu uint16, range 1..9216 */
    {"out of range (mtu)", 899, "\"9100\"", "\"9217\"", 899, 20, "PORTCHANNEL|PortChannel101.mtu",
     "\"9217\" is out of range 1..9216"},
    /* sonic-port.yang: index uint16 */
    {"not a number", 514, "\"1\"", "\"one\"", 514, 22, "PORT|Ethernet0.index", "\"one\" is not"},
    /* sonic-kdump.yang: enabled boolean */
    {"not a boolean", 434, "\"false\"", "\"nope\"", 434, 24, "KDUMP|config.enabled",
     "\"nope\" is not a boolean"},
    /* sonic-vlan.yang: VLAN_MEMBER_LIST key "name port" */
    {"bad key shape", 1168, "\"Vlan1000|Ethernet4\"", "\"Vlan1000|Ethernet4|x\"", 1168, 9,
     "VLAN_MEMBER|Vlan1000|Ethernet4|x", "no list of SONiC's table has a key of this shape"},
    /* sonic-snmp.yang: SNMP_COMMUNITY_LIST key "name" */
    {"bad key shape (one part)", 1091, "\"public\"", "\"public|x\"", 1091, 9,
     "SNMP_COMMUNITY|public|x", "no list of SONiC's table has a key of this shape"},
    /* sonic-portchannel.yang: ip_prefix, sonic-ip-prefix */
    {"bad IP prefix in a key", 926, "/31\"", "/33\"", 926, 9,
     "PORTCHANNEL_INTERFACE|PortChannel101|10.0.0.56/33", "\"10.0.0.56/33\""},
    {"bad IPv4 address in a prefix", 1152, "192.168.0.1/21", "192.168.0.300/21", 1152, 9,
     "VLAN_INTERFACE|Vlan1000|192.168.0.300/21", "\"192.168.0.300/21\""},
    /* sonic-device_neighbor.yang: mgmt_addr, ipv4-prefix or ipv4-address */
    {"bad IP address", 260, "\"10.250.0.51\"", "\"10.250.0.351\"", 260, 26,
     "DEVICE_NEIGHBOR_METADATA|T1-01.mgmt_addr", "\"10.250.0.351\" fits none"},
    /* sonic-device_metadata.yang: mac, yang:mac-address */
    {"bad MAC address", 233, "\"1c:34:da:0a:20:00\"", "\"1c:34:da:0a:20\"", 233, 20,
     "DEVICE_METADATA|localhost.mac", "\"1c:34:da:0a:20\""},
    /* every CONFIG_DB value is a string */
    {"a number for a string", 436, "\"3\"", "3", 436, 26, "KDUMP|config.num_dumps",
     "where SONiC's values are strings"},
    {"an array for an entry", 290, "{}", "[]", 290, 22, "DHCP_SERVER|192.0.0.1",
     "expected an object of fields, got array"},
    {"a boolean for a string", 179, "\"no\"", "false", 179, 24,
     "CONSOLE_SWITCH|console_mgmt.enabled", "where SONiC's values are strings"},
};

static void shapes(void **state)
{
	(void)state;
	RUN(shape_cases);
}

/* References to entries the file lacks: refused at the referring key or
 * field, the missing entry named. */
static const struct hostile ref_cases[] = {
    /* sonic-portchannel.yang: PORTCHANNEL_MEMBER name -> PORTCHANNEL name */
    {"member of a missing portchannel", 939, "\"PortChannel101|Ethernet112\"",
     "\"PortChannel109|Ethernet112\"", 939, 9, "PORTCHANNEL_MEMBER|PortChannel109|Ethernet112",
     "no PORTCHANNEL|PortChannel109 (sonic-portchannel.yang leafref)"},
    /* ... port -> PORT name: PORT is xfab's table, looked up in the file */
    {"member port missing from PORT", 939, "\"PortChannel101|Ethernet112\"",
     "\"PortChannel101|Ethernet113\"", 939, 9, "PORTCHANNEL_MEMBER|PortChannel101|Ethernet113",
     "no PORT|Ethernet113 (sonic-portchannel.yang leafref)"},
    /* sonic-vlan.yang: VLAN_MEMBER name -> VLAN name */
    {"member of a missing VLAN", 1168, "\"Vlan1000|Ethernet4\"", "\"Vlan1001|Ethernet4\"", 1168, 9,
     "VLAN_MEMBER|Vlan1001|Ethernet4", "no VLAN|Vlan1001 (sonic-vlan.yang leafref)"},
    /* sonic-portchannel.yang: PORTCHANNEL_INTERFACE name -> PORTCHANNEL */
    {"interface of a missing portchannel", 925, "\"PortChannel101\"", "\"PortChannel105\"", 925, 9,
     "PORTCHANNEL_INTERFACE|PortChannel105",
     "no PORTCHANNEL|PortChannel105 (sonic-portchannel.yang leafref)"},
    /* sonic-mgmt_interface.yang: MGMT_INTERFACE name -> MGMT_PORT name */
    {"address of a missing management port", 457, "\"eth0|10.250.0.20/24\"",
     "\"eth1|10.250.0.20/24\"", 457, 9, "MGMT_INTERFACE|eth1|10.250.0.20/24",
     "no MGMT_PORT|eth1 (sonic-mgmt_interface.yang leafref)"},
    /* sonic-vlan.yang: VLAN_INTERFACE name -> VLAN name */
    {"interface of a missing VLAN", 1151, "\"Vlan1000\"", "\"Vlan1001\"", 1151, 9,
     "VLAN_INTERFACE|Vlan1001", "no VLAN|Vlan1001 (sonic-vlan.yang leafref)"},
    /* sonic-ntp.yang: src_intf, a leaf-list of a union of leafrefs to
     * PORT, PORTCHANNEL, LOOPBACK_INTERFACE and MGMT_PORT names, held as
     * one ";"-separated string (sonic_yang_ext.py) */
    {"a source interface that is none of the file's", 472, "\"eth0\"", "\"Ethernet0;Loopback9\"",
     472, 25, "NTP|global.src_intf",
     "no PORT|Loopback9, no PORTCHANNEL|Loopback9, no LOOPBACK_INTERFACE|Loopback9, "
     "no MGMT_PORT|Loopback9 (sonic-ntp.yang leafref)"},
};

static void references(void **state)
{
	(void)state;
	RUN(ref_cases);
}

/* SONiC's must and when rules, each quoted from its model: a broken one
 * is named by its module and its expression (whitespace folded). */
static const struct hostile rule_cases[] = {
    /* sonic-vlan.yang vlanid */
    {"vlanid not the VLAN's name", 1147, "\"1000\"", "\"1001\"", 1147, 23, "VLAN|Vlan1000.vlanid",
     "violates sonic-vlan.yang's must rule: substring-after(../name, 'Vlan') = current()"},
    /* sonic-vlan.yang VLAN_INTERFACE_IPPREFIX_LIST name: an entry
     * Vlan1000 of its own */
    {"a VLAN address without its interface", 1151, "\"Vlan1000\": {},", "", 1152, 9,
     "VLAN_INTERFACE|Vlan1000|192.168.0.1/21",
     "violates sonic-vlan.yang's must rule: (current() = "
     "../../VLAN_INTERFACE_LIST[name=current()]/name)"},
    /* sonic-vlan.yang VLAN_MEMBER port: not a PORTCHANNEL_MEMBER's port
     * (Ethernet112 is PortChannel101's) */
    {"a portchannel member in a VLAN", 1168, "\"Vlan1000|Ethernet4\"", "\"Vlan1000|Ethernet112\"",
     1168, 9, "VLAN_MEMBER|Vlan1000|Ethernet112",
     "violates sonic-vlan.yang's must rule: "
     "not(/lag:sonic-portchannel/lag:PORTCHANNEL_MEMBER/lag:PORTCHANNEL_MEMBER_LIST"
     "[lag:port=current()]/lag:name)"},
    /* sonic-mgmt_interface.yang ip_prefix: the family of gwaddr */
    {"a gateway of the other family", 458, "\"10.250.0.1\"", "\"fc00:250::9\"", 457, 9,
     "MGMT_INTERFACE|eth0|10.250.0.20/24",
     "violates sonic-mgmt_interface.yang's must rule: (contains(current(), ':') and "
     "contains(../gwaddr, ':')) or (contains(current(), '.') and contains(../gwaddr, '.'))"},
    /* sonic-warm-restart.yang bgp_timer */
    {"a BGP timer for swss", 1, "{", "{ \"WARM_RESTART\": {\"swss\": {\"bgp_timer\": \"120\"}},", 1,
     42, "WARM_RESTART|swss.bgp_timer",
     "violates sonic-warm-restart.yang's must rule: current()/../module = 'bgp'"},
    /* sonic-crm.yang: high threshold must be above the low one */
    {"a high threshold below the low one", 1, "{",
     "{ \"CRM\": {\"Config\": {\"acl_counter_high_threshold\": \"70\", "
     "\"acl_counter_low_threshold\": \"85\"}},",
     1, 52, "CRM|Config.acl_counter_high_threshold",
     "violates sonic-crm.yang's must rule: (current() > ../acl_counter_low_threshold)"},
    {"equal thresholds", 1, "{",
     "{ \"CRM\": {\"Config\": {\"acl_counter_high_threshold\": \"80\", "
     "\"acl_counter_low_threshold\": \"80\"}},",
     1, 52, "CRM|Config.acl_counter_high_threshold",
     "violates sonic-crm.yang's must rule: (current() > ../acl_counter_low_threshold)"},
    /* sonic-syslog.yang source: the family of server_address */
    {"a syslog source of the other family", 1102, "{}", "{\"source\": \"fc00::1\"}", 1102, 34,
     "SYSLOG_SERVER|10.20.6.16.source",
     "violates sonic-syslog.yang's must rule: (contains(current(), '.') and "
     "contains(../server_address, '.')) or (contains(current(), ':') and "
     "contains(../server_address, ':'))"},
    /* sonic-syslog.yang vrf: mgmt only with the management VRF on
     * (MGMT_VRF_CONFIG, which the base has not) */
    {"a syslog server in a management VRF that is off", 1102, "{}", "{\"vrf\": \"mgmt\"}", 1102, 31,
     "SYSLOG_SERVER|10.20.6.16.vrf",
     "violates sonic-syslog.yang's must rule: (current() != 'mgmt') or "
     "(/mvrf:sonic-mgmt_vrf/mvrf:MGMT_VRF_CONFIG/mvrf:vrf_global/mvrf:mgmtVrfEnabled = 'true')"},
    /* sonic-mirror-session.yang dst_port: when "current()/../type =
     * 'SPAN'" */
    {"a SPAN field in an ERSPAN session", 1, "{",
     "{ \"MIRROR_SESSION\": {\"m1\": {\"type\": \"ERSPAN\", \"dst_port\": \"Ethernet0\"}},", 1, 59,
     "MIRROR_SESSION|m1.dst_port",
     "present, but SONiC's \"when\" is false: current()/../type = 'SPAN' "
     "(sonic-mirror-session.yang when)"},
    /* sonic-mclag.yang MCLAG_DOMAIN_LIST, session_timeout's default 30
     * standing in */
    {"a keepalive beyond the default session timeout", 1, "{",
     "{ \"MCLAG_DOMAIN\": {\"1\": {\"keepalive_interval\": \"15\"}},", 1, 20, "MCLAG_DOMAIN|1",
     "violates sonic-mclag.yang's must rule: (keepalive_interval * 3) <= session_timeout"},
    /* sonic-tunnel.yang TUNNEL_LIST: src_ip and dst_ip of one family */
    {"a tunnel between families", 1, "{",
     "{ \"TUNNEL\": {\"t1\": {\"tunnel_type\": \"IPINIP\", \"src_ip\": \"10.1.0.32\", "
     "\"dst_ip\": \"fc00::1\"}},",
     1, 14, "TUNNEL|t1",
     "violates sonic-tunnel.yang's must rule: (contains(src_ip, ':') and contains(dst_ip, "
     "':')) or (not(contains(src_ip, ':')) and not(contains(dst_ip, ':')))"},
    /* sonic-vlan-sub-interface.yang name: its parent, before the ".",
     * a PORT or PORTCHANNEL name or their short forms "Eth" and "Po" */
    {"a sub-interface of no port", 1, "{", "{ \"VLAN_SUB_INTERFACE\": {\"Eth9.10\": {}},", 1, 26,
     "VLAN_SUB_INTERFACE|Eth9.10",
     "violates sonic-vlan-sub-interface.yang's must rule: (string-length(current()) <= 15) "
     "and ((substring-before(current(), '.') = /port:sonic-port/port:PORT/port:PORT_LIST/"
     "port:name) or "},
    /* ... the list's: a short name carries its VLAN */
    {"a short sub-interface name without its VLAN", 1, "{",
     "{ \"VLAN_SUB_INTERFACE\": {\"Eth0.10\": {}},", 1, 26, "VLAN_SUB_INTERFACE|Eth0.10",
     "violates sonic-vlan-sub-interface.yang's must rule: (substring-before(name, '.') = "
     "/port:sonic-port/port:PORT/port:PORT_LIST/port:name) or (substring-before(name, '.') "
     "= /lag:"},
};

static void rules(void **state)
{
	(void)state;
	RUN(rule_cases);
}

/* The same edits within SONiC's rules are accepted: the references found,
 * the rules holding (3 x 10 <= the default 30; the other family's
 * addresses on both sides). */
static const struct hostile fine_cases[] = {
    {"a source interface of the file's", 472, "\"eth0\"",
     "\"Ethernet0;Loopback0;eth0;PortChannel101\""},
    {"a VLAN member not in a portchannel", 1168, "\"Vlan1000|Ethernet4\"",
     "\"Vlan1000|Ethernet0\""},
    {"a BGP timer for bgp", 1, "{", "{ \"WARM_RESTART\": {\"bgp\": {\"bgp_timer\": \"120\"}},"},
    {"a high threshold above the low one", 1, "{",
     "{ \"CRM\": {\"Config\": {\"acl_counter_high_threshold\": \"85\", "
     "\"acl_counter_low_threshold\": \"70\"}},"},
    {"a keepalive within the default session timeout", 1, "{",
     "{ \"MCLAG_DOMAIN\": {\"1\": {\"keepalive_interval\": \"10\"}},"},
    {"a tunnel within a family", 1, "{",
     "{ \"TUNNEL\": {\"t1\": {\"tunnel_type\": \"IPINIP\", \"src_ip\": \"fc00::2\", "
     "\"dst_ip\": \"fc00::1\"}},"},
    {"a SPAN session's port", 1, "{",
     "{ \"MIRROR_SESSION\": {\"m1\": {\"type\": \"SPAN\", \"dst_port\": \"Ethernet0\"}},"},
    /* short names carry their VLAN (sonic-vlan-sub-interface.yang's list
     * must) */
    {"sub-interfaces of a port and a portchannel, short", 1, "{",
     "{ \"VLAN_SUB_INTERFACE\": {\"Eth0.10\": {\"vlan\": \"10\"}, \"Po101.20\": {\"vlan\": "
     "\"20\"}, \"Ethernet4.30\": {}},"},
    {"a gateway of the prefix's family", 458, "\"10.250.0.1\"", "\"10.250.0.11\""},
    {"a syslog server in the default VRF", 1102, "{}", "{\"vrf\": \"default\"}"},
};

static void within_rules(void **state)
{
	char *text = base_text();

	(void)state;
	for (size_t i = 0; i < sizeof(fine_cases) / sizeof(fine_cases[0]); i++) {
		struct xfab_config cfg;
		struct xfab_cfg_errors errs;
		char got[1024];
		char *ok = edited(text, &fine_cases[i]);

		if (xfab_config_parse_as("t0.json", ok, cfgsonic_source(XFAB_CFG_AUTO), &cfg,
					 &errs)) {
			xfab_cfg_error_format(&errs.e[0], got, sizeof(got));
			fail_msg("%s: refused: %s", fine_cases[i].name, got);
		}
		xfab_config_free(&cfg);
		free(ok);
	}
	free(text);
}

/* text without its top-level member table (the file's layout: a table
 * opens at 4 spaces of indent and closes at the next "    }"), in place;
 * it must not be the last. */
static void drop_table(char *text, const char *table)
{
	char open[96], *from, *to;

	snprintf(open, sizeof(open), "\n    \"%s\": {\n", table);
	from = strstr(text, open);
	assert_non_null(from);
	to = strstr(from + 1, "\n    },\n");
	assert_non_null(to);
	memmove(from, to + strlen("\n    },"), strlen(to + strlen("\n    },")) + 1);
}

static int is_ignored(const struct xfab_config *cfg, const char *name)
{
	for (int i = 0; i < cfg->n_ignored; i++)
		if (!strcmp(cfg->ignored[i], name))
			return 1;
	return 0;
}

/* Every table of text (its top-level members, by the layout drop_table
 * reads) is listed as ignored but those xfab implements (docs/CONFIG.md,
 * "SONiC CONFIG_DB files"), and no other table is; want: how many. */
static void ignored_are_the_rest(const char *text, const struct xfab_config *cfg, int want)
{
	static const char *const xfab[] = {"BUFFER_PG",
					   "BUFFER_POOL",
					   "BUFFER_PROFILE",
					   "CABLE_LENGTH",
					   "COPP_GROUP",
					   "COPP_TRAP",
					   "DEVICE_METADATA",
					   "DSCP_TO_TC_MAP",
					   "FG_NHG",
					   "FG_NHG_MEMBER",
					   "FG_NHG_PREFIX",
					   "INTERFACE",
					   "LOOPBACK_INTERFACE",
					   "MAP_PFC_PRIORITY_TO_QUEUE",
					   "PFC_WD",
					   "PORT",
					   "PORT_QOS_MAP",
					   "QUEUE",
					   "SCHEDULER",
					   "STATIC_ROUTE",
					   "TC_TO_PRIORITY_GROUP_MAP",
					   "TC_TO_QUEUE_MAP",
					   "VNET",
					   "VXLAN_TUNNEL",
					   "WRED_PROFILE"};
	int tables = 0, fields = 0;
	char name[96];

	for (const char *p = strstr(text, "\n    \""); p; p = strstr(p + 1, "\n    \"")) {
		int mine = 0;

		assert_int_equal(sscanf(p, "\n    \"%95[^\"]", name), 1);
		for (size_t i = 0; i < sizeof(xfab) / sizeof(xfab[0]); i++)
			mine |= !strcmp(name, xfab[i]);
		if (!mine && !is_ignored(cfg, name))
			fail_msg("%s is not listed as ignored", name);
		tables += !mine;
	}
	/* fields, and parts of a table xfab reads ("BUFFER_PG (lossy PGs)") */
	for (int i = 0; i < cfg->n_ignored; i++)
		fields += strpbrk(cfg->ignored[i], ". ") != NULL;
	assert_int_equal(tables, want);
	assert_int_equal(cfg->n_ignored - fields, tables);
}

static int load_text(const char *text, struct xfab_config *cfg, struct xfab_cfg_errors *errs)
{
	return xfab_config_parse_as("t0.json", text, cfgsonic_source(XFAB_CFG_AUTO), cfg, errs);
}

/* The base (43 tables, 20 of them xfab's) less MGMT_PORT: both
 * MGMT_INTERFACE addresses name eth0, a leafref to MGMT_PORT
 * (sonic-mgmt_interface.yang), refused at their keys, in the file's order
 * (lines 457 and 460 of the base, one table of 8 lines earlier gone:
 * MGMT_PORT follows MGMT_INTERFACE, so they keep their numbers). NTP's
 * src_intf "eth0" is no reference (the union's literal eth0). Less
 * MGMT_INTERFACE too, accepted, each of its 21 tables xfab does not
 * implement listed as ignored. */
static void t0_less_tables(void **state)
{
	static const char *const dangling[][2] = {
	    {"MGMT_INTERFACE|eth0|10.250.0.20/24",
	     "no MGMT_PORT|eth0 (sonic-mgmt_interface.yang leafref)"},
	    {"MGMT_INTERFACE|eth0|fc00:250::20/64",
	     "no MGMT_PORT|eth0 (sonic-mgmt_interface.yang leafref)"},
	};
	char *text = base_text();
	struct xfab_cfg_errors errs;
	struct xfab_config cfg;

	(void)state;
	assert_int_equal(load_text(text, &cfg, &errs), 0);
	ignored_are_the_rest(text, &cfg, 23);
	xfab_config_free(&cfg);
	drop_table(text, "MGMT_PORT");
	assert_int_equal(load_text(text, &cfg, &errs), -1);
	assert_int_equal(errs.total, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(errs.e[i].line, 457 + 3 * i);
		assert_int_equal(errs.e[i].col, 9);
		assert_string_equal(errs.e[i].key, dangling[i][0]);
		assert_string_equal(errs.e[i].msg, dangling[i][1]);
	}
	drop_table(text, "MGMT_INTERFACE");
	if (load_text(text, &cfg, &errs)) {
		char got[1024];

		xfab_cfg_error_format(&errs.e[0], got, sizeof(got));
		fail_msg("refused: %s", got);
	}
	assert_int_equal(cfg.sonic, 1);
	ignored_are_the_rest(text, &cfg, 21);
	xfab_config_free(&cfg);
	free(text);
}

/* Our buffer fragment (buffers-t0.json: a 64-port T0's BUFFER_* tables,
 * SONiC's dynamic model) names ports of a PORT table it does not carry,
 * which SONiC's YANG (sonic-buffer-port-ingress-profile-list.yang: port,
 * a leafref to PORT) refuses as well: refused at its first such reference
 * (line 51, after CABLE_LENGTH, BUFFER_POOL and BUFFER_PROFILE), whatever
 * sonic_buffer.c makes of BUFFER_*. */
static void buffer_fragment(void **state)
{
	char *text = sonicdata_text("buffers-t0.json");
	struct xfab_cfg_errors errs;
	struct xfab_config cfg;

	(void)state;
	assert_null(strstr(text, "\"PORT\""));
	assert_int_equal(load_text(text, &cfg, &errs), -1);
	assert_int_equal(errs.e[0].line, 51);
	assert_int_equal(errs.e[0].col, 9);
	assert_string_equal(errs.e[0].key, "BUFFER_PORT_INGRESS_PROFILE_LIST|Ethernet0");
	assert_string_equal(errs.e[0].msg, "no PORT|Ethernet0 "
					   "(sonic-buffer-port-ingress-profile-list.yang leafref)");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(shapes),	      cmocka_unit_test(references),
	    cmocka_unit_test(rules),	      cmocka_unit_test(within_rules),
	    cmocka_unit_test(t0_less_tables), cmocka_unit_test(buffer_fragment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
