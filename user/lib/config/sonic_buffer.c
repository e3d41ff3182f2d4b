// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SONiC's buffer tables in a SONiC file (docs/CONFIG.md, "QoS and
 * buffers"): a lossless BUFFER_PROFILE over its BUFFER_POOL becomes xfab's
 * XOFF threshold, XON threshold and headroom of the PGs that name it.
 * Fields: sonic-buildimage src/sonic-yang-models/yang-models: sonic-buffer-pool.yang,
 * sonic-buffer-profile.yang, sonic-buffer-queue.yang; their meaning: SAI's
 * saibuffer.h (SHARED_DYNAMIC_TH: the PG may take 2^n of the pool's free
 * buffer; XON_OFFSET_TH: XON when usage <= max(XON_TH, limit - offset)),
 * and sonic-swss's bufferorch.cpp (a profile with xoff is lossless).
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SONIC_BUF_MAX (1u << 30) /* xfab's largest threshold (bytes) */

__u64 cfg_sonic_dynamic_share(int dynamic_th, __u64 pool_bytes)
{
	/* alone in the pool, a PG stops where its use u = alpha x (P - u):
	 * u = P x alpha / (1 + alpha) (Choudhury and Hahne's dynamic
	 * threshold, which SAI's SHARED_DYNAMIC_TH is) */
	if (dynamic_th >= 0)
		return pool_bytes * (1ull << dynamic_th) / ((1ull << dynamic_th) + 1);
	return pool_bytes / (1 + (1ull << -dynamic_th));
}

/* BUFFER_POOL: the catalogue checked its fields' types; xfab reserves the
 * headroom per PG, so a shared headroom pool (xoff) is refused. */
void cfg_sonic_buffer_pools(struct ctx *c, const struct json_value *pools)
{
	char fk[200];

	for (size_t i = 0; pools && i < pools->count; i++) {
		const struct json_value *e = &pools->children[i];
		const struct json_value *f = xfab_json_get(e, "xoff");
		__u32 v;

		snprintf(fk, sizeof(fk), "BUFFER_POOL|%s.xoff", e->key);
		if (f && cfg_parse_u32(c, f, fk, 0, 0xffffffffu, &v) == 0 && v)
			cfg_add_error(c, f->pos, fk,
				      "xfab has no shared headroom pool: each lossless PG has "
				      "its own headroom (its profile's xoff)");
	}
	cfg_sonic_claim(c, "BUFFER_POOL");
}

/* dynamic_th's text: -8..7 (sonic-buffer-profile.yang); 0 or -1. */
static int sonic_dynamic_th(struct ctx *c, const struct json_value *f, const char *fk, int *out)
{
	char buf[16];
	const char *t = cfg_field_text(c, f, fk, buf, sizeof(buf));
	int neg = t && t[0] == '-';
	__u64 v;

	if (!t)
		return -1;
	if (cfg_decimal(t + neg, strlen(t + neg), 8, &v) != CFG_DEC_OK || (!neg && v > 7)) {
		cfg_add_error(c, f->pos, fk,
			      "dynamic_th must be -8..7 (the PG may take 2^dynamic_th of "
			      "the pool's free buffer), not '%s'",
			      t);
		return -1;
	}
	*out = neg ? -(int)v : (int)v;
	return 0;
}

/* A field that must have one value (an enumeration xfab implements one
 * member of): 0, or -1 with why. */
static int sonic_only_value(struct ctx *c, const struct json_value *e, const char *key,
			    const char *name, const char *value, const char *why)
{
	const struct json_value *f = xfab_json_get(e, name);
	char fk[200], buf[32];
	const char *t;

	if (!f)
		return 0;
	cfg_field_key(fk, sizeof(fk), key, name);
	t = cfg_field_text(c, f, fk, buf, sizeof(buf));
	if (t && strcmp(t, value)) {
		cfg_add_error(c, f->pos, fk, "%s: %s", t, why);
		return -1;
	}
	return t ? 0 : -1;
}

