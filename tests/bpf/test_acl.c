// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Ingress ACLs through the loaded data plane, both datapaths: the config's
 * ACL_TABLE / ACL_RULE are written here from rules described in this file
 * (struct trule), and a matching oracle written here over those rules and
 * each frame's fields (struct tframe) decides the winning rule; the data
 * plane's verdict, the forwarded frame's bytes (built here with the TTL
 * decremented and the MACs rewritten), the acl_drop count and every rule's
 * counters must agree with it. Fixed cases cover each field kind; seeded
 * random frames (the seed printed; XFAB_ACL_SEED replays one) cover their
 * mix. Also: a port without a table, punts to the switch, a reload.
 */
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
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "frame.h"
#include "harness.h"
#include "metrics.h"

static struct harness H;

/* p1 (10.0.1.0/24, fd01::/64) carries tables T4 (L3) and T6 (L3V6); p2
 * leads to 10.9/16 and fd09::/32 (neighbour 02:00:00:00:02:02); p3 has no
 * table. */
#define BASE_CONFIG                                                                                \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"acl-test\"}},\n"                   \
	" \"PORT\": {\"p1\": {}, \"p2\": {}, \"p3\": {}},\n"                                       \
	" \"INTERFACE\": {\"p1|10.0.1.1/24\": {}, \"p1|fd01::1/64\": {}, \"p2|10.0.2.1/24\": "     \
	"{},\n"                                                                                    \
	"   \"p2|fd02::1/64\": {}, \"p3|10.0.3.1/24\": {}},\n"                                     \
	" \"ROUTE\": {\"10.9.0.0/16\": {\"nexthop\": \"10.0.2.2\"},\n"                             \
	"   \"fd09::/32\": {\"nexthop\": \"fd02::2\"}},\n"                                         \
	" \"NEIGH\": {\"p2|10.0.2.2\": {\"neigh\": \"02:00:00:00:02:02\"},\n"                      \
	"   \"p2|fd02::2\": {\"neigh\": \"02:00:00:00:02:02\"}}"

static const __u8 host_mac[6] = {0x02, 0, 0, 0, 0x01, 0x02};
static const __u8 nh_mac[6] = {0x02, 0, 0, 0, 0x02, 0x02};

/* ---- the rules, as this test writes them (and the oracle reads them) ---- */

struct trule {
	const char *name;
	int v6; /* in T6, else T4 */
	unsigned prio;
	int drop;
	const char *src, *dst; /* prefixes; NULL: any */
	int proto;	       /* 0: any */
	int sp_lo, sp_hi, sp_range, dp_lo, dp_hi, dp_range, has_sp, has_dp;
	int dscp;					/* -1: any */
	int tcp_v, tcp_m, bth_v, bth_m, aeth_v, aeth_m; /* mask 0: any */
};

#define ANY_DSCP .dscp = -1
static const struct trule rules[] = {
    {"src_drop", 0, 100, 1, "10.0.1.77/32", ANY_DSCP},
    {"dst_range", 0, 200, 1, NULL, "10.9.1.0/24", 6, .dp_lo = 400, .dp_hi = 500, .dp_range = 1,
     .has_dp = 1, ANY_DSCP},
    {"https_fwd", 0, 300, 0, "10.0.1.77/32", .dp_lo = 443, .dp_hi = 443, .has_dp = 1, ANY_DSCP},
    {"dscp_ef", 0, 150, 1, .dscp = 46},
    {"syn_only", 0, 250, 1, .proto = 6, ANY_DSCP, .tcp_v = 0x02, .tcp_m = 0x12},
    {"sport_range", 0, 120, 1, .sp_lo = 900, .sp_hi = 1100, .sp_range = 1, .has_sp = 1, ANY_DSCP},
    {"rdma_write", 0, 400, 1, ANY_DSCP, .bth_v = 0x0a, .bth_m = 0xff},
    {"nak", 0, 410, 1, ANY_DSCP, .aeth_v = 0x60, .aeth_m = 0xe0},
    {"ack_fwd", 0, 500, 0, .proto = 17, ANY_DSCP, .bth_v = 0x11, .bth_m = 0xff, .aeth_v = 0,
     .aeth_m = 0xe0},
    {"tie_fwd", 0, 130, 0, NULL, "10.9.200.0/24", ANY_DSCP},
    {"tie_drop", 0, 130, 1, NULL, "10.9.200.0/23", ANY_DSCP},
    /* matches opcode 0: only a RoCEv2 frame's opcode may be compared */
    {"rc_only", 0, 50, 1, ANY_DSCP, .bth_v = 0x00, .bth_m = 0xe0},
    {"v6_src", 1, 100, 1, "fd01::99/128", ANY_DSCP},
    {"v6_dst_port", 1, 200, 1, NULL, "fd09::1:0/112", .dp_lo = 5000, .dp_hi = 5000, .has_dp = 1,
     ANY_DSCP},
    {"v6_dscp", 1, 150, 1, .dscp = 10},
    {"v6_icmp_fwd", 1, 300, 0, .proto = 58, ANY_DSCP},
};
#define N_RULES (sizeof(rules) / sizeof(rules[0]))

