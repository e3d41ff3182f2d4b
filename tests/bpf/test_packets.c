// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Table-driven BPF_PROG_TEST_RUN packet tests, run through both entry points
 * (xfab_xdp and xfab_tc). Each case builds a frame, runs it, and checks the
 * verdict, the counted reason, the egress port (its tx counter) and every
 * output byte against an expectation computed here independently: MACs,
 * TTL/hop limit, a freshly computed IPv4 header checksum, intact payload.
 *
 * Runs in a private network namespace with veth ports p1..p4 and tables
 * programmed from a config through the same compiler xfabd uses.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "config.h"
#include "frame.h"
#include "harness.h"
#include "xfab_hash.h"

#define N_PORTS 6 /* p1..p3, p5, p6 configured; p4 exists but is not a switch port */
#define HASH_SEED 12345u

static const __u8 port_mac[N_PORTS][6] = {
    {0x02, 0, 0, 0, 0, 0x11}, {0x02, 0, 0, 0, 0, 0x12}, {0x02, 0, 0, 0, 0, 0x13},
    {0x02, 0, 0, 0, 0, 0x14}, {0x02, 0, 0, 0, 0, 0x15}, {0x02, 0, 0, 0, 0, 0x16},
};
static const __u8 host_mac[6] = {0x02, 0xaa, 0, 0, 0, 0x01}; /* sender */
static const __u8 h1_mac[6] = {0x02, 0, 0, 0, 0x01, 0x02};   /* 10.0.1.2 on p1 */
static const __u8 gw2_mac[6] = {0x02, 0, 0, 0, 0x02, 0x01};  /* 10.0.2.1 on p2 */
static const __u8 gw3_mac[6] = {0x02, 0, 0, 0, 0x03, 0x01};  /* 10.0.3.1 on p3 */
static const __u8 mcast_mac[6] = {0x01, 0x00, 0x5e, 0, 0, 0x05};
static const __u8 other_mac[6] = {0x02, 0xbb, 0, 0, 0, 0x09};

static const char *config_text =
    "{\n"
    " \"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"pkt-test\", \"hash_seed\": "
    "\"12345\"}},\n"
    " \"PORT\": {\"p1\": {}, \"p2\": {\"mtu\": \"1400\"}, \"p3\": {},\n"
    "   \"p5\": {\"admin_status\": \"down\"}, \"p6\": {\"rate\": \"1\", \"buffer\": \"1500\"}},\n"
    " \"INTERFACE\": {\"p1|10.0.1.1/24\": {}, \"p1|fd01::1/64\": {},\n"
    "   \"p2|10.0.2.0/31\": {}, \"p2|fd02::2/127\": {},\n"
    "   \"p3|10.0.3.0/31\": {}, \"p3|fd03::2/127\": {},\n"
    "   \"p5|10.0.5.0/31\": {}, \"p6|10.0.6.0/31\": {}},\n"
    " \"ROUTE\": {\"10.9.0.0/16\": {\"nexthop\": \"10.0.2.1,10.0.3.1\"},\n"
    "   \"10.8.0.0/16\": {\"nexthop\": \"10.0.2.1\"},\n"
    "   \"10.7.0.0/16\": {\"blackhole\": \"true\"},\n"
    "   \"10.77.0.0/16\": {\"nexthop\": \"10.0.2.1\"},\n"
    "   \"10.77.1.128/25\": {\"nexthop\": \"10.0.3.1\"},\n"
    "   \"10.77.1.200/32\": {\"blackhole\": \"true\"},\n"
    "   \"10.5.0.0/16\": {\"nexthop\": \"10.0.1.99\"},\n"
    "   \"fd09::/32\": {\"nexthop\": \"fd02::3,fd03::3\"},\n"
    "   \"fd09:0:0:5::/64\": {\"nexthop\": \"fd03::3\"},\n"
    "   \"fd09:0:0:5::7/128\": {\"blackhole\": \"true\"},\n"
    "   \"10.66.0.0/16\": {\"nexthop\": \"10.0.6.1\"},\n"
    "   \"10.67.0.0/16\": {\"nexthop\": \"10.0.5.1,10.0.6.1\"}},\n"
    " \"NEIGH\": {\"p1|10.0.1.2\": {\"neigh\": \"02:00:00:00:01:02\"},\n"
    "   \"p1|fd01::2\": {\"neigh\": \"02:00:00:00:01:02\"},\n"
    "   \"p2|10.0.2.1\": {\"neigh\": \"02:00:00:00:02:01\"},\n"
    "   \"p3|10.0.3.1\": {\"neigh\": \"02:00:00:00:03:01\"},\n"
    "   \"p2|fd02::3\": {\"neigh\": \"02:00:00:00:02:01\"},\n"
    "   \"p3|fd03::3\": {\"neigh\": \"02:00:00:00:03:01\"},\n"
    "   \"p5|10.0.5.1\": {\"neigh\": \"02:00:00:00:05:01\"},\n"
    "   \"p6|10.0.6.1\": {\"neigh\": \"02:00:00:00:06:01\"}},\n"
    " \"WRED_PROFILE\": {\"RED\": {\"min_threshold\": \"100\", \"max_threshold\": \"200\"}},\n"
    " \"QUEUE\": {\"p6|0-7\": {\"wred_profile\": \"RED\"}}\n"
    "}\n";

static struct harness H;
static __u32 ifindex[N_PORTS];
static int fd_port_stats, fd_drop_stats, fd_punt_stats, fd_groups, fd_nexthops;

/* ---- packet building, with an independent checksum ---- */

