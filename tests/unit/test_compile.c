// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the RIB and incremental compilation (user/lib/rib.c,
 * compile.c) against a recording map writer that keeps its own copy of
 * every table: on a switch with a couple of thousand routes,
 *   - a neighbour's new MAC writes exactly its nexthop entry;
 *   - a link down writes exactly the port entry and the groups with a member
 *     on that port, and a resilient group moves only the dead member's
 *     buckets (and, back up, only buckets to the returning member);
 *   - reloading the same config writes nothing, a changed one exactly the
 *     changed routes; a TE_PATH entry is one entry in its port's TE table;
 *   - removing one route writes only its route entry, its group when it was
 *     the last user, and only the FIB entries of its own range, and the FIBs
 *     then agree with a brute-force longest-prefix match over the routes the
 *     recorder holds;
 *   - a static neighbour's MAC wins over the kernel's; an admin-down port
 *     leaves its groups; a route's new group keeps the buckets of the members
 *     that stay; a group one route leaves and another takes in the same
 *     reload survives; a port back with another ifindex moves its connected
 *     route; weights split buckets; the write counts compile reports are the
 *     writes made.
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

#define N_ROUTES 2000
#define N_PORTS 4

/* ---- a recording map writer with its own copy of each table ---- */

struct rec_entry {
	__u8 key[24];
	__u8 val[sizeof(struct xfab_group)];
};

struct rec_op {
	enum xfab_table t;
	int remove;
	__u8 key[24];
};

struct recorder {
	struct rec_entry *e[XFAB_T_COUNT];
	size_t n[XFAB_T_COUNT], cap[XFAB_T_COUNT];
	struct rec_op *log;
	size_t n_log, cap_log;
};

/* FIB groups of each family in these tests */
#define T_GROUPS 4096
static struct rec_entry *rec_find(struct recorder *r, enum xfab_table t, const void *key)
{
	for (size_t i = 0; i < r->n[t]; i++)
		if (!memcmp(r->e[t][i].key, key, xfab_table_descs[t].key_size))
			return &r->e[t][i];
	return NULL;
}

static void rec_log(struct recorder *r, enum xfab_table t, int remove, const void *key)
{
	if (r->n_log == r->cap_log) {
		r->cap_log = r->cap_log ? r->cap_log * 2 : 256;
		r->log = realloc(r->log, r->cap_log * sizeof(*r->log));
		assert_non_null(r->log);
	}
	memset(&r->log[r->n_log], 0, sizeof(r->log[0]));
	r->log[r->n_log].t = t;
	r->log[r->n_log].remove = remove;
	memcpy(r->log[r->n_log].key, key, xfab_table_descs[t].key_size);
	r->n_log++;
}

static int rec_update(void *arg, enum xfab_table t, const void *key, const void *val)
{
	struct recorder *r = arg;
	struct rec_entry *e = rec_find(r, t, key);

	rec_log(r, t, 0, key);
	if (!e) {
		if (r->n[t] == r->cap[t]) {
			r->cap[t] = r->cap[t] ? r->cap[t] * 2 : 64;
			r->e[t] = realloc(r->e[t], r->cap[t] * sizeof(*r->e[t]));
			assert_non_null(r->e[t]);
		}
		e = &r->e[t][r->n[t]++];
		memset(e, 0, sizeof(*e));
		memcpy(e->key, key, xfab_table_descs[t].key_size);
	}
	memcpy(e->val, val, xfab_table_descs[t].val_size);
	return 0;
}

static int rec_remove(void *arg, enum xfab_table t, const void *key)
{
	struct recorder *r = arg;
	struct rec_entry *e = rec_find(r, t, key);

	rec_log(r, t, 1, key);
	if (e)
		*e = r->e[t][--r->n[t]];
	return 0;
}

static void rec_clear_log(struct recorder *r)
{
	r->n_log = 0;
}

static size_t rec_ops(const struct recorder *r, enum xfab_table t, int remove)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_log; i++)
		n += r->log[i].t == t && r->log[i].remove == remove;
	return n;
}

static void rec_free(struct recorder *r)
{
	for (int t = 0; t < XFAB_T_COUNT; t++)
		free(r->e[t]);
	free(r->log);
	memset(r, 0, sizeof(*r));
}

/* ---- a switch: four ports, neighbours everywhere, N routes ---- */

struct neigh {
	__u32 ifindex;
	int family;
	__u8 addr[16];
	__u8 mac[6];
	int gone;
};

static struct neigh neighs[2 * N_PORTS];

static int neigh_lookup(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6])
{
	(void)arg;
	for (size_t i = 0; i < sizeof(neighs) / sizeof(neighs[0]); i++)
		if (!neighs[i].gone && neighs[i].ifindex == ifindex && neighs[i].family == family &&
		    !memcmp(neighs[i].addr, addr, family == AF_INET ? 4 : 16)) {
			memcpy(mac, neighs[i].mac, 6);
			return 0;
		}
	return -ENOENT;
}

static void set_neighs(void)
{
	char text[64];

	for (int p = 0; p < N_PORTS; p++) {
		struct neigh *v4 = &neighs[2 * p], *v6 = &neighs[2 * p + 1];

		memset(v4, 0, sizeof(*v4) * 2);
		v4->ifindex = v6->ifindex = (__u32)(10 + p);
		v4->family = AF_INET;
		v6->family = AF_INET6;
		snprintf(text, sizeof(text), "10.0.%d.2", p + 1);
		inet_pton(AF_INET, text, v4->addr);
		snprintf(text, sizeof(text), "fd00:%d::2", p + 1);
		inet_pton(AF_INET6, text, v6->addr);
		v4->mac[0] = v6->mac[0] = 2;
		v4->mac[4] = v6->mac[4] = (__u8)(p + 1);
		v4->mac[5] = 2;
		v6->mac[5] = 6;
	}
}

static void live_ports(struct xfab_port_live *live)
{
	memset(live, 0, sizeof(*live) * XFAB_MAX_PORTS);
	for (int p = 0; p < N_PORTS; p++) {
		live[p].ifindex = (__u32)(10 + p);
		live[p].mac[0] = 2;
		live[p].mac[5] = (__u8)p;
		live[p].oper_up = 1;
	}
}

/* The nexthop sets routes use (gateway on eth<n> is 10.0.<n>.2); route i
 * takes sets[i % 4]. */
static const char *const sets[] = {
    "10.0.1.2,10.0.2.2",	  /* A */
    "10.0.2.2,10.0.3.2,10.0.4.2", /* B */
    "10.0.1.2",			  /* C: one nexthop */
    "10.0.3.2,10.0.4.2",	  /* D */
};

