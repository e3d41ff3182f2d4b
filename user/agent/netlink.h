/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* rtnetlink (libmnl): links and neighbours, as dumps and as events. */
#ifndef XFAB_NL_H
#define XFAB_NL_H

#include <linux/types.h>
#include <net/if.h>

struct xfab_nl_link {
	__u32 ifindex;
	char name[IF_NAMESIZE];
	__u8 mac[6];
	int has_mac;
	int admin_up; /* IFF_UP */
	int oper_up;  /* IFF_RUNNING / IF_OPER_UP */
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

struct xfab_nl_handlers {
	void (*link)(void *arg, const struct xfab_nl_link *l);
	void (*neigh)(void *arg, const struct xfab_nl_neigh *n);
	void *arg;
};

struct mnl_socket;

/* Event socket subscribed to link and neighbour changes. */
struct mnl_socket *xfab_nl_open_events(void);
/* One-shot dumps on their own socket. */
int xfab_nl_dump_links(const struct xfab_nl_handlers *h);
int xfab_nl_dump_neighs(const struct xfab_nl_handlers *h);
/* Reads what is pending on an event socket (non-blocking). */
int xfab_nl_read_events(struct mnl_socket *nl, const struct xfab_nl_handlers *h);
int xfab_nl_fd(struct mnl_socket *nl);
void xfab_nl_close(struct mnl_socket *nl);

#endif
