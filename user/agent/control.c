// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The control socket (docs/CONTROL.md): a unix stream socket at
 * /run/xfab/<pin dir below the pin root>.sock, mode 0600, served from
 * xfabd's event loop. Everything is non-blocking and bounded, so a slow or
 * stuck client can hold up neither the tables nor the other clients:
 *   - at most CTL_MAX_CONN connections; one more is told to retry and closed;
 *   - a request line is at most XFAB_CTL_MAX_LINE bytes (newline included):
 *     a longer one is refused and the connection closed;
 *   - a connection lives at most CTL_DEADLINE_MS, whatever it is doing;
 *   - a response waits in its connection's buffer until the client reads it,
 *     and the connection reads nothing more until then.
 * Requests are handled one line at a time by agent_ctl_handle (requests.c).
 */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent.h"
#include "common.h"
#include "ctlproto.h"

struct ctl_conn {
	int fd; /* -1: free */
	int eof;
	int closing;	/* close once out is written */
	__u64 deadline; /* monotonic ns */
	size_t in_len;	/* bytes in in */
	size_t out_len; /* bytes of out to send */
	size_t out_off; /* of them, sent */
	char in[XFAB_CTL_MAX_LINE];
	char out[XFAB_CTL_MAX_LINE];
};

struct ctl {
	int fd;
	int deadline_ms; /* CTL_DEADLINE_MS (tests shorten it) */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char root[sizeof(((struct sockaddr_un *)0)->sun_path)]; /* directories up to here go */
	struct ctl_conn conn[CTL_MAX_CONN];
};

/* mkdir -p of path's directory (0755: the socket's own mode guards it). */
static int make_parents(const char *path)
{
	char dir[sizeof(((struct ctl *)0)->path)];

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *s = dir + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return 0;
}

/* rmdir of path's directories up to root (included), each while empty. */
static void remove_parents(const char *path, const char *root)
{
	char dir[sizeof(((struct ctl *)0)->path)];
	size_t rl = strlen(root);
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	while ((slash = strrchr(dir, '/')) && (size_t)(slash - dir) >= rl) {
		*slash = '\0';
		if (strncmp(dir, root, rl) || rmdir(dir))
			break;
	}
}

/* Whether a live xfabd answers at path (then we must not take it). */
static int somebody_listens(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int live;

	if (fd < 0)
		return 0;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	live = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 || errno == EAGAIN;
	close(fd);
	return live;
}

int agent_ctl_open(struct agent *a)
{
	char path[sizeof(((struct ctl *)0)->path)];

	if (xfab_ctl_socket_path(a->pin_dir, path, sizeof(path))) {
		log_err("no control socket path for %s (too long)", a->pin_dir);
		return -ENAMETOOLONG;
	}
	return agent_ctl_open_at(a, path, XFAB_CTL_RUN_ROOT);
}