enum {
	SKIP_5 = 1,
	ADD_22 = 2,
	MOVE_6 = 4,
	TE = 8,
	STATIC = 16,	   /* a static neighbour for eth3's gateway 10.0.3.2 */
	ETH4_DOWN = 32,	   /* eth4 admin down */
	GROW_E = 64,	   /* 21.0.0.1/32 over 10.0.1.2,10.0.3.2,10.0.4.2 */
	SWAP_E = 128,	   /* 21.0.0.1/32 over set A, 22.0.0.0/24 over E's set */
	WEIGHTED = 256,	   /* 23.0.0.0/24 over A's gateways, weights 1 and 3 */
	ETH3_SHAPED = 512, /* eth3: MTU 9000, a 10 Gbit/s rate (a queued port) */
};

#define STATIC_MAC "02:00:00:00:aa:03"

/* The config text: route i is 20.<i/256>.<i%256>.0/24 over sets[i % 4],
 * under a 20.0.0.0/16 cover; 20.0.7.128/25 and 21.0.0.1/32 are longer
 * prefixes (the latter the only user of its group), plus two IPv6 routes. */
static char *config_text(int flags)
{
	size_t cap = 200000, n = 0;
	char *t = malloc(cap);

	assert_non_null(t);
	n += (size_t)snprintf(
	    t + n, cap - n,
	    "{\n \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"
	    " \"PORT\": {\"eth1\": {}, \"eth2\": {}, \"eth3\": {%s}, \"eth4\": {%s}},\n"
	    " \"INTERFACE\": {\"eth1|10.0.1.1/24\": {}, \"eth2|10.0.2.1/24\": {},\n"
	    "   \"eth3|10.0.3.1/24\": {}, \"eth4|10.0.4.1/24\": {},\n"
	    "   \"eth1|fd00:1::1/64\": {}, \"eth2|fd00:2::1/64\": {}, \"eth3|fd00:3::1/64\": {}},\n"
	    " \"ECMP\": {\"global\": {\"resilient\": \"true\"}},\n"
	    "%s%s"
	    " \"ROUTE\": {\n"
	    "  \"20.0.0.0/16\": {\"nexthop\": \"%s\"},\n"
	    "  \"20.0.7.128/25\": {\"nexthop\": \"%s\"},\n"
	    "  \"21.0.0.1/32\": {\"nexthop\": \"%s\"},\n%s%s"
	    "  \"fd10::/64\": {\"nexthop\": \"fd00:1::2,fd00:2::2\"},\n"
	    "  \"fd10:0:0:1::/64\": {\"nexthop\": \"fd00:3::2\"},\n",
	    flags & ETH3_SHAPED ? "\"mtu\": \"9000\", \"rate\": \"10000\"" : "",
	    flags & ETH4_DOWN ? "\"admin_status\": \"down\"" : "",
	    flags & TE ? " \"TE_PATH\": {\"eth1|20.0.9.0/24\": {\"nexthop\": \"10.0.3.2\"}},\n"
		       : "",
	    flags & STATIC ? " \"NEIGH\": {\"eth3|10.0.3.2\": {\"neigh\": \"" STATIC_MAC "\"}},\n"
			   : "",
	    sets[0], sets[2],
	    flags & GROW_E   ? "10.0.1.2,10.0.3.2,10.0.4.2"
	    : flags & SWAP_E ? sets[0]
			     : "10.0.1.2,10.0.3.2",
	    flags & SWAP_E ? "  \"22.0.0.0/24\": {\"nexthop\": \"10.0.1.2,10.0.3.2\"},\n" : "",
	    flags & WEIGHTED
		? "  \"23.0.0.0/24\": {\"nexthop\": \"10.0.1.2,10.0.2.2\", \"weight\": \"1,3\"},\n"
		: "");
	if (flags & ADD_22)
		n += (size_t)snprintf(t + n, cap - n, "  \"22.0.0.0/24\": {\"nexthop\": \"%s\"},\n",
				      sets[0]);
	for (int i = 1; i <= N_ROUTES; i++) {
		int set = (flags & MOVE_6) && i == 6 ? 3 : i % 4;

		if ((flags & SKIP_5) && i == 5)
			continue;
		n += (size_t)snprintf(t + n, cap - n,
				      "  \"20.%d.%d.0/24\": {\"nexthop\": \"%s\"}%s\n", i / 256,
				      i % 256, sets[set], i == N_ROUTES ? "" : ",");
	}
	snprintf(t + n, cap - n, " }\n}\n");
	return t;
}

struct sw {
	struct recorder rec;
	struct xfab_config cfg;
	struct xfab_rib *rib;
	struct xfab_compile *c;
	struct xfab_port_live live[XFAB_MAX_PORTS];
	__u32 *tbl4, *tbl8, *tbl16, *tbl8_6; /* the IPv4 FIB: tbl4 (16 bits), tbl8 */
	struct xfab_fib_hw fib4;
	struct xfab_fib_hw fib6;
};

static void load(struct sw *s, int flags)
{
	struct xfab_cfg_errors errs;
	char *text = config_text(flags);

	xfab_config_free(&s->cfg);
	assert_int_equal(xfab_config_parse("sw.json", text, &s->cfg, &errs), 0);
	free(text);
	assert_int_equal(xfab_rib_load_config(s->rib, &s->cfg), 0);
	assert_int_equal(xfab_compile_config(s->c, &s->cfg, s->live), 0);
}

static int setup(void **state)
{
	struct sw *s = calloc(1, sizeof(*s));
	struct xfab_map_ops ops = {.update = rec_update, .remove = rec_remove};

	if (!s)
		return -1;
	set_neighs();
	live_ports(s->live);
	s->tbl4 = calloc(XFAB_FIB4_TBL16_SIZE, 4);
	s->tbl8 = calloc((size_t)T_GROUPS * 256, 4);
	s->tbl16 = calloc(XFAB_FIB6_TBL16_SIZE, 4);
	s->tbl8_6 = calloc((size_t)T_GROUPS * 256, 4);
	if (!s->tbl4 || !s->tbl8 || !s->tbl16 || !s->tbl8_6 ||
	    xfab_fib_attach(&s->fib4, 4, s->tbl4, s->tbl8, T_GROUPS) ||
	    xfab_fib_attach(&s->fib6, 16, s->tbl16, s->tbl8_6, T_GROUPS))
		return -1;
	ops.arg = &s->rec;
	ops.fib4 = &s->fib4;
	ops.fib6 = &s->fib6;
	s->rib = xfab_rib_new();
	s->c = xfab_compile_new(s->rib, &ops, neigh_lookup, NULL);
	if (!s->rib || !s->c)
		return -1;
	load(s, 0);
	rec_clear_log(&s->rec);
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct sw *s = *state;

	xfab_compile_free(s->c);
	xfab_rib_free(s->rib);
	xfab_config_free(&s->cfg);
	xfab_fib_detach(&s->fib4);
	xfab_fib_detach(&s->fib6);
	free(s->tbl4);
	free(s->tbl8);
	free(s->tbl16);
	free(s->tbl8_6);
	rec_free(&s->rec);
	free(s);
	return 0;
}

