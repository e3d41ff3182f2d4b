// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the IPv4 FIB builder (user/lib/fib4.c: a 16-bit first
 * level, then a group of 256 entries per path holding longer prefixes)
 * against a brute-force longest-prefix match over the same route list:
 * random tables of every prefix length, resyncs that add, remove and change
 * routes, a resync that changes nothing writes nothing, paths keep their
 * groups, groups fold back when their last longer prefix goes, and running
 * out of groups writes nothing at all.
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

#include "fib.h"
#include "maps.h"

static __u32 *tbl16, *tbl8;
#define T_GROUPS 4096 /* groups of the FIB under test */
static struct xfab_fib_hw hw;
static __u64 rng = 0x9e3779b97f4a7c15ull;

static __u32 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (__u32)(rng >> 16);
}

static void set_route(struct xfab_e_route_v4 *e, __u32 addr, int plen, __u32 type, __u32 id)
{
	__u32 mask = plen ? ~0u << (32 - plen) : 0, be = htonl(addr & mask);

	memset(e, 0, sizeof(*e));
	e->key.prefixlen = 32 + (__u32)plen;
	memcpy(e->key.addr, &be, 4);
	e->val.type = type;
	e->val.id = id;
}

static __u32 route_addr(const struct xfab_e_route_v4 *e)
{
	__u32 be;

	memcpy(&be, e->key.addr, 4);
	return ntohl(be);
}

/* Brute force: the longest table-0 prefix containing addr (later entries of
 * the same prefix never occur: callers keep prefixes unique). */
static __u32 reference(const struct xfab_e_route_v4 *r, size_t n, __u32 addr)
{
	int best = -1;
	__u32 v = 0;

	for (size_t i = 0; i < n; i++) {
		int plen = (int)r[i].key.prefixlen - 32;
		__u32 mask = plen ? ~0u << (32 - plen) : 0;

		if (r[i].key.table || (addr & mask) != route_addr(&r[i]) || plen <= best)
			continue;
		best = plen;
		v = XFAB_FIB4_ENTRY(r[i].val.type, r[i].val.id);
	}
	return v;
}

/* Random prefixes, unique, weighted towards the lengths a fabric has. */
static size_t random_routes(struct xfab_e_route_v4 *r, size_t n)
{
	static const int lens[] = {0,  8,  12, 16, 20, 22, 23, 24, 24,
				   24, 25, 26, 28, 30, 31, 32, 32};
	size_t k = 0;

	while (k < n) {
		int plen = lens[rnd() % (sizeof(lens) / sizeof(lens[0]))];
		/* keep addresses in 10/8 and 20/8 so prefixes overlap a lot */
		__u32 addr = ((rnd() & 1) ? 10u << 24 : 20u << 24) | (rnd() & 0x00ffffffu);
		int dup = 0;

		if (plen == 0 && k)
			continue;
		set_route(&r[k], addr, plen, 1 + rnd() % 5, 1 + rnd() % 4000);
		for (size_t i = 0; i < k && !dup; i++)
			dup = !memcmp(&r[i].key, &r[k].key, sizeof(r[k].key));
		if (!dup)
			k++;
	}
	return k;
}

static void check_against_reference(const struct xfab_e_route_v4 *r, size_t n)
{
	/* every prefix's first and last address and its neighbours, then random
	 * addresses inside the crowded /8s */
	for (size_t i = 0; i < n; i++) {
		int plen = (int)r[i].key.prefixlen - 32;
		__u32 a = route_addr(&r[i]), last = a | (plen ? ~(~0u << (32 - plen)) : ~0u);
		__u32 probes[4] = {a, last, a - 1, last + 1};

		for (int p = 0; p < 4; p++)
			assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, probes[p]),
					 reference(r, n, probes[p]));
	}
	for (int i = 0; i < 20000; i++) {
		__u32 a = ((rnd() & 1) ? 10u << 24 : 20u << 24) | (rnd() & 0x00ffffffu);

		assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, a), reference(r, n, a));
	}
}

static int setup(void **state)
{
	(void)state;
	tbl16 = calloc(XFAB_FIB4_TBL16_SIZE, 4);
	tbl8 = calloc((size_t)T_GROUPS * 256, 4);
	if (!tbl16 || !tbl8)
		return -1;
	return xfab_fib_attach(&hw, 4, tbl16, tbl8, T_GROUPS);
}

