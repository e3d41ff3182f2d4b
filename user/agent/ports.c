// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Ports: finding the configured devices, attaching the datapath to every
 * one of them or none, and detaching. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "xfab.skel.h"

#define XFAB_TCX_INGRESS 46 /* enum bpf_attach_type; Debian's UAPI headers predate tcx */
#define XFAB_TCX_EGRESS 47

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
int resolve_ports(const struct xfab_config *cfg, struct xfab_port_live *live, const char *cfg_path)
{
	int found[XFAB_MAX_PORTS] = {0}, bad = 0, err;
	struct link_scan s = {.cfg = cfg, .live = live, .found = found};
	struct xfab_nl_handlers h = {.link = scan_link, .arg = &s};

	memset(live, 0, sizeof(*live) * XFAB_MAX_PORTS);
	err = xfab_nl_dump_links(&h);
	if (err) {
		log_err("cannot list network devices: %s", strerror(-err));
		return err;
	}
	for (int p = 0; p < cfg->n_ports; p++) {
		if (found[p] && live[p].ifindex >= XFAB_MAX_IFINDEX) {
			fprintf(stderr, "%s:%d:%d: PORT|%s: ifindex %u is beyond %d\n", cfg_path,
				cfg->ports[p].pos.line, cfg->ports[p].pos.col, cfg->ports[p].name,
				live[p].ifindex, XFAB_MAX_IFINDEX - 1);
			bad = 1;
			continue;
		}
		if (found[p])
			continue;
		fprintf(stderr, "%s:%d:%d: PORT|%s: no such Ethernet device in this namespace\n",
			cfg_path, cfg->ports[p].pos.line, cfg->ports[p].pos.col,
			cfg->ports[p].name);
		bad = 1;
	}
	return bad ? -ENODEV : 0;
}

int port_of_ifindex(const struct agent *a, __u32 ifindex)
{
	for (int p = 0; p < a->cfg.n_ports; p++)
		if (a->live[p].ifindex == ifindex)
			return p;
	return -1;
}

void detach_port(struct agent *a, int p)
{
	if (a->link_fd[p] < 0)
		return;
	close(a->link_fd[p]); /* the link was never pinned: closing detaches */
	a->link_fd[p] = -1;
	if (a->egress_fd[p] >= 0) {
		close(a->egress_fd[p]);
		a->egress_fd[p] = -1;
	}
	unshape_port(a, p);
	log_info("detached from %s", a->cfg.ports[p].name);
}

static int attach_port(struct agent *a, int p, int datapath)
{
	__u32 ifindex = a->live[p].ifindex;
	int err;

	/* XDP links default to native (driver) mode where the device has it. */
	if (datapath == XFAB_DP_XDP)
		a->link_fd[p] = bpf_link_create(bpf_program__fd(a->skel->progs.xfab_xdp),
						(int)ifindex, BPF_XDP, NULL);
	else
		a->link_fd[p] =
		    bpf_link_create(bpf_program__fd(a->skel->progs.xfab_tc), (int)ifindex,
				    (enum bpf_attach_type)XFAB_TCX_INGRESS, NULL);
	if (a->link_fd[p] < 0) {
		err = -errno;
		log_err("cannot attach %s datapath to %s (ifindex %u): %s",
			datapath == XFAB_DP_XDP ? "xdp" : "tc", a->cfg.ports[p].name, ifindex,
			strerror(-err));
		return err ? err : -EINVAL;
	}
	if (datapath == XFAB_DP_TC) {
		a->egress_fd[p] =
		    bpf_link_create(bpf_program__fd(a->skel->progs.xfab_tc_egress), (int)ifindex,
				    (enum bpf_attach_type)XFAB_TCX_EGRESS, NULL);
		if (a->egress_fd[p] < 0) {
			err = -errno;
			log_err("cannot attach the tc egress program to %s: %s",
				a->cfg.ports[p].name, strerror(-err));
			detach_port(a, p);
			return err;
		}
		if (a->cfg.ports[p].rate_mbps && shape_port(a, p)) {
			detach_port(a, p);
			return -EIO;
		}
	}
	log_info("attached %s datapath to %s (ifindex %u)", datapath == XFAB_DP_XDP ? "xdp" : "tc",
		 a->cfg.ports[p].name, ifindex);
	return 0;
}

/* Attaches every port or none: a failure rolls back what was attached. */
int attach_all(struct agent *a)
{
	int err;

	for (int p = 0; p < a->cfg.n_ports; p++) {
		err = attach_port(a, p, a->cfg.datapath);
		if (err) {
			for (int q = p - 1; q >= 0; q--)
				detach_port(a, q);
			return err;
		}
	}
	return 0;
}
