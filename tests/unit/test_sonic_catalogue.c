// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SONiC's CONFIG_DB catalogue (config/sonic/catalogue.json) read through
 * user/lib/sonic_catalogue.c. Every expectation here was read off the YANG
 * text of sonic-buildimage's src/sonic-yang-models/yang-models at the
 * commit config/sonic/README.md names (file named at each), not off the
 * generator's output: tables, their keys and lists, fields and types, enum
 * values, ranges, and the refusals (unknown table, unknown field, bad enum
 * value, out-of-range integer, non-boolean) with their messages. Then
 * our own config_db.json files in SONiC's shape (tests/data/sonic): every
 * table, key and field is in the catalogue and every value fits its type;
 * a broken address is found. Last, scripts/sonic-catalogue on small YANG
 * modules written here in SONiC's style (the real tree is not in this
 * repository: config/sonic/README.md says how a maintainer regenerates
 * and checks the catalogue). No root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "json.h"
#include "scripttree.h"
#include "sonic_catalogue.h"
#include "srcdir.h"
#include "textfile.h"
#include "sonicdata.h"

static struct xfab_sonic_catalogue *cat;

static int load(void **state)
{
	char path[4200], err[300];

	(void)state;
	snprintf(path, sizeof(path), "%s/config/sonic/catalogue.json", test_srcdir());
	cat = xfab_sonic_load(path, err, sizeof(err));
	if (!cat)
		fprintf(stderr, "%s\n", err);
	return cat ? 0 : -1;
}

static int unload(void **state)
{
	(void)state;
	xfab_sonic_free(cat);
	return 0;
}

static const char *type_of(const char *table, const char *field)
{
	const struct json_value *t = xfab_sonic_field(cat, table, field);
	const struct json_value *name = xfab_json_get(t, "type");

	assert_non_null(name);
	return name->str;
}

static void keys_are(const struct json_value *list, const char *k1, const char *k2)
{
	const struct json_value *keys = xfab_json_get(list, "keys");

	assert_non_null(keys);
	assert_int_equal(keys->count, k2 ? 2 : 1);
	assert_string_equal(keys->children[0].str, k1);
	if (k2)
		assert_string_equal(keys->children[1].str, k2);
}

/* Each of the space-separated names is a field of list. */
static void has_fields(const struct json_value *list, const char *names)
{
	char name[64];

	for (int n = 0; sscanf(names, "%63s%n", name, &n) == 1; names += n)
		if (!xfab_sonic_list_field(list, name))
			fail_msg("%s has no field %s", xfab_json_get(list, "name")->str, name);
}

static void source_named(void **state)
{
	(void)state;
	assert_string_equal(xfab_sonic_source(cat, "repo"),
			    "https://github.com/sonic-net/sonic-buildimage");
	assert_string_equal(xfab_sonic_source(cat, "commit"),
			    "fde92d26cb6a743e4ca290b8591736f377db741b");
	assert_string_equal(xfab_sonic_source(cat, "release"), "202511");
	assert_string_equal(xfab_sonic_source(cat, "licence"), "Apache-2.0");
	assert_null(xfab_sonic_source(cat, "nothing"));
	/* sonic-*.yang at that commit hold some 200 CONFIG_DB tables */
	assert_in_range(xfab_sonic_table_count(cat), 180, 260);
}

/* ---- tables, lists, keys, fields, base types ---- */

/* sonic-port.yang: PORT_LIST key "name"; lanes a mandatory string;
 * adv_speeds a leaf-list. sonic-device_metadata.yang: container localhost
 * (a fixed key), bgp_asn inet:as-number (RFC 6991: uint32). */
static void port_and_device(void **state)
{
	const struct json_value *dm = xfab_sonic_table(cat, "DEVICE_METADATA");

	(void)state;
	assert_true(xfab_sonic_is_table(cat, "PORT"));
	keys_are(xfab_sonic_list_for_key(xfab_sonic_table(cat, "PORT"), "Ethernet0"), "name", NULL);
	assert_string_equal(type_of("PORT", "lanes"), "string");
	assert_true(xfab_json_get(xfab_sonic_field(cat, "PORT", "lanes"), "mandatory")->boolean);
	assert_true(
	    xfab_json_get(xfab_sonic_field(cat, "PORT", "adv_speeds"), "leaf_list")->boolean);
	has_fields(xfab_sonic_list_for_key(xfab_sonic_table(cat, "PORT"), "Ethernet0"),
		   "lanes index alias fec autoneg tpid pfc_asym description mtu speed");
	assert_non_null(xfab_sonic_list_for_key(dm, "localhost"));
	assert_null(xfab_sonic_list_for_key(dm, "remotehost"));
	assert_string_equal(type_of("DEVICE_METADATA", "bgp_asn"), "uint32");
	has_fields(xfab_sonic_list_for_key(dm, "localhost"),
		   "hostname hwsku platform mac bgp_asn type buffer_model");
}

/* sonic-bgp-neighbor.yang: BGP_NEIGHBOR_TEMPLATE_LIST key "neighbor" with
 * grouping sonic-bgp-cmn-neigh (sonic-bgp-common.yang: asn uint32
 * 0..4294967295, holdtime and keepalive uint16, local_addr, name,
 * nhopself and rrclient uint8 0..1, admin_status); BGP_NEIGHBOR_LIST key
 * "vrf_name neighbor" with grouping sonic-bgp-cmn (peer_group_name). */
static void bgp_neighbor(void **state)
{
	const struct json_value *t = xfab_sonic_table(cat, "BGP_NEIGHBOR");
	const struct json_value *tmpl = xfab_sonic_list_for_key(t, "10.0.0.57");
	const struct json_value *vrf = xfab_sonic_list_for_key(t, "default|10.0.0.57");

	(void)state;
	assert_string_equal(xfab_json_get(tmpl, "name")->str, "BGP_NEIGHBOR_TEMPLATE_LIST");
	keys_are(tmpl, "neighbor", NULL);
	assert_string_equal(xfab_json_get(vrf, "name")->str, "BGP_NEIGHBOR_LIST");
	keys_are(vrf, "vrf_name", "neighbor");
	assert_null(xfab_sonic_list_for_key(t, "a|b|c"));
	has_fields(tmpl, "asn name local_addr holdtime keepalive admin_status nhopself rrclient");
	assert_null(xfab_sonic_list_field(tmpl, "peer_group_name"));
	assert_non_null(xfab_sonic_list_field(vrf, "peer_group_name"));
	assert_string_equal(xfab_json_get(xfab_sonic_list_field(tmpl, "asn"), "type")->str,
			    "uint32");
}

