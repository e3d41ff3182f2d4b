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
 * Generate: the tc ingress program charges the lossless packets it
 * forwards to their ingress PG, tags them and reports XOFF; the watchdog's
 * drop action.
 * Live (real veths, an HTB queue): the dequeue program gives the bytes back
 * as packets leave, reports XON, credits only this switch's devices, and
 * skb->mark's fate across veth (same namespace: kept; another: cleared).
 * The xdp datapath hands lossless packets to tc (XDP metadata marker).
 *
 * pfc_cfg entries (and the port's XFAB_PORT_LOSSLESS flag) are written
 * here directly (the config tables are not this suite's subject).
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
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "frame.h"
#include "harness.h"
#include "pfcacct.h"

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
	struct xfab_port port;

	for (int p = 0; p < 8; p++) {
		c.xoff_bytes[p] = xoff;
		c.xon_bytes[p] = xon;
	}
	assert_int_equal(bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_PFC_CFG), &slot, &c, BPF_ANY),
			 0);
	/* and the port's entry says so, as xfabd writes it for pfc_enable */
	assert_int_equal(bpf_map_lookup_elem(H.fd[XFAB_T_PORTS], &H.ifindex[slot], &port), 0);
	assert_int_equal(port.slot, slot);
	port.flags = enabled ? port.flags | XFAB_PORT_LOSSLESS : port.flags & ~XFAB_PORT_LOSSLESS;
	assert_int_equal(bpf_map_update_elem(H.fd[XFAB_T_PORTS], &H.ifindex[slot], &port, BPF_ANY),
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

/* The PG (in, prio)'s bytes at egress port out (pfc_egress). */
static __u64 get_eg(__u32 out, __u32 in, __u32 prio)
{
	__u32 key = XFAB_PFC_EG_KEY(out, in, prio);
	__u64 v;

	assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_PFC_EGRESS), &key, &v), 0);
	return v;
}

static void put_eg(__u32 out, __u32 in, __u32 prio, __u64 v)
{
	__u32 key = XFAB_PFC_EG_KEY(out, in, prio);

	assert_int_equal(bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_PFC_EGRESS), &key, &v, BPF_ANY),
			 0);
}

static void clear_states(__u32 slot)
{
	struct xfab_pfc_state z = {0};

	for (int p = 0; p < 8; p++) {
		put_state(slot, p, &z);
		for (__u32 out = 0; out < 8; out++)
			put_eg(out, slot, (__u32)p, 0);
	}
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

/* ---- generate: tc egress accounting ---- */

static __u8 DSCP_LOSSLESS = 255, DSCP_LOSSY = 255; /* of class 3; of class 1 */

static void find_dscps(void)
{
	for (__u32 d = 0; d < 64; d++) {
		__u32 tc;

		assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_DSCP_TO_TC), &d, &tc),
				 0);
		if (tc == 3 && DSCP_LOSSLESS == 255)
			DSCP_LOSSLESS = (__u8)d;
		if (tc == 1 && DSCP_LOSSY == 255)
			DSCP_LOSSY = (__u8)d;
	}
	assert_true(DSCP_LOSSLESS != 255 && DSCP_LOSSY != 255);
}

/* UDP over IPv4 from a host on port in_port (0: p1) to dst, payload bytes
 * of payload. */
static size_t ip_frame_in(__u8 *b, int in_port, const char *dst, __u8 dscp, size_t payload)
{
	struct xfab_frame f = {.l4 = {.proto = IPPROTO_UDP, .sport = 4000, .dport = 4791},
			       .payload_len = payload};
	long len;

	memcpy(f.dmac, H.mac[in_port], 6);
	memcpy(f.smac, PEER_MAC, 6);
	assert_int_equal(xfab_frame_addrs(&f, "10.0.1.2", dst), 0);
	f.ip4.tos = (__u8)(dscp << 2);
	f.ip4.ttl = 64;
	len = xfab_frame_build(&f, b, 14 + 20 + 8 + payload, NULL);
	assert_true(len > 0);
	return (size_t)len;
}

static size_t ip_frame(__u8 *b, const char *dst, __u8 dscp, size_t payload)
{
	return ip_frame_in(b, 0, dst, dscp, payload);
}

/* A tc program (prog) run on a frame with skb fields ctx (ifindex: the
 * device the program sees, the ingress port or the egress port for
 * xfab_tc_egress; ingress_ifindex: the port it came in on); its verdict,
 * and the fields it left in ctx. */
static __u32 tc_run(struct bpf_program *prog, struct __sk_buff *ctx, const __u8 *frame, size_t len)
{
	__u8 out[2048];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = (__u32)len,
		    .data_out = out, .data_size_out = sizeof(out), .ctx_in = ctx,
		    .ctx_size_in = sizeof(*ctx), .ctx_out = ctx, .ctx_size_out = sizeof(*ctx),
		    .repeat = 1);

	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(prog), &opts), 0);
	return opts.retval;
}

/* xfab_tc on a frame that came in on port in_port; the mark it left. */
static __u32 forward(int in_port, const __u8 *frame, size_t len, __u32 *mark_out)
{
	struct __sk_buff ctx = {.ifindex = H.ifindex[in_port],
				.ingress_ifindex = H.ifindex[in_port]};
	__u32 rc = tc_run(H.skel->progs.xfab_tc, &ctx, frame, len);

	*mark_out = ctx.mark;
	return rc;
}

/* The tc egress program of out_port on a packet that came in on
 * in_ifindex carrying mark. */
static __u32 egress(int out_port, __u32 in_ifindex, __u32 mark, const __u8 *frame, size_t len,
		    __u32 *mark_out)
{
	struct __sk_buff ctx = {
	    .ifindex = H.ifindex[out_port], .ingress_ifindex = in_ifindex, .mark = mark};
	__u32 rc = tc_run(H.skel->progs.xfab_tc_egress, &ctx, frame, len);

	*mark_out = ctx.mark;
	return rc;
}

