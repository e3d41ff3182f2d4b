// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* interface drain|undrain PORT: a port out of every group and back, held
 * by xfabd (docs/OPERATIONS.md, "Draining a port"); `show interfaces
 * status` shows the drains. */
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "ctlproto.h"

static int interface_req(struct xfab_ctl_req *r, const struct ctl_opts *o, const char *what)
{
	if (strlen(o->operand) >= sizeof(r->port)) {
		fprintf(stderr, "xfabctl %s: port name '%s' is too long\n", what, o->operand);
		return 2;
	}
	snprintf(r->port, sizeof(r->port), "%s", o->operand);
	return ctl_request(r, what);
}

int ctl_interface_drain(const struct ctl_opts *o)
{
	struct xfab_ctl_req r = {.cmd = XFAB_CTL_PORT_DRAIN};

	if (o->reason && strlen(o->reason) > XFAB_CTL_REASON_MAX) {
		fprintf(stderr,
			"xfabctl interface drain: --reason is %zu characters (at most %d)\n",
			strlen(o->reason), XFAB_CTL_REASON_MAX);
		return 2;
	}
	if (o->reason)
		snprintf(r.reason, sizeof(r.reason), "%s", o->reason);
	return interface_req(&r, o, "interface drain");
}

int ctl_interface_undrain(const struct ctl_opts *o)
{
	struct xfab_ctl_req r = {.cmd = XFAB_CTL_PORT_UNDRAIN};

	return interface_req(&r, o, "interface undrain");
}
