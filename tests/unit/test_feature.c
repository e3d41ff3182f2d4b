// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The feature registry (user/lib/feature.c) against what it describes, each
 * read here from its own source, not from the registry: the BPF object's
 * maps (every `} NAME SEC(".maps")` under bpf/), the ABI's XFAB_MAP_*
 * names, docs/ARCHITECTURE.md's map table, xfab.json(5)'s TABLES, the
 * maps the loader has always kept across a restart and the order the
 * parser has always read the tables in. And the layers above: every
 * metrics writer of xfabd and every show group of xfabctl names a
 * registered feature.
 */
#include <ctype.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "feature.h"
#include "maps.h"
#include "metrics.h"
#include "srcdir.h"

#define MAX_NAMES 128

struct names {
	int n;
	char v[MAX_NAMES][48];
};

static void add_name(struct names *s, const char *name, size_t len)
{
	assert_true(s->n < MAX_NAMES);
	assert_true(len < sizeof(s->v[0]));
	memcpy(s->v[s->n], name, len);
	s->v[s->n][len] = '\0';
	s->n++;
}

static int has_name(const struct names *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], name))
			return 1;
	return 0;
}

static FILE *open_src(const char *rel)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", test_srcdir(), rel);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	return f;
}

/* The maps a BPF source file declares: `} NAME SEC(".maps");`. */
static void bpf_maps_of(const char *rel, struct names *out)
{
	FILE *f = open_src(rel);
	char line[512];

	while (fgets(line, sizeof(line), f)) {
		const char *p = line, *end;

		if (*p++ != '}' || *p++ != ' ')
			continue;
		end = strstr(p, " SEC(\".maps\")");
		if (end)
			add_name(out, p, (size_t)(end - p));
	}
	fclose(f);
}

static void bpf_maps(struct names *out)
{
	DIR *d;
	struct dirent *de;
	char dir[512], rel[300];

	snprintf(dir, sizeof(dir), "%s/bpf", test_srcdir());
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 3 ||
		    (strcmp(de->d_name + len - 2, ".h") && strcmp(de->d_name + len - 2, ".c")))
			continue;
		snprintf(rel, sizeof(rel), "bpf/%s", de->d_name);
		bpf_maps_of(rel, out);
	}
	closedir(d);
	/* the object has dozens; a scan that found few is a broken scan */
	assert_true(out->n >= 30);
}

/* `#define XFAB_MAP_X "name"` in the ABI header. */
static void abi_maps_of(const char *rel, struct names *out)
{
	FILE *f = open_src(rel);
	char line[512];

	while (fgets(line, sizeof(line), f)) {
		const char *q;

		if (strncmp(line, "#define XFAB_MAP_", 17) || !(q = strchr(line, '"')))
			continue;
		add_name(out, q + 1, strcspn(q + 1, "\""));
	}
	fclose(f);
}

/* The ABI's map names: xfab_abi.h and the feature headers beside it
 * (include/xfab_*.h, a feature's own ABI). */
static void abi_maps(struct names *out)
{
	DIR *d;
	struct dirent *de;
	char dir[512], rel[300];

	snprintf(dir, sizeof(dir), "%s/include", test_srcdir());
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (strncmp(de->d_name, "xfab_", 5) || len < 3 ||
		    strcmp(de->d_name + len - 2, ".h"))
			continue;
		snprintf(rel, sizeof(rel), "include/%s", de->d_name);
		abi_maps_of(rel, out);
	}
	closedir(d);
}

/* Every `name` in the first cell of docs/ARCHITECTURE.md's table rows. */
static void arch_maps(struct names *out)
{
	FILE *f = open_src("docs/ARCHITECTURE.md");
	char line[2048];

	while (fgets(line, sizeof(line), f)) {
		char *cell_end, *p;

		if (strncmp(line, "| `", 3) || !(cell_end = strchr(line + 1, '|')))
			continue;
		*cell_end = '\0';
		for (p = line; (p = strchr(p, '`'));) {
			char *q = strchr(p + 1, '`');

			if (!q)
				break;
			add_name(out, p + 1, (size_t)(q - p - 1));
			p = q + 1;
		}
	}
	fclose(f);
}

