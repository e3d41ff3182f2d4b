// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The build steps of the features that write base tables (compile_base.h):
 * each adds its entries from the config and the live ports, and the
 * feature registry (feature.c) names it.
 */
#include "compile_base.h"
#include "xfab_hash.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A port whose egress the queue stage judges: a WRED/ECN profile on a
 * class, or a rate or buffer (a queue of its own). */
int xfab_port_queued(const struct xfab_config *cfg, int p)
{
	const struct xfab_cfg_port *port = &cfg->ports[p];

	for (int tc = 0; tc < XFAB_NUM_TC; tc++)
		if (port->wred[tc] >= 0)
			return 1;
	return port->rate_mbps || port->buffer_bytes;
}

static void build_settings(struct xfab_base_build *b, struct xfab_e_settings *s)
{
	const struct xfab_config *cfg = b->cfg;

	s->key = 0;
	s->val.hash_seed = cfg->hash_seed;
	s->val.hash_fields = cfg->hash_fields;
	s->val.flags = (cfg->symmetric ? XFAB_SET_SYMMETRIC : 0) |
		       (cfg->flowlet ? XFAB_SET_FLOWLET : 0) | (cfg->te_enabled ? XFAB_SET_TE : 0) |
		       (cfg->repair_bounce ? XFAB_SET_REPAIR : 0) |
		       (cfg->split_horizon ? XFAB_SET_SPLIT_HORIZON : 0);
	s->val.flowlet_mode = (__u32)cfg->flowlet_mode;
	s->val.flowlet_gap_ns = (__u64)cfg->flowlet_gap_us * 1000;
	s->val.load_window_ns = (__u64)cfg->load_window_us * 1000;
	s->val.flowlet_age_ns = (__u64)cfg->flowlet_age_ms * 1000000;
	xfab_hash_key_derive(&s->val.ecmp_key, cfg->hash_seed, cfg->hash_fields);
	xfab_hash_key_derive(&s->val.tunnel_key, cfg->hash_seed,
			     XFAB_TUNNEL_HASH_FIELDS(cfg->hash_fields));
}

static int build_ports(struct xfab_base_build *b)
{
	const struct xfab_config *cfg = b->cfg;

	for (int p = 0; p < cfg->n_ports; p++) {
		struct xfab_e_port *e = xfab_base_push(b, XFAB_T_PORTS);
		struct xfab_e_txport *tx = xfab_base_push(b, XFAB_T_TX_PORTS);

		if (!e || !tx)
			return -ENOMEM;
		e->key = b->live[p].ifindex;
		memcpy(e->val.mac, b->live[p].mac, 6);
		e->val.slot = (__u16)p;
		e->val.ifindex = b->live[p].ifindex;
		e->val.flags = (cfg->ports[p].admin_up ? XFAB_PORT_ADMIN_UP : 0) |
			       (b->live[p].oper_up ? XFAB_PORT_OPER_UP : 0);
		if (xfab_port_queued(cfg, p))
			e->val.flags |= XFAB_PORT_QUEUED;
		if (cfg->ports[p].pfc.enabled)
			e->val.flags |= XFAB_PORT_LOSSLESS;
		e->val.mtu = (__u16)cfg->ports[p].mtu;
		e->val.datapath = (__u8)cfg->datapath;
		e->val.vnet = (__u8)cfg->ports[p].vnet;
		snprintf(e->val.name, sizeof(e->val.name), "%s", cfg->ports[p].name);
		tx->key = (__u32)p; /* the slot */
		tx->val.ifindex = b->live[p].ifindex;
	}
	return 0;
}

/* The switch: its settings (one entry; the load-balancing, TE and repair
 * features' switches live in it) and its ports. */
int xfab_build_device(struct xfab_base_build *b)
{
	struct xfab_e_settings *s = xfab_base_push(b, XFAB_T_SETTINGS);

	if (!s)
		return -ENOMEM;
	build_settings(b, s);
	return build_ports(b);
}

int xfab_build_neighs(struct xfab_base_build *b)
{
	const struct xfab_config *cfg = b->cfg;

	for (int i = 0; i < cfg->n_neighs; i++) {
		const struct xfab_cfg_neigh *n = &cfg->neighs[i];
		struct xfab_e_neigh *e = xfab_base_push(b, XFAB_T_NEIGHBORS);

		if (!e)
			return -ENOMEM;
		e->key.ifindex = b->live[n->port].ifindex;
		e->key.family = (__u8)n->family;
		memcpy(e->key.addr, n->addr, 16);
		memcpy(e->val.mac, n->mac, 6);
		e->val.flags = XFAB_NEIGH_STATIC;
	}
	return 0;
}

/* Classes and queues: the DSCP map, and per (port, class) the port rate,
 * buffer and WRED/ECN curve. */
