/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Ingress ACLs (docs/ACL.md): SONiC's L3 / L3V6 ACL tables bound to the
 * ingress port. Runs after validation and the punt rules, before the
 * overlay and the FIB lookup, in both datapaths:
 *
 * - Packets for the switch never meet an ACL: those punted before this
 *   stage (link-local, multicast, ARP, ND) and those to its own addresses
 *   (a local route: the walk looks it up first, on ports with rules only).
 *   In SONiC those are trapped to the CPU, policed by CoPP and filtered by
 *   the control-plane ACL (CTRLPLANE tables, iptables); a data-plane
 *   table's DROP does not reach them (sonic-net/SONiC issue 431).
 * - The xdp datapath hands a lossless class to tc before this stage, so a
 *   packet is judged (and counted) once, by the tc pass.
 *
 * Cost: a port without rules pays one array lookup (acl_ports). A port
 * with n records walks them under bpf_loop (one record checked by the
 * verifier, whatever n), stopping at the first match: records are sorted
 * by priority in userspace (user/lib/acl_compile.c).
 */
#ifndef XFAB_BPF_ACL_H
#define XFAB_BPF_ACL_H

#include <linux/bpf.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "xfab_abi.h"
#include "ctx.h"
#include "scratch.h"
#include "counters.h"
#include "parse.h"
#include "l3.h"

/* acl_ports, acl_rules, acl_stats, acl_info: see include/xfab_acl.h. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct xfab_acl_port);
} acl_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_MAX_PORTS *XFAB_ACL_MAX_RULES);
	__type(key, __u32);
	__type(value, struct xfab_acl_rule);
} acl_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XFAB_ACL_MAX_COUNTERS);
	__type(key, __u32);
	__type(value, struct xfab_acl_stats);
} acl_stats SEC(".maps");

/* Only userspace reads it; here so the object creates and pins it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XFAB_ACL_MAX_COUNTERS);
	__type(key, __u32);
	__type(value, struct xfab_acl_info);
} acl_info SEC(".maps");

/* The bytes past the parser's fields the records may ask for, packed in
 * one scalar for the walk (a global function takes no packet pointer). */
#define XFAB_ACL_X_TCP (1u << 8)   /* bits 0..7: the TCP flags byte */
#define XFAB_ACL_X_AETH (1u << 24) /* bits 16..23: the AETH syndrome */

/* What the walk compares, gathered once; on the walk's own stack. */
struct xfab_acl_walk {
	__be32 src[4];
	__be32 dst[4];
	__u32 slot;
	__u32 extra;   /* XFAB_ACL_X_* */
	__u32 verdict; /* out: 0, or (counter + 1) << 1 | action */
	__u16 sport, dport;
	__u8 is_v6, proto, dscp, has_ports;
	__u8 is_roce, opcode;
	__u8 pad[2];
};

static __always_inline int xfab_acl_addr_ok(const __be32 *a, const __be32 *want, const __be32 *mask)
{
	return ((a[0] & mask[0]) == want[0]) & ((a[1] & mask[1]) == want[1]) &
	       ((a[2] & mask[2]) == want[2]) & ((a[3] & mask[3]) == want[3]);
}

/* Every field the record names matches the packet. */
static __always_inline int xfab_acl_matches(const struct xfab_acl_rule *r,
					    const struct xfab_acl_walk *w)
{
	__u32 f = r->fields;

	if (r->is_v6 != w->is_v6)
		return 0;
	if ((f & XFAB_ACL_F_SRC) && !xfab_acl_addr_ok(w->src, r->src, r->src_mask))
		return 0;
	if ((f & XFAB_ACL_F_DST) && !xfab_acl_addr_ok(w->dst, r->dst, r->dst_mask))
		return 0;
	if ((f & XFAB_ACL_F_PROTO) && w->proto != r->proto)
		return 0;
	if ((f & (XFAB_ACL_F_SPORT | XFAB_ACL_F_DPORT)) && !w->has_ports)
		return 0;
	if ((f & XFAB_ACL_F_SPORT) && (w->sport < r->sport_lo || w->sport > r->sport_hi))
		return 0;
	if ((f & XFAB_ACL_F_DPORT) && (w->dport < r->dport_lo || w->dport > r->dport_hi))
		return 0;
	if ((f & XFAB_ACL_F_DSCP) && (w->dscp & r->dscp_mask) != r->dscp)
		return 0;
	if ((f & XFAB_ACL_F_TCP_FLAGS) &&
	    (!(w->extra & XFAB_ACL_X_TCP) || (w->extra & r->tcp_mask) != r->tcp_flags))
		return 0;
	if ((f & XFAB_ACL_F_BTH) && (!w->is_roce || (w->opcode & r->bth_mask) != r->bth_opcode))
		return 0;
	if ((f & XFAB_ACL_F_AETH) &&
	    (!(w->extra & XFAB_ACL_X_AETH) || ((w->extra >> 16) & r->aeth_mask) != r->aeth))
		return 0;
	return 1;
}

