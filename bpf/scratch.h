/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Per-packet state, in a per-CPU scratch map instead of on the BPF stack
 * (512 bytes for the whole call chain): what the parser found (struct
 * xfab_meta), the L3 decision, the queue's verdict, the result and what a
 * trace reports. Every stage reads and writes it through one pointer, so
 * stages can become functions of their own. It holds no packet pointer:
 * only offsets (bpf/ctx.h re-derives headers from them).
 *
 * A program runs to its end on one CPU before another of ours starts there
 * (softirq, or tc egress with bottom halves off), so one slot per CPU
 * holds one packet at a time. Trace runs (BPF_PROG_TEST_RUN from process
 * context) and the tc egress program take slots of their own, so neither
 * can meet another program's packet half-way. (On a PREEMPT_RT kernel,
 * where softirq work can be preempted, this would not hold.)
 */
#ifndef XFAB_BPF_SCRATCH_H
#define XFAB_BPF_SCRATCH_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xfab_abi.h"
#include "xfab_hash.h"
#include "kern.h"

/* What the pipeline decided; the entry point turns it into a verdict. */
struct xfab_result {
	__u32 action;	      /* enum xfab_action */
	__u32 reason;	      /* drop or punt reason */
	__u32 egress_ifindex; /* with XFAB_ACT_FORWARD */
	__u8 vlan_in_data;    /* entry must strip the ingress tag on forward */
	__u8 tc;	      /* traffic class (tc datapath: picks the HTB class) */
	__u8 tracing;	      /* a trace: counters and LB state stay untouched */
	__u8 egress_slot;     /* the egress port's slot: its tx_ports entry (xdp) */
};

/* What the packet is, as far as the pipeline needs to know: offsets into
 * the frame and copies of the few fields later stages use. */
struct xfab_meta {
	__u16 l3_off;	   /* bytes before the IP header: 14, or 18 when tagged */
	__u16 l4_off;	   /* of the L4 header; 0: none (a non-first fragment) */
	__u16 eth_proto;   /* ethertype after any VLAN tag, host order */
	__u8 vlan_in_data; /* a tag sits in the frame (not in skb metadata) */
	__u8 is_v6;	   /* outer family: what routing looks at */
	__u8 is_roce;	   /* UDP 4791 with a whole BTH */
	__u8 roce_opcode;
	__u8 l4_proto; /* IP protocol / final IPv6 next header */
	__u8 icmp_type;
	__u8 hop_by_hop;       /* IPv6 hop-by-hop header present */
	__u8 ttl;	       /* TTL / hop limit as received */
	__u8 tos;	       /* IPv4 TOS / IPv6 traffic class: DSCP << 2 | ECN */
	__u8 parse_err;	       /* the first problem parsing met (a drop reason), for validation */
	__u8 inner_flow;       /* flow holds a VXLAN packet's inner headers (parse.h) */
	__u32 l3_len;	       /* IPv4 total length / IPv6 40 + payload length */
	__be32 daddr[4];       /* outer destination (IPv4: word 0): routing */
	struct xfab_flow flow; /* hash input (VXLAN: may be the inner flow) */
};

/* What member selection saw and did (the trace reports it). */
struct xfab_pick {
	__u32 hash;
	__u16 bucket;
	__u8 flags;   /* XFAB_TRACE_FLOWLET_* | XFAB_TRACE_GROUP */
	__u8 tracing; /* in: change no state */
	__u8 live;    /* out: the member's port was found up and its device live */
	__u8 pad[7];
	__u64 idle_ns; /* flowlet idle time, if the flow has one */
};

struct xfab_l3_decision {
	__u32 egress_ifindex;
	__u8 dmac[6];
	__u16 pad;
	__u8 route_type; /* of the route or TE entry used */
	__u8 flags;	 /* XFAB_TRACE_TE_* */
	__u16 group;
	__u16 nh_id;
	__u8 egress_live; /* path selection found egress_ifindex's port up and its device live */
	__u8 pad2[5];
	/* egress_ifindex's port as the path's nexthop carries it (or, for a
	 * connected route's neighbour, as its ports entry says): the egress
	 * stage reads it here, not in the ports table */
	struct xfab_nh_port out;
	struct xfab_pick pick;
};

struct xfab_queue_info {
	__u32 occupancy;
	__u32 verdict;
};

/* The overlay's view of a packet (vxlan.h): its tenant and, for an
 * encapsulation, what the outer headers will hold. */
struct xfab_overlay {
	__u32 vni;
	__be32 endpoint;    /* encap: the remote VTEP */
	__be32 src;	    /* encap: the local VTEP */
	__be16 sport;	    /* encap: outer UDP source port */
	__be16 inner_proto; /* encap: inner ethertype */
	__u8 mode;	    /* enum xfab_trace_overlay */
	__u8 vnet;	    /* tenant of the packet; 0: underlay */
	__u8 inner_df;	    /* encap: inner IPv4 with DF (too big: punted, not dropped) */
	__u8 inner_v6;
	__u8 src_mac[6];    /* encap: inner source MAC (the VTEP's) */
	__u8 inner_dmac[6]; /* encap: inner destination MAC */
	__u32 inner_len;    /* inner frame bytes (the per-VNET byte counters) */
	__u8 outer_mac[12]; /* decap: the outer frame's MACs, for a punt */
};

struct xfab_scratch {
	struct xfab_meta m;
	struct xfab_l3_decision l3;
	struct xfab_queue_info qi;
	struct xfab_result res;
	__u32 slot;		    /* ingress port's counter slot (a trace reports it) */
	__u32 rx_len;		    /* the frame's length as it came in (rx counters) */
	struct xfab_flowlet_key fk; /* member selection's hash input */
	struct xfab_overlay ov;
	/* a pause frame's effect, gathered in memory, not in registers: the
	 * verifier would follow each combination of constants apart */
	__u64 pfc_longest_ns;
	__u32 pfc_changed;
	__u32 pad2;
	struct xfab_clock clock; /* the xdp datapath's per-batch time (kern.h) */
	/* the fast path's slot only (fast.h): a connected route's neighbour
	 * as a nexthop record, too big for its stack */
	struct xfab_nexthop nh;
};

#define XFAB_SCRATCH_DATA 0   /* the pipeline: packets */
#define XFAB_SCRATCH_TRACE 1  /* the pipeline: trace runs */
#define XFAB_SCRATCH_EGRESS 2 /* tc egress */
/* the fast path (fast.h): what its stack cannot hold (an encapsulation's
 * ov, a connected route's nh); never the pipeline's slot, whose contents
 * tell the tests which path ran */
#define XFAB_SCRATCH_FAST 3

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct xfab_scratch);
} scratch SEC(".maps");

/* This CPU's scratch slot XFAB_SCRATCH_* (never NULL for a valid slot;
 * callers check for the verifier). */
static __always_inline struct xfab_scratch *xfab_scratch(__u32 slot)
{
	return bpf_map_lookup_elem(&scratch, &slot);
}

#endif
