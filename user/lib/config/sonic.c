// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A SONiC CONFIG_DB file (docs/CONFIG.md, "SONiC CONFIG_DB files"): the
 * tables and fields xfab implements are read as in an xfab file; those
 * SONiC defines and xfab does not are accepted, each value still checked
 * against the type SONiC's YANG gives it (config/sonic/catalogue.json), and
 * listed once by name as ignored; what SONiC does not define either is
 * refused, so a typo never passes for a SONiC table. */
#include "internal.h"
#include "sonic_catalogue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The entry's list in SONiC's table def, its key checked; NULL (refused)
 * when the key fits none of the table's lists. */
static const struct json_value *sonic_entry_list(struct ctx *c, const struct json_value *def,
						 const struct json_value *e, const char *key)
{
	const struct json_value *list = xfab_sonic_list_for_key(def, e->key);
	char why[256];

	if (!list) {
		cfg_add_error(c, e->key_pos, key,
			      "no list of SONiC's table has a key of this shape");
		return NULL;
	}
	if (xfab_sonic_check_key(list, e->key, why, sizeof(why))) {
		cfg_add_error(c, e->key_pos, key, "%s", why);
		return NULL;
	}
	return list;
}

/* Table t, which SONiC defines (def) and xfab does not implement: every
 * entry's key and fields checked, then the table listed as ignored. */
static void sonic_check_table(struct ctx *c, const struct json_value *t,
			      const struct json_value *def)
{
	char key[160], full[160];

	for (unsigned int i = 0; i < t->count; i++) {
		const struct json_value *e = &t->children[i], *list;
		int before = c->errs->total;

		snprintf(key, sizeof(key), "%s|%s", t->key, e->key);
		list = sonic_entry_list(c, def, e, key);
		if (!list)
			continue;
		if (e->type != JSON_OBJECT) {
			cfg_add_error(c, e->pos, key, "expected an object of fields, got %s",
				      xfab_json_type_name(e->type));
			continue;
		}
		for (unsigned int j = 0; j < e->count; j++) {
			const struct json_value *f = &e->children[j];

			if (!cfg_sonic_check_field(c, list, key, f))
				continue;
			snprintf(full, sizeof(full), "%s.%s", key, f->key);
			cfg_add_error(c, f->key_pos, full,
				      "unknown field \"%s\" (neither xfab's nor SONiC's)", f->key);
		}
		/* references and rules only between entries whose own values
		 * fit their types */
		if (c->errs->total == before)
			cfg_sonic_refs(c, t->key, e);
	}
	cfg_sonic_ignore(c, t->key);
}

int cfg_sonic_table(struct ctx *c, const struct json_value *t)
{
	const struct json_value *def = c->sonic ? xfab_sonic_table(c->sonic, t->key) : NULL;

	if (!def)
		return -1;
	if (t->type != JSON_OBJECT)
		cfg_add_error(c, t->pos, t->key, "a table must be an object, got %s",
			      xfab_json_type_name(t->type));
	else
		sonic_check_table(c, t, def);
	return 0;
}

int cfg_sonic_open(struct ctx *c, const struct xfab_cfg_source *src)
{
	const char *path = src && src->catalogue ? src->catalogue : XFAB_SONIC_CATALOGUE;
	char why[512];

	c->sonic = xfab_sonic_load(path, why, sizeof(why));
	if (c->sonic)
		return 0;
	/* left to the tables, an unreadable catalogue leaves the file xfab's:
	 * its other tables are refused as unknown */
	if (src && src->format == XFAB_CFG_SONIC)
		cfg_add_error(c, (struct json_pos){0, 0}, NULL,
			      "read as SONiC's CONFIG_DB, but SONiC's catalogue cannot be read: %s",
			      why);
	return -1;
}

void cfg_sonic_close(struct ctx *c)
{
	xfab_sonic_free(c->sonic);
	c->sonic = NULL;
}
