// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * make fuzz-packets: seeded structured and random frames through both
 * datapaths (xfab_xdp and xfab_tc, BPF_PROG_TEST_RUN) against the reference
 * model (model.c): the same verdict, the same output bytes, the same egress
 * port, and exactly the counters the outcome moves (one drop, punt or
 * forward; the ingress port's rx; its VNET's, CoPP group's and PFC
 * priorities'; nothing else, in any family). On a mismatch: the seed,
 * the frame's index, both results, the frame as a pcap and as a line for
 * the regression list, exit 1. The seed is new each run unless given.
 *
 *   fuzz_packets [--frames N] [--seed S] [--long] [-j] [--replay-only]
 *                [--variant V]
 *
 * The model plays a base switch and variants of it, one feature more each
 * (model.h): the harness loads each in turn, and each gets its frames of
 * the regression list (regressions.txt beside this file), then its share of
 * N generated frames (default 100,000; --long: 5,000,000).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fz_lb.h"
#include "fz_policy.h"
#include "fz_egress.h"
#include "harness.h"
#include "model.h"
#include "names.h"

#define DEFAULT_FRAMES 100000ull
#define LONG_FRAMES 5000000ull
/* Without --seed each run draws its own (printed, and in the mismatch
 * report): runs over time cover more frames than one fixed seed would. */
static uint64_t fresh_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^
	       ((uint64_t)getpid() << 32);
}
#define MAX_CPUS 256

static struct harness H;
static struct model *M;
static int n_cpus;
static int fd_port_stats, fd_drop_stats, fd_punt_stats, fd_pfc_state;
static int fd_vnet_stats, fd_vnet_drops, fd_copp_stats, fd_lb_stats, fd_queue_stats;
static int fd_acl_stats;

/* ---- random numbers (xorshift64*: seeded, reproducible) ---- */

static uint64_t rng_state;
/* this frame is well formed: edge values only where a valid packet has them */
static int clean;
/* this frame goes to the VTEP (UDP 4789, OVERLAY.md), from harness port cur_port */
static int to_vtep, cur_port, inner_depth;
/* the switch the frames are generated for (enum model_variant) */
static int gen_variant;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint32_t rn(uint32_t n) /* 0..n-1 */
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static int chance(int percent)
{
	return (int)rn(100) < percent;
}

/* A field's value: mostly its edges (0, 1, max, max - 1, the sign bit). */
static uint32_t edge(int bits)
{
	uint32_t max = bits >= 32 ? 0xffffffffu : (1u << bits) - 1;

	switch (rn(8)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return max;
	case 3:
		return max - 1;
	case 4:
		return 1u << (bits - 1);
	case 5:
		return (1u << (bits - 1)) - 1;
	default:
		return (uint32_t)rnd() & max;
	}
}

/* ---- frames ---- */

