// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of xfabd's control requests (user/agent/requests.c) on the
 * real RIB and compiler, writing into a recorder that keeps its own copy of
 * every table (no kernel, no root):
 *   - a te-add becomes one entry in its port's TE table whose nexthop, read
 *     back from the recorded tables, is the gateway asked for, on the same
 *     nexthop id the config's routes use;
 *   - every bad request is refused with the field at fault and writes
 *     nothing;
 *   - te-del and te-clear remove exactly what the pin added;
 *   - pins survive reloads that move nexthop ids around, always resolving
 *     to their own gateway (the two-writer bug: a reused id pointing a pin
 *     at another gateway);
 *   - a config TE_PATH entry for the same key wins; a reload that breaks a
 *     pin is refused whole;
 *   - a pin that needs a nexthop the tables cannot hold is refused (via);
 *   - plan generations: a request of an older plan than the switch holds is
 *     refused whole (gen) and writes nothing, an equal one is accepted, a
 *     higher one raises the switch's only once it succeeded; te-sweep
 *     removes exactly the pins below its generation (the tables read back);
 *     te-list pages through every pin once, each with its generation;
 *   - a command served by a part outside requests.c answers through the
 *     handler table as that part says; one nobody registered is refused.
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
#include <unistd.h>

#include <cmocka.h>

#include "agent.h"
#include "clock.h"
#include "ctlproto.h"
#include "json.h"

#define N_PORTS 4

/* ---- a recorder with its own copy of each table ---- */

struct rec_entry {
	__u8 key[24];
	__u8 val[sizeof(struct xfab_group)];
};

static struct {
	struct rec_entry *e[XFAB_T_COUNT];
	size_t n[XFAB_T_COUNT], cap[XFAB_T_COUNT];
	size_t ops;	 /* updates and removes since the last reset */
	int fail_writes; /* every write fails (-EIO), as a full or broken map would */
} rec;

static struct rec_entry *rec_find(enum xfab_table t, const void *key)
{
	for (size_t i = 0; i < rec.n[t]; i++)
		if (!memcmp(rec.e[t][i].key, key, xfab_table_descs[t].key_size))
			return &rec.e[t][i];
	return NULL;
}

static int rec_update(void *arg, enum xfab_table t, const void *key, const void *val)
{
	struct rec_entry *e = rec_find(t, key);

	(void)arg;
	if (rec.fail_writes)
		return -EIO;
	rec.ops++;
	if (!e) {
		if (rec.n[t] == rec.cap[t]) {
			rec.cap[t] = rec.cap[t] ? rec.cap[t] * 2 : 64;
			rec.e[t] = realloc(rec.e[t], rec.cap[t] * sizeof(*rec.e[t]));
			assert_non_null(rec.e[t]);
		}
		e = &rec.e[t][rec.n[t]++];
		memset(e, 0, sizeof(*e));
		memcpy(e->key, key, xfab_table_descs[t].key_size);
	}
	memcpy(e->val, val, xfab_table_descs[t].val_size);
	return 0;
}

static int rec_remove(void *arg, enum xfab_table t, const void *key)
{
	struct rec_entry *e = rec_find(t, key);

	(void)arg;
	if (rec.fail_writes)
		return -EIO;
	rec.ops++;
	if (e)
		*e = rec.e[t][--rec.n[t]];
	return 0;
}

static void rec_free(void)
{
	for (int t = 0; t < XFAB_T_COUNT; t++)
		free(rec.e[t]);
	memset(&rec, 0, sizeof(rec));
}

/* ---- the switch: eth<n> is ifindex 10+n-1, its gateways 10.0.<n>.x ---- */

static int neigh_lookup(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6])
{
	(void)arg;
	(void)family;
	memset(mac, 0, 6);
	mac[0] = 2;
	mac[4] = (__u8)ifindex;
	mac[5] = addr[3];
	return 0;
}

enum { TE_ON = 1, MORE_ROUTES = 2, CFG_TE = 4, NO_ETH3 = 8 };

static char *config_text(int flags)
{
	char *t = malloc(4096);

	assert_non_null(t);
	snprintf(t, 4096,
		 "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"
		 " \"PORT\": {\"eth1\": {}, \"eth2\": {}, \"eth3\": {}, \"eth4\": {}},\n"
		 " \"INTERFACE\": {\"eth1|10.0.1.1/24\": {}, \"eth2|10.0.2.1/24\": {},\n"
		 "   %s \"eth4|10.0.4.1/24\": {}, \"eth1|fd00:1::1/64\": {}},\n"
		 " %s%s%s"
		 " \"ROUTE\": {\"20.0.0.0/24\": {\"nexthop\": \"10.0.1.2,10.0.2.2\"},\n"
		 "   %s"
		 "   \"20.0.1.0/24\": {\"nexthop\": \"10.0.2.2\"}}}\n",
		 flags & NO_ETH3 ? "" : "\"eth3|10.0.3.1/24\": {},",
		 flags & (TE_ON | CFG_TE) ? "\"TE_PATH\": {" : "",
		 flags & CFG_TE ? "\"eth1|30.0.0.0/24\": {\"nexthop\": \"10.0.4.9\"}" : "",
		 flags & (TE_ON | CFG_TE) ? "},\n" : "",
		 flags & MORE_ROUTES
		     ? "\"20.0.2.0/24\": {\"nexthop\": \"10.0.4.2\"}, \"20.0.3.0/24\": "
		       "{\"nexthop\": \"10.0.4.3,10.0.1.3\"}, \"20.0.4.0/24\": {\"nexthop\": "
		       "\"10.0.4.4\"},\n"
		     : "");
	return t;
}

static struct agent *A;

static void parse(struct xfab_config *cfg, int flags)
{
	struct xfab_cfg_errors errs;
	char *text = config_text(flags);

	if (xfab_config_parse("sw.json", text, cfg, &errs)) {
		char line[768];

		xfab_cfg_error_format(&errs.e[0], line, sizeof(line));
		fail_msg("%s", line);
	}
	free(text);
}

static void compile_all(void)
{
	assert_int_equal(xfab_rib_load_config(A->rib, &A->cfg), 0);
	assert_int_equal(xfab_compile_config(A->compile, &A->cfg, A->live), 0);
}

/* SIGHUP, as main.c does it: 0 or -1 (refused: nothing changed). */
static int reload(int flags, struct xfab_cfg_errors *errs)
{
	struct xfab_config next;
	struct te_pin *kept;
	int n_kept;

	parse(&next, flags);
	if (agent_pins_reload_check(A, &next, "sw.json", &kept, &n_kept, errs)) {
		xfab_config_free(&next);
		return -1;
	}
	agent_pins_reload_commit(A, kept, n_kept);
	xfab_config_free(&A->cfg);
	A->cfg = next;
	compile_all();
	return 0;
}