/* The upper-case words of xfab.json(5)'s TABLES entries (a .TP's next
 * line). */
static void man_tables(struct names *out)
{
	FILE *f = open_src("docs/man/xfab.json.5");
	char line[512];
	int in_tables = 0, head = 0;

	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, ".SH", 3)) {
			in_tables = !strncmp(line, ".SH TABLES", 10);
			continue;
		}
		if (!in_tables)
			continue;
		if (!strncmp(line, ".TP", 3)) {
			head = 1;
			continue;
		}
		/* past the macro (.B, .BR): its name is no table */
		for (char *p = line + (line[0] == '.' ? strcspn(line, " ") : 0); head && *p;) {
			size_t n = 0;

			while (isupper((unsigned char)p[n]) || p[n] == '_' ||
			       (n && isdigit((unsigned char)p[n])))
				n++;
			if (n > 1)
				add_name(out, p, n);
			p += n ? n : 1;
		}
		head = 0;
	}
	fclose(f);
}

static int owners(const char *map)
{
	int n = 0;

	for (size_t f = 0; f < xfab_n_features; f++)
		for (const char *const *m = xfab_features[f]->maps; m && *m; m++)
			n += !strcmp(*m, map);
	return n;
}

static void test_every_map_owned_once(void **state)
{
	struct names bpf = {0}, abi = {0};

	(void)state;
	bpf_maps(&bpf);
	abi_maps(&abi);
	for (int i = 0; i < bpf.n; i++) {
		if (owners(bpf.v[i]) != 1)
			fail_msg("map %s: %d owners", bpf.v[i], owners(bpf.v[i]));
		if (!has_name(&abi, bpf.v[i]))
			fail_msg("map %s has no XFAB_MAP_ name", bpf.v[i]);
	}
	/* and nothing owned, or named, that the object lacks */
	for (size_t f = 0; f < xfab_n_features; f++)
		for (const char *const *m = xfab_features[f]->maps; m && *m; m++)
			if (!has_name(&bpf, *m))
				fail_msg("%s owns %s: no such map", xfab_features[f]->name, *m);
	for (int i = 0; i < abi.n; i++)
		if (!has_name(&bpf, abi.v[i]))
			fail_msg("XFAB_MAP_ name %s: no such map", abi.v[i]);
	/* every table xfabd writes belongs to a feature */
	for (int t = 0; t < XFAB_T_COUNT; t++)
		assert_int_equal(owners(xfab_table_descs[t].map_name), 1);
}

static void test_every_map_documented(void **state)
{
	struct names bpf = {0}, arch = {0};

	(void)state;
	bpf_maps(&bpf);
	arch_maps(&arch);
	for (int i = 0; i < bpf.n; i++)
		if (!has_name(&arch, bpf.v[i]))
			fail_msg("map %s is not in docs/ARCHITECTURE.md's map table", bpf.v[i]);
}

static void test_every_table_documented_once(void **state)
{
	struct names man = {0};
	int n = 0;

	(void)state;
	man_tables(&man);
	for (size_t f = 0; f < xfab_n_features; f++)
		for (const char *const *t = xfab_features[f]->tables; *t; t++, n++) {
			if (xfab_feature_of_table(*t) != xfab_features[f])
				fail_msg("table %s is read by two features", *t);
			if (!has_name(&man, *t))
				fail_msg("table %s has no TABLES entry in xfab.json(5)", *t);
		}
	for (int i = 0; i < man.n; i++)
		if (!xfab_feature_of_table(man.v[i]))
			fail_msg("xfab.json(5) documents %s: no feature reads it", man.v[i]);
	assert_int_equal(n, 25);
}

/* The order the parser has always read the tables in (config_from_json
 * before the registry, and the ACL added through it after CoPP): a
 * feature reads only what came before it. */
