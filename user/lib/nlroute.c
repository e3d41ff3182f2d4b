// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rtnetlink route and nexthop messages decoded (nlroute.h); the mirror
 * they feed is nlsync.c. */
#include "nlroute.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- protocols and filters ---- */

/* iproute2's rt_protos */
static const struct {
	__u8 num;
	const char *name;
} protos[] = {
    {0, "unspec"},	{1, "redirect"}, {2, "kernel"},	 {3, "boot"},	{4, "static"},
    {8, "gated"},	{9, "ra"},	 {10, "mrt"},	 {11, "zebra"}, {12, "bird"},
    {13, "dnrouted"},	{14, "xorp"},	 {15, "ntk"},	 {16, "dhcp"},	{17, "mrouted"},
    {18, "keepalived"}, {42, "babel"},	 {99, "openr"},	 {186, "bgp"},	{187, "isis"},
    {188, "ospf"},	{189, "rip"},	 {192, "eigrp"},
};

const char *xfab_nl_protocol_name(__u8 protocol, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (protos[i].num == protocol) {
			snprintf(buf, len, "%s", protos[i].name);
			return buf;
		}
	snprintf(buf, len, "%u", protocol);
	return buf;
}

void xfab_nl_filter_default(struct xfab_nl_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->table = RT_TABLE_MAIN;
	f->protocol[RTPROT_BGP / 8] |= 1u << (RTPROT_BGP % 8);
}

int xfab_nl_filter_protocols(struct xfab_nl_filter *f, const char *protocols, char *err,
			     size_t errlen)
{
	__u8 set[32] = {0};
	const char *p = protocols;
	int any = 0;

	while (*p) {
		size_t len = strcspn(p, ",");
		char word[32], *end;
		long num = -1;

		if (len == 0 || len >= sizeof(word)) {
			snprintf(err, errlen, "protocols: empty or too long name at offset %zu",
				 (size_t)(p - protocols));
			return -EINVAL;
		}
		memcpy(word, p, len);
		word[len] = 0;
		for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
			if (!strcasecmp(word, protos[i].name))
				num = protos[i].num;
		if (num < 0) {
			num = strtol(word, &end, 10);
			if (*end || end == word || num < 0 || num > 255) {
				snprintf(err, errlen,
					 "protocols: unknown protocol \"%s\" (a name of rt_protos "
					 "or 0..255)",
					 word);
				return -EINVAL;
			}
		}
		set[num / 8] |= (__u8)(1u << (num % 8));
		any = 1;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!any) {
		snprintf(err, errlen, "protocols: none given");
		return -EINVAL;
	}
	memcpy(f->protocol, set, sizeof(set));
	return 0;
}

/* ---- decoding ---- */

static int why(struct xfab_nl_change *out, int ret, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int why(struct xfab_nl_change *out, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->why, sizeof(out->why), fmt, ap);
	va_end(ap);
	out->kind = XFAB_NL_SKIP; /* skipped or refused: nothing to apply */
	return ret;
}

static int alen_of(int family)
{
	return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

/* Walks the attributes in [start, end) into tb (by type, the last of a
 * type wins). 0, or -1 if one runs past end (its offset in *bad). */
static int attrs(const void *start, const void *end, const struct nlattr **tb, int max, size_t *bad)
{
	const struct nlattr *a = start;
	size_t left = (size_t)((const char *)end - (const char *)start);

	while (left >= sizeof(struct nlattr)) {
		if (a->nla_len < sizeof(struct nlattr) || a->nla_len > left) {
			*bad = (size_t)((const char *)a - (const char *)start);
			return -1;
		}
		if (mnl_attr_get_type(a) <= max)
			tb[mnl_attr_get_type(a)] = a;
		if ((size_t)MNL_ALIGN(a->nla_len) >= left)
			return 0;
		left -= MNL_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + MNL_ALIGN(a->nla_len));
	}
	if (left) {
		*bad = (size_t)((const char *)a - (const char *)start);
		return -1;
	}
	return 0;
}

static int u32_attr(const struct nlattr *a, __u32 *v)
{
	if (mnl_attr_get_payload_len(a) != 4)
		return -1;
	memcpy(v, mnl_attr_get_payload(a), 4);
	return 0;
}

/* A gateway: RTA_GATEWAY of the route's family, or RTA_VIA (struct rtvia:
 * family then address; RFC 5549 gives an IPv6 one to an IPv4 route). */
