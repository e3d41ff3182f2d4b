// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* trace: a frame through the loaded program, stage by stage */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "ctl.h"
#include "frame.h"

/* Frame n of a classic pcap file (Ethernet). */
static int read_pcap(const char *path, long index, __u8 *buf, size_t cap, size_t *len)
{
	FILE *f = fopen(path, "rb");
	__u32 gh[6], rh[4];
	int swap;

	if (!f) {
		fprintf(stderr, "xfabctl trace: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fread(gh, 4, 6, f) != 6 || (gh[0] != 0xa1b2c3d4 && gh[0] != 0xa1b23c4d &&
					gh[0] != 0xd4c3b2a1 && gh[0] != 0x4d3cb2a1)) {
		fprintf(stderr, "xfabctl trace: %s is not a pcap file\n", path);
		fclose(f);
		return -1;
	}
	swap = gh[0] == 0xd4c3b2a1 || gh[0] == 0x4d3cb2a1;
	if ((swap ? __builtin_bswap32(gh[5]) : gh[5]) != 1) {
		fprintf(stderr, "xfabctl trace: %s: only Ethernet captures\n", path);
		fclose(f);
		return -1;
	}
	for (long i = 0;; i++) {
		__u32 incl;

		if (fread(rh, 4, 4, f) != 4) {
			fprintf(stderr, "xfabctl trace: %s has no frame %ld\n", path, index);
			fclose(f);
			return -1;
		}
		incl = swap ? __builtin_bswap32(rh[2]) : rh[2];
		if (incl > cap) {
			fprintf(stderr, "xfabctl trace: frame %ld is too large\n", i);
			fclose(f);
			return -1;
		}
		if (fread(buf, 1, incl, f) != incl) {
			fclose(f);
			return -1;
		}
		if (i == index) {
			*len = incl;
			fclose(f);
			return 0;
		}
	}
}

/* A frame as described: Ethernet, IPv4/IPv6, UDP/TCP/ICMP (+ BTH on 4791). */
static int build_frame(const struct ctl_opts *ta, const __u8 *port_mac, __u8 *b, size_t cap,
		       size_t *len)
{
	struct xfab_frame f = {0};
	int proto = ctl_parse_proto(ta->proto);
	__u8 tos = (__u8)((ta->dscp & 0x3f) << 2 | (ta->ecn & 3));
	size_t payload = ta->len >= 0 ? (size_t)ta->len : 64;
	long n;

	if (ta->dmac ? xfab_parse_mac(ta->dmac, f.dmac) : (memcpy(f.dmac, port_mac, 6), 0))
		return -1;
	if (xfab_parse_mac(ta->smac ? ta->smac : "02:00:00:00:00:aa", f.smac))
		return -1;
	if (xfab_frame_addrs(&f, ta->src, ta->dst))
		return -1;
	f.ip4.tos = f.ip6.tclass = tos;
	f.ip4.ttl = f.ip6.hop_limit = (__u8)ta->ttl;
	f.l4.proto = (__u8)proto;
	f.l4.sport = (__u16)ta->sport;
	f.l4.dport = (__u16)ta->dport;
	if (proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6)
		f.l4.icmp_type = f.l3 == XFAB_FRAME_IPV6 ? 128 : 8; /* echo request */
	if (proto == IPPROTO_UDP && ta->dport == 4791 && payload >= 12) {
		f.bth = (struct xfab_frame_bth){
		    .present = 1, .opcode = 0x04, .pkey = 0xffff, .dest_qp = (__u32)ta->qp};
		payload -= 12; /* RC SEND only, P_Key 0xffff */
	}
	f.payload_len = payload;
	n = xfab_frame_build(&f, b, cap, NULL);
	if (n < 0)
		return -1;
	*len = (size_t)n;
	return 0;
}

static const char *const stage_names[] = {
    [XFAB_STAGE_PORT] = "port checks",		[XFAB_STAGE_PARSE] = "parse",
    [XFAB_STAGE_CLASSIFY] = "l2/address rules", [XFAB_STAGE_L3] = "route/path",
    [XFAB_STAGE_EGRESS] = "egress checks",	[XFAB_STAGE_QUEUE] = "queue",
    [XFAB_STAGE_REWRITE] = "rewrite",
};
static const char *const queue_verdicts[] = {"pass", "mark CE", "tail drop", "WRED drop"};
static const char *const overlay_names[] = {"", "encap", "decap", "local"};