static void test_parse_order(void **state)
{
	static const char *const order[] = {
	    "DEVICE_METADATA", "PORT",	    "VXLAN_TUNNEL", "VNET",
	    "INTERFACE",       "ROUTE",	    "NEIGH",	    "VNET_ROUTE_TUNNEL",
	    "VNET_ROUTE",      "ECMP",	    "FLOWLET",	    "DSCP_TO_TC_MAP",
	    "WRED_PROFILE",    "QUEUE",	    "PORT_QOS_MAP", "CABLE_LENGTH",
	    "BUFFER_PROFILE",  "BUFFER_PG", "PFC_WD",	    "FIB_SYNC",
	    "COPP_TABLE",      "ACL_TABLE", "ACL_RULE",	    "LOCAL_REPAIR",
	    "TE_PATH",
	};
	size_t k = 0;

	(void)state;
	for (size_t f = 0; f < xfab_n_features; f++) {
		const struct xfab_feature *ft = xfab_features[f];

		assert_non_null(ft->parse);
		assert_ptr_equal(xfab_feature_find(ft->name), ft);
		for (const char *const *t = ft->tables; *t; t++, k++) {
			assert_true(k < sizeof(order) / sizeof(order[0]));
			assert_string_equal(*t, order[k]);
		}
	}
	assert_int_equal(k, sizeof(order) / sizeof(order[0]));
	/* routes, neighbours, tunnel routes and local repair resolve against
	 * ports and interfaces, so come after every feature they rest on */
	for (size_t f = 0, last_base = 0; f < xfab_n_features; f++) {
		if (xfab_features[f]->flags & XFAB_FEAT_L3_BASE)
			last_base = f;
		if (xfab_features[f]->flags & XFAB_FEAT_NEEDS_L3)
			assert_true(f > last_base);
	}
	assert_true(xfab_feature_find("interfaces")->flags & XFAB_FEAT_L3_BASE);
	assert_true(xfab_feature_find("routes")->flags & XFAB_FEAT_NEEDS_L3);
}

/* The maps xfabd has always reused across a restart (user/agent/load.c's
 * list before the registry, and the ACL's counters since). */
static void test_state_maps(void **state)
{
	static const char *const kept[] = {
	    "port_stats",  "drop_stats",      "punt_stats", "lb_stats",	  "queue_state",
	    "queue_stats", "queue_watermark", "port_load",  "port_dev",	  "pfc_state",
	    "pfc_queue",   "pfc_egress",      "copp_state", "copp_stats", "acl_stats",
	    "fast_stats", /* since the fast path (issue 31) */
	};
	struct names bpf = {0};
	int n_state = 0;

	(void)state;
	bpf_maps(&bpf);
	for (int i = 0; i < bpf.n; i++) {
		int want = 0;

		for (size_t k = 0; k < sizeof(kept) / sizeof(kept[0]); k++)
			want |= !strcmp(kept[k], bpf.v[i]);
		if (xfab_feature_is_state_map(bpf.v[i]) != want)
			fail_msg("map %s: state %d, want %d", bpf.v[i],
				 xfab_feature_is_state_map(bpf.v[i]), want);
		n_state += want;
	}
	assert_int_equal(n_state, (int)(sizeof(kept) / sizeof(kept[0])));
	/* a state map is one of its own feature's maps */
	for (size_t f = 0; f < xfab_n_features; f++)
		for (const char *const *m = xfab_features[f]->state_maps; m && *m; m++)
			assert_ptr_equal(xfab_feature_of_map(*m), xfab_features[f]);
	assert_false(xfab_feature_is_state_map("no_such_map"));
}

static void test_metrics_writers(void **state)
{
	int n = 0, acl = -1, damping = -1;

	(void)state;
	for (const struct xfab_metrics_writer *w = agent_metrics_writers; w->feature; w++, n++) {
		if (!xfab_feature_find(w->feature))
			fail_msg("metrics writer for %s: no such feature", w->feature);
		if (!strcmp(w->feature, "acl"))
			acl = acl < 0 ? n : -2;
		if (!strcmp(w->feature, "damping"))
			damping = damping < 0 ? n : -2;
	}
	/* metrics_acl.c, metrics_damping.c and metrics_drain.c (a second
	 * writer of "device") registered themselves, once each, after
	 * metrics.c's own seven (in link order) */
	assert_true(acl >= 7 && damping >= 7);
	assert_int_equal(n, 10);
}

#define HDR "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"
#define PORTS " \"PORT\": {\"eth1\": {}, \"eth2\": {}}"

