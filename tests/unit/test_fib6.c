// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the IPv6 FIB builder (user/lib/fib6.c) against a brute-force
 * longest-prefix match over the same route list: random tables of mixed
 * prefix lengths, resyncs, a resync that changes nothing writes nothing, a
 * path keeps its groups, the group count agrees with what the config check
 * computes, and running out of groups writes nothing at all.
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

#define T_GROUPS 16384 /* groups of the FIB under test */
static __u32 *tbl16, *tbl8;
static struct xfab_fib_hw hw;
static __u64 rng = 0x2545f4914f6cdd1dull;

static __u32 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (__u32)(rng >> 16);
}

static void mask(__u8 *a, int plen)
{
	for (int i = 0; i < 16; i++) {
		int bit0 = i * 8;

		if (bit0 >= plen)
			a[i] = 0;
		else if (bit0 + 8 > plen)
			a[i] &= (__u8)(0xff << (8 - (plen - bit0)));
	}
}

static int contains(const __u8 *pfx, int plen, const __u8 *a)
{
	__u8 m[16];

	memcpy(m, a, 16);
	mask(m, plen);
	return !memcmp(m, pfx, 16);
}

static void set_route(struct xfab_e_route_v6 *e, const __u8 *addr, int plen, __u32 type, __u32 id)
{
	memset(e, 0, sizeof(*e));
	e->key.prefixlen = 32 + (__u32)plen;
	memcpy(e->key.addr, addr, 16);
	mask(e->key.addr, plen);
	e->val.type = type;
	e->val.id = id;
}

static __u32 reference(const struct xfab_e_route_v6 *r, size_t n, const __u8 *a)
{
	int best = -1;
	__u32 v = 0;

	for (size_t i = 0; i < n; i++) {
		int plen = (int)r[i].key.prefixlen - 32;

		if (r[i].key.table || plen <= best || !contains(r[i].key.addr, plen, a))
			continue;
		best = plen;
		v = XFAB_FIB6_ENTRY(r[i].val.type, r[i].val.id);
	}
	return v;
}

/* An address in one of two /32s, with few distinct values per byte so
 * that prefixes share paths and overlap. */
static void random_addr(__u8 *a)
{
	static const __u8 pool[] = {0x00, 0x01, 0x02, 0x80, 0xfe, 0xff};

	a[0] = 0x20;
	a[1] = 0x01;
	a[2] = 0x0d;
	a[3] = (rnd() & 1) ? 0xb8 : 0xb9;
	for (int i = 4; i < 16; i++)
		a[i] = (rnd() & 3) ? pool[rnd() % sizeof(pool)] : (__u8)rnd();
}

static size_t random_routes(struct xfab_e_route_v6 *r, size_t n)
{
	static const int lens[] = {0,  16, 20, 32, 33, 48,  56,	 60,
				   64, 64, 64, 72, 96, 120, 127, 128};
	size_t k = 0;

	while (k < n) {
		int plen = lens[rnd() % (sizeof(lens) / sizeof(lens[0]))], dup = 0;
		__u8 a[16];

		if (plen == 0 && k)
			continue;
		random_addr(a);
		set_route(&r[k], a, plen, 1 + rnd() % 5, 1 + rnd() % 4000);
		for (size_t i = 0; i < k && !dup; i++)
			dup = !memcmp(&r[i].key, &r[k].key, sizeof(r[k].key));
		if (!dup)
			k++;
	}
	return k;
}

static void check_against_reference(const struct xfab_e_route_v6 *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		__u8 a[16];

		/* the prefix's first address, and one with its host bits set */
		memcpy(a, r[i].key.addr, 16);
		assert_int_equal(xfab_fib6_lookup(tbl16, tbl8, T_GROUPS, a), reference(r, n, a));
		for (int b = (int)r[i].key.prefixlen - 32; b < 128; b++)
			a[b / 8] |= (__u8)(0x80 >> (b % 8));
		assert_int_equal(xfab_fib6_lookup(tbl16, tbl8, T_GROUPS, a), reference(r, n, a));
	}
	for (int i = 0; i < 5000; i++) {
		__u8 a[16];

		random_addr(a);
		assert_int_equal(xfab_fib6_lookup(tbl16, tbl8, T_GROUPS, a), reference(r, n, a));
	}
}

