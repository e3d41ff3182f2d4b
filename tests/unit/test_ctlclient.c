// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the control socket's client transport
 * (user/lib/ctlclient.c), with the test playing xfabd on the other end of
 * a socket pair (or a listening socket it binds):
 *   - the request arrives whole, and the answer comes back through the
 *     first newline, however it was split;
 *   - a peer that closes before a newline, or takes no request, is CLOSED;
 *     one that says nothing is a TIMEOUT; an answer longer than the buffer
 *     is LONG;
 *   - connect reaches a listening socket, and on a missing one fails with
 *     errno ENOENT (what xfabctl calls "not running").
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
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "ctlclient.h"

static int sv[2]; /* sv[0]: the client's end, sv[1]: "xfabd" */

static int pair_up(void **state)
{
	(void)state;
	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
}

static int pair_down(void **state)
{
	(void)state;
	close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	return 0;
}

static void peer_says(const char *s)
{
	assert_int_equal(write(sv[1], s, strlen(s)), (ssize_t)strlen(s));
}

static void test_answer(void **state)
{
	const char *req = "{\"cmd\":\"ping\"}\n";
	char resp[64], got[64];

	(void)state;
	peer_says("{\"ok\":");
	peer_says("true}\n");
	assert_int_equal(xfab_ctl_exchange(sv[0], req, strlen(req), resp, sizeof(resp), 1000),
			 XFAB_CTL_XFER_OK);
	assert_string_equal(resp, "{\"ok\":true}\n");
	assert_int_equal(read(sv[1], got, sizeof(got)), (ssize_t)strlen(req));
	assert_memory_equal(got, req, strlen(req));
}

static void test_closed(void **state)
{
	char resp[64];

	(void)state;
	peer_says("{\"ok\"");
	close(sv[1]);
	sv[1] = -1;
	assert_int_equal(xfab_ctl_exchange(sv[0], "x\n", 2, resp, sizeof(resp), 1000),
			 XFAB_CTL_XFER_CLOSED);
	assert_string_equal(resp, "{\"ok\"");
}

static void test_timeout(void **state)
{
	char resp[64];

	(void)state;
	assert_int_equal(xfab_ctl_exchange(sv[0], "x\n", 2, resp, sizeof(resp), 50),
			 XFAB_CTL_XFER_TIMEOUT);
}

static void test_long(void **state)
{
	char resp[16];

	(void)state;
	peer_says("{\"ok\":true,\"padding\":\"......\"}\n");
	assert_int_equal(xfab_ctl_exchange(sv[0], "x\n", 2, resp, sizeof(resp), 1000),
			 XFAB_CTL_XFER_LONG);
	assert_int_equal(strlen(resp), sizeof(resp) - 1);
}

static void test_connect(void **state)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char dir[] = "/tmp/xfab-ctlclient-XXXXXX", path[128];
	int lfd, fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ctl.sock", dir);
	errno = 0;
	assert_int_equal(xfab_ctl_connect(path), -1);
	assert_int_equal(errno, ENOENT);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(lfd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	fd = xfab_ctl_connect(path);
	assert_true(fd >= 0);
	close(fd);
	close(lfd);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_answer, pair_up, pair_down),
	    cmocka_unit_test_setup_teardown(test_closed, pair_up, pair_down),
	    cmocka_unit_test_setup_teardown(test_timeout, pair_up, pair_down),
	    cmocka_unit_test_setup_teardown(test_long, pair_up, pair_down),
	    cmocka_unit_test(test_connect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
