/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * For the unit tests that judge a checking script (scripts/layer-check,
 * scripts/figure-check) on the tree and on a small tree of planted faults:
 * run a command and keep its output, write a file of the planted tree.
 * Included after <cmocka.h> (its asserts).
 */
#ifndef XFAB_TEST_SCRIPTTREE_H
#define XFAB_TEST_SCRIPTTREE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Runs a shell command; its output in out, its exit status returned. */
static inline int test_run_cmd(const char *cmd, char *out, size_t cap)
{
	FILE *p = popen(cmd, "r");
	size_t n = 0;
	int st;

	assert_non_null(p);
	while (n + 1 < cap && fgets(out + n, (int)(cap - n), p))
		n += strlen(out + n);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Writes text to dir/rel, making its directories. */
static inline void test_put_file(const char *dir, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname %s/%s)\"", dir, rel);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

#endif
