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
	int in_slot;	     /* a TE pin (vnet M_VNET_TE): the ingress port it steers */
	uint8_t mac[6];	     /* RT_TUNNEL: the inner destination MAC (0: the VTEP's) */
};

/* A route's table: the default (0), the tenant's (1); a TE pin's and the
 * repair group's are tables no plain lookup reads (model_lb.c). */
#define M_VNET_TE 2
#define M_VNET_REPAIR 3

/* ECMP|global hash_fields (CONFIG.md "ECMP"), the model's own bits */
enum m_hash_field {
	M_HF_SRC_IP = 1 << 0,
	M_HF_DST_IP = 1 << 1,
	M_HF_PROTO = 1 << 2,
	M_HF_SPORT = 1 << 3,
	M_HF_DPORT = 1 << 4,
	M_HF_LABEL = 1 << 5,
	M_HF_QP = 1 << 6,
	M_HF_INNER = 1 << 7,
};
#define M_HF_DEFAULT (M_HF_SRC_IP | M_HF_DST_IP | M_HF_PROTO | M_HF_SPORT | M_HF_DPORT)

/* A flow as LOAD_BALANCING.md "How a member is chosen" 2 hashes it. */
struct m_flow {
	int v6;
	uint8_t src[16], dst[16];
	uint8_t proto;
	uint16_t sport, dport;
	uint32_t qp;	/* the BTH's destination QP, 0: none */
	uint32_t label; /* the IPv6 flow label */
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
	uint64_t k0, ksrc[4], kdst[4], kports, kmisc, klabel;
	unsigned hash_fields; /* enum m_hash_field */
	int symmetric;	      /* ECMP|global symmetric */
	int split_horizon;    /* LOCAL_REPAIR|global split_horizon */
	int bounce;	      /* LOCAL_REPAIR|global bounce (ports p2, p3) */
	int te;		      /* a TE_PATH table (TE on) */
	uint8_t vtep[4];
	uint64_t occupancy; /* ecn: what each queue of the WRED port holds (model_qos.c) */
	char config[16384];
};

/* One packet as the pipeline parsed it (model_pipeline.c). */
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
	size_t l3_len;
	size_t l4;	/* have_ports: the L4 header's offset (0: not read: a fragment, no ports) */
	uint32_t qp;	/* RoCEv2: the BTH's destination QP (0: none read) */
	uint32_t label; /* IPv6: the flow label */
	int tc;		/* the datapath: 0 xdp, 1 tc */
	int arp_reply;	/* ARP: the opcode is 2 (COPP.md: arp_resp) */
};

/* The path a route gives a packet (model_lb.c m_path). */
struct m_hop {
	int port;	     /* the egress slot, -1: none */
	const uint8_t *dmac; /* the neighbour's MAC, NULL: unresolved */
	int empty;	     /* a group with no live member */
	int dead;	     /* the path's port is down */
	int member;	     /* a group's: the gateway index chosen */
	uint32_t hash;	     /* the flow's hash (groups) */
	const uint8_t *gw;   /* the gateway, NULL: connected */
};

/* ---- load balancing (model_lb.c) ---- */

/* The variant's hash, repair and TE settings, link state and pins. */
int m_lb_setup(struct model *m);
/* The variant's ECMP, LOCAL_REPAIR and TE_PATH tables, appended to c. */
void m_lb_config(const struct model *m, char *c, size_t size);
/* The flow hash over fields, ends ordered when symmetric. */
uint32_t m_hash(const struct model *m, const struct m_flow *fl, unsigned fields, int symmetric);
/* The flow packet k hashes as (f: its frame; underlay: routed in the
 * default table, where INNER applies). */
void m_flow_of(const struct model *m, const uint8_t *f, const struct m_pkt *k, int underlay,
	       struct m_flow *fl);
/* Route rt's path for k (connected, nexthop or group). */
void m_path(const struct model *m, const struct m_route *rt, const struct m_pkt *k,
	    const uint8_t *f, int vnet, struct m_hop *h);
/* LOCAL_REPAIR on the route's own path (split horizon, the bounce); the
 * lb events it moves set in *lb. */
void m_repair(const struct model *m, const struct m_route *rt, const struct m_pkt *k,
	      const uint8_t *f, int in_slot, struct m_hop *h, int *lb);
/* The TE pin of in_slot for k's destination, NULL: none. */
const struct m_route *m_te_pin(const struct model *m, int in_slot, const struct m_pkt *k);
/* A pin steers only while its path is up. */
int m_te_usable(const struct model *m, const struct m_route *pin);
/* Gateway gi of group route rt: its port carries (oper and admin up). */
int m_gw_live(const struct model *m, const struct m_route *rt, int gi);
/* The gateway of bucket b of group route rt, -1: none live. */
int m_bucket_gw(const struct model *m, const struct m_route *rt, int b);
/* A parse helper: the address of prefix text. */
int m_parse_prefix(const char *s, int *family, uint8_t addr[16], int *plen);
int m_parse_addr(const char *s, int *family, uint8_t addr[16]);
/* add_route of model.c, for the pins and the repair group. */
struct m_route *m_add_route(struct model *m, int family, const uint8_t *addr, int plen, int type);

/* ACL.md: the ingress ACL's verdict on k (frame f) from port slot: 1 when
 * a rule dropped it (r says so), 0 when it goes on (r->acl_rule set when a
 * rule decided). model_acl.c. */
int m_acl(const struct model *m, const uint8_t *f, const struct m_pkt *k, int slot,
	  struct model_result *r);
/* The variant's ACL_TABLE and ACL_RULE (none: nothing), then its
 * COPP_TABLE, appended to the config text c of size sz. */
void m_acl_config(const struct model *m, char *c, size_t sz);
void m_copp_config(const struct model *m, char *c, size_t sz);

/* text appended to the config text c (size bytes in all). */
void m_add(char *c, size_t size, const char *text);
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
