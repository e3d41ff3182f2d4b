// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The flow hash of the loaded data plane against a second implementation
 * written here from the specification (include/xfab_hash.h's comment, not
 * its code): the multilinear sum of the selected 32-bit words (addresses
 * and ports as the packet carries them, proto | qp << 8, the flow label),
 * each times its key from splitmix64 of the configured seed, its high 32
 * bits; the low 8 bits pick the bucket of the group xfabd programmed. The member a packet took is
 * read from its rewritten MAC.
 *
 * Also: each field in the configured hash set moves flows between members
 * when it alone varies, and each field outside it does not; symmetric
 * hashing inside the data plane (a flow and its reverse take one member);
 * and worked examples, each sum written out in
 * tests/netns/flowhash_examples.py, against include/xfab_hash.h, this
 * file's oracle and the member the data plane picks.
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
#include "fib.h"
#include "frame.h"
#include "harness.h"
#include "stats.h"
#include "xfab_hash.h" /* judged against the worked examples only */

#define SEED 2654435761u
#define N_GW 16

/* the seed the config and the oracle use (test_worked_examples: another) */
static __u32 seed = SEED;

static struct harness H;
static __u32 rng = 2463534242u;

static __u32 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* p1: ingress. p2: gateways 10.0.2.N and fd02::N (MAC 02:00:00:00:02:NN),
 * N = 1..16, all members of 10.16.0.0/16 and fd16::/16 (and of 10.9.0.0/16
 * and fd09::/16, the worked examples' destinations). */
static const char *make_config(const char *fields, int symmetric)
{
	static char buf[8192];
	char gw4[512] = "", gw6[512] = "", neigh[4096] = "";
	size_t n4 = 0, n6 = 0, nn = 0;

	for (int i = 1; i <= N_GW; i++) {
		const char *sep = i == N_GW ? "" : ",";

		n4 += (size_t)snprintf(gw4 + n4, sizeof(gw4) - n4, "10.0.2.%d%s", i, sep);
		n6 += (size_t)snprintf(gw6 + n6, sizeof(gw6) - n6, "fd02::%x%s", i, sep);
		nn += (size_t)snprintf(neigh + nn, sizeof(neigh) - nn,
				       "\"p2|10.0.2.%d\": {\"neigh\": \"02:00:00:00:02:%02x\"}, "
				       "\"p2|fd02::%x\": {\"neigh\": \"02:00:00:00:02:%02x\"}%s",
				       i, i, i, i, sep);
	}
	snprintf(buf, sizeof(buf),
		 "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"hash-test\", "
		 "\"hash_seed\": \"%u\"}},\n"
		 " \"PORT\": {\"p1\": {}, \"p2\": {}},\n"
		 " \"INTERFACE\": {\"p1|10.0.1.1/24\": {}, \"p1|fd01::1/64\": {}, "
		 "\"p2|10.0.2.254/24\": {}, \"p2|fd02::ff/64\": {}},\n"
		 " \"ROUTE\": {\"10.16.0.0/16\": {\"nexthop\": \"%s\"}, "
		 "\"fd16::/16\": {\"nexthop\": \"%s\"}, \"10.9.0.0/16\": {\"nexthop\": \"%s\"}, "
		 "\"fd09::/16\": {\"nexthop\": \"%s\"}},\n"
		 " \"NEIGH\": {%s},\n"
		 " \"ECMP\": {\"global\": {\"hash_fields\": \"%s\", \"symmetric\": \"%s\"}}\n"
		 "}\n",
		 seed, gw4, gw6, gw4, gw6, neigh, fields, symmetric ? "true" : "false");
	return buf;
}

#define ALL_FIELDS "SRC_IP,DST_IP,IP_PROTOCOL,L4_SRC_PORT,L4_DST_PORT,IPV6_FLOW_LABEL,ROCE_DEST_QP"
#define DEFAULT_FIELDS "SRC_IP,DST_IP,IP_PROTOCOL,L4_SRC_PORT,L4_DST_PORT"

/* ---- splitmix64, as its authors give it (the keys' stream) ---- */

static uint64_t splitmix64_next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* ---- flows and frames ---- */

struct tflow {
	int v6;
	uint8_t src[16], dst[16];
	uint8_t proto;
	uint16_t sport, dport; /* TCP/UDP only */
	uint32_t qp;	       /* with UDP dport 4791 */
	uint32_t label;	       /* IPv6 flow label */
	uint8_t tclass;	       /* IPv6 traffic class: next to the label, never hashed */
};

enum { F_SRC, F_DST, F_PROTO, F_SPORT, F_DPORT, F_LABEL, F_QP, F_COUNT };

static const char *const field_names[F_COUNT] = {"SRC_IP",	"DST_IP",      "IP_PROTOCOL",
						 "L4_SRC_PORT", "L4_DST_PORT", "IPV6_FLOW_LABEL",
						 "ROCE_DEST_QP"};

/* Four bytes as the data plane reads a word: little-endian on this host. */
static uint64_t word(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
}

/* The hash a flow should get with the fields in `sel` (bit per F_*): the
 * multilinear sum over the selected words, keys drawn in the spec's order
 * (k0, src[0..3], dst[0..3], ports, misc, label), its high 32 bits. */
static uint32_t oracle_hash(const struct tflow *f, unsigned sel)
{
	uint64_t st = seed, k0, ks[4], kd[4], kp, km, kl, h;
	int n = f->v6 ? 4 : 1, has_ports = f->proto == IPPROTO_TCP || f->proto == IPPROTO_UDP;
	uint8_t ports[4] = {0};
	uint64_t misc = 0;

	k0 = splitmix64_next(&st);
	for (int i = 0; i < 4; i++)
		ks[i] = splitmix64_next(&st);
	for (int i = 0; i < 4; i++)
		kd[i] = splitmix64_next(&st);
	kp = splitmix64_next(&st);
	km = splitmix64_next(&st);
	kl = splitmix64_next(&st);
	h = k0;
	for (int i = 0; i < n; i++) {
		if (sel & 1u << F_SRC)
			h += ks[i] * word(f->src + 4 * i);
		if (sel & 1u << F_DST)
			h += kd[i] * word(f->dst + 4 * i);
	}
	if (has_ports && (sel & 1u << F_SPORT)) { /* as the packet carries them */
		ports[0] = (uint8_t)(f->sport >> 8);
		ports[1] = (uint8_t)f->sport;
	}
	if (has_ports && (sel & 1u << F_DPORT)) {
		ports[2] = (uint8_t)(f->dport >> 8);
		ports[3] = (uint8_t)f->dport;
	}
	h += kp * word(ports);
	if (sel & 1u << F_PROTO)
		misc |= f->proto;
	if (f->proto == IPPROTO_UDP && f->dport == 4791 && (sel & 1u << F_QP))
		misc |= (uint64_t)(f->qp & 0xffffff) << 8;
	h += km * misc;
	if (f->v6 && (sel & 1u << F_LABEL))
		h += kl * (f->label & 0xfffff);
	return (uint32_t)(h >> 32);
}

/* 52 bytes after the IP header: L4 header (UDP + BTH on 4791), then zeros. */
static size_t build(uint8_t *b, const struct tflow *f)
{
	size_t l4_area = 8 + 12 + 32, hdr;
	struct xfab_frame fr = {
	    .l3 = f->v6 ? XFAB_FRAME_IPV6 : XFAB_FRAME_IPV4,
	    .ip4 = {.ttl = 64},
	    .ip6 = {.hop_limit = 64, .tclass = f->tclass, .flow_label = f->label},
	    .l4 = {.proto = f->proto, .sport = f->sport, .dport = f->dport, .tcp_flags = 0x10},
	    .bth = {.present = f->proto == IPPROTO_UDP && f->dport == 4791,
		    .opcode = 0x04,
		    .dest_qp = f->qp}};
	long len;

	hdr = f->proto == IPPROTO_TCP ? 20
	      : f->proto == IPPROTO_UDP || f->proto == IPPROTO_ICMP || f->proto == IPPROTO_ICMPV6
		  ? 8
		  : 0;
	fr.payload_len = l4_area - hdr - (fr.bth.present ? 12 : 0);
	memcpy(fr.dmac, H.mac[0], 6);
	memcpy(fr.smac, "\x02\xaa\x00\x00\x00\x01", 6);
	memcpy(fr.ip4.src, f->src, 4);
	memcpy(fr.ip4.dst, f->dst, 4);
	memcpy(fr.ip6.src, f->src, 16);
	memcpy(fr.ip6.dst, f->dst, 16);
	len = xfab_frame_build(&fr, b, 14 + (f->v6 ? 40 : 20) + l4_area, NULL);
	assert_int_equal(len, 14 + (f->v6 ? 40 : 20) + l4_area);
	return (size_t)len;
}

/* The gateway (1..16) a frame took, from its destination MAC; -1 if it was
 * not forwarded. */
static int member_taken(int tc, const struct tflow *f)
{
	uint8_t frame[256], out[256];
	size_t len = build(frame, f), out_len = sizeof(out);
	__u32 ret;

	assert_int_equal(h_run(&H, tc, 0, frame, len, out, &out_len, &ret), 0);
	if (ret != (tc ? TC_ACT_REDIRECT : XDP_REDIRECT))
		return -1;
	assert_int_equal(out[4], 0x02);
	return out[5];
}

/* The gateway in bucket `bucket` of the group xfabd programmed for f's
 * destination. */
static int member_of_bucket(const struct tflow *f, unsigned bucket)
{
	struct xfab_group grp;
	struct xfab_nexthop nh;
	__u32 entry, gid, nh_id;

	if (f->v6) {
		entry = xfab_fib6_lookup(H.fib6.tbl16, H.fib6.tbl8, H.fib6.n_groups, f->dst);
		gid = entry & XFAB_FIB6_ID_MASK;
	} else {
		entry = xfab_fib4_lookup(H.fib4.tbl16, H.fib4.tbl8, H.fib4.n_groups,
					 (__u32)f->dst[0] << 24 | (__u32)f->dst[1] << 16 |
					     (__u32)f->dst[2] << 8 | f->dst[3]);
		gid = entry & XFAB_FIB4_ID_MASK;
	}
	assert_int_equal(entry >> XFAB_FIB4_TYPE_SHIFT, XFAB_RT_GROUP);
	assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_GROUPS), &gid, &grp), 0);
	assert_int_equal(grp.num_members, N_GW);
	nh_id = grp.buckets[bucket & 0xff];
	assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_NEXTHOPS), &nh_id, &nh), 0);
	return nh.dmac[5];
}

