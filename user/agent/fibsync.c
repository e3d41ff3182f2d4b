// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * FIB_SYNC: the kernel's routes (what FRR's zebra installs) mirrored into
 * the data plane. The event socket (netlink.c) hands route and nexthop
 * messages here; nlroute.c decodes them and keeps them as the RIB's NETLINK
 * source; a batch of events is written with one xfab_compile_routes, which
 * writes only the entries they changed.
 *
 *   start      dump nexthop objects, then routes, before the ports attach
 *   events     applied as they come; written once per batch read
 *   link down  the kernel drops IPv4 routes and nexthop objects on the link
 *              without telling: the mirror drops them too (the data plane
 *              already stopped using the port: compile_link)
 *   overrun    (ENOBUFS) mark, dump again, sweep: what is unchanged is not
 *              written, what vanished goes
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "common.h"

static int port_of(void *arg, __u32 ifindex)
{
	return agent_port_of_ifindex(arg, ifindex);
}

#define HELD_MAX (1u << 20)

static void key_of(struct xfab_rib_key *k, const struct xfab_nl_route *r)
{
	memset(k, 0, sizeof(*k));
	k->family = r->family;
	k->plen = r->plen;
	memcpy(k->addr, r->dst, 16);
}

static size_t held_find(const struct fib_sync *fs, const struct xfab_nl_route *r)
{
	for (size_t i = 0; i < fs->n_held; i++) {
		const struct held_del *h = &fs->held[i];

		if (h->family == r->family && h->plen == r->plen && !memcmp(h->dst, r->dst, 16))
			return i;
	}
	return fs->n_held;
}

/* Port p went down within hold ns of now (and is still down). */
static int port_just_down(const struct agent *a, int p, __u64 now, __u64 hold)
{
	if (p >= a->cfg.n_ports)
		return 0;
	if (!a->live[p].oper_up)
		return now - a->down_ns[p] <= hold;
	return 0;
}

/* Withdrawal r held until deadline: 1, or 0 out of memory. */
static int held_add(struct fib_sync *fs, const struct xfab_nl_route *r, __u64 deadline)
{
	struct held_del *h;

	if (fs->n_held == fs->cap_held) {
		size_t cap = fs->cap_held ? fs->cap_held * 2 : 64;
		struct held_del *n = realloc(fs->held, cap * sizeof(*n));

		if (!n)
			return 0;
		fs->held = n;
		fs->cap_held = cap;
	}
	h = &fs->held[fs->n_held++];
	h->deadline_ns = deadline;
	h->table = r->table;
	h->priority = r->priority;
	h->family = r->family;
	h->plen = r->plen;
	h->protocol = r->protocol;
	memcpy(h->dst, r->dst, 16);
	fs->held_total++;
	return 1;
}

/* A brief hold's limit: it rides over a routing daemon's delete and re-add
 * of a few routes; a sweep of thousands is a real change (and the held
 * list is searched linearly). */
#define BRIEF_MAX 4096u

/* Every member of e on a port that is up (and e has members). */
static int members_all_up(const struct agent *a, const struct xfab_rib_entry *e)
{
	for (int i = 0; i < e->path->n; i++) {
		int p = e->path->m[i].port;

		if (p >= a->cfg.n_ports || !a->live[p].oper_up)
			return 0;
	}
	return e->path->n > 0;
}

/* A restart's sweep can be a whole table; the held list is searched
 * linearly, so past this many the rest go at once. */
#define RESTART_MAX 16384u

/* When the daemon owning protocol's routes started (0: none), looked up at
 * most every 100 ms per protocol: a sweep is thousands of withdrawals in
 * one batch. */
static __u64 owner_start(struct fib_sync *fs, int protocol, __u64 now)
{
	if (!fs->owner_seen_ns || fs->owner_protocol != protocol ||
	    now - fs->owner_seen_ns > 100000000ull) {
		fs->owner_start_ns = agent_owner_start(protocol, now);
		fs->owner_protocol = protocol;
		fs->owner_seen_ns = now;
	}
	return fs->owner_start_ns;
}

