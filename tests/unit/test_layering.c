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

#include "scripttree.h"
#include "srcdir.h"

static void tree_is_layered(void **state)
{
	char cmd[4200], out[8192];
	int rc;

	(void)state;
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/scripts/layer-check 2>&1", test_srcdir());
	rc = test_run_cmd(cmd, out, sizeof(out));
	if (rc != 0)
		fprintf(stderr, "%s", out);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "layered"));
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
	test_put_file(dir, "user/lib/low.c",
		      "#include \"../agent/agent.h\"\nint xfab_low(void) { return agent_up(); }\n");
	test_put_file(dir, "user/agent/agent.h", "int agent_up(void);\n");
	/* the agent exports a name without its prefix */
	test_put_file(dir, "user/agent/up.c",
		      "int agent_up(void) { return 1; }\nint up2(void) { return 2; }\n");
	/* a function of 125 lines */
	{
		char body[4096] = "int xfab_long(void)\n{\n\tint x = 0;\n";

		for (int i = 0; i < 120; i++)
			strcat(body, "\tx++;\n");
		strcat(body, "\treturn x;\n}\n");
		test_put_file(dir, "user/lib/long.c", body);
	}
	/* two ctl files call each other */
	test_put_file(dir, "user/ctl/a.c",
		      "int ctl_b(void);\nint ctl_a(void) { return ctl_b(); }\n");
	test_put_file(dir, "user/ctl/b.c",
		      "int ctl_a(void);\nint ctl_b(void) { return ctl_a(); }\n");
	compile(dir, "user/lib/low", "lib/low");
	compile(dir, "user/agent/up", "agent/up");
	compile(dir, "user/lib/long", "lib/long");
	compile(dir, "user/ctl/a", "ctl/a");
	compile(dir, "user/ctl/b", "ctl/b");
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/scripts/layer-check --root %s 2>&1",
		 test_srcdir(), dir);
	rc = test_run_cmd(cmd, out, sizeof(out));
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
