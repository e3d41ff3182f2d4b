// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Control-plane policing through the loaded data plane (both datapaths):
 * every kind of punt lands in the CoPP group a table written here by hand
 * says (and no other group moves); a group's bucket admits cbs packets at
 * once and polices the rest (copp_policed, red); it refills at cir, time
 * controlled through the bucket's timestamp in copp_state (the data plane
 * reads CLOCK_MONOTONIC); cir 0 polices nothing; a flood in one group
 * leaves BGP's bucket alone; and the punt path's price with and without
 * the meter.
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

/* p1: hosts on 10.0.1.0/24 and fd01::/64; p2: 10.0.2.0/24 and fd02::/64,
 * 10.9/16 behind 10.0.2.2 (resolved), 10.0.2.7 never resolved. */
#define BASE_CONFIG                                                                                \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"copp-test\"}},\n"                  \
	" \"PORT\": {\"p1\": {}, \"p2\": {}},\n"                                                   \
	" \"INTERFACE\": {\"p1|10.0.1.1/24\": {}, \"p1|fd01::1/64\": {}, \"p2|10.0.2.1/24\": "     \
	"{},\n"                                                                                    \
	"   \"p2|fd02::1/64\": {}},\n"                                                             \
	" \"ROUTE\": {\"10.9.0.0/16\": {\"nexthop\": \"10.0.2.2\"}},\n"                            \
	" \"NEIGH\": {\"p2|10.0.2.2\": {\"neigh\": \"02:00:00:00:02:02\"}}"

/* every group unpoliced: classification alone */
static const char *cfg_open =
    BASE_CONFIG ",\n \"COPP_TABLE\": {\"bgp\": {\"cir\": \"0\"},"
		" \"bfd\": {\"cir\": \"0\"}, \"arp\": {\"cir\": \"0\"},"
		" \"arp_resp\": {\"cir\": \"0\"},"
		" \"nd\": {\"cir\": \"0\"}, \"ttl_error\": {\"cir\": \"0\"},"
		" \"ip2me\": {\"cir\": \"0\"}, \"default\": {\"cir\": \"0\"}}}\n";
/* ttl_error 10/s, burst 5; arp 1/s, burst 1; bgp unpoliced-by-default's
 * figure (6000) */
static const char *cfg_meter =
    BASE_CONFIG ",\n \"COPP_TABLE\": {\"ttl_error\": {\"cir\": \"10\", \"cbs\": \"5\","
		" \"meter_type\": \"packets\", \"trap_ids\": \"ttl_error\"},"
		" \"arp\": {\"cir\": \"1\", \"cbs\": \"1\"}}}\n";

static const __u8 host_mac[6] = {0x02, 0, 0, 0, 0x01, 0x02};

enum kind { K_IP, K_ARP, K_RAW };

struct pkt {
	const char *name;
	enum kind kind;
	const char *src, *dst;
	__u8 ttl, proto;
	__u16 sport, dport;
	__u8 icmp_type;
	int mcast_mac; /* destination MAC from the IP multicast address */
	__u16 ethertype;
	__u32 group; /* expected */
};

