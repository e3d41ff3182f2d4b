/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Traffic engineering for a Clos fabric (docs/TE.md): which path each
 * (source host, destination host) pair of a demand takes, and the TE pins
 * that make the switches send it there. Pure computation, no I/O: the
 * fabric and the demand come in as text or structures, the plan goes out
 * as structures (tools/xfab-te/ reads files and talks to the switches).
 *
 * The fabric is xfab-lab's fabric.json (`xfab-lab config TOPO fabric`):
 * switches with a tier (1 leaf, 2 spine, 3 super-spine) and ports (peer,
 * peer_port, ipv4, direction up|down, speed_mbps), hosts with their leaf,
 * leaf port and address. fabric.h's reader (fabric_parse.c) reads and
 * checks it, as for the fabric report, and asks besides for an address on
 * every fabric port (the pins' next hops); te_fabric.c builds the model
 * below from its result.
 *
 * Paths: a pair's candidates are the shortest valley-free paths, up the
 * tiers and down (what eBGP with RFC 7938 ASNs and the lab's static routes
 * spread ECMP over), on the whole topology; those crossing a link that is
 * down are left out.
 *
 * Placement (greedy, largest demand first): each pair goes onto the
 * candidate whose most loaded link, with the pair added, is least loaded;
 * ties go to the smaller sum of its links' loads, then to the path found
 * first (lowest port numbers up the tiers). A link's load is the bytes on
 * it in one direction, counted at the fastest fabric link's speed (bytes x
 * fastest / its speed; plain bytes when every link has one speed or when
 * some link has none).
 *
 * Pins: one per <switch, ingress port, destination prefix> where the
 * switch has a choice of next hops towards that prefix (a leaf going up; a
 * spine going up to super-spines; a super-spine going down to a pod's
 * spines): the source leaf's is keyed by the source host's port. One pin
 * serves every flow with its key, so the first (largest) pair placed over
 * a key fixes its next hop, and a later pair may only take paths that
 * agree with every key already fixed. A pair with no candidate left (links
 * down) is not pinned: ECMP (E-ECMP) carries it.
 */
#ifndef XFAB_TE_H
#define XFAB_TE_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"

#define XFAB_TE_MAX_TIERS 4				   /* leaf up to the top tier */
#define XFAB_TE_MAX_HOPS (2 * (XFAB_TE_MAX_TIERS - 1) + 1) /* switches on a path */
#define XFAB_TE_MAX_PATHS 8192				   /* candidates of one pair */
/* A fabric's size is its reader's: XFAB_FAB_MAX_SWITCHES, _PORTS, _HOSTS. */

struct xfab_te_port {
	char name[16];
	int peer_sw;	     /* switch index of the peer; -1: a host */
	int peer_host;	     /* host index of the peer; -1: a switch */
	int peer_port;	     /* the port index on peer_sw; -1 for a host */
	int up;		     /* towards the tier above */
	int link;	     /* index of the switch-switch link; -1 for a host port */
	int oper_up;	     /* link state as last set (xfab_te_set_port); 1 at parse */
	struct in_addr addr; /* this end's IPv4 address; 0: none */
	uint32_t speed_mbps; /* 0: not given */
};

struct xfab_te_switch {
	char name[32];
	int tier; /* 1 leaf, 2 spine, 3 super-spine */
	char netns[64];
	char ctl[108];	/* xfabd's control socket */
	char pins[256]; /* its pin directory */
	int n_ports;
	struct xfab_te_port *ports;
};

struct xfab_te_host {
	char name[32];
	int leaf, leaf_port; /* switch and port indices */
	struct in_addr addr;
	struct in_addr net; /* its subnet: the prefix pins towards it name */
	int plen;
	int prefix_id; /* hosts of one subnet share it */
};

/* A cable between two switches; lower is the one of the lower tier. */
struct xfab_te_link {
	int lower, lower_port, upper, upper_port;
	double scale; /* a byte on it counts as scale bytes (fastest / its speed) */
};

struct xfab_te_fabric {
	char name[64];
	int n_switches, n_hosts, n_links, n_prefixes;
	struct xfab_te_switch *sw;
	struct xfab_te_host *hosts;
	struct xfab_te_link *links;
};

/* Parses fabric.json's text (xfab_fabric_parse_checked with
 * XFAB_FAB_CHECK_GATEWAYS); NULL with "line:col: where: what" in err. */
