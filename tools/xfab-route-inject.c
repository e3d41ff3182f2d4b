// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab-route-inject: adds or deletes N IPv4 /24 routes in the kernel as fast
 * as rtnetlink takes them, the way a routing daemon's dataplane does: many
 * RTM_NEWROUTE (or RTM_DELROUTE) messages per sendmsg, no acknowledgement
 * asked (an error still comes back). The kernel handles a request in the
 * sender's sendmsg, so when the last send returns every route is in (or
 * out of) the kernel's table. For scripts/sync-bench; `ip -batch` waits for
 * an answer after every line and measures its own round trips.
 *
 *   xfab-route-inject add|del --routes N --dev IF --via GW[,GW...]
 *                     [--table T] [--proto P] [--first A.B.C.0]
 *
 * Routes: N consecutive /24s from --first (default 20.0.0.0), each over
 * every --via gateway (one: RTA_GATEWAY; more: RTA_MULTIPATH). Prints
 * "N routes in S s (R routes/s)" and exits 1 if the kernel refused any
 * (the first few refusals are printed).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "opts.h"

#define SEND_BYTES (64 * 1024) /* messages packed into one sendmsg */
#define MAX_GWS 64

struct inject_args {
	unsigned long routes, table, proto;
	const char *dev;
	const char *via[MAX_GWS];
	int n_via;
	struct in_addr first;
};

/* The options after add|del into r: 0, or the exit status. */
static int parse_args(struct inject_args *r, int add, int argc, char **argv)
{
	const struct xfab_opt rows[] = {
	    XFAB_OPT_UINT("routes", 0, r->routes, 1, 4000000, "N", "how many /24 routes",
			  .base = 10, .required = 1),
	    XFAB_OPT_STR("dev", 0, r->dev, "IF", "the gateways' port", .required = 1),
	    XFAB_OPT_LIST("via", 0, r->via, r->n_via, "GW[,GW...]",
			  "next hops (more than one: multipath); add only"),
	    XFAB_OPT_UINT("table", 0, r->table, 1, 0xffffffffUL, "T", "routing table (main)",
			  .base = 10),
	    XFAB_OPT_UINT("proto", 0, r->proto, 0, 255, "P", "route protocol (static)", .base = 10),
	    XFAB_OPT_FUNC("first", 0, &r->first, xfab_opts_ip4, "A.B.C.0",
			  "the first prefix (20.0.0.0)"),
	    XFAB_OPT_END,
	};
	const struct xfab_opts spec = {add ? "xfab-route-inject add" : "xfab-route-inject del",
				       "--routes N --dev IF --via GW[,GW...]", rows, NULL};
	int ret = xfab_opts_parse_all(&spec, argc, argv);

	if (ret < 0 && add && !r->n_via) {
		fprintf(stderr, "%s: --via is required\n", spec.prog);
		return 2;
	}
	return ret;
}

/* Reads what the kernel sent back (errors only): how many refusals. */
static long drain(struct mnl_socket *nl, int wait)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	long errors = 0;

	for (;;) {
		ssize_t got =
		    recv(mnl_socket_get_fd(nl), buf, sizeof(buf), wait ? 0 : MSG_DONTWAIT);
		int n = (int)got;

		if (got <= 0)
			return errors;
		for (const struct nlmsghdr *h = (void *)buf; mnl_nlmsg_ok(h, n);
		     h = mnl_nlmsg_next(h, &n)) {
			const struct nlmsgerr *e = mnl_nlmsg_get_payload(h);

			/* seq 0: the closing lookup, whose answer does not matter */
			if (h->nlmsg_type != NLMSG_ERROR || !e->error || !h->nlmsg_seq)
				continue;
			if (++errors <= 5)
				fprintf(stderr, "xfab-route-inject: message %u refused: %s\n",
					h->nlmsg_seq, strerror(-e->error));
		}
		wait = 0;
	}
}

/* Route k (20.0.k.0/24 from --first on): added through the gateways or
 * deleted, appended to the batch at buf. Its length, aligned. */