enum mutation {
	MUT_NONE,
	MUT_TRUNC_IP,	  /* frame ends inside the IP header */
	MUT_BAD_IHL,	  /* IHL 4 */
	MUT_BIG_TOTLEN,	  /* total length beyond the frame */
	MUT_TRUNC_L4,	  /* frame ends inside the TCP header */
	MUT_V6_BIGLEN,	  /* payload length beyond the frame */
	MUT_V6_HBH,	  /* hop-by-hop options header first */
	MUT_V6_LONGCHAIN, /* more extension headers than walked */
	MUT_V6_FRAG,	  /* fragment header */
	MUT_V6_DSTOPTS,	  /* destination options + routing header, then L4 */
	MUT_IPV4_FRAG,	  /* a non-first IPv4 fragment */
	MUT_V4_VERSION,	  /* IP version 6 under the IPv4 ethertype */
	MUT_V4_CSUM,	  /* header checksum off by one */
	MUT_V6_VERSION,	  /* IP version 4 under the IPv6 ethertype */
};

struct spec {
	const char *name;
	int in_port;
	int family; /* 4, 6, or 0: raw ethertype frame */
	const char *src, *dst;
	__u8 ttl;
	__u8 proto;
	__u16 sport, dport;
	int ip_opts; /* IPv4 option bytes */
	int vlan;    /* tags */
	const __u8 *dmac;
	const __u8 *smac;
	int payload;
	__u16 ethertype;
	__u8 icmp_type;
	enum mutation mut;
	/* BPF_PROG_TEST_RUN for skbs refuses frames whose IP header is cut
	 * short (-EINVAL before the program runs), so those run through XDP. */
	int xdp_only;
	/* expectations */
	int act;
	__u32 reason;
	int out_port; /* -1: the group member the flow hashes to */
	const __u8 *out_dmac;
};

struct frame {
	__u8 b[2048];
	size_t len;
	size_t l3_off;
	size_t l4_off;
};

static void put16(__u8 *p, __u16 v)
{
	p[0] = (__u8)(v >> 8);
	p[1] = (__u8)v;
}

static void build(const struct spec *s, struct frame *f)
{
	__u8 payload[2048];
	struct xfab_frame d = {.n_vlan = s->vlan,
			       .vlan = {100, 100, 100, 100},
			       .l4 = {.proto = s->proto,
				      .sport = s->sport,
				      .dport = s->dport,
				      .tcp_flags = 0x10,
				      .icmp_type = s->icmp_type},
			       .payload = payload,
			       .payload_len = (size_t)s->payload};
	struct xfab_frame_ipv4 *ip4 = &d.ip4;
	struct xfab_frame_ipv6 *ip6 = &d.ip6;
	struct xfab_frame_info info;
	static const __u8 nops[40] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
				      1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
	long len;

	memset(f, 0, sizeof(*f));
	assert_true(s->payload >= 0 && (size_t)s->payload <= sizeof(payload));
	for (int i = 0; i < s->payload; i++)
		payload[i] = (__u8)(0x5a ^ i);
	memcpy(d.dmac, s->dmac ? s->dmac : port_mac[s->in_port], 6);
	memcpy(d.smac, s->smac ? s->smac : host_mac, 6);
	if (s->family == 4 || s->family == 6) {
		assert_int_equal(xfab_frame_addrs(&d, s->src, s->dst), 0);
		assert_int_equal(d.l3 == XFAB_FRAME_IPV6, s->family == 6);
	} else {
		for (int i = 0; i < 46; i++)
			payload[i] = (__u8)i;
		d.ethertype = s->ethertype;
		d.payload_len = 46;
	}
	ip4->ttl = ip6->hop_limit = s->ttl;
	ip4->opts = nops;
	ip4->opts_len = (size_t)s->ip_opts;
	switch (s->mut) {
	case MUT_IPV4_FRAG:
		ip4->frag = 100; /* offset 800 bytes */
		break;
	case MUT_BAD_IHL:
		ip4->set |= XFAB_FRAME_SET_IHL;
		ip4->ihl = 4;
		break;
	case MUT_V4_VERSION:
		ip4->set |= XFAB_FRAME_SET_VERSION;
		ip4->version = 6;
		break;
	case MUT_TRUNC_L4: /* a consistent IP length, a short TCP header */
		ip4->set |= XFAB_FRAME_SET_LEN;
		ip4->tot_len = (__u16)(20 + s->ip_opts + 10);
		break;
	case MUT_V6_VERSION:
		ip6->set |= XFAB_FRAME_SET_VERSION;
		ip6->version = 4;
		break;
	case MUT_V6_HBH:
		ip6->n_ext = 1;
		ip6->ext[0].type = IPPROTO_HOPOPTS;
		break;
	case MUT_V6_DSTOPTS:
		ip6->n_ext = 2;
		ip6->ext[0].type = IPPROTO_DSTOPTS;
		ip6->ext[1].type = IPPROTO_ROUTING;
		break;
	case MUT_V6_LONGCHAIN:
		ip6->n_ext = XFAB_IPV6_MAX_EXT_HDRS + 1;
		for (int i = 0; i < ip6->n_ext; i++)
			ip6->ext[i].type = IPPROTO_DSTOPTS;
		break;
	case MUT_V6_FRAG:
		ip6->n_ext = 1;
		ip6->ext[0].type = IPPROTO_FRAGMENT;
		ip6->ext[0].frag = 0x0001; /* first fragment, more follow */
		break;
	default:
		break;
	}
	len = xfab_frame_build(&d, f->b, sizeof(f->b), &info);
	assert_true(len > 0);
	/* lengths and checksums off by a given amount: from the built values */
	if (s->mut == MUT_BIG_TOTLEN || s->mut == MUT_V4_CSUM) {
		__u8 *ip = f->b + info.l3_off;

		ip4->set |= s->mut == MUT_BIG_TOTLEN ? XFAB_FRAME_SET_LEN : XFAB_FRAME_SET_CHECK;
		ip4->tot_len = (__u16)((ip[2] << 8 | ip[3]) + 100);
		ip4->check = (__u16)((ip[10] << 8 | ip[11]) + 1);
		len = xfab_frame_build(&d, f->b, sizeof(f->b), &info);
	} else if (s->mut == MUT_V6_BIGLEN) {
		__u8 *ip = f->b + info.l3_off;

		ip6->set |= XFAB_FRAME_SET_LEN;
		ip6->payload_len = (__u16)((ip[4] << 8 | ip[5]) + 64);
		len = xfab_frame_build(&d, f->b, sizeof(f->b), &info);
	}
	assert_true(len > 0);
	f->len = (size_t)len;
	f->l3_off = info.l3_off;
	f->l4_off = info.l4_off ? info.l4_off : info.payload_off;
	if (s->family != 4 && s->family != 6)
		f->l4_off = 0;
	if (s->mut == MUT_TRUNC_IP)
		f->len = f->l3_off + (s->family == 4 ? 10 : 20);
	if (s->mut == MUT_TRUNC_L4)
		f->len = f->l4_off + 10;
}

