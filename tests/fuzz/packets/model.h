/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A reference model of xfab's forwarding decision for one frame arriving on
 * one port: parse and validate, address rules, longest-prefix match, group
 * choice, rewrite, verdict and reason. Written from the docs
 * (ARCHITECTURE.md's pipeline stages, CONFIG.md, LOAD_BALANCING.md, QOS.md,
 * PFC.md) and the ABI's reason list; it shares no code with bpf/,
 * include/xfab_hash.h or user/lib (its own LPM, flow hash, checksum).
 *
 * The model's switch is small and fixed (model.c): its tables are C arrays,
 * and the config text the harness compiles into the real tables is written
 * from those arrays (model_config_text), so the two sides cannot drift.
 */
#ifndef XFAB_FUZZ_MODEL_H
#define XFAB_FUZZ_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define MODEL_MAX_FRAME 2048
#define MODEL_N_PORTS 7 /* harness veths p1..p7; p7 is not a switch port */
#define MODEL_N_SLOTS 6 /* p1..p6 are configured, slots 0..5 */

/*
 * Outcomes. Each has its counter rule in one place (the harness's
 * expect_counters): a new outcome (a policed punt, when CoPP lands) is one
 * value here, its decision in model_run and its counter rule there.
 */
enum model_verdict {
	MV_DROP = 0,
	MV_PUNT = 1,
	MV_FORWARD = 2,
	MV_CONSUMED, /* a pause frame: counted in pfc_state and port rx, no verdict counter */
	MV_HANDOFF,  /* xdp: a lossless class handed to tc (XDP_PASS, rx counted) */
	MV_COUNT,
};

/* A queue's decision (QOS.md "Pipeline" 2); MQ_UNCERTAIN: along the curve,
 * a random draw (the harness sets no such occupancy). */
enum model_queue_verdict { MQ_NONE, MQ_PASS, MQ_MARK, MQ_DROP_TAIL, MQ_DROP_WRED, MQ_UNCERTAIN };

struct model_result {
	int verdict;	      /* enum model_verdict */
	int reason;	      /* XFAB_DROP_* or XFAB_PUNT_* (the ABI's numbering) */
	int in_slot;	      /* the ingress port's counter slot, -1: not a switch port */
	int out_slot;	      /* MV_FORWARD: the egress slot */
	size_t tx_bytes;      /* MV_FORWARD: bytes sent (the tag popped) */
	size_t reason_bytes;  /* MV_DROP, MV_PUNT: the bytes the reason counts (after a decap: the
			       * inner frame's) */
	int decap;	      /* the frame went to the VTEP and was decapsulated */
	int pfc_prio_mask;    /* MV_CONSUMED: the priorities the pause frame names */
	int pfc_xon_mask;     /* ... of which with time 0 (XON) */
	int pfc_ignored_mask; /* ... of which the port has no PFC on */
	int pfc_pg;	      /* tc, MV_FORWARD: the lossless ingress PG charged (PFC.md), its
			       * key slot * 8 + priority; -1: none */
	int copp_group;	      /* MV_PUNT (or policed, copp_policed): the CoPP group (COPP.md) */
	int acl_rule;	      /* the ACL rule that decided (ACL.md "Counters"): its counter + 1,
			       * 0: none */
	size_t acl_bytes;     /* ... the bytes it counts: the frame as the stage received it */
	int vnet;	      /* the VNET whose counters the outcome moves (OVERLAY.md): 1 the
			       * tenant's, 0 a tunnel packet whose VNI is not known yet; -1 none */
	int encap;	      /* MV_FORWARD: into a tunnel */
	int tclass;	      /* MV_FORWARD: the traffic class, QOS.md's map of the DSCP */
	size_t vnet_bytes;    /* MV_FORWARD, encap or decap: the inner frame's bytes */
	int lb_events;	      /* the lb_stats events it moves, bit n: XFAB_LB_n once */
	int queue_key;	      /* the queue (slot * 8 + class) whose counters move (QOS.md), -1 */
	int queue_verdict;    /* its decision, enum model_queue_verdict */
	size_t queue_bytes;   /* the length it counts */
	int eg_run;	      /* tc, MV_FORWARD: the frame then runs the egress program */
	int eg_verdict;	      /* ... which passes it (MV_FORWARD) or drops it (MV_DROP) */
	int eg_reason;	      /* ... the drop's reason */
	int handoff_run;      /* xdp, MV_HANDOFF: its output runs xfab_tc_handoff, unmarked */
	int no_rx;	      /* its arrival is not counted (counted before it was handed over) */
	const struct model_result *handoff_tc; /* MV_HANDOFF, run live: the tc side's result */
	uint8_t out[MODEL_MAX_FRAME + 8];
	size_t out_len; /* the frame the program leaves (xdp: with its metadata) */
	uint8_t eg_out[MODEL_MAX_FRAME + 8]; /* eg_run: the frame the egress program leaves */
};

struct model;

/*
 * The switches the model plays, in the order fuzz_packets runs them: the
 * base switch, then variants of it with one feature more each. A variant
 * is a name here, its config lines and link state in model_new, and its
 * rules in model_run; the harness loads its config and link state
 * (model_oper_up) before its frames.
 */
