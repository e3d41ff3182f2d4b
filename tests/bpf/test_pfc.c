// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * PFC data plane tests (bpf/pfc.h) through the loaded programs.
 *
 * Receive: PFC and PAUSE frames run through both datapaths (xfab_xdp and
 * xfab_tc, BPF_PROG_TEST_RUN); each priority's counters, pause deadline and
 * the ringbuf event are checked against an oracle written here from the
 * frame format (802.1Qbb: vector bit n = priority n, 8 times in quanta of
 * 512 bit times; 802.3x: one time for all), not from the code.
 *
 * Generate: the tc egress program charges lossless packets to their
 * ingress PG, tags them and reports XOFF; the watchdog's drop action.
 * Live (real veths, an HTB queue): the dequeue program gives the bytes back
 * as packets leave, reports XON, credits only this switch's devices, and
 * skb->mark's fate across veth (same namespace: kept; another: cleared).
 * The xdp datapath hands lossless packets to tc (XDP metadata marker).
 *
 * pfc_cfg entries are written here directly (the config tables are not
 * this suite's subject).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <linux/in.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "frame.h"
#include "harness.h"

#define TCX_INGRESS 46 /* enum bpf_attach_type; Debian's UAPI headers predate tcx */
#define TCX_EGRESS 47

/* p1: lossless ingress. p2: egress (test runs). p3: PAUSE/odd-speed port.
 * p4: live egress, peer in this namespace. p5: live egress, peer in a
 * namespace of its own. */
#define CONFIG                                                                                     \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"hostname\": \"pfc-test\"}},\n"                   \
	" \"PORT\": {\"p1\": {}, \"p2\": {}, \"p3\": {}, \"p4\": {}, \"p5\": {}},\n"               \
	" \"INTERFACE\": {\"p1|10.0.1.1/24\": {}, \"p2|10.0.2.0/31\": {}, \"p3|10.0.3.0/31\": "    \
	"{},\n"                                                                                    \
	"   \"p4|10.0.4.0/31\": {}, \"p5|10.0.5.0/31\": {}},\n"                                    \
	" \"NEIGH\": {\"p2|10.0.2.1\": {\"neigh\": \"02:00:00:00:02:01\"},\n"                      \
	"   \"p4|10.0.4.1\": {\"neigh\": \"02:00:00:00:04:01\"},\n"                                \
	"   \"p5|10.0.5.1\": {\"neigh\": \"02:00:00:00:05:01\"}}\n"                                \
	"}\n"

#define SLOT_P1 0
#define SLOT_P2 1
#define SLOT_P3 2
#define SLOT_P4 3
#define SLOT_P5 4

#define XDP_DROP_RC 1
#define XDP_PASS_RC 2
#define XDP_REDIRECT_RC 4
#define TC_OK_RC 0
#define TC_SHOT_RC 2

static struct harness H;
static struct ring_buffer *RB;

/* ---- events ---- */

#define MAX_EVENTS 64
static struct xfab_pfc_event EV[MAX_EVENTS];
static int N_EV;

static int on_event(void *ctx, void *data, size_t len)
{
	(void)ctx;
	assert_int_equal(len, sizeof(struct xfab_pfc_event));
	if (N_EV < MAX_EVENTS)
		memcpy(&EV[N_EV], data, sizeof(EV[0]));
	N_EV++;
	return 0;
}

/* The events since the last call. */
static int events(void)
{
	N_EV = 0;
	assert_true(ring_buffer__consume(RB) >= 0);
	return N_EV;
}

/* ---- tables ---- */

static void set_pfc(__u32 slot, __u8 enabled, __u8 wd_ignore, __u8 wd_drop, __u32 speed, __u32 xoff,
		    __u32 xon)
{
	struct xfab_pfc_cfg c = {
	    .enabled = enabled, .wd_ignore = wd_ignore, .wd_drop = wd_drop, .speed_mbps = speed};

	for (int p = 0; p < 8; p++) {
		c.xoff_bytes[p] = xoff;
		c.xon_bytes[p] = xon;
	}
	assert_int_equal(bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_PFC_CFG), &slot, &c, BPF_ANY),
			 0);
}

