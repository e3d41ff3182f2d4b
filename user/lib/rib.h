/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The RIB: what the agent was told, by whom. Each prefix of a table (the
 * default table, or the TE table of an ingress port) holds one entry per
 * source: the interface addresses (connected subnets and local addresses),
 * the config (ROUTE and TE_PATH), xfabd's runtime TE pins (control
 * requests, docs/CONTROL.md), later routes learnt over netlink. The best
 * entry is the one of the lowest source: a config TE_PATH entry wins over a
 * runtime pin of the same port and prefix.
 *
 * Paths (the weighted nexthops of a route) are interned: routes with the
 * same nexthops share one ref-counted path object, so a million routes over
 * a few ECMP sets cost a few paths, and user/lib/compile.c hangs one group
 * off each.
 *
 * A path can also be one of its own (xfab_rib_path_new), not shared by
 * content: a kernel nexthop group (user/lib/nlroute.h). Its members change
 * in place (xfab_rib_path_set) and compile.c always makes it a group (one
 * member included), so such a change rewrites that group only, never the
 * routes through it.
 *
 * A change marks its prefix dirty (or its own path changed); user/lib/
 * compile.c takes them and writes what they imply. The RIB never talks to
 * the kernel.
 *
 * Precedence: the lowest source present wins. CONNECTED (an interface's
 * subnet and addresses) over CONFIG (the operator's explicit routes) over
 * NETLINK (what a routing daemon installed in the kernel): a learnt route
 * never hides an attached subnet or a configured route, and comes back into
 * use when the configured one goes.
 */
#ifndef XFAB_RIB_H
#define XFAB_RIB_H

#include <linux/types.h>
#include <stddef.h>

#include "config.h"

enum xfab_rib_source {
	XFAB_RIB_SRC_CONNECTED, /* interface addresses */
	XFAB_RIB_SRC_CONFIG,	/* ROUTE, TE_PATH */
	XFAB_RIB_SRC_TE_PIN,	/* runtime TE pins (a config reload keeps them) */
	XFAB_RIB_SRC_NETLINK,	/* learnt from the kernel */
	XFAB_RIB_SRC_COUNT,
};

enum xfab_rib_type {
	XFAB_RIB_BLACKHOLE,
	XFAB_RIB_LOCAL,	    /* one of our addresses */
	XFAB_RIB_CONNECTED, /* an attached subnet, on port */
	XFAB_RIB_PATH,	    /* one or more weighted nexthops */
	XFAB_RIB_TUNNEL,    /* a VNET's tunnel route: port = index of the config's tunnels */
};

/* Table of a key: 0 is the default table; a TE table is keyed by the index
 * (in the config) of its ingress port, as compile maps it to an ifindex. */
#define XFAB_RIB_TABLE_TE 0x80000000u
/* LOCAL_REPAIR's bounce group: 0.0.0.0/0 and ::/0 of this table */
#define XFAB_RIB_TABLE_REPAIR 0x40000000u
/* a tenant's table: XFAB_RIB_TABLE_VNET | VNET id (docs/OVERLAY.md) */
#define XFAB_RIB_TABLE_VNET 0x20000000u

struct xfab_rib_key {
	__u32 table; /* 0 or XFAB_RIB_TABLE_TE | port index */
	__u8 family; /* AF_INET / AF_INET6 */
	__u8 plen;
	__u16 pad;
	__u8 addr[16]; /* masked to plen */
};

struct xfab_rib_member {
	__u16 port; /* index into the config's ports */
	__u8 family;
	__u8 pad;
	__u16 weight; /* >= 1 */
	__u16 pad2;
	__u8 gw[16];
};

struct xfab_rib_path {
	struct xfab_rib_path *hnext;
	__u32 refs;
	__u32 hash;
	void *compiled; /* owned by compile.c: the group made of this path */
	int n;
	__u8 own;		    /* xfab_rib_path_new: not shared by content, always a group */
	__u8 changed;		    /* own: on the list of changed paths */
	struct xfab_rib_member m[]; /* sorted by port, family, gw */
};

struct xfab_rib_entry {
	struct xfab_rib_entry *next; /* by source, lowest first */
	struct xfab_rib_path *path;  /* XFAB_RIB_PATH only */
	__u32 gen;		     /* config load that last set it */
	__u8 source;		     /* enum xfab_rib_source */
	__u8 type;		     /* enum xfab_rib_type */
	__u16 port;		     /* XFAB_RIB_CONNECTED */
	__u8 protocol;		     /* XFAB_RIB_SRC_NETLINK: the rtm_protocol */
};

struct xfab_rib_node {
	struct xfab_rib_key key;
	struct xfab_rib_node *hnext;
	struct xfab_rib_entry *entries; /* NULL: nothing left, compile removes it */
	/* What compile.c installed for this prefix (owned by it). */
	__u32 inst_table; /* map table id */
	__u32 inst_id;
	__u8 inst_type;			 /* enum xfab_route_type; 0: nothing installed */
	__u8 inst_source, inst_protocol; /* what the map entry says of its origin */
	__u8 dirty;
	__u8 inst_lent; /* installed on the group of another path (compile.c) */
};

struct xfab_rib;

struct xfab_rib *xfab_rib_new(void);
void xfab_rib_free(struct xfab_rib *rib);

/* Adds or replaces source's entry at key (members: n of them for a PATH,
 * in any order; copied). 0, -EINVAL or -ENOMEM (nothing changed). */
int xfab_rib_add(struct xfab_rib *rib, const struct xfab_rib_key *key, int source, int type,
		 int port, const struct xfab_rib_member *m, int n);
/* Records the routing protocol of source's entry at key (a kernel route's
 * rtm_protocol: shown, never compared); the prefix is written again if it
 * changed. 0, or -ENOENT without such an entry. */
int xfab_rib_set_protocol(struct xfab_rib *rib, const struct xfab_rib_key *key, int source,
			  __u8 protocol);
/* Removes source's entry at key (nothing if absent). */
void xfab_rib_del(struct xfab_rib *rib, const struct xfab_rib_key *key, int source);

/* The members of a config route's next hops (m holds
 * XFAB_GROUP_MAX_MEMBERS; an unset weight is 1): their count, or -EINVAL
 * when r is NULL or has none or too many. */
int xfab_rib_members_of(const struct xfab_cfg_route *r, struct xfab_rib_member *m);

/* Makes the CONNECTED and CONFIG entries exactly what cfg says: a diff
 * against what the previous load gave, so only prefixes whose entries
 * changed become dirty. -ENOMEM leaves a mix (the next load repairs it). */
int xfab_rib_load_config(struct xfab_rib *rib, const struct xfab_config *cfg);

/* The best entry of a node, NULL if none. */
const struct xfab_rib_entry *xfab_rib_best(const struct xfab_rib_node *node);
struct xfab_rib_node *xfab_rib_find(const struct xfab_rib *rib, const struct xfab_rib_key *key);
/* The entry source holds for key, NULL if none. */
const struct xfab_rib_entry *xfab_rib_entry_of(const struct xfab_rib *rib,
					       const struct xfab_rib_key *key, int source);

/* Dirty prefixes, oldest first: take them all (the caller marks again what
 * it could not finish). */
size_t xfab_rib_take_dirty(struct xfab_rib *rib, struct xfab_rib_node ***nodes);
int xfab_rib_mark_dirty(struct xfab_rib *rib, struct xfab_rib_node *node);
void xfab_rib_mark_all_dirty(struct xfab_rib *rib);
/* Calls fn on every prefix (fn may mark it dirty, nothing else). */
void xfab_rib_foreach(struct xfab_rib *rib, void (*fn)(void *arg, struct xfab_rib_node *node),
		      void *arg);
/* Frees a node that has no entry and nothing installed. */
void xfab_rib_node_gc(struct xfab_rib *rib, struct xfab_rib_node *node);

size_t xfab_rib_count(const struct xfab_rib *rib);
size_t xfab_rib_paths(const struct xfab_rib *rib);

void xfab_rib_path_get(struct xfab_rib_path *p);
void xfab_rib_path_put(struct xfab_rib *rib, struct xfab_rib_path *p);

/* A path of its own, with n (1..XFAB_GROUP_MAX_MEMBERS) members and a
 * reference for the caller; NULL: -EINVAL or -ENOMEM. */
struct xfab_rib_path *xfab_rib_path_new(struct xfab_rib *rib, const struct xfab_rib_member *m,
					int n);
/* Replaces the members of an own path (n >= 1) in place: the routes through
 * it stay as they are, compile.c rewrites its group. 0 or -EINVAL. */
int xfab_rib_path_set(struct xfab_rib *rib, struct xfab_rib_path *p,
		      const struct xfab_rib_member *m, int n);
/* Adds or replaces source's entry at key with path p (a PATH entry; the
 * entry takes its own reference). 0 or -ENOMEM. */
int xfab_rib_add_path(struct xfab_rib *rib, const struct xfab_rib_key *key, int source,
		      struct xfab_rib_path *p);
/* The own paths whose members changed, each with a reference the caller
 * puts (compile.c). */
size_t xfab_rib_take_paths(struct xfab_rib *rib, struct xfab_rib_path ***paths);

/* A key from a prefix (masked here). */
void xfab_rib_key_of(struct xfab_rib_key *key, __u32 table, const struct xfab_prefix *pfx);

#endif