/* The config text: BASE_CONFIG, T4 and T6 on p1, rules[0..n) but skip. */
static char *config_text(size_t n, int skip)
{
	static char buf[16384];
	size_t o = 0;

#define OUT(...) (o += (size_t)snprintf(buf + o, sizeof(buf) - o, __VA_ARGS__))
	OUT("%s,\n \"ACL_TABLE\": {\"T4\": {\"type\": \"L3\", \"stage\": \"ingress\", "
	    "\"ports\": [\"p1\"], \"policy_desc\": \"v4\"},\n"
	    "   \"T6\": {\"type\": \"L3V6\", \"ports\": [\"p1\"]}},\n \"ACL_RULE\": {",
	    BASE_CONFIG);
	for (size_t i = 0, first = 1; i < n; i++) {
		const struct trule *r = &rules[i];

		if ((int)i == skip)
			continue;
		OUT("%s\n  \"%s|%s\": {\"PRIORITY\": \"%u\", \"PACKET_ACTION\": \"%s\"",
		    first ? "" : ",", r->v6 ? "T6" : "T4", r->name, r->prio,
		    r->drop ? "DROP" : "FORWARD");
		first = 0;
		if (r->src)
			OUT(", \"%s\": \"%s\"", r->v6 ? "SRC_IPV6" : "SRC_IP", r->src);
		if (r->dst)
			OUT(", \"%s\": \"%s\"", r->v6 ? "DST_IPV6" : "DST_IP", r->dst);
		if (r->proto)
			OUT(", \"IP_PROTOCOL\": \"%d\"", r->proto);
		if (r->has_sp && r->sp_range)
			OUT(", \"L4_SRC_PORT_RANGE\": \"%d-%d\"", r->sp_lo, r->sp_hi);
		else if (r->has_sp)
			OUT(", \"L4_SRC_PORT\": \"%d\"", r->sp_lo);
		if (r->has_dp && r->dp_range)
			OUT(", \"L4_DST_PORT_RANGE\": \"%d-%d\"", r->dp_lo, r->dp_hi);
		else if (r->has_dp)
			OUT(", \"L4_DST_PORT\": \"%d\"", r->dp_lo);
		if (r->dscp >= 0)
			OUT(", \"DSCP\": \"%d\"", r->dscp);
		if (r->tcp_m)
			OUT(", \"TCP_FLAGS\": \"0x%02x/0x%02x\"", r->tcp_v, r->tcp_m);
		if (r->bth_m)
			OUT(", \"BTH_OPCODE\": \"0x%02x/0x%02x\"", r->bth_v, r->bth_m);
		if (r->aeth_m)
			OUT(", \"AETH_SYNDROME\": \"0x%02x/0x%02x\"", r->aeth_v, r->aeth_m);
		OUT("}");
	}
	OUT("}}\n");
#undef OUT
	return buf;
}

/* ---- the frames, and the oracle ---- */

struct tframe {
	int v6;
	const char *src, *dst;
	int proto; /* 6, 17, 1 or 58 */
	int sport, dport, dscp, tcp_flags;
	int bth_opcode, aeth; /* RoCEv2 when dport is 4791 */
};

/* Bit by bit, as written: the first plen bits of a and of the prefix. */
static int oracle_prefix(const char *pfx, int v6, const char *addr)
{
	unsigned char want[16], have[16];
	char text[64], *slash;
	int plen;

	snprintf(text, sizeof(text), "%s", pfx);
	slash = strchr(text, '/');
	*slash = '\0';
	plen = atoi(slash + 1);
	assert_int_equal(inet_pton(v6 ? AF_INET6 : AF_INET, text, want), 1);
	assert_int_equal(inet_pton(v6 ? AF_INET6 : AF_INET, addr, have), 1);
	for (int b = 0; b < plen; b++)
		if (((want[b / 8] >> (7 - b % 8)) ^ (have[b / 8] >> (7 - b % 8))) & 1)
			return 0;
	return 1;
}

