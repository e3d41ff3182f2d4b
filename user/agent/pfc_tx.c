// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What xfabd sends (docs/PFC.md): the data plane counts what each
 * (ingress port, PG) has queued and says when it crosses XOFF or falls
 * below XON; the PFC frame leaves the ingress port around its qdisc
 * (PACKET_QDISC_BYPASS), refreshed before the pause runs out while the PG
 * stays above XON.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent.h"
#include "common.h"
#include "pfc_rt.h"
#include "pfcacct.h"
#include "pfcframe.h"

/* ---- frames (built by the library's pfcframe.c) ---- */

int agent_pfc_packet_socket(__u32 ifindex, int bypass)
{
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_ifindex = (int)ifindex};
	int one = 1, fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if ((bypass && setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one))) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		close(fd);
		return -1;
	}
	return fd;
}

struct xfab_pfc_queue *agent_pfc_queue_rec(struct pfc_rt *g, __u32 key, struct xfab_pfc_queue *v)
{
	memset(v, 0, sizeof(*v));
	bpf_map_lookup_elem(g->fd_queue, &key, v);
	return v;
}

/* Sends one PFC frame out of the port: vector, each named priority with
 * time quanta (0: XON). */
void agent_pfc_send(struct pfc_rt *g, struct pfc_port_rt *pp, __u8 vector, __u16 time)
{
	__u16 quanta[XFAB_NUM_PRIO] = {0};
	struct xfab_pfc_queue v;
	__u8 f[XFAB_MACC_MIN_LEN];
	size_t len;
	__u64 now = xfab_mono_ns();

	for (int i = 0; i < XFAB_NUM_PRIO; i++)
		if (vector & (1u << i))
			quanta[i] = time;
	len = xfab_pfc_build(f, sizeof(f), pp->mac, vector, quanta, XFAB_NUM_PRIO);
	if (send(pp->tx_fd, f, len, 0) < 0) {
		log_warn("pfc: cannot send a PFC frame out of %s: %s", pp->name, strerror(errno));
		return;
	}
	for (int i = 0; i < XFAB_NUM_PRIO; i++) {
		__u32 key = XFAB_QUEUE_KEY((__u32)pp->slot, (__u32)i);

		if (!(vector & (1u << i)))
			continue;
		agent_pfc_queue_rec(g, key, &v);
		v.tx_frames++;
		if (!time)
			v.tx_xon++;
		v.tx_last_ns = now;
		bpf_map_update_elem(g->fd_queue, &key, &v, BPF_ANY);
	}
}

/* Wakes the port's qdisc after a gate opened: one frame enqueued there
 * (a PFC frame naming no priority, which every receiver ignores). */
void agent_pfc_kick(struct pfc_port_rt *pp)
{
	static const __u16 zero[XFAB_NUM_PRIO];
	__u8 f[XFAB_MACC_MIN_LEN];
	size_t len = xfab_pfc_build(f, sizeof(f), pp->mac, 0, zero, XFAB_NUM_PRIO);

	if (send(pp->kick_fd, f, len, 0) < 0)
		log_dbg("pfc: kick on %s: %s", pp->name, strerror(errno));
}

/* ---- generate ---- */

__u64 agent_pfc_refresh_period(const struct pfc_port_rt *pp)
{
	/* half the pause a frame asks for: refreshed well before it ends */
	return xfab_pfc_quanta_ns(XFAB_PFC_MAX_QUANTA, pp->speed_mbps) / 2;
}

static void xoff(struct pfc_rt *g, struct pfc_port_rt *pp, int prio)
{
	pp->xoff_mask |= (__u8)(1u << prio);
	agent_pfc_send(g, pp, (__u8)(1u << prio), XFAB_PFC_MAX_QUANTA);
	if (!pp->refresh_at)
		pp->refresh_at = xfab_mono_ns() + agent_pfc_refresh_period(pp);
}

static void xon(struct pfc_rt *g, struct pfc_port_rt *pp, int prio)
{
	pp->xoff_mask &= (__u8) ~(1u << prio);
	agent_pfc_send(g, pp, (__u8)(1u << prio), 0);
	if (!pp->xoff_mask)
		pp->refresh_at = 0;
}

/*
 * The pause xfabd asks of the peer follows the data plane's flag
 * (pfcacct.h), never the event alone: an event tells that the flag
 * changed, the flag tells what it is now. Events of two CPUs may come in
 * the other order (an XON handled before the XOFF it followed), one may be
 * lost (ring full), and a correction may race a charge; an XOFF that
 * follows the event rather than the flag would be refreshed for good with
 * nothing left to send XON. resend: an XOFF event, sent at once while the
 * flag is up.
 */
void agent_pfc_pg_follow(struct pfc_rt *g, struct pfc_port_rt *pp, int prio, int resend)
{
	__u32 key = XFAB_QUEUE_KEY((__u32)pp->slot, (__u32)prio);
	struct xfab_pfc_state st;

	if (bpf_map_lookup_elem(g->fd_state, &key, &st))
		return;
	switch (xfab_pg_follow(pp->xoff_mask & (1u << prio), st.xoff)) {
	case XFAB_PG_SEND_XOFF:
		xoff(g, pp, prio);
		break;
	case XFAB_PG_SEND_XON:
		xon(g, pp, prio);
		break;
	default:
		if (resend && st.xoff)
			xoff(g, pp, prio);
		break;
	}
}