static int setup_flags(int flags)
{
	struct xfab_map_ops ops = {.update = rec_update, .remove = rec_remove};

	A = calloc(1, sizeof(*A));
	if (!A)
		return -1;
	A->fd_port_stats = A->fd_queue_wm = -1;
	for (int p = 0; p < N_PORTS; p++) {
		A->live[p].ifindex = (__u32)(10 + p);
		A->live[p].mac[0] = 2;
		A->live[p].mac[5] = (__u8)p;
		A->live[p].oper_up = 1;
	}
	parse(&A->cfg, flags);
	A->rib = xfab_rib_new();
	A->compile = A->rib ? xfab_compile_new(A->rib, &ops, neigh_lookup, NULL) : NULL;
	if (!A->compile)
		return -1;
	compile_all();
	rec.ops = 0;
	return 0;
}

static int setup(void **state)
{
	(void)state;
	return setup_flags(TE_ON);
}

static int setup_te_off(void **state)
{
	(void)state;
	return setup_flags(0);
}

static int teardown(void **state)
{
	(void)state;
	agent_pins_free(A->pins, A->n_pins);
	xfab_compile_free(A->compile);
	xfab_rib_free(A->rib);
	xfab_config_free(&A->cfg);
	free(A);
	rec_free();
	return 0;
}

/* ---- requests ---- */

struct answer {
	int ok;
	char error[512], field[32];
	char line[XFAB_CTL_MAX_LINE]; /* as xfabd answered */
};

static struct answer ask(const char *line)
{
	char out[XFAB_CTL_MAX_LINE];
	struct answer a;
	int n = agent_ctl_handle(A, line, strlen(line), out, sizeof(out));

	assert_true(n > 0 && out[n - 1] == '\n');
	assert_int_equal(
	    xfab_ctl_parse_response(out, &a.ok, a.error, sizeof(a.error), a.field, sizeof(a.field)),
	    0);
	memcpy(a.line, out, sizeof(a.line));
	return a;
}

static void ask_ok(const char *line)
{
	struct answer a = ask(line);

	if (!a.ok)
		fail_msg("%s refused: %s: %s", line, a.field, a.error);
}

static char req[XFAB_CTL_MAX_LINE * 2];

static const char *te_add(const char *in, const char *prefix, const char *via)
{
	snprintf(req, sizeof(req),
		 "{\"cmd\":\"te-add\",\"in\":\"%s\",\"prefix\":\"%s\",\"via\":\"%s\"}", in, prefix,
		 via);
	return req;
}

static const char *te_del(const char *in, const char *prefix)
{
	snprintf(req, sizeof(req), "{\"cmd\":\"te-del\",\"in\":\"%s\",\"prefix\":\"%s\"}", in,
		 prefix);
	return req;
}

static const char *te_add_gen(const char *in, const char *prefix, const char *via,
			      unsigned long long gen)
{
	snprintf(req, sizeof(req),
		 "{\"cmd\":\"te-add\",\"in\":\"%s\",\"prefix\":\"%s\",\"via\":\"%s\","
		 "\"gen\":\"%llu\"}",
		 in, prefix, via, gen);
	return req;
}

static const char *te_gen_cmd(const char *cmd, unsigned long long gen)
{
	snprintf(req, sizeof(req), "{\"cmd\":\"%s\",\"gen\":\"%llu\"}", cmd, gen);
	return req;
}

/* ---- reading the recorded tables ---- */

static const struct xfab_route *te_route(__u32 ifindex, const char *addr, int plen)
{
	struct xfab_lpm_v4_key key = {.prefixlen = 32u + (__u32)plen,
				      .table = htonl(XFAB_TABLE_TE | ifindex)};
	const struct rec_entry *e;

	inet_pton(AF_INET, addr, key.addr);
	e = rec_find(XFAB_T_ROUTES_V4, &key);
	return e ? (const struct xfab_route *)e->val : NULL;
}

static const struct xfab_nexthop *nexthop(__u32 id)
{
	const struct rec_entry *e = rec_find(XFAB_T_NEXTHOPS, &id);

	return e ? (const struct xfab_nexthop *)e->val : NULL;
}

static size_t te_entries(void)
{
	size_t n = 0;

	for (size_t i = 0; i < rec.n[XFAB_T_ROUTES_V4]; i++) {
		const struct xfab_lpm_v4_key *k = (const void *)rec.e[XFAB_T_ROUTES_V4][i].key;

		n += !!(ntohl(k->table) & XFAB_TABLE_TE);
	}
	return n;
}

/* The TE entry at (ifindex, prefix) forwards to exactly these gateways
 * ("a,b"), each on the port whose subnet holds it, as read back from the
 * recorded route, nexthop and group tables. */
static void expect_pin(__u32 ifindex, const char *addr, int plen, const char *gws)
{
	const struct xfab_route *rt = te_route(ifindex, addr, plen);
	char copy[256], *tok, *save = NULL;
	__u32 ids[XFAB_GROUP_MAX_MEMBERS];
	int n = 0, want = 0;

	assert_non_null(rt);
	if (rt->type == XFAB_RT_NEXTHOP) {
		ids[n++] = rt->id;
	} else {
		const struct rec_entry *e = rec_find(XFAB_T_GROUPS, &rt->id);
		const struct xfab_group *g;

		assert_int_equal(rt->type, XFAB_RT_GROUP);
		assert_non_null(e);
		g = (const void *)e->val;
		for (__u32 i = 0; i < g->num_members; i++)
			ids[n++] = g->members[i];
	}
	snprintf(copy, sizeof(copy), "%s", gws);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		__u8 gw[4];
		int found = 0;

		inet_pton(AF_INET, tok, gw);
		want++;
		for (int i = 0; i < n; i++) {
			const struct xfab_nexthop *nh = nexthop(ids[i]);

			assert_non_null(nh);
			if (!memcmp(nh->gw, gw, 4)) {
				/* 10.0.<p>.x is on eth<p>: ifindex 10 + p - 1 */
				assert_int_equal(nh->ifindex, 10u + gw[2] - 1);
				found = 1;
			}
		}
		if (!found)
			fail_msg("TE %s/%d: gateway %s is not among its %d nexthop(s)", addr, plen,
				 tok, n);
	}
	assert_int_equal(n, want);
}

