// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ABI version in a switch's pins: xfab_abi_check (what xfabctl and
 * xfabd call) accepts pins of this version only, and says which versions
 * met; xfabctl itself refuses to read pins of another version. Pins live in
 * a private directory under /sys/fs/bpf, removed at the end.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "abi.h"
#include "common.h"

static char dir[128];

static void unpin_all(void)
{
	const char *names[] = {XFAB_MAP_ABI, XFAB_MAP_PORTS, XFAB_MAP_DROP_STATS,
			       XFAB_MAP_PUNT_STATS};
	char path[256];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
}

static int setup(void **state)
{
	(void)state;
	if (xfab_ensure_bpffs())
		return -1;
	snprintf(dir, sizeof(dir), "/sys/fs/bpf/xfab-test-abi-%d", (int)getpid());
	return mkdir(dir, 0700);
}

static int teardown(void **state)
{
	(void)state;
	unpin_all();
	return rmdir(dir);
}

static int each(void **state)
{
	(void)state;
	unpin_all();
	return 0;
}

/* Pins an array map `name` with value_size bytes per entry; returns its fd. */
static int pin_map(const char *name, __u32 value_size, __u32 max)
{
	char path[256];
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, name, 4, value_size, max, NULL);

	assert_true(fd >= 0);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(bpf_obj_pin(fd, path), 0);
	return fd;
}

static void pin_abi(__u32 magic, __u32 version, __u32 drop_max)
{
	struct xfab_abi_info info = {magic, version, drop_max, XFAB_PUNT_MAX};
	__u32 zero = 0;
	int fd = pin_map(XFAB_MAP_ABI, sizeof(info), 1);

	assert_int_equal(bpf_map_update_elem(fd, &zero, &info, 0), 0);
	close(fd);
}

static void test_nothing_pinned(void **state)
{
	char msg[256];

	(void)state;
	assert_int_equal(xfab_abi_check(dir, "xfabctl", msg, sizeof(msg)), -ENOENT);
}

static void test_same_version_accepted(void **state)
{
	char msg[256] = "x";
	int fd;

	(void)state;
	fd = pin_map(XFAB_MAP_ABI, sizeof(struct xfab_abi_info), 1);
	assert_int_equal(xfab_abi_write(fd), 0);
	close(fd);
	assert_int_equal(xfab_abi_check(dir, "xfabctl", msg, sizeof(msg)), 0);
	assert_string_equal(msg, "");
}

static void test_other_versions_refused(void **state)
{
	const __u32 versions[] = {1, XFAB_ABI_VERSION - 1, XFAB_ABI_VERSION + 1, 1000};
	char msg[256], want[128];

	(void)state;
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		unpin_all();
		pin_abi(XFAB_ABI_MAGIC, versions[i], XFAB_DROP_MAX);
		assert_int_equal(xfab_abi_check(dir, "xfabctl", msg, sizeof(msg)), -EPROTO);
		snprintf(want, sizeof(want), "are ABI v%u, this xfabctl is v%u: restart xfabd",
			 versions[i], (unsigned)XFAB_ABI_VERSION);
		if (!strstr(msg, want))
			fail_msg("version %u: message '%s' lacks '%s'", versions[i], msg, want);
	}
	/* the version agrees but the reason list does not: still refused */
	unpin_all();
	pin_abi(XFAB_ABI_MAGIC, XFAB_ABI_VERSION, XFAB_DROP_MAX + 1);
	assert_int_equal(xfab_abi_check(dir, "xfabd", msg, sizeof(msg)), -EPROTO);
}

static void test_unversioned_or_odd_pins_refused(void **state)
{
	char msg[256];
	int fd;

	(void)state;
	/* pins from before versions: maps, but no abi map */
	close(pin_map(XFAB_MAP_PORTS, sizeof(struct xfab_port), 4));
	assert_int_equal(xfab_abi_check(dir, "xfabctl", msg, sizeof(msg)), -EPROTO);
	assert_non_null(strstr(msg, "carry no ABI version"));
	/* an abi map of another layout is not read into ours */
	unpin_all();
	close(pin_map(XFAB_MAP_ABI, 8, 1));
	assert_int_equal(xfab_abi_check(dir, "xfabctl", msg, sizeof(msg)), -EPROTO);
	/* the right layout, never written (magic 0) */
	unpin_all();
	close(pin_map(XFAB_MAP_ABI, sizeof(struct xfab_abi_info), 1));
	assert_int_equal(xfab_abi_check(dir, "xfabctl", msg, sizeof(msg)), -EPROTO);
	/* wrong magic */
	unpin_all();
	pin_abi(0x12345678, XFAB_ABI_VERSION, XFAB_DROP_MAX);
	assert_int_equal(xfab_abi_check(dir, "xfabctl", msg, sizeof(msg)), -EPROTO);
	(void)fd;
}

/* Runs build/xfabctl -P dir show drops; returns its exit code, stderr in err. */
static int run_xfabctl(char *err, size_t err_len)
{
	char exe[PATH_MAX], ctl[PATH_MAX + 16], cmd[2 * PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *p;
	size_t got;
	int st;

	assert_true(n > 0);
	exe[n] = '\0';
	snprintf(ctl, sizeof(ctl), "%s/xfabctl", dirname(exe));
	snprintf(cmd, sizeof(cmd), "'%s' -P '%s' show drops 2>&1 >/dev/null", ctl, dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	got = fread(err, 1, err_len - 1, p);
	err[got] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_xfabctl_refuses_other_version(void **state)
{
	char err[1024], want[128];
	int fd;

	(void)state;
	/* what xfabctl show drops reads, plus an abi record of another version */
	close(pin_map(XFAB_MAP_DROP_STATS, 16, XFAB_DROP_MAX));
	close(pin_map(XFAB_MAP_PUNT_STATS, 16, XFAB_PUNT_MAX));
	pin_abi(XFAB_ABI_MAGIC, XFAB_ABI_VERSION + 1, XFAB_DROP_MAX);
	assert_int_equal(run_xfabctl(err, sizeof(err)), 1);
	snprintf(want, sizeof(want), "are ABI v%u, this xfabctl is v%u: restart xfabd",
		 (unsigned)XFAB_ABI_VERSION + 1, (unsigned)XFAB_ABI_VERSION);
	if (!strstr(err, want))
		fail_msg("xfabctl said '%s'", err);
	/* the same pins with this version: xfabctl reads them */
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/%s", dir, XFAB_MAP_ABI);
		unlink(path);
	}
	fd = pin_map(XFAB_MAP_ABI, sizeof(struct xfab_abi_info), 1);
	assert_int_equal(xfab_abi_write(fd), 0);
	close(fd);
	assert_int_equal(run_xfabctl(err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_nothing_pinned, each),
	    cmocka_unit_test_setup(test_same_version_accepted, each),
	    cmocka_unit_test_setup(test_other_versions_refused, each),
	    cmocka_unit_test_setup(test_unversioned_or_odd_pins_refused, each),
	    cmocka_unit_test_setup(test_xfabctl_refuses_other_version, each),
	};

	return cmocka_run_group_tests_name("abi", tests, setup, teardown);
}
