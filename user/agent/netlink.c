// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE /* recvmmsg */
#include "netlink.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static int link_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, IFLA_MAX) < 0)
		return MNL_CB_OK;
	tb[type] = attr;
	return MNL_CB_OK;
}

static int neigh_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, NDA_MAX) < 0)
		return MNL_CB_OK;
	tb[type] = attr;
	return MNL_CB_OK;
}

static void handle_link(const struct nlmsghdr *nlh, const struct xfab_nl_handlers *h)
{
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[IFLA_MAX + 1] = {0};
	struct xfab_nl_link l = {0};

	mnl_attr_parse(nlh, sizeof(*ifm), link_attr_cb, tb);
	l.ifindex = (__u32)ifm->ifi_index;
	l.deleted = nlh->nlmsg_type == RTM_DELLINK;
	l.admin_up = !!(ifm->ifi_flags & IFF_UP);
	l.oper_up = l.admin_up && !!(ifm->ifi_flags & IFF_RUNNING);
	if (tb[IFLA_OPERSTATE]) {
		__u8 st = mnl_attr_get_u8(tb[IFLA_OPERSTATE]);

		l.oper_up = l.admin_up && (st == IF_OPER_UP || st == IF_OPER_UNKNOWN);
	}
	l.carrier = tb[IFLA_CARRIER] ? !!mnl_attr_get_u8(tb[IFLA_CARRIER]) : -1;
	l.dormant = tb[IFLA_LINKMODE] && mnl_attr_get_u8(tb[IFLA_LINKMODE]) == IF_LINK_MODE_DORMANT;
	l.carrier_downs = tb[IFLA_CARRIER_DOWN_COUNT]
			      ? (long long)mnl_attr_get_u32(tb[IFLA_CARRIER_DOWN_COUNT])
			      : -1;
	if (tb[IFLA_IFNAME])
		snprintf(l.name, sizeof(l.name), "%s", mnl_attr_get_str(tb[IFLA_IFNAME]));
	if (tb[IFLA_ADDRESS] && mnl_attr_get_payload_len(tb[IFLA_ADDRESS]) == 6) {
		memcpy(l.mac, mnl_attr_get_payload(tb[IFLA_ADDRESS]), 6);
		l.has_mac = 1;
	}
	if (h->link)
		h->link(h->arg, &l);
}

static void handle_neigh(const struct nlmsghdr *nlh, const struct xfab_nl_handlers *h)
{
	const struct ndmsg *ndm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[NDA_MAX + 1] = {0};
	struct xfab_nl_neigh n = {0};
	size_t alen;

	if (ndm->ndm_family != AF_INET && ndm->ndm_family != AF_INET6)
		return;
	mnl_attr_parse(nlh, sizeof(*ndm), neigh_attr_cb, tb);
	if (!tb[NDA_DST])
		return;
	alen = mnl_attr_get_payload_len(tb[NDA_DST]);
	if (alen != (ndm->ndm_family == AF_INET ? 4u : 16u))
		return;
	n.ifindex = (__u32)ndm->ndm_ifindex;
	n.family = ndm->ndm_family;
	memcpy(n.addr, mnl_attr_get_payload(tb[NDA_DST]), alen);
	n.deleted = nlh->nlmsg_type == RTM_DELNEIGH;
	if (tb[NDA_LLADDR] && mnl_attr_get_payload_len(tb[NDA_LLADDR]) == 6) {
		memcpy(n.mac, mnl_attr_get_payload(tb[NDA_LLADDR]), 6);
		n.usable = !(ndm->ndm_state & (NUD_FAILED | NUD_INCOMPLETE | NUD_NONE));
	}
	if (h->neigh)
		h->neigh(h->arg, &n);
}

static int msg_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct xfab_nl_handlers *h = data;

	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		handle_link(nlh, h);
		break;
	case RTM_NEWNEIGH:
	case RTM_DELNEIGH:
		handle_neigh(nlh, h);
		break;
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
	case RTM_NEWNEXTHOP:
	case RTM_DELNEXTHOP:
		if (h->route)
			h->route(h->arg, nlh);
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

/* Big enough for the kernel's largest dump batch (32 KB). */
#define DUMP_BUF ((size_t)64 * 1024)

static int dump(int type, int family, const struct xfab_nl_handlers *h)
{
	char *buf = malloc(DUMP_BUF);
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	unsigned int seq = (unsigned int)time(NULL), portid;
	ssize_t len;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl) {
		ret = -errno;
		free(buf);
		return ret;
	}
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = (__u16)type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	if (type == RTM_GETLINK) {
		struct ifinfomsg *ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));

		ifm->ifi_family = AF_UNSPEC;
	} else if (type == RTM_GETROUTE) {
		struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));

		rtm->rtm_family = (__u8)family;
	} else if (type == RTM_GETNEXTHOP) {
		struct nhmsg *nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));

		nhm->nh_family = (__u8)family;
	} else {
		struct ndmsg *ndm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndm));

		ndm->ndm_family = (__u8)family;
	}
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	while ((len = mnl_socket_recvfrom(nl, buf, DUMP_BUF)) > 0) {
		ret = mnl_cb_run(buf, (size_t)len, seq, portid, msg_cb, (void *)h);
		if (ret <= MNL_CB_STOP)
			break;
	}
	ret = ret < 0 || len < 0 ? -errno : 0;
