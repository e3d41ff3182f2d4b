// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Load-balancing tests through the loaded data plane (BPF_PROG_TEST_RUN):
 * spread (chi-square), weights, resilient member removal and re-add,
 * stability, E-ECMP on RoCE QPs, symmetric and VXLAN-inner hashing,
 * flowlets (gap, counters, least loaded), TE pinning with fallback, local
 * repair (bounce, split horizon), and a port failing under its packets (the
 * tc datapath's egress reroute, a group's member whose port went down).
 * The member a packet took is read from its rewritten destination MAC.
 */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
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
#include "frame.h"
#include "harness.h"
#include "stats.h"
#include "xfab_hash.h"

#define N_FLOWS 10000

/*
 * p1: ingress (10.0.1.1/24). p2: 16 gateways 10.0.2.1..16 (MAC ..:02:NN).
 * p3..p8: one gateway each, 10.0.P.1 (MAC ..:0P:01), for per-port groups.
 */
#define CFG_HEAD                                                                                   \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"lb-test\", \"hash_seed\": 7}},\n"  \
	" \"PORT\": {\"p1\": {}, \"p2\": {}, \"p3\": {}, \"p4\": {}, \"p5\": {}, \"p6\": {}, "     \
	"\"p7\": {}, \"p8\": {}},\n"                                                               \
	" \"INTERFACE\": {\"p1|10.0.1.1/24\": {}, \"p2|10.0.2.254/24\": {}, \"p3|10.0.3.0/31\": "  \
	"{}, "                                                                                     \
	"\"p4|10.0.4.0/31\": {}, \"p5|10.0.5.0/31\": {}, \"p6|10.0.6.0/31\": {}, "                 \
	"\"p7|10.0.7.0/31\": {}, "                                                                 \
	"\"p8|10.0.8.0/31\": {}},\n"

static char *make_config(const char *extra_tables, const char *route6)
{
	static char buf[8192];
	char neigh[4096];
	size_t n = 0;

	n += (size_t)snprintf(neigh + n, sizeof(neigh) - n, " \"NEIGH\": {");
	for (int i = 1; i <= 16; i++)
		n += (size_t)snprintf(neigh + n, sizeof(neigh) - n,
				      "\"p2|10.0.2.%d\": {\"neigh\": \"02:00:00:00:02:%02x\"}, ", i,
				      i);
	for (int p = 3; p <= 8; p++)
		n += (size_t)snprintf(neigh + n, sizeof(neigh) - n,
				      "\"p%d|10.0.%d.1\": {\"neigh\": \"02:00:00:00:%02x:01\"}%s",
				      p, p, p, p == 8 ? "" : ", ");
	snprintf(neigh + n, sizeof(neigh) - n, "}");
	snprintf(buf, sizeof(buf),
		 CFG_HEAD
		 " \"ROUTE\": {\n"
		 "  \"10.2.0.0/16\": {\"nexthop\": \"10.0.2.1,10.0.2.2\"},\n"
		 "  \"10.4.0.0/16\": {\"nexthop\": \"10.0.2.1,10.0.2.2,10.0.2.3,10.0.2.4\"},\n"
		 "  \"10.8.0.0/16\": {\"nexthop\": "
		 "\"10.0.2.1,10.0.2.2,10.0.2.3,10.0.2.4,10.0.2.5,10.0.2.6,10.0.2.7,10.0.2.8\"},\n"
		 "  \"10.16.0.0/16\": {\"nexthop\": "
		 "\"10.0.2.1,10.0.2.2,10.0.2.3,10.0.2.4,10.0.2.5,10.0.2.6,10.0.2.7,10.0.2.8,"
		 "10.0.2.9,10.0.2.10,10.0.2.11,10.0.2.12,10.0.2.13,10.0.2.14,10.0.2.15,"
		 "10.0.2.16\"},\n"
		 "  \"10.20.0.0/16\": {\"nexthop\": \"10.0.2.1,10.0.2.2,10.0.2.3\", "
		 "\"weight\": \"1,2,5\"},\n"
		 "  \"10.30.0.0/16\": {\"nexthop\": \"10.0.2.1,10.0.3.1\"},\n"
		 "  \"10.60.0.0/16\": {\"nexthop\": "
		 "\"10.0.3.1,10.0.4.1,10.0.5.1,10.0.6.1,10.0.7.1,10.0.8.1\"}%s},\n"
		 "%s,\n%s\n}\n",
		 route6 ? route6 : "", neigh, extra_tables ? extra_tables : "\"ECMP\": {}");
	return buf;
}

static struct harness H;

/* ---- frames ---- */

struct flow {
	__u32 src, dst; /* host order */
	__u16 sport, dport;
	__u32 qp;
	__u8 ttl; /* 0: 64 */
};

static __u32 rng_state = 12345;

/* Each test starts from its own fixed seed: it repeats exactly, alone or
 * after any other test. */
static void seed(__u32 s)
{
	rng_state = s;
}

static __u32 rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

/* Ethernet + IPv4 + UDP (+ a RoCEv2 BTH when dport is 4791), 32 bytes after
 * the UDP header. */
static size_t build_udp(__u8 *b, int in_port, const struct flow *f)
{
	struct xfab_frame fr = {
	    .l3 = XFAB_FRAME_IPV4,
	    .ip4 = {.ttl = f->ttl ? f->ttl : 64},
	    .l4 = {.proto = IPPROTO_UDP, .sport = f->sport, .dport = f->dport},
	    .bth = {.present = f->dport == 4791, .opcode = 0x04, .dest_qp = f->qp},
	    .payload_len = f->dport == 4791 ? 32 - 12 : 32};
	__u32 src = htonl(f->src), dst = htonl(f->dst);

	memcpy(fr.dmac, H.mac[in_port], 6);
	memcpy(fr.smac, "\x02\xaa\x00\x00\x00\x01", 6);
	memcpy(fr.ip4.src, &src, 4);
	memcpy(fr.ip4.dst, &dst, 4);
	assert_int_equal(xfab_frame_build(&fr, b, 14 + 20 + 8 + 32, NULL), 14 + 20 + 8 + 32);
	return 14 + 20 + 8 + 32;
}

/* Sends a frame; returns the member: 1..16 for 10.0.2.N, 100 + P for
 * port P's gateway; -1 if not forwarded. */
static int send_frame(int tc, int in_port, const __u8 *frame, size_t len)
{
	__u8 out[256];
	size_t out_len = sizeof(out);
	__u32 ret;

	assert_int_equal(h_run(&H, tc, in_port, frame, len, out, &out_len, &ret), 0);
	if (ret != (tc ? 7u /* TC_ACT_REDIRECT */ : 4u /* XDP_REDIRECT */))
		return -1;
	if (out[4] == 0x02)
		return out[5];
	return 100 + out[4];
}

static int send_flow(int tc, int in_port, const struct flow *f)
{
	__u8 frame[256];
	size_t len = build_udp(frame, in_port, f);

	return send_frame(tc, in_port, frame, len);
}

static struct flow random_flow(__u32 dst_net)
{
	struct flow f = {
	    .src = 0x0a010000u | (rnd() & 0xffff), /* 10.1.x.y */
	    .dst = dst_net | (rnd() & 0xffff),
	    .sport = (__u16)(1024 + rnd() % 60000),
	    .dport = (__u16)(1024 + rnd() % 60000),
	};
	return f;
}

