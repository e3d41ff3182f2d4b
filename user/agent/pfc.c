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
 * This file is the thread (its events and timers, start and stop); the
 * gates are pfc_gate.c's, the frames pfc_tx.c's, the accounting's
 * correction agent_pfc_resync.c's, the watchdog pfc_wd.c's (pfc_rt.h), which
 * this file reaches only through the poll hook pfc_wd.c registers.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "common.h"
#include "pfc.h"
#include "pfc_rt.h"
#include "xfab.skel.h"

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
			agent_pfc_honour(g, pp, prio);
			break;
		case XFAB_PFC_EV_XOFF:
			agent_pfc_pg_follow(g, pp, prio, 1);
			break;
		case XFAB_PFC_EV_XON:
			agent_pfc_pg_follow(g, pp, prio, 0);
			break;
		}
	}
	return 0;
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
			agent_pfc_queue_rec(g, key, &v);
			v.paused_ns = q->paused_base + (now - q->gated_since);
			bpf_map_update_elem(g->fd_queue, &key, &v, BPF_ANY);
		}
	pthread_mutex_unlock(&g->lock);
}

/* ---- the thread ---- */

static pfc_poll_fn pfc_poll_hooks[PFC_POLL_HOOKS];
static int pfc_n_poll_hooks;

int agent_pfc_register_poll(pfc_poll_fn fn)
{
	if (pfc_n_poll_hooks >= PFC_POLL_HOOKS)
		return -1;
	pfc_poll_hooks[pfc_n_poll_hooks++] = fn;
	return 0;
}

/* Expired pauses, due refreshes, the watchdog's poll; the next deadline. */
static __u64 on_timer(struct pfc_rt *g)
{
	__u64 now = xfab_mono_ns(), next = g->next_poll;

	if (now >= g->next_poll) {
		__u64 poll = (__u64)__atomic_load_n(&g->poll_ms, __ATOMIC_RELAXED) * PFC_NS_PER_MS;

		for (int h = 0; h < pfc_n_poll_hooks; h++)
			pfc_poll_hooks[h](g, poll); /* the watchdog's (pfc_wd.c) */
		agent_pfc_resync(g);
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
				agent_pfc_honour(g, pp,
						 prio); /* a later XOFF may have extended it */
			if (q->gated_since && (!next || q->paused_until < next))
				next = q->paused_until;
		}
		if (pp->refresh_at && now >= pp->refresh_at) {
			/* only what the data plane still asks (XON for the rest) */
			for (int prio = 0; prio < XFAB_NUM_PRIO; prio++)
				if (pp->xoff_mask & (1u << prio))
					agent_pfc_pg_follow(g, pp, prio, 0);
			if (pp->xoff_mask) {
				agent_pfc_send(g, pp, pp->xoff_mask, XFAB_PFC_MAX_QUANTA);
				pp->refresh_at = now + agent_pfc_refresh_period(pp);
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
		at = xfab_mono_ns() + 1000 * PFC_NS_PER_MS;
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

static void cfg_wd(const struct agent *a, int p, struct pfcwd_settings *wd)
{
	const struct xfab_cfg_pfc *f = &a->cfg.ports[p].pfc;

	wd->action = f->wd_action;
	wd->detection_ms = f->wd_detection_ms;
	wd->restoration_ms = f->wd_restoration_ms;
}

static struct pfc_rt *the_pfc;

struct pfc_rt *agent_pfc_running(void)
{
	return the_pfc;
}

/* The ingress accounting gives queued bytes back from two BTF tracepoint
 * programs: net_dev_start_xmit (the packet leaves) and kfree_skb (it is
 * dropped instead). Pinned like the ports' links, as pfc_<program>, so the
 * accounting goes on while no xfabd runs; a new xfabd attaches its own,
 * then drops the old (a tracepoint link cannot swap programs). */
#define N_TP 2

static int tp_is_accounting(const struct bpf_program *p)
{
	return bpf_program__type(p) == BPF_PROG_TYPE_TRACING &&
	       !strncmp(bpf_program__section_name(p), "tp_btf/", 7);
}

static int tp_attach(struct agent *a, struct pfc_rt *g)
{
	struct bpf_program *p;
	int n = 0;

	bpf_object__for_each_program(p, a->skel->obj)
	{
		char pin[512];
		int fd;

		if (!tp_is_accounting(p) || n == N_TP)
			continue;
		fd = bpf_raw_tracepoint_open(NULL, bpf_program__fd(p));
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

		if (!tp_is_accounting(p))
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

/* The ports whose pfc_cfg entry enables a priority, with their packet
 * sockets: 0 or -errno (the ports opened so far counted in g->n, for
 * agent_pfc_stop to close). */
static int pfc_ports_open(struct agent *a, struct pfc_rt *g)
{
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
		pp->tx_fd = agent_pfc_packet_socket(pp->ifindex, 1);
		pp->kick_fd = agent_pfc_packet_socket(pp->ifindex, 0);
		g->n++;
		if (pp->tx_fd < 0 || pp->kick_fd < 0) {
			int err = -errno;

			log_err("pfc: cannot open packet sockets on %s: %s", pp->name,
				strerror(errno));
			return err;
		}
	}
	return 0;
}

int agent_pfc_start(struct agent *a)
{
	struct pfc_rt *g;
	int err = -ENOMEM;

	agent_pfc_stop(a);
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
	err = pfc_ports_open(a, g);
	if (err)
		goto fail;
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
			err = agent_pfc_gate_write(g, pp, prio, 1, 1);
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
	g->next_poll = xfab_mono_ns() + (__u64)g->poll_ms * PFC_NS_PER_MS;
	pthread_mutex_init(&g->lock, NULL);
	if (pthread_create(&g->tid, NULL, pfc_main, g)) {
		err = -EAGAIN;
		goto fail;
	}
	/* by name in ps -L and /proc: what an operator's chrt or taskset finds */
	pthread_setname_np(g->tid, "xfabd-pfc");
	g->running = 1;
	the_pfc = g;
	log_info("pfc: %d port(s) with lossless priorities, watchdog poll %u ms", g->n, g->poll_ms);
	return 0;
fail:
	the_pfc = g;
	agent_pfc_stop(a);
	return err;
}

void agent_pfc_stop(struct agent *a)
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
			agent_pfc_gate_open(g, &g->ports[i], prio);
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