struct frame {
	uint8_t b[MODEL_MAX_FRAME];
	size_t len;
	int port;    /* harness port 0..MODEL_N_PORTS-1 */
	int variant; /* the switch it runs through (enum model_variant) */
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void rand_bytes(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rnd();
}

static const char *const v4_dst[] = {
    "10.9.0.1",	       "10.9.200.7",  "10.8.1.1",    "10.7.0.1",       "10.6.0.1",  "10.77.1.5",
    "10.77.1.130",     "10.77.1.200", "10.77.1.201", "10.0.1.2",       "10.0.1.50", "10.0.1.1",
    "10.0.1.0",	       "10.0.1.255",  "10.0.2.0",    "10.0.2.1",       "10.0.3.0",  "10.0.3.1",
    "10.200.0.1",      "11.0.0.1",    "198.18.5.5",  "198.19.255.255", "224.0.0.5", "239.1.1.1",
    "255.255.255.255", "169.254.1.1", "0.0.0.0",     "127.0.0.1",      "240.0.0.1", "192.0.2.1",
};
static const char *const v4_src[] = {
    "10.0.1.2",	 "10.1.2.3",	    "192.0.2.1",       "0.0.0.0",	  "127.0.0.1",
    "224.0.0.1", "239.9.9.9",	    "255.255.255.255", "169.254.0.9",	  "240.0.0.1",
    "10.9.0.1",	 "198.51.100.7",    "0.1.2.3",	       "255.255.255.254", "223.255.255.255",
    "1.0.0.0",	 "126.255.255.255", "128.0.0.0",
};
static const char *const v6_dst[] = {
    "fd09::1",	   "fd09:1::2", "fd09:0:0:5::1",   "fd09:0:0:5::7", "fd08::1", "fd06::1",
    "fd01::2",	   "fd01::3",	"fd01::1",	   "fd02::2",	    "fd02::3", "fd03::3",
    "2001:db8::1", "fd10::1",	"ff02::1",	   "fe80::1",	    "febf::1", "fec0::1",
    "::1",	   "::",	"fd09:ffff::ffff",
};
static const char *const v6_src[] = {
    "fd01::2", "fe80::2", "ff02::1", "::", "2001:db8:1::1", "fd09::9", "::1", "febf:1::",
};

static void pick_addr(int v6, int dst, uint8_t *out)
{
	const char *const *list;
	size_t n;

	if (!clean && chance(10)) { /* anything */
		rand_bytes(out, v6 ? 16 : 4);
		return;
	}
	if (gen_variant == MODEL_V_ACL && chance(25) && fz_acl_addr(v6, dst, cur_port, rnd(), out))
		return;	     /* an ACL rule's edge */
	if (cur_port == 5) { /* the tenant's port: its own address plan */
		static const char *const t4[] = {"192.168.1.2",	  "192.168.1.1",   "192.168.1.50",
						 "192.168.9.5",	  "192.168.8.8",   "10.9.0.1",
						 "192.168.1.255", "192.168.9.200", "192.168.50.1",
						 "192.168.50.77", "192.168.51.1",  "192.168.52.1"};
		static const char *const t6[] = {"fd66::2", "fd66::1",	 "fd66::9", "fd99::1",
						 "fd09::1", "fd99:1::5", "fd50::1", "fd50:7::9"};
		const size_t n4 = sizeof(t4) / sizeof(t4[0]), n6 = sizeof(t6) / sizeof(t6[0]);

		if (!dst && (clean || chance(70)))
			inet_pton(v6 ? AF_INET6 : AF_INET, v6 ? "fd66::2" : "192.168.1.2", out);
		else if (chance(90))
			inet_pton(v6 ? AF_INET6 : AF_INET,
				  v6 ? t6[rn((uint32_t)n6)] : t4[rn((uint32_t)n4)], out);
		if (dst && chance(50) && (v6 ? out[1] == 0x50 : out[2] == 50))
			out[v6 ? 15 : 3] = (uint8_t)rnd(); /* flows apart: endpoints */
		else
			rand_bytes(out, v6 ? 16 : 4);
		return;
	}
	if (clean && !dst) { /* a host's source address */
		static const char *const good4[] = {"10.0.1.2", "10.1.2.3", "198.51.100.7",
						    "10.9.0.1"};
		static const char *const good6[] = {"fd01::2", "2001:db8:1::1", "fd09::9"};

		inet_pton(v6 ? AF_INET6 : AF_INET, v6 ? good6[rn(3)] : good4[rn(4)], out);
		if (chance(50))
			out[v6 ? 15 : 3] = (uint8_t)(1 + rn(250));
		return;
	}
	if (v6) {
		list = dst ? v6_dst : v6_src;
		n = dst ? sizeof(v6_dst) / sizeof(v6_dst[0]) : sizeof(v6_src) / sizeof(v6_src[0]);
	} else {
		list = dst ? v4_dst : v4_src;
		n = dst ? sizeof(v4_dst) / sizeof(v4_dst[0]) : sizeof(v4_src) / sizeof(v4_src[0]);
	}
	inet_pton(v6 ? AF_INET6 : AF_INET, list[rn((uint32_t)n)], out);
	/* flows apart within a route: the low bits */
	if (chance(50) && (dst ? out[0] == 10 || out[0] == 0xfd : 1)) {
		if (v6 && out[0] == 0xfd && out[1] == 0x09)
			out[15] = (uint8_t)rnd();
		else if (!v6 && out[0] == 10 && out[1] == 9)
			out[3] = (uint8_t)rnd();
	}
}

/* The Ethernet header (and tags) of a frame to port p; returns its length. */
static size_t build_eth(struct frame *f, uint16_t ethertype, int allow_tags)
{
	static const uint8_t host[6] = {0x02, 0xaa, 0, 0, 0, 0x01};
	uint8_t *b = f->b;
	size_t off = 12;
	int tags = 0;

	switch (clean ? 19 : rn(20)) {
	case 0:
		memset(b, 0xff, 6);
		break;
	case 1:
		memcpy(b, (uint8_t[6]){0x01, 0x00, 0x5e, 0, 0, 5}, 6);
		break;
	case 2:
		memcpy(b, (uint8_t[6]){0x02, 0xbb, 0, 0, 0, 9}, 6);
		break;
	case 3:
		memcpy(b, (uint8_t[6]){0x01, 0x80, 0xc2, 0, 0, 1}, 6);
		break;
	case 4:
		memcpy(b, H.mac[rn(MODEL_N_PORTS)], 6);
		break;
	default:
		memcpy(b, H.mac[f->port], 6);
	}
	switch (clean ? 24 : rn(25)) {
	case 0:
		memcpy(b + 6, b, 6); /* smac == dmac */
		break;
	case 1:
		memcpy(b + 6, (uint8_t[6]){0x03, 0, 0, 0, 0, 1}, 6); /* multicast */
		break;
	case 2:
		memset(b + 6, 0xff, 6);
		break;
	default:
		memcpy(b + 6, host, 6);
	}
	if (allow_tags) {
		int r = (int)rn(100);

		tags = r < 12 ? 1 : r < 15 && !clean ? 2 : 0;
	}
	for (int t = 0; t < tags; t++) {
		put16(b + off, chance(70) ? 0x8100 : 0x88a8);
		put16(b + off + 2, (uint16_t)edge(16));
		off += 4;
	}
	put16(b + off, ethertype);
	return off + 2;
}

static size_t build_inner(uint8_t *b, size_t off);

/* TCP, UDP (RoCEv2 BTH, VXLAN), ICMP at off; returns the end. */
static size_t build_l4(uint8_t *b, size_t off, uint8_t proto, int v6)
{
	switch (proto) {
	case 6: /* BGP's port now and then: CoPP's bgp group (COPP.md) */
		put16(b + off, chance(8) ? 179 : (uint16_t)edge(16));
		put16(b + off + 2, chance(8) ? 179 : (uint16_t)edge(16));
		if (gen_variant == MODEL_V_ACL && chance(50)) /* an ACL rule's port */
			put16(b + off + 2 * rn(2), fz_acl_port(rnd()));
		rand_bytes(b + off + 4, 16);
		b[off + 12] = 0x50;
		return off + 20;
	case 17: {
		static const uint16_t bfd[3] = {3784, 3785, 4784}; /* CoPP's bfd group */
		uint16_t dport = to_vtep				    ? 4789
				 : gen_variant == MODEL_V_ACL && chance(30) ? fz_acl_port(rnd())
				 : chance(25)				    ? 4791
				 : chance(15)				    ? 4789
				 : chance(10)				    ? bfd[rn(3)]
									    : (uint16_t)edge(16);
		size_t end = off + 8;

		put16(b + off, chance(50) ? 49152 + (uint16_t)rn(16384) : (uint16_t)edge(16));
		if (gen_variant == MODEL_V_ACL && chance(40))
			put16(b + off, fz_acl_port(rnd()));
		put16(b + off + 2, dport);
		put16(b + off + 6, 0);
		if (dport == 4791) { /* BTH: opcode, flags, P_Key, QP, PSN */
			b[end] =
			    gen_variant == MODEL_V_ACL && chance(80) ? fz_acl_opcode(rnd()) : 0x04;
			b[end + 1] = 0;
			put16(b + end + 2, 0xffff);
			b[end + 4] = 0;
			b[end + 5] = (uint8_t)rnd();
			b[end + 6] = (uint8_t)rnd();
			b[end + 7] = (uint8_t)rnd();
			rand_bytes(b + end + 8, 4);
			end += 12;
		} else if (dport == 4789 && !inner_depth) { /* VXLAN and an inner frame */
			b[end] = clean || chance(85) ? 0x08 : (uint8_t)edge(8);
			memset(b + end + 1, 0, 3);
			if (!clean && chance(8))
				b[end + 1 + rn(3)] = (uint8_t)(1 + rn(255));
			if (clean || chance(80)) { /* VNI 1000, the VNET's */
				b[end + 4] = 0;
				b[end + 5] = 0x03;
				b[end + 6] = 0xe8;
			} else {
				rand_bytes(b + end + 4, 3);
			}
			b[end + 7] = clean || chance(92) ? 0 : (uint8_t)(1 + rn(255));
			to_vtep = 0;
			inner_depth = 1;
			end = build_inner(b, end + 8);
			inner_depth = 0;
		}
		put16(b + off + 4, (uint16_t)(end - off));
		return end;
	}
	case 1:
	case 58: {
		static const uint8_t types[] = {0,   3,	  8,   11,  128, 129, 132,
						133, 134, 135, 136, 137, 138};

		b[off] = chance(70) ? types[rn(sizeof(types))] : (uint8_t)rnd();
		b[off + 1] = 0;
		rand_bytes(b + off + 2, 6);
		(void)v6;
		return off + 8;
	}
	default:
		rand_bytes(b + off, 8);
		return off + 8;
	}
}

static void pick_addr(int v6, int dst, uint8_t *out);
static size_t payload_len(void);

/* A tenant's frame inside VXLAN at off: Ethernet, IPv4 or IPv6 (ECN in
 * every codepoint: RFC 6040's merge), TCP, UDP or ICMPv6. Its end. */
static size_t build_inner(uint8_t *b, size_t off)
{
	static const char *const d4[] = {"192.168.1.2", "192.168.1.1", "192.168.1.60",
					 "192.168.9.9", "192.168.8.1", "10.9.0.1",
					 "224.0.0.9",	"169.254.3.3", "192.168.50.9"};
	static const char *const d6[] = {"fd66::2", "fd66::1", "fd66::8", "fd99::9",
					 "fd09::1", "ff02::1", "fe80::5"};
	int v6 = chance(40), saved = cur_port;
	uint8_t proto = chance(45) ? 6 : chance(70) ? 17 : v6 ? 58 : 1, *h;
	size_t l3 = off + 14, end;

	rand_bytes(b + off, 12);
	put16(b + off + 12, clean || chance(90) ? (v6 ? 0x86dd : 0x0800) : (uint16_t)rnd());
	h = b + l3;
	if (v6) {
		h[0] = (uint8_t)(0x60 | rn(16));
		h[1] = (uint8_t)rnd();
		put16(h + 2, (uint16_t)rnd());
		h[6] = proto;
		h[7] = chance(20) ? (uint8_t)edge(8) : 64;
		cur_port = 5;
		pick_addr(1, 0, h + 8);
		cur_port = saved;
		inet_pton(AF_INET6, d6[rn(7)], h + 24);
		end = build_l4(b, l3 + 40, proto, 1);
		end += rn(40);
		put16(h + 4, (uint16_t)(end - l3 - 40));
		if (!clean && chance(5))
			put16(h + 4, (uint16_t)edge(16));
	} else {
		h[0] = 0x45;
		h[1] = (uint8_t)rnd();
		put16(h + 4, (uint16_t)rnd());
		put16(h + 6, chance(70) ? 0x4000 : 0);
		h[8] = chance(20) ? (uint8_t)edge(8) : 64;
		h[9] = proto;
		cur_port = 5;
		pick_addr(0, 0, h + 12);
		cur_port = saved;
		inet_pton(AF_INET, d4[rn(9)], h + 16);
		end = build_l4(b, l3 + 20, proto, 0);
		end += rn(40);
		put16(h + 2, (uint16_t)(end - l3));
		if (!clean && chance(5))
			put16(h + 2, (uint16_t)edge(16));
		put16(h + 10, 0);
		put16(h + 10, model_csum(h, 20));
		if (!clean && chance(5))
			h[10] ^= 0x10;
	}
	if (chance(5) && end + 1500 + 256 < MODEL_MAX_FRAME) /* around the MTU */
		end += 1300 + rn(200);
	if (!v6)
		put16(h + 2, (uint16_t)(end - l3));
	else
		put16(h + 4, (uint16_t)(end - l3 - 40));
	if (!v6) {
		put16(h + 10, 0);
		put16(h + 10, model_csum(h, 20));
	}
	return end;
}

static uint8_t pick_proto(void)
{
	static const uint8_t p[] = {6, 17, 17, 1, 58, 47, 50, 132, 0, 255};

	return chance(85) ? p[rn(sizeof(p))] : (uint8_t)rnd();
}

static uint16_t csum16(const uint8_t *p, size_t len)
{
	return model_csum(p, len);
}

/* The payload after an L3 packet of `sofar` bytes: mostly short, now and
 * then around the ports' MTUs (1400, 1500) or at them exactly. */
static size_t payload_len(void);

static size_t payload_for(size_t sofar)
{ /* and, tunnelled (50 bytes more), 1364/1365 and 1464/1465 */
	static const size_t at[] = {1399, 1400, 1401, 1499, 1500, 1501, 1364, 1365, 1464, 1465};

	if (chance(8)) {
		size_t t = at[rn(10)];

		return t > sofar ? t - sofar : 0;
	}
	return payload_len();
}

static size_t payload_len(void)
{
	switch (rn(10)) {
	case 0:
		return 1300 + rn(250); /* around the MTUs (1400, 1500) */
	case 1:
		return rn(2);
	default:
		return rn(64);
	}
}

/* Sets the IPv4 ID so that the header checksum comes out as target: the
 * checksum's edges (RFC 1624's -0 and +0, a carry out of either byte on
 * the TTL's update) from a valid header. The ID is a free field. */
static void steer_csum(uint8_t *h, size_t hl, uint16_t target)
{
	uint32_t s;

	put16(h + 4, 0);
	put16(h + 10, 0);
	s = 0xffffu & (uint32_t)~model_csum(h, hl); /* the folded sum */
	/* the ID w with fold(s + w) == ~target: w = ~target - s (ones' complement) */
	s = (uint32_t)(uint16_t)~target + (uint16_t)~s;
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	put16(h + 4, (uint16_t)s);
	put16(h + 10, model_csum(h, hl));
}

static void build_ipv4(struct frame *f)
{
	size_t l3 = build_eth(f, 0x0800, 1), hl, end;
	uint8_t *b = f->b, *h = b + l3, proto = pick_proto();
	int optw = chance(25) ? (int)rn(11) : 0, bad = !clean;

	hl = 20 + (size_t)optw * 4;
	h[0] = (uint8_t)(0x40 | (5 + optw));
	h[1] = chance(30) ? (uint8_t)(rn(64) << 2 | rn(4)) : (uint8_t)(3 << 2); /* DSCP 3: PFC */
	if (gen_variant == MODEL_V_ACL && chance(25)) /* an ACL rule's DSCP */
		h[1] = (uint8_t)(fz_acl_dscp(rnd()) << 2 | (h[1] & 3));
	put16(h + 4, (uint16_t)rnd());
	put16(h + 6, chance(80) ? (chance(50) ? 0x4000 : 0) : (uint16_t)edge(16));
	h[8] = chance(50) ? (uint8_t)edge(8) : 64;
	h[9] = proto;
	pick_addr(0, 0, h + 12);
	pick_addr(0, 1, h + 16);
	if (cur_port != 5 && chance(12)) /* more tunnel packets */
		h[9] = proto = 17;
	to_vtep = proto == 17 && cur_port != 5 && chance(60);
	if (to_vtep) { /* the VTEP, its outer ECN in every codepoint */
		if (clean || chance(90))
			inet_pton(AF_INET, "10.252.0.1", h + 16);
		h[1] = (uint8_t)(rn(64) << 2 | rn(4));
	}
	for (int i = 0; i < optw * 4; i++) /* NOP, EOL or anything */
		h[20 + i] = chance(60) ? 1 : chance(50) ? 0 : (uint8_t)rnd();
	if (clean && chance(80)) /* whole packets, a TTL that forwards */
		put16(h + 6, chance(50) ? 0x4000 : 0);
	if (clean && h[8] < 2)
		h[8] = chance(80) ? (uint8_t)(2 + rn(254)) : h[8];
	end = build_l4(b, l3 + hl, proto, 0);
	to_vtep = 0;
	{
		size_t pl = payload_for(end - l3);

		if (end + pl > MODEL_MAX_FRAME - 64)
			pl = 0;
		rand_bytes(b + end, pl);
		end += pl;
	}
	put16(h + 2, (uint16_t)(end - l3));
	if (bad && chance(4) && (proto == 6 || proto == 17 || proto == 1 || proto == 58)) {
		/* the L4 header cut short, the IP lengths consistent */
		end = l3 + hl + rn(proto == 6 ? 20 : proto == 17 ? 8 : 4);
		put16(h + 2, (uint16_t)(end - l3));
	}
	if (bad && chance(5)) { /* a bad version or header length */
		if (chance(50))
			h[0] = (uint8_t)(rn(16) << 4 | (h[0] & 0x0f));
		else
			h[0] = (uint8_t)(0x40 | rn(16));
	}
	if (bad && chance(5)) { /* a total length at its edges */
		static const int d[] = {-1, 1, -20, 100};
		uint16_t tl = (uint16_t)(end - l3);

		switch (rn(3)) {
		case 0:
			put16(h + 2, (uint16_t)(tl + d[rn(4)]));
			break;
		case 1:
			put16(h + 2, (uint16_t)((h[0] & 0x0f) * 4 + rn(2) - 1));
			break;
		default:
			put16(h + 2, (uint16_t)edge(16));
		}
	}
	put16(h + 10, 0);
	put16(h + 10, csum16(h, (size_t)(h[0] & 0x0f) * 4 > hl ? hl : (size_t)(h[0] & 0x0f) * 4));
	if (clean && hl == (size_t)(h[0] & 0x0f) * 4 && chance(10)) {
		static const uint16_t edges[] = {0x0000, 0xfeff, 0xff00, 0xfffe, 0xfe00,
						 0x00ff, 0xff7f, 0x0100, 0xfffd};
		uint16_t t = edges[rn(sizeof(edges) / sizeof(edges[0]))];

		steer_csum(h, hl, t);
		if (t == 0 && chance(50)) /* -0: 0xffff verifies as well */
			put16(h + 10, 0xffff);
	}
	if (bad && chance(4)) /* a checksum that does not verify, or one spelt 0xffff */
		put16(h + 10, chance(50) ? (uint16_t)(((h[10] << 8) | h[11]) + 1) : 0xffff);
	f->len = end;
}

static void build_ipv6(struct frame *f)
{
	static const uint8_t ext[] = {0, 43, 60, 51, 44};
	size_t l3 = build_eth(f, 0x86dd, 1), cur, l4;
	uint8_t *b = f->b, *h = b + l3, *nh = h + 6, proto = pick_proto();
	int n_ext = chance(30) ? (int)rn(clean ? 4 : 10) : 0;

	h[0] = (uint8_t)(0x60 | (chance(30) ? rn(16) : 0));
	if (chance(70)) /* DSCP 3 (PFC's class) or 0 */
		h[0] = chance(30) ? 0x60 : (uint8_t)(0x60 | (3 << 2) >> 4);
	h[1] = (uint8_t)(((chance(70) && (h[0] & 0x0f) == 0 ? (3 << 2) : rn(16)) & 0x0f) << 4 |
			 rn(16));
	if (gen_variant == MODEL_V_ACL && chance(25)) { /* an ACL rule's DSCP, ECN kept */
		uint8_t tc = (uint8_t)(fz_acl_dscp(rnd()) << 2 | (h[1] >> 4 & 3));

		h[0] = (uint8_t)(0x60 | tc >> 4);
		h[1] = (uint8_t)((tc & 0x0f) << 4 | (h[1] & 0x0f));
	}
	h[2] = (uint8_t)rnd();
	h[3] = (uint8_t)rnd();
	h[7] = chance(50) ? (uint8_t)edge(8) : 64;
	if (clean && h[7] < 2 && chance(80))
		h[7] = (uint8_t)(2 + rn(254));
	pick_addr(1, 0, h + 8);
	pick_addr(1, 1, h + 24);
	cur = l3 + 40;
	for (int i = 0; i < n_ext; i++) {
		uint8_t t = clean || chance(85)
				? ext[(clean ? 1 : 0) + rn(sizeof(ext) - (clean ? 1 : 0))]
				: (uint8_t)rnd();
		size_t len;

		if (cur + 64 > MODEL_MAX_FRAME - 128)
			break;
		*nh = t;
		nh = b + cur;
		if (t == 44) {
			b[cur + 1] = 0;
			put16(b + cur + 2, chance(50) ? 0 : (uint16_t)edge(16));
			rand_bytes(b + cur + 4, 4);
			len = 8;
		} else if (t == 51) {
			b[cur + 1] = (uint8_t)(1 + rn(4));
			len = ((size_t)b[cur + 1] + 2) * 4;
			rand_bytes(b + cur + 2, len - 2);
		} else {
			b[cur + 1] = chance(3) ? (uint8_t)edge(8) : (uint8_t)rn(3);
			len = ((size_t)b[cur + 1] + 1) * 8;
			if (cur + len + 256 > MODEL_MAX_FRAME) {
				/* a header longer than the frame: the chain runs
				 * off its end */
				b[cur] = pick_proto();
				f->len = cur + 8 + rn(64);
				rand_bytes(b + cur + 2, f->len - cur - 2);
				put16(h + 4, (uint16_t)(f->len - l3 - 40));
				return;
			}
			rand_bytes(b + cur + 2, len - 2);
		}
		cur += len;
	}
	*nh = proto;
	l4 = cur;
	cur = build_l4(b, cur, proto, 1);
	if (!clean && chance(4) && (proto == 6 || proto == 17 || proto == 1 || proto == 58)) {
		/* the L4 header cut short, the payload length consistent */
		cur = l4 + rn(proto == 6 ? 20 : proto == 17 ? 8 : 4);
		put16(h + 4, (uint16_t)(cur - l3 - 40));
		f->len = cur;
		return;
	}
	{
		size_t pl = payload_for(cur - l3);

		if (cur + pl > MODEL_MAX_FRAME - 64)
			pl = 0;
		rand_bytes(b + cur, pl);
		cur += pl;
	}
	put16(h + 4, (uint16_t)(cur - l3 - 40));
	if (!clean && chance(5)) {
		static const int d[] = {-1, 1, 8, -40};

		put16(h + 4,
		      chance(50) ? (uint16_t)(cur - l3 - 40 + d[rn(4)]) : (uint16_t)edge(16));
	}
	f->len = cur;
}

static void build_arp(struct frame *f)
{
	size_t off = build_eth(f, 0x0806, 1);

	rand_bytes(f->b + off, 28);
	/* a request, a reply (COPP's arp and arp_resp groups) or any opcode */
	if (chance(80))
		put16(f->b + off + 6, chance(50) ? 1 : 2);
	f->len = off + 28 + (chance(50) ? 18 : 0);
	if (chance(5)) /* cut before or inside the opcode: a request's group */
		f->len = off + rn(8);
}

static void build_mac_control(struct frame *f)
{
	size_t off = build_eth(f, 0x8808, chance(10));
	uint8_t *b = f->b;

	if (chance(60))
		memcpy(b, (uint8_t[6]){0x01, 0x80, 0xc2, 0, 0, 1}, 6);
	switch (rn(5)) {
	case 0:
		put16(b + off, 0x0001);
		break;
	case 1:
		put16(b + off, (uint16_t)edge(16));
		break;
	default:
		put16(b + off, 0x0101);
	}
	put16(b + off + 2, chance(70) ? (uint16_t)rn(256) : (uint16_t)edge(16));
	for (int p = 0; p < 8; p++)
		put16(b + off + 4 + 2 * (size_t)p, (uint16_t)edge(16));
	f->len = off + 20 + (chance(50) ? 26 : 0);
	if (chance(30))
		f->len = off + rn(21);
}

static void build_other(struct frame *f)
{
	static const uint16_t types[] = {0x88cc, 0x8847, 0x88f7, 0x0842, 0x05dc, 0x0000, 0xffff};
	size_t off = build_eth(f, chance(60) ? types[rn(7)] : (uint16_t)rnd(), 1);

	rand_bytes(f->b + off, 46);
	f->len = off + 46;
}

static void build_random(struct frame *f)
{
	f->len = 14 + rn(200);
	rand_bytes(f->b, f->len);
	if (chance(50)) { /* deeper: this port's MAC and an IP ethertype */
		memcpy(f->b, H.mac[f->port], 6);
		f->b[6] = 0x02;
		put16(f->b + 12, chance(50) ? 0x0800 : 0x86dd);
		f->b[14] = chance(50) ? 0x45 : 0x60;
	}
}

static int pick_port(void)
{
	int r = (int)rn(100); /* p1 36, p2 11, p3 11, p4 (PFC) 24, p5 (down) 5, p6 (the tenant's) 9,
				 p7 (no port) 4 */
	return r < 36 ? 0 : r < 47 ? 1 : r < 58 ? 2 : r < 82 ? 3 : r < 87 ? 4 : r < 96 ? 5 : 6;
}

/* A generated frame; *trunc_all: also run its every truncation. */
static void gen_frame(struct frame *f, int *trunc_all)
{
	int kind = (int)rn(100);

	memset(f->b, 0, sizeof(f->b));
	clean = chance(45);
	f->port = clean ? (int)(int[]){0, 1, 2, 3, 5}[rn(5)] : pick_port();
	cur_port = f->port;
	*trunc_all = 0;
	if (clean)
		kind = (int)rn(80);
	if (kind < 45)
		build_ipv4(f);
	else if (kind < 80)
		build_ipv6(f);
	else if (kind < 84)
		build_arp(f);
	else if (kind < 91)
		build_mac_control(f);
	else if (kind < 94)
		build_other(f);
	else {
		build_random(f);
		return;
	}
	if (clean) {
		*trunc_all = chance(1);
		return;
	}
	if (chance(8)) /* byte flips */
		for (int i = 1 + (int)rn(3); i > 0; i--)
			f->b[rn((uint32_t)f->len)] ^= (uint8_t)(1 + rn(255));
	if (chance(10)) { /* Ethernet padding */
		size_t pad = rn(40);

		if (f->len + pad <= MODEL_MAX_FRAME)
			f->len += pad;
	}
	if (chance(10) && f->len > 14) /* cut short */
		f->len = 14 + rn((uint32_t)(f->len - 14));
	*trunc_all = chance(1);
}

/* ---- the regression list ---- */

/* Lines "PORT HEX # why": frames that once disagreed, replayed first. */
/* A regression line's "VARIANT/" before its port (none: the base switch);
 * *p moves past it. The variant, -1: not one of model.h's. */
static int reg_variant(char **p)
{
	char *slash = strchr(*p, '/'), name[32];
	size_t n;

	if (!slash || slash > strchr(*p, ' '))
		return MODEL_V_BASE;
	n = (size_t)(slash - *p);
	if (n >= sizeof(name))
		return -1;
	memcpy(name, *p, n);
	name[n] = '\0';
	*p = slash + 1;
	return model_variant_by_name(name);
}

static int load_regressions(const char *path, struct frame **out, size_t *n_out)
{
	FILE *fp = fopen(path, "r");
	char line[8192];
	struct frame *v = NULL;
	size_t n = 0, lineno = 0;

	*out = NULL;
	*n_out = 0;
	if (!fp)
		return errno == ENOENT ? 0 : -1;
	while (fgets(line, sizeof(line), fp)) {
		char *p = line, *hash = strchr(line, '#');
		struct frame *f, *nv;
		int port, variant;

		lineno++;
		if (hash)
			*hash = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '\n')
			continue;
		variant = reg_variant(&p);
		if (variant < 0 || sscanf(p, "p%d", &port) != 1 || port < 1 ||
		    port > MODEL_N_PORTS) {
			fprintf(stderr,
				"%s:%zu: [VARIANT/]PORT first: a variant of model.h, p1..p%d\n",
				path, lineno, MODEL_N_PORTS);
			goto fail;
		}
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			goto fail;
		v = nv;
		f = &v[n];
		memset(f, 0, sizeof(*f));
		f->port = port - 1;
		f->variant = variant;
		p = strchr(p, ' ');
		while (p && *p) {
			unsigned int byte;

			while (*p == ' ' || *p == '\t' || *p == '\n')
				p++;
			if (!*p)
				break;
			if (sscanf(p, "%2x", &byte) != 1 || f->len >= MODEL_MAX_FRAME) {
				fprintf(stderr, "%s:%zu: hex bytes after the port\n", path, lineno);
				goto fail;
			}
			f->b[f->len++] = (uint8_t)byte;
			p += 2;
		}
		if (f->len < 14) {
			fprintf(stderr, "%s:%zu: a frame of 14 bytes at least\n", path, lineno);
			goto fail;
		}
		n++;
	}
	fclose(fp);
	*out = v;
	*n_out = n;
	return 0;
fail:
	fclose(fp);
	free(v);
	return -1;
}