/* ---- statistics ---- */

/* Every member's share of N_FLOWS random flows lies within the binomial
 * tolerance (stats.h) around N_FLOWS / members, all members at once. */
static void spread_test(int members, __u32 dst_net, int tc)
{
	int counts[17] = {0}, lo = N_FLOWS, hi = 0;
	double tol = binom_tol(N_FLOWS, 1.0 / members, members);

	seed(0x5eed0000u + (__u32)members * 2 + (__u32)tc);
	for (int i = 0; i < N_FLOWS; i++) {
		struct flow f = random_flow(dst_net);
		int m = send_flow(tc, 0, &f);

		assert_in_range(m, 1, members);
		counts[m - 1]++;
	}
	for (int m = 0; m < members; m++) {
		lo = counts[m] < lo ? counts[m] : lo;
		hi = counts[m] > hi ? counts[m] : hi;
	}
	print_message("    %d members, %d flows [%s]: %d..%d per member (%.0f +- %.0f)\n", members,
		      N_FLOWS, tc ? "tc" : "xdp", lo, hi, (double)N_FLOWS / members, tol);
	for (int m = 0; m < members; m++)
		assert_true(binom_ok(counts[m], N_FLOWS, 1.0 / members, members));
}

static void test_spread_2(void **state)
{
	(void)state;
	spread_test(2, 0x0a020000u, 0);
}

static void test_spread_4(void **state)
{
	(void)state;
	spread_test(4, 0x0a040000u, 0);
}

static void test_spread_8(void **state)
{
	(void)state;
	spread_test(8, 0x0a080000u, 0);
}

static void test_spread_16(void **state)
{
	(void)state;
	spread_test(16, 0x0a100000u, 0);
	spread_test(16, 0x0a100000u, 1);
}

/* The group of 10.20/16 (weights 1, 2, 5) and its member gateways. */
static void weighted_group(struct xfab_group *grp)
{
	__u32 e = xfab_fib4_lookup(H.fib4.tbl16, H.fib4.tbl8, H.fib4.n_groups, 0x0a140000),
	      gid = e & XFAB_FIB4_ID_MASK;

	assert_int_equal(e >> XFAB_FIB4_TYPE_SHIFT, XFAB_RT_GROUP);
	assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_GROUPS), &gid, grp), 0);
	assert_int_equal(grp->num_members, 3);
}

static int gateway_of(__u32 nh_id)
{
	struct xfab_nexthop nh;

	assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_NEXTHOPS), &nh_id, &nh), 0);
	return nh.dmac[4] == 0x02 ? nh.dmac[5] : 100 + nh.dmac[4];
}

/* Weights 1, 2, 5: the buckets split 32, 64, 160 exactly (256 * w / 8),
 * and random flows follow within the binomial tolerance. */
static void test_weighted(void **state)
{
	const double weights[3] = {1, 2, 5};
	int counts[3] = {0}, buckets[3] = {0};
	struct xfab_group grp;

	(void)state;
	seed(0x3e1647edu);
	weighted_group(&grp);
	for (int b = 0; b < XFAB_GROUP_BUCKETS; b++) {
		int g = gateway_of(grp.buckets[b]);

		assert_in_range(g, 1, 3);
		buckets[g - 1]++;
	}
	for (int m = 0; m < 3; m++)
		assert_int_equal(buckets[m], XFAB_GROUP_BUCKETS * weights[m] / 8);
	for (int i = 0; i < N_FLOWS; i++) {
		struct flow f = random_flow(0x0a140000u);
		int m = send_flow(0, 0, &f);

		assert_in_range(m, 1, 3);
		counts[m - 1]++;
	}
	for (int m = 0; m < 3; m++) {
		double want = N_FLOWS * weights[m] / 8;

		print_message("    member %d weight %.0f: %d flows (want %.0f +- %.0f)\n", m + 1,
			      weights[m], counts[m], want, binom_tol(N_FLOWS, weights[m] / 8, 3));
		assert_true(binom_ok(counts[m], N_FLOWS, weights[m] / 8, 3));
	}
}

/* Without flowlets, a flow never changes member; both hooks agree. */
static void test_stable(void **state)
{
	(void)state;
	seed(0x57ab1eu);
	for (int i = 0; i < 2000; i++) {
		struct flow f = random_flow(0x0a100000u);
		int m = send_flow(0, 0, &f);

		assert_int_equal(send_flow(0, 0, &f), m);
		assert_int_equal(send_flow(1, 0, &f), m);
	}
}

/* The bucket table of the group of 10.60/16 (six members, one per port
 * p3..p8; gateway of port P is "100 + P"). */
static void resilient_buckets(int *owner)
{
	__u32 e = xfab_fib4_lookup(H.fib4.tbl16, H.fib4.tbl8, H.fib4.n_groups, 0x0a3c0000),
	      gid = e & XFAB_FIB4_ID_MASK;
	struct xfab_group grp;

	assert_int_equal(e >> XFAB_FIB4_TYPE_SHIFT, XFAB_RT_GROUP);
	assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_GROUPS), &gid, &grp), 0);
	assert_int_equal(grp.num_members, 6);
	for (int b = 0; b < XFAB_GROUP_BUCKETS; b++)
		owner[b] = gateway_of(grp.buckets[b]);
}

/*
 * Resilient: one of 6 members (each on its own port) goes down.
 * Buckets: exactly the victim's buckets change owner, each to a live
 * member, and they spread evenly: every survivor ends with 256/5 buckets
 * (give or take the one a remainder gives), so it gains the victim's
 * buckets / 5 within 2. When it returns, only buckets towards it move,
 * and it gets its 256/6 share back.
 * Flows through the data plane: only the victim's flows move, each to a
 * live member; their number is the victim's share within the binomial
 * tolerance.
 */
