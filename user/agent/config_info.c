// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The control socket's config-info (docs/CONTROL.md): which config file
 * xfabd runs, so xfabctl can export it or report on it (config export,
 * show config-coverage; docs/SONIC.md). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "agent.h"
#include "ctlproto.h"

/* The config xfabd runs (docs/CONTROL.md, config-info): the file, made
 * absolute here (xfabctl's directory is not xfabd's), the digest of the
 * text last loaded from it (at start or SIGHUP) and how it was read, so
 * xfabctl can tell whether the file still holds it (config export). */
static int config_info(struct agent *a, const struct xfab_ctl_req *r, char *out, size_t outlen)
{
	char abs[PATH_MAX], abs_cat[PATH_MAX], path[2 * PATH_MAX], cat[2 * PATH_MAX] = "null";
	const char *p = realpath(a->cfg_path, abs) ? abs : a->cfg_path;
	const char *c = a->cfg_source.catalogue;
	int n;

	(void)r;
	if (c && realpath(c, abs_cat))
		c = abs_cat;
	if (xfab_ctl_json_string(path, sizeof(path), p) < 0 ||
	    (c && xfab_ctl_json_string(cat, sizeof(cat), c) < 0))
		return agent_ctl_refuse(out, outlen, "", "path too long");
	n = snprintf(out, outlen,
		     "{\"ok\":true,\"path\":%s,\"digest\":\"%016llx\",\"format\":\"%s\","
		     "\"catalogue\":%s}\n",
		     path, (unsigned long long)a->cfg.digest, a->cfg.sonic ? "sonic" : "xfab", cat);
	if (n < 0 || (size_t)n >= outlen)
		return agent_ctl_refuse(out, outlen, "", "response too long");
	return n;
}

/* Served through the socket's table (requests.c), set before main runs. */
__attribute__((constructor)) static void config_info_register(void)
{
	agent_ctl_register_reply(XFAB_CTL_CONFIG_INFO, config_info);
}