static __u32 addr4(const char *text)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, text, &a), 1);
	return ntohl(a.s_addr);
}

/* The id of the nexthop the recorder holds for (ifindex, gateway). */
static __u32 nexthop_id(const struct recorder *r, __u32 ifindex, int family, const char *gw)
{
	__u8 a[16] = {0};

	inet_pton(family, gw, a);
	for (size_t i = 0; i < r->n[XFAB_T_NEXTHOPS]; i++) {
		const struct xfab_nexthop *v = (const void *)r->e[XFAB_T_NEXTHOPS][i].val;

		if (v->ifindex == ifindex && !memcmp(v->gw, a, 16))
			return *(const __u32 *)r->e[XFAB_T_NEXTHOPS][i].key;
	}
	fail_msg("no nexthop %s on ifindex %u", gw, ifindex);
	return 0;
}

static const struct xfab_route *route_v4(struct recorder *r, const char *addr, int plen)
{
	struct xfab_lpm_v4_key key = {.prefixlen = 32u + (__u32)plen};
	const struct rec_entry *e;

	inet_pton(AF_INET, addr, key.addr);
	e = rec_find(r, XFAB_T_ROUTES_V4, &key);
	return e ? (const struct xfab_route *)e->val : NULL;
}

/* The nexthop record written for id. */
static const struct xfab_nexthop *nexthop_of(struct recorder *r, __u32 id)
{
	const struct rec_entry *e = rec_find(r, XFAB_T_NEXTHOPS, &id);

	assert_non_null(e);
	return (const void *)e->val;
}

static size_t total_ops(const struct recorder *r)
{
	return r->n_log;
}

/* ---- brute-force longest-prefix match over the recorded routes ---- */

static __u32 reference4(const struct recorder *r, __u32 addr)
{
	int best = -1;
	__u32 v = 0;

	for (size_t i = 0; i < r->n[XFAB_T_ROUTES_V4]; i++) {
		const struct xfab_lpm_v4_key *k = (const void *)r->e[XFAB_T_ROUTES_V4][i].key;
		const struct xfab_route *rt = (const void *)r->e[XFAB_T_ROUTES_V4][i].val;
		int plen = (int)k->prefixlen - 32;
		__u32 mask = plen ? ~0u << (32 - plen) : 0, pa;

		memcpy(&pa, k->addr, 4);
		if (k->table || (addr & mask) != ntohl(pa) || plen <= best)
			continue;
		best = plen;
		v = XFAB_FIB4_ENTRY(rt->type, rt->id);
	}
	return v;
}

static void check_fib4(struct sw *s)
{
	static __u64 rng = 0x9e3779b97f4a7c15ull;

	/* every recorded prefix's edges and their outside neighbours */
	for (size_t i = 0; i < s->rec.n[XFAB_T_ROUTES_V4]; i++) {
		const struct xfab_lpm_v4_key *k = (const void *)s->rec.e[XFAB_T_ROUTES_V4][i].key;
		int plen = (int)k->prefixlen - 32;
		__u32 a, last, probes[4];

		memcpy(&a, k->addr, 4);
		a = ntohl(a);
		last = a | (plen ? ~(~0u << (32 - plen)) : ~0u);
		probes[0] = a, probes[1] = last, probes[2] = a - 1, probes[3] = last + 1;
		for (int p = 0; p < 4; p++)
			assert_int_equal(xfab_fib4_lookup(s->tbl4, s->tbl8, T_GROUPS, probes[p]),
					 reference4(&s->rec, probes[p]));
	}
	for (int i = 0; i < 3000; i++) {
		__u32 a;

		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		a = (20u << 24) | (__u32)(rng & 0x0107ffff); /* 20.0-1.x.x, 21.0-7.x.x */
		a |= (__u32)(rng >> 40 & 1) << 24;
		assert_int_equal(xfab_fib4_lookup(s->tbl4, s->tbl8, T_GROUPS, a),
				 reference4(&s->rec, a));
	}
}

/* ---- tests ---- */

static void test_initial_compile(void **state)
{
	struct sw *s = *state;
	struct xfab_compile_counts n;
	const struct xfab_route *r1 = route_v4(&s->rec, "20.0.1.0", 24),
				*r5 = route_v4(&s->rec, "20.0.5.0", 24),
				*r2 = route_v4(&s->rec, "20.0.2.0", 24);

	xfab_compile_counts(s->c, &n);
	/* N + 3 ROUTE + 4 connected + 4 local */
	assert_int_equal(n.routes_v4, N_ROUTES + 3 + 4 + 4);
	assert_int_equal(n.routes_v6, 2 + 3 + 3);
	assert_int_equal(s->rec.n[XFAB_T_ROUTES_V4], n.routes_v4);
	/* groups: A, B, D, E (21.0.0.1) and the IPv6 pair; C is a nexthop */
	assert_int_equal(n.groups, 5);
	assert_int_equal(s->rec.n[XFAB_T_GROUPS], 5);
	assert_int_equal(n.nexthops, 4 + 3);
	assert_non_null(r1);
	assert_non_null(r5);
	assert_int_equal(r1->type, XFAB_RT_GROUP);
	assert_int_equal(r1->id, r5->id); /* same set, one group */
	assert_int_equal(r2->type, XFAB_RT_NEXTHOP);
	assert_int_equal(r2->id, nexthop_id(&s->rec, 10, AF_INET, "10.0.1.2"));
	check_fib4(s);
}

static void test_neighbour_change_writes_its_nexthop(void **state)
{
	struct sw *s = *state;
	__u32 id = nexthop_id(&s->rec, 11, AF_INET, "10.0.2.2");
	const struct xfab_nexthop *v;
	__u8 eth2_gw[4];

	inet_pton(AF_INET, "10.0.2.2", eth2_gw);
	/* a new MAC: exactly the one nexthop entry, nothing else */
	neighs[2].mac[3] = 0x77;
	assert_int_equal(xfab_compile_neigh(s->c, 11, AF_INET, eth2_gw), 0);
	assert_int_equal(total_ops(&s->rec), 1);
	assert_int_equal(s->rec.log[0].t, XFAB_T_NEXTHOPS);
	assert_int_equal(s->rec.log[0].remove, 0);
	assert_memory_equal(s->rec.log[0].key, &id, 4);
	/* what the compile reports writing (the benchmark's figure) is what
	 * the recorder saw */
	assert_int_equal(xfab_compile_last(s->c)->updates[XFAB_T_NEXTHOPS], 1);
	assert_int_equal(xfab_compile_last(s->c)->updates[XFAB_T_GROUPS], 0);
	v = (const void *)rec_find(&s->rec, XFAB_T_NEXTHOPS, &id)->val;
	assert_memory_equal(v->dmac, neighs[2].mac, 6);
	assert_true(v->flags & XFAB_NH_RESOLVED);
	assert_int_equal(xfab_compile_last(s->c)->fib4_written, 0);

	/* the same MAC again, or a neighbour no nexthop uses: nothing */
	rec_clear_log(&s->rec);
	assert_int_equal(xfab_compile_neigh(s->c, 11, AF_INET, eth2_gw), 0);
	eth2_gw[3] = 9;
	assert_int_equal(xfab_compile_neigh(s->c, 11, AF_INET, eth2_gw), 0);
	assert_int_equal(total_ops(&s->rec), 0);

	/* gone: the nexthop is unresolved, still one write */
	eth2_gw[3] = 2;
	neighs[2].gone = 1;
	assert_int_equal(xfab_compile_neigh(s->c, 11, AF_INET, eth2_gw), 0);
	assert_int_equal(total_ops(&s->rec), 1);
	v = (const void *)rec_find(&s->rec, XFAB_T_NEXTHOPS, &id)->val;
	assert_false(v->flags & XFAB_NH_RESOLVED);
	neighs[2].gone = 0;
}

