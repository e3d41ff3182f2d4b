// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Deleting many keys with BPF_MAP_DELETE_BATCH (user/lib/mapbatch.c, what
 * xfabd's map writer withdraws routes with), against a real LPM trie of the
 * routes_v4 layout: checked by looking up every key afterwards.
 *   - 20,000 keys deleted out of 30,000, in batches, the others still there;
 *   - keys the map does not hold, among them (first, middle, last, several
 *     in a row), are skipped, and every key around them is still deleted;
 *   - the one-by-one path (a kernel without batches for the map) deletes the
 *     same;
 *   - a key the trie refuses (a prefix length beyond it) fails with its
 *     index, the keys before it are deleted, and batches stay in use.
 */
#include <bpf/bpf.h>
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

#include "mapbatch.h"
#include "xfab_abi.h"

#define N 30000

static struct xfab_lpm_v4_key key_of(__u32 i)
{
	struct xfab_lpm_v4_key k = {.prefixlen = 32 + 24};

	k.addr[0] = (__u8)(20 + (i >> 16));
	k.addr[1] = (__u8)(i >> 8);
	k.addr[2] = (__u8)i;
	return k;
}

static int new_map(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_NO_PREALLOC);
	struct xfab_route val = {.type = XFAB_RT_NEXTHOP, .id = 7};
	int fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "t_mapbatch", sizeof(struct xfab_lpm_v4_key),
				sizeof(struct xfab_route), N + 16, &o);

	assert_true(fd >= 0);
	for (__u32 i = 0; i < N; i++) {
		struct xfab_lpm_v4_key k = key_of(i);

		assert_int_equal(bpf_map_update_elem(fd, &k, &val, BPF_ANY), 0);
	}
	return fd;
}

static int held(int fd, __u32 i)
{
	struct xfab_lpm_v4_key k = key_of(i);
	struct xfab_route v;

	/* an exact key: the trie's lookup is longest-prefix, so compare */
	return !bpf_map_lookup_elem(fd, &k, &v) && v.id == 7;
}

/* Deletes every i with i % 3 != 0 (plus, with gaps, keys never added), by
 * batch or one by one; checks what is left. */
static void run(int unsupported_at_start, int with_gaps)
{
	int fd = new_map(), unsupported = unsupported_at_start;
	struct xfab_lpm_v4_key *keys = calloc(N * 2, sizeof(*keys));
	__u32 n = 0, failed = 12345;

	assert_non_null(keys);
	if (with_gaps) /* not there, first */
		keys[n++] = key_of(N + 1);
	for (__u32 i = 0; i < N; i++) {
		if (i % 3 == 0)
			continue;
		keys[n++] = key_of(i);
		if (with_gaps && i % 1000 == 1) { /* three missing in a row */
			keys[n++] = key_of(N + 2);
			keys[n++] = key_of(N + 3);
			keys[n++] = key_of(i); /* deleted just before */
		}
	}
	if (with_gaps) /* not there, last */
		keys[n++] = key_of(N + 4);
	assert_int_equal(xfab_map_delete_keys(fd, keys, n, sizeof(keys[0]), &unsupported, &failed),
			 0);
	assert_int_equal(failed, 12345);
	assert_int_equal(unsupported, unsupported_at_start);
	for (__u32 i = 0; i < N; i++)
		if (held(fd, i) != (i % 3 == 0))
			fail_msg("key %u: %s", i, held(fd, i) ? "still there" : "gone");
	free(keys);
	close(fd);
}

static void test_batched(void **state)
{
	(void)state;
	run(0, 0);
}

static void test_missing_keys_skipped(void **state)
{
	(void)state;
	run(0, 1);
}

static void test_one_by_one(void **state)
{
	(void)state;
	run(1, 1);
}

/* A key the trie refuses stops the deletes there, with its index. */
static void test_refused_key(void **state)
{
	int fd = new_map();
	struct xfab_lpm_v4_key keys[8];
	__u32 failed = 0;

	(void)state;
	for (int u = 0; u < 2; u++) {
		int unsupported = u;

		for (int i = 0; i < 8; i++)
			keys[i] = key_of((__u32)(10 * u + i));
		keys[5].prefixlen = 32 + 33; /* beyond the trie's 64 bits */
		assert_int_equal(
		    xfab_map_delete_keys(fd, keys, 8, sizeof(keys[0]), &unsupported, &failed),
		    -EINVAL);
		assert_int_equal(failed, 5);
		assert_int_equal(unsupported, u); /* the key's fault, not the kernel's */
		for (__u32 i = 0; i < 8; i++)
			assert_int_equal(held(fd, 10 * (__u32)u + i), i >= 5);
	}
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_batched),
	    cmocka_unit_test(test_missing_keys_skipped),
	    cmocka_unit_test(test_one_by_one),
	    cmocka_unit_test(test_refused_key),
	};

	if (geteuid() != 0) {
		printf("# skipped: test_mapbatch needs root (BPF maps)\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
