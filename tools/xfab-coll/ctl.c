// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* xfab-coll: the control connection (TCP to rank 0): its lines and the
 * state of the run they move. */
#include "coll_tool.h"

/* Writes a whole line (blocking up to the deadline). */
int coll_ctl_write(struct rank *r, int fd, const char *fmt, ...)
{
	char small[CTRL_LINE], *line = small;
	size_t len, off = 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return coll_fail(r, "control: cannot format a line");
	if ((size_t)n >= sizeof(small)) {
		line = malloc((size_t)n + 1);
		if (!line)
			return coll_fail(r, "out of memory");
		va_start(ap, fmt);
		vsnprintf(line, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	len = (size_t)n;
	while (off < len) {
		ssize_t w = send(fd, line + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		struct pollfd p = {.fd = fd, .events = POLLOUT};

		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			break;
		if (xfab_mono_ns() > r->deadline)
			break;
		poll(&p, 1, 10);
	}
	if (line != small)
		free(line);
	if (off < len)
		return coll_fail(r, "control connection: cannot send (%s)", strerror(errno));
	return 0;
}

void coll_ctl_abort_all(struct rank *r)
{
	if (r->me == 0) {
		for (uint32_t p = 1; p < r->n; p++)
			if (r->peers[p].fd >= 0)
				coll_ctl_write(r, r->peers[p].fd, "ABORT %s\n", r->failure);
	} else if (r->ctl_fd >= 0) {
		coll_ctl_write(r, r->ctl_fd, "ABORT rank %u: %s\n", r->me, r->failure);
	}
}

static int parse_counters(const char *s, struct counters *c)
{
	unsigned long long v[8];

	if (sscanf(s, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5], &v[6], &v[7]) != 8)
		return -1;
	*c = (struct counters){v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
	return 0;
}

void coll_my_counters(struct rank *r, struct counters *c)
{
	memset(c, 0, sizeof(*c));
	for (uint32_t i = 0; i < r->nqps; i++) {
		const struct qp *qp = &r->qps[i];

		c->oos += qp->rx.oos;
		c->retransmits += qp->tx.retransmits;
		c->cnps_tx += qp->cnps_tx;
		c->cnps_rx += qp->cnps_rx;
		c->naks += qp->rx.naks;
	}
	c->pause_ns = r->pfc_on ? xfab_pfc_paused_ns(&r->pfc, xfab_mono_ns()) : 0;
	c->timeouts = r->timeouts;
	c->dropped = r->dropped;
}

/* One line from rank 0 (rank > 0). */
static int line_from_root(struct rank *r, char *line)
{
	unsigned int s, k;

	if (sscanf(line, "GO %u %u", &s, &k) == 2) {
		if (s != r->run.s || k != r->run.k)
			return coll_fail(r, "control: GO %u %u while at size %u iteration %u", s, k,
					 r->run.s, r->run.k);
		r->run.go = 1;
		return 0;
	}
	if (!strcmp(line, "BYE")) {
		r->run.bye = 1;
		return 0;
	}
	if (!strncmp(line, "ABORT ", 6))
		return coll_fail(r, "rank 0 stopped the run: %s", line + 6);
	return coll_fail(r, "control: rank 0 sent \"%.60s\"", line);
}

/* One line from connection c (rank 0). */
static int line_to_root(struct rank *r, struct peer_ctl *c, uint32_t *who, char *line)
{
	unsigned int p, s, k;
	unsigned long long t;
	long long bad;
	int pos = 0;

	if (sscanf(line, "HELLO %u %n", &p, &pos) == 1 && pos) {
		if (*who != UINT32_MAX)
			return coll_fail(r, "control: a second HELLO from rank %u", *who);
		if (p == 0 || p >= r->n)
			return coll_fail(r, "control: HELLO from rank %u: the job has ranks 1..%u",
					 p, r->n - 1);
		if (r->peers[p].fd >= 0)
			return coll_fail(r, "control: two processes say they are rank %u", p);
		if (strcmp(line + pos, r->sig))
			return coll_fail(
			    r,
			    "rank %u runs with other options than rank 0 (its \"%s\", rank "
			    "0's \"%s\")",
			    p, line + pos, r->sig);
		*who = p;
		r->peers[p].fd = c->fd;
		c->fd = -1; /* moved */
		r->run.hellos++;
		return 0;
	}
	if (*who == UINT32_MAX)
		return coll_fail(r, "control: \"%.40s\" before HELLO", line);
	p = *who;
	if (sscanf(line, "DONE %u %u %llu %lld %n", &s, &k, &t, &bad, &pos) == 4 && pos) {
		struct peer_ctl *pc = &r->peers[p];

		if (s != r->run.s || k != r->run.k)
			return coll_fail(
			    r, "control: rank %u is done with size %u iteration %u, not %u %u", p,
			    s, k, r->run.s, r->run.k);
		if (parse_counters(line + pos, &pc->last))
			return coll_fail(r, "control: rank %u: a bad DONE line", p);
		pc->time = (double)t / 1e9;
		pc->first_bad = bad;
		pc->done_k = 1;
		r->run.dones++;
		return 0;
	}
	if (!strncmp(line, "REPORT ", 7)) {
		free(r->peers[p].report);
		r->peers[p].report = strdup(line + 7);
		r->peers[p].reported = 1;
		r->run.reports++;
		return 0;
	}
	if (!strncmp(line, "ABORT ", 6))
		return coll_fail(r, "%s", line + 6);
	return coll_fail(r, "control: rank %u sent \"%.60s\"", p, line);
}

/* Reads what waits on one control connection and handles its lines; EOF is
 * an error unless the run is over for it. */
static int ctl_read(struct rank *r, struct peer_ctl *c, uint32_t *who)
{
	for (;;) {
		ssize_t got;
		char *nl;

		c->buf[c->len] = '\0';
		while ((nl = strchr(c->buf, '\n'))) {
			size_t used = (size_t)(nl - c->buf) + 1;
			int rc;

			*nl = '\0';
			rc = r->me ? line_from_root(r, c->buf) : line_to_root(r, c, who, c->buf);
			memmove(c->buf, c->buf + used, c->len - used + 1);
			c->len -= used;
			if (rc)
				return -1;
			if (c->fd < 0)
				return 0; /* moved to its rank's slot */
		}
		if (c->len == sizeof(c->buf) - 1)
			return coll_fail(r, "control: a line longer than %zu bytes",
					 sizeof(c->buf));
		got = recv(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len, MSG_DONTWAIT);
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (got <= 0) {
			if (r->me && r->run.bye)
				return 0;
			if (r->me)
				return coll_fail(r, "rank 0 closed the control connection");
			return coll_fail(r, "rank %u closed its control connection",
					 *who == UINT32_MAX ? 0 : *who);
		}
		c->len += (size_t)got;
	}
	return 0;
}

int coll_ctl_poll(struct rank *r)
{
	if (r->me) {
		uint32_t who = 0;

		return ctl_read(r, &r->up, &who);
	}
	/* new connections */
	for (;;) {
		int fd = accept4(r->ctl_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), one = 1;

		if (fd < 0)
			break;
		if (r->npending == r->n) {
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		memset(&r->pending[r->npending], 0, sizeof(r->pending[0]));
		r->pending[r->npending++].fd = fd;
	}
	for (uint32_t i = 0; i < r->npending; i++) {
		uint32_t who = UINT32_MAX;

		if (r->pending[i].fd < 0)
			continue;
		if (ctl_read(r, &r->pending[i], &who))
			return -1;
		if (who != UINT32_MAX) { /* named: its buffer moves with it */
			struct peer_ctl *pc = &r->peers[who];
			int fd = pc->fd;

			memcpy(pc->buf, r->pending[i].buf, r->pending[i].len + 1);
			pc->len = r->pending[i].len;
			pc->fd = fd;
		}
	}
	for (uint32_t p = 1; p < r->n; p++) {
		uint32_t who = p;

		if (r->peers[p].fd >= 0 && !r->peers[p].reported && ctl_read(r, &r->peers[p], &who))
			return -1;
	}
	return 0;
}

/* The control connection: rank 0 listens for every other rank; the others
 * connect to it (until the deadline). */
int coll_ctl_open(struct rank *r)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr = r->job.ranks[0].addr,
				.sin_port = htons(r->o.ctrl_port)};
	int one = 1;

	r->ctl_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (r->ctl_fd < 0)
		return coll_fail(r, "TCP socket: %s", strerror(errno));
	if (r->me == 0) {
		setsockopt(r->ctl_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(r->ctl_fd, (struct sockaddr *)&a, sizeof(a)) || listen(r->ctl_fd, 64))
			return coll_fail(r, "--ctrl-port %u: cannot listen on %s:%u: %s",
					 r->o.ctrl_port, inet_ntoa(a.sin_addr), r->o.ctrl_port,
					 strerror(errno));
		return 0;
	}
	/* rank 0 may start later: try until the deadline */
	for (;;) {
		struct pollfd p = {.fd = r->ctl_fd, .events = POLLOUT};
		int err = 0;
		socklen_t elen = sizeof(err);

		if (!connect(r->ctl_fd, (struct sockaddr *)&a, sizeof(a)))
			break;
		if (errno == EINPROGRESS && poll(&p, 1, 500) == 1 &&
		    !getsockopt(r->ctl_fd, SOL_SOCKET, SO_ERROR, &err, &elen) && !err)
			break;
		if (err)
			errno = err;
		if (xfab_mono_ns() > r->deadline)
			return coll_fail(
			    r, "cannot reach rank 0 at %s:%u (--ctrl-port) within %.0f s: %s",
			    inet_ntoa(a.sin_addr), r->o.ctrl_port, r->o.timeout, strerror(errno));
		close(r->ctl_fd);
		usleep(100000);
		r->ctl_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (r->ctl_fd < 0)
			return coll_fail(r, "TCP socket: %s", strerror(errno));
	}
	setsockopt(r->ctl_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	r->up.fd = r->ctl_fd;
	return 0;
}
