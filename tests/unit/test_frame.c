// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the frame builder (user/lib/frame.c) against frames written
 * once by scapy 2.5 and pasted here as hex (the generating expression is
 * beside each), and against an RFC 1071 checksum written in this file:
 * Ethernet with and without 802.1Q tags, IPv4 with options, IPv6 with a
 * chain of extension headers, UDP, TCP, ICMP, ICMPv6, a RoCEv2 BTH, VXLAN
 * with an inner frame; overridden fields written as given; what does not
 * fit or cannot be is refused.
 */
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "frame.h"

static const uint8_t DMAC[6] = {0x02, 0, 0, 0, 0, 0x11};
static const uint8_t SMAC[6] = {0x02, 0xaa, 0, 0, 0, 0x01};

static size_t unhex(const char *hex, uint8_t *out)
{
	size_t n = 0;

	for (; hex[0] && hex[1]; hex += 2) {
		unsigned int v;

		assert_int_equal(sscanf(hex, "%2x", &v), 1);
		out[n++] = (uint8_t)v;
	}
	return n;
}

/* RFC 1071, section 4.1, as written there: 0 when the data holds its own
 * correct checksum. */
static uint16_t rfc1071(const uint8_t *addr, size_t count, uint32_t sum)
{
	while (count > 1) {
		sum += (uint32_t)(addr[0] << 8 | addr[1]);
		addr += 2;
		count -= 2;
	}
	if (count > 0)
		sum += (uint32_t)addr[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static struct xfab_frame base(const char *src, const char *dst)
{
	struct xfab_frame f = {0};

	memcpy(f.dmac, DMAC, 6);
	memcpy(f.smac, SMAC, 6);
	assert_int_equal(xfab_frame_addrs(&f, src, dst), 0);
	return f;
}

/* Builds f and compares it with the oracle's bytes. */
static void expect_frame(const struct xfab_frame *f, const char *hex)
{
	uint8_t want[256], got[256];
	size_t n = unhex(hex, want);
	long len;

	memset(got, 0xee, sizeof(got));
	len = xfab_frame_build(f, got, sizeof(got), NULL);
	if (len != (long)n || memcmp(got, want, n)) {
		for (size_t i = 0; i < n && len > 0; i++)
			if (got[i] != want[i])
				print_error("byte %zu: got %02x, want %02x\n", i, got[i], want[i]);
	}
	assert_int_equal(len, n);
	assert_memory_equal(got, want, n);
	/* a frame exactly as large as the buffer fits; one byte less does not */
	assert_int_equal(xfab_frame_build(f, got, n, NULL), n);
	assert_int_equal(xfab_frame_build(f, got, n - 1, NULL), -1);
}

/* Ether/IP(src="10.0.1.2",dst="10.0.2.5",ttl=64,id=0,tos=0x69)
 *   /UDP(sport=1234,dport=5678)/Raw(b"abcd") */
static const char F_UDP4[] = "02000000001102aa00000001080045690020000000004011635e0a0001020a000205"
			     "04d2162e000c090961626364";

static struct xfab_frame udp4(void)
{
	struct xfab_frame f = base("10.0.1.2", "10.0.2.5");

	f.ip4.ttl = 64;
	f.ip4.tos = 0x69;
	f.l4.proto = IPPROTO_UDP;
	f.l4.sport = 1234;
	f.l4.dport = 5678;
	f.payload = (const uint8_t *)"abcd";
	f.payload_len = 4;
	return f;
}

static void test_ipv4_udp(void **state)
{
	struct xfab_frame f = udp4();
	struct xfab_frame_info info;
	uint8_t b[128];

	(void)state;
	expect_frame(&f, F_UDP4);
	assert_int_equal(xfab_frame_build(&f, b, sizeof(b), &info), 46);
	assert_int_equal(info.l3_off, 14);
	assert_int_equal(info.l4_off, 34);
	assert_int_equal(info.payload_off, 42);
	assert_int_equal(info.len, 46);
	/* both checksums hold, by the RFC's routine (UDP: with the pseudo-header) */
	assert_int_equal(rfc1071(b + 14, 20, 0), 0);
	assert_int_equal(rfc1071(b + 34, 12, (uint16_t)~rfc1071(b + 26, 8, 0) + 17u + 12u), 0);
}

/* Ether/Dot1Q(prio=3,vlan=100)/Dot1Q(vlan=200)/IP(src="192.0.2.1",
 *   dst="198.51.100.7",ttl=1,id=0x1234,flags="DF",options=[IPOption_NOP()]*4)
 *   /TCP(sport=40000,dport=80,seq=0x01020304,ack=0x0a0b0c0d,flags="A",
 *   window=512)/Raw(bytes(range(10))) */
static void test_vlan_ipv4_options_tcp(void **state)
{
	static const uint8_t nops[4] = {1, 1, 1, 1};
	uint8_t payload[10], b[128];
	struct xfab_frame f = base("192.0.2.1", "198.51.100.7");
	struct xfab_frame_info info;

	(void)state;
	for (int i = 0; i < 10; i++)
		payload[i] = (uint8_t)i;
	f.n_vlan = 2;
	f.vlan[0] = 3 << 13 | 100;
	f.vlan[1] = 200;
	f.ip4.ttl = 1;
	f.ip4.id = 0x1234;
	f.ip4.frag = 0x4000;
	f.ip4.opts = nops;
	f.ip4.opts_len = 4;
	f.l4.proto = IPPROTO_TCP;
	f.l4.sport = 40000;
	f.l4.dport = 80;
	f.l4.seq = 0x01020304;
	f.l4.ack = 0x0a0b0c0d;
	f.l4.tcp_flags = 0x10;
	f.l4.window = 512;
	f.payload = payload;
	f.payload_len = 10;
	expect_frame(&f, "02000000001102aa0000000181006064810000c80800460000361234400001067850c0"
			 "000201c6336407010101019c400050010203040a0b0c0d50100200f6c600000001020304"
			 "0506070809");
	assert_int_equal(xfab_frame_build(&f, b, sizeof(b), &info), 76);
	assert_int_equal(info.l3_off, 22);
	assert_int_equal(info.l4_off, 46);
	assert_int_equal(info.payload_off, 66);
	assert_int_equal(rfc1071(b + 22, 24, 0), 0);
}

/* Ether/IPv6(src="fd01::2",dst="fd00:4:2::2",tc=0xb8,fl=0x12345,hlim=9)
 *   /IPv6ExtHdrHopByHop(options=[Pad1()]*6,autopad=0)
 *   /IPv6ExtHdrFragment(offset=0,m=1,id=0xdeadbeef)
 *   /IPv6ExtHdrDestOpt(options=[Pad1()]*14,autopad=0)
 *   /UDP(sport=7,dport=9)/Raw(b"xyz") */
static void test_ipv6_extension_headers(void **state)
{
	struct xfab_frame f = base("fd01::2", "fd00:4:2::2");
	struct xfab_frame_info info;
	uint8_t b[160];

	(void)state;
	f.ip6.tclass = 0xb8;
	f.ip6.flow_label = 0x12345;
	f.ip6.hop_limit = 9;
	f.ip6.n_ext = 3;
	f.ip6.ext[0].type = IPPROTO_HOPOPTS;
	f.ip6.ext[1].type = IPPROTO_FRAGMENT;
	f.ip6.ext[1].frag = 0x0001;
	f.ip6.ext[1].id = 0xdeadbeef;
	f.ip6.ext[2].type = IPPROTO_DSTOPTS;
	f.ip6.ext[2].len8 = 1;
	f.l4.proto = IPPROTO_UDP;
	f.l4.sport = 7;
	f.l4.dport = 9;
	f.payload = (const uint8_t *)"xyz";
	f.payload_len = 3;
	expect_frame(&f, "02000000001102aa0000000186dd6b812345002b0009fd01000000000000000000000000"
			 "0002fd0000040002000000000000000000022c000000000000003c000001deadbeef1101"
			 "000000000000000000000000000000070009000b134278797a");
	assert_int_equal(xfab_frame_build(&f, b, sizeof(b), &info), 97);
	assert_int_equal(info.l4_off, 14 + 40 + 32);
}

/* Ether/IP(src="10.1.1.2",dst="10.4.2.2",ttl=64,id=0)/ICMP(type=8,id=0x77,
 *   seq=3)/Raw(b"ping!") and
 * Ether/IPv6(src="fd00:1:1::2",dst="fd00:4:2::2",hlim=64)
 *   /ICMPv6EchoRequest(id=0x77,seq=3,data=b"ping6") */
static void test_icmp_echo(void **state)
{
	struct xfab_frame f = base("10.1.1.2", "10.4.2.2");

	(void)state;
	f.ip4.ttl = 64;
	f.l4.proto = IPPROTO_ICMP;
	f.l4.icmp_type = 8;
	f.l4.icmp_rest = 0x77 << 16 | 3;
	f.payload = (const uint8_t *)"ping!";
	f.payload_len = 5;
	expect_frame(&f, "02000000001102aa0000000108004500002100000000400163d40a0101020a0402020800"
			 "f7b40077000370696e6721");
	f = base("fd00:1:1::2", "fd00:4:2::2");
	f.ip6.hop_limit = 64;
	f.l4.proto = IPPROTO_ICMPV6;
	f.l4.icmp_type = 128;
	f.l4.icmp_rest = 0x77 << 16 | 3;
	f.payload = (const uint8_t *)"ping6";
	f.payload_len = 5;
	expect_frame(&f, "02000000001102aa0000000186dd60000000000d3a40fd00000100010000000000000000"
			 "0002fd0000040002000000000000000000028000705f0077000370696e6736");
}

/* Ether/IP(src="10.0.1.2",dst="10.0.2.2",ttl=64,id=0)/UDP(sport=49152,
 *   dport=4791,chksum=0)/BTH(opcode=4,pkey=0xffff,dqpn=0x123456,
 *   psn=0xabcdef,ackreq=1)/Raw(b"\0"*16): scapy appends the ICRC
 *   (3e3be758), which the builder does not compute: it is passed as payload. */
static void test_rocev2_bth(void **state)
{
	uint8_t payload[20] = {[16] = 0x3e, 0x3b, 0xe7, 0x58};
	struct xfab_frame f = base("10.0.1.2", "10.0.2.2");

	(void)state;
	f.ip4.ttl = 64;
	f.l4.proto = IPPROTO_UDP;
	f.l4.sport = 49152;
	f.l4.dport = 4791;
	f.l4.set = XFAB_FRAME_SET_CHECK; /* 0: RoCEv2 senders leave it unset */
	f.bth.present = 1;
	f.bth.opcode = 4;
	f.bth.pkey = 0xffff;
	f.bth.dest_qp = 0x123456;
	f.bth.psn = 0xabcdef;
	f.bth.ack_req = 1;
	f.payload = payload;
	f.payload_len = sizeof(payload);
	expect_frame(&f, "02000000001102aa0000000108004500003c00000000401163ae0a0001020a000202c000"
			 "12b7002800000400ffff0012345680abcdef000000000000000000000000000000003e3b"
			 "e758");
}

/* Ether/IP(src="10.0.0.1",dst="10.0.0.2",ttl=64,id=0)/UDP(sport=55555,
 *   dport=4789)/VXLAN(flags=0x08,vni=0xabcde)/Ether(dst="02:00:00:00:00:99",
 *   src="02:00:00:00:00:98")/IP(src="192.168.0.1",dst="192.168.0.2",ttl=64,
 *   id=0)/UDP(sport=1,dport=2)/Raw(b"in") */
static void test_vxlan_inner_frame(void **state)
{
	struct xfab_frame in = base("192.168.0.1", "192.168.0.2");
	struct xfab_frame f = base("10.0.0.1", "10.0.0.2");
	struct xfab_frame_info info;
	uint8_t b[160];

	(void)state;
	memcpy(in.dmac, "\x02\x00\x00\x00\x00\x99", 6);
	memcpy(in.smac, "\x02\x00\x00\x00\x00\x98", 6);
	in.ip4.ttl = 64;
	in.l4.proto = IPPROTO_UDP;
	in.l4.sport = 1;
	in.l4.dport = 2;
	in.payload = (const uint8_t *)"in";
	in.payload_len = 2;
	f.ip4.ttl = 64;
	f.l4.proto = IPPROTO_UDP;
	f.l4.sport = 55555;
	f.l4.dport = 4789;
	f.vxlan.present = 1;
	f.vxlan.vni = 0xabcde;
	f.vxlan.inner = &in;
	expect_frame(&f, "02000000001102aa00000001080045000050000000004011669b0a0000010a000002d903"
			 "12b5003c833c080000000abcde000200000000990200000000980800450000"
			 "1e000000004011f97bc0a80001c0a8000200010002000a1515696e");
	/* the inner frame ends the outer one: nothing follows as payload */
	assert_int_equal(xfab_frame_build(&f, b, sizeof(b), &info), 94);
	assert_int_equal(info.payload_off, 94);
}

/* Each override changes its own bytes of F_UDP4 and nothing else. */
static void test_overrides_write_malformed_headers(void **state)
{
	static const struct {
		const char *name;
		unsigned int set;
		uint8_t version, ihl, proto;
		uint16_t tot_len, check;
		size_t at[2];
		uint8_t want[2];
	} cases[] = {
	    {"checksum", XFAB_FRAME_SET_CHECK, .check = 0xbeef, {24, 25}, {0xbe, 0xef}},
	    {"version 6",
	     XFAB_FRAME_SET_VERSION | XFAB_FRAME_SET_CHECK,
	     .version = 6,
	     .check = 0x635e,
	     {14, 14},
	     {0x65, 0x65}},
	    {"IHL 4",
	     XFAB_FRAME_SET_IHL | XFAB_FRAME_SET_CHECK,
	     .ihl = 4,
	     .check = 0x635e,
	     {14, 14},
	     {0x44, 0x44}},
	    {"total length 0x120",
	     XFAB_FRAME_SET_LEN | XFAB_FRAME_SET_CHECK,
	     .tot_len = 0x120,
	     .check = 0x635e,
	     {16, 17},
	     {0x01, 0x20}},
	    {"protocol 6",
	     XFAB_FRAME_SET_PROTO | XFAB_FRAME_SET_CHECK,
	     .proto = 6,
	     .check = 0x635e,
	     {23, 23},
	     {0x06, 0x06}},
	};
	uint8_t want[64], got[64];
	size_t n = unhex(F_UDP4, want);

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct xfab_frame f = udp4();
		uint8_t exp[64];

		f.ip4.set = cases[i].set;
		f.ip4.version = cases[i].version;
		f.ip4.ihl = cases[i].ihl;
		f.ip4.proto = cases[i].proto;
		f.ip4.tot_len = cases[i].tot_len;
		f.ip4.check = cases[i].check;
		memcpy(exp, want, n);
		exp[cases[i].at[0]] = cases[i].want[0];
		exp[cases[i].at[1]] = cases[i].want[1];
		print_message("override %s\n", cases[i].name);
		assert_int_equal(xfab_frame_build(&f, got, sizeof(got), NULL), n);
		assert_memory_equal(got, exp, n);
	}
	/* computed: a changed header gets the checksum that makes it hold */
	{
		struct xfab_frame f = udp4();

		f.ip4.set = XFAB_FRAME_SET_IHL;
		f.ip4.ihl = 4;
		assert_int_equal(xfab_frame_build(&f, got, sizeof(got), NULL), n);
		assert_int_equal(got[14], 0x44);
		assert_int_equal(rfc1071(got + 14, 20, 0), 0);
	}
	/* UDP length and checksum, IPv6 payload length, version, next header */
	{
		struct xfab_frame f = udp4();

		f.l4.set = XFAB_FRAME_SET_LEN | XFAB_FRAME_SET_CHECK;
		f.l4.len = 0x40;
		f.l4.check = 0x1234;
		assert_int_equal(xfab_frame_build(&f, got, sizeof(got), NULL), n);
		assert_memory_equal(got, want, 38);
		assert_int_equal(got[38] << 8 | got[39], 0x40);
		assert_int_equal(got[40] << 8 | got[41], 0x1234);
		assert_memory_equal(got + 42, want + 42, 4);
	}
	{
		struct xfab_frame f = base("fd01::2", "fd00::9");

		f.ip6.set = XFAB_FRAME_SET_LEN | XFAB_FRAME_SET_VERSION | XFAB_FRAME_SET_PROTO;
		f.ip6.payload_len = 999;
		f.ip6.version = 4;
		f.ip6.next = 59;
		f.l4.proto = IPPROTO_UDP;
		assert_int_equal(xfab_frame_build(&f, got, sizeof(got), NULL), 14 + 40 + 8);
		assert_int_equal(got[14] >> 4, 4);
		assert_int_equal(got[18] << 8 | got[19], 999);
		assert_int_equal(got[20], 59);
	}
}

/* UDP, TCP and ICMPv6 checksums over IPv6 hold by the RFC's routine, for
 * odd and even lengths. */
static void test_l4_checksums_hold(void **state)
{
	static const uint8_t protos[] = {IPPROTO_UDP, IPPROTO_TCP, IPPROTO_ICMPV6, IPPROTO_ICMP};
	uint8_t payload[33], b[256];

	(void)state;
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 37 + 1);
	for (size_t p = 0; p < sizeof(protos); p++) {
		for (size_t len = 0; len <= sizeof(payload); len += 11) {
			int v6 = protos[p] != IPPROTO_ICMP;
			struct xfab_frame f =
			    v6 ? base("fd01::2", "fd00:4:2::2") : base("10.0.0.1", "10.0.0.2");
			struct xfab_frame_info info;
			uint32_t pseudo = 0;
			long n;
			size_t seg;

			f.l4.proto = protos[p];
			f.l4.sport = 1000;
			f.l4.dport = 2000;
			f.payload = payload;
			f.payload_len = len;
			n = xfab_frame_build(&f, b, sizeof(b), &info);
			assert_true(n > 0);
			seg = (size_t)n - info.l4_off;
			if (v6) {
				/* src, dst, upper-layer length, next header */
				pseudo = (uint16_t)~rfc1071(b + 22, 32, 0);
				pseudo += (uint32_t)seg + protos[p];
			}
			assert_int_equal(rfc1071(b + info.l4_off, seg, pseudo), 0);
		}
	}
}