/* sonic-static-route.yang: STATIC_ROUTE_LIST key "vrf_name prefix" with
 * nexthop, ifname, advertise, distance, nexthop-vrf, blackhole;
 * STATIC_ROUTE_TEMPLATE_LIST key "prefix" with nexthop, ifname,
 * advertise, bfd (no distance, no blackhole). sonic-syslog.yang:
 * SYSLOG_SERVER_LIST key server_address. */
static void static_route_and_syslog(void **state)
{
	const struct json_value *t = xfab_sonic_table(cat, "STATIC_ROUTE");
	const struct json_value *vrf = xfab_sonic_list_for_key(t, "default|10.1.0.0/24");
	const struct json_value *tmpl = xfab_sonic_list_for_key(t, "10.1.0.0/24");
	const struct json_value *syslog = xfab_sonic_table(cat, "SYSLOG_SERVER");
	char err[400];

	(void)state;
	keys_are(vrf, "vrf_name", "prefix");
	keys_are(tmpl, "prefix", NULL);
	has_fields(vrf, "nexthop ifname advertise distance nexthop-vrf blackhole");
	has_fields(tmpl, "nexthop ifname advertise bfd");
	assert_null(xfab_sonic_list_field(tmpl, "distance"));
	assert_null(xfab_sonic_list_field(tmpl, "blackhole"));
	assert_null(xfab_sonic_list_field(vrf, "metric"));
	/* each part of a key against its key leaf: vrf_name is "default",
	 * "mgmt" or Vrf..., prefix an inet:ip-prefix */
	assert_int_equal(xfab_sonic_check_key(vrf, "default|10.1.0.0/24", err, sizeof(err)), 0);
	assert_int_equal(xfab_sonic_check_key(vrf, "Vrf-blue|fc00::/7", err, sizeof(err)), 0);
	assert_int_equal(xfab_sonic_check_key(vrf, "blue|10.1.0.0/24", err, sizeof(err)), -1);
	assert_string_equal(err, "vrf_name \"blue\" fits none of the union's types: is not one of "
				 "default; is not one of mgmt; does not match the pattern "
				 "\"Vrf[a-zA-Z0-9_-]+\"");
	assert_int_equal(xfab_sonic_check_key(vrf, "default|10.1.0.0/33", err, sizeof(err)), -1);
	assert_string_equal(err, "prefix \"10.1.0.0/33\" is not an IP prefix");
	keys_are(xfab_sonic_list_for_key(syslog, "10.0.0.5"), "server_address", NULL);
	has_fields(xfab_sonic_list_for_key(syslog, "10.0.0.5"),
		   "source port vrf filter filter_regex protocol severity");
}

/* sonic-copp.yang: COPP_GROUP (cir, cbs, meter_type, mode, red_action,
 * trap_action, trap_priority, queue), COPP_TRAP (trap_ids, trap_group,
 * always_enabled); sonic-wred-profile.yang; sonic-buffer-profile.yang. */
static void qos_tables(void **state)
{
	(void)state;
	has_fields(xfab_sonic_list_for_key(xfab_sonic_table(cat, "COPP_GROUP"), "queue4_group1"),
		   "cir cbs meter_type mode red_action trap_action trap_priority queue");
	has_fields(xfab_sonic_list_for_key(xfab_sonic_table(cat, "COPP_TRAP"), "bgp"),
		   "trap_ids trap_group always_enabled");
	assert_string_equal(type_of("COPP_GROUP", "cir"), "uint64");
	has_fields(xfab_sonic_list_for_key(xfab_sonic_table(cat, "WRED_PROFILE"), "AZURE_LOSSLESS"),
		   "green_min_threshold green_max_threshold green_drop_probability "
		   "wred_green_enable yellow_min_threshold red_max_threshold ecn");
	assert_string_equal(type_of("WRED_PROFILE", "green_min_threshold"), "uint64");
	has_fields(xfab_sonic_list_for_key(xfab_sonic_table(cat, "BUFFER_PROFILE"), "lossless"),
		   "pool size xon xoff xon_offset dynamic_th static_th");
	assert_string_equal(type_of("BUFFER_PROFILE", "dynamic_th"), "int32");
}

/* sonic-dscp-tc-map.yang: a list in a list, DSCP_TO_TC_MAP|AZURE's fields
 * are DSCPs, each value a stypes:tc_type (uint8 0..15). */
static void maps(void **state)
{
	const struct json_value *t = xfab_sonic_table(cat, "DSCP_TO_TC_MAP");
	const struct json_value *l = xfab_sonic_list_for_key(t, "AZURE");
	const struct json_value *tc = xfab_sonic_list_field(l, "46");
	char err[200];

	(void)state;
	assert_non_null(tc);
	assert_int_equal(xfab_sonic_check_value(tc, "5", err, sizeof(err)), 0);
	assert_int_equal(xfab_sonic_check_value(tc, "16", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "out of range 0..15"));
	/* a DSCP is a name of the map's fields: its key's pattern,
	 * "6[0-3]|[1-5][0-9]?|[0-9]?", says which */
	assert_non_null(xfab_sonic_list_field(l, "63"));
	assert_null(xfab_sonic_list_field(l, "64"));
	assert_null(xfab_sonic_list_field(l, "x"));
	/* sonic-cable-length.yang: CABLE_LENGTH|AZURE maps ports to lengths,
	 * the pattern "[0-9]+m" */
	l = xfab_sonic_list_for_key(xfab_sonic_table(cat, "CABLE_LENGTH"), "AZURE");
	tc = xfab_sonic_list_field(l, "Ethernet0");
	assert_non_null(tc);
	assert_int_equal(xfab_sonic_check_value(tc, "5m", err, sizeof(err)), 0);
	assert_int_equal(xfab_sonic_check_value(tc, "5", err, sizeof(err)), -1);
}

/* Not SONiC's: APPL_DB's COPP_TABLE, xfab's ROUTE, misspellings. */
static void unknown(void **state)
{
	(void)state;
	assert_false(xfab_sonic_is_table(cat, "COPP_TABLE"));
	assert_false(xfab_sonic_is_table(cat, "ROUTE"));
	assert_false(xfab_sonic_is_table(cat, "port"));
	assert_null(xfab_sonic_field(cat, "PORT", "speeed"));
	assert_null(xfab_sonic_field(cat, "PORT", ""));
	assert_null(xfab_sonic_field(cat, "NO_SUCH_TABLE", "lanes"));
	assert_null(xfab_sonic_field(cat, "WRED_PROFILE", "green_min"));
}

