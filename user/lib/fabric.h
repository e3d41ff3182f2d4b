/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A fabric as the tools that work across it see it: its switches (tier,
 * network namespace, pin directory, control socket, ports with their peer
 * and direction), its hosts and its links. Read from the JSON `xfab-lab up`
 * writes to /run/xfab-lab/LAB/fabric.json (`xfab-lab config TOPO fabric`
 * prints the same), checked for what the tools rely on: every peer exists
 * and names this port back, a port's direction agrees with the tiers, a
 * host's leaf and port agree with the port naming it, hosts' addresses are
 * distinct and a subnet is on one leaf; what one tool alone needs is
 * checked when it asks (XFAB_FAB_CHECK_*). This is the one reader: the
 * TE controller builds its model from it (te_fabric.c).
 *
 * What is worked out over it, with no BPF and no I/O (unit-tested):
 *  - which end counts each direction of a link (xfab_fab_link_counter);
 *  - ECMP imbalance, max/mean of what a switch sends or receives over its
 *    links to the tier above (xfab_imbalance, xfab_fab_tier_imbalance);
 *  - the path a flow takes, switch by switch, from each switch's own
 *    decision (a callback: `xfabctl fabric report` traces the flow through
 *    the switch's loaded program; the tests stub it) (xfab_fab_walk).
 */
#ifndef XFAB_FABRIC_H
#define XFAB_FABRIC_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#define XFAB_FAB_MAX_SWITCHES 256
#define XFAB_FAB_MAX_HOSTS 4096
#define XFAB_FAB_MAX_PORTS 64 /* a switch's, as XFAB_MAX_PORTS */
#define XFAB_FAB_MAX_HOPS 16  /* a path longer than this is a loop */
#define XFAB_FAB_STATE_ROOT "/run/xfab-lab"

/* Directions: up is from the lower tier to the upper (a leaf to a spine, a
 * host to its leaf), down the other way. */
enum xfab_fab_dir { XFAB_FAB_UP = 0, XFAB_FAB_DOWN = 1 };

struct xfab_fab_port {
	char name[16];
	char peer[32];
	char peer_port[16];
	enum xfab_fab_dir dir; /* the way traffic leaving by this port goes */
	int peer_sw;	       /* switch index of the peer, -1 for a host */
	int peer_sw_port;      /* the peer's port index, -1 for a host */
	int peer_host;	       /* host index of the peer, -1 for a switch */
	int link;	       /* index into links; -1 when the file has none */
	struct in_addr addr;   /* this end's IPv4 address; 0: none */
	int plen;	       /* its prefix length */
	uint32_t speed_mbps;   /* 0: not given */
};

struct xfab_fab_switch {
	char name[32];
	char role[16];
	int tier; /* 1 leaf, 2 spine, 3 super-spine */
	char netns[64];
	char pins[256];
	char ctl[256];
	unsigned int n_ports;
	struct xfab_fab_port ports[XFAB_FAB_MAX_PORTS];
};

struct xfab_fab_host {
	char name[32];
	int leaf, leaf_port; /* switch and port index */
	struct in_addr addr;
	int plen; /* its subnet's length, 1..32 */
	char netns[64];
};

/* A cable. The lower end is a switch (lower_port its port) or a host
 * (lower_host, lower_port -1). */
struct xfab_fab_link {
	int upper, upper_port;
	int lower, lower_port, lower_host;
	char kind[32]; /* "spine-leaf", "super-spine", "leaf-host" */
};

struct xfab_fabric {
	char name[64];
	unsigned int n_switches, n_hosts, n_links;
	struct xfab_fab_switch *switches;
	struct xfab_fab_host *hosts;
	struct xfab_fab_link *links;
};

/* What a tool needs beyond what every reader is checked for. */
enum xfab_fab_checks {
	/* the fabric report: switches name their netns and pins, and the
	 * "links" list holds every switch port once */
	XFAB_FAB_CHECK_REPORT = 1u << 0,
	/* TE: every switch-switch port has an IPv4 address (the pins' next
	 * hops are the peer's) */
	XFAB_FAB_CHECK_GATEWAYS = 1u << 1,
};

/* Parses a fabric with the checks named (XFAB_FAB_CHECK_*); on error
 * returns -1 with "line:col: where: what" in err (where:
 * "switches.leaf1.ports.eth1.peer", "links[3].upper", ...) and nothing
 * allocated. xfab_fabric_free() frees a parsed one. */
int xfab_fabric_parse_checked(const char *text, unsigned int checks, struct xfab_fabric *f,
			      char *err, size_t errlen);
/* As the fabric report reads it (XFAB_FAB_CHECK_REPORT). */
int xfab_fabric_parse(const char *text, struct xfab_fabric *f, char *err, size_t errlen);
/* Reads and parses path; err starts with the path. */
int xfab_fabric_load(const char *path, struct xfab_fabric *f, char *err, size_t errlen);
void xfab_fabric_free(struct xfab_fabric *f);

/* Index, or -1. */
int xfab_fab_switch_find(const struct xfab_fabric *f, const char *name);
int xfab_fab_port_find(const struct xfab_fab_switch *sw, const char *name);
int xfab_fab_host_find(const struct xfab_fabric *f, const char *name);
int xfab_fab_host_by_addr(const struct xfab_fabric *f, struct in_addr addr);

/*
 * Which counter measures direction dir of a link: the port traffic leaves
 * by, its tx counter (*rx = 0). A host's traffic up to its leaf has no
 * switch to send it: the leaf's port counts it as received (*rx = 1).
 */
void xfab_fab_link_counter(const struct xfab_fabric *f, unsigned int link, enum xfab_fab_dir dir,
			   int *sw, int *port, int *rx);

/* max/mean of n values (n >= 1): max, its first index, sum, mean and their
 * ratio; ratio 0 when every value is 0 (no traffic, no imbalance). */
struct xfab_imbalance {
	uint64_t max, sum;
	unsigned int n, argmax;
	double mean, ratio;
};
void xfab_imbalance(const uint64_t *v, unsigned int n, struct xfab_imbalance *out);

/* One switch of a tier and its links to the tier above. */
struct xfab_fab_group {
	int sw;
	unsigned int n_links;
	int links[XFAB_FAB_MAX_PORTS]; /* link indices, in port order */
	struct xfab_imbalance imb;
};

/* ECMP balance between tier and tier + 1 in one direction: per switch of
 * the tier over its links to the tier above (up: what it sent, down: what
 * it received), and over every such link of the tier; worst is the group
 * with the highest ratio (the first of equals), -1 when none carried any. */
struct xfab_fab_tier_imb {
	int tier;
	enum xfab_fab_dir dir;
	unsigned int n_groups;
	struct xfab_fab_group *groups;
	struct xfab_imbalance all;
	int worst;
};

/* link_val[l]: the figure of link l in direction dir (bytes, QPs, ...).
 * Returns 0, or -1 when out of memory; free out->groups. A tier with no
 * links above it gives no groups. */
int xfab_fab_tier_imbalance(const struct xfab_fabric *f, int tier, enum xfab_fab_dir dir,
			    const uint64_t *link_val, struct xfab_fab_tier_imb *out);

/* One switch on a path: entered by in_port, left by out_port. */
struct xfab_fab_hop {
	unsigned int sw, in_port, out_port; /* out_port valid unless the path stopped here */
	unsigned int flags;		    /* XFAB_FAB_HOP_* */
};
/* The switch hands the flow to its kernel, which forwards it by out_port
 * (the neighbour is not resolved yet: the first packets take the kernel). */
#define XFAB_FAB_HOP_KERNEL 1u

/* A switch's own forwarding decision for the flow the caller has in mind,
 * entering switch hop->sw by port hop->in_port: 0 and the egress port
 * index in hop->out_port (and hop->flags); 1 when the switch does not
 * forward it (why says what it does: "drop: blackhole"); -1 when it cannot
 * be asked (why says why). */
typedef int (*xfab_fab_decide_fn)(void *ctx, struct xfab_fab_hop *hop, char *why, size_t whylen);

enum xfab_fab_path_status {
	XFAB_PATH_DELIVERED,  /* reached the destination host */
	XFAB_PATH_WRONG_HOST, /* handed to another host */
	XFAB_PATH_STOPPED,    /* a switch dropped or punted it */
	XFAB_PATH_LOOP,	      /* entered a switch by the same port twice */
	XFAB_PATH_TOO_LONG,   /* XFAB_FAB_MAX_HOPS switches and still going */
	XFAB_PATH_ERROR,      /* a switch could not be asked */
};

struct xfab_fab_path {
	enum xfab_fab_path_status status;
	unsigned int n_hops;
	struct xfab_fab_hop hops[XFAB_FAB_MAX_HOPS];
	int last_host; /* the host it was handed to, -1 */
	char why[128];
};

/* Walks a flow from src_host's leaf, each switch deciding through decide,
 * following the egress port's peer to the next switch, until a host. */
void xfab_fab_walk(const struct xfab_fabric *f, unsigned int src_host, unsigned int dst_host,
		   xfab_fab_decide_fn decide, void *ctx, struct xfab_fab_path *path);
const char *xfab_fab_path_status_name(enum xfab_fab_path_status s);
/* Hop h of the path sent the flow on (its out_port is valid): every hop
 * but the last of a path a switch stopped or could not be asked about. */
int xfab_fab_hop_sent(const struct xfab_fab_path *path, unsigned int h);

#endif