/* ---- counters ---- */

/* The per-priority PFC counters of pfc_state compared (its other fields
 * are state: a pause's end time, the occupancy tc charges and the egress
 * program gives back, which BPF_PROG_TEST_RUN never runs). */
enum fz_pfc_field {
	FZ_PFC_RX_FRAMES,
	FZ_PFC_RX_XON,
	FZ_PFC_RX_IGNORED,
	FZ_PFC_RX_PACKETS,
	FZ_PFC_WD_RX_DROPPED,
	FZ_PFC_WD_TX_DROPPED,
	FZ_PFC_FIELDS
};

/*
 * Every counter family the data plane keeps, all u64 (the delta is taken
 * word by word). port, drop and punt are read around every run; the rest
 * (ext: some 240 map entries more, which read per run tripled the run
 * time) once per window of FZ_WINDOW frames against the window's summed
 * expectation, and a window that differs is run again frame by frame,
 * reading everything, to name the run (fz_window_check). The VNETs are 0
 * (the underlay, and a tunnel packet with an unknown VNI) and the model's
 * one tenant, 1.
 */
#define FZ_WINDOW 64
struct fz_ext {
	uint64_t vnet[2][6];					    /* struct xfab_vnet_stats */
	uint64_t vnet_drop[2][XFAB_VNET_DROP_REASONS][2];	    /* vnet_drops */
	uint64_t copp[XFAB_COPP_GROUPS][4];			    /* struct xfab_copp_stats */
	uint64_t lb[XFAB_LB_MAX];				    /* lb_stats */
	uint64_t queue[MODEL_N_SLOTS * XFAB_NUM_TC][4];		    /* struct xfab_queue_stats */
	uint64_t pfc[MODEL_N_SLOTS * XFAB_NUM_PRIO][FZ_PFC_FIELDS]; /* pfc_state's counters */
	uint64_t acl[FZ_ACL_COUNTERS][2];			    /* acl_stats */
};

