// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The reference model's load balancing: the flow hash and the fields it
 * covers, a group's member, LOCAL_REPAIR's split horizon and bounce, TE
 * pins, and the switches (variants) that turn them on. Written from
 * LOAD_BALANCING.md "How a member is chosen" and "Groups", CONFIG.md's
 * ECMP, LOCAL_REPAIR and TE_PATH, ARCHITECTURE.md's stages 6-8 and
 * include/xfab_hash.h's specification comment (not its code); nothing
 * here includes bpf/ or the library.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "model_int.h"
#include "xfab_abi.h" /* the lb_stats numbering only */

/* ---- the switches ---- */

/* CONFIG.md ECMP hash_fields' names, bit n: enum m_hash_field's */
static const char *const m_field_names[] = {"SRC_IP",	    "DST_IP",	   "IP_PROTOCOL",
					    "L4_SRC_PORT",  "L4_DST_PORT", "IPV6_FLOW_LABEL",
					    "ROCE_DEST_QP", "INNER"};

/*
 * TE pins (CONFIG.md TE_PATH, CONTROL.md `te add`): ingress port, prefix,
 * gateway; runtime ones the harness installs as xfabd does for `xfabctl te
 * add`, the others in the config's TE_PATH table. None on the tenant's
 * port p6 (the encapsulated packet's underlay lookup meets none).
 */
static const struct {
	const char *in, *prefix, *via;
	int runtime;
} m_pins[] = {
    {"p1", "10.9.0.0/16", "10.0.3.1", 1},    /* a group's prefix to one member */
    {"p1", "fd09::/32", "fd02::3", 1},	     /* the same, IPv6 */
    {"p1", "10.77.0.0/16", "10.0.2.1", 1},   /* shorter than the routes (a blackhole /32) */
    {"p1", "11.0.0.0/8", "10.0.2.1", 1},     /* a destination with no route */
    {"p1", "10.6.0.0/16", "10.0.1.99", 0},   /* an unresolved gateway */
    {"p2", "198.18.0.0/15", "10.0.3.1", 0},  /* from the config */
    {"p2", "fd09:0:0:5::/64", "fd02::3", 1}, /* back out of the ingress port */
    {"p3", "10.8.0.0/16", "10.0.3.1", 1},    /* the same: no split horizon on a pin */
};
#define M_N_PINS (sizeof(m_pins) / sizeof(m_pins[0]))

static int slot_of(const struct model *m, const char *name)
{
	for (int p = 0; p < MODEL_N_SLOTS; p++)
		if (!strcmp(m->port[p].name, name))
			return p;
	return -1;
}

static int add_pins(struct model *m)
{
	for (size_t i = 0; i < M_N_PINS; i++) {
		uint8_t addr[16];
		int fam, gfam, plen;
		struct m_route *r;

		if (m_parse_prefix(m_pins[i].prefix, &fam, addr, &plen))
			return -1;
		r = m_add_route(m, fam, addr, plen, RT_NEXTHOP);
		if (!r || m_parse_addr(m_pins[i].via, &gfam, r->gw[0]) || gfam != fam)
			return -1;
		r->vnet = M_VNET_TE;
		r->in_slot = slot_of(m, m_pins[i].in);
		r->n_gw = 1;
	}
	m->te = 1;
	return 0;
}

/* CONFIG.md LOCAL_REPAIR: the repair ports p2 and p3, the other ends of
 * their IPv4 /31s, the group of a table of its own (one for both
 * families). */
static int add_repair_group(struct model *m)
{
	static const uint8_t any[16];
	struct m_route *r = m_add_route(m, 4, any, 0, RT_GROUP);

	if (!r)
		return -1;
	r->vnet = M_VNET_REPAIR;
	for (int p = 1; p <= 2; p++) {
		uint8_t addr[16];
		int fam, plen;

		if (m_parse_prefix(m->port[p].addrs[0], &fam, addr, &plen) || fam != 4 ||
		    plen != 31)
			return -1;
		addr[3] ^= 1;
		memcpy(r->gw[r->n_gw], addr, 16);
		r->order[r->n_gw] = r->n_gw;
		r->n_gw++;
	}
	/* routes with the same gateways share one group (model.c): the
	 * repair table's route too */
	r->group = -1;
	for (int g = 0; g < m->n_groups; g++) {
		const struct m_route *o = &m->rt[m->group_route[g]];

		if (o->family == 4 && o->n_gw == 2 && !memcmp(o->gw, r->gw, sizeof(r->gw[0]) * 2))
			r->group = g;
	}
	if (r->group < 0) {
		r->group = m->n_groups;
		m->group_route[m->n_groups++] = (int)(r - m->rt);
	}
	m->bounce = 1;
	return 0;
}

