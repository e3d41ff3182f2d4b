// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
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

#include "pool.h"

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

static int decode_route(const struct nlmsghdr *nlh, const struct xfab_nl_filter *f,
			struct xfab_nl_change *out)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[RTA_MAX + 1] = {0};
	struct xfab_nl_route *r = &out->route;
	char pname[16];
	int alen, err;
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
	/* what a switch does not program */
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
	out->kind = nlh->nlmsg_type == RTM_NEWROUTE ? XFAB_NL_ROUTE_ADD : XFAB_NL_ROUTE_DEL;
	if (r->blackhole)
		return 1;
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

/* ---- the mirror ---- */

enum {
	R_NONE,	      /* not in the RIB: no usable nexthop */
	R_RIB,	      /* in the RIB */
	R_FOREIGN,    /* not in the RIB: no nexthop on a switch port */
	R_UNRESOLVED, /* not in the RIB: its nexthop object is unknown */
	R_STATES,
};

struct nho;

/* A route held. */
struct nlr {
	struct nlr *hnext;
	struct nlr *unext, **uprev; /* among its object's users */
	struct xfab_rib_key key;
	__u32 nh_id, priority;
	__u32 gen; /* the resync that last saw it */
	__u8 protocol, state;
};

/* A nexthop object (or a placeholder for an id routes name before it is
 * known). */
struct nho {
	struct nho *hnext;
	int known;
	__u32 gen; /* the resync that last saw it */
	struct xfab_nl_nexthop v;
	struct xfab_rib_path *path; /* a group with a switch member: its own path */
	struct nlr *users;	    /* routes with RTA_NH_ID == v.id */
};

#define NHO_BUCKETS 1024

struct xfab_nlsync {
	struct xfab_rib *rib;
	xfab_nl_port_fn port_of;
	void *arg;
	struct nlr **rt;
	size_t n_rt_buckets, n_rt;
	struct nho *nho[NHO_BUCKETS];
	size_t n_nho;
	size_t n_state[R_STATES];
	__u32 gen; /* bumped by xfab_nlsync_mark */
	struct xfab_nlsync_stats st;
	struct xfab_pool rt_pool; /* the routes held */
};

static size_t key_hash(const struct xfab_rib_key *k)
{
	__u64 h = 0xcbf29ce484222325ull ^ k->family ^ (__u64)k->plen << 8;
	int alen = k->family == AF_INET ? 4 : 16;

	for (int i = 0; i < alen; i++)
		h = (h ^ k->addr[i]) * 0x100000001b3ull;
	h ^= h >> 31;
	h *= 0x9e3779b97f4a7c15ull;
	return (size_t)(h ^ h >> 29);
}

struct xfab_nlsync *xfab_nlsync_new(struct xfab_rib *rib, xfab_nl_port_fn port_of, void *arg)
{
	struct xfab_nlsync *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->rib = rib;
	s->port_of = port_of;
	s->arg = arg;
	xfab_pool_init(&s->rt_pool, sizeof(struct nlr));
	s->n_rt_buckets = 4096;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	s->rt = xfab_big_zalloc(s->n_rt_buckets * sizeof(*s->rt));
	if (!s->rt) {
		free(s);
		return NULL;
	}
	s->n_state[R_NONE] = 0;
	return s;
}

void xfab_nlsync_free(struct xfab_nlsync *s)
{
	if (!s)
		return;
	/* the routes, all at once */
	xfab_pool_destroy(&s->rt_pool);
	for (size_t b = 0; b < NHO_BUCKETS; b++)
		while (s->nho[b]) {
			struct nho *o = s->nho[b];

			s->nho[b] = o->hnext;
			if (o->path)
				xfab_rib_path_put(s->rib, o->path);
			free(o);
		}
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	xfab_big_free(s->rt, s->n_rt_buckets * sizeof(*s->rt));
	free(s);
}

void xfab_nlsync_stats(const struct xfab_nlsync *s, struct xfab_nlsync_stats *out)
{
	*out = s->st;
	out->routes = s->n_rt;
	out->nexthops = 0;
	for (size_t b = 0; b < NHO_BUCKETS; b++)
		for (const struct nho *o = s->nho[b]; o; o = o->hnext)
			out->nexthops += !!o->known;
	out->foreign = s->n_state[R_FOREIGN];
	out->unresolved = s->n_state[R_UNRESOLVED];
}