/* Groups (ids) the recorder holds with a member on ifindex. */
static size_t groups_on(const struct recorder *r, __u32 ifindex, __u32 *ids)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n[XFAB_T_GROUPS]; i++) {
		const struct xfab_group *g = (const void *)r->e[XFAB_T_GROUPS][i].val;
		int on = 0;

		for (int m = 0; m < g->num_members; m++)
			for (size_t k = 0; k < r->n[XFAB_T_NEXTHOPS]; k++) {
				const struct xfab_nexthop *v =
				    (const void *)r->e[XFAB_T_NEXTHOPS][k].val;

				on |=
				    *(const __u32 *)r->e[XFAB_T_NEXTHOPS][k].key == g->members[m] &&
				    v->ifindex == ifindex;
			}
		if (on)
			ids[n++] = *(const __u32 *)r->e[XFAB_T_GROUPS][i].key;
	}
	return n;
}

static void test_link_down_rewrites_its_groups(void **state)
{
	struct sw *s = *state;
	__u32 ids[16], dead_v4 = nexthop_id(&s->rec, 11, AF_INET, "10.0.2.2"),
		       dead_v6 = nexthop_id(&s->rec, 11, AF_INET6, "fd00:2::2");
	size_t n = groups_on(&s->rec, 11, ids);
	struct xfab_group before[16];
	const struct xfab_port *port;
	__u32 ifindex = 11;

	assert_int_equal(n, 3); /* A, B and the IPv6 pair */
	for (size_t i = 0; i < n; i++)
		memcpy(&before[i], rec_find(&s->rec, XFAB_T_GROUPS, &ids[i])->val,
		       sizeof(before[i]));

	assert_int_equal(xfab_compile_link(s->c, 1, 0), 0); /* eth2 */
	/* the port, its two nexthops (their up bits), its groups */
	assert_int_equal(total_ops(&s->rec), 1 + 2 + n);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_PORTS, 0), 1);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_NEXTHOPS, 0), 2);
	assert_int_equal(nexthop_of(&s->rec, dead_v4)->port.flags, XFAB_PORT_ADMIN_UP);
	assert_int_equal(nexthop_of(&s->rec, dead_v6)->port.flags, XFAB_PORT_ADMIN_UP);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_GROUPS, 0), n);
	assert_int_equal(xfab_compile_last(s->c)->updates[XFAB_T_GROUPS], n);
	assert_int_equal(xfab_compile_last(s->c)->updates[XFAB_T_PORTS], 1);
	port = (const void *)rec_find(&s->rec, XFAB_T_PORTS, &ifindex)->val;
	assert_false(port->flags & XFAB_PORT_OPER_UP);
	for (size_t i = 0; i < n; i++) {
		const struct xfab_group *g =
		    (const void *)rec_find(&s->rec, XFAB_T_GROUPS, &ids[i])->val;
		int moved = 0;

		assert_int_equal(g->live_members, g->num_members - 1);
		for (int b = 0; b < XFAB_GROUP_BUCKETS; b++) {
			assert_true(g->buckets[b] != dead_v4 && g->buckets[b] != dead_v6);
			if (g->buckets[b] == before[i].buckets[b])
				continue;
			/* only the dead member's buckets move */
			assert_true(before[i].buckets[b] == dead_v4 ||
				    before[i].buckets[b] == dead_v6);
			moved++;
		}
		assert_true(moved > 0);
		memcpy(&before[i], g, sizeof(before[i]));
	}
	assert_int_equal(xfab_compile_last(s->c)->fib4_written, 0);

	/* back up: the same entries, and buckets move only to the member
	 * that returns */
	rec_clear_log(&s->rec);
	assert_int_equal(xfab_compile_link(s->c, 1, 1), 0);
	assert_int_equal(total_ops(&s->rec), 1 + 2 + n);
	assert_int_equal(nexthop_of(&s->rec, dead_v4)->port.flags, XFAB_PORT_UP);
	for (size_t i = 0; i < n; i++) {
		const struct xfab_group *g =
		    (const void *)rec_find(&s->rec, XFAB_T_GROUPS, &ids[i])->val;

		assert_int_equal(g->live_members, g->num_members);
		for (int b = 0; b < XFAB_GROUP_BUCKETS; b++)
			if (g->buckets[b] != before[i].buckets[b])
				assert_true(g->buckets[b] == dead_v4 || g->buckets[b] == dead_v6);
	}
	/* a port with no group member (eth4 is in B and D: pick none) */
	rec_clear_log(&s->rec);
	assert_int_equal(xfab_compile_link(s->c, 1, 1), 0); /* no change: nothing */
	assert_int_equal(total_ops(&s->rec), 0);
}

static void test_reload_same_config_writes_nothing(void **state)
{
	struct sw *s = *state;

	load(s, 0);
	assert_int_equal(total_ops(&s->rec), 0);
	assert_int_equal(xfab_compile_last(s->c)->fib4_written, 0);
	assert_int_equal(xfab_compile_last(s->c)->fib6_written, 0);
}