/* The nexthop id of a table-0 route with one nexthop. */
static __u32 route_nexthop(const char *addr, int plen)
{
	struct xfab_lpm_v4_key key = {.prefixlen = 32u + (__u32)plen};
	const struct rec_entry *e;

	inet_pton(AF_INET, addr, key.addr);
	e = rec_find(XFAB_T_ROUTES_V4, &key);
	assert_non_null(e);
	assert_int_equal(((const struct xfab_route *)e->val)->type, XFAB_RT_NEXTHOP);
	return ((const struct xfab_route *)e->val)->id;
}

/* ---- tests ---- */

static void test_pin_on_the_routes_nexthop(void **state)
{
	(void)state;
	ask_ok(te_add("eth1", "30.0.0.0/24", "10.0.2.2"));
	expect_pin(10, "30.0.0.0", 24, "10.0.2.2");
	/* one allocator: the pin uses the nexthop 20.0.1.0/24 already has */
	assert_int_equal(te_route(10, "30.0.0.0", 24)->id, route_nexthop("20.0.1.0", 24));
	assert_int_equal(te_entries(), 1);
	assert_int_equal(A->n_pins, 1);
	/* a pin of two gateways is a group of both */
	ask_ok(te_add("eth3", "30.0.1.0/24", "10.0.1.2,10.0.4.7"));
	expect_pin(12, "30.0.1.0", 24, "10.0.1.2,10.0.4.7");
	/* te-add on the same key replaces the pin */
	ask_ok(te_add("eth1", "30.0.0.0/24", "10.0.4.7"));
	expect_pin(10, "30.0.0.0", 24, "10.0.4.7");
	assert_int_equal(A->n_pins, 2);
	assert_int_equal(te_entries(), 2);
}

static void test_refusals_write_nothing(void **state)
{
	static const struct {
		const char *line, *field, *msg;
	} bad[] = {
	    {"{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"30.0.0.0/33\",\"via\":\"10.0.2.2\"}",
	     "prefix", "0..32"},
	    {"{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"30.0.0.1/24\",\"via\":\"10.0.2.2\"}",
	     "prefix", "host bits"},
	    {"{\"cmd\":\"te-add\",\"in\":\"eth9\",\"prefix\":\"30.0.0.0/24\",\"via\":\"10.0.2.2\"}",
	     "in", "not in the PORT table"},
	    {"{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"30.0.0.0/24\",\"via\":\"10.9.9.9\"}",
	     "via", "no connected subnet"},
	    {"{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"30.0.0.0/24\",\"via\":\"10.0.2.1\"}",
	     "via", "own address"},
	    {"{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"30.0.0.0/24\",\"via\":\"10.0.2.0\"}",
	     "via", "no neighbour"},
	    {"{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"30.0.0.0/24\","
	     "\"via\":\"10.0.2.2,10.0.2.2\"}",
	     "via", "twice"},
	    {"{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"30.0.0.0/"
	     "24\",\"via\":\"fd00:1::2\"}",
	     "via", "IPv4"},
	    {"{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"10.0.1.1/32\",\"via\":\"10.0.2.2\"}",
	     "prefix", "own"},
	    {"{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"30.0.0.0/24\",\"via\":\"10.0.2.2\","
	     "\"weight\":\"3\"}",
	     "weight", "unknown field"},
	    {"{\"cmd\":\"te-del\",\"in\":\"eth1\",\"prefix\":\"30.0.0.0/24\"}", "prefix",
	     "no runtime TE pin"},
	    {"{\"cmd\":\"te-del\",\"in\":\"eth7\",\"prefix\":\"30.0.0.0/24\"}", "in",
	     "not in the PORT table"},
	    {"{\"cmd\":\"shutdown\"}", "cmd", "unknown command"},
	    {"[1,2]", "", "one JSON object"},
	};
	char *longline;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct answer a = ask(bad[i].line);

		if (a.ok || strcmp(a.field, bad[i].field) || !strstr(a.error, bad[i].msg))
			fail_msg("%s: ok %d, field \"%s\" (want \"%s\"), error \"%s\" (want "
				 "\"...%s...\")",
				 bad[i].line, a.ok, a.field, bad[i].field, a.error, bad[i].msg);
		assert_int_equal(rec.ops, 0);
		assert_int_equal(A->n_pins, 0);
	}
	/* a line past the limit */
	longline = malloc(XFAB_CTL_MAX_LINE + 64);
	assert_non_null(longline);
	snprintf(longline, XFAB_CTL_MAX_LINE + 64,
		 "{\"cmd\":\"te-add\",\"in\":\"eth1\",\"prefix\":\"30.0.0.0/24\",\"via\":\"%0*d\"}",
		 XFAB_CTL_MAX_LINE, 0);
	{
		struct answer a = ask(longline);

		assert_false(a.ok);
		assert_string_equal(a.field, "");
		assert_non_null(strstr(a.error, "longer than"));
	}
	free(longline);
	assert_int_equal(rec.ops, 0);
	assert_int_equal(te_entries(), 0);
}

static void test_te_off_refused(void **state)
{
	struct answer a;

	(void)state;
	a = ask(te_add("eth1", "30.0.0.0/24", "10.0.2.2"));
	assert_false(a.ok);
	assert_string_equal(a.field, "cmd");
	assert_non_null(strstr(a.error, "TE_PATH"));
	assert_int_equal(rec.ops, 0);
}

static void test_del_and_clear_remove_what_was_added(void **state)
{
	size_t nh_before = rec.n[XFAB_T_NEXTHOPS], grp_before = rec.n[XFAB_T_GROUPS];

	(void)state;
	ask_ok(te_add("eth1", "30.0.0.0/24", "10.0.3.7"));	    /* a nexthop of its own */
	ask_ok(te_add("eth2", "30.0.1.0/24", "10.0.3.7,10.0.4.7")); /* and a group */
	assert_int_equal(rec.n[XFAB_T_NEXTHOPS], nh_before + 2);
	ask_ok(te_del("eth1", "30.0.0.0/24"));
	assert_null(te_route(10, "30.0.0.0", 24));
	expect_pin(11, "30.0.1.0", 24, "10.0.3.7,10.0.4.7");
	assert_int_equal(A->n_pins, 1);
	ask_ok("{\"cmd\":\"te-clear\"}");
	assert_int_equal(te_entries(), 0);
	assert_int_equal(A->n_pins, 0);
	/* the nexthops and group only the pins used are gone (groups is an
	 * array: its entry is zeroed, so count the live ones) */
	assert_int_equal(rec.n[XFAB_T_NEXTHOPS], nh_before);
	{
		size_t live = 0;

		for (size_t i = 0; i < rec.n[XFAB_T_GROUPS]; i++)
			live +=
			    ((const struct xfab_group *)rec.e[XFAB_T_GROUPS][i].val)->num_members >
			    0;
		assert_true(live <= grp_before);
	}
	ask_ok("{\"cmd\":\"te-clear\"}"); /* nothing left: still fine */
}