/* -- objects -- */

static struct nho *nho_find(const struct xfab_nlsync *s, __u32 id)
{
	struct nho *o = s->nho[id % NHO_BUCKETS];

	while (o && o->v.id != id)
		o = o->hnext;
	return o;
}

static struct nho *nho_get(struct xfab_nlsync *s, __u32 id)
{
	struct nho *o = nho_find(s, id);

	if (o)
		return o;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->v.id = id;
	o->hnext = s->nho[id % NHO_BUCKETS];
	s->nho[id % NHO_BUCKETS] = o;
	s->n_nho++;
	return o;
}

/* Frees an object that is neither known nor used. */
static void nho_gc(struct xfab_nlsync *s, struct nho *o)
{
	struct nho **pp;

	if (o->known || o->users)
		return;
	for (pp = &s->nho[o->v.id % NHO_BUCKETS]; *pp; pp = &(*pp)->hnext)
		if (*pp == o) {
			*pp = o->hnext;
			break;
		}
	if (o->path)
		xfab_rib_path_put(s->rib, o->path);
	s->n_nho--;
	free(o);
}

/* -- routes -- */

static struct nlr *nlr_find(const struct xfab_nlsync *s, const struct xfab_rib_key *k)
{
	struct nlr *r = s->rt[key_hash(k) & (s->n_rt_buckets - 1)];

	while (r && memcmp(&r->key, k, sizeof(*k)))
		r = r->hnext;
	return r;
}

static void rt_grow(struct xfab_nlsync *s)
{
	size_t nb = s->n_rt_buckets * 2;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	struct nlr **b = xfab_big_zalloc(nb * sizeof(*b));

	if (!b)
		return; /* longer chains */
	for (size_t i = 0; i < s->n_rt_buckets; i++)
		while (s->rt[i]) {
			struct nlr *r = s->rt[i];
			size_t h = key_hash(&r->key) & (nb - 1);

			s->rt[i] = r->hnext;
			r->hnext = b[h];
			b[h] = r;
		}
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	xfab_big_free(s->rt, s->n_rt_buckets * sizeof(*s->rt));
	s->rt = b;
	s->n_rt_buckets = nb;
}

static void users_unlink(struct xfab_nlsync *s, struct nlr *r)
{
	struct nho *o;

	if (!r->uprev)
		return;
	*r->uprev = r->unext;
	if (r->unext)
		r->unext->uprev = r->uprev;
	r->unext = NULL;
	r->uprev = NULL;
	o = nho_find(s, r->nh_id);
	if (o)
		nho_gc(s, o);
}

static void users_link(struct nho *o, struct nlr *r)
{
	r->unext = o->users;
	if (o->users)
		o->users->uprev = &r->unext;
	o->users = r;
	r->uprev = &o->users;
}

static void set_state(struct xfab_nlsync *s, struct nlr *r, int state)
{
	s->n_state[r->state]--;
	s->n_state[state]++;
	r->state = (__u8)state;
}

/* Forgets a route (the RIB entry goes with it). */
static void nlr_drop(struct xfab_nlsync *s, struct nlr *r)
{
	struct nlr **pp;

	xfab_rib_del(s->rib, &r->key, XFAB_RIB_SRC_NETLINK);
	users_unlink(s, r);
	for (pp = &s->rt[key_hash(&r->key) & (s->n_rt_buckets - 1)]; *pp; pp = &(*pp)->hnext)
		if (*pp == r) {
			*pp = r->hnext;
			break;
		}
	s->n_state[r->state]--;
	s->n_rt--;
	xfab_pool_free(&s->rt_pool, r);
}

/* -- resolution -- */

/* Adds (port, gw) to m[*n], a duplicate adding its weight. */
static void member_add(struct xfab_rib_member *m, int *n, int port, int family, const __u8 *gw,
		       __u32 weight)
{
	int alen = family == AF_INET ? 4 : 16;

	for (int i = 0; i < *n; i++)
		if (m[i].port == port && m[i].family == family &&
		    !memcmp(m[i].gw, gw, (size_t)alen)) {
			__u32 w = m[i].weight + weight;

			m[i].weight = (__u16)(w > 65535 ? 65535 : w);
			return;
		}
	memset(&m[*n], 0, sizeof(m[0]));
	m[*n].port = (__u16)port;
	m[*n].family = (__u8)family;
	m[*n].weight = (__u16)weight;
	memcpy(m[*n].gw, gw, (size_t)alen);
	(*n)++;
}