int agent_ctl_open_at(struct agent *a, const char *path, const char *root)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct ctl *c = calloc(1, sizeof(*c));
	struct stat st;
	mode_t old_umask;
	int err;

	if (!c)
		return -ENOMEM;
	c->fd = -1;
	c->deadline_ms = CTL_DEADLINE_MS;
	for (int i = 0; i < CTL_MAX_CONN; i++)
		c->conn[i].fd = -1;
	if (strlen(path) >= sizeof(c->path) || strlen(root) >= sizeof(c->root)) {
		log_err("control socket path %s is too long", path);
		free(c);
		return -ENAMETOOLONG;
	}
	snprintf(c->path, sizeof(c->path), "%s", path);
	snprintf(c->root, sizeof(c->root), "%s", root);
	err = make_parents(c->path);
	if (err) {
		log_err("cannot create the directory of %s: %s", c->path, strerror(-err));
		free(c);
		return err;
	}
	if (!lstat(c->path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			log_err("%s exists and is not a socket: remove it", c->path);
			free(c);
			return -EEXIST;
		}
		if (somebody_listens(c->path)) {
			log_err("another xfabd answers on %s: stop it first", c->path);
			free(c);
			return -EADDRINUSE;
		}
		log_warn("replacing %s, left by an xfabd that stopped without removing it",
			 c->path);
		unlink(c->path);
	}
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->fd < 0) {
		err = -errno;
		log_err("control socket: %s", strerror(errno));
		free(c);
		return err;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", c->path);
	old_umask = umask(0177); /* born 0600: no window with a wider mode */
	err = bind(c->fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	umask(old_umask);
	if (!err && chmod(c->path, 0600))
		err = -errno;
	if (!err && listen(c->fd, CTL_MAX_CONN))
		err = -errno;
	if (err) {
		log_err("cannot serve %s: %s", c->path, strerror(-err));
		close(c->fd);
		if (err != -EADDRINUSE)
			unlink(c->path);
		remove_parents(c->path, c->root);
		free(c);
		return err;
	}
	a->ctl = c;
	log_info("control socket %s", c->path);
	return 0;
}

static void conn_close(struct ctl_conn *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

void agent_ctl_close(struct agent *a)
{
	struct ctl *c = a->ctl;

	if (!c)
		return;
	for (int i = 0; i < CTL_MAX_CONN; i++)
		conn_close(&c->conn[i]);
	close(c->fd);
	unlink(c->path);
	remove_parents(c->path, c->root);
	free(c);
	a->ctl = NULL;
}

void agent_ctl_set_deadline(struct agent *a, int ms)
{
	if (a->ctl)
		a->ctl->deadline_ms = ms;
}

int agent_ctl_pollfds(struct agent *a, struct pollfd *pfd, int max, int *timeout_ms)
{
	struct ctl *c = a->ctl;
	__u64 now = xfab_mono_ns(), next = 0;
	int n = 0;

	*timeout_ms = -1;
	if (!c || max < 1)
		return 0;
	pfd[n++] = (struct pollfd){.fd = c->fd, .events = POLLIN};
	for (int i = 0; i < CTL_MAX_CONN && n < max; i++) {
		struct ctl_conn *k = &c->conn[i];

		if (k->fd < 0)
			continue;
		/* read only while no answer waits: one request at a time */
		pfd[n++] = (struct pollfd){.fd = k->fd,
					   .events = k->out_len	  ? POLLOUT
						     : k->closing ? 0
								  : POLLIN};
		if (!next || k->deadline < next)
			next = k->deadline;
	}
	if (next)
		*timeout_ms = next <= now ? 0 : (int)((next - now) / 1000000 + 1);
	return n;
}

/* Sends what the connection has to say; 0, or -1 when it is to be closed. */
static int conn_flush(struct ctl_conn *k)
{
	while (k->out_off < k->out_len) {
		ssize_t w = send(k->fd, k->out + k->out_off, k->out_len - k->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		k->out_off += (size_t)w;
	}
	k->out_len = k->out_off = 0;
	return k->closing ? -1 : 0;
}

static void conn_say(struct ctl_conn *k, const char *line, int len)
{
	if (len <= 0 || (size_t)len >= sizeof(k->out)) {
		len = xfab_ctl_format_error(k->out, sizeof(k->out), "", "response too long");
		if (len < 0)
			len = 0;
	} else {
		memcpy(k->out, line, (size_t)len);
	}
	k->out_len = (size_t)len;
	k->out_off = 0;
}

/* Handles the complete lines in the buffer while answers go out at once. */
static int conn_work(struct agent *a, struct ctl_conn *k)
{
	char resp[XFAB_CTL_MAX_LINE];

	while (!k->out_len && !k->closing) {
		char *nl = memchr(k->in, '\n', k->in_len);
		size_t used;
		int n;

		if (!nl) {
			if (k->in_len < sizeof(k->in))
				break;
			/* a full buffer and no newline: longer than a line may be */
			n = xfab_ctl_format_error(resp, sizeof(resp), "",
						  "request longer than the line limit");
			conn_say(k, resp, n);
			k->closing = 1;
			break;
		}
		used = (size_t)(nl - k->in) + 1;
		n = agent_ctl_handle(a, k->in, used - 1, resp, sizeof(resp));
		conn_say(k, resp, n);
		memmove(k->in, k->in + used, k->in_len - used);
		k->in_len -= used;
		if (conn_flush(k))
			return -1;
	}
	if (k->out_len && conn_flush(k))
		return -1;
	/* the client stopped sending: done once nothing is left to answer */
	if (k->eof && !k->out_len && (k->closing || !memchr(k->in, '\n', k->in_len)))
		return -1;
	return 0;
}

static void conn_read(struct agent *a, struct ctl_conn *k)
{
	ssize_t r = recv(k->fd, k->in + k->in_len, sizeof(k->in) - k->in_len, MSG_DONTWAIT);

	if (r < 0) {
		if (errno != EAGAIN && errno != EINTR)
			conn_close(k);
		return;
	}
	if (r == 0)
		k->eof = 1;
	k->in_len += (size_t)r;
	if (conn_work(a, k))
		conn_close(k);
}

static void accept_all(struct ctl *c)
{
	for (;;) {
		int fd = accept4(c->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct ctl_conn *k = NULL;

		if (fd < 0)
			return;
		for (int i = 0; i < CTL_MAX_CONN && !k; i++)
			if (c->conn[i].fd < 0)
				k = &c->conn[i];
		if (!k) {
			char line[128];
			int n = xfab_ctl_format_error(line, sizeof(line), "",
						      "xfabd is busy with other clients: retry");

			if (n > 0 && send(fd, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				log_dbg("control: a client beyond the limit left");
			close(fd);
			continue;
		}
		memset(k, 0, offsetof(struct ctl_conn, in));
		k->fd = fd;
		k->deadline = xfab_mono_ns() + (__u64)c->deadline_ms * 1000000;
	}
}

void agent_ctl_serve(struct agent *a, const struct pollfd *pfd, int n)
{
	struct ctl *c = a->ctl;
	__u64 now = xfab_mono_ns();

	if (!c || n < 1)
		return;
	/* connections first (pfd[1..] lists them in slot order), then new ones */
	for (int i = 0, p = 1; i < CTL_MAX_CONN && p < n; i++) {
		struct ctl_conn *k = &c->conn[i];

		if (k->fd < 0 || pfd[p].fd != k->fd)
			continue;
		if (pfd[p].revents & (POLLERR | POLLNVAL)) {
			conn_close(k);
		} else if (pfd[p].revents & POLLOUT) {
			if (conn_flush(k) || conn_work(a, k))
				conn_close(k);
		} else if (pfd[p].revents & (POLLIN | POLLHUP)) {
			conn_read(a, k);
		}
		p++;
	}
	for (int i = 0; i < CTL_MAX_CONN; i++) {
		struct ctl_conn *k = &c->conn[i];

		if (k->fd >= 0 && k->deadline <= now) {
			log_dbg("control: a client ran past %d ms; closed", c->deadline_ms);
			conn_close(k);
		}
	}
	if (pfd[0].revents & POLLIN)
		accept_all(c);
}