int xfab_build_qos(struct xfab_base_build *b)
{
	const struct xfab_config *cfg = b->cfg;

	for (__u32 d = 0; d < XFAB_NUM_DSCP; d++) {
		struct xfab_e_dscp *e = xfab_base_push(b, XFAB_T_DSCP_TO_TC);

		if (!e)
			return -ENOMEM;
		e->key = d;
		e->val = cfg->dscp_to_tc[d];
	}
	for (int p = 0; p < cfg->n_ports; p++) {
		const struct xfab_cfg_port *port = &cfg->ports[p];

		for (__u32 tc = 0; tc < XFAB_NUM_TC; tc++) {
			struct xfab_e_queue *e = xfab_base_push(b, XFAB_T_QUEUE_CFG);
			const struct xfab_cfg_wred *w;

			if (!e)
				return -ENOMEM;
			e->key = XFAB_QUEUE_KEY((__u32)p, tc);
			e->val.rate_kbps = (__u64)port->rate_mbps * 1000;
			e->val.tx_fp = xfab_queue_tx_fp(e->val.rate_kbps);
			/* a lossless queue never tail-drops: its gate holds what
			 * comes while the pause takes hold (docs/PFC.md) */
			e->val.buffer_bytes =
			    port->pfc.enabled & (1u << tc) ? 0 : port->buffer_bytes;
			if (port->wred[tc] < 0)
				continue;
			w = &cfg->wred[port->wred[tc]];
			e->val.flags = XFAB_WRED_ENABLED | (w->ecn ? XFAB_WRED_ECN : 0) |
				       (w->drop_nonect ? XFAB_WRED_DROP_NONECT : 0);
			e->val.kmin_bytes = w->kmin_bytes;
			e->val.kmax_bytes = w->kmax_bytes;
			e->val.pmax = w->pmax_percent >= 100
					  ? 0xffffffffu
					  : (__u32)(((__u64)w->pmax_percent << 32) / 100);
		}
	}
	return 0;
}

/* Lossless classes: per port with PFC, its priorities, speed and
 * thresholds (the watchdog's bits are xfabd's to set at run time). */
int xfab_build_pfc(struct xfab_base_build *b)
{
	const struct xfab_config *cfg = b->cfg;

	for (int p = 0; p < cfg->n_ports; p++) {
		const struct xfab_cfg_pfc *f = &cfg->ports[p].pfc;
		struct xfab_e_pfc *e;

		if (!f->enabled)
			continue;
		e = xfab_base_push(b, XFAB_T_PFC_CFG);
		if (!e)
			return -ENOMEM;
		e->key = (__u32)p;
		e->val.enabled = f->enabled;
		e->val.speed_mbps = f->speed_mbps;
		for (int pg = 0; pg < XFAB_NUM_PRIO; pg++) {
			e->val.xoff_bytes[pg] = f->xoff[pg];
			e->val.xon_bytes[pg] = f->xon[pg];
		}
	}
	return 0;
}

/* The overlay: the VTEP, the VNETs and their VNIs, and each tunnel route's
 * encapsulation (vnet_tunnels entry i + 1 for the config's tunnel i; the
 * route entries in the VNET tables name it, compile.c). */
int xfab_build_overlay(struct xfab_base_build *b)
{
	const struct xfab_config *cfg = b->cfg;
	static const __u8 zero_mac[6];

	if (cfg->vtep) {
		struct xfab_e_vtep *e = xfab_base_push(b, XFAB_T_VTEP);

		if (!e)
			return -ENOMEM;
		e->key = 0;
		memcpy(&e->val.src_v4, cfg->vtep_src, 4);
		e->val.flags = XFAB_VTEP_ENABLED;
		if (memcmp(cfg->router_mac, zero_mac, 6) || cfg->n_ports == 0)
			memcpy(e->val.mac, cfg->router_mac, 6);
		else
			memcpy(e->val.mac, b->live[0].mac, 6);
		e->val.udp_port = XFAB_VXLAN_UDP_PORT;
		snprintf(e->val.name, sizeof(e->val.name), "%s", cfg->vtep_name);
	}
	for (int i = 0; i < cfg->n_vnets; i++) {
		struct xfab_e_vnet *v = xfab_base_push(b, XFAB_T_VNETS);
		struct xfab_e_vni *n = xfab_base_push(b, XFAB_T_VNI_TO_VNET);

		if (!v || !n)
			return -ENOMEM;
		v->key = (__u32)i + 1;
		v->val.vni = cfg->vnets[i].vni;
		v->val.flags = XFAB_VNET_VALID;
		snprintf(v->val.name, sizeof(v->val.name), "%s", cfg->vnets[i].name);
		n->key = cfg->vnets[i].vni;
		n->val = (__u32)i + 1;
	}
	for (int i = 0; i < cfg->n_tunnels; i++) {
		const struct xfab_cfg_tunnel *t = &cfg->tunnels[i];
		struct xfab_e_tunnel *e = xfab_base_push(b, XFAB_T_VNET_TUNNELS);

		if (!e)
			return -ENOMEM;
		e->key = (__u32)i + 1;
		e->val.vni = t->vni;
		memcpy(e->val.mac, t->mac, 6);
		e->val.num_endpoints = (__u8)t->n_endpoints;
		for (int k = 0; k < t->n_endpoints; k++)
			memcpy(&e->val.endpoints[k], t->endpoints[k], 4);
	}
	return 0;
}

/* CoPP: every group's meter, configured or default (cir 0: none). */
int xfab_build_copp(struct xfab_base_build *b)
{
	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++) {
		struct xfab_e_copp *e = xfab_base_push(b, XFAB_T_COPP_CFG);

		if (!e)
			return -ENOMEM;
		e->key = g;
		e->val.cir = b->cfg->copp[g].cir;
		e->val.cbs = b->cfg->copp[g].cbs;
	}
	return 0;
}