/* A group's members on switch ports. */
static int group_members(struct xfab_nlsync *s, const struct nho *g, struct xfab_rib_member *m)
{
	int n = 0;

	for (int i = 0; i < g->v.n_members; i++) {
		const struct nho *o = nho_find(s, g->v.members[i].id);
		int port;

		if (!o || !o->known || o->v.n_members || o->v.blackhole || !o->v.gw_family ||
		    (port = s->port_of(s->arg, o->v.ifindex)) < 0) {
			s->st.hops_dropped++;
			continue;
		}
		member_add(m, &n, port, o->v.gw_family, o->v.gw, g->v.members[i].weight);
	}
	return n;
}

/* Brings a group's own path to its members; 1 if the routes through it
 * must be looked at again (the path came or went). */
static int group_sync(struct xfab_nlsync *s, struct nho *g, int *err)
{
	struct xfab_rib_member m[XFAB_NL_MAX_HOPS];
	int n = g->known && g->v.n_members ? group_members(s, g, m) : 0;

	*err = 0;
	if (n && g->path) {
		*err = xfab_rib_path_set(s->rib, g->path, m, n);
		return 0;
	}
	if (n) {
		g->path = xfab_rib_path_new(s->rib, m, n);
		if (!g->path)
			*err = -ENOMEM;
		return 1;
	}
	if (g->path) {
		xfab_rib_path_put(s->rib, g->path);
		g->path = NULL;
		return 1;
	}
	return 0;
}

/* After r's RIB entry was set (err 0) or refused: its state, and the
 * protocol the entry shows. */
static int in_rib(struct xfab_nlsync *s, struct nlr *r, int err)
{
	if (!err)
		err = xfab_rib_set_protocol(s->rib, &r->key, XFAB_RIB_SRC_NETLINK, r->protocol);
	if (err) {
		xfab_rib_del(s->rib, &r->key, XFAB_RIB_SRC_NETLINK);
		set_state(s, r, R_NONE);
		return err;
	}
	set_state(s, r, R_RIB);
	return 0;
}

/* Sets the RIB entry of r from hops (a route's expanded nexthops, or the
 * one of a nexthop object). */
static int apply_hops(struct xfab_nlsync *s, struct nlr *r, const struct xfab_nl_hop *hops,
		      int n_hops)
{
	struct xfab_rib_member m[XFAB_NL_MAX_HOPS];
	int n = 0, err;

	if (n_hops == 1 && !hops[0].gw_family) {
		/* a direct route: the prefix is on that port */
		int port = s->port_of(s->arg, hops[0].ifindex);

		if (port < 0) {
			xfab_rib_del(s->rib, &r->key, XFAB_RIB_SRC_NETLINK);
			set_state(s, r, R_FOREIGN);
			return 0;
		}
		err = xfab_rib_add(s->rib, &r->key, XFAB_RIB_SRC_NETLINK, XFAB_RIB_CONNECTED, port,
				   NULL, 0);
		goto out;
	}
	for (int i = 0; i < n_hops; i++) {
		int port = hops[i].gw_family ? s->port_of(s->arg, hops[i].ifindex) : -1;

		if (port < 0) {
			s->st.hops_dropped++;
			continue;
		}
		member_add(m, &n, port, hops[i].gw_family, hops[i].gw, hops[i].weight);
	}
	if (!n) {
		xfab_rib_del(s->rib, &r->key, XFAB_RIB_SRC_NETLINK);
		set_state(s, r, n_hops ? R_FOREIGN : R_NONE);
		return 0;
	}
	err = xfab_rib_add(s->rib, &r->key, XFAB_RIB_SRC_NETLINK, XFAB_RIB_PATH, 0, m, n);
out:
	return in_rib(s, r, err);
}

