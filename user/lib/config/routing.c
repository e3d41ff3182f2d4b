// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* FIB_SYNC: which of the kernel's routes xfabd mirrors (docs/CONFIG.md). */
#include "internal.h"

#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>

#include "nlroute.h"

void cfg_parse_fib_sync(struct ctx *c, const struct json_value *tbl)
{
	static const char *const fields[] = {"enabled", "table", "protocols", NULL};
	const struct json_value *g = cfg_global_entry(c, tbl, "FIB_SYNC"), *f;
	struct xfab_nl_filter flt;
	char fk[160], buf[32], err[160];
	const char *t;

	xfab_nl_filter_default(&flt);
	c->cfg->fib_sync = 1;
	c->cfg->fib_table = flt.table;
	memcpy(c->cfg->fib_protocols, flt.protocol, sizeof(flt.protocol));
	if (!g || cfg_check_fields(c, g, "FIB_SYNC|global", fields))
		return;
	f = json_get(g, "enabled");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "FIB_SYNC|global", "enabled");
		cfg_parse_bool(c, f, fk, &c->cfg->fib_sync);
	}
	f = json_get(g, "table");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "FIB_SYNC|global", "table");
		t = cfg_field_text(c, f, fk, buf, sizeof(buf));
		if (t && !strcmp(t, "main"))
			c->cfg->fib_table = RT_TABLE_MAIN;
		else if (t && !cfg_parse_u32(c, f, fk, 1, 0xffffffffu, &c->cfg->fib_table) &&
			 (c->cfg->fib_table == RT_TABLE_LOCAL ||
			  c->cfg->fib_table == RT_TABLE_DEFAULT))
			cfg_add_error(c, f->pos, fk,
				      "table %u is the kernel's %s table: name main (254) or a "
				      "table of your own",
				      c->cfg->fib_table,
				      c->cfg->fib_table == RT_TABLE_LOCAL ? "local" : "default");
	}
	f = json_get(g, "protocols");
	if (f) {
		cfg_field_key(fk, sizeof(fk), "FIB_SYNC|global", "protocols");
		if (f->type != JSON_STRING) {
			cfg_add_error(c, f->pos, fk,
				      "expected a comma-separated string of protocols");
		} else if (xfab_nl_filter_protocols(&flt, f->str, err, sizeof(err))) {
			cfg_add_error(c, f->pos, fk, "%s", err);
		} else {
			memcpy(c->cfg->fib_protocols, flt.protocol, sizeof(flt.protocol));
		}
	}
}