static int teardown(void **state)
{
	(void)state;
	xfab_fib_detach(&hw);
	free(tbl16);
	free(tbl8);
	return 0;
}

static void test_random_tables_and_resync(void **state)
{
	enum { N = 1500 };
	struct xfab_e_route_v4 *r = calloc(2 * N, sizeof(*r));
	struct xfab_fib_stats st;
	size_t n;

	(void)state;
	assert_non_null(r);
	n = random_routes(r, N);
	assert_int_equal(xfab_fib_sync(&hw, r, n, &st), 0);
	assert_int_equal(st.routes, n);
	assert_true(st.groups > 0);
	check_against_reference(r, n);

	/* the same routes again, in another order: nothing to write */
	for (size_t i = 0; i + 1 < n; i += 2) {
		struct xfab_e_route_v4 t = r[i];

		r[i] = r[i + 1];
		r[i + 1] = t;
	}
	assert_int_equal(xfab_fib_sync(&hw, r, n, &st), 0);
	assert_int_equal(st.written, 0);

	/* drop every third route, change every fifth, add new ones */
	{
		size_t k = 0;

		for (size_t i = 0; i < n; i++) {
			if (i % 3 == 0)
				continue;
			r[k] = r[i];
			if (i % 5 == 0)
				r[k].val.id = 4000 + (__u32)(i % 90);
			k++;
		}
		n = k + random_routes(r + k, N / 2);
		/* random_routes only dedups within what it added */
		for (size_t i = k; i < n; i++)
			for (size_t j = 0; j < k; j++)
				if (!memcmp(&r[i].key, &r[j].key, sizeof(r[i].key)))
					r[i].key.prefixlen = r[j].key.prefixlen,
					r[i].val = r[j].val;
	}
	assert_int_equal(xfab_fib_sync(&hw, r, n, &st), 0);
	check_against_reference(r, n);

	/* everything gone: no entry left that the data plane could use */
	assert_int_equal(xfab_fib_sync(&hw, r, 0, &st), 0);
	for (size_t i = 0; i < XFAB_FIB4_TBL16_SIZE; i++)
		if (tbl16[i])
			fail_msg("tbl16[%zu] = %#x after removing every route", i, tbl16[i]);
	free(r);
}

/* The entry for a's /24: the first level's when it holds a route (or
 * nothing), else its group's. */
static __u32 at24(__u32 a)
{
	__u32 v = tbl16[a >> 16];

	if (!(v & XFAB_FIB4_EXT))
		return v;
	return tbl8[(size_t)(v & XFAB_FIB4_ID_MASK) * 256 + ((a >> 8) & 0xff)];
}

static void test_longer_prefix_and_its_cover(void **state)
{
	struct xfab_e_route_v4 r[4];
	struct xfab_fib_stats st;
	__u32 g;

	(void)state;
	set_route(&r[0], 0x0a000000, 8, XFAB_RT_GROUP, 7);	/* 10/8 */
	set_route(&r[1], 0x0a010280, 25, XFAB_RT_NEXTHOP, 3);	/* 10.1.2.128/25 */
	set_route(&r[2], 0x0a010201, 32, XFAB_RT_LOCAL, 0);	/* 10.1.2.1/32 */
	set_route(&r[3], 0x0b000000, 24, XFAB_RT_BLACKHOLE, 0); /* 11.0.0/24 */
	assert_int_equal(xfab_fib_sync(&hw, r, 4, &st), 0);
	/* 10.1.0.0/16's group, 10.1.2.0/24's, 11.0.0.0/16's */
	assert_int_equal(st.groups, 3);
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a010200),
			 XFAB_FIB4_ENTRY(XFAB_RT_GROUP, 7));
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a010201),
			 XFAB_FIB4_ENTRY(XFAB_RT_LOCAL, 0));
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a01027f),
			 XFAB_FIB4_ENTRY(XFAB_RT_GROUP, 7));
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a0102ff),
			 XFAB_FIB4_ENTRY(XFAB_RT_NEXTHOP, 3));
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0b0000ff),
			 XFAB_FIB4_ENTRY(XFAB_RT_BLACKHOLE, 0));
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0b000100), 0);
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0c000000), 0);
	assert_true(tbl16[0x0a01] & XFAB_FIB4_EXT);
	assert_true(at24(0x0a010200) & XFAB_FIB4_EXT);
	g = at24(0x0a010200);

	/* the cover changes: the paths keep their groups, and so do the
	 * longer prefixes; only the entries that took the cover change: the
	 * first level's 256 for 10/8 but 10.1's, 10.1's group's 256 but
	 * 10.1.2's, and 127 of 10.1.2's */
	r[0].val.id = 8;
	assert_int_equal(xfab_fib_sync(&hw, r, 4, &st), 0);
	assert_int_equal(at24(0x0a010200), g);
	assert_int_equal(st.written, 255 + 255 + 127);
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a010200),
			 XFAB_FIB4_ENTRY(XFAB_RT_GROUP, 8));
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a010201),
			 XFAB_FIB4_ENTRY(XFAB_RT_LOCAL, 0));

	/* the longer prefixes go: 10.1's groups fold back into the first
	 * level, which points straight at the cover again */
	assert_int_equal(xfab_fib_sync(&hw, r, 1, &st), 0);
	assert_int_equal(tbl16[0x0a01], XFAB_FIB4_ENTRY(XFAB_RT_GROUP, 8));
	assert_int_equal(st.groups, 0);
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0b0000ff), 0);

	/* other tables (TE) never reach the FIB */
	r[1].key.table = htonl(XFAB_TABLE_TE | 5);
	assert_int_equal(xfab_fib_sync(&hw, r, 2, &st), 0);
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a0102ff),
			 XFAB_FIB4_ENTRY(XFAB_RT_GROUP, 8));
	assert_int_equal(xfab_fib_sync(&hw, r, 0, &st), 0);
}