/* Sets r's RIB entry from its object (msg: the route message, whose
 * expanded nexthops stand in while the object is unknown; NULL when an
 * object changed). */
static int route_resolve(struct xfab_nlsync *s, struct nlr *r, const struct xfab_nl_route *msg)
{
	const struct nho *o;
	int err;

	if (!r->nh_id) {
		if (!msg) { /* cannot happen: only users of an object are looked at again */
			xfab_rib_del(s->rib, &r->key, XFAB_RIB_SRC_NETLINK);
			set_state(s, r, R_NONE);
			return 0;
		}
		if (msg->blackhole)
			goto blackhole;
		return apply_hops(s, r, msg->hops, msg->n_hops);
	}
	o = nho_find(s, r->nh_id);
	if (!o || !o->known) {
		if (msg && msg->n_hops)
			return apply_hops(s, r, msg->hops, msg->n_hops);
		if (msg && msg->blackhole)
			goto blackhole;
		xfab_rib_del(s->rib, &r->key, XFAB_RIB_SRC_NETLINK);
		set_state(s, r, R_UNRESOLVED);
		return 0;
	}
	if (o->v.blackhole)
		goto blackhole;
	if (o->v.n_members) {
		if (!o->path) {
			xfab_rib_del(s->rib, &r->key, XFAB_RIB_SRC_NETLINK);
			set_state(s, r, R_FOREIGN);
			return 0;
		}
		err = xfab_rib_add_path(s->rib, &r->key, XFAB_RIB_SRC_NETLINK, o->path);
	} else {
		struct xfab_nl_hop h = {
		    .ifindex = o->v.ifindex, .gw_family = o->v.gw_family, .weight = 1};

		memcpy(h.gw, o->v.gw, 16);
		return apply_hops(s, r, &h, 1);
	}
	goto out;
blackhole:
	err = xfab_rib_add(s->rib, &r->key, XFAB_RIB_SRC_NETLINK, XFAB_RIB_BLACKHOLE, 0, NULL, 0);
out:
	return in_rib(s, r, err);
}

static int reapply_users(struct xfab_nlsync *s, struct nho *o)
{
	int err = 0, e;

	for (struct nlr *r = o->users; r; r = r->unext)
		if ((e = route_resolve(s, r, NULL)) && !err)
			err = e;
	return err;
}

/* -- changes -- */

static int route_add(struct xfab_nlsync *s, const struct xfab_nl_route *m)
{
	struct xfab_rib_key k;
	struct nlr *r;

	memset(&k, 0, sizeof(k));
	k.family = m->family;
	k.plen = m->plen;
	memcpy(k.addr, m->dst, m->family == AF_INET ? 4 : 16);
	r = nlr_find(s, &k);
	if (!r) {
		size_t b;

		if (s->n_rt >= s->n_rt_buckets)
			rt_grow(s);
		r = xfab_pool_zalloc(&s->rt_pool);
		if (!r)
			return -ENOMEM;
		r->key = k;
		r->state = R_NONE;
		s->n_state[R_NONE]++;
		b = key_hash(&k) & (s->n_rt_buckets - 1);
		r->hnext = s->rt[b];
		s->rt[b] = r;
		s->n_rt++;
	}
	if (r->nh_id != m->nh_id) {
		users_unlink(s, r);
		r->nh_id = m->nh_id;
	}
	if (r->nh_id && !r->uprev) {
		struct nho *o = nho_get(s, r->nh_id);

		if (!o) {
			nlr_drop(s, r);
			return -ENOMEM;
		}
		users_link(o, r);
	}
	r->protocol = m->protocol;
	r->priority = m->priority;
	r->gen = s->gen;
	return route_resolve(s, r, m);
}

static int route_del(struct xfab_nlsync *s, const struct xfab_nl_route *m)
{
	struct xfab_rib_key k;
	struct nlr *r;

	memset(&k, 0, sizeof(k));
	k.family = m->family;
	k.plen = m->plen;
	memcpy(k.addr, m->dst, m->family == AF_INET ? 4 : 16);
	r = nlr_find(s, &k);
	if (!r || r->protocol != m->protocol || r->priority != m->priority) {
		s->st.stale_deletes++;
		return 0;
	}
	nlr_drop(s, r);
	return 0;
}

