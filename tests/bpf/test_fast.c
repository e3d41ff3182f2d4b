// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The xdp fast path (bpf/fast.h): which frames it forwards itself and which
 * it leaves to the general pipeline, and that what it forwards is right.
 *
 * - A plain IPv4 frame to a nexthop route, to a group and to a connected
 *   route's neighbour is forwarded with no miss counted (fast_stats): the bytes are the oracle's
 * (MACs, TTL, the checksum by RFC 1071 written out), the ports' counters move by one.
 * - For 64 flows (UDP ports, and RoCEv2 QPs under E-ECMP), the member the
 *   fast path sends to is the one the multilinear hash (include/xfab_hash.h's
 *   comment, written out here from it) picks with the loaded keys: the
 *   fast path hashes the fields the pipeline hashes.
 * - Each kind of frame it must not decide is counted under its own reason,
 *   exactly once, and then decided by the pipeline (the drop or punt its
 *   own suites check).
 * Which of the two ran is seen in the pipeline's scratch slot, which only
 * the pipeline writes (h_scratch_marked, harness.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "harness.h"
#include "oracle.h"

/* p1 ingress; 10.9/16 (fd09::/32) by the gateway on p2; 10.8/16 (fd08::/32)
 * over both gateways; 10.7/16 a blackhole; 10.6/16 by a gateway with no
 * MAC; p4 down. */
#define FAST_CONFIG(ECMP)                                                                          \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"fast-test\"}},\n"                  \
	" \"PORT\": {\"p1\": {}, \"p2\": {}, \"p3\": {}, \"p4\": {\"admin_status\": \"down\"}},\n" \
	" \"INTERFACE\": {\"p1|10.0.1.1/24\": {}, \"p2|10.0.2.0/31\": {}, \"p3|10.0.3.2/24\": "    \
	"{},\n"                                                                                    \
	"   \"p4|10.0.4.0/31\": {}, \"p1|fd01::1/64\": {}, \"p2|fd02::/127\": {},\n"               \
	"   \"p3|fd03::/127\": {}},\n"                                                             \
	" \"ROUTE\": {\"10.9.0.0/16\": {\"nexthop\": \"10.0.2.1\"},\n"                             \
	"   \"10.8.0.0/16\": {\"nexthop\": \"10.0.2.1,10.0.3.1\"},\n"                              \
	"   \"10.7.0.0/16\": {\"blackhole\": \"true\"},\n"                                         \
	"   \"10.6.0.0/16\": {\"nexthop\": \"10.0.3.9\"},\n"                                       \
	"   \"fd09::/32\": {\"nexthop\": \"fd02::1\"},\n"                                          \
	"   \"fd08::/32\": {\"nexthop\": \"fd02::1,fd03::1\"}},\n"                                 \
	" \"NEIGH\": {\"p2|10.0.2.1\": {\"neigh\": \"02:00:00:00:02:01\"},\n"                      \
	"   \"p3|10.0.3.1\": {\"neigh\": \"02:00:00:00:03:01\"},\n"                                \
	"   \"p2|fd02::1\": {\"neigh\": \"02:00:00:00:02:01\"},\n"                                 \
	"   \"p3|fd03::1\": {\"neigh\": \"02:00:00:00:03:01\"}},\n"                                \
	" \"DSCP_TO_TC_MAP\": {\"M\": {\"10\": \"4\"}}" ECMP "\n"                                  \
	"}\n"

static const char *config_text = FAST_CONFIG("");
static const char *config_eecmp =
    FAST_CONFIG(",\n \"ECMP\": {\"global\": {\"hash_fields\": "
		"\"SRC_IP,DST_IP,IP_PROTOCOL,L4_SRC_PORT,L4_DST_PORT,ROCE_DEST_QP\"}}");
static const char *config_flow_label =
    FAST_CONFIG(",\n \"ECMP\": {\"global\": {\"hash_fields\": "
		"\"SRC_IP,DST_IP,IP_PROTOCOL,L4_SRC_PORT,L4_DST_PORT,IPV6_FLOW_LABEL\"}}");
static const char *config_symmetric =
    FAST_CONFIG(",\n \"ECMP\": {\"global\": {\"symmetric\": \"true\"}}");

static struct harness H;
H_GROUP_FIXTURES(H, 4, config_text)

static const uint8_t gw2_mac[6] = {0x02, 0, 0, 0, 0x02, 0x01};
static const uint8_t gw3_mac[6] = {0x02, 0, 0, 0, 0x03, 0x01};
static const uint8_t host_mac[6] = {0x02, 0xaa, 0, 0, 0, 0x01};

struct frame {
	uint8_t b[256];
	size_t len;
};

#define L3 14

/* Ethernet + IPv4 (no options) + UDP + a 12-byte BTH-sized payload, from
 * 10.0.1.2 to dst, TTL 64, sealed by RFC 1071. */
static void build(struct frame *f, const char *dst, uint16_t sport, uint16_t dport, uint32_t qp)
{
	uint8_t *ip = f->b + L3, *udp = ip + 20;

	memset(f, 0, sizeof(*f));
	put_eth(f->b, H.mac[0], host_mac, ETH_P_IP);
	ip[0] = 0x45;
	put16(ip + 2, 20 + 8 + 12 + 6);
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	inet_pton(AF_INET, "10.0.1.2", ip + 12);
	inet_pton(AF_INET, dst, ip + 16);
	put16(ip + 10, rfc1071(ip, 20));
	put16(udp, sport);
	put16(udp + 2, dport);
	put16(udp + 4, 8 + 12 + 6);
	udp[8 + 5] = (uint8_t)(qp >> 16); /* the BTH's destination QP */
	udp[8 + 6] = (uint8_t)(qp >> 8);
	udp[8 + 7] = (uint8_t)qp;
	f->len = L3 + 20 + 8 + 12 + 6;
}

/* Ethernet + IPv6 + UDP + 12 + 6 bytes, fd01::2 to dst, hop limit 64,
 * flow label `label`. */
static void build6(struct frame *f, const char *dst, uint16_t sport, uint32_t label)
{
	uint8_t *ip = f->b + L3, *udp = ip + 40;

	memset(f, 0, sizeof(*f));
	put_eth(f->b, H.mac[0], host_mac, ETH_P_IPV6);
	ip[0] = 0x60;
	ip[1] = (uint8_t)(label >> 16 & 0x0f);
	put16(ip + 2, (uint16_t)label);
	put16(ip + 4, 8 + 12 + 6);
	ip[6] = IPPROTO_UDP;
	ip[7] = 64;
	inet_pton(AF_INET6, "fd01::2", ip + 8);
	inet_pton(AF_INET6, dst, ip + 24);
	put16(udp, sport);
	put16(udp + 2, 5000);
	put16(udp + 4, 8 + 12 + 6);
	f->len = L3 + 40 + 8 + 12 + 6;
}

static void reseal(struct frame *f)
{
	put16(f->b + L3 + 10, 0);
	put16(f->b + L3 + 10, rfc1071(f->b + L3, (size_t)(f->b[L3] & 0x0f) * 4));
}

static uint64_t misses(__u32 why)
{
	return h_percpu_u64(&H, XFAB_MAP_FAST_STATS, why, 0, 2);
}

static uint64_t tx_packets(int port)
{
	return h_percpu_u64(&H, XFAB_MAP_PORT_STATS, (__u32)port, 2, 6);
}

/* The entry point run() takes: xfab_xdp, or xfab_tc (use_tc), which
 * leaves the skb's priority (the egress qdisc's class) in tc_priority. */
static int use_tc;
static __u32 tc_priority;

/* Runs f through the entry point: the verdict, the output in out. */
static __u32 run(const struct frame *f, struct frame *out)
{
	struct __sk_buff sctx = {.ifindex = H.ifindex[0]}, sout;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = f->b, .data_size_in = (__u32)f->len,
		    .data_out = out->b, .data_size_out = sizeof(out->b), .ctx_in = &sctx,
		    .ctx_size_in = sizeof(sctx), .ctx_out = &sout, .ctx_size_out = sizeof(sout),
		    .repeat = 1);
	__u32 retval = 0;

	if (use_tc) {
		assert_int_equal(
		    bpf_prog_test_run_opts(bpf_program__fd(H.skel->progs.xfab_tc), &opts), 0);
		out->len = opts.data_size_out;
		tc_priority = sout.priority;
		return opts.retval;
	}
	out->len = sizeof(out->b);
	assert_int_equal(h_run(&H, 0, 0, f->b, f->len, out->b, &out->len, &retval), 0);
	return retval;
}