#define PG_MARK(slot, prio) (XFAB_PFC_MARK | (slot) << 3 | (prio))
#define TC_REDIRECT_RC 7

/* Port out_port's device as the data plane notes it (port_dev): set by a
 * run of its egress program (on), or forgotten (off). */
static void note_device(int out_port, int on)
{
	__u8 frame[2048];
	size_t len = ip_frame(frame, "10.0.2.1", DSCP_LOSSY, 100);
	__u32 key = H.ifindex[out_port], mark;
	__u64 none = 0;

	if (on) {
		assert_int_equal(egress(out_port, H.ifindex[0], 0, frame, len, &mark), TC_OK_RC);
		assert_int_equal(bpf_map_lookup_elem(h_map_fd(&H, XFAB_MAP_PORT_DEV), &key, &none),
				 0);
		assert_true(none != 0);
	} else {
		assert_int_equal(
		    bpf_map_update_elem(h_map_fd(&H, XFAB_MAP_PORT_DEV), &key, &none, BPF_ANY), 0);
	}
}

/* tc datapath: the ingress program charges the lossless packets it
 * forwards to their ingress PG and tags them; XOFF once. */
static void test_forward_accounting(void **state)
{
	__u8 frame[2048], lossy[2048], from3[2048];
	size_t len = ip_frame(frame, "10.0.2.1", DSCP_LOSSLESS, 958), ll, l3;
	struct xfab_pfc_state st;
	__u32 mark;

	(void)state;
	assert_int_equal(len, 1000);
	ll = ip_frame(lossy, "10.0.2.1", DSCP_LOSSY, 958);
	l3 = ip_frame_in(from3, 2, "10.0.2.1", DSCP_LOSSLESS, 958);
	set_pfc(SLOT_P1, 0x08, 0, 0, 1000, 3000, 1000);
	set_pfc(SLOT_P2, 0, 0, 0, 1000, 0, 0);
	set_pfc(SLOT_P3, 0, 0, 0, 1000, 0, 0);
	clear_states(SLOT_P1);
	clear_states(SLOT_P2);
	clear_states(SLOT_P3);
	note_device(1, 1);
	events();
	/* charged to (p1, 3), tagged; the third reaches XOFF: one event. By
	 * the fast path when it is loaded (the pipeline's scratch untouched) */
	for (int k = 1; k <= 4; k++) {
		assert_int_equal(h_scratch_mark(&H), 0);
		assert_int_equal(forward(0, frame, len, &mark), TC_REDIRECT_RC);
		assert_int_equal(h_scratch_marked(&H), h_fast_path(&H));
		assert_int_equal(mark, PG_MARK(SLOT_P1, 3));
		st = get_state(SLOT_P1, 3);
		assert_int_equal(st.occupancy_bytes, 1000 * k);
		/* and its share at the egress port (p2) */
		assert_int_equal(get_eg(SLOT_P2, SLOT_P1, 3), 1000 * k);
		assert_int_equal(st.peak_occupancy_bytes, 1000 * k);
		assert_int_equal(st.rx_packets, k);
		assert_int_equal(st.xoff, k >= 3);
		assert_int_equal(events(), k == 3);
		if (k == 3) {
			assert_int_equal(EV[0].kind, XFAB_PFC_EV_XOFF);
			assert_int_equal(EV[0].slot, SLOT_P1);
			assert_int_equal(EV[0].ifindex, H.ifindex[0]);
			assert_int_equal(EV[0].prio_mask, 0x08);
		}
	}
	/* nothing charged anywhere else */
	for (int p = 0; p < 8; p++) {
		assert_int_equal(get_state(SLOT_P2, p).occupancy_bytes, 0);
		if (p != 3)
			assert_int_equal(get_state(SLOT_P1, p).occupancy_bytes, 0);
	}
	/* a lossy class: not charged, not tagged */
	assert_int_equal(forward(0, lossy, ll, &mark), TC_REDIRECT_RC);
	assert_int_equal(mark, 0);
	/* the egress program leaves a tag (this pass's) and a foreign mark be */
	assert_int_equal(egress(1, H.ifindex[0], PG_MARK(SLOT_P1, 3), frame, len, &mark), TC_OK_RC);
	assert_int_equal(mark, PG_MARK(SLOT_P1, 3));
	assert_int_equal(egress(1, H.ifindex[0], 0x1234, lossy, ll, &mark), TC_OK_RC);
	assert_int_equal(mark, 0x1234);
	/* from another lossless port: its own PG, its slot in the tag */
	set_pfc(SLOT_P3, 0x08, 0, 0, 1000, 0, 0);
	assert_int_equal(forward(2, from3, l3, &mark), TC_REDIRECT_RC);
	assert_int_equal(mark, PG_MARK(SLOT_P3, 3));
	assert_int_equal(get_state(SLOT_P3, 3).occupancy_bytes, l3);
	assert_int_equal(get_eg(SLOT_P2, SLOT_P3, 3), l3);
	assert_int_equal(get_eg(SLOT_P2, SLOT_P1, 3), 4000); /* not p1's */
	set_pfc(SLOT_P3, 0, 0, 0, 1000, 0, 0);
	/* the lossless class from a port where it is not lossless: not charged */
	assert_int_equal(forward(2, from3, l3, &mark), TC_REDIRECT_RC);
	assert_int_equal(mark, 0);
	/* to a device not noted yet, which could not give the bytes back:
	 * forwarded, not charged */
	note_device(1, 0);
	assert_int_equal(forward(0, frame, len, &mark), TC_REDIRECT_RC);
	assert_int_equal(mark, 0);
	note_device(1, 1);
	st = get_state(SLOT_P1, 3);
	assert_int_equal(st.occupancy_bytes, 4000);
	assert_int_equal(st.rx_packets, 4);
	/* the split was charged at p2 only, for (p1, 3) and (p3, 3) */
	for (__u32 out = 0; out < 8; out++)
		for (__u32 p = 0; p < 8; p++) {
			if (out == SLOT_P2 && p == 3)
				continue;
			assert_int_equal(get_eg(out, SLOT_P1, p), 0);
			assert_int_equal(get_eg(out, SLOT_P3, p), 0);
		}
	assert_int_equal(events(), 0);
}

