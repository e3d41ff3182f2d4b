// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The libFuzzer targets' kept inputs, replayed without libFuzzer
 * (docs/TESTING.md, "libFuzzer targets"): every file of
 * tests/fuzz/lib/regress/TARGET/ goes through the very function the
 * target fuzzes (tests/fuzz/lib/fuzz_TARGET.c), which checks its
 * invariants and returns 0 or -1; a crash, a leak or a sanitizer report
 * fails the suite too (built plain and with ASan/UBSan, leak detection
 * on). So `make test` catches a finding brought back without clang or
 * libFuzzer. Each target keeps at least one input: what a fix was for,
 * and inputs at the limits its invariants watch.
 */
#include <dirent.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fuzz.h"

/* The repository: two levels above this binary (build/test_fuzz_regress). */
static void repo_root(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	assert_true(n > 0);
	exe[n] = '\0';
	for (int i = 0; i < 2 && (slash = strrchr(exe, '/')); i++)
		*slash = '\0';
	snprintf(buf, len, "%s", exe);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int regular(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* A whole file (at most 1 MiB, as no target takes more); NULL if not. */
static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = malloc(1u << 20);
	size_t n = 0;

	if (f && buf)
		n = fread(buf, 1, 1u << 20, f);
	if (!f || !buf || ferror(f) || n == 1u << 20) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	*size = n;
	return buf;
}

/* Every kept input of target through fn; returns how many. */
static int replay(const char *target, int (*fn)(const uint8_t *, size_t))
{
	char root[PATH_MAX], dir[PATH_MAX + 64], path[PATH_MAX + 400];
	struct dirent **names;
	int n, failed = 0;

	repo_root(root, sizeof(root));
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/lib/regress/%s", root, target);
	n = scandir(dir, &names, regular, by_name);
	if (n < 0)
		fail_msg("%s: cannot read: the kept inputs of fuzz_%s", dir, target);
	for (int i = 0; i < n; i++) {
		uint8_t *data;
		size_t size;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		data = slurp(path, &size);
		if (!data) {
			print_error("%s: cannot read it\n", path);
			failed++;
		} else if (fn(data, size)) {
			print_error("%s: fuzz_%s's invariant broken (its message above)\n", path,
				    target);
			failed++;
		}
		free(data);
		free(names[i]);
	}
	free(names);
	assert_int_equal(failed, 0);
	return n;
}

static void test_config(void **state)
{
	(void)state;
	assert_true(replay("config", xfab_fuzz_config) >= 1);
}

static void test_control(void **state)
{
	(void)state;
	assert_true(replay("control", xfab_fuzz_control) >= 1);
}

static void test_job(void **state)
{
	(void)state;
	assert_true(replay("job", xfab_fuzz_job) >= 1);
}

static void test_fabric(void **state)
{
	(void)state;
	assert_true(replay("fabric", xfab_fuzz_fabric) >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_config),
	    cmocka_unit_test(test_control),
	    cmocka_unit_test(test_job),
	    cmocka_unit_test(test_fabric),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