static int hop_gw(struct xfab_nl_change *out, int family, const struct nlattr *gw,
		  const struct nlattr *via, struct xfab_nl_hop *h, int idx)
{
	if (gw) {
		int alen = alen_of(family);

		if (mnl_attr_get_payload_len(gw) != (unsigned)alen)
			return why(out, -EINVAL, "nexthop %d: RTA_GATEWAY of %u bytes, %d expected",
				   idx, mnl_attr_get_payload_len(gw), alen);
		h->gw_family = (__u8)family;
		memcpy(h->gw, mnl_attr_get_payload(gw), (size_t)alen);
	}
	if (via) {
		const struct rtvia *v = mnl_attr_get_payload(via);
		int alen;

		if (mnl_attr_get_payload_len(via) < sizeof(struct rtvia))
			return why(out, -EINVAL, "nexthop %d: RTA_VIA of %u bytes", idx,
				   mnl_attr_get_payload_len(via));
		alen = alen_of(v->rtvia_family);
		if (!alen)
			return why(out, -EINVAL, "nexthop %d: RTA_VIA of family %u", idx,
				   v->rtvia_family);
		if (mnl_attr_get_payload_len(via) != sizeof(struct rtvia) + (unsigned)alen)
			return why(out, -EINVAL, "nexthop %d: RTA_VIA of %u bytes for family %u",
				   idx, mnl_attr_get_payload_len(via), v->rtvia_family);
		h->gw_family = (__u8)v->rtvia_family;
		memcpy(h->gw, v->rtvia_addr, (size_t)alen);
	}
	return 0;
}

static int add_hop(struct xfab_nl_route *r, const struct xfab_nl_hop *h)
{
	if (h->flags & RTNH_F_DEAD) {
		r->dead_hops++;
		return 0;
	}
	if (r->n_hops >= XFAB_NL_MAX_HOPS)
		return -1;
	r->hops[r->n_hops++] = *h;
	return 0;
}

static int decode_multipath(struct xfab_nl_change *out, const struct nlattr *mp)
{
	struct xfab_nl_route *r = &out->route;
	const char *p = mnl_attr_get_payload(mp);
	size_t left = mnl_attr_get_payload_len(mp);
	int idx = 0;

	if (!left)
		return why(out, -EINVAL, "RTA_MULTIPATH is empty");
	while (left) {
		const struct rtnexthop *nh = (const void *)p;
		const struct nlattr *tb[RTA_MAX + 1] = {0};
		struct xfab_nl_hop h = {0};
		size_t bad;
		int err;

		if (left < sizeof(*nh) || nh->rtnh_len < sizeof(*nh) || nh->rtnh_len > left)
			return why(out, -EINVAL,
				   "multipath entry %d runs past RTA_MULTIPATH (%zu bytes left, "
				   "length %u)",
				   idx, left, left >= sizeof(*nh) ? nh->rtnh_len : 0);
		if (attrs(p + sizeof(*nh), p + nh->rtnh_len, tb, RTA_MAX, &bad))
			return why(out, -EINVAL,
				   "multipath entry %d: truncated attribute at offset %zu", idx,
				   bad);
		if (nh->rtnh_ifindex <= 0)
			return why(out, -EINVAL, "multipath entry %d: ifindex %d", idx,
				   nh->rtnh_ifindex);
		h.ifindex = (__u32)nh->rtnh_ifindex;
		h.flags = nh->rtnh_flags;
		h.weight = (__u16)(nh->rtnh_hops + 1);
		err = hop_gw(out, r->family, tb[RTA_GATEWAY], tb[RTA_VIA], &h, idx);
		if (err)
			return err;
		if (add_hop(r, &h))
			return why(out, -EINVAL, "more than %d nexthops", XFAB_NL_MAX_HOPS);
		idx++;
		if (NLMSG_ALIGN(nh->rtnh_len) >= left)
			break;
		left -= NLMSG_ALIGN(nh->rtnh_len);
		p += NLMSG_ALIGN(nh->rtnh_len);
	}
	return 0;
}

static const char *rtn_name(int type)
{
	switch (type) {
	case RTN_LOCAL:
		return "local";
	case RTN_BROADCAST:
		return "broadcast";
	case RTN_ANYCAST:
		return "anycast";
	case RTN_MULTICAST:
		return "multicast";
	case RTN_THROW:
		return "throw";
	case RTN_NAT:
		return "nat";
	case RTN_XRESOLVE:
		return "xresolve";
	default:
		return "unknown type";
	}
}

