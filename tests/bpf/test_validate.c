// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RFC 1812 5.2.2 header validation, through both entry points (xfab_xdp
 * and xfab_tc): every malformed frame is dropped, its own drop reason goes
 * up by exactly one (no other reason moves), and no tx counter moves. The
 * tc egress program passes the same frames through untouched (it only
 * queues what the stack sends). Positive controls: a header with a correct
 * checksum (computed here by RFC 1071, written out in this file), with
 * options, at each boundary, forwards with the exact bytes expected.
 *
 * Boundaries on both sides: IHL 5 / 4; total length == frame / frame + 1,
 * == header length / header length - 1; IPv6 payload length == frame /
 * frame + 1; header one byte short; checksum 0x0000 (and its one's
 * complement twin 0xffff) against its neighbours.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "harness.h"
#include "oracle.h"

/* p1: ingress (10.0.1.1/24, fd01::1/64). p2: towards the gateway of
 * 10.9.0.0/16 and fd09::/32, MAC 02:00:00:00:02:01. */
static const char *config_text =
    "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"validate-test\"}},\n"
    " \"PORT\": {\"p1\": {}, \"p2\": {}},\n"
    " \"INTERFACE\": {\"p1|10.0.1.1/24\": {}, \"p1|fd01::1/64\": {},\n"
    "   \"p2|10.0.2.0/31\": {}, \"p2|fd02::/127\": {}},\n"
    " \"ROUTE\": {\"10.9.0.0/16\": {\"nexthop\": \"10.0.2.1\"},\n"
    "   \"fd09::/32\": {\"nexthop\": \"fd02::1\"}},\n"
    " \"NEIGH\": {\"p2|10.0.2.1\": {\"neigh\": \"02:00:00:00:02:01\"},\n"
    "   \"p2|fd02::1\": {\"neigh\": \"02:00:00:00:02:01\"}}\n"
    "}\n";

static struct harness H;
H_GROUP_FIXTURES(H, 2, config_text)

static const uint8_t gw_mac[6] = {0x02, 0, 0, 0, 0x02, 0x01};
static const uint8_t host_mac[6] = {0x02, 0xaa, 0, 0, 0, 0x01};

/* ---- the oracle: RFC 1071 written out, not the library's or the BPF's ---- */

struct frame {
	uint8_t b[512];
	size_t len;
};

#define L3 14 /* untagged */

/* Ethernet + IPv4 (20 + opts bytes of header, NOP options ending in EOL) +
 * UDP + payload, to 10.9.0.1, TTL 64, correct checksum. */
static void build4(struct frame *f, size_t opts, size_t payload)
{
	uint8_t *ip = f->b + L3, *udp;
	size_t hl = 20 + opts;

	memset(f, 0, sizeof(*f));
	put_eth(f->b, H.mac[0], host_mac, ETH_P_IP);
	ip[0] = (uint8_t)(0x40 | hl / 4);
	ip[1] = 0x28;
	put16(ip + 2, (uint16_t)(hl + 8 + payload));
	put16(ip + 4, 0x1234);
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	inet_pton(AF_INET, "10.0.1.2", ip + 12);
	inet_pton(AF_INET, "10.9.0.1", ip + 16);
	for (size_t i = 0; i < opts; i++) /* NOPs, then EOL: a valid option list */
		ip[20 + i] = i + 1 == opts ? 0 : 1;
	put16(ip + 10, rfc1071(ip, hl));
	udp = ip + hl;
	put16(udp, 4000);
	put16(udp + 2, 5000);
	put16(udp + 4, (uint16_t)(8 + payload));
	for (size_t i = 0; i < payload; i++)
		udp[8 + i] = (uint8_t)(i * 13 + 1);
	f->len = L3 + hl + 8 + payload;
}

static void build6(struct frame *f, size_t payload)
{
	uint8_t *ip = f->b + L3, *udp = ip + 40;

	memset(f, 0, sizeof(*f));
	put_eth(f->b, H.mac[0], host_mac, ETH_P_IPV6);
	ip[0] = 0x60;
	put16(ip + 4, (uint16_t)(8 + payload));
	ip[6] = IPPROTO_UDP;
	ip[7] = 64;
	inet_pton(AF_INET6, "fd01::2", ip + 8);
	inet_pton(AF_INET6, "fd09::1", ip + 24);
	put16(udp, 4000);
	put16(udp + 2, 5000);
	put16(udp + 4, (uint16_t)(8 + payload));
	for (size_t i = 0; i < payload; i++)
		udp[8 + i] = (uint8_t)(i * 13 + 1);
	f->len = L3 + 40 + 8 + payload;
}