/* An optional byte count (0..2^30) into *out; 0 or -1. */
static int sonic_bytes(struct ctx *c, const struct json_value *e, const char *key, const char *name,
		       __u32 lo, __u32 *out)
{
	const struct json_value *f = xfab_json_get(e, name);
	char fk[200];

	if (!f)
		return 0;
	cfg_field_key(fk, sizeof(fk), key, name);
	return cfg_parse_u32(c, f, fk, lo, SONIC_BUF_MAX, out);
}

/* What a profile says, before xfab's thresholds are worked out of it. */
struct sonic_profile {
	const struct json_value *pool; /* its BUFFER_POOL entry */
	__u32 size, static_th, xoff, xon, xon_offset;
	int dynamic_th, has_dynamic, has_static;
};

/* pool, size, the shared threshold, the enumerations: 0 or -1. */
static int sonic_profile_read(struct ctx *c, const struct json_value *pools,
			      const struct json_value *e, const char *key, struct sonic_profile *s)
{
	const struct json_value *f = xfab_json_get(e, "pool"), *d = xfab_json_get(e, "dynamic_th");
	int bad = c->errs->total;
	char fk[200];

	if (!f || !xfab_json_get(e, "size")) {
		cfg_add_error(c, e->pos, key, "missing field \"%s\" (sonic-buffer-profile.yang)",
			      f ? "size" : "pool");
		return -1;
	}
	/* a pool the file lacks was refused before, by sonic_refs.c
	 * (sonic-buffer-profile.yang: pool is a leafref to BUFFER_POOL) */
	s->pool = pools && f->type == JSON_STRING ? xfab_json_get(pools, f->str) : NULL;
	if (!s->pool)
		return -1;
	sonic_bytes(c, e, key, "size", 0, &s->size);
	cfg_field_key(fk, sizeof(fk), key, "dynamic_th");
	s->has_dynamic = d && !sonic_dynamic_th(c, d, fk, &s->dynamic_th);
	s->has_static = !!xfab_json_get(e, "static_th");
	sonic_bytes(c, e, key, "static_th", 0, &s->static_th);
	if (d && s->has_static)
		cfg_add_error(c, d->pos, fk, "dynamic_th and static_th: a profile has one");
	sonic_only_value(c, e, key, "headroom_type", "static",
			 "xfab derives a headroom only for a BUFFER_PG whose profile is NULL");
	sonic_only_value(c, e, key, "packet_discard_action", "drop", "xfab does not trim packets");
	sonic_bytes(c, e, key, "xoff", 1, &s->xoff);
	sonic_bytes(c, e, key, "xon", 0, &s->xon);
	sonic_bytes(c, e, key, "xon_offset", 0, &s->xon_offset);
	return c->errs->total == bad ? 0 : -1;
}

/* The shared part of the XOFF threshold: static_th, or dynamic_th's share
 * of its pool's size; 0 or -1. */
static int sonic_profile_shared(struct ctx *c, const struct json_value *e, const char *key,
				const struct sonic_profile *s, __u64 *shared)
{
	const struct json_value *size = xfab_json_get(s->pool, "size");
	char fk[200];
	__u32 pool_bytes;

	if (s->has_static) {
		*shared = s->static_th;
		return 0;
	}
	if (!s->has_dynamic) {
		cfg_add_error(c, e->key_pos, key,
			      "a lossless profile needs dynamic_th or static_th: xfab's XOFF "
			      "threshold is size plus the shared buffer the PG may take");
		return -1;
	}
	snprintf(fk, sizeof(fk), "BUFFER_POOL|%s.size", s->pool->key);
	if (!size) {
		/* SONiC's dynamic model sizes such a pool at run time */
		cfg_add_error(c, e->key_pos, key,
			      "BUFFER_POOL %s has no size: xfab works the XOFF threshold out "
			      "of dynamic_th and the pool's size",
			      s->pool->key);
		return -1;
	}
	if (cfg_parse_u32(c, size, fk, 0, 0xffffffffu, &pool_bytes))
		return -1;
	*shared = cfg_sonic_dynamic_share(s->dynamic_th, pool_bytes);
	return 0;
}

