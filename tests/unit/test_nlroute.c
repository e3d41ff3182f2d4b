// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the kernel-FIB mirror (user/lib/nlroute.c): rtnetlink
 * messages are built here by hand with libmnl from the kernel's struct
 * layouts (rtmsg, rtnexthop, rtvia, nhmsg, nexthop_grp), as FRR 8.4 and
 * kernel 6.18 send them, decoded, applied to a RIB and compiled into a map
 * writer that keeps its own copy of every table (shadow.h) and into the
 * IPv4 FIB arrays, read back through the ABI's layout (16-bit first level, 8-bit groups).
 *   - decoding: both families, RTA_MULTIPATH weights (rtnh_hops + 1), RFC
 *     5549 RTA_VIA with an IPv6 link-local gateway on an IPv4 route, nexthop
 *     objects and weighted groups, protocol names and numbers;
 *   - skipped: local/broadcast/multicast/anycast types, table 255 and other
 *     tables, other protocols, cloned routes, link-local, multicast and
 *     loopback destinations, a route whose nexthops are all off the switch
 *     (counted);
 *   - refused, each with its reason and nothing changed: truncated header or
 *     attribute, a prefix length beyond the family, a multipath entry past
 *     its attribute, an address of the wrong size, host bits, a group weight
 *     beyond 65535, a member named twice or of id 0, no NHA_ID;
 *   - end to end: one route added writes its route entry and FIB entries
 *     only; a kernel group's new members rewrite that group only; a link
 *     down withdraws the nexthops on it (objects and expanded ones); IPv6
 *     replace as DEL + NEW; precedence connected > config > netlink; dead
 *     multipath entries left out, objects with one device and gateway merged
 *     into one member, a member deleted from the middle of a group;
 *   - resync after lost events: mark, a fresh dump, sweep, with no write for
 *     what the dump repeats.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "compile.h"
#include "config.h"
#include "nlroute.h"
#include "rib.h"
#include "shadow.h"

/* ---- messages, by hand ---- */

struct msg {
	char buf[8192];
	struct nlmsghdr *nlh;
};

static struct rtmsg *route_msg(struct msg *m, int type, int family, int plen, int proto, int rtn)
{
	struct rtmsg *rtm;

	memset(m->buf, 0, sizeof(m->buf));
	m->nlh = mnl_nlmsg_put_header(m->buf);
	m->nlh->nlmsg_type = (__u16)type;
	rtm = mnl_nlmsg_put_extra_header(m->nlh, sizeof(*rtm));
	rtm->rtm_family = (__u8)family;
	rtm->rtm_dst_len = (__u8)plen;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = (__u8)proto;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = (__u8)rtn;
	mnl_attr_put_u32(m->nlh, RTA_TABLE, RT_TABLE_MAIN);
	return rtm;
}

static void put_addr(struct msg *m, int attr, int family, const char *text)
{
	__u8 a[16];

	assert_int_equal(inet_pton(family, text, a), 1);
	mnl_attr_put(m->nlh, (__u16)attr, family == AF_INET ? 4 : 16, a);
}

/* A bgp route in the main table: dst/plen. */
static void route(struct msg *m, int type, const char *dst, int plen)
{
	int family = strchr(dst, ':') ? AF_INET6 : AF_INET;

	route_msg(m, type, family, plen, RTPROT_BGP, RTN_UNICAST);
	put_addr(m, RTA_DST, family, dst);
	mnl_attr_put_u32(m->nlh, RTA_PRIORITY, 20);
}

/* One RTA_MULTIPATH entry: gw (of the route's family, or "via" an IPv6
 * one with RTA_VIA), weight w (rtnh_hops = w - 1). */
struct hop {
	const char *gw;
	int ifindex, weight, via6, flags;
};

static void multipath(struct msg *m, int family, const struct hop *h, int n)
{
	struct nlattr *nest = mnl_attr_nest_start(m->nlh, RTA_MULTIPATH);

	for (int i = 0; i < n; i++) {
		struct rtnexthop *nh = mnl_nlmsg_put_extra_header(m->nlh, sizeof(*nh));

		nh->rtnh_ifindex = h[i].ifindex;
		nh->rtnh_hops = (__u8)(h[i].weight - 1);
		nh->rtnh_flags = (__u8)h[i].flags;
		if (h[i].via6) {
			char via[sizeof(struct rtvia) + 16];
			struct rtvia *v = (struct rtvia *)via;

			v->rtvia_family = AF_INET6;
			assert_int_equal(inet_pton(AF_INET6, h[i].gw, v->rtvia_addr), 1);
			mnl_attr_put(m->nlh, RTA_VIA, sizeof(via), via);
		} else {
			put_addr(m, RTA_GATEWAY, family, h[i].gw);
		}
		nh->rtnh_len = (__u16)((char *)mnl_nlmsg_get_payload_tail(m->nlh) - (char *)nh);
	}
	mnl_attr_nest_end(m->nlh, nest);
}

static void nexthop_msg(struct msg *m, int type, __u32 id, int family)
{
	struct nhmsg *nhm;

	memset(m->buf, 0, sizeof(m->buf));
	m->nlh = mnl_nlmsg_put_header(m->buf);
	m->nlh->nlmsg_type = (__u16)type;
	nhm = mnl_nlmsg_put_extra_header(m->nlh, sizeof(*nhm));
	nhm->nh_family = (__u8)family;
	nhm->nh_protocol = RTPROT_ZEBRA;
	mnl_attr_put_u32(m->nlh, NHA_ID, id);
}

/* ---- a switch: eth1..eth4 = ifindex 10..13 ---- */

#define CONFIG                                                                                     \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"leaf1\"}},\n"                      \
	" \"PORT\": {\"eth1\": {}, \"eth2\": {}, \"eth3\": {}, \"eth4\": {}},\n"                   \
	" \"INTERFACE\": {\"eth1|10.0.1.1/24\": {}, \"eth2|10.0.2.1/24\": {},\n"                   \
	"   \"eth3|10.0.3.1/24\": {}, \"eth4|10.0.4.1/24\": {}, \"eth1|fd00:1::1/64\": {}},\n"     \
	" \"ECMP\": {\"global\": {\"resilient\": \"true\"}},\n"                                    \
	" \"ROUTE\": {\"30.0.0.0/24\": {\"nexthop\": \"10.0.3.2\"}}}\n"

struct sw {
	struct shadow sh;
	struct xfab_config cfg;
	struct xfab_rib *rib;
	struct xfab_compile *c;
	struct xfab_nlsync *nl;
	struct xfab_nl_filter f;
	struct xfab_port_live live[XFAB_MAX_PORTS];
	__u32 *tbl16, *tbl8; /* the IPv4 FIB */
	struct xfab_fib_hw fib4;
};

static int port_of(void *arg, __u32 ifindex)
{
	(void)arg;
	return ifindex >= 10 && ifindex < 14 ? (int)ifindex - 10 : -1;
}

