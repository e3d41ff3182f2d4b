// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab-nlsync-bench: routes per second from rtnetlink messages into map
 * entries, no kernel needed. The messages (as zebra has the kernel send
 * them) are built in memory first; what is timed is decoding
 * (xfab_nl_decode), the mirror and the RIB (xfab_nlsync_apply) and the
 * compiler writing route, nexthop, group and FIB entries (xfab_compile_routes)
 * into a counting map writer and FIB arrays in plain memory.
 *
 * Two feeds of N IPv4 /24 routes over a few 8-way ECMP sets:
 *   multipath: each route carries its nexthops (RTA_MULTIPATH), as with
 *              `no zebra nexthop kernel enable`;
 *   nhid:      the sets are kernel nexthop groups (RTM_NEWNEXTHOP first),
 *              each route names one (RTA_NH_ID only).
 * The compiler runs once per batch of messages (as an agent does after each
 * receive buffer), and once per message. One untimed run first, so page
 * faults of the FIB arrays and the allocator's growth are not counted.
 *
 *   xfab-nlsync-bench [--routes N] [--batch B] [--json FILE]
 */
/* IPv4 FIB groups (xfab_abi.h) */
#define BENCH_FIB_GROUPS 16384
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "compile.h"
#include "config.h"
#include "maps.h"
#include "nlroute.h"
#include "opts.h"
#include "rib.h"

#define PORTS 16
#define SETS 8 /* ECMP sets: 8-way over a window of the ports */
#define WAYS 8
#define IFINDEX0 100

static void die(const char *what, int err)
{
	fprintf(stderr, "xfab-nlsync-bench: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

/* ---- a map writer that counts ---- */

static size_t writes;

static int c_update(void *arg, enum xfab_table t, const void *key, const void *val)
{
	(void)arg, (void)t, (void)key, (void)val;
	writes++;
	return 0;
}

static int c_remove(void *arg, enum xfab_table t, const void *key)
{
	(void)arg, (void)t, (void)key;
	writes++;
	return 0;
}

static int port_of(void *arg, __u32 ifindex)
{
	(void)arg;
	return ifindex >= IFINDEX0 && ifindex < IFINDEX0 + PORTS ? (int)(ifindex - IFINDEX0) : -1;
}

static int neigh_lookup(void *arg, __u32 ifindex, int family, const __u8 *addr, __u8 mac[6])
{
	(void)arg, (void)family, (void)addr;
	memset(mac, 0, 6);
	mac[0] = 2;
	mac[5] = (__u8)ifindex;
	return 0;
}

/* ---- messages ---- */

struct feed {
	char *buf;
	size_t len, cap, n_msgs;
};

static struct nlmsghdr *msg_new(struct feed *f, int type)
{
	struct nlmsghdr *nlh;

	if (f->cap - f->len < 1024) {
		f->cap = f->cap ? f->cap * 2 : 1 << 20;
		f->buf = realloc(f->buf, f->cap);
		if (!f->buf)
			die("messages", ENOMEM);
	}
	memset(f->buf + f->len, 0, 1024);
	nlh = mnl_nlmsg_put_header(f->buf + f->len);
	nlh->nlmsg_type = (__u16)type;
	return nlh;
}

static void msg_done(struct feed *f, struct nlmsghdr *nlh)
{
	f->len += NLMSG_ALIGN(nlh->nlmsg_len);
	f->n_msgs++;
}

static void gw_of(int port, __u8 *gw)
{
	memset(gw, 0, 16);
	gw[0] = 0xfe;
	gw[1] = 0x80;
	gw[15] = (__u8)(port + 1);
}

static void route_msg(struct feed *f, size_t i, int nhid)
{
	struct nlmsghdr *nlh = msg_new(f, RTM_NEWROUTE);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	__u8 dst[4] = {(__u8)(20 + (i >> 16)), (__u8)(i >> 8), (__u8)i, 0};
	int set = (int)(i % SETS);

	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = 24;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_BGP;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put_u32(nlh, RTA_TABLE, RT_TABLE_MAIN);
	mnl_attr_put(nlh, RTA_DST, 4, dst);
	mnl_attr_put_u32(nlh, RTA_PRIORITY, 20);
	if (nhid) {
		mnl_attr_put_u32(nlh, RTA_NH_ID, (__u32)(1000 + set));
	} else {
		struct nlattr *nest = mnl_attr_nest_start(nlh, RTA_MULTIPATH);

		for (int w = 0; w < WAYS; w++) {
			struct rtnexthop *nh = mnl_nlmsg_put_extra_header(nlh, sizeof(*nh));
			char via[sizeof(struct rtvia) + 16];
			int port = (set + w) % PORTS;

			nh->rtnh_ifindex = IFINDEX0 + port;
			((struct rtvia *)via)->rtvia_family = AF_INET6;
			gw_of(port, ((struct rtvia *)via)->rtvia_addr);
			mnl_attr_put(nlh, RTA_VIA, sizeof(via), via);
			nh->rtnh_len =
			    (__u16)((char *)mnl_nlmsg_get_payload_tail(nlh) - (char *)nh);
		}
		mnl_attr_nest_end(nlh, nest);
	}
	msg_done(f, nlh);
}

static void nexthop_msgs(struct feed *f)
{
	for (int p = 0; p < PORTS; p++) {
		struct nlmsghdr *nlh = msg_new(f, RTM_NEWNEXTHOP);
		struct nhmsg *nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));
		__u8 gw[16];

		nhm->nh_family = AF_INET6;
		nhm->nh_protocol = RTPROT_ZEBRA;
		mnl_attr_put_u32(nlh, NHA_ID, (__u32)(1 + p));
		mnl_attr_put_u32(nlh, NHA_OIF, (__u32)(IFINDEX0 + p));
		gw_of(p, gw);
		mnl_attr_put(nlh, NHA_GATEWAY, 16, gw);
		msg_done(f, nlh);
	}
	for (int s = 0; s < SETS; s++) {
		struct nlmsghdr *nlh = msg_new(f, RTM_NEWNEXTHOP);
		struct nhmsg *nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));
		struct nexthop_grp g[WAYS];

		memset(g, 0, sizeof(g));
		nhm->nh_protocol = RTPROT_ZEBRA;
		for (int w = 0; w < WAYS; w++)
			g[w].id = (__u32)(1 + (s + w) % PORTS);
		mnl_attr_put_u32(nlh, NHA_ID, (__u32)(1000 + s));
		mnl_attr_put(nlh, NHA_GROUP, sizeof(g), g);
		msg_done(f, nlh);
	}
}

