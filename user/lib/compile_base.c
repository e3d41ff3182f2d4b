// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The base tables (see compile_base.h): built whole from the config and the
 * live ports, and written as the difference from what was written before.
 */
#include "compile_base.h"
#include "xfab_hash.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- growable images ---- */

static void *image_push(struct xfab_table_image *img, enum xfab_table t, size_t *cap)
{
	size_t esz = xfab_table_descs[t].entry_size;
	void *e;

	if (img->count == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		void *bigger = realloc(img->entries, ncap * esz);

		if (!bigger)
			return NULL;
		img->entries = bigger;
		*cap = ncap;
	}
	e = (char *)img->entries + img->count * esz;
	memset(e, 0, esz);
	img->count++;
	return e;
}

static size_t sort_key_size;
static int cmp_key(const void *a, const void *b)
{
	return memcmp(a, b, sort_key_size);
}

/* Integer keys sort numerically only when compared as integers; images only
 * need one consistent order, and memcmp gives one for every table. */
static void image_sort(struct xfab_table_image *img, enum xfab_table t)
{
	sort_key_size = xfab_table_descs[t].key_size;
	if (img->count > 1)
		qsort(img->entries, img->count, xfab_table_descs[t].entry_size, cmp_key);
}

void xfab_base_free(struct xfab_base *t)
{
	for (int i = 0; i < XFAB_T_COUNT; i++) {
		free(t->t[i].entries);
		t->t[i].entries = NULL;
		t->t[i].count = 0;
	}
}

struct build {
	const struct xfab_config *cfg;
	const struct xfab_port_live *live;
	struct xfab_base *next;
	size_t cap[XFAB_T_COUNT];
};