/* ---- values ---- */

/* A value and what the check says: NULL when it passes, else a part of
 * the message. Each group's types as the YANG file named writes them. */
static const struct value_case {
	const char *table, *field, *value, *msg;
} value_cases[] = {
    /* sonic-port.yang: lanes a string of 1..128; fec the pattern
     * "rs|fc|none|auto"; mtu uint16 68..9216; speed uint32 1..1600000;
     * admin_status stypes:admin_status (up, down); mux_cable boolean;
     * tx_power decimal64, fraction-digits 1; adv_speeds a union of uint32
     * 1..1600000 and the pattern "all". */
    {"PORT", "lanes", "0,1,2,3", NULL},
    {"PORT", "lanes", "", "has 0 characters, not 1..128"},
    {"PORT", "fec", "rs", NULL},
    {"PORT", "fec", "fc", NULL},
    {"PORT", "fec", "none", NULL},
    {"PORT", "fec", "auto", NULL},
    {"PORT", "fec", "fast", "\"fast\" is not one of rs, fc, none, auto"},
    {"PORT", "fec", "RS", "not one of"},
    {"PORT", "mtu", "9100", NULL},
    {"PORT", "mtu", "9217", "\"9217\" is out of range 68..9216"},
    {"PORT", "mtu", "70000", "out of uint16's range"},
    {"PORT", "mtu", "9k", "is not an unsigned integer (uint16)"},
    {"PORT", "speed", "400000", NULL},
    {"PORT", "speed", "0", "out of range 1..1600000"},
    {"PORT", "admin_status", "up", NULL},
    {"PORT", "admin_status", "enabled", "\"enabled\" is not one of up, down"},
    {"PORT", "mux_cable", "true", NULL},
    {"PORT", "mux_cable", "True", "\"True\" is not a boolean (true or false)"},
    {"PORT", "tx_power", "-10.5", NULL},
    {"PORT", "tx_power", "-10.55", "at most 1 fraction digits"},
    {"PORT", "adv_speeds", "all", NULL},
    {"PORT", "adv_speeds", "100000", NULL},
    {"PORT", "adv_speeds", "any",
     "\"any\" fits none of the union's types: is not an unsigned integer (uint32); is not one "
     "of all"},
    /* sonic-device_metadata.yang: bgp_asn uint32; type a pattern of roles */
    {"DEVICE_METADATA", "bgp_asn", "65100", NULL},
    {"DEVICE_METADATA", "bgp_asn", "4294967295", NULL},
    {"DEVICE_METADATA", "bgp_asn", "4294967296", "out of uint32's range"},
    {"DEVICE_METADATA", "bgp_asn", "-1", "not an unsigned integer"},
    {"DEVICE_METADATA", "type", "LeafRouter", NULL},
    {"DEVICE_METADATA", "type", "Leaf", "is not one of ToRRouter, LeafRouter"},
    /* sonic-bgp-common.yang (both BGP_NEIGHBOR lists): holdtime uint16,
     * nhopself uint8 0..1, admin_status up/down */
    {"BGP_NEIGHBOR", "holdtime", "180", NULL},
    {"BGP_NEIGHBOR", "holdtime", "65536", "out of uint16's range"},
    {"BGP_NEIGHBOR", "nhopself", "1", NULL},
    {"BGP_NEIGHBOR", "nhopself", "2", "out of range 0..1"},
    {"BGP_NEIGHBOR", "admin_status", "down", NULL},
    /* sonic-copp.yang: cir uint64; mode sr_tcm, tr_tcm, storm; meter_type
     * stypes:meter_type (packets, bytes); trap_action
     * stypes:policer_packet_action (drop, forward, copy, ...) */
    {"COPP_GROUP", "cir", "600", NULL},
    {"COPP_GROUP", "cir", "18446744073709551615", NULL},
    {"COPP_GROUP", "cir", "18446744073709551616", "out of uint64's range"},
    {"COPP_GROUP", "mode", "sr_tcm", NULL},
    {"COPP_GROUP", "mode", "srtcm", "\"srtcm\" is not one of sr_tcm, tr_tcm, storm"},
    {"COPP_GROUP", "meter_type", "packets", NULL},
    {"COPP_GROUP", "meter_type", "pps", "is not one of packets, bytes"},
    {"COPP_GROUP", "trap_action", "trap", NULL},
    {"COPP_GROUP", "trap_action", "punt", "is not one of drop, forward, copy"},
    /* sonic-wred-profile.yang: green_min_threshold uint64; wred_green_enable
     * boolean; ecn an enumeration ecn_none, ecn_green, ..., ecn_all.
     * sonic-buffer-profile.yang: dynamic_th int32 -8..7 */
    {"WRED_PROFILE", "green_min_threshold", "1048576", NULL},
    {"WRED_PROFILE", "green_min_threshold", "-1", "not an unsigned integer"},
    {"WRED_PROFILE", "wred_green_enable", "true", NULL},
    {"WRED_PROFILE", "wred_green_enable", "yes", "not a boolean"},
    {"WRED_PROFILE", "ecn", "ecn_all", NULL},
    {"WRED_PROFILE", "ecn", "ecn_green", NULL},
    {"WRED_PROFILE", "ecn", "ecn_blue", "\"ecn_blue\" is not one of ecn_none, ecn_green"},
    {"BUFFER_PROFILE", "dynamic_th", "-8", NULL},
    {"BUFFER_PROFILE", "dynamic_th", "7", NULL},
    {"BUFFER_PROFILE", "dynamic_th", "0", NULL},
    {"BUFFER_PROFILE", "dynamic_th", "8", "\"8\" is out of range -8..7"},
    {"BUFFER_PROFILE", "dynamic_th", "-9", "out of range -8..7"},
    /* sonic-syslog.yang: port inet:port-number (uint16); protocol tcp/udp;
     * filter include/exclude; severity none..crit; vrf a union of a VRF
     * (leafref: a reference, not followed here) and default/mgmt */
    {"SYSLOG_SERVER", "port", "514", NULL},
    {"SYSLOG_SERVER", "port", "65536", "out of uint16's range"},
    {"SYSLOG_SERVER", "protocol", "udp", NULL},
    {"SYSLOG_SERVER", "protocol", "quic", "is not one of tcp, udp"},
    {"SYSLOG_SERVER", "filter", "exclude", NULL},
    {"SYSLOG_SERVER", "severity", "crit", NULL},
    {"SYSLOG_SERVER", "severity", "critical", "is not one of none, debug, info"},
    {"SYSLOG_SERVER", "vrf", "mgmt", NULL},
    {"SYSLOG_SERVER", "vrf", "Vrf_red", NULL},
    {"SYSLOG_SERVER", "source", "10.1.0.32", NULL},
    {"SYSLOG_SERVER", "source", "fc00::1", NULL},
    {"SYSLOG_SERVER", "source", "10.1.0.320", "\"10.1.0.320\" is not an IP address"},
    /* sonic-static-route.yang: patterns, "((true|false),)*(true|false)"
     * and distances 0..255 in a comma-separated list */
    {"STATIC_ROUTE", "blackhole", "true", NULL},
    {"STATIC_ROUTE", "blackhole", "false,true", NULL},
    {"STATIC_ROUTE", "blackhole", "yes",
     "\"yes\" does not match the pattern \"((true|false),)*(true|false)\""},
    {"STATIC_ROUTE", "blackhole", "true,", "does not match the pattern"},
    {"STATIC_ROUTE", "distance", "0,20,255", NULL},
    {"STATIC_ROUTE", "distance", "256", "does not match the pattern"},
    {"STATIC_ROUTE", "nexthop-vrf", "Vrf-blue,default", NULL},
    {"STATIC_ROUTE", "nexthop-vrf", "blue", "does not match the pattern"},
};