/*
 * FIB_SYNC restart_hold_ms: a withdrawal of a route whose ports are all up,
 * within this long of the start of the daemon that owns it, is that
 * daemon's restart, not the network's: held until restart_hold_ms after the
 * start. FRR 8.4's restarted bgpd tells zebra its routes are complete as
 * soon as a neighbour that itself started within 120 s says so (the
 * Restart State bit); zebra then deletes every route it kept, ~1.6 s
 * before bgpd sends them again (docs/LAB.md, "The startup window").
 * Returns the hold's end, or 0: not such a withdrawal.
 */
static __u64 restart_deadline(struct agent *a, const struct xfab_nl_route *r, __u64 now)
{
	__u64 hold = (__u64)a->cfg.fib_restart_hold_ms * 1000000, start;

	if (!hold || a->fs.n_held >= RESTART_MAX)
		return 0;
	start = owner_start(&a->fs, r->protocol, now);
	return start && now - start < hold ? start + hold : 0;
}

/*
 * FIB_SYNC withdraw_hold_ms: a withdrawal of a route whose ports are all
 * up waits this long for the route's return. A routing daemon that deletes
 * and re-adds a route (zebra does, 8 ms apart, for IPv6 routes when a
 * restarted bgpd sends them again) would otherwise leave the data plane
 * with no route in between. A re-add voids the withdrawal (agent_on_route).
 */
static int hold_brief(struct agent *a, const struct xfab_nl_route *r,
		      const struct xfab_rib_entry *e, __u64 now)
{
	struct fib_sync *fs = &a->fs;
	__u64 hold = (__u64)a->cfg.fib_withdraw_hold_ms * 1000000, end;

	if (!members_all_up(a, e))
		return 0;
	end = restart_deadline(a, r, now);
	if (!end && (!hold || fs->n_held >= BRIEF_MAX))
		return 0;
	if (held_find(fs, r) < fs->n_held)
		return 1;
	if (!end) {
		fs->brief_total++;
		return held_add(fs, r, now + hold);
	}
	if (fs->restart_logged_ns != fs->owner_start_ns)
		log_info("holding the routing daemon's withdrawals of routes whose ports are up "
			 "for %.1f s: it started %.1f s ago (FIB_SYNC restart_hold_ms)",
			 (double)(end - now) / 1e9, (double)(now - fs->owner_start_ns) / 1e9);
	fs->restart_logged_ns = fs->owner_start_ns;
	fs->restart_total++;
	return held_add(fs, r, end);
}

/*
 * LOCAL_REPAIR bounce: when a port loses its carrier, the routing daemon
 * withdraws the routes through it within milliseconds (its nexthop is gone),
 * while the other switches keep sending this way until the withdrawal
 * reaches them. A withdrawn route whose every member is on a port that went
 * down within hold_ms stays in the data plane that long, dead, so its
 * packets bounce instead of meeting no route. 1: held.
 */
static int hold_withdrawal(struct agent *a, const struct xfab_nl_route *r)
{
	struct fib_sync *fs = &a->fs;
	const struct xfab_rib_entry *e;
	struct xfab_rib_key k;
	__u64 now = xfab_mono_ns(), hold = (__u64)a->cfg.repair_hold_ms * 1000000;

	if (fs->n_held >= HELD_MAX)
		return 0;
	key_of(&k, r);
	e = xfab_rib_entry_of(a->rib, &k, XFAB_RIB_SRC_NETLINK);
	if (!e || e->type != XFAB_RIB_PATH || e->protocol != r->protocol)
		return 0;
	if (!a->cfg.repair_bounce || !hold)
		return hold_brief(a, r, e, now);
	for (int i = 0; i < e->path->n; i++)
		if (!port_just_down(a, e->path->m[i].port, now, hold))
			return hold_brief(a, r, e, now);
	if (held_find(fs, r) < fs->n_held)
		return 1;
	if (!fs->n_held) {
		int p = e->path->m[0].port;

		log_info("holding the routing daemon's withdrawals through port %s for %u ms: it "
			 "went down %.1f ms ago (LOCAL_REPAIR)",
			 a->cfg.ports[p].name, a->cfg.repair_hold_ms,
			 a->live[p].oper_up ? 0.0 : (double)(now - a->down_ns[p]) / 1e6);
	}
	return held_add(fs, r, now + hold);
}