/* The gateway the oracle's hash picks in the group xfabd programmed. */
static int member_expected(const struct tflow *f, unsigned sel)
{
	return member_of_bucket(f, oracle_hash(f, sel) & 0xff);
}

static struct tflow random_flow(int v6, uint8_t proto)
{
	struct tflow f = {.v6 = v6, .proto = proto};

	if (v6) {
		inet_pton(AF_INET6, "fd01::", f.src);
		inet_pton(AF_INET6, "fd16::", f.dst);
		for (int i = 8; i < 16; i++) {
			f.src[i] = (uint8_t)rnd();
			f.dst[i] = (uint8_t)rnd();
		}
		f.dst[2] = (uint8_t)rnd();
		f.label = rnd() & 0xfffff;
		f.tclass = (uint8_t)rnd();
	} else {
		f.src[0] = 10;
		f.src[1] = 1;
		f.src[2] = (uint8_t)rnd();
		f.src[3] = (uint8_t)rnd();
		f.dst[0] = 10;
		f.dst[1] = 16;
		f.dst[2] = (uint8_t)rnd();
		f.dst[3] = (uint8_t)rnd();
	}
	f.sport = (uint16_t)(1024 + rnd() % 50000);
	f.dport = (uint16_t)(1024 + rnd() % 50000);
	if (proto == IPPROTO_UDP && rnd() % 2) {
		f.dport = 4791;
		f.qp = rnd() & 0xffffff;
	}
	return f;
}