struct counters {
	uint64_t port[MODEL_N_SLOTS][6]; /* struct xfab_port_stats */
	uint64_t drop[XFAB_DROP_MAX][2];
	uint64_t punt[XFAB_PUNT_MAX][2];
	struct fz_ext x; /* read when asked (read_counters' ext) */
};
#define FZ_CORE_SIZE offsetof(struct counters, x)

/* A per-CPU array's entries summed over CPUs: n_keys x n_fields u64s. */
static int percpu_read(int fd, __u32 n_keys, int n_fields, uint64_t *sum)
{
	static uint64_t vals[128 * MAX_CPUS * 6];
	__u32 keys[128], count = n_keys, out_batch;
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	int err;

	if (n_keys > 128 || (size_t)n_cpus * (size_t)n_fields * n_keys > sizeof(vals) / 8)
		return -1;
	err = bpf_map_lookup_batch(fd, NULL, &out_batch, keys, vals, &count, &opts);
	if (err && errno != ENOENT)
		return -1;
	if (count != n_keys)
		return -1;
	memset(sum, 0, sizeof(uint64_t) * n_keys * (size_t)n_fields);
	for (__u32 i = 0; i < count; i++) {
		if (keys[i] >= n_keys)
			return -1;
		for (int c = 0; c < n_cpus; c++)
			for (int f = 0; f < n_fields; f++)
				sum[keys[i] * (size_t)n_fields + (size_t)f] +=
				    vals[((size_t)i * (size_t)n_cpus + (size_t)c) *
					     (size_t)n_fields +
					 (size_t)f];
	}
	return 0;
}

/* pfc_state (a plain array, atomics) of the switch's ports: its counters. */
static int pfc_read(uint64_t out[][FZ_PFC_FIELDS])
{
	static struct xfab_pfc_state st[MODEL_N_SLOTS * XFAB_NUM_PRIO];
	__u32 keys[MODEL_N_SLOTS * XFAB_NUM_PRIO], count = MODEL_N_SLOTS * XFAB_NUM_PRIO, out_batch;
	LIBBPF_OPTS(bpf_map_batch_opts, opts);

	if (bpf_map_lookup_batch(fd_pfc_state, NULL, &out_batch, keys, st, &count, &opts) &&
	    errno != ENOENT)
		return -1;
	if (count != MODEL_N_SLOTS * XFAB_NUM_PRIO)
		return -1;
	for (__u32 i = 0; i < count; i++) {
		if (keys[i] != i)
			return -1;
		out[i][FZ_PFC_RX_FRAMES] = st[i].rx_frames;
		out[i][FZ_PFC_RX_XON] = st[i].rx_xon;
		out[i][FZ_PFC_RX_IGNORED] = st[i].rx_ignored;
		out[i][FZ_PFC_RX_PACKETS] = st[i].rx_packets;
		out[i][FZ_PFC_WD_RX_DROPPED] = st[i].wd_rx_dropped;
		out[i][FZ_PFC_WD_TX_DROPPED] = st[i].wd_tx_dropped;
	}
	return 0;
}

static int read_ext(struct fz_ext *x)
{
	if (percpu_read(fd_vnet_stats, 2, 6, &x->vnet[0][0]) ||
	    percpu_read(fd_vnet_drops, 2 * XFAB_VNET_DROP_REASONS, 2, &x->vnet_drop[0][0][0]) ||
	    percpu_read(fd_copp_stats, XFAB_COPP_GROUPS, 4, &x->copp[0][0]) ||
	    percpu_read(fd_lb_stats, XFAB_LB_MAX, 1, x->lb) ||
	    percpu_read(fd_queue_stats, MODEL_N_SLOTS * XFAB_NUM_TC, 4, &x->queue[0][0]) ||
	    percpu_read(fd_acl_stats, FZ_ACL_COUNTERS, 2, &x->acl[0][0]) || pfc_read(x->pfc))
		return -1;
	return 0;
}

/* port, drop and punt; ext: also the other families (else c->x is left). */
static int read_counters(struct counters *c, int ext)
{
	static uint64_t ports[64 * 6];

	if (percpu_read(fd_port_stats, 64, 6, ports) ||
	    percpu_read(fd_drop_stats, XFAB_DROP_MAX, 2, &c->drop[0][0]) ||
	    percpu_read(fd_punt_stats, XFAB_PUNT_MAX, 2, &c->punt[0][0]) ||
	    (ext && read_ext(&c->x)))
		return -1;
	memcpy(c->port, ports, sizeof(c->port));
	return 0;
}

/* OVERLAY.md "Counters": a tenant's packet (or a tunnel packet, in VNET
 * 0 until its VNI is known) moves its VNET's drops (and vnet_drops by
 * reason), punts, or, forwarded through a tunnel, encap or decap. */
static void expect_vnet(const struct model_result *r, struct fz_ext *e)
{
	if (r->vnet < 0)
		return;
	switch (r->verdict) {
	case MV_DROP:
		e->vnet[r->vnet][4] = 1;
		e->vnet_drop[r->vnet][r->reason][0] = 1;
		e->vnet_drop[r->vnet][r->reason][1] = r->reason_bytes;
		break;
	case MV_PUNT:
		e->vnet[r->vnet][5] = 1;
		break;
	case MV_FORWARD:
		if (r->encap || r->decap) {
			e->vnet[r->vnet][r->decap ? 2 : 0] = 1;
			e->vnet[r->vnet][r->decap ? 3 : 1] = r->vnet_bytes;
		}
		break;
	default:
		break;
	}
}

/* PFC.md: a pause frame's priorities in pfc_state (received, XON,
 * ignored); a forwarded packet charged to its lossless ingress PG. The
 * watchdog's drops stay put: no queue of the model's switch storms. */
static void expect_pfc(const struct model_result *r, struct fz_ext *e)
{
	for (int p = 0; p < 8 && r->verdict == MV_CONSUMED; p++) {
		uint64_t *c = e->pfc[r->in_slot * 8 + p];

		c[FZ_PFC_RX_FRAMES] = (uint64_t)(r->pfc_prio_mask >> p & 1);
		c[FZ_PFC_RX_XON] = (uint64_t)(r->pfc_xon_mask >> p & 1);
		c[FZ_PFC_RX_IGNORED] = (uint64_t)(r->pfc_ignored_mask >> p & 1);
	}
	if (r->pfc_pg >= 0)
		e->pfc[r->pfc_pg][FZ_PFC_RX_PACKETS] = 1;
}

/*
 * The counters an outcome moves: the one place a new outcome (a policed
 * punt) adds its rule. Everything not named here must stay put.
 */