static size_t build_pkt(const struct pkt *p, __u8 *buf, size_t cap)
{
	struct xfab_frame f;
	long n;

	memset(&f, 0, sizeof(f));
	memcpy(f.smac, host_mac, 6);
	memcpy(f.dmac, H.mac[0], 6);
	if (p->kind == K_ARP) {
		static __u8 arp[28];

		/* request who-has 10.0.1.1 tell 10.0.1.2 */
		memcpy(arp, "\x00\x01\x08\x00\x06\x04\x00\x01", 8);
		memcpy(arp + 8, host_mac, 6);
		memcpy(arp + 14, "\x0a\x00\x01\x02", 4);
		memcpy(arp + 24, "\x0a\x00\x01\x01", 4);
		if (p->sport) /* a reply */
			arp[7] = 2;
		memset(f.dmac, 0xff, 6);
		f.l3 = XFAB_FRAME_RAW;
		f.ethertype = ETH_P_ARP;
		f.payload = arp;
		f.payload_len = sizeof(arp);
	} else if (p->kind == K_RAW) {
		static const __u8 lldp_dst[6] = {0x01, 0x80, 0xc2, 0, 0, 0x0e};

		memcpy(f.dmac, lldp_dst, 6);
		f.l3 = XFAB_FRAME_RAW;
		f.ethertype = p->ethertype;
		f.payload_len = 46;
	} else {
		assert_int_equal(xfab_frame_addrs(&f, p->src, p->dst), 0);
		f.ip4.ttl = p->ttl;
		f.ip6.hop_limit = p->ttl;
		f.l4.proto = p->proto;
		f.l4.sport = p->sport;
		f.l4.dport = p->dport;
		f.l4.icmp_type = p->icmp_type;
		f.payload_len = 16;
		if (p->mcast_mac && f.l3 == XFAB_FRAME_IPV4) {
			static const __u8 m4[6] = {0x01, 0, 0x5e, 0, 0, 0x05};

			memcpy(f.dmac, m4, 6);
		} else if (p->mcast_mac) {
			f.dmac[0] = 0x33;
			f.dmac[1] = 0x33;
			memcpy(f.dmac + 2, f.ip6.dst + 12, 4);
		}
	}
	n = xfab_frame_build(&f, buf, cap, NULL);
	assert_true(n > 0);
	return (size_t)n;
}

static __u64 copp(__u32 group, int red)
{
	return h_percpu_u64(&H, XFAB_MAP_COPP_STATS, group, red ? 2 : 0, 4);
}

static __u64 dropped(__u32 reason)
{
	return h_percpu_u64(&H, XFAB_MAP_DROP_STATS, reason, 0, 2);
}

/* One frame in on p1; its verdict. */
static __u32 send_pkt(int tc, const struct pkt *p)
{
	__u8 in[256], out[512];
	size_t out_len = sizeof(out), len = build_pkt(p, in, sizeof(in));
	__u32 ret = 0;

	assert_int_equal(h_run(&H, tc, 0, in, len, out, &out_len, &ret), 0);
	return ret;
}

static __u32 punted(int tc)
{
	return tc ? TC_ACT_OK : XDP_PASS;
}

static __u32 shot(int tc)
{
	return tc ? TC_ACT_SHOT : XDP_DROP;
}