static unsigned sel_of(const char *fields)
{
	unsigned sel = 0;

	for (int i = 0; i < F_COUNT; i++) {
		const char *p = strstr(fields, field_names[i]);

		if (p && (p[strlen(field_names[i])] == ',' || p[strlen(field_names[i])] == '\0'))
			sel |= 1u << i;
	}
	return sel;
}

/* Many random flows, IPv4 and IPv6, TCP, UDP and RoCE, both datapaths:
 * every packet takes the member the second hash predicts. */
static void oracle_agrees(const char *fields)
{
	static const uint8_t protos[] = {IPPROTO_TCP, IPPROTO_UDP, 47 /* GRE: no ports */};
	unsigned sel = sel_of(fields);

	assert_int_equal(h_reapply(&H, make_config(fields, 0)), 0);
	for (int i = 0; i < 1500; i++) {
		struct tflow f = random_flow(i & 1, protos[i % 3]);
		int want = member_expected(&f, sel);

		for (int tc = 0; tc < 2; tc++) {
			int got = member_taken(tc, &f);

			if (got != want)
				fail_msg("[%s] flow %d (IPv%d, proto %u, qp %u) with %s: gateway "
					 "%d, the spec's hash says %d",
					 tc ? "tc" : "xdp", i, f.v6 ? 6 : 4, f.proto, f.qp, fields,
					 got, want);
		}
	}
}

