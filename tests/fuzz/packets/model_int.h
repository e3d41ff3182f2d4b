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
	unsigned buffer;      /* bytes, 0: CONFIG.md's default */
	int wred;	      /* 1: model_qos.c's profile on every class */
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
	uint64_t occupancy; /* ecn: what each queue of the WRED port holds (model_qos.c) */
	char config[8192];
};

/* 1 when addr lies in prefix/plen. */
int m_in_prefix(const uint8_t *addr, const uint8_t *prefix, int plen);
/* The NEIGH entry's MAC of addr on slot, NULL: none. */
const uint8_t *m_neighbour(int slot, int v6, const uint8_t *addr);
/* The port whose connected subnet (in vnet) holds gw, -1: none. */
int m_gw_port(const struct model *m, int vnet, int v6, const uint8_t *gw);

/* model_qos.c: the queues (QOS.md) */
void m_qos_variant(struct model *m);
void m_qos_config(const struct model *m, char *c, size_t sz);
int m_qos_xdp(const struct model *m, int slot, uint8_t tos, size_t len, struct model_result *r);
void m_qos_mark(uint8_t *o, size_t l3, int v6);
void m_qos_egress(const struct model *m, struct model_result *r, uint64_t backlog);
/* model_pipeline.c: QOS.md's DSCP -> traffic class */
int m_dscp_to_tc(int dscp);

#endif