static struct xfab_pfc_state get_state(__u32 slot, __u32 prio)
{
	__u32 key = XFAB_QUEUE_KEY(slot, prio);
	struct xfab_pfc_state st;

	assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_PFC_STATE), &key, &st), 0);
	return st;
}

static void put_state(__u32 slot, __u32 prio, const struct xfab_pfc_state *st)
{
	__u32 key = XFAB_QUEUE_KEY(slot, prio);

	assert_int_equal(bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_PFC_STATE), &key, st, BPF_ANY),
			 0);
}

static void clear_states(__u32 slot)
{
	struct xfab_pfc_state z = {0};

	for (int p = 0; p < 8; p++)
		put_state(slot, p, &z);
}

/* Every drop the data plane counted, all reasons together. */
static __u64 all_drops(void)
{
	__u64 n = 0;

	for (__u32 r = 0; r < XFAB_DROP_MAX; r++)
		n += h_percpu_u64(&H, XFAB_MAP_DROP_STATS, r, 0, 2);
	return n;
}

static __u64 drops(__u32 reason)
{
	return h_percpu_u64(&H, XFAB_MAP_DROP_STATS, reason, 0, 2);
}

static __u64 port_stat(__u32 slot, size_t field)
{
	return h_percpu_u64(&H, XFAB_MAP_PORT_STATS, slot, field, 6);
}

/* ---- frames ---- */