/* The table: what each punt is, and the group it must land in. */
static const struct pkt table[] = {
    {"ARP request", K_ARP, .group = XFAB_COPP_ARP},
    {"ARP reply", K_ARP, .sport = 1, .group = XFAB_COPP_ARP_RESP},
    {"BGP to self (dport 179)", K_IP, "10.0.1.2", "10.0.1.1", 1, IPPROTO_TCP, 40000, 179,
     .group = XFAB_COPP_BGP},
    {"BGP to self (sport 179)", K_IP, "10.0.1.2", "10.0.1.1", 64, IPPROTO_TCP, 179, 40000,
     .group = XFAB_COPP_BGP},
    {"BGP v6 to self", K_IP, "fd01::2", "fd01::1", 64, IPPROTO_TCP, 40000, 179,
     .group = XFAB_COPP_BGP},
    {"BGP v6 link-local", K_IP, "fe80::2", "fe80::1", 64, IPPROTO_TCP, 179, 40000,
     .group = XFAB_COPP_BGP},
    {"BFD single hop", K_IP, "10.0.1.2", "10.0.1.1", 255, IPPROTO_UDP, 49152, 3784,
     .group = XFAB_COPP_BFD},
    {"BFD echo", K_IP, "10.0.1.2", "10.0.1.1", 255, IPPROTO_UDP, 3785, 3785,
     .group = XFAB_COPP_BFD},
    {"BFD multihop", K_IP, "10.0.1.2", "10.0.1.1", 64, IPPROTO_UDP, 49152, 4784,
     .group = XFAB_COPP_BFD},
    {"BFD v6", K_IP, "fd01::2", "fd01::1", 255, IPPROTO_UDP, 49152, 3784, .group = XFAB_COPP_BFD},
    {"NS to solicited-node", K_IP, "fd01::2", "ff02::1:ff00:1", 255, IPPROTO_ICMPV6,
     .icmp_type = 135, .mcast_mac = 1, .group = XFAB_COPP_ND},
    {"NA to self", K_IP, "fd01::2", "fd01::1", 255, IPPROTO_ICMPV6, .icmp_type = 136,
     .group = XFAB_COPP_ND},
    {"RS to all-routers", K_IP, "fe80::2", "ff02::2", 255, IPPROTO_ICMPV6, .icmp_type = 133,
     .mcast_mac = 1, .group = XFAB_COPP_ND},
    {"NS link-local", K_IP, "fe80::2", "fe80::1", 255, IPPROTO_ICMPV6, .icmp_type = 135,
     .group = XFAB_COPP_ND},
    {"TTL 1 transit UDP", K_IP, "10.0.1.2", "10.9.0.5", 1, IPPROTO_UDP, 1000, 2000,
     .group = XFAB_COPP_TTL_ERROR},
    {"TTL 1 transit to port 179", K_IP, "10.0.1.2", "10.9.0.5", 1, IPPROTO_TCP, 40000, 179,
     .group = XFAB_COPP_TTL_ERROR},
    {"TTL 1 transit to port 3784", K_IP, "10.0.1.2", "10.9.0.5", 1, IPPROTO_UDP, 49152, 3784,
     .group = XFAB_COPP_TTL_ERROR},
    {"hop limit 1 transit", K_IP, "fd01::2", "fd02::5", 1, IPPROTO_UDP, 1000, 2000,
     .group = XFAB_COPP_TTL_ERROR},
    {"ping to self", K_IP, "10.0.1.2", "10.0.1.1", 64, IPPROTO_ICMP, .icmp_type = 8,
     .group = XFAB_COPP_IP2ME},
    {"UDP 53 to self", K_IP, "10.0.1.2", "10.0.2.1", 64, IPPROTO_UDP, 5000, 53,
     .group = XFAB_COPP_IP2ME},
    {"TCP 22 to self v6", K_IP, "fd01::2", "fd02::1", 64, IPPROTO_TCP, 40000, 22,
     .group = XFAB_COPP_IP2ME},
    {"unresolved neighbour", K_IP, "10.0.1.2", "10.0.2.7", 64, IPPROTO_UDP, 1000, 2000,
     .group = XFAB_COPP_DEFAULT},
    {"unresolved neighbour, port 179", K_IP, "10.0.1.2", "10.0.2.7", 64, IPPROTO_TCP, 40000, 179,
     .group = XFAB_COPP_DEFAULT},
    {"IPv4 link-local", K_IP, "10.0.1.2", "169.254.1.1", 64, IPPROTO_UDP, 1000, 2000,
     .group = XFAB_COPP_DEFAULT},
    {"IPv4 multicast (OSPF)", K_IP, "10.0.1.2", "224.0.0.5", 1, IPPROTO_UDP, 1000, 3784,
     .mcast_mac = 1, .group = XFAB_COPP_DEFAULT},
    {"IPv6 multicast, not ND (MLD)", K_IP, "fe80::2", "ff02::16", 1, IPPROTO_ICMPV6,
     .icmp_type = 143, .mcast_mac = 1, .group = XFAB_COPP_DEFAULT},
    {"LLDP", K_RAW, .ethertype = 0x88cc, .group = XFAB_COPP_DEFAULT},
};