static void test_resilient(void **state)
{
	static struct flow flows[N_FLOWS];
	static int before[N_FLOWS], during[N_FLOWS];
	int ob[XFAB_GROUP_BUCKETS], od[XFAB_GROUP_BUCKETS], oa[XFAB_GROUP_BUCKETS];
	int nb[109] = {0}, nd[109] = {0}, na[109] = {0}, victim_buckets = 0, back = 0;
	int moved = 0, moved_back = 0, on_victim = 0;
	const int n = 6, victim_port = 4, victim = 105; /* p5: gateway 10.0.5.1 */

	(void)state;
	seed(0x4e511e47u);
	resilient_buckets(ob);
	for (int b = 0; b < XFAB_GROUP_BUCKETS; b++) {
		assert_in_range(ob[b], 103, 108);
		nb[ob[b]]++;
	}
	for (int g = 103; g <= 108; g++) /* a fresh fill: 256/6 each */
		assert_in_range(nb[g], XFAB_GROUP_BUCKETS / n, XFAB_GROUP_BUCKETS / n + 1);
	for (int i = 0; i < N_FLOWS; i++) {
		flows[i] = random_flow(0x0a3c0000u);
		before[i] = send_flow(0, 0, &flows[i]);
		assert_in_range(before[i], 103, 108);
		on_victim += before[i] == victim;
	}

	H.oper_up[victim_port] = 0;
	assert_int_equal(h_reapply(&H, NULL), 0);
	resilient_buckets(od);
	for (int b = 0; b < XFAB_GROUP_BUCKETS; b++) {
		if (ob[b] == victim) {
			victim_buckets++;
			assert_int_not_equal(od[b], victim);
			assert_in_range(od[b], 103, 108);
		} else if (od[b] != ob[b]) {
			fail_msg("bucket %d moved from live member %d to %d", b, ob[b], od[b]);
		}
		nd[od[b]]++;
	}
	for (int g = 103; g <= 108; g++) {
		double gain = nd[g] - nb[g], even = victim_buckets / (n - 1.0);

		if (g == victim)
			continue;
		print_message("    member %d: %d -> %d buckets\n", g, nb[g], nd[g]);
		assert_in_range(nd[g], XFAB_GROUP_BUCKETS / (n - 1),
				XFAB_GROUP_BUCKETS / (n - 1) + 1);
		assert_true(gain >= even - 2 && gain <= even + 2);
	}
	for (int i = 0; i < N_FLOWS; i++) {
		int m = send_flow(0, 0, &flows[i]);

		during[i] = m;
		assert_int_not_equal(m, victim);
		if (m != before[i]) {
			moved++;
			assert_int_equal(before[i], victim); /* only the victim's flows move */
		}
	}

	H.oper_up[victim_port] = 1;
	assert_int_equal(h_reapply(&H, NULL), 0);
	resilient_buckets(oa);
	for (int b = 0; b < XFAB_GROUP_BUCKETS; b++) {
		if (oa[b] != od[b]) {
			assert_int_equal(oa[b], victim); /* only towards the returning member */
			back++;
		}
		na[oa[b]]++;
	}
	assert_in_range(na[victim], XFAB_GROUP_BUCKETS / n, XFAB_GROUP_BUCKETS / n + 1);
	assert_int_equal(back, na[victim]);
	/* the churn of the re-add: flows that change member at that moment */
	for (int i = 0; i < N_FLOWS; i++) {
		int m = send_flow(0, 0, &flows[i]);

		moved_back += m != during[i];
		if (m != during[i])
			assert_int_equal(m, victim);
	}
	print_message("    member down: %d of %d buckets and %d of %d flows moved (%d were on it; "
		      "%.0f +- %.0f); back up: %d buckets, %d flows\n",
		      victim_buckets, XFAB_GROUP_BUCKETS, moved, N_FLOWS, on_victim,
		      N_FLOWS * (double)victim_buckets / XFAB_GROUP_BUCKETS,
		      binom_tol(N_FLOWS, (double)victim_buckets / XFAB_GROUP_BUCKETS, 2), back,
		      moved_back);
	assert_int_equal(moved, on_victim);
	/* a flow lands in the victim's buckets with p = victim_buckets / 256 */
	assert_true(binom_ok(moved, N_FLOWS, (double)victim_buckets / XFAB_GROUP_BUCKETS, 2));
	assert_true(binom_ok(moved_back, N_FLOWS, (double)back / XFAB_GROUP_BUCKETS, 2));
}

/* E-ECMP: one 5-tuple, many QPs. Spread with ROCE_DEST_QP, none without. */
static void qp_spread(const char *ecmp, int *distinct)
{
	int seen[17] = {0};

	assert_int_equal(h_reapply(&H, make_config(ecmp, NULL)), 0);
	*distinct = 0;
	for (__u32 qp = 1; qp <= 256; qp++) {
		struct flow f = {.src = 0x0a010102u,
				 .dst = 0x0a100505u,
				 .sport = 49152,
				 .dport = 4791,
				 .qp = qp * 7 + 0x100};
		int m = send_flow(0, 0, &f);

		assert_in_range(m, 1, 16);
		if (!seen[m]++)
			(*distinct)++;
	}
}

static void test_qp_hashing(void **state)
{
	int on, off;

	(void)state;
	qp_spread("\"ECMP\": {\"global\": {\"hash_fields\": "
		  "\"SRC_IP,DST_IP,IP_PROTOCOL,L4_SRC_PORT,L4_DST_PORT,ROCE_DEST_QP\"}}",
		  &on);
	qp_spread("\"ECMP\": {}", &off);
	print_message("    256 QPs of one 5-tuple over 16 members: %d members with QP hashing, "
		      "%d without\n",
		      on, off);
	assert_true(on >= 14);
	assert_int_equal(off, 1);
}

/* Symmetric: both directions of a flow pick the same bucket. */
static void test_symmetric(void **state)
{
	int same_on = 0, same_off = 0;

	struct xfab_hash_key key;

	(void)state;
	seed(0x608e7du);
	xfab_hash_key_derive(&key, 7, XFAB_HASH_F_DEFAULT);
	for (int i = 0; i < 1000; i++) {
		struct xfab_flow a = {0}, b;

		a.src[0] = rnd();
		a.dst[0] = rnd();
		a.ports = rnd();
		a.proto = IPPROTO_TCP;
		b = a;
		b.src[0] = a.dst[0];
		b.dst[0] = a.src[0];
		b.ports = (a.ports >> 16) | (a.ports << 16);
		{
			struct xfab_flow a1 = a, b1 = b, a2 = a, b2 = b;

			xfab_flow_select(&a1, XFAB_HASH_F_DEFAULT, 1);
			xfab_flow_select(&b1, XFAB_HASH_F_DEFAULT, 1);
			xfab_flow_select(&a2, XFAB_HASH_F_DEFAULT, 0);
			xfab_flow_select(&b2, XFAB_HASH_F_DEFAULT, 0);
			same_on += xfab_flow_hash(&a1, &key) == xfab_flow_hash(&b1, &key);
			same_off += xfab_flow_hash(&a2, &key) == xfab_flow_hash(&b2, &key);
		}
	}
	assert_int_equal(same_on, 1000);
	assert_true(same_off < 5);
}

/* VXLAN: with INNER, tunnels with one outer 5-tuple spread by inner flow. */
static int vxlan_members(const char *ecmp)
{
	int seen[17] = {0}, distinct = 0;

	assert_int_equal(h_reapply(&H, make_config(ecmp, NULL)), 0);
	for (int i = 0; i < 128; i++) {
		struct flow outer = {
		    .src = 0x0a010102u, .dst = 0x0a100505u, .sport = 50000, .dport = 4789};
		__u8 frame[256], *vx, *ieth, *iip, *iudp;
		size_t len = build_udp(frame, 0, &outer);

		vx = frame + 14 + 20 + 8;
		memset(vx, 0, 8 + 14 + 20 + 8);
		vx[0] = 0x08;
		ieth = vx + 8;
		ieth[12] = 0x08;
		iip = ieth + 14;
		iip[0] = 0x45;
		iip[9] = IPPROTO_UDP;
		*(__u32 *)(iip + 12) = htonl(0xc0a80000u | (__u32)i);
		*(__u32 *)(iip + 16) = htonl(0xc0a90001u);
		iudp = iip + 20;
		*(__u16 *)iudp = htons((__u16)(1000 + i));
		*(__u16 *)(iudp + 2) = htons(80);
		if (len < 14 + 20 + 8 + 8 + 14 + 20 + 8)
			len = 14 + 20 + 8 + 8 + 14 + 20 + 8;
		{
			int m = send_frame(0, 0, frame, len);

			assert_in_range(m, 1, 16);
			if (!seen[m]++)
				distinct++;
		}
	}
	return distinct;
}

