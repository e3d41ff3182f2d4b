// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the one text-file reader (user/lib/textfile.c), on files
 * the test writes: the bytes back whole (across the reader's steps), an
 * empty file as "", a file of exactly the limit taken and one byte more
 * refused, a NUL byte refused, a missing file with its strerror; each
 * refusal names the path.
 */
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

#include "textfile.h"

static char path[64];

static void write_file(const char *bytes, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/xfab-textfile-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void test_whole(void **state)
{
	size_t len = 200000; /* several of the reader's steps */
	char *want = malloc(len + 1), *got, err[256];

	(void)state;
	assert_non_null(want);
	for (size_t i = 0; i < len; i++)
		want[i] = (char)('a' + i % 23);
	want[len] = '\0';
	write_file(want, len);
	got = xfab_read_text(path, 1, err, sizeof(err));
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	write_file("", 0);
	got = xfab_read_text(path, 1, err, sizeof(err));
	assert_non_null(got);
	assert_string_equal(got, "");
	free(got);
	free(want);
}

static void test_limit(void **state)
{
	size_t len = 1u << 20;
	char *bytes = malloc(len + 1), *got, err[256], want[300];

	(void)state;
	assert_non_null(bytes);
	memset(bytes, 'x', len + 1);
	write_file(bytes, len);
	got = xfab_read_text(path, 1, err, sizeof(err));
	assert_non_null(got);
	assert_int_equal(strlen(got), len);
	free(got);
	write_file(bytes, len + 1);
	assert_null(xfab_read_text(path, 1, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: longer than 1 MiB", path);
	assert_string_equal(err, want);
	free(bytes);
}

static void test_refusals(void **state)
{
	char err[256], want[300];

	(void)state;
	write_file("{\"a\":\0}", 7);
	assert_null(xfab_read_text(path, 1, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: holds a NUL byte", path);
	assert_string_equal(err, want);
	unlink(path);
	assert_null(xfab_read_text(path, 1, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: %s", path, strerror(ENOENT));
	assert_string_equal(err, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_whole, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_limit, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
