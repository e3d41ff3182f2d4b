// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fib-status (docs/CONTROL.md, `xfabctl show fib-sync`): the kernel-FIB
 * mirror's figures as fibsync.c last published them, and the config's
 * holds. Registered with the control socket's handler table, as every part
 * outside requests.c registers its own.
 */
#include <pthread.h>
#include <stdio.h>

#include "agent.h"
#include "ctlproto.h"

/* FIB_SYNC's figures (docs/CONTROL.md): read, nothing changes. */
static int fib_status(struct agent *a, const struct xfab_ctl_req *r, char *out, size_t outlen)
{
	struct xfab_fib_status c;
	char protos[256] = "", name[16];
	size_t off = 0;

	(void)r;
	if (!a->nlsync)
		return snprintf(out, outlen, "{\"ok\":true,\"fib_sync\":{\"enabled\":false}}\n");
	/* as published after the last batch of events (fibsync.c) */
	pthread_mutex_lock(&a->fib_pub.lock);
	c = a->fib_pub;
	pthread_mutex_unlock(&a->fib_pub.lock);
	for (int p = 0; p < 256 && off < sizeof(protos) - 20; p++)
		if (a->cfg.fib_protocols[p / 8] & (1u << (p % 8)))
			off += (size_t)snprintf(protos + off, sizeof(protos) - off, "%s%s",
						off ? "," : "",
						xfab_nl_protocol_name((__u8)p, name, sizeof(name)));
	return snprintf(
	    out, outlen,
	    "{\"ok\":true,\"fib_sync\":{\"enabled\":true,\"table\":%u,\"protocols\":\"%s\","
	    "\"routes\":%llu,\"programmed\":%llu,\"foreign\":%llu,\"unresolved\":%llu,"
	    "\"nexthop_objects\":%llu,\"messages\":%llu,\"skipped\":%llu,"
	    "\"refused\":%llu,\"failed\":%llu,\"batches\":%llu,\"resyncs\":%llu,"
	    "\"swept_routes\":%llu,\"withdraw_hold_ms\":%u,\"withdrawals_held\":%llu,"
	    "\"withdrawals_held_brief\":%llu,\"restart_hold_ms\":%u,"
	    "\"withdrawals_held_restart\":%llu,\"lag_last_us\":%.0f,\"lag_max_us\":%.0f}}\n",
	    c.table, protos, c.routes, c.routes - c.foreign - c.unresolved, c.foreign, c.unresolved,
	    c.nexthops, c.events, c.skipped, c.refused, c.failed, c.batches, c.resyncs,
	    c.swept_routes, a->cfg.fib_withdraw_hold_ms, c.held, c.held_brief,
	    a->cfg.fib_restart_hold_ms, c.held_restart, c.lag_last_s * 1e6, c.lag_max_s * 1e6);
}

__attribute__((constructor)) static void fib_status_register(void)
{
	agent_ctl_register_reply(XFAB_CTL_FIB_STATUS, fib_status);
}