/* The watchdog's drop action: packets to a stormed queue (tx) and from a
 * stormed PG (rx) are dropped, counted, and not charged. */
static void test_watchdog_drop(void **state)
{
	__u8 frame[2048];
	size_t len = ip_frame(frame, "10.0.2.1", DSCP_LOSSLESS, 958);
	__u64 wd0 = drops(XFAB_DROP_PFC_WATCHDOG);
	__u32 mark;

	(void)state;
	set_pfc(SLOT_P1, 0x08, 0, 0, 1000, 100000, 50000);
	clear_states(SLOT_P1);
	clear_states(SLOT_P2);
	note_device(1, 1);
	/* egress queue (p2, 3) stormed */
	set_pfc(SLOT_P2, 0x08, 0x08, 0x08, 1000, 0, 0);
	assert_int_equal(forward(0, frame, len, &mark), TC_SHOT_RC);
	assert_int_equal(get_state(SLOT_P2, 3).wd_tx_dropped, 1);
	assert_int_equal(get_state(SLOT_P1, 3).occupancy_bytes, 0);
	assert_int_equal(drops(XFAB_DROP_PFC_WATCHDOG) - wd0, 1);
	/* another queue of p2 is not */
	set_pfc(SLOT_P2, 0x10, 0x10, 0x10, 1000, 0, 0);
	assert_int_equal(forward(0, frame, len, &mark), TC_REDIRECT_RC);
	assert_int_equal(get_state(SLOT_P1, 3).occupancy_bytes, len);
	set_pfc(SLOT_P2, 0, 0, 0, 1000, 0, 0);
	/* ingress PG (p1, 3) stormed */
	set_pfc(SLOT_P1, 0x08, 0x08, 0x08, 1000, 100000, 50000);
	assert_int_equal(forward(0, frame, len, &mark), TC_SHOT_RC);
	assert_int_equal(get_state(SLOT_P1, 3).wd_rx_dropped, 1);
	assert_int_equal(get_state(SLOT_P1, 3).occupancy_bytes, len);
	assert_int_equal(get_state(SLOT_P1, 3).rx_packets, 1);
	assert_int_equal(drops(XFAB_DROP_PFC_WATCHDOG) - wd0, 2);
	set_pfc(SLOT_P1, 0, 0, 0, 1000, 0, 0);
	events();
}

/* tc: a charged packet whose egress device went down on its way goes
 * back into the pipeline (xfab_tc_egress_down): its bytes come back
 * first, and its tag comes off, so the next pass charges it once. */
static void test_bounce_credit(void **state)
{
	__u8 frame[2048];
	size_t len = ip_frame(frame, "10.0.2.1", DSCP_LOSSLESS, 958);
	struct __sk_buff ctx = {.ifindex = H.ifindex[2],
				.ingress_ifindex = H.ifindex[0],
				.mark = PG_MARK(SLOT_P1, 3),
				.priority = 0x10000 | 4};
	struct xfab_pfc_state st = {.occupancy_bytes = 5000};
	struct xfab_port p3;

	(void)state;
	set_pfc(SLOT_P1, 0x08, 0, 0, 1000, 100000, 50000);
	clear_states(SLOT_P1);
	put_state(SLOT_P1, 3, &st);
	assert_int_equal(bpf_map_lookup_elem(H.fd[XFAB_T_PORTS], &H.ifindex[2], &p3), 0);
	assert_int_equal(system("ip link set p3 down"), 0);
	assert_int_equal(tc_run(H.skel->progs.xfab_tc_egress, &ctx, frame, len), TC_REDIRECT_RC);
	assert_int_equal(system("ip link set p3 up"), 0);
	/* the port's entry as xfabd wrote it (the bounce clears OPER_UP) */
	assert_int_equal(bpf_map_update_elem(H.fd[XFAB_T_PORTS], &H.ifindex[2], &p3, BPF_ANY), 0);
	assert_int_equal(ctx.mark, 0);
	assert_int_equal(get_state(SLOT_P1, 3).occupancy_bytes, 5000 - len);
	set_pfc(SLOT_P1, 0, 0, 0, 1000, 0, 0);
	clear_states(SLOT_P1);
	events();
}

/* ---- live: real veths, a real queue, the dequeue program ---- */

static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc)
		print_message("    `%s` failed (%d)\n", cmd, rc);
	return rc;
}

/* A socket filter that lets through only frames whose skb->mark carries
 * the PG tag: what a receiver sees of the mark. */
static int mark_filter(void)
{
	struct bpf_insn insns[] = {
	    {.code = BPF_LDX | BPF_MEM | BPF_W,
	     .dst_reg = 0,
	     .src_reg = 1,
	     .off = offsetof(struct __sk_buff, mark)},
	    {.code = BPF_ALU | BPF_AND | BPF_K, .dst_reg = 0, .imm = (__s32)XFAB_PFC_MARK_MASK},
	    {.code = BPF_JMP32 | BPF_JNE | BPF_K, .dst_reg = 0, .off = 2, .imm = XFAB_PFC_MARK},
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0xffff},
	    {.code = BPF_JMP | BPF_EXIT},
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "pfc_markf", "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), NULL);

	assert_true(fd >= 0);
	return fd;
}

/* A packet socket on device `name` (in the current namespace), optionally
 * with a socket filter; non-blocking. */
