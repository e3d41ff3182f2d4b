// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Ports: finding the configured devices, attaching the datapath to every
 * one of them or none, and detaching. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "xfab.skel.h"

#define XFAB_TCX_INGRESS 46 /* enum bpf_attach_type; Debian's UAPI headers predate tcx */
#define XFAB_TCX_EGRESS 47
#define XFAB_LINK_TYPE_XDP 6 /* enum bpf_link_type */
#define XFAB_LINK_TYPE_TCX 11

struct link_scan {
	const struct xfab_config *cfg;
	struct xfab_port_live *live;
	int *found;
};

static void scan_link(void *arg, const struct xfab_nl_link *l)
{
	struct link_scan *s = arg;
	int p = xfab_config_port_index(s->cfg, l->name);

	if (p < 0)
		return;
	s->live[p].ifindex = l->ifindex;
	memcpy(s->live[p].mac, l->mac, 6);
	s->live[p].oper_up = l->oper_up;
	s->found[p] = l->has_mac;
}

/* Finds every configured port on the box; errors name the PORT entry. */
int agent_resolve_ports(const struct xfab_config *cfg, struct xfab_port_live *live,
			const char *cfg_path)
{
	int found[XFAB_MAX_PORTS] = {0}, bad = 0, err;
	struct link_scan s = {.cfg = cfg, .live = live, .found = found};
	struct xfab_nl_handlers h = {.link = scan_link, .arg = &s};

	memset(live, 0, sizeof(*live) * XFAB_MAX_PORTS);
	err = agent_nl_dump_links(&h);
	if (err) {
		log_err("cannot list network devices: %s", strerror(-err));
		return err;
	}
	for (int p = 0; p < cfg->n_ports; p++) {
		if (found[p] && live[p].ifindex >= XFAB_MAX_IFINDEX) {
			fprintf(stderr, "%s%s:%d:%d: PORT|%s: ifindex %u is beyond %d\n",
				xfab_log_err_tag(), cfg_path, cfg->ports[p].pos.line,
				cfg->ports[p].pos.col, cfg->ports[p].name, live[p].ifindex,
				XFAB_MAX_IFINDEX - 1);
			bad = 1;
			continue;
		}
		if (found[p])
			continue;
		fprintf(stderr, "%s%s:%d:%d: PORT|%s: no such Ethernet device in this namespace\n",
			xfab_log_err_tag(), cfg_path, cfg->ports[p].pos.line, cfg->ports[p].pos.col,
			cfg->ports[p].name);
		bad = 1;
	}
	return bad ? -ENODEV : 0;
}

int agent_port_of_ifindex(const struct agent *a, __u32 ifindex)
{
	for (int p = 0; p < a->cfg.n_ports; p++)
		if (a->live[p].ifindex == ifindex)
			return p;
	return -1;
}

/* A port's link pins in the pin directory: the ingress program's
 * (xdp or tc) and, tc datapath, the egress program's. */
/* A port's links: its ingress program (XDP or tc), the tc egress program
 * (queues), and on an xdp-datapath port with lossless priorities the tc
 * ingress program that takes what XDP hands over (docs/PFC.md). */
enum { LINK_IN, LINK_EGRESS, LINK_HANDOFF, N_LINKS };

static int *link_slot(struct agent *a, int p, int which)
{
	return which == LINK_IN	      ? &a->link_fd[p]
	       : which == LINK_EGRESS ? &a->egress_fd[p]
				      : &a->handoff_fd[p];
}

/* The program a port's link `which` runs, from skeleton s: the running
 * programs' (agent_progs) or a specialisation's on its way in (spec.c). */
static int link_prog_fd(const struct agent *a, const struct xfab *s, int which)
{
	if (which == LINK_EGRESS)
		return bpf_program__fd(s->progs.xfab_tc_egress);
	if (which == LINK_HANDOFF)
		return bpf_program__fd(s->progs.xfab_tc_handoff);
	if (a->cfg.datapath == XFAB_DP_TC)
		return bpf_program__fd(s->progs.xfab_tc);
	return bpf_program__fd(a->bench_stop ? s->progs.xfab_xdp_bench : s->progs.xfab_xdp);
}

