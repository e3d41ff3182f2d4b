// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * docs/TESTING.md's list of every figure the docs claim: scripts/figure-check
 * over this tree finds every quoted figure in its doc, every named judge
 * file, every quoted check in the file named beside it and every "measured
 * once" date in its doc. So that its silence means something, it finds each
 * kind of fault planted in a small tree of its own: a figure its doc no
 * longer says, a judge file that does not exist, a check its file does not
 * hold, a date the doc does not give, a "make test" row naming no test, an
 * unknown status.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "scripttree.h"
#include "srcdir.h"

static void tree_figures_judged(void **state)
{
	char cmd[4200], out[16384];
	int rc;

	(void)state;
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/scripts/figure-check 2>&1", test_srcdir());
	rc = test_run_cmd(cmd, out, sizeof(out));
	if (rc != 0)
		fprintf(stderr, "%s", out);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "every judge found"));
}

/* The planted tree: one good row, then one row per fault. */
static const char docfig_testing[] =
    "# Testing\n\n## Every figure the docs claim\n\n### `docs/X.md`\n\n"
    "| figure | judge | bound | status |\n|---|---|---|---|\n"
    "| \"lost 0 of 100\" | `tests/netns/test_x.sh`: `check \"no loss\"` | 0 | make test |\n"
    "| \"lost 1 of 100\" | `tests/netns/test_x.sh`: `check \"no loss\"` | 0 | make test |\n"
    "| \"lost 0 of 100\" | `tests/netns/test_y.sh`: `check \"no loss\"` | 0 | make test |\n"
    "| \"lost 0 of 100\" | `tests/netns/test_x.sh`: `check \"no drop\"` | 0 | make test |\n"
    "| \"lost 0 of 100\" | none | none | measured once, 2026-01-02 |\n"
    "| \"lost 0 of 100\" | `scripts/exp`: `ok = lost == 0` | 0 | make test |\n"
    "| \"lost 0 of 100\" | none | none | reported, not judged |\n"
    "\n## Next\n";

static void planted_faults_found(void **state)
{
	char dir[] = "/tmp/xfab-docfigures-XXXXXX", cmd[600], out[8192];
	int rc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	test_put_file(dir, "docs/TESTING.md", docfig_testing);
	test_put_file(dir, "docs/X.md", "Measured on 2026-01-01: lost 0\nof 100.\n");
	test_put_file(dir, "tests/netns/test_x.sh", "check \"no loss\" true\n");
	test_put_file(dir, "scripts/exp", "ok = lost == 0\n");
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/scripts/figure-check --root %s 2>&1",
		 test_srcdir(), dir);
	rc = test_run_cmd(cmd, out, sizeof(out));
	assert_int_equal(rc, 1);
	assert_non_null(strstr(out, "docs/TESTING.md:10: \"lost 1 of 100\" is not in docs/X.md"));
	assert_non_null(strstr(out, "docs/TESTING.md:11: no such file tests/netns/test_y.sh"));
	assert_non_null(strstr(
	    out, "docs/TESTING.md:12: `check \"no drop\"` is in none of tests/netns/test_x.sh"));
	assert_non_null(
	    strstr(out, "docs/TESTING.md:13: measured once on 2026-01-02, a date docs/X.md"));
	assert_non_null(strstr(out, "docs/TESTING.md:14: judged in make test, but the row names "
				    "no file under tests/"));
	assert_non_null(strstr(out, "docs/TESTING.md:15: status 'reported, not judged' is none"));
	/* the good row (line 9) and the whitespace of a wrapped doc line pass */
	assert_null(strstr(out, "docs/TESTING.md:9:"));
	assert_non_null(strstr(out, "figure-check: 7 problems in 7 rows"));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(tree_figures_judged),
	    cmocka_unit_test(planted_faults_found),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