static int build_ports(struct build *b)
{
	const struct xfab_config *cfg = b->cfg;

	for (int p = 0; p < cfg->n_ports; p++) {
		struct xfab_e_port *e =
		    image_push(&b->next->t[XFAB_T_PORTS], XFAB_T_PORTS, &b->cap[XFAB_T_PORTS]);
		struct xfab_e_txport *tx = image_push(&b->next->t[XFAB_T_TX_PORTS], XFAB_T_TX_PORTS,
						      &b->cap[XFAB_T_TX_PORTS]);

		if (!e || !tx)
			return -ENOMEM;
		e->key = b->live[p].ifindex;
		memcpy(e->val.mac, b->live[p].mac, 6);
		e->val.slot = (__u16)p;
		e->val.ifindex = b->live[p].ifindex;
		e->val.flags = (cfg->ports[p].admin_up ? XFAB_PORT_ADMIN_UP : 0) |
			       (b->live[p].oper_up ? XFAB_PORT_OPER_UP : 0);
		for (int tc = 0; tc < XFAB_NUM_TC; tc++)
			if (cfg->ports[p].wred[tc] >= 0)
				e->val.flags |= XFAB_PORT_QUEUED;
		if (cfg->ports[p].rate_mbps || cfg->ports[p].buffer_bytes)
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

/* Classes and queues: the DSCP map, and per (port, class) the port rate,
 * buffer and WRED/ECN curve. */
static int build_qos(struct build *b)
{
	const struct xfab_config *cfg = b->cfg;

	for (__u32 d = 0; d < XFAB_NUM_DSCP; d++) {
		struct xfab_e_dscp *e = image_push(&b->next->t[XFAB_T_DSCP_TO_TC],
						   XFAB_T_DSCP_TO_TC, &b->cap[XFAB_T_DSCP_TO_TC]);

		if (!e)
			return -ENOMEM;
		e->key = d;
		e->val = cfg->dscp_to_tc[d];
	}
	for (int p = 0; p < cfg->n_ports; p++) {
		const struct xfab_cfg_port *port = &cfg->ports[p];

		for (__u32 tc = 0; tc < XFAB_NUM_TC; tc++) {
			struct xfab_e_queue *e =
			    image_push(&b->next->t[XFAB_T_QUEUE_CFG], XFAB_T_QUEUE_CFG,
				       &b->cap[XFAB_T_QUEUE_CFG]);
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
	/* lossless classes: per port with PFC, its priorities, speed and
	 * thresholds (the watchdog's bits are xfabd's to set at run time) */
	for (int p = 0; p < cfg->n_ports; p++) {
		const struct xfab_cfg_pfc *f = &cfg->ports[p].pfc;
		struct xfab_e_pfc *e;

		if (!f->enabled)
			continue;
		e = image_push(&b->next->t[XFAB_T_PFC_CFG], XFAB_T_PFC_CFG,
			       &b->cap[XFAB_T_PFC_CFG]);
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

/* CoPP: every group's meter, configured or default (cir 0: none). */
static int build_copp(struct build *b)
{
	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++) {
		struct xfab_e_copp *e = image_push(&b->next->t[XFAB_T_COPP_CFG], XFAB_T_COPP_CFG,
						   &b->cap[XFAB_T_COPP_CFG]);

		if (!e)
			return -ENOMEM;
		e->key = g;
		e->val.cir = b->cfg->copp[g].cir;
		e->val.cbs = b->cfg->copp[g].cbs;
	}
	return 0;
}

/* ACL: the acl_* tables' entries (acl_compile.c) into the image. */
static int acl_push(void *arg, int t, const void *entry) /* ACL */
{
	struct build *b = arg;
	void *e = image_push(&b->next->t[t], (enum xfab_table)t, &b->cap[t]);

	if (!e)
		return -ENOMEM;
	memcpy(e, entry, xfab_table_descs[t].entry_size);
	return 0;
}

/* The overlay: the VTEP, the VNETs and their VNIs, and each tunnel route's
 * encapsulation (vnet_tunnels entry i + 1 for the config's tunnel i; the
 * route entries in the VNET tables name it, compile.c). */
static int build_overlay(struct build *b)
{
	const struct xfab_config *cfg = b->cfg;
	static const __u8 zero_mac[6];

	if (cfg->vtep) {
		struct xfab_e_vtep *e =
		    image_push(&b->next->t[XFAB_T_VTEP], XFAB_T_VTEP, &b->cap[XFAB_T_VTEP]);

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
		struct xfab_e_vnet *v =
		    image_push(&b->next->t[XFAB_T_VNETS], XFAB_T_VNETS, &b->cap[XFAB_T_VNETS]);
		struct xfab_e_vni *n = image_push(&b->next->t[XFAB_T_VNI_TO_VNET],
						  XFAB_T_VNI_TO_VNET, &b->cap[XFAB_T_VNI_TO_VNET]);

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
		struct xfab_e_tunnel *e =
		    image_push(&b->next->t[XFAB_T_VNET_TUNNELS], XFAB_T_VNET_TUNNELS,
			       &b->cap[XFAB_T_VNET_TUNNELS]);

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

static int build_neighs(struct build *b)
{
	const struct xfab_config *cfg = b->cfg;

	for (int i = 0; i < cfg->n_neighs; i++) {
		const struct xfab_cfg_neigh *n = &cfg->neighs[i];
		struct xfab_e_neigh *e = image_push(&b->next->t[XFAB_T_NEIGHBORS], XFAB_T_NEIGHBORS,
						    &b->cap[XFAB_T_NEIGHBORS]);

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

/* Removes later duplicates of a key (first writer wins). */
static void image_dedup(struct xfab_table_image *img, enum xfab_table t)
{
	const struct xfab_table_desc *d = &xfab_table_descs[t];
	size_t out = 0;

	for (size_t i = 0; i < img->count; i++) {
		char *e = (char *)img->entries + i * d->entry_size;

		if (out &&
		    !memcmp((char *)img->entries + (out - 1) * d->entry_size, e, d->key_size))
			continue;
		if (out != i)
			memmove((char *)img->entries + out * d->entry_size, e, d->entry_size);
		out++;
	}
	img->count = out;
}

static void build_settings(struct build *b, struct xfab_e_settings *s)
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

int xfab_base_build(const struct xfab_config *cfg, const struct xfab_port_live *live,
		    struct xfab_base *next)
{
	struct build b = {.cfg = cfg, .live = live, .next = next};
	struct xfab_e_settings *s;
	int err = -ENOMEM;

	memset(next, 0, sizeof(*next));
	s = image_push(&next->t[XFAB_T_SETTINGS], XFAB_T_SETTINGS, &b.cap[XFAB_T_SETTINGS]);
	if (!s)
		goto out;
	build_settings(&b, s);
	err = build_ports(&b);
	if (!err)
		err = build_neighs(&b);
	if (!err)
		err = build_qos(&b);
	if (!err)
		err = build_overlay(&b);
	if (!err)
		err = build_copp(&b);
	if (!err)
		err = xfab_acl_build(b.cfg, acl_push, &b); /* ACL */
	if (err)
		goto out;
	for (int t = 0; t < XFAB_T_COUNT; t++) {
		image_sort(&next->t[t], (enum xfab_table)t);
		image_dedup(&next->t[t], (enum xfab_table)t);
	}
out:
	if (err)
		xfab_base_free(next);
	return err;
}

/* ---- apply ---- */

enum apply_pass { PASS_UPSERT, PASS_REMOVE };

static int diff_table(const struct xfab_table_image *prev, const struct xfab_table_image *next,
		      enum xfab_table t, enum apply_pass pass, const struct xfab_map_ops *ops)
{
	const struct xfab_table_desc *d = &xfab_table_descs[t];
	size_t i = 0, j = 0;
	int err;

	while (i < prev->count || j < next->count) {
		const char *pe = i < prev->count ? (char *)prev->entries + i * d->entry_size : NULL;
		const char *ne = j < next->count ? (char *)next->entries + j * d->entry_size : NULL;
		int c = !pe ? 1 : !ne ? -1 : memcmp(pe, ne, d->key_size);

		if (c < 0) { /* only in prev: remove */
			if (pass == PASS_REMOVE) {
				err = ops->remove(ops->arg, t, pe);
				if (err)
					return err;
			}
			i++;
		} else if (c > 0) { /* only in next: add */
			if (pass == PASS_UPSERT) {
				err = ops->update(ops->arg, t, ne, ne + d->val_off);
				if (err)
					return err;
			}
			j++;
		} else { /* both: rewrite if changed */
			if (pass == PASS_UPSERT &&
			    memcmp(pe + d->val_off, ne + d->val_off, d->val_size)) {
				err = ops->update(ops->arg, t, ne, ne + d->val_off);
				if (err)
					return err;
			}
			i++;
			j++;
		}
	}
	return 0;
}

int xfab_base_apply(const struct xfab_base *prev, const struct xfab_base *next,
		    const struct xfab_map_ops *ops)
{
	/* ACL: upserts write a row before its count, removals the count
	 * first, so the data plane never walks a record not yet written. */
	/* Upserts run leaves-first (a port's queues before the port, the port
	 * before what sends out of it), removals the other way round. */
	static const enum xfab_table upsert_order[] = {
	    XFAB_T_SETTINGS,	 XFAB_T_DSCP_TO_TC, XFAB_T_QUEUE_CFG, XFAB_T_PFC_CFG,
	    XFAB_T_COPP_CFG,	 XFAB_T_VTEP,	    XFAB_T_VNETS,     XFAB_T_VNI_TO_VNET,
	    XFAB_T_VNET_TUNNELS, XFAB_T_PORTS,	    XFAB_T_TX_PORTS,  XFAB_T_NEIGHBORS,
	    XFAB_T_ACL_INFO,	 XFAB_T_ACL_RULES,  XFAB_T_ACL_PORTS,
	};
	static const enum xfab_table remove_order[] = {
	    XFAB_T_NEIGHBORS,	XFAB_T_TX_PORTS,   XFAB_T_PORTS,    XFAB_T_VNET_TUNNELS,
	    XFAB_T_VNI_TO_VNET, XFAB_T_VNETS,	   XFAB_T_VTEP,	    XFAB_T_PFC_CFG,
	    XFAB_T_QUEUE_CFG,	XFAB_T_DSCP_TO_TC, XFAB_T_SETTINGS, XFAB_T_COPP_CFG,
	    XFAB_T_ACL_PORTS,	XFAB_T_ACL_RULES,  XFAB_T_ACL_INFO,
	};
	int err;

	for (size_t k = 0; k < sizeof(upsert_order) / sizeof(upsert_order[0]); k++) {
		enum xfab_table t = upsert_order[k];

		err = diff_table(&prev->t[t], &next->t[t], t, PASS_UPSERT, ops);
		if (!err && ops->flush)
			err = ops->flush(ops->arg, t);
		if (err)
			return err;
	}
	for (size_t k = 0; k < sizeof(remove_order) / sizeof(remove_order[0]); k++) {
		enum xfab_table t = remove_order[k];

		err = diff_table(&prev->t[t], &next->t[t], t, PASS_REMOVE, ops);
		if (!err && ops->flush)
			err = ops->flush(ops->arg, t);
		if (err)
			return err;
	}
	return 0;
}