/* IBTA: the responses that carry an AETH (RC and XRC). */
static int oracle_has_aeth(int op)
{
	static const int with_aeth[] = {0x0d, 0x0f, 0x10, 0x11, 0x12, 0xad, 0xaf, 0xb0, 0xb1, 0xb2};

	for (size_t i = 0; i < sizeof(with_aeth) / sizeof(with_aeth[0]); i++)
		if (with_aeth[i] == op)
			return 1;
	return 0;
}

static int oracle_matches(const struct trule *r, const struct tframe *f)
{
	int l4 = f->proto == 6 || f->proto == 17, roce = f->proto == 17 && f->dport == 4791;

	if (r->v6 != f->v6)
		return 0;
	if (r->src && !oracle_prefix(r->src, r->v6, f->src))
		return 0;
	if (r->dst && !oracle_prefix(r->dst, r->v6, f->dst))
		return 0;
	if (r->proto && r->proto != f->proto)
		return 0;
	if (r->has_sp && (!l4 || f->sport < r->sp_lo || f->sport > r->sp_hi))
		return 0;
	if (r->has_dp && (!l4 || f->dport < r->dp_lo || f->dport > r->dp_hi))
		return 0;
	if (r->dscp >= 0 && r->dscp != f->dscp)
		return 0;
	if (r->tcp_m && (f->proto != 6 || (f->tcp_flags & r->tcp_m) != r->tcp_v))
		return 0;
	if (r->bth_m && (!roce || (f->bth_opcode & r->bth_m) != r->bth_v))
		return 0;
	if (r->aeth_m &&
	    (!roce || !oracle_has_aeth(f->bth_opcode) || (f->aeth & r->aeth_m) != r->aeth_v))
		return 0;
	return 1;
}

/* The winning rule among rules[0..n) but skip, or -1: the highest
 * priority, a tie to the rule written first. */
static int oracle(const struct tframe *f, size_t n, int skip)
{
	int best = -1;

	for (size_t i = 0; i < n; i++)
		if ((int)i != skip && oracle_matches(&rules[i], f) &&
		    (best < 0 || rules[i].prio > rules[best].prio))
			best = (int)i;
	return best;
}

/* The frame as sent (forwarded: as it must leave, TTL - 1, MACs). */
static size_t build(const struct tframe *t, int in_port, int forwarded, __u8 *buf, size_t cap)
{
	struct xfab_frame f;
	static __u8 aeth[16];
	long n;

	memset(&f, 0, sizeof(f));
	memcpy(f.smac, forwarded ? H.mac[1] : host_mac, 6);
	memcpy(f.dmac, forwarded ? nh_mac : H.mac[in_port], 6);
	assert_int_equal(xfab_frame_addrs(&f, t->src, t->dst), 0);
	f.ip4.ttl = f.ip6.hop_limit = (__u8)(forwarded ? 63 : 64);
	f.ip4.tos = f.ip6.tclass = (__u8)(t->dscp << 2);
	f.l4.proto = (__u8)t->proto;
	f.l4.sport = (uint16_t)t->sport;
	f.l4.dport = (uint16_t)t->dport;
	f.l4.tcp_flags = (__u8)t->tcp_flags;
	f.l4.icmp_type = t->v6 ? 128 : 8;
	f.payload_len = 16;
	if (t->proto == 17 && t->dport == 4791) {
		f.bth.present = 1;
		f.bth.opcode = (__u8)t->bth_opcode;
		f.bth.dest_qp = 17;
		memset(aeth, 0, sizeof(aeth));
		aeth[0] = (__u8)t->aeth;
		f.payload = aeth;
	}
	n = xfab_frame_build(&f, buf, cap, NULL);
	assert_true(n > 0);
	return (size_t)n;
}

static __u64 rule_count(int counter, int bytes)
{
	return h_percpu_u64(&H, XFAB_MAP_ACL_STATS, (__u32)counter, bytes ? 1 : 0, 2);
}

static __u64 acl_drops(void)
{
	return h_percpu_u64(&H, XFAB_MAP_DROP_STATS, XFAB_DROP_ACL_DROP, 0, 2);
}