/* 1 for the switches this file plays. */
static int lb_switch(int variant)
{
	return variant >= MODEL_V_SYMMETRIC && variant <= MODEL_V_DEAD_MEMBER;
}

int m_lb_setup(struct model *m)
{
	m->hash_fields = M_HF_DEFAULT;
	switch (m->variant) {
	case MODEL_V_SYMMETRIC:
		m->symmetric = 1;
		m->hash_fields |= M_HF_LABEL;
		return 0;
	case MODEL_V_ROCE_QP: /* E-ECMP; a smaller set shows the masks */
		m->hash_fields = M_HF_SRC_IP | M_HF_DST_IP | M_HF_DPORT | M_HF_QP;
		return 0;
	case MODEL_V_INNER:
		m->hash_fields |= M_HF_INNER | M_HF_QP;
		return 0;
	case MODEL_V_SPLIT_HORIZON:
		m->split_horizon = 1;
		return add_repair_group(m);
	case MODEL_V_TE_PIN:
		m->split_horizon = 1;
		return add_pins(m);
	case MODEL_V_DEAD_MEMBER:
		m->oper_up[2] = 0; /* p3's carrier */
		m->split_horizon = 1;
		return add_repair_group(m) || add_pins(m) ? -1 : 0;
	default:
		return 0;
	}
}

void m_lb_config(const struct model *m, char *c, size_t size)
{
	char line[256];
	int first = 1;

	if (!lb_switch(m->variant)) /* the others keep the defaults */
		return;
	m_add(c, size, ",\n \"ECMP\": {\"global\": {\"hash_fields\": \"");
	for (int b = 0; b < 8; b++)
		if (m->hash_fields & (1u << b)) {
			m_add(c, size, first ? "" : ",");
			m_add(c, size, m_field_names[b]);
			first = 0;
		}
	m_add(c, size, m->symmetric ? "\", \"symmetric\": \"true\"" : "\"");
	/* a switch with a port down refills from scratch (CONFIG.md ECMP
	 * resilient false), so the port's return, a link event under this
	 * config, gives the next switch a fresh fill again */
	m_add(c, size, m->variant == MODEL_V_DEAD_MEMBER ? ", \"resilient\": \"false\"}}" : "}}");
	if (m->split_horizon || m->bounce) {
		snprintf(line, sizeof(line),
			 ",\n \"LOCAL_REPAIR\": {\"global\": {\"split_horizon\": \"%s\"%s}}",
			 m->split_horizon ? "true" : "false",
			 m->bounce ? ", \"bounce\": \"true\", \"ports\": \"p2,p3\"" : "");
		m_add(c, size, line);
	}
	if (!m->te)
		return;
	m_add(c, size, ",\n \"TE_PATH\": {");
	first = 1;
	for (size_t i = 0; i < M_N_PINS; i++) {
		if (m_pins[i].runtime)
			continue;
		snprintf(line, sizeof(line), "%s\"%s|%s\": {\"nexthop\": \"%s\"}",
			 first ? "" : ", ", m_pins[i].in, m_pins[i].prefix, m_pins[i].via);
		m_add(c, size, line);
		first = 0;
	}
	m_add(c, size, "}");
}

int model_te_runtime_pin(const struct model *m, int i, const char **in, const char **prefix,
			 const char **via)
{
	int n = 0;

	for (size_t k = 0; m->te && k < M_N_PINS; k++) {
		if (!m_pins[k].runtime || n++ != i)
			continue;
		*in = m_pins[k].in;
		*prefix = m_pins[k].prefix;
		*via = m_pins[k].via;
		return 0;
	}
	return -1;
}

/* ---- the flow hash (LOAD_BALANCING.md "How a member is chosen" 2) ---- */

/* A 32-bit word of the flow: network-order bytes read as a little-endian
 * host integer (the data plane's hosts are little-endian). */
