// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * PORT's link event damping fields (docs/CONFIG.md, "Link event damping"),
 * the "damping" feature's parse step: it reads them from the PORT table
 * after the device feature has read the ports (which lets the fields
 * through). SONiC's names and types (the HLD's "YANG model Enhancements"
 * and "Config DB Enhancements", sonic-net/SONiC
 * doc/link_event_damping/Link-event-damping-HLD.md): five uint32 leaves,
 * default 0, and link_event_damping_algorithm "disabled" or "aied".
 *
 * Where SONiC quietly disables damping on a config it cannot use (a 0 or
 * missing parameter with "aied", the HLD's "invalid ... interpreted as
 * link event damping disabled"), xfab refuses the file, as it refuses
 * every other bad value: an operator who asked for damping learns at load
 * that it would not run. flap_penalty alone has a default with "aied",
 * 1000 (the HLD: "By default it is 1000"). The HLD's two orderings hold:
 * decay_half_life <= max_suppress_time, reuse_threshold <=
 * suppress_threshold.
 */
#include "internal.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define DAMP_DEFAULT_FLAP_PENALTY 1000

static const struct {
	const char *name;
	size_t off; /* in struct xfab_damp_cfg */
} damp_fields[] = {
    {"max_suppress_time", offsetof(struct xfab_damp_cfg, max_suppress_time_ms)},
    {"decay_half_life", offsetof(struct xfab_damp_cfg, decay_half_life_ms)},
    {"suppress_threshold", offsetof(struct xfab_damp_cfg, suppress_threshold)},
    {"reuse_threshold", offsetof(struct xfab_damp_cfg, reuse_threshold)},
    {"flap_penalty", offsetof(struct xfab_damp_cfg, flap_penalty)},
};
#define DAMP_N_FIELDS (sizeof(damp_fields) / sizeof(damp_fields[0]))

static __u32 *damp_field(struct xfab_damp_cfg *d, size_t i)
{
	return (__u32 *)((char *)d + damp_fields[i].off);
}

/* link_event_damping_algorithm: 0 and the algorithm, or -1 (said). */
static int damp_parse_algo(struct ctx *c, const struct json_value *e, const char *key, __u32 *algo)
{
	const struct json_value *f = xfab_json_get(e, "link_event_damping_algorithm");
	char fk[200], buf[32];
	const char *t;

	*algo = XFAB_DAMP_DISABLED;
	if (!f)
		return 0;
	cfg_field_key(fk, sizeof(fk), key, "link_event_damping_algorithm");
	t = cfg_field_text(c, f, fk, buf, sizeof(buf));
	if (!t)
		return -1;
	if (!strcmp(t, "aied"))
		*algo = XFAB_DAMP_AIED;
	else if (strcmp(t, "disabled")) {
		cfg_add_error(
		    c, f->pos, fk,
		    "link_event_damping_algorithm must be \"disabled\" or \"aied\", not '%s'", t);
		return -1;
	}
	return 0;
}

/* The HLD's orderings, said at the field that breaks them. */
static void damp_check_order(struct ctx *c, const struct json_value *e, const char *key,
			     const struct xfab_damp_cfg *d)
{
	char fk[200];

	if (d->decay_half_life_ms > d->max_suppress_time_ms) {
		cfg_field_key(fk, sizeof(fk), key, "decay_half_life");
		cfg_add_error(c, xfab_json_get(e, "decay_half_life")->pos, fk,
			      "decay_half_life (%u ms) must not exceed max_suppress_time (%u ms)",
			      d->decay_half_life_ms, d->max_suppress_time_ms);
	}
	if (d->reuse_threshold > d->suppress_threshold) {
		cfg_field_key(fk, sizeof(fk), key, "reuse_threshold");
		cfg_add_error(c, xfab_json_get(e, "reuse_threshold")->pos, fk,
			      "reuse_threshold (%u) must not exceed suppress_threshold (%u)",
			      d->reuse_threshold, d->suppress_threshold);
	}
}

/* One PORT entry's fields into d; -1 when one was refused (said). */
static int damp_parse_entry(struct ctx *c, const struct json_value *e, const char *key,
			    struct xfab_damp_cfg *d)
{
	int bad = damp_parse_algo(c, e, key, &d->algo);
	char fk[200];

	for (size_t i = 0; i < DAMP_N_FIELDS; i++) {
		const struct json_value *f = xfab_json_get(e, damp_fields[i].name);

		cfg_field_key(fk, sizeof(fk), key, damp_fields[i].name);
		if (!f) {
			if (d->algo != XFAB_DAMP_AIED)
				continue;
			if (damp_field(d, i) == &d->flap_penalty) {
				d->flap_penalty = DAMP_DEFAULT_FLAP_PENALTY;
				continue;
			}
			cfg_add_error(
			    c, e->key_pos, key,
			    "link_event_damping_algorithm \"aied\" needs %s (1..4294967295)",
			    damp_fields[i].name);
			bad = 1;
		} else if (cfg_parse_u32(c, f, fk, 0, 0xffffffffu, damp_field(d, i))) {
			bad = 1;
		} else if (d->algo == XFAB_DAMP_AIED && !*damp_field(d, i)) {
			cfg_add_error(c, f->pos, fk,
				      "0 turns damping off (SONiC); with \"aied\" it must be "
				      "1..4294967295, or say \"disabled\"");
			bad = 1;
		}
	}
	if (!bad && d->algo == XFAB_DAMP_AIED)
		damp_check_order(c, e, key, d);
	return bad ? -1 : 0;
}

/* The feature "damping": the fields of every port the device feature
 * kept (an entry it refused has said its error already). */
void cfg_read_damping(struct ctx *c, const struct json_value *root)
{
	const struct json_value *tbl = xfab_json_get(root, "PORT");
	char key[160];

	if (!tbl || tbl->type != JSON_OBJECT)
		return;
	for (size_t i = 0; i < tbl->count; i++) {
		const struct json_value *e = &tbl->children[i];
		int p = xfab_config_port_index(c->cfg, e->key);

		if (p < 0 || e->type != JSON_OBJECT)
			continue;
		snprintf(key, sizeof(key), "PORT|%s", e->key);
		damp_parse_entry(c, e, key, &c->cfg->ports[p].damping);
	}
}
