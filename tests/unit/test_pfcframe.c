// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the pause frame library (user/lib/pfcframe.c) against
 * frames written here by hand from the standards, byte by byte (802.1Qbb
 * clause 36.1.3: DA 01-80-C2-00-00-01, Type 88-08, opcode 01-01, a
 * two-octet class-enable vector whose second octet holds priorities 7..0,
 * then time[0]..time[7], most significant octet first; 802.3 annex 31B:
 * opcode 00-01 and one pause_time), and the figures of the quanta (512 bit
 * times: 33.55 ms at 1 Gbit/s, 838.84 us at 40 Gbit/s); then round trips
 * of every vector and every short length.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pfcframe.h"

static const __u8 SRC[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};

/* PFC: priorities 3 and 4 paused for 0xffff quanta (SONiC's storm frame) */
static const __u8 PFC_34[60] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x01,		    /* DA */
    0x02, 0x00, 0x00, 0x00, 0x00, 0x01,		    /* SA */
    0x88, 0x08,					    /* MAC control */
    0x01, 0x01,					    /* PFC */
    0x00, 0x18,					    /* CEV: priorities 3, 4 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, /* time[0..3] */
    0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* time[4..7] */
						    /* 26 octets of padding, zero */
};

/* PFC: every priority, time[n] = 0x0n0(n+1): the order of the times */
static const __u8 PFC_ALL[60] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x88, 0x08, 0x01, 0x01, 0x00, 0xff, 0x00, 0x01, 0x01, 0x02, 0x02, 0x03,
    0x03, 0x04, 0x04, 0x05, 0x05, 0x06, 0x06, 0x07, 0x07, 0x08,
};

/* short: SONiC pfc_gen.py's 7 times (range(0, 7)), priority 0 XOFF 0x1234 */
static const __u8 PFC_SHORT7[32] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x88, 0x08, 0x01, 0x01,
    0x00, 0x01, 0x12, 0x34, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* 802.3x PAUSE, 0x1234 quanta */
static const __u8 PAUSE_1234[60] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00,
    0x00, 0x00, 0x01, 0x88, 0x08, 0x00, 0x01, 0x12, 0x34,
};

static void test_build_pfc(void **state)
{
	__u16 q34[8] = {0, 0, 0, 0xffff, 0xffff, 0, 0, 0};
	__u16 qall[8] = {0x0001, 0x0102, 0x0203, 0x0304, 0x0405, 0x0506, 0x0607, 0x0708};
	__u8 buf[128];

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(xfab_pfc_build(buf, sizeof(buf), SRC, 0x18, q34, 8), 60);
	assert_memory_equal(buf, PFC_34, 60);
	assert_int_equal(buf[60], 0xee); /* nothing written past the frame */
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(xfab_pfc_build(buf, sizeof(buf), SRC, 0xff, qall, 8), 60);
	assert_memory_equal(buf, PFC_ALL, 60);
	/* exactly the room it needs is enough */
	assert_int_equal(xfab_pfc_build(buf, 60, SRC, 0x18, q34, 8), 60);
}

static void test_build_short(void **state)
{
	__u16 q[8] = {0x1234, 0, 0, 0, 0, 0, 0, 0x5555};
	__u8 buf[64];

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(xfab_pfc_build(buf, sizeof(buf), SRC, 0x01, q, 7), 32);
	assert_memory_equal(buf, PFC_SHORT7, 32);
	assert_int_equal(buf[32], 0xee); /* unpadded */
	/* no times at all: header and vector */
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(xfab_pfc_build(buf, sizeof(buf), SRC, 0x01, q, 0), 18);
	assert_memory_equal(buf, PFC_SHORT7, 18);
	assert_int_equal(buf[18], 0xee);
	/* one time */
	assert_int_equal(xfab_pfc_build(buf, sizeof(buf), SRC, 0x01, q, 1), 20);
	assert_memory_equal(buf, PFC_SHORT7, 20);
}

static void test_build_pause(void **state)
{
	__u8 buf[64];

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(xfab_pause_build(buf, sizeof(buf), SRC, 0x1234), 60);
	assert_memory_equal(buf, PAUSE_1234, 60);
	assert_int_equal(buf[60], 0xee);
}

static void test_build_refused(void **state)
{
	__u16 q[8] = {0};
	__u8 buf[64];

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(xfab_pfc_build(buf, 59, SRC, 0x18, q, 8), 0);
	assert_int_equal(xfab_pfc_build(buf, 31, SRC, 0x18, q, 7), 0);
	assert_int_equal(xfab_pfc_build(buf, sizeof(buf), SRC, 0x18, q, 9), 0);
	assert_int_equal(xfab_pause_build(buf, 59, SRC, 1), 0);
	assert_int_equal(buf[0], 0xee); /* nothing written */
}