/* A destination a switch does not route: link-local, loopback, multicast. */
static const char *special_dst(int family, const __u8 *a, int plen)
{
	if (family == AF_INET) {
		if (plen >= 4 && (a[0] & 0xf0) == 0xe0)
			return "multicast";
		if (plen >= 16 && a[0] == 169 && a[1] == 254)
			return "link-local";
		if (plen >= 8 && a[0] == 127)
			return "loopback";
		return NULL;
	}
	if (plen >= 8 && a[0] == 0xff)
		return "multicast";
	if (plen >= 10 && a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return "link-local";
	if (plen == 128) {
		static const __u8 lo[16] = {[15] = 1};

		if (!memcmp(a, lo, 16))
			return "loopback";
	}
	return NULL;
}

/*
 * decode_route's steps return 1 when the route goes on to the next step,
 * otherwise what decode_route returns: 0 for a route it skips (out->why
 * says why), -EINVAL for a malformed message.
 */

/* The rtmsg and its attributes into tb; the route's key (family, prefix,
 * table), priority and nexthop id into out->route. */
static int route_key(const struct nlmsghdr *nlh, const struct nlattr **tb,
		     struct xfab_nl_change *out)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct xfab_nl_route *r = &out->route;
	int alen;
	size_t bad;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)))
		return why(out, -EINVAL, "route message of %u bytes: truncated rtmsg",
			   nlh->nlmsg_len);
	alen = alen_of(rtm->rtm_family);
	if (!alen)
		return why(out, 0, "route of family %u", rtm->rtm_family);
	if (rtm->rtm_dst_len > alen * 8)
		return why(out, -EINVAL, "prefix length %u beyond %s's %d", rtm->rtm_dst_len,
			   alen == 4 ? "IPv4" : "IPv6", alen * 8);
	if (attrs((const char *)rtm + NLMSG_ALIGN(sizeof(*rtm)), (const char *)nlh + nlh->nlmsg_len,
		  tb, RTA_MAX, &bad))
		return why(out, -EINVAL, "truncated attribute at offset %zu",
			   NLMSG_ALIGN(sizeof(*rtm)) + bad);
	r->family = rtm->rtm_family;
	r->plen = rtm->rtm_dst_len;
	r->protocol = rtm->rtm_protocol;
	r->table = rtm->rtm_table;
	if (tb[RTA_TABLE] && u32_attr(tb[RTA_TABLE], &r->table))
		return why(out, -EINVAL, "RTA_TABLE of %u bytes",
			   mnl_attr_get_payload_len(tb[RTA_TABLE]));
	if (tb[RTA_PRIORITY] && u32_attr(tb[RTA_PRIORITY], &r->priority))
		return why(out, -EINVAL, "RTA_PRIORITY of %u bytes",
			   mnl_attr_get_payload_len(tb[RTA_PRIORITY]));
	if (tb[RTA_NH_ID] && (u32_attr(tb[RTA_NH_ID], &r->nh_id) || !r->nh_id))
		return why(out, -EINVAL, "RTA_NH_ID of %u bytes or 0",
			   mnl_attr_get_payload_len(tb[RTA_NH_ID]));
	if (tb[RTA_DST]) {
		if (mnl_attr_get_payload_len(tb[RTA_DST]) != (unsigned)alen)
			return why(out, -EINVAL, "RTA_DST of %u bytes, %d expected",
				   mnl_attr_get_payload_len(tb[RTA_DST]), alen);
		memcpy(r->dst, mnl_attr_get_payload(tb[RTA_DST]), (size_t)alen);
	} else if (r->plen) {
		return why(out, -EINVAL, "/%u without RTA_DST", r->plen);
	}
	for (int i = 0; i < alen; i++) {
		int bits = r->plen - i * 8;
		__u8 mask = bits >= 8 ? 0xff : bits <= 0 ? 0 : (__u8)(0xff << (8 - bits));

		if (r->dst[i] & ~mask)
			return why(out, -EINVAL, "host bits set beyond /%u", r->plen);
	}
	return 1;
}

/* What a switch does not program: another table or protocol than f's,
 * cloned, source-specific and TOS routes, types other than unicast and
 * the blackholes (which set r->blackhole), special destinations. */
static int route_wanted(const struct rtmsg *rtm, const struct xfab_nl_filter *f,
			struct xfab_nl_change *out)
{
	struct xfab_nl_route *r = &out->route;
	char pname[16];

