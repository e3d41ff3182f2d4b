// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Boundary cases through both entry points (xfab_xdp and xfab_tc), each
 * checked against an oracle written here:
 *
 *  - the IPv4 header checksum after the TTL decrement, for every checksum
 *    in the neighbourhoods where the RFC 1624 incremental update carries
 *    (0xfe00..0xffff and 0x0000..0x0100) and several TTLs, against a full
 *    RFC 1071 recomputation;
 *  - the egress MTU: an IP packet of exactly the MTU leaves, one byte more
 *    is punted, IPv4 and IPv6, tagged and untagged;
 *  - IPv6 routes shorter than /16, ::/0 included: addresses on both sides
 *    of every prefix edge land on the right route (each route's gateway
 *    has its own MAC).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <bpf/bpf.h>
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
#include "frame.h"
#include "harness.h"
#include "oracle.h"

/*
 * p1: ingress. p2: 9 gateways on one subnet (fd02::N and 10.0.2.N, MAC
 * 02:00:00:00:02:0N), one per short IPv6 route. p3: MTU 1400.
 */
static const char *config_text =
    "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"edge-test\"}},\n"
    " \"PORT\": {\"p1\": {}, \"p2\": {}, \"p3\": {\"mtu\": \"1400\"}},\n"
    " \"INTERFACE\": {\"p1|10.0.1.1/24\": {}, \"p1|fd01::1/64\": {},\n"
    "   \"p2|10.0.2.254/24\": {}, \"p2|fd02::ff/64\": {},\n"
    "   \"p3|10.0.3.0/31\": {}, \"p3|fd03::2/127\": {}},\n"
    " \"ROUTE\": {\"10.9.0.0/16\": {\"nexthop\": \"10.0.2.1\"},\n"
    "   \"10.8.0.0/16\": {\"nexthop\": \"10.0.3.1\"},\n"
    "   \"fd08::/32\": {\"nexthop\": \"fd03::3\"},\n"
    "   \"::/0\": {\"nexthop\": \"fd02::1\"},\n"
    "   \"8000::/1\": {\"nexthop\": \"fd02::2\"},\n"
    "   \"fc00::/7\": {\"nexthop\": \"fd02::3\"},\n"
    "   \"fd00::/8\": {\"nexthop\": \"fd02::4\"},\n"
    "   \"fd80::/9\": {\"nexthop\": \"fd02::5\"},\n"
    "   \"2000::/3\": {\"nexthop\": \"fd02::6\"},\n"
    "   \"2000::/15\": {\"nexthop\": \"fd02::7\"},\n"
    "   \"2001::/16\": {\"nexthop\": \"fd02::8\"},\n"
    "   \"4000::/2\": {\"nexthop\": \"fd02::9\"}},\n"
    " \"NEIGH\": {\"p2|10.0.2.1\": {\"neigh\": \"02:00:00:00:02:01\"},\n"
    "   \"p3|10.0.3.1\": {\"neigh\": \"02:00:00:00:03:01\"},\n"
    "   \"p3|fd03::3\": {\"neigh\": \"02:00:00:00:03:01\"},\n"
    "   \"p2|fd02::1\": {\"neigh\": \"02:00:00:00:02:01\"},\n"
    "   \"p2|fd02::2\": {\"neigh\": \"02:00:00:00:02:02\"},\n"
    "   \"p2|fd02::3\": {\"neigh\": \"02:00:00:00:02:03\"},\n"
    "   \"p2|fd02::4\": {\"neigh\": \"02:00:00:00:02:04\"},\n"
    "   \"p2|fd02::5\": {\"neigh\": \"02:00:00:00:02:05\"},\n"
    "   \"p2|fd02::6\": {\"neigh\": \"02:00:00:00:02:06\"},\n"
    "   \"p2|fd02::7\": {\"neigh\": \"02:00:00:00:02:07\"},\n"
    "   \"p2|fd02::8\": {\"neigh\": \"02:00:00:00:02:08\"},\n"
    "   \"p2|fd02::9\": {\"neigh\": \"02:00:00:00:02:09\"}}\n"
    "}\n";