static int parse(const char *text, struct xfab_config *cfg, struct xfab_cfg_errors *errs)
{
	static struct xfab_cfg_errors scratch;

	return xfab_config_parse("t.json", text, cfg, errs ? errs : &scratch);
}

/* Routes resolve against valid ports and interfaces only: with a bad
 * interface the ROUTE table is not read (its route through the missing
 * subnet would be a second error), and read alone it is. */
static void test_l3_gate(void **state)
{
	static const char route[] =
	    ",\n \"ROUTE\": {\"10.9.0.0/16\": {\"nexthop\": \"10.0.0.0\"}}\n}\n";
	static struct xfab_cfg_errors errs;
	struct xfab_config cfg;
	char text[512];

	(void)state;
	snprintf(text, sizeof(text), "%s%s%s", HDR PORTS,
		 ",\n \"INTERFACE\": {\"eth9|10.0.0.1/31\": {}}", route);
	assert_int_equal(parse(text, &cfg, &errs), -1);
	assert_int_equal(errs.total, 1);
	assert_string_equal(errs.e[0].key, "INTERFACE|eth9|10.0.0.1/31");
	/* the same route, no interface at all: its gateway is on no subnet */
	snprintf(text, sizeof(text), "%s%s", HDR PORTS, route);
	assert_int_equal(parse(text, &cfg, &errs), -1);
	assert_int_equal(errs.total, 1);
	assert_non_null(strstr(errs.e[0].key, "ROUTE"));
}

/* Each feature's defaults, as docs/CONFIG.md and xfab.json(5) give them,
 * with none of its tables present; TE is on with an empty TE_PATH. */
static void test_defaults(void **state)
{
	struct xfab_config cfg;

	(void)state;
	assert_int_equal(parse(HDR PORTS "\n}\n", &cfg, NULL), 0);
	assert_int_equal(cfg.flowlet_gap_us, 100);
	assert_int_equal(cfg.load_window_us, 100);
	assert_int_equal(cfg.flowlet_age_ms, 1000);
	assert_int_equal(cfg.flowlet_mode, XFAB_FLOWLET_RANDOM);
	assert_int_equal(cfg.resilient, 1);
	assert_int_equal(cfg.hash_fields, XFAB_HASH_F_SRC_IP | XFAB_HASH_F_DST_IP |
					      XFAB_HASH_F_IP_PROTO | XFAB_HASH_F_L4_SRC_PORT |
					      XFAB_HASH_F_L4_DST_PORT);
	assert_int_equal(cfg.pfcwd_poll_ms, 200);
	assert_int_equal(cfg.te_enabled, 0);
	xfab_config_free(&cfg);
	assert_int_equal(parse(HDR PORTS ",\n \"TE_PATH\": {}\n}\n", &cfg, NULL), 0);
	assert_int_equal(cfg.te_enabled, 1);
	xfab_config_free(&cfg);
}

/* every CoPP group without a meter */
#define COPP_OFF                                                                                   \
	"\"bgp\": {\"cir\": \"0\"}, \"bfd\": {\"cir\": \"0\"}, \"arp\": {\"cir\": \"0\"}, "        \
	"\"arp_resp\": {\"cir\": \"0\"}, "                                                         \
	"\"nd\": {\"cir\": \"0\"}, \"ttl_error\": {\"cir\": \"0\"}, \"ip2me\": {\"cir\": \"0\"}, " \
	"\"default\": {\"cir\": \"0\"}"

/* Each bit of optional code (XFAB_CODES) has one owner, which asks for
 * no bit of another's; the defaults need only CoPP's (its groups police
 * by default), a table of each feature its bit. */
