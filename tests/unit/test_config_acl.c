// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ACL_TABLE / ACL_RULE in the config: a good config's tables, bindings and
 * every field kind's compiled record (the figures written out here by
 * hand), a port's rows in priority order (ties to the rule written first),
 * what the compiler hands the map layer; and every bad entry refused whole
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

#include "config.h"
#include "maps.h"

#define HDR                                                                                        \
	"{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"                   \
	" \"PORT\": {\"eth1\": {}, \"eth2\": {}, \"eth3\": {}}"
#define T(x) HDR ",\n" x "\n}\n"
#define TABLES                                                                                     \
	" \"ACL_TABLE\": {\"DATAACL\": {\"type\": \"L3\", \"stage\": \"INGRESS\", \"ports\": "     \
	"[\"eth1\", \"eth2\"],\n"                                                                  \
	"     \"policy_desc\": \"data\"},\n"                                                       \
	"   \"V6\": {\"type\": \"l3v6\", \"ports\": \"eth2,eth3\"}}"
#define R(x) T(TABLES ",\n \"ACL_RULE\": {" x "}")

static const char *good_text =
    R("\"DATAACL|a\": {\"PRIORITY\": \"10\", \"PACKET_ACTION\": \"DROP\", \"SRC_IP\": "
      "\"10.1.2.3/16\",\n"
      "     \"DST_IP\": \"192.0.2.9\", \"IP_PROTOCOL\": \"6\", \"L4_SRC_PORT\": 80,\n"
      "     \"L4_DST_PORT_RANGE\": \"1000-2000\", \"TCP_FLAGS\": \"0x02/0x12\", \"IP_TYPE\": "
      "\"ipv4any\",\n"
      "     \"ETHER_TYPE\": \"0x0800\"},\n"
      "   \"DATAACL|b\": {\"PRIORITY\": 30, \"PACKET_ACTION\": \"forward\", \"DSCP\": \"46\"},\n"
      "   \"DATAACL|c\": {\"PRIORITY\": \"10\", \"PACKET_ACTION\": \"DROP\", \"BTH_OPCODE\": "
      "\"0x11\",\n"
      "     \"AETH_SYNDROME\": \"96/224\", \"IP_PROTOCOL\": \"17\"},\n"
      "   \"V6|d\": {\"PRIORITY\": \"20\", \"PACKET_ACTION\": \"DROP\", \"SRC_IPV6\": "
      "\"fd00::1:0/112\",\n"
      "     \"L4_SRC_PORT_RANGE\": \"5-6\", \"IP_TYPE\": \"IPV6ANY\", \"ETHER_TYPE\": "
      "\"34525\"}");

static void parse_ok(const char *text, struct xfab_config *cfg)
{
	struct xfab_cfg_errors errs;

	if (xfab_config_parse("good.json", text, cfg, &errs)) {
		char line[1024];

		xfab_cfg_error_format(&errs.e[0], line, sizeof(line));
		fail_msg("refused: %s", line);
	}
}

static __be32 ip4(const char *a)
{
	__be32 v;

	assert_int_equal(inet_pton(AF_INET, a, &v), 1);
	return v;
}