/* The VNET's name (or its id). */
static void vnet_name(__u32 id, char *buf, size_t len)
{
	struct xfab_vnet v;

	if (id && bpf_map_lookup_elem(ctl_open_map(XFAB_MAP_VNETS), &id, &v) == 0 && v.name[0])
		snprintf(buf, len, "%.15s", v.name);
	else
		snprintf(buf, len, "%u", id);
}

/* The overlay stages a trace went through (docs/OVERLAY.md): the tenant
 * table, the tunnel and the outer headers the frame left with. */
static void print_overlay(const struct xfab_trace *r, const __u8 *out, size_t out_len)
{
	char vn[24], ep[INET_ADDRSTRLEN];

	if (r->overlay == XFAB_OVERLAY_NONE)
		return;
	vnet_name(r->vnet, vn, sizeof(vn));
	if (r->overlay == XFAB_OVERLAY_LOCAL) {
		printf("overlay   tenant port of VNET %s: routed in its table to a local port\n",
		       vn);
		return;
	}
	if (r->overlay == XFAB_OVERLAY_DECAP) {
		printf("decap     VXLAN VNI %u -> VNET %s: outer headers removed, RFC 6040 ECN "
		       "merged, the inner packet routed in the tenant's table\n",
		       r->vni, vn);
		return;
	}
	inet_ntop(AF_INET, &r->endpoint, ep, sizeof(ep));
	printf("overlay   tenant port of VNET %s: a tunnel route to VTEP %s, VNI %u\n", vn, ep,
	       r->vni);
	if (r->action == XFAB_ACT_FORWARD && out_len >= 14 + 20 + 8 + 8) {
		char src[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, out + 26, src, sizeof(src));
		printf("encap     outer IPv4 %s -> %s TTL %u DSCP %u, UDP %u -> %u checksum %u, "
		       "VXLAN VNI %u; the underlay routed it:\n",
		       src, ep, out[22], out[15] >> 2, out[34] << 8 | out[35],
		       out[36] << 8 | out[37], out[40] << 8 | out[41],
		       out[46] << 16 | out[47] << 8 | out[48]);
	}
}

/* One trace: the frame in (after the trace header the program reads),
 * what the program wrote back, and what is printed of them. */
struct trace_run {
	__u8 in_buf[2048 + sizeof(struct xfab_trace)],
	    out_buf[2048 + sizeof(struct xfab_trace) + 256];
	struct xfab_trace *t, *r;
	__u8 *frame, *out;
	size_t len, out_len;
	struct xfab_port in_port;
	__u32 ifindex;
	int v6;
	char name[IF_NAMESIZE], a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN], pfx[64];
};

/* The ingress port and the frame (from the capture or the options): 0, or
 * the exit status (said why). */
static int trace_frame(const struct ctl_opts *ta, struct trace_run *tr)
{
	struct xfab_port in_port;
	size_t cap = sizeof(tr->in_buf) - sizeof(*tr->t);

	if (!ta->in) {
		fprintf(stderr, "xfabctl trace: --in must name a port of this switch\n");
		return 2;
	}
	/* by the name xfabd recorded: valid from any namespace */
	if (ctl_find_port(ta->in, &in_port)) {
		fprintf(stderr, "xfabctl trace: %s is not a port of switch %s (its ports: ", ta->in,
			ctl_pin_dir);
		ctl_print_port_names(stderr);
		fprintf(stderr, ")\n");
		return 2;
	}
	tr->in_port = in_port;
	tr->ifindex = in_port.ifindex;
	if (ta->pcap) {
		if (read_pcap(ta->pcap, ta->index, tr->frame, cap, &tr->len))
			return 1;
	} else if (!ta->src || !ta->dst || build_frame(ta, in_port.mac, tr->frame, cap, &tr->len)) {
		fprintf(stderr,
			"xfabctl trace: describe the packet (--src, --dst, ...) or --pcap\n");
		return 2;
	}
	return 0;
}

/* The frame through the pinned trace program, from the port's namespace:
 * 0, or 1 (said why). */