static size_t groups_needed(const struct xfab_e_route_v6 *r, size_t n)
{
	__u8(*addr)[16] = calloc(n + 1, 16);
	int *plen = calloc(n + 1, sizeof(int));
	size_t g;

	assert_non_null(addr);
	assert_non_null(plen);
	for (size_t i = 0; i < n; i++) {
		memcpy(addr[i], r[i].key.addr, 16);
		plen[i] = (int)r[i].key.prefixlen - 32;
	}
	g = xfab_fib_groups_needed((const __u8(*)[16])addr, plen, n, T_GROUPS, NULL);
	free(addr);
	free(plen);
	return g;
}

static int setup(void **state)
{
	(void)state;
	tbl16 = calloc(XFAB_FIB6_TBL16_SIZE, 4);
	tbl8 = calloc((size_t)T_GROUPS * 256, 4);
	if (!tbl16 || !tbl8)
		return -1;
	return xfab_fib_attach(&hw, 16, tbl16, tbl8, T_GROUPS);
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
	enum { N = 800 };
	struct xfab_e_route_v6 *r = calloc(2 * N, sizeof(*r));
	struct xfab_fib_stats st;
	size_t n;

	(void)state;
	assert_non_null(r);
	n = random_routes(r, N);
	assert_int_equal(xfab_fib_sync(&hw, r, n, &st), 0);
	assert_int_equal(st.routes, n);
	assert_int_equal(st.groups, groups_needed(r, n));
	check_against_reference(r, n);

	/* again, reordered: nothing to write */
	for (size_t i = 0; i + 1 < n; i += 2) {
		struct xfab_e_route_v6 t = r[i];

		r[i] = r[i + 1];
		r[i + 1] = t;
	}
	assert_int_equal(xfab_fib_sync(&hw, r, n, &st), 0);
	assert_int_equal(st.written, 0);

	/* drop every third, change every fifth, add new ones (unique prefixes) */
	{
		size_t k = 0, m;

		for (size_t i = 0; i < n; i++) {
			if (i % 3 == 0)
				continue;
			r[k] = r[i];
			if (i % 5 == 0)
				r[k].val.id = 4000 + (__u32)(i % 90);
			k++;
		}
		m = k + random_routes(r + k, N / 2);
		n = k;
		for (size_t i = k; i < m; i++) {
			int dup = 0;

			for (size_t j = 0; j < n && !dup; j++)
				dup = !memcmp(&r[i].key, &r[j].key, sizeof(r[i].key));
			if (!dup)
				r[n++] = r[i];
		}
	}
	assert_int_equal(xfab_fib_sync(&hw, r, n, &st), 0);
	assert_int_equal(st.groups, groups_needed(r, n));
	check_against_reference(r, n);

	assert_int_equal(xfab_fib_sync(&hw, r, 0, &st), 0);
	for (size_t i = 0; i < XFAB_FIB6_TBL16_SIZE; i++)
		if (tbl16[i])
			fail_msg("tbl16[%zu] = %#x after removing every route", i, tbl16[i]);
	free(r);
}