static void test_good(void **state)
{
	struct xfab_config cfg;
	const struct xfab_acl_rule *r;
	__be32 a6[4], m6[4] = {~0u, ~0u, ~0u, htonl(0xffff0000u)};

	(void)state;
	parse_ok(good_text, &cfg);
	assert_int_equal(cfg.acl.n_tables, 2);
	assert_string_equal(cfg.acl.tables[0].name, "DATAACL");
	assert_int_equal(cfg.acl.tables[0].is_v6, 0);
	assert_int_equal(cfg.acl.tables[0].ports, 0x3);
	assert_int_equal(cfg.acl.tables[1].is_v6, 1);
	assert_int_equal(cfg.acl.tables[1].ports, 0x6);
	assert_int_equal(cfg.acl.n_rules, 4);

	r = &cfg.acl.rules[0].match;
	assert_string_equal(cfg.acl.rules[0].name, "a");
	assert_int_equal(cfg.acl.rules[0].priority, 10);
	assert_int_equal(r->action, XFAB_ACL_DROP);
	assert_int_equal(r->fields, XFAB_ACL_F_SRC | XFAB_ACL_F_DST | XFAB_ACL_F_PROTO |
					XFAB_ACL_F_SPORT | XFAB_ACL_F_DPORT | XFAB_ACL_F_TCP_FLAGS);
	assert_int_equal(r->src[0], ip4("10.1.0.0")); /* host bits ignored */
	assert_int_equal(r->src_mask[0], ip4("255.255.0.0"));
	assert_int_equal(r->dst[0], ip4("192.0.2.9"));
	assert_int_equal(r->dst_mask[0], ip4("255.255.255.255"));
	assert_int_equal(r->src_mask[1] | r->dst_mask[3], 0);
	assert_int_equal(r->proto, 6);
	assert_int_equal(r->sport_lo, 80);
	assert_int_equal(r->sport_hi, 80);
	assert_int_equal(r->dport_lo, 1000);
	assert_int_equal(r->dport_hi, 2000);
	assert_int_equal(r->tcp_flags, 0x02);
	assert_int_equal(r->tcp_mask, 0x12);
	assert_int_equal(r->counter, 0);

	r = &cfg.acl.rules[1].match;
	assert_int_equal(r->action, XFAB_ACL_FORWARD);
	assert_int_equal(r->fields, XFAB_ACL_F_DSCP);
	assert_int_equal(r->dscp, 46);
	assert_int_equal(r->dscp_mask, 63);

	r = &cfg.acl.rules[2].match;
	assert_int_equal(r->fields, XFAB_ACL_F_BTH | XFAB_ACL_F_AETH | XFAB_ACL_F_PROTO);
	assert_int_equal(r->bth_opcode, 0x11);
	assert_int_equal(r->bth_mask, 0xff);
	assert_int_equal(r->aeth, 96);
	assert_int_equal(r->aeth_mask, 224);

	r = &cfg.acl.rules[3].match;
	assert_int_equal(r->is_v6, 1);
	assert_int_equal(cfg.acl.rules[3].table, 1);
	assert_int_equal(inet_pton(AF_INET6, "fd00::1:0", a6), 1);
	assert_memory_equal(r->src, a6, 16);
	assert_memory_equal(r->src_mask, m6, 16);
	assert_int_equal(r->fields, XFAB_ACL_F_SRC | XFAB_ACL_F_SPORT);
	assert_int_equal(r->counter, 3);
	xfab_config_free(&cfg);
}

/* Rows by priority, the tie (a and c, both 10) to a, written first. */
static void test_rows(void **state)
{
	struct xfab_config cfg;
	int idx[8];

	(void)state;
	parse_ok(good_text, &cfg);
	assert_int_equal(xfab_acl_port_rules(&cfg, 0, idx, 8), 3);
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 0);
	assert_int_equal(idx[2], 2);
	assert_int_equal(xfab_acl_port_rules(&cfg, 1, idx, 8), 4); /* eth2: both tables */
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 3);
	assert_int_equal(idx[2], 0);
	assert_int_equal(idx[3], 2);
	assert_int_equal(xfab_acl_port_rules(&cfg, 2, idx, 8), 1);
	assert_int_equal(idx[0], 3);
	assert_int_equal(xfab_acl_port_rules(&cfg, 2, idx, 0), 1); /* counts past max */
	xfab_config_free(&cfg);
}

struct rec {
	int n[XFAB_T_COUNT];
	struct xfab_e_acl_rule rows[16];
	struct xfab_e_acl_port ports[4];
	struct xfab_e_acl_info info[8];
};

static int record(void *arg, int t, const void *entry)
{
	struct rec *r = arg;
	int i = r->n[t]++;

	if (t == XFAB_T_ACL_RULES && i < 16)
		memcpy(&r->rows[i], entry, sizeof(r->rows[0]));
	else if (t == XFAB_T_ACL_PORTS && i < 4)
		memcpy(&r->ports[i], entry, sizeof(r->ports[0]));
	else if (t == XFAB_T_ACL_INFO && i < 8)
		memcpy(&r->info[i], entry, sizeof(r->info[0]));
	return 0;
}

/* What the base build writes: eth1's row of 3, eth2's of 4, eth3's of 1
 * (rows at slot * XFAB_ACL_MAX_RULES), and each rule's names. */
