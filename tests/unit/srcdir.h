/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The tree a unit test reads its sources from: the one its own binary was
 * built in (the binary is ROOT/build/test_X), so a copy of the tree
 * (tests/mutate runs suites in one) reads the copy, not the tree it came
 * from. Run from elsewhere (no /proc), the current directory.
 */
#ifndef XFAB_TEST_SRCDIR_H
#define XFAB_TEST_SRCDIR_H

#include <limits.h>
#include <string.h>
#include <unistd.h>

static inline const char *test_srcdir(void)
{
	static char dir[PATH_MAX];
	ssize_t n;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0) {
		strcpy(dir, ".");
		return dir;
	}
	dir[n] = '\0';
	/* ROOT/build/test_X -> ROOT */
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(dir, '/');

		if (!slash || slash == dir) {
			strcpy(dir, ".");
			return dir;
		}
		*slash = '\0';
	}
	return dir;
}

#endif