static void test_reload_changed_config_writes_the_difference(void **state)
{
	struct sw *s = *state;
	const struct xfab_route *r22, *r6, *r4 = route_v4(&s->rec, "20.0.4.0", 24);
	__u32 group_a = r4->id, group_d = route_v4(&s->rec, "20.0.3.0", 24)->id;

	load(s, SKIP_5 | ADD_22 | MOVE_6);
	/* +22.0.0.0/24, 20.0.6.0/24 changed, -20.0.5.0/24: three route
	 * writes, no nexthop or group; in the FIB one entry each, and the
	 * first level's entry of 22.0.0.0/16, which now points at the new
	 * /24's group */
	assert_int_equal(rec_ops(&s->rec, XFAB_T_ROUTES_V4, 0), 2);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_ROUTES_V4, 1), 1);
	assert_int_equal(total_ops(&s->rec), 3);
	assert_int_equal(xfab_compile_last(s->c)->fib4_written, 3 + 1);
	r22 = route_v4(&s->rec, "22.0.0.0", 24);
	r6 = route_v4(&s->rec, "20.0.6.0", 24);
	assert_non_null(r22);
	assert_int_equal(r22->id, group_a); /* the same set keeps its group */
	assert_int_equal(r6->type, XFAB_RT_GROUP);
	assert_int_equal(r6->id, group_d);
	assert_null(route_v4(&s->rec, "20.0.5.0", 24));
	check_fib4(s);

	/* and back */
	rec_clear_log(&s->rec);
	load(s, 0);
	assert_int_equal(total_ops(&s->rec), 3);
	check_fib4(s);
}

/* A TE_PATH entry (as runtime TE pins arrive, merged into the config) is
 * one entry in eth1's TE table, on a nexthop that exists already, and
 * never reaches the FIB; dropping it removes exactly that entry. */
static void test_te_entry(void **state)
{
	struct sw *s = *state;
	struct xfab_lpm_v4_key key = {.prefixlen = 32 + 24, .table = htonl(XFAB_TABLE_TE | 10)};
	const struct rec_entry *e;

	inet_pton(AF_INET, "20.0.9.0", key.addr);
	load(s, TE);
	assert_int_equal(total_ops(&s->rec), 2); /* the entry, and settings (TE on) */
	assert_int_equal(rec_ops(&s->rec, XFAB_T_ROUTES_V4, 0), 1);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_SETTINGS, 0), 1);
	assert_int_equal(xfab_compile_last(s->c)->fib4_written, 0);
	e = rec_find(&s->rec, XFAB_T_ROUTES_V4, &key);
	assert_non_null(e);
	assert_int_equal(((const struct xfab_route *)e->val)->type, XFAB_RT_NEXTHOP);
	assert_int_equal(((const struct xfab_route *)e->val)->id,
			 nexthop_id(&s->rec, 12, AF_INET, "10.0.3.2"));
	rec_clear_log(&s->rec);
	load(s, TE);
	assert_int_equal(total_ops(&s->rec), 0);
	load(s, 0);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_ROUTES_V4, 1), 1);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_NEXTHOPS, 1), 0);
	assert_null(rec_find(&s->rec, XFAB_T_ROUTES_V4, &key));
}

static void remove_route(struct sw *s, const char *addr, int plen)
{
	struct xfab_prefix p = {.family = AF_INET, .plen = plen};
	struct xfab_rib_key key;

	inet_pton(AF_INET, addr, p.addr);
	xfab_rib_key_of(&key, 0, &p);
	rec_clear_log(&s->rec);
	xfab_rib_del(s->rib, &key, XFAB_RIB_SRC_CONFIG);
	assert_int_equal(xfab_compile_routes(s->c), 0);
}

/* The IPv4 FIB's entry for a's /24: the first level's if it holds a
 * route (or nothing), else its group's entry. */
static __u32 fib4_at24(const struct sw *s, __u32 a)
{
	__u32 v = s->tbl4[a >> 16];

	if (!(v & XFAB_FIB4_EXT))
		return v;
	return s->tbl8[(size_t)(v & XFAB_FIB4_ID_MASK) * 256 + ((a >> 8) & 0xff)];
}

static void test_remove_one_route_writes_its_entries(void **state)
{
	struct sw *s = *state;
	__u32 group_e = route_v4(&s->rec, "21.0.0.1", 32)->id;
	__u32 before_cover = xfab_fib4_lookup(s->tbl4, s->tbl8, T_GROUPS, addr4("20.0.0.1"));

	/* a /24 under the /16: the route entry and one entry of its group */
	remove_route(s, "20.0.5.0", 24);
	assert_int_equal(total_ops(&s->rec), 1);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_ROUTES_V4, 1), 1);
	assert_int_equal(xfab_compile_last(s->c)->fib4_written, 1);
	assert_int_equal(xfab_fib4_lookup(s->tbl4, s->tbl8, T_GROUPS, addr4("20.0.5.77")),
			 before_cover);
	check_fib4(s);

	/* the only route of its group: the route, then the group (its
	 * nexthops stay: other routes use them); in the FIB its entry, and
	 * the two that pointed at its path's groups (the /24's, the /16's:
	 * nothing else lives under 21.0.0.0/16) */
	remove_route(s, "21.0.0.1", 32);
	assert_int_equal(total_ops(&s->rec), 2);
	assert_int_equal(s->rec.log[0].t, XFAB_T_ROUTES_V4);
	assert_int_equal(s->rec.log[1].t, XFAB_T_GROUPS);
	assert_int_equal(s->rec.log[1].remove, 1);
	assert_memory_equal(s->rec.log[1].key, &group_e, 4);
	assert_int_equal(xfab_compile_last(s->c)->fib4_written, 3);
	assert_int_equal(fib4_at24(s, addr4("21.0.0.1")), 0);
	check_fib4(s);

	/* a /25 inside a /24 route: its 128 tbl8 entries, then the /24's
	 * entry points straight at the /24's route again */
	remove_route(s, "20.0.7.128", 25);
	assert_int_equal(total_ops(&s->rec), 1);
	assert_int_equal(xfab_compile_last(s->c)->fib4_written, 128 + 1);
	assert_false(fib4_at24(s, addr4("20.0.7.0")) & XFAB_FIB4_EXT);
	check_fib4(s);

	/* and added back: the route and only its own entries */
	{
		struct xfab_prefix p = {.family = AF_INET, .plen = 24};
		struct xfab_rib_member m[2] = {{.port = 3, .family = AF_INET, .weight = 1},
					       {.port = 2, .family = AF_INET, .weight = 1}};
		struct xfab_rib_key key;

		inet_pton(AF_INET, "20.0.5.0", p.addr);
		inet_pton(AF_INET, "10.0.4.2", m[0].gw); /* set D, written the other way */
		inet_pton(AF_INET, "10.0.3.2", m[1].gw);
		xfab_rib_key_of(&key, 0, &p);
		rec_clear_log(&s->rec);
		assert_int_equal(
		    xfab_rib_add(s->rib, &key, XFAB_RIB_SRC_CONFIG, XFAB_RIB_PATH, 0, m, 2), 0);
		assert_int_equal(xfab_compile_routes(s->c), 0);
		assert_int_equal(total_ops(&s->rec), 1);
		assert_int_equal(xfab_compile_last(s->c)->fib4_written, 1);
		assert_int_equal(route_v4(&s->rec, "20.0.5.0", 24)->id,
				 route_v4(&s->rec, "20.0.3.0", 24)->id);
		check_fib4(s);
	}
}