static void test_compiled(void **state)
{
	static const __u32 want_rows[][2] = {{0, 1},  {1, 0},  {2, 2},	{64, 1},
					     {65, 3}, {66, 0}, {67, 2}, {128, 3}};
	struct xfab_config cfg;
	struct rec rec = {0};

	(void)state;
	parse_ok(good_text, &cfg);
	assert_int_equal(xfab_acl_build(&cfg, record, &rec), 0);
	assert_int_equal(rec.n[XFAB_T_ACL_RULES], 8);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(rec.rows[i].key, want_rows[i][0]);
		assert_int_equal(rec.rows[i].val.counter, want_rows[i][1]);
	}
	assert_int_equal(rec.n[XFAB_T_ACL_PORTS], 3);
	assert_int_equal(rec.ports[0].val.n_rules, 3);
	assert_int_equal(rec.ports[1].val.n_rules, 4);
	assert_int_equal(rec.ports[2].key, 2);
	assert_int_equal(rec.ports[2].val.n_rules, 1);
	assert_int_equal(rec.n[XFAB_T_ACL_INFO], 4);
	assert_string_equal(rec.info[3].val.table, "V6");
	assert_string_equal(rec.info[3].val.rule, "d");
	assert_int_equal(rec.info[3].val.priority, 20);
	assert_int_equal(rec.info[3].val.used, 1);
	assert_int_equal(rec.info[1].val.action, XFAB_ACL_FORWARD);
	xfab_config_free(&cfg);
}

struct bad_case {
	const char *name;
	const char *text;
	const char *needle; /* the error points at this */
	const char *key;
	const char *msg;
};