static void test_parse_pfc(void **state)
{
	struct xfab_macc m;
	char err[160];

	(void)state;
	assert_int_equal(xfab_macc_parse(PFC_34, 60, NULL, &m, err, sizeof(err)), XFAB_MACC_OK);
	assert_string_equal(err, "");
	assert_int_equal(m.opcode, 0x0101);
	assert_int_equal(m.vector, 0x18);
	assert_int_equal(m.timers, 8);
	assert_memory_equal(m.dst, PFC_34, 6);
	assert_memory_equal(m.src, SRC, 6);
	for (int i = 0; i < 8; i++)
		assert_int_equal(m.quanta[i], i == 3 || i == 4 ? 0xffff : 0);
	assert_int_equal(xfab_macc_parse(PFC_ALL, 60, NULL, &m, NULL, 0), XFAB_MACC_OK);
	assert_int_equal(m.vector, 0xff);
	for (int i = 0; i < 8; i++)
		assert_int_equal(m.quanta[i], (i << 8) | (i + 1));
}

static void test_parse_reserved_octet_ignored(void **state)
{
	struct xfab_macc m;
	__u8 f[60];

	(void)state;
	memcpy(f, PFC_34, 60);
	f[16] = 0xa5; /* reserved: not priorities */
	assert_int_equal(xfab_macc_parse(f, 60, NULL, &m, NULL, 0), XFAB_MACC_OK);
	assert_int_equal(m.vector, 0x18);
}

static void test_parse_short(void **state)
{
	struct xfab_macc m;
	__u8 f[64];

	(void)state;
	assert_int_equal(xfab_macc_parse(PFC_SHORT7, 32, NULL, &m, NULL, 0), XFAB_MACC_OK);
	assert_int_equal(m.vector, 0x01);
	assert_int_equal(m.timers, 7);
	assert_int_equal(m.quanta[0], 0x1234);
	assert_int_equal(m.quanta[7], 0);
	/* a missing time reads 0 even where padding would have held another
	 * value: the frame ends at 34 - 2 bytes */
	memcpy(f, PFC_ALL, 60);
	assert_int_equal(xfab_macc_parse(f, 32, NULL, &m, NULL, 0), XFAB_MACC_OK);
	assert_int_equal(m.timers, 7);
	assert_int_equal(m.quanta[6], 0x0607);
	assert_int_equal(m.quanta[7], 0);
	/* half a time is no time */
	assert_int_equal(xfab_macc_parse(f, 21, NULL, &m, NULL, 0), XFAB_MACC_OK);
	assert_int_equal(m.timers, 1);
	assert_int_equal(m.quanta[0], 0x0001);
	assert_int_equal(m.quanta[1], 0);
	/* the vector alone: every time 0 (XON) */
	assert_int_equal(xfab_macc_parse(f, 18, NULL, &m, NULL, 0), XFAB_MACC_OK);
	assert_int_equal(m.timers, 0);
	assert_int_equal(m.vector, 0xff);
	for (int i = 0; i < 8; i++)
		assert_int_equal(m.quanta[i], 0);
	/* an FCS after the padding changes nothing */
	memset(f + 60, 0x77, 4);
	assert_int_equal(xfab_macc_parse(f, 64, NULL, &m, NULL, 0), XFAB_MACC_OK);
	assert_int_equal(m.timers, 8);
	assert_int_equal(m.quanta[7], 0x0708);
}