static void test_classify(void **state)
{
	(void)state;
	assert_int_equal(h_reapply(&H, cfg_open), 0);
	for (int tc = 0; tc < 2; tc++)
		for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
			__u64 before[XFAB_COPP_GROUPS][2];
			__u32 ret;

			for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++) {
				before[g][0] = copp(g, 0);
				before[g][1] = copp(g, 1);
			}
			ret = send_pkt(tc, &table[i]);
			print_message("    %s %-32s -> %u\n", tc ? "tc " : "xdp", table[i].name,
				      ret);
			assert_int_equal(ret, punted(tc));
			for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++) {
				if (copp(g, 0) != before[g][0] + (g == table[i].group))
					fail_msg("%s (%s): group %u green %llu -> %llu, expected "
						 "group %u",
						 table[i].name, tc ? "tc" : "xdp", g,
						 (unsigned long long)before[g][0],
						 (unsigned long long)copp(g, 0), table[i].group);
				assert_int_equal(copp(g, 1), before[g][1]);
			}
		}
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

/* The bucket of group g holds `tokens` packets as of `ago_ns` ago (0: its
 * first use, full). */
static void set_bucket(__u32 g, __u64 tokens, __u64 ago_ns)
{
	struct xfab_copp_state st = {.tokens = tokens * XFAB_COPP_TOKEN};

	st.last_ns = ago_ns ? now_ns() - ago_ns : 0;
	assert_int_equal(bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_COPP_STATE), &g, &st, BPF_ANY),
			 0);
}

/* n TTL-1 packets: how many were admitted; each one either punted or
 * dropped as copp_policed, and counted green or red alike. */
static int burst(int tc, int n)
{
	const struct pkt *ttl1 = &table[14];
	__u64 g0 = copp(XFAB_COPP_TTL_ERROR, 0), r0 = copp(XFAB_COPP_TTL_ERROR, 1);
	__u64 d0 = dropped(XFAB_DROP_COPP_POLICED);
	int green = 0;

	assert_int_equal(ttl1->group, XFAB_COPP_TTL_ERROR);
	for (int i = 0; i < n; i++) {
		__u32 ret = send_pkt(tc, ttl1);

		if (ret == punted(tc))
			green++;
		else
			assert_int_equal(ret, shot(tc));
	}
	assert_int_equal(copp(XFAB_COPP_TTL_ERROR, 0), g0 + (__u64)green);
	assert_int_equal(copp(XFAB_COPP_TTL_ERROR, 1), r0 + (__u64)(n - green));
	assert_int_equal(dropped(XFAB_DROP_COPP_POLICED), d0 + (__u64)(n - green));
	return green;
}

static void test_bucket_burst_then_police(void **state)
{
	(void)state;
	assert_int_equal(h_reapply(&H, cfg_meter), 0);
	for (int tc = 0; tc < 2; tc++) {
		/* a fresh bucket is full: cbs (5) go, then none (10/s refills
		 * far less than one packet while 12 run) */
		set_bucket(XFAB_COPP_TTL_ERROR, 0, 0);
		assert_int_equal(burst(tc, 12), 5);
		/* and nothing more right after */
		assert_int_equal(burst(tc, 3), 0);
	}
}

static void test_bucket_refills_at_cir(void **state)
{
	(void)state;
	assert_int_equal(h_reapply(&H, cfg_meter), 0);
	for (int tc = 0; tc < 2; tc++) {
		/* empty 350 ms ago: 10/s x 0.35 s = 3.5 tokens, 3 packets */
		set_bucket(XFAB_COPP_TTL_ERROR, 0, 350000000ull);
		assert_int_equal(burst(tc, 8), 3);
		/* empty 450 ms ago, half a token left then: 5 tokens */
		{
			struct xfab_copp_state st = {.tokens = XFAB_COPP_TOKEN / 2,
						     .last_ns = now_ns() - 450000000ull};
			__u32 g = XFAB_COPP_TTL_ERROR;

			assert_int_equal(bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_COPP_STATE), &g,
							     &st, BPF_ANY),
					 0);
		}
		assert_int_equal(burst(tc, 8), 5);
		/* empty 100 s ago: the bucket holds cbs (5), not 1000 */
		set_bucket(XFAB_COPP_TTL_ERROR, 0, 100000000000ull);
		assert_int_equal(burst(tc, 20), 5);
		/* two tokens left a moment ago: 2 */
		set_bucket(XFAB_COPP_TTL_ERROR, 2, 1000);
		assert_int_equal(burst(tc, 6), 2);
	}
}

