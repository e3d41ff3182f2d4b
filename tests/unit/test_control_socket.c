// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of xfabd's control socket (user/agent/control.c), served by
 * the same calls xfabd's event loop makes (agent_ctl_pollfds, poll, agent_ctl_serve),
 * with clients in this process, in a temporary directory (no root):
 *   - the socket is born 0600, its directories are made and removed;
 *   - a stale socket (nothing listening) is replaced, a live one is not
 *     taken, a file that is not a socket is left alone;
 *   - one request per line, answers in order, several in one write;
 *   - a line over the limit is refused and the connection closed;
 *   - clients stuck half-way hold up nobody and are closed at their
 *     deadline; one past the connection limit is told to retry.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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

#include "agent.h"
#include "common.h"
#include "ctlproto.h"

static char root[64], sock[128];
static struct agent A;

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/xfab-ctltest-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(sock, sizeof(sock), "%s/lab/leaf1.sock", root);
	memset(&A, 0, sizeof(A));
	A.fd_port_stats = A.fd_queue_wm = -1;
	return 0;
}

static int teardown(void **state)
{
	char path[160];

	(void)state;
	agent_ctl_close(&A);
	/* whatever a failed test left */
	unlink(sock);
	snprintf(path, sizeof(path), "%s/lab", root);
	rmdir(path);
	rmdir(root);
	return 0;
}

/* One turn of xfabd's loop, waiting at most ms. */
static void serve(int ms)
{
	struct pollfd pfd[1 + CTL_MAX_CONN];
	int timeout, n = agent_ctl_pollfds(&A, pfd, 1 + CTL_MAX_CONN, &timeout);

	if (timeout < 0 || timeout > ms)
		timeout = ms;
	assert_true(poll(pfd, (nfds_t)n, timeout) >= 0);
	agent_ctl_serve(&A, pfd, n);
}

