// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SONiC's CONFIG_DB catalogue (config/sonic/catalogue.json) read through
 * user/lib/sonic_catalogue.c. Every expectation here was read off the YANG
 * text in third_party/sonic-yang-models (file named at each), not off the
 * generator's output: tables, their keys and lists, fields and types, enum
 * values, ranges, and the refusals (unknown table, unknown field, bad enum
 * value, out-of-range integer, non-boolean) with their messages. Then
 * SONiC's own config_db.json files in tests/data/sonic: every table, key
 * and field is in the catalogue and every value fits its type, but for the
 * exceptions listed with their reasons. Last, scripts/sonic-catalogue
 * regenerates the committed catalogue from third_party byte for byte.
 * No root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json.h"
#include "scripttree.h"
#include "sonic_catalogue.h"
#include "srcdir.h"
#include "textfile.h"

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

/* The value passes (want 0) or fails with a message holding msg. */
static void check(const char *table, const char *field, const char *value, const char *msg)
{
	const struct json_value *type = xfab_sonic_field(cat, table, field);
	char err[400] = "";
	int rc;

	assert_non_null(type);
	rc = xfab_sonic_check_value(type, value, err, sizeof(err));
	if (!msg) {
		if (rc)
			fail_msg("%s.%s = \"%s\": %s", table, field, value, err);
		return;
	}
	if (rc == 0)
		fail_msg("%s.%s = \"%s\" passed", table, field, value);
	if (!strstr(err, msg))
		fail_msg("%s.%s = \"%s\": \"%s\" lacks \"%s\"", table, field, value, err, msg);
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

/* sonic-port.yang: PORT_LIST key "name"; lanes a mandatory string of
 * 1..128; fec the pattern "rs|fc|none|auto"; mtu uint16 68..9216; speed
 * uint32 1..1600000; admin_status stypes:admin_status (up, down). */
static void port(void **state)
{
	const struct json_value *lanes;

	(void)state;
	assert_true(xfab_sonic_is_table(cat, "PORT"));
	keys_are(xfab_sonic_list_for_key(xfab_sonic_table(cat, "PORT"), "Ethernet0"), "name", NULL);
	lanes = xfab_sonic_field(cat, "PORT", "lanes");
	assert_string_equal(type_of("PORT", "lanes"), "string");
	assert_true(xfab_json_get(lanes, "mandatory")->boolean);
	check("PORT", "lanes", "0,1,2,3", NULL);
	check("PORT", "lanes", "", "has 0 characters, not 1..128");
	for (const char *const *v = (const char *const[]){"rs", "fc", "none", "auto", NULL}; *v;
	     v++)
		check("PORT", "fec", *v, NULL);
	check("PORT", "fec", "fast", "\"fast\" is not one of rs, fc, none, auto");
	check("PORT", "fec", "RS", "not one of");
	check("PORT", "mtu", "9100", NULL);
	check("PORT", "mtu", "9217", "\"9217\" is out of range 68..9216");
	check("PORT", "mtu", "70000", "out of uint16's range");
	check("PORT", "mtu", "9k", "is not an unsigned integer (uint16)");
	check("PORT", "speed", "400000", NULL);
	check("PORT", "speed", "0", "out of range 1..1600000");
	check("PORT", "admin_status", "up", NULL);
	check("PORT", "admin_status", "enabled", "\"enabled\" is not one of up, down");
	check("PORT", "mux_cable", "true", NULL);
	check("PORT", "mux_cable", "True", "\"True\" is not a boolean (true or false)");
	/* tx_power: decimal64, fraction-digits 1 */
	check("PORT", "tx_power", "-10.5", NULL);
	check("PORT", "tx_power", "-10.55", "at most 1 fraction digits");
	/* adv_speeds: a leaf-list of uint32 1..1600000 or "all" */
	assert_true(
	    xfab_json_get(xfab_sonic_field(cat, "PORT", "adv_speeds"), "leaf_list")->boolean);
	check("PORT", "adv_speeds", "all", NULL);
	check("PORT", "adv_speeds", "100000", NULL);
	check("PORT", "adv_speeds", "any", "nor any other type of the union");
}

/* sonic-device_metadata.yang: container localhost (a fixed key);
 * bgp_asn inet:as-number (RFC 6991: uint32); type a pattern of roles. */
static void device_metadata(void **state)
{
	const struct json_value *t = xfab_sonic_table(cat, "DEVICE_METADATA");

	(void)state;
	assert_non_null(xfab_sonic_list_for_key(t, "localhost"));
	assert_null(xfab_sonic_list_for_key(t, "remotehost"));
	assert_string_equal(type_of("DEVICE_METADATA", "bgp_asn"), "uint32");
	check("DEVICE_METADATA", "bgp_asn", "65100", NULL);
	check("DEVICE_METADATA", "bgp_asn", "4294967295", NULL);
	check("DEVICE_METADATA", "bgp_asn", "4294967296", "out of uint32's range");
	check("DEVICE_METADATA", "bgp_asn", "-1", "not an unsigned integer");
	check("DEVICE_METADATA", "type", "LeafRouter", NULL);
	check("DEVICE_METADATA", "type", "Leaf", "is not one of ToRRouter, LeafRouter");
	assert_non_null(xfab_sonic_field(cat, "DEVICE_METADATA", "hwsku"));
	assert_non_null(xfab_sonic_field(cat, "DEVICE_METADATA", "buffer_model"));
}

/* sonic-bgp-neighbor.yang: BGP_NEIGHBOR_TEMPLATE_LIST key "neighbor" with
 * grouping sonic-bgp-cmn-neigh (sonic-bgp-common.yang: asn uint32
 * 0..4294967295, holdtime and keepalive uint16, local_addr, name,
 * nhopself and rrclient uint8 0..1, admin_status); BGP_NEIGHBOR_LIST key
 * "vrf_name neighbor" with grouping sonic-bgp-cmn. */
static void bgp_neighbor(void **state)
{
	const struct json_value *t = xfab_sonic_table(cat, "BGP_NEIGHBOR");
	const struct json_value *tmpl = xfab_sonic_list_for_key(t, "10.0.0.57");
	const struct json_value *vrf = xfab_sonic_list_for_key(t, "default|10.0.0.57");
	static const char *const fields[] = {"asn",	  "name",	  "local_addr", "holdtime",
					     "keepalive", "admin_status", "nhopself",	"rrclient"};

	(void)state;
	assert_string_equal(xfab_json_get(tmpl, "name")->str, "BGP_NEIGHBOR_TEMPLATE_LIST");
	keys_are(tmpl, "neighbor", NULL);
	assert_string_equal(xfab_json_get(vrf, "name")->str, "BGP_NEIGHBOR_LIST");
	keys_are(vrf, "vrf_name", "neighbor");
	assert_null(xfab_sonic_list_for_key(t, "a|b|c"));
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		assert_non_null(xfab_sonic_list_field(tmpl, fields[i]));
	/* only the generic (frrcfgd) list has these */
	assert_null(xfab_sonic_list_field(tmpl, "peer_group_name"));
	assert_non_null(xfab_sonic_list_field(vrf, "peer_group_name"));
	assert_string_equal(xfab_json_get(xfab_sonic_list_field(tmpl, "asn"), "type")->str,
			    "uint32");
	check("BGP_NEIGHBOR", "holdtime", "180", NULL);
	check("BGP_NEIGHBOR", "holdtime", "65536", "out of uint16's range");
	check("BGP_NEIGHBOR", "nhopself", "1", NULL);
	check("BGP_NEIGHBOR", "nhopself", "2", "out of range 0..1");
	check("BGP_NEIGHBOR", "admin_status", "down", NULL);
}

/* sonic-copp.yang: COPP_GROUP_LIST key name; cir and cbs uint64; mode an
 * enumeration sr_tcm, tr_tcm, storm; meter_type stypes:meter_type
 * (packets, bytes); trap_action stypes:policer_packet_action; COPP_TRAP:
 * trap_ids, trap_group, always_enabled. */
static void copp(void **state)
{
	(void)state;
	assert_true(xfab_sonic_is_table(cat, "COPP_GROUP"));
	assert_string_equal(type_of("COPP_GROUP", "cir"), "uint64");
	check("COPP_GROUP", "cir", "600", NULL);
	check("COPP_GROUP", "cir", "18446744073709551615", NULL);
	check("COPP_GROUP", "cir", "18446744073709551616", "out of uint64's range");
	check("COPP_GROUP", "mode", "sr_tcm", NULL);
	check("COPP_GROUP", "mode", "srtcm", "\"srtcm\" is not one of sr_tcm, tr_tcm, storm");
	check("COPP_GROUP", "meter_type", "packets", NULL);
	check("COPP_GROUP", "meter_type", "pps", "is not one of packets, bytes");
	check("COPP_GROUP", "trap_action", "trap", NULL);
	check("COPP_GROUP", "trap_action", "punt", "is not one of drop, forward, copy");
	assert_non_null(xfab_sonic_field(cat, "COPP_TRAP", "trap_ids"));
	assert_non_null(xfab_sonic_field(cat, "COPP_TRAP", "trap_group"));
	assert_non_null(xfab_sonic_field(cat, "COPP_TRAP", "always_enabled"));
}

/* sonic-wred-profile.yang: green_min_threshold uint64 (bytes);
 * wred_green_enable boolean; ecn an enumeration from ecn_none.
 * sonic-buffer-profile.yang: dynamic_th int32 -8..7, size uint64. */
static void wred_and_buffers(void **state)
{
	(void)state;
	assert_string_equal(type_of("WRED_PROFILE", "green_min_threshold"), "uint64");
	check("WRED_PROFILE", "green_min_threshold", "1048576", NULL);
	check("WRED_PROFILE", "green_min_threshold", "-1", "not an unsigned integer");
	check("WRED_PROFILE", "wred_green_enable", "true", NULL);
	check("WRED_PROFILE", "wred_green_enable", "yes", "not a boolean");
	check("WRED_PROFILE", "ecn", "ecn_all", NULL);
	check("WRED_PROFILE", "ecn", "ecn_green", NULL);
	check("WRED_PROFILE", "ecn", "ecn_blue", "\"ecn_blue\" is not one of ecn_none, ecn_green");
	assert_string_equal(type_of("BUFFER_PROFILE", "dynamic_th"), "int32");
	check("BUFFER_PROFILE", "dynamic_th", "-8", NULL);
	check("BUFFER_PROFILE", "dynamic_th", "7", NULL);
	check("BUFFER_PROFILE", "dynamic_th", "0", NULL);
	check("BUFFER_PROFILE", "dynamic_th", "8", "\"8\" is out of range -8..7");
	check("BUFFER_PROFILE", "dynamic_th", "-9", "out of range -8..7");
	assert_non_null(xfab_sonic_field(cat, "BUFFER_PROFILE", "xoff"));
	assert_non_null(xfab_sonic_field(cat, "BUFFER_PROFILE", "xon_offset"));
}

/* sonic-static-route.yang: STATIC_ROUTE_LIST key "vrf_name prefix" with
 * nexthop, ifname, advertise, distance, nexthop-vrf, blackhole;
 * STATIC_ROUTE_TEMPLATE_LIST key "prefix" with nexthop, ifname,
 * advertise, bfd (no distance, no blackhole). */
static void static_route(void **state)
{
	const struct json_value *t = xfab_sonic_table(cat, "STATIC_ROUTE");
	const struct json_value *vrf = xfab_sonic_list_for_key(t, "default|10.1.0.0/24");
	const struct json_value *tmpl = xfab_sonic_list_for_key(t, "10.1.0.0/24");
	static const char *const fields[] = {"nexthop",	 "ifname",	"advertise",
					     "distance", "nexthop-vrf", "blackhole"};

	(void)state;
	keys_are(vrf, "vrf_name", "prefix");
	keys_are(tmpl, "prefix", NULL);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		assert_non_null(xfab_sonic_list_field(vrf, fields[i]));
	assert_non_null(xfab_sonic_list_field(tmpl, "bfd"));
	assert_null(xfab_sonic_list_field(tmpl, "distance"));
	assert_null(xfab_sonic_list_field(tmpl, "blackhole"));
	assert_null(xfab_sonic_list_field(vrf, "metric"));
}

/* sonic-syslog.yang: SYSLOG_SERVER_LIST key server_address; port
 * inet:port-number; filter include/exclude; protocol tcp/udp; severity
 * none..crit; vrf a union of a VRF name (leafref) and default/mgmt. */
static void syslog_server(void **state)
{
	(void)state;
	keys_are(xfab_sonic_list_for_key(xfab_sonic_table(cat, "SYSLOG_SERVER"), "10.0.0.5"),
		 "server_address", NULL);
	check("SYSLOG_SERVER", "port", "514", NULL);
	check("SYSLOG_SERVER", "port", "65536", "out of uint16's range");
	check("SYSLOG_SERVER", "protocol", "udp", NULL);
	check("SYSLOG_SERVER", "protocol", "quic", "is not one of tcp, udp");
	check("SYSLOG_SERVER", "filter", "exclude", NULL);
	check("SYSLOG_SERVER", "severity", "crit", NULL);
	check("SYSLOG_SERVER", "severity", "critical", "is not one of none, debug, info");
	check("SYSLOG_SERVER", "vrf", "mgmt", NULL);
	check("SYSLOG_SERVER", "vrf", "Vrf_red", NULL); /* a reference: not followed here */
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
			else
				scan_entry(s, tab->key, list, entry);
		}
	}
}

