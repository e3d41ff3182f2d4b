// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the systemd service protocol written by hand
 * (user/lib/sdnotify.c): a datagram arrives on a socket the test binds, at
 * a path and in the abstract namespace, byte for byte what was sent; no
 * NOTIFY_SOCKET is "nothing to do"; a relative, over-long or dead socket is
 * an error; RELOADING=1 carries a MONOTONIC_USEC between two readings of
 * the clock; JOURNAL_STREAM is believed only when it names stderr itself;
 * the READY=1 message with its STATUS; the priorities are sd-daemon.h's (<3> err, <4> warning, <6>
 * info, <7> debug, written out here, not taken from the code).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sdnotify.h"

/* A datagram socket bound at path (or, starting with '@', an abstract
 * name), as systemd's is. */
static int listener(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t len = strlen(path);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct timeval tv = {.tv_sec = 2};

	assert_true(fd >= 0);
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	else
		unlink(path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)),
			 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static void expect_datagram(int fd, const char *want)
{
	char buf[512];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);

	assert_true(n >= 0);
	buf[n] = '\0';
	assert_int_equal((size_t)n, strlen(want));
	assert_string_equal(buf, want);
}

static void test_path_socket(void **state)
{
	char path[64];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/xfab-sdnotify-%d.sock", (int)getpid());
	fd = listener(path);
	setenv("NOTIFY_SOCKET", path, 1);
	assert_int_equal(xfab_sd_notify("READY=1\nSTATUS=forwarding on 4 ports"), 0);
	expect_datagram(fd, "READY=1\nSTATUS=forwarding on 4 ports");
	assert_int_equal(xfab_sd_notify("STOPPING=1"), 0);
	expect_datagram(fd, "STOPPING=1");
	close(fd);
	unlink(path);
	/* the socket gone: an error, not silence */
	assert_true(xfab_sd_notify("READY=1") < 0);
	unsetenv("NOTIFY_SOCKET");
}

static void test_abstract_socket(void **state)
{
	char name[64];
	int fd;

	(void)state;
	snprintf(name, sizeof(name), "@xfab-sdnotify-test-%d", (int)getpid());
	fd = listener(name);
	setenv("NOTIFY_SOCKET", name, 1);
	assert_int_equal(xfab_sd_notify("READY=1"), 0);
	expect_datagram(fd, "READY=1");
	close(fd);
	unsetenv("NOTIFY_SOCKET");
}

static void test_no_or_bad_socket(void **state)
{
	char longpath[200];

	(void)state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(xfab_sd_notify("READY=1"), 1);
	setenv("NOTIFY_SOCKET", "", 1);
	assert_int_equal(xfab_sd_notify("READY=1"), 1);
	setenv("NOTIFY_SOCKET", "run/systemd/notify", 1);
	assert_int_equal(xfab_sd_notify("READY=1"), -EINVAL);
	setenv("NOTIFY_SOCKET", "vsock:2:1234", 1);
	assert_int_equal(xfab_sd_notify("READY=1"), -EINVAL);
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	setenv("NOTIFY_SOCKET", longpath, 1);
	assert_int_equal(xfab_sd_notify("READY=1"), -EINVAL);
	unsetenv("NOTIFY_SOCKET");
}

static unsigned long long mono_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000;
}

static void test_reloading_msg(void **state)
{
	char buf[64], small[20], tail;
	unsigned long long before, after, usec;

	(void)state;
	before = mono_usec();
	assert_int_equal(xfab_sd_reloading_msg(buf, sizeof(buf)), 0);
	after = mono_usec();
	assert_int_equal(sscanf(buf, "RELOADING=1\nMONOTONIC_USEC=%llu%c", &usec, &tail), 1);
	assert_true(usec >= before && usec <= after);
	assert_int_equal(xfab_sd_reloading_msg(small, sizeof(small)), -ENOSPC);
}

static void test_ready_msg(void **state)
{
	char buf[96], small[16];

	(void)state;
	assert_int_equal(xfab_sd_ready_msg(buf, sizeof(buf), 4, "xdp"), 0);
	/* sd_notify(3): newline-separated VAR=VALUE, READY=1 the readiness */
	assert_string_equal(buf, "READY=1\nSTATUS=forwarding on 4 ports (xdp datapath)");
	assert_int_equal(xfab_sd_ready_msg(buf, sizeof(buf), 64, "tc"), 0);
	assert_string_equal(buf, "READY=1\nSTATUS=forwarding on 64 ports (tc datapath)");
	assert_int_equal(xfab_sd_ready_msg(small, sizeof(small), 4, "xdp"), -ENOSPC);
}

static void test_journal_stream(void **state)
{
	struct stat st;
	char js[64];

	(void)state;
	assert_int_equal(fstat(STDERR_FILENO, &st), 0);
	unsetenv("JOURNAL_STREAM");
	assert_int_equal(xfab_sd_journal_stderr(), 0);
	snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", js, 1);
	assert_int_equal(xfab_sd_journal_stderr(), 1);
	/* another stream (stderr redirected since the manager started us) */
	snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + 1);
	setenv("JOURNAL_STREAM", js, 1);
	assert_int_equal(xfab_sd_journal_stderr(), 0);
	snprintf(js, sizeof(js), "%llu:%llux", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", js, 1);
	assert_int_equal(xfab_sd_journal_stderr(), 0);
	setenv("JOURNAL_STREAM", "journal", 1);
	assert_int_equal(xfab_sd_journal_stderr(), 0);
	unsetenv("JOURNAL_STREAM");
}

static void test_priorities(void **state)
{
	(void)state;
	/* sd-daemon.h: SD_ERR "<3>", SD_WARNING "<4>", SD_NOTICE "<5>",
	 * SD_INFO "<6>", SD_DEBUG "<7>" */
	assert_int_equal(xfab_sd_priority("error"), 3);
	assert_int_equal(xfab_sd_priority("warn"), 4);
	assert_int_equal(xfab_sd_priority("info"), 6);
	assert_int_equal(xfab_sd_priority("debug"), 7);
	assert_int_equal(xfab_sd_priority("something else"), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_path_socket),	     cmocka_unit_test(test_abstract_socket),
	    cmocka_unit_test(test_no_or_bad_socket), cmocka_unit_test(test_reloading_msg),
	    cmocka_unit_test(test_journal_stream),   cmocka_unit_test(test_priorities),
	    cmocka_unit_test(test_ready_msg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
