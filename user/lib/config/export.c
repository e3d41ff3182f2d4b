// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A parsed config written back as a SONiC CONFIG_DB document (docs/SONIC.md,
 * "Export and coverage"): each table group's writer adds its rows
 * (export_tables.c, export_qos.c, export_acl.c), export_rows.c sorts and
 * writes them. PORT, VNET, VNET_ROUTE_TUNNEL and ACL_RULE keep the
 * config's order: a port's, a VNET's and a tunnel route's place is its
 * index in the compiled tables, and rules of equal PRIORITY are tried in
 * the order written (docs/ACL.md).
 */
#include "export_int.h"

#include <errno.h>
#include <stdio.h>

/* Every table group's writer, in one list; each writes SONiC's spelling of
 * its tables where SONiC has them (docs/SONIC.md, "Export and coverage"). */
static void (*const cfg_exp_writers[])(struct cfg_exp *x, const struct xfab_config *cfg) = {
    cfg_exp_device,  cfg_exp_ports,  cfg_exp_l3,   cfg_exp_routes, cfg_exp_overlay,
    cfg_exp_lb,	     cfg_exp_dscp,   cfg_exp_wred, cfg_exp_queues, cfg_exp_pfc,
    cfg_exp_buffers, cfg_exp_pfc_wd, cfg_exp_copp, cfg_exp_acl,
};

int xfab_config_export(const struct xfab_config *cfg, FILE *out)
{
	struct cfg_exp x = {.order = -1};
	int ret = 0;

	for (size_t w = 0; w < sizeof(cfg_exp_writers) / sizeof(cfg_exp_writers[0]); w++)
		cfg_exp_writers[w](&x, cfg);
	if (x.failed) {
		errno = ENOMEM;
		ret = -1;
	} else {
		cfg_exp_write(&x, out);
		if (fflush(out) || ferror(out))
			ret = -1;
	}
	cfg_exp_free(&x);
	return ret;
}