/* Forwarded by the fast path to the gateway with MAC gw out of port
 * `port`: no miss counted, the oracle's bytes, one more tx there. */
static void expect_fast(const char *what, const struct frame *f, const uint8_t *gw, int port)
{
	uint64_t before[XFAB_FAST_MISS_MAX], tx = tx_packets(port);
	struct frame out, want = *f;

	for (__u32 r = 0; r < XFAB_FAST_MISS_MAX; r++)
		before[r] = misses(r);
	assert_int_equal(h_scratch_mark(&H), 0);
	if (run(f, &out) != (use_tc ? TC_ACT_REDIRECT : XDP_REDIRECT))
		fail_msg("%s: not redirected", what);
	if (h_scratch_marked(&H) != 1)
		fail_msg("%s: the general pipeline ran", what);
	for (__u32 r = 0; r < XFAB_FAST_MISS_MAX; r++)
		if (misses(r) != before[r])
			fail_msg("%s: left to the pipeline (%u)", what, r);
	memcpy(want.b, gw, 6);
	memcpy(want.b + 6, H.mac[port], 6);
	if (get16(f->b + 12) == ETH_P_IPV6) {
		want.b[L3 + 7]--;
	} else {
		want.b[L3 + 8]--;
		reseal(&want);
	}
	if (out.len != want.len || memcmp(out.b, want.b, want.len))
		fail_msg("%s: bytes differ from the oracle's", what);
	assert_int_equal(tx_packets(port) - tx, 1);
}