/* What a correct router emits for this frame, computed from scratch. */
static void expected_forward(const struct spec *s, const struct frame *in, int out_port,
			     const __u8 *dmac, struct frame *out)
{
	size_t tags = (size_t)s->vlan * 4;
	__u8 *ip;

	memset(out, 0, sizeof(*out));
	memcpy(out->b, dmac, 6);
	memcpy(out->b + 6, port_mac[out_port], 6);
	memcpy(out->b + 12, in->b + 12 + tags, in->len - 12 - tags);
	out->len = in->len - tags;
	ip = out->b + in->l3_off - tags;
	if (s->family == 4) {
		size_t hl = (size_t)(ip[0] & 0xf) * 4;

		ip[8]--;
		ip[10] = ip[11] = 0;
		put16(ip + 10, xfab_csum16(ip, hl));
	} else {
		ip[7]--;
	}
}

/* ---- running ---- */

static __u64 port_tx(int port)
{
	struct xfab_port_stats st;

	assert_int_equal(xfab_percpu_sum(fd_port_stats, (__u32)port, (__u64 *)&st, 6), 0);
	return st.tx_packets;
}

static __u64 reason_count(int fd, __u32 reason)
{
	struct xfab_reason_stats st;

	assert_int_equal(xfab_percpu_sum(fd, reason, (__u64 *)&st, 2), 0);
	return st.packets;
}

static int run(int tc, int in_port, const struct frame *in, struct frame *out, __u32 *retval)
{
	out->len = sizeof(out->b);
	return h_run(&H, tc, in_port, in->b, in->len, out->b, &out->len, retval);
}

static __u32 verdict_of(int tc, int act)
{
	if (tc)
		return act == XFAB_ACT_FORWARD ? TC_ACT_REDIRECT
		       : act == XFAB_ACT_PUNT  ? TC_ACT_OK
					       : TC_ACT_SHOT;
	return act == XFAB_ACT_FORWARD ? XDP_REDIRECT : act == XFAB_ACT_PUNT ? XDP_PASS : XDP_DROP;
}

/* The member a group route picks for this frame, from the shared hash and
 * the buckets xfabd programmed. */
static int group_member_port(const struct spec *s, const __u8 **dmac)
{
	struct xfab_flow flow = {0};
	struct xfab_group grp;
	struct xfab_nexthop nh;
	__u32 gid = 1, nh_id, hash;

	if (s->family == 4) {
		inet_pton(AF_INET, s->src, &flow.src[0]);
		inet_pton(AF_INET, s->dst, &flow.dst[0]);
	} else {
		inet_pton(AF_INET6, s->src, flow.src);
		inet_pton(AF_INET6, s->dst, flow.dst);
		flow.is_v6 = 1;
		gid = 2;
	}
	flow.proto = s->proto;
	if (s->mut != MUT_V6_FRAG && s->mut != MUT_IPV4_FRAG &&
	    (s->proto == IPPROTO_TCP || s->proto == IPPROTO_UDP))
		flow.ports = htons(s->sport) | ((__u32)htons(s->dport) << 16);
	{
		struct xfab_hash_key key;

		xfab_hash_key_derive(&key, HASH_SEED, XFAB_HASH_F_DEFAULT);
		hash = xfab_flow_hash(&flow, &key);
	}
	assert_int_equal(bpf_map_lookup_elem(fd_groups, &gid, &grp), 0);
	nh_id = grp.buckets[XFAB_HASH_BUCKET(hash)];
	assert_int_equal(bpf_map_lookup_elem(fd_nexthops, &nh_id, &nh), 0);
	for (int p = 0; p < N_PORTS; p++) {
		if (ifindex[p] == nh.ifindex) {
			*dmac = p == 1 ? gw2_mac : gw3_mac;
			return p;
		}
	}
	fail_msg("group member ifindex %u is no test port", nh.ifindex);
	return -1;
}

static void hexdiff(const struct frame *got, const struct frame *want)
{
	size_t n = got->len > want->len ? got->len : want->len;

	for (size_t i = 0; i < n; i++)
		if (i >= got->len || i >= want->len || got->b[i] != want->b[i])
			print_message("  byte %zu: got %02x want %02x\n", i,
				      i < got->len ? got->b[i] : 0, i < want->len ? want->b[i] : 0);
}