/* Lengths up to /16 live in the first level alone; /17 to /24 need their
 * /16's group; past /24 their /24's group too (a prefix a bit longer than
 * a level needs a whole group). A sync that needs one group more than the
 * FIB has fails and stores nothing; exactly as many fit. Under 10/8,
 * prefixes in the /24s 10.0.0 .. 10.15.239 (16 /16s): 16 + 4080 groups. */
static void test_out_of_groups_writes_nothing(void **state)
{
	static const int plens[] = {32, 25};
	size_t n = T_GROUPS - 16 + 1;
	struct xfab_e_route_v4 *r = calloc(n + 1, sizeof(*r));
	struct xfab_fib_stats st;

	(void)state;
	assert_non_null(r);
	for (size_t k = 0; k < sizeof(plens) / sizeof(plens[0]); k++) {
		int plen = plens[k];

		set_route(&r[0], 0x0a000000, 8, XFAB_RT_NEXTHOP, 1);
		assert_int_equal(xfab_fib_sync(&hw, r, 1, &st), 0);
		for (size_t i = 0; i < n; i++)
			set_route(&r[i + 1], 0x0a000000 | (__u32)i << 8 | 1, plen, XFAB_RT_NEXTHOP,
				  2);
		assert_int_equal(xfab_fib_sync(&hw, r, n + 1, &st), -ENOSPC);
		for (size_t i = 0x0a00; i < 0x0b00; i++)
			if (tbl16[i] != XFAB_FIB4_ENTRY(XFAB_RT_NEXTHOP, 1))
				fail_msg("/%d: tbl16[%#zx] changed by a sync that failed", plen, i);
		/* exactly as many as there are groups fit */
		assert_int_equal(xfab_fib_sync(&hw, r, n, &st), 0);
		assert_int_equal(st.groups, T_GROUPS);
		assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a000001),
				 XFAB_FIB4_ENTRY(XFAB_RT_NEXTHOP, 2));
		assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a00007f),
				 XFAB_FIB4_ENTRY(XFAB_RT_NEXTHOP, plen == 32 ? 1 : 2));
		assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a000080),
				 XFAB_FIB4_ENTRY(XFAB_RT_NEXTHOP, 1));
		assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a03fb01),
				 XFAB_FIB4_ENTRY(XFAB_RT_NEXTHOP, 2));
		assert_int_equal(xfab_fib_sync(&hw, r, 0, &st), 0);
		assert_int_equal(st.groups, 0);
	}
	/* /17 .. /24: the /16's group alone; a /16 none */
	set_route(&r[0], 0x0a000000, 16, XFAB_RT_NEXTHOP, 1);
	set_route(&r[1], 0x0a010000, 17, XFAB_RT_NEXTHOP, 2);
	set_route(&r[2], 0x0a020300, 24, XFAB_RT_NEXTHOP, 3);
	assert_int_equal(xfab_fib_sync(&hw, r, 3, &st), 0);
	assert_int_equal(st.groups, 2);
	assert_int_equal(tbl16[0x0a00], XFAB_FIB4_ENTRY(XFAB_RT_NEXTHOP, 1));
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a017fff),
			 XFAB_FIB4_ENTRY(XFAB_RT_NEXTHOP, 2));
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a018000), 0);
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a0203ff),
			 XFAB_FIB4_ENTRY(XFAB_RT_NEXTHOP, 3));
	assert_int_equal(xfab_fib_sync(&hw, r, 0, &st), 0);
	free(r);
}

