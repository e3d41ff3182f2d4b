// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Changes go to xfabd: xfabctl never writes a map. A request is one line
 * to the switch's control socket and xfabd's answer one line back
 * (docs/CONTROL.md); a refusal names the request field at fault.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "ctlclient.h"
#include "ctlproto.h"

#define REPLY_TIMEOUT_MS 10000

int ctl_quiet;

/* Sends req and reads the answer into resp; 0, or -1 after saying why. */
static int exchange(const char *path, const char *line, size_t len, char *resp, size_t rlen)
{
	enum xfab_ctl_xfer x;
	int fd = xfab_ctl_connect(path);

	if (fd < 0) {
		int e = errno;

		if (ctl_quiet)
			; /* the caller does without xfabd */
		else if (e == ENOENT || e == ECONNREFUSED)
			fprintf(stderr,
				"xfabctl: xfabd is not running%s%s (nothing answers on %s)\n",
				ctl_pin_dir[0] ? " for " : "", ctl_pin_dir, path);
		else
			fprintf(stderr, "xfabctl: cannot reach xfabd on %s: %s%s\n", path,
				strerror(e), e == EACCES ? " (the socket is root's)" : "");
		return -1;
	}
	x = xfab_ctl_exchange(fd, line, len, resp, rlen, REPLY_TIMEOUT_MS);
	close(fd);
	if (x == XFAB_CTL_XFER_TIMEOUT) {
		fprintf(stderr, "xfabctl: no answer from xfabd on %s within %d s\n", path,
			REPLY_TIMEOUT_MS / 1000);
		return -1;
	}
	if (x != XFAB_CTL_XFER_OK) {
		fprintf(stderr, "xfabctl: xfabd on %s closed without a full answer\n", path);
		return -1;
	}
	return 0;
}

int ctl_request(const struct xfab_ctl_req *req, const char *what)
{
	char resp[XFAB_CTL_MAX_LINE + 1];
	int err = ctl_query(req, what, resp, sizeof(resp));

	if (err >= 0 && ctl_json)
		fputs(resp, stdout);
	return err < 0 ? -err : err;
}

int ctl_query(const struct xfab_ctl_req *req, const char *what, char *resp, size_t rlen)
{
	char path[108], line[XFAB_CTL_MAX_LINE + 1];
	int len;

	if (xfab_ctl_socket_path(ctl_pin_dir, path, sizeof(path))) {
		fprintf(stderr, "xfabctl: no control socket path for %s (too long)\n", ctl_pin_dir);
		return -1;
	}
	len = xfab_ctl_format_request(req, line, sizeof(line));
	if (len < 0) {
		fprintf(stderr, "xfabctl %s: the request is longer than %d bytes\n", what,
			XFAB_CTL_MAX_LINE - 1);
		return -2;
	}
	return ctl_query_line(path, line, (size_t)len, what, resp, rlen);
}

int ctl_query_line(const char *sock, const char *line, size_t len, const char *what, char *resp,
		   size_t rlen)
{
	char error[512], field[32];
	int ok;

	if (exchange(sock, line, len, resp, rlen))
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
