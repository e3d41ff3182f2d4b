/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* rtnetlink (libmnl): links and neighbours, and (FIB_SYNC) nexthop objects
 * and routes, as dumps and as events. */
#ifndef XFAB_NL_H
#define XFAB_NL_H

#include <linux/types.h>
#include <net/if.h>

struct xfab_nl_link {
	__u32 ifindex;
	char name[IF_NAMESIZE];
	__u8 mac[6];
	int has_mac;
	int admin_up;		 /* IFF_UP */
	int oper_up;		 /* IFF_RUNNING / IF_OPER_UP */
	int carrier;		 /* IFLA_CARRIER: 1 on, 0 off, -1 not said */
	int dormant;		 /* IFLA_LINKMODE is dormant (link event damping holds it) */
	long long carrier_downs; /* IFLA_CARRIER_DOWN_COUNT (carrier losses); -1 not said */
	int deleted;
};

struct xfab_nl_neigh {
	__u32 ifindex;
	int family;
	__u8 addr[16];
	__u8 mac[6];
	int usable; /* has a MAC and a state that forwards (not FAILED/INCOMPLETE) */
	int deleted;
};

struct nlmsghdr;

struct xfab_nl_handlers {
	void (*link)(void *arg, const struct xfab_nl_link *l);
	void (*neigh)(void *arg, const struct xfab_nl_neigh *n);
	/* RTM_NEWROUTE/DELROUTE/NEWNEXTHOP/DELNEXTHOP, as received (nlroute.h
	 * decodes them) */
	void (*route)(void *arg, const struct nlmsghdr *nlh);
	void *arg;
};

struct mnl_socket;

/* The receive buffer of the event socket: a full table's worth of events
 * (a kernel default of ~200 KB overflows on a large feed). */
#define XFAB_NL_RCVBUF (64 << 20)

/* Event socket subscribed to link and neighbour changes, and with routes
 * set to IPv4 and IPv6 routes and nexthop objects too, with a receive
 * buffer of rcvbuf bytes (0: XFAB_NL_RCVBUF). */
struct mnl_socket *agent_nl_open_events(int routes, int rcvbuf);
/* One-shot dumps on their own socket. */
int agent_nl_dump_links(const struct xfab_nl_handlers *h);
int agent_nl_dump_neighs(const struct xfab_nl_handlers *h);
/* Nexthop objects, then IPv4 and IPv6 routes (a kernel without nexthop
 * objects has none to dump). */
int agent_nl_dump_routes(const struct xfab_nl_handlers *h);
/* Reads what is pending on an event socket (non-blocking), at most
 * XFAB_NL_READ_BUDGET datagrams (events), many per system call: 0 all
 * read, 1 more may be pending (the caller writes what it has, then reads
 * on), -errno (-ENOBUFS: events were lost, or one was cut short: dump
 * again). */
#define XFAB_NL_READ_BUDGET 4096
int agent_nl_read_events(struct mnl_socket *nl, const struct xfab_nl_handlers *h);
/* The same from any datagram socket (fd), at most budget datagrams. */
int agent_nl_read_fd(int fd, const struct xfab_nl_handlers *h, int budget);
int agent_nl_fd(struct mnl_socket *nl);
/* Link event damping's hold (docs/OPERATIONS.md): on, the device's link
 * mode becomes dormant, so the kernel keeps it out of operation (no
 * IFF_RUNNING) whatever its carrier: the routing daemon sees it down and
 * holds its sessions down. Off: the default mode again, and dormant ->
 * up. 0 or -errno. */
int agent_nl_set_dormant(__u32 ifindex, int on);
void agent_nl_close(struct mnl_socket *nl);

#endif
