/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Lossless classes at run time (pfc.c): the gates, the pause frames xfabd
 * sends, the PFC watchdog. */
#ifndef XFAB_AGENT_PFC_H
#define XFAB_AGENT_PFC_H

struct agent;

/* Starts the PFC thread for the ports whose pfc_cfg entry (written by
 * then) enables a priority: puts their gates in place. 0 or -errno;
 * nothing to do is 0. Stops a running one first. */
int agent_pfc_start(struct agent *a);
/* Stops it, every gate open. */
void agent_pfc_stop(struct agent *a);

struct xfab_ctl_req;
/* pfcwd-start, pfcwd-stop, pfcwd-interval: checked whole, then applied
 * (until the next reload or restart: the config's PFC_WD is what lasts).
 * 0, or -1 with the request field at fault and why. */
int agent_pfc_wd_request(struct agent *a, const struct xfab_ctl_req *r, char *field, size_t flen,
			 char *msg, size_t mlen);

#endif