static struct harness H;

/* ---- an RFC 1071 checksum of our own (not the library's) ---- */

/* The 16-bit one's complement of the one's complement sum of the 16-bit
 * big-endian words of buf (RFC 1071 section 4.1, written out). */

/* Ethernet (+ tag) + IPv4 or IPv6 + UDP, l3_len bytes of IP packet. */
static size_t build(uint8_t *b, int v6, const char *dst, int vlan, size_t l3_len)
{
	size_t hdr = (v6 ? 40 : 20) + 8, l3 = vlan ? 18 : 14;
	uint8_t payload[2048];
	struct xfab_frame f = {.n_vlan = vlan ? 1 : 0,
			       .vlan = {100},
			       .ip4 = {.ttl = 64},
			       .ip6 = {.hop_limit = 64},
			       .l4 = {.proto = IPPROTO_UDP, .sport = 1234, .dport = 5678},
			       .payload = payload,
			       .payload_len = l3_len - hdr};

	assert_true(l3_len >= hdr && l3_len - hdr <= sizeof(payload));
	for (size_t i = 0; i < l3_len - hdr; i++)
		payload[i] = (uint8_t)((l3 + hdr + i) * 7);
	memcpy(f.dmac, H.mac[0], 6);
	memcpy(f.smac, "\x02\xaa\x00\x00\x00\x01", 6);
	assert_int_equal(xfab_frame_addrs(&f, v6 ? "fd01::2" : "10.0.1.2", dst), 0);
	assert_int_equal(xfab_frame_build(&f, b, l3 + l3_len, NULL), l3 + l3_len);
	return l3 + l3_len;
}

static __u32 fwd_verdict(int tc)
{
	return tc ? TC_ACT_REDIRECT : XDP_REDIRECT;
}

static __u32 punt_verdict(int tc)
{
	return tc ? TC_ACT_OK : XDP_PASS;
}

static __u64 punts(__u32 reason)
{
	return h_percpu_u64(&H, XFAB_MAP_PUNT_STATS, reason, 0, 2);
}

/* ---- the checksum carry ---- */

/* An IPv4 header whose checksum is exactly `check` with this TTL: the
 * identification field absorbs the difference. 0 if no header has it
 * (0xffff: a sum of non-zero words never folds to 0). */
static int header_with_checksum(uint8_t *ip, uint8_t ttl, uint16_t check)
{
	uint32_t s0 = 0, want, id;

	ip[8] = ttl;
	put16(ip + 4, 0);
	put16(ip + 10, 0);
	for (int i = 0; i < 20; i += 2)
		s0 += get16(ip + i);
	while (s0 >> 16)
		s0 = (s0 & 0xffff) + (s0 >> 16);
	/* want: s0 + id folds to ~check; id = ~check - s0 in one's complement */
	want = (uint16_t)~check;
	id = want + (uint16_t)~s0;
	while (id >> 16)
		id = (id & 0xffff) + (id >> 16);
	put16(ip + 4, (uint16_t)id);
	if (rfc1071(ip, 20) != check)
		return 0;
	put16(ip + 10, check);
	return 1;
}