	if (r->table == RT_TABLE_LOCAL)
		return why(out, 0, "table 255 (local)");
	if (r->table != f->table)
		return why(out, 0, "table %u, not %u", r->table, f->table);
	if (!(f->protocol[r->protocol / 8] & (1u << (r->protocol % 8))))
		return why(out, 0, "protocol %s not mirrored",
			   xfab_nl_protocol_name(r->protocol, pname, sizeof(pname)));
	if (rtm->rtm_flags & RTM_F_CLONED)
		return why(out, 0, "cloned route");
	if (rtm->rtm_src_len)
		return why(out, 0, "source-specific route (from /%u)", rtm->rtm_src_len);
	if (rtm->rtm_tos)
		return why(out, 0, "TOS route (tos %u)", rtm->rtm_tos);
	switch (rtm->rtm_type) {
	case RTN_UNICAST:
		break;
	case RTN_BLACKHOLE:
	case RTN_UNREACHABLE:
	case RTN_PROHIBIT:
		r->blackhole = 1;
		break;
	default:
		return why(out, 0, "%s route", rtn_name(rtm->rtm_type));
	}
	{
		const char *s = special_dst(r->family, r->dst, r->plen);

		if (s)
			return why(out, 0, "%s destination", s);
	}
	return 1;
}

/* A unicast route's nexthops: RTA_MULTIPATH's, or the one of RTA_OIF and
 * RTA_GATEWAY/RTA_VIA, or none when it names a nexthop object (or is a
 * removal). */
static int route_hops(const struct rtmsg *rtm, const struct nlattr **tb, struct xfab_nl_change *out)
{
	struct xfab_nl_route *r = &out->route;
	int err;

	if (tb[RTA_MULTIPATH]) {
		err = decode_multipath(out, tb[RTA_MULTIPATH]);
		if (err)
			return err;
	} else if (tb[RTA_OIF] || tb[RTA_GATEWAY] || tb[RTA_VIA]) {
		struct xfab_nl_hop h = {.weight = 1};
		__u32 oif = 0;

		if (!tb[RTA_OIF] || u32_attr(tb[RTA_OIF], &oif) || !oif)
			return why(out, -EINVAL, "gateway without RTA_OIF, or RTA_OIF of %u bytes",
				   tb[RTA_OIF] ? mnl_attr_get_payload_len(tb[RTA_OIF]) : 0);
		h.ifindex = oif;
		h.flags = (__u8)rtm->rtm_flags;
		err = hop_gw(out, r->family, tb[RTA_GATEWAY], tb[RTA_VIA], &h, 0);
		if (err)
			return err;
		add_hop(r, &h);
	} else if (!r->nh_id && out->kind == XFAB_NL_ROUTE_ADD) {
		return why(out, -EINVAL, "unicast route with no nexthop");
	}
	return 1;
}

static int decode_route(const struct nlmsghdr *nlh, const struct xfab_nl_filter *f,
			struct xfab_nl_change *out)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[RTA_MAX + 1] = {0};
	int ret;

	ret = route_key(nlh, tb, out);
	if (ret != 1)
		return ret;
	ret = route_wanted(rtm, f, out);
	if (ret != 1)
		return ret;
	out->kind = nlh->nlmsg_type == RTM_NEWROUTE ? XFAB_NL_ROUTE_ADD : XFAB_NL_ROUTE_DEL;
	if (out->route.blackhole)
		return 1;
	return route_hops(rtm, tb, out);
}