int cfg_sonic_buffer_profile(struct ctx *c, const struct json_value *pools,
			     const struct json_value *e, const char *key,
			     struct cfg_buffer_profile *p)
{
	static const char *const fields[] = {"pool",	   "size",	    "dynamic_th",
					     "static_th",  "xon",	    "xoff",
					     "xon_offset", "headroom_type", "packet_discard_action",
					     NULL};
	struct sonic_profile s = {0};
	const struct json_value *type;
	__u64 shared, xoff;
	char fk[200];

	if (cfg_check_fields(c, e, key, fields) ||
	    cfg_sonic_entry_refused(c, "BUFFER_PROFILE", e) ||
	    sonic_profile_read(c, pools, e, key, &s))
		return -1;
	/* bufferorch.cpp: a profile with xoff is lossless */
	if (!xfab_json_get(e, "xoff")) {
		p->lossy = 1;
		return 0;
	}
	type = xfab_json_get(s.pool, "type");
	if (type && type->type == JSON_STRING && !strcmp(type->str, "egress")) {
		cfg_field_key(fk, sizeof(fk), key, "xoff");
		cfg_add_error(c, xfab_json_get(e, "xoff")->pos, fk,
			      "xoff (headroom) on a profile of egress pool %s: a lossless "
			      "PG's pool is ingress",
			      s.pool->key);
		return -1;
	}
	if (sonic_profile_shared(c, e, key, &s, &shared))
		return -1;
	xoff = s.size + shared;
	if (xoff == 0 || xoff > SONIC_BUF_MAX) {
		cfg_add_error(c, e->key_pos, key,
			      "the XOFF threshold, size + shared = %llu bytes, must be 1..2^30",
			      (unsigned long long)xoff);
		return -1;
	}
	p->xoff = (__u32)xoff;
	p->headroom = s.xoff; /* SONiC's xoff is the headroom */
	p->xon = s.xon;
	if (s.xon_offset && s.xon_offset < p->xoff && p->xoff - s.xon_offset > p->xon)
		p->xon = p->xoff - s.xon_offset; /* saibuffer.h: max(xon, limit - offset) */
	if (p->xon >= p->xoff) {
		cfg_add_error(c, e->key_pos, key,
			      "XON threshold %u must be below the XOFF threshold %u (size + "
			      "shared)",
			      p->xon, p->xoff);
		return -1;
	}
	return 0;
}

/* BUFFER_QUEUE|PORT|Q or PORT|Q-Q: {"profile"}: the port is a port, the
 * queues xfab's 0..7, the profile a profile. The table stays listed as
 * ignored: xfab's lossless queues are gates that never drop, its lossy
 * ones tail-drop at PORT's buffer (CONFIG.md). */
void cfg_sonic_buffer_queues(struct ctx *c, const struct json_value *root)
{
	const struct json_value *tbl = xfab_json_get(root, "BUFFER_QUEUE");
	char key[160], ifname[XFAB_IFNAMSIZ + 1];

	for (size_t i = 0; tbl && i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];
		const char *bar = strchr(e->key, '|');
		int lo, hi;

		snprintf(key, sizeof(key), "BUFFER_QUEUE|%s", e->key);
		snprintf(ifname, sizeof(ifname), "%.*s", bar ? (int)(bar - e->key) : 0, e->key);
		if (!bar || xfab_config_port_index(c->cfg, ifname) < 0 ||
		    cfg_parse_tc_range(bar + 1, &lo, &hi)) {
			cfg_add_error(c, e->key_pos, key,
				      "expected PORT|Q or PORT|Q-Q, a port of PORT and xfab's "
				      "queues 0..7");
			continue;
		}
		/* profile, a BUFFER_PROFILE, is sonic_refs.c's
		 * (sonic-buffer-queue.yang: a leafref) */
	}
}