static int client(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static void say(int fd, const char *text, size_t len)
{
	assert_int_equal(send(fd, text, len, MSG_NOSIGNAL), (ssize_t)len);
}

static void says(int fd, const char *text)
{
	say(fd, text, strlen(text));
}

/* Serves until fd has n lines (or EOF); returns what came, NUL-ended.
 * *eof: whether xfabd closed the connection. */
static char *hear(int fd, int lines, int *eof, int max_ms)
{
	static char buf[8192];
	size_t got = 0;
	__u64 end = xfab_mono_ns() + (__u64)max_ms * 1000000;
	int have = 0;

	*eof = 0;
	while (xfab_mono_ns() < end && have < lines && !*eof) {
		ssize_t r;

		serve(10);
		while ((r = recv(fd, buf + got, sizeof(buf) - 1 - got, MSG_DONTWAIT)) > 0)
			got += (size_t)r;
		if (r == 0 || (r < 0 && errno != EAGAIN))
			*eof = 1;
		buf[got] = '\0';
		have = 0;
		for (size_t i = 0; i < got; i++)
			have += buf[i] == '\n';
	}
	buf[got] = '\0';
	return buf;
}

/* Whether xfabd closed fd within ms (nothing more to read). */
static int closed_within(int fd, int ms)
{
	int eof;

	hear(fd, 1000, &eof, ms);
	return eof;
}

static void test_mode_and_cleanup(void **state)
{
	struct stat st;
	char dir[160];

	(void)state;
	assert_int_equal(agent_ctl_open_at(&A, sock, root), 0);
	assert_int_equal(lstat(sock, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	agent_ctl_close(&A);
	assert_int_equal(lstat(sock, &st), -1);
	snprintf(dir, sizeof(dir), "%s/lab", root);
	assert_int_equal(lstat(dir, &st), -1); /* the empty directory went too */
	assert_int_equal(lstat(root, &st), -1);
	assert_int_equal(mkdir(root, 0700), 0); /* for teardown */
}

static void test_one_answer_per_line(void **state)
{
	int fd, eof;
	const char *got;

	(void)state;
	assert_int_equal(agent_ctl_open_at(&A, sock, root), 0);
	fd = client();
	/* two requests in one write, the second in two pieces */
	says(fd, "{\"cmd\":\"ping\"}\n{\"cmd\":\"te-");
	got = hear(fd, 1, &eof, 1000);
	assert_string_equal(got, "{\"ok\":true}\n");
	says(fd, "clear\",\"x\":\"1\"}\n");
	got = hear(fd, 1, &eof, 1000);
	assert_string_equal(got, "{\"ok\":false,\"error\":\"unknown field \\\"x\\\" for te-clear\","
				 "\"field\":\"x\"}\n");
	assert_false(eof);
	/* the client leaves: the slot is free again */
	close(fd);
	serve(10);
	fd = client();
	says(fd, "{\"cmd\":\"ping\"}\n");
	assert_string_equal(hear(fd, 1, &eof, 1000), "{\"ok\":true}\n");
	close(fd);
}

static void test_line_limit(void **state)
{
	char *line = malloc(XFAB_CTL_MAX_LINE + 100);
	const char *got;
	int fd, eof;

	(void)state;
	assert_non_null(line);
	assert_int_equal(agent_ctl_open_at(&A, sock, root), 0);
	/* the longest line that may be (padded with JSON whitespace) is served */
	fd = client();
	memset(line, ' ', XFAB_CTL_MAX_LINE);
	memcpy(line, "{\"cmd\":\"ping\"}", 14);
	line[XFAB_CTL_MAX_LINE - 1] = '\n';
	say(fd, line, XFAB_CTL_MAX_LINE);
	got = hear(fd, 1, &eof, 1000);
	assert_string_equal(got, "{\"ok\":true}\n");
	assert_false(closed_within(fd, 50));
	close(fd);
	/* one byte more: refused, and the connection closed */
	fd = client();
	memset(line, 'x', XFAB_CTL_MAX_LINE + 1);
	line[XFAB_CTL_MAX_LINE] = '\n';
	say(fd, line, XFAB_CTL_MAX_LINE + 1);
	got = hear(fd, 1, &eof, 1000);
	assert_non_null(strstr(got, "\"ok\":false"));
	assert_non_null(strstr(got, "longer than"));
	assert_true(eof || closed_within(fd, 500));
	close(fd);
	free(line);
}

static void test_stuck_clients_hold_up_nobody(void **state)
{
	const int deadline_ms = 300;
	int stuck[CTL_MAX_CONN - 1], fd, eof;
	__u64 t_stuck;

	(void)state;
	assert_int_equal(agent_ctl_open_at(&A, sock, root), 0);
	agent_ctl_set_deadline(&A, deadline_ms);
	t_stuck = xfab_mono_ns();
	for (int i = 0; i < CTL_MAX_CONN - 1; i++) {
		stuck[i] = client();
		says(stuck[i], "{\"cmd\":\"pi");
	}
	serve(10);
	/* the last free slot answers while the stuck ones still hold theirs:
	 * before their deadline, not once it freed them (the bound is the
	 * configured deadline, not a guess at this machine's speed) */
	fd = client();
	says(fd, "{\"cmd\":\"ping\"}\n");
	assert_string_equal(hear(fd, 1, &eof, deadline_ms), "{\"ok\":true}\n");
	assert_true(xfab_mono_ns() - t_stuck < (__u64)deadline_ms * 1000000);
	/* one more than the limit: told to retry, and closed */
	{
		int extra = client();
		const char *got = hear(extra, 1, &eof, 500);

		assert_non_null(strstr(got, "busy"));
		assert_true(eof || closed_within(extra, 200));
		close(extra);
	}
	/* past their deadline the stuck ones are closed, the slots free */
	for (int i = 0; i < CTL_MAX_CONN - 1; i++) {
		assert_true(closed_within(stuck[i], 1000));
		close(stuck[i]);
	}
	close(fd);
	for (int i = 0; i < CTL_MAX_CONN; i++) {
		stuck[i % (CTL_MAX_CONN - 1)] = client();
		says(stuck[i % (CTL_MAX_CONN - 1)], "{\"cmd\":\"ping\"}\n");
		assert_string_equal(hear(stuck[i % (CTL_MAX_CONN - 1)], 1, &eof, 500),
				    "{\"ok\":true}\n");
		close(stuck[i % (CTL_MAX_CONN - 1)]);
	}
}

/* A client that never reads its answers still cannot block xfabd. */
static void test_client_that_does_not_read(void **state)
{
	char line[64];
	int fd, other, eof, n = snprintf(line, sizeof(line), "{\"cmd\":\"ping\"}\n");
	size_t sent = 0;

	(void)state;
	assert_int_equal(agent_ctl_open_at(&A, sock, root), 0);
	fd = client();
	/* requests until our socket buffer is full: xfabd stops reading */
	for (int i = 0; i < 200000; i++) {
		ssize_t w = send(fd, line, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (w < 0)
			break;
		sent += (size_t)w;
		if (i % 64 == 0)
			serve(0);
	}
	assert_true(sent > 0);
	other = client();
	say(other, line, (size_t)n);
	assert_string_equal(hear(other, 1, &eof, 500), "{\"ok\":true}\n");
	close(other);
	/* when it reads at last, every request has its answer: xfabd goes
	 * on writing as room appears, also after the last request was read */
	{
		size_t want = sent / (size_t)n, lines = 0;
		__u64 end = xfab_mono_ns() + 3000000000ull;
		char chunk[4096];

		while (lines < want && xfab_mono_ns() < end) {
			ssize_t r;

			serve(10);
			while ((r = recv(fd, chunk, sizeof(chunk), MSG_DONTWAIT)) > 0)
				for (ssize_t i = 0; i < r; i++)
					lines += chunk[i] == '\n';
		}
		if (lines != want)
			fail_msg("%zu requests, %zu answers", want, lines);
	}
	close(fd);
}

static void test_stale_live_and_foreign(void **state)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct agent B;
	struct stat st;
	int fd, eof;

	(void)state;
	/* stale: bound once, nobody listens (a killed xfabd) */
	assert_int_equal(agent_ctl_open_at(&A, sock, root), 0); /* makes the directory */
	agent_ctl_close(&A);
	assert_int_equal(mkdir(root, 0700), 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	{
		char dir[160];

		snprintf(dir, sizeof(dir), "%s/lab", root);
		assert_int_equal(mkdir(dir, 0755), 0);
	}
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	assert_int_equal(lstat(sock, &st), 0);
	assert_int_equal(agent_ctl_open_at(&A, sock, root), 0);
	fd = client();
	says(fd, "{\"cmd\":\"ping\"}\n");
	assert_string_equal(hear(fd, 1, &eof, 500), "{\"ok\":true}\n");
	close(fd);
	/* live: a second one does not take it, and the first still serves */
	memset(&B, 0, sizeof(B));
	assert_int_equal(agent_ctl_open_at(&B, sock, root), -EADDRINUSE);
	assert_null(B.ctl);
	fd = client();
	says(fd, "{\"cmd\":\"ping\"}\n");
	assert_string_equal(hear(fd, 1, &eof, 500), "{\"ok\":true}\n");
	close(fd);
	agent_ctl_close(&A);
	/* not a socket: left alone */
	assert_int_equal(mkdir(root, 0700), 0);
	{
		char dir[160];

		snprintf(dir, sizeof(dir), "%s/lab", root);
		assert_int_equal(mkdir(dir, 0755), 0);
	}
	fd = open(sock, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(agent_ctl_open_at(&A, sock, root), -EEXIST);
	assert_int_equal(lstat(sock, &st), 0);
	assert_true(S_ISREG(st.st_mode));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_mode_and_cleanup, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_one_answer_per_line, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_line_limit, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stuck_clients_hold_up_nobody, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_client_that_does_not_read, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stale_live_and_foreign, setup, teardown),
	};

	xfab_log_quiet = 1; /* xfabd's own lines: the answers are what is judged */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
