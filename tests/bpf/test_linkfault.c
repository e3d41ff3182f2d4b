// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfab-linkfault's fault program (tools/xfab-linkfault.bpf.c) in front of
 * xfab's own XDP program, as the tool puts it on the xdp datapath: xfab's
 * xfab_xdp in the fault program's PROG_ARRAY, the fault program run by
 * BPF_PROG_TEST_RUN.
 *
 * - xfab's program joins the array: the kernel accepts it (the same program
 *   type, attach type BPF_XDP and frags flag as the fault program, or the
 *   update fails with EINVAL), so a survivor reaches it by the tail call: a
 *   frame the fault does not hit comes out with the verdict and the bytes
 *   xfab's program gives it run alone, and xfab counts it received.
 * - loss at 100 %: dropped before xfab, which counts nothing.
 * - corrupt at 100 %: the damage, checked on the bytes by an oracle that
 *   does not share the code (RFC 1071 written out): IPv4 one bit of the
 *   identification field, the header checksum failing; IPv6 the version 7;
 *   an ARP frame the source MAC's group bit; chained, xfab drops each under
 *   exactly one reason (ipv4_bad_checksum, ipv6_bad_version,
 *   smac_multicast), once, and counts it received.
 * - the fault's counts: seen, dropped, corrupted by kind; a survivor with
 *   an empty array passes to the kernel and is counted unchained.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "harness.h"
#include "linkfault.skel.h"
#include "names.h"
#include "oracle.h"
#include "xfab_linkfault.h"

/* p1: ingress; 10.9.0.0/16 and fd09::/32 by the gateway on p2. */
static const char *config_text =
    "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"linkfault-test\"}},\n"
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

static const uint8_t host_mac[6] = {0x02, 0xaa, 0, 0, 0, 0x01};
#define L3 14
#define EVERY (1ull << 32) /* a threshold every frame is below */

struct frame {
	uint8_t b[256];
	size_t len;
};

/* IPv4 UDP to 10.9.0.1, a correct checksum. */
static void build4(struct frame *f)
{
	uint8_t *ip = f->b + L3;

	memset(f, 0, sizeof(*f));
	put_eth(f->b, H.mac[0], host_mac, ETH_P_IP);
	ip[0] = 0x45;
	put16(ip + 2, 20 + 8 + 32);
	put16(ip + 4, 0x1234);
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	inet_pton(AF_INET, "10.0.1.2", ip + 12);
	inet_pton(AF_INET, "10.9.0.1", ip + 16);
	put16(ip + 10, rfc1071(ip, 20));
	put16(ip + 20, 4000);
	put16(ip + 22, 4791);
	put16(ip + 24, 8 + 32);
	f->len = L3 + 20 + 8 + 32;
}

static void build6(struct frame *f)
{
	uint8_t *ip = f->b + L3;

	memset(f, 0, sizeof(*f));
	put_eth(f->b, H.mac[0], host_mac, ETH_P_IPV6);
	ip[0] = 0x60;
	put16(ip + 4, 8 + 32);
	ip[6] = IPPROTO_UDP;
	ip[7] = 64;
	inet_pton(AF_INET6, "fd01::2", ip + 8);
	inet_pton(AF_INET6, "fd09::1", ip + 24);
	put16(ip + 40, 4000);
	put16(ip + 42, 4791);
	put16(ip + 44, 8 + 32);
	f->len = L3 + 40 + 8 + 32;
}

/* An ARP request for the port's address. */
static void build_arp(struct frame *f)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	uint8_t *a = f->b + L3;

	memset(f, 0, sizeof(*f));
	put_eth(f->b, bcast, host_mac, ETH_P_ARP);
	put16(a, 1);
	put16(a + 2, ETH_P_IP);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, 1);
	memcpy(a + 8, host_mac, 6);
	inet_pton(AF_INET, "10.0.1.2", a + 14);
	inet_pton(AF_INET, "10.0.1.1", a + 24);
	f->len = 60;
}

/* The fault program with its settings; chain: xfab's XDP program in its
 * array (the kernel's compatibility check for a tail call). */
static struct linkfault *lf_open(__u32 mode, __u64 threshold, int chain)
{
	struct xfab_lf_conf conf = {.mode = mode, .threshold = threshold, .chain = 1};
	struct linkfault *s = linkfault__open();
	__u32 key = 0;
	int xdp = bpf_program__fd(H.skel->progs.xfab_xdp);

	assert_non_null(s);
	bpf_program__set_expected_attach_type(s->progs.xfab_lf_fault, BPF_XDP);
	assert_int_equal(linkfault__load(s), 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(s->maps.lf_conf), &key, &conf, 0), 0);
	if (chain && bpf_map_update_elem(bpf_map__fd(s->maps.lf_next), &key, &xdp, 0))
		fail_msg("xfab's XDP program refused in the fault program's PROG_ARRAY: %s",
			 strerror(errno));
	return s;
}

static struct xfab_lf_stats lf_stats(struct linkfault *s)
{
	struct xfab_lf_stats st;

	assert_int_equal(xfab_percpu_sum(bpf_map__fd(s->maps.lf_stats), 0, (__u64 *)&st,
					 sizeof(st) / sizeof(__u64)),
			 0);
	return st;
}

static __u64 rx_packets(void)
{
	__u64 n = 0;

	for (__u32 slot = 0; slot < XFAB_MAX_PORTS; slot++)
		n += h_percpu_u64(&H, XFAB_MAP_PORT_STATS, slot, 0, 6);
	return n;
}