static int packet_socket(const char *name, int filter)
{
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(0x0003)};
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(0x0003)), big = 1 << 22;

	assert_true(fd >= 0);
	/* frames built from XDP's pages are large in truesize */
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)), 0);
	sll.sll_ifindex = (int)if_nametoindex(name);
	assert_true(sll.sll_ifindex > 0);
	if (filter >= 0)
		assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_ATTACH_BPF, &filter, sizeof(filter)),
				 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sll, sizeof(sll)), 0);
	return fd;
}

/* Frames waiting on fd that are our test UDP packets (dport 4791) to dst;
 * their sequence numbers (the payload's first 4 bytes) must rise. */
static int drain(int fd, const char *dst)
{
	__u8 b[2048];
	struct in_addr a;
	int n = 0;
	__u32 last = 0;
	ssize_t r;

	assert_int_equal(inet_pton(AF_INET, dst, &a), 1);
	while ((r = recv(fd, b, sizeof(b), MSG_DONTWAIT)) > 0) {
		__u32 seq;

		if (r < 46 || b[12] != 0x08 || b[13] != 0 || memcmp(b + 30, &a, 4) ||
		    b[36] != 0x12 || b[37] != 0xb7)
			continue;
		seq = (__u32)b[42] << 24 | (__u32)b[43] << 16 | (__u32)b[44] << 8 | b[45];
		assert_true(n == 0 || seq > last); /* in order */
		last = seq;
		n++;
	}
	return n;
}

/* Sends n numbered lossless frames of `payload` bytes from p1's peer. */
static void send_from_peer(const char *dev, const char *dst, __u8 dscp, int n, size_t payload,
			   __u32 mark)
{
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_halen = 6};
	int fd = socket(AF_PACKET, SOCK_RAW, 0);
	__u8 frame[2048];
	size_t len = ip_frame(frame, dst, dscp, payload);

	assert_true(fd >= 0);
	sll.sll_ifindex = (int)if_nametoindex(dev);
	assert_true(sll.sll_ifindex > 0);
	if (mark)
		assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)), 0);
	for (int i = 0; i < n; i++) {
		frame[42] = (__u8)(i >> 24);
		frame[43] = (__u8)(i >> 16);
		frame[44] = (__u8)(i >> 8);
		frame[45] = (__u8)i;
		assert_int_equal(sendto(fd, frame, len, 0, (struct sockaddr *)&sll, sizeof(sll)),
				 (ssize_t)len);
	}
	close(fd);
}

/* Waits (up to 3 s) until PG (p1, 3) has taken `packets` packets since
 * rx0 (XDP's receive runs apart from the sender) and is back to `base`
 * bytes. */
static __u64 wait_occupancy(__u64 base, __u64 rx0, __u64 packets)
{
	struct xfab_pfc_state st = {0};

	for (int i = 0; i < 300; i++) {
		st = get_state(SLOT_P1, 3);
		if (st.occupancy_bytes == base && st.rx_packets - rx0 == packets)
			break;
		usleep(10000);
	}
	return st.occupancy_bytes;
}

#define BASE 100000ull /* bytes already in the PG: any credit too many shows */
#define LIVE_N 20

static char NETNS[32];
static struct bpf_link *DEQ;
static int LINK_IN = -1, LINK_E4 = -1, LINK_E5 = -1, LINK_XDP = -1;

static int link_prog(struct bpf_program *prog, int port, int attach)
{
	int fd = bpf_link_create(bpf_program__fd(prog), (int)H.ifindex[port],
				 (enum bpf_attach_type)attach, NULL);

	assert_true(fd >= 0);
	return fd;
}

/* Enters namespace ns (NULL: back to ours). */
static void enter(const char *ns)
{
	static int self = -1;
	char path[64];
	int fd;

	if (self < 0)
		self = open("/proc/self/ns/net", O_RDONLY);
	assert_true(self >= 0);
	if (!ns) {
		assert_int_equal(setns(self, CLONE_NEWNET), 0);
		return;
	}
	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(setns(fd, CLONE_NEWNET), 0);
	close(fd);
}

static void live_teardown(void);

/* xdp: the xdp datapath on p1 (xfab_xdp, and xfab_tc_handoff for what it
 * hands over), else the tc datapath (xfab_tc) and p5, its peer in a
 * namespace of its own (p5 goes with that namespace: once per suite). */
static void live_setup(int xdp)
{
	struct xfab_pfc_state st = {.occupancy_bytes = BASE};

	live_teardown(); /* what a failed test left */
	snprintf(NETNS, sizeof(NETNS), "tpfc%d", (int)getpid());
	assert_int_equal(sh("for d in p1 p1peer p4 p4peer; do "
			    "echo 1 > /proc/sys/net/ipv6/conf/$d/disable_ipv6; done"),
			 0);
	if (!xdp)
		assert_int_equal(sh("ip netns add %s && ip link set p5peer netns %s && "
				    "ip -n %s link set p5peer up",
				    NETNS, NETNS, NETNS),
				 0);
	/* HTB as xfabd sets it up: class 1:(tc + 1) is the class's queue */
	for (int p = 4; p <= (xdp ? 4 : 5); p++)
		assert_int_equal(
		    sh("tc qdisc replace dev p%d root handle 1: htb default 4 && "
		       "tc class add dev p%d parent 1: classid 1:4 htb rate 1mbit ceil 1mbit "
		       "burst 1600b cburst 1600b quantum 1514",
		       p, p),
		    0);
	DEQ = bpf_program__attach_trace(H.skel->progs.xfab_pfc_dequeue);
	assert_non_null(DEQ);
	if (xdp) {
		LINK_XDP = link_prog(H.skel->progs.xfab_xdp, 0, BPF_XDP);
		LINK_IN = link_prog(H.skel->progs.xfab_tc_handoff, 0, TCX_INGRESS);
	} else {
		LINK_IN = link_prog(H.skel->progs.xfab_tc, 0, TCX_INGRESS);
	}
	LINK_E4 = link_prog(H.skel->progs.xfab_tc_egress, 3, TCX_EGRESS);
	if (!xdp)
		LINK_E5 = link_prog(H.skel->progs.xfab_tc_egress, 4, TCX_EGRESS);
	/* the egress devices noted, as a port's first frame notes it: a
	 * packet to a device not noted yet is not charged */
	note_device(3, 1);
	if (!xdp)
		note_device(4, 1);
	set_pfc(SLOT_P1, 0x08, 0, 0, 1000, BASE + 5000, BASE + 2000);
	clear_states(SLOT_P1);
	put_state(SLOT_P1, 3, &st);
	put_eg(SLOT_P4, SLOT_P1, 3, BASE); /* a credit too many shows there too */
	events();
}