struct xfab_te_fabric *xfab_te_fabric_parse(const char *text, char *err, size_t errlen);
void xfab_te_fabric_free(struct xfab_te_fabric *f);
int xfab_te_switch_index(const struct xfab_te_fabric *f, const char *name);
int xfab_te_port_index(const struct xfab_te_fabric *f, int sw, const char *port);
/* A host by name or by IPv4 address (dotted quad); -1 when none. */
int xfab_te_host_index(const struct xfab_te_fabric *f, const char *name_or_addr);
/* One end's oper state; a link is up while both of its ends are. */
void xfab_te_set_port(struct xfab_te_fabric *f, int sw, int port, int up);
int xfab_te_link_up(const struct xfab_te_fabric *f, int link);
/* Directed links: 2 * link (lower -> upper) and 2 * link + 1 (down). */
static inline int xfab_te_n_dlinks(const struct xfab_te_fabric *f)
{
	return 2 * f->n_links;
}

/* ---- demand: bytes per (source host, destination host) ---- */

struct xfab_te_demand {
	int src, dst; /* host indices, different */
	uint64_t bytes;
};

struct xfab_te_demands {
	struct xfab_te_demand *d;
	size_t n, cap;
	int *slot;	/* open addressing over (src, dst): index into d, -1 empty */
	size_t n_slots; /* a power of two, at least twice n */
};

void xfab_te_demands_init(struct xfab_te_demands *dm);
void xfab_te_demands_free(struct xfab_te_demands *dm);
/* Adds bytes to the pair (a new pair or an existing one); src != dst. */
int xfab_te_demand_add(struct xfab_te_demands *dm, int src, int dst, uint64_t bytes);
/* Every connection of a job: qps x xfab_job_qp_bytes per connection (the
 * sum of its xfab_job_flows), each rank found among the fabric's hosts by
 * its address. -1 with what is wrong in err. */
int xfab_te_demand_job(struct xfab_te_demands *dm, const struct xfab_te_fabric *f,
		       const struct xfab_job *job, char *err, size_t errlen);
/* A traffic matrix: [{"src": HOST, "dst": HOST, "bytes": N}, ...], a host
 * by name or address; "line:col: [i].field: what" on error, nothing added. */
int xfab_te_demand_matrix(struct xfab_te_demands *dm, const struct xfab_te_fabric *f,
			  const char *text, char *err, size_t errlen);

/* ---- the plan ---- */

enum xfab_te_pair_state {
	XFAB_TE_PLACED,	   /* on a path, pinned where the switches choose */
	XFAB_TE_SAME_LEAF, /* both hosts on one leaf: no fabric link, nothing to pin */
	XFAB_TE_NO_PATH,   /* every candidate crosses a link that is down: ECMP's */
};

struct xfab_te_pair {
	int src, dst; /* hosts */
	uint64_t bytes;
	enum xfab_te_pair_state state;
	int n_hops;			 /* switches on the path (placed) */
	int sw[XFAB_TE_MAX_HOPS];	 /* from the source leaf to the destination leaf */
	int in[XFAB_TE_MAX_HOPS];	 /* the port it enters each by */
	int out[XFAB_TE_MAX_HOPS];	 /* and leaves by (the last: the host's port) */
	int dlink[XFAB_TE_MAX_HOPS - 1]; /* directed links between them */
	int candidates;			 /* paths it could take (links up) */
};

struct xfab_te_pin {
	int sw, in, out; /* switch, ingress and egress port indices */
	int dst_host;	 /* the host whose prefix it names (the first pinned) */
	struct in_addr prefix;
	int plen;
	struct in_addr via; /* the next switch's address on the egress link */
	int pairs;	    /* pairs placed over it */
	uint64_t bytes;
};

struct xfab_te_plan {
	struct xfab_te_pair *pairs; /* in placement order: largest demand first */
	size_t n_pairs;
	struct xfab_te_pin *pins; /* by switch, ingress port, prefix */
	size_t n_pins;
	double *load; /* per directed link (xfab_te_n_dlinks) */
	int n_dlinks;
	double max_load; /* the most loaded directed link's load; 0 when none */
	int max_dlink;	 /* which; -1 when nothing is placed */
	size_t placed, same_leaf, no_path;
};

/* The plan for dm on f as it is (its links' states). 0, or -1 with err
 * (too many candidate paths for a pair, out of memory). */
int xfab_te_plan_compute(const struct xfab_te_fabric *f, const struct xfab_te_demands *dm,
			 struct xfab_te_plan *plan, char *err, size_t errlen);
void xfab_te_plan_free(struct xfab_te_plan *plan);
/* "leaf1:eth1>spine2" style name of a directed link */
void xfab_te_dlink_name(const struct xfab_te_fabric *f, int dlink, char *buf, size_t len);
/* Whether two plans pin the same (switch, port, prefix, via) set. */
int xfab_te_pins_equal(const struct xfab_te_plan *a, const struct xfab_te_plan *b);

#endif