#define RULE(f) R("\"DATAACL|r\": {\"PRIORITY\": \"1\", \"PACKET_ACTION\": \"DROP\", " f "}")
#define RULE6(f) R("\"V6|r\": {\"PRIORITY\": \"1\", \"PACKET_ACTION\": \"DROP\", " f "}")
static const struct bad_case bad[] = {
    {"mirror table", T(" \"ACL_TABLE\": {\"M\": {\"type\": \"MIRROR\"}}"), "\"MIRROR\"",
     "ACL_TABLE|M.type", "xfab has L3 and L3V6"},
    {"no type", T(" \"ACL_TABLE\": {\"M\": {\"ports\": []}}"), "{\"ports\"", "ACL_TABLE|M",
     "missing field \"type\""},
    {"egress", T(" \"ACL_TABLE\": {\"M\": {\"type\": \"L3\", \"stage\": \"egress\"}}"),
     "\"egress\"", "ACL_TABLE|M.stage", "not implemented"},
    {"unknown port", T(" \"ACL_TABLE\": {\"M\": {\"type\": \"L3\", \"ports\": [\"eth9\"]}}"),
     "\"eth9\"", "ACL_TABLE|M.ports", "unknown port 'eth9'"},
    {"unknown port in a string",
     T(" \"ACL_TABLE\": {\"M\": {\"type\": \"L3\", \"ports\": \"eth1,eth7\"}}"), "\"eth1,eth7\"",
     "ACL_TABLE|M.ports", "unknown port 'eth7'"},
    {"table field", T(" \"ACL_TABLE\": {\"M\": {\"type\": \"L3\", \"services\": [\"SSH\"]}}"),
     "\"services\"", "ACL_TABLE|M.services", "unknown field"},
    {"no such table", R("\"NOPE|r\": {\"PRIORITY\": \"1\", \"PACKET_ACTION\": \"DROP\"}"),
     "\"NOPE|r\"", "ACL_RULE|NOPE|r", "no ACL_TABLE 'NOPE'"},
    {"key without rule", R("\"DATAACL\": {\"PRIORITY\": \"1\", \"PACKET_ACTION\": \"DROP\"}"),
     "\"DATAACL\": {\"PRI", "ACL_RULE|DATAACL", "TABLE|RULE"},
    {"no priority", R("\"DATAACL|r\": {\"PACKET_ACTION\": \"DROP\"}"), "{\"PACKET_ACTION\"",
     "ACL_RULE|DATAACL|r", "missing field \"PRIORITY\""},
    {"priority too high",
     R("\"DATAACL|r\": {\"PRIORITY\": \"1000000\", \"PACKET_ACTION\": \"DROP\"}"), "\"1000000\"",
     "ACL_RULE|DATAACL|r.PRIORITY", "0..999999"},
    {"no action", R("\"DATAACL|r\": {\"PRIORITY\": \"1\"}"), "{\"PRIORITY\"", "ACL_RULE|DATAACL|r",
     "missing field \"PACKET_ACTION\""},
    {"redirect", R("\"DATAACL|r\": {\"PRIORITY\": \"1\", \"PACKET_ACTION\": \"REDIRECT:eth2\"}"),
     "\"REDIRECT:eth2\"", "ACL_RULE|DATAACL|r.PACKET_ACTION", "DROP and FORWARD"},
    {"unsupported field", RULE("\"SRC_MAC\": \"02:00:00:00:00:01\""), "\"SRC_MAC\"",
     "ACL_RULE|DATAACL|r.SRC_MAC", "unknown field"},
    {"v6 address in L3", RULE("\"SRC_IPV6\": \"fd00::1/128\""), "\"fd00::1/128\"",
     "ACL_RULE|DATAACL|r.SRC_IPV6", "match IPv4 addresses"},
    {"v4 address in L3V6", RULE6("\"DST_IP\": \"10.0.0.1/32\""), "\"10.0.0.1/32\"",
     "ACL_RULE|V6|r.DST_IP", "match IPv6 addresses"},
    {"v6 prefix in SRC_IP", RULE("\"SRC_IP\": \"fd00::1/128\""), "\"fd00::1/128\"",
     "ACL_RULE|DATAACL|r.SRC_IP", "not an IPv4 prefix"},
    {"bad prefix length", RULE("\"DST_IP\": \"10.0.0.0/33\""), "\"10.0.0.0/33\"",
     "ACL_RULE|DATAACL|r.DST_IP", "0..32"},
    {"IPV6ANY in L3", RULE("\"IP_TYPE\": \"IPV6ANY\""), "\"IPV6ANY\"", "ACL_RULE|DATAACL|r.IP_TYPE",
     "never matches"},
    {"ARP type", RULE("\"IP_TYPE\": \"ARP_REQUEST\""), "\"ARP_REQUEST\"",
     "ACL_RULE|DATAACL|r.IP_TYPE", "before the ACL stage"},
    {"unknown IP_TYPE", RULE("\"IP_TYPE\": \"IPV4\""), "\"IPV4\"", "ACL_RULE|DATAACL|r.IP_TYPE",
     "unknown IP_TYPE"},
    {"ether type of v6 in L3", RULE("\"ETHER_TYPE\": \"0x86dd\""), "\"0x86dd\"",
     "ACL_RULE|DATAACL|r.ETHER_TYPE", "never matches"},
    {"protocol 256", RULE("\"IP_PROTOCOL\": \"256\""), "\"256\"", "ACL_RULE|DATAACL|r.IP_PROTOCOL",
     "0..255"},
    {"port 65536", RULE("\"L4_DST_PORT\": \"65536\""), "\"65536\"",
     "ACL_RULE|DATAACL|r.L4_DST_PORT", "a port 0..65535"},
    {"range backwards", RULE("\"L4_SRC_PORT_RANGE\": \"20-10\""), "\"20-10\"",
     "ACL_RULE|DATAACL|r.L4_SRC_PORT_RANGE", "LO <= HI"},
    {"range as a port", RULE("\"L4_SRC_PORT\": \"10-20\""), "\"10-20\"",
     "ACL_RULE|DATAACL|r.L4_SRC_PORT", "a port 0..65535"},
    {"port and range", RULE("\"L4_DST_PORT\": \"1\", \"L4_DST_PORT_RANGE\": \"1-2\""), "\"1-2\"",
     "ACL_RULE|DATAACL|r.L4_DST_PORT_RANGE", "one or the other"},
    {"DSCP 64", RULE("\"DSCP\": \"64\""), "\"64\"", "ACL_RULE|DATAACL|r.DSCP", "0..63"},
    {"TCP flags outside the mask", RULE("\"TCP_FLAGS\": \"0x12/0x02\""), "\"0x12/0x02\"",
     "ACL_RULE|DATAACL|r.TCP_FLAGS", "outside its mask"},
    {"TCP flags junk", RULE("\"TCP_FLAGS\": \"0xg/0x3f\""), "\"0xg/0x3f\"",
     "ACL_RULE|DATAACL|r.TCP_FLAGS", "VALUE/MASK"},
    {"BTH opcode 256", RULE("\"BTH_OPCODE\": \"0x100\""), "\"0x100\"",
     "ACL_RULE|DATAACL|r.BTH_OPCODE", "each 0..255"},
    {"TCP flags on UDP", RULE("\"IP_PROTOCOL\": \"17\", \"TCP_FLAGS\": \"2/2\""), "\"17\"",
     "ACL_RULE|DATAACL|r.IP_PROTOCOL", "TCP (6) only"},
    {"AETH on TCP", RULE("\"IP_PROTOCOL\": \"6\", \"AETH_SYNDROME\": \"0x60/0xe0\""), "\"6\"",
     "ACL_RULE|DATAACL|r.IP_PROTOCOL", "RoCEv2"},
    {"ports on ICMP", RULE("\"IP_PROTOCOL\": \"1\", \"L4_DST_PORT\": \"7\""), "\"1\", \"L4",
     "ACL_RULE|DATAACL|r.IP_PROTOCOL", "TCP (6) and UDP (17) only"},
    {"rule not an object", R("\"DATAACL|r\": \"DROP\""), "\"DROP\"", "ACL_RULE|DATAACL|r",
     "expected an object"},
};