static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A port's network-order bytes read as a host integer. */
static uint32_t port_word(uint16_t port)
{
	return (uint32_t)(port >> 8) | (uint32_t)(port & 0xff) << 8;
}

/* Symmetric: the end (address words in order, then the port, each as the
 * hash reads it) that is lower goes first (flowhash_examples.py C). */
static int ends_swapped(const uint32_t *src, uint32_t sp, const uint32_t *dst, uint32_t dp,
			int words)
{
	for (int i = 0; i < words; i++)
		if (src[i] != dst[i])
			return src[i] > dst[i];
	return sp > dp;
}

uint32_t m_hash(const struct model *m, const struct m_flow *fl, unsigned fields, int symmetric)
{
	uint32_t src[4] = {0}, dst[4] = {0}, sp, dp, misc, t;
	int words = fl->v6 ? 4 : 1;
	uint64_t h = m->k0;

	/* a field not hashed adds nothing (its key 0, or its word masked) */
	for (int i = 0; i < words; i++) {
		src[i] = fields & M_HF_SRC_IP ? le32(fl->src + 4 * i) : 0;
		dst[i] = fields & M_HF_DST_IP ? le32(fl->dst + 4 * i) : 0;
	}
	sp = fields & M_HF_SPORT ? port_word(fl->sport) : 0;
	dp = fields & M_HF_DPORT ? port_word(fl->dport) : 0;
	if (symmetric && ends_swapped(src, sp, dst, dp, words)) {
		for (int i = 0; i < 4; i++) {
			t = src[i];
			src[i] = dst[i];
			dst[i] = t;
		}
		t = sp;
		sp = dp;
		dp = t;
	}
	misc = (fields & M_HF_PROTO ? fl->proto : 0) |
	       (fields & M_HF_QP ? (fl->qp & 0xffffff) << 8 : 0);
	for (int i = 0; i < words; i++)
		h += m->ksrc[i] * src[i] + m->kdst[i] * dst[i];
	h += m->kports * (uint64_t)(sp | dp << 16);
	h += m->kmisc * (uint64_t)misc;
	if (fl->v6 && (fields & M_HF_LABEL))
		h += m->klabel * (uint64_t)(fl->label & 0xfffff);
	return (uint32_t)(h >> 32);
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * INNER (LOAD_BALANCING.md 2): a VXLAN packet (UDP 4789; its UDP, VXLAN
 * and inner Ethernet headers in the frame) hashes on the inner IPv4
 * (fixed header in the frame, IHL at least 5) or IPv6 header (fixed
 * header): addresses, protocol or next header, flow label, and a TCP or
 * UDP inner packet's ports when their 4 bytes are there (an IPv4
 * fragment: none); no QP. Anything else keeps the outer flow.
 */
static void inner_flow(const uint8_t *f, const struct m_pkt *k, struct m_flow *fl)
{
	size_t ie = k->l4 + 16, ih = ie + 14, l4 = 0;
	struct m_flow in;

	if (k->l4_proto != 17 || !k->have_ports || k->dport != 4789 || ih > k->len)
		return;
	memset(&in, 0, sizeof(in));
	if (rd16(f + ie + 12) == 0x0800) {
		if (ih + 20 > k->len || (f[ih] & 0x0f) < 5)
			return;
		memcpy(in.src, f + ih + 12, 4);
		memcpy(in.dst, f + ih + 16, 4);
		in.proto = f[ih + 9];
		if (!(rd16(f + ih + 6) & 0x3fff))
			l4 = ih + (size_t)(f[ih] & 0x0f) * 4;
	} else if (rd16(f + ie + 12) == 0x86dd) {
		if (ih + 40 > k->len)
			return;
		in.v6 = 1;
		memcpy(in.src, f + ih + 8, 16);
		memcpy(in.dst, f + ih + 24, 16);
		in.label =
		    (uint32_t)(f[ih + 1] & 0x0f) << 16 | (uint32_t)f[ih + 2] << 8 | f[ih + 3];
		in.proto = f[ih + 6];
		l4 = ih + 40;
	} else {
		return;
	}
	if (l4 && (in.proto == 6 || in.proto == 17) && l4 + 4 <= k->len) {
		in.sport = rd16(f + l4);
		in.dport = rd16(f + l4 + 2);
	}
	*fl = in;
}