static void check_case(const struct spec *s, int tc)
{
	struct frame in, out, want;
	__u32 retval;
	__u64 tx_before[N_PORTS], reason_before = 0;
	int out_port = s->out_port, map = -1;
	const __u8 *dmac = s->out_dmac;

	build(s, &in);
	for (int p = 0; p < 3; p++)
		tx_before[p] = port_tx(p);
	if (s->act == XFAB_ACT_DROP)
		map = fd_drop_stats;
	else if (s->act == XFAB_ACT_PUNT)
		map = fd_punt_stats;
	if (map >= 0)
		reason_before = reason_count(map, s->reason);

	assert_int_equal(run(tc, s->in_port, &in, &out, &retval), 0);
	if (retval != verdict_of(tc, s->act)) {
		for (__u32 r = 0; r < XFAB_DROP_MAX; r++)
			if (reason_count(fd_drop_stats, r))
				print_message("  drops[%s] = %llu\n", xfab_drop_name(r),
					      (unsigned long long)reason_count(fd_drop_stats, r));
	}
	if (retval != verdict_of(tc, s->act))
		fail_msg("%s [%s]: verdict %u, want %u", s->name, tc ? "tc" : "xdp", retval,
			 verdict_of(tc, s->act));

	if (s->act == XFAB_ACT_FORWARD) {
		if (out_port < 0)
			out_port = group_member_port(s, &dmac);
		expected_forward(s, &in, out_port, dmac, &want);
		for (int p = 0; p < 3; p++)
			if (port_tx(p) != tx_before[p] + (p == out_port))
				fail_msg("%s [%s]: tx counter of p%d moved wrongly", s->name,
					 tc ? "tc" : "xdp", p + 1);
	} else {
		want = in; /* drops and punts leave the frame as it was */
		if (reason_count(map, s->reason) != reason_before + 1)
			fail_msg("%s [%s]: reason %s not counted once", s->name, tc ? "tc" : "xdp",
				 s->act == XFAB_ACT_DROP ? xfab_drop_name(s->reason)
							 : xfab_punt_name(s->reason));
		for (int p = 0; p < 3; p++)
			assert_true(port_tx(p) == tx_before[p]);
	}
	if (out.len != want.len || memcmp(out.b, want.b, want.len)) {
		print_message("%s [%s]: output differs (len %zu want %zu)\n", s->name,
			      tc ? "tc" : "xdp", out.len, want.len);
		hexdiff(&out, &want);
		fail();
	}
	/* The IPv4 header checksum of what we emit verifies from scratch. */
	if (s->act == XFAB_ACT_FORWARD && s->family == 4) {
		const __u8 *ip = out.b + in.l3_off - (size_t)s->vlan * 4;

		assert_int_equal(xfab_csum16(ip, (size_t)(ip[0] & 0xf) * 4), 0);
	}
}

#define FWD(port, mac) .act = XFAB_ACT_FORWARD, .out_port = (port), .out_dmac = (mac)
#define GROUP .act = XFAB_ACT_FORWARD, .out_port = -1
#define DROP(r) .act = XFAB_ACT_DROP, .reason = XFAB_DROP_##r
#define PUNT(r) .act = XFAB_ACT_PUNT, .reason = XFAB_PUNT_##r

