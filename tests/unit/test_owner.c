// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The routing daemon that owns a protocol's routes (user/agent/owner.c):
 * found by program name among the processes of one network namespace,
 * the youngest when two run, its start in CLOCK_BOOTTIME ns.
 *   - a /proc tree written here: the right program in another namespace,
 *     another program, a name field holding ") " and a stat line cut short
 *     are told apart; the start is starttime ticks x (1e9 / ticks per s);
 *   - the real /proc: a child this test starts, named for it, is found,
 *     and its start lies between the clock read before the fork and after
 *     the child ran (a tick either side: starttime counts ticks);
 *   - the protocols' programs are FRR's.
 */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent.h"

static char root[64];

static void put(const char *pid, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/ns", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", root, pid, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* ns/net of pid: a link to one of two files, the namespaces "a" and "b" */
static void netns(const char *pid, const char *which)
{
	char path[256], target[128];

	snprintf(target, sizeof(target), "%s/net-%s", root, which);
	snprintf(path, sizeof(path), "%s/%s/ns/net", root, pid);
	assert_int_equal(symlink(target, path), 0);
}

/* a stat line: pid (name) and fields 3.. with starttime (22) = start */
static void proc(const char *pid, const char *comm, const char *name, const char *ns,
		 unsigned long long start)
{
	char line[512];

	put(pid, "comm", comm);
	snprintf(line, sizeof(line),
		 "%s (%s) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 20 0 1 0 %llu 1000 200\n", pid, name,
		 start);
	put(pid, "stat", line);
	netns(pid, ns);
}

static unsigned long long ino_of(const char *which)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/net-%s", root, which);
	assert_int_equal(stat(path, &st), 0);
	return (unsigned long long)st.st_ino;
}

static void test_planted(void **state)
{
	unsigned long long ns_per_tick = 1000000000ull / (unsigned long long)sysconf(_SC_CLK_TCK);
	unsigned long long start = 0;
	char path[128];
	FILE *f;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/xfab-owner.XXXXXX");
	assert_non_null(mkdtemp(root));
	for (const char *w = "ab"; *w; w++) {
		snprintf(path, sizeof(path), "%s/net-%c", root, *w);
		f = fopen(path, "w");
		assert_non_null(f);
		fclose(f);
	}
	proc("100", "zebra", "zebra", "a", 500);
	proc("200", "bgpd", "bgpd", "b", 900); /* another switch's */
	proc("300", "bgpd", "bgpd", "a", 700); /* the restarted one */
	proc("301", "bgpd", "bgpd", "a", 650); /* the old one, not yet reaped */
	proc("500", "is is) d", "is is) d", "a", 42);
	put("600", "comm", "ospfd");
	put("600", "stat", "600 (ospfd) S 1 2 3\n"); /* cut short */
	netns("600", "a");
	put("self", "comm", "bgpd"); /* not a pid */

	assert_int_equal(agent_owner_start_in(root, "bgpd", ino_of("a"), &start), 0);
	assert_int_equal(start, 700 * ns_per_tick);
	assert_int_equal(agent_owner_start_in(root, "bgpd", ino_of("b"), &start), 0);
	assert_int_equal(start, 900 * ns_per_tick);
	assert_int_equal(agent_owner_start_in(root, "zebra", ino_of("a"), &start), 0);
	assert_int_equal(start, 500 * ns_per_tick);
	assert_int_equal(agent_owner_start_in(root, "is is) d", ino_of("a"), &start), 0);
	assert_int_equal(start, 42 * ns_per_tick);
	assert_int_equal(agent_owner_start_in(root, "zebra", ino_of("b"), &start), -1);
	assert_int_equal(agent_owner_start_in(root, "ospfd", ino_of("a"), &start), -1);
	assert_int_equal(agent_owner_start_in("/nonexistent", "bgpd", ino_of("a"), &start), -1);
}

/* The planted tree goes also when an assertion stops test_planted halfway. */
static int planted_cleanup(void **state)
{
	char cmd[96];

	(void)state;
	if (!root[0])
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	root[0] = '\0';
	return system(cmd) == 0 ? 0 : -1;
}

static unsigned long long boot_ns(void)
{
	struct timespec ts;

	assert_int_equal(clock_gettime(CLOCK_BOOTTIME, &ts), 0);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void test_real_proc(void **state)
{
	unsigned long long tick = 1000000000ull / (unsigned long long)sysconf(_SC_CLK_TCK);
	unsigned long long before, after, start = 0;
	int ready[2], status;
	struct stat st;
	char c;
	pid_t pid;

	(void)state;
	assert_int_equal(stat("/proc/self/ns/net", &st), 0);
	assert_int_equal(pipe(ready), 0);
	before = boot_ns();
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		prctl(PR_SET_NAME, "xfab-owner-t");
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	after = boot_ns();
	assert_int_equal(
	    agent_owner_start_in("/proc", "xfab-owner-t", (unsigned long long)st.st_ino, &start),
	    0);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(ready[0]);
	close(ready[1]);
	assert_true(start + tick >= before);
	assert_true(start <= after + tick);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(agent_owner_name(RTPROT_BGP), "bgpd");
	assert_string_equal(agent_owner_name(RTPROT_OSPF), "ospfd");
	assert_string_equal(agent_owner_name(RTPROT_ISIS), "isisd");
	assert_null(agent_owner_name(RTPROT_STATIC));
	assert_null(agent_owner_name(RTPROT_KERNEL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_planted, planted_cleanup),
	    cmocka_unit_test(test_real_proc),
	    cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
