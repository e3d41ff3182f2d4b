// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The model's queues (model.h, switch "ecn"): classes, the WRED/ECN
 * decision, CE marking, the queue counters, and the tc egress program's
 * part. Written from docs/QOS.md ("Pipeline" 1-3 and its datapath table),
 * docs/CONFIG.md (PORT rate and buffer, WRED_PROFILE, QUEUE),
 * ARCHITECTURE.md (stage 7b; "The tc datapath sends with bpf_redirect()")
 * and RFC 3168 / RFC 1624; nothing here includes bpf/ or the library.
 *
 * Only certain decisions are predicted: QOS.md's curve between Kmin and
 * Kmax acts "with probability Pmax * (q - Kmin) / (Kmax - Kmin)" (a random
 * draw), so the harness sets every queue of the WRED port to an occupancy
 * in a region where the decision is certain (model_set_occupancy): empty
 * (below Kmin: pass), far above Kmax (act on every packet) or at the
 * buffer (tail drop); a decision in between is MQ_UNCERTAIN, which the
 * harness never asks for.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "model_int.h"
#include "xfab_abi.h" /* the reason numbering only */

/* The switch "ecn": p3 (10.0.0.0/8's nexthop, the model's busiest egress)
 * with a rate, the largest buffer CONFIG.md allows and a profile with ECN
 * and drop_nonect on every class; p1 a buffer alone (CONFIG.md's smallest:
 * a port with a queue to judge on tc, none modelled on xdp). */
#define M_ECN_PORT 2
#define M_ECN_RATE 100		/* Mbit/s */
#define M_ECN_BUFFER (1u << 30) /* bytes */
#define M_SMALL_PORT 0
#define M_SMALL_BUFFER 1500
#define M_KMIN 10000
#define M_KMAX 50000
#define M_PMAX 20 /* % */
/* CONFIG.md PORT: a port's buffer when none is given */
#define M_DEFAULT_BUFFER (1u << 20)

void m_qos_variant(struct model *m)
{
	if (m->variant != MODEL_V_ECN)
		return;
	m->port[M_ECN_PORT].rate = M_ECN_RATE;
	m->port[M_ECN_PORT].buffer = M_ECN_BUFFER;
	m->port[M_ECN_PORT].wred = 1;
	m->port[M_SMALL_PORT].buffer = M_SMALL_BUFFER;
}

/* CONFIG.md WRED_PROFILE and QUEUE; appended inside the config object
 * after an open table (the caller closes what this leaves open). */
void m_qos_config(const struct model *m, char *c, size_t sz)
{
	size_t n;

	for (int p = 0; p < MODEL_N_SLOTS; p++) {
		if (!m->port[p].wred)
			continue;
		n = strlen(c);
		snprintf(c + n, sz - n,
			 "},\n \"WRED_PROFILE\": {\"fz\": {\"min_threshold\": \"%u\", "
			 "\"max_threshold\": \"%u\", \"max_probability\": \"%u\", \"ecn\": "
			 "\"ecn_all\", \"drop_nonect\": \"true\"}},\n \"QUEUE\": {\"%s|0-7\": "
			 "{\"wred_profile\": \"fz\"}",
			 M_KMIN, M_KMAX, M_PMAX, m->port[p].name);
		return; /* one WRED port */
	}
}

void model_set_occupancy(struct model *m, uint64_t bytes)
{
	m->occupancy = bytes;
}

int model_wred_port(const struct model *m, uint64_t *kmax, uint64_t *buffer)
{
	for (int p = 0; p < MODEL_N_SLOTS; p++)
		if (m->port[p].wred && m->port[p].rate) {
			*kmax = M_KMAX;
			*buffer = (uint64_t)m->port[p].buffer;
			return p;
		}
	return -1;
}

/* ARCHITECTURE.md "The tc datapath sends ...": a port with a queue to
 * judge has a WRED/ECN profile on a class, a rate or a buffer. */
static int queued(const struct m_port *p)
{
	return p->rate || p->buffer || p->wred;
}

/* QOS.md "Pipeline" 2, on occupancy q for a packet of len bytes with ECN
 * field ecn. The profile (CONFIG.md's defaults: ecn_all, drop_nonect). */
static int decide(const struct m_port *p, uint64_t q, size_t len, int ecn)
{
	uint64_t buffer = p->buffer ? (uint64_t)p->buffer : M_DEFAULT_BUFFER;

	if (q + len > buffer)
		return MQ_DROP_TAIL;
	if (!p->wred || q < M_KMIN)
		return MQ_PASS;
	if (q < M_KMAX) /* probability Pmax (q - Kmin) / (Kmax - Kmin): 0 at Kmin */
		return q == M_KMIN ? MQ_PASS : MQ_UNCERTAIN;
	/* "act": ECT(0), ECT(1) and CE -> CE; Not-ECT dropped (drop_nonect) */
	return ecn ? MQ_MARK : MQ_DROP_WRED;
}

/* QOS.md "Counters": the queue (port, class) counts its packet. */
static int account(struct model_result *r, int slot, int tclass, int verdict, size_t len)
{
	r->queue_key = slot * 8 + tclass;
	r->queue_verdict = verdict;
	r->queue_bytes = len;
	return verdict;
}

