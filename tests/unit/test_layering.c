// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The layering of docs/ARCHITECTURE.md: scripts/layer-check over this tree
 * (its includes and its built objects' names) finds nothing, and, so that
 * its silence means something, it finds each kind of breach planted in a
 * small tree of its own: an include reaching up, a call reaching up, two
 * files of one part calling each other, a name without its part's prefix,
 * a function too long.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "srcdir.h"

/* Runs a shell command; its output in out, its exit status returned. */
static int run(const char *cmd, char *out, size_t cap)
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

static void tree_is_layered(void **state)
{
	char cmd[4200], out[8192];
	int rc;

	(void)state;
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/scripts/layer-check 2>&1", test_srcdir());
	rc = run(cmd, out, sizeof(out));
	if (rc != 0)
		fprintf(stderr, "%s", out);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "layered"));
}

static void put(const char *dir, const char *rel, const char *text)
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

/* Compiles tree/SRC.c to tree/build/obj/OBJ.o, as the Makefile would. */
static void compile(const char *dir, const char *src, const char *obj)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "mkdir -p \"$(dirname %s/build/obj/%s)\" && cc -c -I%s/include -I%s/user/lib "
		 "%s/%s.c -o %s/build/obj/%s.o",
		 dir, obj, dir, dir, dir, src, dir, obj);
	assert_int_equal(system(cmd), 0);
}

static void planted_breaches_found(void **state)
{
	char dir[] = "/tmp/xfab-layering-XXXXXX", cmd[512], out[8192];
	int rc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* the library includes an agent header and calls the agent */
	put(dir, "user/lib/low.c",
	    "#include \"../agent/agent.h\"\nint xfab_low(void) { return agent_up(); }\n");
	put(dir, "user/agent/agent.h", "int agent_up(void);\n");
	/* the agent exports a name without its prefix */
	put(dir, "user/agent/up.c",
	    "int agent_up(void) { return 1; }\nint up2(void) { return 2; }\n");
	/* a function of 125 lines */
	{
		char body[4096] = "int xfab_long(void)\n{\n\tint x = 0;\n";

		for (int i = 0; i < 120; i++)
			strcat(body, "\tx++;\n");
		strcat(body, "\treturn x;\n}\n");
		put(dir, "user/lib/long.c", body);
	}
	/* two ctl files call each other */
	put(dir, "user/ctl/a.c", "int ctl_b(void);\nint ctl_a(void) { return ctl_b(); }\n");
	put(dir, "user/ctl/b.c", "int ctl_a(void);\nint ctl_b(void) { return ctl_a(); }\n");
	compile(dir, "user/lib/low", "lib/low");
	compile(dir, "user/agent/up", "agent/up");
	compile(dir, "user/lib/long", "lib/long");
	compile(dir, "user/ctl/a", "ctl/a");
	compile(dir, "user/ctl/b", "ctl/b");
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/scripts/layer-check --root %s 2>&1",
		 test_srcdir(), dir);
	rc = run(cmd, out, sizeof(out));
	assert_int_equal(rc, 1);
	assert_non_null(strstr(out, "user/lib/low.c:1: includes user/agent/agent.h"));
	assert_non_null(strstr(out, "lib/low (lib) calls agent_up, defined only in agent/up"));
	assert_non_null(strstr(out, "cycle: ctl/a ctl/b"));
	assert_non_null(strstr(out, "agent/up (agent) exports up2: its names begin agent_"));
	assert_non_null(strstr(out, "user/lib/long.c:1: a function of 125 lines (at most 120)"));
	assert_non_null(strstr(out, "5 breaches"));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(tree_is_layered),
	    cmocka_unit_test(planted_breaches_found),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