static const struct spec cases[] = {
    /* IPv4 forwarding */
    {"v4 connected host", 1, 4, "10.9.9.9", "10.0.1.2", 64, IPPROTO_UDP, 1000, 2000, .payload = 32,
     FWD(0, h1_mac)},
    {"v4 single nexthop", 0, 4, "10.0.1.2", "10.8.1.1", 64, IPPROTO_TCP, 40000, 80, .payload = 100,
     FWD(1, gw2_mac)},
    {"v4 group member", 0, 4, "10.0.1.2", "10.9.3.4", 64, IPPROTO_UDP, 5555, 4791, .payload = 64,
     GROUP},
    {"v4 group member, other flow", 0, 4, "10.0.1.2", "10.9.3.4", 64, IPPROTO_UDP, 5556, 4791,
     .payload = 64, GROUP},
    {"v4 ICMP echo", 0, 4, "10.0.1.2", "10.8.0.1", 64, IPPROTO_ICMP, .icmp_type = 8, .payload = 56,
     FWD(1, gw2_mac)},
    {"v4 with options", 0, 4, "10.0.1.2", "10.8.1.1", 64, IPPROTO_UDP, 1, 2, .ip_opts = 8,
     .payload = 20, FWD(1, gw2_mac)},
    {"v4 TTL 2 leaves with 1", 0, 4, "10.0.1.2", "10.8.1.1", 2, IPPROTO_UDP, 1, 2, .payload = 8,
     FWD(1, gw2_mac)},
    {"v4 TTL 255", 0, 4, "10.0.1.2", "10.8.1.1", 255, IPPROTO_UDP, 1, 2, .payload = 8,
     FWD(1, gw2_mac)},
    {"v4 single 802.1Q tag is stripped", 0, 4, "10.0.1.2", "10.8.1.1", 64, IPPROTO_UDP, 1, 2,
     .vlan = 1, .payload = 30, FWD(1, gw2_mac)},
    {"v4 non-first fragment", 0, 4, "10.0.1.2", "10.9.1.1", 64, IPPROTO_UDP, 1, 2,
     .mut = MUT_IPV4_FRAG, .payload = 40, GROUP},
    /* IPv4 punts */
    {"v4 TTL 1", 0, 4, "10.0.1.2", "10.8.1.1", 1, IPPROTO_UDP, 33434, 33434, .payload = 8,
     PUNT(TTL_EXPIRED)},
    {"v4 TTL 0", 0, 4, "10.0.1.2", "10.8.1.1", 0, IPPROTO_UDP, 1, 2, .payload = 8,
     PUNT(TTL_EXPIRED)},
    {"v4 to the switch", 0, 4, "10.0.1.2", "10.0.1.1", 64, IPPROTO_ICMP, .icmp_type = 8,
     .payload = 8, PUNT(TO_SELF)},
    {"v4 unresolved nexthop", 0, 4, "10.0.1.2", "10.5.0.1", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     PUNT(NEIGH_UNRESOLVED)},
    {"v4 unresolved host", 1, 4, "10.9.9.9", "10.0.1.77", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     PUNT(NEIGH_UNRESOLVED)},
    {"v4 multicast", 0, 4, "10.0.1.2", "224.0.0.5", 1, IPPROTO_UDP, 1, 2, .dmac = mcast_mac,
     .payload = 8, PUNT(MULTICAST)},
    {"v4 link-local", 0, 4, "10.0.1.2", "169.254.1.1", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     PUNT(LINK_LOCAL)},
    {"v4 beyond egress MTU", 0, 4, "10.0.1.2", "10.8.1.1", 64, IPPROTO_UDP, 1, 2, .payload = 1400,
     PUNT(MTU_EXCEEDED)},
    {"ARP", 0, 0, .ethertype = ETH_P_ARP, .dmac = (const __u8 *)"\xff\xff\xff\xff\xff\xff",
     PUNT(ARP)},
    {"LLDP", 0, 0, .ethertype = 0x88cc, .dmac = (const __u8 *)"\x01\x80\xc2\x00\x00\x0e",
     PUNT(NON_IP)},
    /* IPv4 drops */
    {"v4 no route", 0, 4, "10.0.1.2", "198.51.100.1", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     DROP(NO_ROUTE)},
    {"v4 blackhole", 0, 4, "10.0.1.2", "10.7.0.1", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     DROP(BLACKHOLE)},
    /* longer than /24: the FIB's second-level (tbl8) entries */
    {"v4 /16 below its /25", 0, 4, "10.0.1.2", "10.77.1.127", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     FWD(1, gw2_mac)},
    {"v4 /25 inside a /16", 0, 4, "10.0.1.2", "10.77.1.128", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     FWD(2, gw3_mac)},
    {"v4 /32 inside a /25", 0, 4, "10.0.1.2", "10.77.1.200", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     DROP(BLACKHOLE)},
    {"v4 /25 around a /32", 0, 4, "10.0.1.2", "10.77.1.201", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     FWD(2, gw3_mac)},
    {"v4 truncated header", 0, 4, "10.0.1.2", "10.8.0.1", 64, IPPROTO_UDP, 1, 2,
     .mut = MUT_TRUNC_IP, .xdp_only = 1, DROP(IPV4_TRUNCATED)},
    {"v4 IHL 4", 0, 4, "10.0.1.2", "10.8.0.1", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     .mut = MUT_BAD_IHL, DROP(IPV4_BAD_IHL)},
    {"v4 total length past the frame", 0, 4, "10.0.1.2", "10.8.0.1", 64, IPPROTO_UDP, 1, 2,
     .payload = 8, .mut = MUT_BIG_TOTLEN, DROP(IPV4_BAD_LENGTH)},
    {"v4 version 6", 0, 4, "10.0.1.2", "10.8.0.1", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     .mut = MUT_V4_VERSION, DROP(IPV4_BAD_VERSION)},
    {"v4 bad header checksum", 0, 4, "10.0.1.2", "10.8.0.1", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     .mut = MUT_V4_CSUM, DROP(IPV4_BAD_CHECKSUM)},
    {"v4 truncated TCP", 0, 4, "10.0.1.2", "10.8.0.1", 64, IPPROTO_TCP, 1, 2, .mut = MUT_TRUNC_L4,
     DROP(L4_TRUNCATED)},
    {"multicast source MAC", 0, 4, "10.0.1.2", "10.8.0.1", 64, IPPROTO_UDP, 1, 2, .smac = mcast_mac,
     .payload = 8, DROP(SMAC_MULTICAST)},
    {"source MAC equals destination", 0, 4, "10.0.1.2", "10.8.0.1", 64, IPPROTO_UDP, 1, 2,
     .smac = port_mac[0], .payload = 8, DROP(SMAC_EQ_DMAC)},
    {"frame for another router", 0, 4, "10.0.1.2", "10.8.0.1", 64, IPPROTO_UDP, 1, 2,
     .dmac = other_mac, .payload = 8, DROP(NOT_ROUTER_MAC)},
    /* MACs are compared as a 32-bit and a 16-bit word: each word matters */
    {"frame for the next port's MAC (the last byte differs)", 0, 4, "10.0.1.2", "10.8.0.1", 64,
     IPPROTO_UDP, 1, 2, .dmac = port_mac[1], .payload = 8, DROP(NOT_ROUTER_MAC)},
    {"source MAC like the destination but for the last byte", 0, 4, "10.0.1.2", "10.8.1.1", 64,
     IPPROTO_UDP, 1, 2, .smac = port_mac[1], .payload = 8, FWD(1, gw2_mac)},
    {"v4 loopback source", 0, 4, "127.0.0.1", "10.8.0.1", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     DROP(BAD_SRC_ADDR)},
    {"two 802.1Q tags", 0, 4, "10.0.1.2", "10.8.0.1", 64, IPPROTO_UDP, 1, 2, .vlan = 2,
     .payload = 8, DROP(VLAN_STACKED)},
    {"port not in the switch", 3, 4, "10.0.1.2", "10.8.0.1", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     DROP(PORT_UNKNOWN)},
    /* IPv6 */
    {"v6 connected host", 1, 6, "fd09::9", "fd01::2", 64, IPPROTO_UDP, 1000, 2000, .payload = 32,
     FWD(0, h1_mac)},
    /* the IPv6 FIB's deeper levels */
    {"v6 /64 inside a /32", 0, 6, "fd01::2", "fd09:0:0:5::1", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     FWD(2, gw3_mac)},
    {"v6 /128 inside a /64", 0, 6, "fd01::2", "fd09:0:0:5::7", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     DROP(BLACKHOLE)},
    {"v6 /64 around a /128", 0, 6, "fd01::2", "fd09:0:0:5::8", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     FWD(2, gw3_mac)},
    {"v6 group member", 0, 6, "fd01::2", "fd09::1:1", 64, IPPROTO_TCP, 40000, 443, .payload = 100,
     GROUP},
    {"v6 group member, other flow", 0, 6, "fd01::2", "fd09::1:1", 64, IPPROTO_TCP, 40001, 443,
     .payload = 100, GROUP},
    {"v6 ICMPv6 echo", 1, 6, "fd09::9", "fd01::2", 64, IPPROTO_ICMPV6, .icmp_type = 128,
     .payload = 56, FWD(0, h1_mac)},
    {"v6 extension headers walked", 0, 6, "fd01::2", "fd09::7", 64, IPPROTO_UDP, 7, 9,
     .mut = MUT_V6_DSTOPTS, .payload = 16, GROUP},
    {"v6 fragment", 0, 6, "fd01::2", "fd09::7", 64, IPPROTO_UDP, 7, 9, .mut = MUT_V6_FRAG,
     .payload = 16, GROUP},
    {"v6 tagged", 1, 6, "fd09::9", "fd01::2", 64, IPPROTO_UDP, 1, 2, .vlan = 1, .payload = 16,
     FWD(0, h1_mac)},
    {"v6 hop limit 1", 0, 6, "fd01::2", "fd09::1", 1, IPPROTO_UDP, 1, 2, .payload = 8,
     PUNT(TTL_EXPIRED)},
    {"v6 to the switch", 0, 6, "fd01::2", "fd01::1", 64, IPPROTO_ICMPV6, .icmp_type = 128,
     .payload = 8, PUNT(TO_SELF)},
    {"v6 neighbour solicitation", 0, 6, "fd01::2", "fd09::1", 255, IPPROTO_ICMPV6, .icmp_type = 135,
     .payload = 16, PUNT(ND)},
    {"v6 link-local", 0, 6, "fe80::2", "fe80::1", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     PUNT(LINK_LOCAL)},
    {"v6 multicast", 0, 6, "fd01::2", "ff02::5", 1, IPPROTO_UDP, 1, 2,
     .dmac = (const __u8 *)"\x33\x33\x00\x00\x00\x05", .payload = 8, PUNT(MULTICAST)},
    {"v6 hop-by-hop", 0, 6, "fd01::2", "fd09::1", 64, IPPROTO_UDP, 1, 2, .mut = MUT_V6_HBH,
     .payload = 8, PUNT(IPV6_HOP_BY_HOP)},
    {"v6 unresolved host", 1, 6, "fd09::9", "fd01::77", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     PUNT(NEIGH_UNRESOLVED)},
    {"v6 no route", 0, 6, "fd01::2", "2001:db8::1", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     DROP(NO_ROUTE)},
    {"v6 truncated header", 0, 6, "fd01::2", "fd09::1", 64, IPPROTO_UDP, 1, 2, .mut = MUT_TRUNC_IP,
     .xdp_only = 1, DROP(IPV6_TRUNCATED)},
    {"v6 payload length past the frame", 0, 6, "fd01::2", "fd09::1", 64, IPPROTO_UDP, 1, 2,
     .payload = 8, .mut = MUT_V6_BIGLEN, DROP(IPV6_BAD_LENGTH)},
    {"v6 version 4", 0, 6, "fd01::2", "fd09::1", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     .mut = MUT_V6_VERSION, DROP(IPV6_BAD_VERSION)},
    {"v6 extension chain too long", 0, 6, "fd01::2", "fd09::1", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     .mut = MUT_V6_LONGCHAIN, DROP(IPV6_EXT_CHAIN)},
    {"v6 multicast source", 0, 6, "ff02::1", "fd09::1", 64, IPPROTO_UDP, 1, 2, .payload = 8,
     DROP(BAD_SRC_ADDR)},
};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