/* Re-seals the IPv4 header checksum after a test changed a field. */
static void reseal4(struct frame *f)
{
	uint8_t *ip = f->b + L3;
	size_t hl = (size_t)(ip[0] & 0x0f) * 4;

	put16(ip + 10, 0);
	put16(ip + 10, rfc1071(ip, hl < 20 ? 20 : hl));
}

/* What a forwarded frame must be: MACs rewritten, TTL/hop limit one less,
 * the IPv4 checksum recomputed from scratch; every other byte as sent. */
static void expected_forward(const struct frame *in, struct frame *want)
{
	uint8_t *ip = want->b + L3;

	*want = *in;
	memcpy(want->b, gw_mac, 6);
	memcpy(want->b + 6, H.mac[1], 6);
	if (get16(in->b + 12) == ETH_P_IP) {
		size_t hl = (size_t)(ip[0] & 0x0f) * 4;

		ip[8]--;
		put16(ip + 10, 0);
		put16(ip + 10, rfc1071(ip, hl));
	} else {
		ip[7]--;
	}
}

/* Inserts an 802.1Q tag (VLAN 100) after the MACs. */
static void tag(struct frame *f)
{
	memmove(f->b + 16, f->b + 12, f->len - 12);
	put16(f->b + 12, ETH_P_8021Q);
	put16(f->b + 14, 100);
	f->len += 4;
}

/* ---- counters ---- */

struct counts {
	uint64_t drops[XFAB_DROP_MAX];
	uint64_t tx_packets, tx_bytes, rx_packets;
};

static void counts(struct counts *c)
{
	memset(c, 0, sizeof(*c));
	for (__u32 r = 0; r < XFAB_DROP_MAX; r++)
		c->drops[r] = h_percpu_u64(&H, XFAB_MAP_DROP_STATS, r, 0, 2);
	for (__u32 slot = 0; slot < XFAB_MAX_PORTS; slot++) {
		c->rx_packets += h_percpu_u64(&H, XFAB_MAP_PORT_STATS, slot, 0, 6);
		c->tx_packets += h_percpu_u64(&H, XFAB_MAP_PORT_STATS, slot, 2, 6);
		c->tx_bytes += h_percpu_u64(&H, XFAB_MAP_PORT_STATS, slot, 3, 6);
	}
}

static const char *path_name(int tc)
{
	return tc ? "tc" : "xdp";
}

/* The tc egress program on p2 leaves the frame alone: TC_ACT_OK, no drop
 * counted, bytes unchanged. */
static void check_egress_passes(const char *what, const struct frame *in)
{
	struct __sk_buff ctx = {.ifindex = H.ifindex[1]};
	uint8_t out[sizeof(in->b)];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in->b, .data_size_in = (__u32)in->len,
		    .data_out = out, .data_size_out = sizeof(out), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = 1);
	struct counts before, after;

	counts(&before);
	if (bpf_prog_test_run_opts(bpf_program__fd(H.skel->progs.xfab_tc_egress), &opts))
		fail_msg("%s: tc egress test run failed", what);
	counts(&after);
	if (opts.retval != TC_ACT_OK)
		fail_msg("%s: tc egress verdict %u, not TC_ACT_OK", what, opts.retval);
	if (memcmp(before.drops, after.drops, sizeof(before.drops)))
		fail_msg("%s: tc egress counted a drop", what);
	if (opts.data_size_out != in->len || memcmp(out, in->b, in->len))
		fail_msg("%s: tc egress changed the frame", what);
}

/* The frame is dropped on the xdp datapath, and unless xdp_only on the tc
 * one, with `reason`, counted once. */