static void expect_one(const struct model_result *r, size_t len, struct counters *e)
{
	memset(e, 0, sizeof(*e));
	if (r->in_slot >= 0 && !r->no_rx) {
		e->port[r->in_slot][0] = 1; /* rx_packets */
		e->port[r->in_slot][1] = len;
	}
	switch (r->verdict) {
	case MV_DROP:
		e->drop[r->reason][0] = 1;
		e->drop[r->reason][1] = r->reason_bytes;
		if (r->in_slot >= 0)
			e->port[r->in_slot][4] = 1;
		break;
	case MV_PUNT:
		e->punt[r->reason][0] = 1;
		e->punt[r->reason][1] = r->reason_bytes;
		if (r->in_slot >= 0)
			e->port[r->in_slot][5] = 1;
		break;
	case MV_FORWARD:
		e->port[r->out_slot][2] = 1;
		e->port[r->out_slot][3] = r->tx_bytes;
		break;
	default: /* consumed, handed off: the arrival only */
		break;
	}
	expect_vnet(r, &e->x);
	expect_pfc(r, &e->x);
	if (r->verdict == MV_PUNT) { /* green: admitted (COPP.md) */
		e->x.copp[r->copp_group][0] = 1;
		e->x.copp[r->copp_group][1] = r->reason_bytes;
	}
	if (r->verdict == MV_DROP && r->reason == XFAB_DROP_COPP_POLICED) { /* red */
		e->x.copp[r->copp_group][2] = 1;
		e->x.copp[r->copp_group][3] = r->reason_bytes;
	}
	if (r->acl_rule) { /* ACL.md "Counters": the frame as received */
		e->x.acl[r->acl_rule - 1][0] = 1;
		e->x.acl[r->acl_rule - 1][1] = r->acl_bytes;
	}
	/* QOS.md "Counters": the queue the packet met (xdp's phantom queue,
	 * or tc's egress program) counts it, sent (and marked) or dropped; a
	 * drop by the egress program counts its reason, nothing else (the
	 * tx counters are the pipeline's: ARCHITECTURE.md) */
	if (r->queue_key >= 0) {
		uint64_t *q = e->x.queue[r->queue_key];

		if (r->queue_verdict == MQ_DROP_TAIL || r->queue_verdict == MQ_DROP_WRED) {
			q[3] = 1;
		} else {
			q[0] = 1;
			q[1] = r->queue_bytes;
			q[2] = r->queue_verdict == MQ_MARK;
		}
	}
	if (r->eg_run && r->eg_verdict == MV_DROP) {
		e->drop[r->eg_reason][0] += 1;
		e->drop[r->eg_reason][1] += r->out_len;
	}
	/* lb_stats: the model's TE, repair and split horizon events
	 * (model_lb.c); no switch has flowlets, and no egress port goes
	 * down under a packet (the egress program's reroute). */
	for (int ev = 0; ev < XFAB_LB_MAX; ev++)
		e->x.lb[ev] = (uint64_t)(r->lb_events >> ev & 1);
}

/* A run's outcome; a hand-over run live as well (fz_egress.c) adds XDP's
 * part once more and the tc side's. */
static void expect_counters(const struct model_result *r, size_t len, struct counters *e)
{
	static struct counters x;

	expect_one(r, len, e);
	for (int k = 0; r->handoff_tc && k < 2; k++) {
		expect_one(k ? r->handoff_tc : r, len, &x);
		for (size_t i = 0; i < sizeof(x) / sizeof(uint64_t); i++)
			((uint64_t *)e)[i] += ((uint64_t *)&x)[i];
	}
}

/* ---- results ---- */

static const char *const verdict_names[MV_COUNT] = {"drop", "punt", "forward", "consumed",
						    "handoff"};

struct dp_result {
	int err;
	__u32 retval;
	uint8_t out[MODEL_MAX_FRAME + 256];
	size_t out_len;
	int ext; /* delta.x read too (else 0) */
	struct counters delta;
	struct fz_after after; /* the program the output met next (fz_egress.c) */
};

static __u32 expected_retval(int tc, int verdict)
{
	switch (verdict) {
	case MV_FORWARD:
		return tc ? TC_ACT_REDIRECT : XDP_REDIRECT;
	case MV_PUNT:
	case MV_HANDOFF:
		return tc ? TC_ACT_OK : XDP_PASS;
	default:
		return tc ? TC_ACT_SHOT : XDP_DROP;
	}
}

static const char *reason_name(int verdict, int reason)
{
	if (verdict == MV_DROP)
		return xfab_drop_name((__u32)reason);
	if (verdict == MV_PUNT)
		return xfab_punt_name((__u32)reason);
	return "-";
}

static void print_hex(const char *what, const uint8_t *p, size_t n)
{
	fprintf(stderr, "  %s (%zu bytes):", what, n);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%02x", i % 32 ? "" : "\n    ", p[i]);
	fprintf(stderr, "\n");
}

/* A family's moved counters: key k, field f (the ABI struct's order). */
static void print_family(const char *what, const char *field, const uint64_t *v, int n_keys,
			 int n_fields)
{
	for (int k = 0; k < n_keys; k++)
		for (int f = 0; f < n_fields; f++)
			if (v[k * n_fields + f])
				fprintf(stderr, "    %s %d %s %d: +%llu\n", what, k, field, f,
					(unsigned long long)v[k * n_fields + f]);
}

static void print_ext(const struct fz_ext *x)
{
	print_family("vnet", "field", &x->vnet[0][0], 2, 6);
	print_family("vnet_drops key", "field", &x->vnet_drop[0][0][0], 2 * XFAB_VNET_DROP_REASONS,
		     2);
	print_family("copp group", "field", &x->copp[0][0], XFAB_COPP_GROUPS, 4);
	print_family("lb event", "count", x->lb, XFAB_LB_MAX, 1);
	print_family("queue (slot*8+tc)", "field", &x->queue[0][0], MODEL_N_SLOTS * XFAB_NUM_TC, 4);
	print_family("pfc (slot*8+prio)", "field", &x->pfc[0][0], MODEL_N_SLOTS * XFAB_NUM_PRIO,
		     FZ_PFC_FIELDS);
	print_family("acl rule (counter)", "field", &x->acl[0][0], FZ_ACL_COUNTERS, 2);
}

static void print_delta(const struct counters *d)
{
	for (int s = 0; s < MODEL_N_SLOTS; s++)
		for (int f = 0; f < 6; f++)
			if (d->port[s][f])
				fprintf(stderr, "    port slot %d field %d: +%llu\n", s, f,
					(unsigned long long)d->port[s][f]);
	for (int i = 0; i < XFAB_DROP_MAX; i++)
		if (d->drop[i][0] || d->drop[i][1])
			fprintf(stderr, "    drop %s: +%llu packets +%llu bytes\n",
				xfab_drop_name((__u32)i), (unsigned long long)d->drop[i][0],
				(unsigned long long)d->drop[i][1]);
	for (int i = 0; i < XFAB_PUNT_MAX; i++)
		if (d->punt[i][0] || d->punt[i][1])
			fprintf(stderr, "    punt %s: +%llu packets +%llu bytes\n",
				xfab_punt_name((__u32)i), (unsigned long long)d->punt[i][0],
				(unsigned long long)d->punt[i][1]);
	print_ext(&d->x);
}

static void write_pcap(const char *dir, uint64_t seed, uint64_t index, const struct frame *f)
{
	struct {
		uint32_t magic;
		uint16_t major, minor;
		int32_t zone;
		uint32_t sigfigs, snaplen, linktype;
	} gh = {0xa1b2c3d4, 2, 4, 0, 0, 65535, 1};
	struct {
		uint32_t sec, usec, incl, orig;
	} rh = {0, 0, (uint32_t)f->len, (uint32_t)f->len};
	char path[4096];
	FILE *fp;

	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/seed%llu-frame%llu-p%d.pcap", dir,
		 (unsigned long long)seed, (unsigned long long)index, f->port + 1);
	fp = fopen(path, "wb");
	if (!fp) {
		fprintf(stderr, "  cannot write %s: %s\n", path, strerror(errno));
		return;
	}
	fwrite(&gh, sizeof(gh), 1, fp);
	fwrite(&rh, sizeof(rh), 1, fp);
	fwrite(f->b, 1, f->len, fp);
	fclose(fp);
	fprintf(stderr,
		"  frame written to %s (ingress p%d; replay: add \"p%d <hex>\" to "
		"tests/fuzz/packets/regressions.txt)\n",
		path, f->port + 1, f->port + 1);
}

struct stats {
	uint64_t frames, runs, tc_refused;
	uint64_t switch_frames[MODEL_V_COUNT]; /* frames each switch ran */
	uint64_t verdict[2][MV_COUNT];
	uint64_t drop[2][XFAB_DROP_MAX], punt[2][XFAB_PUNT_MAX];
	uint64_t decap[2][MV_COUNT]; /* frames to the VTEP, by outcome */
	uint64_t lb[2][XFAB_LB_MAX]; /* runs that moved each lb event (model_lb.c) */
};

static struct stats S;
static const char *fail_dir;
static uint64_t seed;

/* One run; ext: every family's delta, else port, drop and punt's (the
 * window checks the rest). */
static int run_one(int tc, const struct frame *f, const struct model_result *mr, int ext,
		   struct dp_result *d)
{
	static struct counters before, after;
	static int have_before;
	uint64_t *b = &before.port[0][0], *a = &after.port[0][0], *x = &d->delta.port[0][0];

	/* the counters after the last run are the ones before this one */
	if ((!have_before || ext) && read_counters(&before, ext))
		return -1;
	have_before = 1;
	if (fz_egress_before(&H, mr, tc))
		return -1;
	d->after.ran = d->after.live = 0;
	d->out_len = sizeof(d->out);
	fz_copp_clock(0);
	d->err = h_run(&H, tc, f->port, f->b, f->len, d->out, &d->out_len, &d->retval);
	fz_copp_clock(1);
	if (d->err)
		d->err = -errno;
	else /* its counters with the frame's */
		fz_egress_after(&H, mr, f->port, d->retval, d->out, d->out_len, &d->after);
	if (read_counters(&after, ext))
		return -1;
	for (size_t i = 0; i < (ext ? sizeof(before) : FZ_CORE_SIZE) / sizeof(uint64_t); i++)
		x[i] = a[i] - b[i];
	if (!ext)
		memset(&d->delta.x, 0, sizeof(d->delta.x));
	d->ext = ext;
	memcpy(&before, &after, ext ? sizeof(before) : FZ_CORE_SIZE);
	return 0;
}

