// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* SONiC's own tables that xfab gives a meaning (COPP_GROUP, STATIC_ROUTE,
 * LOOPBACK_INTERFACE, FG_NHG...; docs/CONFIG.md, "SONiC CONFIG_DB files").
 * They are no xfab tables: an xfab file refuses them as unknown, and a
 * file that has one is told to be SONiC's. So sonic.c checks each key and
 * value against SONiC's type and lists the table as ignored, as for every
 * SONiC table; the feature that reads it then takes it off that list. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

void cfg_sonic_claim(struct ctx *c, const char *name)
{
	struct xfab_config *cfg = c->cfg;

	for (int i = 0; i < cfg->n_ignored; i++) {
		if (strcmp(cfg->ignored[i], name))
			continue;
		free(cfg->ignored[i]);
		memmove(&cfg->ignored[i], &cfg->ignored[i + 1],
			(size_t)(cfg->n_ignored - i - 1) * sizeof(*cfg->ignored));
		cfg->n_ignored--;
		return;
	}
}

const struct json_value *cfg_sonic_read(struct ctx *c, const struct json_value *root,
					const char *name)
{
	const struct json_value *tbl = c->sonic ? xfab_json_get(root, name) : NULL;

	if (!tbl || tbl->type != JSON_OBJECT)
		return NULL;
	cfg_sonic_claim(c, name);
	return tbl;
}

int cfg_sonic_entry_refused(struct ctx *c, const char *table, const struct json_value *e)
{
	int before = c->errs->total;

	if (c->sonic)
		cfg_sonic_refs(c, table, e);
	return c->errs->total != before;
}