static void live_teardown(void)
{
	if (!NETNS[0])
		return;
	bpf_link__destroy(DEQ);
	DEQ = NULL;
	int *fds[] = {&LINK_IN, &LINK_E4, &LINK_E5, &LINK_XDP};

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
	sh("tc qdisc del dev p4 root; tc qdisc del dev p5 root 2> /dev/null; "
	   "ip netns del %s 2> /dev/null || true",
	   NETNS);
	NETNS[0] = '\0';
	set_pfc(SLOT_P1, 0, 0, 0, 1000, 0, 0);
}

/* A number tc prints for a qdisc or class (kind) of dev: the one after
 * key ("(dropped ", "backlog ") on the lines of the one whose first line
 * names handle; -1 when not found. */
static long tc_stat(const char *kind, const char *dev, const char *handle, const char *key)
{
	char cmd[256], line[512];
	long n = -1;
	FILE *f;
	int mine = 0;

	snprintf(cmd, sizeof(cmd), "tc -s %s show dev %s", kind, dev);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		const char *d = strstr(line, key);

		if (!strncmp(line, kind, strlen(kind)))
			mine = strstr(line, handle) != NULL;
		else if (mine && d && n < 0)
			n = strtol(d + strlen(key), NULL, 10);
	}
	pclose(f);
	return n;
}

/*
 * xfabd's safety net (agent/pfc_resync.c, through user/lib/pfcacct.c's
 * sweep and take) on the live maps, as a poll runs it: what pfc_egress
 * still counts at a queue that holds nothing is taken back off its PG.
 * BASE, in the PG (p1, 3) and in its share at p4 with nothing queued,
 * stands for a give-back missed earlier; occ is what the PG counts now.
 * The sweep must take back all of it, with any credit missed in this run,
 * and leave the PG at what its queues hold: 0, by tc's backlog of p4's
 * and p5's class (the oracle), and its flag down.
 */
static void sweep_judge(__u64 occ)
{
	static __u64 queued[XFAB_MAX_PORTS][XFAB_NUM_PRIO], leak[XFAB_MAX_PORTS][XFAB_NUM_PRIO];
	size_t len = XFAB_PFC_EG_ENTRIES * sizeof(__u64);
	__u32 slots[] = {SLOT_P1, SLOT_P4, SLOT_P5}, flag = 1;
	struct xfab_pfc_state st = get_state(SLOT_P1, 3);
	__u64 *eg;

	assert_int_equal(tc_stat("class", "p4", "1:4", "backlog "), 0);
	if (LINK_E5 >= 0) /* the tc datapath's setup: p5 has a queue too */
		assert_int_equal(tc_stat("class", "p5", "1:4", "backlog "), 0);
	memset(leak, 0, sizeof(leak));
	eg = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, h_map_fd(&H, XFAB_MAP_PFC_EGRESS),
		  0);
	assert_true(eg != MAP_FAILED);
	assert_int_equal(
	    xfab_pg_sweep(eg, slots, 3, 0x08, (const __u64(*)[XFAB_NUM_PRIO])queued, leak), occ);
	munmap(eg, len);
	assert_int_equal(leak[SLOT_P1][3], occ);
	assert_int_equal(xfab_pg_take(st.occupancy_bytes, leak[SLOT_P1][3], 1, BASE + 2000, &flag),
			 0);
	assert_int_equal(flag, 0);
}

/*
 * A lossless packet's whole life on the tc datapath: in at p1 (xfab_tc),
 * charged at p4's egress, held by p4's 1 Mbit/s HTB class, credited as the
 * driver takes it (xfab_pfc_dequeue). The PG starts at BASE bytes, so a
 * credit too many or too few shows: it rises past XOFF (one event), comes
 * back to exactly BASE, and falls below XON (one event) on the way.
 * Every frame arrives, in order.
 */
/*
 * After n packets charged since rx0: waits for the PG to come back to
 * BASE, checks it stays there (no credit comes twice), and puts it back to
 * BASE exactly.
 *
 * The kernel now and then does not report a packet a veth sends: measured
 * 2026-11-29 (kernel 6.18, 2 cores; a debug build with atomic counters at
 * every step, docs/PFC.md): 5 of 392 runs of 20 packets (5 of 7,840
 * packets) ended one credit short. In each, the ingress program charged
 * all 20, net_dev_queue saw all 20 tagged at the noted port, the peer got
 * all 20 in order, and neither net_dev_start_xmit nor net_dev_xmit (the
 * two tracepoints of the same xmit_one call; a program on the second
 * looked at no tag) ran for the one packet; no early return of
 * xfab_pfc_dequeued was taken, xfab_pfc_sub's CAS never gave up and the
 * driver never answered busy. So the data plane may miss one credit here
 * (two in 20 would be a 1 in 10,000 chance at that rate); xfabd's sweep
 * must take it back, which sweep_judge checks on every run.
 */