static void test_oracle_default_fields(void **state)
{
	(void)state;
	rng = 2463534242u;
	oracle_agrees(DEFAULT_FIELDS);
}

static void test_oracle_all_fields(void **state)
{
	(void)state;
	rng = 88172645u;
	oracle_agrees(ALL_FIELDS);
}

static void test_oracle_addresses_only(void **state)
{
	(void)state;
	rng = 521288629u;
	oracle_agrees("SRC_IP,DST_IP");
}

/* Varies field `field` alone over 64 values around a base flow. */
static void vary(struct tflow *f, int field, int i)
{
	switch (field) {
	case F_SRC:
		f->src[f->v6 ? 15 : 3] = (uint8_t)(i * 3 + 1);
		break;
	case F_DST:
		f->dst[f->v6 ? 15 : 3] = (uint8_t)(i * 3 + 1);
		break;
	case F_PROTO: /* protocols without ports the parser reads */
		f->proto = (uint8_t)(100 + i);
		break;
	case F_SPORT:
		f->sport = (uint16_t)(20000 + i * 7);
		break;
	case F_DPORT:
		f->dport = (uint16_t)(20000 + i * 7);
		break;
	case F_LABEL:
		f->label = (uint32_t)(i * 0x3d09 + 5) & 0xfffff;
		break;
	case F_QP:
		f->qp = (uint32_t)(i * 0x10101 + 9);
		break;
	}
}

/*
 * For each field: with every field hashed, varying it alone spreads 64
 * packets over most of the 16 members; with every field but it, the 64
 * packets take one member. Each packet also matches the oracle.
 */
