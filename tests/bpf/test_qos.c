// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * QoS tests through the loaded data plane: the WRED/ECN curve at fixed
 * queue occupancies (the phantom queue's state is set before each packet),
 * which packets may become CE, Not-ECT drops, tail drops, the IPv4
 * checksum after marking, IPv6, the phantom queue draining at the port
 * rate, watermarks and counters, and the tc egress program's tail drop.
 */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_packet.h>
#include <unistd.h>
#include <time.h>

#include <cmocka.h>

#include "common.h"
#include "frame.h"
#include "harness.h"
#include "stats.h"

/* p1: ingress. p2: 1 Mbit/s (drains ~nothing during a test), WRED on every
 * class: ECN profile for DSCP 0 (class 1), RED profile (drops Not-ECT) for
 * DSCP 5 (class 2). p3: 1 Gbit/s, ECN profile. p4: tc egress tail drops.
 * p5: tc egress against a real HTB queue; its profile REAL takes the
 * thresholds a test sets. */
static const char *qos_config(unsigned kmin, unsigned kmax, unsigned pmax)
{
	static char buf[4096];

	snprintf(
	    buf, sizeof(buf),
	    "{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"qos-test\"}},\n"
	    " \"PORT\": {\"p1\": {}, \"p2\": {\"rate\": \"1\", \"buffer\": \"1000000\"},\n"
	    "   \"p3\": {\"rate\": \"1000\", \"buffer\": \"1000000\"}, \"p4\": {\"buffer\": "
	    "\"1500\"},\n"
	    "   \"p5\": {\"buffer\": \"1000000\"}},\n"
	    " \"INTERFACE\": {\"p1|10.0.1.1/24\": {}, \"p2|10.0.2.0/31\": {}, \"p2|fd02::2/127\": "
	    "{},\n"
	    "   \"p3|10.0.3.0/31\": {}, \"p4|10.0.4.0/31\": {}, \"p5|10.0.5.0/31\": {}},\n"
	    " \"ROUTE\": {\"10.9.0.0/16\": {\"nexthop\": \"10.0.2.1\"}, \"fd09::/32\": "
	    "{\"nexthop\": "
	    "\"fd02::3\"},\n"
	    "   \"10.8.0.0/16\": {\"nexthop\": \"10.0.3.1\"}},\n"
	    " \"NEIGH\": {\"p2|10.0.2.1\": {\"neigh\": \"02:00:00:00:02:01\"}, \"p2|fd02::3\": "
	    "{\"neigh\": \"02:00:00:00:02:01\"},\n"
	    "   \"p3|10.0.3.1\": {\"neigh\": \"02:00:00:00:03:01\"}},\n"
	    " \"WRED_PROFILE\": {\"ECN\": {\"min_threshold\": \"10000\", \"max_threshold\": "
	    "\"50000\",\n"
	    "     \"max_probability\": \"20\", \"ecn\": \"ecn_all\", \"drop_nonect\": \"false\"},\n"
	    "   \"RED\": {\"min_threshold\": \"10000\", \"max_threshold\": \"50000\", "
	    "\"max_probability\": \"20\",\n"
	    "     \"ecn\": \"ecn_all\", \"drop_nonect\": \"true\"},\n"
	    "   \"REAL\": {\"min_threshold\": \"%u\", \"max_threshold\": \"%u\", "
	    "\"max_probability\": \"%u\", \"ecn\": \"ecn_all\"}},\n"
	    " \"QUEUE\": {\"p2|0-1\": {\"wred_profile\": \"ECN\"}, \"p2|2\": {\"wred_profile\": "
	    "\"RED\"},\n"
	    "   \"p3|0-7\": {\"wred_profile\": \"ECN\"}, \"p5|0-7\": {\"wred_profile\": "
	    "\"REAL\"}}\n"
	    "}\n",
	    kmin, kmax, pmax);
	return buf;
}

static struct harness H;

#define SLOT_P2 1
#define SLOT_P3 2
#define SLOT_P4 3
#define SLOT_P5 4

/* UDP over IPv4 (or IPv6) with the given DSCP and ECN, 100 bytes of payload
 * unless `payload` says otherwise. */
static size_t build(__u8 *b, int v6, const char *dst, __u8 dscp, __u8 ecn, size_t payload)
{
	struct xfab_frame f = {.l4 = {.proto = IPPROTO_UDP, .sport = 0x1300, .dport = 0x88},
			       .payload_len = payload};
	long len;

	memcpy(f.dmac, H.mac[0], 6);
	memcpy(f.smac, "\x02\xaa\x00\x00\x00\x01", 6);
	assert_int_equal(xfab_frame_addrs(&f, v6 ? "fd01::2" : "10.0.1.2", dst), 0);
	f.ip4.tos = f.ip6.tclass = (__u8)(dscp << 2 | ecn);
	f.ip4.ttl = f.ip6.hop_limit = 64;
	len = xfab_frame_build(&f, b, 14 + (v6 ? 40 : 20) + 8 + payload, NULL);
	assert_true(len > 0);
	return (size_t)len;
}

static void set_queue(__u32 slot, __u32 tc, __u64 backlog, __u64 last_ns)
{
	assert_int_equal(h_set_queue(&H, slot, tc, backlog, last_ns), 0);
}

struct outcome {
	int forwarded;
	__u8 ecn;
	__u8 out[256];
	size_t len;
};

static void send_pkt(int tc_hook, int in_port, const __u8 *frame, size_t len, struct outcome *o)
{
	__u32 ret;

	o->len = sizeof(o->out);
	assert_int_equal(h_run(&H, tc_hook, in_port, frame, len, o->out, &o->len, &ret), 0);
	o->forwarded = ret == 4; /* XDP_REDIRECT */
	o->ecn = o->out[12] == 0x86 ? (o->out[15] >> 4) & 3 : o->out[15] & 3;
}

/* The occupancy the last packet of queue (slot, tc) saw, as the data plane
 * recorded it. */
static __u64 seen_occupancy(__u32 slot, __u32 tc)
{
	__u32 key = XFAB_QUEUE_KEY(slot, tc);
	struct xfab_queue_watermark wm;

	assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_QUEUE_WATERMARK), &key, &wm), 0);
	return wm.current_bytes;
}