/* Scans tests/data/sonic/NAME (its member wrap, when given) and compares
 * what it finds with expected (lines, in the file's order). */
static void scan_file(const char *name, const char *wrap, const char *expected,
		      unsigned int min_fields)
{
	char path[4200], err[300];
	struct json_pos pos = {0, 0};
	struct json_value *doc;
	const struct json_value *db;
	struct scan s = {.at = 0};
	char *text;

	snprintf(path, sizeof(path), "%s/tests/data/sonic/%s", test_srcdir(), name);
	text = xfab_read_text(path, 4, err, sizeof(err));
	if (!text)
		fail_msg("%s", err);
	doc = xfab_json_parse(text, err, sizeof(err), &pos);
	free(text);
	if (!doc)
		fail_msg("%s:%d:%d: %s", name, pos.line, pos.col, err);
	db = wrap ? xfab_json_get(doc, wrap) : doc;
	assert_non_null(db);
	scan_db(&s, db);
	xfab_json_free(doc);
	printf("%s: %u tables, %u entries, %u fields\n", name, s.tables, s.entries, s.fields);
	if (strcmp(s.problems, expected))
		fail_msg("%s: found\n%s-- expected\n%s", name, s.problems, expected);
	assert_true(s.fields >= min_fields);
}

/* SONiC's sample_config_db.json, as SONiC ships it, repeats four members
 * (DHCP_SERVER's "192.0.0.8", ACL_RULE's "DATAACL|RULE0", DEVICE_METADATA's
 * buffer_model, the table PFC_WD), which Python's json takes silently and
 * xfab refuses; the scan reads the copy with the repeats merged (README). */