/* A netlink route under a config route of the same prefix changes nothing;
 * the config's going away hands the prefix to it. */
static void test_sources(void **state)
{
	struct sw *s = *state;
	struct xfab_prefix p = {.family = AF_INET, .plen = 24};
	struct xfab_rib_key key;
	__u32 before;

	inet_pton(AF_INET, "20.0.9.0", p.addr);
	xfab_rib_key_of(&key, 0, &p);
	before = route_v4(&s->rec, "20.0.9.0", 24)->id;
	assert_int_equal(
	    xfab_rib_add(s->rib, &key, XFAB_RIB_SRC_NETLINK, XFAB_RIB_BLACKHOLE, 0, NULL, 0), 0);
	assert_int_equal(xfab_compile_routes(s->c), 0);
	assert_int_equal(total_ops(&s->rec), 0);
	assert_int_equal(route_v4(&s->rec, "20.0.9.0", 24)->id, before);
	xfab_rib_del(s->rib, &key, XFAB_RIB_SRC_CONFIG);
	assert_int_equal(xfab_compile_routes(s->c), 0);
	assert_int_equal(total_ops(&s->rec), 1);
	assert_int_equal(route_v4(&s->rec, "20.0.9.0", 24)->type, XFAB_RT_BLACKHOLE);
	check_fib4(s);
}

static const struct xfab_group *group_of(struct recorder *r, __u32 id)
{
	const struct rec_entry *e = rec_find(r, XFAB_T_GROUPS, &id);

	return e ? (const struct xfab_group *)e->val : NULL;
}

static int buckets_on(const struct xfab_group *g, __u32 nh)
{
	int n = 0;

	for (int b = 0; b < XFAB_GROUP_BUCKETS; b++)
		n += g->buckets[b] == nh;
	return n;
}

/* Every route the recorder holds points at an entry it holds too, and
 * every group member at a nexthop. */
static void check_references(struct recorder *r)
{
	for (size_t i = 0; i < r->n[XFAB_T_ROUTES_V4]; i++) {
		const struct xfab_route *rt = (const void *)r->e[XFAB_T_ROUTES_V4][i].val;
		enum xfab_table t = rt->type == XFAB_RT_GROUP ? XFAB_T_GROUPS : XFAB_T_NEXTHOPS;

		if (rt->type != XFAB_RT_GROUP && rt->type != XFAB_RT_NEXTHOP)
			continue;
		if (!rec_find(r, t, &rt->id))
			fail_msg("route %zu: %s %u is not in the table", i,
				 t == XFAB_T_GROUPS ? "group" : "nexthop", rt->id);
	}
	for (size_t i = 0; i < r->n[XFAB_T_GROUPS]; i++) {
		const struct xfab_group *g = (const void *)r->e[XFAB_T_GROUPS][i].val;

		for (int m = 0; m < g->num_members; m++)
			if (!rec_find(r, XFAB_T_NEXTHOPS, &g->members[m]))
				fail_msg("a group's member %u is not a nexthop", g->members[m]);
	}
}

/* A static neighbour resolves its gateway's nexthop with the configured MAC
 * (one nexthop write), the kernel's neighbour changing then moves nothing,
 * and configured away the nexthop takes the kernel's MAC again. */
static void test_static_neighbour(void **state)
{
	struct sw *s = *state;
	__u32 id = nexthop_id(&s->rec, 12, AF_INET, "10.0.3.2");
	const __u8 want[6] = {0x02, 0, 0, 0, 0xaa, 0x03};
	const struct xfab_nexthop *v;
	__u8 gw[4];

	load(s, STATIC);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_NEXTHOPS, 0), 1);
	v = (const void *)rec_find(&s->rec, XFAB_T_NEXTHOPS, &id)->val;
	assert_memory_equal(v->dmac, want, 6);
	assert_true(v->flags & XFAB_NH_RESOLVED);

	rec_clear_log(&s->rec);
	neighs[4].mac[3] = 0x55; /* the kernel's 10.0.3.2 */
	inet_pton(AF_INET, "10.0.3.2", gw);
	assert_int_equal(xfab_compile_neigh(s->c, 12, AF_INET, gw), 0);
	assert_int_equal(total_ops(&s->rec), 0);

	load(s, 0);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_NEXTHOPS, 0), 1);
	v = (const void *)rec_find(&s->rec, XFAB_T_NEXTHOPS, &id)->val;
	assert_memory_equal(v->dmac, neighs[4].mac, 6);
}

/* eth4 admin down: its port entry says so, and the groups with a member on
 * it (B, D) lose exactly that member's buckets; back up, they are whole. */
/*
 * A nexthop carries its port: the record xfabd writes for 10.0.3.2 on
 * eth3, against one written out by hand (live_ports: eth3 is ifindex 12,
 * slot 2, MAC 02:00:00:00:00:02; set_neighs: the gateway's MAC is
 * 02:00:00:00:03:02). Shaped (MTU 9000, a rate: queued) by a reload, its
 * record follows in that reload.
 */
static void test_nexthop_carries_its_port(void **state)
{
	struct sw *s = *state;
	__u32 id = nexthop_id(&s->rec, 12, AF_INET, "10.0.3.2");
	struct xfab_nexthop want = {
	    .ifindex = 12,
	    .flags = XFAB_NH_VALID | XFAB_NH_RESOLVED,
	    .dmac = {0x02, 0, 0, 0, 0x03, 0x02},
	    .port = {.smac = {0x02, 0, 0, 0, 0, 0x02},
		     .slot = 2,
		     .mtu = 1500,
		     .vnet = 0,
		     .flags = XFAB_PORT_ADMIN_UP | XFAB_PORT_OPER_UP},
	    .gw = {10, 0, 3, 2},
	};

	assert_memory_equal(nexthop_of(&s->rec, id), &want, sizeof(want));
	load(s, ETH3_SHAPED);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_NEXTHOPS, 0), 2); /* v4 and v6 */
	want.port.mtu = 9000;
	want.port.flags |= XFAB_PORT_QUEUED;
	assert_memory_equal(nexthop_of(&s->rec, id), &want, sizeof(want));
	/* the other ports' nexthops were not written */
	rec_clear_log(&s->rec);
	load(s, 0);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_NEXTHOPS, 0), 2);
	want.port.mtu = 1500;
	want.port.flags &= ~XFAB_PORT_QUEUED;
	assert_memory_equal(nexthop_of(&s->rec, id), &want, sizeof(want));
}