static int setup(void **state)
{
	struct sw *s = calloc(1, sizeof(*s));
	struct xfab_map_ops ops = {.update = sh_update, .remove = sh_remove};
	struct xfab_cfg_errors errs;

	if (!s)
		return -1;
	for (int p = 0; p < 4; p++) {
		s->live[p].ifindex = (__u32)(10 + p);
		s->live[p].mac[0] = 2;
		s->live[p].mac[5] = (__u8)p;
		s->live[p].oper_up = 1;
	}
	s->tbl16 = calloc(XFAB_FIB4_TBL16_SIZE, 4);
	s->tbl8 = calloc((size_t)XFAB_FIB_GROUPS_DEFAULT * 256, 4);
	if (!s->tbl16 || !s->tbl8 ||
	    xfab_fib_attach(&s->fib4, 4, s->tbl16, s->tbl8, XFAB_FIB_GROUPS_DEFAULT))
		return -1;
	ops.arg = &s->sh;
	ops.fib4 = &s->fib4;
	if (xfab_config_parse("sw.json", CONFIG, &s->cfg, &errs))
		return -1;
	s->rib = xfab_rib_new();
	s->c = xfab_compile_new(s->rib, &ops, NULL, NULL);
	s->nl = xfab_nlsync_new(s->rib, port_of, NULL);
	if (!s->rib || !s->c || !s->nl || xfab_rib_load_config(s->rib, &s->cfg) ||
	    xfab_compile_config(s->c, &s->cfg, s->live))
		return -1;
	xfab_nl_filter_default(&s->f);
	sh_reset_counts(&s->sh);
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct sw *s = *state;

	xfab_compile_free(s->c);
	xfab_nlsync_free(s->nl);
	xfab_rib_free(s->rib);
	xfab_config_free(&s->cfg);
	xfab_fib_detach(&s->fib4);
	free(s->tbl16);
	free(s->tbl8);
	sh_free(&s->sh);
	free(s);
	return 0;
}

/* Decodes m (expecting want: 1 change, 0 skipped, -EINVAL refused),
 * applies and compiles it. */
static void feed(struct sw *s, struct msg *m, int want, struct xfab_nl_change *ch)
{
	struct xfab_nl_change local;
	int ret;

	if (!ch)
		ch = &local;
	ret = xfab_nl_decode(m->nlh, &s->f, ch);
	if (ret != want)
		fail_msg("decode gave %d (%s), %d expected", ret, ch->why, want);
	if (ret == 1) {
		assert_int_equal(xfab_nlsync_apply(s->nl, ch), 0);
	} else {
		assert_int_equal(ch->kind, XFAB_NL_SKIP);
		assert_true(ch->why[0] != 0);
		assert_int_equal(xfab_nlsync_apply(s->nl, ch), 0);
	}
	assert_int_equal(xfab_compile_routes(s->c), 0);
}

static const struct xfab_route *route4(struct sw *s, const char *addr, int plen)
{
	struct xfab_lpm_v4_key k = {.prefixlen = 32u + (__u32)plen};

	assert_int_equal(inet_pton(AF_INET, addr, k.addr), 1);
	return sh_get(&s->sh, XFAB_T_ROUTES_V4, &k);
}

static const struct xfab_route *route6(struct sw *s, const char *addr, int plen)
{
	struct xfab_lpm_v6_key k = {.prefixlen = 32u + (__u32)plen};

	assert_int_equal(inet_pton(AF_INET6, addr, k.addr), 1);
	return sh_get(&s->sh, XFAB_T_ROUTES_V6, &k);
}

static const struct xfab_nexthop *nexthop(struct sw *s, __u32 id)
{
	return sh_get(&s->sh, XFAB_T_NEXTHOPS, &id);
}

static const struct xfab_group *group(struct sw *s, __u32 id)
{
	return sh_get(&s->sh, XFAB_T_GROUPS, &id);
}

/* The IPv4 FIB's entry for addr, as the data plane finds it. */
static __u32 fib4(struct sw *s, const char *addr)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, addr, &a), 1);
	return xfab_fib4_lookup(s->tbl16, s->tbl8, XFAB_FIB_GROUPS_DEFAULT, ntohl(a.s_addr));
}

/* The gateway (as text) of a nexthop entry. */
static void gw_text(const struct xfab_nexthop *nh, char *buf)
{
	inet_ntop(nh->flags & XFAB_NH_IPV6 ? AF_INET6 : AF_INET, nh->gw, buf, INET6_ADDRSTRLEN);
}

/* How many buckets of g name nexthop id. */
static int buckets_of(const struct xfab_group *g, __u32 id)
{
	int n = 0;

	for (int b = 0; b < XFAB_GROUP_BUCKETS; b++)
		n += g->buckets[b] == id;
	return n;
}

/* The nexthop id in the shadow whose gateway is gw on ifindex. */
static __u32 nh_id_of(struct sw *s, const char *gw, __u32 ifindex)
{
	char text[INET6_ADDRSTRLEN];

	for (size_t i = 0; i < s->sh.t[XFAB_T_NEXTHOPS].n; i++) {
		const __u8 *e = sh_entry(&s->sh, XFAB_T_NEXTHOPS, i);
		const struct xfab_nexthop *nh =
		    (const void *)(e + xfab_table_descs[XFAB_T_NEXTHOPS].val_off);
		__u32 id;

		memcpy(&id, e, 4);
		gw_text(nh, text);
		if (nh->ifindex == ifindex && !strcmp(text, gw))
			return id;
	}
	return 0;
}

/* ---- decoding ---- */

static void test_protocols(void **state)
{
	struct xfab_nl_filter f;
	char err[128], name[16];

	(void)state;
	xfab_nl_filter_default(&f);
	assert_int_equal(f.table, 254);
	assert_int_equal(
	    xfab_nl_filter_protocols(&f, "bgp,static,kernel,ospf,200", err, sizeof(err)), 0);
	for (int p = 0; p < 256; p++) {
		int in = p == 186 || p == 4 || p == 2 || p == 188 || p == 200;

		assert_int_equal(!!(f.protocol[p / 8] & (1u << (p % 8))), in);
	}
	assert_int_equal(xfab_nl_filter_protocols(&f, "bgp,frobnicate", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "frobnicate"));
	assert_int_equal(xfab_nl_filter_protocols(&f, "256", err, sizeof(err)), -EINVAL);
	assert_int_equal(xfab_nl_filter_protocols(&f, "bgp,,static", err, sizeof(err)), -EINVAL);
	/* the failed calls left the set as it was */
	assert_true(f.protocol[200 / 8] & (1u << (200 % 8)));
	assert_string_equal(xfab_nl_protocol_name(186, name, sizeof(name)), "bgp");
	assert_string_equal(xfab_nl_protocol_name(11, name, sizeof(name)), "zebra");
	assert_string_equal(xfab_nl_protocol_name(77, name, sizeof(name)), "77");
}