static const __u8 PFC_DST[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
static const __u8 PEER_MAC[6] = {0x02, 0xaa, 0x00, 0x00, 0x00, 0x01};

/* A MAC control frame as on the wire: dst, src, 0x8808, opcode, then
 * `body` (n_body 16-bit words, big-endian). Unpadded. */
static size_t mac_control(__u8 *b, const __u8 *dst, __u16 opcode, const __u16 *body, int n_body)
{
	size_t len = 0;

	memcpy(b, dst, 6);
	memcpy(b + 6, PEER_MAC, 6);
	b[12] = 0x88;
	b[13] = 0x08;
	b[14] = (__u8)(opcode >> 8);
	b[15] = (__u8)opcode;
	len = 16;
	for (int i = 0; i < n_body; i++) {
		b[len++] = (__u8)(body[i] >> 8);
		b[len++] = (__u8)body[i];
	}
	return len;
}

/* PFC: the vector then n_times of the 8 times. */
static size_t pfc_frame(__u8 *b, __u16 vector, const __u16 *times, int n_times)
{
	__u16 body[9] = {vector};

	for (int i = 0; i < n_times; i++)
		body[1 + i] = times[i];
	return mac_control(b, PFC_DST, 0x0101, body, 1 + n_times);
}

static __u32 run(int tc, int port, const __u8 *frame, size_t len)
{
	__u8 out[2048];
	size_t out_len = sizeof(out);
	__u32 ret;

	assert_int_equal(h_run(&H, tc, port, frame, len, out, &out_len, &ret), 0);
	return ret;
}

/* One quantum is 512 bit times: quanta * 512 bits / (speed Mbit/s) in ns. */
static __u64 oracle_ns(__u32 quanta, __u32 speed_mbps)
{
	return (__u64)quanta * 512 * 1000 / speed_mbps;
}

/*
 * Runs a pause frame into port `port` (slot) whose PFC settings are
 * enabled/ignored at speed, and checks every priority against what the
 * frame says: named (vector bit, or every priority for PAUSE), its time
 * (missing: 0), counted in rx_frames / rx_xon / rx_ignored, the deadline
 * now + time (or 0) on the live ones and untouched on the rest; one RX
 * event naming exactly the priorities whose pause changed, with the
 * longest time; consumed (dropped, never forwarded), no drop counted.
 */
static void check_pause(int tc, int port, __u32 slot, int pause_8023x, __u16 vector,
			const __u16 *times, int n_times, __u8 enabled, __u8 ignored, __u32 speed)
{
	struct xfab_pfc_state before[8], after[8];
	__u8 frame[128];
	size_t len;
	__u64 t0, t1, drops0 = all_drops(), pdrops0 = port_stat(slot, 4), rx0 = port_stat(slot, 0),
		      tx0 = 0, longest = 0;
	__u32 ret, mask = 0;

	for (__u32 s = 0; s < 5; s++)
		tx0 += port_stat(s, 2);
	if (pause_8023x) {
		__u16 body[1] = {n_times ? times[0] : 0};

		len = mac_control(frame, PFC_DST, 0x0001, body, n_times ? 1 : 0);
	} else {
		len = pfc_frame(frame, vector, times, n_times);
	}
	for (int p = 0; p < 8; p++)
		before[p] = get_state(slot, p);
	events();
	t0 = xfab_mono_ns();
	ret = run(tc, port, frame, len);
	t1 = xfab_mono_ns();
	assert_int_equal(ret, tc ? TC_SHOT_RC : XDP_DROP_RC);
	for (int p = 0; p < 8; p++) {
		int named = pause_8023x || ((vector >> p) & 1);
		__u16 q = pause_8023x ? (n_times ? times[0] : 0) : (p < n_times ? times[p] : 0);
		int live = ((enabled & ~ignored) >> p) & 1;

		after[p] = get_state(slot, p);
		assert_int_equal(after[p].rx_frames - before[p].rx_frames, named);
		assert_int_equal(after[p].rx_xon - before[p].rx_xon, named && !q);
		assert_int_equal(after[p].rx_ignored - before[p].rx_ignored, named && !live);
		if (!named || !live) {
			assert_int_equal(after[p].paused_until_ns, before[p].paused_until_ns);
			continue;
		}
		if (!q) {
			assert_int_equal(after[p].paused_until_ns, 0);
		} else {
			__u64 d = oracle_ns(q, speed);

			if (after[p].paused_until_ns < t0 + d || after[p].paused_until_ns > t1 + d)
				fail_msg("prio %d: paused until %llu, want %llu + [%llu, %llu]", p,
					 (unsigned long long)after[p].paused_until_ns,
					 (unsigned long long)d, (unsigned long long)t0,
					 (unsigned long long)t1);
			if (d > longest)
				longest = d;
		}
		if (after[p].paused_until_ns != before[p].paused_until_ns)
			mask |= 1u << p;
		/* nothing else moves */
		assert_int_equal(after[p].occupancy_bytes, before[p].occupancy_bytes);
	}
	if (mask) {
		assert_int_equal(events(), 1);
		assert_int_equal(EV[0].kind, XFAB_PFC_EV_RX);
		assert_int_equal(EV[0].prio_mask, mask);
		assert_int_equal(EV[0].slot, slot);
		assert_int_equal(EV[0].ifindex, H.ifindex[port]);
		assert_int_equal(EV[0].time_ns, longest);
		assert_true(EV[0].now_ns >= t0 && EV[0].now_ns <= t1);
	} else {
		assert_int_equal(events(), 0);
	}
	/* consumed: received, not a drop, not forwarded */
	assert_int_equal(all_drops(), drops0);
	assert_int_equal(port_stat(slot, 4), pdrops0);
	assert_int_equal(port_stat(slot, 0) - rx0, 1);
	for (__u32 s = 0; s < 5; s++)
		tx0 -= port_stat(s, 2);
	assert_int_equal(tx0, 0);
}

static const __u16 T8[8] = {1000, 2000, 3000, 4000, 5000, 6000, 7000, 65535};

/* Vectors: one priority, two, all, none, and bits above 7 (reserved). */
static void test_vectors(void **state)
{
	static const __u16 vectors[] = {0x08, 0x18, 0xff, 0x00, 0xff08, 0x0100};

	(void)state;
	for (int tc = 0; tc < 2; tc++)
		for (size_t v = 0; v < sizeof(vectors) / sizeof(vectors[0]); v++) {
			set_pfc(SLOT_P1, 0x18, 0, 0, 1000, 0, 0);
			clear_states(SLOT_P1);
			check_pause(tc, 0, SLOT_P1, 0, vectors[v], T8, 8, 0x18, 0, 1000);
		}
}

/* The deadline against hand-computed figures: 65535 quanta at 40 Gbit/s
 * are 838848 ns (33553920000 bit-ns / 40000), one quantum at 1 Gbit/s
 * 512 ns, 3 quanta at 100 Gbit/s 15 ns (15.36, truncated). */
static void test_deadline_oracle(void **state)
{
	static const struct {
		__u32 speed;
		__u16 quanta;
		__u64 ns;
	} cases[] = {{40000, 65535, 838848}, {1000, 1, 512}, {100000, 3, 15}, {10000, 100, 5120}};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		__u16 times[8] = {0, 0, 0, cases[i].quanta};
		__u8 frame[64];
		size_t len = pfc_frame(frame, 0x08, times, 8);
		struct xfab_pfc_state st;
		__u64 t0, t1;

		set_pfc(SLOT_P3, 0x08, 0, 0, cases[i].speed, 0, 0);
		clear_states(SLOT_P3);
		events();
		t0 = xfab_mono_ns();
		assert_int_equal(run(i & 1, 2, frame, len), (i & 1) ? TC_SHOT_RC : XDP_DROP_RC);
		t1 = xfab_mono_ns();
		st = get_state(SLOT_P3, 3);
		assert_true(st.paused_until_ns >= t0 + cases[i].ns);
		assert_true(st.paused_until_ns <= t1 + cases[i].ns);
		assert_int_equal(events(), 1);
		assert_int_equal(EV[0].time_ns, cases[i].ns);
		assert_int_equal(EV[0].prio_mask, 0x08);
	}
}

