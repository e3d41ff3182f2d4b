// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Changes go to xfabd: xfabctl never writes a map. A request is one line
 * to the switch's control socket and xfabd's answer one line back
 * (docs/CONTROL.md); a refusal names the request field at fault.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl.h"
#include "ctlproto.h"

#define REPLY_TIMEOUT_MS 10000

int ctl_quiet;

/* Sends req and reads the answer into resp; 0, or -1 after saying why. */
static int exchange(const char *path, const char *line, size_t len, char *resp, size_t rlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t got = 0, off = 0;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		fprintf(stderr, "xfabctl: socket: %s\n", strerror(errno));
		return -1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		if (ctl_quiet)
			; /* the caller does without xfabd */
		else if (e == ENOENT || e == ECONNREFUSED)
			fprintf(stderr,
				"xfabctl: xfabd is not running for %s (nothing answers on %s)\n",
				pin_dir, path);
		else
			fprintf(stderr, "xfabctl: cannot reach xfabd on %s: %s%s\n", path,
				strerror(e), e == EACCES ? " (the socket is root's)" : "");
		close(fd);
		return -1;
	}
	while (off < len) {
		ssize_t w = send(fd, line + off, len - off, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			break; /* xfabd may have answered already: read it */
		}
		off += (size_t)w;
	}
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t r;

		if (got + 1 >= rlen || memchr(resp, '\n', got))
			break;
		if (poll(&p, 1, REPLY_TIMEOUT_MS) <= 0) {
			fprintf(stderr, "xfabctl: no answer from xfabd on %s within %d s\n", path,
				REPLY_TIMEOUT_MS / 1000);
			close(fd);
			return -1;
		}
		r = recv(fd, resp + got, rlen - 1 - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	resp[got] = '\0';
	if (!memchr(resp, '\n', got)) {
		fprintf(stderr, "xfabctl: xfabd on %s closed without a full answer\n", path);
		return -1;
	}
	return 0;
}

int ctl_request(const struct xfab_ctl_req *req, const char *what)
{
	char resp[XFAB_CTL_MAX_LINE + 1];
	int err = ctl_query(req, what, resp, sizeof(resp));

	if (err >= 0 && json)
		fputs(resp, stdout);
	return err < 0 ? -err : err;
}

int ctl_query(const struct xfab_ctl_req *req, const char *what, char *resp, size_t rlen)
{
	char path[108], line[XFAB_CTL_MAX_LINE + 1];
	char error[512], field[32];
	int len, ok;

	if (xfab_ctl_socket_path(pin_dir, path, sizeof(path))) {
		fprintf(stderr, "xfabctl: no control socket path for %s (too long)\n", pin_dir);
		return -1;
	}
	len = xfab_ctl_format_request(req, line, sizeof(line));
	if (len < 0) {
		fprintf(stderr, "xfabctl %s: the request is longer than %d bytes\n", what,
			XFAB_CTL_MAX_LINE - 1);
		return -2;
	}
	if (exchange(path, line, (size_t)len, resp, rlen))
		return -1;
	if (xfab_ctl_parse_response(resp, &ok, error, sizeof(error), field, sizeof(field))) {
		fprintf(stderr, "xfabctl %s: xfabd's answer is not a response: %s", what, resp);
		return -1;
	}
	if (!ok) {
		if (ctl_quiet)
			; /* the caller does without xfabd */
		else if (*field)
			fprintf(stderr, "xfabctl %s: refused: %s: %s\n", what, field, error);
		else
			fprintf(stderr, "xfabctl %s: refused: %s\n", what, error);
		return 1;
	}
	return 0;
}
