// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab_config_export (user/lib/config/export*.c): a parsed config written as
 * SONiC's CONFIG_DB and read back as a SONiC file compiles the same tables
 * (issue 34: "export -> check -> load round-trips a lab switch's config
 * with no change in the compiled tables"):
 *   - for the hand-written tests/data/export/full.json (every table xfab
 *     reads), sonic.json (the tables xfab reads in SONiC's spelling only,
 *     its loopback and router id kept) and three configs scripts/xfab-lab generates (a leaf and a
 *     spine of testbeds/clos-2x4.json, a leaf of clos-2x4-vnet.json), the
 *     base tables (xfab_base_build: settings, ports, DSCP, queues, PFC,
 *     CoPP, ACL, overlay, neighbours) are byte for byte the same, and the
 *     routes, TE paths, addresses, neighbours and tenant routes, dumped by
 *     this test's own printer, are the same; the export read back lists
 *     nothing as ignored and exports to the same text (a fixpoint);
 *   - full.json's QUEUE weights come back as SONiC's SCHEDULER and
 *     QUEUE.scheduler, and read back as the same weights;
 *   - the text is SONiC's shape, checked against pieces written by hand:
 *     every value a string, indent 4, tables in byte order, keys in natural
 *     order (Ethernet4 before Ethernet12), PORT in the config's order;
 *   - the export is held to the parser's rules: a value made bad in it is
 *     refused at its line and column, and xfabd --check --format sonic
 *     (the daemon itself, ports resolved) passes an export;
 *   - the digest is FNV-1a 64 (the FNV spec's test vectors) of the text,
 *     of a file's bytes too.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "compile_base.h"
#include "config.h"
#include "srcdir.h"
#include "cfgsonic.h"

static void fail_errors(const char *what, const struct xfab_cfg_errors *errs)
{
	char line[1024];

	xfab_cfg_error_format(&errs->e[0], line, sizeof(line));
	fail_msg("%s refused: %s", what, line);
}

/* The export of cfg, as a string (free it). */
static char *export_text(const struct xfab_config *cfg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(xfab_config_export(cfg, f), 0);
	fclose(f);
	return text;
}

static void parse_sonic(const char *name, const char *text, struct xfab_config *cfg)
{
	struct xfab_cfg_errors errs;

	if (xfab_config_parse_as(name, text, cfgsonic_source(XFAB_CFG_SONIC), cfg, &errs))
		fail_errors(name, &errs);
}

static void live_ports(const struct xfab_config *cfg, struct xfab_port_live *live)
{
	memset(live, 0, sizeof(*live) * XFAB_MAX_PORTS);
	for (int p = 0; p < cfg->n_ports; p++) {
		live[p].ifindex = (__u32)(10 + p);
		live[p].mac[0] = 2;
		live[p].mac[5] = (__u8)p;
		live[p].oper_up = 1;
	}
}

/* Every base table of a and b, entry for entry, byte for byte. */
static void same_base(const struct xfab_config *a, const struct xfab_config *b)
{
	struct xfab_port_live live[XFAB_MAX_PORTS];
	struct xfab_base ia = {0}, ib = {0};

	live_ports(a, live);
	assert_int_equal(xfab_base_build(a, live, &ia), 0);
	assert_int_equal(xfab_base_build(b, live, &ib), 0);
	for (int t = 0; t < XFAB_T_COUNT; t++) {
		size_t esz = xfab_table_descs[t].entry_size;

		if (ia.t[t].count != ib.t[t].count)
			fail_msg("%s: %zu entries, %zu after the round trip",
				 xfab_table_descs[t].map_name, ia.t[t].count, ib.t[t].count);
		if (ia.t[t].count && memcmp(ia.t[t].entries, ib.t[t].entries, ia.t[t].count * esz))
			fail_msg("%s: an entry differs after the round trip",
				 xfab_table_descs[t].map_name);
	}
	xfab_base_free(&ia);
	xfab_base_free(&ib);
}

/* ---- this test's own printer of the L3 state, one line an item ---- */

struct lines {
	char **v;
	int n;
};

static void line_add(struct lines *l, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	l->v = realloc(l->v, sizeof(*l->v) * (size_t)(l->n + 1));
	assert_non_null(l->v);
	l->v[l->n++] = strdup(buf);
}

static const char *ntop(int family, const __u8 *a, char *buf)
{
	return inet_ntop(family, a, buf, INET6_ADDRSTRLEN);
}

static const char *path_str(const struct xfab_config *cfg, const struct xfab_cfg_route *rt,
			    char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	size_t o = (size_t)snprintf(buf, len, "%s/%d%s", ntop(rt->pfx.family, rt->pfx.addr, a),
				    rt->pfx.plen, rt->blackhole ? " blackhole" : "");

	for (int i = 0; i < rt->n_nexthops && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, " %s@%s*%u",
				      ntop(rt->nexthops[i].family, rt->nexthops[i].gw, a),
				      cfg->ports[rt->nexthops[i].port].name,
				      rt->weights ? rt->weights[i] : 1);
	return buf;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void dump_l3(const struct xfab_config *cfg, struct lines *l)
{
	char buf[4096], a[INET6_ADDRSTRLEN];

	for (int i = 0; i < cfg->n_routes; i++)
		line_add(l, "route %s", path_str(cfg, &cfg->routes[i], buf, sizeof(buf)));
	for (int i = 0; i < cfg->n_te; i++)
		line_add(l, "te %s %s", cfg->ports[cfg->te[i].in_port].name,
			 path_str(cfg, &cfg->te[i].path, buf, sizeof(buf)));
	for (int i = 0; i < cfg->n_addrs; i++)
		line_add(l, "addr %s %s/%d", cfg->ports[cfg->addrs[i].port].name,
			 ntop(cfg->addrs[i].pfx.family, cfg->addrs[i].pfx.addr, a),
			 cfg->addrs[i].pfx.plen);
	for (int i = 0; i < cfg->n_neighs; i++)
		line_add(l, "neigh %s %s %02x:%02x:%02x:%02x:%02x:%02x",
			 cfg->ports[cfg->neighs[i].port].name,
			 ntop(cfg->neighs[i].family, cfg->neighs[i].addr, a), cfg->neighs[i].mac[0],
			 cfg->neighs[i].mac[1], cfg->neighs[i].mac[2], cfg->neighs[i].mac[3],
			 cfg->neighs[i].mac[4], cfg->neighs[i].mac[5]);
	for (int i = 0; i < cfg->n_vnet_routes; i++)
		line_add(l, "vnet-route %d %s %s", cfg->vnet_routes[i].vnet,
			 cfg->ports[cfg->vnet_routes[i].port].name,
			 path_str(cfg, &cfg->vnet_routes[i].rt, buf, sizeof(buf)));
	line_add(l, "te_enabled %d repair %s", cfg->te_enabled,
		 path_str(cfg, &cfg->repair, buf, sizeof(buf)));
	qsort(l->v, (size_t)l->n, sizeof(*l->v), cmp_str);
}

static void lines_free(struct lines *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static void same_l3(const struct xfab_config *a, const struct xfab_config *b)
{
	struct lines la = {0}, lb = {0};

	dump_l3(a, &la);
	dump_l3(b, &lb);
	assert_int_equal(la.n, lb.n);
	for (int i = 0; i < la.n; i++)
		assert_string_equal(la.v[i], lb.v[i]);
	lines_free(&la);
	lines_free(&lb);
}

/* File (under tests/data/export) -> export -> read as SONiC's. */
static void round_trip(const char *file)
{
	struct xfab_config orig, back;
	struct xfab_cfg_errors errs;
	char path[4096], *text, *again;

	snprintf(path, sizeof(path), "%s/tests/data/export/%s", test_srcdir(), file);
	if (xfab_config_load_as(path, cfgsonic_source(XFAB_CFG_AUTO), &orig, &errs))
		fail_errors(file, &errs);
	text = export_text(&orig);
	parse_sonic("export.json", text, &back);
	assert_int_equal(back.sonic, 1);
	assert_int_equal(back.n_ignored, 0);
	same_base(&orig, &back);
	same_l3(&orig, &back);
	again = export_text(&back);
	assert_string_equal(again, text);
	free(again);
	free(text);
	xfab_config_free(&orig);
	xfab_config_free(&back);
}

static void round_trip_full(void **state)
{
	(void)state;
	round_trip("full.json");
}

static void round_trip_lab_leaf(void **state)
{
	(void)state;
	round_trip("clos-2x4-leaf1.json");
}

static void round_trip_lab_spine(void **state)
{
	(void)state;
	round_trip("clos-2x4-spine1.json");
}

static void round_trip_lab_vnet_leaf(void **state)
{
	(void)state;
	round_trip("clos-2x4-vnet-leaf1.json");
}

/* A SONiC file of the tables xfab reads in SONiC's spelling only
 * (LOOPBACK_INTERFACE, STATIC_ROUTE, COPP_GROUP/COPP_TRAP, WRED_PROFILE's
 * green_*): the same tables back, and Loopback0's address, the router id
 * of DEVICE_METADATA (10.1.0.9, not Loopback0's 10.1.0.1), its type and
 * a PORT's alias kept. */
static void round_trip_sonic(void **state)
{
	struct xfab_config cfg, back;
	struct xfab_cfg_errors errs;
	char path[4096], *text;

	(void)state;
	round_trip("sonic.json");
	snprintf(path, sizeof(path), "%s/tests/data/export/sonic.json", test_srcdir());
	if (xfab_config_load_as(path, cfgsonic_source(XFAB_CFG_AUTO), &cfg, &errs))
		fail_errors("sonic.json", &errs);
	text = export_text(&cfg);
	/* the FRR rendering reads type (allowas-in on a ToRRouter); the lab
	 * wires ports by alias */
	assert_non_null(strstr(text, "\"type\": \"ToRRouter\""));
	assert_non_null(strstr(text, "\"alias\": \"etp1\""));
	assert_non_null(strstr(text, "    \"LOOPBACK_INTERFACE\": {\n"
				     "        \"Loopback0\": {},\n"
				     "        \"Loopback0|10.1.0.1/32\": {}\n"));
	parse_sonic("export.json", text, &back);
	assert_int_equal(back.has_loopback4, 1);
	assert_memory_equal(back.loopback4, ((__u8[]){10, 1, 0, 1}), 4);
	assert_int_equal(back.has_router_id, 1);
	assert_memory_equal(back.router_id, ((__u8[]){10, 1, 0, 9}), 4);
	free(text);
	xfab_config_free(&back);
	xfab_config_free(&cfg);
}

/* full.json's QUEUE weights (eth3: 20 on 0-2 and 4-6, 60 on 3, none on 7;
 * eth1: 3 on class 5) as SONiC writes schedulers (sonic-scheduler.yang,
 * sonic-queue.yang): one DWRR SCHEDULER a weight, the unset classes of a
 * weighted port at SONiC's default 1, each class's QUEUE naming its own;
 * read back, every class weighs what it did. */
static void round_trip_weights(void **state)
{
	static const char *const pieces[] = {
	    "    \"SCHEDULER\": {\n"
	    "        \"scheduler.1\": {\n"
	    "            \"type\": \"DWRR\",\n"
	    "            \"weight\": \"1\"\n"
	    "        },\n"
	    "        \"scheduler.3\": {\n"
	    "            \"type\": \"DWRR\",\n"
	    "            \"weight\": \"3\"\n"
	    "        },\n"
	    "        \"scheduler.20\": {\n"
	    "            \"type\": \"DWRR\",\n"
	    "            \"weight\": \"20\"\n"
	    "        },\n"
	    "        \"scheduler.60\": {\n"
	    "            \"type\": \"DWRR\",\n"
	    "            \"weight\": \"60\"\n"
	    "        }\n"
	    "    },\n",
	    "        \"eth1|5\": {\n"
	    "            \"scheduler\": \"scheduler.3\"\n"
	    "        },\n",
	    "        \"eth3|3\": {\n"
	    "            \"scheduler\": \"scheduler.60\",\n"
	    "            \"wred_profile\": \"ecn1\"\n"
	    "        },\n",
	    "        \"eth3|7\": {\n"
	    "            \"scheduler\": \"scheduler.1\"\n"
	    "        }\n",
	};
	static const unsigned int eth3[8] = {20, 20, 20, 60, 20, 20, 20, 1};
	static const unsigned int eth1[8] = {1, 1, 1, 1, 1, 3, 1, 1};
	struct xfab_config cfg, back;
	struct xfab_cfg_errors errs;
	char path[4096], *text;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/data/export/full.json", test_srcdir());
	if (xfab_config_load_as(path, cfgsonic_source(XFAB_CFG_AUTO), &cfg, &errs))
		fail_errors("full.json", &errs);
	text = export_text(&cfg);
	for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++)
		if (!strstr(text, pieces[i]))
			fail_msg("not in the export:\n%s\n--- the export:\n%s", pieces[i], text);
	parse_sonic("export.json", text, &back);
	for (int tc = 0; tc < 8; tc++) {
		assert_int_equal(xfab_config_class_weight(&back.ports[0], tc), eth3[tc]);
		assert_int_equal(xfab_config_class_weight(&back.ports[1], tc), eth1[tc]);
		assert_int_equal(xfab_config_class_weight(&back.ports[2], tc), 1);
	}
	free(text);
	xfab_config_free(&back);
	xfab_config_free(&cfg);
}

/* ---- the text's shape, written by hand from SONiC's conventions ---- */

static const char *small_config =
    "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"sw1\"}},\n"
    " \"PORT\": {\"Ethernet4\": {\"mtu\": 9100, \"speed\": \"100000\"},\n"
    "          \"Ethernet12\": {\"admin_status\": \"down\"}},\n"
    " \"INTERFACE\": {\"Ethernet12|10.0.12.1/24\": {}, \"Ethernet4|10.0.4.1/24\": {},\n"
    "               \"Ethernet12\": {}, \"Ethernet4\": {}},\n"
    " \"ROUTE\": {\"10.9.0.0/16\": {\"nexthop\": \"10.0.4.2,10.0.12.2\"}}}\n";

static void text_shape(void **state)
{
	static const char *const pieces[] = {
	    "    \"DEVICE_METADATA\": {\n"
	    "        \"localhost\": {\n"
	    "            \"datapath\": \"xdp\",\n"
	    "            \"hostname\": \"sw1\"\n"
	    "        }\n"
	    "    },\n",
	    "    \"INTERFACE\": {\n"
	    "        \"Ethernet4\": {},\n"
	    "        \"Ethernet4|10.0.4.1/24\": {},\n"
	    "        \"Ethernet12\": {},\n"
	    "        \"Ethernet12|10.0.12.1/24\": {}\n"
	    "    },\n",
	    "    \"PORT\": {\n"
	    "        \"Ethernet4\": {\n"
	    "            \"admin_status\": \"up\",\n"
	    "            \"mtu\": \"9100\",\n"
	    "            \"speed\": \"100000\"\n"
	    "        },\n"
	    "        \"Ethernet12\": {\n"
	    "            \"admin_status\": \"down\",\n"
	    "            \"mtu\": \"1500\"\n"
	    "        }\n"
	    "    },\n",
	    "    \"STATIC_ROUTE\": {\n"
	    "        \"default|10.9.0.0/16\": {\n"
	    "            \"ifname\": \"Ethernet4,Ethernet12\",\n"
	    "            \"nexthop\": \"10.0.4.2,10.0.12.2\"\n"
	    "        }\n"
	    "    }\n"
	    "}\n",
	};
	static const char *const order[] = {"{\n    \"CABLE_LENGTH\"",
					    "\"DEVICE_METADATA\"",
					    "\"DSCP_TO_TC_MAP\"",
					    "\"ECMP\"",
					    "\"FLOWLET\"",
					    "\"INTERFACE\"",
					    "\"PORT\"",
					    "\"STATIC_ROUTE\""};
	struct xfab_config cfg;
	const char *at = NULL;
	char *text;

	(void)state;
	parse_sonic("small.json", small_config, &cfg);
	text = export_text(&cfg);
	for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++)
		if (!strstr(text, pieces[i]))
			fail_msg("missing:\n%s\nin:\n%s", pieces[i], text);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const char *p = strstr(text, order[i]);

		assert_non_null(p);
		assert_true(p > at);
		at = p;
	}
	/* SONiC's default DSCP map spelt out (46 -> 5, 48 -> 6, the rest of
	 * 0..7 unlisted -> 1), one key a line */
	assert_non_null(strstr(text, "            \"46\": \"5\",\n            \"47\": \"1\",\n"
				     "            \"48\": \"6\",\n"));
	free(text);
	xfab_config_free(&cfg);
}

/* The config's port order, not the natural one: a port's place is its
 * index in every table. */
static void port_order_kept(void **state)
{
	struct xfab_config cfg;
	char *text;

	(void)state;
	parse_sonic("order.json",
		    "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"sw1\"}},\n"
		    " \"PORT\": {\"eth9\": {}, \"eth1\": {}}}\n",
		    &cfg);
	text = export_text(&cfg);
	assert_non_null(strstr(text, "        \"eth9\": {\n            \"admin_status\": \"up\",\n"
				     "            \"mtu\": \"1500\"\n        },\n"
				     "        \"eth1\": {\n"));
	free(text);
	xfab_config_free(&cfg);
}

/* The export of full.json with its eth3 MTU spelt "09000": refused at that
 * value, as any file is. */
static void bad_value_in_export_refused(void **state)
{
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;
	char path[4096], *text, *grown, *mtu;
	int line = 1, col = 1;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/data/export/full.json", test_srcdir());
	if (xfab_config_load_as(path, cfgsonic_source(XFAB_CFG_AUTO), &cfg, &errs))
		fail_errors("full.json", &errs);
	text = export_text(&cfg);
	xfab_config_free(&cfg);
	mtu = strstr(text, "\"mtu\": \"9000\"");
	assert_non_null(mtu);
	grown = realloc(text, strlen(text) + 2);
	assert_non_null(grown);
	text = grown;
	mtu = strstr(text, "\"mtu\": \"9000\"");
	memmove(mtu + 9, mtu + 8, strlen(mtu + 8) + 1);
	mtu[8] = '0';
	for (const char *p = text; p < mtu + 8; p++, col++)
		if (*p == '\n') {
			line++;
			col = 0;
		}
	assert_int_equal(
	    xfab_config_parse_as("bad.json", text, cfgsonic_source(XFAB_CFG_SONIC), &cfg, &errs),
	    -1);
	assert_int_equal(errs.total, 1);
	assert_int_equal(errs.e[0].line, line);
	assert_int_equal(errs.e[0].col, col - 1);
	assert_string_equal(errs.e[0].key, "PORT|eth3.mtu");
	free(text);
}

/* xfabd --check --format sonic passes the export of a config whose one
 * port is lo (every namespace has it): the daemon's own reading, ports
 * resolved, nothing ignored. Skipped when xfabd is not built. */
static void xfabd_checks_the_export(void **state)
{
	char xfabd[4096], file[] = "/tmp/xfab-export-XXXXXX", cmd[8300], out[1024] = "";
	struct xfab_config cfg;
	size_t n = 0;
	FILE *f, *p;
	int fd;

	(void)state;
	snprintf(xfabd, sizeof(xfabd), "%s/build/xfabd", test_srcdir());
	if (access(xfabd, X_OK))
		skip();
	parse_sonic("lo.json",
		    "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"lo1\"}},\n"
		    " \"PORT\": {\"lo\": {\"mtu\": \"9000\"}},\n"
		    " \"INTERFACE\": {\"lo\": {}, \"lo|10.9.9.1/24\": {}},\n"
		    " \"ROUTE\": {\"10.8.0.0/16\": {\"nexthop\": \"10.9.9.2\"}}}\n",
		    &cfg);
	fd = mkstemp(file);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_int_equal(xfab_config_export(&cfg, f), 0);
	fclose(f);
	xfab_config_free(&cfg);
	snprintf(cmd, sizeof(cmd), "'%s' -c '%s' --format sonic --check 2>&1", xfabd, file);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
	snprintf(cmd, sizeof(cmd),
		 "%s: OK (lo1, 1 ports, 1 addresses, 1 routes)\n"
		 "%s: SONiC CONFIG_DB; ignored: nothing\n",
		 file, file);
	assert_string_equal(out, cmd);
	unlink(file);
}

/* FNV-1a 64's test vectors (Fowler, Noll, Vo: "" and "a", "foobar"), and
 * a parse's digest is its text's. */
static void digest(void **state)
{
	static const char *text = "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"sw1\"}},"
				  " \"PORT\": {\"eth1\": {}}}";
	struct xfab_config cfg;

	(void)state;
	assert_true(xfab_config_digest(XFAB_CFG_DIGEST_INIT, "", 0) == 0xcbf29ce484222325ull);
	assert_true(xfab_config_digest(XFAB_CFG_DIGEST_INIT, "a", 1) == 0xaf63dc4c8601ec8cull);
	assert_true(xfab_config_digest(XFAB_CFG_DIGEST_INIT, "foobar", 6) == 0x85944171f73967e8ull);
	parse_sonic("d.json", text, &cfg);
	assert_true(cfg.digest == xfab_config_digest(XFAB_CFG_DIGEST_INIT, text, strlen(text)));
	xfab_config_free(&cfg);
}

/* A file's digest (read in chunks) is that of its bytes, read here whole. */
static void digest_of_file(void **state)
{
	struct xfab_cfg_errors errs;
	struct xfab_config cfg;
	char path[4096], *bytes;
	long len;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/data/export/full.json", test_srcdir());
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	bytes = malloc((size_t)len);
	assert_int_equal(fread(bytes, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	if (xfab_config_load_as(path, cfgsonic_source(XFAB_CFG_AUTO), &cfg, &errs))
		fail_errors(path, &errs);
	assert_true(cfg.digest == xfab_config_digest(XFAB_CFG_DIGEST_INIT, bytes, (size_t)len));
	assert_true(cfg.digest != XFAB_CFG_DIGEST_INIT);
	free(bytes);
	xfab_config_free(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(round_trip_sonic),
	    cmocka_unit_test(round_trip_full),
	    cmocka_unit_test(round_trip_weights),
	    cmocka_unit_test(round_trip_lab_leaf),
	    cmocka_unit_test(round_trip_lab_spine),
	    cmocka_unit_test(round_trip_lab_vnet_leaf),
	    cmocka_unit_test(text_shape),
	    cmocka_unit_test(port_order_kept),
	    cmocka_unit_test(bad_value_in_export_refused),
	    cmocka_unit_test(xfabd_checks_the_export),
	    cmocka_unit_test(digest),
	    cmocka_unit_test(digest_of_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