static __u64 settle(__u64 rx0, __u64 n)
{
	__u64 occ = wait_occupancy(BASE, rx0, n);
	struct xfab_pfc_state st;

	assert_int_equal(get_state(SLOT_P1, 3).rx_packets - rx0, n);
	if (occ != BASE + 1000)
		assert_int_equal(occ, BASE);
	usleep(100000); /* and stays there: no credit comes twice */
	st = get_state(SLOT_P1, 3);
	assert_int_equal(st.occupancy_bytes, occ);
	/* the PG's share at its egress (p4 or p5, started at BASE too) went
	 * the same way: charged and given back packet for packet */
	assert_int_equal(get_eg(SLOT_P4, SLOT_P1, 3) + get_eg(SLOT_P5, SLOT_P1, 3), occ);
	sweep_judge(occ);
	if (occ != BASE)
		print_message("    one credit the kernel did not report: taken back by xfabd's "
			      "sweep (%llu B), the PG at what its queues hold (0 B)\n",
			      (unsigned long long)(occ - BASE));
	st.occupancy_bytes = BASE;
	put_state(SLOT_P1, 3, &st);
	put_eg(SLOT_P4, SLOT_P1, 3, BASE);
	put_eg(SLOT_P5, SLOT_P1, 3, 0);
	return occ;
}

static void live_dequeue(int lossless_rx_fd, int marked_fd)
{
	struct xfab_pfc_state st;
	__u64 occ, rx0 = get_state(SLOT_P1, 3).rx_packets;

	send_from_peer("p1peer", "10.0.4.1", DSCP_LOSSLESS, LIVE_N, 958, 0);
	occ = get_state(SLOT_P1, 3).occupancy_bytes;
	print_message("    20 x 1000 B into a 1 Mbit/s queue: PG at BASE + %llu B just after\n",
		      (unsigned long long)(occ - BASE));
	assert_true(occ >= BASE + 5000); /* queued: charged and not yet back */
	occ = settle(rx0, LIVE_N);
	st = get_state(SLOT_P1, 3);
	assert_int_equal(st.rx_packets - rx0, LIVE_N);
	assert_true(st.peak_occupancy_bytes >= BASE + 5000);
	assert_int_equal(st.xoff, 0);
	assert_int_equal(events(), 2);
	assert_int_equal(EV[0].kind, XFAB_PFC_EV_XOFF);
	assert_int_equal(EV[1].kind, XFAB_PFC_EV_XON);
	assert_int_equal(EV[1].slot, SLOT_P1);
	assert_int_equal(EV[1].prio_mask, 0x08);
	assert_int_equal(EV[1].ifindex, H.ifindex[0]); /* the PG's port */
	assert_true(EV[1].now_ns > EV[0].now_ns);
	assert_int_equal(drain(lossless_rx_fd, "10.0.4.1"), LIVE_N);
	if (marked_fd >= 0) /* same namespace: the mark survives the veth */
		assert_int_equal(drain(marked_fd, "10.0.4.1"), LIVE_N);
}

static void test_dequeue_live(void **state)
{
	int filter = mark_filter(), rx4, m4, rx5, m5;
	__u64 occ, rx0;

	(void)state;
	live_setup(0);
	rx4 = packet_socket("p4peer", -1);
	m4 = packet_socket("p4peer", filter);
	enter(NETNS);
	rx5 = packet_socket("p5peer", -1);
	m5 = packet_socket("p5peer", filter);
	enter(NULL);

	live_dequeue(rx4, m4);

	/* Into another namespace: the peer sees no mark (veth scrubs it). */
	rx0 = get_state(SLOT_P1, 3).rx_packets;
	send_from_peer("p1peer", "10.0.5.1", DSCP_LOSSLESS, LIVE_N, 958, 0);
	occ = settle(rx0, LIVE_N);
	usleep(50000);
	assert_int_equal(drain(rx5, "10.0.5.1"), LIVE_N);
	assert_int_equal(drain(m5, "10.0.5.1"), 0);
	print_message("    mark at the peer: kept in the same namespace (%d of %d), cleared "
		      "across namespaces (0 of %d)\n",
		      LIVE_N, LIVE_N, LIVE_N);
	assert_int_equal(events(), 2);

	/* Only this switch's devices give bytes back: a device of another
	 * namespace with p4's ifindex sends tagged frames, uncredited. */
	assert_int_equal(sh("ip -n %s link add xd0 index %u type veth peer xd1 index 4001 && "
			    "ip -n %s link set xd0 up && ip -n %s link set xd1 up",
			    NETNS, H.ifindex[3], NETNS, NETNS),
			 0);
	enter(NETNS);
	send_from_peer("xd0", "10.0.4.1", DSCP_LOSSLESS, 10, 958, PG_MARK(SLOT_P1, 3));
	enter(NULL);
	/* ... and one that came in there on a device with p1's ifindex (its
	 * tag kept: one namespace) and left by xd0, forwarded by that
	 * namespace: only xd0's device pointer tells it from p4's own */
	{
		const __u8 *m = H.mac[0];
		int fwd;

		assert_int_equal(
		    sh("ip -n %s link add ya index %u address %02x:%02x:%02x:%02x:%02x:%02x type "
		       "veth peer yb index 4002 && ip -n %s link set ya up && ip -n %s link set yb "
		       "up && "
		       "ip netns exec %s sysctl -qw net.ipv4.ip_forward=1 && "
		       "ip -n %s addr add 10.0.1.1/24 dev ya && ip -n %s addr add 10.0.4.0/31 dev "
		       "xd0 "
		       "&& ip -n %s neigh add 10.0.4.1 lladdr 02:00:00:00:04:01 dev xd0",
		       NETNS, H.ifindex[0], m[0], m[1], m[2], m[3], m[4], m[5], NETNS, NETNS, NETNS,
		       NETNS, NETNS, NETNS),
		    0);
		enter(NETNS);
		fwd = packet_socket("xd1", -1);
		send_from_peer("yb", "10.0.4.1", DSCP_LOSSLESS, 10, 958, PG_MARK(SLOT_P1, 3));
		usleep(100000);
		assert_int_equal(drain(fwd, "10.0.4.1"), 10); /* they did leave by xd0 */
		close(fwd);
		enter(NULL);
	}
	/* A tag of ours on a frame the host sends out of a port of ours
	 * (SO_MARK): it came in on no port, uncredited. */
	send_from_peer("p4", "10.0.4.1", DSCP_LOSSLESS, 10, 958, PG_MARK(SLOT_P1, 3));
	usleep(300000); /* 10 frames at 1 Mbit/s: 80 ms */
	assert_int_equal(get_state(SLOT_P1, 3).occupancy_bytes, BASE);
	assert_int_equal(events(), 0);

	/* Never below 0: the PG's count taken away under queued packets (as a
	 * restart would), their credits stop at 0 instead of wrapping. */
	rx0 = get_state(SLOT_P1, 3).rx_packets;
	send_from_peer("p1peer", "10.0.4.1", DSCP_LOSSLESS, 5, 958, 0);
	{
		struct xfab_pfc_state st = get_state(SLOT_P1, 3);

		st.occupancy_bytes = 0;
		put_state(SLOT_P1, 3, &st);
	}
	occ = wait_occupancy(0, rx0, 5);
	usleep(100000);
	assert_int_equal(occ, 0);
	assert_int_equal(get_state(SLOT_P1, 3).occupancy_bytes, 0);
	events();

	close(rx4);
	close(m4);
	close(rx5);
	close(m5);
	close(filter);
	live_teardown();
}

