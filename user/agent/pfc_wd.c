// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The PFC watchdog in xfabd (docs/PFC.md): every poll it samples each
 * watched queue (the pause frames the data plane counted, the gate, the
 * queue's and the PG's packets), steps the state machine of
 * user/lib/pfcwd.c, and carries out what it decides: the queue's record
 * in pfc_queue, the data plane's bits in pfc_cfg (wd_ignore, wd_drop),
 * the gate opened and flushed, the log. And the requests that change the
 * settings until the next reload (pfcwd-start, -stop, -interval).
 */
#include <bpf/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "common.h"
#include "ctlproto.h"
#include "pfc.h"
#include "pfc_rt.h"

/* ---- the poll ---- */

/* The egress queue's packets sent; *dropped, those it dropped. */
static __u64 pfc_wd_queue_packets(struct pfc_rt *g, __u32 key, __u64 *dropped)
{
	__u64 v[4] = {0};

	xfab_percpu_sum(g->fd_qstats, key, v, 4);
	*dropped = v[3];
	return v[0];
}

/* Writes the port's wd_ignore and wd_drop bits where they differ from what
 * the records' stormed flags and the port's action imply. */
static void pfc_wd_bits(struct pfc_rt *g, struct pfc_port_rt *pp)
{
	struct xfab_pfc_cfg c;
	__u32 key = (__u32)pp->slot;
	__u8 stormed = 0, ignore, drop;

	for (int prio = 0; prio < XFAB_NUM_PRIO; prio++) {
		struct xfab_pfc_queue v;

		if (agent_pfc_queue_rec(g, XFAB_QUEUE_KEY(key, (__u32)prio), &v)->stormed)
			stormed |= (__u8)(1u << prio);
	}
	xfab_pfcwd_bits(stormed, pp->wd.action, &ignore, &drop);
	pp->wd_ignore = ignore; /* the gates' honour reads it (pfc_gate.c) */
	if (bpf_map_lookup_elem(g->fd_cfg, &key, &c))
		return;
	if (c.wd_ignore == ignore && c.wd_drop == drop)
		return;
	c.wd_ignore = ignore;
	c.wd_drop = drop;
	bpf_map_update_elem(g->fd_cfg, &key, &c, BPF_ANY);
}

/* The sample of one queue: 0, or -1 when its state cannot be read. */
static int pfc_wd_sample(struct pfc_rt *g, struct pfc_port_rt *pp, int prio, struct pfcwd_sample *s)
{
	__u32 key = XFAB_QUEUE_KEY((__u32)pp->slot, (__u32)prio);
	struct xfab_pfc_state st;

	if (bpf_map_lookup_elem(g->fd_state, &key, &st))
		return -1;
	s->rx_frames = st.rx_frames;
	s->rx_xon = st.rx_xon;
	s->gated = pp->q[prio].gated_since != 0;
	s->tx_ok = pfc_wd_queue_packets(g, key, &s->tx_drop);
	s->tx_drop += st.wd_tx_dropped;
	s->rx_ok = st.rx_packets;
	s->rx_drop = st.wd_rx_dropped;
	return 0;
}

/* The queue a verdict is carried out on (xfab_pfcwd_carry_out's ctx). */
struct pfc_wd_target {
	struct pfc_rt *g;
	struct pfc_port_rt *pp;
	int prio;
};

static void pfc_wd_do_bits(void *ctx)
{
	struct pfc_wd_target *t = ctx;

	pfc_wd_bits(t->g, t->pp);
}

static int pfc_wd_do_flush(void *ctx)
{
	struct pfc_wd_target *t = ctx;

	return agent_pfc_gate_flush(t->g, t->pp, t->prio);
}

static void pfc_wd_do_open(void *ctx)
{
	struct pfc_wd_target *t = ctx;

	agent_pfc_gate_open(t->g, t->pp, t->prio);
}

static const struct pfcwd_ops pfc_wd_ops = {
    .bits = pfc_wd_do_bits,
    .flush = pfc_wd_do_flush,
    .open = pfc_wd_do_open,
};