/* One frame in on in_port through one datapath, judged against the
 * oracle's winner (-1: none) with bytes and counters. counter: the
 * winner's acl_stats index. */
static void check_frame(int tc, int in_port, const struct tframe *t, int winner, int counter)
{
	__u8 in[256], out[512], want[256];
	size_t out_len = sizeof(out), len = build(t, in_port, 0, in, sizeof(in)), want_len;
	__u64 drops = acl_drops(), pk = 0, by = 0;
	__u32 ret = 0;
	int drop = winner >= 0 && rules[winner].drop;

	if (winner >= 0) {
		pk = rule_count(counter, 0);
		by = rule_count(counter, 1);
	}
	assert_int_equal(h_run(&H, tc, in_port, in, len, out, &out_len, &ret), 0);
	if (drop) {
		assert_int_equal(ret, tc ? TC_ACT_SHOT : XDP_DROP);
		assert_int_equal(acl_drops(), drops + 1);
	} else {
		want_len = build(t, in_port, 1, want, sizeof(want));
		assert_int_equal(ret, tc ? TC_ACT_REDIRECT : XDP_REDIRECT);
		assert_int_equal(out_len, want_len);
		assert_memory_equal(out, want, want_len);
		assert_int_equal(acl_drops(), drops);
	}
	if (winner >= 0) {
		assert_int_equal(rule_count(counter, 0), pk + 1);
		assert_int_equal(rule_count(counter, 1), by + len);
	}
}

/* Each field kind, priorities and the tie, on both datapaths. */
static const struct {
	struct tframe f;
	const char *want; /* the winning rule's name, or NULL */
} cases[] = {
    {{0, "10.0.1.2", "10.9.0.5", 17, 2000, 3000}, NULL},
    {{0, "10.0.1.77", "10.9.0.5", 17, 2000, 3000}, "src_drop"},
    {{0, "10.0.1.77", "10.9.0.5", 6, 2000, 443, 0, 0x10}, "https_fwd"},
    {{0, "10.0.1.2", "10.9.1.9", 6, 2000, 400, 0, 0x10}, "dst_range"},
    {{0, "10.0.1.2", "10.9.1.9", 6, 2000, 500, 0, 0x10}, "dst_range"},
    {{0, "10.0.1.2", "10.9.1.9", 6, 2000, 501, 0, 0x10}, NULL},
    {{0, "10.0.1.2", "10.9.1.9", 17, 2000, 450}, NULL}, /* UDP: the rule is TCP's */
    {{0, "10.0.1.2", "10.9.0.5", 17, 2000, 3000, 46}, "dscp_ef"},
    {{0, "10.0.1.2", "10.9.0.5", 17, 2000, 3000, 47}, NULL},
    {{0, "10.0.1.2", "10.9.0.5", 6, 2000, 80, 0, 0x02}, "syn_only"},
    {{0, "10.0.1.2", "10.9.0.5", 6, 2000, 80, 0, 0x12}, NULL}, /* SYN-ACK */
    {{0, "10.0.1.2", "10.9.0.5", 6, 2000, 80, 0, 0x22}, "syn_only"},
    {{0, "10.0.1.2", "10.9.0.5", 17, 900, 3000}, "sport_range"},
    {{0, "10.0.1.2", "10.9.0.5", 17, 1100, 3000}, "sport_range"},
    {{0, "10.0.1.2", "10.9.0.5", 17, 1101, 3000}, NULL},
    {{0, "10.0.1.2", "10.9.0.5", 17, 5000, 4791, 0, 0, 0x0a}, "rdma_write"},
    {{0, "10.0.1.2", "10.9.0.5", 17, 5000, 4791, 0, 0, 0x04}, "rc_only"},
    {{0, "10.0.1.2", "10.9.0.5", 17, 5000, 4791, 0, 0, 0x64}, NULL}, /* UD: not RC */
    {{0, "10.0.1.2", "10.9.0.5", 17, 5000, 4791, 0, 0, 0x11, 0x61}, "nak"},
    {{0, "10.0.1.2", "10.9.0.5", 17, 5000, 4791, 0, 0, 0x11, 0x1f}, "ack_fwd"},
    {{0, "10.0.1.2", "10.9.0.5", 17, 5000, 4791, 0, 0, 0x64, 0x61}, NULL}, /* no AETH */
    /* RC requests carry no AETH: a payload byte that looks like a NAK is not one */
    {{0, "10.0.1.2", "10.9.0.5", 17, 5000, 4791, 0, 0, 0x04, 0x61}, "rc_only"},
    {{0, "10.0.1.2", "10.9.0.5", 17, 5000, 4791, 0, 0, 0x0a, 0x60}, "rdma_write"},
    {{0, "10.0.1.2", "10.9.200.1", 17, 2000, 3000}, "tie_fwd"},
    {{0, "10.0.1.2", "10.9.201.1", 17, 2000, 3000}, "tie_drop"},
    {{1, "fd01::2", "fd09::5", 17, 2000, 3000}, NULL},
    {{1, "fd01::99", "fd09::5", 17, 2000, 3000}, "v6_src"},
    {{1, "fd01::99", "fd09::5", 58}, "v6_icmp_fwd"},
    {{1, "fd01::2", "fd09::1:7", 6, 2000, 5000, 0, 0x10}, "v6_dst_port"},
    {{1, "fd01::2", "fd09::2:7", 6, 2000, 5000, 0, 0x10}, NULL},
    {{1, "fd01::2", "fd09::5", 17, 2000, 3000, 10}, "v6_dscp"},
};

