// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Hostile SONiC CONFIG_DB files, each one edit away from a real one, read
 * as `xfabd --check` reads them (xfab_config_parse_as, told SONiC's by its
 * tables): each refused, its first error at the place written here by
 * hand (line:col counted in the edited text) with its key and message.
 * The base is sonic-buildimage's rsyslog test config
 * (tests/data/sonic/rsyslog_config_db.json, README there) with its one
 * address SONiC's own YANG refuses mended (2404:::2 -> 2404::2), which is
 * accepted (test_config_sonic's real_file). The edits break what SONiC's
 * YANG models say (third_party/sonic-yang-models, file named at each):
 * unknown tables and fields, bad values, key shapes, prefixes and JSON
 * types, references to entries the file lacks (leafrefs, also into PORT,
 * a table xfab implements), and must and when rules
 * (user/lib/config/sonic_refs.c). Last, the real files of tests/data/sonic
 * each refused or accepted as SONiC's models say, with the tables listed
 * as ignored. No root.
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
#include "textfile.h"

static char *read_data(const char *name)
{
	char path[4200], err[300];
	char *text;

	snprintf(path, sizeof(path), "%s/tests/data/sonic/%s", test_srcdir(), name);
	text = xfab_read_text(path, 4, err, sizeof(err));
	if (!text)
		fail_msg("%s", err);
	return text;
}

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
	int r =
	    xfab_config_parse_as("rsyslog.json", bad, cfgsonic_source(XFAB_CFG_AUTO), &cfg, &errs);

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

/* The base, read with the one address mended. */
static char *base_text(void)
{
	char *text = read_data("rsyslog_config_db.json");
	char *bad = strstr(text, "2404:::2");

	assert_non_null(bad);
	memmove(bad + 5, bad + 6, strlen(bad + 6) + 1);
	return text;
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
    {"unknown table", 863, "\"SNMP_COMMUNITY\"", "\"SNMP_COMUNITY\"", 863, 5, "SNMP_COMUNITY",
     "unknown table"},
    /* sonic-kdump.yang: KDUMP|config has enabled, memory, num_dumps, ... */
    {"unknown field", 404, "\"num_dumps\"", "\"num_dump\"", 404, 13, "KDUMP|config.num_dump",
     "unknown field \"num_dump\""},
    /* sonic-port.yang: pfc_asym, no pfc_asymm; PORT is xfab's table */
    {"unknown field of an xfab table", 434, "\"pfc_asym\"", "\"pfc_asymm\"", 434, 13,
     "PORT|Ethernet0.pfc_asymm", "unknown field \"pfc_asymm\""},
    /* sonic-snmp.yang: SNMP_COMMUNITY TYPE, enumeration RO, RW */
    {"bad enum", 865, "\"RO\"", "\"RX\"", 865, 21, "SNMP_COMMUNITY|public.TYPE",
     "\"RX\" is not one of RO, RW"},
    /* sonic-flex_counter.yang: FLEX_COUNTER_STATUS, enable or disable */
    {"bad enum (flex counter)", 396, "\"enable\"", "\"enabled\"", 396, 36,
     "FLEX_COUNTER_TABLE|ACL.FLEX_COUNTER_STATUS", "\"enabled\" is not one of enable, disable"},
    /* sonic-port.yang: fec, pattern rs|fc|none|auto */
    {"bad enum of an xfab table's SONiC field", 430, "\"rs\"", "\"fast\"", 430, 20,
     "PORT|Ethernet0.fec", "\"fast\" is not one of rs, fc, none, auto"},
    /* sonic-kdump.yang: num_dumps uint8, range 1..9 */
    {"out of range", 404, "\"3\"", "\"10\"", 404, 26, "KDUMP|config.num_dumps",
     "\"10\" is out of range 1..9"},
    /* sonic-portchannel.yang: min_links uint16, range 1..1024 */
    {"out of range (portchannel)", 812, "\"1\"", "\"1025\"", 812, 26,
     "PORTCHANNEL|PortChannel101.min_links", "\"1025\" is out of range 1..1024"},
    /* sonic-portchannel.yang: mtu uint16, range 1..9216 */
    {"out of range (mtu)", 813, "\"9100\"", "\"9217\"", 813, 20, "PORTCHANNEL|PortChannel101.mtu",
     "\"9217\" is out of range 1..9216"},
    /* sonic-port.yang: index uint16 */
    {"not a number", 431, "\"1\"", "\"one\"", 431, 22, "PORT|Ethernet0.index", "\"one\" is not"},
    /* sonic-kdump.yang: enabled boolean */
    {"not a boolean", 402, "\"false\"", "\"nope\"", 402, 24, "KDUMP|config.enabled",
     "\"nope\" is not a boolean"},
    /* sonic-vlan.yang: VLAN_MEMBER_LIST key "name port" */
    {"bad key shape", 899, "\"Vlan1000|Ethernet4\"", "\"Vlan1000|Ethernet4|x\"", 899, 9,
     "VLAN_MEMBER|Vlan1000|Ethernet4|x", "no list of SONiC's table has a key of this shape"},
    /* sonic-snmp.yang: SNMP_COMMUNITY_LIST key "name" */
    {"bad key shape (one part)", 864, "\"public\"", "\"public|x\"", 864, 9,
     "SNMP_COMMUNITY|public|x", "no list of SONiC's table has a key of this shape"},
    /* sonic-portchannel.yang: ip_prefix, sonic-ip-prefix */
    {"bad IP prefix in a key", 840, "/31\"", "/33\"", 840, 9,
     "PORTCHANNEL_INTERFACE|PortChannel101|10.0.0.56/33", "\"10.0.0.56/33\""},
    {"bad IPv4 address in a prefix", 895, "192.168.0.1/21", "192.168.0.300/21", 895, 9,
     "VLAN_INTERFACE|Vlan1000|192.168.0.300/21", "\"192.168.0.300/21\""},
    /* sonic-device_neighbor.yang: mgmt_addr, ipv4-prefix or ipv4-address */
    {"bad IP address", 210, "\"3.3.3.14\"", "\"3.3.3.314\"", 210, 26,
     "DEVICE_NEIGHBOR_METADATA|ARISTA01T1.mgmt_addr", "\"3.3.3.314\" fits none"},
    /* sonic-device_metadata.yang: mac, yang:mac-address */
    {"bad MAC address", 182, "\"98:03:9B:F6:02:80\"", "\"98:03:9B:F6:02\"", 182, 20,
     "DEVICE_METADATA|localhost.mac", "\"98:03:9B:F6:02\""},
    /* every CONFIG_DB value is a string */
    {"a number for a string", 404, "\"3\"", "3", 404, 26, "KDUMP|config.num_dumps",
     "where SONiC's values are strings"},
    {"an array for an entry", 240, "{}", "[]", 240, 22, "DHCP_SERVER|192.0.0.1",
     "expected an object of fields, got array"},
    {"a boolean for a string", 168, "\"no\"", "false", 168, 24,
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
    {"member of a missing portchannel", 853, "\"PortChannel101|Ethernet112\"",
     "\"PortChannel109|Ethernet112\"", 853, 9, "PORTCHANNEL_MEMBER|PortChannel109|Ethernet112",
     "no PORTCHANNEL|PortChannel109 (sonic-portchannel.yang leafref)"},
    /* ... port -> PORT name: PORT is xfab's table, looked up in the file */
    {"member port missing from PORT", 853, "\"PortChannel101|Ethernet112\"",
     "\"PortChannel101|Ethernet113\"", 853, 9, "PORTCHANNEL_MEMBER|PortChannel101|Ethernet113",
     "no PORT|Ethernet113 (sonic-portchannel.yang leafref)"},
    /* sonic-vlan.yang: VLAN_MEMBER name -> VLAN name */
    {"member of a missing VLAN", 899, "\"Vlan1000|Ethernet4\"", "\"Vlan1001|Ethernet4\"", 899, 9,
     "VLAN_MEMBER|Vlan1001|Ethernet4", "no VLAN|Vlan1001 (sonic-vlan.yang leafref)"},
    /* sonic-portchannel.yang: PORTCHANNEL_INTERFACE name -> PORTCHANNEL */
    {"interface of a missing portchannel", 839, "\"PortChannel101\"", "\"PortChannel105\"", 839, 9,
     "PORTCHANNEL_INTERFACE|PortChannel105",
     "no PORTCHANNEL|PortChannel105 (sonic-portchannel.yang leafref)"},
    /* sonic-mgmt_interface.yang: MGMT_INTERFACE name -> MGMT_PORT name */
    {"address of a missing management port", 413, "\"eth0|1.1.1.15/23\"", "\"eth1|1.1.1.15/23\"",
     413, 9, "MGMT_INTERFACE|eth1|1.1.1.15/23",
     "no MGMT_PORT|eth1 (sonic-mgmt_interface.yang leafref)"},
    /* sonic-vlan.yang: VLAN_INTERFACE name -> VLAN name */
    {"interface of a missing VLAN", 894, "\"Vlan1000\"", "\"Vlan1001\"", 894, 9,
     "VLAN_INTERFACE|Vlan1001", "no VLAN|Vlan1001 (sonic-vlan.yang leafref)"},
    /* sonic-ntp.yang: src_intf, a leaf-list of a union of leafrefs to
     * PORT, PORTCHANNEL, LOOPBACK_INTERFACE and MGMT_PORT names, held as
     * one ";"-separated string (sonic_yang_ext.py) */
    {"a source interface that is none of the file's", 1, "{",
     "{ \"NTP\": {\"global\": {\"src_intf\": \"Ethernet0;Loopback9\"}},", 1, 34,
     "NTP|global.src_intf",
     "no PORT|Loopback9, no PORTCHANNEL|Loopback9, no LOOPBACK_INTERFACE|Loopback9, "
     "no MGMT_PORT|Loopback9 (sonic-ntp.yang leafref)"},
};

static void references(void **state)
{
	(void)state;
	RUN(ref_cases);
}

/* SONiC's must and when rules, each quoted from its model. */
static const struct hostile rule_cases[] = {
    /* sonic-vlan.yang vlanid: must "substring-after(../name, 'Vlan') =
     * current()" */
    {"vlanid not the VLAN's name", 890, "\"1000\"", "\"1001\"", 890, 23, "VLAN|Vlan1000.vlanid",
     "SONiC's rule fails: The vlanid must correspond to the VLAN name (sonic-vlan.yang must)"},
    /* sonic-vlan.yang VLAN_INTERFACE_IPPREFIX_LIST name: must an entry
     * Vlan1000 of its own */
    {"a VLAN address without its interface", 894, "\"Vlan1000\": {},", "", 895, 9,
     "VLAN_INTERFACE|Vlan1000|192.168.0.1/21", "Try adding Vlan<vlanid>: {}"},
    /* sonic-vlan.yang VLAN_MEMBER port: must not be a PORTCHANNEL_MEMBER's
     * port (Ethernet112 is PortChannel101's) */
    {"a portchannel member in a VLAN", 899, "\"Vlan1000|Ethernet4\"", "\"Vlan1000|Ethernet112\"",
     899, 9, "VLAN_MEMBER|Vlan1000|Ethernet112", "(sonic-vlan.yang must)"},
    /* sonic-mgmt_interface.yang ip_prefix: must the family of gwaddr */
    {"a gateway of the other family", 414, "\"1.1.1.10\"", "\"2404::9\"", 413, 9,
     "MGMT_INTERFACE|eth0|1.1.1.15/23", "(sonic-mgmt_interface.yang must)"},
    /* sonic-warm-restart.yang bgp_timer: must "current()/../module =
     * 'bgp'" */
    {"a BGP timer for swss", 1, "{", "{ \"WARM_RESTART\": {\"swss\": {\"bgp_timer\": \"120\"}},", 1,
     42, "WARM_RESTART|swss.bgp_timer",
     "bgp_timer is only supported for module bgp. (sonic-warm-restart.yang must)"},
    /* sonic-crm.yang: high threshold must be above the low one */
    {"a high threshold below the low one", 1, "{",
     "{ \"CRM\": {\"Config\": {\"acl_counter_high_threshold\": \"70\", "
     "\"acl_counter_low_threshold\": \"85\"}},",
     1, 52, "CRM|Config.acl_counter_high_threshold",
     "high_threshold should be more than low_threshold (sonic-crm.yang must)"},
    {"equal thresholds", 1, "{",
     "{ \"CRM\": {\"Config\": {\"acl_counter_high_threshold\": \"80\", "
     "\"acl_counter_low_threshold\": \"80\"}},",
     1, 52, "CRM|Config.acl_counter_high_threshold",
     "high_threshold should be more than low_threshold (sonic-crm.yang must)"},
    /* sonic-syslog.yang source: must the family of server_address */
    {"a syslog source of the other family", 869, "{}", "{\"source\": \"fc00::1\"}", 869, 31,
     "SYSLOG_SERVER|3.3.3.3.source", "(sonic-syslog.yang must)"},
    /* sonic-mirror-session.yang dst_port: when "current()/../type =
     * 'SPAN'" */
    {"a SPAN field in an ERSPAN session", 1, "{",
     "{ \"MIRROR_SESSION\": {\"m1\": {\"type\": \"ERSPAN\", \"dst_port\": \"Ethernet0\"}},", 1, 59,
     "MIRROR_SESSION|m1.dst_port",
     "present, but SONiC's \"when\" is false: current()/../type = 'SPAN' "
     "(sonic-mirror-session.yang when)"},
    /* sonic-mclag.yang MCLAG_DOMAIN_LIST: must "(keepalive_interval * 3)
     * <= session_timeout", session_timeout's default 30 standing in */
    {"a keepalive beyond the default session timeout", 1, "{",
     "{ \"MCLAG_DOMAIN\": {\"1\": {\"keepalive_interval\": \"15\"}},", 1, 20, "MCLAG_DOMAIN|1",
     "(keepalive interval * 3) <= session_timeout value (sonic-mclag.yang must)"},
    /* sonic-tunnel.yang TUNNEL_LIST: src_ip and dst_ip of one family */
    {"a tunnel between families", 1, "{",
     "{ \"TUNNEL\": {\"t1\": {\"tunnel_type\": \"IPINIP\", \"src_ip\": \"10.1.0.32\", "
     "\"dst_ip\": \"fc00::1\"}},",
     1, 14, "TUNNEL|t1", "(sonic-tunnel.yang must)"},
    /* sonic-vlan-sub-interface.yang name: its parent, before the ".",
     * a PORT or PORTCHANNEL name or their short forms "Eth" and "Po" */
    {"a sub-interface of no port", 1, "{", "{ \"VLAN_SUB_INTERFACE\": {\"Eth9.10\": {}},", 1, 26,
     "VLAN_SUB_INTERFACE|Eth9.10", "please follow vlan sub interface naming convention"},
    {"a short sub-interface name without its VLAN", 1, "{",
     "{ \"VLAN_SUB_INTERFACE\": {\"Eth0.10\": {}},", 1, 26, "VLAN_SUB_INTERFACE|Eth0.10",
     "no encap vlan provided for short-name format"},
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
    {"a source interface of the file's", 1, "{",
     "{ \"NTP\": {\"global\": {\"src_intf\": \"Ethernet0;Loopback0;eth0;PortChannel101\"}},"},
    {"a VLAN member not in a portchannel", 899, "\"Vlan1000|Ethernet4\"", "\"Vlan1000|Ethernet0\""},
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
    {"a gateway of the prefix's family", 414, "\"1.1.1.10\"", "\"1.1.1.11\""},
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

		if (xfab_config_parse_as("rsyslog.json", ok, cfgsonic_source(XFAB_CFG_AUTO), &cfg,
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
 * reads) is listed as ignored but the 17 of them xfab implements, and no
 * other table is. */
static void ignored_are_the_rest(const char *text, const struct xfab_config *cfg)
{
	/* the tables xfab gives a meaning (docs/CONFIG.md) */
	static const char *const xfab[] = {"CABLE_LENGTH",
					   "DEVICE_METADATA",
					   "INTERFACE",
					   "PORT",
					   "VNET",
					   "VXLAN_TUNNEL",
					   "COPP_GROUP",
					   "COPP_TRAP",
					   "STATIC_ROUTE",
					   "LOOPBACK_INTERFACE",
					   "FG_NHG",
					   "FG_NHG_MEMBER",
					   "FG_NHG_PREFIX",
					   "TC_TO_QUEUE_MAP",
					   "MAP_PFC_PRIORITY_TO_QUEUE",
					   "TC_TO_PRIORITY_GROUP_MAP",
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
	for (int i = 0; i < cfg->n_ignored; i++)
		fields += strchr(cfg->ignored[i], '.') != NULL;
	assert_int_equal(tables, 159);
	assert_int_equal(cfg->n_ignored - fields, tables);
}

static int load_text(const char *text, struct xfab_config *cfg, struct xfab_cfg_errors *errs)
{
	return xfab_config_parse_as("sample.json", text, cfgsonic_source(XFAB_CFG_AUTO), cfg, errs);
}

/* sonic-yang-models' own sample (yang_sample_config_db.merged.json, 192
 * tables, valid by SONiC's YANG), less the tables xfab refuses in it:
 * BUFFER_POOL (a shared headroom pool: BUFFER_POOL's xoff), BUFFER_PROFILE
 * and BUFFER_PG (profiles in that pool), SCHEDULER (shaped: cir/pir),
 * QUEUE (naming those schedulers), PORT_QOS_MAP (lossless priorities on
 * ports without xfab's rate), DSCP_TO_TC_MAP (two maps; xfab has one),
 * NEIGH on a VLAN interface and VNET_ROUTE(_TUNNEL)'s lists of ports and
 * MACs (xfab's own limits). Every reference and rule of the 182 tables left
 * holds but the four references into the BUFFER_PROFILE removed
 * (sonic-buffer-queue.yang, sonic-buffer-port-*-profile-list.yang: profile
 * and profile_list name BUFFER_PROFILE entries); without the tables that
 * hold those (and those xfab refuses once its features read the rest), the
 * file is accepted: the 17 tables xfab reads (ignored_are_the_rest's list)
 * are not listed as ignored, each of the other 159 is. */
static void sonic_sample(void **state)
{
	static const char *const drop[] = {
	    "BUFFER_PROFILE", "BUFFER_PG",   "QUEUE", "PORT_QOS_MAP", "DSCP_TO_TC_MAP",
	    "SCHEDULER",      "BUFFER_POOL", "NEIGH", "VNET_ROUTE",   "VNET_ROUTE_TUNNEL"};
	static const char *const dangling[][2] = {
	    {"BUFFER_QUEUE|Ethernet10|4.profile", "no BUFFER_PROFILE|egress_lossy_profile "
						  "(sonic-buffer-queue.yang leafref)"},
	    {"BUFFER_PORT_INGRESS_PROFILE_LIST|Ethernet9.profile_list",
	     "no BUFFER_PROFILE|ingress_lossy_profile "
	     "(sonic-buffer-port-ingress-profile-list.yang leafref)"},
	    {"BUFFER_PORT_EGRESS_PROFILE_LIST|Ethernet9.profile_list",
	     "no BUFFER_PROFILE|egress_lossless_profile "
	     "(sonic-buffer-port-egress-profile-list.yang leafref)"},
	    {"BUFFER_PORT_EGRESS_PROFILE_LIST|Ethernet9.profile_list",
	     "no BUFFER_PROFILE|egress_lossy_profile "
	     "(sonic-buffer-port-egress-profile-list.yang leafref)"},
	};
	/* and those that hold them; PFC_WD (its ports lose their lossless
	 * priorities with PORT_QOS_MAP) and the ACL tables, xfab's, of types
	 * and stages xfab does not implement */
	static const char *const then[] = {"BUFFER_QUEUE",
					   "BUFFER_PORT_INGRESS_PROFILE_LIST",
					   "BUFFER_PORT_EGRESS_PROFILE_LIST",
					   "PFC_WD",
					   "ACL_TABLE",
					   "ACL_RULE"};
	char *text = read_data("yang_sample_config_db.merged.json");
	struct xfab_cfg_errors errs;
	struct xfab_config cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		drop_table(text, drop[i]);
	assert_int_equal(load_text(text, &cfg, &errs), -1);
	assert_int_equal(errs.total, 4);
	for (int i = 0; i < 4; i++) {
		assert_string_equal(errs.e[i].key, dangling[i][0]);
		assert_string_equal(errs.e[i].msg, dangling[i][1]);
	}
	for (size_t i = 0; i < sizeof(then) / sizeof(then[0]); i++)
		drop_table(text, then[i]);
	if (load_text(text, &cfg, &errs)) {
		char got[1024];

		xfab_cfg_error_format(&errs.e[0], got, sizeof(got));
		fail_msg("refused: %s", got);
	}
	assert_int_equal(cfg.sonic, 1);
	ignored_are_the_rest(text, &cfg);
	xfab_config_free(&cfg);
	free(text);
}

/* sonic-config-engine's buffer template output for a Mellanox 4600c T0
 * (buffers-mellanox4600c-t0-dynamic.json) is a fragment: BUFFER_* tables
 * naming ports of a PORT table it does not carry, which SONiC's YANG
 * (sonic-buffer-port-ingress-profile-list.yang: port, a leafref to PORT)
 * refuses as well: refused at its first such reference, whatever sqos
 * makes of BUFFER_*. */
static void buffer_fragment(void **state)
{
	char *text = read_data("buffers-mellanox4600c-t0-dynamic.json");
	struct xfab_cfg_errors errs;
	struct xfab_config cfg;

	(void)state;
	assert_null(strstr(text, "\"PORT\""));
	assert_int_equal(load_text(text, &cfg, &errs), -1);
	assert_int_equal(errs.e[0].line, 138);
	assert_int_equal(errs.e[0].col, 9);
	assert_string_equal(errs.e[0].key, "BUFFER_PORT_INGRESS_PROFILE_LIST|Ethernet248");
	assert_string_equal(errs.e[0].msg, "no PORT|Ethernet248 "
					   "(sonic-buffer-port-ingress-profile-list.yang leafref)");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(shapes),	    cmocka_unit_test(references),
	    cmocka_unit_test(rules),	    cmocka_unit_test(within_rules),
	    cmocka_unit_test(sonic_sample), cmocka_unit_test(buffer_fragment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
