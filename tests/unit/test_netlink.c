// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of xfabd's event reader (user/agent/netlink.c,
 * agent_nl_read_fd): many datagrams per system call (recvmmsg), each
 * datagram's messages handed on in the order sent, the budget (what is
 * left stays queued for the next call), a datagram too big for a slot
 * reported as lost events (-ENOBUFS) while the others still count. The
 * datagrams travel between two NETLINK_USERSOCK sockets (unicast needs no
 * privilege, and the queue is bounded by bytes only, as the kernel's
 * multicast events are); the messages are built here by hand, each route
 * message tagged with its number in nlmsg_seq.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "netlink.h"

struct pair {
	int tx, rx;
	struct sockaddr_nl to;
};

/* What the handlers saw. */
struct seen {
	__u32 seq[8192];
	int n_routes, n_links, n_neighs;
};

static int setup(void **state)
{
	struct pair *p = calloc(1, sizeof(*p));
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	socklen_t len = sizeof(sa);
	int big = 64 << 20;

	if (!p)
		return -1;
	/* a full queue fails the send (EAGAIN) rather than hanging the test */
	p->tx = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_USERSOCK);
	p->rx = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_USERSOCK);
	if (p->tx < 0 || p->rx < 0 || bind(p->tx, (struct sockaddr *)&sa, sizeof(sa)) ||
	    bind(p->rx, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(p->rx, (struct sockaddr *)&p->to, &len))
		return -1;
	/* room for what a test queues: a few hundred datagrams, which fit the
	 * default limit too (SO_RCVBUFFORCE needs root) */
	if (setsockopt(p->rx, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
		setsockopt(p->rx, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	setsockopt(p->tx, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	struct pair *p = *state;

	close(p->tx);
	close(p->rx);
	free(p);
	return 0;
}

static void agent_on_route(void *arg, const struct nlmsghdr *nlh)
{
	struct seen *s = arg;

	assert_true(nlh->nlmsg_type == RTM_NEWROUTE || nlh->nlmsg_type == RTM_DELROUTE);
	assert_true(s->n_routes < (int)(sizeof(s->seq) / sizeof(s->seq[0])));
	s->seq[s->n_routes++] = nlh->nlmsg_seq;
}

static void agent_on_link(void *arg, const struct xfab_nl_link *l)
{
	struct seen *s = arg;

	assert_int_equal(l->ifindex, 7);
	assert_true(l->admin_up);
	s->n_links++;
}

static void agent_on_neigh(void *arg, const struct xfab_nl_neigh *n)
{
	(void)n;
	((struct seen *)arg)->n_neighs++;
}

/* Appends a route message tagged seq (payload bytes of padding) at buf. */
static size_t put_route(char *buf, __u32 seq, size_t payload)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct rtmsg *rtm = NLMSG_DATA(nlh);

	memset(buf, 0, NLMSG_SPACE(sizeof(*rtm) + payload));
	nlh->nlmsg_len = (__u32)NLMSG_LENGTH(sizeof(*rtm) + payload);
	nlh->nlmsg_type = RTM_NEWROUTE;
	nlh->nlmsg_seq = seq;
	rtm->rtm_family = AF_INET;
	return NLMSG_ALIGN(nlh->nlmsg_len);
}

static size_t put_link(char *buf)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct ifinfomsg *ifm = NLMSG_DATA(nlh);

	memset(buf, 0, NLMSG_SPACE(sizeof(*ifm)));
	nlh->nlmsg_len = (__u32)NLMSG_LENGTH(sizeof(*ifm));
	nlh->nlmsg_type = RTM_NEWLINK;
	ifm->ifi_index = 7;
	ifm->ifi_flags = 1; /* IFF_UP */
	return NLMSG_ALIGN(nlh->nlmsg_len);
}

static void send_dgram(struct pair *p, const void *buf, size_t len)
{
	assert_int_equal(sendto(p->tx, buf, len, 0, (struct sockaddr *)&p->to, sizeof(p->to)),
			 (ssize_t)len);
}

static void send_routes(struct pair *p, __u32 first, int n)
{
	char buf[256];

	for (int i = 0; i < n; i++)
		send_dgram(p, buf, put_route(buf, first + (__u32)i, 0));
}

static struct xfab_nl_handlers handlers(struct seen *s)
{
	struct xfab_nl_handlers h = {
	    .route = agent_on_route, .link = agent_on_link, .neigh = agent_on_neigh, .arg = s};

	return h;
}

/* More datagrams than one recvmmsg takes: every one, in order. */
static void test_many_in_order(void **state)
{
	struct pair *p = *state;
	struct seen *s = calloc(1, sizeof(*s));
	struct xfab_nl_handlers h = handlers(s);

	assert_int_equal(agent_nl_read_fd(p->rx, &h, 4096), 0); /* nothing queued */
	send_routes(p, 1, 300);
	assert_int_equal(agent_nl_read_fd(p->rx, &h, 4096), 0);
	assert_int_equal(s->n_routes, 300);
	for (int i = 0; i < 300; i++)
		assert_int_equal(s->seq[i], (__u32)i + 1);
	assert_int_equal(agent_nl_read_fd(p->rx, &h, 4096), 0);
	assert_int_equal(s->n_routes, 300);
	free(s);
}

/* At most budget datagrams a call (1: more may be pending); the rest stay
 * queued, and the next call goes on from there. */
static void test_budget(void **state)
{
	struct pair *p = *state;
	struct seen *s = calloc(1, sizeof(*s));
	struct xfab_nl_handlers h = handlers(s);

	send_routes(p, 1, 200);
	assert_int_equal(agent_nl_read_fd(p->rx, &h, 70), 1);
	assert_int_equal(s->n_routes, 70);
	assert_int_equal(agent_nl_read_fd(p->rx, &h, 128), 1); /* exactly 128 read */
	assert_int_equal(s->n_routes, 198);
	assert_int_equal(agent_nl_read_fd(p->rx, &h, 128), 0);
	assert_int_equal(s->n_routes, 200);
	for (int i = 0; i < 200; i++)
		assert_int_equal(s->seq[i], (__u32)i + 1);
	free(s);
}

/* A datagram of several messages (as a dump answer): each one, to its
 * handler. */
static void test_messages_in_a_datagram(void **state)
{
	struct pair *p = *state;
	struct seen *s = calloc(1, sizeof(*s));
	struct xfab_nl_handlers h = handlers(s);
	static char buf[4096];
	size_t off = 0;

	off += put_route(buf + off, 10, 0);
	off += put_link(buf + off);
	off += put_route(buf + off, 11, 100);
	off += put_route(buf + off, 12, 0);
	send_dgram(p, buf, off);
	send_routes(p, 13, 1);
	assert_int_equal(agent_nl_read_fd(p->rx, &h, 4096), 0);
	assert_int_equal(s->n_routes, 4);
	assert_int_equal(s->n_links, 1);
	assert_int_equal(s->n_neighs, 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(s->seq[i], (__u32)i + 10);
	free(s);
}

/* A datagram bigger than a slot is cut short: the events it held are lost
 * (-ENOBUFS: dump again), those around it are still applied. */
static void test_cut_short_is_lost(void **state)
{
	struct pair *p = *state;
	struct seen *s = calloc(1, sizeof(*s));
	struct xfab_nl_handlers h = handlers(s);
	size_t big = 96 * 1024;
	char *buf = malloc(big + 256);

	assert_non_null(buf);
	send_routes(p, 1, 3);
	send_dgram(p, buf, put_route(buf, 99, big));
	send_routes(p, 4, 3);
	assert_int_equal(agent_nl_read_fd(p->rx, &h, 4096), -ENOBUFS);
	assert_int_equal(s->n_routes, 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(s->seq[i], (__u32)i + 1);
	/* reported once: the next read is clean */
	send_routes(p, 7, 1);
	assert_int_equal(agent_nl_read_fd(p->rx, &h, 4096), 0);
	assert_int_equal(s->n_routes, 7);
	free(buf);
	free(s);
}

/* A datagram cut short as the last of n, for every n up to past twice any
 * vector the reader takes per call (64): a loss in a call that fills its
 * vector, the queue then empty, is reported too. */
static void test_cut_short_last(void **state)
{
	struct pair *p = *state;
	struct seen *s = calloc(1, sizeof(*s));
	struct xfab_nl_handlers h = handlers(s);
	size_t big = 96 * 1024, len;
	char *buf = malloc(big + 256);

	assert_non_null(s);
	assert_non_null(buf);
	len = put_route(buf, 99, big);
	for (int n = 1; n <= 2 * 64 + 2; n++) {
		s->n_routes = 0;
		send_routes(p, 1, n - 1);
		send_dgram(p, buf, len);
		assert_int_equal(agent_nl_read_fd(p->rx, &h, 4096), -ENOBUFS);
		assert_int_equal(s->n_routes, n - 1);
	}
	free(buf);
	free(s);
}

/* A socket error (not EAGAIN) comes back as -errno. */
static void test_error(void **state)
{
	struct seen *s = calloc(1, sizeof(*s));
	struct xfab_nl_handlers h = handlers(s);

	(void)state;
	assert_int_equal(agent_nl_read_fd(-1, &h, 64), -EBADF);
	assert_int_equal(s->n_routes, 0);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_many_in_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_budget, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_messages_in_a_datagram, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cut_short_is_lost, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cut_short_last, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_error, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