static void test_checksum_carry(void **state)
{
	static const uint8_t ttls[] = {2, 3, 64, 128, 255};
	uint8_t frame[256], out[256], want_ip[20];
	int tested = 0, carries = 0;

	(void)state;
	for (int tc = 0; tc < 2; tc++) {
		for (size_t t = 0; t < sizeof(ttls); t++) {
			for (uint32_t c = 0xfe00; c <= 0x10100; c++) {
				uint16_t check = (uint16_t)c;
				size_t len = build(frame, 0, "10.9.7.7", 0, 60),
				       out_len = sizeof(out);
				uint8_t *ip = frame + 14;
				__u32 ret;

				if (!header_with_checksum(ip, ttls[t], check))
					continue;
				memcpy(want_ip, ip, 20);
				want_ip[8]--;
				put16(want_ip + 10, 0);
				put16(want_ip + 10, rfc1071(want_ip, 20));
				/* the update's addition of 0x0100 carries out of 16 bits */
				carries += check >= 0xff00;
				assert_int_equal(h_run(&H, tc, 0, frame, len, out, &out_len, &ret),
						 0);
				assert_int_equal(ret, fwd_verdict(tc));
				if (memcmp(out + 14, want_ip, 20)) {
					fail_msg(
					    "[%s] TTL %u checksum %04x: got TTL %u checksum %04x, "
					    "want %u %04x",
					    tc ? "tc" : "xdp", ttls[t], check, out[14 + 8],
					    get16(out + 24), want_ip[8], get16(want_ip + 10));
				}
				tested++;
			}
		}
	}
	print_message("    %d headers (%d with a carry), both datapaths\n", tested, carries);
	/* every value but 0xffff (no header has it) in both ranges */
	assert_int_equal(tested, 2 * 5 * (0x10101 - 0xfe00 - 1));
}

/* ---- the MTU boundary (p3: 1400) ---- */

static void mtu_case(int tc, int v6, int vlan, size_t l3_len, int want_fwd)
{
	uint8_t frame[2048], out[2048];
	size_t len = build(frame, v6, v6 ? "fd08::1" : "10.8.0.1", vlan, l3_len);
	size_t out_len = sizeof(out);
	__u64 before = punts(XFAB_PUNT_MTU_EXCEEDED);
	__u32 ret;

	assert_int_equal(h_run(&H, tc, 0, frame, len, out, &out_len, &ret), 0);
	if (ret != (want_fwd ? fwd_verdict(tc) : punt_verdict(tc)))
		fail_msg("[%s] IPv%d%s, %zu bytes of IP over MTU 1400: verdict %u, want %s",
			 tc ? "tc" : "xdp", v6 ? 6 : 4, vlan ? " tagged" : "", l3_len, ret,
			 want_fwd ? "forward" : "punt");
	assert_int_equal(punts(XFAB_PUNT_MTU_EXCEEDED) - before, want_fwd ? 0 : 1);
	if (want_fwd) {
		/* left through p3, untagged, whole */
		assert_memory_equal(out + 6, H.mac[2], 6);
		assert_int_equal(out_len, len - (vlan ? 4 : 0));
	}
}

static void test_mtu_boundary(void **state)
{
	(void)state;
	for (int tc = 0; tc < 2; tc++) {
		for (int v6 = 0; v6 < 2; v6++) {
			for (int vlan = 0; vlan < 2; vlan++) {
				mtu_case(tc, v6, vlan, 1399, 1);
				mtu_case(tc, v6, vlan, 1400, 1);
				mtu_case(tc, v6, vlan, 1401, 0);
				mtu_case(tc, v6, vlan, 1402, 0);
			}
		}
	}
}

/* ---- IPv6 routes shorter than /16 ---- */