/* Every group with member id (known groups only). */
static int groups_of(struct xfab_nlsync *s, __u32 id, struct nho **out, int max)
{
	int n = 0;

	for (size_t b = 0; b < NHO_BUCKETS; b++)
		for (struct nho *o = s->nho[b]; o; o = o->hnext) {
			if (!o->known || !o->v.n_members)
				continue;
			for (int i = 0; i < o->v.n_members; i++)
				if (o->v.members[i].id == id) {
					if (n < max)
						out[n] = o;
					n++;
					break;
				}
		}
	return n;
}

static int nh_del(struct xfab_nlsync *s, __u32 id);

/* Regroups g after a member changed; a group left with no member goes, as
 * the kernel removes it (its routes with it). */
static int group_changed(struct xfab_nlsync *s, struct nho *g)
{
	int err, e;

	if (!g->v.n_members)
		return nh_del(s, g->v.id);
	if (group_sync(s, g, &err) && (e = reapply_users(s, g)) && !err)
		err = e;
	return err;
}

#define MAX_GROUPS_SCAN 4096

static int nh_add(struct xfab_nlsync *s, const struct xfab_nl_nexthop *v)
{
	struct nho *o = nho_get(s, v->id), **groups;
	int err = 0, e, n;

	if (!o)
		return -ENOMEM;
	o->known = 1;
	o->gen = s->gen;
	o->v = *v;
	if (v->n_members) {
		if (group_sync(s, o, &err) && (e = reapply_users(s, o)) && !err)
			err = e;
		return err;
	}
	if (o->path) { /* was a group */
		xfab_rib_path_put(s->rib, o->path);
		o->path = NULL;
	}
	if ((e = reapply_users(s, o)) && !err)
		err = e;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): pointers */
	groups = malloc(MAX_GROUPS_SCAN * sizeof(*groups));
	if (!groups)
		return -ENOMEM;
	n = groups_of(s, v->id, groups, MAX_GROUPS_SCAN);
	for (int i = 0; i < n && i < MAX_GROUPS_SCAN; i++)
		if ((e = group_changed(s, groups[i])) && !err)
			err = e;
	free(groups);
	return err;
}

/* The kernel removes the routes through a deleted object and the object
 * from its groups. */
static int nh_del(struct xfab_nlsync *s, __u32 id)
{
	struct nho *o = nho_find(s, id);
	int err = 0, e;

	if (!o)
		return 0;
	/* dropping the last user of a placeholder frees it: look again */
	while ((o = nho_find(s, id)) && o->users)
		nlr_drop(s, o->users);
	if (!o)
		return 0;
	o->known = 0;
	if (o->path) {
		xfab_rib_path_put(s->rib, o->path);
		o->path = NULL;
	}
	nho_gc(s, o);
	for (;;) {
		struct nho *g;

		if (groups_of(s, id, &g, 1) == 0)
			break;
		for (int i = 0; i < g->v.n_members; i++)
			if (g->v.members[i].id == id) {
				g->v.members[i] = g->v.members[--g->v.n_members];
				break;
			}
		if ((e = group_changed(s, g)) && !err)
			err = e;
	}
	return err;
}

int xfab_nlsync_apply(struct xfab_nlsync *s, const struct xfab_nl_change *ch)
{
	switch (ch->kind) {
	case XFAB_NL_ROUTE_ADD:
		s->st.applied++;
		return route_add(s, &ch->route);
	case XFAB_NL_ROUTE_DEL:
		s->st.applied++;
		return route_del(s, &ch->route);
	case XFAB_NL_NEXTHOP_ADD:
		s->st.applied++;
		return nh_add(s, &ch->nh);
	case XFAB_NL_NEXTHOP_DEL:
		s->st.applied++;
		return nh_del(s, ch->nh.id);
	default:
		return 0;
	}
}