int agent_fib_sync_expire(struct agent *a)
{
	struct fib_sync *fs = &a->fs;
	__u64 now = xfab_mono_ns(), next = 0;
	size_t out = 0;

	for (size_t i = 0; i < fs->n_held; i++) {
		struct held_del *h = &fs->held[i];

		if (h->deadline_ns <= now) {
			static struct xfab_nl_change ch;

			memset(&ch, 0, offsetof(struct xfab_nl_change, route.hops));
			ch.kind = XFAB_NL_ROUTE_DEL;
			ch.route.table = h->table;
			ch.route.priority = h->priority;
			ch.route.family = h->family;
			ch.route.plen = h->plen;
			ch.route.protocol = h->protocol;
			memcpy(ch.route.dst, h->dst, 16);
			if (a->nlsync && !xfab_nlsync_apply(a->nlsync, &ch)) {
				if (!fs->batch_ns)
					fs->batch_ns = now;
				fs->pending++;
			}
			continue;
		}
		if (!next || h->deadline_ns < next)
			next = h->deadline_ns;
		fs->held[out++] = *h;
	}
	if (out < fs->n_held)
		log_info("%zu held withdrawal(s) applied, %zu still held", fs->n_held - out, out);
	fs->n_held = out;
	agent_fib_sync_flush(a);
	return next ? (int)((next - now) / 1000000 + 1) : -1;
}

void agent_on_route(void *arg, const struct nlmsghdr *nlh)
{
	struct agent *a = arg;
	struct fib_sync *fs = &a->fs;
	struct xfab_nl_change ch;
	int ret, err;

	if (!a->nlsync)
		return;
	fs->events++;
	if (!fs->batch_ns)
		fs->batch_ns = xfab_mono_ns();
	ret = xfab_nl_decode(nlh, &fs->filter, &ch);
	if (ret == 0) {
		fs->skipped++;
		return;
	}
	if (ret < 0) {
		fs->refused++;
		if (fs->refused <= 10 || fs->refused % 1000 == 0)
			log_warn("netlink: a route message refused (%zu so far): %s", fs->refused,
				 ch.why);
		return;
	}
	if (ch.kind == XFAB_NL_ROUTE_DEL && hold_withdrawal(a, &ch.route))
		return;
	if (ch.kind == XFAB_NL_ROUTE_ADD && fs->n_held) {
		size_t i = held_find(fs, &ch.route);

		if (i < fs->n_held) /* installed again: the withdrawal is void */
			fs->held[i] = fs->held[--fs->n_held];
	}
	err = xfab_nlsync_apply(a->nlsync, &ch);
	if (err) {
		fs->failed++;
		log_warn("netlink: a route change not applied: %s", strerror(-err));
	}
	fs->pending++;
}

/* Writes what the events since the last flush changed. */
void agent_fib_sync_flush(struct agent *a)
{
	struct fib_sync *fs = &a->fs;
	__u64 lag;

	if (!a->nlsync || !fs->pending)
		return;
	if (xfab_compile_routes(a->compile))
		a->dirty = 1;
	lag = xfab_mono_ns() - fs->batch_ns;
	fs->lag_last_ns = lag;
	if (lag > fs->lag_max_ns)
		fs->lag_max_ns = lag;
	fs->batches++;
	fs->pending = 0;
	fs->batch_ns = 0;
	agent_fib_sync_publish(a);
}