static void test_case_xdp(void **state)
{
	check_case(*state, 0);
}

static void test_case_tc(void **state)
{
	check_case(*state, 1);
}

/* Same flow, same member; many flows, every member, both datapaths agree. */
static void test_group_spread(void **state)
{
	int hits[N_PORTS] = {0};

	(void)state;
	for (int i = 0; i < 400; i++) {
		struct spec s = {"spread",    0,
				 4,	      "10.0.1.2",
				 "10.9.0.1",  64,
				 IPPROTO_UDP, (__u16)(10000 + i),
				 4791,	      .payload = 16};
		struct frame in, out_x, out_t, again;
		__u32 rx, rt, ra;

		build(&s, &in);
		assert_int_equal(run(0, 0, &in, &out_x, &rx), 0);
		assert_int_equal(run(1, 0, &in, &out_t, &rt), 0);
		assert_int_equal(run(0, 0, &in, &again, &ra), 0);
		assert_int_equal(rx, XDP_REDIRECT);
		assert_int_equal(rt, TC_ACT_REDIRECT);
		/* the egress MAC pair names the member; both hooks wrote the same */
		assert_memory_equal(out_x.b, out_t.b, out_x.len);
		assert_memory_equal(out_x.b, again.b, out_x.len);
		for (int p = 1; p <= 2; p++)
			if (!memcmp(out_x.b + 6, port_mac[p], 6))
				hits[p]++;
	}
	assert_int_equal(hits[1] + hits[2], 400);
	/* 400 flows over 2 members: a fair hash lands far inside 35%..65% */
	assert_in_range(hits[1], 140, 260);
}