static void link_pin_path(const struct agent *a, int p, int which, int datapath, char *out,
			  size_t len)
{
	snprintf(out, len, "%s/link_%s_%s", a->pin_dir,
		 which == LINK_EGRESS	   ? "tc_egress"
		 : which == LINK_HANDOFF   ? "tc_handoff"
		 : datapath == XFAB_DP_XDP ? "xdp"
					   : "tc",
		 a->cfg.ports[p].name);
}

/* Drops a link: its pin and our fd; the last reference gone, it detaches. */
static void drop_link(int *fd, const char *pin)
{
	if (pin)
		unlink(pin);
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void agent_detach_port(struct agent *a, int p)
{
	char pin[512];

	if (a->link_fd[p] < 0)
		return;
	for (int w = LINK_IN; w < N_LINKS; w++) {
		link_pin_path(a, p, w, a->cfg.datapath, pin, sizeof(pin));
		drop_link(link_slot(a, p, w), pin);
	}
	agent_unshape_port(a, p);
	log_info("detached from %s", a->cfg.ports[p].name);
}

void agent_keep_ports(struct agent *a)
{
	for (int p = 0; p < a->cfg.n_ports; p++)
		for (int w = LINK_IN; w < N_LINKS; w++)
			drop_link(link_slot(a, p, w), NULL);
}

/*
 * Takes over the link a previous xfabd pinned at pin, if it is one of type
 * on ifindex, by switching it to prog in place: the port never stops
 * forwarding. *old_prog gets the program it ran (for a rollback). Returns
 * the link's fd, or -1 when there is none to take (a stale pin is removed:
 * the device was recreated, or the link is of another kind).
 */
static int adopt_link(const char *pin, __u32 type, __u32 ifindex, int prog, int *old_prog)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	int fd = bpf_obj_get(pin);

	*old_prog = -1;
	if (fd < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	/* xdp.ifindex and tcx.ifindex share their place in the union */
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.type != type ||
	    info.xdp.ifindex != ifindex)
		goto stale;
	*old_prog = bpf_prog_get_fd_by_id(info.prog_id);
	if (*old_prog < 0 || bpf_link_update(fd, prog, NULL))
		goto stale;
	return fd;
stale:
	if (*old_prog >= 0)
		close(*old_prog);
	*old_prog = -1;
	drop_link(&fd, pin);
	return -1;
}

/* The port's link of one program: adopted, or created and pinned. */
static int port_link(struct agent *a, int p, int which, int datapath, int prog, int *fd,
		     int *old_prog)
{
	__u32 ifindex = a->live[p].ifindex;
	int xdp = datapath == XFAB_DP_XDP && which == LINK_IN;
	__u32 type = xdp ? XFAB_LINK_TYPE_XDP : XFAB_LINK_TYPE_TCX;
	int attach = xdp ? BPF_XDP : which == LINK_EGRESS ? XFAB_TCX_EGRESS : XFAB_TCX_INGRESS;
	char pin[512];
	int err;

	link_pin_path(a, p, which, datapath, pin, sizeof(pin));
	*fd = a->adopt ? adopt_link(pin, type, ifindex, prog, old_prog) : -1;
	if (*fd >= 0)
		return 0;
	unlink(pin);
	/* XDP links default to native (driver) mode where the device has it. */
	*fd = bpf_link_create(prog, (int)ifindex, (enum bpf_attach_type)attach, NULL);
	if (*fd < 0)
		return -errno ? -errno : -EINVAL;
	if (bpf_obj_pin(*fd, pin)) {
		err = -errno;
		drop_link(fd, NULL);
		return err;
	}
	return 0;
}

/* Undoes what attach_port did to port p: an adopted link runs its old
 * program again, a created one goes. */
static void unattach_port(struct agent *a, int p)
{
	char pin[512];

	for (int w = LINK_IN; w < N_LINKS; w++) {
		int *old = &a->old_prog_fd[p][w], *fd = link_slot(a, p, w);

		if (*fd < 0)
			continue;
		if (*old >= 0 && !bpf_link_update(*fd, *old, NULL)) {
			drop_link(fd, NULL); /* back as it was, still pinned */
		} else {
			link_pin_path(a, p, w, a->cfg.datapath, pin, sizeof(pin));
			drop_link(fd, pin);
		}
	}
	agent_unshape_port(a, p);
}