/* A pin is keyed by its ingress port and its whole prefix: the same prefix
 * on another port, or a longer one on the same port, is a pin of its own,
 * and te-del removes exactly the one it names. */
static void test_pins_keyed_by_port_and_prefix(void **state)
{
	(void)state;
	ask_ok(te_add("eth1", "30.0.0.0/24", "10.0.3.7"));
	ask_ok(te_add("eth2", "30.0.0.0/24", "10.0.4.7"));
	ask_ok(te_add("eth1", "30.0.0.0/25", "10.0.2.9"));
	assert_int_equal(A->n_pins, 3);
	assert_int_equal(te_entries(), 3);
	expect_pin(10, "30.0.0.0", 24, "10.0.3.7");
	expect_pin(11, "30.0.0.0", 24, "10.0.4.7");
	expect_pin(10, "30.0.0.0", 25, "10.0.2.9");
	ask_ok(te_del("eth2", "30.0.0.0/24"));
	assert_null(te_route(11, "30.0.0.0", 24));
	expect_pin(10, "30.0.0.0", 24, "10.0.3.7");
	expect_pin(10, "30.0.0.0", 25, "10.0.2.9");
	ask_ok(te_del("eth1", "30.0.0.0/25"));
	expect_pin(10, "30.0.0.0", 24, "10.0.3.7");
	assert_int_equal(A->n_pins, 1);
	assert_int_equal(te_entries(), 1);
}

/* A te-add or te-del the tables refuse (a write fails) changes nothing:
 * the pin stays as it was, now and after the next change compiles what
 * the RIB holds. */
static void test_failed_write_keeps_the_pin(void **state)
{
	struct answer a;

	(void)state;
	ask_ok(te_add("eth1", "30.0.0.0/24", "10.0.3.7"));
	rec.fail_writes = 1;
	a = ask(te_add("eth1", "30.0.0.0/24", "10.0.4.7"));
	rec.fail_writes = 0;
	assert_false(a.ok);
	assert_non_null(strstr(a.error, "cannot write the tables"));
	rec.fail_writes = 1;
	a = ask(te_add("eth3", "30.0.3.0/24", "10.0.4.6")); /* a new key */
	rec.fail_writes = 0;
	assert_false(a.ok);
	assert_int_equal(A->n_pins, 1);
	ask_ok(te_add("eth2", "30.0.1.0/24", "10.0.4.8"));
	expect_pin(10, "30.0.0.0", 24, "10.0.3.7");
	expect_pin(11, "30.0.1.0", 24, "10.0.4.8");
	assert_null(te_route(12, "30.0.3.0", 24));

	rec.fail_writes = 1;
	a = ask(te_del("eth1", "30.0.0.0/24"));
	rec.fail_writes = 0;
	assert_false(a.ok);
	assert_int_equal(A->n_pins, 2);
	ask_ok(te_add("eth2", "30.0.2.0/24", "10.0.4.9"));
	expect_pin(10, "30.0.0.0", 24, "10.0.3.7");
	assert_int_equal(te_entries(), 3);
}

/* Reloads renumber nothing under a pin: it keeps its own gateway while
 * the config's nexthops come and go around it. */
static void test_pins_survive_reloads(void **state)
{
	struct xfab_cfg_errors errs;

	(void)state;
	ask_ok(te_add("eth1", "30.0.0.0/24", "10.0.4.3"));
	ask_ok(te_add("eth2", "30.0.1.0/24", "10.0.3.5,10.0.1.2"));
	for (int round = 0; round < 6; round++) {
		assert_int_equal(reload(round % 2 ? TE_ON | MORE_ROUTES : TE_ON, &errs), 0);
		assert_int_equal(A->n_pins, 2);
		expect_pin(10, "30.0.0.0", 24, "10.0.4.3");
		expect_pin(11, "30.0.1.0", 24, "10.0.3.5,10.0.1.2");
		assert_int_equal(te_entries(), 2);
		if (round == 2) { /* a pin gone and back, between reloads */
			ask_ok(te_del("eth1", "30.0.0.0/24"));
			ask_ok(te_add("eth1", "30.0.0.0/24", "10.0.4.3"));
		}
	}
	/* the same config again writes nothing */
	assert_int_equal(reload(TE_ON, &errs), 0);
	rec.ops = 0;
	assert_int_equal(reload(TE_ON, &errs), 0);
	assert_int_equal(rec.ops, 0);
}

static void test_config_wins(void **state)
{
	struct xfab_cfg_errors errs;
	struct answer a;

	(void)state;
	ask_ok(te_add("eth1", "30.0.0.0/24", "10.0.2.2"));
	assert_int_equal(reload(CFG_TE, &errs), 0);
	assert_int_equal(A->n_pins, 0); /* dropped: the config has that key now */
	expect_pin(10, "30.0.0.0", 24, "10.0.4.9");
	rec.ops = 0;
	a = ask(te_add("eth1", "30.0.0.0/24", "10.0.2.2"));
	assert_false(a.ok);
	assert_string_equal(a.field, "prefix");
	assert_non_null(strstr(a.error, "config"));
	a = ask(te_del("eth1", "30.0.0.0/24"));
	assert_false(a.ok);
	assert_string_equal(a.field, "prefix");
	assert_non_null(strstr(a.error, "config's"));
	assert_int_equal(rec.ops, 0);
	expect_pin(10, "30.0.0.0", 24, "10.0.4.9");
}

static void test_reload_that_breaks_a_pin_is_refused(void **state)
{
	struct xfab_cfg_errors errs;

	(void)state;
	ask_ok(te_add("eth1", "30.0.0.0/24", "10.0.3.2"));
	rec.ops = 0;
	/* eth3's subnet is gone: the pin's gateway is in no connected subnet */
	assert_int_equal(reload(TE_ON | NO_ETH3, &errs), -1);
	assert_int_equal(errs.count, 1);
	assert_non_null(strstr(errs.e[0].key, "eth1|30.0.0.0/24"));
	assert_non_null(strstr(errs.e[0].msg, "no connected subnet"));
	/* no TE_PATH table, pins set */
	assert_int_equal(reload(0, &errs), -1);
	assert_non_null(strstr(errs.e[0].msg, "te clear"));
	assert_int_equal(rec.ops, 0);
	assert_int_equal(A->n_pins, 1);
	expect_pin(10, "30.0.0.0", 24, "10.0.3.2");
}

