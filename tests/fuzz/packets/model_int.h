/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The reference model's insides, shared by its files: model.c (the switch:
 * its tables, its config text, its compiled routes and group order) and
 * model_pipeline.c (one frame's decision). Nothing here includes bpf/ or
 * the library.
 */
#ifndef XFAB_FUZZ_MODEL_INT_H
#define XFAB_FUZZ_MODEL_INT_H

#include "model.h"

struct m_port {
	const char *name;
	int admin_up;
	int mtu;
	int rate;	      /* Mbit/s, 0: none */
	int pfc_enable;	      /* priorities with PFC (bit n) */
	const char *addrs[2]; /* INTERFACE entries */
	int vnet;	      /* 1: a port of the tenant Vnet_red */
};

#define M_VNI 1000u /* the tenant's VNI (OVERLAY.md) */

/* ---- compiled form ---- */

enum m_rt { RT_LOCAL, RT_CONNECTED, RT_NEXTHOP, RT_GROUP, RT_BLACKHOLE, RT_TUNNEL };

#define M_MAX_ROUTES 64
#define M_MAX_GW 4

struct m_route {
	int vnet;   /* 0: the default table, 1: the VNET's */
	int family; /* 4 or 6 */
	uint8_t addr[16];
	int plen;
	int type; /* enum m_rt */
	int port; /* RT_CONNECTED: the slot */
	int n_gw; /* RT_NEXTHOP: 1, RT_GROUP: 2.. */
	uint8_t gw[M_MAX_GW][16];
	int order[M_MAX_GW]; /* RT_GROUP: member of bucket b is gw[order[b % n_gw]] */
	int group;	     /* RT_GROUP: index among the distinct groups */
	uint8_t mac[6];	     /* RT_TUNNEL: the inner destination MAC (0: the VTEP's) */
};

struct model {
	struct m_port port[MODEL_N_SLOTS]; /* m_ports, as this variant has them */
	int variant;			   /* enum model_variant */
	int oper_up[MODEL_N_SLOTS];
	uint8_t mac[MODEL_N_PORTS][6];
	struct m_route rt[M_MAX_ROUTES];
	int n_rt;
	/* distinct gateway sets (routes with one set share one group) */
	int group_route[M_MAX_ROUTES]; /* a route of each group */
	int n_groups;
	uint64_t k0, ksrc[4], kdst[4], kports, kmisc;
	uint8_t vtep[4];
	char config[16384];
};

/* ---- one frame's fields (model_pipeline.c parses them) ---- */

struct m_pkt {
	size_t len;
	size_t l3;
	int tagged;
	uint16_t proto;
	int perr; /* the first problem parsing met (a drop reason), judged in order */
	int v6;
	uint8_t src[16], dst[16];
	uint8_t ttl, tos, l4_proto;
	int have_ports;
	uint16_t sport, dport;
	int icmp_type; /* -1: none read */
	int hop_by_hop;
	size_t l4; /* the L4 header's offset, 0: not read (a fragment, no ports) */
	size_t l3_len;
};

/* ACL.md: the ingress ACL's verdict on k (frame f) from port slot: 1 when
 * a rule dropped it (r says so), 0 when it goes on (r->acl_rule set when a
 * rule decided). model_acl.c. */
int m_acl(const struct model *m, const uint8_t *f, const struct m_pkt *k, int slot,
	  struct model_result *r);
/* The variant's ACL_TABLE and ACL_RULE (none: nothing), then its
 * COPP_TABLE, appended to the config text c of size sz. */
void m_acl_config(const struct model *m, char *c, size_t sz);
void m_copp_config(const struct model *m, char *c, size_t sz);

/* 1 when addr lies in prefix/plen. */
int m_in_prefix(const uint8_t *addr, const uint8_t *prefix, int plen);
/* The NEIGH entry's MAC of addr on slot, NULL: none. */
const uint8_t *m_neighbour(int slot, int v6, const uint8_t *addr);
/* The port whose connected subnet (in vnet) holds gw, -1: none. */
int m_gw_port(const struct model *m, int vnet, int v6, const uint8_t *gw);

#endif
