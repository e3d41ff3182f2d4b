// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the text parsers the config and the tools share
 * (user/lib/textparse.c), against bytes and numbers written out here:
 *   - a MAC is six pairs of hex digits, either case, ':' between, nothing
 *     more or less;
 *   - an option's number is the whole text, in its base, within lo..hi
 *     (both ends taken), and a refusal says so on stderr and keeps *out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "textparse.h"

static void test_mac(void **state)
{
	static const char *const bad[] = {
	    "",
	    "02:00:0a:00:01",
	    "02:00:0a:00:01:01:",
	    "02:00:0a:00:01:1",
	    "2:0:a:0:1:1",
	    "02-00-0a-00-01-01",
	    "02:00:0a:00:01:0g",
	    "02:00:0a:00:01:01 ",
	    " 02:00:0a:00:01:01",
	    "+2:00:0a:00:01:01",
	    "0x:00:0a:00:01:01",
	};
	const __u8 want[6] = {0x02, 0x00, 0x0a, 0xff, 0xAB, 0x01};
	__u8 mac[6];

	(void)state;
	assert_int_equal(xfab_parse_mac("02:00:0a:ff:Ab:01", mac), 0);
	assert_memory_equal(mac, want, 6);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(mac, 0x5a, sizeof(mac));
		if (xfab_parse_mac(bad[i], mac) != -1)
			fail_msg("\"%s\" taken for a MAC", bad[i]);
	}
}

static void test_opt_long(void **state)
{
	long v = 42;

	(void)state;
	assert_int_equal(xfab_parse_opt_long("t", "--n", "1", 10, 1, 600, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(xfab_parse_opt_long("t", "--n", "600", 10, 1, 600, &v), 0);
	assert_int_equal(v, 600);
	assert_int_equal(xfab_parse_opt_long("t", "--v", "0x18", 0, 0, 255, &v), 0);
	assert_int_equal(v, 24);
	assert_int_equal(xfab_parse_opt_long("t", "--n", "010", 10, 0, 600, &v), 0);
	assert_int_equal(v, 10);
	v = 42;
	assert_int_equal(xfab_parse_opt_long("t", "--n", "601", 10, 1, 600, &v), -1);
	assert_int_equal(xfab_parse_opt_long("t", "--n", "0", 10, 1, 600, &v), -1);
	assert_int_equal(xfab_parse_opt_long("t", "--n", "", 10, 1, 600, &v), -1);
	assert_int_equal(xfab_parse_opt_long("t", "--n", "5s", 10, 1, 600, &v), -1);
	assert_int_equal(xfab_parse_opt_long("t", "--v", "0x18", 10, 0, 255, &v), -1);
	assert_int_equal(
	    xfab_parse_opt_long("t", "--n", "99999999999999999999", 10, 0, 0x7fffffffffffffffL, &v),
	    -1);
	assert_int_equal(v, 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mac),
	    cmocka_unit_test(test_opt_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