/* ---- every reason: the ones table states produce, then `show drops` ---- */

/* Runs a v4 UDP frame from in_port to dst (ECN as given); the verdict's
 * reason must be counted once. */
static void expect_reason(int in_port, const char *dst, __u8 ecn, int map, __u32 reason)
{
	struct spec sp = {"reason", in_port,	 4, "10.0.1.2", dst,
			  64,	    IPPROTO_UDP, 1, 2,		.payload = 100};
	struct frame in, out;
	__u64 before = reason_count(map, reason);
	__u32 ret;

	build(&sp, &in);
	in.b[15] = ecn; /* TOS: DSCP 0 and this ECN; fix the checksum */
	in.b[24] = in.b[25] = 0;
	put16(in.b + 24, xfab_csum16(in.b + 14, 20));
	assert_int_equal(run(0, in_port, &in, &out, &ret), 0);
	if (reason_count(map, reason) != before + 1)
		fail_msg("reason %s not counted",
			 map == fd_drop_stats ? xfab_drop_name(reason) : xfab_punt_name(reason));
}

static void set_queue(__u32 slot, __u32 tc, __u64 backlog)
{
	assert_int_equal(h_set_queue(&H, slot, tc, backlog, xfab_mono_ns()), 0);
}

static void test_every_reason(void **state)
{
	const __u32 p6_slot = 4; /* config order: p1 p2 p3 p5 p6 */
	struct frame runt = {.len = 14};
	struct frame out;
	char dir[64], cmd[1024], json_out[16384], never[16384];
	__u64 before = reason_count(fd_drop_stats, XFAB_DROP_ETH_TRUNCATED);
	__u32 ret;
	FILE *p;
	size_t n;

	(void)state;
	/* a tag announced, none there */
	memcpy(runt.b, port_mac[0], 6);
	memcpy(runt.b + 6, host_mac, 6);
	put16(runt.b + 12, 0x8100);
	assert_int_equal(run(0, 0, &runt, &out, &ret), 0);
	assert_int_equal(reason_count(fd_drop_stats, XFAB_DROP_ETH_TRUNCATED), before + 1);
	/* queue: above the buffer; above Kmax for a Not-ECT packet */
	set_queue(p6_slot, 1, 1450);
	expect_reason(0, "10.66.0.1", 2, fd_drop_stats, XFAB_DROP_BUFFER_FULL);
	set_queue(p6_slot, 1, 300);
	expect_reason(0, "10.66.0.1", 0, fd_drop_stats, XFAB_DROP_WRED);
	/* a FIB entry for a nexthop that does not exist (10.68.0.0/16) */
	H.fib4.tbl16[10u << 8 | 68u] = XFAB_FIB4_ENTRY(XFAB_RT_NEXTHOP, XFAB_MAX_NEXTHOPS - 1);
	expect_reason(0, "10.68.0.1", 0, fd_drop_stats, XFAB_DROP_NEXTHOP_INVALID);
	/* traffic into an admin-down port */
	expect_reason(4, "10.8.0.1", 0, fd_drop_stats, XFAB_DROP_PORT_DOWN);
	/* p6 goes down: its single-nexthop route has no egress; the group of
	 * (admin-down p5, p6) has no live member */
	H.oper_up[5] = 0;
	assert_int_equal(h_reapply(&H, NULL), 0);
	expect_reason(0, "10.66.0.1", 0, fd_drop_stats, XFAB_DROP_EGRESS_DOWN);
	expect_reason(0, "10.67.0.1", 0, fd_drop_stats, XFAB_DROP_GROUP_EMPTY);
	H.oper_up[5] = 1;
	assert_int_equal(h_reapply(&H, NULL), 0);
	/* MAC control frames (bpf/pfc.h): cut short, another opcode, another
	 * destination */
	{
		static const struct {
			__u8 dst0;
			__u16 opcode;
			size_t len;
			__u32 reason;
		} mc[] = {{0x01, 0x0101, 16, XFAB_DROP_MAC_CONTROL_TRUNCATED},
			  {0x01, 0x0202, 18, XFAB_DROP_MAC_CONTROL_BAD_OPCODE},
			  {0x03, 0x0101, 18, XFAB_DROP_MAC_CONTROL_BAD_DST}};

		for (size_t i = 0; i < sizeof(mc) / sizeof(mc[0]); i++) {
			struct frame f = {.b = {mc[i].dst0, 0x80, 0xc2, 0, 0, 0x01},
					  .len = mc[i].len};
			__u64 n0 = reason_count(fd_drop_stats, mc[i].reason);

			memcpy(f.b + 6, host_mac, 6);
			put16(f.b + 12, 0x8808);
			put16(f.b + 14, mc[i].opcode);
			assert_int_equal(run(i & 1, 0, &f, &out, &ret), 0);
			assert_int_equal(reason_count(fd_drop_stats, mc[i].reason), n0 + 1);
		}
	}
	/* the PFC watchdog's drop action: tc forwarding from a lossless port
	 * (p1) into a stormed queue (p6's) */
	{
		struct spec sp = {"wd", 0,	     4, "10.0.1.2", "10.0.6.1",
				  64,	IPPROTO_UDP, 1, 2,	    .payload = 100};
		struct xfab_pfc_cfg pc = {.wd_drop = 0xff}, zero = {0};
		__u64 n0 = reason_count(fd_drop_stats, XFAB_DROP_PFC_WATCHDOG);
		int fd_pfc = h_map_fd(&H, XFAB_MAP_PFC_CFG), fd_ports = H.fd[XFAB_T_PORTS];
		struct xfab_port p1;
		struct frame in;

		build(&sp, &in);
		assert_int_equal(bpf_map_lookup_elem(fd_ports, &ifindex[0], &p1), 0);
		p1.flags |= XFAB_PORT_LOSSLESS;
		assert_int_equal(bpf_map_update_elem(fd_ports, &ifindex[0], &p1, BPF_ANY), 0);
		assert_int_equal(bpf_map_update_elem(fd_pfc, &p6_slot, &pc, BPF_ANY), 0);
		assert_int_equal(run(1, 0, &in, &out, &ret), 0);
		assert_int_equal(ret, 2); /* TC_ACT_SHOT */
		p1.flags &= ~XFAB_PORT_LOSSLESS;
		assert_int_equal(bpf_map_update_elem(fd_ports, &ifindex[0], &p1, BPF_ANY), 0);
		assert_int_equal(bpf_map_update_elem(fd_pfc, &p6_slot, &zero, BPF_ANY), 0);
		assert_int_equal(reason_count(fd_drop_stats, XFAB_DROP_PFC_WATCHDOG), n0 + 1);
	}

	/* Every reason of the ABI was counted, and `xfabctl show drops` shows it
	 * (the overlay's, vxlan_* and vnet_*, are test_vxlan's to count, CoPP's
	 * copp_policed test_copp's, the ACL's acl_drop test_acl's). */
	assert_int_equal(xfab_ensure_bpffs(), 0); /* a fresh box has no bpffs mounted */
	snprintf(dir, sizeof(dir), "/sys/fs/bpf/xfab-test-%d", (int)getpid());
	assert_int_equal(bpf_object__pin_maps(H.skel->obj, dir), 0);
	/* ACL: acl_drop is test_acl's to count */
	snprintf(cmd, sizeof(cmd),
		 "%s -P %s -j show drops | jq -c '[.drops[], .punts[] | "
		 "select(.packets == 0) | .reason | "
		 "select(test(\"^(vxlan|vnet|copp|acl)_\") | not)]'",
		 h_build_path("xfabctl"), dir);
	p = popen(cmd, "r");
	n = p ? fread(never, 1, sizeof(never) - 1, p) : 0;
	never[n] = '\0';
	if (p)
		pclose(p);
	/* ... each once, by a name of its own: listed and distinct names */
	snprintf(cmd, sizeof(cmd),
		 "%s -P %s -j show drops | jq -c '[(.drops | length), ([.drops[].reason] | "
		 "unique | length), (.punts | length), ([.punts[].reason] | unique | length)]'",
		 h_build_path("xfabctl"), dir);
	p = popen(cmd, "r");
	n = p ? fread(json_out, 1, sizeof(json_out) - 1, p) : 0;
	json_out[n] = '\0';
	if (p)
		pclose(p);
	/* the pins go before any check can fail (nothing left behind) */
	bpf_object__unpin_maps(H.skel->obj, dir);
	rmdir(dir);
	print_message("    reasons never counted: %s", never);
	assert_string_equal(never, "[]\n");
	snprintf(cmd, sizeof(cmd), "[%d,%d,%d,%d]\n", XFAB_DROP_MAX - 1, XFAB_DROP_MAX - 1,
		 XFAB_PUNT_MAX - 1, XFAB_PUNT_MAX - 1);
	assert_string_equal(json_out, cmd);
}