/* The ECN profile: no marks below Kmin 10000, every packet at or above Kmax
 * 50000, linear from 0 to Pmax 20% in between. */
static double ecn_curve(__u64 q)
{
	return q < 10000 ? 0 : q >= 50000 ? 1 : 0.2 * (double)(q - 10000) / 40000;
}

/*
 * The marked fraction at fixed occupancies follows the curve. The phantom
 * queue drains between setting it and the packet (1 Mbit/s: a byte per
 * 8 us), so each packet's expectation comes from the occupancy it saw (the
 * watermark the data plane wrote): where the curve is 0 or 1 every single
 * packet must obey it; in between, the count of marks lies within the
 * Bernstein tolerance (stats.h) around the sum of the probabilities, per
 * point and over all points together.
 */
static void test_curve(void **state)
{
	static const __u64 occ[] = {0,	   5000,  9999,	 10000, 10125, 20000, 30000,
				    40000, 49000, 50000, 50125, 60000, 80000};
	const int points = sizeof(occ) / sizeof(occ[0]);
	double all_mu = 0, all_var = 0;
	int all_marked = 0;
	__u8 frame[256];
	size_t len = build(frame, 0, "10.9.0.7", 0, 2 /* ECT(0) */, 100);

	(void)state;
	for (int i = 0; i < points; i++) {
		double mu = 0, var = 0, tol;
		/* where the curve is 0 or 1 each packet is checked alone */
		int marked = 0, n = occ[i] > 10000 && occ[i] < 50000 ? 10000 : 2000;

		for (int k = 0; k < n; k++) {
			struct outcome o;
			double p;

			set_queue(SLOT_P2, 1, occ[i], xfab_mono_ns());
			send_pkt(0, 0, frame, len, &o);
			assert_true(o.forwarded);
			p = ecn_curve(seen_occupancy(SLOT_P2, 1));
			assert_true(seen_occupancy(SLOT_P2, 1) <= occ[i] + 1); /* it only drains */
			if ((p == 0 && o.ecn == 3) || (p == 1 && o.ecn != 3))
				fail_msg("occupancy %llu: ECN %u, the curve says %s",
					 (unsigned long long)seen_occupancy(SLOT_P2, 1), o.ecn,
					 p == 0 ? "never" : "always");
			marked += o.ecn == 3;
			mu += p;
			var += p * (1 - p);
			if (o.ecn == 3) /* the IPv4 checksum still verifies */
				assert_int_equal(xfab_csum16(o.out + 14, 20), 0);
		}
		tol = bernstein_tol(var, XFAB_TEST_DELTA / (points + 1));
		print_message("    occupancy %6llu B: marked %5d of %d, curve %8.1f +- %.0f\n",
			      (unsigned long long)occ[i], marked, n, mu, tol);
		assert_true(fabs(marked - mu) <= tol);
		all_marked += marked;
		all_mu += mu;
		all_var += var;
	}
	assert_true(fabs(all_marked - all_mu) <=
		    bernstein_tol(all_var, XFAB_TEST_DELTA / (points + 1)));
}