static void sample_repeats_refused(void)
{
	char path[4200], err[300];
	struct json_pos pos = {0, 0};
	char *text;

	snprintf(path, sizeof(path), "%s/tests/data/sonic/yang_sample_config_db.json",
		 test_srcdir());
	text = xfab_read_text(path, 4, err, sizeof(err));
	assert_non_null(text);
	assert_null(xfab_json_parse(text, err, sizeof(err), &pos));
	free(text);
	assert_int_equal(pos.line, 17);
	assert_int_equal(pos.col, 13);
	assert_non_null(strstr(err, "duplicate key \"192.0.0.8\""));
}

static void sonic_files(void **state)
{
	(void)state;
	sample_repeats_refused();
	scan_file("yang_sample_config_db.merged.json", NULL, "", 1000);
	scan_file("rsyslog_config_db.json", NULL, "", 300);
	scan_file("qos-arista7050.json", NULL, "", 300);
	scan_file("buffers-mellanox4600c-t0-dynamic.json", NULL, "", 300);
}

/* The committed catalogue is what the generator makes of third_party. */
static void catalogue_regenerates(void **state)
{
	char cmd[9000], out[4096];
	const char *root = test_srcdir();
	int rc;

	(void)state;
	snprintf(
	    cmd, sizeof(cmd),
	    "/usr/bin/python3 %s/scripts/sonic-catalogue --yang %s/third_party/sonic-yang-models "
	    "--check %s/config/sonic/catalogue.json 2>&1",
	    root, root, root);
	rc = test_run_cmd(cmd, out, sizeof(out));
	if (rc)
		fail_msg("%s", out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(source_named),
	    cmocka_unit_test(port),
	    cmocka_unit_test(device_metadata),
	    cmocka_unit_test(bgp_neighbor),
	    cmocka_unit_test(copp),
	    cmocka_unit_test(wred_and_buffers),
	    cmocka_unit_test(static_route),
	    cmocka_unit_test(syslog_server),
	    cmocka_unit_test(maps),
	    cmocka_unit_test(unknown),
	    cmocka_unit_test(json_values),
	    cmocka_unit_test(sonic_files),
	    cmocka_unit_test(catalogue_regenerates),
	};

	return cmocka_run_group_tests(tests, load, unload);
}