/* A UDP checksum that computes to 0 goes out as 0xffff (RFC 768: 0 says
 * none was computed); the receiver's sum over it still holds. */
static void test_udp_zero_checksum_sent_as_ffff(void **state)
{
	struct xfab_frame f = udp4();
	uint8_t pay[2] = {0, 0}, b[128];
	uint16_t c;

	(void)state;
	f.payload = pay;
	f.payload_len = 2;
	assert_int_equal(xfab_frame_build(&f, b, sizeof(b), NULL), 44);
	c = (uint16_t)(b[40] << 8 | b[41]);
	assert_int_equal(rfc1071(b + 34, 10, (uint16_t)~rfc1071(b + 26, 8, 0) + 17u + 10u), 0);
	assert_true(c != 0 && c != 0xffff);
	/* the payload word that completes the sum to 0xffff: that checksum */
	pay[0] = (uint8_t)(c >> 8);
	pay[1] = (uint8_t)c;
	assert_int_equal(xfab_frame_build(&f, b, sizeof(b), NULL), 44);
	assert_int_equal(b[40] << 8 | b[41], 0xffff);
	assert_int_equal(rfc1071(b + 34, 10, (uint16_t)~rfc1071(b + 26, 8, 0) + 17u + 10u), 0);
}

static void test_raw_ethertype(void **state)
{
	uint8_t payload[46], b[128];
	struct xfab_frame f = {.ethertype = 0x88cc, .payload = payload, .payload_len = 46};
	struct xfab_frame_info info;

	(void)state;
	for (int i = 0; i < 46; i++)
		payload[i] = (uint8_t)i;
	memcpy(f.dmac, DMAC, 6);
	f.l4.proto = IPPROTO_UDP; /* no IP: no L4 either */
	assert_int_equal(xfab_frame_build(&f, b, sizeof(b), &info), 60);
	assert_int_equal(b[12] << 8 | b[13], 0x88cc);
	assert_memory_equal(b + 14, payload, 46);
	assert_int_equal(info.l3_off, 0);
	assert_int_equal(info.l4_off, 0);
	assert_int_equal(info.payload_off, 14);
}