void m_flow_of(const struct model *m, const uint8_t *f, const struct m_pkt *k, int underlay,
	       struct m_flow *fl)
{
	memset(fl, 0, sizeof(*fl));
	fl->v6 = k->v6;
	memcpy(fl->src, k->src, k->v6 ? 16 : 4);
	memcpy(fl->dst, k->dst, k->v6 ? 16 : 4);
	fl->proto = k->l4_proto;
	if (k->have_ports) {
		fl->sport = k->sport;
		fl->dport = k->dport;
	}
	fl->qp = k->qp;
	fl->label = k->v6 ? k->label : 0;
	/* routing keeps the outer headers; the tenant's packets and the
	 * tunnel's outer one are not hashed on inner headers */
	if (underlay && f && (m->hash_fields & M_HF_INNER))
		inner_flow(f, k, fl);
}

uint32_t model_flow_hash(const struct model *m, int v6, const uint8_t *src, const uint8_t *dst,
			 uint8_t proto, uint16_t sport, uint16_t dport)
{
	return model_flow_hash_ex(m, NULL, 0, v6, src, dst, proto, sport, dport, 0, 0);
}

uint32_t model_flow_hash_ex(const struct model *m, const char *fields, int symmetric, int v6,
			    const uint8_t *src, const uint8_t *dst, uint8_t proto, uint16_t sport,
			    uint16_t dport, uint32_t qp, uint32_t label)
{
	unsigned set = fields ? 0 : M_HF_DEFAULT;
	struct m_flow fl;

	for (int b = 0; fields && b < 8; b++) {
		const char *at = strstr(fields, m_field_names[b]);
		size_t n = strlen(m_field_names[b]);

		if (at && (at == fields || at[-1] == ',') && (at[n] == ',' || !at[n]))
			set |= 1u << b;
	}
	memset(&fl, 0, sizeof(fl));
	fl.v6 = v6;
	memcpy(fl.src, src, v6 ? 16 : 4);
	memcpy(fl.dst, dst, v6 ? 16 : 4);
	fl.proto = proto;
	fl.sport = sport;
	fl.dport = dport;
	fl.qp = qp;
	fl.label = label;
	return m_hash(m, &fl, set, symmetric);
}

/* ---- a route's path (ARCHITECTURE.md 6-8, LOAD_BALANCING.md) ---- */

static int port_up(const struct model *m, int slot)
{
	return slot >= 0 && m->oper_up[slot] && m->port[slot].admin_up;
}

int m_gw_live(const struct model *m, const struct m_route *rt, int gi)
{
	return port_up(m, m_gw_port(m, rt->vnet == 1, rt->family == 6, rt->gw[gi]));
}

/*
 * LOAD_BALANCING.md "Groups": a fresh fill gives bucket b to member
 * b % n (model.c number_nexthops); a member going down gives its buckets
 * to the live ones, the others staying. With one live member (the model's
 * groups have two) every bucket is its; more, this model does not say.
 */
int m_bucket_gw(const struct model *m, const struct m_route *rt, int b)
{
	int gi = rt->order[b % rt->n_gw], live = -1, n_live = 0;

	if (m_gw_live(m, rt, gi))
		return gi;
	for (int k = 0; k < rt->n_gw; k++)
		if (m_gw_live(m, rt, k)) {
			live = k;
			n_live++;
		}
	return n_live == 1 ? live : -1;
}

static uint32_t flow_hash_of(const struct model *m, const struct m_pkt *k, const uint8_t *f,
			     int underlay)
{
	struct m_flow fl;

	m_flow_of(m, f, k, underlay, &fl);
	return m_hash(m, &fl, m->hash_fields, m->symmetric);
}

/* hop through gateway gi of rt (vnet: whose connected subnets). */
static void via_gw(const struct model *m, const struct m_route *rt, int gi, int vnet, int v6,
		   struct m_hop *h)
{
	h->gw = rt->gw[gi];
	h->port = m_gw_port(m, vnet == 1, v6, h->gw);
	h->dmac = h->port < 0 ? NULL : m_neighbour(h->port, v6, h->gw);
	h->dead = h->port >= 0 && !port_up(m, h->port);
}

