// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Lossless classes at run time (docs/PFC.md): a thread of its own, so that
 * route churn in the main loop never delays a pause.
 *
 *   honour    the data plane consumes a pause frame and says so on the
 *             pfc_events ring; the queue's gate (a TBF under the class's
 *             HTB leaf) is closed with one netlink message, and opened again
 *             at XON or when the time runs out; a frame sent through the
 *             port's qdisc then wakes it (TBF's change does not).
 *   generate  the data plane counts what each (ingress port, PG) has queued
 *             and says when it crosses XOFF or falls below XON; the PFC frame
 *             leaves the ingress port around its qdisc (PACKET_QDISC_BYPASS),
 *             refreshed before the pause runs out while the PG stays above XON.
 *   watchdog  SONiC's rule, every poll: a queue that stays paused while pause
 *             frames keep coming and no XON arrives is stormed after the
 *             detection time; drop / forward / alert; restored after the
 *             restoration time without pause frames.
 *
 * The thread owns the gates, the pfc_queue map, and the watchdog's bits in
 * pfc_cfg (wd_ignore, wd_drop), which it writes again after a reload.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "common.h"
#include "ctlproto.h"
#include "pfc.h"
#include "pfcacct.h"
#include "xfab.skel.h"

#define GATE_BURST_OPEN 16384u /* bytes: TBF burst at line rate */
#define NS_PER_MS 1000000ull

/* A port's watchdog settings (PFC_WD). */
struct pfc_wd {
	__u8 action; /* enum xfab_pfcwd_action */
	__u32 detection_ms, restoration_ms;
};

struct pfc_queue_rt {
	__u64 paused_until; /* gate closed until (CLOCK_MONOTONIC ns); 0: open */
	__u64 gated_since;
	__u64 paused_base; /* pfc_queue.paused_ns when the gate closed */
	/* watchdog */
	__u64 last_rx, last_xon;
	int last_gated;
	__u64 charge_ns, quiet_ns;
	__u64 base_tx_ok, base_tx_drop, base_rx_ok, base_rx_drop; /* at the storm's start */
};

struct pfc_port_rt {
	int slot;
	__u32 ifindex;
	char name[XFAB_IFNAMSIZ];
	__u8 mac[6];
	__u8 enabled;
	__u8 xoff_mask; /* PGs asking the peer to pause */
	__u32 speed_mbps, rate_mbps, limit_bytes;
	__u64 refresh_at; /* next XOFF refresh */
	int tx_fd;	  /* PFC frames, around the qdisc */
	int kick_fd;	  /* a frame through the qdisc */
	struct pfc_wd wd;
	struct pfc_queue_rt q[XFAB_NUM_PRIO];
};