static void test_vxlan_inner(void **state)
{
	int inner, outer;

	(void)state;
	inner = vxlan_members("\"ECMP\": {\"global\": {\"hash_fields\": "
			      "\"SRC_IP,DST_IP,IP_PROTOCOL,L4_SRC_PORT,L4_DST_PORT,INNER\"}}");
	outer = vxlan_members("\"ECMP\": {}");
	print_message("    128 inner flows in one tunnel: %d members with INNER, %d without\n",
		      inner, outer);
	assert_true(inner >= 12);
	assert_int_equal(outer, 1);
}

static __u64 lb(__u32 event)
{
	return h_percpu_u64(&H, XFAB_MAP_LB_STATS, event, 0, 1);
}

/* The flowlet oracle's clock: each send bracketed by CLOCK_MONOTONIC, the
 * data plane's clock. A packet surely continues its flowlet (same member)
 * when even the longest idle time the brackets allow is under the gap,
 * surely starts a new one when even the shortest is not; one between (a
 * box that stalled the test near the gap) is left unjudged, so a slow box
 * leaves packets unjudged but never fails a right data plane. */
struct fl_clock {
	__u64 gap_ns, lo, hi; /* the flow's last send, bracketed */
	int member, hits, news, unsure, moves;
};

static int fl_send(struct fl_clock *c, int tc, const struct flow *f)
{
	__u64 lo = xfab_mono_ns(), hi;
	int m = send_flow(tc, 0, f);

	hi = xfab_mono_ns();
	if (!c->member) {
		c->news++;
	} else if (hi - c->lo < c->gap_ns) {
		c->hits++;
		assert_int_equal(m, c->member);
	} else if (lo - c->hi >= c->gap_ns) {
		c->news++;
	} else {
		c->unsure++;
	}
	c->moves += c->member && m != c->member;
	c->member = m;
	c->lo = lo;
	c->hi = hi;
	return m;
}

/* Flowlets: packets closer than the gap keep their member; after a longer
 * pause the next one starts a new flowlet; counters agree with what the
 * packets did, by the clock's account. */
static void test_flowlets(void **state)
{
	struct flow f = {
	    .src = 0x0a010102u, .dst = 0x0a100505u, .sport = 49152, .dport = 4791, .qp = 77};
	struct fl_clock c = {.gap_ns = 50000000ull};
	__u64 hit0, new0, moved0, hits, news;
	int members_seen = 0, seen[17] = {0};
	const int rounds = 24;

	(void)state;
	assert_int_equal(
	    h_reapply(&H, make_config("\"ECMP\": {}, \"FLOWLET\": {\"global\": "
				      "{\"enabled\": \"true\", \"gap_us\": \"50000\"}}",
				      NULL)),
	    0);
	hit0 = lb(XFAB_LB_FLOWLET_HIT);
	new0 = lb(XFAB_LB_FLOWLET_NEW);
	moved0 = lb(XFAB_LB_FLOWLET_MOVED);
	seen[fl_send(&c, 0, &f)] = 1;
	members_seen = 1;
	for (int i = 0; i < 50; i++) /* back to back: microseconds apart */
		fl_send(&c, i & 1, &f);
	assert_true(c.hits > 0);
	for (int r = 0; r < rounds; r++) {
		int m;

		usleep(100000); /* twice the gap: a sleep only oversleeps */
		m = fl_send(&c, 0, &f);
		assert_in_range(m, 1, 16);
		if (!seen[m]++)
			members_seen++;
		fl_send(&c, 0, &f); /* continues the new flowlet */
	}
	print_message("    %d flowlets after gaps: %d path changes, %d distinct members; %d sends "
		      "continued, %d started, %d too near the gap to judge\n",
		      rounds, c.moves, members_seen, c.hits, c.news, c.unsure);
	assert_int_equal(c.news + c.hits + c.unsure, 1 + 50 + 2 * rounds);
	news = lb(XFAB_LB_FLOWLET_NEW) - new0;
	hits = lb(XFAB_LB_FLOWLET_HIT) - hit0;
	assert_true(news >= (__u64)c.news && news <= (__u64)(c.news + c.unsure));
	assert_true(hits >= (__u64)c.hits && hits <= (__u64)(c.hits + c.unsure));
	assert_int_equal(news + hits, 1 + 50 + 2 * rounds);
	assert_int_equal(lb(XFAB_LB_FLOWLET_MOVED) - moved0, c.moves);
	assert_true(members_seen >= 4);
}

/* The flowlet table is indexed by hash: the slot a flow used names its
 * group and hash; a planted member of the same group is followed (flows in
 * one slot share its flowlet); a slot another group holds is taken back
 * with a new flowlet, never reused across groups. */
static void test_flowlet_slots(void **state)
{
	struct flow f = {
	    .src = 0x0a010103u, .dst = 0x0a100707u, .sport = 50000, .dport = 4791, .qp = 99};
	int fd = h_map_fd(&H, XFAB_MAP_FLOWLETS), used = 0, m, m2;
	struct xfab_flowlet fl = {0}, plant, back;
	struct xfab_group grp;
	__u32 slot = 0, other = 0;
	__u64 hit0, new0;

	(void)state;
	assert_int_equal(
	    h_reapply(&H, make_config("\"ECMP\": {}, \"FLOWLET\": {\"global\": "
				      "{\"enabled\": \"true\", \"gap_us\": \"1000000\"}}",
				      NULL)),
	    0);
	for (__u32 i = 0; i < XFAB_MAX_FLOWLETS; i++) { /* start from an empty table */
		struct xfab_flowlet e, zero = {0};

		if (bpf_map_lookup_elem(fd, &i, &e) == 0 && e.last_seen_ns)
			assert_int_equal(bpf_map_update_elem(fd, &i, &zero, BPF_ANY), 0);
	}
	m = send_flow(0, 0, &f);
	assert_in_range(m, 1, 16);
	for (__u32 i = 0; i < XFAB_MAX_FLOWLETS; i++) {
		struct xfab_flowlet e;

		if (bpf_map_lookup_elem(fd, &i, &e) == 0 && e.last_seen_ns) {
			used++;
			slot = i;
			fl = e;
		}
	}
	assert_int_equal(used, 1);
	assert_int_equal(slot, XFAB_FLOWLET_SLOT(fl.hash, fl.group));
	assert_int_equal(fl.flowlets, 1);
	assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_GROUPS), &fl.group, &grp), 0);
	assert_int_equal(grp.num_members, 16);
	for (int i = 0; i < grp.num_members && !other; i++)
		if (grp.members[i] != fl.nh_id)
			other = grp.members[i];

	/* same group, another member in the slot: the flow follows it */
	plant = fl;
	plant.nh_id = other;
	plant.last_seen_ns = xfab_mono_ns();
	assert_int_equal(bpf_map_update_elem(fd, &slot, &plant, BPF_ANY), 0);
	hit0 = lb(XFAB_LB_FLOWLET_HIT);
	m2 = send_flow(0, 0, &f);
	assert_true(m2 != m);
	assert_int_equal(lb(XFAB_LB_FLOWLET_HIT) - hit0, 1);

	/* another group holds the slot: a new flowlet, and the slot is ours again */
	plant.group = fl.group + 1;
	plant.last_seen_ns = xfab_mono_ns();
	assert_int_equal(bpf_map_update_elem(fd, &slot, &plant, BPF_ANY), 0);
	new0 = lb(XFAB_LB_FLOWLET_NEW);
	send_flow(0, 0, &f);
	assert_int_equal(lb(XFAB_LB_FLOWLET_NEW) - new0, 1);
	assert_int_equal(bpf_map_lookup_elem(fd, &slot, &back), 0);
	assert_int_equal(back.group, fl.group);
	assert_int_equal(back.hash, fl.hash);
	assert_int_equal(back.flowlets, 1);
}