/* ---- a run ---- */

struct result {
	double ms;
	size_t routes, map_writes, fib_writes;
};

static void run(const struct xfab_config *cfg, const struct feed *f, size_t n_routes, int batch,
		struct result *res)
{
	static __u32 *tbl24, *tbl8;
	struct xfab_fib_hw fib4;
	struct xfab_port_live live[XFAB_MAX_PORTS];
	struct xfab_map_ops ops = {.update = c_update, .remove = c_remove};
	struct xfab_nl_filter filter;
	struct xfab_nl_change *ch = malloc(sizeof(*ch));
	struct xfab_compile_counts counts;
	struct xfab_nlsync *nl;
	struct xfab_compile *c;
	struct xfab_rib *rib;
	size_t off = 0, since = 0, fibw = 0;
	double t0;
	int err;

	if (!tbl24) {
		tbl24 = calloc(XFAB_FIB4_TBL16_SIZE, 4);
		tbl8 = calloc((size_t)BENCH_FIB_GROUPS * 256, 4);
	} else {
		memset(tbl24, 0, (size_t)XFAB_FIB4_TBL16_SIZE * 4);
		memset(tbl8, 0, (size_t)BENCH_FIB_GROUPS * 256 * 4);
	}
	if (!ch || !tbl24 || !tbl8 || xfab_fib_attach(&fib4, 4, tbl24, tbl8, BENCH_FIB_GROUPS))
		die("memory", ENOMEM);
	memset(live, 0, sizeof(live));
	for (int p = 0; p < PORTS; p++) {
		live[p].ifindex = (__u32)(IFINDEX0 + p);
		live[p].mac[0] = 2;
		live[p].mac[5] = (__u8)p;
		live[p].oper_up = 1;
	}
	ops.fib4 = &fib4;
	rib = xfab_rib_new();
	c = rib ? xfab_compile_new(rib, &ops, neigh_lookup, NULL) : NULL;
	nl = rib ? xfab_nlsync_new(rib, port_of, NULL) : NULL;
	if (!c || !nl)
		die("state", ENOMEM);
	if ((err = xfab_rib_load_config(rib, cfg)) || (err = xfab_compile_config(c, cfg, live)))
		die("config", err);
	xfab_nl_filter_default(&filter);
	writes = 0;
	t0 = xfab_mono_s() * 1e3;
	while (off < f->len) {
		const struct nlmsghdr *nlh = (const void *)(f->buf + off);

		err = xfab_nl_decode(nlh, &filter, ch);
		if (err < 0) {
			fprintf(stderr, "message at %zu: %s\n", off, ch->why);
			die("decode", err);
		}
		if ((err = xfab_nlsync_apply(nl, ch)))
			die("apply", err);
		off += NLMSG_ALIGN(nlh->nlmsg_len);
		if (++since == (size_t)batch || off >= f->len) {
			since = 0;
			if ((err = xfab_compile_routes(c)))
				die("compile", err);
			fibw += xfab_compile_last(c)->fib4_written;
		}
	}
	res->ms = xfab_mono_s() * 1e3 - t0;
	xfab_compile_counts(c, &counts);
	res->routes = counts.routes_v4;
	res->map_writes = writes;
	res->fib_writes = fibw;
	if (counts.routes_v4 != n_routes)
		die("not every route reached the maps", EINVAL);
	xfab_compile_free(c);
	xfab_nlsync_free(nl);
	xfab_rib_free(rib);
	xfab_fib_detach(&fib4);
	free(ch);
}