/* Above Kmax: ECT(0)/ECT(1) become CE, CE stays, Not-ECT is untouched
 * (ECN profile) or dropped (RED profile). */
static void test_which_packets(void **state)
{
	static const struct {
		__u8 dscp, ecn, want_ecn;
		int forwarded;
	} cases[] = {
	    {0, 2, 3, 1}, /* ECT(0) -> CE */
	    {0, 1, 3, 1}, /* ECT(1) -> CE */
	    {0, 3, 3, 1}, /* CE stays */
	    {0, 0, 0, 1}, /* Not-ECT, ECN-only profile: untouched */
	    {5, 2, 3, 1}, /* RED profile still marks ECT */
	    {5, 0, 0, 0}, /* RED profile drops Not-ECT */
	};
	__u64 wred0 = h_percpu_u64(&H, XFAB_MAP_DROP_STATS, XFAB_DROP_WRED, 0, 2);

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		__u8 frame[256];
		size_t len = build(frame, 0, "10.9.0.7", cases[i].dscp, cases[i].ecn, 100);
		struct outcome o;

		set_queue(SLOT_P2, cases[i].dscp == 5 ? 2 : 1, 60000, xfab_mono_ns());
		send_pkt(0, 0, frame, len, &o);
		assert_int_equal(o.forwarded, cases[i].forwarded);
		if (o.forwarded) {
			assert_int_equal(o.ecn, cases[i].want_ecn);
			assert_int_equal(o.out[14 + 1] >> 2, cases[i].dscp); /* DSCP kept */
			assert_int_equal(xfab_csum16(o.out + 14, 20), 0);
		}
	}
	assert_int_equal(h_percpu_u64(&H, XFAB_MAP_DROP_STATS, XFAB_DROP_WRED, 0, 2) - wred0, 1);
}

static void test_ipv6(void **state)
{
	__u8 frame[256];
	size_t len = build(frame, 1, "fd09::7", 0, 2, 100);
	struct outcome o;

	(void)state;
	frame[15] |= 0x01; /* flow label 0x12345 */
	frame[16] = 0x23;
	frame[17] = 0x45;
	set_queue(SLOT_P2, 1, 60000, xfab_mono_ns());
	send_pkt(0, 0, frame, len, &o);
	assert_true(o.forwarded);
	assert_int_equal(o.ecn, 3);
	assert_int_equal(((o.out[14] & 0x0f) << 2) | (o.out[15] >> 6), 0); /* DSCP 0 kept */
	/* version, traffic class and flow label as they must be: only the ECN
	 * bits changed (ECT(0) -> CE), the flow label (0x12345) intact */
	assert_int_equal(o.out[14], 0x60);
	assert_int_equal(o.out[15], 0x31);
	assert_int_equal(o.out[16], 0x23);
	assert_int_equal(o.out[17], 0x45);
	set_queue(SLOT_P2, 1, 0, xfab_mono_ns());
	send_pkt(0, 0, frame, len, &o);
	assert_int_equal(o.ecn, 2);
}