static void test_admin_down_port(void **state)
{
	struct sw *s = *state;
	__u32 ids[16], ifindex = 13, dead = nexthop_id(&s->rec, 13, AF_INET, "10.0.4.2");
	size_t n = groups_on(&s->rec, 13, ids);
	const struct xfab_port *port;

	assert_int_equal(n, 2);
	load(s, ETH4_DOWN);
	port = (const void *)rec_find(&s->rec, XFAB_T_PORTS, &ifindex)->val;
	assert_false(port->flags & XFAB_PORT_ADMIN_UP);
	/* its nexthop's up bits with it, in the same reload */
	assert_int_equal(nexthop_of(&s->rec, dead)->port.flags, XFAB_PORT_OPER_UP);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_GROUPS, 0), n);
	for (size_t i = 0; i < n; i++) {
		const struct xfab_group *g = group_of(&s->rec, ids[i]);

		assert_int_equal(g->live_members, g->num_members - 1);
		assert_int_equal(buckets_on(g, dead), 0);
	}
	rec_clear_log(&s->rec);
	load(s, 0);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_GROUPS, 0), n);
	assert_int_equal(nexthop_of(&s->rec, dead)->port.flags, XFAB_PORT_UP);
	for (size_t i = 0; i < n; i++) {
		const struct xfab_group *g = group_of(&s->rec, ids[i]);

		assert_int_equal(g->live_members, g->num_members);
		assert_true(buckets_on(g, dead) >= XFAB_GROUP_BUCKETS / g->num_members);
	}
}

/* 21.0.0.1/32 (the only user of group E: 10.0.1.2, 10.0.3.2) gains a third
 * gateway: a new group, whose buckets start from E's, so the two gateways
 * that stay keep their buckets and only the third's share moves. */
static void test_new_group_keeps_the_buckets_that_stay(void **state)
{
	struct sw *s = *state;
	__u32 old_id = route_v4(&s->rec, "21.0.0.1", 32)->id,
	      added = nexthop_id(&s->rec, 13, AF_INET, "10.0.4.2");
	const struct xfab_route *r;
	const struct xfab_group *g;
	struct xfab_group before;
	int moved = 0;

	memcpy(&before, group_of(&s->rec, old_id), sizeof(before));
	load(s, GROW_E);
	r = route_v4(&s->rec, "21.0.0.1", 32);
	assert_int_equal(r->type, XFAB_RT_GROUP);
	assert_int_not_equal(r->id, old_id);
	assert_null(group_of(&s->rec, old_id)); /* its last user moved */
	g = group_of(&s->rec, r->id);
	assert_non_null(g);
	assert_int_equal(g->num_members, 3);
	for (int b = 0; b < XFAB_GROUP_BUCKETS; b++)
		if (g->buckets[b] != before.buckets[b]) {
			assert_int_equal(g->buckets[b], added);
			moved++;
		}
	assert_int_equal(moved, buckets_on(g, added));
	assert_in_range(moved, XFAB_GROUP_BUCKETS / 3, XFAB_GROUP_BUCKETS / 3 + 1);
	check_references(&s->rec);
}

/* In one reload 21.0.0.1/32 leaves group E (its only user) for set A and
 * a new 22.0.0.0/24 takes E's gateways: E stays as it was, nothing about
 * groups is written, and every route points at something that exists. */
static void test_group_left_and_taken_in_one_reload(void **state)
{
	struct sw *s = *state;
	__u32 e_id = route_v4(&s->rec, "21.0.0.1", 32)->id,
	      a_id = route_v4(&s->rec, "20.0.4.0", 24)->id;
	struct xfab_group before;
	const struct xfab_route *r;

	memcpy(&before, group_of(&s->rec, e_id), sizeof(before));
	load(s, SWAP_E);
	assert_int_equal(route_v4(&s->rec, "21.0.0.1", 32)->id, a_id);
	r = route_v4(&s->rec, "22.0.0.0", 24);
	assert_non_null(r);
	assert_int_equal(r->type, XFAB_RT_GROUP);
	assert_int_equal(r->id, e_id);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_GROUPS, 0), 0);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_GROUPS, 1), 0);
	assert_non_null(group_of(&s->rec, e_id));
	assert_memory_equal(group_of(&s->rec, e_id), &before, sizeof(before));
	check_references(&s->rec);
	check_fib4(s);
	/* and the compile state agrees: removing 22 now frees E */
	remove_route(s, "22.0.0.0", 24);
	assert_null(group_of(&s->rec, e_id));
	assert_int_equal(rec_ops(&s->rec, XFAB_T_GROUPS, 1), 1);
}

/* eth3 comes back with another ifindex: its connected route, and the
 * nexthops through it, follow. */
static void test_port_back_with_another_ifindex(void **state)
{
	struct sw *s = *state;
	const struct xfab_route *r;

	s->live[2].ifindex = 22;
	assert_int_equal(xfab_compile_config(s->c, &s->cfg, s->live), 0);
	r = route_v4(&s->rec, "10.0.3.0", 24);
	assert_int_equal(r->type, XFAB_RT_CONNECTED);
	assert_int_equal(r->id, 22);
	nexthop_id(&s->rec, 22, AF_INET, "10.0.3.2");
	for (size_t i = 0; i < s->rec.n[XFAB_T_NEXTHOPS]; i++)
		assert_int_not_equal(
		    ((const struct xfab_nexthop *)s->rec.e[XFAB_T_NEXTHOPS][i].val)->ifindex, 12);
	check_references(&s->rec);
	check_fib4(s);
}

/* A route over A's gateways with weights 1 and 3 is a group of its own,
 * its buckets split 1:3. */
static void test_weighted_route(void **state)
{
	struct sw *s = *state;
	__u32 a_id = route_v4(&s->rec, "20.0.4.0", 24)->id,
	      nh1 = nexthop_id(&s->rec, 10, AF_INET, "10.0.1.2"),
	      nh2 = nexthop_id(&s->rec, 11, AF_INET, "10.0.2.2");
	const struct xfab_route *r;
	const struct xfab_group *g;

	load(s, WEIGHTED);
	r = route_v4(&s->rec, "23.0.0.0", 24);
	assert_non_null(r);
	assert_int_equal(r->type, XFAB_RT_GROUP);
	assert_int_not_equal(r->id, a_id);
	g = group_of(&s->rec, r->id);
	assert_int_equal(g->num_members, 2);
	for (int m = 0; m < 2; m++)
		assert_int_equal(g->weights[m], g->members[m] == nh1 ? 1 : 3);
	assert_int_equal(buckets_on(g, nh1), XFAB_GROUP_BUCKETS / 4);
	assert_int_equal(buckets_on(g, nh2), XFAB_GROUP_BUCKETS * 3 / 4);
	/* set A itself is unweighted */
	g = group_of(&s->rec, a_id);
	assert_int_equal(buckets_on(g, nh1), XFAB_GROUP_BUCKETS / 2);
}

/* ---- a withdrawal the link event already made ---- */

#define N_LEARNT 64

/* Learnt (NETLINK) route 30.0.<i>.0/24 over the gateways named (10.0.<n>.2
 * on eth<n>), as a routing daemon's route in the kernel. */