static long xfab_acl_step(__u32 i, void *data)
{
	struct xfab_acl_walk *w = data;
	__u32 key = XFAB_ACL_ROW(w->slot, i);
	const struct xfab_acl_rule *r = bpf_map_lookup_elem(&acl_rules, &key);

	if (!r)
		return 1;
	if (!xfab_acl_matches(r, w))
		return 0;
	w->verdict = (r->counter + 1) << 1 | (r->action & 1);
	return 1; /* highest priority first: the first match decides */
}

/*
 * The walk over the port's n records: 0 when none matches, else (counter +
 * 1) << 1 | action. A global function, verified once; its input is the
 * packet's scratch slot (tracing picks it) and the extra bytes.
 */
__attribute__((noinline)) __u32 xfab_acl_walk(__u32 slot, __u32 n, __u32 extra, __u32 tracing)
{
	struct xfab_scratch *s = xfab_scratch(tracing ? XFAB_SCRATCH_TRACE : XFAB_SCRATCH_DATA);
	struct xfab_acl_walk w = {};
	struct xfab_route rt;

	if (!s || n > XFAB_ACL_MAX_RULES || slot >= XFAB_MAX_PORTS)
		return 0;
	/* For the switch itself (a local route, as the L3 stage decides it
	 * next): the kernel's and CoPP's, never a data-plane ACL's. */
	if (xfab_lookup_route(&s->m, XFAB_TABLE_DEFAULT, &rt) && rt.type == XFAB_RT_LOCAL)
		return 0;
	__builtin_memcpy(w.src, s->m.flow.src, sizeof(w.src));
	__builtin_memcpy(w.dst, s->m.flow.dst, sizeof(w.dst));
	w.slot = slot;
	w.extra = extra;
	w.is_v6 = s->m.is_v6;
	w.proto = s->m.l4_proto;
	w.dscp = s->m.tos >> 2;
	w.has_ports = s->m.l4_off && (s->m.l4_proto == IPPROTO_TCP || s->m.l4_proto == IPPROTO_UDP);
	w.sport = bpf_ntohs((__u16)s->m.flow.ports);
	w.dport = bpf_ntohs((__u16)(s->m.flow.ports >> 16));
	w.is_roce = s->m.is_roce;
	w.opcode = s->m.roce_opcode;
	bpf_loop(n, xfab_acl_step, &w, 0);
	return w.verdict;
}

/* RC and XRC responses carry an AETH right after the BTH: read responses
 * (first, last, only), acknowledge, atomic acknowledge (IBTA 9.2). */
static __always_inline int xfab_acl_has_aeth(__u8 opcode)
{
	__u8 op = opcode & 0x1f, transport = opcode >> 5;

	if (transport != 0 && transport != 5) /* RC, XRC */
		return 0;
	return op == 0x0d || op == 0x0f || op == 0x10 || op == 0x11 || op == 0x12;
}

/* The stage: XFAB_ACT_FORWARD (no rule, or a FORWARD rule) or a counted
 * drop. Counters are left alone by a trace. */
/* 1 if the ingress port with counter slot `slot` has ACL rules to judge
 * its packets by (the fast path, fast.h, leaves those to this stage). */
static __always_inline int xfab_acl_port_active(__u32 slot)
{
	const struct xfab_acl_port *p = bpf_map_lookup_elem(&acl_ports, &slot);

	return p && p->n_rules;
}

static __always_inline int xfab_stage_acl(const struct xfab_ctx *c, struct xfab_scratch *s)
{
	const struct xfab_meta *m = &s->m;
	const struct xfab_acl_port *p;
	__u32 slot = s->slot, extra = 0, verdict, counter;
	struct xfab_acl_stats *st;
	__u8 b[1];

	p = bpf_map_lookup_elem(&acl_ports, &slot);
	if (!p || !p->n_rules)
		return XFAB_ACT_FORWARD;
	/* copied, not read in place: one helper call each, the same code for
	 * both hooks (the frame ends where the helper says) */
	if (m->l4_off && m->l4_proto == IPPROTO_TCP &&
	    !xfab_ctx_load_bytes(c, m->l4_off + 13, b, 1))
		extra |= XFAB_ACL_X_TCP | b[0];
	if (m->is_roce && xfab_acl_has_aeth(m->roce_opcode) &&
	    !xfab_ctx_load_bytes(c, m->l4_off + 8 + XFAB_BTH_LEN, b, 1))
		extra |= XFAB_ACL_X_AETH | (__u32)b[0] << 16;
	verdict = xfab_acl_walk(slot, p->n_rules, extra, c->tracing);
	if (!verdict)
		return XFAB_ACT_FORWARD;
	counter = (verdict >> 1) - 1;
	if (!c->tracing) {
		st = bpf_map_lookup_elem(&acl_stats, &counter);
		if (st) {
			st->packets++;
			st->bytes += s->rx_len;
		}
	}
	if (verdict & 1)
		return xfab_drop(&s->res, XFAB_DROP_ACL_DROP);
	return XFAB_ACT_FORWARD;
}

#endif