/* Short, unpadded frames: sonic-mgmt's generator sends 7 times (the 8th
 * reads 0: XON), a bare vector names its priorities with time 0. */
static void test_short_frames(void **state)
{
	(void)state;
	for (int tc = 0; tc < 2; tc++) {
		set_pfc(SLOT_P1, 0xff, 0, 0, 1000, 0, 0);
		clear_states(SLOT_P1);
		/* prio 7 paused first, so the short frame's XON for it shows */
		check_pause(tc, 0, SLOT_P1, 0, 0xff, T8, 8, 0xff, 0, 1000);
		check_pause(tc, 0, SLOT_P1, 0, 0xff, T8, 7, 0xff, 0, 1000);
		assert_int_equal(get_state(SLOT_P1, 7).paused_until_ns, 0);
		assert_true(get_state(SLOT_P1, 6).paused_until_ns != 0);
		check_pause(tc, 0, SLOT_P1, 0, 0x18, T8, 3, 0xff, 0, 1000);
		check_pause(tc, 0, SLOT_P1, 0, 0xff, T8, 0, 0xff, 0, 1000);
		for (int p = 0; p < 8; p++)
			assert_int_equal(get_state(SLOT_P1, p).paused_until_ns, 0);
	}
}

/* 802.3x PAUSE: one time for every priority; the enabled ones pause. */
static void test_pause_8023x(void **state)
{
	static const __u16 t[1] = {300};

	(void)state;
	for (int tc = 0; tc < 2; tc++) {
		set_pfc(SLOT_P3, 0x18, 0, 0, 10000, 0, 0);
		clear_states(SLOT_P3);
		check_pause(tc, 2, SLOT_P3, 1, 0, t, 1, 0x18, 0, 10000);
		assert_true(get_state(SLOT_P3, 3).paused_until_ns != 0);
		assert_true(get_state(SLOT_P3, 4).paused_until_ns != 0);
		assert_int_equal(get_state(SLOT_P3, 4).rx_ignored, 0);
		assert_int_equal(get_state(SLOT_P3, 0).rx_ignored, 1);
		/* a PAUSE without its time: XON for all */
		check_pause(tc, 2, SLOT_P3, 1, 0, t, 0, 0x18, 0, 10000);
		assert_int_equal(get_state(SLOT_P3, 3).paused_until_ns, 0);
	}
}