static void set_load(int slot, __u64 bytes)
{
	struct xfab_port_load l = {.window_start_ns = xfab_mono_ns(), .bytes = bytes};
	__u32 key = (__u32)slot;

	assert_int_equal(bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_PORT_LOAD), &key, &l, BPF_ANY),
			 0);
}

/* Least loaded: a new flowlet takes the member whose port sent least. */
static void test_least_loaded(void **state)
{
	(void)state;
	seed(0x552fe6u);
	assert_int_equal(h_reapply(&H, make_config("\"ECMP\": {}, \"FLOWLET\": {\"global\": "
						   "{\"enabled\": \"true\", \"gap_us\": \"1000\", "
						   "\"mode\": \"least_loaded\", "
						   "\"load_window_us\": \"1000000\"}}",
						   NULL)),
			 0);
	for (int i = 0; i < 20; i++) {
		struct flow f = random_flow(0x0a1e0000u); /* 10.30/16: p2 .1 or p3 */

		set_load(1, 1000000000ull); /* p2 busy */
		set_load(2, 0);
		assert_int_equal(send_flow(0, 0, &f), 103);
		f.sport++;
		set_load(1, 0);
		set_load(2, 1000000000ull); /* p3 busy */
		assert_int_equal(send_flow(0, 0, &f), 1);
	}
}

/* A pinned flow's last hop (TTL 1) is the kernel's to answer, so traceroute
 * sees this switch: punted on both hooks, never steered. */
static void te_ttl_expired(void)
{
	struct flow f = random_flow(0x0a1e0100u);
	__u64 hit0 = lb(XFAB_LB_TE_HIT),
	      p0 = h_percpu_u64(&H, XFAB_MAP_PUNT_STATS, XFAB_PUNT_TTL_EXPIRED, 0, 2);

	f.dst = 0x0a1e0107u; /* 10.30.1.7 */
	f.ttl = 1;
	for (int tc = 0; tc < 2; tc++)
		assert_int_equal(send_flow(tc, 0, &f), -1);
	assert_int_equal(h_percpu_u64(&H, XFAB_MAP_PUNT_STATS, XFAB_PUNT_TTL_EXPIRED, 0, 2),
			 p0 + 2);
	assert_int_equal(lb(XFAB_LB_TE_HIT), hit0);
}

/* TE: <p1, 10.30.1.0/24> pinned to p3's gateway; other ingress ports use
 * the route's group; with p3 down the pin falls back to the group. */
static void test_te(void **state)
{
	const char *te = "\"ECMP\": {}, \"TE_PATH\": {\"p1|10.30.1.0/24\": {\"nexthop\": "
			 "\"10.0.3.1\"}}";
	__u64 hit0, fb0;
	int other_port_members[200] = {0}, via_p3 = 0;

	(void)state;
	seed(0x7e7e7eu);
	assert_int_equal(h_reapply(&H, make_config(te, NULL)), 0);
	hit0 = lb(XFAB_LB_TE_HIT);
	fb0 = lb(XFAB_LB_TE_FALLBACK);
	for (int i = 0; i < 100; i++) {
		struct flow f = random_flow(0x0a1e0100u & 0xffffff00u);

		f.dst = 0x0a1e0100u | (rnd() & 0xff);	     /* 10.30.1.x */
		assert_int_equal(send_flow(0, 0, &f), 103);  /* pinned */
		other_port_members[i] = send_flow(0, 3, &f); /* from p4: the group */
		via_p3 += other_port_members[i] == 103;
	}
	assert_int_equal(lb(XFAB_LB_TE_HIT) - hit0, 100);
	assert_true(binom_ok(via_p3, 100, 0.5, 1)); /* the group spreads p4's traffic */
	te_ttl_expired();
	H.oper_up[2] = 0; /* p3 down */
	assert_int_equal(h_reapply(&H, NULL), 0);
	for (int i = 0; i < 50; i++) {
		struct flow f = random_flow(0x0a1e0000u);

		f.dst = 0x0a1e0100u | (rnd() & 0xff);
		assert_int_equal(send_flow(0, 0, &f), 1); /* fallback: the group's live member */
	}
	assert_int_equal(lb(XFAB_LB_TE_FALLBACK) - fb0, 50);
	H.oper_up[2] = 1;
	assert_int_equal(h_reapply(&H, make_config(NULL, NULL)), 0);
}

/* A pin to a group (p4 and p5's gateways): steered while a member lives;
 * with both ports down, the route's own group (p2's and p3's gateways). */
static void test_te_group(void **state)
{
	const char *te = "\"ECMP\": {}, \"TE_PATH\": {\"p1|10.30.2.0/24\": {\"nexthop\": "
			 "\"10.0.4.1,10.0.5.1\"}}";
	__u64 fb0;

	(void)state;
	seed(0x7e7e02u);
	assert_int_equal(h_reapply(&H, make_config(te, NULL)), 0);
	for (int i = 0; i < 50; i++) {
		struct flow f = random_flow(0x0a1e0200u);
		int m;

		f.dst = 0x0a1e0200u | (rnd() & 0xff); /* 10.30.2.x */
		m = send_flow(i & 1, 0, &f);
		assert_true(m == 104 || m == 105);
	}
	H.oper_up[3] = H.oper_up[4] = 0; /* p4, p5 down */
	assert_int_equal(h_reapply(&H, NULL), 0);
	fb0 = lb(XFAB_LB_TE_FALLBACK);
	for (int i = 0; i < 50; i++) {
		struct flow f = random_flow(0x0a1e0200u);
		int m;

		f.dst = 0x0a1e0200u | (rnd() & 0xff);
		m = send_flow(i & 1, 0, &f);
		assert_true(m == 1 || m == 103);
	}
	assert_int_equal(lb(XFAB_LB_TE_FALLBACK) - fb0, 50);
	H.oper_up[3] = H.oper_up[4] = 1;
	assert_int_equal(h_reapply(&H, make_config(NULL, NULL)), 0);
}

/*
 * LOCAL_REPAIR. Bounce: a route whose only port is down (10.70/16 via p6)
 * or whose group has no live member (10.30/16 over p2 and p3) sends its
 * packets out of a repair port (p3, p4, p5: the peers of their /31s), the
 * flow's choice, never back where they came in; counted as repaired.
 * Split horizon: a group (10.60/16 over p3..p8) never picks the ingress port
 * while another member lives, and a flow keeps its choice. Without the
 * table, the same packets are dropped or go back.
 */
#define REPAIR_ROUTE                                                                               \
	",\n  \"10.70.0.0/16\": {\"nexthop\": \"10.0.6.1\"},\n  \"10.80.0.0/16\": {\"nexthop\": "  \
	"\"10.0.2.100\"}"