struct pfc_rt {
	pthread_mutex_t lock; /* the watchdog settings (requests change them) */
	pthread_t tid;
	int running;
	int stop_fd, timer_fd;
	struct ring_buffer *rb;
	struct mnl_socket *nl;
	unsigned int seq;
	int fd_cfg, fd_state, fd_queue, fd_qstats;
	__u64 *eg;	/* pfc_egress, mmapped (NULL: no sweep) */
	int tp_link[2]; /* the raw tracepoints that give queued bytes back */
	__u32 poll_ms;
	__u64 next_poll;
	int n;
	struct pfc_port_rt ports[XFAB_MAX_PORTS];
};

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

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
static int gate_write(struct pfc_rt *g, const struct pfc_port_rt *pp, int prio, int open,
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
static int gate_flush(struct pfc_rt *g, const struct pfc_port_rt *pp, int prio)
{
	char buf[512];
	struct nlmsghdr *nlh = gate_msg(g, pp, prio, buf, RTM_DELQDISC, 0);
	int err = nl_ack(g, nlh, buf, sizeof(buf));

	return err ? err : gate_write(g, pp, prio, 1, 1);
}

/* ---- frames ---- */

static size_t pfc_frame(__u8 *f, const __u8 *src, __u8 vector, const __u16 *quanta)
{
	static const __u8 dst[6] = XFAB_MAC_CONTROL_DST;

	memset(f, 0, 60);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = XFAB_ETH_P_MAC_CONTROL >> 8;
	f[13] = XFAB_ETH_P_MAC_CONTROL & 0xff;
	f[14] = XFAB_MAC_CONTROL_PFC >> 8;
	f[15] = XFAB_MAC_CONTROL_PFC & 0xff;
	f[17] = vector;
	for (int i = 0; i < XFAB_NUM_PRIO; i++) {
		f[18 + 2 * i] = (__u8)(quanta[i] >> 8);
		f[19 + 2 * i] = (__u8)quanta[i];
	}
	return 60;
}

static int packet_socket(__u32 ifindex, int bypass)
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

static struct xfab_pfc_queue *queue_rec(struct pfc_rt *g, __u32 key, struct xfab_pfc_queue *v)
{
	memset(v, 0, sizeof(*v));
	bpf_map_lookup_elem(g->fd_queue, &key, v);
	return v;
}

/* Sends one PFC frame out of the port: vector, each named priority with
 * time quanta (0: XON). */
static void send_pfc(struct pfc_rt *g, struct pfc_port_rt *pp, __u8 vector, __u16 time)
{
	__u16 quanta[XFAB_NUM_PRIO] = {0};
	struct xfab_pfc_queue v;
	__u8 f[60];
	size_t len;
	__u64 now = mono_ns();

	for (int i = 0; i < XFAB_NUM_PRIO; i++)
		if (vector & (1u << i))
			quanta[i] = time;
	len = pfc_frame(f, pp->mac, vector, quanta);
	if (send(pp->tx_fd, f, len, 0) < 0) {
		log_warn("pfc: cannot send a PFC frame out of %s: %s", pp->name, strerror(errno));
		return;
	}
	for (int i = 0; i < XFAB_NUM_PRIO; i++) {
		__u32 key = XFAB_QUEUE_KEY((__u32)pp->slot, (__u32)i);

		if (!(vector & (1u << i)))
			continue;
		queue_rec(g, key, &v);
		v.tx_frames++;
		if (!time)
			v.tx_xon++;
		v.tx_last_ns = now;
		bpf_map_update_elem(g->fd_queue, &key, &v, BPF_ANY);
	}
}

/* Wakes the port's qdisc after a gate opened: one frame enqueued there
 * (a PFC frame naming no priority, which every receiver ignores). */
static void kick(struct pfc_port_rt *pp)
{
	static const __u16 zero[XFAB_NUM_PRIO];
	__u8 f[60];

	if (send(pp->kick_fd, f, pfc_frame(f, pp->mac, 0, zero), 0) < 0)
		log_dbg("pfc: kick on %s: %s", pp->name, strerror(errno));
}

/* ---- honour ---- */

static void gate_close(struct pfc_rt *g, struct pfc_port_rt *pp, int prio, __u64 until)
{
	struct pfc_queue_rt *q = &pp->q[prio];
	__u32 key = XFAB_QUEUE_KEY((__u32)pp->slot, (__u32)prio);
	struct xfab_pfc_queue v;
	int err;

	q->paused_until = until;
	if (q->gated_since)
		return;
	err = gate_write(g, pp, prio, 0, 0);
	if (err) {
		log_warn("pfc: cannot pause %s priority %d: %s", pp->name, prio, strerror(-err));
		q->paused_until = 0;
		return;
	}
	q->gated_since = mono_ns();
	queue_rec(g, key, &v);
	q->paused_base = v.paused_ns;
	v.gated = 1;
	v.pauses++;
	bpf_map_update_elem(g->fd_queue, &key, &v, BPF_ANY);
}

static void gate_open(struct pfc_rt *g, struct pfc_port_rt *pp, int prio)
{
	struct pfc_queue_rt *q = &pp->q[prio];
	__u32 key = XFAB_QUEUE_KEY((__u32)pp->slot, (__u32)prio);
	struct xfab_pfc_queue v;
	int err;

	q->paused_until = 0;
	if (!q->gated_since)
		return;
	err = gate_write(g, pp, prio, 1, 0);
	if (err)
		log_warn("pfc: cannot resume %s priority %d: %s", pp->name, prio, strerror(-err));
	queue_rec(g, key, &v);
	v.gated = 0;
	v.paused_ns = q->paused_base + (mono_ns() - q->gated_since);
	bpf_map_update_elem(g->fd_queue, &key, &v, BPF_ANY);
	q->gated_since = 0;
	kick(pp);
}

/* What the data plane recorded for (port, prio): the pause it received. */
static void honour(struct pfc_rt *g, struct pfc_port_rt *pp, int prio)
{
	__u32 key = XFAB_QUEUE_KEY((__u32)pp->slot, (__u32)prio);
	struct xfab_pfc_state st;
	__u64 now = mono_ns();

	if (bpf_map_lookup_elem(g->fd_state, &key, &st))
		return;
	if (st.paused_until_ns > now)
		gate_close(g, pp, prio, st.paused_until_ns);
	else
		gate_open(g, pp, prio);
}

/* ---- generate ---- */

static __u64 refresh_period(const struct pfc_port_rt *pp)
{
	/* half the pause a frame asks for: refreshed well before it ends */
	return xfab_pfc_quanta_ns(XFAB_PFC_MAX_QUANTA, pp->speed_mbps) / 2;
}

static void xoff(struct pfc_rt *g, struct pfc_port_rt *pp, int prio)
{
	pp->xoff_mask |= (__u8)(1u << prio);
	send_pfc(g, pp, (__u8)(1u << prio), XFAB_PFC_MAX_QUANTA);
	if (!pp->refresh_at)
		pp->refresh_at = mono_ns() + refresh_period(pp);
}

static void xon(struct pfc_rt *g, struct pfc_port_rt *pp, int prio)
{
	pp->xoff_mask &= (__u8) ~(1u << prio);
	send_pfc(g, pp, (__u8)(1u << prio), 0);
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
static void pg_follow(struct pfc_rt *g, struct pfc_port_rt *pp, int prio, int resend)
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

static struct pfc_port_rt *port_of_slot(struct pfc_rt *g, __u32 slot)
{
	for (int i = 0; i < g->n; i++)
		if ((__u32)g->ports[i].slot == slot)
			return &g->ports[i];
	return NULL;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct pfc_rt *g = ctx;
	const struct xfab_pfc_event *e = data;
	struct pfc_port_rt *pp;

	if (size < sizeof(*e))
		return 0;
	pp = port_of_slot(g, e->slot);
	if (!pp)
		return 0;
	for (int prio = 0; prio < XFAB_NUM_PRIO; prio++) {
		if (!(e->prio_mask & (1u << prio)) || !(pp->enabled & (1u << prio)))
			continue;
		switch (e->kind) {
		case XFAB_PFC_EV_RX:
			honour(g, pp, prio);
			break;
		case XFAB_PFC_EV_XOFF:
			pg_follow(g, pp, prio, 1);
			break;
		case XFAB_PFC_EV_XON:
			pg_follow(g, pp, prio, 0);
			break;
		}
	}
	return 0;
}

/* ---- watchdog ---- */

static __u64 queue_packets(struct pfc_rt *g, __u32 key, __u64 *dropped)
{
	__u64 v[4] = {0};

	xfab_percpu_sum(g->fd_qstats, key, v, 4);
	*dropped = v[3];
	return v[0];
}

static void wd_bits(struct pfc_rt *g, struct pfc_port_rt *pp)
{
	struct xfab_pfc_cfg c;
	__u32 key = (__u32)pp->slot;
	__u8 ignore = 0, drop = 0;

	for (int prio = 0; prio < XFAB_NUM_PRIO; prio++) {
		__u32 qk = XFAB_QUEUE_KEY(key, (__u32)prio);
		struct xfab_pfc_queue v;

		if (!queue_rec(g, qk, &v)->stormed)
			continue;
		if (pp->wd.action == XFAB_PFCWD_DROP || pp->wd.action == XFAB_PFCWD_FORWARD)
			ignore |= (__u8)(1u << prio);
		if (pp->wd.action == XFAB_PFCWD_DROP)
			drop |= (__u8)(1u << prio);
	}
	if (bpf_map_lookup_elem(g->fd_cfg, &key, &c))
		return;
	if (c.wd_ignore == ignore && c.wd_drop == drop)
		return;
	c.wd_ignore = ignore;
	c.wd_drop = drop;
	bpf_map_update_elem(g->fd_cfg, &key, &c, BPF_ANY);
}

static const char *action_name(__u8 a)
{
	return a == XFAB_PFCWD_DROP ? "drop" : a == XFAB_PFCWD_FORWARD ? "forward" : "alert";
}

static void wd_poll_queue(struct pfc_rt *g, struct pfc_port_rt *pp, int prio, __u64 elapsed)
{
	struct pfc_queue_rt *q = &pp->q[prio];
	__u32 key = XFAB_QUEUE_KEY((__u32)pp->slot, (__u32)prio);
	struct xfab_pfc_state st;
	struct xfab_pfc_queue v;
	__u64 tx_ok, tx_drop;
	int gated = q->gated_since != 0, changed = 0;

	if (bpf_map_lookup_elem(g->fd_state, &key, &st))
		return;
	queue_rec(g, key, &v);
	tx_ok = queue_packets(g, key, &tx_drop);
	tx_drop += st.wd_tx_dropped;
	if (!v.stormed) {
		/* SONiC (broadcom): pause frames still coming, no XON among
		 * them, the queue paused at both samples; each such poll
		 * charges the time since the last */
		if (st.rx_frames > q->last_rx && st.rx_xon == q->last_xon && gated && q->last_gated)
			q->charge_ns += elapsed;
		else
			q->charge_ns = 0;
		if (q->charge_ns >= (__u64)pp->wd.detection_ms * NS_PER_MS) {
			v.stormed = 1;
			v.storms_detected++;
			q->quiet_ns = 0;
			q->base_tx_ok = tx_ok;
			q->base_tx_drop = tx_drop;
			q->base_rx_ok = st.rx_packets;
			q->base_rx_drop = st.wd_rx_dropped;
			v.wd_tx_ok_last = v.wd_tx_drop_last = v.wd_rx_ok_last = v.wd_rx_drop_last =
			    0;
			changed = 1;
			log_warn(
			    "PFC Watchdog detected PFC storm on port %s, priority %d, action %s",
			    pp->name, prio, action_name(pp->wd.action));
		}
	} else {
		__u64 d_tx_ok = tx_ok - q->base_tx_ok, d_tx_drop = tx_drop - q->base_tx_drop;
		__u64 d_rx_ok = st.rx_packets - q->base_rx_ok;
		__u64 d_rx_drop = st.wd_rx_dropped - q->base_rx_drop;

		v.wd_tx_ok += d_tx_ok - v.wd_tx_ok_last;
		v.wd_tx_drop += d_tx_drop - v.wd_tx_drop_last;
		v.wd_rx_ok += d_rx_ok - v.wd_rx_ok_last;
		v.wd_rx_drop += d_rx_drop - v.wd_rx_drop_last;
		v.wd_tx_ok_last = d_tx_ok;
		v.wd_tx_drop_last = d_tx_drop;
		v.wd_rx_ok_last = d_rx_ok;
		v.wd_rx_drop_last = d_rx_drop;
		if (st.rx_frames == q->last_rx)
			q->quiet_ns += elapsed;
		else
			q->quiet_ns = 0;
		if (q->quiet_ns >= (__u64)pp->wd.restoration_ms * NS_PER_MS) {
			v.stormed = 0;
			v.storms_restored++;
			q->charge_ns = 0;
			changed = 1;
			log_info("PFC Watchdog storm restored on port %s, priority %d", pp->name,
				 prio);
		}
	}
	q->last_rx = st.rx_frames;
	q->last_xon = st.rx_xon;
	q->last_gated = gated;
	v.wd_action = pp->wd.action;
	v.wd_detection_ms = pp->wd.detection_ms;
	v.wd_restoration_ms = pp->wd.restoration_ms;
	v.wd_poll_ms = g->poll_ms;
	bpf_map_update_elem(g->fd_queue, &key, &v, BPF_ANY);
	if (changed) {
		wd_bits(g, pp);
		/* drop and forward stop honouring pause: the queue flows
		 * (drop: the data plane discards what comes for it) */
		if (v.stormed && pp->wd.action != XFAB_PFCWD_ALERT)
			gate_open(g, pp, prio);
		if (v.stormed && pp->wd.action == XFAB_PFCWD_DROP && gate_flush(g, pp, prio))
			log_warn("pfc: cannot empty the queue of %s priority %d", pp->name, prio);
	}
}

static void wd_poll(struct pfc_rt *g, __u64 elapsed)
{
	pthread_mutex_lock(&g->lock);
	for (int i = 0; i < g->n; i++) {
		struct pfc_port_rt *pp = &g->ports[i];

		if (pp->wd.action == XFAB_PFCWD_OFF)
			continue;
		for (int prio = 0; prio < XFAB_NUM_PRIO; prio++)
			if (pp->enabled & (1u << prio))
				wd_poll_queue(g, pp, prio, elapsed);
		wd_bits(g, pp); /* again after a reload wrote pfc_cfg */
	}
	pthread_mutex_unlock(&g->lock);
}

/* ---- the accounting's safety net ---- */

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
static void resync_occupancy(struct pfc_rt *g)
{
	static char buf[32768];	      /* the PFC thread's alone */
	static struct backlog_walk w; /* 8 KiB: not on the thread's stack */
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *tcm;
	int ret;

	memset(&w, 0, sizeof(w));
	w.g = g;
	nlh->nlmsg_type = RTM_GETQDISC;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++g->seq;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	memset(tcm, 0, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	if (mnl_socket_sendto(g->nl, nlh, nlh->nlmsg_len) < 0)
		return;
	for (;;) {
		ret = (int)mnl_socket_recvfrom(g->nl, buf, sizeof(buf));
		if (ret <= 0)
			return;
		ret = mnl_cb_run(buf, (size_t)ret, g->seq, mnl_socket_get_portid(g->nl), qdisc_cb,
				 &w);
		if (ret <= MNL_CB_STOP)
			break;
	}
	if (ret < 0)
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
		for (int prio = 0; prio < XFAB_NUM_PRIO; prio++) {
			__u32 key = XFAB_QUEUE_KEY(slot, (__u32)prio);
			__u64 bound = xfab_pg_bound(w.bytes[prio], w.slot[slot][prio]), occ;
			struct xfab_pfc_state st;
			__u32 flag;

			if (!(pp->enabled & (1u << prio)))
				continue;
			/* read again now: the data plane's atomics change it
			 * meanwhile, and only a copy can be written back */
			if (bpf_map_lookup_elem(g->fd_state, &key, &st)) {
				pg_follow(g, pp, prio, 0);
				continue;
			}
			if (w.leak[slot][prio]) {
				occ = xfab_pg_take(st.occupancy_bytes, w.leak[slot][prio], st.xoff,
						   c.xon_bytes[prio], &flag);
				log_dbg("pfc: %s PG %d: %llu bytes still counted at empty queues: "
					"taken back",
					pp->name, prio, (unsigned long long)w.leak[slot][prio]);
				st.occupancy_bytes = occ;
				st.xoff = flag;
				st.resynced++;
				bpf_map_update_elem(g->fd_state, &key, &st, BPF_ANY);
			}
			if (xfab_pg_resync(st.occupancy_bytes, st.xoff, c.xon_bytes[prio], bound,
					   &occ, &flag)) {
				log_dbg(
				    "pfc: %s PG %d: %llu bytes counted, %llu queued at the other "
				    "ports: resynced",
				    pp->name, prio, (unsigned long long)st.occupancy_bytes,
				    (unsigned long long)bound);
				st.occupancy_bytes = occ;
				st.xoff = flag;
				st.resynced++;
				bpf_map_update_elem(g->fd_state, &key, &st, BPF_ANY);
			}
			pg_follow(g, pp, prio, 0);
		}
	}
}

/* Every poll: a queue paused right now shows its paused time so far
 * (show queue counters, metrics), not only once the pause ends. */
static void paused_poll(struct pfc_rt *g, __u64 now)
{
	pthread_mutex_lock(&g->lock); /* a pfcwd request writes the records too */
	for (int i = 0; i < g->n; i++)
		for (int prio = 0; prio < XFAB_NUM_PRIO; prio++) {
			struct pfc_port_rt *pp = &g->ports[i];
			struct pfc_queue_rt *q = &pp->q[prio];
			__u32 key = XFAB_QUEUE_KEY((__u32)pp->slot, (__u32)prio);
			struct xfab_pfc_queue v;

			if (!q->gated_since)
				continue;
			queue_rec(g, key, &v);
			v.paused_ns = q->paused_base + (now - q->gated_since);
			bpf_map_update_elem(g->fd_queue, &key, &v, BPF_ANY);
		}
	pthread_mutex_unlock(&g->lock);
}

/* ---- the thread ---- */

/* Expired pauses, due refreshes, the watchdog's poll; the next deadline. */
static __u64 on_timer(struct pfc_rt *g)
{
	__u64 now = mono_ns(), next = g->next_poll;

	if (now >= g->next_poll) {
		__u64 poll = (__u64)__atomic_load_n(&g->poll_ms, __ATOMIC_RELAXED) * NS_PER_MS;

		wd_poll(g, poll);
		resync_occupancy(g);
		paused_poll(g, now);
		g->next_poll = now + poll;
		next = g->next_poll;
	}
	for (int i = 0; i < g->n; i++) {
		struct pfc_port_rt *pp = &g->ports[i];

		for (int prio = 0; prio < XFAB_NUM_PRIO; prio++) {
			struct pfc_queue_rt *q = &pp->q[prio];

			if (!q->gated_since)
				continue;
			if (q->paused_until <= now)
				honour(g, pp, prio); /* a later XOFF may have extended it */
			if (q->gated_since && (!next || q->paused_until < next))
				next = q->paused_until;
		}
		if (pp->refresh_at && now >= pp->refresh_at) {
			/* only what the data plane still asks (XON for the rest) */
			for (int prio = 0; prio < XFAB_NUM_PRIO; prio++)
				if (pp->xoff_mask & (1u << prio))
					pg_follow(g, pp, prio, 0);
			if (pp->xoff_mask) {
				send_pfc(g, pp, pp->xoff_mask, XFAB_PFC_MAX_QUANTA);
				pp->refresh_at = now + refresh_period(pp);
			}
		}
		if (pp->refresh_at && (!next || pp->refresh_at < next))
			next = pp->refresh_at;
	}
	return next;
}

static void arm(struct pfc_rt *g, __u64 at)
{
	struct itimerspec its = {0};

	if (!at)
		at = mono_ns() + 1000 * NS_PER_MS;
	its.it_value.tv_sec = (time_t)(at / 1000000000ull);
	its.it_value.tv_nsec = (long)(at % 1000000000ull);
	timerfd_settime(g->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void *pfc_main(void *arg)
{
	struct pfc_rt *g = arg;
	struct pollfd pfd[3] = {
	    {.fd = ring_buffer__epoll_fd(g->rb), .events = POLLIN},
	    {.fd = g->timer_fd, .events = POLLIN},
	    {.fd = g->stop_fd, .events = POLLIN},
	};

	arm(g, on_timer(g));
	for (;;) {
		if (poll(pfd, 3, -1) < 0 && errno != EINTR)
			break;
		if (pfd[2].revents)
			break;
		if (pfd[0].revents)
			ring_buffer__consume(g->rb);
		if (pfd[1].revents) {
			__u64 ticks;

			if (read(g->timer_fd, &ticks, sizeof(ticks)) < 0)
				ticks = 0;
		}
		arm(g, on_timer(g));
	}
	return NULL;
}

/* ---- what the config says (PORT_QOS_MAP, BUFFER_PG, PFC_WD) ---- */

static __u32 cfg_poll_ms(const struct agent *a)
{
	return a->cfg.pfcwd_poll_ms ? a->cfg.pfcwd_poll_ms : 200;
}

/* A lossless queue's limit: it must never drop, so it holds what every
 * ingress may send before its pause takes effect (the largest of its
 * priorities' sums). */
static __u32 cfg_queue_limit(const struct agent *a, int p)
{
	__u32 lim = 0;

	for (int prio = 0; prio < XFAB_NUM_PRIO; prio++)
		if (a->cfg.ports[p].pfc.enabled & (1u << prio)) {
			__u32 l = xfab_pfc_queue_limit(&a->cfg, p, prio);

			lim = l > lim ? l : lim;
		}
	/* and never less than 4 MiB: on a busy host the reaction time has a
	 * long tail (a thread not scheduled); a drop here breaks the class */
	return lim > (4u << 20) ? lim : 4u << 20;
}

static void cfg_wd(const struct agent *a, int p, struct pfc_wd *wd)
{
	const struct xfab_cfg_pfc *f = &a->cfg.ports[p].pfc;

	wd->action = f->wd_action;
	wd->detection_ms = f->wd_detection_ms;
	wd->restoration_ms = f->wd_restoration_ms;
}

static struct pfc_rt *the_pfc;

/* The ingress accounting gives queued bytes back from two raw tracepoint
 * programs: net_dev_start_xmit (the packet leaves) and kfree_skb (it is
 * dropped instead). Pinned like the ports' links, as pfc_<program>, so the
 * accounting goes on while no xfabd runs; a new xfabd attaches its own,
 * then drops the old (a raw tracepoint link cannot swap programs). */
#define N_TP 2

static int tp_attach(struct agent *a, struct pfc_rt *g)
{
	struct bpf_program *p;
	int n = 0;

	bpf_object__for_each_program(p, a->skel->obj)
	{
		const char *sec = bpf_program__section_name(p);
		char pin[512];
		int fd;

		if (bpf_program__type(p) != BPF_PROG_TYPE_RAW_TRACEPOINT ||
		    strncmp(sec, "raw_tp/", 7) || n == N_TP)
			continue;
		fd = bpf_raw_tracepoint_open(sec + 7, bpf_program__fd(p));
		if (fd < 0)
			return -errno;
		g->tp_link[n++] = fd;
		snprintf(pin, sizeof(pin), "%s/pfc_%s", a->pin_dir, bpf_program__name(p));
		unlink(pin); /* an old one goes: ours runs already */
		if (bpf_obj_pin(fd, pin))
			return -errno;
	}
	if (n < N_TP)
		log_warn("pfc: %d of %d accounting programs in this build", n, N_TP);
	return 0;
}

static void tp_detach(struct agent *a, struct pfc_rt *g)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, a->skel->obj)
	{
		char pin[512];

		if (bpf_program__type(p) != BPF_PROG_TYPE_RAW_TRACEPOINT)
			continue;
		/* --keep: the pins keep them attached for the next xfabd */
		snprintf(pin, sizeof(pin), "%s/pfc_%s", a->pin_dir, bpf_program__name(p));
		if (!a->keep)
			unlink(pin);
	}
	for (int i = 0; i < N_TP; i++)
		if (g->tp_link[i] >= 0)
			close(g->tp_link[i]);
}

int pfc_start(struct agent *a)
{
	struct pfc_rt *g;
	int err = -ENOMEM;

	pfc_stop(a);
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->stop_fd = g->timer_fd = g->tp_link[0] = g->tp_link[1] = -1;
	g->fd_cfg = bpf_map__fd(a->skel->maps.pfc_cfg);
	g->fd_state = bpf_map__fd(a->skel->maps.pfc_state);
	g->fd_queue = bpf_map__fd(a->skel->maps.pfc_queue);
	g->fd_qstats = bpf_map__fd(a->skel->maps.queue_stats);
	g->eg = mmap(NULL, (size_t)XFAB_PFC_EG_ENTRIES * sizeof(__u64), PROT_READ | PROT_WRITE,
		     MAP_SHARED, bpf_map__fd(a->skel->maps.pfc_egress), 0);
	if (g->eg == MAP_FAILED) {
		log_warn("pfc: cannot map pfc_egress (%s): no sweep of missed give-backs",
			 strerror(errno));
		g->eg = NULL;
	}
	g->poll_ms = cfg_poll_ms(a);
	for (int p = 0; p < a->cfg.n_ports; p++) {
		struct pfc_port_rt *pp = &g->ports[g->n];
		struct xfab_pfc_cfg c;
		__u32 key = (__u32)p;

		if (bpf_map_lookup_elem(g->fd_cfg, &key, &c) || !c.enabled)
			continue;
		if (!a->shaped[p]) {
			log_err("pfc: %s has lossless priorities but no class queues (the tc "
				"datapath with a port rate)",
				a->cfg.ports[p].name);
			continue;
		}
		memset(pp, 0, sizeof(*pp));
		pp->slot = p;
		pp->ifindex = a->live[p].ifindex;
		memcpy(pp->mac, a->live[p].mac, 6);
		snprintf(pp->name, sizeof(pp->name), "%s", a->cfg.ports[p].name);
		pp->enabled = c.enabled;
		pp->speed_mbps = c.speed_mbps;
		pp->rate_mbps = a->cfg.ports[p].rate_mbps;
		pp->limit_bytes = cfg_queue_limit(a, p);
		cfg_wd(a, p, &pp->wd);
		pp->tx_fd = packet_socket(pp->ifindex, 1);
		pp->kick_fd = packet_socket(pp->ifindex, 0);
		g->n++;
		if (pp->tx_fd < 0 || pp->kick_fd < 0) {
			err = -errno;
			log_err("pfc: cannot open packet sockets on %s: %s", pp->name,
				strerror(errno));
			goto fail;
		}
	}
	if (!g->n) {
		free(g);
		return 0;
	}
	g->nl = mnl_socket_open(NETLINK_ROUTE);
	if (!g->nl || mnl_socket_bind(g->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		log_err("pfc: netlink: %s", strerror(errno));
		goto fail;
	}
	/* the gates: every lossless queue a TBF at line rate (replacing the
	 * class's bfifo; what it held is dropped, as on any queue rebuild) */
	for (int i = 0; i < g->n; i++)
		for (int prio = 0; prio < XFAB_NUM_PRIO; prio++) {
			struct pfc_port_rt *pp = &g->ports[i];

			if (!(pp->enabled & (1u << prio)))
				continue;
			err = gate_write(g, pp, prio, 1, 1);
			if (err) {
				log_err("pfc: cannot put the gate of %s priority %d in place: %s",
					pp->name, prio, strerror(-err));
				goto fail;
			}
		}
	err = tp_attach(a, g);
	if (err) {
		log_err("pfc: cannot attach the accounting programs: %s", strerror(-err));
		goto fail;
	}
	g->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	g->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	g->rb = ring_buffer__new(bpf_map__fd(a->skel->maps.pfc_events), on_event, g, NULL);
	if (g->stop_fd < 0 || g->timer_fd < 0 || !g->rb) {
		err = -errno ? -errno : -ENOMEM;
		goto fail;
	}
	g->next_poll = mono_ns() + (__u64)g->poll_ms * NS_PER_MS;
	pthread_mutex_init(&g->lock, NULL);
	if (pthread_create(&g->tid, NULL, pfc_main, g)) {
		err = -EAGAIN;
		goto fail;
	}
	g->running = 1;
	the_pfc = g;
	log_info("pfc: %d port(s) with lossless priorities, watchdog poll %u ms", g->n, g->poll_ms);
	return 0;
fail:
	the_pfc = g;
	pfc_stop(a);
	return err;
}

void pfc_stop(struct agent *a)
{
	struct pfc_rt *g = the_pfc;

	if (!g)
		return;
	if (g->running) {
		__u64 one = 1;

		if (write(g->stop_fd, &one, sizeof(one)) < 0)
			log_warn("pfc: cannot stop the thread: %s", strerror(errno));
		pthread_join(g->tid, NULL);
	}
	/* nothing stays paused without the thread that would resume it */
	for (int i = 0; i < g->n; i++)
		for (int prio = 0; prio < XFAB_NUM_PRIO && g->nl; prio++)
			gate_open(g, &g->ports[i], prio);
	for (int i = 0; i < g->n; i++) {
		if (g->ports[i].tx_fd >= 0)
			close(g->ports[i].tx_fd);
		if (g->ports[i].kick_fd >= 0)
			close(g->ports[i].kick_fd);
	}
	tp_detach(a, g);
	ring_buffer__free(g->rb);
	if (g->nl)
		mnl_socket_close(g->nl);
	if (g->stop_fd >= 0)
		close(g->stop_fd);
	if (g->timer_fd >= 0)
		close(g->timer_fd);
	if (g->eg)
		munmap(g->eg, (size_t)XFAB_PFC_EG_ENTRIES * sizeof(__u64));
	free(g);
	the_pfc = NULL;
}

/* ---- the watchdog requests (pfcwd-start, -stop, -interval) ---- */

static int wd_refuse(char *field, size_t flen, char *msg, size_t mlen, const char *f,
		     const char *fmt, const char *arg)
{
	snprintf(field, flen, "%s", f);
	snprintf(msg, mlen, fmt, arg);
	return -1;
}

/* The PFC ports a "ports" field names (a bit per index into the thread's
 * ports); -1 with field and msg when one is not a port with lossless
 * priorities. "" or "all": every one. */
static int wd_ports(const struct pfc_rt *g, const char *ports, __u64 *set, char *field, size_t flen,
		    char *msg, size_t mlen)
{
	char copy[512], *tok, *save = NULL;

	*set = 0;
	if (!*ports || !strcmp(ports, "all")) {
		*set = g->n >= 64 ? ~0ull : (1ull << g->n) - 1;
		return 0;
	}
	snprintf(copy, sizeof(copy), "%s", ports);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int found = -1;

		for (int i = 0; i < g->n; i++)
			if (!strcmp(g->ports[i].name, tok))
				found = i;
		if (found < 0)
			return wd_refuse(field, flen, msg, mlen, "ports",
					 "%s is not a port with lossless priorities "
					 "(PORT_QOS_MAP pfc_enable)",
					 tok);
		*set |= 1ull << found;
	}
	return 0;
}

int pfc_wd_request(struct agent *a, const struct xfab_ctl_req *r, char *field, size_t flen,
		   char *msg, size_t mlen)
{
	struct pfc_rt *g = the_pfc;
	__u32 det = 0, rest = 0, poll = 0;
	__u8 action = XFAB_PFCWD_DROP;
	__u64 set = 0;
	int ret = 0;

	(void)a;
	if (!g)
		return wd_refuse(field, flen, msg, mlen, "", "%s",
				 "no port has lossless priorities (PORT_QOS_MAP pfc_enable)");
	pthread_mutex_lock(&g->lock);
	if (r->cmd != XFAB_CTL_PFCWD_INTERVAL &&
	    wd_ports(g, r->ports, &set, field, flen, msg, mlen)) {
		ret = -1;
		goto out;
	}
	if (r->cmd == XFAB_CTL_PFCWD_START) {
		det = (__u32)strtoul(r->detection, NULL, 10);
		rest = *r->restoration ? (__u32)strtoul(r->restoration, NULL, 10) : 2 * det;
		if (!strcmp(r->action, "forward"))
			action = XFAB_PFCWD_FORWARD;
		else if (!strcmp(r->action, "alert"))
			action = XFAB_PFCWD_ALERT;
		if (det < g->poll_ms || rest < g->poll_ms) {
			snprintf(field, flen, "%s",
				 det < g->poll_ms ? "detection_time" : "restoration_time");
			snprintf(msg, mlen,
				 "must be at least the poll interval (%u ms; pfcwd interval)",
				 g->poll_ms);
			ret = -1;
			goto out;
		}
		for (int i = 0; i < g->n; i++)
			if (set & (1ull << i)) {
				g->ports[i].wd.action = action;
				g->ports[i].wd.detection_ms = det;
				g->ports[i].wd.restoration_ms = rest;
			}
	} else if (r->cmd == XFAB_CTL_PFCWD_STOP) {
		for (int i = 0; i < g->n; i++)
			if (set & (1ull << i))
				g->ports[i].wd.action = XFAB_PFCWD_OFF;
	} else {
		poll = (__u32)strtoul(r->poll, NULL, 10);
		for (int i = 0; i < g->n; i++) {
			const struct pfc_wd *w = &g->ports[i].wd;

			if (w->action != XFAB_PFCWD_OFF &&
			    (poll > w->detection_ms || poll > w->restoration_ms)) {
				snprintf(field, flen, "poll_interval");
				snprintf(msg, mlen,
					 "%u ms is longer than the detection or restoration time "
					 "of %s",
					 poll, g->ports[i].name);
				ret = -1;
				goto out;
			}
		}
		__atomic_store_n(&g->poll_ms, poll, __ATOMIC_RELAXED);
	}
out:
	pthread_mutex_unlock(&g->lock);
	if (!ret)
		log_info("pfcwd: %s%s%s", xfab_ctl_cmd_name(r->cmd), *r->ports ? " " : "",
			 r->ports);
	return ret;
}

/* The control socket's pfcwd-* requests come here through its table
 * (requests.c), set before main runs: the socket never names this part. */
__attribute__((constructor)) static void pfc_wd_register(void)
{
	ctl_register_check(XFAB_CTL_PFCWD_START, pfc_wd_request);
	ctl_register_check(XFAB_CTL_PFCWD_STOP, pfc_wd_request);
	ctl_register_check(XFAB_CTL_PFCWD_INTERVAL, pfc_wd_request);
}