static void test_multipath_weights(void **state)
{
	struct sw *s = *state;
	struct xfab_nl_change ch;
	struct msg m;
	const struct hop h[] = {{"10.0.1.2", 10, 1, 0}, {"10.0.2.2", 11, 3, 0}};
	const struct xfab_route *rt;
	const struct xfab_group *g;
	__u32 a, b;

	route(&m, RTM_NEWROUTE, "40.1.0.0", 16);
	multipath(&m, AF_INET, h, 2);
	feed(s, &m, 1, &ch);
	assert_int_equal(ch.kind, XFAB_NL_ROUTE_ADD);
	assert_int_equal(ch.route.n_hops, 2);
	assert_int_equal(ch.route.hops[0].weight, 1);
	assert_int_equal(ch.route.hops[1].weight, 3);
	assert_int_equal(ch.route.protocol, RTPROT_BGP);
	assert_int_equal(ch.route.priority, 20);
	rt = route4(s, "40.1.0.0", 16);
	assert_non_null(rt);
	assert_int_equal(rt->source, XFAB_RSRC_KERNEL);
	assert_int_equal(rt->protocol, RTPROT_BGP);
	{
		/* the same route from another protocol (both mirrored): only its
		 * route entry is written again, to say so */
		struct xfab_route before = *rt;
		char err[64];

		assert_int_equal(xfab_nl_filter_protocols(&s->f, "bgp,ospf", err, sizeof(err)), 0);
		sh_reset_counts(&s->sh);
		route_msg(&m, RTM_NEWROUTE, AF_INET, 16, RTPROT_OSPF, RTN_UNICAST);
		put_addr(&m, RTA_DST, AF_INET, "40.1.0.0");
		mnl_attr_put_u32(m.nlh, RTA_PRIORITY, 20);
		multipath(&m, AF_INET, h, 2);
		feed(s, &m, 1, NULL);
		rt = route4(s, "40.1.0.0", 16);
		assert_int_equal(rt->protocol, RTPROT_OSPF);
		assert_int_equal(rt->type, before.type);
		assert_int_equal(rt->id, before.id);
		assert_int_equal(s->sh.writes, 1);
	}
	assert_int_equal(rt->type, XFAB_RT_GROUP);
	g = group(s, rt->id);
	assert_non_null(g);
	a = nh_id_of(s, "10.0.1.2", 10);
	b = nh_id_of(s, "10.0.2.2", 11);
	assert_true(a && b);
	/* weights 1:3 of the buckets */
	assert_int_equal(buckets_of(g, a), XFAB_GROUP_BUCKETS / 4);
	assert_int_equal(buckets_of(g, b), 3 * XFAB_GROUP_BUCKETS / 4);
	/* the FIB: every /24 of the /16 points at the group */
	assert_int_equal(fib4(s, "40.1.0.1"), XFAB_FIB4_ENTRY(XFAB_RT_GROUP, rt->id));
	assert_int_equal(fib4(s, "40.1.255.1"), XFAB_FIB4_ENTRY(XFAB_RT_GROUP, rt->id));
	assert_int_equal(fib4(s, "40.2.0.1"), 0);
}

static void test_rfc5549(void **state)
{
	struct sw *s = *state;
	struct xfab_nl_change ch;
	struct msg m;
	const struct hop h[] = {{"fe80::1", 10, 1, 1}, {"fe80::2", 11, 1, 1}};
	const struct xfab_route *rt;
	const struct xfab_nexthop *nh;
	char text[INET6_ADDRSTRLEN];
	__u32 id;

	/* one nexthop: RTA_VIA + RTA_OIF */
	{
		char via[sizeof(struct rtvia) + 16];
		struct rtvia *v = (struct rtvia *)via;

		route(&m, RTM_NEWROUTE, "40.2.0.0", 24);
		v->rtvia_family = AF_INET6;
		inet_pton(AF_INET6, "fe80::7", v->rtvia_addr);
		mnl_attr_put(m.nlh, RTA_VIA, sizeof(via), via);
		mnl_attr_put_u32(m.nlh, RTA_OIF, 12);
	}
	feed(s, &m, 1, &ch);
	assert_int_equal(ch.route.n_hops, 1);
	assert_int_equal(ch.route.hops[0].gw_family, AF_INET6);
	rt = route4(s, "40.2.0.0", 24);
	assert_non_null(rt);
	assert_int_equal(rt->type, XFAB_RT_NEXTHOP);
	nh = nexthop(s, rt->id);
	assert_non_null(nh);
	assert_true(nh->flags & XFAB_NH_IPV6);
	assert_int_equal(nh->ifindex, 12);
	gw_text(nh, text);
	assert_string_equal(text, "fe80::7");
	/* ECMP over two link-local gateways */
	route(&m, RTM_NEWROUTE, "40.3.0.0", 24);
	multipath(&m, AF_INET, h, 2);
	feed(s, &m, 1, &ch);
	assert_int_equal(ch.route.hops[1].gw_family, AF_INET6);
	rt = route4(s, "40.3.0.0", 24);
	assert_int_equal(rt->type, XFAB_RT_GROUP);
	id = nh_id_of(s, "fe80::2", 11);
	assert_true(id);
	assert_int_equal(buckets_of(group(s, rt->id), id), XFAB_GROUP_BUCKETS / 2);
}

static void test_ipv6_replace_as_del_new(void **state)
{
	struct sw *s = *state;
	struct msg m;
	const struct hop h[] = {{"fd00:1::2", 10, 1, 0}, {"fd00:2::2", 11, 1, 0}};
	const struct xfab_route *rt;

	route(&m, RTM_NEWROUTE, "fd40::", 64);
	multipath(&m, AF_INET6, h, 2);
	feed(s, &m, 1, NULL);
	rt = route6(s, "fd40::", 64);
	assert_non_null(rt);
	assert_int_equal(rt->type, XFAB_RT_GROUP);
	/* zebra's replace: DEL, then NEW with one nexthop left */
	route(&m, RTM_DELROUTE, "fd40::", 64);
	multipath(&m, AF_INET6, h, 2);
	feed(s, &m, 1, NULL);
	assert_null(route6(s, "fd40::", 64));
	route(&m, RTM_NEWROUTE, "fd40::", 64);
	multipath(&m, AF_INET6, h + 1, 1);
	feed(s, &m, 1, NULL);
	rt = route6(s, "fd40::", 64);
	assert_non_null(rt);
	assert_int_equal(rt->type, XFAB_RT_NEXTHOP);
	assert_int_equal(nexthop(s, rt->id)->ifindex, 11);
	/* a delete for another metric is not this route's */
	route_msg(&m, RTM_DELROUTE, AF_INET6, 64, RTPROT_BGP, RTN_UNICAST);
	put_addr(&m, RTA_DST, AF_INET6, "fd40::");
	mnl_attr_put_u32(m.nlh, RTA_PRIORITY, 1024);
	feed(s, &m, 1, NULL);
	assert_non_null(route6(s, "fd40::", 64));
}