int xfab_nlsync_link_down(struct xfab_nlsync *s, __u32 ifindex)
{
	int port = s->port_of(s->arg, ifindex), err = 0, e;

	/* nexthop objects on the link: gone, as the kernel removes them */
	for (;;) {
		struct nho *hit = NULL;

		for (size_t b = 0; b < NHO_BUCKETS && !hit; b++)
			for (struct nho *o = s->nho[b]; o && !hit; o = o->hnext)
				if (o->known && !o->v.n_members && !o->v.blackhole &&
				    o->v.ifindex == ifindex)
					hit = o;
		if (!hit)
			break;
		s->st.link_withdrawn++;
		if ((e = nh_del(s, hit->v.id)) && !err)
			err = e;
	}
	if (port < 0)
		return err;
	/* routes with expanded nexthops: their members on the port go */
	for (size_t b = 0; b < s->n_rt_buckets; b++) {
		struct nlr *r = s->rt[b];

		while (r) {
			struct nlr *next = r->hnext;
			struct xfab_rib_node *node;
			const struct xfab_rib_entry *e_ = NULL;

			if (r->nh_id || r->state != R_RIB)
				goto next;
			node = xfab_rib_find(s->rib, &r->key);
			for (const struct xfab_rib_entry *x = node ? node->entries : NULL; x;
			     x = x->next)
				if (x->source == XFAB_RIB_SRC_NETLINK)
					e_ = x;
			if (!e_)
				goto next;
			if (e_->type == XFAB_RIB_CONNECTED && e_->port == port) {
				s->st.link_withdrawn++;
				nlr_drop(s, r);
			} else if (e_->type == XFAB_RIB_PATH) {
				struct xfab_rib_member m[XFAB_NL_MAX_HOPS];
				int n = 0;

				for (int i = 0; i < e_->path->n; i++)
					if (e_->path->m[i].port != port)
						m[n++] = e_->path->m[i];
				if (n == e_->path->n)
					goto next;
				s->st.link_withdrawn += (size_t)(e_->path->n - n);
				if (!n)
					nlr_drop(s, r);
				else if ((e = xfab_rib_add(s->rib, &r->key, XFAB_RIB_SRC_NETLINK,
							   XFAB_RIB_PATH, 0, m, n)) &&
					 !err)
					err = e;
			}
		next:
			r = next;
		}
	}
	return err;
}

void xfab_nlsync_mark(struct xfab_nlsync *s)
{
	s->gen++;
	s->st.resyncs++;
}

int xfab_nlsync_sweep(struct xfab_nlsync *s)
{
	int err = 0, e;

	/* routes first: an object's users go with it anyway */
	for (size_t b = 0; b < s->n_rt_buckets; b++) {
		struct nlr *r = s->rt[b];

		while (r) {
			struct nlr *next = r->hnext;

			if (r->gen != s->gen) {
				s->st.swept_routes++;
				nlr_drop(s, r);
			}
			r = next;
		}
	}
	for (;;) {
		__u32 ids[256];
		int n = 0;

		for (size_t b = 0; b < NHO_BUCKETS && n < 256; b++)
			for (const struct nho *o = s->nho[b]; o && n < 256; o = o->hnext)
				if (o->known && o->gen != s->gen)
					ids[n++] = o->v.id;
		if (!n)
			break;
		for (int i = 0; i < n; i++) {
			s->st.swept_nexthops++;
			if ((e = nh_del(s, ids[i])) && !err)
				err = e;
		}
	}
	return err;
}

struct users_walk {
	void (*fn)(void *arg, const struct xfab_rib_key *key);
	void *arg;
};

static size_t users_each(const struct nho *o, const struct users_walk *w)
{
	size_t n = 0;

	for (const struct nlr *r = o->users; r; r = r->unext, n++)
		if (w->fn)
			w->fn(w->arg, &r->key);
	return n;
}

size_t xfab_nlsync_users(const struct xfab_nlsync *s, __u32 id,
			 void (*fn)(void *arg, const struct xfab_rib_key *key), void *arg)
{
	const struct nho *o = nho_find(s, id);
	struct users_walk w = {fn, arg};
	size_t n;

	if (!o)
		return 0;
	n = users_each(o, &w);
	if (o->v.n_members)
		return n;
	for (size_t b = 0; b < NHO_BUCKETS; b++)
		for (const struct nho *g = s->nho[b]; g; g = g->hnext) {
			if (!g->known || !g->v.n_members)
				continue;
			for (int i = 0; i < g->v.n_members; i++)
				if (g->v.members[i].id == id) {
					n += users_each(g, &w);
					break;
				}
		}
	return n;
}