out:
	mnl_socket_close(nl);
	free(buf);
	return ret;
}

int agent_nl_dump_links(const struct xfab_nl_handlers *h)
{
	return dump(RTM_GETLINK, AF_UNSPEC, h);
}

int agent_nl_dump_neighs(const struct xfab_nl_handlers *h)
{
	return dump(RTM_GETNEIGH, AF_UNSPEC, h);
}

int agent_nl_dump_routes(const struct xfab_nl_handlers *h)
{
	int err = dump(RTM_GETNEXTHOP, AF_UNSPEC, h);

	/* a kernel without nexthop objects refuses the dump */
	if (err && err != -EOPNOTSUPP && err != -EINVAL && err != -EAFNOSUPPORT)
		return err;
	err = dump(RTM_GETROUTE, AF_INET, h);
	if (!err)
		err = dump(RTM_GETROUTE, AF_INET6, h);
	return err;
}

struct mnl_socket *agent_nl_open_events(int routes, int rcvbuf)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	unsigned int groups = RTMGRP_LINK | RTMGRP_NEIGH;
	int fd, size = rcvbuf > 0 ? rcvbuf : XFAB_NL_RCVBUF, grp = RTNLGRP_NEXTHOP;

	if (!nl)
		return NULL;
	if (routes)
		groups |= RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
	if (mnl_socket_bind(nl, groups, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	fd = mnl_socket_get_fd(nl);
	if (routes) {
		/* past rmem_max when allowed (root), else as much as it gives */
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
		/* nexthop objects have no RTMGRP_ bit */
		if (mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)) < 0)
			goto fail;
	}
	return nl;
fail:
	mnl_socket_close(nl);
	return NULL;
}

/* A multicast event is one datagram holding one message, so a recvmsg per
 * datagram costs a system call per route: recvmmsg takes up to EV_VLEN at
 * once, each into its own slot (as big as a dump's buffer: no event is
 * cut short). The slots are touched only as far as the kernel writes. */
#define EV_VLEN 64
#define EV_SLOT DUMP_BUF

int agent_nl_read_fd(int fd, const struct xfab_nl_handlers *h, int budget)
{
	static char slots[EV_VLEN][EV_SLOT];
	struct mmsghdr msgs[EV_VLEN];
	struct iovec iov[EV_VLEN];
	int read = 0, lost = 0;

	while (read < budget) {
		unsigned int want =
		    (unsigned int)(budget - read < EV_VLEN ? budget - read : EV_VLEN);
		int got;

		memset(msgs, 0, sizeof(msgs[0]) * want);
		for (unsigned int i = 0; i < want; i++) {
			iov[i].iov_base = slots[i];
			iov[i].iov_len = EV_SLOT;
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		got = recvmmsg(fd, msgs, want, MSG_DONTWAIT, NULL);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return lost ? -ENOBUFS : 0;
			return -errno;
		}
		for (int i = 0; i < got; i++) {
			/* a message cut short is an event lost: dump again */
			if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
				lost = 1;
				continue;
			}
			mnl_cb_run(slots[i], msgs[i].msg_len, 0, 0, msg_cb, (void *)h);
		}
		read += got;
		if ((unsigned int)got < want)
			return lost ? -ENOBUFS : 0;
	}
	return lost ? -ENOBUFS : 1;
}

int agent_nl_read_events(struct mnl_socket *nl, const struct xfab_nl_handlers *h)
{
	return agent_nl_read_fd(mnl_socket_get_fd(nl), h, XFAB_NL_READ_BUDGET);
}

/* RTM_SETLINK with the link mode and, to leave dormancy, the operstate
 * (the kernel's set_operstate moves dormant to up only when asked), and
 * the kernel's acknowledgement. */
int agent_nl_set_dormant(__u32 ifindex, int on)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned int seq = (unsigned int)time(NULL), portid;
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	ssize_t len;
	int ret = 0;

	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_SETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = (int)ifindex;
	mnl_attr_put_u8(nlh, IFLA_LINKMODE, on ? IF_LINK_MODE_DORMANT : IF_LINK_MODE_DEFAULT);
	mnl_attr_put_u8(nlh, IFLA_OPERSTATE, on ? IF_OPER_DORMANT : IF_OPER_UP);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (len < 0 || mnl_cb_run(buf, (size_t)len, seq, portid, NULL, NULL) < 0)
		ret = -errno; /* the kernel's answer: an error, or its NLMSG_ERROR */
out:
	mnl_socket_close(nl);
	return ret;
}

int agent_nl_fd(struct mnl_socket *nl)
{
	return mnl_socket_get_fd(nl);
}

void agent_nl_close(struct mnl_socket *nl)
{
	if (nl)
		mnl_socket_close(nl);
}