static void learn(struct sw *s, int i, const int *gws, int n)
{
	struct xfab_prefix p = {.family = AF_INET, .plen = 24};
	struct xfab_rib_member m[XFAB_GROUP_MAX_MEMBERS];
	struct xfab_rib_key key;
	char text[32];

	memset(m, 0, sizeof(m));
	for (int k = 0; k < n; k++) {
		m[k].port = (__u16)(gws[k] - 1);
		m[k].family = AF_INET;
		m[k].weight = 1;
		snprintf(text, sizeof(text), "10.0.%d.2", gws[k]);
		inet_pton(AF_INET, text, m[k].gw);
	}
	snprintf(text, sizeof(text), "30.0.%d.0", i);
	inet_pton(AF_INET, text, p.addr);
	xfab_rib_key_of(&key, 0, &p);
	assert_int_equal(xfab_rib_add(s->rib, &key, XFAB_RIB_SRC_NETLINK, XFAB_RIB_PATH, 0, m, n),
			 0);
}

static const struct xfab_route *learnt(struct sw *s, int i)
{
	char text[32];

	snprintf(text, sizeof(text), "30.0.%d.0", i);
	return route_v4(&s->rec, text, 24);
}

/* Where the log's first entry of table t is (SIZE_MAX: none), or its last. */
static size_t log_pos(const struct recorder *r, enum xfab_table t, int last)
{
	size_t at = SIZE_MAX;

	for (size_t i = 0; i < r->n_log; i++)
		if (r->log[i].t == t && !r->log[i].remove) {
			at = i;
			if (!last)
				break;
		}
	return at;
}

/*
 * Learnt routes over set A (10.0.1.2, 10.0.2.2) share A's group with the
 * config's. eth2 loses its carrier: compile_link takes 10.0.2.2 out of A's
 * buckets. Then the routing daemon withdraws 10.0.2.2 from every learnt
 * route: already done, so nothing at all is written (before, each route
 * was written again, onto the 10.0.1.2 nexthop, and its FIB entry). A
 * withdrawal whose remaining member is the one that is down is no such
 * case, and is written. Back up, the routes the daemon left on 10.0.1.2 go
 * there before A takes 10.0.2.2 back (link up restores a member only where
 * the routing daemon says so); the daemon's path again puts them on A.
 */
static void test_withdrawal_after_link_down_writes_nothing(void **state)
{
	struct sw *s = *state;
	const int both[] = {1, 2}, one[] = {1}, other[] = {2};
	__u32 a_id = route_v4(&s->rec, "20.0.4.0", 24)->id,
	      nh1 = nexthop_id(&s->rec, 10, AF_INET, "10.0.1.2"),
	      nh2 = nexthop_id(&s->rec, 11, AF_INET, "10.0.2.2");
	const struct xfab_route *r;
	size_t last_route;

	for (int i = 0; i <= N_LEARNT; i++)
		learn(s, i, both, 2);
	assert_int_equal(xfab_compile_routes(s->c), 0);
	for (int i = 0; i <= N_LEARNT; i++) {
		r = learnt(s, i);
		assert_non_null(r);
		assert_int_equal(r->type, XFAB_RT_GROUP);
		assert_int_equal(r->id, a_id);
	}

	assert_int_equal(xfab_compile_link(s->c, 1, 0), 0); /* eth2 */
	assert_int_equal(buckets_on(group_of(&s->rec, a_id), nh2), 0);
	rec_clear_log(&s->rec);
	for (int i = 0; i < N_LEARNT; i++)
		learn(s, i, one, 1);
	assert_int_equal(xfab_compile_routes(s->c), 0);
	assert_int_equal(total_ops(&s->rec), 0);
	assert_int_equal(xfab_compile_last(s->c)->fib4_written, 0);
	for (int i = 0; i < N_LEARNT; i++)
		assert_int_equal(learnt(s, i)->id, a_id);
	assert_int_equal(buckets_on(group_of(&s->rec, a_id), nh1), XFAB_GROUP_BUCKETS);

	/* the member left is the dead one: written, onto its nexthop */
	learn(s, N_LEARNT, other, 1);
	assert_int_equal(xfab_compile_routes(s->c), 0);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_ROUTES_V4, 0), 1);
	r = learnt(s, N_LEARNT);
	assert_int_equal(r->type, XFAB_RT_NEXTHOP);
	assert_int_equal(r->id, nh2);

	/* a port going down and up that the lent routes do not lack: no move */
	rec_clear_log(&s->rec);
	assert_int_equal(xfab_compile_link(s->c, 0, 0), 0);
	assert_int_equal(xfab_compile_link(s->c, 0, 1), 0);
	assert_int_equal(rec_ops(&s->rec, XFAB_T_ROUTES_V4, 0), 0);
	assert_int_equal(learnt(s, 0)->id, a_id);

	/* back up: the learnt routes to 10.0.1.2 alone, then A whole again */
	rec_clear_log(&s->rec);
	assert_int_equal(xfab_compile_link(s->c, 1, 1), 0);
	for (int i = 0; i < N_LEARNT; i++) {
		r = learnt(s, i);
		assert_int_equal(r->type, XFAB_RT_NEXTHOP);
		assert_int_equal(r->id, nh1);
	}
	assert_int_equal(rec_ops(&s->rec, XFAB_T_ROUTES_V4, 0), N_LEARNT);
	assert_int_equal(buckets_on(group_of(&s->rec, a_id), nh2), XFAB_GROUP_BUCKETS / 2);
	last_route = log_pos(&s->rec, XFAB_T_ROUTES_V4, 1);
	assert_true(last_route != SIZE_MAX);
	assert_true(log_pos(&s->rec, XFAB_T_GROUPS, 0) > last_route);
	assert_int_equal(route_v4(&s->rec, "20.0.4.0", 24)->id, a_id);

	/* the daemon adds 10.0.2.2 again: the routes are on A */
	for (int i = 0; i < N_LEARNT; i++)
		learn(s, i, both, 2);
	assert_int_equal(xfab_compile_routes(s->c), 0);
	for (int i = 0; i < N_LEARNT; i++)
		assert_int_equal(learnt(s, i)->id, a_id);
	check_references(&s->rec);
	check_fib4(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_initial_compile, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_neighbour_change_writes_its_nexthop, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_link_down_rewrites_its_groups, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reload_same_config_writes_nothing, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_reload_changed_config_writes_the_difference, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_remove_one_route_writes_its_entries, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_sources, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_te_entry, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_static_neighbour, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_admin_down_port, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_nexthop_carries_its_port, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_new_group_keeps_the_buckets_that_stay, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_group_left_and_taken_in_one_reload, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_port_back_with_another_ifindex, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_weighted_route, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_withdrawal_after_link_down_writes_nothing, setup,
					    teardown),
	};

	return cmocka_run_group_tests_name("rib_and_compile", tests, NULL, NULL);
}