/*
 * A lossless packet the kernel drops instead of sending gives its bytes
 * back too (xfab_pfc_drop on kfree_skb). In at p1 (XDP hands it to tc),
 * out at p4, whose class queue is a bfifo of
 * 3,000 bytes; 20 packets of 1,000 bytes arrive at once and the qdisc
 * drops most of them. The PG must come back to BASE: the dequeue credits
 * the packets that were sent, the drop program the ones that were dropped,
 * and tc's drop count is the oracle. Without the drop program the same
 * burst leaves the PG 1,000 bytes higher for each drop tc counts.
 */
static void test_drop_credit_live(void **state)
{
	struct bpf_link *drop;
	long d0, d1, d2;
	__u64 rx0, occ;
	int rx4;

	(void)state;
	live_setup(1); /* the xdp datapath: handed over, then queued at p4 */
	assert_int_equal(sh("tc qdisc add dev p4 parent 1:4 handle 40: bfifo limit 3000"), 0);
	rx4 = packet_socket("p4peer", -1);
	drop = bpf_program__attach_trace(H.skel->progs.xfab_pfc_drop);
	assert_non_null(drop);

	d0 = tc_stat("qdisc", "p4", "40:", "(dropped ");
	rx0 = get_state(SLOT_P1, 3).rx_packets;
	send_from_peer("p1peer", "10.0.4.1", DSCP_LOSSLESS, LIVE_N, 958, 0);
	occ = settle(rx0, LIVE_N);
	d1 = tc_stat("qdisc", "p4", "40:", "(dropped ");
	print_message("    20 x 1000 B into a 3000 B queue: %ld dropped by the qdisc, %d "
		      "arrived, PG back to BASE + %llu\n",
		      d1 - d0, drain(rx4, "10.0.4.1"), (unsigned long long)(occ - BASE));
	assert_true(d1 - d0 >= LIVE_N / 2);

	/* without it: every drop stays charged */
	bpf_link__destroy(drop);
	rx0 = get_state(SLOT_P1, 3).rx_packets;
	send_from_peer("p1peer", "10.0.4.1", DSCP_LOSSLESS, LIVE_N, 958, 0);
	usleep(400000); /* what was queued has left: 3 x 1000 B at 1 Mbit/s */
	d2 = tc_stat("qdisc", "p4", "40:", "(dropped ");
	occ = get_state(SLOT_P1, 3).occupancy_bytes;
	assert_int_equal(get_state(SLOT_P1, 3).rx_packets - rx0, LIVE_N);
	assert_true(d2 - d1 >= LIVE_N / 2);
	if (occ != BASE + (__u64)(d2 - d1) * 1000) /* one tracepoint miss at most */
		assert_int_equal(occ, BASE + (__u64)(d2 - d1 + 1) * 1000);
	assert_int_equal(get_eg(SLOT_P4, SLOT_P1, 3), occ); /* the split stays charged alike */
	events();
	close(rx4);
	live_teardown();
}

/* ---- the xdp datapath hands lossless classes to tc ---- */

static __u32 xdp_run(const __u8 *frame, size_t len, __u32 *meta_len, __u32 *meta)
{
	struct xdp_md ctx = {.data_end = (__u32)len, .ingress_ifindex = H.ifindex[0]};
	__u8 out[2048];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = (__u32)len,
		    .data_out = out, .data_size_out = sizeof(out), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .ctx_out = &ctx, .ctx_size_out = sizeof(ctx),
		    .repeat = 1);

	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(H.skel->progs.xfab_xdp), &opts), 0);
	*meta_len = ctx.data - ctx.data_meta;
	memcpy(meta, out, 4);
	return opts.retval;
}

/*
 * BPF_PROG_TEST_RUN: a lossless class leaves XDP with the marker in its
 * metadata (not redirected, not counted as a punt); a lossy one, or any
 * class on a port without PFC, is redirected as before. xfab_tc_handoff
 * leaves a packet without the marker to the kernel, untouched.
 */