static void test_cases(void **state)
{
	(void)state;
	assert_int_equal(h_reapply(&H, config_text(N_RULES, -1)), 0);
	for (int tc = 0; tc < 2; tc++)
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			int w = oracle(&cases[i].f, N_RULES, -1);

			print_message("    %s case %zu -> %s\n", tc ? "tc " : "xdp", i,
				      w >= 0 ? rules[w].name : "(none)");
			/* the oracle agrees with the table written by hand */
			if (cases[i].want)
				assert_string_equal(w >= 0 ? rules[w].name : "(none)",
						    cases[i].want);
			else
				assert_int_equal(w, -1);
			check_frame(tc, 0, &cases[i].f, w, w);
		}
}

/* Seeded frames from pools that hit the rules' edges; the oracle's
 * winners against the data plane's verdicts, then every rule's counters
 * against the oracle's tallies. */
static void test_random(void **state)
{
	static const char *src4[] = {"10.0.1.2", "10.0.1.77", "10.0.1.78"};
	static const char *dst4[] = {"10.9.0.5", "10.9.1.9", "10.9.200.1", "10.9.201.3"};
	static const char *src6[] = {"fd01::2", "fd01::99"};
	static const char *dst6[] = {"fd09::5", "fd09::1:7", "fd09::2:1"};
	static const int protos[] = {6, 17, 17, 1};
	static const int l4ports[] = {80,  399, 400,  443,  500,  501,
				      899, 900, 1100, 1101, 4791, 5000};
	static const int dscps[] = {0, 10, 26, 46};
	static const int flags[] = {0x02, 0x12, 0x10, 0x04, 0x22};
	static const int opcodes[] = {0x04, 0x0a, 0x0d, 0x10, 0x11, 0x12, 0x81, 0xb1};
	static const int aeths[] = {0x00, 0x1f, 0x60, 0x7f, 0x20};
	unsigned seed = getenv("XFAB_ACL_SEED") ? (unsigned)atoi(getenv("XFAB_ACL_SEED"))
						: (unsigned)time(NULL);
	__u64 pk0[N_RULES], by0[N_RULES], pk[N_RULES] = {0}, by[N_RULES] = {0};
	__u8 buf[256];

	(void)state;
	print_message("    seed %u (XFAB_ACL_SEED=%u replays it)\n", seed, seed);
	srand(seed);
	assert_int_equal(h_reapply(&H, config_text(N_RULES, -1)), 0);
	for (size_t r = 0; r < N_RULES; r++) {
		pk0[r] = rule_count((int)r, 0);
		by0[r] = rule_count((int)r, 1);
	}
#define PICK(a) a[rand() % (int)(sizeof(a) / sizeof(a[0]))]
	for (int i = 0; i < 600; i++) {
		struct tframe f = {.v6 = rand() % 3 == 0};
		int w;

		f.src = f.v6 ? PICK(src6) : PICK(src4);
		f.dst = f.v6 ? PICK(dst6) : PICK(dst4);
		f.proto = PICK(protos);
		if (f.proto == 1 && f.v6)
			f.proto = 58;
		if (f.proto == 6 || f.proto == 17) {
			f.sport = PICK(l4ports);
			f.dport = PICK(l4ports);
		}
		f.dscp = PICK(dscps);
		f.tcp_flags = f.proto == 6 ? PICK(flags) : 0;
		f.bth_opcode = PICK(opcodes);
		f.aeth = PICK(aeths);
		w = oracle(&f, N_RULES, -1);
		check_frame(i & 1, 0, &f, w, w);
		if (w >= 0) {
			pk[w]++;
			by[w] += build(&f, 0, 0, buf, sizeof(buf));
		}
	}
#undef PICK
	for (size_t r = 0; r < N_RULES; r++) {
		print_message("    %-12s %4llu packets\n", rules[r].name,
			      (unsigned long long)pk[r]);
		assert_int_equal(rule_count((int)r, 0) - pk0[r], pk[r]);
		assert_int_equal(rule_count((int)r, 1) - by0[r], by[r]);
	}
}

