// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* te add|del|clear: runtime TE pins, kept and written by xfabd (request.c) */
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "ctlproto.h"

static int te_request(enum xfab_ctl_cmd cmd, const struct ctl_opts *o, const char *what)
{
	struct xfab_ctl_req r = {.cmd = cmd};

	if (cmd != XFAB_CTL_TE_CLEAR) {
		if (!o->in || !o->prefix || (cmd == XFAB_CTL_TE_ADD && !o->via)) {
			fprintf(stderr, "usage: xfabctl te add --in PORT --prefix P --via "
					"GW[,GW...]\n       xfabctl te del --in PORT --prefix P\n");
			return 2;
		}
		if (strlen(o->in) >= sizeof(r.in) || strlen(o->prefix) >= sizeof(r.prefix) ||
		    (o->via && strlen(o->via) >= sizeof(r.via))) {
			fprintf(stderr, "xfabctl %s: --in, --prefix or --via is too long\n", what);
			return 2;
		}
		snprintf(r.in, sizeof(r.in), "%s", o->in);
		snprintf(r.prefix, sizeof(r.prefix), "%s", o->prefix);
		if (o->via)
			snprintf(r.via, sizeof(r.via), "%s", o->via);
	}
	return ctl_request(&r, what);
}

int te_add(const struct ctl_opts *o)
{
	return te_request(XFAB_CTL_TE_ADD, o, "te add");
}

int te_del(const struct ctl_opts *o)
{
	return te_request(XFAB_CTL_TE_DEL, o, "te del");
}

int te_clear(const struct ctl_opts *o)
{
	return te_request(XFAB_CTL_TE_CLEAR, o, "te clear");
}