static void test_code_bits(void **state)
{
	struct xfab_config cfg;
	char names[160];

	(void)state;
	for (int b = 0; b < XFAB_CODE_BITS; b++) {
		int n = 0;

		for (size_t f = 0; f < xfab_n_features; f++)
			n += (xfab_features[f]->code >> b) & 1;
		if (n != 1)
			fail_msg("code bit %s: %d owners",
				 xfab_feature_code_names(1u << b, names, sizeof(names)), n);
	}
	for (size_t f = 0; f < xfab_n_features; f++)
		assert_true(!xfab_features[f]->code == !xfab_features[f]->code_for);
	assert_int_equal(parse(HDR PORTS "\n}\n", &cfg, NULL), 0);
	assert_int_equal(xfab_feature_code(&cfg), XFAB_CODE_COPP);
	xfab_config_free(&cfg);
	assert_int_equal(parse(HDR PORTS ",\n \"TE_PATH\": {}, \"FLOWLET\": {\"global\": "
					 "{\"enabled\": \"true\"}},\n \"COPP_TABLE\": {" COPP_OFF
					 "}\n}\n",
			       &cfg, NULL),
			 0);
	assert_string_equal(xfab_feature_code_names(xfab_feature_code(&cfg), names, sizeof(names)),
			    "flowlet,te");
	xfab_config_free(&cfg);
	assert_string_equal(xfab_feature_code_names(0, names, sizeof(names)), "none");
}

/* The words of the bash completion's `show) next="..."` line. */
static void completion_show_objects(struct names *out)
{
	FILE *f = open_src("contrib/bash-completion/xfabctl");
	char line[512];

	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "\tshow) next=\"");

		if (!p)
			continue;
		p += strlen("\tshow) next=\"");
		while (*p && *p != '"') {
			size_t n = strcspn(p, " \"");

			if (n)
				add_name(out, p, n);
			p += n + (p[n] == ' ');
		}
	}
	fclose(f);
	assert_true(out->n > 0);
}

/* The show objects of one show file (user/ctl/show_*.c): each
 * `CTL_SHOW(id, "FEATURE", RANK, "OBJECT", ...` names a registered
 * feature, and its object is offered by the bash completion. The number
 * of objects. */
static int show_file_objects(const char *rel, const struct names *completion, int *ranks,
			     int *n_ranks)
{
	FILE *f = open_src(rel);
	char line[512];
	int objects = 0;

	while (fgets(line, sizeof(line), f)) {
		char feat[48], obj[48];
		int rank;

		if (strncmp(line, "CTL_SHOW(", 9))
			continue;
		if (sscanf(line, "CTL_SHOW(%*[^,], \"%47[^\"]\", %d, \"%47[^\"]\"", feat, &rank,
			   obj) != 3)
			fail_msg("%s: a CTL_SHOW line not read: %s", rel, line);
		if (!xfab_feature_find(feat))
			fail_msg("xfabctl show %s (%s): no feature %s", obj, rel, feat);
		if (!has_name(completion, obj))
			fail_msg("show %s: not in contrib/bash-completion/xfabctl", obj);
		for (int i = 0; i < *n_ranks; i++)
			if (ranks[i] == rank)
				fail_msg("show %s: rank %d is another object's", obj, rank);
		ranks[(*n_ranks)++] = rank;
		objects++;
	}
	fclose(f);
	return objects;
}

/* xfabctl's show objects (registered by the show files themselves, read
 * as text: the CLI is not linked into unit suites) each name a registered
 * feature, have a rank of their own, and are offered by the bash
 * completion; and the completion offers no object that is not one. */
static void test_show_groups(void **state)
{
	struct names completion = {0};
	char dir[512], rel[600];
	int ranks[64], n_ranks = 0, objects = 0;
	struct dirent *de;
	DIR *d;

	(void)state;
	completion_show_objects(&completion);
	snprintf(dir, sizeof(dir), "%s/user/ctl", test_srcdir());
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (strncmp(de->d_name, "show_", 5) || len < 3 ||
		    strcmp(de->d_name + len - 2, ".c"))
			continue;
		snprintf(rel, sizeof(rel), "user/ctl/%s", de->d_name);
		assert_true(n_ranks < 48);
		objects += show_file_objects(rel, &completion, ranks, &n_ranks);
	}
	closedir(d);
	assert_true(objects > 0);
	assert_int_equal(objects, completion.n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_map_owned_once),
	    cmocka_unit_test(test_every_map_documented),
	    cmocka_unit_test(test_every_table_documented_once),
	    cmocka_unit_test(test_parse_order),
	    cmocka_unit_test(test_state_maps),
	    cmocka_unit_test(test_metrics_writers),
	    cmocka_unit_test(test_show_groups),
	    cmocka_unit_test(test_l3_gate),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_code_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