static void expect_drop_on(const char *what, const struct frame *in, __u32 reason, int xdp_only)
{
	for (int tc = 0; tc < (xdp_only ? 1 : 2); tc++) {
		struct counts before, after;
		struct frame out = {.len = sizeof(out.b)};
		__u32 ret;

		counts(&before);
		if (h_run(&H, tc, 0, in->b, in->len, out.b, &out.len, &ret))
			fail_msg("%s [%s]: test run failed: %s", what, path_name(tc),
				 strerror(errno));
		counts(&after);
		if (ret != (tc ? TC_ACT_SHOT : XDP_DROP))
			fail_msg("%s [%s]: verdict %u, not a drop", what, path_name(tc), ret);
		for (__u32 r = 0; r < XFAB_DROP_MAX; r++) {
			uint64_t d = after.drops[r] - before.drops[r], want = r == reason;

			if (d != want)
				fail_msg("%s [%s]: drop reason %s moved by %llu (expected %s)",
					 what, path_name(tc), xfab_drop_name(r),
					 (unsigned long long)d, xfab_drop_name(reason));
		}
		if (after.tx_packets != before.tx_packets || after.tx_bytes != before.tx_bytes)
			fail_msg("%s [%s]: a tx counter moved", what, path_name(tc));
		if (after.rx_packets != before.rx_packets + 1)
			fail_msg("%s [%s]: not counted as received", what, path_name(tc));
	}
	if (!xdp_only)
		check_egress_passes(what, in);
}

static void expect_drop(const char *what, const struct frame *in, __u32 reason)
{
	expect_drop_on(what, in, reason, 0);
}

/* A frame whose IP header is cut short: BPF_PROG_TEST_RUN builds no skb
 * of an untagged one (the kernel wants the IP header it names), so the tc
 * datapath sees it behind a VLAN tag, where the kernel does not look. */
static void expect_truncated_drop(const char *what, const struct frame *in, __u32 reason)
{
	struct frame tagged = *in;
	char what_tagged[96];

	expect_drop_on(what, in, reason, 1);
	tag(&tagged);
	snprintf(what_tagged, sizeof(what_tagged), "%s, tagged", what);
	expect_drop(what_tagged, &tagged, reason);
}

/* The frame is forwarded on both datapaths, out of p2 with exactly the
 * expected bytes, and no drop is counted. */
static void expect_forward(const char *what, const struct frame *in)
{
	struct frame want;

	expected_forward(in, &want);
	for (int tc = 0; tc < 2; tc++) {
		struct counts before, after;
		struct frame out = {.len = sizeof(out.b)};
		__u32 ret;

		counts(&before);
		if (h_run(&H, tc, 0, in->b, in->len, out.b, &out.len, &ret))
			fail_msg("%s [%s]: test run failed: %s", what, path_name(tc),
				 strerror(errno));
		counts(&after);
		if (ret != (tc ? TC_ACT_REDIRECT : XDP_REDIRECT))
			fail_msg("%s [%s]: verdict %u, not forwarded", what, path_name(tc), ret);
		if (memcmp(before.drops, after.drops, sizeof(before.drops)))
			fail_msg("%s [%s]: a drop was counted", what, path_name(tc));
		if (after.tx_packets != before.tx_packets + 1)
			fail_msg("%s [%s]: tx not counted", what, path_name(tc));
		if (out.len != want.len)
			fail_msg("%s [%s]: %zu bytes out, expected %zu", what, path_name(tc),
				 out.len, want.len);
		for (size_t i = 0; i < want.len; i++)
			if (out.b[i] != want.b[i])
				fail_msg("%s [%s]: byte %zu is 0x%02x, expected 0x%02x", what,
					 path_name(tc), i, out.b[i], want.b[i]);
	}
	check_egress_passes(what, in);
}

/* ---- IPv4 ---- */

static void test_ipv4_checksum(void **state)
{
	struct frame f;
	uint8_t *ip = f.b + L3;

	(void)state;
	build4(&f, 0, 18);
	expect_forward("v4 correct checksum", &f);
	put16(ip + 10, (uint16_t)(get16(ip + 10) + 1));
	expect_drop("v4 checksum + 1", &f, XFAB_DROP_IPV4_BAD_CHECKSUM);
	build4(&f, 0, 18);
	put16(ip + 10, (uint16_t)(get16(ip + 10) ^ 0x8000));
	expect_drop("v4 checksum, top bit flipped", &f, XFAB_DROP_IPV4_BAD_CHECKSUM);
	/* a bit changed after the checksum was sealed: every header word
	 * counts (word 0: the TOS byte; word 1: total length one more, still
	 * a checksum error first) */
	for (int w = 0; w < 10; w++) {
		char what[64];

		if (w == 5) /* the checksum itself: above */
			continue;
		build4(&f, 0, 18);
		ip[2 * w + 1] ^= 0x01;
		snprintf(what, sizeof(what), "v4 header word %d changed", w);
		expect_drop(what, &f, XFAB_DROP_IPV4_BAD_CHECKSUM);
	}
}