static void test_field_at_a_time(void **state)
{
	char fields[256];

	(void)state;
	for (int field = 0; field < F_COUNT; field++) {
		for (int in_set = 1; in_set >= 0; in_set--) {
			unsigned sel = (1u << F_COUNT) - 1;
			int seen[N_GW + 1] = {0}, distinct = 0;
			size_t n = 0;

			if (!in_set)
				sel &= ~(1u << field);
			fields[0] = '\0';
			for (int i = 0; i < F_COUNT; i++)
				if (sel & 1u << i)
					n += (size_t)snprintf(fields + n, sizeof(fields) - n,
							      "%s%s", n ? "," : "", field_names[i]);
			assert_int_equal(h_reapply(&H, make_config(fields, 0)), 0);
			for (int i = 0; i < 64; i++) {
				struct tflow f = {.v6 = field == F_LABEL,
						  .proto = IPPROTO_UDP,
						  .sport = 4000,
						  .dport = field == F_QP ? 4791 : 5000,
						  .qp = 77,
						  .label = 0x12345,
						  .tclass = 0xb9};
				int m;

				/* one address family per field, so one group */
				if (f.v6) {
					inet_pton(AF_INET6, "fd01::2", f.src);
					inet_pton(AF_INET6, "fd16::9", f.dst);
				} else {
					inet_pton(AF_INET, "10.1.2.3", f.src);
					inet_pton(AF_INET, "10.16.4.5", f.dst);
				}
				vary(&f, field, i);
				m = member_taken(i & 1, &f);
				assert_int_equal(m, member_expected(&f, sel));
				if (!seen[m]++)
					distinct++;
			}
			print_message("    %-15s %s the hash: 64 packets on %2d members\n",
				      field_names[field], in_set ? "in" : "not in", distinct);
			/* 64 draws over 16 members: fewer than 8 distinct has
			 * probability < C(16,8) (1/2)^64 < 1e-15 */
			if (in_set)
				assert_true(distinct >= 8);
			else
				assert_int_equal(distinct, 1);
		}
	}
}

/* A flow and its reverse, through the BPF program. */
static void symmetric_run(int symmetric, int *same, int n)
{
	static const uint8_t protos[] = {IPPROTO_TCP, IPPROTO_UDP};

	assert_int_equal(h_reapply(&H, make_config(DEFAULT_FIELDS, symmetric)), 0);
	*same = 0;
	for (int i = 0; i < n; i++) {
		struct tflow a = random_flow(i & 1, protos[(i >> 1) & 1]), b = a;
		int tc = (i >> 2) & 1, ma, mb;

		/* both ends inside the group's prefix, so both directions
		 * route through the same group */
		if (a.v6) {
			inet_pton(AF_INET6, "fd16::", a.src);
			for (int k = 8; k < 16; k++)
				a.src[k] = (uint8_t)rnd();
		} else {
			a.src[1] = 16;
		}
		a.dport = (uint16_t)(1024 + rnd() % 50000); /* no RoCE here */
		a.qp = 0;
		if (i % 16 == 0) /* equal addresses: the ports decide the order */
			memcpy(a.src, a.dst, 16);
		b = a;
		memcpy(b.src, a.dst, 16);
		memcpy(b.dst, a.src, 16);
		b.sport = a.dport;
		b.dport = a.sport;
		ma = member_taken(tc, &a);
		mb = member_taken(tc, &b);
		assert_in_range(ma, 1, N_GW);
		assert_in_range(mb, 1, N_GW);
		*same += ma == mb;
		if (symmetric && ma != mb)
			fail_msg("[%s] flow %d and its reverse: gateways %d and %d",
				 tc ? "tc" : "xdp", i, ma, mb);
	}
}

static void test_symmetric_in_data_plane(void **state)
{
	const int n = 2000;
	int same_on, same_off;

	(void)state;
	rng = 1234567u;
	symmetric_run(1, &same_on, n);
	rng = 1234567u;
	symmetric_run(0, &same_off, n);
	print_message("    %d flows and their reverses: %d on one member symmetric, %d not\n", n,
		      same_on, same_off);
	assert_int_equal(same_on, n);
	/* not symmetric: a reverse shares the member by chance, p = 1/16 */
	assert_true(same_off <= n / 16.0 + binom_tol(n, 1.0 / 16, 1));
}

/* ---- worked examples ----
 * Numbers worked out step by step in tests/netns/flowhash_examples.py (the
 * Python oracle of scripts/xfablab/flowhash.py, checked there against
 * them): seed 12345's keys, then each flow's hash, bucket and tunnel
 * choice. Here the same numbers judge include/xfab_hash.h (what xfabd,
 * xfabctl hash and the data plane compile), this file's own oracle, and
 * the data plane: the packet takes the member of the worked bucket. */
#define WORKED_SEED 12345u
#define QP_FIELDS DEFAULT_FIELDS ",ROCE_DEST_QP"