static void values(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(value_cases) / sizeof(value_cases[0]); i++) {
		const struct value_case *c = &value_cases[i];
		const struct json_value *type = xfab_sonic_field(cat, c->table, c->field);
		char err[400] = "";
		int rc;

		if (!type)
			fail_msg("%s.%s: no such field", c->table, c->field);
		rc = xfab_sonic_check_value(type, c->value, err, sizeof(err));
		if (!c->msg && rc)
			fail_msg("%s.%s = \"%s\": %s", c->table, c->field, c->value, err);
		if (c->msg && rc == 0)
			fail_msg("%s.%s = \"%s\" passed", c->table, c->field, c->value);
		if (c->msg && !strstr(err, c->msg))
			fail_msg("%s.%s = \"%s\": \"%s\" lacks \"%s\"", c->table, c->field,
				 c->value, err, c->msg);
	}
}

/* config_db.json values: strings; a leaf-list an array of strings, or for
 * the few SONiC keeps as one string (sonic_yang_ext.py's
 * LEAF_LIST_WITH_STRING_VALUE_DICT: PORT.adv_speeds "100000,50000") the
 * items between separators. */
static void json_values(void **state)
{
	const struct json_value *speeds = xfab_sonic_field(cat, "PORT", "adv_speeds");
	const struct json_value *mtu = xfab_sonic_field(cat, "PORT", "mtu");
	const struct json_value *lanes = xfab_sonic_field(cat, "PORT", "lanes");
	struct json_pos pos;
	struct json_value *doc;
	char err[400];

	(void)state;
	doc = xfab_json_parse("[\"9100\", 9100, [\"100000\", \"all\"], [\"1000\", \"0\"], "
			      "\"100000, 50000\", \"100000,fast\", [\"1,2\"]]",
			      err, sizeof(err), &pos);
	assert_non_null(doc);
	assert_int_equal(xfab_sonic_check_json(mtu, &doc->children[0], err, sizeof(err)), 0);
	assert_int_equal(xfab_sonic_check_json(mtu, &doc->children[1], err, sizeof(err)), -1);
	assert_string_equal(err, "a number, where SONiC's values are strings");
	assert_int_equal(xfab_sonic_check_json(speeds, &doc->children[2], err, sizeof(err)), 0);
	assert_int_equal(xfab_sonic_check_json(speeds, &doc->children[3], err, sizeof(err)), -1);
	assert_non_null(strstr(err, "element 2: \"0\""));
	assert_int_equal(xfab_sonic_check_json(speeds, &doc->children[4], err, sizeof(err)), 0);
	assert_int_equal(xfab_sonic_check_json(speeds, &doc->children[5], err, sizeof(err)), -1);
	assert_non_null(strstr(err, "item 2 of \"100000,fast\": \"fast\""));
	/* lanes is a plain string: an array is not for it */
	assert_int_equal(xfab_sonic_check_json(lanes, &doc->children[6], err, sizeof(err)), -1);
	assert_string_equal(err, "an array, where SONiC's values are strings");
	xfab_json_free(doc);
}

/* ---- SONiC's own files ---- */

struct scan {
	char problems[8192]; /* one line each: "TABLE|key.field: why" */
	size_t at;
	unsigned int tables, entries, fields;
};

static void problem(struct scan *s, const char *fmt, ...)
{
	va_list ap;

	if (s->at >= sizeof(s->problems))
		return;
	va_start(ap, fmt);
	s->at += vsnprintf(s->problems + s->at, sizeof(s->problems) - s->at, fmt, ap);
	va_end(ap);
}

static void scan_entry(struct scan *s, const char *table, const struct json_value *list,
		       const struct json_value *entry)
{
	char err[400];

	for (unsigned int f = 0; f < entry->count; f++) {
		const struct json_value *v = &entry->children[f];
		const struct json_value *type = xfab_sonic_list_field(list, v->key);

		s->fields++;
		if (!type)
			problem(s, "%s|%s.%s: no such field\n", table, entry->key, v->key);
		else if (xfab_sonic_check_json(type, v, err, sizeof(err)))
			problem(s, "%s|%s.%s: %s\n", table, entry->key, v->key, err);
	}
}