/*
 * xdp datapath (QOS.md's table: the phantom queue of each (port, class)
 * on a port with a rate, CONFIG.md PORT rate): the decision on the
 * occupancy the harness set. len: the frame as it leaves the port (QOS.md
 * "Pipeline" 2: a VLAN tag that comes off at the rewrite is not queued).
 */
int m_qos_xdp(const struct model *m, int slot, uint8_t tos, size_t len, struct model_result *r)
{
	const struct m_port *p = &m->port[slot];

	if (!p->rate)
		return MQ_NONE;
	return account(r, slot, m_dscp_to_tc(tos >> 2), decide(p, m->occupancy, len, tos & 3), len);
}

/* RFC 3168 5: CE is both ECN bits; IPv4's header checksum follows
 * (RFC 1624 eqn. 3 over the TOS word), IPv6 has none (QOS.md). */
void m_qos_mark(uint8_t *o, size_t l3, int v6)
{
	if (v6) {
		o[l3 + 1] |= 0x30; /* the traffic class's low two bits */
		return;
	}
	{
		uint16_t old = (uint16_t)(o[l3] << 8 | o[l3 + 1]), hc;
		uint32_t s;

		o[l3 + 1] |= 3;
		hc = (uint16_t)(o[l3 + 10] << 8 | o[l3 + 11]);
		s = (uint32_t)(uint16_t)~hc + (uint16_t)~old + (uint16_t)(o[l3] << 8 | o[l3 + 1]);
		while (s >> 16)
			s = (s & 0xffff) + (s >> 16);
		o[l3 + 10] = (uint8_t)(~s >> 8);
		o[l3 + 11] = (uint8_t)~s;
	}
}

/*
 * tc datapath, the egress program of the port a forwarded frame leaves
 * by (ARCHITECTURE.md "The tc datapath sends with bpf_redirect()"): on a
 * port with a queue to judge, the WRED/ECN decision against the real
 * qdisc's backlog (QOS.md's table: read before this packet is enqueued);
 * nothing counted but the queue's counters and a drop's reason (the tx
 * counters are the pipeline's). backlog: what the harness's egress device
 * holds (a veth's noqueue qdisc: 0). The class is the frame's DSCP's; its
 * IP header starts after 14 bytes (the pipeline sends untagged).
 */
void m_qos_egress(const struct model *m, struct model_result *r, uint64_t backlog)
{
	const struct m_port *p = &m->port[r->out_slot];
	const uint8_t *o = r->out;
	uint16_t proto = (uint16_t)(o[12] << 8 | o[13]);
	uint8_t tos;
	int v;

	memcpy(r->eg_out, r->out, r->out_len);
	r->eg_run = 1;
	r->eg_verdict = MV_FORWARD;
	if (!queued(p) || (proto != 0x0800 && proto != 0x86dd))
		return;
	tos = proto == 0x0800 ? o[15] : (uint8_t)((o[14] & 0x0f) << 4 | o[15] >> 4);
	v = account(r, r->out_slot, m_dscp_to_tc(tos >> 2), decide(p, backlog, r->out_len, tos & 3),
		    r->out_len);
	if (v == MQ_MARK)
		m_qos_mark(r->eg_out, 14, proto == 0x86dd);
	if (v == MQ_DROP_TAIL || v == MQ_DROP_WRED) {
		r->eg_verdict = MV_DROP;
		r->eg_reason = v == MQ_DROP_TAIL ? XFAB_DROP_BUFFER_FULL : XFAB_DROP_WRED;
	}
}

/*
 * The tc side of a frame XDP handed off (ARCHITECTURE.md stage 4b, PFC.md
 * "The xdp datapath"): xfab_tc_handoff runs the pipeline (tc flavour) on a
 * marked packet "and does not count their arrival again (XDP did)"; drops
 * and punts were XDP's already, so what it decides of a lossless packet is
 * xfab_tc's decision without the arrival. The harness's live run sends it
 * on without an egress program (fz_egress.c): that program's rules are
 * judged on every tc forward instead.
 */
void model_handoff(const struct model *m, int in_port, const uint8_t *frame, size_t len,
		   struct model_result *r)
{
	model_run(m, 1, in_port, frame, len, r);
	r->no_rx = 1;
	/* Linux's receive path takes a VLAN tag out of the frame into the skb
	 * (skb_vlan_untag) before tc ingress: a drop or punt that counts the
	 * frame as it came counts it as the tc side holds it, 4 bytes shorter
	 * (one that counts a decapsulated inner frame: that, as before) */
	if (len >= 14 && ((frame[12] == 0x81 && frame[13] == 0x00) ||
			  (frame[12] == 0x88 && frame[13] == 0xa8))) {
		if (r->reason_bytes == len)
			r->reason_bytes -= 4;
		if (r->acl_rule) /* the ACL stage's count too (ACL.md "Counters") */
			r->acl_bytes -= 4;
	}
	r->eg_run = 0;
	if (r->verdict == MV_FORWARD)
		r->queue_key = -1;
}