/* Left to the pipeline for reason why alone, with verdict `verdict`. */
static void expect_miss(const char *what, const struct frame *f, __u32 why, __u32 verdict)
{
	uint64_t before[XFAB_FAST_MISS_MAX];
	struct frame out;
	__u32 v;

	for (__u32 r = 0; r < XFAB_FAST_MISS_MAX; r++)
		before[r] = misses(r);
	assert_int_equal(h_scratch_mark(&H), 0);
	v = run(f, &out);
	if (h_scratch_marked(&H) != 0)
		fail_msg("%s: the general pipeline did not run", what);
	for (__u32 r = 0; r < XFAB_FAST_MISS_MAX; r++)
		if (misses(r) - before[r] != (r == why ? 1u : 0u))
			fail_msg("%s: reason %u moved by %llu (want %u)", what, r,
				 (unsigned long long)(misses(r) - before[r]), why);
	if (v != verdict)
		fail_msg("%s: verdict %u, want %u", what, v, verdict);
}

static void test_forwarded(void **state)
{
	struct frame f;

	(void)state;
	assert_int_equal(h_reapply(&H, config_text), 0);
	build(&f, "10.9.1.1", 4000, 5000, 0);
	expect_fast("nexthop route", &f, gw2_mac, 1);
	f.b[L3 + 9] = IPPROTO_TCP; /* any protocol; a TCP header's worth of bytes */
	reseal(&f);
	expect_fast("nexthop route, TCP", &f, gw2_mac, 1);
	f.b[L3 + 9] = 47; /* GRE: no ports */
	reseal(&f);
	expect_fast("nexthop route, GRE", &f, gw2_mac, 1);
	f.b[L3 + 8] = 2; /* the last TTL that forwards */
	reseal(&f);
	expect_fast("TTL 2", &f, gw2_mac, 1);
	build6(&f, "fd09::1", 4000, 0);
	expect_fast("IPv6 nexthop route", &f, gw2_mac, 1);
	f.b[L3 + 6] = IPPROTO_TCP;
	expect_fast("IPv6 nexthop route, TCP", &f, gw2_mac, 1);
	f.b[L3 + 7] = 2;
	expect_fast("hop limit 2", &f, gw2_mac, 1);
	build(&f, "10.0.3.1", 4000, 5000, 0); /* p3's subnet: its neighbour */
	expect_fast("connected route", &f, gw3_mac, 2);
}

