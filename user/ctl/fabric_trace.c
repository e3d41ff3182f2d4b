// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fabric report: where a switch sends a flow, as its own loaded program
 * decides. The flow's frame (RoCEv2: UDP to 4791 with a BTH naming the
 * destination QP) runs through the switch's pinned trace program
 * (prog_trace, as `xfabctl trace`): the same pipeline and tables, TE pins,
 * flowlets and the hash included, and no state changed (docs/DEBUGGING.md
 * "How a trace changes nothing"). BPF_PROG_TEST_RUN finds the ingress port
 * in the caller's network namespace: each run enters the switch's
 * namespace (fabric.json names it) and comes back.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "fabric_report.h"
#include "frame.h"

struct sw_tracer {
	int opened; /* 1: prog and ns tried; fds below (-1: failed, why in err) */
	int prog, ns;
	char err[160];
};

struct fab_tracer {
	const struct xfab_fabric *f;
	const struct fab_port_map *pm;
	const struct xfab_job_flow *flow;
	int home; /* the namespace we came from */
	struct sw_tracer *sw;
};

struct fab_tracer *ctl_fab_tracer_new(const struct xfab_fabric *f, const struct fab_port_map *pm)
{
	struct fab_tracer *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->f = f;
	t->pm = pm;
	t->sw = calloc(f->n_switches, sizeof(*t->sw));
	t->home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (!t->sw || t->home < 0) {
		if (t->home >= 0)
			close(t->home);
		free(t->sw);
		free(t);
		return NULL;
	}
	return t;
}

void ctl_fab_tracer_free(struct fab_tracer *t)
{
	if (!t)
		return;
	for (unsigned int i = 0; i < t->f->n_switches; i++) {
		if (t->sw[i].prog >= 0 && t->sw[i].opened)
			close(t->sw[i].prog);
		if (t->sw[i].ns >= 0 && t->sw[i].opened)
			close(t->sw[i].ns);
	}
	close(t->home);
	free(t->sw);
	free(t);
}

void ctl_fab_tracer_flow(struct fab_tracer *t, const struct xfab_job_flow *flow)
{
	t->flow = flow;
}

