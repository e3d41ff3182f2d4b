// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pfcwd start|stop|interval: the PFC watchdog's settings, changed by xfabd
 * (request.c); `show pfcwd` reads what it runs with. */
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "ctlproto.h"

static int put(char *dst, size_t size, const char *v, const char *opt)
{
	if (!v)
		return 0;
	if (strlen(v) >= size) {
		fprintf(stderr, "xfabctl pfcwd: %s is too long\n", opt);
		return -1;
	}
	snprintf(dst, size, "%s", v);
	return 0;
}

int ctl_pfcwd_start(const struct ctl_opts *o)
{
	struct xfab_ctl_req r = {.cmd = XFAB_CTL_PFCWD_START};

	if (!o->ports || !o->detection) {
		fprintf(stderr, "usage: xfabctl pfcwd start --ports all|PORT[,PORT...] "
				"--detection-time MS [--action drop|forward|alert] "
				"[--restoration-time MS]\n");
		return 2;
	}
	if (put(r.ports, sizeof(r.ports), o->ports, "--ports") ||
	    put(r.detection, sizeof(r.detection), o->detection, "--detection-time") ||
	    put(r.action, sizeof(r.action), o->action, "--action") ||
	    put(r.restoration, sizeof(r.restoration), o->restoration, "--restoration-time"))
		return 2;
	return ctl_request(&r, "pfcwd start");
}

int ctl_pfcwd_stop(const struct ctl_opts *o)
{
	struct xfab_ctl_req r = {.cmd = XFAB_CTL_PFCWD_STOP};

	if (put(r.ports, sizeof(r.ports), o->ports, "--ports"))
		return 2;
	return ctl_request(&r, "pfcwd stop");
}

int ctl_pfcwd_interval(const struct ctl_opts *o)
{
	struct xfab_ctl_req r = {.cmd = XFAB_CTL_PFCWD_INTERVAL};

	if (!o->poll) {
		fprintf(stderr, "usage: xfabctl pfcwd interval --poll-interval MS\n");
		return 2;
	}
	if (put(r.poll, sizeof(r.poll), o->poll, "--poll-interval"))
		return 2;
	return ctl_request(&r, "pfcwd interval");
}