enum model_variant {
	MODEL_V_BASE,
	/* model_lb.c: hash modes, local repair, TE pins (LOAD_BALANCING.md) */
	MODEL_V_SYMMETRIC,     /* symmetric hashing, the IPv6 flow label hashed */
	MODEL_V_ROCE_QP,       /* E-ECMP: the BTH's QP, no source port, no protocol */
	MODEL_V_INNER,	       /* VXLAN hashed on its inner headers (and the QP field) */
	MODEL_V_SPLIT_HORIZON, /* LOCAL_REPAIR split horizon and bounce, every port up */
	MODEL_V_TE_PIN,	       /* TE pins (config and runtime), split horizon */
	MODEL_V_DEAD_MEMBER,   /* p3's carrier down: dead members, the bounce, TE fallback
				* (not resilient: p3's return gives a fresh fill) */
	MODEL_V_ACL,	       /* ACL tables on p1, p3, p4, p6 (ACL.md; model_acl.c) */
	MODEL_V_COPP_RATE,     /* CoPP groups with meters (COPP.md; model_copp.c) */
	MODEL_V_ECN,	       /* QOS.md: a WRED/ECN queue (p3), a small buffer (p1) */
	MODEL_V_COUNT,
};
/* "base", ...: the name in reports and in the regression list. */
const char *model_variant_name(int variant);
/* The variant of that name, -1: none. */
int model_variant_by_name(const char *name);

/* The model's switch as variant plays it; port_macs are the harness's
 * (p1..p6). NULL on error. */
struct model *model_new(const uint8_t port_macs[MODEL_N_PORTS][6], int variant);
void model_free(struct model *m);
int model_variant_of(const struct model *m);
/* 1 when slot's carrier is up in this switch (the harness's veth state,
 * which xfabd learns as a link event), 0 when down. */
int model_oper_up(const struct model *m, int slot);
/* The config text of the model's switch (xfabd's JSON), for the harness. */
const char *model_config_text(const struct model *m);
/* Group member order, derived from the config by the compiler's rule
 * (model.c number_nexthops: nexthop ids in first-use order, members by id,
 * a fresh fill interleaving them); the harness checks the data plane's
 * groups against it. */
int model_n_groups(const struct model *m);
/* The gateways of group g: family (4 or 6), addresses (16 bytes each). */
int model_group_gateways(const struct model *m, int g, int *family, uint8_t gw[][16], int max);
/* Group g's live members (their ports up), and the gateway bucket b names
 * (-1: none live): a fresh fill interleaves them; a dead member's buckets
 * are the live one's (LOAD_BALANCING.md "Groups"). */
int model_group_live(const struct model *m, int g);
int model_group_bucket(const struct model *m, int g, int b);

/* Runtime TE pins the harness installs as `xfabctl te add` does
 * (CONTROL.md): pin i's ingress port, prefix and gateway; 0, or -1 past the
 * last. */
int model_te_runtime_pin(const struct model *m, int i, const char **in, const char **prefix,
			 const char **via);

/* ecn (model_qos.c): the occupancy every queue of the WRED port holds
 * when the next frame arrives (the harness sets the same); the port's
 * slot (-1: none), its Kmax and buffer. */
void model_set_occupancy(struct model *m, uint64_t bytes);
int model_wred_port(const struct model *m, uint64_t *kmax, uint64_t *buffer);

/* One frame on harness port in_port (0..MODEL_N_PORTS-1) through the
 * datapath (tc 0: xfab_xdp, 1: xfab_tc). */
void model_run(const struct model *m, int tc, int in_port, const uint8_t *frame, size_t len,
	       struct model_result *r);

/* The tc side of a frame XDP handed off on in_port (model_qos.c). */
void model_handoff(const struct model *m, int in_port, const uint8_t *frame, size_t len,
		   struct model_result *r);

/* The flow hash of the docs (LOAD_BALANCING.md), exposed for a self-test:
 * the default fields, and fields (CONFIG.md's names, comma list; NULL: the
 * default) with the QP, the flow label and symmetric ordering. */
uint32_t model_flow_hash(const struct model *m, int v6, const uint8_t *src, const uint8_t *dst,
			 uint8_t proto, uint16_t sport, uint16_t dport);
uint32_t model_flow_hash_ex(const struct model *m, const char *fields, int symmetric, int v6,
			    const uint8_t *src, const uint8_t *dst, uint8_t proto, uint16_t sport,
			    uint16_t dport, uint32_t qp, uint32_t label);

/* The group hash of an untagged IP frame routed in the default table, as
 * the switch's fields and options take it (its QP, flow label, inner
 * headers); 0 for another frame. For the self-test. */
uint32_t model_frame_hash(const struct model *m, const uint8_t *f, size_t len);

/* ACL.md "Counters": the counters of the variant's rules (0: no ACL). */
int model_acl_n_rules(const struct model *m);

/*
 * COPP.md "The meter": a group's cir (packets/s, 0: no meter) and cbs in
 * this switch, and its token bucket, in the doc's units (10^9 a packet):
 * tokens at time last (ns), the bucket full before its first use.
 */
#define MODEL_COPP_TOKEN 1000000000ull
struct model_copp_bucket {
	uint64_t tokens, last;
};
void model_copp_rate(const struct model *m, int group, uint32_t *cir, uint32_t *cbs);
/* The tokens group's bucket holds at time now (refilled, not taken). */
uint64_t model_copp_tokens(const struct model *m, int group, const struct model_copp_bucket *b,
			   uint64_t now);
/* A punt of group at time now: 1 green (a token taken), 0 red; *b moves on. */
int model_copp_meter(const struct model *m, int group, struct model_copp_bucket *b, uint64_t now);

/* RFC 1071: the ones' complement of the ones' complement sum of len bytes. */
uint16_t model_csum(const uint8_t *p, size_t len);

#endif