#define REPAIR_CFG                                                                                 \
	"\"ECMP\": {}, \"LOCAL_REPAIR\": {\"global\": {\"bounce\": \"true\", \"ports\": "          \
	"\"p3,p4,p5\", \"split_horizon\": \"true\"}}"

static void test_local_repair(void **state)
{
	int seen[200] = {0}, back = 0, before[400];
	__u64 rep0, sh0;

	(void)state;
	seed(0x4e9a1bu);
	/* without LOCAL_REPAIR: a dead path drops, a group may send back */
	assert_int_equal(h_reapply(&H, make_config(NULL, REPAIR_ROUTE)), 0);
	for (int i = 0; i < 200; i++) {
		struct flow f = random_flow(0x0a3c0000u); /* 10.60.x.y */

		back += send_flow(0, 2, &f) == 103; /* from p3, back to p3 */
	}
	assert_true(binom_ok(back, 200, 1.0 / 6, 1));
	H.oper_up[5] = 0; /* p6 down */
	assert_int_equal(h_reapply(&H, NULL), 0);
	{
		struct flow f = random_flow(0x0a460000u); /* 10.70.x.y */

		assert_int_equal(send_flow(0, 0, &f), -1);
	}

	/* with it */
	assert_int_equal(h_reapply(&H, make_config(REPAIR_CFG, REPAIR_ROUTE)), 0);
	rep0 = lb(XFAB_LB_REPAIRED);
	sh0 = lb(XFAB_LB_SPLIT_HORIZON);
	for (int i = 0; i < 300; i++) {
		struct flow f = random_flow(0x0a460000u);
		int m = send_flow(i & 1, 0, &f);

		assert_true(m == 103 || m == 104 || m == 105);
		seen[m - 100]++;
		assert_int_equal(send_flow(0, 0, &f), m); /* the flow keeps its repair port */
	}
	for (int p = 3; p <= 5; p++)
		assert_true(binom_ok(seen[p], 300, 1.0 / 3, 3));
	assert_int_equal(lb(XFAB_LB_REPAIRED) - rep0, 600);
	/* entering on a repair port: bounced to the two others only */
	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < 200; i++) {
		struct flow f = random_flow(0x0a460000u);
		int m = send_flow(i & 1, 3, &f); /* from p4 */

		assert_true(m == 103 || m == 105);
		seen[m - 100]++;
	}
	assert_true(seen[3] > 0 && seen[5] > 0);
	assert_int_equal(lb(XFAB_LB_REPAIRED) - rep0, 800);
	/* a group with no live member (p2 and p3 down): bounced to p4, p5 */
	H.oper_up[1] = H.oper_up[2] = 0;
	assert_int_equal(h_reapply(&H, NULL), 0);
	for (int i = 0; i < 100; i++) {
		struct flow f = random_flow(0x0a1e0000u); /* 10.30.x.y */
		int m = send_flow(0, 0, &f);

		assert_true(m == 104 || m == 105);
	}
	assert_int_equal(lb(XFAB_LB_REPAIRED) - rep0, 900);
	/* a nexthop with no neighbour (10.0.2.100 on p2, never resolved): on a
	 * live port the kernel resolves it (a punt), on a dead one (a carrier
	 * loss takes the neighbours with it) the packet bounces */
	{
		struct flow f = random_flow(0x0a500000u); /* 10.80.x.y */
		int m = send_flow(0, 0, &f);

		assert_true(m == 104 || m == 105); /* p2 is down here */
		H.oper_up[1] = 1;
		assert_int_equal(h_reapply(&H, NULL), 0);
		assert_int_equal(send_flow(0, 0, &f), -1); /* punted */
		assert_int_equal(lb(XFAB_LB_REPAIRED) - rep0, 901);
	}
	H.oper_up[1] = H.oper_up[2] = H.oper_up[5] = 1;
	assert_int_equal(h_reapply(&H, NULL), 0);
	/* a live path is not repaired */
	{
		struct flow f = random_flow(0x0a460000u);

		assert_int_equal(send_flow(0, 0, &f), 106);
		assert_int_equal(lb(XFAB_LB_REPAIRED) - rep0, 901);
	}

	/* split horizon: from p3, never p3; the others as they were */
	back = 0;
	for (int i = 0; i < 400; i++) {
		struct flow f = random_flow(0x0a3c0000u);
		int m = send_flow(i & 1, 2, &f);

		assert_true(m >= 104 && m <= 108);
		assert_int_equal(send_flow(0, 2, &f), m);
		before[i] = send_flow(0, 0, &f); /* from p1 the group's own choice */
		back += before[i] == 103;
		if (before[i] != 103)
			assert_int_equal(m, before[i]); /* only the ingress choice moved */
	}
	assert_true(back > 0);
	assert_int_equal(lb(XFAB_LB_SPLIT_HORIZON) - sh0, 2 * (__u64)back);
	/* the repair group's entries are 0.0.0.0/0 and ::/0 of its own table,
	 * and a config without the table takes them away */
	{
		struct xfab_lpm_v4_key k4 = {.prefixlen = 32, .table = htonl(XFAB_TABLE_REPAIR)};
		struct xfab_lpm_v6_key k6 = {.prefixlen = 32, .table = htonl(XFAB_TABLE_REPAIR)};
		struct xfab_route rt;

		assert_int_equal(bpf_map_lookup_elem(H.fd[XFAB_T_ROUTES_V4], &k4, &rt), 0);
		assert_int_equal(rt.type, XFAB_RT_GROUP);
		assert_int_equal(bpf_map_lookup_elem(H.fd[XFAB_T_ROUTES_V6], &k6, &rt), 0);
		assert_int_equal(h_reapply(&H, make_config(NULL, NULL)), 0);
		assert_int_not_equal(bpf_map_lookup_elem(H.fd[XFAB_T_ROUTES_V4], &k4, &rt), 0);
		assert_int_not_equal(bpf_map_lookup_elem(H.fd[XFAB_T_ROUTES_V6], &k6, &rt), 0);
	}
}

/* ---- a port failing under its packets (the tc datapath's egress) ---- */

static int sh(const char *cmd)
{
	int rc = system(cmd);

	if (rc)
		print_message("    `%s` failed (%d)\n", cmd, rc);
	return rc;
}

/* The port up again in the ports table, as xfabd writes it on the event. */
static void port_oper_up(int port)
{
	struct xfab_port v;

	assert_int_equal(bpf_map_lookup_elem(H.fd[XFAB_T_PORTS], &H.ifindex[port], &v), 0);
	v.flags |= XFAB_PORT_OPER_UP;
	assert_int_equal(bpf_map_update_elem(H.fd[XFAB_T_PORTS], &H.ifindex[port], &v, BPF_ANY), 0);
}

static __u32 port_flags(int port)
{
	struct xfab_port v = {0};

	assert_int_equal(bpf_map_lookup_elem(H.fd[XFAB_T_PORTS], &H.ifindex[port], &v), 0);
	return v.flags;
}

/* One forwarded frame through xfab_tc_egress of port out, as if the
 * pipeline had sent it there from port in (priority: the pipeline's mark,
 * 0x10000 | class + 1; 0 for one of the kernel's). The verdict; the frame
 * as it leaves in frame_out. */