/* A new XOFF moves the deadline either way; XON clears it. */
static void test_extend_shorten_xon(void **state)
{
	__u16 t[8] = {0};

	(void)state;
	for (int tc = 0; tc < 2; tc++) {
		set_pfc(SLOT_P1, 0x08, 0, 0, 1000, 0, 0);
		clear_states(SLOT_P1);
		t[3] = 10000;
		check_pause(tc, 0, SLOT_P1, 0, 0x08, t, 8, 0x08, 0, 1000);
		t[3] = 10; /* shorter */
		check_pause(tc, 0, SLOT_P1, 0, 0x08, t, 8, 0x08, 0, 1000);
		t[3] = 60000; /* longer */
		check_pause(tc, 0, SLOT_P1, 0, 0x08, t, 8, 0x08, 0, 1000);
		t[3] = 0; /* XON */
		check_pause(tc, 0, SLOT_P1, 0, 0x08, t, 8, 0x08, 0, 1000);
		assert_int_equal(get_state(SLOT_P1, 3).paused_until_ns, 0);
		assert_int_equal(get_state(SLOT_P1, 3).rx_xon, 1);
		/* XON again: nothing changes, no event (check_pause) */
		check_pause(tc, 0, SLOT_P1, 0, 0x08, t, 8, 0x08, 0, 1000);
	}
}

/* Not enabled, or ignored by the watchdog (drop/forward): counted, ignored. */
static void test_ignored(void **state)
{
	(void)state;
	for (int tc = 0; tc < 2; tc++) {
		set_pfc(SLOT_P1, 0x00, 0, 0, 1000, 0, 0);
		clear_states(SLOT_P1);
		check_pause(tc, 0, SLOT_P1, 0, 0xff, T8, 8, 0x00, 0, 1000);
		for (int p = 0; p < 8; p++)
			assert_int_equal(get_state(SLOT_P1, p).rx_ignored, 1);
		set_pfc(SLOT_P1, 0x18, 0x10, 0x10, 1000, 0, 0);
		clear_states(SLOT_P1);
		check_pause(tc, 0, SLOT_P1, 0, 0x18, T8, 8, 0x18, 0x10, 1000);
		assert_int_equal(get_state(SLOT_P1, 4).paused_until_ns, 0);
		assert_true(get_state(SLOT_P1, 3).paused_until_ns != 0);
	}
	set_pfc(SLOT_P1, 0, 0, 0, 1000, 0, 0);
}

/* Bad MAC control frames: a drop with a reason of their own, nothing in
 * pfc_state. The port's own MAC as destination is a pause frame too. */