/* 0: the datapath agrees with the model; else prints why. */
static int compare(int tc, const struct frame *f, const struct model_result *mr,
		   const struct dp_result *d, char *why, size_t why_len)
{
	struct counters e;

	if (d->err) {
		snprintf(why, why_len, "BPF_PROG_TEST_RUN failed: %s", strerror(-d->err));
		return 1;
	}
	if (d->retval != expected_retval(tc, mr->verdict)) {
		snprintf(why, why_len, "verdict: retval %u, the model's %s/%s wants %u", d->retval,
			 verdict_names[mr->verdict], reason_name(mr->verdict, mr->reason),
			 expected_retval(tc, mr->verdict));
		return 1;
	}
	expect_counters(mr, f->len, &e);
	if (memcmp(&e, &d->delta, d->ext ? sizeof(e) : FZ_CORE_SIZE)) {
		snprintf(why, why_len, "counters: the model's %s/%s (egress slot %d) moves others",
			 verdict_names[mr->verdict], reason_name(mr->verdict, mr->reason),
			 mr->out_slot);
		return 1;
	}
	if (d->out_len != mr->out_len || memcmp(d->out, mr->out, mr->out_len)) {
		snprintf(why, why_len, "output bytes differ (%zu bytes, the model's %zu)",
			 d->out_len, mr->out_len);
		return 1;
	}
	return fz_egress_compare(mr, &d->after, d->out, d->out_len, why, why_len);
}

static void report(int tc, uint64_t index, const struct frame *f, const struct model_result *mr,
		   const struct dp_result *d, const char *why)
{
	struct counters e;

	fprintf(stderr,
		"fuzz-packets: MISMATCH seed %llu frame %llu, switch %s, %s datapath, ingress p%d: "
		"%s\n",
		(unsigned long long)seed, (unsigned long long)index, model_variant_name(f->variant),
		tc ? "tc" : "xdp", f->port + 1, why);
	fprintf(stderr, "  model: %s %s", verdict_names[mr->verdict],
		reason_name(mr->verdict, mr->reason));
	if (mr->verdict == MV_FORWARD)
		fprintf(stderr, " out slot %d", mr->out_slot);
	fprintf(stderr, "\n  datapath: retval %u, err %d\n", d->retval, d->err);
	print_hex("frame in", f->b, f->len);
	print_hex("model out", mr->out, mr->out_len);
	print_hex("datapath out", d->out, d->out_len);
	fz_egress_report(&d->after);
	expect_counters(mr, f->len, &e);
	fprintf(stderr, "  counters the model expects:\n");
	print_delta(&e);
	fprintf(stderr, "  counters that moved:\n");
	print_delta(&d->delta);
	write_pcap(fail_dir, seed, index, f);
	/* the frame, as the regression list holds it: it runs first from then on */
	fprintf(stderr,
		"  for tests/fuzz/packets/regressions.txt (reproduce: --seed %llu --variant %s):\n"
		"  %s%sp%d ",
		(unsigned long long)seed, model_variant_name(f->variant),
		f->variant == MODEL_V_BASE ? "" : model_variant_name(f->variant),
		f->variant == MODEL_V_BASE ? "" : "/", f->port + 1);
	for (size_t i = 0; i < f->len; i++)
		fprintf(stderr, "%02x", f->b[i]);
	fprintf(stderr, " # %s\n", why);
}

/*
 * The frames BPF_PROG_TEST_RUN refuses to run the tc program on (-EINVAL,
 * no skb built, nothing counted), as Linux 6.18's bpf_prog_test_run_skb
 * (net/bpf/test_run.c) decides: fewer than ETH_HLEN bytes; or, after
 * eth_type_trans, skb->protocol ETH_P_IP with fewer than sizeof(struct
 * iphdr) = 20 bytes after the Ethernet header, or ETH_P_IPV6 with fewer
 * than sizeof(struct ipv6hdr) = 40 (it reads the addresses into the test
 * socket). skb->protocol is the EtherType when that is 0x0600 or more (a
 * VLAN tag's 0x8100 is neither, so a tagged frame runs); below, 802.3 or
 * 802.2, neither. The other refusals (a ctx with fields it does not
 * take, a frame over a page) cannot come from these frames: the harness's
 * ctx sets only ifindex, and no frame exceeds MODEL_MAX_FRAME.
 */
static int tc_refusal_predicted(const struct frame *f)
{
	unsigned ethertype;

	if (f->len < 14)
		return 1;
	ethertype = (unsigned)f->b[12] << 8 | f->b[13];
	if (ethertype == 0x0800)
		return f->len - 14 < 20;
	if (ethertype == 0x86dd)
		return f->len - 14 < 40;
	return 0;
}

/* A tc run against the refusal rule: 0 ran (compare it), 1 refused as
 * predicted (nothing may have moved), -1 a mismatch (reported). */
static int tc_refusal(uint64_t index, const struct frame *f, const struct model_result *mr,
		      const struct dp_result *d)
{
	static const struct counters zero;
	int predicted = tc_refusal_predicted(f);

	if (d->err != -EINVAL && !predicted)
		return 0;
	if (d->err != -EINVAL) {
		report(1, index, f, mr, d,
		       "the kernel ran a frame net/bpf/test_run.c's rule refuses");
		return -1;
	}
	if (!predicted) {
		report(1, index, f, mr, d,
		       "-EINVAL for a frame net/bpf/test_run.c's rule does not refuse");
		return -1;
	}
	if (memcmp(&zero, &d->delta, sizeof(zero))) {
		report(1, index, f, mr, d, "refused by the kernel, counters moved");
		return -1;
	}
	return 1;
}

static void count_run(int tc, const struct model_result *mr)
{
	S.runs++;
	fz_policy_count(mr);
	S.verdict[tc][mr->verdict]++;
	fz_egress_count(tc, mr);
	if (mr->decap)
		S.decap[tc][mr->verdict]++;
	for (int ev = 0; ev < XFAB_LB_MAX; ev++)
		S.lb[tc][ev] += (uint64_t)(mr->lb_events >> ev & 1);
	if (mr->verdict == MV_DROP)
		S.drop[tc][mr->reason]++;
	else if (mr->verdict == MV_PUNT)
		S.punt[tc][mr->reason]++;
}

/* One frame through both datapaths; 0 or 1 (a mismatch). ext: compare
 * every family per run (a window's replay); else port, drop and punt,
 * the expected rest added to sum, and the run counted in S. */
static int run_frame(uint64_t index, const struct frame *f, int ext, struct fz_ext *sum)
{
	static struct model_result mr;
	static struct dp_result d;
	struct counters e;
	char why[256];

	fz_egress_prepare(M, f->b, f->len, f->port);
	for (int tc = 0; tc < 2; tc++) {
		int refused = 0;

		model_run(M, tc, f->port, f->b, f->len, &mr);
		fz_egress_model(M, &mr, f->b, f->len, f->port);
		if (run_one(tc, f, &mr, ext, &d)) {
			fprintf(stderr, "fuzz-packets: reading the counters failed: %s\n",
				strerror(errno));
			return 1;
		}
		if (tc)
			refused = tc_refusal(index, f, &mr, &d);
		if (refused < 0)
			return 1;
		if (refused) {
			S.tc_refused += !ext;
			continue;
		}
		if (fz_copp_judge(M, &mr, !d.err && d.retval == expected_retval(tc, MV_PUNT), why,
				  sizeof(why)) ||
		    compare(tc, f, &mr, &d, why, sizeof(why))) {
			report(tc, index, f, &mr, &d, why);
			return 1;
		}
		if (ext)
			continue;
		count_run(tc, &mr);
		expect_counters(&mr, f->len, &e);
		for (size_t i = 0; i < sizeof(*sum) / sizeof(uint64_t); i++)
			((uint64_t *)sum)[i] += ((uint64_t *)&e.x)[i];
	}
	return 0;
}

/* The window of frames whose ext families are compared together. */
static struct {
	struct frame f[FZ_WINDOW];
	uint64_t index[FZ_WINDOW];
	int n, have_before;
	struct fz_ext expect, before;
} W;

/* The window's ext deltas against its frames' summed expectation; on a
 * difference its frames run again one by one, every family compared per
 * run, to name the run (reported); 0 or 1 (a mismatch). */
static int fz_window_check(void)
{
	static struct fz_ext now, delta;

	if (read_ext(&now))
		return 1;
	for (size_t i = 0; i < sizeof(now) / sizeof(uint64_t); i++)
		((uint64_t *)&delta)[i] = ((uint64_t *)&now)[i] - ((uint64_t *)&W.before)[i];
	W.before = now;
	if (!memcmp(&delta, &W.expect, sizeof(delta))) {
		memset(&W.expect, 0, sizeof(W.expect));
		W.n = 0;
		return 0;
	}
	for (int i = 0; i < W.n; i++)
		if (run_frame(W.index[i], &W.f[i], 1, NULL))
			return 1;
	fprintf(stderr,
		"fuzz-packets: MISMATCH seed %llu frames %llu..%llu: their vnet, CoPP, lb, queue "
		"or PFC counters differ together, no run alone (not reproduced)\n"
		"  expected:\n",
		(unsigned long long)seed, (unsigned long long)W.index[0],
		(unsigned long long)W.index[W.n - 1]);
	print_ext(&W.expect);
	fprintf(stderr, "  moved:\n");
	print_ext(&delta);
	return 1;
}

/* One frame, its ext families checked with its window's; 0 or 1. */
static int check_frame(uint64_t index, const struct frame *f)
{
	S.frames++;
	S.switch_frames[f->variant]++;
	if (!W.have_before && read_ext(&W.before))
		return 1;
	W.have_before = 1;
	if (run_frame(index, f, 0, &W.expect))
		return 1;
	W.f[W.n] = *f;
	W.index[W.n++] = index;
	return W.n == FZ_WINDOW ? fz_window_check() : 0;
}

/* The data plane's groups against the model's, whose member order comes
 * from the config by the compiler's rule (model.c number_nexthops) and
 * whose buckets from the model's link state (model_group_bucket: a fresh
 * fill interleaves the members, a dead member's buckets are the live
 * one's): the same gateways, live count and member in every bucket. A
 * difference is a finding: the run fails before any frame. */
static int group_matches(int mg, const struct xfab_group *g, const struct xfab_nexthop nh[2])
{
	uint8_t gw[4][16];
	int fam, n = model_group_gateways(M, mg, &fam, gw, 4), first;
	size_t alen = fam == 4 ? 4 : 16;

	if (n != 2)
		return 0;
	for (first = 0; first < 2; first++)
		if (!memcmp(gw[first], nh[0].gw, alen) && !memcmp(gw[1 - first], nh[1].gw, alen))
			break;
	if (first == 2) /* another group */
		return 0;
	if (g->live_members != model_group_live(M, mg)) {
		fprintf(stderr,
			"fuzz-packets: FINDING: group %d has %u live members, the model %d\n", mg,
			g->live_members, model_group_live(M, mg));
		return -1;
	}
	for (int b = 0; b < XFAB_GROUP_BUCKETS; b++) {
		int want = model_group_bucket(M, mg, b);

		if (want >= 0 && g->buckets[b] == g->members[want == first ? 0 : 1])
			continue;
		fprintf(stderr,
			"fuzz-packets: FINDING: group %d's bucket %d names its gateway %d in the "
			"data plane, %d by the model (model.c number_nexthops, model_lb.c "
			"m_bucket_gw)\n",
			mg, b, g->buckets[b] == g->members[0] ? first : 1 - first, want);
		return -1;
	}
	return 1;
}