static const __u64 worked_keys[12] = {
    0x22118258a9d111a0ull, 0x346edce5f713f8edull, 0x1e9a57bc80e6721dull, 0x2d160e7e5c3f42caull,
    0x81c2e6dc980d78ebull, 0x5647e55ad933f62eull, 0x1f6622b40cb38e42ull, 0x6e7411b06820371cull,
    0x7ad34039583ab917ull, 0xde15eab5ce53fecfull, 0x2f43a94042571d85ull, 0x61571b285c0b9816ull};

struct worked {
	const char *name, *src, *dst, *fields;
	int v6, symmetric;
	uint8_t proto;
	uint16_t sport, dport;
	uint32_t qp, label;
	uint32_t hash;
	int bucket, endpoint_of_2; /* -1: not worked out */
	int outer_sport;	   /* 0: not worked out */
};

static const struct worked worked[] = {
    {"A: IPv4 UDP", "10.1.2.3", "10.9.0.1", DEFAULT_FIELDS, 0, 0, IPPROTO_UDP, 40000, 5000, 0, 0,
     0x3e4e35c0, 192, 1, 52110},
    {"B: IPv6 TCP", "fd01::2", "fd09::1", DEFAULT_FIELDS, 1, 0, IPPROTO_TCP, 1234, 80, 0, 0x12345,
     0x8015eee5, 229, -1, 0},
    {"B: IPv6 TCP, label hashed", "fd01::2", "fd09::1", DEFAULT_FIELDS ",IPV6_FLOW_LABEL", 1, 0,
     IPPROTO_TCP, 1234, 80, 0, 0x12345, 0xc06f2167, 103, -1, 57608},
    {"C: symmetric", "10.9.1.2", "10.9.2.1", DEFAULT_FIELDS, 0, 1, IPPROTO_TCP, 50000, 443, 0, 0,
     0xc9eebcff, 255, -1, 0},
    {"C: symmetric, reverse", "10.9.2.1", "10.9.1.2", DEFAULT_FIELDS, 0, 1, IPPROTO_TCP, 443, 50000,
     0, 0, 0xc9eebcff, 255, -1, 0},
    {"C: not symmetric", "10.9.1.2", "10.9.2.1", DEFAULT_FIELDS, 0, 0, IPPROTO_TCP, 50000, 443, 0,
     0, 0xa07a1f84, 132, -1, 0},
    {"D: E-ECMP QP 0x123", "10.1.2.3", "10.9.0.1", QP_FIELDS, 0, 0, IPPROTO_UDP, 49152, 4791, 0x123,
     0, 0x5e456c99, 153, -1, 62172},
    {"D: E-ECMP QP 0x456", "10.1.2.3", "10.9.0.1", QP_FIELDS, 0, 0, IPPROTO_UDP, 49152, 4791, 0x456,
     0, 0xd4be00d6, 214, -1, 54376},
};

static struct tflow worked_tflow(const struct worked *w)
{
	struct tflow f = {.v6 = w->v6,
			  .proto = w->proto,
			  .sport = w->sport,
			  .dport = w->dport,
			  .qp = w->qp,
			  .label = w->label};

	assert_int_equal(inet_pton(w->v6 ? AF_INET6 : AF_INET, w->src, f.src), 1);
	assert_int_equal(inet_pton(w->v6 ? AF_INET6 : AF_INET, w->dst, f.dst), 1);
	return f;
}

/* The header's hash of w under `fields` (its own key, selection, order). */
static __u32 header_hash(const struct worked *w, __u32 fields, int symmetric)
{
	struct tflow t = worked_tflow(w);
	struct xfab_flow f = {.proto = w->proto, .is_v6 = (__u8)w->v6, .qp = w->qp};
	struct xfab_hash_key k;

	memcpy(f.src, t.src, w->v6 ? 16 : 4);
	memcpy(f.dst, t.dst, w->v6 ? 16 : 4);
	f.ports = htons(w->sport) | (__u32)htons(w->dport) << 16;
	f.flow_label = w->v6 ? w->label : 0;
	xfab_hash_key_derive(&k, WORKED_SEED, fields);
	xfab_flow_select(&f, fields, symmetric);
	return xfab_flow_hash(&f, &k);
}