/* The default route is a cover like any other: a prefix removed under it
 * hands its entries to 0.0.0.0/0 (top level and inside a group that stays,
 * because another prefix still uses it). */
static void test_default_route_covers(void **state)
{
	struct xfab_e_route_v4 r[4];
	struct xfab_fib_stats st;
	__u8 a[4] = {10, 1, 3, 128};

	(void)state;
	set_route(&r[0], 0, 0, XFAB_RT_NEXTHOP, 9);		/* 0.0.0.0/0 */
	set_route(&r[1], 0x0a010200, 24, XFAB_RT_NEXTHOP, 3);	/* 10.1.2.0/24 */
	set_route(&r[2], 0x0a010380, 25, XFAB_RT_BLACKHOLE, 0); /* 10.1.3.128/25 */
	/* a neighbour in the /25's group, so the group stays when the /25 goes */
	set_route(&r[3], 0x0a010300, 26, XFAB_RT_NEXTHOP, 4); /* 10.1.3.0/26 */
	assert_int_equal(xfab_fib_sync(&hw, r, 4, &st), 0);
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a010207),
			 XFAB_FIB4_ENTRY(XFAB_RT_NEXTHOP, 3));
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a0103c0),
			 XFAB_FIB4_ENTRY(XFAB_RT_BLACKHOLE, 0));
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a010340),
			 XFAB_FIB4_ENTRY(XFAB_RT_NEXTHOP, 9));
	/* the /25 removed on its own (as compile.c does), then the /24 by a sync */
	assert_int_equal(xfab_fib_del(&hw, a, 25, NULL), 0);
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a0103c0),
			 XFAB_FIB4_ENTRY(XFAB_RT_NEXTHOP, 9));
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a010305),
			 XFAB_FIB4_ENTRY(XFAB_RT_NEXTHOP, 4));
	assert_int_equal(xfab_fib_sync(&hw, r, 1, &st), 0);
	for (__u32 x = 0x0a010200; x < 0x0a010400; x += 0x3f)
		assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, x),
				 XFAB_FIB4_ENTRY(XFAB_RT_NEXTHOP, 9));
	assert_int_equal(st.groups, 0);
	assert_int_equal(xfab_fib_sync(&hw, r, 0, &st), 0);
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, T_GROUPS, 0x0a010207), 0);
}

/* A reader never follows a group number past the groups it was given: an
 * entry naming group n of n groups reads as no route, even where memory
 * past the last group holds one. */
static void test_lookup_group_bound(void **state)
{
	enum { GROUPS = 4 };
	__u32 *tbl16 = calloc(XFAB_FIB4_TBL16_SIZE, sizeof(__u32));
	__u32 *tbl8 = calloc((GROUPS + 1) * 256, sizeof(__u32));
	__u32 route = (XFAB_RT_NEXTHOP << 24) | 7;

	(void)state;
	assert_non_null(tbl16);
	assert_non_null(tbl8);
	for (int i = 0; i < (GROUPS + 1) * 256; i++)
		tbl8[i] = route;
	tbl16[0x0a01] = XFAB_FIB4_EXT | (GROUPS - 1); /* 10.1/16: the last group */
	tbl16[0x0a02] = XFAB_FIB4_EXT | GROUPS;	      /* 10.2/16: one past it */
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, GROUPS, 0x0a010203), route);
	assert_int_equal(xfab_fib4_lookup(tbl16, tbl8, GROUPS, 0x0a020203), 0);
	free(tbl16);
	free(tbl8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_longer_prefix_and_its_cover),
	    cmocka_unit_test(test_random_tables_and_resync),
	    cmocka_unit_test(test_out_of_groups_writes_nothing),
	    cmocka_unit_test(test_default_route_covers),
	    cmocka_unit_test(test_lookup_group_bound),
	};

	return cmocka_run_group_tests_name("fib4", tests, setup, teardown);
}