/* A config that lowers cbs: a bucket holding more is cut to the new cbs. */
static void test_cbs_lowered(void **state)
{
	(void)state;
	assert_int_equal(h_reapply(&H, cfg_meter), 0);
	set_bucket(XFAB_COPP_TTL_ERROR, 1000, 1000);
	assert_int_equal(burst(0, 20), 5);
}

static void test_unpoliced(void **state)
{
	(void)state;
	assert_int_equal(h_reapply(&H, cfg_open), 0);
	set_bucket(XFAB_COPP_TTL_ERROR, 0, 1000);
	assert_int_equal(burst(0, 50), 50);
	assert_int_equal(burst(1, 50), 50);
}

/* An ARP request flood empties arp's bucket; BGP, BFD, ND and the ARP
 * replies the switch's own resolution waits for go on as before. */
static void test_bgp_protected(void **state)
{
	const struct pkt *bgp = &table[2], *bfd = &table[6], *arp = &table[0], *nd = &table[10];
	const struct pkt *reply = &table[1];
	__u64 red0;

	(void)state;
	assert_int_equal(h_reapply(&H, cfg_meter), 0);
	set_bucket(XFAB_COPP_ARP, 0, 0);
	red0 = copp(XFAB_COPP_ARP, 1);
	for (int i = 0; i < 100; i++)
		send_pkt(i & 1, arp);
	assert_int_equal(copp(XFAB_COPP_ARP, 1), red0 + 99);
	for (int tc = 0; tc < 2; tc++)
		for (int i = 0; i < 50; i++) {
			assert_int_equal(send_pkt(tc, bgp), punted(tc));
			assert_int_equal(send_pkt(tc, bfd), punted(tc));
			assert_int_equal(send_pkt(tc, nd), punted(tc));
			assert_int_equal(send_pkt(tc, reply), punted(tc));
		}
}

/* The punt path's price: an ARP frame through xfab_xdp, its group
 * unpoliced, then metered (a bucket that never empties), averaged by
 * BPF_PROG_TEST_RUN over many runs. Printed, and bounded loosely (the
 * meter is a lock, a division and a counter: well under a microsecond). */
static void test_price(void **state)
{
	static const char *cfg_big = BASE_CONFIG ",\n \"COPP_TABLE\": {\"arp\": {\"cir\": "
						 "\"10000000\", \"cbs\": \"10000000\"}}}\n";
	__u8 in[256], out[512];
	size_t len = build_pkt(&table[0], in, sizeof(in));
	struct xdp_md ctx = {.data_end = (__u32)len, .ingress_ifindex = H.ifindex[0]};
	__u32 ns[2];

	(void)state;
	for (int metered = 0; metered < 2; metered++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in, .data_size_in = (__u32)len,
			    .data_out = out, .data_size_out = sizeof(out), .ctx_in = &ctx,
			    .ctx_size_in = sizeof(ctx), .repeat = 200000);

		assert_int_equal(h_reapply(&H, metered ? cfg_big : cfg_open), 0);
		set_bucket(XFAB_COPP_ARP, 0, 0);
		assert_int_equal(
		    bpf_prog_test_run_opts(bpf_program__fd(H.skel->progs.xfab_xdp), &opts), 0);
		assert_int_equal(opts.retval, XDP_PASS);
		ns[metered] = opts.duration;
	}
	print_message("    ARP punt through xfab_xdp: %u ns unpoliced, %u ns metered (+%d ns)\n",
		      ns[0], ns[1], (int)ns[1] - (int)ns[0]);
	assert_true(ns[1] < ns[0] + 1000);
}

/* The packets ttl_error's bucket (10/s, cbs 5) holds at time t, from its
 * state st: COPP.md "Reading it", what it held at its last punt plus what
 * cir added since, up to cbs. */