static const struct {
	const char *dst;
	int gw; /* the route's gateway fd02::N (MAC ...:02:0N) */
} short6[] = {
    {"::1:0:0:1", 1},				    /* ::/0, the lowest addresses */
    {"1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 1}, /* just below 2000::/3 */
    {"2000::", 7},				    /* 2000::/15, its first address */
    {"2000:ffff::1", 7},			    /* 2000::/15, below 2001::/16 */
    {"2001::", 8},				    /* 2001::/16 */
    {"2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 8}, /* 2001::/16, last */
    {"2002::", 6},				    /* 2000::/3 just past the /15 */
    {"3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 6}, /* 2000::/3, last */
    {"4000::", 9},				    /* 4000::/2, first */
    {"7fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 9}, /* 4000::/2, last */
    {"8000::", 2},				    /* 8000::/1, first */
    {"fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 2}, /* just below fc00::/7 */
    {"fc00::", 3},				    /* fc00::/7, first */
    {"fcff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 3}, /* below fd00::/8 */
    {"fd00::", 4},				    /* fd00::/8, first */
    {"fd7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 4}, /* below fd80::/9 */
    {"fd80::", 5},				    /* fd80::/9, first */
    {"fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 5}, /* fd80::/9, last */
    {"fe00::", 2},				    /* past fc00::/7: 8000::/1 again */
    {"fec0::1", 2},				    /* 8000::/1 */
    {"fd08::1", -1},				    /* fd08::/32 inside fd00::/8: p3 */
    {"fd08:1::1", 4},				    /* just past it: fd00::/8 */
};

static void test_short_ipv6_prefixes(void **state)
{
	(void)state;
	for (int tc = 0; tc < 2; tc++) {
		for (size_t i = 0; i < sizeof(short6) / sizeof(short6[0]); i++) {
			uint8_t frame[256], out[256];
			size_t len = build(frame, 1, short6[i].dst, 0, 80), out_len = sizeof(out);
			__u32 ret;

			assert_int_equal(h_run(&H, tc, 0, frame, len, out, &out_len, &ret), 0);
			if (ret != fwd_verdict(tc))
				fail_msg("[%s] %s: verdict %u, not forwarded", tc ? "tc" : "xdp",
					 short6[i].dst, ret);
			if (short6[i].gw < 0) {
				assert_memory_equal(out + 6, H.mac[2], 6);
				continue;
			}
			if (out[4] != 0x02 || out[5] != short6[i].gw)
				fail_msg("[%s] %s: took gateway %02x:%02x, want the route via "
					 "fd02::%d",
					 tc ? "tc" : "xdp", short6[i].dst, out[4], out[5],
					 short6[i].gw);
			assert_memory_equal(out + 6, H.mac[1], 6);
			assert_int_equal(out[14 + 7], 63); /* hop limit */
		}
	}
}

/* Without ::/0, what no other route covers has no route; with it back, the
 * default is used again. */
static void test_default_route_removed(void **state)
{
	static const char *const uncovered[] = {"::1:0:0:1",
						"1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"};
	char *cfg = strdup(config_text), *p;
	__u64 before;

	(void)state;
	assert_non_null(cfg);
	p = strstr(cfg, "   \"::/0\"");
	assert_non_null(p);
	memmove(p, strchr(p, '\n') + 1, strlen(strchr(p, '\n') + 1) + 1);
	assert_int_equal(h_reapply(&H, cfg), 0);
	for (int tc = 0; tc < 2; tc++) {
		for (size_t i = 0; i < 2; i++) {
			uint8_t frame[256], out[256];
			size_t len = build(frame, 1, uncovered[i], 0, 80), out_len = sizeof(out);
			__u32 ret;

			before = h_percpu_u64(&H, XFAB_MAP_DROP_STATS, XFAB_DROP_NO_ROUTE, 0, 2);
			assert_int_equal(h_run(&H, tc, 0, frame, len, out, &out_len, &ret), 0);
			assert_int_equal(ret, tc ? TC_ACT_SHOT : XDP_DROP);
			assert_int_equal(
			    h_percpu_u64(&H, XFAB_MAP_DROP_STATS, XFAB_DROP_NO_ROUTE, 0, 2) -
				before,
			    1);
		}
	}
	free(cfg);
	assert_int_equal(h_reapply(&H, config_text), 0);
	test_short_ipv6_prefixes(state);
}

H_GROUP_FIXTURES(H, 3, config_text)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_checksum_carry),
	    cmocka_unit_test(test_mtu_boundary),
	    cmocka_unit_test(test_short_ipv6_prefixes),
	    cmocka_unit_test(test_default_route_removed),
	};
	return cmocka_run_group_tests_name("bpf_boundaries", tests, setup, teardown);
}