/* A switch whose config uses every nexthop id: a pin through a nexthop
 * in use fits, one that needs another is refused (via). */
static void test_pin_capacity(void **state)
{
	size_t cap = 400000, n = 0;
	char *t = malloc(cap);
	struct xfab_cfg_errors errs;
	struct answer a;

	(void)state;
	assert_non_null(t);
	n +=
	    (size_t)snprintf(t + n, cap - n,
			     "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},"
			     " \"PORT\": {\"eth1\": {}, \"eth2\": {}, \"eth3\": {}, \"eth4\": {}},"
			     " \"INTERFACE\": {\"eth1|10.0.0.1/19\": {}, \"eth2|10.1.0.1/24\": {}},"
			     " \"TE_PATH\": {}, \"ROUTE\": {");
	for (int i = 0; i < XFAB_MAX_NEXTHOPS - 1; i++) /* gateways 10.0.0.2 .. */
		n += (size_t)snprintf(t + n, cap - n,
				      "%s\"40.%d.%d.0/24\": {\"nexthop\": "
				      "\"10.0.%d.%d\"}",
				      i ? "," : "", i / 256, i % 256, (i + 2) / 256, (i + 2) % 256);
	snprintf(t + n, cap - n, "}}");
	xfab_config_free(&A->cfg);
	if (xfab_config_parse("big.json", t, &A->cfg, &errs)) {
		char line[768];

		xfab_cfg_error_format(&errs.e[0], line, sizeof(line));
		fail_msg("%s", line);
	}
	free(t);
	/* a fresh start on it (a reload would keep the old ids reserved) */
	xfab_compile_free(A->compile);
	xfab_rib_free(A->rib);
	rec_free();
	A->rib = xfab_rib_new();
	assert_non_null(A->rib);
	{
		struct xfab_map_ops ops = {.update = rec_update, .remove = rec_remove};

		A->compile = xfab_compile_new(A->rib, &ops, neigh_lookup, NULL);
	}
	assert_non_null(A->compile);
	compile_all();
	assert_int_equal(rec.n[XFAB_T_NEXTHOPS], XFAB_MAX_NEXTHOPS - 1);
	rec.ops = 0;
	a = ask(te_add("eth3", "30.0.0.0/24", "10.1.0.9"));
	assert_false(a.ok);
	assert_string_equal(a.field, "via");
	assert_non_null(strstr(a.error, "nexthops"));
	assert_int_equal(rec.ops, 0);
	ask_ok(te_add("eth3", "30.0.0.0/24", "10.0.0.2"));
	assert_non_null(te_route(12, "30.0.0.0", 24));
}

static void test_ping_and_clears_without_maps(void **state)
{
	struct answer a;

	(void)state;
	ask_ok("{\"cmd\":\"ping\"}");
	/* no maps loaded here: refused, not crashed */
	a = ask("{\"cmd\":\"clear-counters\"}");
	assert_false(a.ok);
	a = ask("{\"cmd\":\"clear-watermark\"}");
	assert_false(a.ok);
	assert_int_equal(rec.ops, 0);
	/* no FIB_SYNC here: the status says so, and takes no field */
	a = ask("{\"cmd\":\"fib-status\"}");
	assert_true(a.ok);
	assert_non_null(strstr(a.line, "\"fib_sync\":{\"enabled\":false}"));
	a = ask("{\"cmd\":\"fib-status\",\"table\":\"254\"}");
	assert_false(a.ok);
	assert_string_equal(a.field, "table");
}

/* A part outside requests.c (pfc.c in xfabd) serves its commands through
 * the handler table: registered, its answer is the reply (ok, or refused
 * with its field and message); a command nobody registered is refused
 * naming cmd. Nothing is written either way. */
static struct xfab_ctl_req seen;
static int n_seen;

static int wd_check(struct agent *a, const struct xfab_ctl_req *r, char *field, size_t flen,
		    char *msg, size_t mlen)
{
	(void)a;
	seen = *r;
	n_seen++;
	if (strcmp(r->ports, "eth9"))
		return 0;
	snprintf(field, flen, "ports");
	snprintf(msg, mlen, "eth9 is not lossless");
	return -1;
}

static void test_handler_table(void **state)
{
	struct answer a;

	(void)state;
	a = ask("{\"cmd\":\"pfcwd-stop\"}");
	assert_false(a.ok);
	assert_string_equal(a.field, "cmd");
	assert_non_null(strstr(a.error, "pfcwd-stop"));
	assert_int_equal(agent_ctl_register_check(XFAB_CTL_N_CMDS, wd_check), -1);
	assert_int_equal(agent_ctl_register_check(XFAB_CTL_PFCWD_STOP, wd_check), 0);
	ask_ok("{\"cmd\":\"pfcwd-stop\",\"ports\":\"eth2\"}");
	assert_int_equal(n_seen, 1);
	assert_int_equal(seen.cmd, XFAB_CTL_PFCWD_STOP);
	assert_string_equal(seen.ports, "eth2");
	a = ask("{\"cmd\":\"pfcwd-stop\",\"ports\":\"eth9\"}");
	assert_false(a.ok);
	assert_string_equal(a.field, "ports");
	assert_string_equal(a.error, "eth9 is not lossless");
	assert_int_equal(n_seen, 2);
	/* the others still unserved, the table's own still its own */
	a = ask("{\"cmd\":\"pfcwd-interval\",\"poll_interval\":\"200\"}");
	assert_false(a.ok);
	assert_string_equal(a.field, "cmd");
	ask_ok("{\"cmd\":\"ping\"}");
	assert_int_equal(n_seen, 2);
	assert_int_equal(rec.ops, 0);
}

/* config-info (docs/CONTROL.md): the file xfabd runs, made absolute, the
 * FNV-1a 64 of the text it parsed (as xfab_config_digest computes it, whose
 * vectors test_config_export checks), the format, no catalogue. */
