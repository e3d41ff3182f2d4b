// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the object pool (user/lib/pool.c) the RIB and the kernel-FIB
 * mirror allocate their per-route objects from: every object zeroed,
 * aligned to 16 and apart from every other one live (checked by filling each
 * with its own pattern and reading all back), freed objects reused before
 * the pool grows, blocks from a few KB up to 2 MB (many blocks for a million
 * objects), the live count, and destroy then reuse of the pool.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pool.h"

static void fill(void *o, size_t size, unsigned int tag)
{
	unsigned char *b = o;

	for (size_t i = 0; i < size; i++)
		b[i] = (unsigned char)(tag * 31 + i);
}

static int holds(const void *o, size_t size, unsigned int tag)
{
	const unsigned char *b = o;

	for (size_t i = 0; i < size; i++)
		if (b[i] != (unsigned char)(tag * 31 + i))
			return 0;
	return 1;
}

static int zero(const void *o, size_t size)
{
	const unsigned char *b = o;

	for (size_t i = 0; i < size; i++)
		if (b[i])
			return 0;
	return 1;
}

/* Objects of odd sizes: zeroed, aligned, none overlapping another. */
static void test_objects_apart(void **state)
{
	static const size_t sizes[] = {1, 8, 24, 40, 56, 72, 200, 5000};
	enum { N = 20000 };
	void **o = calloc(N, sizeof(*o));

	(void)state;
	assert_non_null(o);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct xfab_pool p;
		size_t n = sizes[s] > 1000 ? 2000 : N;

		xfab_pool_init(&p, sizes[s]);
		for (size_t i = 0; i < n; i++) {
			o[i] = xfab_pool_zalloc(&p);
			assert_non_null(o[i]);
			assert_int_equal((uintptr_t)o[i] % 16, 0);
			assert_true(zero(o[i], sizes[s]));
			fill(o[i], sizes[s], (unsigned int)i);
		}
		assert_int_equal(p.live, n);
		for (size_t i = 0; i < n; i++)
			assert_true(holds(o[i], sizes[s], (unsigned int)i));
		xfab_pool_destroy(&p);
		assert_int_equal(p.live, 0);
	}
	free(o);
}

/* A freed object comes back (zeroed) before the pool takes new memory;
 * several freed come back last freed first, then new ones follow. */
static void test_reuse(void **state)
{
	struct xfab_pool p;
	void *a, *b, *c, *d, *e;

	(void)state;
	xfab_pool_init(&p, 48);
	a = xfab_pool_zalloc(&p);
	b = xfab_pool_zalloc(&p);
	c = xfab_pool_zalloc(&p);
	fill(b, 48, 7);
	xfab_pool_free(&p, b);
	assert_int_equal(p.live, 2);
	d = xfab_pool_zalloc(&p);
	assert_ptr_equal(d, b);
	assert_true(zero(d, 48));
	xfab_pool_free(&p, a);
	xfab_pool_free(&p, c);
	xfab_pool_free(&p, NULL); /* nothing */
	assert_int_equal(p.live, 1);
	assert_ptr_equal(xfab_pool_zalloc(&p), c);
	assert_ptr_equal(xfab_pool_zalloc(&p), a);
	e = xfab_pool_zalloc(&p);
	assert_true(e != a && e != b && e != c);
	assert_int_equal(p.live, 4);
	xfab_pool_destroy(&p);
}

/* A million objects (blocks of 2 MB), all freed and taken again: the same
 * memory, no new block. */
static void test_million(void **state)
{
	enum { N = 1000000 };
	struct xfab_pool p;
	char **o = malloc(N * sizeof(*o));
	size_t blocks;

	(void)state;
	assert_non_null(o);
	xfab_pool_init(&p, 64);
	for (size_t i = 0; i < N; i++) {
		o[i] = xfab_pool_zalloc(&p);
		assert_non_null(o[i]);
		*(size_t *)o[i] = i;
	}
	for (size_t i = 0; i < N; i++)
		assert_int_equal(*(size_t *)o[i], i);
	blocks = p.n_blocks;
	assert_true(blocks > 16 && blocks < 64); /* 64 MB in blocks of up to 2 MB */
	for (size_t i = 0; i < N; i++)
		xfab_pool_free(&p, o[i]);
	assert_int_equal(p.live, 0);
	for (size_t i = 0; i < N; i++) {
		char *x = xfab_pool_zalloc(&p);

		assert_non_null(x);
		assert_true(zero(x, 64));
	}
	assert_int_equal(p.n_blocks, blocks);
	xfab_pool_destroy(&p);
	/* and the pool works again after destroy */
	assert_non_null(xfab_pool_zalloc(&p));
	assert_int_equal(p.live, 1);
	xfab_pool_destroy(&p);
	free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_objects_apart),
	    cmocka_unit_test(test_reuse),
	    cmocka_unit_test(test_million),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