int main(int argc, char **argv)
{
	struct feed mp = {0}, nh = {0};
	struct result r[2][2];
	struct xfab_config cfg;
	struct xfab_cfg_errors errs;
	char text[4096], load[64] = "?";
	size_t n_routes = 1000000, len = 0;
	const char *json = NULL;
	int batch = 256, o;
	FILE *la;

	const struct xfab_opt rows[] = {
	    XFAB_OPT_UINT("routes", 0, n_routes, 16, 1u << 22, "N", "IPv4 routes to feed (1000000)",
			  .base = 10),
	    XFAB_OPT_INT("batch", 0, batch, 1, 0x7fffffff, "N", "messages compiled together (256)"),
	    XFAB_OPT_STR("json", 0, json, "FILE", "also write the results to FILE"),
	    XFAB_OPT_END,
	};
	const struct xfab_opts spec = {"xfab-nlsync-bench", NULL, rows, NULL};

	o = xfab_opts_parse_all(&spec, argc, argv);
	if (o >= 0)
		return o;
	/* a switch of 16 ports, nothing routed by the config */
	len +=
	    (size_t)snprintf(text + len, sizeof(text) - len,
			     "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"
			     " \"ECMP\": {\"global\": {\"resilient\": \"true\"}},\n \"PORT\": {");
	for (int p = 0; p < PORTS; p++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s\"eth%d\": {}",
					p ? ", " : "", p + 1);
	snprintf(text + len, sizeof(text) - len, "}}\n");
	if (xfab_config_parse("bench.json", text, &cfg, &errs))
		die("config", EINVAL);
	for (size_t i = 0; i < n_routes; i++)
		route_msg(&mp, i, 0);
	nexthop_msgs(&nh);
	for (size_t i = 0; i < n_routes; i++)
		route_msg(&nh, i, 1);
	run(&cfg, &nh, n_routes, batch, &r[1][0]); /* warm-up: FIB pages, allocator */
	for (int k = 0; k < 2; k++) {
		run(&cfg, &mp, n_routes, k ? 1 : batch, &r[0][k]);
		run(&cfg, &nh, n_routes, k ? 1 : batch, &r[1][k]);
	}
	la = fopen("/proc/loadavg", "r");
	if (la) {
		if (fgets(load, sizeof(load), la))
			load[strcspn(load, "\n")] = 0;
		fclose(la);
	}
	printf("%zu IPv4 routes over %d ECMP sets of %d (%d ports); load average %s\n", n_routes,
	       SETS, WAYS, PORTS, load);
	printf("%-10s %-12s %10s %10s %12s %12s %12s\n", "feed", "compile", "messages", "ms",
	       "routes/s", "map writes", "fib writes");
	for (int fe = 0; fe < 2; fe++)
		for (int k = 0; k < 2; k++) {
			char how[24];

			snprintf(how, sizeof(how), k ? "per message" : "per %d", batch);
			printf("%-10s %-12s %10zu %10.0f %12.0f %12zu %12zu\n",
			       fe ? "nhid" : "multipath", how, fe ? nh.n_msgs : mp.n_msgs,
			       r[fe][k].ms, (double)n_routes / (r[fe][k].ms / 1e3),
			       r[fe][k].map_writes, r[fe][k].fib_writes);
		}
	if (json) {
		FILE *out = fopen(json, "w");

		if (!out)
			die(json, errno);
		fprintf(out,
			"{\"routes\": %zu, \"sets\": %d, \"ways\": %d, \"batch\": %d, "
			"\"loadavg\": \"%s\",\n \"routes_per_s\": {\"multipath\": %.0f, "
			"\"nhid\": %.0f, \"multipath_per_message\": %.0f, "
			"\"nhid_per_message\": %.0f}}\n",
			n_routes, SETS, WAYS, batch, load, n_routes / (r[0][0].ms / 1e3),
			n_routes / (r[1][0].ms / 1e3), n_routes / (r[0][1].ms / 1e3),
			n_routes / (r[1][1].ms / 1e3));
		fclose(out);
	}
	xfab_config_free(&cfg);
	free(mp.buf);
	free(nh.buf);
	return 0;
}