static void test_bad_frames(void **state)
{
	static const __u16 vec[1] = {0x08};
	static const __u8 OTHER[6] = {0x02, 0x00, 0x00, 0x00, 0x09, 0x09};
	__u8 frame[64];
	size_t len;

	(void)state;
	set_pfc(SLOT_P1, 0x08, 0, 0, 1000, 0, 0);
	for (int tc = 0; tc < 2; tc++) {
		struct {
			size_t len;
			__u32 reason;
		} cases[6];
		int n = 0;
		__u8 frames[6][64];
		__u32 want_rc = tc ? TC_SHOT_RC : XDP_DROP_RC;

		cases[n].len = mac_control(frames[n], PFC_DST, 0x0102, vec, 1); /* bad opcode */
		cases[n++].reason = XFAB_DROP_MAC_CONTROL_BAD_OPCODE;
		cases[n].len = mac_control(frames[n], PFC_DST, 0x0000, vec, 1);
		cases[n++].reason = XFAB_DROP_MAC_CONTROL_BAD_OPCODE;
		cases[n].len = mac_control(frames[n], PFC_DST, 0x0101, vec, 0); /* no vector */
		cases[n++].reason = XFAB_DROP_MAC_CONTROL_TRUNCATED;
		cases[n].len =
		    mac_control(frames[n], PFC_DST, 0x0101, vec, 0) - 1; /* half opcode */
		cases[n++].reason = XFAB_DROP_MAC_CONTROL_TRUNCATED;
		cases[n].len = mac_control(frames[n], PFC_DST, 0x0101, vec, 0) - 2; /* no opcode */
		cases[n++].reason = XFAB_DROP_MAC_CONTROL_TRUNCATED;
		cases[n].len = mac_control(frames[n], OTHER, 0x0101, vec, 1);
		cases[n++].reason = XFAB_DROP_MAC_CONTROL_BAD_DST;
		for (int i = 0; i < n; i++) {
			__u64 r0 = drops(cases[i].reason), pd0 = port_stat(SLOT_P1, 4);

			clear_states(SLOT_P1);
			events();
			assert_int_equal(run(tc, 0, frames[i], cases[i].len), want_rc);
			assert_int_equal(drops(cases[i].reason) - r0, 1);
			assert_int_equal(port_stat(SLOT_P1, 4) - pd0, 1);
			for (int p = 0; p < 8; p++)
				assert_int_equal(get_state(SLOT_P1, p).rx_frames, 0);
			assert_int_equal(events(), 0);
		}
		/* a PAUSE needs only its opcode (its time then reads 0) */
		len = mac_control(frame, PFC_DST, 0x0001, vec, 0);
		clear_states(SLOT_P1);
		assert_int_equal(run(tc, 0, frame, len), want_rc);
		assert_int_equal(get_state(SLOT_P1, 3).rx_xon, 1);
		/* to the port's own MAC: a pause frame */
		len = mac_control(frame, H.mac[0], 0x0101, vec, 1);
		clear_states(SLOT_P1);
		assert_int_equal(run(tc, 0, frame, len), want_rc);
		assert_int_equal(get_state(SLOT_P1, 3).rx_frames, 1);
	}
	set_pfc(SLOT_P1, 0, 0, 0, 1000, 0, 0);
}

/* Many pause frames (sonic-mgmt's test_xon_not_counted sends 1000 XON and
 * 1000 XOFF): no drop counted for any. */
static void test_no_drop_counted(void **state)
{
	__u16 t[8] = {0, 0, 0, 65535, 65535};
	__u8 xoff[64], xon[64];
	size_t lx = pfc_frame(xoff, 0x18, t, 8), ln;
	__u64 d0 = all_drops(), pd0 = port_stat(SLOT_P1, 4);

	(void)state;
	memset(t, 0, sizeof(t));
	ln = pfc_frame(xon, 0x00, t, 8);
	set_pfc(SLOT_P1, 0x18, 0, 0, 1000, 0, 0);
	clear_states(SLOT_P1);
	for (int i = 0; i < 1000; i++) {
		run(i & 1, 0, xoff, lx);
		run(i & 1, 0, xon, ln);
	}
	assert_int_equal(all_drops(), d0);
	assert_int_equal(port_stat(SLOT_P1, 4), pd0);
	assert_int_equal(get_state(SLOT_P1, 3).rx_frames, 1000);
	assert_int_equal(get_state(SLOT_P1, 4).rx_frames, 1000);
	events();
	set_pfc(SLOT_P1, 0, 0, 0, 1000, 0, 0);
}

static int setup(void **state)
{
	(void)state;
	if (h_setup(&H, 5, CONFIG))
		return -1;
	RB = ring_buffer__new(h_map_fd(&H, XFAB_MAP_PFC_EVENTS), on_event, NULL, NULL);
	return RB ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	ring_buffer__free(RB);
	h_teardown(&H);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_vectors),
	    cmocka_unit_test(test_deadline_oracle),
	    cmocka_unit_test(test_short_frames),
	    cmocka_unit_test(test_pause_8023x),
	    cmocka_unit_test(test_extend_shorten_xon),
	    cmocka_unit_test(test_ignored),
	    cmocka_unit_test(test_bad_frames),
	    cmocka_unit_test(test_no_drop_counted),
	};
	return cmocka_run_group_tests_name("bpf_pfc", tests, setup, teardown);
}