/* Above the buffer: tail drop, counted. */
static void test_tail_drop(void **state)
{
	__u8 frame[256];
	size_t len = build(frame, 0, "10.9.0.7", 0, 2, 100);
	__u64 full0 = h_percpu_u64(&H, XFAB_MAP_DROP_STATS, XFAB_DROP_BUFFER_FULL, 0, 2);
	struct outcome o;

	(void)state;
	set_queue(SLOT_P2, 1, 1000000 - 50, xfab_mono_ns());
	send_pkt(0, 0, frame, len, &o);
	assert_false(o.forwarded);
	assert_int_equal(h_percpu_u64(&H, XFAB_MAP_DROP_STATS, XFAB_DROP_BUFFER_FULL, 0, 2) - full0,
			 1);
}

/* The phantom queue drains at the port rate: 100 KB at 1 Gbit/s is gone
 * after 2 ms, so a packet then sees an empty queue. */
static void test_drain(void **state)
{
	__u8 frame[256];
	size_t len = build(frame, 0, "10.8.0.7", 0, 2, 100);
	struct outcome o;

	(void)state;
	set_queue(SLOT_P3, 1, 100000, xfab_mono_ns());
	send_pkt(0, 0, frame, len, &o);
	assert_int_equal(o.ecn, 3); /* just now: above Kmax */
	set_queue(SLOT_P3, 1, 100000, xfab_mono_ns() - 2000000);
	send_pkt(0, 0, frame, len, &o);
	assert_int_equal(o.ecn, 2); /* drained */
}

/* A packet joins the queue for its transmission time at the port rate: at
 * 1 Mbit/s a byte takes 8 us, so the packet right behind a first one into
 * an empty queue sees the first one's bytes, less the few that drained in
 * between (a test run takes microseconds). */
static void test_join(void **state)
{
	__u8 frame[256];
	size_t len = build(frame, 0, "10.9.0.7", 0, 2, 150);
	struct outcome o;
	__u64 seen;

	(void)state;
	set_queue(SLOT_P2, 1, 0, xfab_mono_ns());
	send_pkt(0, 0, frame, len, &o);
	assert_int_equal(seen_occupancy(SLOT_P2, 1), 0);
	send_pkt(0, 0, frame, len, &o);
	seen = seen_occupancy(SLOT_P2, 1);
	if (seen > len || seen + 25 < len) /* 25 B: 200 us between the two */
		fail_msg("the second packet saw %llu B; the first was %zu B",
			 (unsigned long long)seen, len);
}

/* Counters and watermarks follow the packets; clearing is a map write. */
static void test_counters(void **state)
{
	__u32 key = XFAB_QUEUE_KEY(SLOT_P2, 1);
	struct xfab_queue_watermark wm;
	__u8 frame[256];
	size_t len = build(frame, 0, "10.9.0.7", 0, 2, 100);
	__u64 marked0 = h_percpu_u64(&H, XFAB_MAP_QUEUE_STATS, key, 2, 4);
	__u64 pkts0 = h_percpu_u64(&H, XFAB_MAP_QUEUE_STATS, key, 0, 4);
	struct outcome o;

	(void)state;
	for (int i = 0; i < 10; i++) {
		set_queue(SLOT_P2, 1, i < 4 ? 70000 : 0, xfab_mono_ns());
		send_pkt(0, 0, frame, len, &o);
	}
	assert_int_equal(h_percpu_u64(&H, XFAB_MAP_QUEUE_STATS, key, 2, 4) - marked0, 4);
	assert_int_equal(h_percpu_u64(&H, XFAB_MAP_QUEUE_STATS, key, 0, 4) - pkts0, 10);
	assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_QUEUE_WATERMARK), &key, &wm), 0);
	assert_true(wm.peak_bytes >= 70000);
	assert_int_equal(wm.current_bytes, 0);
}

/* tc datapath: the egress program classifies, reads the real qdisc's
 * backlog (CO-RE) and tail-drops what would not fit the port's buffer. */