static unsigned ttl_tokens_at(const struct xfab_copp_state *st, __u64 t)
{
	__u64 cap = 5 * XFAB_COPP_TOKEN, tok = st->tokens;

	if (t > st->last_ns)
		tok += (t - st->last_ns) * 10;
	return (unsigned)((tok > cap ? cap : tok) / XFAB_COPP_TOKEN);
}

/* `xfabctl -j show copp` over the maps pinned: each group's meter as the
 * config says (written here) and its counters as the data plane counted
 * them (read from copp_stats, summed over CPUs, in this test). ttl_error's
 * bucket, emptied by the burst, refills at 10/s while xfabctl starts: its
 * TOKENS lies between what it holds at the clock read before xfabctl and
 * at the one after (on a loaded box that took 300 ms once: 3 tokens). */
static void test_show_copp(void **state)
{
	static const __u32 want[XFAB_COPP_GROUPS][2] = {
	    [XFAB_COPP_BGP] = {6000, 6000},   [XFAB_COPP_BFD] = {6000, 6000},
	    [XFAB_COPP_ARP] = {1, 1},	      [XFAB_COPP_ARP_RESP] = {600, 600},
	    [XFAB_COPP_ND] = {600, 600},      [XFAB_COPP_TTL_ERROR] = {10, 5},
	    [XFAB_COPP_IP2ME] = {6000, 6000}, [XFAB_COPP_DEFAULT] = {600, 600},
	};
	static const char *const names[XFAB_COPP_GROUPS] = {"bgp", "bfd",	"arp",	 "arp_resp",
							    "nd",  "ttl_error", "ip2me", "default"};
	char dir[128], cmd[512], out[4096], expect[4096];
	unsigned ttl_lo, ttl_hi, ttl_shown = ~0u;
	struct xfab_copp_state ttl;
	__u32 ttl_key = XFAB_COPP_TTL_ERROR;
	size_t n = 0, len = 0;
	const char *line;
	FILE *p;

	(void)state;
	assert_int_equal(h_reapply(&H, cfg_meter), 0);
	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++)
		set_bucket(g, 0, 0); /* never used: full */
	burst(0, 9);		     /* 5 green, 4 red: ttl_error's bucket empty */
	assert_int_equal(xfab_ensure_bpffs(), 0);
	snprintf(dir, sizeof(dir), "/sys/fs/bpf/xfab-copp-test-%d", (int)getpid());
	assert_int_equal(bpf_object__pin_maps(H.skel->obj, dir), 0);
	snprintf(cmd, sizeof(cmd),
		 "%s -P %s -j show copp | jq -c '.[] | [.group, .cir, .cbs, .policed, "
		 ".green_packets, .red_packets, .tokens]'",
		 h_build_path("xfabctl"), dir);
	assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_COPP_STATE), &ttl_key, &ttl), 0);
	ttl_lo = ttl_tokens_at(&ttl, now_ns());
	p = popen(cmd, "r");
	if (p) {
		n = fread(out, 1, sizeof(out) - 1, p);
		pclose(p);
	}
	ttl_hi = ttl_tokens_at(&ttl, now_ns());
	out[n] = '\0';
	line = strstr(out, "[\"ttl_error\"");
	if (line)
		sscanf(line, "[\"ttl_error\",%*u,%*u,true,%*u,%*u,%u]", &ttl_shown);
	print_message("    ttl_error's TOKENS %u, between %u and %u by the clock\n", ttl_shown,
		      ttl_lo, ttl_hi);
	assert_true(ttl_shown >= ttl_lo && ttl_shown <= ttl_hi);
	bpf_object__unpin_maps(H.skel->obj, dir);
	rmdir(dir);
	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++)
		len += (size_t)snprintf(expect + len, sizeof(expect) - len,
					"[\"%s\",%u,%u,true,%llu,%llu,%u]\n", names[g], want[g][0],
					want[g][1], (unsigned long long)copp(g, 0),
					(unsigned long long)copp(g, 1),
					g == XFAB_COPP_TTL_ERROR ? ttl_shown : want[g][1]);
	assert_true(copp(XFAB_COPP_TTL_ERROR, 1) >= 4);
	assert_string_equal(out, expect);
}