static void test_parse_pause(void **state)
{
	struct xfab_macc m;

	(void)state;
	assert_int_equal(xfab_macc_parse(PAUSE_1234, 60, NULL, &m, NULL, 0), XFAB_MACC_OK);
	assert_int_equal(m.opcode, 0x0001);
	assert_int_equal(m.vector, 0xff);
	assert_int_equal(m.timers, 1);
	for (int i = 0; i < 8; i++)
		assert_int_equal(m.quanta[i], 0x1234);
	/* without its time: XON */
	assert_int_equal(xfab_macc_parse(PAUSE_1234, 16, NULL, &m, NULL, 0), XFAB_MACC_OK);
	assert_int_equal(m.timers, 0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(m.quanta[i], 0);
	assert_int_equal(xfab_macc_parse(PAUSE_1234, 17, NULL, &m, NULL, 0), XFAB_MACC_OK);
	assert_int_equal(m.timers, 0);
	assert_int_equal(m.quanta[0], 0);
}

static void test_parse_errors(void **state)
{
	struct xfab_macc m, before;
	char err[160];
	__u8 f[60];

	(void)state;
	memset(&before, 0x5a, sizeof(before));
	/* PFC cut before its vector */
	m = before;
	assert_int_equal(xfab_macc_parse(PFC_34, 17, NULL, &m, err, sizeof(err)),
			 XFAB_MACC_TRUNCATED);
	assert_non_null(strstr(err, "byte 17"));
	assert_non_null(strstr(err, "class-enable vector"));
	assert_memory_equal(&m, &before, sizeof(m)); /* left unchanged */
	/* any frame cut before its opcode */
	assert_int_equal(xfab_macc_parse(PAUSE_1234, 15, NULL, &m, err, sizeof(err)),
			 XFAB_MACC_TRUNCATED);
	assert_non_null(strstr(err, "opcode"));
	assert_int_equal(xfab_macc_parse(PFC_34, 14, NULL, &m, NULL, 0), XFAB_MACC_TRUNCATED);
	assert_int_equal(xfab_macc_parse(PFC_34, 13, NULL, &m, NULL, 0), XFAB_MACC_NOT_MAC_CONTROL);
	/* other opcodes: 802.3's GATE (0x0002), PFC's neighbour 0x0102 */
	memcpy(f, PFC_34, 60);
	f[15] = 0x02;
	assert_int_equal(xfab_macc_parse(f, 60, NULL, &m, err, sizeof(err)), XFAB_MACC_BAD_OPCODE);
	assert_non_null(strstr(err, "0x0102"));
	f[14] = 0x00;
	assert_int_equal(xfab_macc_parse(f, 60, NULL, &m, NULL, 0), XFAB_MACC_BAD_OPCODE);
	f[15] = 0x03; /* odd, as PAUSE is */
	assert_int_equal(xfab_macc_parse(f, 60, NULL, &m, NULL, 0), XFAB_MACC_BAD_OPCODE);
	f[14] = 0x02; /* PFC's low octet */
	f[15] = 0x01;
	assert_int_equal(xfab_macc_parse(f, 60, NULL, &m, NULL, 0), XFAB_MACC_BAD_OPCODE);
	assert_memory_equal(&m, &before, sizeof(m));
	/* not MAC control: IPv4 */
	memcpy(f, PFC_34, 60);
	f[12] = 0x08;
	f[13] = 0x00;
	assert_int_equal(xfab_macc_parse(f, 60, NULL, &m, err, sizeof(err)),
			 XFAB_MACC_NOT_MAC_CONTROL);
	assert_non_null(strstr(err, "byte 12"));
	f[12] = 0x88;
	f[13] = 0x09;
	assert_int_equal(xfab_macc_parse(f, 60, NULL, &m, NULL, 0), XFAB_MACC_NOT_MAC_CONTROL);
	assert_string_equal(xfab_macc_status_name(XFAB_MACC_NOT_MAC_CONTROL), "not_mac_control");
	assert_string_equal(xfab_macc_status_name(XFAB_MACC_TRUNCATED), "truncated");
	assert_string_equal(xfab_macc_status_name(XFAB_MACC_BAD_OPCODE), "bad_opcode");
	assert_string_equal(xfab_macc_status_name(XFAB_MACC_BAD_DST), "bad_dst");
}

static void test_parse_destination(void **state)
{
	static const __u8 own[6] = {0x02, 0xbb, 0, 0, 0, 0x07};
	struct xfab_macc m;
	__u8 f[60];

	(void)state;
	memcpy(f, PAUSE_1234, 60);
	f[5] = 0x02; /* 01:80:c2:00:00:02: slow protocols, not MAC control's */
	assert_int_equal(xfab_macc_parse(f, 60, NULL, &m, NULL, 0), XFAB_MACC_BAD_DST);
	assert_int_equal(xfab_macc_parse(f, 60, own, &m, NULL, 0), XFAB_MACC_BAD_DST);
	f[0] = 0x00; /* one bit off the multicast address */
	f[5] = 0x01;
	assert_int_equal(xfab_macc_parse(f, 60, NULL, &m, NULL, 0), XFAB_MACC_BAD_DST);
	/* the port's own address: 802.3 annex 31B allows it */
	memcpy(f, own, 6);
	assert_int_equal(xfab_macc_parse(f, 60, NULL, &m, NULL, 0), XFAB_MACC_BAD_DST);
	assert_int_equal(xfab_macc_parse(f, 60, own, &m, NULL, 0), XFAB_MACC_OK);
	assert_memory_equal(m.dst, own, 6);
	assert_int_equal(m.quanta[5], 0x1234);
}

static void test_quanta_time(void **state)
{
	(void)state;
	/* one quantum: 512 bit times */
	assert_int_equal(xfab_pfc_quanta_to_ns(1, 1000), 512);
	assert_int_equal(xfab_pfc_quanta_to_ns(1, 100), 5120);
	assert_int_equal(xfab_pfc_quanta_to_ns(10, 10000), 512);
	/* the longest pause: 33.55 ms at 1G, 838.84 us at 40G, 335.5 us at 100G */
	assert_int_equal(xfab_pfc_quanta_to_ns(65535, 1000), 33553920);
	assert_int_equal(xfab_pfc_quanta_to_ns(65535, 40000), 838848);
	assert_int_equal(xfab_pfc_quanta_to_ns(65535, 100000), 335539);
	assert_int_equal(xfab_pfc_quanta_to_ns(65535, 0), 0);
	/* and back: at least the time asked */
	assert_int_equal(xfab_pfc_ns_to_quanta(512, 1000), 1);
	assert_int_equal(xfab_pfc_ns_to_quanta(513, 1000), 2);
	assert_int_equal(xfab_pfc_ns_to_quanta(511, 1000), 1);
	assert_int_equal(xfab_pfc_ns_to_quanta(0, 1000), 0);
	assert_int_equal(xfab_pfc_ns_to_quanta(300000000, 100), 58594); /* 300 ms at 100M */
	assert_int_equal(xfab_pfc_ns_to_quanta(33553920, 1000), 65535);
	assert_int_equal(xfab_pfc_ns_to_quanta(33553921, 1000), 65535); /* the most */
	assert_int_equal(xfab_pfc_ns_to_quanta(1000000000, 1000), 65535);
	assert_int_equal(xfab_pfc_ns_to_quanta(~0ull, 400000), 65535);
	assert_int_equal(xfab_pfc_ns_to_quanta(~0ull / 2, 1), 65535);
	assert_int_equal(xfab_pfc_ns_to_quanta(1000, 0), 0);
}

static void test_round_trip(void **state)
{
	__u8 buf[64];
	struct xfab_macc m;

	(void)state;
	for (unsigned int v = 0; v < 256; v++)
		for (unsigned int t = 0; t <= 8; t++) {
			__u16 q[8];
			size_t len;

			for (int i = 0; i < 8; i++)
				q[i] = (__u16)(v * 257 + (unsigned int)i * 4099 + t);
			len = xfab_pfc_build(buf, sizeof(buf), SRC, (__u8)v, q, t);
			assert_int_equal(len, t == 8 ? 60 : 18 + 2 * t);
			assert_int_equal(xfab_macc_parse(buf, len, NULL, &m, NULL, 0),
					 XFAB_MACC_OK);
			assert_int_equal(m.opcode, XFAB_MAC_CONTROL_PFC);
			assert_int_equal(m.vector, v);
			assert_int_equal(m.timers, t);
			assert_memory_equal(m.src, SRC, 6);
			for (unsigned int i = 0; i < 8; i++)
				assert_int_equal(m.quanta[i], i < t ? q[i] : 0);
		}
	for (unsigned int t = 0; t <= 0xffff; t += 257) {
		assert_int_equal(xfab_pause_build(buf, sizeof(buf), SRC, (__u16)t), 60);
		assert_int_equal(xfab_macc_parse(buf, 60, NULL, &m, NULL, 0), XFAB_MACC_OK);
		assert_int_equal(m.opcode, XFAB_MAC_CONTROL_PAUSE);
		assert_int_equal(m.quanta[7], t);
	}
}

static void test_parse_prios(void **state)
{
	static const char *const bad[] = {"", "8", "3,", ",3", "3-1", "a", "3;4", "3-", "-3", "34"};
	char err[160];
	__u8 v = 0x99;

	(void)state;
	assert_int_equal(xfab_pfc_parse_prios("3,4", &v, err, sizeof(err)), 0);
	assert_int_equal(v, 0x18);
	assert_int_equal(xfab_pfc_parse_prios("0-2,5", &v, err, sizeof(err)), 0);
	assert_int_equal(v, 0x27);
	assert_int_equal(xfab_pfc_parse_prios("7", &v, err, sizeof(err)), 0);
	assert_int_equal(v, 0x80);
	assert_int_equal(xfab_pfc_parse_prios("0-7", &v, err, sizeof(err)), 0);
	assert_int_equal(v, 0xff);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 0x99;
		assert_int_equal(xfab_pfc_parse_prios(bad[i], &v, err, sizeof(err)), -1);
		assert_int_equal(v, 0x99);
		assert_non_null(strstr(err, "at character"));
	}
	xfab_pfc_parse_prios("3,9", &v, err, sizeof(err));
	assert_non_null(strstr(err, "at character 3"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_build_pfc),
	    cmocka_unit_test(test_build_short),
	    cmocka_unit_test(test_build_pause),
	    cmocka_unit_test(test_build_refused),
	    cmocka_unit_test(test_parse_pfc),
	    cmocka_unit_test(test_parse_reserved_octet_ignored),
	    cmocka_unit_test(test_parse_short),
	    cmocka_unit_test(test_parse_pause),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_parse_destination),
	    cmocka_unit_test(test_quanta_time),
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_parse_prios),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