static int trace_run_prog(const struct ctl_opts *ta, struct trace_run *tr)
{
	struct xdp_md ctx = {.data = sizeof(*tr->t),
			     .data_end = (__u32)(sizeof(*tr->t) + tr->len),
			     .ingress_ifindex = tr->ifindex};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = tr->in_buf,
		    .data_size_in = (__u32)(sizeof(*tr->t) + tr->len), .data_out = tr->out_buf,
		    .data_size_out = sizeof(tr->out_buf), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = 1);
	char pin[600];
	int prog, err;

	snprintf(pin, sizeof(pin), "%s/prog_trace", ctl_pin_dir);
	prog = bpf_obj_get(pin);
	if (prog < 0) {
		fprintf(stderr, "xfabctl trace: %s: %s (is xfabd running?)\n", pin,
			strerror(errno));
		return 1;
	}
	/* the test run finds the ingress port in the caller's namespace */
	if (ctl_enter_port_netns(&tr->in_port)) {
		fprintf(stderr,
			"xfabctl trace: port %s (ifindex %u) is neither in this network namespace "
			"nor in one under /run/netns; run xfabctl in the switch's namespace\n",
			ta->in, tr->ifindex);
		return 1;
	}
	memset(tr->t, 0, sizeof(*tr->t));
	tr->t->magic = XFAB_TRACE_MAGIC;
	err = bpf_prog_test_run_opts(prog, &opts);
	if (err) {
		fprintf(stderr, "xfabctl trace: BPF_PROG_TEST_RUN: %s\n", strerror(errno));
		return 1;
	}
	tr->out_len = opts.data_size_out > sizeof(*tr->r) ? opts.data_size_out - sizeof(*tr->r) : 0;
	return 0;
}

/* The route the trace matched, as "prefix/len" in tr->pfx (empty when
 * none is found): looked up again in the table the program used. */
static void trace_route_prefix(struct trace_run *tr)
{
	const struct xfab_trace *r = tr->r;
	__u8 dst[16] = {0};
	__u32 table =
	    r->flags & XFAB_TRACE_TE_HIT ? XFAB_TABLE_TE | tr->ifindex : XFAB_TABLE_DEFAULT;
	int fam6 = tr->v6, plen = -1;
	struct xfab_route rt;

	inet_pton(tr->v6 ? AF_INET6 : AF_INET, tr->b, dst);
	/* a tenant's route is in its VNET's table; a tunnelled packet's
	 * route (the underlay's) is the remote VTEP's */
	if (r->overlay == XFAB_OVERLAY_LOCAL || r->overlay == XFAB_OVERLAY_DECAP) {
		table = XFAB_TABLE_VNET | r->vnet;
	} else if (r->overlay == XFAB_OVERLAY_ENCAP) {
		memset(dst, 0, sizeof(dst));
		memcpy(dst, &r->endpoint, 4);
		fam6 = 0;
	}
	if (ctl_find_route(fam6, dst, table, &plen, &rt) == 0) {
		char net[INET6_ADDRSTRLEN];
		struct xfab_prefix m = {.family = fam6 ? AF_INET6 : AF_INET, .plen = plen};

		memcpy(m.addr, dst, 16);
		for (int i = 0; i < 16; i++)
			if (i * 8 >= plen)
				m.addr[i] = 0;
			else if (i * 8 + 8 > plen)
				m.addr[i] &= (__u8)(0xff << (8 - (plen - i * 8)));
		inet_ntop(fam6 ? AF_INET6 : AF_INET, m.addr, net, sizeof(net));
		snprintf(tr->pfx, sizeof(tr->pfx), "%s/%d", net, plen);
	}
}

/* The input's addresses, the matched route and the egress port's name. */
static void trace_describe(struct trace_run *tr)
{
	const __u8 *frame = tr->frame;

	if (tr->len >= 34 && frame[12] == 0x08 && frame[13] == 0x00) {
		inet_ntop(AF_INET, frame + 26, tr->a, sizeof(tr->a));
		inet_ntop(AF_INET, frame + 30, tr->b, sizeof(tr->b));
	} else if (tr->len >= 54 && frame[12] == 0x86 && frame[13] == 0xdd) {
		tr->v6 = 1;
		inet_ntop(AF_INET6, frame + 22, tr->a, sizeof(tr->a));
		inet_ntop(AF_INET6, frame + 38, tr->b, sizeof(tr->b));
	} else {
		snprintf(tr->a, sizeof(tr->a), "-");
		snprintf(tr->b, sizeof(tr->b), "-");
	}
	tr->pfx[0] = '\0';
	if (tr->r->route_type && strcmp(tr->b, "-"))
		trace_route_prefix(tr);
	if (tr->r->egress_ifindex)
		ctl_port_name(tr->r->egress_ifindex, tr->name);
	else
		snprintf(tr->name, sizeof(tr->name), "-");
}