static void test_config_info(void **state)
{
	char tmpl[] = "/tmp/xfab-config-info-XXXXXX", path[64], want[256];
	char *text = config_text(TE_ON);
	int fd = mkstemp(tmpl);
	struct answer a;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	/* a path with a detour: the answer is the file's real path */
	snprintf(path, sizeof(path), "/tmp/../%s", tmpl + 1);
	A->cfg_path = path;
	a = ask("{\"cmd\":\"config-info\"}");
	assert_true(a.ok);
	snprintf(want, sizeof(want),
		 "{\"ok\":true,\"path\":\"%s\",\"digest\":\"%016llx\",\"format\":\"xfab\","
		 "\"catalogue\":null}\n",
		 tmpl,
		 (unsigned long long)xfab_config_digest(XFAB_CFG_DIGEST_INIT, text, strlen(text)));
	assert_string_equal(a.line, want);
	unlink(tmpl);
	free(text);
}

/* The generation fence, rule by rule. A refused request writes nothing
 * and leaves every pin and the switch's generation as they were. */
static void test_generations(void **state)
{
	static const char stale53[] = "stale plan: generation 3, the switch holds 5";
	struct answer a;

	(void)state;
	assert_true(A->te_gen == 0);
	/* a first plan: its generation becomes the switch's */
	ask_ok(te_add_gen("eth1", "30.0.0.0/24", "10.0.2.2", 5));
	assert_true(A->te_gen == 5);
	assert_true(A->pins[0].gen == 5);
	/* lower: refused by gen, the exact message, nothing written */
	rec.ops = 0;
	a = ask(te_add_gen("eth1", "30.0.0.0/24", "10.0.3.7", 3));
	assert_false(a.ok);
	assert_string_equal(a.field, "gen");
	assert_string_equal(a.error, stale53);
	a = ask(te_add_gen("eth2", "30.0.9.0/24", "10.0.3.7", 4)); /* a new key too */
	assert_false(a.ok);
	assert_string_equal(a.field, "gen");
	snprintf(req, sizeof(req),
		 "{\"cmd\":\"te-del\",\"in\":\"eth1\",\"prefix\":\"30.0.0.0/24\",\"gen\":\"3\"}");
	a = ask(req);
	assert_false(a.ok);
	assert_string_equal(a.error, stale53);
	a = ask(te_gen_cmd("te-clear", 3));
	assert_false(a.ok);
	assert_string_equal(a.error, stale53);
	a = ask(te_gen_cmd("te-sweep", 4));
	assert_false(a.ok);
	assert_string_equal(a.field, "gen");
	assert_int_equal(rec.ops, 0);
	assert_int_equal(A->n_pins, 1);
	assert_true(A->te_gen == 5);
	expect_pin(10, "30.0.0.0", 24, "10.0.2.2");
	/* equal: accepted, the generation stays */
	ask_ok(te_add_gen("eth1", "30.0.0.0/24", "10.0.3.7", 5));
	expect_pin(10, "30.0.0.0", 24, "10.0.3.7");
	assert_true(A->te_gen == 5);
	/* higher: accepted and raised, the pin takes it */
	ask_ok(te_add_gen("eth2", "30.0.1.0/24", "10.0.4.7", 8));
	assert_true(A->te_gen == 8);
	assert_true(A->pins[1].gen == 8);
	a = ask(te_add_gen("eth1", "30.0.0.0/24", "10.0.3.7", 7));
	assert_false(a.ok);
	assert_string_equal(a.error, "stale plan: generation 7, the switch holds 8");
	/* a higher generation in a request refused for another reason does
	 * not raise the switch's */
	rec.ops = 0;
	a = ask(te_add_gen("eth1", "30.0.0.0/24", "10.9.9.9", 20));
	assert_false(a.ok);
	assert_string_equal(a.field, "via");
	snprintf(req, sizeof(req),
		 "{\"cmd\":\"te-del\",\"in\":\"eth3\",\"prefix\":\"30.0.5.0/24\",\"gen\":\"21\"}");
	a = ask(req);
	assert_false(a.ok);
	assert_string_equal(a.field, "prefix");
	rec.fail_writes = 1;
	a = ask(te_add_gen("eth3", "30.0.3.0/24", "10.0.4.6", 22));
	rec.fail_writes = 0;
	assert_false(a.ok);
	assert_true(A->te_gen == 8);
	assert_int_equal(A->n_pins, 2);
	/* without gen: an operator's pin, generation 0, the switch's stays */
	ask_ok(te_add("eth3", "30.0.3.0/24", "10.0.4.6"));
	assert_true(A->pins[2].gen == 0);
	assert_true(A->te_gen == 8);
	/* te-del with a higher generation raises it */
	snprintf(req, sizeof(req),
		 "{\"cmd\":\"te-del\",\"in\":\"eth3\",\"prefix\":\"30.0.3.0/24\",\"gen\":\"9\"}");
	ask_ok(req);
	assert_null(te_route(12, "30.0.3.0", 24));
	assert_true(A->te_gen == 9);
	/* te-clear with one: every pin goes and it is the switch's; with no
	 * pin left, a higher one still raises it */
	ask_ok(te_gen_cmd("te-clear", 10));
	assert_int_equal(A->n_pins, 0);
	assert_int_equal(te_entries(), 0);
	assert_true(A->te_gen == 10);
	ask_ok(te_gen_cmd("te-clear", 11));
	assert_true(A->te_gen == 11);
	a = ask(te_add_gen("eth1", "30.0.0.0/24", "10.0.3.7", 10));
	assert_false(a.ok);
	/* the top of the range */
	ask_ok(te_add_gen("eth1", "30.0.0.0/24", "10.0.3.7", UINT64_MAX));
	assert_true(A->te_gen == UINT64_MAX);
	ask_ok(te_add_gen("eth1", "30.0.0.0/24", "10.0.2.2", UINT64_MAX));
	a = ask(te_add_gen("eth1", "30.0.0.0/24", "10.0.3.7", UINT64_MAX - 1));
	assert_false(a.ok);
	/* reloads keep the generations */
	{
		struct xfab_cfg_errors errs;

		assert_int_equal(reload(TE_ON | MORE_ROUTES, &errs), 0);
	}
	assert_true(A->te_gen == UINT64_MAX);
	assert_true(A->pins[0].gen == UINT64_MAX);
}

/* Make before break: a new plan's pins, then a sweep below its generation
 * removes exactly the older pins (their table entries and the nexthops
 * only they used), keeps the new ones, and answers how many. */