static void test_ipv4_options(void **state)
{
	struct frame f;
	uint8_t *ip = f.b + L3;

	(void)state;
	/* options are covered by the checksum, up to the largest header */
	build4(&f, 4, 10);
	expect_forward("v4 IHL 6, one option word", &f);
	build4(&f, 40, 10);
	expect_forward("v4 IHL 15, 40 option bytes", &f);
	for (size_t at = 20; at < 60; at += 13) { /* 20, 33, 46, 59 */
		char what[64];

		build4(&f, 40, 10);
		ip[at] ^= 0x40;
		snprintf(what, sizeof(what), "v4 option byte %zu changed", at);
		expect_drop(what, &f, XFAB_DROP_IPV4_BAD_CHECKSUM);
	}
	/* a byte past the header is not part of the header checksum */
	build4(&f, 40, 10);
	ip[60 + 8] ^= 0xff;
	expect_forward("v4 IHL 15, payload byte changed", &f);
}

/* Checksum 0x0000: its header forwards, and so does the same header with
 * 0xffff (one's complement -0, as RFC 1071 and Linux accept); the values
 * next to each are wrong and dropped. */
static void test_ipv4_checksum_zero_edge(void **state)
{
	struct frame f;
	uint8_t *ip = f.b + L3;
	uint32_t s;

	(void)state;
	build4(&f, 0, 18);
	/* choose the identification so that the header sums to 0xffff with
	 * checksum 0: then 0x0000 is the correct checksum */
	put16(ip + 4, 0);
	put16(ip + 10, 0);
	s = (uint16_t)~rfc1071(ip, 20); /* the folded sum without id */
	put16(ip + 4, (uint16_t)(0xffff - s));
	assert_int_equal(rfc1071(ip, 20), 0x0000);
	expect_forward("v4 checksum 0x0000", &f);
	put16(ip + 10, 0xffff);
	assert_int_equal(rfc1071(ip, 20), 0x0000); /* -0: the sum still verifies */
	{
		struct frame out = {.len = sizeof(out.b)};
		__u32 ret;

		for (int tc = 0; tc < 2; tc++) {
			assert_int_equal(h_run(&H, tc, 0, f.b, f.len, out.b, &out.len, &ret), 0);
			assert_int_equal(ret, tc ? TC_ACT_REDIRECT : XDP_REDIRECT);
			/* the output header verifies and carries TTL 63 */
			assert_int_equal(rfc1071(out.b + L3, 20), 0);
			assert_int_equal(out.b[L3 + 8], 63);
			out.len = sizeof(out.b);
		}
	}
	put16(ip + 10, 0x0001);
	expect_drop("v4 checksum 0x0001 (0x0000 correct)", &f, XFAB_DROP_IPV4_BAD_CHECKSUM);
	put16(ip + 10, 0xfffe);
	expect_drop("v4 checksum 0xfffe (0x0000 correct)", &f, XFAB_DROP_IPV4_BAD_CHECKSUM);
	/* the other side: a header whose correct checksum is 0x0001 does not
	 * take 0x0000 or 0xffff */
	put16(ip + 4, (uint16_t)(0xffff - s - 1));
	put16(ip + 10, 0);
	assert_int_equal(rfc1071(ip, 20), 0x0001);
	put16(ip + 10, 0x0001);
	expect_forward("v4 checksum 0x0001", &f);
	put16(ip + 10, 0x0000);
	expect_drop("v4 checksum 0x0000 (0x0001 correct)", &f, XFAB_DROP_IPV4_BAD_CHECKSUM);
	put16(ip + 10, 0xffff);
	expect_drop("v4 checksum 0xffff (0x0001 correct)", &f, XFAB_DROP_IPV4_BAD_CHECKSUM);
}

static void test_ipv4_version(void **state)
{
	static const uint8_t versions[] = {0, 5, 6, 15};
	struct frame f;
	uint8_t *ip = f.b + L3;

	(void)state;
	for (size_t i = 0; i < sizeof(versions); i++) {
		char what[64];

		build4(&f, 0, 18);
		ip[0] = (uint8_t)(versions[i] << 4 | 5);
		reseal4(&f); /* a correct checksum: only the version is wrong */
		snprintf(what, sizeof(what), "v4 version %u", versions[i]);
		expect_drop(what, &f, XFAB_DROP_IPV4_BAD_VERSION);
	}
}