static void test_xdp_handoff(void **state)
{
	__u8 frame[2048], lossy[2048];
	size_t len = ip_frame(frame, "10.0.4.1", DSCP_LOSSLESS, 100);
	size_t ll = ip_frame(lossy, "10.0.4.1", DSCP_LOSSY, 100);
	__u64 rx0 = port_stat(SLOT_P1, 0), punt0 = port_stat(SLOT_P1, 5),
	      tx0 = port_stat(SLOT_P4, 2);
	__u32 meta_len, meta, ret;

	(void)state;
	set_pfc(SLOT_P1, 0x08, 0, 0, 1000, 0, 0);
	assert_int_equal(xdp_run(frame, len, &meta_len, &meta), XDP_PASS_RC);
	assert_int_equal(meta_len, 4);
	assert_int_equal(meta, XFAB_PFC_HANDOFF_MAGIC);
	assert_int_equal(port_stat(SLOT_P1, 0) - rx0, 1);
	assert_int_equal(port_stat(SLOT_P1, 5), punt0);
	assert_int_equal(port_stat(SLOT_P4, 2), tx0);
	assert_int_equal(xdp_run(lossy, ll, &meta_len, &meta), XDP_REDIRECT_RC);
	assert_int_equal(meta_len, 0);
	assert_int_equal(port_stat(SLOT_P4, 2) - tx0, 1);
	set_pfc(SLOT_P1, 0x10, 0, 0, 1000, 0, 0); /* PFC on, another class */
	assert_int_equal(xdp_run(frame, len, &meta_len, &meta), XDP_REDIRECT_RC);
	set_pfc(SLOT_P1, 0, 0, 0, 1000, 0, 0);
	assert_int_equal(xdp_run(frame, len, &meta_len, &meta), XDP_REDIRECT_RC);
	assert_int_equal(meta_len, 0);
	/* the tc side, without the marker: the kernel's, nothing counted */
	{
		struct __sk_buff ctx = {.ifindex = H.ifindex[0]};
		__u8 out[2048];
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = (__u32)len,
			    .data_out = out, .data_size_out = sizeof(out), .ctx_in = &ctx,
			    .ctx_size_in = sizeof(ctx), .repeat = 1);

		rx0 = port_stat(SLOT_P1, 0);
		assert_int_equal(
		    bpf_prog_test_run_opts(bpf_program__fd(H.skel->progs.xfab_tc_handoff), &opts),
		    0);
		ret = opts.retval;
		assert_int_equal(ret, TC_OK_RC);
		assert_int_equal(port_stat(SLOT_P1, 0), rx0);
	}
}

/*
 * Live, the xdp datapath on p1: lossless packets go XDP -> marker ->
 * xfab_tc_handoff -> p4's real queue, where they are charged and credited
 * like on the tc datapath, arrive in order, and count once at p1 (XDP
 * counted them; the tc side does not again). A frame XDP punts (not IP)
 * is the kernel's: one punt, not two.
 */
static void test_xdp_handoff_live(void **state)
{
	__u64 rx0, tx0, punt0, nonip0, occ;
	int rx4;

	(void)state;
	live_setup(1);
	rx4 = packet_socket("p4peer", -1);
	rx0 = port_stat(SLOT_P1, 0);
	tx0 = port_stat(SLOT_P4, 2);
	punt0 = port_stat(SLOT_P1, 5);
	nonip0 = h_percpu_u64(&H, XFAB_MAP_PUNT_STATS, XFAB_PUNT_NON_IP, 0, 2);
	live_dequeue(rx4, -1);
	assert_int_equal(port_stat(SLOT_P1, 0) - rx0, LIVE_N);
	assert_int_equal(port_stat(SLOT_P4, 2) - tx0, LIVE_N);
	assert_int_equal(port_stat(SLOT_P1, 5), punt0);
	{
		struct sockaddr_ll sll = {.sll_family = AF_PACKET,
					  .sll_halen = 6,
					  .sll_ifindex = (int)if_nametoindex("p1peer")};
		__u8 f[64] = {0};
		int fd = socket(AF_PACKET, SOCK_RAW, 0);

		assert_true(fd >= 0);
		memcpy(f, H.mac[0], 6);
		memcpy(f + 6, PEER_MAC, 6);
		f[12] = 0x88;
		f[13] = 0xb5;
		assert_int_equal(sendto(fd, f, sizeof(f), 0, (struct sockaddr *)&sll, sizeof(sll)),
				 (ssize_t)sizeof(f));
		close(fd);
	}
	usleep(50000);
	assert_int_equal(h_percpu_u64(&H, XFAB_MAP_PUNT_STATS, XFAB_PUNT_NON_IP, 0, 2) - nonip0, 1);
	assert_int_equal(port_stat(SLOT_P1, 5) - punt0, 1);
	assert_int_equal(port_stat(SLOT_P1, 0) - rx0, LIVE_N + 1);
	occ = get_state(SLOT_P1, 3).occupancy_bytes;
	assert_int_equal(occ, BASE);
	close(rx4);
	live_teardown();
}

static int setup(void **state)
{
	(void)state;
	if (h_setup(&H, 5, CONFIG))
		return -1;
	RB = ring_buffer__new(h_map_fd(&H, XFAB_MAP_PFC_EVENTS), on_event, NULL, NULL);
	if (!RB)
		return -1;
	find_dscps();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	live_teardown(); /* after a failed live test */
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
	    cmocka_unit_test(test_forward_accounting),
	    cmocka_unit_test(test_bounce_credit),
	    cmocka_unit_test(test_watchdog_drop),
	    cmocka_unit_test(test_dequeue_live),
	    cmocka_unit_test(test_drop_credit_live),
	    cmocka_unit_test(test_xdp_handoff),
	    cmocka_unit_test(test_xdp_handoff_live),
	};
	return cmocka_run_group_tests_name("bpf_pfc", tests, setup, teardown);
}