void agent_fib_sync_publish(struct agent *a)
{
	struct xfab_fib_status *p = &a->fib_pub;
	struct xfab_nlsync_stats st;

	if (!a->nlsync)
		return;
	xfab_nlsync_stats(a->nlsync, &st);
	pthread_mutex_lock(&p->lock);
	p->enabled = 1;
	p->table = a->cfg.fib_table;
	p->routes = st.routes;
	p->nexthops = st.nexthops;
	p->foreign = st.foreign;
	p->unresolved = st.unresolved;
	p->swept_routes = st.swept_routes;
	p->events = a->fs.events;
	p->skipped = a->fs.skipped;
	p->refused = a->fs.refused;
	p->failed = a->fs.failed;
	p->resyncs = a->fs.resyncs;
	p->batches = a->fs.batches;
	p->held = a->fs.held_total;
	p->held_brief = a->fs.brief_total;
	p->held_restart = a->fs.restart_total;
	p->lag_last_s = (double)a->fs.lag_last_ns / 1e9;
	p->lag_max_s = (double)a->fs.lag_max_ns / 1e9;
	pthread_mutex_unlock(&p->lock);
}

static int dump(struct agent *a)
{
	struct xfab_nl_handlers h = {.route = agent_on_route, .arg = a};

	return agent_nl_dump_routes(&h);
}

int agent_fib_sync_start(struct agent *a)
{
	struct xfab_nlsync_stats st;
	__u64 t0 = xfab_mono_ns();
	int err;

	if (!a->cfg.fib_sync)
		return 0;
	a->fs.filter.table = a->cfg.fib_table;
	memcpy(a->fs.filter.protocol, a->cfg.fib_protocols, sizeof(a->fs.filter.protocol));
	a->nlsync = xfab_nlsync_new(a->rib, port_of, a);
	if (!a->nlsync)
		return -ENOMEM;
	err = dump(a);
	if (err) {
		log_err("cannot read the kernel's routes: %s", strerror(-err));
		return err;
	}
	agent_fib_sync_flush(a);
	agent_fib_sync_publish(a);
	xfab_nlsync_stats(a->nlsync, &st);
	log_info("mirroring the kernel's table %u: %zu routes (%zu not on switch ports, %zu "
		 "waiting for a nexthop), %zu nexthop objects, in %.0f ms",
		 a->cfg.fib_table, st.routes, st.foreign, st.unresolved, st.nexthops,
		 (double)(xfab_mono_ns() - t0) / 1e6);
	return 0;
}

int agent_fib_sync_resync(struct agent *a)
{
	struct xfab_nlsync_stats st;
	int err;

	if (!a->nlsync)
		return 0;
	xfab_nlsync_mark(a->nlsync);
	err = dump(a);
	if (err) {
		/* a partial dump: sweeping now would drop what it did not reach */
		log_err("resync: cannot read the kernel's routes (%s); trying again in a second",
			strerror(-err));
		a->fs.resync_due = 1;
		return err;
	}
	a->fs.resync_due = 0;
	a->fs.resyncs++;
	err = xfab_nlsync_sweep(a->nlsync);
	a->fs.pending++;
	agent_fib_sync_flush(a);
	xfab_nlsync_stats(a->nlsync, &st);
	log_info("resynchronised with the kernel: %zu routes, %zu gone since (total)", st.routes,
		 st.swept_routes);
	return err;
}

/* The mirror's keep (xfab_nlsync_link_down): a route whose every path was
 * through the port taken down is held as a withdrawal through a port that
 * lost its carrier would be. The kernel removed it without a message, and
 * the routing daemon's withdrawal takes as long to reach the other switches
 * as after a carrier loss: meanwhile its packets bounce. */
static int keep_dead_route(void *arg, const struct xfab_nl_route *r)
{
	struct agent *a = arg;
	struct xfab_nl_route k = *r;

	k.table = a->fs.filter.table;
	return hold_withdrawal(a, &k);
}

void agent_fib_sync_link_down(struct agent *a, __u32 ifindex)
{
	if (!a->nlsync)
		return;
	if (xfab_nlsync_link_down(a->nlsync, ifindex, keep_dead_route, a))
		a->dirty = 1;
	a->fs.pending++;
	if (!a->fs.batch_ns)
		a->fs.batch_ns = xfab_mono_ns();
	agent_fib_sync_flush(a);
}