static void worked_header(const struct worked *w)
{
	static const __u32 bit[F_COUNT] = {
	    [F_SRC] = XFAB_HASH_F_SRC_IP,	 [F_DST] = XFAB_HASH_F_DST_IP,
	    [F_PROTO] = XFAB_HASH_F_IP_PROTO,	 [F_SPORT] = XFAB_HASH_F_L4_SRC_PORT,
	    [F_DPORT] = XFAB_HASH_F_L4_DST_PORT, [F_LABEL] = XFAB_HASH_F_FLOW_LABEL,
	    [F_QP] = XFAB_HASH_F_ROCE_QP};
	unsigned sel = sel_of(w->fields);
	__u32 fields = 0, h, th;

	for (int i = 0; i < F_COUNT; i++)
		if (sel & 1u << i)
			fields |= bit[i];
	h = header_hash(w, fields, w->symmetric);

	if (h != w->hash || XFAB_HASH_BUCKET(h) != (__u32)w->bucket)
		fail_msg("%s: xfab_hash.h hashes %#010x (bucket %u), worked out %#010x (%d)",
			 w->name, h, XFAB_HASH_BUCKET(h), w->hash, w->bucket);
	th = header_hash(w, XFAB_TUNNEL_HASH_FIELDS(fields), 0);
	if (w->endpoint_of_2 >= 0 && xfab_tunnel_endpoint(th, 2) != (__u32)w->endpoint_of_2)
		fail_msg("%s: endpoint %u of 2, worked out %d", w->name,
			 xfab_tunnel_endpoint(th, 2), w->endpoint_of_2);
	if (w->outer_sport && xfab_vxlan_sport(th) != w->outer_sport)
		fail_msg("%s: outer source port %u, worked out %d", w->name, xfab_vxlan_sport(th),
			 w->outer_sport);
}

static void test_worked_examples(void **state)
{
	struct xfab_hash_key k;

	(void)state;
	xfab_hash_key_derive(&k, WORKED_SEED, 0xffffffffu);
	assert_true(k.k0 == worked_keys[0] && k.ports == worked_keys[9] &&
		    k.misc == worked_keys[10] && k.label == worked_keys[11]);
	for (int i = 0; i < 4; i++)
		assert_true(k.src[i] == worked_keys[1 + i] && k.dst[i] == worked_keys[5 + i]);
	seed = WORKED_SEED;
	for (size_t i = 0; i < sizeof(worked) / sizeof(worked[0]); i++) {
		const struct worked *w = &worked[i];
		struct tflow f = worked_tflow(w);
		int want;

		worked_header(w);
		/* this file's oracle orders no ends: the unordered ones only */
		if (!w->symmetric)
			assert_int_equal(oracle_hash(&f, sel_of(w->fields)), w->hash);
		assert_int_equal(h_reapply(&H, make_config(w->fields, w->symmetric)), 0);
		want = member_of_bucket(&f, (unsigned)w->bucket);
		for (int tc = 0; tc < 2; tc++)
			if (member_taken(tc, &f) != want)
				fail_msg("[%s] %s: gateway %d, the worked bucket %d holds %d",
					 tc ? "tc" : "xdp", w->name, member_taken(tc, &f),
					 w->bucket, want);
	}
	seed = SEED;
	assert_int_equal(h_reapply(&H, make_config(DEFAULT_FIELDS, 0)), 0);
}

static int setup(void **state)
{
	(void)state;
	return h_setup(&H, 2, make_config(DEFAULT_FIELDS, 0));
}

static int teardown(void **state)
{
	(void)state;
	h_teardown(&H);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_oracle_default_fields),
	    cmocka_unit_test(test_oracle_all_fields),
	    cmocka_unit_test(test_oracle_addresses_only),
	    cmocka_unit_test(test_field_at_a_time),
	    cmocka_unit_test(test_symmetric_in_data_plane),
	    cmocka_unit_test(test_worked_examples),
	};
	return cmocka_run_group_tests_name("bpf_hash", tests, setup, teardown);
}