static void test_ipv4_ihl(void **state)
{
	struct frame f;
	uint8_t *ip = f.b + L3;

	(void)state;
	build4(&f, 0, 18);
	expect_forward("v4 IHL 5", &f);
	for (uint8_t ihl = 0; ihl < 5; ihl++) {
		char what[64];

		build4(&f, 0, 18);
		ip[0] = (uint8_t)(0x40 | ihl);
		reseal4(&f);
		snprintf(what, sizeof(what), "v4 IHL %u", ihl);
		expect_drop(what, &f, XFAB_DROP_IPV4_BAD_IHL);
	}
}

static void test_ipv4_total_length(void **state)
{
	struct frame f;
	uint8_t *ip = f.b + L3;
	uint16_t l3 = (uint16_t)(20 + 8 + 18);

	(void)state;
	build4(&f, 0, 18);
	assert_int_equal(get16(ip + 2), f.len - L3);
	expect_forward("v4 total length == frame", &f);
	put16(ip + 2, (uint16_t)(l3 + 1));
	reseal4(&f);
	expect_drop("v4 total length == frame + 1", &f, XFAB_DROP_IPV4_BAD_LENGTH);
	put16(ip + 2, 0xffff);
	reseal4(&f);
	expect_drop("v4 total length 65535", &f, XFAB_DROP_IPV4_BAD_LENGTH);
	/* at least the header: with options, 24 is fine and 23 not */
	build4(&f, 4, 18);
	put16(ip + 2, 24);
	reseal4(&f);
	expect_forward("v4 total length == header length (rest is padding)", &f);
	put16(ip + 2, 23);
	reseal4(&f);
	expect_drop("v4 total length == header length - 1", &f, XFAB_DROP_IPV4_BAD_LENGTH);
	put16(ip + 2, 0);
	reseal4(&f);
	expect_drop("v4 total length 0", &f, XFAB_DROP_IPV4_BAD_LENGTH);
	/* Ethernet padding: a 28-byte datagram in a 60-byte frame */
	build4(&f, 0, 0);
	f.len = 60;
	expect_forward("v4 with Ethernet padding", &f);
}

static void test_ipv4_truncated(void **state)
{
	struct frame f;

	(void)state;
	build4(&f, 0, 18);
	f.len = L3 + 19;
	expect_truncated_drop("v4 header one byte short", &f, XFAB_DROP_IPV4_TRUNCATED);
	build4(&f, 8, 0);
	f.len = L3 + 27; /* IHL 7: 28 bytes of header, 27 in the frame */
	expect_truncated_drop("v4 options one byte short", &f, XFAB_DROP_IPV4_TRUNCATED);
	f.len = L3 + 28; /* the whole header and nothing else (no L4 to parse) */
	put16(f.b + L3 + 2, 28);
	f.b[L3 + 9] = 253; /* experimental protocol */
	reseal4(&f);
	expect_forward("v4 header only, options to the frame's end", &f);
}

/* ---- IPv6 ---- */

static void test_ipv6(void **state)
{
	static const uint8_t versions[] = {0, 4, 7, 15};
	struct frame f;
	uint8_t *ip = f.b + L3;

	(void)state;
	build6(&f, 18);
	expect_forward("v6 payload length == frame", &f);
	put16(ip + 4, (uint16_t)(get16(ip + 4) + 1));
	expect_drop("v6 payload length == frame + 1", &f, XFAB_DROP_IPV6_BAD_LENGTH);
	put16(ip + 4, 0xffff);
	expect_drop("v6 payload length 65535", &f, XFAB_DROP_IPV6_BAD_LENGTH);
	build6(&f, 0);
	f.len = 80; /* padding after a 48-byte packet */
	expect_forward("v6 shorter than the frame", &f);
	for (size_t i = 0; i < sizeof(versions); i++) {
		char what[64];

		build6(&f, 18);
		ip[0] = (uint8_t)(versions[i] << 4);
		snprintf(what, sizeof(what), "v6 version %u", versions[i]);
		expect_drop(what, &f, XFAB_DROP_IPV6_BAD_VERSION);
	}
	build6(&f, 18);
	f.len = L3 + 39;
	expect_truncated_drop("v6 header one byte short", &f, XFAB_DROP_IPV6_TRUNCATED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ipv4_checksum),
	    cmocka_unit_test(test_ipv4_options),
	    cmocka_unit_test(test_ipv4_checksum_zero_edge),
	    cmocka_unit_test(test_ipv4_version),
	    cmocka_unit_test(test_ipv4_ihl),
	    cmocka_unit_test(test_ipv4_total_length),
	    cmocka_unit_test(test_ipv4_truncated),
	    cmocka_unit_test(test_ipv6),
	};

	return cmocka_run_group_tests_name("validate", tests, setup, teardown);
}