static size_t put_route(char *buf, const struct inject_args *r, int add, unsigned long k,
			const struct in_addr *gws, int n_gws, int ifindex)
{
	__u32 dst = htonl(ntohl(r->first.s_addr) + ((__u32)k << 8));
	struct nlmsghdr *h = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm;

	h->nlmsg_type = add ? RTM_NEWROUTE : RTM_DELROUTE;
	h->nlmsg_flags = NLM_F_REQUEST | (add ? NLM_F_CREATE | NLM_F_REPLACE : 0);
	h->nlmsg_seq = (__u32)k + 1;
	rtm = mnl_nlmsg_put_extra_header(h, sizeof(*rtm));
	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = 24;
	rtm->rtm_table = r->table < 256 ? (unsigned char)r->table : RT_TABLE_UNSPEC;
	rtm->rtm_protocol = (unsigned char)r->proto;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put_u32(h, RTA_TABLE, (__u32)r->table);
	mnl_attr_put(h, RTA_DST, 4, &dst);
	if (add && n_gws == 1) {
		mnl_attr_put(h, RTA_GATEWAY, 4, &gws[0]);
		mnl_attr_put_u32(h, RTA_OIF, (__u32)ifindex);
	} else if (add) {
		struct nlattr *mp = mnl_attr_nest_start(h, RTA_MULTIPATH);

		for (int g = 0; g < n_gws; g++) {
			struct rtnexthop *nh = mnl_nlmsg_put_extra_header(h, sizeof(*nh));

			nh->rtnh_ifindex = ifindex;
			mnl_attr_put(h, RTA_GATEWAY, 4, &gws[g]);
			nh->rtnh_len =
			    (unsigned short)((char *)mnl_nlmsg_get_payload_tail(h) - (char *)nh);
		}
		mnl_attr_nest_end(h, mp);
	}
	return NLMSG_ALIGN(h->nlmsg_len);
}

/* The request with an acknowledgement that ends the last batch: its answer
 * comes after every error of the messages before it. Its length. */
static size_t put_fence(char *buf, const struct inject_args *r)
{
	struct nlmsghdr *h = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm;

	h->nlmsg_type = RTM_GETROUTE;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	h->nlmsg_seq = 0;
	rtm = mnl_nlmsg_put_extra_header(h, sizeof(*rtm));
	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = 32;
	mnl_attr_put(h, RTA_DST, 4, &r->first);
	return NLMSG_ALIGN(h->nlmsg_len);
}

/* Every route, in batches of SEND_BYTES, then the fence: the errors the
 * kernel answered, or -1 when a send failed. */
static long inject(struct mnl_socket *nl, char *buf, const struct inject_args *r, int add,
		   const struct in_addr *gws, int n_gws, int ifindex)
{
	long errors = 0;
	size_t off = 0;

	for (unsigned long k = 0; k < r->routes; k++) {
		if (off + 1024 > SEND_BYTES) {
			if (mnl_socket_sendto(nl, buf, off) < 0) {
				perror("xfab-route-inject: send");
				return -1;
			}
			off = 0;
			errors += drain(nl, 0);
		}
		off += put_route(buf + off, r, add, k, gws, n_gws, ifindex);
	}
	off += put_fence(buf + off, r);
	if (mnl_socket_sendto(nl, buf, off) < 0) {
		perror("xfab-route-inject: send");
		return -1;
	}
	return errors + drain(nl, 1);
}

int main(int argc, char **argv)
{
	struct inject_args r = {
	    .table = RT_TABLE_MAIN, .proto = RTPROT_STATIC, .first = {htonl(0x14000000)}};
	struct in_addr gws[MAX_GWS];
	int n_gws = 0, add, ifindex;
	struct mnl_socket *nl;
	long errors;
	char *buf;
	double t0, s;

	if (argc < 2 || (strcmp(argv[1], "add") && strcmp(argv[1], "del"))) {
		fprintf(stderr, "usage: xfab-route-inject add|del --routes N --dev IF "
				"--via GW[,GW...] [OPTIONS]\n");
		return 2;
	}
	add = !strcmp(argv[1], "add");
	n_gws = parse_args(&r, add, argc - 1, argv + 1);
	if (n_gws >= 0)
		return n_gws;
	n_gws = 0;
	ifindex = (int)if_nametoindex(r.dev);
	if (!ifindex) {
		fprintf(stderr, "xfab-route-inject: no device %s\n", r.dev);
		return 2;
	}
	for (int i = 0; i < r.n_via; i++) {
		if (inet_pton(AF_INET, r.via[i], &gws[n_gws]) != 1) {
			fprintf(stderr, "xfab-route-inject: --via: bad or too many gateways\n");
			return 2;
		}
		n_gws++;
	}
	nl = mnl_socket_open(NETLINK_ROUTE);
	buf = malloc(SEND_BYTES);
	if (!nl || !buf || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("xfab-route-inject: netlink");
		return 1;
	}
	t0 = xfab_mono_s();
	errors = inject(nl, buf, &r, add, gws, n_gws, ifindex);
	if (errors < 0)
		return 1;
	s = xfab_mono_s() - t0;
	printf("%lu routes %s in %.3f s (%.0f routes/s)%s\n", r.routes, add ? "added" : "deleted",
	       s, (double)r.routes / s, errors ? ", some refused" : "");
	mnl_socket_close(nl);
	free(buf);
	return errors ? 1 : 0;
}