/* p3 has no table: the same frame that p1 drops is forwarded, and no
 * rule counts it. A packet for the switch is punted before the ACL. */
static void test_unbound_and_punts(void **state)
{
	struct tframe t = {0, "10.0.1.77", "10.9.0.5", 17, 2000, 3000};
	struct tframe self = {0, "10.0.1.77", "10.0.1.1", 17, 2000, 3000};
	__u8 in[256], out[512];
	size_t out_len = sizeof(out), len;
	__u32 ret = 0;

	(void)state;
	assert_int_equal(h_reapply(&H, config_text(N_RULES, -1)), 0);
	for (int tc = 0; tc < 2; tc++) {
		__u64 before = rule_count(0, 0);

		check_frame(tc, 2, &t, -1, 0);
		assert_int_equal(rule_count(0, 0), before);
		len = build(&self, 0, 0, in, sizeof(in));
		out_len = sizeof(out);
		assert_int_equal(h_run(&H, tc, 0, in, len, out, &out_len, &ret), 0);
		assert_int_equal(ret, tc ? TC_ACT_OK : XDP_PASS);
		assert_int_equal(rule_count(0, 0), before);
	}
}

/* A reload with a rule gone: its frames are forwarded, the rest keep
 * their rules (counters move with the rules' new places); and back. */
static void test_reload(void **state)
{
	struct tframe t = {0, "10.0.1.77", "10.9.0.5", 17, 2000, 3000};
	struct tframe ef = {0, "10.0.1.2", "10.9.0.5", 17, 2000, 3000, 46};

	(void)state;
	assert_int_equal(h_reapply(&H, config_text(N_RULES, 0)), 0);
	assert_int_equal(oracle(&t, N_RULES, 0), -1);
	/* without src_drop, dscp_ef is the config's counter 2 */
	for (int tc = 0; tc < 2; tc++) {
		check_frame(tc, 0, &t, -1, 0);
		check_frame(tc, 0, &ef, 3, 2);
	}
	assert_int_equal(h_reapply(&H, config_text(N_RULES, -1)), 0);
	for (int tc = 0; tc < 2; tc++)
		check_frame(tc, 0, &t, 0, 0);
}

/* Reads cmd's output into out (NUL-terminated). */
static void run_cmd(const char *cmd, char *out, size_t cap)
{
	FILE *p = popen(cmd, "r");
	size_t n = 0;

	if (p) {
		n = fread(out, 1, cap - 1, p);
		pclose(p);
	}
	out[n] = '\0';
}

/* xfabctl show acl over the pinned maps, -j and human: every rule once,
 * by table then priority (highest first), with the counters read here. */