/* Every table, key and field of a config_db.json object checked. */
static void scan_db(struct scan *s, const struct json_value *db)
{
	char err[400];

	for (unsigned int t = 0; t < db->count; t++) {
		const struct json_value *tab = &db->children[t];
		const struct json_value *cat_tab = xfab_sonic_table(cat, tab->key);

		s->tables++;
		if (!cat_tab) {
			problem(s, "%s: no such table\n", tab->key);
			continue;
		}
		for (unsigned int e = 0; e < tab->count; e++) {
			const struct json_value *entry = &tab->children[e];
			const struct json_value *list =
			    xfab_sonic_list_for_key(cat_tab, entry->key);

			s->entries++;
			if (!list)
				problem(s, "%s|%s: no list of the table has such a key\n", tab->key,
					entry->key);
			else if (xfab_sonic_check_key(list, entry->key, err, sizeof(err)))
				problem(s, "%s|%s: %s\n", tab->key, entry->key, err);
			else
				scan_entry(s, tab->key, list, entry);
		}
	}
}

/* Scans text (NAME's) and compares what it finds with expected (lines, in
 * the file's order): at least min_tables tables and min_fields fields. */
static void scan_text(const char *name, const char *text, const char *expected,
		      unsigned int min_tables, unsigned int min_fields)
{
	char err[300];
	struct json_pos pos = {0, 0};
	struct json_value *doc;
	struct scan s = {.at = 0};

	doc = xfab_json_parse(text, err, sizeof(err), &pos);
	if (!doc)
		fail_msg("%s:%d:%d: %s", name, pos.line, pos.col, err);
	scan_db(&s, doc);
	xfab_json_free(doc);
	printf("%s: %u tables, %u entries, %u fields\n", name, s.tables, s.entries, s.fields);
	if (strcmp(s.problems, expected))
		fail_msg("%s: found\n%s-- expected\n%s", name, s.problems, expected);
	assert_true(s.tables >= min_tables);
	assert_true(s.fields >= min_fields);
}

/* text with its first `from` made `to` (text freed; a new one). */
static char *mend(char *text, const char *from, const char *to)
{
	char *out = sonicdata_edit(text, NULL, from, to);

	free(text);
	return out;
}

/* A member repeated (DHCP_SERVER's "192.0.0.1"), which Python's json
 * takes silently, is refused by xfab's reader at the repeat's key. */
static void repeats_refused(void)
{
	char *text = sonicdata_text("t0-config_db.json"), err[300];
	struct json_pos pos = {0, 0};

	text = mend(text, "\"192.0.0.2\"", "\"192.0.0.1\"");
	assert_null(xfab_json_parse(text, err, sizeof(err), &pos));
	free(text);
	assert_int_equal(pos.line, 291);
	assert_int_equal(pos.col, 9);
	assert_non_null(strstr(err, "duplicate key \"192.0.0.1\""));
}

/* "fc00:250:::20" (three colons) is no IPv6 address: SONiC's
 * sonic-ip6-prefix patterns (sonic-types.yang) refuse it */
static const char bad_prefix[] =
    "MGMT_INTERFACE|eth0|fc00:250:::20/64: ip_prefix \"fc00:250:::20/64\" fits none of the "
    "union's types: does not match the pattern "
    "\"(([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])\\.){3}"
    "([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])/(([0-9])|([1-2][0-9])|(3[0-2]))\"; "
    "does not match the pattern \"(([^:]+:){6}(([^:]+:[^:]+)|(.*\\..*)))|"
    "((([^:]+:)*[^:]+)?::(([^:]+:)*[^:]+)?)(/.+)\"\n";

/* Our own files in SONiC's shape (tests/data/sonic/README.md): every
 * table, key and field is SONiC's and fits its type (counts by Python's
 * json: 43 tables and 757 fields; 8 and 526; 9 and 44); one address
 * broken is found. */
static void sonic_files(void **state)
{
	static const char *const files[] = {"t0-config_db.json", "qos-t0.json", "buffers-t0.json"};
	static const unsigned int tables[] = {43, 8, 9}, fields[] = {757, 526, 44};
	char *text;

	(void)state;
	repeats_refused();
	for (size_t i = 0; i < 3; i++) {
		text = sonicdata_text(files[i]);
		scan_text(files[i], text, "", tables[i], fields[i]);
		free(text);
	}
	text = sonicdata_text("t0-config_db.json");
	text = mend(text, "fc00:250::20/64", "fc00:250:::20/64");
	/* the broken entry's one field, gwaddr, is not scanned */
	scan_text("t0-config_db.json, broken", text, bad_prefix, 43, 756);
	free(text);
}

/* ---- the generator on a planted tree ---- */

/* The planted tree's directory, made by a test and removed after it even
 * when it fails. */
static char tmp_dir[64];

static const char *make_tmp(void)
{
	snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/xfab-soncat-XXXXXX");
	assert_non_null(mkdtemp(tmp_dir));
	return tmp_dir;
}

static int remove_tmp(void **state)
{
	char cmd[128];

	(void)state;
	if (!tmp_dir[0])
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp_dir);
	tmp_dir[0] = '\0';
	return system(cmd) == 0 ? 0 : -1;
}

static const char planted_types[] =
    "{% if yang_model_type == \"cvl\" %}\n/* cvl */\n{% else %}\n/* py */\n{% endif %}\n"
    "module sonic-mini-types {\n"
    "  namespace \"urn:mini-types\"; prefix mt;\n"
    "  typedef speed { type uint32 { range \"1..100 | 200\"; } }\n"
    "  typedef mode { type enumeration { enum a; enum b; } }\n"
    "  grouping common {\n"
    "    leaf shared { type mode; }\n"
    "    leaf-list tags { type string; }\n"
    "  }\n"
    "}\n";

static const char planted_mini[] =
    "module sonic-mini {\n"
    "  namespace \"urn:mini\"; prefix mini;\n"
    "  import sonic-mini-types { prefix mt; }\n"
    "  import ietf-inet-types { prefix inet; }\n"
    "  /* a comment { with braces } */\n"
    "  container sonic-mini {\n"
    "    container MINI {\n"
    "      list MINI_LIST {\n"
    "        key \"name\";\n"
    "        leaf name { type string; }\n"
    "        leaf speed { type mt:speed { range \"1..50\"; } } // narrowed\n"
    "        leaf low { type mt:speed { range \"min..10\"; } } // min: the typedef's\n"
    "        leaf addr { type inet:ip-address; }\n"
    "        leaf asn { type inet:as-number; }\n"
    "        leaf word { type string { pattern 'on|off'; } }\n"
    "        leaf joined { type string { pattern \"a\" + 'b+'; } }\n"
    "        choice c {\n"
    "          case x { leaf cx { type boolean; } }\n"
    "          case y { leaf cy { type int8; } }\n"
    "        }\n"
    "        uses mt:common { refine shared { mandatory true; } }\n"
    "      }\n"
    "    }\n"
    "    container MINI_GLOBAL {\n"
    "      container global { leaf on { type boolean; default \"true\"; } }\n"
    "    }\n"
    "    container MINI_MAP {\n"
    "      list MINI_MAP_LIST {\n"
    "        key name;\n"
    "        leaf name { type string; }\n"
    "        list MINI_MAP { key k; leaf k { type string { pattern \"[0-9]+\"; } }\n"
    "                        leaf v { type uint8; } }\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n";