/* The metrics writer's map lookup: drops and CoPP's maps only (the rest
 * read 0). */
static int copp_map_fd(void *arg, const char *name)
{
	(void)arg;
	if (!strcmp(name, XFAB_MAP_DROP_STATS) || !strcmp(name, XFAB_MAP_COPP_CFG) ||
	    !strcmp(name, XFAB_MAP_COPP_STATS))
		return h_map_fd(&H, name);
	return -1;
}

/* xfabd's CoPP series over the same maps: HELP and TYPE, one sample per
 * group and family, each the counter read here; the red ones also as the
 * copp_policed drop. */
static void test_metrics(void **state)
{
	static struct xfab_metrics_src src = {.hostname = "sw"};
	char *buf = NULL, want[256];
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(h_reapply(&H, cfg_meter), 0);
	set_bucket(XFAB_COPP_TTL_ERROR, 0, 0);
	burst(1, 7); /* 5 green, 2 red */
	src.map_fd = copp_map_fd;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	agent_metrics_write(&src, f);
	fclose(f);
	{
		const char *lines[] = {
		    "# TYPE xfab_copp_green_packets_total counter\n",
		    "# TYPE xfab_copp_red_packets_total counter\n",
		    "# TYPE xfab_copp_cir_packets_per_second gauge\n",
		    "# TYPE xfab_copp_cbs_packets gauge\n",
		    "xfab_copp_cir_packets_per_second{switch=\"sw\",group=\"ttl_error\"} 10\n",
		    "xfab_copp_cbs_packets{switch=\"sw\",group=\"ttl_error\"} 5\n",
		    "xfab_copp_cir_packets_per_second{switch=\"sw\",group=\"bgp\"} 6000\n",
		};

		for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
			if (!strstr(buf, lines[i]))
				fail_msg("no line %s", lines[i]);
	}
	for (__u32 g = 0; g < XFAB_COPP_GROUPS; g++) {
		static const char *const names[XFAB_COPP_GROUPS] = {
		    "bgp", "bfd", "arp", "arp_resp", "nd", "ttl_error", "ip2me", "default"};

		snprintf(want, sizeof(want),
			 "\nxfab_copp_green_packets_total{switch=\"sw\",group=\"%s\"} %llu\n",
			 names[g], (unsigned long long)copp(g, 0));
		if (!strstr(buf, want))
			fail_msg("no line %s", want + 1);
		snprintf(want, sizeof(want),
			 "\nxfab_copp_red_packets_total{switch=\"sw\",group=\"%s\"} %llu\n",
			 names[g], (unsigned long long)copp(g, 1));
		if (!strstr(buf, want))
			fail_msg("no line %s", want + 1);
	}
	snprintf(want, sizeof(want),
		 "xfab_drops_total{switch=\"sw\",reason=\"copp_policed\"} %llu\n",
		 (unsigned long long)dropped(XFAB_DROP_COPP_POLICED));
	assert_non_null(strstr(buf, want));
	assert_true(copp(XFAB_COPP_TTL_ERROR, 1) >= 2);
	free(buf);
}

H_GROUP_FIXTURES(H, 2, cfg_open)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_classify),
	    cmocka_unit_test(test_bucket_burst_then_police),
	    cmocka_unit_test(test_bucket_refills_at_cir),
	    cmocka_unit_test(test_cbs_lowered),
	    cmocka_unit_test(test_unpoliced),
	    cmocka_unit_test(test_bgp_protected),
	    cmocka_unit_test(test_show_copp),
	    cmocka_unit_test(test_metrics),
	    cmocka_unit_test(test_price),
	};

	return cmocka_run_group_tests_name("bpf_copp", tests, setup, teardown);
}