static void test_paths_keep_their_groups(void **state)
{
	static const __u8 net[16] = {0x20, 0x01, 0x0d, 0xb8};
	__u8 host[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5};
	struct xfab_e_route_v6 r[3];
	struct xfab_fib_stats st;
	__u32 path[16];

	(void)state;
	set_route(&r[0], net, 32, XFAB_RT_GROUP, 7);
	set_route(&r[1], host, 64, XFAB_RT_NEXTHOP, 3);
	set_route(&r[2], host, 128, XFAB_RT_LOCAL, 0);
	assert_int_equal(xfab_fib_sync(&hw, r, 3, &st), 0);
	assert_int_equal(st.groups, 14); /* bytes 2..15 on the /128's path */
	assert_int_equal(xfab_fib6_lookup(tbl16, tbl8, T_GROUPS, host),
			 XFAB_FIB6_ENTRY(XFAB_RT_LOCAL, 0));
	host[15] = 6;
	assert_int_equal(xfab_fib6_lookup(tbl16, tbl8, T_GROUPS, host),
			 XFAB_FIB6_ENTRY(XFAB_RT_NEXTHOP, 3));
	host[7] = 2;
	assert_int_equal(xfab_fib6_lookup(tbl16, tbl8, T_GROUPS, host),
			 XFAB_FIB6_ENTRY(XFAB_RT_GROUP, 7));
	host[7] = 1;
	host[15] = 5;
	/* record the path's group ids */
	path[1] = tbl16[0x2001];
	for (int b = 2; b < 16; b++)
		path[b] = tbl8[(size_t)(path[b - 1] & XFAB_FIB6_ID_MASK) * 256 + host[b]];

	/* the /32 changes: every group stays where it is */
	r[0].val.id = 8;
	assert_int_equal(xfab_fib_sync(&hw, r, 3, &st), 0);
	assert_int_equal(tbl16[0x2001], path[1]);
	for (int b = 2; b < 15; b++)
		assert_int_equal(tbl8[(size_t)(path[b - 1] & XFAB_FIB6_ID_MASK) * 256 + host[b]],
				 path[b]);
	host[7] = 2;
	assert_int_equal(xfab_fib6_lookup(tbl16, tbl8, T_GROUPS, host),
			 XFAB_FIB6_ENTRY(XFAB_RT_GROUP, 8));

	/* the /128 goes: the /64 is a plain entry in its byte-7 group again */
	assert_int_equal(xfab_fib_sync(&hw, r, 2, &st), 0);
	assert_int_equal(st.groups, 6); /* bytes 2..7 */
	host[7] = 1;
	assert_int_equal(xfab_fib6_lookup(tbl16, tbl8, T_GROUPS, host),
			 XFAB_FIB6_ENTRY(XFAB_RT_NEXTHOP, 3));

	/* TE tables stay out of the FIB */
	r[1].key.table = htonl(XFAB_TABLE_TE | 4);
	assert_int_equal(xfab_fib_sync(&hw, r, 2, &st), 0);
	assert_int_equal(xfab_fib6_lookup(tbl16, tbl8, T_GROUPS, host),
			 XFAB_FIB6_ENTRY(XFAB_RT_GROUP, 8));
	assert_int_equal(xfab_fib_sync(&hw, r, 0, &st), 0);
}

static void test_out_of_groups_writes_nothing(void **state)
{
	/* /40s under 2001::/16, 256 under each 2001:HH::/24 */
	size_t n = T_GROUPS;
	struct xfab_e_route_v6 *r = calloc(n + 1, sizeof(*r));
	struct xfab_fib_stats st;
	__u8 a[16] = {0x20, 0x01};
	long over;

	(void)state;
	assert_non_null(r);
	set_route(&r[0], a, 16, XFAB_RT_NEXTHOP, 1);
	assert_int_equal(xfab_fib_sync(&hw, r, 1, &st), 0);
	for (size_t i = 0; i < n; i++) {
		a[2] = (__u8)(i >> 8);
		a[3] = (__u8)i;
		a[4] = 0x80; /* a /40: groups at bytes 2, 3 and 4 */
		set_route(&r[i + 1], a, 40, XFAB_RT_NEXTHOP, 2);
	}
	/* one byte-2 group, 64 byte-3 groups (2001:00..3f), n byte-4 groups */
	{
		__u8(*addr)[16] = calloc(n + 1, 16);
		int *plen = calloc(n + 1, sizeof(int));

		assert_non_null(addr);
		assert_non_null(plen);
		for (size_t i = 0; i <= n; i++) {
			memcpy(addr[i], r[i].key.addr, 16);
			plen[i] = (int)r[i].key.prefixlen - 32;
		}
		assert_int_equal(
		    xfab_fib_groups_needed((const __u8(*)[16])addr, plen, n + 1, T_GROUPS, &over),
		    1 + 64 + n);
		/* counted in order, the route that passes the limit */
		assert_int_equal(over, T_GROUPS - 64);
		free(addr);
		free(plen);
	}
	assert_int_equal(xfab_fib_sync(&hw, r, n + 1, &st), -ENOSPC);
	assert_int_equal(tbl16[0x2001], XFAB_FIB6_ENTRY(XFAB_RT_NEXTHOP, 1));
	assert_int_equal(xfab_fib_sync(&hw, r, T_GROUPS - 64, &st), 0);
	assert_int_equal(st.groups, T_GROUPS);
	assert_int_equal(xfab_fib_sync(&hw, r, 0, &st), 0);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_paths_keep_their_groups),
	    cmocka_unit_test(test_random_tables_and_resync),
	    cmocka_unit_test(test_out_of_groups_writes_nothing),
	};

	return cmocka_run_group_tests_name("fib6", tests, setup, teardown);
}