/* Whether the data plane has seen port ifindex's device: its programs
 * note it in port_dev with the first frame they receive (or, tc egress,
 * send). */
int agent_port_dev_noted(struct agent *a, __u32 ifindex)
{
	__u64 dev = 0;

	if (!a->skel)
		return 0;
	return bpf_map_lookup_elem(bpf_map__fd(a->skel->maps.port_dev), &ifindex, &dev) == 0 &&
	       dev != 0;
}

/*
 * Does port p need the tc egress program (xfab_tc_egress) under cfg?
 *
 * xdp datapath: a port with lossless priorities, whose packets XDP hands
 * to tc: they take its qdisc, judged there as on the tc datapath, and the
 * program notes its device, which the lossless credit needs (bpf/pfc.h).
 *
 * tc datapath: what the program does for a port, and when that matters:
 *   - the queue decision against the real qdisc (WRED/ECN on the backlog,
 *     a full buffer's drop): a port with a queue to judge (a WRED profile
 *     on a class, a rate or a buffer; XFAB_PORT_QUEUED);
 *   - not PFC: the ingress program charges a lossless packet to its
 *     ingress PG as it forwards it (bpf/pfc.h's xfab_pfc_tc_forward), for
 *     a device the data plane has noted;
 *   - the egress guard: it notes the device of a port that only transmits
 *     and sends back into the pipeline a packet whose device went down on
 *     its way. Once the data plane has seen a port's device (port_dev) the
 *     pipeline reads it before it sends there (bpf/kern.h), so the guard is
 *     needed only until then, as the xdp datapath's DEVMAP guard (sync.c);
 *     agent_ports_egress_refresh takes it off. Left to the kernel: a packet
 *     whose device drops between that read and the qdisc (microseconds).
 * It counts nothing every port needs: tx counters are the pipeline's, where
 * it chooses the egress.
 */
static int port_wants_egress(struct agent *a, const struct xfab_config *cfg, int p)
{
	if (cfg->datapath == XFAB_DP_XDP)
		return cfg->ports[p].pfc.enabled != 0;
	return xfab_config_port_queued(&cfg->ports[p]) ||
	       !agent_port_dev_noted(a, a->live[p].ifindex);
}

/* The tc egress program on port p (and, xdp datapath, the lossless
 * hand-over program): 0 or an error, with what it attached left for the
 * caller to take back. */
static int attach_egress(struct agent *a, int p, int datapath)
{
	int err =
	    port_link(a, p, LINK_EGRESS, datapath, link_prog_fd(a, agent_progs(a), LINK_EGRESS),
		      &a->egress_fd[p], &a->old_prog_fd[p][LINK_EGRESS]);

	if (err) {
		log_err("cannot attach the tc egress program to %s: %s", a->cfg.ports[p].name,
			strerror(-err));
		return err;
	}
	if (datapath != XFAB_DP_XDP)
		return 0;
	err = port_link(a, p, LINK_HANDOFF, datapath, link_prog_fd(a, agent_progs(a), LINK_HANDOFF),
			&a->handoff_fd[p], &a->old_prog_fd[p][LINK_HANDOFF]);
	if (err)
		log_err("cannot attach the lossless hand-over program to %s: %s",
			a->cfg.ports[p].name, strerror(-err));
	return err;
}

/* Takes the tc egress (and hand-over) links off port p. */
static void detach_egress(struct agent *a, int p)
{
	char pin[512];

	for (int w = LINK_EGRESS; w < N_LINKS; w++) {
		link_pin_path(a, p, w, a->cfg.datapath, pin, sizeof(pin));
		drop_link(link_slot(a, p, w), pin);
	}
}