static int check_groups(void)
{
	int fd_groups = h_map_fd(&H, XFAB_MAP_GROUPS), fd_nh = h_map_fd(&H, XFAB_MAP_NEXTHOPS);
	int found = 0;

	for (__u32 id = 1; id < XFAB_MAX_GROUPS; id++) {
		static struct xfab_group g;
		struct xfab_nexthop nh[2];
		int match = 0;

		if (bpf_map_lookup_elem(fd_groups, &id, &g) || g.num_members == 0)
			continue;
		if (g.num_members != 2)
			return -1;
		if (bpf_map_lookup_elem(fd_nh, &g.members[0], &nh[0]) ||
		    bpf_map_lookup_elem(fd_nh, &g.members[1], &nh[1]))
			return -1;
		for (int mg = 0; mg < model_n_groups(M) && !match; mg++)
			match = group_matches(mg, &g, nh);
		if (match < 0)
			return -1;
		found += match;
	}
	if (found != model_n_groups(M)) {
		fprintf(stderr, "groups: %d of the model's %d found in nh_groups\n", found,
			model_n_groups(M));
		return -1;
	}
	return 0;
}

/* The model's hash against worked examples of the spec (seed 12345, the
 * model's), each sum written out step by step in
 * tests/netns/flowhash_examples.py (A to D: the default fields, the flow
 * label, symmetric both ways, the QP), which tests/bpf/test_hash.c checks
 * the data plane against too; then frames (E) through the model's parse
 * on the inner switch: D's RoCE frame takes its QP from the BTH, and a
 * VXLAN packet carrying A's flow hashes as A. */
static int check_model_hash(void)
{
	static const char qp[] = "SRC_IP,DST_IP,IP_PROTOCOL,L4_SRC_PORT,L4_DST_PORT,ROCE_DEST_QP";
	static const char label[] =
	    "SRC_IP,DST_IP,IP_PROTOCOL,L4_SRC_PORT,L4_DST_PORT,IPV6_FLOW_LABEL";
	static const struct {
		const char *fields;
		int symmetric, v6;
		const char *src, *dst;
		uint8_t proto;
		uint16_t sport, dport;
		uint32_t qp, label, hash;
	} ex[] = {
	    {NULL, 0, 0, "10.1.2.3", "10.9.0.1", 17, 40000, 5000, 0, 0, 0x3e4e35c0},   /* A */
	    {NULL, 0, 1, "fd01::2", "fd09::1", 6, 1234, 80, 0, 0x12345, 0x8015eee5},   /* B */
	    {label, 0, 1, "fd01::2", "fd09::1", 6, 1234, 80, 0, 0x12345, 0xc06f2167},  /* B */
	    {NULL, 1, 0, "10.9.1.2", "10.9.2.1", 6, 50000, 443, 0, 0, 0xc9eebcff},     /* C */
	    {NULL, 1, 0, "10.9.2.1", "10.9.1.2", 6, 443, 50000, 0, 0, 0xc9eebcff},     /* C */
	    {NULL, 0, 0, "10.9.1.2", "10.9.2.1", 6, 50000, 443, 0, 0, 0xa07a1f84},     /* C */
	    {qp, 0, 0, "10.1.2.3", "10.9.0.1", 17, 49152, 4791, 0x123, 0, 0x5e456c99}, /* D */
	    {qp, 0, 0, "10.1.2.3", "10.9.0.1", 17, 49152, 4791, 0x456, 0, 0xd4be00d6}, /* D */
	};
	/* E: D's first flow as a RoCEv2 frame (BTH QP 0x000123), and A's flow
	 * in VXLAN from 10.1.2.3:50000 */
	static const uint8_t roce[] =
	    "\x02\x00\x00\x00\x00\x11\x02\xaa\x00\x00\x00\x01\x08\x00\x45\x00\x00\x28\x00\x01"
	    "\x40\x00\x40\x11\x24\xb7\x0a\x01\x02\x03\x0a\x09\x00\x01\xc0\x00\x12\xb7\x00\x14"
	    "\x00\x00\x04\x00\xff\xff\x00\x00\x01\x23\x00\x00\x00\x01";
	static const uint8_t vxlan[] =
	    "\x02\x00\x00\x00\x00\x11\x02\xaa\x00\x00\x00\x01\x08\x00\x45\x00\x00\x52\x00\x01"
	    "\x40\x00\x40\x11\x24\x8d\x0a\x01\x02\x03\x0a\x09\x00\x01\xc3\x50\x12\xb5\x00\x3e"
	    "\x00\x00\x08\x00\x00\x00\x00\x03\xe8\x00\x02\x00\x00\x00\x00\x22\x02\x00\x00\x00"
	    "\x00\x33\x08\x00\x45\x00\x00\x20\x00\x01\x40\x00\x40\x11\x24\xbf\x0a\x01\x02\x03"
	    "\x0a\x09\x00\x01\x9c\x40\x13\x88\x00\x0c\x00\x00\x00\x00\x00\x00";
	struct model *inner;
	uint32_t h[2];

	for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		uint8_t src[16] = {0}, dst[16] = {0};

		inet_pton(ex[i].v6 ? AF_INET6 : AF_INET, ex[i].src, src);
		inet_pton(ex[i].v6 ? AF_INET6 : AF_INET, ex[i].dst, dst);
		h[0] = model_flow_hash_ex(M, ex[i].fields, ex[i].symmetric, ex[i].v6, src, dst,
					  ex[i].proto, ex[i].sport, ex[i].dport, ex[i].qp,
					  ex[i].label);
		if (h[0] != ex[i].hash) {
			fprintf(stderr,
				"fuzz-packets: the model hashes %s -> %s to %#010x, the "
				"worked example says %#010x\n",
				ex[i].src, ex[i].dst, h[0], ex[i].hash);
			return -1;
		}
	}
	inner = model_new((const uint8_t(*)[6])H.mac, MODEL_V_INNER);
	if (!inner)
		return -1;
	h[0] = model_frame_hash(inner, roce, sizeof(roce) - 1);
	h[1] = model_frame_hash(inner, vxlan, sizeof(vxlan) - 1);
	model_free(inner);
	if (h[0] != 0x5e456c99 || h[1] != 0x3e4e35c0) {
		fprintf(stderr,
			"fuzz-packets: the model's inner switch hashes the RoCE frame to %#010x "
			"(D: 0x5e456c99), the VXLAN one to %#010x (A: 0x3e4e35c0)\n",
			h[0], h[1]);
		return -1;
	}
	return 0;
}

/* p1..p6 are in the counter slots the model numbers them by. */
static int check_slots(void)
{
	int fd_ports = h_map_fd(&H, XFAB_MAP_PORTS);

	for (int p = 0; p < MODEL_N_SLOTS; p++) {
		struct xfab_port port;
		__u32 key = H.ifindex[p];

		if (bpf_map_lookup_elem(fd_ports, &key, &port) || port.slot != p) {
			fprintf(stderr, "port p%d: not in slot %d\n", p + 1, p);
			return -1;
		}
	}
	return 0;
}

/*
 * PFC.md: tc charges a lossless packet only when its egress device has
 * been noted (port_dev: the device the kernel hands a port's programs with
 * a frame it receives), else nothing could credit it back. A live switch's
 * ports have all received frames; here one frame on every port, before
 * the counters are first read, notes them all, so the model's charge rule
 * holds from the first frame (and a window's replay sees what it saw).
 */
static int note_ports(void)
{
	static const uint8_t frame[14] = {0x02, 0, 0, 0, 0, 0x11, 0x02,
					  0xaa, 0, 0, 0, 1, 0x88, 0xb5};
	int fd = h_map_fd(&H, XFAB_MAP_PORT_DEV);

	for (int p = 0; p < MODEL_N_SLOTS; p++) {
		uint8_t out[64];
		size_t out_len = sizeof(out);
		__u32 retval, key = H.ifindex[p];
		__u64 dev = 0;

		if (h_run(&H, 0, p, frame, sizeof(frame), out, &out_len, &retval) ||
		    bpf_map_lookup_elem(fd, &key, &dev) || !dev) {
			fprintf(stderr, "port p%d: its device not noted by a frame\n", p + 1);
			return -1;
		}
	}
	return 0;
}

static void print_json(FILE *out, uint64_t mismatches)
{
	fprintf(out,
		"{\"frames\": %llu, \"datapaths\": 2, \"runs\": %llu, \"tc_refused\": %llu, "
		"\"mismatches\": %llu, \"seed\": %llu",
		(unsigned long long)S.frames, (unsigned long long)S.runs,
		(unsigned long long)S.tc_refused, (unsigned long long)mismatches,
		(unsigned long long)seed);
	fprintf(out, ", \"switches\": {");
	for (int v = 0; v < MODEL_V_COUNT; v++)
		fprintf(out, "%s\"%s\": %llu", v ? ", " : "", model_variant_name(v),
			(unsigned long long)S.switch_frames[v]);
	fprintf(out, "}");
	for (int tc = 0; tc < 2; tc++) {
		int first = 1;

		fprintf(out, ", \"%s\": {\"verdicts\": {", tc ? "tc" : "xdp");
		for (int v = 0; v < MV_COUNT; v++)
			fprintf(out, "%s\"%s\": %llu", v ? ", " : "", verdict_names[v],
				(unsigned long long)S.verdict[tc][v]);
		fprintf(out, "}, \"decap\": {");
		for (int v = 0; v < MV_COUNT; v++)
			fprintf(out, "%s\"%s\": %llu", v ? ", " : "", verdict_names[v],
				(unsigned long long)S.decap[tc][v]);
		fprintf(out, "}, \"drops\": {");
		for (int i = 0; i < XFAB_DROP_MAX; i++)
			if (S.drop[tc][i]) {
				fprintf(out, "%s\"%s\": %llu", first ? "" : ", ",
					xfab_drop_name((__u32)i),
					(unsigned long long)S.drop[tc][i]);
				first = 0;
			}
		first = 1;
		fprintf(out, "}, \"punts\": {");
		for (int i = 0; i < XFAB_PUNT_MAX; i++)
			if (S.punt[tc][i]) {
				fprintf(out, "%s\"%s\": %llu", first ? "" : ", ",
					xfab_punt_name((__u32)i),
					(unsigned long long)S.punt[tc][i]);
				first = 0;
			}
		fprintf(out, "}, \"lb\": {");
		for (int i = 0; i < XFAB_LB_MAX; i++)
			fprintf(out, "%s\"%s\": %llu", i ? ", " : "", xfab_lb_name((__u32)i),
				(unsigned long long)S.lb[tc][i]);
		fprintf(out, "}}");
	}
	fprintf(out, "}\n");
}