static void test_show_acl(void **state)
{
	struct tframe t = {0, "10.0.1.77", "10.9.0.5", 17, 2000, 3000};
	static char out[16384], want[16384], human[16384];
	char dir[128], cmd[512];
	int order[N_RULES], n = 0;
	size_t len = 0;

	(void)state;
	assert_int_equal(h_reapply(&H, config_text(N_RULES, -1)), 0);
	check_frame(0, 0, &t, 0, 0); /* src_drop counts one more */
	assert_int_equal(xfab_ensure_bpffs(), 0);
	snprintf(dir, sizeof(dir), "/sys/fs/bpf/xfab-acl-test-%d", (int)getpid());
	assert_int_equal(bpf_object__pin_maps(H.skel->obj, dir), 0);
	snprintf(cmd, sizeof(cmd),
		 "%s -P %s -j show acl | jq -c '.[] | [.table, .rule, .priority, .action, "
		 ".packets, .bytes]'",
		 h_build_path("xfabctl"), dir);
	run_cmd(cmd, out, sizeof(out));
	snprintf(cmd, sizeof(cmd), "%s -P %s show acl", h_build_path("xfabctl"), dir);
	run_cmd(cmd, human, sizeof(human));
	bpf_object__unpin_maps(H.skel->obj, dir);
	rmdir(dir);
	/* the order written out: T4's rules, then T6's, each by priority */
	for (int v6 = 0; v6 < 2; v6++)
		for (unsigned prio = 1000; prio > 0; prio--)
			for (size_t r = 0; r < N_RULES; r++)
				if (rules[r].v6 == v6 && rules[r].prio == prio)
					order[n++] = (int)r;
	assert_int_equal(n, N_RULES);
	/* equal priorities: by rule name */
	for (int i = 1; i < n; i++)
		if (rules[order[i]].prio == rules[order[i - 1]].prio &&
		    strcmp(rules[order[i]].name, rules[order[i - 1]].name) < 0) {
			int x = order[i];

			order[i] = order[i - 1];
			order[i - 1] = x;
		}
	for (int i = 0; i < n; i++) {
		const struct trule *r = &rules[order[i]];

		len += (size_t)snprintf(
		    want + len, sizeof(want) - len, "[\"%s\",\"%s\",%u,\"%s\",%llu,%llu]\n",
		    r->v6 ? "T6" : "T4", r->name, r->prio, r->drop ? "DROP" : "FORWARD",
		    (unsigned long long)rule_count(order[i], 0),
		    (unsigned long long)rule_count(order[i], 1));
	}
	assert_true(rule_count(0, 0) >= 1);
	assert_string_equal(out, want);
	print_message("%s", human);
	assert_non_null(strstr(human, "RULE NAME"));
	assert_non_null(strstr(human, "PACKETS COUNT"));
	{
		/* the human row, its columns squeezed to one space */
		char sq[16384], *o = sq;

		for (const char *p = human; *p; p++)
			if (*p != ' ' || (o > sq && o[-1] != ' '))
				*o++ = *p;
		*o = '\0';
		snprintf(want, sizeof(want), "src_drop T4 100 %llu %llu\n",
			 (unsigned long long)rule_count(0, 0),
			 (unsigned long long)rule_count(0, 1));
		assert_non_null(strstr(sq, want));
	}
}

/* The metrics writer's map lookup: the ACL's maps only (the rest read 0). */
static int acl_map_fd(void *arg, const char *name)
{
	(void)arg;
	if (!strcmp(name, XFAB_MAP_ACL_INFO) || !strcmp(name, XFAB_MAP_ACL_STATS))
		return h_map_fd(&H, name);
	return -1;
}

/* xfabd's ACL series over the same maps: one sample per rule, the
 * counters read here. */
static void test_metrics(void **state)
{
	static struct xfab_metrics_src src = {.hostname = "sw"};
	char *buf = NULL, want[256];
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(h_reapply(&H, config_text(N_RULES, -1)), 0);
	src.map_fd = acl_map_fd;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	agent_metrics_write(&src, f);
	fclose(f);
	assert_non_null(strstr(buf, "# TYPE xfab_acl_rule_packets_total counter\n"));
	assert_non_null(strstr(buf, "# TYPE xfab_acl_rule_bytes_total counter\n"));
	for (size_t r = 0; r < N_RULES; r++) {
		snprintf(want, sizeof(want),
			 "xfab_acl_rule_packets_total{switch=\"sw\",table=\"%s\",rule=\"%s\"} "
			 "%llu\n",
			 rules[r].v6 ? "T6" : "T4", rules[r].name,
			 (unsigned long long)rule_count((int)r, 0));
		if (!strstr(buf, want))
			fail_msg("no line %s", want);
		snprintf(want, sizeof(want),
			 "xfab_acl_rule_bytes_total{switch=\"sw\",table=\"%s\",rule=\"%s\"} "
			 "%llu\n",
			 rules[r].v6 ? "T6" : "T4", rules[r].name,
			 (unsigned long long)rule_count((int)r, 1));
		if (!strstr(buf, want))
			fail_msg("no line %s", want);
	}
	free(buf);
}

H_GROUP_FIXTURES(H, 3, config_text(N_RULES, -1))

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_random),
	    cmocka_unit_test(test_unbound_and_punts),
	    cmocka_unit_test(test_reload),
	    cmocka_unit_test(test_show_acl),
	    cmocka_unit_test(test_metrics),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