static int attach_port(struct agent *a, int p, int datapath)
{
	const struct xfab *progs = agent_progs(a);
	__u32 ifindex = a->live[p].ifindex;
	const char *how = "attached";
	int err;

	err = port_link(a, p, LINK_IN, datapath, link_prog_fd(a, progs, LINK_IN), &a->link_fd[p],
			&a->old_prog_fd[p][LINK_IN]);
	if (err) {
		log_err("cannot attach %s datapath to %s (ifindex %u): %s",
			datapath == XFAB_DP_XDP ? "xdp" : "tc", a->cfg.ports[p].name, ifindex,
			strerror(-err));
		return err;
	}
	if (a->old_prog_fd[p][LINK_IN] >= 0)
		how = "took over";
	if (port_wants_egress(a, &a->cfg, p)) {
		err = attach_egress(a, p, datapath);
		if (err) {
			unattach_port(a, p);
			return err;
		}
	}
	/* HTB queues: a port with a rate, on the tc datapath or with lossless
	 * priorities (which need a rate) */
	if ((datapath == XFAB_DP_TC || a->cfg.ports[p].pfc.enabled) && a->cfg.ports[p].rate_mbps &&
	    agent_shape_port(a, p)) {
		unattach_port(a, p);
		return -EIO;
	}
	log_info("%s %s datapath %s %s (ifindex %u)%s", how, datapath == XFAB_DP_XDP ? "xdp" : "tc",
		 a->old_prog_fd[p][LINK_IN] >= 0 ? "on" : "to", a->cfg.ports[p].name, ifindex,
		 a->egress_fd[p] >= 0 ? ", tc egress program on" : "");
	return 0;
}

/*
 * Reload, before the tables change: a port that the new config gives a
 * queue or lossless priorities (or, tc datapath, every port once some port
 * has lossless priorities) gets the tc egress program now, and on the xdp
 * datapath the hand-over program, so the packets the new tables queue,
 * charge or hand over find them. Returns 0, or an error with nothing
 * changed (the reload is refused).
 */
int agent_ports_reload_attach(struct agent *a, const struct xfab_config *next)
{
	int err = 0, p;

	for (p = 0; p < next->n_ports && p < a->cfg.n_ports && !err; p++) {
		if (!port_wants_egress(a, next, p) || a->egress_fd[p] >= 0)
			continue;
		err = attach_egress(a, p, a->cfg.datapath);
		if (err)
			agent_ports_reload_undo(a, p + 1);
		else
			log_info("%s: tc egress program attached", next->ports[p].name);
	}
	return err;
}

/* Takes back what agent_ports_reload_attach added to the first n ports:
 * the egress links the running config does not want. */
void agent_ports_reload_undo(struct agent *a, int n)
{
	for (int p = 0; p < n && p < a->cfg.n_ports; p++)
		if (a->egress_fd[p] >= 0 && !port_wants_egress(a, &a->cfg, p))
			detach_egress(a, p);
}

/* tc datapath (each second): drops the egress guard of the ports that need
 * nothing else of the egress program once the data plane has seen their
 * device (port_wants_egress). */
void agent_ports_egress_refresh(struct agent *a)
{
	if (!a->skel || a->cfg.datapath != XFAB_DP_TC)
		return;
	for (int p = 0; p < a->cfg.n_ports; p++) {
		if (a->egress_fd[p] < 0 || port_wants_egress(a, &a->cfg, p))
			continue;
		detach_egress(a, p);
		log_dbg("port %s: device seen, no queue: its tc egress program is off",
			a->cfg.ports[p].name);
	}
}

/* The port's tc queues are built the same from n as from o: rate, buffer,
 * lossless priorities, weights and, on a weighted port, the MTU (its
 * classes' quantum, qdisc.c). */
static int port_queues_same(const struct xfab_cfg_port *n, const struct xfab_cfg_port *o)
{
	return n->rate_mbps == o->rate_mbps && n->buffer_bytes == o->buffer_bytes &&
	       n->pfc.enabled == o->pfc.enabled &&
	       !memcmp(n->weight, o->weight, sizeof(n->weight)) &&
	       (n->mtu == o->mtu || !xfab_config_port_weighted(n));
}

