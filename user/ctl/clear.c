// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* clear counters, clear watermark: done by xfabd (request.c) */
#include "ctl.h"
#include "ctlproto.h"

/* The per-port counters of `show counters` back to zero. */
int ctl_clear_counters(void)
{
	struct xfab_ctl_req r = {.cmd = XFAB_CTL_CLEAR_COUNTERS};

	return ctl_request(&r, "clear counters");
}

/* Queue peaks back to zero; the current occupancy stays. */
int ctl_clear_watermark(void)
{
	struct xfab_ctl_req r = {.cmd = XFAB_CTL_CLEAR_WATERMARK};

	return ctl_request(&r, "clear watermark");
}