static __u64 drops(__u32 reason)
{
	return h_percpu_u64(&H, XFAB_MAP_DROP_STATS, reason, 0, 2);
}

static __u32 run(int prog_fd, const struct frame *in, struct frame *out)
{
	__u32 ret;

	out->len = sizeof(out->b);
	assert_int_equal(h_run_fd(&H, prog_fd, 0, 0, in->b, in->len, out->b, &out->len, &ret), 0);
	return ret;
}

/* Not hit: xfab's own verdict and bytes, and its rx count, by the tail call. */
static void test_survivor_reaches_xfab(void **state)
{
	struct linkfault *s = lf_open(XFAB_LF_LOSS, 0, 1);
	struct frame in, alone, through;
	__u32 r_alone, r_through;
	__u64 rx0;

	(void)state;
	build4(&in);
	r_alone = run(bpf_program__fd(H.skel->progs.xfab_xdp), &in, &alone);
	assert_int_equal(r_alone, XDP_REDIRECT);
	rx0 = rx_packets();
	r_through = run(bpf_program__fd(s->progs.xfab_lf_fault), &in, &through);
	assert_int_equal(r_through, r_alone);
	assert_int_equal(through.len, alone.len);
	assert_memory_equal(through.b, alone.b, alone.len);
	assert_int_equal(rx_packets(), rx0 + 1);
	assert_int_equal(lf_stats(s).seen, 1);
	assert_int_equal(lf_stats(s).unchained, 0);
	assert_int_equal(lf_stats(s).dropped, 0);
	linkfault__destroy(s);
}

static void test_loss_before_xfab(void **state)
{
	struct linkfault *s = lf_open(XFAB_LF_LOSS, EVERY, 1);
	struct frame in, out;
	__u64 rx0 = rx_packets();

	(void)state;
	build4(&in);
	assert_int_equal(run(bpf_program__fd(s->progs.xfab_lf_fault), &in, &out), XDP_DROP);
	assert_int_equal(rx_packets(), rx0);
	assert_int_equal(lf_stats(s).seen, 1);
	assert_int_equal(lf_stats(s).dropped, 1);
	linkfault__destroy(s);
}

/* The damage on the bytes (unchained: the frame comes back as damaged). */
static void test_corrupt_bytes(void **state)
{
	struct linkfault *s = lf_open(XFAB_LF_CORRUPT, EVERY, 0);
	int fd = bpf_program__fd(s->progs.xfab_lf_fault);
	struct frame in, out, want;

	(void)state;
	build4(&in);
	assert_int_equal(run(fd, &in, &out), XDP_PASS);
	want = in;
	want.b[L3 + 5] ^= 1; /* the identification's low bit */
	assert_int_equal(out.len, in.len);
	assert_memory_equal(out.b, want.b, in.len);
	assert_int_not_equal(rfc1071(out.b + L3, 20), 0); /* the checksum fails */
	build6(&in);
	run(fd, &in, &out);
	want = in;
	want.b[L3] = 0x70; /* version 7 */
	assert_memory_equal(out.b, want.b, in.len);
	build_arp(&in);
	run(fd, &in, &out);
	want = in;
	want.b[6] |= 1; /* the source MAC's group bit */
	assert_memory_equal(out.b, want.b, in.len);
	assert_int_equal(lf_stats(s).corrupted_ipv4, 1);
	assert_int_equal(lf_stats(s).corrupted_ipv6, 1);
	assert_int_equal(lf_stats(s).corrupted_other, 1);
	assert_int_equal(lf_stats(s).unchained, 3); /* chain on, no program */
	linkfault__destroy(s);
}

/* Chained: each damaged frame counted received by xfab and dropped under
 * exactly its reason, once. */
static void test_corrupt_counted_by_xfab(void **state)
{
	static const struct {
		void (*build)(struct frame *f);
		__u32 reason;
	} cases[] = {{build4, XFAB_DROP_IPV4_BAD_CHECKSUM},
		     {build6, XFAB_DROP_IPV6_BAD_VERSION},
		     {build_arp, XFAB_DROP_SMAC_MULTICAST}};
	struct linkfault *s = lf_open(XFAB_LF_CORRUPT, EVERY, 1);
	struct frame in, out;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		__u64 before[XFAB_DROP_MAX], rx0 = rx_packets();

		for (__u32 r = 0; r < XFAB_DROP_MAX; r++)
			before[r] = drops(r);
		cases[i].build(&in);
		assert_int_equal(run(bpf_program__fd(s->progs.xfab_lf_fault), &in, &out), XDP_DROP);
		for (__u32 r = 0; r < XFAB_DROP_MAX; r++)
			if (drops(r) - before[r] != (r == cases[i].reason))
				fail_msg("case %zu: drop reason %s moved by %llu (expected %s)", i,
					 xfab_drop_name(r),
					 (unsigned long long)(drops(r) - before[r]),
					 xfab_drop_name(cases[i].reason));
		assert_int_equal(rx_packets(), rx0 + 1);
	}
	assert_int_equal(lf_stats(s).seen, 3);
	assert_int_equal(lf_stats(s).unchained, 0);
	linkfault__destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_survivor_reaches_xfab),
	    cmocka_unit_test(test_loss_before_xfab),
	    cmocka_unit_test(test_corrupt_bytes),
	    cmocka_unit_test(test_corrupt_counted_by_xfab),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