/* sonic-events-* declare events, not tables */
static const char planted_events[] = "module sonic-events-mini {\n"
				     "  namespace \"urn:ev\"; prefix ev;\n"
				     "  container sonic-events-mini {\n"
				     "    container EVENT_T { leaf x { type string; } }\n"
				     "  }\n"
				     "}\n";

/* Generates dir's catalogue into dir/cat.json; the generator's status. */
static int generate(const char *dir, char *out, size_t cap)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 %s/scripts/sonic-catalogue --yang %s --out %s/cat.json 2>&1",
		 test_srcdir(), dir, dir);
	return test_run_cmd(cmd, out, cap);
}

static void planted_constructs(struct xfab_sonic_catalogue *mini)
{
	const struct json_value *l;
	char err[300];

	assert_true(xfab_sonic_is_table(mini, "MINI"));
	assert_false(xfab_sonic_is_table(mini, "EVENT_T"));
	assert_int_equal(xfab_sonic_table_count(mini), 3);
	l = xfab_sonic_list_for_key(xfab_sonic_table(mini, "MINI"), "x");
	/* an imported typedef, narrowed: 1..50 of 1..100 | 200 */
	assert_int_equal(xfab_sonic_check_value(xfab_sonic_list_field(l, "speed"), "50", err, 300),
			 0);
	assert_int_equal(xfab_sonic_check_value(xfab_sonic_list_field(l, "speed"), "200", err, 300),
			 -1);
	assert_string_equal(err, "\"200\" is out of range 1..50");
	assert_int_equal(xfab_sonic_check_value(xfab_sonic_list_field(l, "low"), "0", err, 300),
			 -1);
	assert_string_equal(err, "\"0\" is out of range 1..10");
	assert_string_equal(xfab_json_get(xfab_sonic_list_field(l, "asn"), "type")->str, "uint32");
	assert_int_equal(
	    xfab_sonic_check_value(xfab_sonic_list_field(l, "addr"), "1.2.3", err, 300), -1);
	assert_int_equal(xfab_sonic_check_value(xfab_sonic_list_field(l, "word"), "of", err, 300),
			 -1);
	assert_string_equal(err, "\"of\" is not one of on, off");
	/* "a" + 'b+' is one pattern, ab+ */
	assert_int_equal(
	    xfab_sonic_check_value(xfab_sonic_list_field(l, "joined"), "abb", err, 300), 0);
	assert_int_equal(xfab_sonic_check_value(xfab_sonic_list_field(l, "joined"), "a", err, 300),
			 -1);
	/* XSD patterns match the whole value: ab+ inside "xabb" is no match */
	assert_int_equal(
	    xfab_sonic_check_value(xfab_sonic_list_field(l, "joined"), "xabb", err, 300), -1);
	/* choice and case, a grouping with its refine */
	assert_string_equal(xfab_json_get(xfab_sonic_list_field(l, "cx"), "type")->str, "boolean");
	assert_string_equal(xfab_json_get(xfab_sonic_list_field(l, "cy"), "type")->str, "int8");
	assert_true(xfab_json_get(xfab_sonic_list_field(l, "shared"), "mandatory")->boolean);
	assert_true(xfab_json_get(xfab_sonic_list_field(l, "tags"), "leaf_list")->boolean);
	l = xfab_sonic_list_for_key(xfab_sonic_table(mini, "MINI_GLOBAL"), "global");
	assert_string_equal(xfab_json_get(xfab_sonic_list_field(l, "on"), "default")->str, "true");
	l = xfab_sonic_list_for_key(xfab_sonic_table(mini, "MINI_MAP"), "m1");
	assert_string_equal(xfab_json_get(xfab_sonic_list_field(l, "12"), "type")->str, "uint8");
	assert_null(xfab_sonic_list_field(l, "ab"));
}

/* What the generator reads, planted: a template, an imported typedef
 * narrowed, an ietf type, patterns (one joined with +), choice, a grouping
 * refined, a fixed-key container, a map, an events module. Then a broken
 * file is refused with its line, and --check finds an edit. */
static void generator_planted(void **state)
{
	const char *dir = make_tmp();
	char path[512], cmd[1200], out[4096], err[300];
	struct xfab_sonic_catalogue *mini;

	(void)state;
	test_put_file(dir, "SOURCE.json", "{\"repo\": \"planted\", \"licence\": \"none\"}\n");
	test_put_file(dir, "yang-templates/sonic-mini-types.yang.j2", planted_types);
	test_put_file(dir, "yang-models/sonic-mini.yang", planted_mini);
	test_put_file(dir, "yang-models/sonic-events-mini.yang", planted_events);
	if (generate(dir, out, sizeof(out)))
		fail_msg("%s", out);
	snprintf(path, sizeof(path), "%s/cat.json", dir);
	mini = xfab_sonic_load(path, err, sizeof(err));
	assert_non_null(mini);
	assert_string_equal(xfab_sonic_source(mini, "repo"), "planted");
	planted_constructs(mini);
	xfab_sonic_free(mini);
	/* --check: an edit of the catalogue is found */
	snprintf(
	    cmd, sizeof(cmd),
	    "sed -i 's/\"uint8\"/\"uint16\"/' %s && /usr/bin/python3 %s/scripts/sonic-catalogue "
	    "--yang %s --check %s 2>&1",
	    path, test_srcdir(), dir, path);
	assert_int_equal(test_run_cmd(cmd, out, sizeof(out)), 1);
	assert_non_null(strstr(out, "differs from what"));
	/* a statement left open: the file and line named, status 2 */
	test_put_file(dir, "yang-models/sonic-broken.yang", "module sonic-broken {\n  leaf x {\n");
	assert_int_equal(generate(dir, out, sizeof(out)), 2);
	assert_non_null(strstr(out, "sonic-broken.yang"));
}