static void test_sweep(void **state)
{
	size_t nh_before = rec.n[XFAB_T_NEXTHOPS];
	struct answer a;

	(void)state;
	ask_ok(te_add("eth4", "30.0.9.0/24", "10.0.3.9"));		   /* gen 0 */
	ask_ok(te_add_gen("eth1", "30.0.0.0/24", "10.0.3.7", 1));	   /* plan 1 */
	ask_ok(te_add_gen("eth2", "30.0.1.0/24", "10.0.4.7", 1));	   /* plan 1 */
	ask_ok(te_add_gen("eth3", "30.0.2.0/24", "10.0.4.8", 1));	   /* plan 1 */
	ask_ok(te_add_gen("eth1", "30.0.0.0/24", "10.0.4.7", 2));	   /* plan 2 replaces */
	ask_ok(te_add_gen("eth2", "30.0.5.0/24", "10.0.1.5,10.0.2.5", 2)); /* plan 2 */
	assert_int_equal(A->n_pins, 5);
	/* a sweep that fails to write puts everything back */
	rec.fail_writes = 1;
	a = ask(te_gen_cmd("te-sweep", 2));
	rec.fail_writes = 0;
	assert_false(a.ok);
	assert_non_null(strstr(a.error, "cannot write the tables"));
	assert_int_equal(A->n_pins, 5);
	assert_true(A->te_gen == 2);
	expect_pin(11, "30.0.1.0", 24, "10.0.4.7");
	/* the sweep below 2: the gen-0 and the two remaining gen-1 pins */
	a = ask(te_gen_cmd("te-sweep", 2));
	assert_true(a.ok);
	assert_non_null(strstr(a.line, "\"removed\":3,\"kept\":2,\"generation\":2"));
	assert_int_equal(A->n_pins, 2);
	assert_int_equal(te_entries(), 2);
	expect_pin(10, "30.0.0.0", 24, "10.0.4.7");
	expect_pin(11, "30.0.5.0", 24, "10.0.1.5,10.0.2.5");
	assert_null(te_route(11, "30.0.1.0", 24));
	assert_null(te_route(12, "30.0.2.0", 24));
	assert_null(te_route(13, "30.0.9.0", 24));
	for (int i = 0; i < A->n_pins; i++)
		assert_true(A->pins[i].gen == 2);
	/* again: nothing below 2 is left, nothing is written */
	rec.ops = 0;
	a = ask(te_gen_cmd("te-sweep", 2));
	assert_true(a.ok);
	assert_non_null(strstr(a.line, "\"removed\":0,\"kept\":2"));
	assert_int_equal(rec.ops, 0);
	/* a sweep of a later generation raises the switch's and removes all */
	a = ask(te_gen_cmd("te-sweep", 3));
	assert_true(a.ok);
	assert_true(A->te_gen == 3);
	assert_int_equal(A->n_pins, 0);
	assert_int_equal(te_entries(), 0);
	assert_int_equal(rec.n[XFAB_T_NEXTHOPS], nh_before);
	/* stale: refused, nothing written */
	ask_ok(te_add_gen("eth1", "30.0.0.0/24", "10.0.3.7", 3));
	rec.ops = 0;
	a = ask(te_gen_cmd("te-sweep", 2));
	assert_false(a.ok);
	assert_string_equal(a.error, "stale plan: generation 2, the switch holds 3");
	assert_int_equal(rec.ops, 0);
	assert_int_equal(A->n_pins, 1);
	/* before the tables are programmed (xfabd starting): refused, the
	 * pins and the generation kept; a sweep with nothing to remove passes */
	{
		struct xfab_compile *cmp = A->compile;

		A->compile = NULL;
		a = ask(te_gen_cmd("te-sweep", 4));
		assert_false(a.ok);
		assert_string_equal(a.error, "the tables are not programmed yet");
		assert_int_equal(A->n_pins, 1);
		assert_true(A->te_gen == 3);
		a = ask(te_gen_cmd("te-sweep", 3));
		assert_true(a.ok);
		A->compile = cmp;
	}
	assert_int_equal(rec.ops, 0);
	assert_non_null(te_route(10, "30.0.0.0", 24));
}

/* te-list: pages of whole pins, every pin exactly once, in order, with
 * its gateways and generation; the switch's generation on each page. */
static void test_te_list_pages(void **state)
{
	enum { N = 90 };
	int seen[N] = {0}, pages = 0;
	unsigned from = 0;

	(void)state;
	for (int i = 0; i < N; i++) {
		char pfx[32];

		snprintf(pfx, sizeof(pfx), "31.%d.0.0/16", i);
		/* long gateway lists make pages short */
		ask_ok(te_add_gen(i % 2 ? "eth1" : "eth2", pfx,
				  "10.0.3.10,10.0.3.11,10.0.3.12,10.0.4.13,10.0.4.14",
				  (unsigned long long)(i / 30 + 1)));
	}
	for (;;) {
		struct json_value *root;
		const struct json_value *pins, *next;
		struct json_pos pos;
		char err[128];
		struct answer a;

		snprintf(req, sizeof(req), "{\"cmd\":\"te-list\",\"from\":\"%u\"}", from);
		a = ask(req);
		assert_true(a.ok);
		assert_true(strlen(a.line) < XFAB_CTL_MAX_LINE);
		root = xfab_json_parse(a.line, err, sizeof(err), &pos);
		assert_non_null(root);
		assert_string_equal(xfab_json_get(root, "generation")->str, "3");
		assert_string_equal(xfab_json_get(root, "total")->str, "90");
		assert_true(xfab_json_get(root, "te")->boolean);
		pins = xfab_json_get(root, "pins");
		assert_true(pins->count > 0);
		for (unsigned k = 0; k < pins->count; k++) {
			const struct json_value *p = &pins->children[k];
			unsigned idx = from + k;
			char pfx[32], gen[8];

			assert_true(idx < N);
			snprintf(pfx, sizeof(pfx), "31.%u.0.0/16", idx);
			snprintf(gen, sizeof(gen), "%u", idx / 30 + 1);
			assert_string_equal(xfab_json_get(p, "prefix")->str, pfx);
			assert_string_equal(xfab_json_get(p, "in")->str, idx % 2 ? "eth1" : "eth2");
			assert_string_equal(xfab_json_get(p, "gen")->str, gen);
			assert_string_equal(xfab_json_get(p, "via")->str,
					    "10.0.3.10,10.0.3.11,10.0.3.12,10.0.4.13,10.0.4.14");
			seen[idx]++;
		}
		next = xfab_json_get(root, "next");
		pages++;
		if (!next) {
			assert_int_equal(from + pins->count, N);
			xfab_json_free(root);
			break;
		}
		assert_int_equal(strtoul(next->str, NULL, 10), from + pins->count);
		from += pins->count;
		xfab_json_free(root);
		assert_true(pages < N);
	}
	assert_true(pages > 1);
	for (int i = 0; i < N; i++)
		assert_int_equal(seen[i], 1);
	/* past the end: an empty last page */
	{
		struct answer a = ask("{\"cmd\":\"te-list\",\"from\":\"1000\"}");

		assert_true(a.ok);
		assert_non_null(strstr(a.line, "\"pins\":[]}"));
	}
}