static void test_refused(void **state)
{
	static const uint8_t opts3[3] = {1, 1, 1};
	struct xfab_frame f = udp4(), loop;
	uint8_t b[512];

	(void)state;
	f.ip4.opts = opts3;
	f.ip4.opts_len = 3;
	assert_int_equal(xfab_frame_build(&f, b, sizeof(b), NULL), -1);
	f = udp4();
	f.n_vlan = XFAB_FRAME_MAX_VLANS + 1;
	assert_int_equal(xfab_frame_build(&f, b, sizeof(b), NULL), -1);
	f = base("fd01::2", "fd00::1");
	f.ip6.n_ext = XFAB_FRAME_MAX_EXT + 1;
	assert_int_equal(xfab_frame_build(&f, b, sizeof(b), NULL), -1);
	assert_int_equal(xfab_frame_build(&f, b, 10, NULL), -1);
	/* a frame that contains itself is nested too deep, not a crash */
	loop = udp4();
	loop.vxlan.present = 1;
	loop.vxlan.inner = &loop;
	assert_int_equal(xfab_frame_build(&loop, b, sizeof(b), NULL), -1);
	f = udp4();
	assert_int_equal(xfab_frame_addrs(&f, "10.0.0.1", "fd00::1"), -1);
	assert_int_equal(xfab_frame_addrs(&f, "10.0.0.300", "10.0.0.1"), -1);
	assert_int_equal(xfab_frame_addrs(&f, NULL, "10.0.0.1"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ipv4_udp),
	    cmocka_unit_test(test_vlan_ipv4_options_tcp),
	    cmocka_unit_test(test_ipv6_extension_headers),
	    cmocka_unit_test(test_icmp_echo),
	    cmocka_unit_test(test_rocev2_bth),
	    cmocka_unit_test(test_vxlan_inner_frame),
	    cmocka_unit_test(test_overrides_write_malformed_headers),
	    cmocka_unit_test(test_l4_checksums_hold),
	    cmocka_unit_test(test_udp_zero_checksum_sent_as_ffff),
	    cmocka_unit_test(test_raw_ethertype),
	    cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