/* v as compact JSON (strings unescaped, numbers as written) into buf, for
 * comparing a compiled rule with one written by hand. */
static void compact(const struct json_value *v, char *buf, size_t len)
{
	size_t at = strlen(buf);

	if (at + 1 >= len)
		return;
	if (v->type == JSON_STRING)
		snprintf(buf + at, len - at, "\"%s\"", v->str);
	else if (v->type == JSON_NUMBER)
		snprintf(buf + at, len - at, "%s", v->str);
	else if (v->type == JSON_NULL)
		snprintf(buf + at, len - at, "null");
	else if (v->type == JSON_ARRAY) {
		snprintf(buf + at, len - at, "[");
		for (unsigned int i = 0; i < v->count; i++) {
			if (i)
				snprintf(buf + strlen(buf), len - strlen(buf), ",");
			compact(&v->children[i], buf, len);
		}
		snprintf(buf + strlen(buf), len - strlen(buf), "]");
	} else
		snprintf(buf + at, len - at, "?");
}

static void tree_is(const struct json_value *holder, const char *slot, const char *want)
{
	char got[2048] = "";
	const struct json_value *t = holder ? xfab_json_get(holder, slot) : NULL;

	assert_non_null(t);
	compact(t, got, sizeof(got));
	assert_string_equal(got, want);
}

/* The first must rule of field in table's list for key. */
static const struct json_value *first_must(const struct xfab_sonic_catalogue *c, const char *table,
					   const char *key, const char *field)
{
	const struct json_value *l = xfab_sonic_list_for_key(xfab_sonic_table(c, table), key);
	const struct json_value *t = field ? xfab_sonic_list_field(l, field) : l;
	const struct json_value *must = xfab_json_get(t, "must");

	assert_non_null(must);
	return &must->children[0];
}

static const char planted_rules[] =
    "module sonic-rules {\n"
    "  namespace \"urn:rules\"; prefix r;\n"
    "  container sonic-rules {\n"
    "    container R {\n"
    "      list R_LIST {\n"
    "        key \"name\";\n"
    "        must \"count(../R_LIST) <= 4 and not(contains(name, 'x'))\";\n"
    "        leaf name { type string; }\n"
    "        leaf to { type leafref { path \"/r:sonic-rules/r:R/r:R_LIST/r:name\"; } }\n"
    "        leaf rel { type leafref {\n"
    "          path \"../../../R/R_LIST[name=current()/../to]/lo\"; } }\n"
    "        leaf lo { type uint8; }\n"
    "        leaf hi { type uint8; must \"current() > ../lo\" { error-message \"hi > lo\"; } }\n"
    "        leaf rx { type string; must \"re-match(current(), 'a+')\"; }\n"
    "        leaf w { type string; when \"../lo = '3' or ../hi * 2 >= 10\"; }\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n";

/* Rules and leafrefs compiled to the trees config/sonic/README.md
 * describes, written out by hand here; re-match is outside the subset,
 * kept as text, counted as skipped; --check prints the counts. */
static void generator_rules(void **state)
{
	const char *dir = make_tmp();
	char path[512], out[4096], err[300], cmd[1200];
	struct xfab_sonic_catalogue *r;
	const struct json_value *l, *rx;

	(void)state;
	test_put_file(dir, "SOURCE.json", "{\"repo\": \"planted\"}\n");
	test_put_file(dir, "yang-models/sonic-rules.yang", planted_rules);
	mkdir(strcat(strcpy(path, dir), "/yang-templates"), 0700);
	if (generate(dir, out, sizeof(out)))
		fail_msg("%s", out);
	snprintf(path, sizeof(path), "%s/cat.json", dir);
	r = xfab_sonic_load(path, err, sizeof(err));
	assert_non_null(r);
	l = xfab_sonic_list_for_key(xfab_sonic_table(r, "R"), "a");
	tree_is(first_must(r, "R", "a", NULL), "tree",
		"[\"and\",[\"<=\",[\"fn\",\"count\",[\"select\",\"R\",\"R_LIST\",[],null]],"
		"[\"num\",4]],[\"fn\",\"not\",[\"fn\",\"contains\",[\"field\",\"name\"],"
		"[\"str\",\"x\"]]]]");
	tree_is(xfab_sonic_list_field(l, "to"), "ref", "[\"select\",\"R\",\"R_LIST\",[],\"name\"]");
	tree_is(xfab_sonic_list_field(l, "rel"), "ref",
		"[\"select\",\"R\",\"R_LIST\",[[\"name\",[\"field\",\"to\"]]],\"lo\"]");
	tree_is(first_must(r, "R", "a", "hi"), "tree", "[\">\",[\"cur\"],[\"field\",\"lo\"]]");
	/* SONiC's error-message is prose, not kept: the checker words its own */
	assert_null(xfab_json_get(first_must(r, "R", "a", "hi"), "error"));
	tree_is(xfab_sonic_list_field(l, "w"), "when_tree",
		"[\"or\",[\"=\",[\"field\",\"lo\"],[\"str\",\"3\"]],[\">=\",[\"*\",[\"field\","
		"\"hi\"],[\"num\",2]],[\"num\",10]]]");
	rx = first_must(r, "R", "a", "rx");
	assert_null(xfab_json_get(rx, "tree"));
	assert_string_equal(xfab_json_get(rx, "expr")->str, "re-match(current(), 'a+')");
	xfab_sonic_free(r);
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 %s/scripts/sonic-catalogue --yang %s --check %s 2>&1",
		 test_srcdir(), dir, path);
	assert_int_equal(test_run_cmd(cmd, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "must/when rules: 3 compiled, 1 skipped"));
	assert_non_null(strstr(out, "leafrefs: 2 compiled, 0 skipped"));
	/* --yang names sonic-buildimage's yang-models itself just as well */
	snprintf(
	    cmd, sizeof(cmd),
	    "/usr/bin/python3 %s/scripts/sonic-catalogue --yang %s/yang-models --check %s 2>&1",
	    test_srcdir(), dir, path);
	assert_int_equal(test_run_cmd(cmd, out, sizeof(out)), 0);
	/* no tree in this repository to default to: --yang is required */
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/scripts/sonic-catalogue 2>&1",
		 test_srcdir());
	assert_int_equal(test_run_cmd(cmd, out, sizeof(out)), 2);
	assert_non_null(strstr(out, "--yang"));
}

