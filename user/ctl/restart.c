// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* restart: a planned restart of xfabd (an upgrade), done by xfabd itself */
#include "ctl.h"
#include "ctlproto.h"

/* xfabd answers, leaves the data plane forwarding and runs again from its
 * binary's path; the new instance takes the data plane over. */
int ctl_restart(void)
{
	struct xfab_ctl_req r = {.cmd = XFAB_CTL_RESTART};

	return ctl_request(&r, "restart");
}