static void print_text(void)
{
	printf("  frames per switch:");
	for (int v = 0; v < MODEL_V_COUNT; v++)
		printf(" %s %llu", model_variant_name(v), (unsigned long long)S.switch_frames[v]);
	printf("\n");
	for (int tc = 0; tc < 2; tc++) {
		printf("  %s:", tc ? "tc " : "xdp");
		for (int v = 0; v < MV_COUNT; v++)
			printf(" %s %llu", verdict_names[v], (unsigned long long)S.verdict[tc][v]);
		printf("\n    to the VTEP:");
		for (int v = 0; v < MV_PUNT + 2; v++)
			printf(" %s %llu", verdict_names[v], (unsigned long long)S.decap[tc][v]);
		printf("\n    drops:");
		for (int i = 0; i < XFAB_DROP_MAX; i++)
			if (S.drop[tc][i])
				printf(" %s %llu", xfab_drop_name((__u32)i),
				       (unsigned long long)S.drop[tc][i]);
		printf("\n    punts:");
		for (int i = 0; i < XFAB_PUNT_MAX; i++)
			if (S.punt[tc][i])
				printf(" %s %llu", xfab_punt_name((__u32)i),
				       (unsigned long long)S.punt[tc][i]);
		printf("\n    lb events:");
		for (int i = 0; i < XFAB_LB_MAX; i++)
			if (S.lb[tc][i])
				printf(" %s %llu", xfab_lb_name((__u32)i),
				       (unsigned long long)S.lb[tc][i]);
		printf("\n");
	}
	fz_egress_print();
	printf("  tc: %llu frames refused by the kernel (-EINVAL, not run), each one "
	       "net/bpf/test_run.c's rule predicts\n",
	       (unsigned long long)S.tc_refused);
	fz_policy_print(stdout);
}

static int parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *end || errno || *s == '-' || v > max) {
		fprintf(stderr, "%s: must be a number 0..%llu\n", opt, (unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fuzz_packets [--frames N] [--seed S] [--long] [-j] [--replay-only] "
		"[--variant V]\n"
		"  --frames N     generated frames (default 100000, 1..1000000000)\n"
		"  --seed S       the generator's seed (default: a new one each run, printed)\n"
		"  --long         5,000,000 frames\n"
		"  -j             the counts as JSON\n"
		"  --replay-only  the regression list only\n"
		"  --variant V    one switch of model.h's (base, ...) alone, all N frames\n"
		"  FUZZ_OUT=DIR   where failing frames are written (default "
		"tests/fuzz/packets/failures)\n");
}

/* The switch of variant v in place of the last: the model's, and its config
 * and link state loaded as xfabd does on link events and a reload; then the
 * checks every new switch gets. The last switch's open window is judged
 * first, against the model that ran it. 0 or 1. */
static int fz_enter(int v, const uint8_t macs[MODEL_N_PORTS][6])
{
	if (W.n && fz_window_check())
		return 1;
	W.have_before = 0;
	model_free(M);
	M = model_new(macs, v);
	if (!M) {
		fprintf(stderr, "fuzz_packets: the model of switch %s failed\n",
			model_variant_name(v));
		return 1;
	}
	for (int slot = 0; slot < MODEL_N_SLOTS; slot++)
		H.oper_up[slot] = model_oper_up(M, slot);
	if (h_reapply(&H, model_config_text(M))) {
		fprintf(stderr, "fuzz_packets: switch %s's config refused:\n%s\n",
			model_variant_name(v), model_config_text(M));
		return 1;
	}
	if (fz_lb_enter(&H, M) || fz_policy_enter()) /* pins; CoPP's buckets as never used */
		return 1;
	return check_groups() ? 1 : 0;
}

/* Switch v's frames: its regressions, then n generated from its own
 * stream (the seed's, mixed with v: --variant replays one switch alone);
 * *index numbers frames across switches. 0 or 1. */
static int fz_play(int v, const struct frame *regs, size_t n_regs, uint64_t n, uint64_t *index)
{
	static struct frame q;
	int rc = 0;

	for (size_t r = 0; r < n_regs && !rc; r++)
		if (regs[r].variant == v)
			rc = check_frame((*index)++, &regs[r]);
	rng_state = (seed ^ ((uint64_t)v * 0x9e3779b97f4a7c15ull)) ?: 1;
	gen_variant = v;
	for (uint64_t i = 0; i < n && !rc; i++) {
		int trunc_all;

		gen_frame(&q, &trunc_all);
		q.variant = v;
		rc = check_frame(*index, &q);
		if (trunc_all && !rc) {
			size_t full = q.len, max = full < 128 ? full : 128;

			/* every truncation point of this frame's headers */
			for (size_t cut = 14; cut < max && !rc; cut++) {
				q.len = cut;
				rc = check_frame(*index, &q);
			}
			q.len = full;
		}
		(*index)++;
	}
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"frames", required_argument, 0, 'n'}, {"seed", required_argument, 0, 's'},
	    {"long", no_argument, 0, 'l'},	   {"json", no_argument, 0, 'j'},
	    {"replay-only", no_argument, 0, 'r'},  {"variant", required_argument, 0, 'v'},
	    {"help", no_argument, 0, 'h'},	   {0, 0, 0, 0}};
	uint64_t frames = DEFAULT_FRAMES, index = 0;
	int json = 0, replay_only = 0, frames_set = 0, opt, rc = 1, only = -1;
	struct frame *regs = NULL;
	char reg_path[4096], dir[4096];
	struct timespec t0, t1;
	size_t n_regs = 0;
	uint8_t macs[MODEL_N_PORTS][6];

	seed = fresh_seed();
	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (parse_u64("--frames", optarg, 1000000000ull, &frames) || !frames) {
				if (!frames)
					fprintf(stderr, "--frames: must be 1..1000000000\n");
				return 2;
			}
			frames_set = 1;
			break;
		case 's':
			if (parse_u64("--seed", optarg, ~0ull, &seed))
				return 2;
			break;
		case 'l':
			if (!frames_set)
				frames = LONG_FRAMES;
			break;
		case 'j':
			json = 1;
			break;
		case 'r':
			replay_only = 1;
			break;
		case 'v':
			only = model_variant_by_name(optarg);
			if (only < 0) {
				fprintf(stderr, "--variant: no switch %s (model.h)\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fuzz_packets: unexpected argument %s\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", h_build_path(".."));
	snprintf(reg_path, sizeof(reg_path), "%s/tests/fuzz/packets/regressions.txt", dir);
	if (load_regressions(reg_path, &regs, &n_regs))
		return 2;
	fail_dir = getenv("FUZZ_OUT");
	if (!fail_dir || !*fail_dir) {
		static char def[4200];

		snprintf(def, sizeof(def), "%s/tests/fuzz/packets/failures", dir);
		fail_dir = def;
	}
	n_cpus = libbpf_num_possible_cpus();
	if (n_cpus <= 0 || n_cpus > MAX_CPUS) {
		fprintf(stderr, "fuzz_packets: %d CPUs\n", n_cpus);
		return 2;
	}
	/* the model's switch first: its config text is what the harness loads */
	for (int p = 0; p < MODEL_N_PORTS; p++) {
		__u8 mac[6] = {0x02, 0, 0, 0, 0, (__u8)(0x11 + p)};

		memcpy(macs[p], mac, 6);
	}
	M = model_new(macs, MODEL_V_BASE);
	if (!M)
		return 2;
	if (h_setup(&H, MODEL_N_PORTS, model_config_text(M))) {
		fprintf(stderr, "fuzz_packets: harness setup failed (root? config:\n%s)\n",
			model_config_text(M));
		goto out;
	}
	if (memcmp(macs, H.mac, sizeof(macs))) {
		fprintf(stderr, "fuzz_packets: the harness's port MACs changed\n");
		goto out_h;
	}
	fd_port_stats = h_map_fd(&H, XFAB_MAP_PORT_STATS);
	fd_drop_stats = h_map_fd(&H, XFAB_MAP_DROP_STATS);
	fd_punt_stats = h_map_fd(&H, XFAB_MAP_PUNT_STATS);
	fd_pfc_state = h_map_fd(&H, XFAB_MAP_PFC_STATE);
	fd_vnet_stats = h_map_fd(&H, XFAB_MAP_VNET_STATS);
	fd_vnet_drops = h_map_fd(&H, XFAB_MAP_VNET_DROPS);
	fd_copp_stats = h_map_fd(&H, XFAB_MAP_COPP_STATS);
	fd_lb_stats = h_map_fd(&H, XFAB_MAP_LB_STATS);
	fd_queue_stats = h_map_fd(&H, XFAB_MAP_QUEUE_STATS);
	fd_acl_stats = h_map_fd(&H, XFAB_MAP_ACL_STATS);
	if (fz_policy_init(&H) || check_slots() || check_model_hash() || check_groups() ||
	    note_ports())
		goto out_h;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = 0;
	if (!json) /* before the frames: a run that dies still names its seed */
		printf("fuzz-packets: seed %llu\n", (unsigned long long)seed);
	/* the frames shared out over the switches, the base's first */
	for (int v = 0; v < MODEL_V_COUNT && !rc; v++) {
		uint64_t n = frames / MODEL_V_COUNT + ((uint64_t)v < frames % MODEL_V_COUNT);

		if (only >= 0 && v != only)
			continue;
		if (only >= 0)
			n = frames;
		rc = (v != MODEL_V_BASE && fz_enter(v, macs)) ||
		     fz_play(v, regs, n_regs, replay_only ? 0 : n, &index);
	}
	if (!rc && W.n) /* the last window */
		rc = fz_window_check();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (json) {
		print_json(stdout, (uint64_t)rc);
	} else {
		printf("fuzz-packets: %llu frames x 2 datapaths, %d mismatches (seed %llu, %zu "
		       "regressions, %.1f s)\n",
		       (unsigned long long)S.frames, rc, (unsigned long long)seed, n_regs,
		       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
		print_text();
	}
out_h:
	h_teardown(&H);
out:
	free(regs);
	model_free(M);
	return rc;
}
