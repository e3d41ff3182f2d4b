/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the pipeline tells about a packet (included by xfab_abi.h): the
 * record of `xfabctl trace`, the stages it names, and make bench's stage
 * builds, which stop the pipeline after a stage.
 */
#ifndef XFAB_TRACE_H
#define XFAB_TRACE_H

#include <linux/types.h>

/* ---- trace: `xfabctl trace` runs a frame through the loaded xdp program
 * with BPF_PROG_TEST_RUN and this record in the XDP metadata in front of
 * it. With the magic set, the pipeline writes no state (no counter, no
 * flowlet, no queue, no load) and fills the record with its decisions. ---- */
#define XFAB_TRACE_MAGIC 0x58545243u /* "XTRC" */

#define XFAB_TRACE_TE_HIT (1u << 0)	   /* a TE entry steered the packet */
#define XFAB_TRACE_TE_FALLBACK (1u << 1)   /* a TE entry matched, its path was down */
#define XFAB_TRACE_FLOWLET_CONT (1u << 2)  /* continues a live flowlet */
#define XFAB_TRACE_FLOWLET_NEW (1u << 3)   /* would start a flowlet (member: a prediction) */
#define XFAB_TRACE_ROCE (1u << 4)	   /* RoCEv2 BTH parsed */
#define XFAB_TRACE_GROUP (1u << 5)	   /* path chosen from a group */
#define XFAB_TRACE_REPAIRED (1u << 6)	   /* dead path: bounced to a repair port */
#define XFAB_TRACE_SPLIT_HORIZON (1u << 7) /* the ingress port was avoided */

enum xfab_trace_stage {
	XFAB_STAGE_PORT = 1, /* stopped at the port checks */
	XFAB_STAGE_PARSE,    /* ... parsing */
	XFAB_STAGE_CLASSIFY, /* ... L2/address rules */
	XFAB_STAGE_L3,	     /* ... lookup and path selection */
	XFAB_STAGE_EGRESS,   /* ... egress checks */
	XFAB_STAGE_QUEUE,    /* ... the queue */
	XFAB_STAGE_REWRITE,  /* went all the way */
};

/*
 * make bench's stage prices (docs/PERFORMANCE.md): `xfabd --bench-stop
 * STAGE --bench-port PORT` loads a data plane whose pipeline stops after
 * STAGE and sends the frame out of PORT as it is; the price of a stage is
 * the difference to the build that stops before it. Stages in pipeline
 * order, each including the ones before it; a switch runs XFAB_BENCH_FULL,
 * whose checks the verifier removes (the value is a load-time constant).
 */
enum xfab_bench_stop {
	XFAB_BENCH_FULL = 0,	 /* ... and the counters: everything */
	XFAB_BENCH_PARSE = 1,	 /* port checks, Ethernet, the IP header's fields, L4 ports */
	XFAB_BENCH_VALIDATE = 2, /* L2 rules, the RFC 1812 header checks, address classes */
	XFAB_BENCH_FIB = 3,	 /* the route lookup (TE's too), TTL */
	XFAB_BENCH_PICK = 4,	/* a group's member: the flow hash and its bucket, or the flowlet */
	XFAB_BENCH_NEXTHOP = 5, /* the member's nexthop, its port up and its device live */
	XFAB_BENCH_QUEUE = 6,	/* egress checks (tenant, MTU), the queue and ECN */
	XFAB_BENCH_REWRITE = 7, /* MACs, TTL, checksum */
	XFAB_BENCH_COUNTERS = 8, /* the counters: the whole pipeline, as a stage build */
	XFAB_BENCH_STOPS = 9,
};

enum xfab_trace_overlay {
	XFAB_OVERLAY_NONE = 0,
	XFAB_OVERLAY_ENCAP = 1, /* a tenant packet sent into a tunnel */
	XFAB_OVERLAY_DECAP = 2, /* a tunnel packet delivered to its tenant */
	XFAB_OVERLAY_LOCAL = 3, /* a tenant packet routed to a local tenant port */
};

struct xfab_trace {
	__u32 magic;
	__u8 action;	    /* enum xfab_action */
	__u8 reason;	    /* drop or punt reason */
	__u8 stage;	    /* enum xfab_trace_stage reached */
	__u8 flags;	    /* XFAB_TRACE_* */
	__u8 route_type;    /* enum xfab_route_type of what matched (route or TE) */
	__u8 tc;	    /* traffic class */
	__u8 queue_verdict; /* 0 pass, 1 mark CE, 2 tail drop, 3 WRED drop */
	__u8 l4_proto;
	__u16 group;   /* group id, 0 if none */
	__u16 nexthop; /* member nexthop id */
	__u32 hash;    /* flow hash of the selected fields */
	__u32 bucket;
	__u32 egress_ifindex;
	__u32 qp;	       /* RoCEv2 destination QP */
	__u64 occupancy;       /* bytes the egress queue held for this packet (xdp model) */
	__u64 flowlet_idle_ns; /* idle time of the flow's flowlet, if there is one */
	__u32 ingress_slot;
	__u32 vni;	 /* overlay: the VNI encapsulated with or decapsulated from */
	__be32 endpoint; /* overlay encap: the remote VTEP chosen */
	__u8 overlay;	 /* enum xfab_trace_overlay */
	__u8 vnet;	 /* the tenant table routed in; 0: underlay */
	__u16 pad;
};
_Static_assert(sizeof(struct xfab_trace) == 64, "trace");

#endif /* XFAB_TRACE_H */