static void pfc_wd_poll_queue(struct pfc_rt *g, struct pfc_port_rt *pp, int prio, __u64 elapsed_ns)
{
	__u32 key = XFAB_QUEUE_KEY((__u32)pp->slot, (__u32)prio);
	struct pfc_wd_target t = {g, pp, prio};
	struct pfcwd_verdict act;
	struct pfcwd_sample s;
	struct xfab_pfc_queue v;

	if (pfc_wd_sample(g, pp, prio, &s))
		return;
	agent_pfc_queue_rec(g, key, &v);
	act = xfab_pfcwd_step(&pp->q[prio].wd, &v, &pp->wd, &s, elapsed_ns);
	v.wd_action = pp->wd.action;
	v.wd_detection_ms = pp->wd.detection_ms;
	v.wd_restoration_ms = pp->wd.restoration_ms;
	v.wd_poll_ms = g->poll_ms;
	bpf_map_update_elem(g->fd_queue, &key, &v, BPF_ANY);
	if (act.transition == PFCWD_DETECTED)
		log_warn("PFC Watchdog detected PFC storm on port %s, priority %d, action %s",
			 pp->name, prio, xfab_pfcwd_action_name(pp->wd.action));
	else if (act.transition == PFCWD_RESTORED)
		log_info("PFC Watchdog storm restored on port %s, priority %d", pp->name, prio);
	if (xfab_pfcwd_carry_out(&act, &pfc_wd_ops, &t))
		log_warn("pfc: cannot empty the queue of %s priority %d", pp->name, prio);
}

/* Every poll, elapsed_ns after the last: pfc.c's thread calls it through
 * the poll hook registered below. */
static void pfc_wd_poll(struct pfc_rt *g, __u64 elapsed_ns)
{
	pthread_mutex_lock(&g->lock);
	for (int i = 0; i < g->n; i++) {
		struct pfc_port_rt *pp = &g->ports[i];

		if (pp->wd.action == XFAB_PFCWD_OFF)
			continue;
		for (int prio = 0; prio < XFAB_NUM_PRIO; prio++)
			if (pp->enabled & (1u << prio))
				pfc_wd_poll_queue(g, pp, prio, elapsed_ns);
		pfc_wd_bits(g, pp); /* again after a reload wrote pfc_cfg */
	}
	pthread_mutex_unlock(&g->lock);
}

/* ---- the watchdog requests (pfcwd-start, -stop, -interval) ---- */

static int pfc_wd_refuse(char *field, size_t flen, char *msg, size_t mlen, const char *f,
			 const char *fmt, const char *arg)
{
	snprintf(field, flen, "%s", f);
	snprintf(msg, mlen, fmt, arg);
	return -1;
}

/* The PFC ports a "ports" field names (a bit per index into the thread's
 * ports); -1 with field and msg when one is not a port with lossless
 * priorities. "" or "all": every one. */
static int pfc_wd_ports(const struct pfc_rt *g, const char *ports, __u64 *set, char *field,
			size_t flen, char *msg, size_t mlen)
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
			return pfc_wd_refuse(field, flen, msg, mlen, "ports",
					     "%s is not a port with lossless priorities "
					     "(PORT_QOS_MAP pfc_enable)",
					     tok);
		*set |= 1ull << found;
	}
	return 0;
}

int agent_pfc_wd_request(struct agent *a, const struct xfab_ctl_req *r, char *field, size_t flen,
			 char *msg, size_t mlen)
{
	struct pfc_rt *g = agent_pfc_running();
	__u32 det = 0, rest = 0, poll = 0;
	__u8 action = XFAB_PFCWD_DROP;
	__u64 set = 0;
	int ret = 0;

	(void)a;
	if (!g)
		return pfc_wd_refuse(field, flen, msg, mlen, "", "%s",
				     "no port has lossless priorities (PORT_QOS_MAP pfc_enable)");
	pthread_mutex_lock(&g->lock);
	if (r->cmd != XFAB_CTL_PFCWD_INTERVAL &&
	    pfc_wd_ports(g, r->ports, &set, field, flen, msg, mlen)) {
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
			const struct pfcwd_settings *w = &g->ports[i].wd;

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
 * (requests.c), and the thread's poll through pfc.c's hook, both set before
 * main runs: neither the socket nor the thread names this part. xfabd links
 * this object directly (not from a library), so the constructor is kept. */
__attribute__((constructor)) static void pfc_wd_register(void)
{
	agent_pfc_register_poll(pfc_wd_poll);
	agent_ctl_register_check(XFAB_CTL_PFCWD_START, agent_pfc_wd_request);
	agent_ctl_register_check(XFAB_CTL_PFCWD_STOP, agent_pfc_wd_request);
	agent_ctl_register_check(XFAB_CTL_PFCWD_INTERVAL, agent_pfc_wd_request);
}