static const char *trace_stage(const struct xfab_trace *r)
{
	return r->stage < 8 && stage_names[r->stage] ? stage_names[r->stage] : "?";
}

static void trace_json_overlay(const struct trace_run *tr)
{
	const struct xfab_trace *r = tr->r;
	char vn[24], ep[INET_ADDRSTRLEN];

	vnet_name(r->vnet, vn, sizeof(vn));
	ctl_jw_string("vnet", vn);
	ctl_jw_uint("vni", r->vni);
	if (r->overlay == XFAB_OVERLAY_ENCAP) {
		inet_ntop(AF_INET, &r->endpoint, ep, sizeof(ep));
		ctl_jw_string("endpoint", ep);
		if (r->action == XFAB_ACT_FORWARD && tr->out_len >= 50)
			ctl_jw_uint("outer_sport", (__u32)(tr->out[34] << 8 | tr->out[35]));
	}
}

static void trace_print_json(const struct ctl_opts *ta, const struct trace_run *tr)
{
	const struct xfab_trace *r = tr->r;
	char smac[18], dmac[18];

	ctl_jw_open(NULL, '{');
	ctl_jw_string("ingress", ta->in);
	ctl_jw_uint("frame_bytes", tr->len);
	ctl_jw_string("src", tr->a);
	ctl_jw_string("dst", tr->b);
	ctl_jw_string("stage", trace_stage(r));
	ctl_jw_string("action", r->action == XFAB_ACT_FORWARD ? "forward"
				: r->action == XFAB_ACT_PUNT  ? "punt"
							      : "drop");
	ctl_jw_string("reason", r->action == XFAB_ACT_PUNT   ? xfab_punt_name(r->reason)
				: r->action == XFAB_ACT_DROP ? xfab_drop_name(r->reason)
							     : "");
	ctl_jw_string("route", tr->pfx);
	ctl_jw_string("route_type", r->route_type ? xfab_route_type_name(r->route_type) : "");
	ctl_jw_bool("te", r->flags & XFAB_TRACE_TE_HIT);
	ctl_jw_bool("te_fallback", r->flags & XFAB_TRACE_TE_FALLBACK);
	ctl_jw_bool("repaired", r->flags & XFAB_TRACE_REPAIRED);
	ctl_jw_bool("split_horizon", r->flags & XFAB_TRACE_SPLIT_HORIZON);
	ctl_jw_uint("group", r->group);
	ctl_jw_uint("hash", r->hash);
	ctl_jw_uint("bucket", r->bucket);
	ctl_jw_uint("nexthop", r->nexthop);
	ctl_jw_string("flowlet", r->flags & XFAB_TRACE_FLOWLET_CONT  ? "continues"
				 : r->flags & XFAB_TRACE_FLOWLET_NEW ? "new"
								     : "");
	ctl_jw_uint("qp", r->qp);
	ctl_jw_uint("tc", r->tc);
	ctl_jw_uint("queue_occupancy", r->occupancy);
	ctl_jw_string("queue_verdict", queue_verdicts[r->queue_verdict & 3]);
	ctl_jw_string("egress", tr->name);
	ctl_jw_string("overlay", overlay_names[r->overlay & 3]);
	if (r->overlay)
		trace_json_overlay(tr);
	if (r->action == XFAB_ACT_FORWARD && tr->out_len >= 14) {
		xfab_format_mac(tr->out, dmac, sizeof(dmac));
		xfab_format_mac(tr->out + 6, smac, sizeof(smac));
		ctl_jw_string("out_dmac", dmac);
		ctl_jw_string("out_smac", smac);
	}
	ctl_jw_close('}');
}