/* The port (1: p2, 2: p3) of the gateway the bucket for hash names in
 * the two-member group of the family (v6). */
static int bucket_port(uint32_t hash, int v6)
{
	struct xfab_group grp;
	struct xfab_nexthop nh;
	__u32 id, nh_id;

	for (id = 0; id < XFAB_MAX_GROUPS; id++)
		if (!bpf_map_lookup_elem(H.fd[XFAB_T_GROUPS], &id, &grp) && grp.num_members == 2 &&
		    !bpf_map_lookup_elem(H.fd[XFAB_T_NEXTHOPS], &grp.members[0], &nh) &&
		    !(nh.flags & XFAB_NH_IPV6) == !v6)
			break;
	assert_true(id < XFAB_MAX_GROUPS);
	nh_id = grp.buckets[hash & (XFAB_GROUP_BUCKETS - 1)];
	assert_int_equal(bpf_map_lookup_elem(H.fd[XFAB_T_NEXTHOPS], &nh_id, &nh), 0);
	if (!memcmp(nh.dmac, gw2_mac, 6))
		return 1;
	assert_memory_equal(nh.dmac, gw3_mac, 6);
	return 2;
}

/* The port of the member the loaded hash keys pick for frame f. */
static int group_port(const struct frame *f, int v6)
{
	struct xfab_settings cfg;
	__u32 zero = 0;

	assert_int_equal(bpf_map_lookup_elem(H.fd[XFAB_T_SETTINGS], &zero, &cfg), 0);
	return bucket_port(oracle_flow_hash(&cfg.ecmp_key, f->b + L3, f->len - L3), v6);
}

/* 64 flows of a group: each to the member the hash picks; both used.
 * by_qp: RoCEv2 flows apart by their QP alone; v6: IPv6 flows apart by
 * their port and flow label. */
static void check_group(int by_qp, int v6)
{
	int to[2] = {0, 0};

	for (uint32_t i = 0; i < 64; i++) {
		uint32_t qp = by_qp ? 0x10000 + i * 7 : 0;
		struct frame f;
		char what[48];
		int port;

		if (v6)
			build6(&f, "fd08::1", (uint16_t)(1000 + i), 0x12345 + i * 0x111);
		else
			build(&f, "10.8.0.1", (uint16_t)(by_qp ? 49152 : 1000 + i), 4791, qp);
		port = group_port(&f, v6);
		snprintf(what, sizeof(what), "group flow %u%s", i, v6 ? " (IPv6)" : "");
		expect_fast(what, &f, port == 1 ? gw2_mac : gw3_mac, port);
		to[port - 1]++;
	}
	if (!to[0] || !to[1])
		fail_msg("64 flows all on one member (%d, %d)", to[0], to[1]);
}

static void test_group(void **state)
{
	(void)state;
	assert_int_equal(h_reapply(&H, config_text), 0);
	check_group(0, 0);
	check_group(0, 1);
	assert_int_equal(h_reapply(&H, config_eecmp), 0);
	check_group(1, 0);
	assert_int_equal(h_reapply(&H, config_flow_label), 0);
	check_group(0, 1);
	assert_int_equal(h_reapply(&H, config_text), 0);
}

