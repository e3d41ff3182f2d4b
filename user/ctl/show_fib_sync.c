// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* show fib-sync: the kernel-FIB mirror's figures, asked of xfabd (they live
 * in the agent, not in a map). */
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "ctlproto.h"
#include "json.h"

static int show_fib_sync(void)
{
	static const struct {
		const char *key, *label;
	} rows[] = {
	    {"table", "kernel table"},
	    {"protocols", "protocols mirrored"},
	    {"routes", "routes held"},
	    {"programmed", "  programmed"},
	    {"foreign", "  no nexthop on a switch port"},
	    {"unresolved", "  nexthop object not known yet"},
	    {"nexthop_objects", "nexthop objects"},
	    {"messages", "messages read"},
	    {"skipped", "  not mirrored (table, protocol, type)"},
	    {"refused", "  malformed"},
	    {"failed", "  not applied (memory)"},
	    {"batches", "batches written"},
	    {"resyncs", "resyncs (lost events)"},
	    {"swept_routes", "  routes found gone"},
	    {"withdraw_hold_ms", "withdrawal hold, routes up (ms)"},
	    {"withdrawals_held", "withdrawals held"},
	    {"withdrawals_held_brief", "  while their ports were up"},
	    {"restart_hold_ms", "restart hold, routes up (ms)"},
	    {"withdrawals_held_restart", "  after their daemon's restart"},
	    {"lag_last_us", "lag, last batch (us)"},
	    {"lag_max_us", "lag, worst batch (us)"},
	};
	struct xfab_ctl_req r = {.cmd = XFAB_CTL_FIB_STATUS};
	char resp[XFAB_CTL_MAX_LINE + 1], err[128];
	const struct json_value *fs, *en;
	struct json_value *root;
	struct json_pos pos;
	int ret = ctl_query(&r, "show fib-sync", resp, sizeof(resp));

	if (ret)
		return ret < 0 ? -ret : ret;
	root = xfab_json_parse(resp, err, sizeof(err), &pos);
	fs = root ? xfab_json_get(root, "fib_sync") : NULL;
	if (!fs || fs->type != JSON_OBJECT) {
		fprintf(stderr, "xfabctl show fib-sync: xfabd's answer has no fib_sync: %s", resp);
		xfab_json_free(root);
		return 1;
	}
	en = xfab_json_get(fs, "enabled");
	if (ctl_json) {
		/* the object as xfabd sent it */
		const char *o = strstr(resp, "\"fib_sync\":");
		size_t n = strlen(o += 11);

		while (n && (o[n - 1] == '\n' || o[n - 1] == '}'))
			n--;
		printf("%.*s}\n", (int)n, o);
	} else if (!en || en->type != JSON_BOOL || !en->boolean) {
		printf("FIB_SYNC is off: this switch routes by its config only\n");
	} else {
		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			const struct json_value *v = xfab_json_get(fs, rows[i].key);

			if (v)
				printf("%-40s %s\n", rows[i].label, v->str ? v->str : "?");
		}
	}
	xfab_json_free(root);
	return 0;
}

CTL_SHOW(show_fib_sync_obj, "fib-sync", 170, "fib-sync", .view = show_fib_sync,
	 .help = "the kernel-FIB mirror (FIB_SYNC): routes, events, resyncs, lag (xfabd)")