/* te-list from every start, over pins of many sizes: whatever a page's
 * last pin leaves free, the page is one whole JSON line within the limit
 * that ends where the next begins (the pins written out here). */
static void test_te_list_every_start(void **state)
{
	enum { N = 120 };
	static const char *const hosts[] = {"10.0.3.5", "10.0.3.77", "10.0.4.200", "10.0.4.9",
					    "10.0.3.123"};
	char vias[N][128], pfxs[N][32];

	(void)state;
	for (int i = 0; i < N; i++) {
		size_t o = 0;

		/* 1..5 gateways of 8..10 characters: pins of 60 to 120 bytes */
		for (int g = 0; g <= (i * 7) % 5; g++)
			o += (size_t)snprintf(vias[i] + o, sizeof(vias[i]) - o, "%s%s",
					      g ? "," : "", hosts[(i + g) % 5]);
		snprintf(pfxs[i], sizeof(pfxs[i]), "%d.%d.0.0/16", 31 + i % 3, i);
		ask_ok(te_add_gen("eth1", pfxs[i], vias[i], 1));
	}
	for (unsigned from = 0; from < N; from++) {
		unsigned at = from;

		while (at < N) {
			char out[XFAB_CTL_MAX_LINE], line[64], err[128];
			struct json_value *root;
			const struct json_value *pins, *next;
			struct json_pos pos;
			int n;

			snprintf(line, sizeof(line), "{\"cmd\":\"te-list\",\"from\":\"%u\"}", at);
			n = agent_ctl_handle(A, line, strlen(line), out, sizeof(out));
			assert_true(n > 0 && (size_t)n < sizeof(out) && out[n - 1] == '\n');
			assert_int_equal(strlen(out), n);
			root = xfab_json_parse(out, err, sizeof(err), &pos);
			if (!root)
				fail_msg("te-list from %u: %s: %s", at, err, out);
			pins = xfab_json_get(root, "pins");
			next = xfab_json_get(root, "next");
			assert_true(pins->count > 0);
			for (unsigned k = 0; k < pins->count; k++) {
				assert_string_equal(
				    xfab_json_get(&pins->children[k], "prefix")->str, pfxs[at + k]);
				assert_string_equal(xfab_json_get(&pins->children[k], "via")->str,
						    vias[at + k]);
			}
			at += pins->count;
			if (next)
				assert_int_equal(strtoul(next->str, NULL, 10), at);
			else
				assert_int_equal(at, N);
			xfab_json_free(root);
		}
	}
}

/* damping-status (docs/CONTROL.md): every port, from "from" on, each as
 * its damper has it: eth2 damped with the HLD example's config and
 * suppressed by two flaps a ms apart (1000, then ~2000 >= 1600), its
 * reuse no later than max_suppress_time; the others without damping. */
static void test_damping_status(void **state)
{
	static const struct xfab_damp_cfg hld = {XFAB_DAMP_AIED, 30000, 15000, 1600, 1200, 1000};
	const struct json_value *ports, *e2;
	struct json_value *root;
	struct json_pos pos;
	char err[128];
	struct answer a;
	__u64 t = xfab_mono_ns();
	double pen;

	(void)state;
	for (int p = 0; p < N_PORTS; p++)
		xfab_damp_init(&A->damping.d[p], p == 1 ? &hld : &A->cfg.ports[p].damping, 1, t);
	for (int i = 0; i < 2; i++) {
		xfab_damp_event(&A->damping.d[1], 0, t + (__u64)i * 1000000);
		xfab_damp_event(&A->damping.d[1], 1, t + (__u64)i * 1000000 + 500000);
	}
	a = ask("{\"cmd\":\"damping-status\"}");
	assert_true(a.ok);
	root = xfab_json_parse(a.line, err, sizeof(err), &pos);
	assert_non_null(root);
	ports = xfab_json_get(root, "ports");
	assert_int_equal(ports->count, N_PORTS);
	assert_null(xfab_json_get(root, "next"));
	assert_string_equal(xfab_json_get(&ports->children[0], "algorithm")->str, "disabled");
	assert_null(xfab_json_get(&ports->children[0], "penalty"));
	e2 = &ports->children[1];
	assert_string_equal(xfab_json_get(e2, "port")->str, "eth2");
	assert_string_equal(xfab_json_get(e2, "algorithm")->str, "aied");
	assert_true(xfab_json_get(e2, "suppressed")->boolean);
	assert_string_equal(xfab_json_get(e2, "link")->str, "up");
	assert_string_equal(xfab_json_get(e2, "state")->str, "down");
	assert_string_equal(xfab_json_get(e2, "ceiling")->str, "4800");
	assert_string_equal(xfab_json_get(e2, "pre_down")->str, "2");
	assert_string_equal(xfab_json_get(e2, "post_down")->str, "2");
	pen = strtod(xfab_json_get(e2, "penalty")->str, NULL);
	assert_true(pen > 1900 && pen <= 2000);
	assert_true(strtoul(xfab_json_get(e2, "reuse_in_ms")->str, NULL, 10) <= 30000);
	xfab_json_free(root);
	/* a page from the last port */
	snprintf(req, sizeof(req), "{\"cmd\":\"damping-status\",\"from\":\"%d\"}", N_PORTS - 1);
	a = ask(req);
	root = xfab_json_parse(a.line, err, sizeof(err), &pos);
	assert_non_null(root);
	assert_int_equal(xfab_json_get(root, "ports")->count, 1);
	xfab_json_free(root);
	assert_int_equal(rec.ops, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_pin_on_the_routes_nexthop, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refusals_write_nothing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_te_off_refused, setup_te_off, teardown),
	    cmocka_unit_test_setup_teardown(test_del_and_clear_remove_what_was_added, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_pins_keyed_by_port_and_prefix, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failed_write_keeps_the_pin, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pins_survive_reloads, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_config_wins, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reload_that_breaks_a_pin_is_refused, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_pin_capacity, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ping_and_clears_without_maps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_handler_table, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_generations, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sweep, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_te_list_pages, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_te_list_every_start, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_damping_status, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_config_info, setup, teardown),
	};

	xfab_log_quiet = 1; /* xfabd's own lines: the answers are what is judged */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