/* ---- setup: private netns, veth ports, tables from a config ---- */

static int setup(void **state)
{
	(void)state;
	if (h_setup(&H, N_PORTS, config_text))
		return -1;
	for (int p = 0; p < N_PORTS; p++)
		ifindex[p] = H.ifindex[p];
	fd_port_stats = h_map_fd(&H, XFAB_MAP_PORT_STATS);
	fd_drop_stats = h_map_fd(&H, XFAB_MAP_DROP_STATS);
	fd_punt_stats = h_map_fd(&H, XFAB_MAP_PUNT_STATS);
	fd_groups = h_map_fd(&H, XFAB_MAP_GROUPS);
	fd_nexthops = h_map_fd(&H, XFAB_MAP_NEXTHOPS);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	h_teardown(&H);
	return 0;
}

int main(void)
{
	struct CMUnitTest tests[2 * N_CASES + 2];
	char *names[2 * N_CASES];
	size_t n = 0;

	for (size_t i = 0; i < N_CASES; i++) {
		for (int tc = 0; tc < 2 - cases[i].xdp_only; tc++) {
			if (asprintf(&names[n], "%s [%s]", cases[i].name, tc ? "tc" : "xdp") < 0)
				return 1;
			tests[n] =
			    (struct CMUnitTest){.name = names[n],
						.test_func = tc ? test_case_tc : test_case_xdp,
						.initial_state = (void *)&cases[i]};
			n++;
		}
	}
	tests[n++] = (struct CMUnitTest){.name = "group spread, stability, xdp == tc",
					 .test_func = test_group_spread};
	tests[n++] = (struct CMUnitTest){.name = "every drop and punt reason, in show drops",
					 .test_func = test_every_reason};
	return _cmocka_run_group_tests("bpf_packets", tests, n, setup, teardown);
}