static void test_frame_misses(void **state)
{
	struct frame f;

	(void)state;
	assert_int_equal(h_reapply(&H, config_text), 0);
	build(&f, "10.9.1.1", 4000, 5000, 0);
	f.len = L3 + 20 + 19; /* one byte short of the 54 read at once */
	put16(f.b + L3 + 2, 20 + 19);
	reseal(&f);
	expect_miss("53 bytes", &f, XFAB_FAST_MISS_FRAME, XDP_REDIRECT);
	build(&f, "10.9.1.1", 4000, 5000, 0);
	f.b[L3 + 8] = 1;
	reseal(&f);
	expect_miss("TTL 1", &f, XFAB_FAST_MISS_FRAME, XDP_PASS);
	build(&f, "10.9.1.1", 4000, 5000, 0);
	f.b[L3 + 10] ^= 1;
	expect_miss("bad checksum", &f, XFAB_FAST_MISS_FRAME, XDP_DROP);
	build(&f, "10.9.1.1", 4000, 5000, 0);
	put16(f.b + L3 + 6, 0x2000); /* MF: a first fragment */
	reseal(&f);
	expect_miss("fragment", &f, XFAB_FAST_MISS_FRAME, XDP_REDIRECT);
	build(&f, "10.8.0.1", 4000, 5000, 0); /* options: four EOL bytes */
	memmove(f.b + L3 + 24, f.b + L3 + 20, f.len - L3 - 20);
	memset(f.b + L3 + 20, 0, 4);
	f.b[L3] = 0x46;
	f.len += 4;
	put16(f.b + L3 + 2, (uint16_t)(f.len - L3));
	reseal(&f);
	expect_miss("IPv4 options", &f, XFAB_FAST_MISS_FRAME, XDP_REDIRECT);
	build(&f, "255.255.255.255", 4000, 5000, 0);
	expect_miss("limited broadcast", &f, XFAB_FAST_MISS_FRAME, XDP_PASS);
	build(&f, "10.9.1.1", 4000, 5000, 0);
	f.b[6] = 0x03; /* a multicast source MAC */
	expect_miss("multicast source MAC", &f, XFAB_FAST_MISS_FRAME, XDP_DROP);
	build6(&f, "fd09::1", 4000, 0);
	f.b[L3 + 7] = 1;
	expect_miss("hop limit 1", &f, XFAB_FAST_MISS_FRAME, XDP_PASS);
	build6(&f, "fd09::1", 4000, 0);
	f.b[L3 + 6] = 0; /* a hop-by-hop header next */
	expect_miss("IPv6 hop-by-hop", &f, XFAB_FAST_MISS_FRAME, XDP_PASS);
	build6(&f, "fd09::1", 4000, 0);
	put16(f.b + L3 + 4, 8 + 12 + 7); /* one byte past the frame */
	expect_miss("IPv6 payload length", &f, XFAB_FAST_MISS_FRAME, XDP_DROP);
	build6(&f, "fe80::1", 4000, 0);
	expect_miss("IPv6 link-local", &f, XFAB_FAST_MISS_FRAME, XDP_PASS);
	build6(&f, "fd09::1", 4000, 0);
	inet_pton(AF_INET6, "fe80::2", f.b + L3 + 8);
	expect_miss("IPv6 link-local source", &f, XFAB_FAST_MISS_FRAME, XDP_PASS);
	build6(&f, "fd09::1", 4000, 0);
	f.len = L3 + 40 + 19; /* one byte short of the 74 read at once */
	put16(f.b + L3 + 4, 19);
	expect_miss("73 bytes", &f, XFAB_FAST_MISS_FRAME, XDP_REDIRECT);
}