static void test_tc_egress(void **state)
{
	__u32 key = XFAB_QUEUE_KEY(SLOT_P4, 1), ret;
	__u8 frame[2048], out[2048];
	size_t small = build(frame, 0, "10.0.4.1", 0, 2, 100), out_len = sizeof(out);
	__u64 pkts0 = h_percpu_u64(&H, XFAB_MAP_QUEUE_STATS, key, 0, 4);
	__u64 drop0 = h_percpu_u64(&H, XFAB_MAP_QUEUE_STATS, key, 3, 4);
	struct __sk_buff ctx = {.ifindex = H.ifindex[3]};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = (__u32)small,
		    .data_out = out, .data_size_out = sizeof(out), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = 1);
	int prog = bpf_program__fd(H.skel->progs.xfab_tc_egress);

	(void)state;
	(void)out_len;
	assert_int_equal(bpf_prog_test_run_opts(prog, &opts), 0);
	assert_int_equal(opts.retval, 0);				    /* TC_ACT_OK */
	opts.data_size_in = (__u32)build(frame, 0, "10.0.4.1", 0, 2, 1500); /* > 1500 B buffer */
	opts.data_size_out = sizeof(out);
	assert_int_equal(bpf_prog_test_run_opts(prog, &opts), 0);
	assert_int_equal(opts.retval, 2); /* TC_ACT_SHOT */
	ret = (__u32)(h_percpu_u64(&H, XFAB_MAP_QUEUE_STATS, key, 0, 4) - pkts0);
	assert_int_equal(ret, 1);
	assert_int_equal(h_percpu_u64(&H, XFAB_MAP_QUEUE_STATS, key, 3, 4) - drop0, 1);
}

/* ---- tc egress against a real queue ---- */

static int sh(const char *cmd)
{
	int rc = system(cmd);

	if (rc)
		print_message("    `%s` failed (%d)\n", cmd, rc);
	return rc;
}

/* The backlog of p5's root qdisc in bytes, as tc reports it. */
static __u64 tc_backlog(void)
{
	char line[512];
	unsigned long long b = ~0ULL;
	FILE *p = popen("tc -s qdisc show dev p5", "r");

	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		if (b == ~0ULL && sscanf(line, " backlog %llub", &b) == 1)
			break;
	pclose(p);
	assert_true(b != ~0ULL);
	return b;
}

/* Runs n ECT(0) packets to p5's neighbour through the tc egress program of
 * p5 (whose root qdisc holds a real backlog); returns how many left CE. */
static int egress_marks(int n)
{
	__u8 frame[256], out[256];
	size_t len = build(frame, 0, "10.0.5.1", 0, 2, 100);
	struct __sk_buff ctx = {.ifindex = H.ifindex[4]};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = (__u32)len,
		    .data_out = out, .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = 1);
	int prog = bpf_program__fd(H.skel->progs.xfab_tc_egress), marks = 0;

	for (int i = 0; i < n; i++) {
		opts.data_size_out = sizeof(out);
		assert_int_equal(bpf_prog_test_run_opts(prog, &opts), 0);
		assert_int_equal(opts.retval, 0);  /* TC_ACT_OK: queued, not dropped */
		assert_int_equal(out[15] >> 2, 0); /* DSCP kept */
		if ((out[15] & 3) == 3) {
			marks++;
			assert_int_equal(xfab_csum16(out + 14, 20), 0);
		} else {
			assert_int_equal(out[15] & 3, 2);
		}
	}
	return marks;
}

/* n frames of len bytes into p5's qdisc, from a packet socket. */
static void fill_queue(int n, size_t len)
{
	struct sockaddr_ll sll = {.sll_family = AF_PACKET,
				  .sll_ifindex = (int)H.ifindex[4],
				  .sll_halen = 6,
				  .sll_addr = {0x02, 0, 0, 0, 0x05, 0x01}};
	__u8 frame[2048] = {0x02, 0, 0, 0, 0x05, 0x01};
	int fd = socket(AF_PACKET, SOCK_RAW, 0);

	assert_true(fd >= 0);
	memcpy(frame + 6, H.mac[4], 6);
	frame[12] = 0x88; /* local experimental ethertype: nobody's protocol */
	frame[13] = 0xb5;
	for (int i = 0; i < n; i++)
		assert_int_equal(sendto(fd, frame, len, 0, (struct sockaddr *)&sll, sizeof(sll)),
				 (ssize_t)len);
	close(fd);
}

