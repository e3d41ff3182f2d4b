/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The client side of xfabd's control socket (docs/CONTROL.md): one
 * request line out, one answer line back. The line formats are ctlproto.h's;
 * this is only the transport, shared by xfabctl and xfab-te. What went
 * wrong comes back as a code, and each program says it in its own words.
 */
#ifndef XFAB_CTLCLIENT_H
#define XFAB_CTLCLIENT_H

#include <stddef.h>

enum xfab_ctl_xfer {
	XFAB_CTL_XFER_OK,
	XFAB_CTL_XFER_TIMEOUT, /* no full answer within the time given */
	XFAB_CTL_XFER_CLOSED,  /* xfabd closed before a full answer (or took no request) */
	XFAB_CTL_XFER_LONG,    /* an answer longer than the buffer */
};

/* A connected stream socket to path, or -1 with errno (socket's or
 * connect's) left as it failed. */
int xfab_ctl_connect(const char *path);
/* Sends len bytes of line on fd (a request ending in '\n'), then reads
 * until resp (rlen bytes, NUL-terminated) holds a newline. A send that
 * fails still reads: xfabd may have answered before closing. Each wait
 * for data is at most timeout_ms. */
enum xfab_ctl_xfer xfab_ctl_exchange(int fd, const char *line, size_t len, char *resp, size_t rlen,
				     int timeout_ms);

#endif
