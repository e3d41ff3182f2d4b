/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel FIB, as rtnetlink tells it, mirrored into the RIB (rib.h).
 *
 * Two halves (nlroute.c and nlsync.c):
 *   - xfab_nl_decode: one rtnetlink message (RTM_NEWROUTE, RTM_DELROUTE,
 *     RTM_NEWNEXTHOP, RTM_DELNEXTHOP; IPv4 and IPv6) into a struct
 *     xfab_nl_change, through a filter (table, protocols). What a switch must
 *     not program is skipped with a reason (local/broadcast/multicast/anycast
 *     routes, table 255, cloned routes, link-local, loopback and multicast
 *     destinations, source or TOS routes); a malformed message is refused
 *     with a reason (truncated attribute, a prefix length beyond the family,
 *     a multipath entry running past its attribute, an address of the wrong
 *     size, a weight beyond 65535, a group naming a member twice...).
 *   - struct xfab_nlsync: applies decoded changes to the RIB as source
 *     XFAB_RIB_SRC_NETLINK. It keeps the kernel's nexthop objects (id ->
 *     gateway and device, group -> weighted member ids), so a route carrying
 *     only RTA_NH_ID resolves (nexthop_compat_mode=0) and a route carrying
 *     both RTA_NH_ID and the expanded nexthops (compat mode) follows the
 *     object. A kernel group is one RIB path of its own (xfab_rib_path_new):
 *     a change of its members rewrites that group's entry and nothing else.
 *
 * What the kernel does not say (frr-lab.md §2): when a link goes down it
 * removes the nexthop objects on it, prunes them from groups and drops the
 * IPv4 routes through them, with no message. xfab_nlsync_link_down does
 * the same to the mirror: every netlink nexthop on that ifindex goes, a
 * route left with none is withdrawn. Link up restores nothing: the routing
 * daemon re-installs what it still wants, and those messages restore it.
 *
 * Precedence (rib.h orders sources): CONNECTED < CONFIG < NETLINK, the
 * lowest present wins. An interface's own subnet and addresses cannot be
 * overridden by what a daemon installs; a route in the config is the
 * operator's explicit intent and wins over a learnt route for the same
 * prefix (as VPP's linux-cp keeps a route source FRR cannot override);
 * when the config route goes, the learnt one is programmed again.
 *
 * Port mapping: a nexthop's ifindex becomes a config port index through a
 * callback. Nexthops on other devices (management, loopback, a host's
 * bridge) cannot be programmed: they are dropped from a route (counted),
 * and a route left with none is not in the RIB (counted as foreign).
 *
 * One route per (table, prefix): a route added for a prefix replaces what
 * the mirror held (zebra installs one per prefix; IPv6 replaces arrive as
 * RTM_DELROUTE + RTM_NEWROUTE and work as such); a RTM_DELROUTE removes it
 * only if its protocol and metric match the one held.
 */
#ifndef XFAB_NLROUTE_H
#define XFAB_NLROUTE_H

#include <linux/netlink.h>
#include <linux/types.h>
#include <stddef.h>

#include "rib.h"

/* ---- decoding ---- */

enum xfab_nl_kind {
	XFAB_NL_SKIP,	     /* nothing to do (why says what was skipped) */
	XFAB_NL_ROUTE_ADD,   /* RTM_NEWROUTE: add or replace */
	XFAB_NL_ROUTE_DEL,   /* RTM_DELROUTE */
	XFAB_NL_NEXTHOP_ADD, /* RTM_NEWNEXTHOP: add or replace */
	XFAB_NL_NEXTHOP_DEL, /* RTM_DELNEXTHOP */
};

#define XFAB_NL_MAX_HOPS XFAB_GROUP_MAX_MEMBERS

/* One nexthop of a route (RTA_MULTIPATH entry, or RTA_GATEWAY / RTA_VIA
 * with RTA_OIF). */
struct xfab_nl_hop {
	__u32 ifindex;
	__u8 gw_family; /* AF_INET, AF_INET6 (also for an IPv4 route: RFC 5549
			 * RTA_VIA), 0: no gateway (on-link, a direct route) */
	__u8 flags;	/* RTNH_F_* (ONLINK, LINKDOWN; DEAD hops are dropped) */
	__u16 weight;	/* rtnh_hops + 1: 1..256 */
	__u8 gw[16];
};

struct xfab_nl_route {
	__u32 table;	/* RTA_TABLE, else rtm_table */
	__u32 priority; /* RTA_PRIORITY (metric), 0 if absent */
	__u32 nh_id;	/* RTA_NH_ID, 0 if absent */
	__u8 family;	/* AF_INET / AF_INET6 */
	__u8 plen;
	__u8 protocol;	/* rtm_protocol: 186 bgp, 4 static, 2 kernel... */
	__u8 blackhole; /* RTN_BLACKHOLE, RTN_UNREACHABLE, RTN_PROHIBIT: dropped */
	__u8 dst[16];	/* masked to plen */
	int n_hops;	/* expanded nexthops (may be 0 with nh_id) */
	int dead_hops;	/* RTNH_F_DEAD hops left out */
	struct xfab_nl_hop hops[XFAB_NL_MAX_HOPS];
};

struct xfab_nl_nh_member {
	__u32 id;
	__u32 weight; /* 1..65535 */
};

struct xfab_nl_nexthop {
	__u32 id;	/* NHA_ID, never 0 */
	__u32 ifindex;	/* NHA_OIF, 0 if none */
	__u8 family;	/* nh_family; AF_UNSPEC for a group */
	__u8 protocol;	/* nh_protocol (11 zebra) */
	__u8 blackhole; /* NHA_BLACKHOLE */
	__u8 gw_family; /* family of gw, 0 if no NHA_GATEWAY */
	__u8 gw[16];
	__u16 group_type; /* NHA_GROUP_TYPE: 0 multipath, 1 resilient */
	int n_members;	  /* > 0: a group (NHA_GROUP) */
	struct xfab_nl_nh_member members[XFAB_NL_MAX_HOPS];
};

struct xfab_nl_change {
	int kind; /* enum xfab_nl_kind */
	union {
		struct xfab_nl_route route;
		struct xfab_nl_nexthop nh;
	};
	char why[96]; /* XFAB_NL_SKIP or an error: why */
};

/* Which routes to mirror: one table, a set of protocols. */
struct xfab_nl_filter {
	__u32 table;	   /* 254: main */
	__u8 protocol[32]; /* bit p: rtm_protocol p accepted */
};

/* table 254 and protocol bgp. */
void xfab_nl_filter_default(struct xfab_nl_filter *f);
/* protocols: a comma-separated list of names as iproute2 spells them in
 * rt_protos (bgp, static, kernel, zebra, ospf, isis, ...) or numbers
 * 0..255. 0, or -EINVAL with the offending word in err (f unchanged). */
int xfab_nl_filter_protocols(struct xfab_nl_filter *f, const char *protocols, char *err,
			     size_t errlen);
/* A protocol's name ("bgp", "186" if unnamed) into buf. */
const char *xfab_nl_protocol_name(__u8 protocol, char *buf, size_t len);

/* Decodes the message at nlh (nlh->nlmsg_len bytes). 1: a change in *out;
 * 0: skipped (out->kind XFAB_NL_SKIP, out->why says why: filtered, not
 * programmable, another message type); -EINVAL: malformed (out->why says
 * where). f NULL: xfab_nl_filter_default. */
int xfab_nl_decode(const struct nlmsghdr *nlh, const struct xfab_nl_filter *f,
		   struct xfab_nl_change *out);

/* ---- the mirror ---- */

/* The config port index of ifindex, or < 0 if it is not a switch port. */
typedef int (*xfab_nl_port_fn)(void *arg, __u32 ifindex);

struct xfab_nlsync_stats {
	size_t routes;	       /* routes held (including unresolved and foreign) */
	size_t nexthops;       /* nexthop objects held */
	size_t applied;	       /* changes applied */
	size_t foreign;	       /* routes not in the RIB: no nexthop on a switch port */
	size_t unresolved;     /* routes not in the RIB: RTA_NH_ID unknown (yet) */
	size_t hops_dropped;   /* nexthops left out: not on a switch port, no gateway
				* in a multipath set */
	size_t link_withdrawn; /* nexthops withdrawn by xfab_nlsync_link_down */
	size_t link_kept;      /* routes it left dead for the caller's keep */
	size_t stale_deletes;  /* RTM_DELROUTE for another protocol/metric or unknown */
	size_t resyncs;	       /* xfab_nlsync_mark calls */
	size_t swept_routes;   /* routes a resync found gone */
	size_t swept_nexthops; /* nexthop objects a resync found gone */
};

struct xfab_nlsync;

/* The mirror of one kernel table into rib. NULL: -ENOMEM. */
struct xfab_nlsync *xfab_nlsync_new(struct xfab_rib *rib, xfab_nl_port_fn port_of, void *arg);
/* Frees the mirror (its RIB entries stay); after xfab_compile_free, before
 * xfab_rib_free. */
void xfab_nlsync_free(struct xfab_nlsync *s);

/* Applies one decoded change (XFAB_NL_SKIP: nothing). 0 or -ENOMEM /
 * -EINVAL from the RIB (what the RIB refused is not held). Then
 * xfab_compile_routes writes what it implies. */
int xfab_nlsync_apply(struct xfab_nlsync *s, const struct xfab_nl_change *ch);

/* A route (family, plen, dst, priority, protocol set) that a link down
 * leaves with no nexthop: 1 keeps it in the RIB as it is, its members dead,
 * and the caller withdraws it later with an XFAB_NL_ROUTE_DEL (LOCAL_REPAIR
 * bounces its packets meanwhile); 0 lets it go. */
typedef int (*xfab_nl_keep_fn)(void *arg, const struct xfab_nl_route *r);

/* The link ifindex went down: as the kernel does without telling, its
 * nexthop objects go (and leave their groups), and every route's nexthops on
 * it go; a route left with none is withdrawn, unless keep (may be NULL)
 * keeps it. Routes through nexthop objects are never kept. */
int xfab_nlsync_link_down(struct xfab_nlsync *s, __u32 ifindex, xfab_nl_keep_fn keep, void *arg);

/* A resync after lost events (ENOBUFS), mark and sweep: mark, apply a
 * fresh dump (nexthops, then routes), sweep. What the dump repeats changes
 * nothing in the RIB (no table flap); the sweep removes every route and
 * nexthop object the dump did not name. Compile after the sweep. */
void xfab_nlsync_mark(struct xfab_nlsync *s);
int xfab_nlsync_sweep(struct xfab_nlsync *s);

/* The routes that use nexthop object id, directly or through a group that
 * has it as a member (each once): fn per route, in no order. The number of
 * routes. */
size_t xfab_nlsync_users(const struct xfab_nlsync *s, __u32 id,
			 void (*fn)(void *arg, const struct xfab_rib_key *key), void *arg);

void xfab_nlsync_stats(const struct xfab_nlsync *s, struct xfab_nlsync_stats *out);

#endif
