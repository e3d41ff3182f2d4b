// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Link event damping in xfabd (docs/OPERATIONS.md, "Flapping links"): each
 * port with damping on sees its link events through its damper
 * (user/lib/damping.c, SONiC's aied algorithm), and xfabd acts on the state
 * the damper advertises: sync.c's link handler asks here what a link event
 * means, and a suppressed port stays oper down, out of every group, until
 * its reuse time, when the event loop's timer ends it (sync.c's
 * agent_damping_expire).
 *
 * While a port is suppressed its kernel device is held dormant (the link
 * mode of RFC 2863's DORMANT, netlink.c's agent_nl_set_dormant): the kernel
 * then clears IFF_RUNNING even with the carrier up, so the routing daemon
 * (FRR's zebra) sees the port down and keeps its BGP and BFD sessions over
 * it down, and the port's connected routes withdrawn. That is SONiC's own
 * design: its HLD's "Host interface's operational state update should be
 * consistent with post damping behavior", the host interface's oper status
 * set from the damped state. The damper's input is therefore the carrier
 * (IFLA_CARRIER) and IFF_UP, never the operstate, which the hold itself
 * changes.
 */
#include <errno.h>
#include <string.h>

#include "agent.h"
#include "clock.h"

#define DAMPING_MAX_MISSED 1000 /* losses fed from one message, at most */

/* A port's link as the damper takes it: up and carrying. */
static int damping_raw(const struct xfab_nl_link *l)
{
	if (l->deleted || !l->admin_up)
		return 0;
	return l->carrier >= 0 ? l->carrier : l->oper_up;
}

/* on: the damper suppresses port p; a drained port (drain.c) is held too. */
static void damping_hold(struct agent *a, int p, int on)
{
	struct agent_damping *dm = &a->damping;
	int err;

	on = on || a->drain.on[p];
	if (dm->held[p] == on)
		return;
	err = agent_nl_set_dormant(a->live[p].ifindex, on);
	if (err)
		log_warn("port %s: cannot %s its device dormant (routing sessions %s): %s",
			 a->cfg.ports[p].name, on ? "hold" : "release",
			 on ? "stay up over it" : "stay held", strerror(-err));
	else
		dm->held[p] = on;
}

/* The links as the kernel has them now, by port index of cfg. */
struct damping_scan {
	const struct xfab_config *cfg;
	int raw[XFAB_MAX_PORTS], dormant[XFAB_MAX_PORTS];
	long long downs[XFAB_MAX_PORTS];
};

static void damping_scan_link(void *arg, const struct xfab_nl_link *l)
{
	struct damping_scan *s = arg;
	int p = xfab_config_port_index(s->cfg, l->name);

	if (p < 0)
		return;
	s->raw[p] = damping_raw(l);
	s->dormant[p] = l->dormant;
	s->downs[p] = l->carrier_downs;
}

static void damping_scan(const struct xfab_config *cfg, struct damping_scan *s)
{
	struct xfab_nl_handlers h = {.link = damping_scan_link, .arg = s};

	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	for (int p = 0; p < XFAB_MAX_PORTS; p++)
		s->downs[p] = -1;
	if (agent_nl_dump_links(&h))
		log_warn("damping: cannot list the links; every damper starts from down");
}

void agent_damping_hold(struct agent *a, int p)
{
	damping_hold(a, p, a->damping.d[p].suppressed);
}

int agent_damping_state(struct agent *a, int p)
{
	const struct xfab_damp *d = &a->damping.d[p];
	struct damping_scan s;

	if (xfab_damp_enabled(&d->cfg))
		return d->advertised;
	damping_scan(&a->cfg, &s);
	return s.raw[p];
}

void agent_damping_start(struct agent *a)
{
	struct agent_damping *dm = &a->damping;
	struct damping_scan s;
	__u64 now = xfab_mono_ns();

	damping_scan(&a->cfg, &s);
	for (int p = 0; p < a->cfg.n_ports; p++) {
		xfab_damp_init(&dm->d[p], &a->cfg.ports[p].damping, s.raw[p], now);
		dm->downs[p] = s.downs[p];
		/* a hold a previous xfabd left (it died suppressing) */
		dm->held[p] = s.dormant[p];
		damping_hold(a, p, 0);
	}
	agent_damping_publish(a);
}

/* The carrier losses since the last message (IFLA_CARRIER_DOWN_COUNT):
 * the kernel reports a carrier change through its link watch, which runs
 * late (a device that is not urgent: once a second at most) and then
 * reports the state as it is, so a loss and its return in between are one
 * message or none. Each loss is a down for the damper, at this message's
 * time: the sequence that leads from the damper's state to raw with n
 * losses. -1: the kernel does not count (the state alone is the event). */
static long long damping_missed(struct agent_damping *dm, int p, const struct xfab_nl_link *l)
{
	long long n;

	if (l->carrier_downs < 0 || dm->downs[p] < 0) {
		dm->downs[p] = l->carrier_downs;
		return -1;
	}
	n = (long long)(__u32)((__u32)l->carrier_downs - (__u32)dm->downs[p]);
	dm->downs[p] = l->carrier_downs;
	return n > DAMPING_MAX_MISSED ? DAMPING_MAX_MISSED : n;
}

/* The damper fed this message: n losses (-1: not counted) and the state
 * raw now. */
static int damping_feed(struct xfab_damp *d, long long n, int raw, __u64 now)
{
	if (n < 0)
		return xfab_damp_event(d, raw, now);
	/* up -> down: the last loss is the one this message shows */
	if (d->actual && !raw && n > 0)
		n--;
	if (!d->actual && raw)
		xfab_damp_event(d, 1, now);
	for (long long k = 0; k < n; k++) {
		xfab_damp_event(d, 0, now);
		xfab_damp_event(d, 1, now);
	}
	return xfab_damp_event(d, raw, now);
}

int agent_damping_link(struct agent *a, int p, const struct xfab_nl_link *l)
{
	struct xfab_damp *d = &a->damping.d[p];
	int was = d->suppressed, adv;
	long long n = damping_missed(&a->damping, p, l);

	if (!xfab_damp_enabled(&d->cfg))
		return l->deleted ? 0 : l->oper_up;
	adv = damping_feed(d, n, damping_raw(l), xfab_mono_ns());
	if (d->suppressed && !was)
		log_warn("port %s suppressed: penalty %.0f >= %u; reused in %.1f s unless it "
			 "flaps again (link event damping)",
			 a->cfg.ports[p].name, d->penalty, d->cfg.suppress_threshold,
			 (double)(d->reuse_ns - d->last_ns) / 1e9);
	damping_hold(a, p, d->suppressed);
	agent_damping_publish(a);
	return adv;
}

int agent_damping_tick(struct agent *a, int p, __u64 now_ns)
{
	struct xfab_damp *d = &a->damping.d[p];
	int was = d->suppressed, adv = xfab_damp_tick(d, now_ns);

	if (was && !d->suppressed) {
		log_info("port %s reused: penalty %.0f <= %u (link event damping); it is %s",
			 a->cfg.ports[p].name, d->penalty, d->cfg.reuse_threshold,
			 d->actual ? "up" : "down");
		damping_hold(a, p, 0);
		agent_damping_publish(a);
	}
	return adv;
}

int agent_damping_timeout(const struct agent *a, __u64 now_ns)
{
	__u64 next = 0;

	for (int p = 0; p < a->cfg.n_ports; p++) {
		__u64 t = xfab_damp_next_ns(&a->damping.d[p]);

		if (t && (!next || t < next))
			next = t;
	}
	if (!next)
		return -1;
	/* rounded up: poll wakes at or after the reuse time, never before */
	return next <= now_ns ? 0 : (int)((next - now_ns + 999999) / 1000000);
}

/* The port of old named name, whose damping config is cfg; -1: none. */
static int damping_kept(const struct xfab_config *old, const char *name,
			const struct xfab_damp_cfg *cfg)
{
	int q = xfab_config_port_index(old, name);

	if (q < 0 || memcmp(&old->ports[q].damping, cfg, sizeof(*cfg)))
		return -1;
	return q;
}

void agent_damping_reload_mask(const struct agent *a, const struct xfab_config *next,
			       struct xfab_port_live *live)
{
	for (int p = 0; p < next->n_ports; p++) {
		int q = damping_kept(&a->cfg, next->ports[p].name, &next->ports[p].damping);

		if (q >= 0 && a->damping.d[q].suppressed)
			live[p].oper_up = 0;
	}
}

/* After a reload (a->cfg is the new config, old the one before): a port
 * whose damping fields did not change keeps its damper, any other starts
 * afresh (SONiC's syncd on a config change), its hold released. */
void agent_damping_reload_commit(struct agent *a, const struct xfab_config *old)
{
	struct agent_damping *dm = &a->damping, prev;
	__u64 now = xfab_mono_ns();
	struct damping_scan s;

	memcpy(prev.d, dm->d, sizeof(prev.d));
	memcpy(prev.held, dm->held, sizeof(prev.held));
	memcpy(prev.downs, dm->downs, sizeof(prev.downs));
	damping_scan(&a->cfg, &s);
	for (int p = 0; p < a->cfg.n_ports; p++) {
		int q = damping_kept(old, a->cfg.ports[p].name, &a->cfg.ports[p].damping);

		if (q >= 0) {
			dm->d[p] = prev.d[q];
			dm->held[p] = prev.held[q];
			dm->downs[p] = prev.downs[q];
			continue;
		}
		xfab_damp_init(&dm->d[p], &a->cfg.ports[p].damping, s.raw[p], now);
		dm->downs[p] = s.downs[p];
		dm->held[p] = s.dormant[p];
		damping_hold(a, p, 0);
	}
	agent_damping_publish(a);
}

/* A drained port stays held unless agent_drain_stop ended its drain. */
void agent_damping_stop(struct agent *a)
{
	for (int p = 0; p < a->cfg.n_ports; p++)
		damping_hold(a, p, 0);
}

void agent_damping_publish(struct agent *a)
{
	struct xfab_damping_pub *pub = &a->damping_pub;

	pthread_mutex_lock(&pub->lock);
	pub->n_ports = a->cfg.n_ports;
	for (int p = 0; p < a->cfg.n_ports; p++) {
		snprintf(pub->names[p], sizeof(pub->names[p]), "%s", a->cfg.ports[p].name);
		pub->d[p] = a->damping.d[p];
		pub->drained[p] = a->drain.on[p];
		pub->drains_total[p] = a->drain.total[p];
	}
	pthread_mutex_unlock(&pub->lock);
}