/* Line and column (from 1) of needle's first byte in text. */
static void needle_pos(const char *text, const char *needle, int *line, int *col)
{
	const char *at = strstr(text, needle), *bol = text;

	assert_non_null(at);
	*line = 1;
	for (const char *nl = strchr(text, '\n'); nl && nl < at; nl = strchr(nl + 1, '\n')) {
		(*line)++;
		bol = nl + 1;
	}
	*col = (int)(at - bol) + 1;
}

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct bad_case *c = &bad[i];
		struct xfab_config *cfg = malloc(sizeof(*cfg)), *sentinel = malloc(sizeof(*cfg));
		struct xfab_cfg_errors errs;
		char text[1024];
		int line, col;

		assert_non_null(cfg);
		assert_non_null(sentinel);
		memset(cfg, 0xa5, sizeof(*cfg));
		memcpy(sentinel, cfg, sizeof(*cfg));
		if (xfab_config_parse("bad.json", c->text, cfg, &errs) != -1)
			fail_msg("%s: accepted", c->name);
		assert_memory_equal(cfg, sentinel, sizeof(*cfg));
		needle_pos(c->text, c->needle, &line, &col);
		xfab_cfg_error_format(&errs.e[0], text, sizeof(text));
		print_message("    %s: %s\n", c->name, text);
		if (errs.e[0].line != line || errs.e[0].col != col ||
		    strcmp(errs.e[0].key, c->key) || !strstr(errs.e[0].msg, c->msg))
			fail_msg("%s: got %s, expected %d:%d %s ... %s", c->name, text, line, col,
				 c->key, c->msg);
		free(cfg);
		free(sentinel);
	}
}

/* A port's tables may hold XFAB_ACL_MAX_RULES rules together, no more:
 * the table binding the port is named. */
static void test_row_full(void **state)
{
	static char text[32768];
	struct xfab_cfg_errors errs;
	struct xfab_config *cfg = malloc(sizeof(*cfg));
	size_t o;

	(void)state;
	assert_non_null(cfg);
	for (int n = XFAB_ACL_MAX_RULES; n <= XFAB_ACL_MAX_RULES + 1; n++) {
		o = (size_t)snprintf(text, sizeof(text), "%s",
				     HDR ",\n" TABLES ",\n \"ACL_RULE\": {");
		for (int i = 0; i < n; i++)
			o += (size_t)snprintf(text + o, sizeof(text) - o,
					      "%s\"DATAACL|r%d\": {\"PRIORITY\": \"%d\", "
					      "\"PACKET_ACTION\": \"DROP\"}",
					      i ? ",\n" : "", i, i);
		snprintf(text + o, sizeof(text) - o, "}\n}\n");
		if (n == XFAB_ACL_MAX_RULES) {
			parse_ok(text, cfg);
			xfab_config_free(cfg);
			continue;
		}
		assert_int_equal(xfab_config_parse("full.json", text, cfg, &errs), -1);
		assert_non_null(strstr(errs.e[0].msg, "port eth1 has 65 rules"));
		assert_int_equal(errs.e[0].line, 4); /* DATAACL */
	}
	free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good),     cmocka_unit_test(test_rows),
	    cmocka_unit_test(test_compiled), cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_row_full),
	};

	return cmocka_run_group_tests_name("config_acl", tests, NULL, NULL);
}