void m_path(const struct model *m, const struct m_route *rt, const struct m_pkt *k,
	    const uint8_t *f, int vnet, struct m_hop *h)
{
	memset(h, 0, sizeof(*h));
	h->port = -1;
	h->member = -1;
	if (rt->type == RT_CONNECTED) {
		h->port = rt->port;
		h->dmac = m_neighbour(h->port, k->v6, k->dst);
		h->dead = !port_up(m, h->port);
		return;
	}
	if (rt->type == RT_GROUP) {
		/* the bucket hash & 255 names the member */
		h->hash = flow_hash_of(m, k, f, vnet == 0);
		h->member = m_bucket_gw(m, rt, (int)(h->hash & 255));
		if (h->member < 0) {
			h->empty = 1;
			return;
		}
		via_gw(m, rt, h->member, vnet, rt->family == 6, h);
		return;
	}
	via_gw(m, rt, 0, vnet, rt->family == 6, h);
}

/* The member of group rt met first walking its members (by nexthop id)
 * from start (the flow's hash) whose port is up and not avoid; -1: none. */
static int member_avoiding(const struct model *m, const struct m_route *rt, int avoid,
			   uint32_t start)
{
	for (int i = 0; i < rt->n_gw; i++) {
		int gi = rt->order[(start % (uint32_t)rt->n_gw + (uint32_t)i) % (uint32_t)rt->n_gw];
		int port = m_gw_port(m, 0, rt->family == 6, rt->gw[gi]);

		if (port != avoid && port_up(m, port))
			return gi;
	}
	return -1;
}

static const struct m_route *repair_group(const struct model *m)
{
	for (int i = 0; i < m->n_rt; i++)
		if (m->rt[i].vnet == M_VNET_REPAIR)
			return &m->rt[i];
	return NULL;
}

/*
 * CONFIG.md LOCAL_REPAIR, on the route's own path (a TE pin's is not):
 * split horizon, a group that chose the ingress port takes another live
 * member, the first of a walk from the flow's hash (ARCHITECTURE.md 6),
 * or keeps it when there is none; bounce, a dead path (a group with no
 * live member, a nexthop or connected neighbour whose port is down, also
 * when the loss took its neighbour) leaves by the repair group's member
 * for the flow's hash, never the ingress port (another live member, else
 * no bounce).
 */
void m_repair(const struct model *m, const struct m_route *rt, const struct m_pkt *k,
	      const uint8_t *f, int in_slot, struct m_hop *h, int *lb)
{
	const struct m_route *rep = repair_group(m);
	uint32_t hash;
	int gi;

	if (m->split_horizon && rt->type == RT_GROUP && !h->empty && h->dmac &&
	    h->port == in_slot) {
		gi = member_avoiding(m, rt, in_slot, h->hash);
		if (gi < 0)
			return; /* the ingress port is the only way */
		*lb |= 1 << XFAB_LB_SPLIT_HORIZON;
		h->member = gi;
		via_gw(m, rt, gi, 0, rt->family == 6, h);
		return;
	}
	if (!m->bounce || !rep || !(h->empty || (h->port >= 0 && h->dead)))
		return;
	hash = flow_hash_of(m, k, f, 1);
	gi = m_bucket_gw(m, rep, (int)(hash & 255));
	if (gi < 0)
		return;
	if (m_gw_port(m, 0, 0, rep->gw[gi]) == in_slot || !m_gw_live(m, rep, gi))
		gi = member_avoiding(m, rep, in_slot, hash);
	if (gi < 0)
		return;
	*lb |= 1 << XFAB_LB_REPAIRED;
	memset(h, 0, sizeof(*h));
	h->member = gi;
	via_gw(m, rep, gi, 0, 0, h); /* the peer's neighbour, of its own family */
}

/* ---- TE (LOAD_BALANCING.md 1, CONFIG.md TE_PATH) ---- */

const struct m_route *m_te_pin(const struct model *m, int in_slot, const struct m_pkt *k)
{
	const struct m_route *best = NULL;

	for (int i = 0; i < m->n_rt; i++) {
		const struct m_route *r = &m->rt[i];

		if (r->vnet == M_VNET_TE && r->in_slot == in_slot && r->family == (k->v6 ? 6 : 4) &&
		    m_in_prefix(k->dst, r->addr, r->plen) && (!best || r->plen > best->plen))
			best = r;
	}
	return best;
}

int m_te_usable(const struct model *m, const struct m_route *pin)
{
	return m_gw_live(m, pin, 0);
}