static int decode_nexthop(const struct nlmsghdr *nlh, struct xfab_nl_change *out)
{
	const struct nhmsg *nhm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[NHA_MAX + 1] = {0};
	struct xfab_nl_nexthop *nh = &out->nh;
	size_t bad;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*nhm)))
		return why(out, -EINVAL, "nexthop message of %u bytes: truncated nhmsg",
			   nlh->nlmsg_len);
	if (attrs((const char *)nhm + NLMSG_ALIGN(sizeof(*nhm)), (const char *)nlh + nlh->nlmsg_len,
		  tb, NHA_MAX, &bad))
		return why(out, -EINVAL, "truncated attribute at offset %zu",
			   NLMSG_ALIGN(sizeof(*nhm)) + bad);
	if (!tb[NHA_ID] || u32_attr(tb[NHA_ID], &nh->id) || !nh->id)
		return why(out, -EINVAL, "nexthop without NHA_ID (or of the wrong size, or 0)");
	nh->family = nhm->nh_family;
	nh->protocol = nhm->nh_protocol;
	if (nlh->nlmsg_type == RTM_DELNEXTHOP) {
		out->kind = XFAB_NL_NEXTHOP_DEL;
		return 1;
	}
	if (tb[NHA_FDB])
		return why(out, 0, "fdb nexthop %u", nh->id);
	if (tb[NHA_ENCAP] || tb[NHA_ENCAP_TYPE])
		return why(out, 0, "nexthop %u with an encapsulation", nh->id);
	if (tb[NHA_GROUP]) {
		const struct nexthop_grp *g = mnl_attr_get_payload(tb[NHA_GROUP]);
		size_t len = mnl_attr_get_payload_len(tb[NHA_GROUP]);
		int n = (int)(len / sizeof(*g));

		if (!len || len % sizeof(*g))
			return why(out, -EINVAL, "NHA_GROUP of %zu bytes, not a multiple of %zu",
				   len, sizeof(*g));
		if (n > XFAB_NL_MAX_HOPS)
			return why(out, -EINVAL, "group %u of %d members, at most %d", nh->id, n,
				   XFAB_NL_MAX_HOPS);
		for (int i = 0; i < n; i++) {
			__u32 w = ((__u32)g[i].weight_high << 8 | g[i].weight) + 1;

			if (!g[i].id)
				return why(out, -EINVAL, "group %u: member %d has id 0", nh->id, i);
			if (w > 65535)
				return why(out, -EINVAL,
					   "group %u: member %u of weight %u, at most 65535",
					   nh->id, g[i].id, w);
			for (int j = 0; j < i; j++)
				if (g[j].id == g[i].id)
					return why(out, -EINVAL, "group %u: member %u twice",
						   nh->id, g[i].id);
			nh->members[i].id = g[i].id;
			nh->members[i].weight = w;
		}
		nh->n_members = n;
		if (tb[NHA_GROUP_TYPE]) {
			if (mnl_attr_get_payload_len(tb[NHA_GROUP_TYPE]) != 2)
				return why(out, -EINVAL, "NHA_GROUP_TYPE of %u bytes",
					   mnl_attr_get_payload_len(tb[NHA_GROUP_TYPE]));
			nh->group_type = mnl_attr_get_u16(tb[NHA_GROUP_TYPE]);
			if (nh->group_type > NEXTHOP_GRP_TYPE_RES)
				return why(out, -EINVAL, "group %u of type %u", nh->id,
					   nh->group_type);
		}
	} else if (tb[NHA_BLACKHOLE]) {
		nh->blackhole = 1;
	} else {
		if (!tb[NHA_OIF] || u32_attr(tb[NHA_OIF], &nh->ifindex) || !nh->ifindex)
			return why(out, -EINVAL, "nexthop %u without a device (NHA_OIF)", nh->id);
		if (tb[NHA_GATEWAY]) {
			int alen = alen_of(nh->family);

			if (!alen || mnl_attr_get_payload_len(tb[NHA_GATEWAY]) != (unsigned)alen)
				return why(out, -EINVAL,
					   "nexthop %u: NHA_GATEWAY of %u bytes for family %u",
					   nh->id, mnl_attr_get_payload_len(tb[NHA_GATEWAY]),
					   nh->family);
			nh->gw_family = nh->family;
			memcpy(nh->gw, mnl_attr_get_payload(tb[NHA_GATEWAY]), (size_t)alen);
		}
	}
	out->kind = XFAB_NL_NEXTHOP_ADD;
	return 1;
}

int xfab_nl_decode(const struct nlmsghdr *nlh, const struct xfab_nl_filter *f,
		   struct xfab_nl_change *out)
{
	struct xfab_nl_filter def;

	memset(out, 0, offsetof(struct xfab_nl_change, route));
	out->kind = XFAB_NL_SKIP;
	out->why[0] = 0;
	if (!f) {
		xfab_nl_filter_default(&def);
		f = &def;
	}
	if (nlh->nlmsg_len < sizeof(*nlh))
		return why(out, -EINVAL, "message of %u bytes: truncated header", nlh->nlmsg_len);
	switch (nlh->nlmsg_type) {
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		memset(&out->route, 0, offsetof(struct xfab_nl_route, hops));
		return decode_route(nlh, f, out);
	case RTM_NEWNEXTHOP:
	case RTM_DELNEXTHOP:
		memset(&out->nh, 0, offsetof(struct xfab_nl_nexthop, members));
		return decode_nexthop(nlh, out);
	default:
		return why(out, 0, "message type %u", nlh->nlmsg_type);
	}
}
