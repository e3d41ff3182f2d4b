// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The control socket's client transport (ctlclient.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctlclient.h"

int xfab_ctl_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int e;

	if (fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fd;
	e = errno;
	close(fd);
	errno = e; /* the caller tells "not running" from the rest */
	return -1;
}

static void send_all(int fd, const char *line, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t w = send(fd, line + off, len - off, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* what xfabd answered, if anything, is read next */
		off += (size_t)w;
	}
}

enum xfab_ctl_xfer xfab_ctl_exchange(int fd, const char *line, size_t len, char *resp, size_t rlen,
				     int timeout_ms)
{
	size_t got = 0;

	send_all(fd, line, len);
	resp[0] = '\0';
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r = poll(&p, 1, timeout_ms);
		ssize_t n;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return XFAB_CTL_XFER_TIMEOUT;
		n = recv(fd, resp + got, rlen - 1 - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return XFAB_CTL_XFER_CLOSED;
		got += (size_t)n;
		resp[got] = '\0';
		if (memchr(resp, '\n', got))
			return XFAB_CTL_XFER_OK;
		if (got + 1 >= rlen)
			return XFAB_CTL_XFER_LONG;
	}
}