/*
 * Reload, after the tables and a->cfg changed: queues follow the new
 * config. A port whose queues changed (port_queues_same) gets them (and
 * its PFC gates) rebuilt, or removed; a port that no longer needs
 * the tc egress program (no queue, no lossless priority left) loses it, and
 * on the xdp datapath the hand-over program too (XDP no longer hands
 * anything over).
 */
void agent_ports_reload_finish(struct agent *a, const struct xfab_config *old)
{
	int xdp = a->cfg.datapath == XFAB_DP_XDP;

	for (int p = 0; p < a->cfg.n_ports && p < old->n_ports; p++) {
		const struct xfab_cfg_port *n = &a->cfg.ports[p], *o = &old->ports[p];
		int queued = !xdp || n->pfc.enabled, was = !xdp || o->pfc.enabled;

		if (a->egress_fd[p] >= 0 && !port_wants_egress(a, &a->cfg, p)) {
			detach_egress(a, p);
			log_info("%s: no queue or lossless priority left, tc programs detached",
				 n->name);
		}
		if (queued == was && port_queues_same(n, o))
			continue;
		if (was && o->rate_mbps)
			agent_unshape_port(a, p);
		if (queued && n->rate_mbps && agent_shape_port(a, p))
			log_err("%s: cannot build its queues; it forwards unshaped", n->name);
	}
}

/* Link pins that no configured port uses any more (a port left the
 * config, or the datapath changed while no xfabd ran): removing the pin
 * detaches the link. */
static void drop_stray_links(struct agent *a)
{
	DIR *d = opendir(a->pin_dir);
	struct dirent *de;
	char pin[512], mine[512];

	if (!d)
		return;
	while ((de = readdir(d))) {
		int used = 0;

		if (strncmp(de->d_name, "link_", 5))
			continue;
		snprintf(pin, sizeof(pin), "%s/%s", a->pin_dir, de->d_name);
		for (int p = 0; p < a->cfg.n_ports && !used; p++)
			for (int w = LINK_IN; w < N_LINKS && !used; w++) {
				link_pin_path(a, p, w, a->cfg.datapath, mine, sizeof(mine));
				used = !strcmp(pin, mine) && *link_slot(a, p, w) >= 0;
			}
		if (!used) {
			log_info("detaching %s: no configured port uses it", de->d_name);
			unlink(pin);
		}
	}
	closedir(d);
}

/* Attaches every port or none: a failure rolls back what was attached
 * (adopted links run their old program again). */
int agent_attach_all(struct agent *a)
{
	int err = 0;

	for (int p = 0; p < a->cfg.n_ports; p++)
		for (int w = LINK_IN; w < N_LINKS; w++)
			a->old_prog_fd[p][w] = -1;
	for (int p = 0; p < a->cfg.n_ports; p++) {
		err = attach_port(a, p, a->cfg.datapath);
		if (err) {
			for (int q = p - 1; q >= 0; q--)
				unattach_port(a, q);
			goto out;
		}
	}
	drop_stray_links(a);
out:
	for (int p = 0; p < a->cfg.n_ports; p++)
		for (int w = LINK_IN; w < N_LINKS; w++)
			if (a->old_prog_fd[p][w] >= 0) {
				close(a->old_prog_fd[p][w]);
				a->old_prog_fd[p][w] = -1;
			}
	return err;
}

/* Every link of every port runs to's program instead, each switched in one
 * step (bpf_link_update). On a failure every link runs the running
 * programs' again and the error is returned. */
int agent_ports_repoint(struct agent *a, const struct xfab *to)
{
	const struct xfab *from = agent_progs(a);
	int err = 0;

	for (int p = 0; p < XFAB_MAX_PORTS && !err; p++)
		for (int w = LINK_IN; w < N_LINKS && !err; w++) {
			int fd = *link_slot(a, p, w);

			if (fd >= 0 && bpf_link_update(fd, link_prog_fd(a, to, w), NULL))
				err = -errno;
		}
	if (!err)
		return 0;
	for (int p = 0; p < XFAB_MAX_PORTS; p++)
		for (int w = LINK_IN; w < N_LINKS; w++) {
			int fd = *link_slot(a, p, w);

			if (fd >= 0)
				bpf_link_update(fd, link_prog_fd(a, from, w), NULL);
		}
	return err;
}