static void test_other_misses(void **state)
{
	struct frame f;

	(void)state;
	assert_int_equal(h_reapply(&H, config_text), 0);
	build(&f, "10.9.1.1", 4000, 5000, 0);
	f.b[5] ^= 0x10; /* another unicast MAC than p1's */
	expect_miss("not p1's MAC", &f, XFAB_FAST_MISS_PORT, XDP_DROP);
	build(&f, "10.9.1.1", 4000, 4789, 0);
	expect_miss("VXLAN", &f, XFAB_FAST_MISS_VXLAN, XDP_REDIRECT);
	build(&f, "10.7.1.1", 4000, 5000, 0);
	expect_miss("blackhole", &f, XFAB_FAST_MISS_ROUTE, XDP_DROP);
	build(&f, "10.0.1.9", 4000, 5000, 0);
	expect_miss("connected route, no neighbour", &f, XFAB_FAST_MISS_ROUTE, XDP_PASS);
	build(&f, "10.5.1.1", 4000, 5000, 0);
	expect_miss("no route", &f, XFAB_FAST_MISS_ROUTE, XDP_DROP);
	build(&f, "10.6.1.1", 4000, 5000, 0);
	expect_miss("unresolved gateway", &f, XFAB_FAST_MISS_EGRESS, XDP_PASS);
	H.oper_up[1] = H.oper_up[2] = 0; /* both members' links down */
	assert_int_equal(h_reapply(&H, NULL), 0);
	build(&f, "10.8.0.1", 4000, 5000, 0);
	expect_miss("group all down", &f, XFAB_FAST_MISS_ROUTE, XDP_DROP);
	H.oper_up[1] = H.oper_up[2] = 1;
	assert_int_equal(h_reapply(&H, NULL), 0);
	assert_int_equal(h_reapply(&H, config_symmetric), 0);
	build(&f, "10.8.0.1", 4000, 5000, 0);
	expect_miss("symmetric hashing", &f, XFAB_FAST_MISS_SETTINGS, XDP_REDIRECT);
	assert_int_equal(h_reapply(&H, config_text), 0);
}

/* The tc entry point's fast path: the same bytes, and the skb's priority
 * the class of the packet's DSCP (DSCP_TO_TC_MAP: 10 -> 4, priority
 * 1:(4 + 1), docs/QOS.md); a miss is the pipeline's there too. */
static void test_tc(void **state)
{
	struct frame f;

	(void)state;
	assert_int_equal(h_reapply(&H, config_text), 0);
	use_tc = 1;
	build(&f, "10.9.1.1", 4000, 5000, 0);
	f.b[L3 + 1] = 10 << 2;
	reseal(&f);
	expect_fast("tc, IPv4", &f, gw2_mac, 1);
	assert_int_equal(tc_priority, 0x10000 | 5);
	build6(&f, "fd09::1", 4000, 0);
	f.b[L3] = 0x60 | (10 << 2) >> 4; /* traffic class 0x28 */
	f.b[L3 + 1] = (uint8_t)((10 << 2) << 4);
	expect_fast("tc, IPv6", &f, gw2_mac, 1);
	assert_int_equal(tc_priority, 0x10000 | 5);
	for (uint16_t sport = 4000; sport < 4016; sport++) {
		int port;

		build(&f, "10.8.0.1", sport, 5000, 0);
		port = group_port(&f, 0);
		expect_fast("tc, group", &f, port == 1 ? gw2_mac : gw3_mac, port);
	}
	build(&f, "10.9.1.1", 4000, 5000, 0);
	f.b[L3 + 8] = 1;
	reseal(&f);
	expect_miss("tc, TTL 1", &f, XFAB_FAST_MISS_FRAME, TC_ACT_OK);
	use_tc = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_forwarded),	 cmocka_unit_test(test_group),
	    cmocka_unit_test(test_frame_misses), cmocka_unit_test(test_other_misses),
	    cmocka_unit_test(test_tc),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