/* SONiC's own rules in the committed catalogue, compiled as their YANG
 * reads (sonic-vlan.yang's vlanid, sonic-buffer-pg.yang's profile,
 * sonic-pfc-wd.yang's detection_time); the six outside the subset
 * (re-match, text(), "." in a predicate) kept as text. */
static void rules_counted(void **state)
{
	static const char *const skipped[][3] = {
	    {"HIGH_FREQUENCY_TELEMETRY_GROUP", "g|PORT", "object_counters"},
	    {"HIGH_FREQUENCY_TELEMETRY_GROUP", "g|PORT", "object_names"},
	    {"PBH_HASH_FIELD", "f", "ip_mask"},
	    {"PORT", "Ethernet0", NULL},
	};
	const struct json_value *l;

	(void)state;
	tree_is(first_must(cat, "VLAN", "Vlan100", "vlanid"), "tree",
		"[\"=\",[\"fn\",\"substring-after\",[\"field\",\"name\"],[\"str\",\"Vlan\"]],"
		"[\"cur\"]]");
	/* its expression kept, not SONiC's error-message */
	assert_string_equal(
	    xfab_json_get(first_must(cat, "VLAN", "Vlan100", "vlanid"), "expr")->str,
	    "substring-after(../name, 'Vlan') = current()");
	assert_null(xfab_json_get(first_must(cat, "VLAN", "Vlan100", "vlanid"), "error"));
	l = xfab_sonic_list_for_key(xfab_sonic_table(cat, "BUFFER_PG"), "Ethernet0|3");
	tree_is(&xfab_json_get(xfab_sonic_list_field(l, "profile"), "types")->children[0], "ref",
		"[\"select\",\"BUFFER_PROFILE\",\"BUFFER_PROFILE_LIST\",[],\"name\"]");
	l = xfab_sonic_list_for_key(xfab_sonic_table(cat, "PFC_WD"), "Ethernet0");
	tree_is(
	    &xfab_json_get(xfab_sonic_list_field(l, "detection_time"), "must")->children[1], "tree",
	    "[\"or\",[\"fn\",\"not\",[\"fn\",\"boolean\",[\"select\",\"PFC_WD\",\"PFC_WD_LIST\","
	    "[[\"ifname\",[\"str\",\"GLOBAL\"]]],null]]],[\">=\",[\"cur\"],[\"select\","
	    "\"PFC_WD\",\"PFC_WD_LIST\",[[\"ifname\",[\"str\",\"GLOBAL\"]]],\"POLL_INTERVAL\"]]]");
	for (size_t i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++)
		assert_null(xfab_json_get(
		    first_must(cat, skipped[i][0], skipped[i][1], skipped[i][2]), "tree"));
}

/* A catalogue edited by hand (wrong kinds where numbers, strings or arrays
 * belong) gives answers, never a crash; what is not a catalogue is
 * refused with its path. */
static void hand_edited(void **state)
{
	const char *dir = make_tmp();
	char path[512], err[300];
	struct xfab_sonic_catalogue *odd;
	const struct json_value *l;

	(void)state;
	test_put_file(
	    dir, "odd.json",
	    "{\"source\": {\"repo\": 1}, \"tables\": {\"T\": {\"fields\": {\n"
	    " \"f\": {\"type\": \"uint8\", \"range\": [[\"1\", \"2\"], 3]},\n"
	    " \"g\": {\"type\": \"decimal64\", \"fraction_digits\": true, \"range\": {}},\n"
	    " \"h\": {\"type\": \"enumeration\", \"enum\": [1, \"b\"]},\n"
	    " \"i\": {\"type\": 5, \"ere\": [2], \"pattern\": [null], \"format\": 7}},\n"
	    " \"lists\": [{\"fixed_key\": 3, \"keys\": []}, {\"map\": 1}]}}}\n");
	snprintf(path, sizeof(path), "%s/odd.json", dir);
	odd = xfab_sonic_load(path, err, sizeof(err));
	assert_non_null(odd);
	assert_null(xfab_sonic_source(odd, "repo"));
	/* a range of strings is no range: nothing is in it */
	assert_int_equal(xfab_sonic_check_value(xfab_sonic_field(odd, "T", "f"), "1", err, 300),
			 -1);
	/* no fraction digits, no range: a decimal passes, a word does not */
	assert_int_equal(xfab_sonic_check_value(xfab_sonic_field(odd, "T", "g"), "1.5", err, 300),
			 0);
	assert_int_equal(xfab_sonic_check_value(xfab_sonic_field(odd, "T", "g"), "x", err, 300),
			 -1);
	assert_int_equal(xfab_sonic_check_value(xfab_sonic_field(odd, "T", "h"), "b", err, 300), 0);
	assert_int_equal(xfab_sonic_check_value(xfab_sonic_field(odd, "T", "h"), "c", err, 300),
			 -1);
	assert_string_equal(err, "\"c\" is not one of , b");
	xfab_sonic_check_value(xfab_sonic_field(odd, "T", "i"), "x", err, 300);
	l = xfab_sonic_list_for_key(xfab_sonic_table(odd, "T"), "3");
	assert_null(l);
	assert_null(xfab_sonic_field(odd, "T", "nothing"));
	xfab_sonic_free(odd);
	test_put_file(dir, "not.json", "{\"tables\": []}\n");
	snprintf(path, sizeof(path), "%s/not.json", dir);
	assert_null(xfab_sonic_load(path, err, sizeof(err)));
	assert_non_null(strstr(err, "not.json: not a SONiC catalogue"));
	snprintf(path, sizeof(path), "%s/none.json", dir);
	assert_null(xfab_sonic_load(path, err, sizeof(err)));
	assert_non_null(strstr(err, "none.json"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(source_named),
	    cmocka_unit_test(port_and_device),
	    cmocka_unit_test(bgp_neighbor),
	    cmocka_unit_test(static_route_and_syslog),
	    cmocka_unit_test(qos_tables),
	    cmocka_unit_test(maps),
	    cmocka_unit_test(unknown),
	    cmocka_unit_test(values),
	    cmocka_unit_test(json_values),
	    cmocka_unit_test(sonic_files),
	    cmocka_unit_test(rules_counted),
	    cmocka_unit_test_teardown(generator_rules, remove_tmp),
	    cmocka_unit_test_teardown(generator_planted, remove_tmp),
	    cmocka_unit_test_teardown(hand_edited, remove_tmp),
	};

	return cmocka_run_group_tests(tests, load, unload);
}
