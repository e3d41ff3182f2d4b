// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The gates (docs/PFC.md): a lossless queue is a TBF under its class's HTB
 * leaf, at line rate while open and at one byte a second while the peer
 * pauses it. The data plane consumes a pause frame and says so on the
 * pfc_events ring; the gate closes with one netlink message and opens
 * again at XON or when the time runs out; a frame sent through the port's
 * qdisc then wakes it (TBF's change does not).
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "agent.h"
#include "common.h"
#include "pfc_rt.h"

#define GATE_BURST_OPEN 16384u /* bytes: TBF burst at line rate */

/* ---- the gate: a TBF under class 1:(prio + 1), handle 2N: (prio N), in
 * place of the class's bfifo 1N: (a handle of its own: a qdisc of another
 * kind cannot take over a handle in place) ---- */

/* A request about prio's gate on pp: the header, up to the attributes. */
static struct nlmsghdr *gate_msg(struct pfc_rt *g, const struct pfc_port_rt *pp, int prio,
				 char *buf, __u16 type, __u16 flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *tcm;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++g->seq;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	memset(tcm, 0, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = (int)pp->ifindex;
	tcm->tcm_handle = TC_H_MAKE((__u32)(0x20 + prio) << 16, 0);
	tcm->tcm_parent = TC_H_MAKE(1u << 16, (__u32)prio + 1);
	return nlh;
}

/* Sends the request and waits for its acknowledgement: 0 or -errno. */
static int nl_ack(struct pfc_rt *g, struct nlmsghdr *nlh, char *buf, size_t len)
{
	int ret;

	if (mnl_socket_sendto(g->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	ret = (int)mnl_socket_recvfrom(g->nl, buf, len);
	if (ret < 0)
		return -errno;
	ret = mnl_cb_run(buf, (size_t)ret, g->seq, mnl_socket_get_portid(g->nl), NULL, NULL);
	return ret < 0 ? -errno : 0;
}

/* Line rate (open) or one byte a second (closed: at most one burst, one
 * frame, leaves after the change, as a frame already on the wire would). */
int agent_pfc_gate_write(struct pfc_rt *g, const struct pfc_port_rt *pp, int prio, int open,
			 int create)
{
	char buf[1024];
	struct nlmsghdr *nlh =
	    gate_msg(g, pp, prio, buf, RTM_NEWQDISC, create ? NLM_F_CREATE | NLM_F_REPLACE : 0);
	__u64 rate = open ? (__u64)pp->rate_mbps * 125000ull : 1;
	struct tc_tbf_qopt q;
	struct nlattr *opts;

	mnl_attr_put_strz(nlh, TCA_KIND, "tbf");
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	memset(&q, 0, sizeof(q));
	q.rate.rate = rate > 0xffffffffull ? 0xffffffffu : (__u32)rate;
	q.rate.linklayer = TC_LINKLAYER_ETHERNET;
	q.limit = pp->limit_bytes;
	q.buffer = 1; /* TCA_TBF_BURST sets it */
	mnl_attr_put(nlh, TCA_TBF_PARMS, sizeof(q), &q);
	if (rate > 0xffffffffull)
		mnl_attr_put_u64(nlh, TCA_TBF_RATE64, rate);
	/* closed: one full frame may still pass (a smaller burst would drop it) */
	mnl_attr_put_u32(nlh, TCA_TBF_BURST, open ? GATE_BURST_OPEN : 1514 + 4);
	mnl_attr_nest_end(nlh, opts);
	return nl_ack(g, nlh, buf, sizeof(buf));
}

/* Empties the queue: the gate goes (the packets it held are dropped, as
 * the watchdog's drop action wants) and a new one, open, takes its place. */
int agent_pfc_gate_flush(struct pfc_rt *g, const struct pfc_port_rt *pp, int prio)
{
	char buf[512];
	struct nlmsghdr *nlh = gate_msg(g, pp, prio, buf, RTM_DELQDISC, 0);
	int err = nl_ack(g, nlh, buf, sizeof(buf));

	return err ? err : agent_pfc_gate_write(g, pp, prio, 1, 1);
}

/* ---- honour: the pause the peer asks ---- */

static void gate_close(struct pfc_rt *g, struct pfc_port_rt *pp, int prio, __u64 until)
{
	struct pfc_queue_rt *q = &pp->q[prio];
	__u32 key = XFAB_QUEUE_KEY((__u32)pp->slot, (__u32)prio);
	struct xfab_pfc_queue v;
	int err;

	q->paused_until = until;
	if (q->gated_since)
		return;
	err = agent_pfc_gate_write(g, pp, prio, 0, 0);
	if (err) {
		log_warn("pfc: cannot pause %s priority %d: %s", pp->name, prio, strerror(-err));
		q->paused_until = 0;
		return;
	}
	q->gated_since = xfab_mono_ns();
	agent_pfc_queue_rec(g, key, &v);
	q->paused_base = v.paused_ns;
	v.gated = 1;
	v.pauses++;
	bpf_map_update_elem(g->fd_queue, &key, &v, BPF_ANY);
}

void agent_pfc_gate_open(struct pfc_rt *g, struct pfc_port_rt *pp, int prio)
{
	struct pfc_queue_rt *q = &pp->q[prio];
	__u32 key = XFAB_QUEUE_KEY((__u32)pp->slot, (__u32)prio);
	struct xfab_pfc_queue v;
	int err;

	q->paused_until = 0;
	if (!q->gated_since)
		return;
	err = agent_pfc_gate_write(g, pp, prio, 1, 0);
	if (err)
		log_warn("pfc: cannot resume %s priority %d: %s", pp->name, prio, strerror(-err));
	agent_pfc_queue_rec(g, key, &v);
	v.gated = 0;
	v.paused_ns = q->paused_base + (xfab_mono_ns() - q->gated_since);
	bpf_map_update_elem(g->fd_queue, &key, &v, BPF_ANY);
	q->gated_since = 0;
	agent_pfc_kick(pp);
}

/* What the data plane recorded for (port, prio): the pause it received,
 * unless the watchdog has the queue ignore pause. */
void agent_pfc_honour(struct pfc_rt *g, struct pfc_port_rt *pp, int prio)
{
	__u32 key = XFAB_QUEUE_KEY((__u32)pp->slot, (__u32)prio);
	struct xfab_pfc_state st;
	__u64 now = xfab_mono_ns();

	if (bpf_map_lookup_elem(g->fd_state, &key, &st))
		return;
	if (xfab_pfcwd_gate_closes(st.paused_until_ns, now, pp->wd_ignore, prio))
		gate_close(g, pp, prio, st.paused_until_ns);
	else
		agent_pfc_gate_open(g, pp, prio);
}
