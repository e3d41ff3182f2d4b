// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ingress accounting's safety net, every poll of the PFC thread (the
 * rules are user/lib/pfcacct.c's; this file reads the queues' backlogs
 * and writes the corrections).
 */
#include <bpf/bpf.h>
#include <libmnl/libmnl.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "agent.h"
#include "common.h"
#include "pfc_rt.h"
#include "pfcacct.h"

struct backlog_walk {
	const struct pfc_rt *g;
	__u64 bytes[XFAB_NUM_PRIO];		   /* queued in classes 1:(prio + 1), every port */
	__u64 slot[XFAB_MAX_PORTS][XFAB_NUM_PRIO]; /* ... of each PFC port, by slot */
	__u64 leak[XFAB_MAX_PORTS][XFAB_NUM_PRIO]; /* the sweep's take, by ingress slot */
};

static int qdisc_cb(const struct nlmsghdr *nlh, void *data)
{
	struct backlog_walk *w = data;
	const struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr;
	__u32 minor = TC_H_MIN(tcm->tcm_parent);
	int slot = -1;

	if (TC_H_MAJ(tcm->tcm_parent) != (1u << 16) || minor < 1 || minor > XFAB_NUM_PRIO)
		return MNL_CB_OK;
	for (int i = 0; i < w->g->n; i++)
		if (w->g->ports[i].ifindex == (__u32)tcm->tcm_ifindex)
			slot = w->g->ports[i].slot;
	mnl_attr_for_each(attr, nlh, sizeof(*tcm))
	{
		if (mnl_attr_get_type(attr) == TCA_STATS &&
		    mnl_attr_get_payload_len(attr) >= sizeof(struct tc_stats)) {
			const struct tc_stats *st = mnl_attr_get_payload(attr);

			w->bytes[minor - 1] += st->backlog;
			if (slot >= 0 && slot < XFAB_MAX_PORTS)
				w->slot[slot][minor - 1] += st->backlog;
		}
	}
	return MNL_CB_OK;
}

/* One dump of the class queues' backlogs into w: 0, or -1 when netlink
 * failed (nothing is corrected then). */
static int pfc_resync_dump(struct pfc_rt *g, struct backlog_walk *w)
{
	static char buf[32768]; /* the PFC thread's alone */
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *tcm;
	int ret;

	memset(w, 0, sizeof(*w));
	w->g = g;
	nlh->nlmsg_type = RTM_GETQDISC;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++g->seq;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	memset(tcm, 0, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	if (mnl_socket_sendto(g->nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	for (;;) {
		ret = (int)mnl_socket_recvfrom(g->nl, buf, sizeof(buf));
		if (ret <= 0)
			return -1;
		ret =
		    mnl_cb_run(buf, (size_t)ret, g->seq, mnl_socket_get_portid(g->nl), qdisc_cb, w);
		if (ret <= MNL_CB_STOP)
			break;
	}
	return ret < 0 ? -1 : 0;
}

/* The sweep's take and the bound applied to one PG, then its pause made
 * to follow the flag. */
static void pfc_resync_pg(struct pfc_rt *g, struct pfc_port_rt *pp, int prio,
			  const struct xfab_pfc_cfg *c, const struct backlog_walk *w)
{
	__u32 slot = (__u32)pp->slot, key = XFAB_QUEUE_KEY(slot, (__u32)prio);
	__u64 bound = xfab_pg_bound(w->bytes[prio], w->slot[slot][prio]), occ;
	struct xfab_pfc_state st;
	__u32 flag;

	/* read again now: the data plane's atomics change it meanwhile, and
	 * only a copy can be written back */
	if (bpf_map_lookup_elem(g->fd_state, &key, &st)) {
		agent_pfc_pg_follow(g, pp, prio, 0);
		return;
	}
	if (w->leak[slot][prio]) {
		occ = xfab_pg_take(st.occupancy_bytes, w->leak[slot][prio], st.xoff,
				   c->xon_bytes[prio], &flag);
		log_dbg("pfc: %s PG %d: %llu bytes still counted at empty queues: taken back",
			pp->name, prio, (unsigned long long)w->leak[slot][prio]);
		st.occupancy_bytes = occ;
		st.xoff = flag;
		st.resynced++;
		bpf_map_update_elem(g->fd_state, &key, &st, BPF_ANY);
	}
	if (xfab_pg_resync(st.occupancy_bytes, st.xoff, c->xon_bytes[prio], bound, &occ, &flag)) {
		log_dbg("pfc: %s PG %d: %llu bytes counted, %llu queued at the other ports: "
			"resynced",
			pp->name, prio, (unsigned long long)st.occupancy_bytes,
			(unsigned long long)bound);
		st.occupancy_bytes = occ;
		st.xoff = flag;
		st.resynced++;
		bpf_map_update_elem(g->fd_state, &key, &st, BPF_ANY);
	}
	agent_pfc_pg_follow(g, pp, prio, 0);
}

/*
 * A PG's occupancy counts bytes queued at this switch's egresses
 * (pfcacct.h). If a packet's give-back were missed, the PG would stay above
 * XOFF with nothing of its own queued, its peer paused for good, and two
 * switches so stuck would pause each other (a deadlock the whole priority
 * feels). Every poll, from one dump of the class queues' backlogs:
 *   - the sweep: what the egress split (pfc_egress) still counts at a queue
 *     that holds nothing is taken back, and off the PGs it belongs to;
 *   - the bound: a PG counting more than its priority's bytes queued on
 *     the switch's other ports is set back to that;
 * XON sent where that took a PG below XON. A PG's state is read again just
 * before it is written (a copy is written back: a charge racing it is lost,
 * erring towards less pause). Counted in `resynced`. Then every PG's pause
 * is made to follow the data plane's flag.
 */
void agent_pfc_resync(struct pfc_rt *g)
{
	static struct backlog_walk w; /* 8 KiB: not on the thread's stack */

	if (pfc_resync_dump(g, &w))
		return;
	if (g->eg) {
		__u32 slots[XFAB_MAX_PORTS];
		__u8 prios = 0;

		for (int i = 0; i < g->n; i++) {
			slots[i] = (__u32)g->ports[i].slot;
			prios |= g->ports[i].enabled;
		}
		xfab_pg_sweep(g->eg, slots, (__u32)g->n, prios,
			      (const __u64(*)[XFAB_NUM_PRIO])w.slot, w.leak);
	}
	for (int i = 0; i < g->n; i++) {
		struct pfc_port_rt *pp = &g->ports[i];
		__u32 slot = (__u32)pp->slot;
		struct xfab_pfc_cfg c;

		if (bpf_map_lookup_elem(g->fd_cfg, &slot, &c))
			continue;
		for (int prio = 0; prio < XFAB_NUM_PRIO; prio++)
			if (pp->enabled & (1u << prio))
				pfc_resync_pg(g, pp, prio, &c, &w);
	}
}