/*
 * The tc datapath marks against the egress device's real qdisc: an HTB
 * root on p5 whose class sends 100 bit/s, filled from a packet socket so
 * its backlog (read back with tc) holds still for the test. Empty queue:
 * no marks. Backlog above Kmax: every packet marked, and the occupancy the
 * program recorded is the backlog tc reports. Then the thresholds move
 * around the real backlog B: Kmax = B marks all, Kmax = B + 1 (no ramp)
 * none, Kmin = B + 1 none, and Kmin < B < Kmax with Pmax 100% marks half
 * within the binomial tolerance.
 */
static void test_tc_egress_real_queue(void **state)
{
	__u32 key = 0, tc;
	__u64 b;
	int marks;

	(void)state;
	assert_int_equal(sh("echo 1 > /proc/sys/net/ipv6/conf/p5/disable_ipv6"), 0);
	assert_int_equal(sh("tc qdisc replace dev p5 root handle 1: htb default 1 && "
			    "tc class add dev p5 parent 1: classid 1:1 htb rate 100bit ceil 100bit "
			    "burst 1600b cburst 1600b quantum 1514"),
			 0);
	/* the class of DSCP 0: its queue's watermark tells the occupancy seen */
	assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_DSCP_TO_TC), &key, &tc), 0);

	assert_int_equal(tc_backlog(), 0);
	marks = egress_marks(200);
	print_message("    empty queue: %d of 200 marked\n", marks);
	assert_int_equal(marks, 0);
	assert_int_equal(seen_occupancy(SLOT_P5, tc), 0);

	fill_queue(13, 1000);
	usleep(20000);
	b = tc_backlog();
	assert_true(b >= 10000); /* two frames leave on the class's burst */
	marks = egress_marks(200);
	print_message("    backlog %llu B (Kmax 6000): %d of 200 marked\n", (unsigned long long)b,
		      marks);
	assert_int_equal(marks, 200);
	assert_int_equal(seen_occupancy(SLOT_P5, tc), b);

	assert_int_equal(h_reapply(&H, qos_config((unsigned)b - 1000, (unsigned)b, 0)), 0);
	assert_int_equal(egress_marks(200), 200);
	assert_int_equal(h_reapply(&H, qos_config((unsigned)b - 1000, (unsigned)b + 1, 0)), 0);
	assert_int_equal(egress_marks(200), 0);
	assert_int_equal(h_reapply(&H, qos_config((unsigned)b + 1, (unsigned)b + 1000, 100)), 0);
	assert_int_equal(egress_marks(200), 0);
	assert_int_equal(h_reapply(&H, qos_config((unsigned)b - 1000, (unsigned)b + 1000, 100)), 0);
	marks = egress_marks(1000);
	print_message("    Kmin = B - 1000, Kmax = B + 1000, Pmax 100%%: %d of 1000 marked\n",
		      marks);
	assert_true(binom_ok(marks, 1000, 0.5, 1));
	/* the queue held still throughout, so every verdict above saw B */
	assert_int_equal(tc_backlog(), b);

	assert_int_equal(sh("tc qdisc del dev p5 root"), 0);
	assert_int_equal(h_reapply(&H, qos_config(3000, 6000, 100)), 0);
}

H_GROUP_FIXTURES(H, 5, qos_config(3000, 6000, 100))

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_curve),
	    cmocka_unit_test(test_which_packets),
	    cmocka_unit_test(test_ipv6),
	    cmocka_unit_test(test_tail_drop),
	    cmocka_unit_test(test_drain),
	    cmocka_unit_test(test_join),
	    cmocka_unit_test(test_counters),
	    cmocka_unit_test(test_tc_egress),
	    cmocka_unit_test(test_tc_egress_real_queue),
	};
	return cmocka_run_group_tests_name("bpf_qos", tests, setup, teardown);
}