/* route, select, repair and nexthop lines: how the path was chosen */
static void trace_print_path(const struct ctl_opts *ta, const struct trace_run *tr)
{
	const struct xfab_trace *r = tr->r;

	if (r->route_type) {
		printf("route     %s%s -> %s", r->flags & XFAB_TRACE_TE_HIT ? "TE entry " : "",
		       tr->pfx[0] ? tr->pfx : "?", xfab_route_type_name(r->route_type));
		if (r->group)
			printf(" %u", r->group);
		if (r->flags & XFAB_TRACE_TE_FALLBACK)
			printf(" (a TE entry matched but its path is down)");
		putchar('\n');
	}
	if (r->flags & XFAB_TRACE_GROUP)
		printf("select    hash 0x%08x -> bucket %u -> nexthop %u%s\n", r->hash, r->bucket,
		       r->nexthop,
		       r->flags & XFAB_TRACE_FLOWLET_CONT ? " (continues its flowlet)"
		       : r->flags & XFAB_TRACE_FLOWLET_NEW
			   ? " (a new flowlet: random member; shown: the hash's)"
			   : "");
	if (r->flags & XFAB_TRACE_REPAIRED)
		printf("repair    the route's path is dead: bounced by the repair group %u, never "
		       "back out of %s (LOCAL_REPAIR)\n",
		       r->group, ta->in);
	if (r->flags & XFAB_TRACE_SPLIT_HORIZON)
		printf("repair    the group chose %s, where the packet came in: another member "
		       "(split horizon)\n",
		       ta->in);
	if (r->nexthop && !(r->flags & XFAB_TRACE_GROUP))
		printf("select    nexthop %u\n", r->nexthop);
	if (r->nexthop) {
		ctl_print_nexthop_text(ctl_open_map(XFAB_MAP_NEXTHOPS), r->nexthop, "          ");
		putchar('\n');
	}
}

/* queue, rewrite and verdict lines: what became of the frame */
static void trace_print_verdict(const struct trace_run *tr)
{
	const struct xfab_trace *r = tr->r;
	const __u8 *frame = tr->frame, *out = tr->out;
	size_t out_len = tr->out_len;

	if (r->stage >= XFAB_STAGE_QUEUE)
		printf("queue     %s class %u: %llu bytes queued -> %s\n", tr->name, r->tc,
		       (unsigned long long)r->occupancy, queue_verdicts[r->queue_verdict & 3]);
	if (r->action == XFAB_ACT_FORWARD && out_len >= 14) {
		char smac[18], dmac[18];

		xfab_format_mac(out, dmac, sizeof(dmac));
		xfab_format_mac(out + 6, smac, sizeof(smac));
		printf("rewrite   dst MAC %s, src MAC %s", dmac, smac);
		if (!tr->v6 && out_len >= 34)
			printf(", TTL %u -> %u, IPv4 checksum %s", frame[22], out[22],
			       xfab_csum16(out + 14, (size_t)(out[14] & 0xf) * 4) == 0 ? "valid"
										       : "BAD");
		else if (tr->v6 && out_len >= 54)
			printf(", hop limit %u -> %u", frame[21], out[21]);
		putchar('\n');
		printf("verdict   forward out of %s\n", tr->name);
	} else if (r->action == XFAB_ACT_PUNT) {
		printf("verdict   punt to the kernel: %s (at %s)\n", xfab_punt_name(r->reason),
		       trace_stage(r));
	} else {
		printf("verdict   drop: %s (at %s)\n", xfab_drop_name(r->reason), trace_stage(r));
	}
}

static void trace_print_text(const struct ctl_opts *ta, const struct trace_run *tr)
{
	const struct xfab_trace *r = tr->r;

	printf("ingress   %s (slot %u): %zu-byte frame%s\n", ta->in, r->ingress_slot, tr->len,
	       ta->pcap ? " from the capture" : "");
	printf("parse     %s -> %s, protocol %u%s", tr->a, tr->b, r->l4_proto,
	       r->flags & XFAB_TRACE_ROCE ? "" : "\n");
	if (r->flags & XFAB_TRACE_ROCE)
		printf(", RoCEv2 QP 0x%x\n", r->qp);
	print_overlay(r, tr->out, tr->out_len);
	trace_print_path(ta, tr);
	trace_print_verdict(tr);
	printf("state     unchanged (a trace writes no counter, flowlet or queue)\n");
}

int ctl_cmd_trace(const struct ctl_opts *ta)
{
	struct trace_run *tr = calloc(1, sizeof(*tr));
	int rc;

	if (!tr) {
		fprintf(stderr, "xfabctl trace: out of memory\n");
		return 1;
	}
	tr->t = (void *)tr->in_buf;
	tr->r = (void *)tr->out_buf;
	tr->frame = tr->in_buf + sizeof(*tr->t);
	tr->out = tr->out_buf + sizeof(*tr->r);
	rc = trace_frame(ta, tr);
	if (!rc)
		rc = trace_run_prog(ta, tr);
	if (!rc) {
		trace_describe(tr);
		if (ctl_json)
			trace_print_json(ta, tr);
		else
			trace_print_text(ta, tr);
	}
	free(tr);
	return rc;
}