static __u32 egress(int out, int in, __u32 priority, __u8 *frame_out)
{
	struct flow f = {.src = 0x0a010203u, .dst = 0x0a3c0105u, .sport = 7, .dport = 9};
	__u8 frame[256];
	size_t len = build_udp(frame, in, &f);
	struct __sk_buff ctx = {
	    .ifindex = H.ifindex[out], .ingress_ifindex = H.ifindex[in], .priority = priority};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = (__u32)len,
		    .data_out = frame_out, .data_size_out = 256, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = 1);

	memcpy(frame, "\x02\x00\x00\x00\x05\x01", 6); /* rewritten: to p5's gateway */
	memcpy(frame + 6, H.mac[out], 6);
	assert_int_equal(
	    bpf_prog_test_run_opts(bpf_program__fd(H.skel->progs.xfab_tc_egress), &opts), 0);
	return opts.retval;
}

/*
 * p5's device fails (no carrier: its peer taken down; then taken down
 * itself) while the ports table still says up, as between the failure and
 * xfabd hearing of it. A packet the pipeline sent to p5 meets the egress
 * program there: it takes p5 out of the ports table, gives the packet p1's
 * MAC back (it came in on p1) and sends it into p1's ingress again
 * (counted: rerouted); the kernel's own packets and a live device are left
 * alone. Then, with the buckets of 10.60.0.0/16's group still naming p5's
 * gateway (no xfabd rewrote them), the flows that were on p5 take another
 * live member, each its own and stable, and no other flow moves.
 */
static void test_port_down_under_its_packets(void **state)
{
	static struct flow flows[2000];
	static int before[2000];
	const int victim_port = 4, victim = 105; /* p5 */
	int on_victim = 0, moved = 0, seen[9] = {0};
	__u64 rr0 = lb(XFAB_LB_REROUTED);
	__u8 out[256];

	(void)state;
	seed(0xd0a11u);
	assert_int_equal(h_reapply(&H, make_config(NULL, NULL)), 0);
	for (int i = 0; i < 2000; i++) {
		flows[i] = random_flow(0x0a3c0000u); /* 10.60.x.y: p3..p8 */
		before[i] = send_flow(i & 1, 0, &flows[i]);
		assert_in_range(before[i], 103, 108);
		on_victim += before[i] == victim;
	}
	assert_true(on_victim > 0);

	/* up: nothing to do */
	assert_int_equal(egress(victim_port, 0, 0x10002, out), 0); /* TC_ACT_OK */
	assert_true(port_flags(victim_port) & XFAB_PORT_OPER_UP);
	assert_int_equal(lb(XFAB_LB_REROUTED), rr0);

	assert_int_equal(sh("ip link set p5peer down"), 0);  /* p5 loses its carrier */
	assert_int_equal(egress(victim_port, 0, 0, out), 0); /* the kernel's: its own */
	assert_int_equal(egress(victim_port, victim_port, 0x10002, out), 0);
	assert_true(port_flags(victim_port) & XFAB_PORT_OPER_UP);
	assert_int_equal(egress(victim_port, 0, 0x10002, out), 7); /* TC_ACT_REDIRECT */
	assert_memory_equal(out, H.mac[0], 6);
	assert_false(port_flags(victim_port) & XFAB_PORT_OPER_UP);
	assert_true(port_flags(victim_port) & XFAB_PORT_ADMIN_UP);
	assert_int_equal(lb(XFAB_LB_REROUTED) - rr0, 1);

	for (int i = 0; i < 2000; i++) {
		int m = send_flow(i & 1, 0, &flows[i]);

		assert_in_range(m, 103, 108);
		assert_int_not_equal(m, victim);
		assert_int_equal(send_flow(!(i & 1), 0, &flows[i]), m);
		if (before[i] == victim) {
			moved++;
			seen[m - 100]++;
		} else {
			assert_int_equal(m, before[i]);
		}
	}
	assert_int_equal(moved, on_victim);
	for (int p = 3; p <= 8; p++) /* spread over the live ones, not all on one */
		if (p != 5)
			assert_true(seen[p] < on_victim);

	/* taken down as well: the same */
	assert_int_equal(sh("ip link set p5 down"), 0);
	assert_int_equal(egress(victim_port, 1, 0x10001, out), 7);
	assert_memory_equal(out, H.mac[1], 6);
	assert_int_equal(lb(XFAB_LB_REROUTED) - rr0, 2);

	/* back: xfabd writes the entry again when it hears (here by hand) */
	assert_int_equal(sh("ip link set p5 up && ip link set p5peer up"), 0);
	port_oper_up(victim_port);
	for (int i = 0; i < 2000; i++)
		assert_int_equal(send_flow(0, 0, &flows[i]), before[i]);
}

/* The nexthop through port's gateway 10.0.<port + 1>.1, read into nh. */
static __u32 nexthop_on(int port, struct xfab_nexthop *nh)
{
	int fd = h_map_fd(&H, XFAB_MAP_NEXTHOPS);

	for (__u32 id = 1; id < XFAB_MAX_NEXTHOPS; id++)
		if (!bpf_map_lookup_elem(fd, &id, nh) && (nh->flags & XFAB_NH_VALID) &&
		    nh->ifindex == H.ifindex[port])
			return id;
	fail_msg("no nexthop on p%d", port + 1);
	return 0;
}

/*
 * A nexthop's own up bit (its record's copy of its port's up bits, which
 * xfabd writes in the link event's update): with only p5's nexthop record
 * saying down (the ports table says up, the group's buckets still name it,
 * its device carries), the flows on p5 take another live member from
 * their next frame on, and no other flow moves; with the record up again
 * every flow is back where it was.
 */
static void test_nexthop_up_bit(void **state)
{
	static struct flow flows[1000];
	static int before[1000];
	const int victim_port = 4, victim = 105; /* p5 */
	int fd = h_map_fd(&H, XFAB_MAP_NEXTHOPS), on_victim = 0;
	struct xfab_nexthop nh, down;
	__u32 id;

	(void)state;
	seed(0x0b17u);
	assert_int_equal(h_reapply(&H, make_config(NULL, NULL)), 0);
	id = nexthop_on(victim_port, &nh);
	for (int i = 0; i < 1000; i++) {
		flows[i] = random_flow(0x0a3c0000u); /* 10.60.x.y: p3..p8 */
		before[i] = send_flow(0, 0, &flows[i]);
		on_victim += before[i] == victim;
	}
	assert_true(on_victim > 0);
	down = nh;
	down.port.flags &= ~XFAB_PORT_OPER_UP;
	assert_int_equal(bpf_map_update_elem(fd, &id, &down, BPF_ANY), 0);
	for (int i = 0; i < 1000; i++) {
		int m = send_flow(i & 1, 0, &flows[i]);

		assert_in_range(m, 103, 108);
		if (before[i] == victim)
			assert_int_not_equal(m, victim);
		else
			assert_int_equal(m, before[i]);
	}
	assert_true(port_flags(victim_port) & XFAB_PORT_OPER_UP);
	assert_int_equal(bpf_map_update_elem(fd, &id, &nh, BPF_ANY), 0);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(send_flow(0, 0, &flows[i]), before[i]);
}

/* Frames port i sent (its tx_packets, summed over CPUs). */
static __u64 port_tx(int port)
{
	struct xfab_port v = {0};

	assert_int_equal(bpf_map_lookup_elem(H.fd[XFAB_T_PORTS], &H.ifindex[port], &v), 0);
	return h_percpu_u64(&H, XFAB_MAP_PORT_STATS, v.slot,
			    offsetof(struct xfab_port_stats, tx_packets) / 8, 6);
}