static int open_switch(struct fab_tracer *t, unsigned int s)
{
	const struct xfab_fab_switch *sw = &t->f->switches[s];
	struct sw_tracer *st = &t->sw[s];
	char path[600];

	if (st->opened)
		return st->prog >= 0 && st->ns >= 0 ? 0 : -1;
	st->opened = 1;
	st->prog = st->ns = -1;
	snprintf(path, sizeof(path), "%s/prog_trace", sw->pins);
	st->prog = bpf_obj_get(path);
	if (st->prog < 0) {
		snprintf(st->err, sizeof(st->err), "%s: %s: %s (is its xfabd running?)", sw->name,
			 path, strerror(errno));
		return -1;
	}
	/* a name as `ip netns` gives it, or a path */
	if (sw->netns[0] == '/')
		snprintf(path, sizeof(path), "%s", sw->netns);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", sw->netns);
	st->ns = open(path, O_RDONLY | O_CLOEXEC);
	if (st->ns < 0) {
		snprintf(st->err, sizeof(st->err), "%s: network namespace %s: %s", sw->name, path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* The flow's frame as it enters by a port whose MAC is dmac. */
static long flow_frame(const struct xfab_job_flow *flow, const __u8 *dmac, __u8 *buf, size_t cap)
{
	static const __u8 smac[6] = {0x02, 0, 0, 0, 0, 0xaa};
	char src[INET_ADDRSTRLEN], dst[INET_ADDRSTRLEN];
	struct xfab_frame fr = {0};

	memcpy(fr.dmac, dmac, 6);
	memcpy(fr.smac, smac, 6);
	inet_ntop(AF_INET, &flow->saddr, src, sizeof(src));
	inet_ntop(AF_INET, &flow->daddr, dst, sizeof(dst));
	if (xfab_frame_addrs(&fr, src, dst))
		return -1;
	fr.ip4.ttl = 64;
	fr.l4.proto = IPPROTO_UDP;
	fr.l4.sport = flow->sport;
	fr.l4.dport = flow->dport;
	if (flow->dport == XFAB_ROCE_UDP_PORT)
		fr.bth = (struct xfab_frame_bth){
		    .present = 1, .opcode = 0x04, .pkey = 0xffff, .dest_qp = flow->dst_qpn};
	fr.payload_len = 52;
	return xfab_frame_build(&fr, buf, cap, NULL);
}

/*
 * Where the kernel sends what the switch punted for an unresolved
 * neighbour: the nexthop's port, or a connected route's (its id is the
 * port's ifindex: the longest match of the default table). 0 if neither.
 */
static __u32 kernel_egress(const struct xfab_fab_switch *sw, const struct xfab_trace *r,
			   struct in_addr daddr)
{
	__u32 ifindex = 0;
	int fd;

	if (r->nexthop) {
		struct xfab_nexthop nh;
		__u32 id = r->nexthop;

		fd = xfab_open_pinned_map(sw->pins, XFAB_MAP_NEXTHOPS);
		if (fd >= 0 && bpf_map_lookup_elem(fd, &id, &nh) == 0 && (nh.flags & XFAB_NH_VALID))
			ifindex = nh.ifindex;
	} else if (r->route_type == XFAB_RT_CONNECTED) {
		struct xfab_lpm_v4_key key = {.prefixlen = 32 + 32,
					      .table = htonl(XFAB_TABLE_DEFAULT)};
		struct xfab_route rt;

		memcpy(key.addr, &daddr, 4);
		fd = xfab_open_pinned_map(sw->pins, XFAB_MAP_ROUTES_V4);
		if (fd >= 0 && bpf_map_lookup_elem(fd, &key, &rt) == 0 &&
		    rt.type == XFAB_RT_CONNECTED)
			ifindex = rt.id;
	} else {
		return 0;
	}
	if (fd >= 0)
		close(fd);
	return ifindex;
}

int ctl_fab_trace_decide(void *ctx, struct xfab_fab_hop *hop, char *why, size_t whylen)
{
	struct fab_tracer *t = ctx;
	unsigned int s = hop->sw, in_port = hop->in_port;
	__u32 egress;
	const struct xfab_fab_switch *sw = &t->f->switches[s];
	const struct fab_port_map *pm = &t->pm[s];
	__u8 in_buf[256 + sizeof(struct xfab_trace)], out_buf[sizeof(in_buf) + 256];
	struct xfab_trace *rec = (void *)in_buf, *r = (void *)out_buf;
	long len;
	int err;

	if (open_switch(t, s)) {
		snprintf(why, whylen, "%s", t->sw[s].err);
		return -1;
	}
	if (!pm->port[in_port].found) {
		snprintf(why, whylen, "%s: %s is not in its port table", sw->name,
			 sw->ports[in_port].name);
		return -1;
	}
	len = flow_frame(t->flow, pm->port[in_port].mac, in_buf + sizeof(*rec),
			 sizeof(in_buf) - sizeof(*rec));
	if (len < 0) {
		snprintf(why, whylen, "%s: cannot build the flow's frame", sw->name);
		return -1;
	}
	memset(rec, 0, sizeof(*rec));
	rec->magic = XFAB_TRACE_MAGIC;
	if (setns(t->sw[s].ns, CLONE_NEWNET)) {
		snprintf(why, whylen, "%s: cannot enter %s: %s", sw->name, sw->netns,
			 strerror(errno));
		return -1;
	}
	{
		struct xdp_md xctx = {.data = sizeof(*rec),
				      .data_end = (__u32)(sizeof(*rec) + (size_t)len),
				      .ingress_ifindex = pm->port[in_port].ifindex};
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in_buf,
			    .data_size_in = (__u32)(sizeof(*rec) + (size_t)len),
			    .data_out = out_buf, .data_size_out = sizeof(out_buf), .ctx_in = &xctx,
			    .ctx_size_in = sizeof(xctx), .repeat = 1);

		err = bpf_prog_test_run_opts(t->sw[s].prog, &opts) ? errno : 0;
	}
	if (setns(t->home, CLONE_NEWNET)) {
		/* every later map read and trace would be in the wrong place */
		fprintf(stderr, "xfabctl: cannot return to the first namespace: %s\n",
			strerror(errno));
		exit(1);
	}
	if (err) {
		snprintf(why, whylen, "%s: BPF_PROG_TEST_RUN: %s", sw->name, strerror(err));
		return -1;
	}
	egress = r->action == XFAB_ACT_FORWARD ? r->egress_ifindex : 0;
	/* the kernel resolves the neighbour and forwards it (bpf/l3.h) */
	if (r->action == XFAB_ACT_PUNT && r->reason == XFAB_PUNT_NEIGH_UNRESOLVED) {
		egress = kernel_egress(sw, r, t->flow->daddr);
		hop->flags |= XFAB_FAB_HOP_KERNEL;
	}
	if (!egress) {
		snprintf(why, whylen, "%s %s: %s", sw->name,
			 r->action == XFAB_ACT_PUNT ? "punts it" : "drops it",
			 r->action == XFAB_ACT_PUNT ? xfab_punt_name(r->reason)
						    : xfab_drop_name(r->reason));
		return 1;
	}
	for (unsigned int p = 0; p < sw->n_ports; p++) {
		if (pm->port[p].found && pm->port[p].ifindex == egress) {
			hop->out_port = p;
			return 0;
		}
	}
	snprintf(why, whylen, "%s sends it out of ifindex %u, no port of the fabric", sw->name,
		 egress);
	return -1;
}