static void test_skipped(void **state)
{
	struct sw *s = *state;
	struct xfab_nlsync_stats st;
	struct msg m;
	struct rtmsg *rtm;
	size_t rib_before = xfab_rib_count(s->rib);
	static const struct {
		const char *dst;
		int plen, rtn, proto, table, flags;
		const char *why;
	} cases[] = {
	    {"40.9.0.1", 32, RTN_LOCAL, RTPROT_BGP, 254, 0, "local"},
	    {"40.9.0.255", 32, RTN_BROADCAST, RTPROT_BGP, 254, 0, "broadcast"},
	    {"40.9.0.0", 24, RTN_MULTICAST, RTPROT_BGP, 254, 0, "multicast"},
	    {"fd40:9::", 64, RTN_ANYCAST, RTPROT_BGP, 254, 0, "anycast"},
	    {"40.9.0.0", 24, RTN_UNICAST, RTPROT_BGP, 255, 0, "table 255"},
	    {"40.9.0.0", 24, RTN_UNICAST, RTPROT_BGP, 100, 0, "table 100"},
	    {"40.9.0.0", 24, RTN_UNICAST, RTPROT_KERNEL, 254, 0, "kernel"},
	    {"40.9.0.0", 24, RTN_UNICAST, RTPROT_BGP, 254, RTM_F_CLONED, "cloned"},
	    {"169.254.1.0", 24, RTN_UNICAST, RTPROT_BGP, 254, 0, "link-local"},
	    {"224.1.0.0", 16, RTN_UNICAST, RTPROT_BGP, 254, 0, "multicast destination"},
	    {"127.0.0.0", 8, RTN_UNICAST, RTPROT_BGP, 254, 0, "loopback"},
	    {"fe80::", 64, RTN_UNICAST, RTPROT_BGP, 254, 0, "link-local"},
	    {"ff02::", 16, RTN_UNICAST, RTPROT_BGP, 254, 0, "multicast destination"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int family = strchr(cases[i].dst, ':') ? AF_INET6 : AF_INET;
		struct xfab_nl_change ch;

		rtm = route_msg(&m, RTM_NEWROUTE, family, cases[i].plen, cases[i].proto,
				cases[i].rtn);
		rtm->rtm_flags = (unsigned)cases[i].flags;
		rtm->rtm_table = (__u8)cases[i].table;
		/* RTA_TABLE names it too */
		((__u32 *)mnl_attr_get_payload(
		    mnl_nlmsg_get_payload_offset(m.nlh, sizeof(*rtm))))[0] = (__u32)cases[i].table;
		put_addr(&m, RTA_DST, family, cases[i].dst);
		put_addr(&m, RTA_GATEWAY, family, family == AF_INET ? "10.0.1.2" : "fd00:1::2");
		mnl_attr_put_u32(m.nlh, RTA_OIF, 10);
		feed(s, &m, 0, &ch);
		if (!strstr(ch.why, cases[i].why))
			fail_msg("case %zu: \"%s\" does not say %s", i, ch.why, cases[i].why);
	}
	/* all nexthops off the switch: held, counted, not in the RIB */
	route(&m, RTM_NEWROUTE, "40.9.0.0", 24);
	put_addr(&m, RTA_GATEWAY, AF_INET, "192.168.0.1");
	mnl_attr_put_u32(m.nlh, RTA_OIF, 99);
	feed(s, &m, 1, NULL);
	xfab_nlsync_stats(s->nl, &st);
	assert_int_equal(st.foreign, 1);
	assert_int_equal(st.hops_dropped, 1);
	assert_int_equal(xfab_rib_count(s->rib), rib_before);
	assert_int_equal(s->sh.writes, 0);
	/* one of two off the switch: the route keeps the other */
	{
		const struct hop h[] = {{"192.168.0.1", 99, 1, 0}, {"10.0.4.2", 13, 1, 0}};
		const struct xfab_route *rt;

		route(&m, RTM_NEWROUTE, "40.9.0.0", 24);
		multipath(&m, AF_INET, h, 2);
		feed(s, &m, 1, NULL);
		rt = route4(s, "40.9.0.0", 24);
		assert_non_null(rt);
		assert_int_equal(rt->type, XFAB_RT_NEXTHOP);
		assert_int_equal(nexthop(s, rt->id)->ifindex, 13);
		xfab_nlsync_stats(s->nl, &st);
		assert_int_equal(st.foreign, 0);
	}
}

/* Each malformed message is refused with a reason naming it, and nothing
 * changes (RIB, maps, the mirror's counts). */
static void test_malformed(void **state)
{
	struct sw *s = *state;
	struct xfab_nlsync_stats before, after;
	size_t rib_before = xfab_rib_count(s->rib);
	struct xfab_nl_change ch;
	struct msg m;
	struct nlattr *a;

	xfab_nlsync_stats(s->nl, &before);
	/* truncated rtmsg */
	route(&m, RTM_NEWROUTE, "40.5.0.0", 24);
	m.nlh->nlmsg_len = NLMSG_LENGTH(4);
	feed(s, &m, -EINVAL, &ch);
	assert_non_null(strstr(ch.why, "truncated rtmsg"));
	/* an attribute longer than what is left */
	route(&m, RTM_NEWROUTE, "40.5.0.0", 24);
	a = (struct nlattr *)mnl_nlmsg_get_payload_tail(m.nlh);
	mnl_attr_put_u32(m.nlh, RTA_OIF, 10);
	a->nla_len = 40;
	feed(s, &m, -EINVAL, &ch);
	assert_non_null(strstr(ch.why, "truncated attribute"));
	/* a message cut inside an attribute header */
	route(&m, RTM_NEWROUTE, "40.5.0.0", 24);
	mnl_attr_put_u32(m.nlh, RTA_OIF, 10);
	m.nlh->nlmsg_len -= 6;
	feed(s, &m, -EINVAL, &ch);
	assert_non_null(strstr(ch.why, "truncated attribute"));
	/* prefix lengths beyond the family */
	route_msg(&m, RTM_NEWROUTE, AF_INET, 33, RTPROT_BGP, RTN_UNICAST);
	put_addr(&m, RTA_DST, AF_INET, "40.5.0.0");
	feed(s, &m, -EINVAL, &ch);
	assert_non_null(strstr(ch.why, "prefix length 33"));
	route_msg(&m, RTM_NEWROUTE, AF_INET6, 129, RTPROT_BGP, RTN_UNICAST);
	put_addr(&m, RTA_DST, AF_INET6, "fd40::");
	feed(s, &m, -EINVAL, &ch);
	assert_non_null(strstr(ch.why, "prefix length 129"));
	/* RTA_DST of the wrong size */
	route_msg(&m, RTM_NEWROUTE, AF_INET6, 64, RTPROT_BGP, RTN_UNICAST);
	put_addr(&m, RTA_DST, AF_INET, "40.5.0.0");
	feed(s, &m, -EINVAL, &ch);
	assert_non_null(strstr(ch.why, "RTA_DST of 4 bytes"));
	/* host bits */
	route(&m, RTM_NEWROUTE, "40.5.0.1", 24);
	feed(s, &m, -EINVAL, &ch);
	assert_non_null(strstr(ch.why, "host bits"));
	/* a multipath entry claiming more than its attribute holds */
	{
		const struct hop h[] = {{"10.0.1.2", 10, 1, 0}, {"10.0.2.2", 11, 1, 0}};
		struct nlattr *mp;
		struct rtnexthop *nh2;

		route(&m, RTM_NEWROUTE, "40.5.0.0", 24);
		mp = (struct nlattr *)mnl_nlmsg_get_payload_tail(m.nlh);
		multipath(&m, AF_INET, h, 2);
		nh2 =
		    (struct rtnexthop *)((char *)mnl_attr_get_payload(mp) +
					 NLMSG_ALIGN(((struct rtnexthop *)mnl_attr_get_payload(mp))
							 ->rtnh_len));
		nh2->rtnh_len = 200;
		feed(s, &m, -EINVAL, &ch);
		assert_non_null(strstr(ch.why, "multipath entry 1 runs past"));
		/* an entry whose gateway runs past the entry */
		route(&m, RTM_NEWROUTE, "40.5.0.0", 24);
		mp = (struct nlattr *)mnl_nlmsg_get_payload_tail(m.nlh);
		multipath(&m, AF_INET, h, 1);
		((struct rtnexthop *)mnl_attr_get_payload(mp))->rtnh_len -= 2;
		feed(s, &m, -EINVAL, &ch);
		assert_non_null(strstr(ch.why, "multipath entry 0"));
	}
	/* RTA_VIA of an unknown family */
	{
		char via[sizeof(struct rtvia) + 4] = {0};

		route(&m, RTM_NEWROUTE, "40.5.0.0", 24);
		((struct rtvia *)via)->rtvia_family = 77;
		mnl_attr_put(m.nlh, RTA_VIA, sizeof(via), via);
		mnl_attr_put_u32(m.nlh, RTA_OIF, 10);
		feed(s, &m, -EINVAL, &ch);
		assert_non_null(strstr(ch.why, "RTA_VIA of family 77"));
	}
	/* a gateway without a device */
	route(&m, RTM_NEWROUTE, "40.5.0.0", 24);
	put_addr(&m, RTA_GATEWAY, AF_INET, "10.0.1.2");
	feed(s, &m, -EINVAL, &ch);
	assert_non_null(strstr(ch.why, "RTA_OIF"));
	/* unicast with no nexthop at all */
	route(&m, RTM_NEWROUTE, "40.5.0.0", 24);
	feed(s, &m, -EINVAL, &ch);
	assert_non_null(strstr(ch.why, "no nexthop"));
	/* nexthop objects: no id, a group weight beyond 65535, a member twice */
	nexthop_msg(&m, RTM_NEWNEXTHOP, 1, AF_INET);
	((struct nlattr *)mnl_nlmsg_get_payload_offset(m.nlh, sizeof(struct nhmsg)))->nla_type =
	    NHA_OIF;
	feed(s, &m, -EINVAL, &ch);
	assert_non_null(strstr(ch.why, "NHA_ID"));
	{
		struct nexthop_grp g[2] = {{.id = 1, .weight = 0xff, .weight_high = 0xff},
					   {.id = 2}};

		nexthop_msg(&m, RTM_NEWNEXTHOP, 50, AF_UNSPEC);
		mnl_attr_put(m.nlh, NHA_GROUP, sizeof(g), g);
		feed(s, &m, -EINVAL, &ch);
		assert_non_null(strstr(ch.why, "weight 65536"));
		g[0].weight = 0;
		g[0].weight_high = 0;
		g[1].id = 1;
		nexthop_msg(&m, RTM_NEWNEXTHOP, 50, AF_UNSPEC);
		mnl_attr_put(m.nlh, NHA_GROUP, sizeof(g), g);
		feed(s, &m, -EINVAL, &ch);
		assert_non_null(strstr(ch.why, "member 1 twice"));
		g[1].id = 0;
		nexthop_msg(&m, RTM_NEWNEXTHOP, 50, AF_UNSPEC);
		mnl_attr_put(m.nlh, NHA_GROUP, sizeof(g), g);
		feed(s, &m, -EINVAL, &ch);
		assert_non_null(strstr(ch.why, "id 0"));
		nexthop_msg(&m, RTM_NEWNEXTHOP, 50, AF_UNSPEC);
		mnl_attr_put(m.nlh, NHA_GROUP, 6, g);
		feed(s, &m, -EINVAL, &ch);
		assert_non_null(strstr(ch.why, "NHA_GROUP of 6 bytes"));
	}
	/* a nexthop gateway of the wrong size */
	nexthop_msg(&m, RTM_NEWNEXTHOP, 7, AF_INET6);
	mnl_attr_put_u32(m.nlh, NHA_OIF, 10);
	put_addr(&m, NHA_GATEWAY, AF_INET, "10.0.1.2");
	feed(s, &m, -EINVAL, &ch);
	assert_non_null(strstr(ch.why, "NHA_GATEWAY of 4 bytes"));
	/* nothing changed */
	xfab_nlsync_stats(s->nl, &after);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(xfab_rib_count(s->rib), rib_before);
	assert_int_equal(s->sh.writes, 0);
}

/* ---- nexthop objects ---- */

static void nh_single(struct sw *s, __u32 id, const char *gw, __u32 ifindex)
{
	int family = strchr(gw, ':') ? AF_INET6 : AF_INET;
	struct msg m;

	nexthop_msg(&m, RTM_NEWNEXTHOP, id, family);
	mnl_attr_put_u32(m.nlh, NHA_OIF, ifindex);
	put_addr(&m, NHA_GATEWAY, family, gw);
	feed(s, &m, 1, NULL);
}

static void nh_group(struct sw *s, __u32 id, const __u32 *ids, const int *weights, int n)
{
	struct nexthop_grp g[8];
	struct msg m;

	memset(g, 0, sizeof(g));
	for (int i = 0; i < n; i++) {
		g[i].id = ids[i];
		g[i].weight = (__u8)((weights ? weights[i] : 1) - 1);
		g[i].weight_high = (__u8)(((weights ? weights[i] : 1) - 1) >> 8);
	}
	nexthop_msg(&m, RTM_NEWNEXTHOP, id, AF_UNSPEC);
	mnl_attr_put(m.nlh, NHA_GROUP, (size_t)n * sizeof(g[0]), g);
	mnl_attr_put_u16(m.nlh, NHA_GROUP_TYPE, NEXTHOP_GRP_TYPE_MPATH);
	feed(s, &m, 1, NULL);
}

/* routes 50.0.i.0/24 (i < n) with RTA_NH_ID only */
static void nhid_routes(struct sw *s, __u32 nhid, int n)
{
	struct msg m;
	char dst[32];

	for (int i = 0; i < n; i++) {
		snprintf(dst, sizeof(dst), "50.0.%d.0", i);
		route(&m, RTM_NEWROUTE, dst, 24);
		mnl_attr_put_u32(m.nlh, RTA_NH_ID, nhid);
		feed(s, &m, 1, NULL);
	}
}

struct keys {
	int n;
	char text[64][48];
};

static void key_cb(void *arg, const struct xfab_rib_key *k)
{
	struct keys *ks = arg;

	inet_ntop(k->family, k->addr, ks->text[ks->n], 48);
	ks->n++;
}

static void test_group_change_rewrites_group_only(void **state)
{
	struct sw *s = *state;
	const __u32 ab[] = {1, 2}, bc[] = {2, 3};
	const int w13[] = {1, 3};
	const struct xfab_route *rt;
	const struct xfab_group *g;
	struct xfab_route first;
	struct keys ks = {0};
	__u32 a, b, c;
	int moved = 0;
	struct xfab_group before;

	nh_single(s, 1, "fe80::1", 10);
	nh_single(s, 2, "fe80::2", 11);
	nh_single(s, 3, "fe80::3", 12);
	nh_group(s, 100, ab, w13, 2);
	nhid_routes(s, 100, 20);
	rt = route4(s, "50.0.7.0", 24);
	assert_non_null(rt);
	assert_int_equal(rt->type, XFAB_RT_GROUP);
	first = *rt;
	g = group(s, rt->id);
	a = nh_id_of(s, "fe80::1", 10);
	b = nh_id_of(s, "fe80::2", 11);
	assert_int_equal(buckets_of(g, a), XFAB_GROUP_BUCKETS / 4);
	assert_int_equal(buckets_of(g, b), 3 * XFAB_GROUP_BUCKETS / 4);
	/* every route shares that one group */
	for (int i = 0; i < 20; i++) {
		char dst[32];

		snprintf(dst, sizeof(dst), "50.0.%d.0", i);
		assert_memory_equal(route4(s, dst, 24), &first, sizeof(first));
	}
	/* the routes using object 2: those of group 100 */
	assert_int_equal(xfab_nlsync_users(s->nl, 2, key_cb, &ks), 20);
	assert_string_equal(ks.text[0], "50.0.19.0");
	assert_int_equal(xfab_nlsync_users(s->nl, 3, NULL, NULL), 0);

	/* one more route through the group: its route entry and FIB only */
	sh_reset_counts(&s->sh);
	nhid_routes(s, 100, 21);
	assert_int_equal(s->sh.writes, 1);
	assert_int_equal(s->sh.updates[XFAB_T_ROUTES_V4], 1);
	assert_true(xfab_compile_last(s->c)->fib4_written > 0);
	assert_int_equal(fib4(s, "50.0.20.9"), XFAB_FIB4_ENTRY(XFAB_RT_GROUP, first.id));

	/* group 100 becomes {2, 3} with equal weights: its entry, the new
	 * nexthop, the old one removed; no route, no FIB entry */
	before = *g;
	sh_reset_counts(&s->sh);
	nh_group(s, 100, bc, NULL, 2);
	assert_int_equal(s->sh.updates[XFAB_T_GROUPS], 1);
	assert_int_equal(s->sh.updates[XFAB_T_NEXTHOPS], 1);
	assert_int_equal(s->sh.removes[XFAB_T_NEXTHOPS], 1);
	assert_int_equal(s->sh.writes, 3);
	assert_int_equal(xfab_compile_last(s->c)->fib4_written, 0);
	assert_memory_equal(route4(s, "50.0.7.0", 24), &first, sizeof(first));
	c = nh_id_of(s, "fe80::3", 12);
	assert_true(c);
	assert_int_equal(nh_id_of(s, "fe80::1", 10), 0);
	g = group(s, first.id);
	assert_int_equal(buckets_of(g, b), XFAB_GROUP_BUCKETS / 2);
	assert_int_equal(buckets_of(g, c), XFAB_GROUP_BUCKETS / 2);
	/* resilient: b kept its buckets up to its new share, and only a's
	 * buckets and b's excess moved */
	for (int k = 0; k < XFAB_GROUP_BUCKETS; k++) {
		if (g->buckets[k] == b)
			assert_int_equal(before.buckets[k], b);
		moved += g->buckets[k] != before.buckets[k];
	}
	assert_int_equal(moved, XFAB_GROUP_BUCKETS / 4 + XFAB_GROUP_BUCKETS / 4);

	/* a link down removes object 3 (eth3): the group keeps member 2 only,
	 * still one group write, routes untouched */
	sh_reset_counts(&s->sh);
	assert_int_equal(xfab_nlsync_link_down(s->nl, 12, NULL, NULL), 0);
	assert_int_equal(xfab_compile_routes(s->c), 0);
	assert_int_equal(s->sh.updates[XFAB_T_GROUPS], 1);
	assert_int_equal(s->sh.updates[XFAB_T_ROUTES_V4], 0);
	assert_int_equal(s->sh.removes[XFAB_T_ROUTES_V4], 0);
	g = group(s, first.id);
	assert_int_equal(g->num_members, 1);
	assert_int_equal(buckets_of(g, b), XFAB_GROUP_BUCKETS);

	/* deleting object 2 empties the group: the kernel drops it and its
	 * routes, and so does the mirror */
	{
		struct msg m;

		nexthop_msg(&m, RTM_DELNEXTHOP, 2, AF_INET6);
		feed(s, &m, 1, NULL);
	}
	assert_null(route4(s, "50.0.7.0", 24));
	assert_null(group(s, first.id));
	assert_int_equal(fib4(s, "50.0.7.1"), 0);
	assert_int_equal(s->sh.t[XFAB_T_NEXTHOPS].n, 1); /* the config route's */
}

static void test_route_before_object(void **state)
{
	struct sw *s = *state;
	struct xfab_nlsync_stats st;
	const struct xfab_route *rt;
	struct msg m;

	/* a route naming an unknown object: held, not programmed */
	nhid_routes(s, 5, 1);
	xfab_nlsync_stats(s->nl, &st);
	assert_int_equal(st.unresolved, 1);
	assert_null(route4(s, "50.0.0.0", 24));
	/* the object arrives: the route resolves */
	nh_single(s, 5, "10.0.2.2", 11);
	rt = route4(s, "50.0.0.0", 24);
	assert_non_null(rt);
	assert_int_equal(rt->type, XFAB_RT_NEXTHOP);
	assert_int_equal(nexthop(s, rt->id)->ifindex, 11);
	xfab_nlsync_stats(s->nl, &st);
	assert_int_equal(st.unresolved, 0);
	assert_int_equal(st.nexthops, 1);
	/* compat mode: RTA_NH_ID of an unknown object with the expanded
	 * nexthop; the expanded one serves until the object is known */
	route(&m, RTM_NEWROUTE, "50.1.0.0", 24);
	mnl_attr_put_u32(m.nlh, RTA_NH_ID, 6);
	put_addr(&m, RTA_GATEWAY, AF_INET, "10.0.4.2");
	mnl_attr_put_u32(m.nlh, RTA_OIF, 13);
	feed(s, &m, 1, NULL);
	rt = route4(s, "50.1.0.0", 24);
	assert_non_null(rt);
	assert_int_equal(nexthop(s, rt->id)->ifindex, 13);
	nh_single(s, 6, "10.0.1.2", 10);
	rt = route4(s, "50.1.0.0", 24);
	assert_int_equal(nexthop(s, rt->id)->ifindex, 10);
	/* an unknown object deleted: the routes naming it go (the kernel has
	 * none through it) */
	route(&m, RTM_NEWROUTE, "50.2.0.0", 24);
	mnl_attr_put_u32(m.nlh, RTA_NH_ID, 8);
	feed(s, &m, 1, NULL);
	xfab_nlsync_stats(s->nl, &st);
	assert_int_equal(st.routes, 3);
	assert_int_equal(st.unresolved, 1);
	nexthop_msg(&m, RTM_DELNEXTHOP, 8, AF_INET);
	feed(s, &m, 1, NULL);
	xfab_nlsync_stats(s->nl, &st);
	assert_int_equal(st.routes, 2);
	assert_int_equal(st.unresolved, 0);
	/* a blackhole object */
	{
		nexthop_msg(&m, RTM_NEWNEXTHOP, 6, AF_INET);
		mnl_attr_put(m.nlh, NHA_BLACKHOLE, 0, NULL);
		feed(s, &m, 1, NULL);
		rt = route4(s, "50.1.0.0", 24);
		assert_int_equal(rt->type, XFAB_RT_BLACKHOLE);
	}
}

/* A group with no member on a switch port holds its routes back (counted
 * as foreign) until a replace gives it one. */
static void test_group_off_switch(void **state)
{
	struct sw *s = *state;
	const __u32 off[] = {1, 2}, mixed[] = {1, 3};
	struct xfab_nlsync_stats st;
	const struct xfab_route *rt;

	nh_single(s, 1, "192.168.0.1", 90);
	nh_single(s, 2, "192.168.0.2", 91);
	nh_single(s, 3, "10.0.4.2", 13);
	nh_group(s, 200, off, NULL, 2);
	nhid_routes(s, 200, 3);
	xfab_nlsync_stats(s->nl, &st);
	assert_int_equal(st.foreign, 3);
	assert_null(route4(s, "50.0.1.0", 24));
	assert_int_equal(s->sh.updates[XFAB_T_ROUTES_V4], 0);
	/* one member on eth4: the routes come, through a group of one */
	nh_group(s, 200, mixed, NULL, 2);
	xfab_nlsync_stats(s->nl, &st);
	assert_int_equal(st.foreign, 0);
	rt = route4(s, "50.0.1.0", 24);
	assert_non_null(rt);
	assert_int_equal(rt->type, XFAB_RT_GROUP);
	assert_int_equal(group(s, rt->id)->num_members, 1);
	assert_int_equal(buckets_of(group(s, rt->id), nh_id_of(s, "10.0.4.2", 13)),
			 XFAB_GROUP_BUCKETS);
	/* and go when it is off the switch again */
	nh_group(s, 200, off, NULL, 2);
	assert_null(route4(s, "50.0.1.0", 24));
	assert_int_equal(s->sh.t[XFAB_T_GROUPS].n, 0);
	xfab_nlsync_stats(s->nl, &st);
	assert_int_equal(st.foreign, 3);
	assert_int_equal(st.routes, 3);
}

/* A dead multipath entry is left out; two group members with the same
 * device and gateway are one member of both weights; deleting a member
 * in the middle of a group leaves the others. */
static void test_dead_duplicate_and_middle_members(void **state)
{
	struct sw *s = *state;
	const struct hop h[] = {{"10.0.1.2", 10, 1, 0, 0},
				{"10.0.2.2", 11, 1, 0, RTNH_F_DEAD | RTNH_F_LINKDOWN},
				{"10.0.3.2", 12, 1, 0, 0}};
	const __u32 dup[] = {1, 2, 3}, mid[] = {4, 5, 6};
	const struct xfab_route *rt;
	const struct xfab_group *g;
	struct xfab_nl_change ch;
	struct msg m;
	__u32 a, c;

	route(&m, RTM_NEWROUTE, "40.2.0.0", 16);
	multipath(&m, AF_INET, h, 3);
	feed(s, &m, 1, &ch);
	assert_int_equal(ch.route.n_hops, 2);
	assert_int_equal(ch.route.dead_hops, 1);
	assert_int_equal(ch.route.hops[1].ifindex, 12);
	rt = route4(s, "40.2.0.0", 16);
	assert_non_null(rt);
	g = group(s, rt->id);
	assert_int_equal(g->num_members, 2);
	assert_int_equal(nh_id_of(s, "10.0.2.2", 11), 0);
	assert_int_equal(buckets_of(g, nh_id_of(s, "10.0.1.2", 10)), XFAB_GROUP_BUCKETS / 2);

	/* objects 1 and 2 both reach fe80::1 on eth1: one member of weight 2,
	 * as much as object 3 of weight 2 */
	nh_single(s, 1, "fe80::1", 10);
	nh_single(s, 2, "fe80::1", 10);
	nh_single(s, 3, "fe80::3", 12);
	{
		const int w[] = {1, 1, 2};

		nh_group(s, 300, dup, w, 3);
	}
	nhid_routes(s, 300, 1);
	rt = route4(s, "50.0.0.0", 24);
	assert_non_null(rt);
	g = group(s, rt->id);
	assert_int_equal(g->num_members, 2);
	a = nh_id_of(s, "fe80::1", 10);
	c = nh_id_of(s, "fe80::3", 12);
	assert_int_equal(buckets_of(g, a), XFAB_GROUP_BUCKETS / 2);
	assert_int_equal(buckets_of(g, c), XFAB_GROUP_BUCKETS / 2);

	/* group 400 = {4, 5, 6}; object 4 (the first) deleted: 5 and 6 stay */
	nh_single(s, 4, "10.0.1.9", 10);
	nh_single(s, 5, "10.0.2.9", 11);
	nh_single(s, 6, "10.0.4.9", 13);
	nh_group(s, 400, mid, NULL, 3);
	route(&m, RTM_NEWROUTE, "60.0.0.0", 24);
	mnl_attr_put_u32(m.nlh, RTA_NH_ID, 400);
	feed(s, &m, 1, NULL);
	nexthop_msg(&m, RTM_DELNEXTHOP, 4, AF_INET);
	feed(s, &m, 1, NULL);
	rt = route4(s, "60.0.0.0", 24);
	assert_non_null(rt);
	g = group(s, rt->id);
	assert_int_equal(g->num_members, 2);
	assert_int_equal(nh_id_of(s, "10.0.1.9", 10), 0);
	assert_int_equal(buckets_of(g, nh_id_of(s, "10.0.2.9", 11)), XFAB_GROUP_BUCKETS / 2);
	assert_int_equal(buckets_of(g, nh_id_of(s, "10.0.4.9", 13)), XFAB_GROUP_BUCKETS / 2);
}

/* ---- resync after lost events ---- */

/* Mark, a fresh dump, sweep: what the dump repeats writes nothing, what it
 * changed is rewritten, what it no longer names goes. */
static void test_resync_mark_sweep(void **state)
{
	struct sw *s = *state;
	const __u32 ab[] = {1, 2};
	const struct hop two[] = {{"10.0.1.2", 10, 1, 0, 0}, {"10.0.2.2", 11, 1, 0, 0}};
	const struct hop one[] = {{"10.0.2.2", 11, 1, 0, 0}};
	struct xfab_nlsync_stats st;
	const struct xfab_route *rt;
	struct xfab_route g50;
	struct msg m;

	nh_single(s, 1, "fe80::1", 10);
	nh_single(s, 2, "fe80::2", 11);
	nh_single(s, 3, "fe80::3", 12); /* used by nothing */
	nh_group(s, 100, ab, NULL, 2);
	nhid_routes(s, 100, 5);
	route(&m, RTM_NEWROUTE, "40.3.0.0", 16);
	multipath(&m, AF_INET, two, 2);
	feed(s, &m, 1, NULL);
	g50 = *route4(s, "50.0.0.0", 24);

	/* the dump after an overrun: object 3 and routes 50.0.3/24 and
	 * 50.0.4/24 are gone, 40.3/16 lost a nexthop */
	sh_reset_counts(&s->sh);
	xfab_nlsync_mark(s->nl);
	nh_single(s, 1, "fe80::1", 10);
	nh_single(s, 2, "fe80::2", 11);
	nh_group(s, 100, ab, NULL, 2);
	nhid_routes(s, 100, 3);
	assert_int_equal(s->sh.writes, 0); /* no flap of what stayed */
	route(&m, RTM_NEWROUTE, "40.3.0.0", 16);
	multipath(&m, AF_INET, one, 1);
	feed(s, &m, 1, NULL);
	assert_int_equal(s->sh.removes[XFAB_T_ROUTES_V4], 0);
	rt = route4(s, "40.3.0.0", 16);
	assert_int_equal(rt->type, XFAB_RT_NEXTHOP);
	assert_int_equal(nexthop(s, rt->id)->ifindex, 11);
	assert_non_null(route4(s, "50.0.4.0", 24)); /* until the sweep */

	sh_reset_counts(&s->sh);
	assert_int_equal(xfab_nlsync_sweep(s->nl), 0);
	assert_int_equal(xfab_compile_routes(s->c), 0);
	assert_int_equal(s->sh.removes[XFAB_T_ROUTES_V4], 2);
	assert_int_equal(s->sh.updates[XFAB_T_ROUTES_V4], 0);
	assert_int_equal(s->sh.updates[XFAB_T_GROUPS], 0);
	assert_null(route4(s, "50.0.3.0", 24));
	assert_null(route4(s, "50.0.4.0", 24));
	assert_int_equal(fib4(s, "50.0.4.1"), 0);
	assert_memory_equal(route4(s, "50.0.2.0", 24), &g50, sizeof(g50));
	assert_int_equal(fib4(s, "50.0.2.1"), XFAB_FIB4_ENTRY(XFAB_RT_GROUP, g50.id));
	xfab_nlsync_stats(s->nl, &st);
	assert_int_equal(st.resyncs, 1);
	assert_int_equal(st.swept_routes, 2);
	assert_int_equal(st.swept_nexthops, 1);
	assert_int_equal(st.routes, 4);
	assert_int_equal(st.nexthops, 3);

	/* a second resync that repeats everything sweeps nothing */
	xfab_nlsync_mark(s->nl);
	nh_single(s, 1, "fe80::1", 10);
	nh_single(s, 2, "fe80::2", 11);
	nh_group(s, 100, ab, NULL, 2);
	nhid_routes(s, 100, 3);
	feed(s, &m, 1, NULL);
	sh_reset_counts(&s->sh);
	assert_int_equal(xfab_nlsync_sweep(s->nl), 0);
	assert_int_equal(xfab_compile_routes(s->c), 0);
	assert_int_equal(s->sh.writes, 0);
	xfab_nlsync_stats(s->nl, &st);
	assert_int_equal(st.swept_routes, 2);
	assert_int_equal(st.routes, 4);
}

/* ---- link down, precedence ---- */

static void test_link_down_expanded(void **state)
{
	struct sw *s = *state;
	const struct hop h2[] = {{"10.0.1.2", 10, 1, 0}, {"10.0.2.2", 11, 1, 0}};
	const struct hop h1[] = {{"10.0.2.2", 11, 1, 0}};
	struct xfab_nlsync_stats st;
	const struct xfab_route *rt;
	struct msg m;

	route(&m, RTM_NEWROUTE, "60.0.0.0", 24);
	multipath(&m, AF_INET, h2, 2);
	feed(s, &m, 1, NULL);
	route(&m, RTM_NEWROUTE, "60.0.1.0", 24);
	multipath(&m, AF_INET, h1, 1);
	feed(s, &m, 1, NULL);
	route(&m, RTM_NEWROUTE, "fd60::", 64);
	put_addr(&m, RTA_GATEWAY, AF_INET6, "fe80::9");
	mnl_attr_put_u32(m.nlh, RTA_OIF, 11);
	feed(s, &m, 1, NULL);
	/* eth2 goes down: the kernel says nothing */
	assert_int_equal(xfab_nlsync_link_down(s->nl, 11, NULL, NULL), 0);
	assert_int_equal(xfab_compile_routes(s->c), 0);
	rt = route4(s, "60.0.0.0", 24);
	assert_non_null(rt);
	assert_int_equal(rt->type, XFAB_RT_NEXTHOP);
	assert_int_equal(nexthop(s, rt->id)->ifindex, 10);
	assert_null(route4(s, "60.0.1.0", 24));
	assert_null(route6(s, "fd60::", 64));
	assert_int_equal(nh_id_of(s, "10.0.2.2", 11), 0);
	xfab_nlsync_stats(s->nl, &st);
	assert_int_equal(st.link_withdrawn, 3);
	assert_int_equal(st.routes, 1);
	/* BGP's later replace with the one nexthop left writes nothing */
	sh_reset_counts(&s->sh);
	route(&m, RTM_NEWROUTE, "60.0.0.0", 24);
	multipath(&m, AF_INET, h2, 1);
	feed(s, &m, 1, NULL);
	assert_int_equal(s->sh.writes, 0);
}

static void test_precedence(void **state)
{
	struct sw *s = *state;
	const struct xfab_route *rt;
	const struct xfab_route *cfg;
	struct xfab_route was;
	struct msg m;

	/* 30.0.0.0/24 is in the config via 10.0.3.2 */
	cfg = route4(s, "30.0.0.0", 24);
	assert_non_null(cfg);
	assert_int_equal(cfg->source, XFAB_RSRC_STATIC);
	assert_int_equal(cfg->protocol, 0);
	was = *cfg;
	route(&m, RTM_NEWROUTE, "30.0.0.0", 24);
	put_addr(&m, RTA_GATEWAY, AF_INET, "10.0.1.2");
	mnl_attr_put_u32(m.nlh, RTA_OIF, 10);
	feed(s, &m, 1, NULL);
	assert_memory_equal(route4(s, "30.0.0.0", 24), &was, sizeof(was));
	/* a learnt route for a connected subnet does not hide it */
	route(&m, RTM_NEWROUTE, "10.0.2.0", 24);
	put_addr(&m, RTA_GATEWAY, AF_INET, "10.0.1.2");
	mnl_attr_put_u32(m.nlh, RTA_OIF, 10);
	feed(s, &m, 1, NULL);
	rt = route4(s, "10.0.2.0", 24);
	assert_int_equal(rt->type, XFAB_RT_CONNECTED);
	assert_int_equal(rt->id, 11);
	assert_int_equal(rt->source, XFAB_RSRC_CONNECTED);
	assert_int_equal(route4(s, "10.0.2.1", 32)->type, XFAB_RT_LOCAL);
	assert_int_equal(route4(s, "10.0.2.1", 32)->source, XFAB_RSRC_CONNECTED);
	/* the config drops its route: the learnt one takes over */
	{
		struct xfab_config cfg2;
		struct xfab_cfg_errors errs;
		char *text = strdup(CONFIG);
		char *r = strstr(text, " \"ROUTE\"");

		strcpy(r, " \"ROUTE\": {}}\n");
		assert_int_equal(xfab_config_parse("sw.json", text, &cfg2, &errs), 0);
		free(text);
		assert_int_equal(xfab_rib_load_config(s->rib, &cfg2), 0);
		assert_int_equal(xfab_compile_config(s->c, &cfg2, s->live), 0);
		xfab_config_free(&s->cfg);
		s->cfg = cfg2;
	}
	rt = route4(s, "30.0.0.0", 24);
	assert_non_null(rt);
	assert_int_equal(rt->type, XFAB_RT_NEXTHOP);
	assert_int_equal(nexthop(s, rt->id)->ifindex, 10);
	assert_int_equal(rt->source, XFAB_RSRC_KERNEL); /* and it says so */
	assert_int_equal(rt->protocol, RTPROT_BGP);
	/* a blackhole route */
	route_msg(&m, RTM_NEWROUTE, AF_INET, 24, RTPROT_BGP, RTN_BLACKHOLE);
	put_addr(&m, RTA_DST, AF_INET, "60.9.0.0");
	feed(s, &m, 1, NULL);
	assert_int_equal(route4(s, "60.9.0.0", 24)->type, XFAB_RT_BLACKHOLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_protocols),
	    cmocka_unit_test_setup_teardown(test_multipath_weights, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rfc5549, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ipv6_replace_as_del_new, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_skipped, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_group_change_rewrites_group_only, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_route_before_object, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_group_off_switch, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dead_duplicate_and_middle_members, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_resync_mark_sweep, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_link_down_expanded, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_precedence, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