/* One live frame (really redirected through tx_ports) into port 0. */
static void send_live(const __u8 *frame, size_t len)
{
	struct xdp_md ctx = {.data_end = (__u32)len, .ingress_ifindex = H.ifindex[0]};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = (__u32)len,
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = 1,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES);

	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(H.skel->progs.xfab_xdp), &opts), 0);
}

/* Frames ports 1..7 sent, the victim's aside. */
static __u64 others_tx(int victim_port)
{
	__u64 n = 0;

	for (int i = 1; i < 8; i++)
		if (i != victim_port)
			n += port_tx(i);
	return n;
}

/*
 * The xdp datapath's answer to the same failure: frames really redirected
 * (live, through tx_ports) while the ports table still says p5 is up.
 *   - The data plane knows p5's device from p5's first frame in (its XDP
 *     program notes it in port_dev). When p5 loses its
 *     carrier, or is taken down, the pipeline sees it before it redirects:
 *     the flow's next frame leaves by another member, none is lost, nothing
 *     counts as egress_down, and the ports table stays xfabd's to write.
 *   - A device never seen (port_dev cleared here): the frame goes to p5,
 *     the DEVMAP egress program drops it (the kernel would), counted as
 *     egress_down, and takes p5 out of the ports table at once, so the next
 *     frame takes another member without waiting for xfabd.
 */
static void test_xdp_port_down_under_its_packets(void **state)
{
	const int victim_port = 4, victim = 105; /* p5 */
	struct bpf_devmap_val dv = {.ifindex = H.ifindex[victim_port]};
	int port_dev = bpf_map__fd(H.skel->maps.port_dev);
	__u64 down0 = h_percpu_u64(&H, XFAB_MAP_DROP_STATS, XFAB_DROP_EGRESS_DOWN, 0, 2);
	__u64 dev = 0, zero = 0, v0, o0;
	struct xfab_port vp;
	struct flow f;
	__u8 frame[256];
	__u32 vslot;
	size_t len;
	int tries = 0;

	(void)state;
	seed(0xde7a0u);
	assert_int_equal(h_reapply(&H, make_config(NULL, NULL)), 0);
	/* tx_ports is indexed by the port's slot */
	assert_int_equal(bpf_map_lookup_elem(H.fd[XFAB_T_PORTS], &H.ifindex[victim_port], &vp), 0);
	vslot = vp.slot;
	do { /* a flow that ECMP sends to p5 */
		f = random_flow(0x0a3c0000u);
		assert_true(++tries < 1000);
	} while (send_flow(0, 0, &f) != victim);
	len = build_udp(frame, 0, &f);
	dv.bpf_prog.fd = bpf_program__fd(H.skel->progs.xfab_xdp_egress);
	/* a veth takes XDP frames only with GRO (or an XDP program) on its peer */
	assert_int_equal(sh("ethtool -K p5peer gro on >/dev/null"), 0);
	assert_int_equal(bpf_map_update_elem(H.fd[XFAB_T_TX_PORTS], &vslot, &dv, BPF_ANY), 0);
	assert_int_equal(bpf_map_update_elem(port_dev, &H.ifindex[victim_port], &zero, BPF_ANY), 0);

	/* up: through p5; a frame p5 receives makes its device known */
	v0 = port_tx(victim_port);
	send_live(frame, len);
	assert_int_equal(port_tx(victim_port) - v0, 1);
	assert_int_equal(bpf_map_lookup_elem(port_dev, &H.ifindex[victim_port], &dev), 0);
	assert_true(dev == 0);
	(void)send_flow(0, victim_port, &f);
	assert_int_equal(bpf_map_lookup_elem(port_dev, &H.ifindex[victim_port], &dev), 0);
	assert_true(dev != 0);

	/* carrier lost, then taken down: seen at ingress, nothing lost */
	for (int how = 0; how < 2; how++) {
		assert_int_equal(sh(how ? "ip link set p5peer up && ip link set p5 down"
					: "ip link set p5peer down"),
				 0);
		v0 = port_tx(victim_port);
		o0 = others_tx(victim_port);
		send_live(frame, len);
		assert_int_equal(port_tx(victim_port) - v0, 0);
		assert_int_equal(others_tx(victim_port) - o0, 1);
		assert_int_equal(
		    h_percpu_u64(&H, XFAB_MAP_DROP_STATS, XFAB_DROP_EGRESS_DOWN, 0, 2) - down0, 0);
		assert_true(port_flags(victim_port) & XFAB_PORT_OPER_UP);
		{
			int m = send_flow(0, 0, &f);

			assert_in_range(m, 103, 108);
			assert_int_not_equal(m, victim);
		}
	}
	assert_int_equal(sh("ip link set p5 up"), 0);
	assert_int_equal(send_flow(0, 0, &f), victim);

	/* a device not seen yet: the egress program catches the frame */
	assert_int_equal(sh("ip link set p5peer down"), 0);
	assert_int_equal(bpf_map_update_elem(port_dev, &H.ifindex[victim_port], &zero, BPF_ANY), 0);
	send_live(frame, len);
	assert_false(port_flags(victim_port) & XFAB_PORT_OPER_UP);
	assert_true(port_flags(victim_port) & XFAB_PORT_ADMIN_UP);
	assert_int_equal(h_percpu_u64(&H, XFAB_MAP_DROP_STATS, XFAB_DROP_EGRESS_DOWN, 0, 2) - down0,
			 1);
	{
		int m = send_flow(0, 0, &f);

		assert_in_range(m, 103, 108);
		assert_int_not_equal(m, victim);
	}

	assert_int_equal(sh("ip link set p5peer up && ethtool -K p5peer gro off >/dev/null"), 0);
	dv.bpf_prog.fd = 0;
	assert_int_equal(bpf_map_update_elem(H.fd[XFAB_T_TX_PORTS], &vslot, &dv, BPF_ANY), 0);
	port_oper_up(victim_port); /* as xfabd does when it hears */
}

H_GROUP_FIXTURES(H, 8, make_config(NULL, NULL))

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_spread_2),
	    cmocka_unit_test(test_spread_4),
	    cmocka_unit_test(test_spread_8),
	    cmocka_unit_test(test_spread_16),
	    cmocka_unit_test(test_weighted),
	    cmocka_unit_test(test_stable),
	    cmocka_unit_test(test_resilient),
	    cmocka_unit_test(test_qp_hashing),
	    cmocka_unit_test(test_symmetric),
	    cmocka_unit_test(test_vxlan_inner),
	    cmocka_unit_test(test_flowlets),
	    cmocka_unit_test(test_flowlet_slots),
	    cmocka_unit_test(test_least_loaded),
	    cmocka_unit_test(test_te),
	    cmocka_unit_test(test_te_group),
	    cmocka_unit_test(test_local_repair),
	    cmocka_unit_test(test_nexthop_up_bit),
	    cmocka_unit_test(test_port_down_under_its_packets),
	    cmocka_unit_test(test_xdp_port_down_under_its_packets),
	};
	return cmocka_run_group_tests_name("bpf_load_balancing", tests, setup, teardown);
}
